/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each stream gets its own parameter block and graph, because one device
 * struct cannot hold two frames in flight on two streams.  Once a stream
 * has been seen, a run allocates nothing and never waits for the GPU
 * (except when the host runs a whole parameter ring ahead).
 *
 * A kernel that takes its struct by value (the frame kernels) gets each
 * frame's struct in its graph node's arguments, set on the executable
 * graph before the replay: the values travel with the launch.  A copy
 * into the block before each replay would cost the GPU 2 to 3.5 µs per
 * frame on an H100, as long as the whole launch of a small frame
 * (bench-param-delivery); the block then only serves the stages.
 *
 * A stream with a completion mark (gcg-completion-mark-private.h, made by
 * a GcgFrameQueue) gets the mark after the kernel and every stage, in the
 * graph and in eager runs alike, and each run queued is counted on it: the
 * queue then sees the frame done without asking the driver.  Whether a
 * stream has one is read once, when the stream is first seen, so a graph
 * and its count never disagree.
 */
#include "gcg-kernel-replay-private.h"
#include "gcg-capture.h"
#include "gcg-completion-mark-private.h"
#include "gcg-frame-stage-private.h"
#include "gcg-error.h"
#include "gcg-graph-private.h"
#include "gcg-param-block.h"
#include "gcg-stream-private.h"

#include <string.h>

/* Deeper than a GcgFrameQueue, so each frame in flight keeps its own
 * struct in the ring and the host only waits when it runs ahead of it. */
#define RING_DEPTH (GCG_FRAME_QUEUE_MAX_DEPTH + 2)
#define MAX_STREAMS 16
#define MAX_STAGES 8

typedef struct
{
  GcgStream *stream;
  GcgParamBlock *block;
  GcgGraph *graph;
  CUgraphNode node;             /* the kernel's, when it takes a value */
  CUdeviceptr arg;
  /* The stream's completion mark when it had one on first sight (owned
   * by the stream), queued at the end of every run. */
  GcgCompletionMark *mark;
} StreamState;

struct _GcgKernelReplay
{
  GcgContext *context;
  CUfunction kernel;
  guint grid[3];
  guint block[2];
  gsize arg_bytes;              /* the built-in kernel's struct */
  gsize value_bytes;            /* its argument's size, by value; else 0 */
  gsize total_bytes;            /* and every stage's after it */
  GcgFrameStage *stages[MAX_STAGES];
  gsize stage_offsets[MAX_STAGES];
  gboolean stage_before[MAX_STAGES];    /* runs before the kernel */
  guint n_stages;
  guint8 *scratch;              /* the whole struct, filled per frame */
  GArray *streams;              /* StreamState */
  GcgParamBlock *spare_block;   /* allocated up front for the first stream */

  guint64 captures;
  guint64 replays;
  guint64 eager;
};

static void
clear_stream_state (gpointer data)
{
  StreamState *state = data;

  /* The graph recorded the block's address: it goes first. */
  g_clear_object (&state->graph);
  g_clear_object (&state->block);
  g_clear_object (&state->stream);
}

void
gcg__kernel_replay_free (GcgKernelReplay *self)
{
  if (self == NULL)
    return;
  /* Graphs first: they captured the stages' launches. */
  g_array_unref (self->streams);
  g_clear_object (&self->spare_block);
  for (guint i = 0; i < self->n_stages; i++)
    gcg__frame_stage_free (self->stages[i]);
  g_free (self->scratch);
  g_clear_object (&self->context);
  g_free (self);
}

/* A parameter block holding the kernel's whole struct (zeroed until the
 * first run writes it), allocated on the device with a ring deep enough
 * for every frame in flight. */
static GcgParamBlock *
new_block (GcgKernelReplay *self, GError **error)
{
  g_autoptr (GcgParamBlock) block = gcg_param_block_new ();

  if (gcg_param_block_add_bytes (block, "frame", self->total_bytes, 16, error)
          < 0
      || !gcg_param_block_allocate (block, self->context, RING_DEPTH, error))
    return NULL;
  return g_steal_pointer (&block);
}

/* The whole struct of a frame, in which a by-value argument's bytes
 * (value_bytes, read by the driver) always fit. */
