/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-graph.h"
#include "gcg-capture-pool-private.h"

G_BEGIN_DECLS

GcgGraph *gcg__graph_new_take (GcgContext *context, CUgraph graph,
    GcgCapturePool *pool, GError **error);
gboolean gcg__graph_update_take (GcgGraph *self, CUgraph graph,
    GcgCapturePool *pool, gboolean *reinstantiated, GError **error);
gboolean gcg__graph_same_context (GcgGraph *self, GcgStream *stream);
GCG_PRIVATE_API CUgraph gcg__graph_get_cu (GcgGraph *self);
gboolean gcg__graph_find_kernel_node (GcgGraph *self, CUfunction fn,
    CUgraphNode *node, GError **error);
gboolean gcg__graph_set_kernel_params (GcgGraph *self, CUgraphNode node,
    const CUDA_KERNEL_NODE_PARAMS *params, GError **error);

/* Every CUgraph and CUgraphExec the library holds is counted, so tests can
 * check that no failure path leaks one. */
void gcg__graph_handle_acquired (void);
void gcg__graph_destroy_cu (CUgraph graph);
void gcg__graph_destroy_exec (CUgraphExec exec);
GCG_PRIVATE_API gint gcg__graph_debug_live_handles (void);

G_END_DECLS
