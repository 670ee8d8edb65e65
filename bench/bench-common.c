/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "bench-common.h"
#include "gcg-stream-private.h"

#include <stdio.h>
#include <stdlib.h>

/* Prints "<program>: @what: <@error's message, or "failed">" and exits 1. */
void
gcg_bench_die (const gchar *what, const GError *error)
{
  const gchar *name = g_get_prgname ();

  fprintf (stderr, "%s: %s: %s\n", name ? name : "bench", what,
      error ? error->message : "failed");
  exit (1);
}

/* Dies with @what and @error unless @ok. */
void
gcg_bench_check (gboolean ok, const gchar *what, const GError *error)
{
  if (!ok)
    gcg_bench_die (what, error);
}

/* Records @event on @stream, or dies. */
void
gcg_bench_record (GcgStream *stream, gpointer event)
{
  GError *error = NULL;

  gcg_bench_check (GCG_CU_OK (&error, cuEventRecord, (CUevent) event,
                       gcg__stream_get_cu (stream)),
      "cuEventRecord", error);
}
