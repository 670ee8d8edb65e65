/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One frame engine; a frame is a batch of one.
 *
 * The model every part of lib/frame/ follows:
 *
 * - A run takes N ≥ 1 sources (a #GcgFrameChain: one; a #GcgFrameBatch:
 *   1 to max_sources), each a video frame (format, size, matrix: a
 *   chain's fixed in its config, a batch source's described per run)
 *   with its items: its ROIs, or the whole frame (its crop) as one item.
 *   An item's geometry (the clipped crop, the letterbox fit, the ratios)
 *   is worked out in one place, once per run, on the host:
 *   gcg__frame_prepare_frame() (gcg-frame-prepare.c), which clips each
 *   rectangle with gcg-rect.c; the CPU reference, the kernels and the
 *   postprocess (through #GcgFrameStageIo.item_rects, kept by
 *   gcg__frame_engine_keep_rects()) all read that result.
 * - It writes one output: a tensor of items (source 0's, then source
 *   1's…), or, for the single-frame video elements, one video frame.
 * - The per-run values reach the device in one kernel struct
 *   (kernels/gcg-frame-kernel-params.h) filled by one writer
 *   (gcg-frame-prepare.c, per source): a chain hands it to its kernel by
 *   value, a batch packs one per source after a header and its kernel
 *   reads them from the parameter block (up to 64 KiB, too large for an
 *   argument).  Those two kernels are the only difference left between
 *   the front-ends; what runs them is this file.
 * - One replay path (gcg-kernel-replay.c): captured on a stream's first
 *   run, replayed afterwards, eagerly launched with use-graph off.
 * - The stages after (or, for a chain, before) the op are the engine's:
 *   user kernels (gcg__frame_engine_add_kernel()), the model
 *   (gcg__frame_engine_attach_model()) and the postprocess after it
 *   (gcg__frame_engine_set_postprocess(), or the user's kernel:
 *   gcg__frame_engine_set_postprocess_kernel()), written once here for
 *   both.
 * - One submit path (gcg-frame-queue.c): a frame is staged, run, copied
 *   back and retired by the same code as a batch of one source.
 */
#include "gcg-frame-engine-private.h"
#include "gcg-error.h"
#include "gcg-kernel-op-private.h"
#include "gcg-postprocess-stage-private.h"

/* Opens the engine on @backend: the CUDA backend's replay of
 * @kernel_name (gcg__kernel_replay_open(): %GCG_BACKEND_AUTO settles
 * here).  The caller has set out_size and tensor. */
gboolean
gcg__frame_engine_open (GcgFrameEngine *self, GcgBackend backend,
    GcgContext *context, const gchar *kernel_name, const guint grid[3],
    const guint block[2], gsize arg_bytes, gsize value_bytes, GError **error)
{
  self->backend = backend;
  self->use_graph = TRUE;
  return gcg__kernel_replay_open (&self->backend, context, kernel_name, grid,
      block, arg_bytes, value_bytes, &self->replay, error);
}

void
gcg__frame_engine_clear (GcgFrameEngine *self)
{
  g_clear_pointer (&self->replay, gcg__kernel_replay_free);
  g_clear_object (&self->model);
}

/* The engine's context: %NULL on the CPU backend. */
GcgContext *
gcg__frame_engine_get_context (const GcgFrameEngine *self)
{
  return self->replay ? gcg__kernel_replay_get_context (self->replay) : NULL;
}

/* Adds @stage (owned, freed on failure) after the op, or @before it, in
 * the same graph; before the first run, CUDA backend only. */
gboolean
gcg__frame_engine_add_stage (GcgFrameEngine *self, GcgFrameStage *stage,
    gboolean before, GError **error)
{
  if (self->backend != GCG_BACKEND_CUDA) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "A %s stage needs the CUDA backend", stage->klass->name);
    gcg__frame_stage_free (stage);
    return FALSE;
  }
  if (!gcg__kernel_replay_add_stage_at (self->replay, stage, before, error))
    return FALSE;
  self->n_stages++;
  return TRUE;
}

/* A user kernel as a stage whose grid covers @width × @height × @n_items
 * (unless the op sets its own). */
gboolean
gcg__frame_engine_add_kernel (GcgFrameEngine *self, GcgKernelOp *op,
    guint width, guint height, guint n_items, gboolean before, GError **error)
{
  GcgContext *context = gcg__frame_engine_get_context (self);
  GcgFrameStage *stage;

  if (self->backend != GCG_BACKEND_CUDA || context == NULL) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "Kernel '%s': user kernels need the CUDA backend",
        gcg_kernel_op_get_name (op));
    return FALSE;
  }
  stage =
      gcg__kernel_op_make_stage (op, context, width, height, n_items, error);
  return stage != NULL
      && gcg__frame_engine_add_stage (self, stage, before, error);
}

/* Ends the engine in @model: the op writes the model's input (the
 * engine's tensor), the model stage copies its outputs out. */
