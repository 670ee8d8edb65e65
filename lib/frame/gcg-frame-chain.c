/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgFrameChain:
 *
 * A #GcgFrameBatch of one frame (gcg_frame_batch_new_for_frame()) behind
 * the frame engine's former single-frame API: each method forwards to
 * the batch's.  #GcgFrameChainConfig is not deprecated: it is the
 * configuration of a batch of one frame.
 *
 * Since: 0.1
 * Deprecated: 0.3: Use a #GcgFrameBatch of one frame instead.
 */
#include "gcg-frame-chain.h"
#include "gcg-frame-batch-private.h"
#include "gcg-frame-chain-stage-private.h"

struct _GcgFrameChain
{
  GObject parent_instance;

  /* The engine: a batch of one frame. */
  GcgFrameBatch *batch;
};

G_DEFINE_FINAL_TYPE (GcgFrameChain, gcg_frame_chain, G_TYPE_OBJECT)

static void
gcg_frame_chain_finalize (GObject *object)
{
  GcgFrameChain *self = GCG_FRAME_CHAIN (object);

  g_clear_object (&self->batch);

  G_OBJECT_CLASS (gcg_frame_chain_parent_class)->finalize (object);
}

static void
gcg_frame_chain_class_init (GcgFrameChainClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gcg_frame_chain_finalize;
}

static void
gcg_frame_chain_init (GcgFrameChain *self)
{
}

/* The chain around @batch (owned), or %NULL for none. */
static GcgFrameChain *
wrap (GcgFrameBatch *batch)
{
  GcgFrameChain *self;

  if (batch == NULL)
    return NULL;
  self = g_object_new (GCG_TYPE_FRAME_CHAIN, NULL);
  self->batch = batch;
  return self;
}

/* The engine that runs @self's frames (transfer none). */
GcgFrameBatch *
gcg__frame_chain_get_batch (GcgFrameChain *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), NULL);
  return self->batch;
}

/**
 * gcg_frame_chain_new:
 * @config: the chain's configuration (copied)
 * @backend: where to run
 * @context: (nullable): the #GcgContext of the CUDA backend; %NULL makes
 *   %GCG_BACKEND_AUTO pick the CPU
 * @error: return location for a #GError, or %NULL
 *
 * As gcg_frame_batch_new_for_frame(), wrapped in a chain.
 *
 * Returns: (transfer full) (nullable): the chain, or %NULL with @error set
 *
 * Since: 0.1
 * Deprecated: 0.3: Use gcg_frame_batch_new_for_frame() instead.
 */
GcgFrameChain *
gcg_frame_chain_new (const GcgFrameChainConfig *config, GcgBackend backend,
    GcgContext *context, GError **error)
{
  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (backend <= GCG_BACKEND_CPU, NULL);
  g_return_val_if_fail (context == NULL || GCG_IS_CONTEXT (context), NULL);
  return wrap (gcg_frame_batch_new_for_frame (config, backend, context, error));
}

/**
 * gcg_frame_chain_get_backend:
 * @self: a #GcgFrameChain
 *
 * As gcg_frame_batch_get_backend() on the chain's engine.
 *
 * Returns: the backend in use: %GCG_BACKEND_CUDA or %GCG_BACKEND_CPU
 *
 * Since: 0.1
 * Deprecated: 0.3: Use gcg_frame_batch_get_backend() instead.
 */
GcgBackend
gcg_frame_chain_get_backend (GcgFrameChain *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), GCG_BACKEND_CPU);
  return gcg_frame_batch_get_backend (self->batch);
}

/**
 * gcg_frame_chain_get_config:
 * @self: a #GcgFrameChain
 * @config: (out caller-allocates): where to copy the configuration
 *
 * As gcg_frame_batch_get_frame_config() on the chain's engine.
 *
 * Since: 0.1
 * Deprecated: 0.3: Use gcg_frame_batch_get_frame_config() instead.
 */
void
gcg_frame_chain_get_config (GcgFrameChain *self, GcgFrameChainConfig *config)
{
  g_return_if_fail (GCG_IS_FRAME_CHAIN (self));
  g_return_if_fail (config != NULL);
  (void) gcg_frame_batch_get_frame_config (self->batch, config);
}

/**
 * gcg_frame_chain_set_use_graph:
 * @self: a #GcgFrameChain
 * @use_graph: %TRUE (the default) to capture once and replay, %FALSE to
 *   launch the kernel eagerly on every frame
 *
 * As gcg_frame_batch_set_use_graph() on the chain's engine.
 *
 * Since: 0.1
 * Deprecated: 0.3: Use gcg_frame_batch_set_use_graph() instead.
 */
