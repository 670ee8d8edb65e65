/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The postprocess as the last stage of a frame chain or a batch (issue
 * 35), after the model stage, in the same captured graph: it reads the
 * model's output where the model left it (its static tensor) and writes
 * each frame's results into the results area the frame names
 * (GcgFrameStageIo.results: GcgFrameParams.results), host memory the
 * device writes through its mapping.  One stage for both engines: each
 * hands it the items' source rectangles (GcgFrameStageIo.item_rects).
 */
#pragma once

#include "gcg-context.h"
#include "gcg-kernel-op.h"
#include "gcg-frame-stage-private.h"
#include "gcg-model-graph.h"
#include "gcg-result.h"

G_BEGIN_DECLS

/* A stage running @config on output @config->output_index of @model, for
 * frames of up to @max_items items (the model's batch): refused with
 * GCG_ERROR_INVALID_ARGUMENT unless the output is float32 and shaped for
 * the kind (classification: max_items × n_classes; detection: max_items ×
 * (4 + n_classes) × candidates) and the bounds hold, with
 * GCG_ERROR_NOT_SUPPORTED for another element type or kind.  Kind
 * GCG_POSTPROCESS_USER runs @op (any output: the kernel reads its bytes;
 * its declaration checked for a postprocess kernel) and needs it; the
 * built-in kinds take none (@op %NULL). */
GCG_PRIVATE_API GcgFrameStage *gcg__postprocess_stage_new (GcgContext *context,
    GcgModelGraph *model, const GcgPostprocessConfig *config, GcgKernelOp *op,
    guint max_items, GError **error);

/* Bytes of one frame's results area. */
GCG_PRIVATE_API gsize
gcg__postprocess_stage_get_results_size (GcgFrameStage *stage);

/* What gcg_frame_batch_set_postprocess(), _set_postprocess_kernel() and
 * the batch's twins share: @config checked (and its kind against @op:
 * USER without a kernel is NOT_SUPPORTED, naming the function that sets
 * one), and a stage made for @model (none: an error) unless the kind is
 * NONE (then *@stage is NULL and TRUE is returned).  @have_postprocess:
 * one is set already (an error). */
GCG_PRIVATE_API gboolean gcg__postprocess_stage_make (GcgContext *context,
    GcgModelGraph *model, gboolean have_postprocess,
    const GcgPostprocessConfig *config, GcgKernelOp *op, guint max_items,
    GcgFrameStage **stage, GError **error);

G_END_DECLS
