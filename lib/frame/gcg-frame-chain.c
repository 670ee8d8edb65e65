/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgFrameChain:
 *
 * Turns one input frame into one output (a video frame, or a tensor of up
 * to #GcgFrameChainConfig.max_rois items) with the arithmetic of
 * docs/frame-chain.md: crop, resize, letterbox, colour conversion and
 * adjustment, output mapping, all fused into one kernel.
 *
 * A chain is the frame engine's single-frame face: a frame is a batch of
 * one, and a chain is a #GcgFrameBatch made with
 * gcg_frame_batch_new_for_frame(), each method the batch's.  It stays for
 * the code written against it; new code can use the batch directly.
 *
 * The CUDA backend captures the kernel into a #GcgGraph on the first
 * frame of each stream and only replays it afterwards: the kernel takes a
 * single argument, its struct by value, and every per-frame value (plane
 * pointers included) reaches it as that argument, set on the executable
 * graph's kernel node before each replay (cuGraphExecKernelNodeSetParams).
 * Stages added to the chain (user kernels, the model, the postprocess) run
 * in the same replay.  Each stream gets its own graph; a chain serves up
 * to 16 streams and keeps a reference to each.
 *
 * The CPU backend runs the same per-pixel code on host pointers,
 * synchronously: it is the oracle of the GPU tests and the fallback where
 * no device is usable.
 *
 * A chain is driven from one thread at a time (the streaming thread);
 * gcg_frame_chain_process() takes no locks and, once a stream has been
 * seen, allocates nothing and never waits for the GPU.
 *
 * Since: 0.1
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
 * Makes a chain.  The CUDA backend looks up its kernel and allocates the
 * parameter block of its first stream now; %GCG_BACKEND_AUTO falls back to
 * the CPU when @context is %NULL or CUDA is unusable, and never fails for
 * that.  The CPU backend ignores @context.
 *
 * Returns: (transfer full) (nullable): the chain, or %NULL with @error set
 *   (%GCG_ERROR_INVALID_ARGUMENT for a bad @config)
 *
 * Since: 0.1
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
 * Gets the backend the chain runs on, as chosen when it was made.
 *
 * Returns: the backend in use: %GCG_BACKEND_CUDA or %GCG_BACKEND_CPU,
 *   never %GCG_BACKEND_AUTO
 *
 * Since: 0.1
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
 * Copies the chain's configuration.
 *
 * Since: 0.1
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
 * Eager launches run the very same kernel with the same struct as its
 * argument (and the stages on the same parameter block), for comparison
 * and benchmarks.  No effect on the CPU backend.
 *
 * Since: 0.1
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
 * Tells whether the chain replays a captured graph (the default) or launches
 * its kernels eagerly.
 *
 * Returns: whether the CUDA backend replays a graph
 *
 * Since: 0.1
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
 * @params: this frame's values: plane addresses are device pointers for
 *   the CUDA backend, host pointers for the CPU backend
 * @stream: (nullable): the stream to run on (CUDA backend, required);
 *   ignored by the CPU backend
 * @error: return location for a #GError, or %NULL
 *
 * Writes the output of one frame.  @params is checked first (non-finite
 * values, gamma ≤ 0, missing planes, strides shorter than a row, too many
 * ROIs, an empty video crop): on %GCG_ERROR_INVALID_ARGUMENT nothing runs
 * and nothing changes.  The CUDA backend then sets the frame's values on
 * the graph's kernel node (with stages, also queues one copy of their
 * structs) and queues the replay (the capture too, on a stream's first
 * frame) and returns without waiting; the CPU backend has written the
 * output when it returns.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
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
 * @model: the model to run after the chain's kernel, its input and
 *   outputs set
 * @keep_input: %TRUE to copy the preprocessed tensor into the output
 *   buffer too, before the model's outputs
 * @error: return location for a #GError, or %NULL
 *
 * Ends the chain in @model, in the same graph: the chain's kernel writes
 * the model's input in place (no copy), the model's graph runs as a child
 * graph node, and a copy kernel moves its outputs into each frame's output
 * buffer, one replay per frame in all.  The output buffer then holds the
 * input when @keep_input, then each output in order, each at a multiple
 * of 256 bytes: gcg_frame_chain_get_output_size() and
 * gcg_frame_chain_get_output_tensor() say where.  Batch items a frame
 * leaves unused are zeroed in the model's input.
 *
 * The model's tensors serve one frame at a time, so the chain then runs
 * on one stream only, and the model serves this chain only.  The chain
 * keeps a reference to @model and, when it is freed, waits for its last
 * frame before dropping it.  Call before the first frame.
 *
 * Returns: %TRUE, or %FALSE with @error set: %GCG_ERROR_NOT_SUPPORTED on
 *   the CPU backend or for a video output, %GCG_ERROR_INVALID_ARGUMENT
 *   for a model in another CUDA context or whose input is not the chain's
 *   tensor (size and element type), or a second model
 *
 * Since: 0.2
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
 * The model attached with gcg_frame_chain_attach_model().
 *
 * Returns: (transfer none) (nullable): the model, or %NULL
 *
 * Since: 0.2
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
 * The bytes each frame's output buffer must hold: the configuration's
 * output (gcg_frame_chain_config_get_output_size()), or with a model its
 * outputs (and input when kept) as laid out by
 * gcg_frame_chain_attach_model().
 *
 * Returns: the output size in bytes
 *
 * Since: 0.2
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
 * Where a tensor of a model's output lies in each frame's output buffer.
 *
 * Returns: %FALSE without a model or for an index past the last tensor
 *
 * Since: 0.2
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
 * @self: a #GcgFrameChain ending in a model
 *   (gcg_frame_chain_attach_model()), before its first frame
 * @config: the postprocess (copied)
 * @error: return location for a #GError, or %NULL
 *
 * Ends the chain in a postprocess, in the same graph, after the model:
 * per frame it reads the model's output @config->output_index (float32:
 * classification max_rois × n_classes, detection max_rois × (4 +
 * n_classes) × candidates) for the frame's items (its ROIs), and writes
 * the frame's results (gcg_postprocess_run_cpu() says how they are
 * computed: the GPU gives the same) into the area at the frame's
 * #GcgFrameParams.results: a #GcgResultsHeader then the results, packed,
 * gcg_frame_chain_get_results_size() bytes at most.  Boxes are in the
 * source frame's pixels, through each item's #GcgFrameItemMap.  The
 * results are written by the replay itself and are valid once the frame
 * is done (its #GcgFrameQueue done callback, a fence, or a stream
 * synchronisation), with no copy of the model's output to the host.
 * The model's outputs are still copied into the output buffer as
 * without a postprocess.
 *
 * %GCG_POSTPROCESS_NONE sets nothing.
 *
 * Returns: %TRUE, or %FALSE with @error set: %GCG_ERROR_INVALID_ARGUMENT
 *   for an invalid @config (gcg_postprocess_config_validate()), an output
 *   index past the model's, an output not shaped for the kind, more than
 *   %GCG_POSTPROCESS_MAX_ITEMS items or
 *   %GCG_POSTPROCESS_MAX_CANDIDATES candidates, or a second postprocess;
 *   %GCG_ERROR_NOT_SUPPORTED without a model (the CPU backend has none:
 *   see gcg_postprocess_run_cpu()), for an output other than float32,
 *   or for %GCG_POSTPROCESS_USER (its kernel is set with
 *   gcg_frame_chain_set_postprocess_kernel())
 *
 * Since: 0.3
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
 * @self: a #GcgFrameChain ending in a model
 *   (gcg_frame_chain_attach_model()), before its first frame
 * @config: the postprocess (copied), of kind %GCG_POSTPROCESS_USER: its
 *   @output_index, @n_classes, @max_per_item and thresholds reach the
 *   kernel
 * @op: the user's kernel that turns the model's output into results
 * @error: return location for a #GError, or %NULL
 *
 * Ends the chain in the user's own postprocess, in the same graph, after
 * the model, as gcg_frame_chain_set_postprocess() does with a built-in
 * one.  Per frame the replay zeroes a count per item, runs @op, then
 * packs what it wrote into the frame's results area (a
 * #GcgResultsHeader then the records, gcg_frame_chain_get_results_size()
 * bytes at most), valid once the frame is done.
 *
 * @op's parameter declaration (docs/user-kernels.md, "A postprocess
 * kernel") may read `output` (u64: the device address of the model's
 * output @config->output_index, any element type), `output_bytes`
 * (u64), `records` (u64: item i's #GcgResult records start at records +
 * i × max_results × 32 bytes; CUDA source has the `gcg_result` struct
 * declared for them), `counts` (u64: a u32 per item, zeroed before the
 * kernel, which writes how many records item i has), `max_results`
 * (i32: @config->max_per_item), `classes` (i32), `score_threshold` and
 * `iou_threshold` (f32), besides `items` (the frame's items),
 * `out_width`, `out_height` (an item's tensor size), `frame`, `pts` and
 * `meta:KEY`; no `src` or `dst` field.  Unless gcg_kernel_op_set_grid()
 * and gcg_kernel_op_set_block() say otherwise it runs one block of 256
 * threads per item of the largest frame (max_rois blocks, `blockIdx.x`
 * the item): blocks with `blockIdx.x >= items` must return.
 *
 * The kernel's output is untrusted: each count is clamped to
 * max_results, each record's box, written as left, top, width and
 * height in the item's tensor pixels, is mapped to source-frame pixels
 * through the item's geometry (#GcgFrameItemMap, as detections are),
 * #GcgResult.item is set to the item and @reserved to 0, and a NaN
 * confidence becomes 0; the label is kept as written.  There is no CPU
 * reference of a user's kernel (gcg_postprocess_run_cpu() refuses it).
 *
 * Returns: %TRUE, or %FALSE with @error set:
 *   %GCG_ERROR_INVALID_ARGUMENT for a kind other than
 *   %GCG_POSTPROCESS_USER, an invalid @config, an output index past the
 *   model's, more than %GCG_POSTPROCESS_MAX_ITEMS items, a declaration
 *   that reads a `src` or `dst` field, or a second postprocess;
 *   %GCG_ERROR_NOT_SUPPORTED without a model (and on the CPU backend);
 *   @op's own errors (loading its code, its entry point)
 *
 * Since: 0.3
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
 * The postprocess set with gcg_frame_chain_set_postprocess().
 *
 * Returns: %TRUE and @config filled, or %FALSE (and @config's kind
 *   %GCG_POSTPROCESS_NONE) when there is none
 *
 * Since: 0.3
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
 * The bytes a frame's results area (#GcgFrameParams.results) must hold:
 * a #GcgResultsHeader and room for every item's most results
 * (gcg_postprocess_config_get_results_size() for max_rois items).
 *
 * Returns: the size in bytes, 0 without a postprocess
 *
 * Since: 0.3
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
 * Counts the graphs the chain captured.
 *
 * Returns: the number of graphs captured (one per stream, unless a capture
 *   failed and was tried again)
 *
 * Since: 0.1
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
 * Counts the frames run by launching a captured graph.
 *
 * Returns: the number of frames run by launching a graph (the first frame
 *   of a stream included)
 *
 * Since: 0.1
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
 * Counts the frames run without a graph.
 *
 * Returns: the number of frames run without a graph: eager kernel
 *   launches, and every frame of the CPU backend
 *
 * Since: 0.1
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
 * Adds @op to @chain, captured into the same graph as the built-in op, so
 * a frame stays one replay.  After the op, the kernel's `dst` planes are
 * the chain's output (it works in place on what the op wrote) and its
 * `src` planes the input.  Before the op, its `src` planes are the input
 * and its `dst` planes a scratch copy of it (same format and size, its
 * own pitches) that the built-in op reads instead of the input: the
 * kernel must write every pixel of it.  Several kernels on one side run
 * in the order they were added (at most 8 in all).  The grid covers the
 * frame the kernel writes (the input before, the output after) unless
 * gcg_kernel_op_set_grid() set one.  The code is loaded in the chain's
 * context now (source compiled for its device, from the cache when it
 * was compiled before).
 *
 * Returns: %TRUE, or %FALSE with @error set: %GCG_ERROR_NOT_SUPPORTED on
 *   the CPU backend, %GCG_ERROR_INVALID_ARGUMENT after the first frame or
 *   past the bound, or the code's error (load, entry point)
 *
 * Since: 0.2
 */
gboolean
gcg_frame_chain_add_kernel (GcgFrameChain *chain, GcgKernelOp *op,
    GcgKernelPosition position, GError **error)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (chain), FALSE);
  return gcg_frame_batch_add_kernel_at (chain->batch, op, position, error);
}
