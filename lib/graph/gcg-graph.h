/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-capture-pool.h"

G_BEGIN_DECLS

#define GCG_TYPE_GRAPH (gcg_graph_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgGraph, gcg_graph, GCG, GRAPH, GObject)

GCG_API
gboolean gcg_graph_launch (GcgGraph *self, GcgStream *stream, GError **error);

GCG_API
gboolean gcg_graph_upload (GcgGraph *self, GcgStream *stream, GError **error);

GCG_API
guint64 gcg_graph_get_replay_count (GcgGraph *self);

GCG_API
gboolean gcg_graph_is_uploaded (GcgGraph *self);

GCG_API
guint gcg_graph_get_node_count (GcgGraph *self);

GCG_API
guint gcg_graph_get_alloc_node_count (GcgGraph *self);

GCG_API
GcgCapturePool *gcg_graph_get_pool (GcgGraph *self);

GCG_API
GcgContext *gcg_graph_get_context (GcgGraph *self);

GCG_API
gpointer gcg_graph_get_handle (GcgGraph *self);

GCG_API
gpointer gcg_graph_get_graph_handle (GcgGraph *self);

GCG_API
gboolean gcg_graph_dump_dot (GcgGraph *self, const gchar *path,
    gboolean verbose, GError **error);

GCG_API
gboolean gcg_graph_get_device_graph_memory (GcgGraph *self, guint64 *used,
    guint64 *reserved, GError **error);

G_END_DECLS
