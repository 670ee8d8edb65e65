/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A batch ending in the user's model, one replay per batch: the batch's
 * kernel writes every item straight into the model's input (its batch
 * dimension is the batch's max_sources × max_rois items), the model runs
 * as a child graph node, its outputs are copied into the batch's output
 * buffer.  The stage is the frame chain's (gcg-model-stage.c).
 */
#include "gcg-frame-batch-private.h"
#include "gcg-error.h"
#include "gcg-model-stage-private.h"
#include "gcg-postprocess-stage-private.h"

/**
 * gcg_frame_batch_attach_model:
 * @self: a #GcgFrameBatch on the CUDA backend, before its first batch
 * @model: the model to run after the batch's kernel: its input is the
 *   whole batch tensor (max_sources × max_rois items)
 * @keep_input: %TRUE to copy the batch tensor into the output buffer too,
 *   before the model's outputs
 * @error: return location for a #GError, or %NULL
 *
 * Ends the batch in @model, in the same graph, as
 * gcg_frame_chain_attach_model() does for one frame: the items go
 * straight into the model's input (items a batch leaves unused are
 * zeroed there), the model runs, its outputs are copied into the @dst of
 * gcg_frame_batch_process(), laid out as gcg_model_graph_get_packed_tensor()
 * says, gcg_frame_batch_get_output_size() bytes in all.  User kernels
 * added with gcg_frame_batch_add_kernel() before it work on the model's
 * input.  The batch then runs on one stream only.
 *
 * Returns: %TRUE, or %FALSE with @error set: %GCG_ERROR_NOT_SUPPORTED on
 *   the CPU backend, %GCG_ERROR_INVALID_ARGUMENT for a model in another
 *   CUDA context, whose input is not the batch tensor (size and element
 *   type), or a second model
 *
 * Since: 0.2
 */
gboolean
gcg_frame_batch_attach_model (GcgFrameBatch *self, GcgModelGraph *model,
    gboolean keep_input, GError **error)
{
  GcgModelStageTensor tensor;
  GcgFrameBatchConfig config;
  GcgContext *context;
  GcgFrameStage *stage;

  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), FALSE);
  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (model), FALSE);
  context = gcg__frame_batch_get_context (self);
  if (gcg_frame_batch_get_backend (self) != GCG_BACKEND_CUDA
      || context == NULL) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "A model needs a batch on the CUDA backend");
    return FALSE;
  }
  if (gcg__frame_batch_peek_model (self, NULL) != NULL) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The batch ends in a model already");
    return FALSE;
  }
  gcg_frame_batch_get_config (self, &config);
  tensor =
      (GcgModelStageTensor) { gcg_frame_batch_config_get_output_size (&config),
        config.max_sources * config.max_rois, config.out_width,
        config.out_height, config.tensor_type };
  stage = gcg__model_stage_new (context, model, keep_input, &tensor, error);
  if (stage == NULL || !gcg__frame_batch_add_stage (self, stage, error))
    return FALSE;
  gcg__frame_batch_set_model (self, model, stage);
  return TRUE;
}

/**
 * gcg_frame_batch_get_model:
 * @self: a #GcgFrameBatch
 *
 * The model attached with gcg_frame_batch_attach_model().
 *
 * Returns: (transfer none) (nullable): the model, or %NULL
 *
 * Since: 0.2
 */
GcgModelGraph *
gcg_frame_batch_get_model (GcgFrameBatch *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), NULL);
  return gcg__frame_batch_peek_model (self, NULL);
}

/**
 * gcg_frame_batch_get_output_size:
 * @self: a #GcgFrameBatch
 *
 * The bytes each batch's output buffer must hold: the batch tensor
 * (gcg_frame_batch_config_get_output_size()), or with a model its packed
 * outputs (and the tensor when kept).
 *
 * Returns: the output size in bytes
 *
 * Since: 0.2
 */
gsize
gcg_frame_batch_get_output_size (GcgFrameBatch *self)
{
  GcgFrameBatchConfig config;
  GcgFrameStage *stage = NULL;

  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), 0);
  if (gcg__frame_batch_peek_model (self, &stage) != NULL)
    return gcg__model_stage_get_output_size (stage);
  gcg_frame_batch_get_config (self, &config);
  return gcg_frame_batch_config_get_output_size (&config);
}

/**
 * gcg_frame_batch_set_postprocess:
 * @self: a #GcgFrameBatch ending in a model
 *   (gcg_frame_batch_attach_model()), before its first batch
 * @config: the postprocess (copied)
 * @error: return location for a #GError, or %NULL
 *
 * Ends the batch in a postprocess after its model, in the same graph,
 * as gcg_frame_chain_set_postprocess() does for one frame: the items are
 * the batch's slots (source 0's ROIs, then source 1's…, max_sources ×
 * max_rois at most, which must not exceed %GCG_POSTPROCESS_MAX_ITEMS),
 * #GcgResult.item is the slot, and each box is in its own source's
 * pixels.  A batch's results go to the area at its first source's
 * #GcgFrameParams.results (@params[0] of gcg_frame_batch_process()),
 * gcg_frame_batch_get_results_size() bytes at most; the header's frame
 * number is the batch's number.  They are valid once the batch is done
 * (its #GcgFrameQueue done callback, a fence or a stream
 * synchronisation).
 *
 * Returns: %TRUE, or %FALSE with @error set, as
 *   gcg_frame_chain_set_postprocess()
 *
 * Since: 0.3
 */
gboolean
gcg_frame_batch_set_postprocess (GcgFrameBatch *self,
    const GcgPostprocessConfig *config, GError **error)
{
  GcgFrameBatchConfig c;
  GcgFrameStage *stage = NULL;

  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);

  gcg_frame_batch_get_config (self, &c);
  if (!gcg__postprocess_stage_make (gcg__frame_batch_get_context (self),
          gcg__frame_batch_peek_model (self, NULL),
          gcg__frame_batch_peek_postprocess (self, NULL) != NULL, config,
          c.max_sources * c.max_rois, &stage, error))
    return FALSE;
  if (stage == NULL)
    return TRUE;
  if (!gcg__frame_batch_add_stage (self, stage, error))
    return FALSE;
  gcg__frame_batch_set_postprocess (self, stage, config);
  return TRUE;
}

/**
 * gcg_frame_batch_get_postprocess:
 * @self: a #GcgFrameBatch
 * @config: (out caller-allocates): the postprocess set
 *
 * The postprocess set with gcg_frame_batch_set_postprocess().
 *
 * Returns: %TRUE and @config filled, or %FALSE (and @config's kind
 *   %GCG_POSTPROCESS_NONE) when there is none
 *
 * Since: 0.3
 */
gboolean
gcg_frame_batch_get_postprocess (GcgFrameBatch *self,
    GcgPostprocessConfig *config)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);

  gcg_postprocess_config_init (config);
  return gcg__frame_batch_peek_postprocess (self, config) != NULL;
}

/**
 * gcg_frame_batch_get_results_size:
 * @self: a #GcgFrameBatch
 *
 * The bytes a batch's results area must hold: a #GcgResultsHeader and
 * room for every slot's most results.
 *
 * Returns: the size in bytes, 0 without a postprocess
 *
 * Since: 0.3
 */
gsize
gcg_frame_batch_get_results_size (GcgFrameBatch *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), 0);
  return gcg__postprocess_stage_get_results_size (
      gcg__frame_batch_peek_postprocess (self, NULL));
}