static void
alloc_scratch (GcgKernelReplay *self)
{
  g_free (self->scratch);
  self->scratch = g_malloc0 (MAX (self->total_bytes, self->value_bytes));
}

GcgKernelReplay *
gcg__kernel_replay_new (GcgContext *context, const gchar *kernel_name,
    const guint grid[3], const guint block[2], gsize arg_bytes,
    gsize value_bytes, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  g_autoptr (GcgKernelReplay) self = g_new0 (GcgKernelReplay, 1);

  self->context = g_object_ref (context);
  memcpy (self->grid, grid, sizeof (self->grid));
  memcpy (self->block, block, sizeof (self->block));
  self->arg_bytes = arg_bytes;
  self->value_bytes = kernel_name != NULL ? value_bytes : 0;
  /* A replay of stages only still has a struct of at least 16 bytes. */
  self->total_bytes = MAX (arg_bytes, 16);
  alloc_scratch (self);
  self->streams = g_array_new (FALSE, TRUE, sizeof (StreamState));
  g_array_set_clear_func (self->streams, clear_stream_state);
  if (!gcg__context_guard_enter (&guard, context, error))
    return NULL;
  if (kernel_name != NULL
      && (self->kernel =
                 gcg__context_get_function (context, kernel_name, error))
          == NULL)
    return NULL;
  self->spare_block = new_block (self, error);
  if (self->spare_block == NULL)
    return NULL;
  return g_steal_pointer (&self);
}

/* Resolves *@backend to CUDA or the CPU: CUDA makes the replay or fails;
 * AUTO takes CUDA when it works, otherwise the CPU, never an error. */
gboolean
gcg__kernel_replay_open (GcgBackend *backend, GcgContext *context,
    const gchar *kernel_name, const guint grid[3], const guint block[2],
    gsize arg_bytes, gsize value_bytes, GcgKernelReplay **replay,
    GError **error)
{
  g_autoptr (GError) auto_error = NULL;

  *replay = NULL;
  if (*backend == GCG_BACKEND_CPU)
    return TRUE;
  if (context == NULL) {
    g_set_error_literal (*backend == GCG_BACKEND_AUTO ? &auto_error : error,
        GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The CUDA backend needs a GcgContext");
  } else {
    *replay = gcg__kernel_replay_new (context, kernel_name, grid, block,
        arg_bytes, value_bytes,
        *backend == GCG_BACKEND_AUTO ? &auto_error : error);
  }
  if (*replay != NULL) {
    *backend = GCG_BACKEND_CUDA;
    return TRUE;
  }
  if (*backend == GCG_BACKEND_CUDA)
    return FALSE;
  g_debug ("Falling back to the CPU backend: %s", auto_error->message);
  *backend = GCG_BACKEND_CPU;
  return TRUE;
}

/* The state of @stream, made on its first run (the only allocation of
 * a run after the first stream's). */
static StreamState *
get_stream_state (GcgKernelReplay *self, GcgStream *stream, GError **error)
{
  StreamState state = { 0 };

  for (guint i = 0; i < self->streams->len; i++) {
    StreamState *s = &g_array_index (self->streams, StreamState, i);

    if (s->stream == stream)
      return s;
  }
  if (gcg_stream_get_context (stream) != self->context) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The stream belongs to another context than the kernel");
    return NULL;
  }
  /* Each stream keeps its own device struct, graph and a reference to
   * the stream: bound what a caller cycling through streams can pile up. */
  if (self->streams->len >= MAX_STREAMS) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "One frame chain or batch serves at most %d streams; use one per "
        "group of streams",
        MAX_STREAMS);
    return NULL;
  }
  if (self->spare_block != NULL)
    state.block = g_steal_pointer (&self->spare_block);
  else if ((state.block = new_block (self, error)) == NULL)
    return NULL;
  state.stream = g_object_ref (stream);
  state.mark = gcg__completion_mark_peek (stream);
  state.arg = gcg_param_block_get_field_device_ptr (state.block, 0);
  g_array_append_val (self->streams, state);
  return &g_array_index (self->streams, StreamState, self->streams->len - 1);
}

