/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The debug category of a helper that any element may call (the CUDA
 * interop, host registration, video frames, the user's kernel): made the
 * first time it is used, so that it needs no element's class_init to run
 * first and logs under its own name, not an element's.  A file sets
 *
 *   static GstDebugCategory *video_debug;
 *   #define GST_CAT_DEFAULT \
 *     gst_cuda_graph_debug_category (&video_debug, "cudagraphvideo", \
 *         "cudagraph video frames")
 *
 * The log macros evaluate GST_CAT_DEFAULT only when their level is
 * enabled. */
static inline GstDebugCategory *
gst_cuda_graph_debug_category (GstDebugCategory **slot, const gchar *name,
    const gchar *description)
{
  if (g_once_init_enter (slot)) {
    GstDebugCategory *category = NULL;

    GST_DEBUG_CATEGORY_INIT (category, name, 0, description);
    g_once_init_leave (slot, category);
  }
  return *slot;
}

G_END_DECLS
