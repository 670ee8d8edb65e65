/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-frame-batch.h"
#include "gcg-frame-stage-private.h"
#include "gcg-result.h"
#include "kernels/gcg-frame-kernel-params.h"

G_BEGIN_DECLS

GCG_PRIVATE_API void gcg__frame_batch_chain_config (
    const GcgFrameBatchConfig *config, const GcgFrameBatchSource *source,
    GcgFrameChainConfig *chain);

gsize gcg__frame_batch_params_size (const GcgFrameBatchConfig *config);
gsize gcg__frame_batch_params_stride (const GcgFrameBatchConfig *config);

/* What the stages after a batch's op see of one batch
 * (gcg-frame-batch.c): the tensor as the output of one chain of
 * max_sources × max_rois items, its address in dst[0], the batch's
 * number as the frame number. */
typedef struct
{
  GcgFrameChainConfig config;
  GcgFrameParams params;
  GcgFrameStageIo io;
  guint64 batches;
} GcgFrameBatchView;

GCG_PRIVATE_API GcgFrameBatch *gcg__frame_batch_new_stages_only (
    const GcgFrameChainConfig *config, GcgContext *context, GError **error);

GCG_PRIVATE_API gboolean gcg__frame_batch_add_stage (GcgFrameBatch *self,
    GcgFrameStage *stage, GError **error);

GCG_PRIVATE_API void gcg__frame_batch_set_value_lookup (GcgFrameBatch *self,
    GcgFrameValueLookup lookup, gpointer user_data);

G_END_DECLS
