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
#include "gcg-frame-queue.h"
#include "gcg-capture.h"
#include "gcg-enum-types.h"
#include "gcg-error.h"
#include "gcg-frame-private.h"
#include "gcg-param-block.h"
#include "gcg-stream-private.h"

/* Deeper than a GcgFrameQueue, so each frame in flight keeps its own
 * parameter slot. */
#define RING_DEPTH (GCG_FRAME_QUEUE_MAX_DEPTH + 2)
#define MAX_STREAMS 16
#define BLOCK_W 32
#define BLOCK_H 8

/* What a stream needs of its own: the device struct and the graph that
 * recorded its address. */
typedef struct
{
  GcgStream *stream;
  GcgParamBlock *block;
  GcgGraph *graph;
  CUdeviceptr arg;
} StreamState;

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

  /* CUDA backend */
  GcgContext *context;
  CUfunction kernel;
  guint grid[3];
  GArray *streams;              /* StreamState */
  GcgParamBlock *spare_block;   /* allocated up front for the first stream */

  guint64 captures;
  guint64 replays;
  guint64 eager;
};

G_DEFINE_FINAL_TYPE (GcgFrameChain, gcg_frame_chain, G_TYPE_OBJECT)

static void
clear_stream_state (gpointer data)
{
  StreamState *state = data;

  /* The graph recorded the block's address: it goes first. */
  g_clear_object (&state->graph);
  g_clear_object (&state->block);
  g_clear_object (&state->stream);
}

static void
gcg_frame_chain_finalize (GObject *object)
{
  GcgFrameChain *self = GCG_FRAME_CHAIN (object);

  g_array_unref (self->streams);
  g_clear_object (&self->spare_block);
  g_clear_object (&self->context);
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
  self->streams = g_array_new (FALSE, TRUE, sizeof (StreamState));
  g_array_set_clear_func (self->streams, clear_stream_state);
}

/* The kernel and launch grid for the configuration: one thread per output
 * pixel, per 2x2 block for 4:2:0 outputs; grid.z is the tensor item.  The
 * kernels are instantiated per input format and resize method (tensors
 * also per element type) and named after those values (the GCG_FKP_*
 * enums, equal to the config's; see gcg-frame-kernels.cu). */
static void
pick_kernel (GcgFrameChain *self, gchar *name, gsize size)
{
  const GcgFrameChainConfig *c = &self->config;
  guint w = c->out_width, h = c->out_height;

  self->grid[2] = 1;
  if (c->output == GCG_OUTPUT_KIND_TENSOR) {
    self->grid[2] = c->max_rois;
  } else if (gcg__pixel_format_is_yuv420 (c->out_format)) {
    w = (w + 1) / 2;
    h = (h + 1) / 2;
  }
  self->grid[0] = (w + BLOCK_W - 1) / BLOCK_W;
  self->grid[1] = (h + BLOCK_H - 1) / BLOCK_H;
  if (c->output == GCG_OUTPUT_KIND_TENSOR)
    g_snprintf (name, size, "gcg_frame_tensor_%d_%d_%d", (gint) c->in_format,
        (gint) c->resize, (gint) c->tensor_type);
  else
    g_snprintf (name, size, "gcg_frame_%s_%d_%d",
        gcg__pixel_format_is_yuv420 (c->out_format) ? "yuv420" : "video",
        (gint) c->in_format, (gint) c->resize);
}

/* A parameter block holding the whole kernel struct, allocated on the
 * chain's context and initialised with the static configuration. */
static GcgParamBlock *
new_block (GcgFrameChain *self, GError **error)
{
  g_autoptr (GcgParamBlock) block = gcg_param_block_new ();

  if (gcg_param_block_add_bytes (block, "frame", self->kp_used, 16,
          error) < 0
      || !gcg_param_block_set_bytes (block, 0, self->kp, self->kp_used,
          error)
      || !gcg_param_block_allocate (block, self->context, RING_DEPTH, error))
    return NULL;
  return g_steal_pointer (&block);
}

static gboolean
init_cuda (GcgFrameChain *self, GcgContext *context, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  gchar name[64];

  if (context == NULL) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The CUDA frame chain backend needs a GcgContext");
    return FALSE;
  }
  self->context = g_object_ref (context);
  pick_kernel (self, name, sizeof (name));
  if (!gcg__context_guard_enter (&guard, context, error))
    return FALSE;
  self->kernel = gcg__context_get_function (context, name, error);
  if (self->kernel == NULL)
    return FALSE;
  self->spare_block = new_block (self, error);
  return self->spare_block != NULL;
}

