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
 * The CUDA backend captures that kernel into a #GcgGraph on the first
 * frame of each stream and only replays it afterwards: the kernel takes a
 * single argument, the device address of a struct in a #GcgParamBlock,
 * and every per-frame value (plane pointers included) reaches it through
 * one host-to-device copy of that struct before the replay.  Each stream
 * gets its own parameter block and graph, because one device struct
 * cannot hold two frames in flight on two streams; a chain serves up to 16
 * streams and keeps a reference to each.
 *
 * The CPU backend runs the same per-pixel code on host pointers,
 * synchronously: it is the oracle of the GPU tests and the fallback where
 * no device is usable.
 *
 * A chain is driven from one thread at a time (the streaming thread);
 * gcg_frame_chain_process() takes no locks and, once a stream has been
 * seen, allocates nothing and never waits for the GPU (except when the
 * host runs a whole parameter ring, 18 frames, ahead).
 */
#include "gcg-frame-chain.h"
#include "gcg-enum-types.h"
#include "gcg-error.h"
#include "gcg-frame-private.h"
#include "gcg-kernel-replay-private.h"
#include "gcg-frame-chain-stage-private.h"
#include "gcg-frame-scratch-private.h"

#define BLOCK_W 32
#define BLOCK_H 8

struct _GcgFrameChain
{
  GObject parent_instance;

  GcgFrameChainConfig config;
  GcgBackend backend;
  gboolean use_graph;

  /* The struct staged for the frame being processed; static fields are
   * filled once at construction. */
  GcgFrameKernelParams *kp;
  /* Bytes of *kp the device needs: the items past max_rois are never
   * read, so they are neither allocated nor copied each frame (304 bytes
   * instead of 3328 for one item). */
  gsize kp_used;

  GcgKernelReplay *replay;      /* CUDA backend */
  /* The input's scratch copy, with stages before the built-in op. */
  GcgFrameScratch *scratch;
  guint64 cpu_frames;

  /* The stages' named per-frame values (gcg-frame-chain-stage-private.h). */
  GcgFrameValueLookup lookup;
  gpointer lookup_data;
};

G_DEFINE_FINAL_TYPE (GcgFrameChain, gcg_frame_chain, G_TYPE_OBJECT)

static void
gcg_frame_chain_finalize (GObject *object)
{
  GcgFrameChain *self = GCG_FRAME_CHAIN (object);

  g_clear_pointer (&self->replay, gcg__kernel_replay_free);
  g_clear_pointer (&self->scratch, gcg__frame_scratch_free);
  g_free (self->kp);

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
  self->use_graph = TRUE;
  self->kp = g_new0 (GcgFrameKernelParams, 1);
}

/* The kernel and launch grid for the configuration: one thread per output
 * pixel, per 2x2 block for 4:2:0 outputs; grid.z is the tensor item.  The
 * kernels are instantiated per input format and resize method (tensors
 * also per element type) and named after those values (the GCG_FKP_*
 * enums, equal to the config's; see gcg-frame-kernels.cu). */
