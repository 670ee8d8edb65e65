/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * How a benchmark gives up on a failed call: one line on stderr, named by
 * the program (g_option_context_parse() sets it from argv[0]), and exit
 * status 1.
 */
#pragma once

#include <gcg.h>

G_NORETURN void gcg_bench_die (const gchar *what, const GError *error);
void gcg_bench_check (gboolean ok, const gchar *what, const GError *error);
/* @event is a CUevent (kept opaque here: bench-pipeline includes the
 * toolkit's cuda.h, the others the library's own declarations). */
void gcg_bench_record (GcgStream *stream, gpointer event);
