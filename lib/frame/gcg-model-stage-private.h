/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The user's model as the last stage of a frame chain (issue 21): the
 * chain's kernel has written the model's static input in place; the stage
 * zeroes the input's unused batch items, runs the model's graph (a child
 * graph node when captured, its own exec when eager), then copies the
 * model's outputs, and the input when asked, into the frame's output
 * buffer, whose address changes every frame.
 *
 * Output layout, the same for every frame: the model's packed tensors
 * (gcg_model_graph_get_packed_tensor()), with the input when kept.
 */
#pragma once

#include "gcg-context.h"
#include "gcg-frame-stage-private.h"
#include "gcg-model-graph.h"

G_BEGIN_DECLS

/* The tensor a chain's (or batch's) kernel writes: @n_items items of
 * @width × @height, @n_bytes in all. */
typedef struct
{
  gsize n_bytes;
  guint n_items;
  guint width;
  guint height;
  GcgTensorType type;
} GcgModelStageTensor;

/* A stage running @model after a chain (or batch) whose kernel writes
 * @tensor into the model's input:
 * refused unless the model is in @context's CUDA context and its input is
 * exactly that tensor (bytes and element type).  The items a frame leaves
 * unused (past GcgFrameStageIo.n_items) are zeroed before the model reads
 * them. */
GCG_PRIVATE_API GcgFrameStage *gcg__model_stage_new (GcgContext *context,
    GcgModelGraph *model, gboolean keep_input,
    const GcgModelStageTensor *tensor, GError **error);

/* Bytes of the output buffer a frame writes, and where tensor @index of
 * it lies (0 is the input when kept, then the outputs in order).
 * %FALSE for an index past the last. */
GCG_PRIVATE_API gsize gcg__model_stage_get_output_size (GcgFrameStage *stage);
GCG_PRIVATE_API gboolean gcg__model_stage_get_tensor (GcgFrameStage *stage,
    guint index, gsize *offset, gsize *n_bytes);

G_END_DECLS