static void
pick_kernel (const GcgFrameChainConfig *c, guint grid[3], gchar *name,
    gsize size)
{
  guint w = c->out_width, h = c->out_height;

  grid[2] = 1;
  if (c->output == GCG_OUTPUT_KIND_TENSOR) {
    grid[2] = c->max_rois;
  } else if (gcg__pixel_format_is_yuv420 (c->out_format)) {
    w = (w + 1) / 2;
    h = (h + 1) / 2;
  }
  grid[0] = (w + BLOCK_W - 1) / BLOCK_W;
  grid[1] = (h + BLOCK_H - 1) / BLOCK_H;
  if (c->output == GCG_OUTPUT_KIND_TENSOR)
    g_snprintf (name, size, "gcg_frame_tensor_%d_%d_%d", (gint) c->in_format,
        (gint) c->resize, (gint) c->tensor_type);
  else
    g_snprintf (name, size, "gcg_frame_%s_%d_%d",
        gcg__pixel_format_is_yuv420 (c->out_format) ? "yuv420" : "video",
        (gint) c->in_format, (gint) c->resize);
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
 */
GcgFrameChain *
gcg_frame_chain_new (const GcgFrameChainConfig *config, GcgBackend backend,
    GcgContext *context, GError **error)
{
  g_autoptr (GcgFrameChain) self = NULL;
  const guint block[2] = { BLOCK_W, BLOCK_H };
  guint grid[3];
  gchar name[64];

  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (backend <= GCG_BACKEND_CPU, NULL);
  g_return_val_if_fail (context == NULL || GCG_IS_CONTEXT (context), NULL);

  if (!gcg_frame_chain_config_validate (config, error))
    return NULL;
  self = g_object_new (GCG_TYPE_FRAME_CHAIN, NULL);
  self->config = *config;
  self->backend = backend;
  self->kp_used = G_STRUCT_OFFSET (GcgFrameKernelParams, items)
      + (gsize) config->max_rois * sizeof (GcgFrameItem);
  gcg__frame_prepare_static (config, self->kp);
  pick_kernel (config, grid, name, sizeof (name));
  if (!gcg__kernel_replay_open (&self->backend, context, name, grid, block,
          self->kp_used, &self->replay, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * gcg_frame_chain_get_backend:
 * @self: a #GcgFrameChain
 *
 * Gets the backend the chain runs on, as chosen when it was made.
 *
 * Returns: the backend in use: %GCG_BACKEND_CUDA or %GCG_BACKEND_CPU,
 *   never %GCG_BACKEND_AUTO
 */
GcgBackend
gcg_frame_chain_get_backend (GcgFrameChain *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), GCG_BACKEND_CPU);
  return self->backend;
}

/**
 * gcg_frame_chain_get_config:
 * @self: a #GcgFrameChain
 * @config: (out caller-allocates): where to copy the configuration
 *
 * Copies the chain's configuration.
 */
void
gcg_frame_chain_get_config (GcgFrameChain *self, GcgFrameChainConfig *config)
{
  g_return_if_fail (GCG_IS_FRAME_CHAIN (self));
  g_return_if_fail (config != NULL);
  *config = self->config;
}

/**
 * gcg_frame_chain_set_use_graph:
 * @self: a #GcgFrameChain
 * @use_graph: %TRUE (the default) to capture once and replay, %FALSE to
 *   launch the kernel eagerly on every frame
 *
 * Eager launches run the very same kernel on the same parameter block, for
 * comparison and benchmarks.  No effect on the CPU backend.
 */
void
gcg_frame_chain_set_use_graph (GcgFrameChain *self, gboolean use_graph)
{
  g_return_if_fail (GCG_IS_FRAME_CHAIN (self));
  self->use_graph = !!use_graph;
}

/**
 * gcg_frame_chain_get_use_graph:
 * @self: a #GcgFrameChain
 *
 * Tells whether the chain replays a captured graph (the default) or launches
 * its kernels eagerly.
 *
 * Returns: whether the CUDA backend replays a graph
 */
gboolean
gcg_frame_chain_get_use_graph (GcgFrameChain *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), FALSE);
  return self->use_graph;
}

/* The replay, its stages after the op working in place on the chain's
 * output, those before it on the input's scratch copy. */
static gboolean
run_cuda (GcgFrameChain *self, const GcgFrameParams *params,
    GcgStream *stream, GError **error)
{
  GcgFrameStageIo io = { 0 };
  GcgFrameStageIo before;

  io.config = &self->config;
  io.params = params;
  io.chain_out = io.out = params->dst[0];
  io.chain_out_size = io.out_size =
      gcg_frame_chain_config_get_output_size (&self->config);
  io.lookup = self->lookup;
  io.lookup_data = self->lookup_data;
  io.n_items = (guint) self->kp->n_items;
  if (self->scratch != NULL) {
    if (!gcg__frame_scratch_redirect (self->scratch, stream, params,
            self->kp, &io, &before, error))
      return FALSE;
    io.before = &before;
  }
  return gcg__kernel_replay_run_io (self->replay, self->kp, &io, stream,
      self->use_graph, error);
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
 * and nothing changes.  The CUDA backend then queues one copy of the
 * frame's values and the replay (the capture too, on a stream's first
 * frame) and returns without waiting; the CPU backend has written the
 * output when it returns.
 *
 * Returns: %TRUE on success
 */
