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

void gcg__frame_batch_chain_config (const GcgFrameBatchConfig *config,
    const GcgFrameBatchSource *source, GcgFrameChainConfig *chain);

gsize gcg__frame_batch_params_size (const GcgFrameBatchConfig *config);
gsize gcg__frame_batch_params_stride (const GcgFrameBatchConfig *config);

/* What the kernels after a batch's op see of one batch
 * (gcg-frame-batch-kernel.c): the tensor as the output of one chain of
 * max_sources × max_rois items, its address in dst[0], the batch's
 * number as the frame number. */
typedef struct
{
  GcgFrameChainConfig config;
  GcgFrameParams params;
  GcgFrameStageIo io;
  guint64 batches;
} GcgFrameBatchView;

GcgFrameBatchView *gcg__frame_batch_view_new (
    const GcgFrameBatchConfig *config);

const GcgFrameStageIo *gcg__frame_batch_view_io (GcgFrameBatchView *view,
    guint64 dst, guint n_items, GcgFrameValueLookup lookup,
    gpointer lookup_data);

/* With a model: the stages' output is the frame's buffer @out, @size
 * bytes, while the op writes the model's input. */
void gcg__frame_batch_view_set_output (GcgFrameBatchView *view, guint64 out,
    gsize size);

/* With a postprocess: each item's source rectangle and the results area
 * of the batch. */
void gcg__frame_batch_view_set_results (GcgFrameBatchView *view,
    const GcgRect *item_rects, guint64 results);

void gcg__frame_batch_set_postprocess (GcgFrameBatch *self,
    GcgFrameStage *stage, const GcgPostprocessConfig *config);
GcgFrameStage *gcg__frame_batch_peek_postprocess (GcgFrameBatch *self,
    GcgPostprocessConfig *config);

void gcg__frame_batch_set_model (GcgFrameBatch *self, GcgModelGraph *model,
    GcgFrameStage *stage);
GcgModelGraph *gcg__frame_batch_peek_model (GcgFrameBatch *self,
    GcgFrameStage **stage);

GCG_PRIVATE_API gboolean gcg__frame_batch_add_stage (GcgFrameBatch *self,
    GcgFrameStage *stage, GError **error);

GCG_PRIVATE_API GcgContext *gcg__frame_batch_get_context (GcgFrameBatch *self);

GCG_PRIVATE_API void gcg__frame_batch_set_value_lookup (GcgFrameBatch *self,
    GcgFrameValueLookup lookup, gpointer user_data);

G_END_DECLS
