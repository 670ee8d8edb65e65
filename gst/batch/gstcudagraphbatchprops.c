/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The properties of cudagraphbatch: the run properties and counters every
 * cudagraph element has (gstcudagraphrunprops.h), the tensor properties
 * it shares with cudagraphpreprocess (gstcudagraphtensorprops.h), and its
 * own. */
#include "gstcudagraphbatch-private.h"
#include "props/gstcudagraphrefuse.h"

enum
{
  PROP_0,
  PROP_BATCH_SIZE,
  PROP_TIMEOUT,
  PROP_BATCHES,
  PROP_BATCH_DURATION,
  PROP_DROPPED_LATE,
  PROP_QUEUE_DEPTH,
  PROP_RUN_FIRST,
  PROP_TENSOR_FIRST = PROP_RUN_FIRST + GST_CUDA_GRAPH_RUN_N_PROPS,
  PROP_KERNEL_FIRST = PROP_TENSOR_FIRST + GST_CUDA_GRAPH_TENSOR_N_PROPS,
  PROP_MODEL_FIRST = PROP_KERNEL_FIRST + GST_CUDA_GRAPH_USER_KERNEL_N_PROPS,
  PROP_POSTPROCESS_FIRST = PROP_MODEL_FIRST + GST_CUDA_GRAPH_MODEL_N_PROPS,
};

#define DEFAULT_BATCH_SIZE 0
#define DEFAULT_TIMEOUT (40 * GST_MSECOND)
/* Buffers a sink pad holds: upstream is woken once it is down to half
 * (8: 4 frames a wake-up; 4 gave twice the context switches per batch,
 * docs/cudagraphbatch.md). */
#define DEFAULT_QUEUE_DEPTH 8
#define DEFAULT_BATCH_DURATION 0
/* The blurbs spell the maxima out. */
G_STATIC_ASSERT (GST_CUDA_GRAPH_BATCH_MAX_DURATION == 3600000000000);
G_STATIC_ASSERT (GST_CUDA_GRAPH_BATCH_MAX_TIMEOUT == 3600000000000);

#define READY_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)
#define RO (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)

static const GstCudaGraphRunPropsText run_text = {
  .backend = "Where the batch runs: auto (CUDA when a GPU is usable, the CPU "
             "reference otherwise), cuda, or cpu",
  .use_graph = "Capture the batch into a CUDA graph once and replay it (FALSE "
               "launches the same kernel eagerly, for A/B measurement)",
  .in_flight_nick = "Batches in flight",
  .in_flight = "Batches whose GPU work may be queued at once, 1-" G_STRINGIFY (
      GCG_FRAME_QUEUE_MAX_DEPTH) "; their inputs stay referenced until it "
                                 "is done",
  .max_in_flight = GST_CUDA_GRAPH_BATCH_MAX_IN_FLIGHT,
  .captures = "Graph captures since start (one per negotiated tensor shape)",
  .replays = "Batches that replayed a graph captured on an earlier batch",
  .eager_frames = "Batches run without a graph (use-graph=false, or the CPU "
                  "backend)",
};

/* The depth of every sink pad's queue from now on (a producer waiting on
 * a queue that now has room is woken). */
static void
set_queue_depth (GstCudaGraphBatch *self, guint depth)
{
  GList *pads;

  GST_OBJECT_LOCK (self);
  self->queue_depth = depth;
  GST_OBJECT_UNLOCK (self);
  pads = gst_cuda_graph_batch_list_sink_pads (self);
  for (GList *l = pads; l; l = l->next)
    gst_cuda_graph_batch_queue_set_depth (
        gst_cuda_graph_batch_pad_get_queue (l->data), depth);
  g_list_free_full (pads, gst_object_unref);
}

