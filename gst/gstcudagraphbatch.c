/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-cudagraphbatch
 * @title: cudagraphbatch
 * @short_description: batch the frames of many video streams into one
 *   inference tensor with one CUDA graph replay
 *
 * Takes one frame from each of its request sink pads (`sink_%u`, video in
 * system memory or `memory:CUDAMemory`, each stream of any size and of any
 * format the frame chain reads: NV12, I420, RGBA, BGRA, RGB, BGR, GRAY8)
 * and writes them, preprocessed as `cudagraphpreprocess` would, into one
 * tensor with NNStreamer's caps (`other/tensors, format=static,
 * num_tensors=1, dimensions=W:H:C:N`): for each stream that delivered a
 * frame, its #GstVideoRegionOfInterestMeta items (up to
 * #GstCudaGraphBatch:max-rois, filtered by roi-type) or one item of the
 * whole frame (or the pad's crop), source after source.  N is
 * #GstCudaGraphBatch:batch-size × max-rois whatever a batch holds; the
 * #GcgBatchMeta on each buffer says how many items are valid and where
 * each came from.
 *
 * With the CUDA backend the whole batch is one graph replay, captured on
 * the first batch: how many streams and items a batch holds, and each
 * stream's format, size, planes, crop and ROIs, are values of that
 * replay, so streams joining, leaving, changing caps or ROI counts never
 * capture again (#GstCudaGraphBatch:captures stays 1).  CUDA memory inputs
 * are read in place; system memory is uploaded first.  The tensor leaves
 * while the GPU may still write it: mapping it waits for that batch only.
 *
 * Batching: a batch takes the head frame of every pad that has one, up to
 * batch-size streams (more pads: the later ones wait for the next batch).
 * Non-live, it waits until every pad has a frame or is at EOS.  Live, a
 * pad with no frame by the deadline (the output running time plus
 * #GstCudaGraphBatch:timeout) is left out of that batch, as nvstreammux's
 * batched-push-timeout does.  EOS when every pad is at EOS.  With
 * batch-size 0 the batch size is the number of sink pads when caps are
 * negotiated; a pad requested beyond it renegotiates (a new capture): set
 * batch-size for streams that come and go.
 *
 * Values: as #GstCudaGraphPreprocess (mean/std or scale/offset, pad-value,
 * the GcgParamsMeta custom meta per frame).
 *
 * At EOS it posts a `cudagraph-stats` element message (`backend`,
 * `captures`, `replays`, `eager-frames`, `batches`, `frames` and, with the
 * CUDA backend, the device and pinned bytes held).  Built against
 * GStreamer 1.28, each batch also carries a `GstAnalyticsBatchMeta`
 * naming its streams by sink pad index.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 cudagraphbatch name=b width=640 height=640 ! fakesink \
 *   videotestsrc num-buffers=100 ! video/x-raw,format=NV12,width=1920,height=1080 ! b.sink_0 \
 *   videotestsrc num-buffers=100 pattern=ball ! video/x-raw,format=RGBA,width=1280,height=720 ! b.sink_1
 * ]| Two streams of different formats and sizes into one 2×3×640×640
 * float32 letterboxed tensor per pair of frames.
 * |[
 * gst-launch-1.0 cudagraphbatch name=b batch-size=4 width=224 height=224 letterbox=none mean="0.485,0.456,0.406" std="0.229,0.224,0.225" ! "other/tensors(memory:CUDAMemory)" ! appsink name=sink \
 *   filesrc location=a.mp4 ! qtdemux ! h264parse ! nvh264dec ! b.sink_0 \
 *   filesrc location=b.mp4 ! qtdemux ! h264parse ! nvh264dec ! b.sink_1
 * ]| Decoded frames read in place on the GPU; the 4×3×224×224 tensor stays
 * there for an application (see `gcg.tensor`, `gcg.tensor.batch_items`).
 *
 * Since: 0.1
 */

#include "gstcudagraphbatchpad.h"
#include "gstcudagraphbatchmeta.h"
#include "gstcudagraphcudainterop.h"
#include "gstcudagraphdevice.h"
#include "gstcudagraphelements.h"
#include "gstcudagraphfence.h"
#include "gstcudagraphparamsmeta.h"
#include "gstcudagraphpinnedallocator.h"
#include "gstcudagraphcudapool.h"
#include "gstcudagraphrois.h"
#include "gstcudagraphtensordescribe.h"
#include "gstcudagraphtensorprops.h"
#include "gstcudagraphvideo.h"

#include <stdlib.h>
#include <string.h>

#if defined (HAVE_GST_ANALYTICS) && GST_CHECK_VERSION (1, 28, 0)
#include <gst/analytics/analytics.h>
#define HAVE_GST_ANALYTICS_BATCH 1
#endif

GST_DEBUG_CATEGORY_STATIC (gst_cuda_graph_batch_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_batch_debug

#define BATCH_FORMATS "{ NV12, I420, RGBA, BGRA, RGB, BGR, GRAY8 }"

static GstStaticPadTemplate sink_template =
GST_STATIC_PAD_TEMPLATE ("sink_%u", GST_PAD_SINK, GST_PAD_REQUEST,
    GST_STATIC_CAPS (GST_CUDA_GRAPH_VIDEO_CAPS (BATCH_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CUDA_GRAPH_TENSOR_SRC_CAPS));

enum
{
  PROP_0,
  PROP_BATCH_SIZE,
  PROP_TIMEOUT,
  PROP_CUDA_DEVICE_ID,
  PROP_BACKEND,
  PROP_USE_GRAPH,
  PROP_IN_FLIGHT,
  PROP_CAPTURES,
  PROP_REPLAYS,
  PROP_EAGER_FRAMES,
  PROP_BATCHES,
  PROP_TENSOR_FIRST,
};

#define DEFAULT_BATCH_SIZE 0
#define DEFAULT_TIMEOUT (40 * GST_MSECOND)
#define DEFAULT_CUDA_DEVICE_ID -1
#define DEFAULT_BACKEND GCG_BACKEND_AUTO
#define DEFAULT_USE_GRAPH TRUE
#define DEFAULT_IN_FLIGHT 4
#define MAX_IN_FLIGHT 16

/* One stream's frame in the batch being assembled, mapped until the
 * batch's work is done. */
typedef struct
{
  GstCudaGraphBatchPad *pad;
  GstBuffer *buffer;
  GstVideoFrame frame;
  gboolean mapped;
  GstClockTime running_time;
  gint ids[GCG_FRAME_CHAIN_MAX_ROIS];
  guint n_items;
} BatchInput;

/* A batch: its inputs and, with the CUDA backend, the fence after its
 * work (inputs stay referenced until it has passed). */
typedef struct
{
  guint n;
  BatchInput inputs[GCG_FRAME_BATCH_MAX_SOURCES];
  GcgFrameBatchSource sources[GCG_FRAME_BATCH_MAX_SOURCES];
  GcgFrameParams params[GCG_FRAME_BATCH_MAX_SOURCES];
  /* Device copies of system memory planes (CUDA backend), until the
   * batch's work is queued. */
  guint64 staging[GCG_FRAME_BATCH_MAX_SOURCES * 3];
  guint n_staging;
  GcgFence *fence;
} Batch;

struct _GstCudaGraphBatch
{
  GstAggregator parent;

  /* Properties, under the object lock. */
  GstCudaGraphTensorProps props;
  guint batch_size;
  gint device_id;
  GcgBackend backend;
  gboolean use_graph;
  guint in_flight;

  /* Counters, under the object lock: the current engine's plus those of
   * engines replaced by a renegotiation. */
  guint64 retired_captures;
  guint64 retired_replays;
  guint64 retired_eager;
  guint64 captures;
  guint64 replays;
  guint64 eager;
  guint64 batches;

  /* A GstCudaContext offered by the pipeline, under the object lock. */
  GstObject *gst_context;

  /* Streaming state (the src pad's thread, or state changes). */
  GstCudaGraphDevice dev;
  GcgFrameBatch *engine;
  GcgFrameBatchConfig config;
  gsize out_size;
  guint64 frames;
  gboolean stats_posted;
  GQueue pending;               /* Batch*, oldest first */
  GQueue spare;                 /* Batch*, free */
};

G_DECLARE_FINAL_TYPE (GstCudaGraphBatch, gst_cuda_graph_batch, GST,
    CUDA_GRAPH_BATCH, GstAggregator)
G_DEFINE_TYPE (GstCudaGraphBatch, gst_cuda_graph_batch, GST_TYPE_AGGREGATOR);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudagraphbatch, "cudagraphbatch",
    GST_RANK_NONE, gst_cuda_graph_batch_get_type (),
    gst_cuda_graph_params_meta_register ();
    gcg_tensor_meta_get_info ();
    gcg_batch_meta_get_info ());

static void gst_cuda_graph_batch_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_cuda_graph_batch_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_cuda_graph_batch_finalize (GObject * object);
static void gst_cuda_graph_batch_set_context (GstElement * element,
    GstContext * context);
static gboolean gst_cuda_graph_batch_start (GstAggregator * agg);
static gboolean gst_cuda_graph_batch_stop (GstAggregator * agg);
static gboolean gst_cuda_graph_batch_sink_event (GstAggregator * agg,
    GstAggregatorPad * pad, GstEvent * event);
static gboolean gst_cuda_graph_batch_sink_query (GstAggregator * agg,
    GstAggregatorPad * pad, GstQuery * query);
static gboolean gst_cuda_graph_batch_src_query (GstAggregator * agg,
    GstQuery * query);
static GstFlowReturn gst_cuda_graph_batch_update_src_caps (GstAggregator *
    agg, GstCaps * caps, GstCaps ** ret);
static gboolean gst_cuda_graph_batch_negotiated_src_caps (GstAggregator *
    agg, GstCaps * caps);
static gboolean gst_cuda_graph_batch_decide_allocation (GstAggregator * agg,
    GstQuery * query);
static gboolean gst_cuda_graph_batch_propose_allocation (GstAggregator * agg,
    GstAggregatorPad * pad, GstQuery * decide_query, GstQuery * query);
static GstFlowReturn gst_cuda_graph_batch_aggregate (GstAggregator * agg,
    gboolean timeout);
static GstFlowReturn gst_cuda_graph_batch_flush (GstAggregator * agg);

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)
#define RO (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)

static void
install_counters (GObjectClass * gobject_class)
{
  g_object_class_install_property (gobject_class, PROP_CAPTURES,
      g_param_spec_uint64 ("captures", "Captures",
          "Graph captures since start (one per negotiated tensor shape)", 0,
          G_MAXUINT64, 0, RO));
  g_object_class_install_property (gobject_class, PROP_REPLAYS,
      g_param_spec_uint64 ("replays", "Replays",
          "Batches that replayed a graph captured on an earlier batch", 0,
          G_MAXUINT64, 0, RO));
  g_object_class_install_property (gobject_class, PROP_EAGER_FRAMES,
      g_param_spec_uint64 ("eager-frames", "Eager frames",
          "Batches run without a graph (use-graph=false, or the CPU "
          "backend)", 0, G_MAXUINT64, 0, RO));
  g_object_class_install_property (gobject_class, PROP_BATCHES,
      g_param_spec_uint64 ("batches", "Batches", "Batches pushed", 0,
          G_MAXUINT64, 0, RO));
}

static void
install_properties (GObjectClass * gobject_class)
{
  g_object_class_install_property (gobject_class, PROP_BATCH_SIZE,
      g_param_spec_uint ("batch-size", "Batch size",
          "Most streams in one batch (0 = the number of sink pads at "
          "negotiation); the tensor holds batch-size x max-rois items",
          0, GCG_FRAME_BATCH_MAX_SOURCES, DEFAULT_BATCH_SIZE,
          RW | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_TIMEOUT,
      g_param_spec_uint64 ("timeout", "Timeout",
          "Live sources: how long after the batch's running time a stream "
          "without a frame is left out of it (ns; the aggregator's "
          "latency: setting one sets the other)", 0, G_MAXUINT64,
          DEFAULT_TIMEOUT, RW | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device ID",
          "CUDA device ordinal (-1 = automatic: device 0)", -1, G_MAXINT,
          DEFAULT_CUDA_DEVICE_ID, RW | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where the batch runs: auto (CUDA when a GPU is usable, the CPU "
          "reference otherwise), cuda, or cpu", GCG_TYPE_BACKEND,
          DEFAULT_BACKEND, RW | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_USE_GRAPH,
      g_param_spec_boolean ("use-graph", "Use graph",
          "Capture the batch into a CUDA graph once and replay it (FALSE "
          "launches the same kernel eagerly, for A/B measurement)",
          DEFAULT_USE_GRAPH, RW | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_IN_FLIGHT,
      g_param_spec_uint ("in-flight", "Batches in flight",
          "Batches whose GPU work may be queued at once; their inputs stay "
          "referenced until it is done", 1, MAX_IN_FLIGHT, DEFAULT_IN_FLIGHT,
          RW | GST_PARAM_MUTABLE_READY));
  install_counters (gobject_class);
  gst_cuda_graph_tensor_props_install (gobject_class, PROP_TENSOR_FIRST);
}

static void
gst_cuda_graph_batch_class_init (GstCudaGraphBatchClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);

  gobject_class->set_property = gst_cuda_graph_batch_set_property;
  gobject_class->get_property = gst_cuda_graph_batch_get_property;
  gobject_class->finalize = gst_cuda_graph_batch_finalize;
  install_properties (gobject_class);

  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &sink_template, GST_TYPE_CUDA_GRAPH_BATCH_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &src_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_set_static_metadata (element_class,
      "CUDA graph batch preprocessor",
      "Filter/Converter/Video/Tensor/Hardware",
      "Batches one frame (or its regions of interest) of each of many video "
      "streams into one inference tensor with one CUDA graph replay",
      "gst-cudagraph authors");

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_set_context);
  agg_class->start = GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_stop);
  agg_class->flush = GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_flush);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_sink_event);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_sink_query);
  agg_class->src_query = GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_src_query);
  agg_class->update_src_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_update_src_caps);
  agg_class->negotiated_src_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_negotiated_src_caps);
  agg_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_decide_allocation);
  agg_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_propose_allocation);
  agg_class->aggregate = GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_aggregate);
  agg_class->get_next_time = gst_aggregator_simple_get_next_time;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_graph_batch_debug, "cudagraphbatch", 0,
      "cudagraphbatch");
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_GRAPH_BATCH_PAD, 0);
  gst_type_mark_as_plugin_api (GCG_TYPE_BACKEND, 0);
}

static void
gst_cuda_graph_batch_init (GstCudaGraphBatch * self)
{
  gst_cuda_graph_tensor_props_init (&self->props);
  self->batch_size = DEFAULT_BATCH_SIZE;
  self->device_id = DEFAULT_CUDA_DEVICE_ID;
  self->backend = DEFAULT_BACKEND;
  self->use_graph = DEFAULT_USE_GRAPH;
  self->in_flight = DEFAULT_IN_FLIGHT;
  self->dev.active = GCG_BACKEND_CPU;
  g_queue_init (&self->pending);
  g_queue_init (&self->spare);
  g_object_set (self, "latency", (guint64) DEFAULT_TIMEOUT, NULL);
  /* A pad that never delivered anything does not hold live batches back. */
  gst_aggregator_set_ignore_inactive_pads (GST_AGGREGATOR (self), TRUE);
}

static gboolean
set_own_property (GstCudaGraphBatch * self, guint prop_id,
    const GValue * value)
{
  switch (prop_id) {
    case PROP_BATCH_SIZE:
      self->batch_size = g_value_get_uint (value);
      return TRUE;
    case PROP_CUDA_DEVICE_ID:
      self->device_id = g_value_get_int (value);
      return TRUE;
    case PROP_BACKEND:
      self->backend = g_value_get_enum (value);
      return TRUE;
    case PROP_USE_GRAPH:
      self->use_graph = g_value_get_boolean (value);
      return TRUE;
    case PROP_IN_FLIGHT:
      self->in_flight = g_value_get_uint (value);
      return TRUE;
    default:
      return FALSE;
  }
}

static void
gst_cuda_graph_batch_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (object);
  gboolean known;

  /* The aggregator's latency is the deadline; it takes its own lock. */
  if (prop_id == PROP_TIMEOUT) {
    g_object_set (object, "latency", g_value_get_uint64 (value), NULL);
    return;
  }
  GST_OBJECT_LOCK (self);
  known = set_own_property (self, prop_id, value)
      || gst_cuda_graph_tensor_props_set (&self->props, object,
      PROP_TENSOR_FIRST, prop_id, value, pspec);
  GST_OBJECT_UNLOCK (self);
  if (!known)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static gboolean
get_own_property (GstCudaGraphBatch * self, guint prop_id, GValue * value)
{
  switch (prop_id) {
    case PROP_BATCH_SIZE:
      g_value_set_uint (value, self->batch_size);
      return TRUE;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, self->device_id);
      return TRUE;
    case PROP_BACKEND:
      g_value_set_enum (value, self->backend);
      return TRUE;
    case PROP_USE_GRAPH:
      g_value_set_boolean (value, self->use_graph);
      return TRUE;
    case PROP_IN_FLIGHT:
      g_value_set_uint (value, self->in_flight);
      return TRUE;
    case PROP_CAPTURES:
      g_value_set_uint64 (value, self->captures);
      return TRUE;
    case PROP_REPLAYS:
      g_value_set_uint64 (value, self->replays);
      return TRUE;
    case PROP_EAGER_FRAMES:
      g_value_set_uint64 (value, self->eager);
      return TRUE;
    case PROP_BATCHES:
      g_value_set_uint64 (value, self->batches);
      return TRUE;
    default:
      return FALSE;
  }
}

static void
gst_cuda_graph_batch_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (object);
  gboolean known;

  if (prop_id == PROP_TIMEOUT) {
    guint64 latency;

    g_object_get (object, "latency", &latency, NULL);
    g_value_set_uint64 (value, latency);
    return;
  }
  GST_OBJECT_LOCK (self);
  known = get_own_property (self, prop_id, value)
      || gst_cuda_graph_tensor_props_get (&self->props, PROP_TENSOR_FIRST,
      prop_id, value);
  GST_OBJECT_UNLOCK (self);
  if (!known)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_cuda_graph_batch_finalize (GObject * object)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (object);

  gst_cuda_graph_tensor_props_clear (&self->props);
  gst_clear_object (&self->gst_context);
  g_queue_clear_full (&self->spare, g_free);

  G_OBJECT_CLASS (gst_cuda_graph_batch_parent_class)->finalize (object);
}

/* --- context sharing ----------------------------------------------------- */

/* A "gst.cuda.context" from the pipeline or a neighbour; kept only while we
 * have none (the one we run in is never replaced mid-stream). */
static void
gst_cuda_graph_batch_set_context (GstElement * element, GstContext * context)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (element);
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = self->device_id;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_device_set_context (element, context, device_id,
      &self->gst_context);

  GST_ELEMENT_CLASS (gst_cuda_graph_batch_parent_class)->set_context
      (element, context);
}

static gboolean
answer_context_query (GstCudaGraphBatch * self, GstQuery * query)
{
  return gst_cuda_graph_device_context_query (GST_ELEMENT (self), query,
      &self->gst_context);
}

static gboolean
gst_cuda_graph_batch_src_query (GstAggregator * agg, GstQuery * query)
{
  if (answer_context_query (GST_CUDA_GRAPH_BATCH (agg), query))
    return TRUE;
  return GST_AGGREGATOR_CLASS (gst_cuda_graph_batch_parent_class)->src_query
      (agg, query);
}

static gboolean
gst_cuda_graph_batch_sink_query (GstAggregator * agg, GstAggregatorPad * pad,
    GstQuery * query)
{
  if (answer_context_query (GST_CUDA_GRAPH_BATCH (agg), query))
    return TRUE;
  return GST_AGGREGATOR_CLASS (gst_cuda_graph_batch_parent_class)->sink_query
      (agg, pad, query);
}

/* --- state --------------------------------------------------------------- */

static void
reset_counters (GstCudaGraphBatch * self)
{
  GST_OBJECT_LOCK (self);
  self->retired_captures = self->retired_replays = self->retired_eager = 0;
  self->captures = self->replays = self->eager = self->batches = 0;
  GST_OBJECT_UNLOCK (self);
  self->frames = 0;
  self->stats_posted = FALSE;
}

static gboolean
gst_cuda_graph_batch_start (GstAggregator * agg)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (agg);
  GcgBackend backend;
  gint device_id;

  GST_OBJECT_LOCK (self);
  backend = self->backend;
  device_id = self->device_id;
  GST_OBJECT_UNLOCK (self);
  reset_counters (self);
  return gst_cuda_graph_device_open (&self->dev, GST_ELEMENT (self), backend,
      device_id, &self->gst_context);
}

static void batch_free (GstCudaGraphBatch * self, Batch * batch);
static void retire_all (GstCudaGraphBatch * self);

/* The engine's counts move to the retired totals, so the counters go on
 * across renegotiations. */
static void
retire_engine (GstCudaGraphBatch * self)
{
  guint64 launches, captures;

  if (self->engine == NULL)
    return;
  retire_all (self);
  launches = gcg_frame_batch_get_replay_count (self->engine);
  captures = gcg_frame_batch_get_capture_count (self->engine);
  GST_OBJECT_LOCK (self);
  self->retired_captures += captures;
  self->retired_replays += launches > captures ? launches - captures : 0;
  self->retired_eager += gcg_frame_batch_get_eager_count (self->engine);
  GST_OBJECT_UNLOCK (self);
  g_clear_object (&self->engine);
}

static gboolean
gst_cuda_graph_batch_stop (GstAggregator * agg)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (agg);

  retire_engine (self);
  gst_cuda_graph_device_close (&self->dev);
  GST_OBJECT_LOCK (self);
  gst_clear_object (&self->gst_context);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static GstFlowReturn
gst_cuda_graph_batch_flush (GstAggregator * agg)
{
  retire_all (GST_CUDA_GRAPH_BATCH (agg));
  return GST_FLOW_OK;
}

/* Caps come in order with the buffers: a stream's new size or format is
 * a new description for its next frames, never a new capture. */
static gboolean
gst_cuda_graph_batch_sink_event (GstAggregator * agg, GstAggregatorPad * pad,
    GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps;

    gst_event_parse_caps (event, &caps);
    if (!gst_cuda_graph_batch_pad_set_caps (GST_CUDA_GRAPH_BATCH_PAD (pad),
            caps)) {
      gst_event_unref (event);
      return FALSE;
    }
  }
  return GST_AGGREGATOR_CLASS (gst_cuda_graph_batch_parent_class)->sink_event
      (agg, pad, event);
}

/* --- negotiation --------------------------------------------------------- */

static guint
count_sink_pads (GstCudaGraphBatch * self)
{
  guint n;

  GST_OBJECT_LOCK (self);
  n = GST_ELEMENT (self)->numsinkpads;
  GST_OBJECT_UNLOCK (self);
  return n;
}

/* Streams in the largest batch: the property, else the sink pads now. */
static guint
wanted_sources (GstCudaGraphBatch * self)
{
  guint n;

  GST_OBJECT_LOCK (self);
  n = self->batch_size;
  GST_OBJECT_UNLOCK (self);
  if (n == 0)
    n = CLAMP (count_sink_pads (self), 1, GCG_FRAME_BATCH_MAX_SOURCES);
  return n;
}

/* The framerate of the first stream that has caps, for the tensor caps. */
static void
first_framerate (GstCudaGraphBatch * self, GValue * fr)
{
  gint n = 0, d = 1;
  GList *l;

  GST_OBJECT_LOCK (self);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next) {
    const GstVideoInfo *info =
        gst_cuda_graph_batch_pad_get_info (GST_CUDA_GRAPH_BATCH_PAD
        (l->data));

    if (info) {
      n = GST_VIDEO_INFO_FPS_N (info);
      d = GST_VIDEO_INFO_FPS_D (info);
      break;
    }
  }
  GST_OBJECT_UNLOCK (self);
  g_value_init (fr, GST_TYPE_FRACTION);
  gst_value_set_fraction (fr, n, d);
}

/* Our tensor caps (both memory kinds, CUDA only where we can write it),
 * within @caps (downstream's). */
static GstFlowReturn
gst_cuda_graph_batch_update_src_caps (GstAggregator * agg, GstCaps * caps,
    GstCaps ** ret)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (agg);
  GstCudaGraphTensorDesc desc;
  GValue fr = G_VALUE_INIT;
  GstCaps *ours;
  guint n = wanted_sources (self);

  first_framerate (self, &fr);
  GST_OBJECT_LOCK (self);
  gst_cuda_graph_tensor_props_get_desc (&self->props,
      n * self->props.max_rois, &desc);
  GST_OBJECT_UNLOCK (self);
  ours = gst_caps_new_full (gst_cuda_graph_tensor_structure_new (&desc, &fr),
      NULL);
  g_value_unset (&fr);
  ours = gst_cuda_graph_caps_add_memory_kinds (ours);
  if (self->dev.active != GCG_BACKEND_CUDA || self->dev.cuda_context == NULL)
    ours = gst_cuda_graph_caps_remove_cuda_memory (ours);
  else
    ours = gst_cuda_graph_caps_cuda_memory_first (ours);
  *ret = gst_caps_intersect_full (caps, ours, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (ours);
  GST_DEBUG_OBJECT (self, "src caps %" GST_PTR_FORMAT, *ret);
  return gst_caps_is_empty (*ret) ? GST_FLOW_NOT_NEGOTIATED : GST_FLOW_OK;
}

/* The engine's configuration for negotiated @caps; FALSE for caps we did
 * not offer. */
static gboolean
config_from_caps (GstCudaGraphBatch * self, GstCaps * caps,
    GcgFrameBatchConfig * config)
{
  guint batch;

  memset (config, 0, sizeof (*config));
  gcg_frame_batch_config_init (config);
  GST_OBJECT_LOCK (self);
  config->tensor_layout = self->props.layout;
  config->tensor_channels = self->props.channels;
  config->resize = self->props.method;
  config->letterbox = self->props.letterbox;
  config->max_rois = self->props.max_rois;
  GST_OBJECT_UNLOCK (self);
  if (!gst_cuda_graph_tensor_caps_get_shape (caps, config->tensor_layout,
          &config->tensor_type, &config->out_width, &config->out_height,
          &batch) || batch % config->max_rois != 0)
    return FALSE;
  config->max_sources = batch / config->max_rois;
  return TRUE;
}

/* A new engine for @config unless the current one has it (renegotiating
 * to the same caps keeps the capture). */
static gboolean
ensure_engine (GstCudaGraphBatch * self, const GcgFrameBatchConfig * config)
{
  g_autoptr (GError) error = NULL;
  GcgFrameBatch *engine;

  if (self->engine && memcmp (&self->config, config, sizeof (*config)) == 0)
    return TRUE;
  engine = gcg_frame_batch_new (config, self->dev.active, self->dev.context,
      &error);
  if (engine == NULL) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot batch into this tensor: %s", error->message), (NULL));
    return FALSE;
  }
  retire_engine (self);
  self->engine = engine;
  self->config = *config;
  self->out_size = gcg_frame_batch_config_get_output_size (config);
  GST_INFO_OBJECT (self, "%u streams x %u items of %ux%u, %" G_GSIZE_FORMAT
      " bytes (%s backend)", config->max_sources, config->max_rois,
      config->out_width, config->out_height, self->out_size,
      self->dev.active == GCG_BACKEND_CUDA ? "cuda" : "cpu");
  return TRUE;
}

static gboolean
gst_cuda_graph_batch_negotiated_src_caps (GstAggregator * agg, GstCaps * caps)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (agg);
  g_autoptr (GError) error = NULL;
  GcgFrameBatchConfig config;

  if (!config_from_caps (self, caps, &config)) {
    GST_ERROR_OBJECT (self, "unsupported output caps %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
  /* Before anything is sized from the caps. */
  if (!gcg_frame_batch_config_validate (&config, &error)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Unsupported batch: %s", error->message),
        ("output %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  return ensure_engine (self, &config);
}

/* A pool downstream offered for system memory is configured for our
 * tensor; CUDA memory and pinned pools come configured. */
static void
configure_offered_pool (GstQuery * query, GstCaps * caps, gsize size)
{
  GstBufferPool *pool = NULL;
  GstStructure *config;
  guint min = 0, max = 0;

  if (gst_query_get_n_allocation_pools (query) == 0)
    return;
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, &min, &max);
  if (pool == NULL)
    return;
  if (!gst_buffer_pool_is_active (pool)) {
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, size, min, max);
    if (!gst_buffer_pool_set_config (pool, config)) {
      /* Allocate ourselves rather than from a pool that will not fit. */
      gst_query_remove_nth_allocation_pool (query, 0);
      gst_object_unref (pool);
      return;
    }
  }
  gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  gst_object_unref (pool);
}

static gboolean
gst_cuda_graph_batch_decide_allocation (GstAggregator * agg, GstQuery * query)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (agg);
  GstCaps *caps;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL)
    return FALSE;
  if (!gst_cuda_graph_device_decide_allocation (&self->dev,
          GST_ELEMENT (self), query, caps, FALSE, self->out_size))
    return FALSE;
  if (!gst_cuda_graph_caps_is_cuda_memory (caps))
    configure_offered_pool (query, caps, self->out_size);
  return TRUE;
}

/* Upstream may keep the metas we read on the buffers instead of applying
 * them, and gets pinned or CUDA memory with the CUDA backend (each stream
 * may have a frame in every batch in flight, and one queued). */
static gboolean
gst_cuda_graph_batch_propose_allocation (GstAggregator * agg,
    GstAggregatorPad * pad, GstQuery * decide_query, GstQuery * query)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (agg);
  GstCaps *caps;
  guint in_flight;

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_add_allocation_meta (query,
      GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE, NULL);
  GST_OBJECT_LOCK (self);
  in_flight = self->in_flight;
  GST_OBJECT_UNLOCK (self);
  gst_query_parse_allocation (query, &caps, NULL);
  gst_cuda_graph_device_propose_input_pool (&self->dev, GST_ELEMENT (self),
      query, caps, in_flight + 2);
  return TRUE;
}

/* --- batches in flight --------------------------------------------------- */

/* A Batch is some 200 KB (64 mapped frames and their values): they are
 * kept for the next batches rather than allocated and zeroed each time. */
static Batch *
batch_new (GstCudaGraphBatch * self)
{
  Batch *batch = g_queue_pop_head (&self->spare);

  return batch ? batch : g_new0 (Batch, 1);
}

/* Releases @batch's inputs and keeps it for a later batch. */
static void
batch_free (GstCudaGraphBatch * self, Batch * batch)
{
  for (guint i = 0; i < batch->n; i++) {
    BatchInput *in = &batch->inputs[i];

    if (in->mapped)
      gst_video_frame_unmap (&in->frame);
    in->mapped = FALSE;
    gst_clear_buffer (&in->buffer);
    gst_clear_object (&in->pad);
  }
  batch->n = 0;
  g_clear_object (&batch->fence);
  if (g_queue_get_length (&self->spare) <= MAX_IN_FLIGHT)
    g_queue_push_head (&self->spare, batch);
  else
    g_free (batch);
}

/* Releases the inputs of the batches the GPU is done with, oldest first;
 * waits for the oldest while more than @keep are left. */
static void
retire_batches (GstCudaGraphBatch * self, guint keep)
{
  Batch *batch;

  while ((batch = g_queue_peek_head (&self->pending))) {
    g_autoptr (GError) error = NULL;
    gboolean done = TRUE;

    if (batch->fence
        && !(g_queue_get_length (&self->pending) > keep
            ? gcg_fence_wait (batch->fence, &error)
            : gcg_fence_query (batch->fence, &done, &error)))
      GST_WARNING_OBJECT (self, "a batch failed on the GPU after it left: "
          "%s", error->message);
    else if (!done)
      return;
    batch_free (self, g_queue_pop_head (&self->pending));
  }
}

static void
retire_all (GstCudaGraphBatch * self)
{
  retire_batches (self, 0);
}

/* --- assembling a batch -------------------------------------------------- */

/* The pads to take frames from this time, in pad order (refs). */
static GList *
list_sink_pads (GstCudaGraphBatch * self)
{
  GList *pads;

  GST_OBJECT_LOCK (self);
  pads = g_list_copy (GST_ELEMENT (self)->sinkpads);
  for (GList * l = pads; l; l = l->next)
    gst_object_ref (l->data);
  GST_OBJECT_UNLOCK (self);
  return pads;
}

static gboolean
all_pads_eos (GList * pads)
{
  for (GList * l = pads; l; l = l->next) {
    if (!gst_aggregator_pad_is_eos (GST_AGGREGATOR_PAD (l->data)))
      return FALSE;
  }
  return TRUE;
}

/* GST_MAP_CUDA for CUDA memory our chain can read in place. */
static GstMapFlags
device_map_flags (GstCudaGraphBatch * self, GstBuffer * buffer)
{
  if (self->dev.active != GCG_BACKEND_CUDA)
    return 0;
  return gst_cuda_graph_cuda_map_flags (buffer, self->dev.cuda_context);
}

/* Every plane holds the rows the chain reads: upstream's video meta and
 * buffer are its word only. */
static gboolean
planes_fit (GstVideoFrame * frame, GError ** error)
{
  GcgFramePlanes planes;

  gst_cuda_graph_planes_from_frame (&planes, frame, GCG_MEMORY_KIND_HOST);
  for (guint i = 0; i < planes.n_planes; i++) {
    gsize row = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (frame, i)
        * GST_VIDEO_FRAME_COMP_PSTRIDE (frame, i);
    guint rows = GST_VIDEO_FRAME_COMP_HEIGHT (frame, i);
    gsize need;

    if (planes.stride[i] <= 0 || (gsize) planes.stride[i] < row
        || !g_size_checked_mul (&need, planes.stride[i], rows - 1)
        || !g_size_checked_add (&need, need, row) || need > planes.size[i]) {
      g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "plane %u (stride %d, %" G_GSIZE_FORMAT " bytes) does not hold "
          "%u rows of %" G_GSIZE_FORMAT " bytes", i, planes.stride[i],
          planes.size[i], rows, row);
      return FALSE;
    }
  }
  return TRUE;
}

/* Maps @in's buffer as its pad's caps say; FALSE (with a warning: the
 * frame is left out) when it does not hold them. */
static gboolean
map_input (GstCudaGraphBatch * self, BatchInput * in,
    const GstVideoInfo * info)
{
  g_autoptr (GError) error = NULL;
  GstMapFlags dev = device_map_flags (self, in->buffer);

  if (dev)
    gst_cuda_graph_cuda_wait_ready (in->buffer);
  if (gst_cuda_graph_video_meta_fits (in->buffer, info, &error)
      && gst_video_frame_map (&in->frame, info, in->buffer,
          GST_MAP_READ | dev)) {
    in->mapped = TRUE;
    if (planes_fit (&in->frame, &error))
      return TRUE;
  } else if (error == NULL) {
    g_set_error (&error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "the buffer does not hold a %s %dx%d frame",
        GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info));
  }
  GST_ELEMENT_WARNING (self, STREAM, FORMAT,
      ("Leaving a frame of %s out of the batch: %s",
          GST_PAD_NAME (in->pad), error->message), (NULL));
  return FALSE;
}

/* The per-frame values of @in, as cudagraphpreprocess fills them. */
static void
fill_params (GstCudaGraphBatch * self, BatchInput * in,
    const GcgRect * region, GcgFrameParams * params)
{
  g_autofree gchar *roi_type = NULL;
  GstBuffer *buf = in->buffer;
  guint max_rois = self->config.max_rois;
  gboolean cropped;

  gcg_frame_params_init (params);
  params->pts = GST_BUFFER_PTS_IS_VALID (buf) ? GST_BUFFER_PTS (buf) : 0;
  params->frame_number = GST_BUFFER_OFFSET_IS_VALID (buf)
      ? GST_BUFFER_OFFSET (buf) : self->frames;
  for (guint i = 0; i < GST_VIDEO_FRAME_N_PLANES (&in->frame); i++) {
    params->src[i] = (guint64) (guintptr)
        GST_VIDEO_FRAME_PLANE_DATA (&in->frame, i);
    params->src_stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (&in->frame, i);
  }
  GST_OBJECT_LOCK (self);
  gst_cuda_graph_tensor_props_fill_params (&self->props, params);
  roi_type = gst_cuda_graph_batch_pad_dup_roi_type (in->pad,
      self->props.roi_type);
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_apply_params_meta (GST_OBJECT (self), buf, params);
  in->n_items = gst_cuda_graph_collect_rois (GST_OBJECT (in->pad), buf,
      region, roi_type, max_rois, params, in->ids);
  /* The chain reads no ROI as the whole frame: a crop is one ROI. */
  cropped = region->x != 0 || region->y != 0
      || region->width != GST_VIDEO_FRAME_WIDTH (&in->frame)
      || region->height != GST_VIDEO_FRAME_HEIGHT (&in->frame);
  if (params->n_rois == 0 && cropped)
    params->n_rois = 1;
}

static GstClockTime
input_running_time (GstAggregatorPad * pad, GstBuffer * buf)
{
  GstClockTime rt;

  if (!GST_BUFFER_PTS_IS_VALID (buf))
    return GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (pad);
  rt = gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf));
  GST_OBJECT_UNLOCK (pad);
  return rt;
}

/* Takes @pad's head frame into @batch when it can be batched; a frame that
 * cannot (no caps, crop outside it, buffer too small) is dropped. */
static void
take_frame (GstCudaGraphBatch * self, GstCudaGraphBatchPad * pad,
    Batch * batch)
{
  GstAggregatorPad *apad = GST_AGGREGATOR_PAD (pad);
  BatchInput *in = &batch->inputs[batch->n];
  const GstVideoInfo *info = gst_cuda_graph_batch_pad_get_info (pad);
  GcgRect region;

  in->buffer = gst_aggregator_pad_pop_buffer (apad);
  if (in->buffer == NULL)
    return;
  in->pad = gst_object_ref (pad);
  in->running_time = input_running_time (apad, in->buffer);
  if (info == NULL || !gst_cuda_graph_batch_pad_get_region (pad,
          GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), &region)
      || !map_input (self, in, info)) {
    if (in->mapped)
      gst_video_frame_unmap (&in->frame);
    gst_clear_buffer (&in->buffer);
    gst_clear_object (&in->pad);
    in->mapped = FALSE;
    return;
  }
  gst_cuda_graph_batch_pad_get_source (pad, &batch->sources[batch->n]);
  fill_params (self, in, &region, &batch->params[batch->n]);
  batch->n++;
}

/* --- output -------------------------------------------------------------- */

static GstFlowReturn
acquire_output (GstCudaGraphBatch * self, GstBuffer ** outbuf)
{
  GstAggregator *agg = GST_AGGREGATOR (self);
  g_autoptr (GstBufferPool) pool = gst_aggregator_get_buffer_pool (agg);
  GstAllocator *allocator = NULL;
  GstAllocationParams params;

  *outbuf = NULL;
  if (pool) {
    if (gst_buffer_pool_acquire_buffer (pool, outbuf, NULL) != GST_FLOW_OK)
      *outbuf = NULL;
  } else {
    gst_aggregator_get_allocator (agg, &allocator, &params);
    *outbuf = gst_buffer_new_allocate (allocator, self->out_size, &params);
    gst_clear_object (&allocator);
  }
  if (*outbuf && gst_buffer_get_size (*outbuf) >= self->out_size)
    return GST_FLOW_OK;
  gst_clear_buffer (outbuf);
  GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
      ("Cannot allocate a batch of %" G_GSIZE_FORMAT " bytes",
          self->out_size), (NULL));
  return GST_FLOW_ERROR;
}

/* Where the engine writes: the output itself (host memory for the CPU
 * backend, our CUDA memory for the CUDA backend), else a device block
 * copied into the output afterwards. */
typedef struct
{
  GstMapInfo map;
  gboolean device;
  guint64 staging;
} OutputTarget;

static gboolean
map_output (GstCudaGraphBatch * self, GstBuffer * outbuf, OutputTarget * t,
    GError ** error)
{
  GstMapFlags dev = device_map_flags (self, outbuf);
  /* Our writes are stream ordered after the buffer's last batch. */
  GstMapFlags flags = GST_MAP_WRITE | dev
      | (self->dev.active == GCG_BACKEND_CUDA
      ? GST_CUDA_GRAPH_MAP_NO_FENCE : 0);

  memset (t, 0, sizeof (*t));
  if (!gst_buffer_map (outbuf, &t->map, flags)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_FAILED,
        "cannot map the output buffer");
    return FALSE;
  }
  t->device = dev != 0;
  if (self->dev.active != GCG_BACKEND_CUDA || t->device)
    return TRUE;
  return gcg_allocator_alloc (self->dev.allocator, self->out_size,
      self->dev.stream, &t->staging, error);
}

static guint64
output_address (OutputTarget * t)
{
  return t->staging ? t->staging : (guint64) (guintptr) t->map.data;
}

/* System memory planes go to the device first (CUDA backend), into blocks
 * of the stream-ordered allocator: freed once the batch's kernel is queued
 * (free_staging()), their next user then runs after it on the stream. */
static gboolean
upload_inputs (GstCudaGraphBatch * self, Batch * batch, GError ** error)
{
  GcgFramePlanes planes;

  if (self->dev.active != GCG_BACKEND_CUDA)
    return TRUE;
  for (guint s = 0; s < batch->n; s++) {
    BatchInput *in = &batch->inputs[s];

    if (device_map_flags (self, in->buffer))
      continue;
    gst_cuda_graph_planes_from_frame (&planes, &in->frame,
        GCG_MEMORY_KIND_HOST);
    for (guint i = 0; i < planes.n_planes; i++) {
      guint64 block;
      gboolean ok;

      if (!gcg_allocator_alloc (self->dev.allocator, planes.size[i],
              self->dev.stream, &block, error))
        return FALSE;
      batch->staging[batch->n_staging++] = block;
      ok = gcg_stream_copy_to_device (self->dev.stream, block,
          GSIZE_TO_POINTER ((gsize) planes.data[i]), planes.size[i], error);
      if (!ok)
        return FALSE;
      batch->params[s].src[i] = block;
    }
  }
  return TRUE;
}

static void
free_staging (GstCudaGraphBatch * self, Batch * batch)
{
  for (guint i = 0; i < batch->n_staging; i++)
    gcg_allocator_free (self->dev.allocator, batch->staging[i]);
  batch->n_staging = 0;
}

/* After the engine queued its work: a device output block goes into the
 * output; the output then either waits for the batch when read (our
 * pinned or CUDA memory) or is complete before it leaves. */
static gboolean
finish_output (GstCudaGraphBatch * self, GstBuffer * outbuf,
    OutputTarget * t, Batch * batch, GError ** error)
{
  GstMemory *mem = gst_buffer_peek_memory (outbuf, 0);
  gboolean fenced = gst_buffer_n_memory (outbuf) == 1
      && (gst_cuda_graph_is_pinned_memory (mem)
      || gst_cuda_graph_cuda_memory_is_fenced (mem));

  if (self->dev.active != GCG_BACKEND_CUDA)
    return TRUE;
  if (t->staging) {
    gboolean ok = gcg_stream_copy_to_host (self->dev.stream, t->map.data,
        t->staging, self->out_size, error);

    gcg_allocator_free (self->dev.allocator, t->staging);
    t->staging = 0;
    if (!ok)
      return FALSE;
  }
  batch->fence = gcg_fence_new (self->dev.stream, error);
  if (batch->fence == NULL)
    return FALSE;
  if (fenced) {
    gst_cuda_graph_fence_set_marker (mem, batch->fence);
    return TRUE;
  }
  return gcg_fence_wait (batch->fence, error);
}

static void
update_counters (GstCudaGraphBatch * self)
{
  guint64 launches = gcg_frame_batch_get_replay_count (self->engine);
  guint64 captures = gcg_frame_batch_get_capture_count (self->engine);
  guint64 eager = gcg_frame_batch_get_eager_count (self->engine);

  GST_OBJECT_LOCK (self);
  self->captures = self->retired_captures + captures;
  self->replays = self->retired_replays
      + (launches > captures ? launches - captures : 0);
  self->eager = self->retired_eager + eager;
  self->batches++;
  GST_OBJECT_UNLOCK (self);
}

#ifdef HAVE_GST_ANALYTICS_BATCH
/* GStreamer 1.28's description of a batch for its analytics elements:
 * one stream per source, by its sink pad's index (the frames themselves
 * are in the tensor, so no buffers are listed). */
static void
add_analytics_batch_meta (GstBuffer * outbuf, Batch * batch)
{
  GstAnalyticsBatchMeta *meta = gst_buffer_add_analytics_batch_meta (outbuf);

  if (meta == NULL)
    return;
  meta->streams = g_new0 (GstAnalyticsBatchStream, batch->n);
  meta->n_streams = batch->n;
  for (guint s = 0; s < batch->n; s++) {
    /* "sink_%u" */
    meta->streams[s].index = (guint) strtoul (GST_PAD_NAME (batch->inputs[s].
            pad) + 5, NULL, 10);
  }
}
#else
static void
add_analytics_batch_meta (GstBuffer * outbuf, Batch * batch)
{
}
#endif

/* The batch's GcgBatchMeta and GcgTensorMeta. */
static void
decorate (GstCudaGraphBatch * self, GstBuffer * outbuf, Batch * batch,
    guint n_items, OutputTarget * t)
{
  const GcgFrameBatchConfig *c = &self->config;
  GstCudaGraphTensorDesc desc = { c->tensor_layout, c->tensor_type,
    c->tensor_channels, c->out_width, c->out_height,
    c->max_sources * c->max_rois
  };
  GcgBatchMeta *bmeta = gcg_buffer_add_batch_meta (outbuf, n_items);
  GcgTensorMeta *tmeta = gst_cuda_graph_tensor_meta_add (outbuf, &desc,
      self->out_size, t->device ? (guint64) (guintptr) t->map.data : 0,
      t->device ? gcg_context_get_device_id (self->dev.context) : -1,
      t->device ? self->dev.stream : NULL);
  guint k = 0;

  tmeta->n_items = n_items;
  if (bmeta == NULL)
    return;
  for (guint s = 0; s < batch->n; s++) {
    BatchInput *in = &batch->inputs[s];
    GcgBatchMetaSource *src = &bmeta->sources[s];
    const GcgFrameParams *p = &batch->params[s];

    src->pad_name = gst_pad_get_name (in->pad);
    src->stream_id = gst_pad_get_stream_id (GST_PAD (in->pad));
    src->pts = GST_BUFFER_PTS (in->buffer);
    src->running_time = in->running_time;
    src->width = batch->sources[s].width;
    src->height = batch->sources[s].height;
    src->first_item = k;
    src->n_items = in->n_items;
    for (guint i = 0; i < in->n_items && k < n_items; i++, k++) {
      GcgBatchMetaItem *item = &bmeta->items[k];
      GcgFrameItemMap map;

      gcg_frame_item_map_init (&map, &p->rois[i], c->out_width,
          c->out_height, c->letterbox);
      *item = (GcgBatchMetaItem) {
      s, in->ids[i], map.roi.x, map.roi.y, map.roi.width, map.roi.height,
            map.pad_x, map.pad_y, map.scale_x, map.scale_y, map.offset_x,
            map.offset_y};
      gst_cuda_graph_tensor_meta_set_item (tmeta, k, &map, in->ids[i]);
    }
    bmeta->n_sources = s + 1;
  }
  gst_cuda_graph_add_gst_tensor_meta (outbuf, tmeta, "cudagraphbatch");
  add_analytics_batch_meta (outbuf, batch);
}

/* The batch's time: the earliest running time among its frames, which
 * is also where the output segment (time, from 0) now stands. */
static void
timestamp (GstCudaGraphBatch * self, GstBuffer * outbuf, Batch * batch)
{
  GstAggregatorPad *srcpad = GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD
      (self));
  GstClockTime t = GST_CLOCK_TIME_NONE, end = GST_CLOCK_TIME_NONE;

  for (guint s = 0; s < batch->n; s++) {
    GstClockTime rt = batch->inputs[s].running_time;
    GstClockTime dur = GST_BUFFER_DURATION (batch->inputs[s].buffer);

    if (!GST_CLOCK_TIME_IS_VALID (rt))
      continue;
    t = GST_CLOCK_TIME_IS_VALID (t) ? MIN (t, rt) : rt;
    if (GST_CLOCK_TIME_IS_VALID (dur))
      end = GST_CLOCK_TIME_IS_VALID (end) ? MAX (end, rt + dur) : rt + dur;
  }
  GST_BUFFER_PTS (outbuf) = t;
  GST_BUFFER_OFFSET (outbuf) = self->batches;
  if (GST_CLOCK_TIME_IS_VALID (t) && GST_CLOCK_TIME_IS_VALID (end))
    GST_BUFFER_DURATION (outbuf) = end - t;
  GST_OBJECT_LOCK (self);
  if (GST_CLOCK_TIME_IS_VALID (end))
    srcpad->segment.position = end;
  else if (GST_CLOCK_TIME_IS_VALID (t))
    srcpad->segment.position = t;
  GST_OBJECT_UNLOCK (self);
}

/* Runs @batch into @outbuf; on failure @outbuf is not pushed. */
static gboolean
run_batch (GstCudaGraphBatch * self, Batch * batch, GstBuffer * outbuf,
    GError ** error)
{
  OutputTarget t;
  gboolean use_graph;
  guint n_items = 0;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  use_graph = self->use_graph;
  GST_OBJECT_UNLOCK (self);
  gcg_frame_batch_set_use_graph (self->engine, use_graph);
  if (!map_output (self, outbuf, &t, error))
    return FALSE;
  ok = upload_inputs (self, batch, error)
      && gcg_frame_batch_process (self->engine, batch->n, batch->sources,
      batch->params, output_address (&t), self->dev.stream, &n_items, error)
      && finish_output (self, outbuf, &t, batch, error);
  free_staging (self, batch);
  if (t.staging)
    gcg_allocator_free (self->dev.allocator, t.staging);
  if (ok)
    decorate (self, outbuf, batch, n_items, &t);
  gst_buffer_unmap (outbuf, &t.map);
  return ok;
}

/* Live, nothing came by the deadline: the next deadline is a timeout
 * later, so the aggregator does not spin. */
static void
skip_empty_deadline (GstCudaGraphBatch * self)
{
  GstAggregatorPad *srcpad = GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD
      (self));
  GstClockTime latency = gst_aggregator_get_latency (GST_AGGREGATOR (self));
  GstClockTime next = gst_aggregator_simple_get_next_time (GST_AGGREGATOR
      (self));

  if (!GST_CLOCK_TIME_IS_VALID (next))
    return;
  GST_OBJECT_LOCK (self);
  srcpad->segment.position = next + MAX (latency, GST_MSECOND);
  GST_OBJECT_UNLOCK (self);
}

/* A renegotiation when batch-size is 0 and pads were requested beyond the
 * negotiated batch (the next batch captures again). */
static void
check_growth (GstCudaGraphBatch * self)
{
  guint batch_size;

  GST_OBJECT_LOCK (self);
  batch_size = self->batch_size;
  GST_OBJECT_UNLOCK (self);
  if (batch_size == 0 && self->engine
      && count_sink_pads (self) > self->config.max_sources)
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (self));
}

static GstFlowReturn
push_batch (GstCudaGraphBatch * self, Batch * batch)
{
  g_autoptr (GError) error = NULL;
  GstBuffer *outbuf;
  GstFlowReturn ret = acquire_output (self, &outbuf);

  if (ret != GST_FLOW_OK)
    return ret;
  if (!run_batch (self, batch, outbuf, &error)) {
    gst_buffer_unref (outbuf);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Processing a batch of %u streams failed: %s", batch->n,
            error->message), (NULL));
    return GST_FLOW_ERROR;
  }
  timestamp (self, outbuf, batch);
  update_counters (self);
  self->frames += batch->n;
  return gst_aggregator_finish_buffer (GST_AGGREGATOR (self), outbuf);
}

/* At EOS, as the other elements do: the counters (final once the batches
 * in flight are done) and the memory held, which gst-launch-1.0 -m
 * prints. */
static void
post_stats (GstCudaGraphBatch * self)
{
  GstStructure *s;

  if (self->stats_posted)
    return;
  self->stats_posted = TRUE;
  retire_all (self);
  GST_OBJECT_LOCK (self);
  s = gst_structure_new ("cudagraph-stats",
      "backend", G_TYPE_STRING,
      self->dev.active == GCG_BACKEND_CUDA ? "cuda" : "cpu",
      "captures", G_TYPE_UINT64, self->captures,
      "replays", G_TYPE_UINT64, self->replays,
      "eager-frames", G_TYPE_UINT64, self->eager,
      "batches", G_TYPE_UINT64, self->batches,
      "frames", G_TYPE_UINT64, self->frames, NULL);
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_device_add_memory_stats (&self->dev, s);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

static GstFlowReturn
gst_cuda_graph_batch_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (agg);
  GList *pads = list_sink_pads (self);
  Batch *batch = batch_new (self);
  GstFlowReturn ret = GST_FLOW_OK;
  GstClockTime next;
  guint in_flight;

  if (self->engine == NULL) {
    ret = GST_FLOW_NOT_NEGOTIATED;
    goto done;
  }
  check_growth (self);
  /* Controlled properties (scale, offset, pad-value) at the batch's time. */
  next = gst_aggregator_simple_get_next_time (agg);
  if (GST_CLOCK_TIME_IS_VALID (next))
    gst_object_sync_values (GST_OBJECT (self), next);
  for (GList * l = pads; l && batch->n < self->config.max_sources;
      l = l->next)
    take_frame (self, GST_CUDA_GRAPH_BATCH_PAD (l->data), batch);
  if (batch->n == 0) {
    if (all_pads_eos (pads)) {
      post_stats (self);
      ret = GST_FLOW_EOS;
    }
    else if (timeout)
      skip_empty_deadline (self);
    goto done;
  }
  ret = push_batch (self, batch);
  if (batch->fence == NULL)
    goto done;
  /* The GPU may still read the inputs: they stay until it is done. */
  g_queue_push_tail (&self->pending, g_steal_pointer (&batch));
  GST_OBJECT_LOCK (self);
  in_flight = self->in_flight;
  GST_OBJECT_UNLOCK (self);
  retire_batches (self, in_flight);

done:
  if (batch)
    batch_free (self, batch);
  g_list_free_full (pads, gst_object_unref);
  return ret;
}