typedef struct
{
  GcgKernelReplay *self;
  StreamState *state;
  const void *frame;            /* the whole struct of this frame */
} LaunchData;

/* Queues the stages that run before the kernel (@before) or after it,
 * each reading its part of the struct, in the order they were added. */
static gboolean
launch_stages (LaunchData *data, gboolean before, GcgStream *stream,
    GError **error)
{
  GcgKernelReplay *self = data->self;

  for (guint i = 0; i < self->n_stages; i++) {
    GcgFrameStage *stage = self->stages[i];

    if (self->stage_before[i] == before
        && !stage->klass->launch (stage, stream,
            data->state->arg + self->stage_offsets[i], error))
      return FALSE;
  }
  return TRUE;
}

/* Queues the stages before the built-in kernel, the kernel, whose one
 * argument is the frame's struct or its device copy, the stages after it,
 * then the stream's completion mark. */
static gboolean
launch_kernel (GcgStream *stream, gpointer user_data, GError **error)
{
  LaunchData *data = user_data;
  GcgKernelReplay *self = data->self;
  void *args[] = { self->value_bytes ? (void *) data->frame
                                     : &data->state->arg };

  if (!launch_stages (data, TRUE, stream, error))
    return FALSE;
  if (self->kernel != NULL
      && !GCG_CU_OK (error, cuLaunchKernel, self->kernel, self->grid[0],
          self->grid[1], self->grid[2], self->block[0], self->block[1], 1, 0,
          gcg__stream_get_cu (stream), args, NULL))
    return FALSE;
  return launch_stages (data, FALSE, stream, error)
      && (data->state->mark == NULL
          || gcg__completion_mark_launch (data->state->mark, stream, error));
}

/* First graph run on a stream: capture the launch (with this frame's
 * values) and upload the graph. */
static gboolean
capture_graph (GcgKernelReplay *self, StreamState *state, const void *frame,
    GError **error)
{
  LaunchData data = { self, state, frame };
  g_autoptr (GcgGraph) graph = NULL;

  graph = gcg_capture_callable (state->stream, GCG_CAPTURE_MODE_DEFAULT,
      launch_kernel, &data, error);
  if (graph == NULL
      || (self->value_bytes
          && !gcg__graph_find_kernel_node (graph, self->kernel, &state->node,
              error))
      || !gcg_graph_upload (graph, state->stream, error))
    return FALSE;
  state->graph = g_steal_pointer (&graph);
  self->captures++;
  return TRUE;
}

/* Later runs: this frame's struct becomes the kernel node's argument. */
static gboolean
set_frame_value (GcgKernelReplay *self, StreamState *state, const void *frame,
    GError **error)
{
  void *args[] = { (void *) frame };
  CUDA_KERNEL_NODE_PARAMS p = { self->kernel, self->grid[0], self->grid[1],
    self->grid[2], self->block[0], self->block[1], 1, 0, args, NULL, NULL,
    NULL };

  return gcg__graph_set_kernel_params (state->graph, state->node, &p, error);
}

/* Replays the stream's graph for this frame, capturing it first. */
static gboolean
replay (GcgKernelReplay *self, StreamState *state, const void *frame,
    GError **error)
{
  if (state->graph == NULL) {
    if (!capture_graph (self, state, frame, error))
      return FALSE;
  } else if (self->value_bytes
      && !set_frame_value (self, state, frame, error)) {
    return FALSE;
  }
  return gcg_graph_launch (state->graph, state->stream, error);
}

gboolean
gcg__kernel_replay_add_stage (GcgKernelReplay *self, GcgFrameStage *stage,
    GError **error)
{
  return gcg__kernel_replay_add_stage_at (self, stage, FALSE, error);
}

/* Appends @stage (owned from now on, freed on failure too) after the
 * stages already added on its side of the built-in kernel (@before or
 * after it), in the same graph; only before the first run, since a
 * capture records the struct's layout. */