gboolean
gcg__frame_engine_attach_model (GcgFrameEngine *self, GcgModelGraph *model,
    gboolean keep_input, GError **error)
{
  GcgFrameStage *stage;

  if (self->backend != GCG_BACKEND_CUDA || self->tensor.n_items == 0) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "A model needs the CUDA backend and a tensor output");
    return FALSE;
  }
  if (self->model != NULL) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The engine ends in a model already");
    return FALSE;
  }
  stage = gcg__model_stage_new (gcg__frame_engine_get_context (self), model,
      keep_input, &self->tensor, error);
  if (stage == NULL
      || !gcg__kernel_replay_add_stage (self->replay, stage, error))
    return FALSE;
  gcg_model_graph_get_input (model, &self->model_input, NULL, NULL);
  self->model = g_object_ref (model);
  self->model_stage = stage;
  return TRUE;
}

/* The bytes of each run's output: the op's, or a model's packed
 * outputs. */
gsize
gcg__frame_engine_get_output_size (const GcgFrameEngine *self)
{
  if (self->model_stage != NULL)
    return gcg__model_stage_get_output_size (self->model_stage);
  return self->out_size;
}

gboolean
gcg__frame_engine_get_output_tensor (const GcgFrameEngine *self, guint index,
    gsize *offset, gsize *n_bytes)
{
  return self->model_stage != NULL
      && gcg__model_stage_get_tensor (self->model_stage, index, offset,
          n_bytes);
}

/* The postprocess after the model, over every item of the tensor: a
 * built-in one, or (@op) the user's kernel. */
static gboolean
add_postprocess (GcgFrameEngine *self, const GcgPostprocessConfig *config,
    GcgKernelOp *op, GError **error)
{
  GcgFrameStage *stage = NULL;

  if (!gcg__postprocess_stage_make (gcg__frame_engine_get_context (self),
          self->model, self->pp_stage != NULL, config, op, self->tensor.n_items,
          &stage, error))
    return FALSE;
  if (stage == NULL)
    return TRUE;
  if (!gcg__kernel_replay_add_stage (self->replay, stage, error))
    return FALSE;
  self->pp_stage = stage;
  self->pp_config = *config;
  return TRUE;
}

gboolean
gcg__frame_engine_set_postprocess (GcgFrameEngine *self,
    const GcgPostprocessConfig *config, GError **error)
{
  return add_postprocess (self, config, NULL, error);
}

/* The user's postprocess kernel @op: what the chain's and the batch's
 * set_postprocess_kernel() do, for a configuration of kind USER only. */
gboolean
gcg__frame_engine_set_postprocess_kernel (GcgFrameEngine *self,
    const GcgPostprocessConfig *config, GcgKernelOp *op, GError **error)
{
  if (config->kind != GCG_POSTPROCESS_USER) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Postprocess kernel '%s': the configuration's kind must be "
        "GCG_POSTPROCESS_USER (it is %d); gcg_frame_batch_set_postprocess() "
        "sets the built-in ones",
        gcg_kernel_op_get_name (op), (gint) config->kind);
    return FALSE;
  }
  return add_postprocess (self, config, op, error);
}

gboolean
gcg__frame_engine_get_postprocess (const GcgFrameEngine *self,
    GcgPostprocessConfig *config)
{
  if (self->pp_stage == NULL)
    gcg_postprocess_config_init (config);
  else
    *config = self->pp_config;
  return self->pp_stage != NULL;
}

gsize
gcg__frame_engine_get_results_size (const GcgFrameEngine *self)
{
  return gcg__postprocess_stage_get_results_size (self->pp_stage);
}

/* The source rectangles of @n_items items just prepared, from slot
 * @first on, for the postprocess: the crops gcg__frame_prepare_frame()
 * clipped, never clipped again.  Nothing without a postprocess. */
void
gcg__frame_engine_keep_rects (GcgFrameEngine *self, guint first,
    const GcgFrameItem *items, guint n_items)
{
  if (self->pp_stage == NULL)
    return;
  for (guint j = 0; j < n_items && first + j < GCG_POSTPROCESS_MAX_ITEMS; j++) {
    const GcgFrameItem *it = &items[j];

    self->item_rects[first + j] = (GcgRect) { it->cx, it->cy, it->cw, it->ch };
  }
}

/* One run on the CUDA backend: the op's struct @arg and the stages'
 * view @io, replayed or launched eagerly. */
gboolean
gcg__frame_engine_run (GcgFrameEngine *self, const void *arg,
    const GcgFrameStageIo *io, GcgStream *stream, GError **error)
{
  return gcg__kernel_replay_run_io (self->replay, arg, io, stream,
      self->use_graph, error);
}

guint64
gcg__frame_engine_get_captures (const GcgFrameEngine *self)
{
  return gcg__kernel_replay_get_captures (self->replay);
}

guint64
gcg__frame_engine_get_replays (const GcgFrameEngine *self)
{
  return gcg__kernel_replay_get_replays (self->replay);
}

/* Eager launches, and every run of the CPU backend. */
guint64
gcg__frame_engine_get_eager (const GcgFrameEngine *self)
{
  return gcg__kernel_replay_get_eager (self->replay) + self->cpu_runs;
}
