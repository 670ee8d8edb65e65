/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-allocator.h"
#include "gcg-graph.h"
#include "gcg-host-pool.h"

G_BEGIN_DECLS

/**
 * GcgDispatchFlags:
 * @GCG_DISPATCH_FLAGS_NONE: no flags
 * @GCG_DISPATCH_FLAGS_COOPERATIVE: the work needs cooperative launches;
 *   refused, since stream capture records plain kernel launches only
 * @GCG_DISPATCH_FLAGS_MUTATES_INPUTS: the work writes its input buffers, so
 *   the resident-input graph (which skips the uploads) is never used
 *
 * Options of gcg_dispatch_graph_record().
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/
{
  GCG_DISPATCH_FLAGS_NONE = 0,
  GCG_DISPATCH_FLAGS_COOPERATIVE = 1 << 0,
  GCG_DISPATCH_FLAGS_MUTATES_INPUTS = 1 << 1,
} GcgDispatchFlags;

#define GCG_TYPE_DISPATCH_GRAPH (gcg_dispatch_graph_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgDispatchGraph, gcg_dispatch_graph, GCG, DISPATCH_GRAPH,
    GObject)

/**
 * GcgDispatchFunc:
 * @dispatch: the #GcgDispatchGraph being recorded
 * @stream: the capturing stream: enqueue kernels on it
 * @user_data: the data given to gcg_dispatch_graph_record()
 * @error: return location for a #GError
 *
 * Enqueues the kernels of one dispatch.  Buffers are found with
 * gcg_dispatch_graph_get_input_ptr() and
 * gcg_dispatch_graph_get_output_ptr(); nothing may be allocated or
 * synchronised here.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
typedef gboolean (*GcgDispatchFunc) (GcgDispatchGraph *dispatch,
    GcgStream *stream, gpointer user_data, GError **error);

GCG_API
GcgDispatchGraph *gcg_dispatch_graph_new (GcgContext *context,
    const gsize *input_sizes, guint n_inputs, const gsize *output_sizes,
    guint n_outputs, GError **error);

GCG_API
GcgDispatchGraph *gcg_dispatch_graph_new_full (GcgAllocator *allocator,
    GcgHostPool *host_pool, const gsize *input_sizes, guint n_inputs,
    const gsize *output_sizes, guint n_outputs, GError **error);

GCG_API
gboolean gcg_dispatch_graph_record (GcgDispatchGraph *self,
    GcgDispatchFlags flags, GcgDispatchFunc func, gpointer user_data,
    GError **error);

GCG_API
gboolean gcg_dispatch_graph_dispatch (GcgDispatchGraph *self, GBytes **inputs,
    guint n_inputs, gboolean inputs_unchanged, GError **error);

GCG_API
GBytes *gcg_dispatch_graph_get_output (GcgDispatchGraph *self, guint index);

GCG_API
guint64 gcg_dispatch_graph_get_input_ptr (GcgDispatchGraph *self, guint index);

GCG_API
guint64 gcg_dispatch_graph_get_output_ptr (GcgDispatchGraph *self, guint index);

GCG_API
GcgStream *gcg_dispatch_graph_get_stream (GcgDispatchGraph *self);

GCG_API
guint64 gcg_dispatch_graph_get_full_replays (GcgDispatchGraph *self);

GCG_API
guint64 gcg_dispatch_graph_get_resident_replays (GcgDispatchGraph *self);

G_END_DECLS