void
gcg_frame_chain_set_use_graph (GcgFrameChain *self, gboolean use_graph)
{
  g_return_if_fail (GCG_IS_FRAME_CHAIN (self));
  gcg_frame_batch_set_use_graph (self->batch, use_graph);
}

/**
 * gcg_frame_chain_get_use_graph:
 * @self: a #GcgFrameChain
 *
 * As gcg_frame_batch_get_use_graph() on the chain's engine.
 *
 * Returns: whether the CUDA backend replays a graph
 *
 * Since: 0.1
 * Deprecated: 0.3: Use gcg_frame_batch_get_use_graph() instead.
 */
gboolean
gcg_frame_chain_get_use_graph (GcgFrameChain *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), FALSE);
  return gcg_frame_batch_get_use_graph (self->batch);
}

/**
 * gcg_frame_chain_process:
 * @self: a #GcgFrameChain
 * @params: this frame's values
 * @stream: (nullable): the stream to run on (CUDA backend, required);
 *   ignored by the CPU backend
 * @error: return location for a #GError, or %NULL
 *
 * As gcg_frame_batch_process_frame() on the chain's engine.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 * Deprecated: 0.3: Use gcg_frame_batch_process_frame() instead.
 */
gboolean
gcg_frame_chain_process (GcgFrameChain *self, const GcgFrameParams *params,
    GcgStream *stream, GError **error)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), FALSE);
  return gcg_frame_batch_process_frame (self->batch, params, stream, error);
}

/**
 * gcg_frame_chain_attach_model:
 * @self: a #GcgFrameChain with a tensor output, on the CUDA backend
 * @model: the model to run after the chain's kernel
 * @keep_input: %TRUE to copy the preprocessed tensor into the output
 *   buffer too
 * @error: return location for a #GError, or %NULL
 *
 * As gcg_frame_batch_attach_model() on the chain's engine.
 *
 * Returns: %TRUE, or %FALSE with @error set
 *
 * Since: 0.2
 * Deprecated: 0.3: Use gcg_frame_batch_attach_model() instead.
 */
gboolean
gcg_frame_chain_attach_model (GcgFrameChain *self, GcgModelGraph *model,
    gboolean keep_input, GError **error)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), FALSE);
  return gcg_frame_batch_attach_model (self->batch, model, keep_input, error);
}

/**
 * gcg_frame_chain_get_model:
 * @self: a #GcgFrameChain
 *
 * As gcg_frame_batch_get_model() on the chain's engine.
 *
 * Returns: (transfer none) (nullable): the model, or %NULL
 *
 * Since: 0.2
 * Deprecated: 0.3: Use gcg_frame_batch_get_model() instead.
 */
GcgModelGraph *
gcg_frame_chain_get_model (GcgFrameChain *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), NULL);
  return gcg_frame_batch_get_model (self->batch);
}

/**
 * gcg_frame_chain_get_output_size:
 * @self: a #GcgFrameChain
 *
 * As gcg_frame_batch_get_output_size() on the chain's engine.
 *
 * Returns: the output size in bytes
 *
 * Since: 0.2
 * Deprecated: 0.3: Use gcg_frame_batch_get_output_size() instead.
 */
gsize
gcg_frame_chain_get_output_size (GcgFrameChain *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), 0);
  return gcg_frame_batch_get_output_size (self->batch);
}

/**
 * gcg_frame_chain_get_output_tensor:
 * @self: a #GcgFrameChain with a model
 * @index: the tensor: 0 is the kept input when there is one, then the
 *   model's outputs in order
 * @offset: (out): where it starts in the output buffer, in bytes
 * @n_bytes: (out): its size
 *
 * As gcg_frame_batch_get_output_tensor() on the chain's engine.
 *
 * Returns: %FALSE without a model or for an index past the last tensor
 *
 * Since: 0.2
 * Deprecated: 0.3: Use gcg_frame_batch_get_output_tensor() instead.
 */
gboolean
gcg_frame_chain_get_output_tensor (GcgFrameChain *self, guint index,
    gsize *offset, gsize *n_bytes)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), FALSE);
  return gcg_frame_batch_get_output_tensor (self->batch, index, offset,
      n_bytes);
}

/**
 * gcg_frame_chain_set_postprocess:
 * @self: a #GcgFrameChain ending in a model, before its first frame
 * @config: the postprocess (copied)
 * @error: return location for a #GError, or %NULL
 *
 * As gcg_frame_batch_set_postprocess() on the chain's engine.
 *
 * Returns: %TRUE, or %FALSE with @error set
 *
 * Since: 0.3
 * Deprecated: 0.3: Use gcg_frame_batch_set_postprocess() instead.
 */