static void
gst_cuda_graph_batch_set_property (GObject *object, guint prop_id,
    const GValue *value, GParamSpec *pspec)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (object);
  g_autofree gchar *refusal = NULL;
  gboolean known = TRUE;

  if (prop_id == PROP_QUEUE_DEPTH) {
    set_queue_depth (self, g_value_get_uint (value));
    return;
  }
  GST_OBJECT_LOCK (self);
  if (prop_id == PROP_TIMEOUT)
    self->timeout = g_value_get_uint64 (value);
  else if (prop_id == PROP_BATCH_SIZE)
    self->batch_size = g_value_get_uint (value);
  else if (prop_id == PROP_BATCH_DURATION)
    self->batch_duration = g_value_get_uint64 (value);
  else
    known = gst_cuda_graph_run_props_set (&self->run, PROP_RUN_FIRST, prop_id,
                value)
        || gst_cuda_graph_tensor_props_set (&self->props, PROP_TENSOR_FIRST,
            prop_id, value, &refusal)
        || gst_cuda_graph_user_kernel_set (&self->kernel, PROP_KERNEL_FIRST,
            prop_id, value)
        || gst_cuda_graph_model_set (&self->model, PROP_MODEL_FIRST, prop_id,
            value, &self->props, &refusal)
        || gst_cuda_graph_postprocess_set (&self->postprocess,
            PROP_POSTPROCESS_FIRST, prop_id, value, &refusal);
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_refusal_report (object, pspec, &refusal);
  if (!known)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static gboolean
get_own_property (GstCudaGraphBatch *self, guint prop_id, GValue *value)
{
  switch (prop_id) {
    case PROP_TIMEOUT:
      g_value_set_uint64 (value, self->timeout);
      return TRUE;
    case PROP_BATCH_SIZE:
      g_value_set_uint (value, self->batch_size);
      return TRUE;
    case PROP_BATCHES:
      g_value_set_uint64 (value, self->batches);
      return TRUE;
    case PROP_BATCH_DURATION:
      g_value_set_uint64 (value, self->batch_duration);
      return TRUE;
    case PROP_DROPPED_LATE:
      g_value_set_uint64 (value, self->dropped_late);
      return TRUE;
    case PROP_QUEUE_DEPTH:
      g_value_set_uint (value, self->queue_depth);
      return TRUE;
    default:
      return FALSE;
  }
}

static void
gst_cuda_graph_batch_get_property (GObject *object, guint prop_id,
    GValue *value, GParamSpec *pspec)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (object);
  gboolean known;

  GST_OBJECT_LOCK (self);
  known = get_own_property (self, prop_id, value)
      || gst_cuda_graph_run_props_get (&self->run, PROP_RUN_FIRST, prop_id,
          value)
      || gst_cuda_graph_tensor_props_get (&self->props, PROP_TENSOR_FIRST,
          prop_id, value)
      || gst_cuda_graph_user_kernel_get (&self->kernel, PROP_KERNEL_FIRST,
          prop_id, value)
      || gst_cuda_graph_model_get (&self->model, PROP_MODEL_FIRST, prop_id,
          value)
      || gst_cuda_graph_postprocess_get (&self->postprocess,
          PROP_POSTPROCESS_FIRST, prop_id, value);
  GST_OBJECT_UNLOCK (self);
  if (!known)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

