/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A graph made elsewhere (a user's model, PyTorch's captured graph) inside
 * the graph a stream is capturing: it becomes a child graph node after
 * what the stream queued so far, and what the stream queues next follows
 * it.
 */
#pragma once

#include "gcg-stream-private.h"

G_BEGIN_DECLS

/* The nodes of @graph (free with g_free()), or NULL with @error set;
 * *n may be 0. */
CUgraphNode *gcg__graph_get_nodes (CUgraph graph, size_t *n, GError **error);

/* How deep gcg__child_graph_check() follows child graph nodes: a graph
 * nested deeper is refused rather than walked without bound. */
#define GCG_CHILD_GRAPH_MAX_DEPTH 8

/* %TRUE when @graph can become a child graph node: the driver refuses
 * graphs holding memory allocation or free nodes there (PyTorch's
 * cudaMallocAsync backend records them), at any depth.  Otherwise
 * %GCG_ERROR_NOT_SUPPORTED naming the cause. */
GCG_PRIVATE_API gboolean gcg__child_graph_check (CUgraph graph, GError **error);

/* Adds @graph (cloned by the driver) to the capture under way on @stream,
 * depending on everything the stream queued so far; the stream's next
 * work depends on it.  %GCG_ERROR_CAPTURE_STATE when @stream is not
 * capturing. */
GCG_PRIVATE_API gboolean gcg__child_graph_add_to_capture (GcgStream *stream,
    CUgraph graph, GError **error);

G_END_DECLS
