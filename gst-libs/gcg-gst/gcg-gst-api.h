/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* GCG_GST_API marks what libgcg-gst-1.0 exports: the library is built
 * with -fvisibility=hidden, so a function without it stays inside. */
#if defined(GCG_GST_COMPILATION)
#define GCG_GST_API __attribute__ ((visibility ("default"))) extern
#else
#define GCG_GST_API extern
#endif