void
gst_cuda_graph_batch_install_properties (GObjectClass *gobject_class)
{
  gobject_class->set_property = gst_cuda_graph_batch_set_property;
  gobject_class->get_property = gst_cuda_graph_batch_get_property;

  g_object_class_install_property (gobject_class, PROP_BATCH_SIZE,
      g_param_spec_uint ("batch-size", "Batch size",
          "Most frames (streams) in one batch, 0-" G_STRINGIFY (
              GCG_FRAME_BATCH_MAX_SOURCES) " (0 = the number of sink pads "
                                           "at negotiation); the tensor holds batch-size x max-rois items",
          0, GCG_FRAME_BATCH_MAX_SOURCES, DEFAULT_BATCH_SIZE, READY_FLAGS));
  g_object_class_install_property (gobject_class, PROP_TIMEOUT,
      g_param_spec_uint64 ("timeout", "Timeout",
          "Live sources: how long after the end of the batch's window a "
          "stream without a frame is left out of it (ns, 0-3600000000000: "
          "at most one hour; part of the latency reported)",
          0, GST_CUDA_GRAPH_BATCH_MAX_TIMEOUT, DEFAULT_TIMEOUT, READY_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BATCHES,
      g_param_spec_uint64 ("batches", "Batches", "Batches pushed", 0,
          G_MAXUINT64, 0, RO));
  /**
   * GstCudaGraphBatch:batch-duration:
   *
   * The length of a batch's window of running time: each batch holds the
   * frames that start inside one window (as each pad's batch-strategy
   * says), as GStreamer 1.28's analyticscombiner does.  0: one frame long
   * (the shortest frame duration among the streams).  At most one hour
   * (3600000000000 ns): the window's length is part of the latency
   * reported and of the live deadline.  A stream holds at most
   * queue-depth frames of one window; with the `all` batch-strategy its
   * later frames in the window are dropped, with a warning.
   *
   * Since: 0.2
   */
  g_object_class_install_property (gobject_class, PROP_BATCH_DURATION,
      g_param_spec_uint64 ("batch-duration", "Batch duration",
          "Length of a batch's window of running time (ns, 0-3600000000000: "
          "at most one hour; 0 = the shortest frame duration among the "
          "streams); part of the latency reported; a stream's frames of one "
          "window beyond queue-depth are dropped",
          0, GST_CUDA_GRAPH_BATCH_MAX_DURATION, DEFAULT_BATCH_DURATION,
          READY_FLAGS));
  /**
   * GstCudaGraphBatch:dropped-late:
   *
   * Frames dropped because they started before the window being
   * collected: their window's batch had already left (a live stream later
   * than the timeout).
   *
   * Since: 0.2
   */
  g_object_class_install_property (gobject_class, PROP_DROPPED_LATE,
      g_param_spec_uint64 ("dropped-late", "Dropped late",
          "Frames dropped because their window's batch had already left", 0,
          G_MAXUINT64, 0, RO));
  /**
   * GstCudaGraphBatch:queue-depth:
   *
   * How many buffers each sink pad holds before its stream waits; a
   * waiting stream goes on once the batch has taken half of them, so
   * that a stream faster than the batch is woken once per depth / 2
   * frames, not once per frame.  It also bounds the frames a stream has
   * in one batch window (batch-duration): those beyond it are dropped,
   * with a warning.
   *
   * Since: 0.2
   */
  g_object_class_install_property (gobject_class, PROP_QUEUE_DEPTH,
      g_param_spec_uint ("queue-depth", "Queue depth",
          "Buffers each sink pad holds before its stream waits (it goes on "
          "once half of them are taken), 2-" G_STRINGIFY (
              GST_CUDA_GRAPH_BATCH_MAX_QUEUE_DEPTH) "; also the most frames of one "
                                                    "stream in one batch window (later ones are dropped)",
          2, GST_CUDA_GRAPH_BATCH_MAX_QUEUE_DEPTH, DEFAULT_QUEUE_DEPTH,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING));
  gst_cuda_graph_run_props_install (gobject_class, PROP_RUN_FIRST, &run_text);
  gst_cuda_graph_tensor_props_install (gobject_class, PROP_TENSOR_FIRST);
  gst_cuda_graph_user_kernel_install (gobject_class, PROP_KERNEL_FIRST, FALSE);
  gst_cuda_graph_model_install (gobject_class, PROP_MODEL_FIRST);
  gst_cuda_graph_postprocess_install (gobject_class, PROP_POSTPROCESS_FIRST);
}

void
gst_cuda_graph_batch_init_properties (GstCudaGraphBatch *self)
{
  gst_cuda_graph_run_props_init (&self->run);
  gst_cuda_graph_tensor_props_init (&self->props);
  self->batch_size = DEFAULT_BATCH_SIZE;
  self->batch_duration = DEFAULT_BATCH_DURATION;
  gst_cuda_graph_user_kernel_init (&self->kernel);
  self->timeout = DEFAULT_TIMEOUT;
  self->queue_depth = DEFAULT_QUEUE_DEPTH;
}