/* AUTO: CUDA when it works, otherwise the CPU, never an error. */
static void
init_auto (GcgFrameChain *self, GcgContext *context)
{
  g_autoptr (GError) error = NULL;

  if (context != NULL && init_cuda (self, context, &error)) {
    self->backend = GCG_BACKEND_CUDA;
    return;
  }
  g_debug ("Frame chain falls back to the CPU: %s",
      error ? error->message : "no context");
  self->kernel = NULL;
  g_clear_object (&self->spare_block);
  g_clear_object (&self->context);
  self->backend = GCG_BACKEND_CPU;
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
  if (backend == GCG_BACKEND_AUTO)
    init_auto (self, context);
  else if (backend == GCG_BACKEND_CUDA && !init_cuda (self, context, error))
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

/* The state of @stream, made on its first frame (the only allocation of
 * the CUDA path, and none at all for the first stream). */
static StreamState *
get_stream_state (GcgFrameChain *self, GcgStream *stream, GError **error)
{
  StreamState state = { 0 };

  for (guint i = 0; i < self->streams->len; i++) {
    StreamState *s = &g_array_index (self->streams, StreamState, i);

    if (s->stream == stream)
      return s;
  }
  if (gcg_stream_get_context (stream) != self->context) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The stream belongs to another context than the frame chain");
    return NULL;
  }
  /* Each stream keeps its own device struct, graph and a reference to
   * the stream: bound what a caller cycling through streams can pile up. */
  if (self->streams->len >= MAX_STREAMS) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A frame chain serves at most %d streams; use one chain per group "
        "of streams", MAX_STREAMS);
    return NULL;
  }
  if (self->spare_block != NULL)
    state.block = g_steal_pointer (&self->spare_block);
  else if ((state.block = new_block (self, error)) == NULL)
    return NULL;
  state.stream = g_object_ref (stream);
  state.arg = gcg_param_block_get_field_device_ptr (state.block, 0);
  g_array_append_val (self->streams, state);
  return &g_array_index (self->streams, StreamState, self->streams->len - 1);
}

typedef struct
{
  GcgFrameChain *self;
  StreamState *state;
} LaunchData;

/* Queues the kernel on @stream; its one argument is the device struct. */
static gboolean
launch_kernel (GcgStream *stream, gpointer user_data, GError **error)
{
  LaunchData *data = user_data;
  GcgFrameChain *self = data->self;
  void *args[] = { &data->state->arg };

  return GCG_CU_OK (error, cuLaunchKernel, self->kernel, self->grid[0],
      self->grid[1], self->grid[2], BLOCK_W, BLOCK_H, 1, 0,
      gcg__stream_get_cu (stream), args, NULL);
}

/* First frame on a stream: capture the launch and upload the graph. */
static gboolean
ensure_graph (GcgFrameChain *self, StreamState *state, GError **error)
{
  LaunchData data = { self, state };
  g_autoptr (GcgGraph) graph = NULL;

  if (state->graph != NULL)
    return TRUE;
  graph = gcg_capture_callable (state->stream, GCG_CAPTURE_MODE_DEFAULT,
      launch_kernel, &data, error);
  if (graph == NULL || !gcg_graph_upload (graph, state->stream, error))
    return FALSE;
  state->graph = g_steal_pointer (&graph);
  self->captures++;
  return TRUE;
}

static gboolean
process_cuda (GcgFrameChain *self, GcgStream *stream, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  StreamState *state;
  LaunchData data;

  if (!gcg__context_guard_enter (&guard, self->context, error)
      || (state = get_stream_state (self, stream, error)) == NULL
      || !gcg_param_block_set_bytes (state->block, 0, self->kp,
          self->kp_used, error)
      || !gcg_param_block_update (state->block, stream, error))
    return FALSE;
  if (!self->use_graph) {
    data.self = self;
    data.state = state;
    if (!launch_kernel (stream, &data, error))
      return FALSE;
    self->eager++;
    return TRUE;
  }
  if (!ensure_graph (self, state, error)
      || !gcg_graph_launch (state->graph, stream, error))
    return FALSE;
  self->replays++;
  return TRUE;
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
    return process_cuda (self, stream, error);
  gcg__frame_cpu_run (&self->config, self->kp);
  self->eager++;
  return TRUE;
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
  return self->captures;
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
  return self->replays;
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
  return self->eager;
}