gboolean
gcg_frame_chain_process (GcgFrameChain *self, const GcgFrameParams *params,
    GcgStream *stream, GError **error)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), FALSE);
  g_return_val_if_fail (params != NULL, FALSE);
  g_return_val_if_fail (self->backend == GCG_BACKEND_CPU
      || GCG_IS_STREAM (stream), FALSE);

  if (!gcg__frame_check_params (&self->config, params, error))
    return FALSE;
  gcg__frame_prepare_frame (&self->config, params, self->kp);
  if (self->backend == GCG_BACKEND_CUDA)
    return run_cuda (self, params, stream, error);
  gcg__frame_cpu_run (&self->config, self->kp);
  self->cpu_frames++;
  return TRUE;
}

/* Appends @stage (owned, freed on failure) after the built-in op, in the
 * same graph; before the first frame, CUDA backend only. */
gboolean
gcg__frame_chain_add_stage (GcgFrameChain *self, GcgFrameStage *stage,
    GError **error)
{
  if (self->backend != GCG_BACKEND_CUDA) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "A %s stage needs the CUDA backend", stage->klass->name);
    gcg__frame_stage_free (stage);
    return FALSE;
  }
  return gcg__kernel_replay_add_stage (self->replay, stage, error);
}

/* As gcg__frame_chain_add_stage(), @before the built-in op when asked:
 * the chain then keeps a scratch copy of the input for it. */
gboolean
gcg__frame_chain_add_stage_at (GcgFrameChain *self, GcgFrameStage *stage,
    gboolean before, GError **error)
{
  if (!before || self->backend != GCG_BACKEND_CUDA)
    return gcg__frame_chain_add_stage (self, stage, error);
  if (self->scratch == NULL
      && (self->scratch = gcg__frame_scratch_new (
              gcg__kernel_replay_get_context (self->replay), &self->config,
              error)) == NULL) {
    gcg__frame_stage_free (stage);
    return FALSE;
  }
  return gcg__kernel_replay_add_stage_at (self->replay, stage, TRUE, error);
}

/* The chain's context: %NULL on the CPU backend. */
GcgContext *
gcg__frame_chain_get_context (GcgFrameChain *self)
{
  return self->replay ? gcg__kernel_replay_get_context (self->replay) : NULL;
}

/* Where the stages find this frame's named values: called on the
 * streaming thread during gcg_frame_chain_process(); %NULL for none. */
void
gcg__frame_chain_set_value_lookup (GcgFrameChain *self,
    GcgFrameValueLookup lookup, gpointer user_data)
{
  self->lookup = lookup;
  self->lookup_data = user_data;
}

/**
 * gcg_frame_chain_get_capture_count:
 * @self: a #GcgFrameChain
 *
 * Counts the graphs the chain captured.
 *
 * Returns: the number of graphs captured (one per stream, unless a capture
 *   failed and was tried again)
 */
guint64
gcg_frame_chain_get_capture_count (GcgFrameChain *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), 0);
  return gcg__kernel_replay_get_captures (self->replay);
}

/**
 * gcg_frame_chain_get_replay_count:
 * @self: a #GcgFrameChain
 *
 * Counts the frames run by launching a captured graph.
 *
 * Returns: the number of frames run by launching a graph (the first frame
 *   of a stream included)
 */
guint64
gcg_frame_chain_get_replay_count (GcgFrameChain *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), 0);
  return gcg__kernel_replay_get_replays (self->replay);
}

/**
 * gcg_frame_chain_get_eager_count:
 * @self: a #GcgFrameChain
 *
 * Counts the frames run without a graph.
 *
 * Returns: the number of frames run without a graph: eager kernel
 *   launches, and every frame of the CPU backend
 */
guint64
gcg_frame_chain_get_eager_count (GcgFrameChain *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (self), 0);
  return gcg__kernel_replay_get_eager (self->replay) + self->cpu_frames;
}
