/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A GcgKernelOp after a batch's op, over the whole batch tensor: one
 * launch per batch whose grid has one z slice per item (blockIdx.z is
 * the item) unless the op sets its own, in the batch's graph.  Per item
 * or over the whole tensor is the kernel's choice that way; the batch
 * only says how many items it wrote (the `items` field).
 */
#include "gcg-frame-batch-private.h"
#include "gcg-error.h"
#include "gcg-kernel-op-private.h"

/* The tensor as one chain's output: what the declaration's out_width,
 * out_height and the tensor fields mean to a kernel after the batch. */
GcgFrameBatchView *
gcg__frame_batch_view_new (const GcgFrameBatchConfig *config)
{
  GcgFrameBatchView *view = g_new0 (GcgFrameBatchView, 1);
  GcgFrameChainConfig *c = &view->config;

  gcg_frame_chain_config_init (c);
  c->in_width = c->in_height = 0;       /* N sources: no one input size */
  c->output = GCG_OUTPUT_KIND_TENSOR;
  c->out_width = config->out_width;
  c->out_height = config->out_height;
  c->resize = config->resize;
  c->letterbox = config->letterbox;
  c->tensor_layout = config->tensor_layout;
  c->tensor_type = config->tensor_type;
  c->tensor_channels = config->tensor_channels;
  c->max_rois = config->max_sources * config->max_rois;
  gcg_frame_params_init (&view->params);
  view->io.config = c;
  view->io.params = &view->params;
  view->io.out_size = gcg_frame_batch_config_get_output_size (config);
  view->io.chain_out_size = view->io.out_size;
  return view;
}

/* One batch's view: the tensor at @dst, @n_items written, numbered from
 * 0 in the order the batches run. */
const GcgFrameStageIo *
gcg__frame_batch_view_io (GcgFrameBatchView *view, guint64 dst, guint n_items,
    GcgFrameValueLookup lookup, gpointer lookup_data)
{
  view->params.dst[0] = dst;
  view->params.frame_number = view->batches++;
  view->io.chain_out = view->io.out = dst;
  view->io.n_items = n_items;
  view->io.lookup = lookup;
  view->io.lookup_data = lookup_data;
  return &view->io;
}

void
gcg__frame_batch_view_set_output (GcgFrameBatchView *view, guint64 out,
    gsize size)
{
  view->io.out = out;
  view->io.out_size = size;
}

void
gcg__frame_batch_view_set_results (GcgFrameBatchView *view,
    const GcgRect *item_rects, guint64 results)
{
  view->io.item_rects = item_rects;
  view->io.results = results;
}

/**
 * gcg_frame_batch_add_kernel:
 * @batch: a #GcgFrameBatch on the CUDA backend, before its first batch
 * @op: the user kernel
 * @error: return location for a #GError, or %NULL
 *
 * Adds @op after the batch's op, over the whole batch tensor, in the same
 * graph: one launch per batch.  Its `dst0` is the tensor (N items of
 * out_width × out_height, laid out as configured), `items` the number of
 * items this batch wrote (the rest are zeroed after the kernel), `frame`
 * the batch's number; there is no single input, so `src` fields are 0.
 * Unless gcg_kernel_op_set_grid() set one, the grid covers one item in x
 * and y and has one z slice per item of the largest batch, so
 * `blockIdx.z` is the item: per item or over the whole tensor is the
 * kernel's choice.
 *
 * Returns: %TRUE, or %FALSE with @error set (%GCG_ERROR_NOT_SUPPORTED on
 *   the CPU backend)
 *
 * Since: 0.2
 */
gboolean
gcg_frame_batch_add_kernel (GcgFrameBatch *batch, GcgKernelOp *op,
    GError **error)
{
  GcgFrameBatchConfig config;
  GcgContext *context;
  GcgFrameStage *stage;

  g_return_val_if_fail (GCG_IS_FRAME_BATCH (batch), FALSE);
  g_return_val_if_fail (GCG_IS_KERNEL_OP (op), FALSE);

  context = gcg__frame_batch_get_context (batch);
  if (gcg_frame_batch_get_backend (batch) != GCG_BACKEND_CUDA
      || context == NULL) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "Kernel '%s': user kernels need a batch on the CUDA backend",
        gcg_kernel_op_get_name (op));
    return FALSE;
  }
  gcg_frame_batch_get_config (batch, &config);
  stage = gcg__kernel_op_make_stage (op, context, config.out_width,
      config.out_height, config.max_sources * config.max_rois, error);
  return stage != NULL && gcg__frame_batch_add_stage (batch, stage, error);
}
