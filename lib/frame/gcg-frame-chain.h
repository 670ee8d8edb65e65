/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-frame-types.h"
#include "gcg-kernel-op.h"
#include "gcg-model-graph.h"
#include "gcg-result.h"

G_BEGIN_DECLS

#define GCG_TYPE_FRAME_CHAIN (gcg_frame_chain_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgFrameChain, gcg_frame_chain, GCG, FRAME_CHAIN, GObject)

GCG_API
GcgFrameChain *gcg_frame_chain_new (const GcgFrameChainConfig *config,
    GcgBackend backend, GcgContext *context, GError **error);

GCG_API
GcgBackend gcg_frame_chain_get_backend (GcgFrameChain *self);

GCG_API
void gcg_frame_chain_get_config (GcgFrameChain *self,
    GcgFrameChainConfig *config);

GCG_API
void gcg_frame_chain_set_use_graph (GcgFrameChain *self, gboolean use_graph);

GCG_API
gboolean gcg_frame_chain_get_use_graph (GcgFrameChain *self);

GCG_API
gboolean gcg_frame_chain_process (GcgFrameChain *self,
    const GcgFrameParams *params, GcgStream *stream, GError **error);

GCG_API
gboolean gcg_frame_chain_attach_model (GcgFrameChain *self,
    GcgModelGraph *model, gboolean keep_input, GError **error);

GCG_API
GcgModelGraph *gcg_frame_chain_get_model (GcgFrameChain *self);

GCG_API
gsize gcg_frame_chain_get_output_size (GcgFrameChain *self);

GCG_API
gboolean gcg_frame_chain_get_output_tensor (GcgFrameChain *self, guint index,
    gsize *offset, gsize *n_bytes);

GCG_API
gboolean gcg_frame_chain_add_kernel (GcgFrameChain *chain, GcgKernelOp *op,
    GcgKernelPosition position, GError **error);

GCG_API
gboolean gcg_frame_chain_set_postprocess (GcgFrameChain *self,
    const GcgPostprocessConfig *config, GError **error);

GCG_API
gboolean gcg_frame_chain_set_postprocess_kernel (GcgFrameChain *self,
    const GcgPostprocessConfig *config, GcgKernelOp *op, GError **error);

GCG_API
gboolean gcg_frame_chain_get_postprocess (GcgFrameChain *self,
    GcgPostprocessConfig *config);

GCG_API
gsize gcg_frame_chain_get_results_size (GcgFrameChain *self);

GCG_API
guint64 gcg_frame_chain_get_capture_count (GcgFrameChain *self);

GCG_API
guint64 gcg_frame_chain_get_replay_count (GcgFrameChain *self);

GCG_API
guint64 gcg_frame_chain_get_eager_count (GcgFrameChain *self);

G_END_DECLS
