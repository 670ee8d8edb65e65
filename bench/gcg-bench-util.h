/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What every benchmark needs: a monotonic clock in nanoseconds, and the
 * GPU or a one-line skip (exit status 77, counted as skipped by meson).
 */
#pragma once

#include <gcg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline gint64
gcg_bench_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* Device 0, or prints "@name: skipped, ..." and exits 77. */
static inline GcgContext *
gcg_bench_open_gpu (const gchar *name)
{
  g_autoptr (GError) error = NULL;
  GcgContext *ctx = NULL;

  if (gcg_context_get_device_count (&error) > 0)
    ctx = gcg_context_new (0, &error);
  if (ctx == NULL) {
    printf ("%s: skipped, no CUDA device (%s)\n", name,
        error ? error->message : "device count is 0");
    exit (77);
  }
  return ctx;
}