gboolean
gcg_frame_chain_set_postprocess (GcgFrameChain *self,
    const GcgPostprocessConfig *config, GError **error)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), FALSE);
  return gcg_frame_batch_set_postprocess (self->batch, config, error);
}

/**
 * gcg_frame_chain_set_postprocess_kernel:
 * @self: a #GcgFrameChain ending in a model, before its first frame
 * @config: the postprocess (copied), of kind %GCG_POSTPROCESS_USER
 * @op: the user's kernel that turns the model's output into results
 * @error: return location for a #GError, or %NULL
 *
 * As gcg_frame_batch_set_postprocess_kernel() on the chain's engine.
 *
 * Returns: %TRUE, or %FALSE with @error set
 *
 * Since: 0.3
 * Deprecated: 0.3: Use gcg_frame_batch_set_postprocess_kernel() instead.
 */
gboolean
gcg_frame_chain_set_postprocess_kernel (GcgFrameChain *self,
    const GcgPostprocessConfig *config, GcgKernelOp *op, GError **error)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), FALSE);
  return gcg_frame_batch_set_postprocess_kernel (self->batch, config, op,
      error);
}

/**
 * gcg_frame_chain_get_postprocess:
 * @self: a #GcgFrameChain
 * @config: (out caller-allocates): the postprocess set
 *
 * As gcg_frame_batch_get_postprocess() on the chain's engine.
 *
 * Returns: %TRUE and @config filled, or %FALSE (and @config's kind
 *   %GCG_POSTPROCESS_NONE) when there is none
 *
 * Since: 0.3
 * Deprecated: 0.3: Use gcg_frame_batch_get_postprocess() instead.
 */
gboolean
gcg_frame_chain_get_postprocess (GcgFrameChain *self,
    GcgPostprocessConfig *config)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), FALSE);
  return gcg_frame_batch_get_postprocess (self->batch, config);
}

/**
 * gcg_frame_chain_get_results_size:
 * @self: a #GcgFrameChain
 *
 * As gcg_frame_batch_get_results_size() on the chain's engine.
 *
 * Returns: the size in bytes, 0 without a postprocess
 *
 * Since: 0.3
 * Deprecated: 0.3: Use gcg_frame_batch_get_results_size() instead.
 */
gsize
gcg_frame_chain_get_results_size (GcgFrameChain *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), 0);
  return gcg_frame_batch_get_results_size (self->batch);
}

/**
 * gcg_frame_chain_get_capture_count:
 * @self: a #GcgFrameChain
 *
 * As gcg_frame_batch_get_capture_count() on the chain's engine.
 *
 * Returns: the number of graphs captured
 *
 * Since: 0.1
 * Deprecated: 0.3: Use gcg_frame_batch_get_capture_count() instead.
 */
guint64
gcg_frame_chain_get_capture_count (GcgFrameChain *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), 0);
  return gcg_frame_batch_get_capture_count (self->batch);
}

/**
 * gcg_frame_chain_get_replay_count:
 * @self: a #GcgFrameChain
 *
 * As gcg_frame_batch_get_replay_count() on the chain's engine.
 *
 * Returns: the number of frames run by launching a graph
 *
 * Since: 0.1
 * Deprecated: 0.3: Use gcg_frame_batch_get_replay_count() instead.
 */
guint64
gcg_frame_chain_get_replay_count (GcgFrameChain *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), 0);
  return gcg_frame_batch_get_replay_count (self->batch);
}

/**
 * gcg_frame_chain_get_eager_count:
 * @self: a #GcgFrameChain
 *
 * As gcg_frame_batch_get_eager_count() on the chain's engine.
 *
 * Returns: the number of frames run without a graph
 *
 * Since: 0.1
 * Deprecated: 0.3: Use gcg_frame_batch_get_eager_count() instead.
 */
guint64
gcg_frame_chain_get_eager_count (GcgFrameChain *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), 0);
  return gcg_frame_batch_get_eager_count (self->batch);
}

/**
 * gcg_frame_chain_add_kernel:
 * @chain: a #GcgFrameChain on the CUDA backend, before its first frame
 * @op: the user kernel
 * @position: before or after the chain's built-in op
 * @error: return location for a #GError, or %NULL
 *
 * As gcg_frame_batch_add_kernel_at() on the chain's engine.
 *
 * Returns: %TRUE, or %FALSE with @error set
 *
 * Since: 0.2
 * Deprecated: 0.3: Use gcg_frame_batch_add_kernel_at() instead.
 */
gboolean
gcg_frame_chain_add_kernel (GcgFrameChain *chain, GcgKernelOp *op,
    GcgKernelPosition position, GError **error)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (chain), FALSE);
  return gcg_frame_batch_add_kernel_at (chain->batch, op, position, error);
}