gboolean
gcg__kernel_replay_add_stage_at (GcgKernelReplay *self, GcgFrameStage *stage,
    gboolean before, GError **error)
{
  g_autoptr (GcgFrameStage) owned = stage;
  gsize align = MAX (stage->struct_align, 16);
  gsize offset = (self->total_bytes + align - 1) & ~(align - 1);

  if (self->streams->len > 0 || self->n_stages >= MAX_STAGES
      || stage->struct_size == 0
      || stage->struct_size > GCG_FRAME_STAGE_MAX_STRUCT
      || (align & (align - 1)) != 0 || align > 256) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A %s stage is added before the first frame, at most %d per chain, "
        "with a struct of 1 to %d bytes",
        stage->klass->name, MAX_STAGES, GCG_FRAME_STAGE_MAX_STRUCT);
    return FALSE;
  }
  if (self->n_stages == 0 && self->kernel == NULL)
    offset = 0;                 /* stages only: the first starts the block */
  self->stage_offsets[self->n_stages] = offset;
  self->stage_before[self->n_stages] = before;
  self->stages[self->n_stages++] = g_steal_pointer (&owned);
  self->total_bytes = MAX (offset + stage->struct_size, 16);
  alloc_scratch (self);
  /* The spare block was sized for the struct without this stage. */
  g_clear_object (&self->spare_block);
  self->spare_block = new_block (self, error);
  return self->spare_block != NULL;
}

/* The whole struct of one frame: the built-in kernel's @arg, then what
 * each stage's prepare() writes from @io. */
static gboolean
fill_scratch (GcgKernelReplay *self, const void *arg, const GcgFrameStageIo *io,
    GError **error)
{
  if (self->arg_bytes > 0)
    memcpy (self->scratch, arg, self->arg_bytes);
  if (self->n_stages > 0 && io == NULL) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A chain with stages needs the frame's stage input");
    return FALSE;
  }
  for (guint i = 0; i < self->n_stages; i++) {
    GcgFrameStage *stage = self->stages[i];
    /* Stages before the kernel see the frame as it is on its way in. */
    const GcgFrameStageIo *stage_io = self->stage_before[i] ? io->before : io;

    if (stage_io == NULL) {
      g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "A %s stage before the built-in op needs the frame's input "
          "view",
          stage->klass->name);
      return FALSE;
    }
    if (!stage->klass->prepare (stage, stage_io,
            self->scratch + self->stage_offsets[i], error))
      return FALSE;
  }
  return TRUE;
}

gboolean
gcg__kernel_replay_run_io (GcgKernelReplay *self, const void *arg,
    const GcgFrameStageIo *io, GcgStream *stream, gboolean use_graph,
    GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  StreamState *state;
  LaunchData data;
  /* Without stages the caller's struct is the whole one: no copy of it
   * into the scratch buffer first (once per frame, for nothing). */
  gboolean direct = self->n_stages == 0 && self->arg_bytes == self->total_bytes;
  const void *frame = direct ? arg : self->scratch;

  if ((!direct && !fill_scratch (self, arg, io, error))
      || !gcg__context_guard_enter (&guard, self->context, error)
      || (state = get_stream_state (self, stream, error)) == NULL)
    return FALSE;
  /* The block holds what the kernel and the stages read from memory. */
  if ((self->value_bytes == 0 || self->n_stages > 0)
      && (!gcg_param_block_set_bytes (state->block, 0, frame, self->total_bytes,
              error)
          || !gcg_param_block_update (state->block, stream, error)))
    return FALSE;
  if (!use_graph) {
    data.self = self;
    data.state = state;
    data.frame = frame;
    if (!launch_kernel (stream, &data, error))
      return FALSE;
    self->eager++;
  } else {
    if (!replay (self, state, frame, error))
      return FALSE;
    self->replays++;
  }
  if (state->mark != NULL)
    gcg__completion_mark_issued (state->mark);
  return TRUE;
}

GcgContext *
gcg__kernel_replay_get_context (const GcgKernelReplay *self)
{
  return self->context;
}

guint64
gcg__kernel_replay_get_captures (const GcgKernelReplay *self)
{
  return self ? self->captures : 0;
}

guint64
gcg__kernel_replay_get_replays (const GcgKernelReplay *self)
{
  return self ? self->replays : 0;
}

guint64
gcg__kernel_replay_get_eager (const GcgKernelReplay *self)
{
  return self ? self->eager : 0;
}
