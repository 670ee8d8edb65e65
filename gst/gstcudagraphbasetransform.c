/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gstcudagraphbasetransform
 * @title: GstCudaGraphBaseTransform
 * @short_description: base of the cudagraph elements
 *
 * Opens the CUDA context, stream and device allocator at start (or falls
 * back to the CPU reference backend when `backend=auto` finds no usable
 * GPU, and says so on the bus), builds a #GcgFrameChain for the first
 * buffer of new caps (a new chain means a new capture on its first frame;
 * every later frame replays it), and for each buffer fills the chain's
 * per-frame values from the buffer and its metadata, stages system memory
 * to the device and back, and runs the chain.
 *
 * GstCudaMemory (caps feature `memory:CUDAMemory`, from nvcodec's
 * cudaupload or nvh264dec) is read and written in place: the element
 * shares one #GstCudaContext with its neighbours (context type
 * `gst.cuda.context`; when nobody has one it shares the device's primary
 * context) and runs its chain in that context.  CUDA memory of another
 * context, or met with the CPU backend, is copied through the host.
 *
 * Caps changes: the chains of the last
 * #GstCudaGraphBaseTransform:graph-cache-size configurations before the
 * current one are kept with their captured graphs and device memory, so
 * that caps going back to one of them (an adaptive stream switching
 * resolution back, a camera changing mode and back) replay the graph
 * captured already instead of building and capturing again; the least
 * recently used one is dropped, memory included, when the cache is full.
 * #GstCudaGraphBaseTransform:chains-built counts the chains made.
 *
 * At EOS (or at stop when no EOS came) it posts an element message named
 * `cudagraph-stats` with the fields `backend` (string), `captures`,
 * `replays`, `eager-frames`, `chains-built`, `frames`, `dropped-frames`,
 * `failed-frames`, `in-place-inputs` and `in-place-outputs` (guint64:
 * frames whose GstCudaMemory the chain read or wrote in place, with no
 * copy), `in-flight` (guint) and
 * `slot-waits` (guint64: frames that waited for a free slot because the
 * GPU was that far behind) and, with the CUDA backend,
 * `device-bytes-allocated`, `device-bytes-reserved` and
 * `pinned-bytes-in-use` (guint64, what the element holds at that moment),
 * which `gst-launch-1.0 -m` prints.  An application posts the same
 * message at any time, between two frames, by sending a custom downstream
 * event named `cudagraph-stats-request`
 * (%GST_CUDA_GRAPH_STATS_REQUEST_NAME): a long run sampling the memory
 * held, say.
 *
 * Frames in flight: each buffer's work is queued on the GPU (copy in,
 * graph replay, copy out) and the buffer is pushed at once, up to
 * #GstCudaGraphBaseTransform:in-flight frames ahead of the GPU.  Pinned
 * system memory and CUDA memory made by the element wait, when mapped or
 * copied, for the one frame still being written into them, so downstream
 * reads finished data without the streaming thread ever waiting per
 * frame.  (The alternative, holding buffer N back until frame N-k is done,
 * would add a frame interval of latency to live sources.)  Output into
 * memory of anyone else (a downstream pool of pageable memory) is waited
 * for before it leaves.
 *
 * Since: 0.1
 */

#include <math.h>
#include <string.h>

#include "gstcudagraphbasetransform.h"
#include "gstcudagraphchaincache.h"
#include "gstcudagraphcudainterop.h"
#include "gstcudagraphcudapool.h"
#include "gstcudagraphdevice.h"
#include "gstcudagraphfence.h"
#include "gstcudagraphpinnedallocator.h"

/* Shared with gstcudagraphcudainterop.c. */
GST_DEBUG_CATEGORY (gst_cuda_graph_base_transform_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_base_transform_debug

enum
{
  PROP_0,
  PROP_CUDA_DEVICE_ID,
  PROP_BACKEND,
  PROP_USE_GRAPH,
  PROP_SYNC_MODE,
  PROP_CAPTURES,
  PROP_REPLAYS,
  PROP_EAGER_FRAMES,
  PROP_MAX_ERRORS,
  PROP_DROPPED_FRAMES,
  PROP_IN_FLIGHT,
  PROP_FAILED_FRAMES,
  PROP_GRAPH_CACHE_SIZE,
  PROP_CHAINS_BUILT,
};

#define DEFAULT_CUDA_DEVICE_ID -1
#define DEFAULT_BACKEND GCG_BACKEND_AUTO
#define DEFAULT_USE_GRAPH TRUE
#define DEFAULT_SYNC_MODE GCG_SYNC_MODE_POLL
#define DEFAULT_MAX_ERRORS 10
#define DEFAULT_IN_FLIGHT 4
#define DEFAULT_GRAPH_CACHE_SIZE 4

/* What a chain counted: graphs captured, graph launches (the one right
 * after a capture included), eager frames. */
typedef struct
{
  guint64 captures;
  guint64 launches;
  guint64 eager;
} ChainCounts;

/* A frame whose GPU work may still be running: its input stays mapped
 * (and so referenced) until the frame queue says the device is done. */
typedef struct
{
  GstCudaGraphBaseTransform *self;
  GstVideoFrame in_frame;
  GstClockTime pts;
} InFlightFrame;

typedef struct
{
  /* Properties, under the object lock. */
  gint device_id;
  GcgBackend backend;
  gboolean use_graph;
  GcgSyncMode sync_mode;
  gint max_errors;
  guint in_flight;
  guint graph_cache_size;

  /* Counters, under the object lock: totals over every chain since start;
   * what chains counted while they were current, before the current one;
   * and the current chain's own counts when it became current (a chain
   * from the cache comes back with the counts of its earlier caps). */
  guint64 captures;
  guint64 replays;
  guint64 eager;
  ChainCounts retired;
  ChainCounts base;
  guint64 chains_built;
  guint64 frames;
  guint64 dropped;
  guint64 failed;
  /* Streaming thread only (read at EOS, or at stop once it has ended). */
  guint64 in_place_in;
  guint64 in_place_out;
  gboolean stats_posted;
  guint consecutive_errors;
  /* A frame that failed on the GPU after it was pushed took the errors past
   * max-errors: the next buffer returns GST_FLOW_ERROR. */
  gboolean flow_error;
  /* priv->config holds the negotiated configuration (the chain for it may
   * still be missing after a driver failure). */
  gboolean have_config;
  /* Between start and stop: the backend (and CUDA memory output) known. */
  gboolean started;

  /* The GstCudaContext offered by the pipeline or a neighbour, under the
   * object lock (set_context may come from any thread). */
  GstObject *gst_context;

  /* Streaming state (streaming thread, or state changes). */
  GstCudaGraphDevice dev;
  GcgFrameQueue *queue;
  GcgFrameChain *chain;
  GstCudaGraphChainCache *chain_cache;  /* chains of earlier caps */
  GcgFrameChainConfig config;
  GstVideoInfo in_info;
  GstVideoInfo out_info;
  gsize out_size;
  /* Device address of the last output when it was device memory, else 0
   * (for the subclasses' metadata). */
  guint64 out_device_ptr;
} GstCudaGraphBaseTransformPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaGraphBaseTransform,
    gst_cuda_graph_base_transform, GST_TYPE_BASE_TRANSFORM);

#define GET_PRIV(self) \
  ((GstCudaGraphBaseTransformPrivate *) \
   gst_cuda_graph_base_transform_get_instance_private (self))

static void gst_cuda_graph_base_transform_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_cuda_graph_base_transform_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_cuda_graph_base_transform_finalize (GObject * object);
static gboolean gst_cuda_graph_base_transform_start (GstBaseTransform * trans);
static gboolean gst_cuda_graph_base_transform_stop (GstBaseTransform * trans);
static gboolean gst_cuda_graph_base_transform_set_caps (GstBaseTransform *
    trans, GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_cuda_graph_base_transform_transform_size (GstBaseTransform
    * trans, GstPadDirection direction, GstCaps * caps, gsize size,
    GstCaps * othercaps, gsize * othersize);
static gboolean gst_cuda_graph_base_transform_get_unit_size (GstBaseTransform
    * trans, GstCaps * caps, gsize * size);
static void gst_cuda_graph_base_transform_before_transform (GstBaseTransform *
    trans, GstBuffer * buffer);
static GstFlowReturn gst_cuda_graph_base_transform_transform (GstBaseTransform
    * trans, GstBuffer * inbuf, GstBuffer * outbuf);
static gboolean gst_cuda_graph_base_transform_sink_event (GstBaseTransform *
    trans, GstEvent * event);
static gboolean gst_cuda_graph_base_transform_propose_allocation
    (GstBaseTransform * trans, GstQuery * decide_query, GstQuery * query);
static gboolean gst_cuda_graph_base_transform_decide_allocation
    (GstBaseTransform * trans, GstQuery * query);
static GstFlowReturn gst_cuda_graph_base_transform_prepare_output_buffer
    (GstBaseTransform * trans, GstBuffer * input, GstBuffer ** outbuf);
static void gst_cuda_graph_base_transform_set_context (GstElement * element,
    GstContext * context);
static gboolean gst_cuda_graph_base_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);

static void
gst_cuda_graph_base_transform_class_init (GstCudaGraphBaseTransformClass *
    klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = gst_cuda_graph_base_transform_set_property;
  gobject_class->get_property = gst_cuda_graph_base_transform_get_property;
  gobject_class->finalize = gst_cuda_graph_base_transform_finalize;

  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device ID",
          "CUDA device ordinal (-1 = automatic: device 0)", -1, G_MAXINT,
          DEFAULT_CUDA_DEVICE_ID, rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where the frame chain runs: auto (CUDA when a GPU is usable, "
          "the CPU reference otherwise), cuda, or cpu",
          GCG_TYPE_BACKEND, DEFAULT_BACKEND, rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_USE_GRAPH,
      g_param_spec_boolean ("use-graph", "Use graph",
          "Capture the chain into a CUDA graph once and replay it per frame "
          "(FALSE launches the same kernels eagerly, for A/B measurement)",
          DEFAULT_USE_GRAPH, rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_SYNC_MODE,
      g_param_spec_enum ("sync-mode", "Sync mode",
          "How a thread that needs a frame's result (a reader mapping "
          "the output, a full queue, EOS) waits for its GPU work: poll "
          "sleeps in short steps between queries, blocking sleeps on a "
          "blocking-sync event (the driver takes an interrupt per frame), "
          "driver spins a core (least latency)",
          GCG_TYPE_SYNC_MODE, DEFAULT_SYNC_MODE,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_CAPTURES,
      g_param_spec_uint64 ("captures", "Captures",
          "Graph captures since start (one per negotiated caps)", 0,
          G_MAXUINT64, 0, ro));
  g_object_class_install_property (gobject_class, PROP_REPLAYS,
      g_param_spec_uint64 ("replays", "Replays",
          "Frames that replayed a graph captured on an earlier frame "
          "(N buffers of one caps: 1 capture, N-1 replays)", 0, G_MAXUINT64,
          0, ro));
  g_object_class_install_property (gobject_class, PROP_EAGER_FRAMES,
      g_param_spec_uint64 ("eager-frames", "Eager frames",
          "Frames run without a graph (use-graph=false, or the CPU backend)",
          0, G_MAXUINT64, 0, ro));
  g_object_class_install_property (gobject_class, PROP_MAX_ERRORS,
      g_param_spec_int ("max-errors", "Max errors",
          "Consecutive frames that may fail to process (a driver error, "
          "say) before the element errors out; each failed frame is "
          "dropped with a warning (-1 = never error out, 0 = error out on "
          "the first)", -1, G_MAXINT, DEFAULT_MAX_ERRORS,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_DROPPED_FRAMES,
      g_param_spec_uint64 ("dropped-frames", "Dropped frames",
          "Frames dropped because processing them failed", 0, G_MAXUINT64,
          0, ro));
  g_object_class_install_property (gobject_class, PROP_FAILED_FRAMES,
      g_param_spec_uint64 ("failed-frames", "Failed frames",
          "Frames whose processing failed: the dropped ones, and those that "
          "failed on the GPU after their buffer had left (reported with a "
          "warning naming their PTS)", 0, G_MAXUINT64, 0, ro));
  g_object_class_install_property (gobject_class, PROP_IN_FLIGHT,
      g_param_spec_uint ("in-flight", "Frames in flight",
          "Frames whose GPU work may be queued at once: buffers leave the "
          "element while the GPU still works on them, and whoever maps one "
          "first waits for that frame only (1 = one frame at a time)", 1,
          GCG_FRAME_QUEUE_MAX_DEPTH, DEFAULT_IN_FLIGHT,
          rw | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_GRAPH_CACHE_SIZE,
      g_param_spec_uint ("graph-cache-size", "Graph cache size",
          "Frame chains of earlier caps kept, with their captured graphs "
          "and device memory, besides the current one: caps changing back "
          "to one of them replay its graph instead of capturing again; the "
          "least recently used one is dropped when more are kept (0 = "
          "none; a smaller value takes effect at the next caps change)", 0,
          GST_CUDA_GRAPH_CHAIN_CACHE_MAX, DEFAULT_GRAPH_CACHE_SIZE,
          rw | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_CHAINS_BUILT,
      g_param_spec_uint64 ("chains-built", "Chains built",
          "Frame chains built since start: one per caps not found in the "
          "graph cache (a chain taken back from the cache is not counted)",
          0, G_MAXUINT64, 0, ro));

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_set_context);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_query);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_stop);
  trans_class->set_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_set_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_transform_size);
  trans_class->get_unit_size =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_get_unit_size);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_before_transform);
  trans_class->transform =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_transform);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_sink_event);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_decide_allocation);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_prepare_output_buffer);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_graph_base_transform_debug,
      "cudagraphbasetransform", 0, "cudagraph base transform");

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_GRAPH_BASE_TRANSFORM, 0);
  gst_type_mark_as_plugin_api (GCG_TYPE_BACKEND, 0);
  gst_type_mark_as_plugin_api (GCG_TYPE_SYNC_MODE, 0);
}

static void
gst_cuda_graph_base_transform_init (GstCudaGraphBaseTransform * self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  priv->device_id = DEFAULT_CUDA_DEVICE_ID;
  priv->backend = DEFAULT_BACKEND;
  priv->use_graph = DEFAULT_USE_GRAPH;
  priv->sync_mode = DEFAULT_SYNC_MODE;
  priv->max_errors = DEFAULT_MAX_ERRORS;
  priv->in_flight = DEFAULT_IN_FLIGHT;
  priv->graph_cache_size = DEFAULT_GRAPH_CACHE_SIZE;
  priv->chain_cache = gst_cuda_graph_chain_cache_new ();
  priv->dev.active = GCG_BACKEND_CPU;
}

static void
gst_cuda_graph_base_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (object));

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_CUDA_DEVICE_ID:
      priv->device_id = g_value_get_int (value);
      break;
    case PROP_BACKEND:
      priv->backend = g_value_get_enum (value);
      break;
    case PROP_USE_GRAPH:
      priv->use_graph = g_value_get_boolean (value);
      break;
    case PROP_SYNC_MODE:
      priv->sync_mode = g_value_get_enum (value);
      break;
    case PROP_MAX_ERRORS:
      priv->max_errors = g_value_get_int (value);
      break;
    case PROP_IN_FLIGHT:
      priv->in_flight = g_value_get_uint (value);
      break;
    case PROP_GRAPH_CACHE_SIZE:
      priv->graph_cache_size = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_cuda_graph_base_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (object));

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, priv->device_id);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, priv->backend);
      break;
    case PROP_USE_GRAPH:
      g_value_set_boolean (value, priv->use_graph);
      break;
    case PROP_SYNC_MODE:
      g_value_set_enum (value, priv->sync_mode);
      break;
    case PROP_CAPTURES:
      g_value_set_uint64 (value, priv->captures);
      break;
    case PROP_REPLAYS:
      g_value_set_uint64 (value, priv->replays);
      break;
    case PROP_EAGER_FRAMES:
      g_value_set_uint64 (value, priv->eager);
      break;
    case PROP_MAX_ERRORS:
      g_value_set_int (value, priv->max_errors);
      break;
    case PROP_DROPPED_FRAMES:
      g_value_set_uint64 (value, priv->dropped);
      break;
    case PROP_IN_FLIGHT:
      g_value_set_uint (value, priv->in_flight);
      break;
    case PROP_FAILED_FRAMES:
      g_value_set_uint64 (value, priv->failed);
      break;
    case PROP_GRAPH_CACHE_SIZE:
      g_value_set_uint (value, priv->graph_cache_size);
      break;
    case PROP_CHAINS_BUILT:
      g_value_set_uint64 (value, priv->chains_built);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void gst_cuda_graph_base_transform_close (GstCudaGraphBaseTransform *
    self);

static void
gst_cuda_graph_base_transform_finalize (GObject * object)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (object);

  gst_cuda_graph_base_transform_close (self);
  gst_cuda_graph_chain_cache_free (GET_PRIV (self)->chain_cache);

  G_OBJECT_CLASS (gst_cuda_graph_base_transform_parent_class)->finalize
      (object);
}

/* --- device resources ---------------------------------------------------- */

static void
chain_counts (GcgFrameChain * chain, ChainCounts * counts)
{
  counts->captures = gcg_frame_chain_get_capture_count (chain);
  counts->launches = gcg_frame_chain_get_replay_count (chain);
  counts->eager = gcg_frame_chain_get_eager_count (chain);
}

/* Makes @chain (transfer full) the current one; the counters go on from
 * its counts as they are now. */
static void
activate_chain (GstCudaGraphBaseTransform * self, GcgFrameChain * chain)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  GST_OBJECT_LOCK (self);
  chain_counts (chain, &priv->base);
  GST_OBJECT_UNLOCK (self);
  priv->chain = chain;
}

/* Puts the current chain aside in the cache, keeping what it counted
 * while current in the retired totals so the counters go on across caps
 * changes. */
static void
retire_chain (GstCudaGraphBaseTransform * self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  ChainCounts now;

  if (priv->chain == NULL)
    return;
  chain_counts (priv->chain, &now);
  GST_OBJECT_LOCK (self);
  priv->retired.captures += now.captures - priv->base.captures;
  priv->retired.launches += now.launches - priv->base.launches;
  priv->retired.eager += now.eager - priv->base.eager;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_chain_cache_put (priv->chain_cache,
      g_steal_pointer (&priv->chain));
}

/* Drops the least recently used chains beyond graph-cache-size: only
 * once the next chain was looked up, which may be the one dropped
 * otherwise. */
static void
trim_chain_cache (GstCudaGraphBaseTransform * self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  guint cache_size;

  GST_OBJECT_LOCK (self);
  cache_size = priv->graph_cache_size;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_chain_cache_trim (priv->chain_cache, cache_size);
}

static void
gst_cuda_graph_base_transform_close (GstCudaGraphBaseTransform * self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  /* Frames in flight still use the chain, the staging and their buffers. */
  if (priv->queue)
    gcg_frame_queue_cancel (priv->queue);
  g_clear_object (&priv->queue);
  retire_chain (self);
  /* The chains hold device memory of the context closed below. */
  gst_cuda_graph_chain_cache_clear (priv->chain_cache);
  priv->have_config = FALSE;
  gst_cuda_graph_device_close (&priv->dev);
  GST_OBJECT_LOCK (self);
  gst_clear_object (&priv->gst_context);
  GST_OBJECT_UNLOCK (self);
  priv->dev.active = GCG_BACKEND_CPU;
}

static void
reset_counters (GstCudaGraphBaseTransform * self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  GST_OBJECT_LOCK (self);
  priv->captures = priv->replays = priv->eager = 0;
  memset (&priv->retired, 0, sizeof (priv->retired));
  memset (&priv->base, 0, sizeof (priv->base));
  priv->chains_built = 0;
  priv->frames = priv->dropped = priv->failed = 0;
  priv->consecutive_errors = 0;
  priv->in_place_in = priv->in_place_out = 0;
  priv->stats_posted = FALSE;
  priv->flow_error = FALSE;
  GST_OBJECT_UNLOCK (self);
}

static gboolean
open_backend (GstCudaGraphBaseTransform * self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  GcgBackend backend;
  gint device_id;

  GST_OBJECT_LOCK (self);
  backend = priv->backend;
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);

  reset_counters (self);
  return gst_cuda_graph_device_open (&priv->dev, GST_ELEMENT (self), backend,
      device_id, &priv->gst_context);
}

/* The queue the frames run through: on the stream for CUDA, synchronous
 * for the CPU backend. */
static gboolean
open_queue (GstCudaGraphBaseTransform * self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  g_autoptr (GError) error = NULL;
  guint depth;

  GST_OBJECT_LOCK (self);
  depth = priv->in_flight;
  GST_OBJECT_UNLOCK (self);
  priv->queue = gcg_frame_queue_new (priv->dev.stream, priv->dev.allocator,
      priv->dev.host_pool, depth, &error);
  if (priv->queue == NULL) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Cannot make the frame queue: %s", error->message), (NULL));
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_cuda_graph_base_transform_start (GstBaseTransform * trans)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  priv->started = open_backend (self) && open_queue (self);
  if (!priv->started)
    gst_cuda_graph_base_transform_close (self);
  return priv->started;
}

static void
post_stats (GstCudaGraphBaseTransform * self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  GstStructure *s;

  GST_OBJECT_LOCK (self);
  s = gst_structure_new ("cudagraph-stats",
      "backend", G_TYPE_STRING,
      priv->dev.active == GCG_BACKEND_CUDA ? "cuda" : "cpu",
      "captures", G_TYPE_UINT64, priv->captures,
      "replays", G_TYPE_UINT64, priv->replays,
      "eager-frames", G_TYPE_UINT64, priv->eager,
      "chains-built", G_TYPE_UINT64, priv->chains_built,
      "frames", G_TYPE_UINT64, priv->frames,
      "dropped-frames", G_TYPE_UINT64, priv->dropped,
      "failed-frames", G_TYPE_UINT64, priv->failed,
      "in-place-inputs", G_TYPE_UINT64, priv->in_place_in,
      "in-place-outputs", G_TYPE_UINT64, priv->in_place_out, NULL);
  GST_OBJECT_UNLOCK (self);
  if (priv->queue)
    gst_structure_set (s,
        "in-flight", G_TYPE_UINT, gcg_frame_queue_get_depth (priv->queue),
        "slot-waits", G_TYPE_UINT64,
        gcg_frame_queue_get_slot_waits (priv->queue), NULL);
  gst_cuda_graph_device_add_memory_stats (&priv->dev, s);

  GST_INFO_OBJECT (self, "%" GST_PTR_FORMAT, s);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

static gboolean
gst_cuda_graph_base_transform_stop (GstBaseTransform * trans)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  if (!priv->stats_posted)
    post_stats (self);
  gst_cuda_graph_base_transform_close (self);
  priv->started = FALSE;
  return TRUE;
}

/* EOS waits for the frames in flight, so that their failures are
 * reported before it and the counters are final; a flush gives them up
 * (they left already: nothing is held back) and forgets past failures; a
 * stats request posts the stats as they are (frames may be in flight). */
static gboolean
gst_cuda_graph_base_transform_sink_event (GstBaseTransform * trans,
    GstEvent * event)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      if (priv->queue)
        gcg_frame_queue_drain (priv->queue);
      post_stats (self);
      priv->stats_posted = TRUE;
      break;
    case GST_EVENT_CUSTOM_DOWNSTREAM:
      if (gst_event_has_name (event, GST_CUDA_GRAPH_STATS_REQUEST_NAME))
        post_stats (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      if (priv->queue)
        gcg_frame_queue_cancel (priv->queue);
      priv->consecutive_errors = 0;
      priv->flow_error = FALSE;
      break;
    default:
      break;
  }

  return GST_BASE_TRANSFORM_CLASS
      (gst_cuda_graph_base_transform_parent_class)->sink_event (trans, event);
}

/* --- context sharing ---------------------------------------------------- */

/* A "gst.cuda.context" from the pipeline or a neighbour; kept only while we
 * have none (the one our chain runs in is never replaced mid-stream). */
static void
gst_cuda_graph_base_transform_set_context (GstElement * element,
    GstContext * context)
{
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (element));
  gint device_id;

  GST_OBJECT_LOCK (element);
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (element);
  gst_cuda_graph_device_set_context (element, context, device_id,
      &priv->gst_context);

  GST_ELEMENT_CLASS (gst_cuda_graph_base_transform_parent_class)->set_context
      (element, context);
}

static gboolean
gst_cuda_graph_base_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (trans));

  if (gst_cuda_graph_device_context_query (GST_ELEMENT (trans), query,
          &priv->gst_context))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS
      (gst_cuda_graph_base_transform_parent_class)->query (trans, direction,
      query);
}

/* --- negotiation --------------------------------------------------------- */

gboolean
gst_cuda_graph_pixel_format_from_video (GstVideoFormat format,
    GcgPixelFormat * out)
{
  switch (format) {
    case GST_VIDEO_FORMAT_NV12:
      *out = GCG_PIXEL_FORMAT_NV12;
      return TRUE;
    case GST_VIDEO_FORMAT_I420:
      *out = GCG_PIXEL_FORMAT_I420;
      return TRUE;
    case GST_VIDEO_FORMAT_RGBA:
      *out = GCG_PIXEL_FORMAT_RGBA;
      return TRUE;
    case GST_VIDEO_FORMAT_BGRA:
      *out = GCG_PIXEL_FORMAT_BGRA;
      return TRUE;
    case GST_VIDEO_FORMAT_RGB:
      *out = GCG_PIXEL_FORMAT_RGB;
      return TRUE;
    case GST_VIDEO_FORMAT_BGR:
      *out = GCG_PIXEL_FORMAT_BGR;
      return TRUE;
    case GST_VIDEO_FORMAT_GRAY8:
      *out = GCG_PIXEL_FORMAT_GRAY8;
      return TRUE;
    default:
      return FALSE;
  }
}

/* Format, size and, for YUV, the matrix and range of the caps'
 * colorimetry (gst_video_info_from_caps() already applied GStreamer's
 * defaults where the caps say nothing). */
gboolean
gst_cuda_graph_describe_video (GstObject * object, const GstVideoInfo * info,
    GcgPixelFormat * format, GcgColorMatrix * matrix, gboolean * full_range)
{
  const GstVideoColorimetry *cinfo = &info->colorimetry;

  if (!gst_cuda_graph_pixel_format_from_video (GST_VIDEO_INFO_FORMAT (info),
          format))
    return FALSE;
  *full_range = cinfo->range == GST_VIDEO_COLOR_RANGE_0_255;
  *matrix = cinfo->matrix == GST_VIDEO_COLOR_MATRIX_BT709
      ? GCG_COLOR_MATRIX_BT709 : GCG_COLOR_MATRIX_BT601;
  if (GST_VIDEO_INFO_IS_YUV (info)
      && cinfo->matrix != GST_VIDEO_COLOR_MATRIX_BT709
      && cinfo->matrix != GST_VIDEO_COLOR_MATRIX_BT601)
    GST_WARNING_OBJECT (object, "colour matrix %d is not BT.601 or BT.709: "
        "using BT.601", cinfo->matrix);
  return TRUE;
}

/* The input side of the configuration. */
static gboolean
configure_input (GstCudaGraphBaseTransform * self, const GstVideoInfo * info,
    GcgFrameChainConfig * config)
{
  config->in_width = GST_VIDEO_INFO_WIDTH (info);
  config->in_height = GST_VIDEO_INFO_HEIGHT (info);
  return gst_cuda_graph_describe_video (GST_OBJECT (self), info,
      &config->in_format, &config->matrix, &config->full_range);
}

/* Makes the chain for priv->config current unless there is one: the
 * cached chain of earlier caps with this configuration (its graph is
 * replayed, not captured again), else a new one. */
static gboolean
build_chain (GstCudaGraphBaseTransform * self, GError ** error)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  const GcgFrameChainConfig *config = &priv->config;
  GcgFrameChain *chain;

  if (priv->chain)
    return TRUE;
  chain = gst_cuda_graph_chain_cache_take (priv->chain_cache, config);
  /* Only once the lookup is done: trimming might drop that very chain. */
  trim_chain_cache (self);
  if (chain) {
    GST_INFO_OBJECT (self, "frame chain %ux%u -> %ux%u from the graph cache",
        config->in_width, config->in_height, config->out_width,
        config->out_height);
    activate_chain (self, chain);
    return TRUE;
  }
  chain = gcg_frame_chain_new (config, priv->dev.active, priv->dev.context,
      error);
  if (chain == NULL)
    return FALSE;
  GST_INFO_OBJECT (self, "new frame chain %ux%u -> %ux%u (%s backend)",
      config->in_width, config->in_height, config->out_width,
      config->out_height,
      priv->dev.active == GCG_BACKEND_CUDA ? "cuda" : "cpu");
  GST_OBJECT_LOCK (self);
  priv->chains_built++;
  GST_OBJECT_UNLOCK (self);
  activate_chain (self, chain);
  return TRUE;
}

/* Takes @config (already validated) as the one to run.  Its chain is made
 * (or taken from the graph cache) by the first buffer: caps that no
 * buffer comes with (a provisional negotiation, a reconfiguration that
 * is soon replaced) cost neither a chain nor a place in the cache.  A
 * chain the driver cannot make then (a transient failure) does not fail
 * the caps: each buffer tries again and counts as a failed frame until it
 * works, so max-errors decides, as for any other driver failure. */
static void
use_config (GstCudaGraphBaseTransform * self,
    const GcgFrameChainConfig * config)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  if (priv->have_config
      && memcmp (&priv->config, config, sizeof (*config)) == 0) {
    GST_DEBUG_OBJECT (self, "same configuration, keeping the chain");
    return;
  }
  /* The old chain's frames finish first (none is lost). */
  if (priv->queue)
    gcg_frame_queue_drain (priv->queue);
  retire_chain (self);
  priv->config = *config;
  priv->have_config = TRUE;
}

static gboolean
gst_cuda_graph_base_transform_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);
  GstCudaGraphBaseTransformClass *klass =
      GST_CUDA_GRAPH_BASE_TRANSFORM_GET_CLASS (self);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  g_autoptr (GError) error = NULL;
  GcgFrameChainConfig config;
  GstVideoInfo in_info;

  GST_DEBUG_OBJECT (self, "in %" GST_PTR_FORMAT " out %" GST_PTR_FORMAT,
      incaps, outcaps);
  /* Zeroed first: configurations are compared with memcmp. */
  memset (&config, 0, sizeof (config));
  gcg_frame_chain_config_init (&config);
  if (!gst_video_info_from_caps (&in_info, incaps)
      || !configure_input (self, &in_info, &config)) {
    GST_ERROR_OBJECT (self, "unsupported input caps %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
  if (!klass->configure (self, &in_info, outcaps, &config))
    return FALSE;
  /* Before anything is sized from the caps: this refuses sizes and
   * batches whose output would be too large to allocate. */
  if (!gcg_frame_chain_config_validate (&config, &error)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Unsupported conversion: %s", error->message),
        ("input %" GST_PTR_FORMAT ", output %" GST_PTR_FORMAT, incaps,
            outcaps));
    return FALSE;
  }
  if (!klass->get_caps_size (self, outcaps, &priv->out_size))
    return FALSE;
  if (config.output == GCG_OUTPUT_KIND_VIDEO
      && !gst_video_info_from_caps (&priv->out_info, outcaps))
    return FALSE;
  priv->in_info = in_info;
  use_config (self, &config);
  return TRUE;
}

static gboolean
caps_are_video (GstCaps * caps)
{
  return caps != NULL && gst_caps_get_size (caps) > 0
      && gst_structure_has_name (gst_caps_get_structure (caps, 0),
      "video/x-raw");
}

static gboolean
gst_cuda_graph_base_transform_get_unit_size (GstBaseTransform * trans,
    GstCaps * caps, gsize * size)
{
  GstVideoInfo info;

  /* Tensor caps go to the subclass without gst_video_info_from_caps(),
   * which logs an error for every caps that are not video. */
  if (!caps_are_video (caps))
    return GST_CUDA_GRAPH_BASE_TRANSFORM_GET_CLASS (trans)->get_caps_size
        (GST_CUDA_GRAPH_BASE_TRANSFORM (trans), caps, size);
  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  *size = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

/* The output size depends only on the output caps: an input buffer may be
 * larger than its caps say (padded strides from a video meta). */
static gboolean
gst_cuda_graph_base_transform_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size,
    GstCaps * othercaps, gsize * othersize)
{
  return gst_cuda_graph_base_transform_get_unit_size (trans, othercaps,
      othersize);
}

/* --- allocation ---------------------------------------------------------- */

/* Input buffers stay with us until their frame is done: upstream needs
 * that many more than it would otherwise. */
static guint
proposed_min_buffers (GstCudaGraphBaseTransformPrivate * priv)
{
  return priv->queue ? gcg_frame_queue_get_depth (priv->queue) + 1 : 2;
}

/* Offers upstream a pool of pinned host memory when the CUDA backend runs,
 * so that its frames are copied to the device asynchronously at full bus
 * speed; and says which metas we read instead of having them applied. */
static gboolean
gst_cuda_graph_base_transform_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (trans));
  GstCaps *caps;

  if (!GST_BASE_TRANSFORM_CLASS
      (gst_cuda_graph_base_transform_parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  /* In passthrough the query went downstream: their answer stands. */
  if (decide_query == NULL)
    return TRUE;

  /* Crop meta is not offered: an upstream that then stops cropping sends
   * caps of the cropped size with full-size frames, which the caps-sized
   * mapping cannot read.  A crop meta on a frame of the caps' size (an
   * application's) is still honoured by cudagraphconvert. */
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_add_allocation_meta (query,
      GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE, NULL);

  gst_query_parse_allocation (query, &caps, NULL);
  gst_cuda_graph_device_propose_input_pool (&priv->dev, GST_ELEMENT (trans),
      query, caps, proposed_min_buffers (priv));
  return TRUE;
}

static gboolean
gst_cuda_graph_base_transform_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);
  GstCaps *caps;

  gsize size = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL || !gst_cuda_graph_base_transform_get_unit_size (trans,
          caps, &size))
    size = 0;
  if (!gst_cuda_graph_device_decide_allocation (&GET_PRIV (self)->dev,
          GST_ELEMENT (self), query, caps, caps_are_video (caps), size))
    return FALSE;
  return GST_BASE_TRANSFORM_CLASS
      (gst_cuda_graph_base_transform_parent_class)->decide_allocation (trans,
      query);
}

/* An output buffer that cannot be allocated (the pool's or the base
 * class's allocation failed: out of memory) is an error the user sees,
 * with its size. */
static GstFlowReturn
gst_cuda_graph_base_transform_prepare_output_buffer (GstBaseTransform *
    trans, GstBuffer * input, GstBuffer ** outbuf)
{
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (trans));
  GstFlowReturn ret;

  ret = GST_BASE_TRANSFORM_CLASS
      (gst_cuda_graph_base_transform_parent_class)->prepare_output_buffer
      (trans, input, outbuf);
  if (ret == GST_FLOW_ERROR) {
    g_autofree gchar *size = g_format_size_full (priv->out_size,
        G_FORMAT_SIZE_IEC_UNITS);

    GST_ELEMENT_ERROR (trans, RESOURCE, NO_SPACE_LEFT,
        ("Cannot allocate an output buffer of %" G_GSIZE_FORMAT " bytes "
            "(%s)", priv->out_size, size), (NULL));
  }
  return ret;
}

/* --- per frame ----------------------------------------------------------- */

static void
gst_cuda_graph_base_transform_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer)
{
  GstClockTime ts = GST_BUFFER_PTS (buffer);

  /* Runs in passthrough too, so a controlled value leaving its identity
   * takes the element out of passthrough. */
  if (GST_CLOCK_TIME_IS_VALID (ts)) {
    ts = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME, ts);
    if (GST_CLOCK_TIME_IS_VALID (ts))
      gst_object_sync_values (GST_OBJECT (trans), ts);
  }
}

/* GST_MAP_CUDA when the chain can use @buffer's memory in place: CUDA
 * memory of our context, with the CUDA backend. */
static GstMapFlags
device_map_flags (GstCudaGraphBaseTransformPrivate * priv, GstBuffer * buffer)
{
  if (priv->dev.active != GCG_BACKEND_CUDA)
    return 0;
  return gst_cuda_graph_cuda_map_flags (buffer, priv->dev.cuda_context);
}

/* Where @buffer's memory is for the frame queue: device memory when mapped
 * with GST_MAP_CUDA, pinned host memory when it is ours (DMA straight from
 * or into it), pageable host memory otherwise (staged). */
GcgMemoryKind
gst_cuda_graph_memory_kind (GstBuffer * buffer, GstMapFlags device)
{
  if (device)
    return GCG_MEMORY_KIND_DEVICE;
  if (gst_buffer_n_memory (buffer) == 1
      && gst_cuda_graph_is_pinned_memory (gst_buffer_peek_memory (buffer, 0)))
    return GCG_MEMORY_KIND_HOST_PINNED;
  return GCG_MEMORY_KIND_HOST;
}

/* Bytes of plane @i the chain may touch: stride × rows, cut to what the
 * mapping holds from the plane's start.  A GstVideoMeta's offsets and
 * strides are upstream's word only; the frame queue refuses a plane whose
 * rows reach past this. */
static gsize
plane_bytes (GstVideoFrame * frame, guint i)
{
  /* With a video meta each plane is mapped on its own. */
  const GstMapInfo *map = &frame->map[frame->meta ? i : 0];
  const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (frame, i);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, i);
  gsize avail, want;

  if (stride <= 0 || data < map->data || data > map->data + map->size)
    return 0;
  avail = (gsize) (map->data + map->size - data);
  /* Component i lives in plane i for every format we take. */
  if (!g_size_checked_mul (&want, (gsize) stride,
          GST_VIDEO_FRAME_COMP_HEIGHT (frame, i)))
    return avail;
  return MIN (want, avail);
}

void
gst_cuda_graph_planes_from_frame (GcgFramePlanes * planes,
    GstVideoFrame * frame,
    GcgMemoryKind kind)
{
  guint i;

  planes->kind = kind;
  planes->n_planes = GST_VIDEO_FRAME_N_PLANES (frame);
  for (i = 0; i < planes->n_planes; i++) {
    planes->data[i] = (guint64) (guintptr) GST_VIDEO_FRAME_PLANE_DATA (frame,
        i);
    planes->stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (frame, i);
    planes->size[i] = plane_bytes (frame, i);
  }
}

/* The output buffer, mapped for the chain to write: a video frame, or the
 * tensor as one plane. */
typedef struct
{
  gboolean video;
  GstVideoFrame frame;
  GstMapInfo map;
} OutputMapping;

static gboolean
map_output (GstCudaGraphBaseTransformPrivate * priv, GstBuffer * outbuf,
    OutputMapping * m, GcgFramePlanes * planes)
{
  GstMapFlags device = device_map_flags (priv, outbuf);
  GcgMemoryKind kind = gst_cuda_graph_memory_kind (outbuf, device);
  /* The CUDA backend writes in stream order after the buffer's last frame;
   * the CPU backend must wait for it like any reader. */
  GstMapFlags flags = GST_MAP_WRITE | device
      | (priv->dev.active == GCG_BACKEND_CUDA
      ? GST_CUDA_GRAPH_MAP_NO_FENCE : 0);

  memset (planes, 0, sizeof (*planes));
  m->video = priv->config.output == GCG_OUTPUT_KIND_VIDEO;
  if (m->video) {
    if (!gst_video_frame_map (&m->frame, &priv->out_info, outbuf, flags))
      return FALSE;
    gst_cuda_graph_planes_from_frame (planes, &m->frame, kind);
    return TRUE;
  }
  if (!gst_buffer_map (outbuf, &m->map, flags))
    return FALSE;
  if (m->map.size < priv->out_size) {
    gst_buffer_unmap (outbuf, &m->map);
    return FALSE;
  }
  planes->kind = kind;
  planes->n_planes = 1;
  planes->data[0] = (guint64) (guintptr) m->map.data;
  planes->size[0] = priv->out_size;
  return TRUE;
}

static void
unmap_output (GstBuffer * outbuf, OutputMapping * m)
{
  if (m->video)
    gst_video_frame_unmap (&m->frame);
  else
    gst_buffer_unmap (outbuf, &m->map);
}

static void
update_counters (GstCudaGraphBaseTransform * self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  guint64 launches;
  ChainCounts now;

  chain_counts (priv->chain, &now);
  GST_OBJECT_LOCK (self);
  priv->captures = priv->retired.captures + now.captures
      - priv->base.captures;
  launches = priv->retired.launches + now.launches - priv->base.launches;
  /* A chain counts every graph launch, the one right after a capture
   * included; the element's "replays" are the frames that reused a graph
   * captured on an earlier frame: N buffers = 1 capture + N - 1 replays. */
  priv->replays = launches > priv->captures ? launches - priv->captures : 0;
  priv->eager = priv->retired.eager + now.eager - priv->base.eager;
  priv->frames++;
  GST_OBJECT_UNLOCK (self);
}

static void
fill_common_params (GstCudaGraphBaseTransform * self, GstBuffer * inbuf,
    GcgFrameParams * params)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  gcg_frame_params_init (params);
  params->pts = GST_BUFFER_PTS_IS_VALID (inbuf) ? GST_BUFFER_PTS (inbuf) : 0;
  GST_OBJECT_LOCK (self);
  params->frame_number = GST_BUFFER_OFFSET_IS_VALID (inbuf)
      ? GST_BUFFER_OFFSET (inbuf) : priv->frames;
  GST_OBJECT_UNLOCK (self);
}

/* Counts a failed frame; TRUE when that makes more than max-errors
 * failures in a row.  A failed frame is dropped (or, failing on the GPU
 * after it left, reported) with a warning so the stream goes on, like
 * GstVideoDecoder's max-errors; only a run of failures (a lost device, a
 * sticky CUDA error) stops the pipeline. */
static gboolean
count_failure (GstCudaGraphBaseTransform * self, const GError * error,
    GstClockTime pts, const gchar * what)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  gint max_errors;

  GST_OBJECT_LOCK (self);
  max_errors = priv->max_errors;
  priv->failed++;
  GST_OBJECT_UNLOCK (self);
  priv->consecutive_errors++;
  GST_WARNING_OBJECT (self, "frame %" GST_TIME_FORMAT " failed (%u in a row):"
      " %s", GST_TIME_ARGS (pts), priv->consecutive_errors, error->message);
  if (max_errors >= 0 && priv->consecutive_errors > (guint) max_errors) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Processing a frame failed %u times in a row (frame PTS %"
            GST_TIME_FORMAT "): %s", priv->consecutive_errors,
            GST_TIME_ARGS (pts), error->message),
        ("max-errors is %d", max_errors));
    return TRUE;
  }
  GST_ELEMENT_WARNING (self, STREAM, FAILED,
      ("Processing the frame with PTS %" GST_TIME_FORMAT " failed, %s: %s",
          GST_TIME_ARGS (pts), what, error->message),
      ("%u failure(s) in a row, max-errors %d", priv->consecutive_errors,
          max_errors));
  return FALSE;
}

/* A frame that failed before it was queued is dropped. */
static GstFlowReturn
frame_failed (GstCudaGraphBaseTransform * self, const GError * error,
    GstClockTime pts)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  GST_OBJECT_LOCK (self);
  priv->dropped++;
  GST_OBJECT_UNLOCK (self);
  if (count_failure (self, error, pts, "frame dropped"))
    return GST_FLOW_ERROR;
  return GST_BASE_TRANSFORM_FLOW_DROPPED;
}

/* The frame queue is done with a frame: release its input and account for
 * a failure on the GPU (the buffer left already: it can only be reported,
 * with its PTS, and the next buffer errors out past max-errors). */
static void
frame_done (GcgFrameQueue * queue, guint64 seq, const GError * error,
    gpointer user_data)
{
  InFlightFrame *frame = user_data;
  GstCudaGraphBaseTransform *self = frame->self;
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  gst_video_frame_unmap (&frame->in_frame);
  if (error == NULL)
    priv->consecutive_errors = 0;
  else if (!g_error_matches (error, GCG_ERROR, GCG_ERROR_CANCELLED)
      && count_failure (self, error, frame->pts, "its output is invalid"))
    priv->flow_error = TRUE;
  g_free (frame);
}

/* Output the GPU may still be writing leaves now when its readers will
 * wait for it (our pinned memory, our CUDA memory: the map waits on a
 * fence); any other memory is complete before it leaves. */
static gboolean
finish_output (GstCudaGraphBaseTransformPrivate * priv, GstBuffer * outbuf,
    const GcgFramePlanes * out, guint64 seq, GError ** error)
{
  GstMemory *mem = gst_buffer_peek_memory (outbuf, 0);

  if (priv->dev.active != GCG_BACKEND_CUDA)
    return TRUE;
  if (gst_buffer_n_memory (outbuf) == 1 && out->kind != GCG_MEMORY_KIND_HOST
      && (gst_cuda_graph_is_pinned_memory (mem)
          || gst_cuda_graph_cuda_memory_is_fenced (mem))) {
    gst_cuda_graph_fence_set (mem, priv->queue, seq);
    return TRUE;
  }
  return gcg_frame_queue_wait (priv->queue, seq, error);
}

/* Queues @frame (its input mapped) into @outbuf; takes @frame. */
static GstFlowReturn
submit_frame (GstCudaGraphBaseTransform * self, GcgFrameParams * params,
    InFlightFrame * frame, GstMapFlags in_dev, GstBuffer * outbuf)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  g_autoptr (GError) error = NULL;
  GcgFramePlanes in, out;
  OutputMapping m;
  GstClockTime pts = frame->pts;
  guint64 seq = 0;
  gboolean queued, ready;

  if (!map_output (priv, outbuf, &m, &out)) {
    gst_video_frame_unmap (&frame->in_frame);
    g_free (frame);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot map the output buffer (%" G_GSIZE_FORMAT " bytes needed)",
            priv->out_size), (NULL));
    return GST_FLOW_ERROR;
  }
  gst_cuda_graph_planes_from_frame (&in, &frame->in_frame,
      gst_cuda_graph_memory_kind (frame->in_frame.buffer, in_dev));
  queued = gcg_frame_queue_submit (priv->queue, priv->chain, params, &in,
      &out, frame_done, frame, &seq, &error);
  if (!queued) {
    unmap_output (outbuf, &m);
    gst_video_frame_unmap (&frame->in_frame);
    g_free (frame);
    return frame_failed (self, error, pts);
  }
  /* @frame belongs to the queue now. */
  priv->out_device_ptr =
      out.kind == GCG_MEMORY_KIND_DEVICE ? params->dst[0] : 0;
  ready = finish_output (priv, outbuf, &out, seq, &error);
  unmap_output (outbuf, &m);
  /* A frame that failed while we waited for it was reported by
   * frame_done(): drop its output. */
  if (!ready) {
    GST_OBJECT_LOCK (self);
    priv->dropped++;
    GST_OBJECT_UNLOCK (self);
    return priv->flow_error ? GST_FLOW_ERROR : GST_BASE_TRANSFORM_FLOW_DROPPED;
  }
  priv->in_place_in += in.kind == GCG_MEMORY_KIND_DEVICE ? 1 : 0;
  priv->in_place_out += out.kind == GCG_MEMORY_KIND_DEVICE ? 1 : 0;
  return GST_FLOW_OK;
}

/* gst_video_frame_map() takes a GstVideoMeta of another format or
 * smaller than the caps for a programming error (a critical): it is
 * upstream's word only, so such a frame is refused like one whose planes
 * reach past the buffer. */
gboolean
gst_cuda_graph_video_meta_fits (GstBuffer * inbuf, const GstVideoInfo * info,
    GError ** error)
{
  GstVideoMeta *vmeta = gst_buffer_get_video_meta (inbuf);

  if (vmeta == NULL || (vmeta->format == GST_VIDEO_INFO_FORMAT (info)
          && (gint) vmeta->width >= info->width
          && (gint) vmeta->height >= info->height))
    return TRUE;
  g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "video meta %s %ux%u does not hold the caps' %s %dx%d",
      gst_video_format_to_string (vmeta->format), vmeta->width,
      vmeta->height, GST_VIDEO_INFO_NAME (info), info->width, info->height);
  return FALSE;
}

static GstFlowReturn
gst_cuda_graph_base_transform_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);
  GstCudaGraphBaseTransformClass *klass =
      GST_CUDA_GRAPH_BASE_TRANSFORM_GET_CLASS (self);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  GcgFrameParams params;
  InFlightFrame *frame;
  GstFlowReturn ret;
  GstMapFlags in_dev;
  gboolean use_graph;
  GcgSyncMode sync_mode;
  g_autoptr (GError) error = NULL;

  if (!priv->have_config) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("buffer before caps were set"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (priv->flow_error)
    return GST_FLOW_ERROR;
  if (priv->chain == NULL && !build_chain (self, &error))
    return frame_failed (self, error, GST_BUFFER_PTS (inbuf));
  GST_OBJECT_LOCK (self);
  use_graph = priv->use_graph;
  sync_mode = priv->sync_mode;
  GST_OBJECT_UNLOCK (self);
  gcg_frame_chain_set_use_graph (priv->chain, use_graph);
  if (priv->dev.stream)
    gcg_stream_set_sync_mode (priv->dev.stream, sync_mode);

  fill_common_params (self, inbuf, &params);
  klass->fill_params (self, inbuf, &params);

  in_dev = device_map_flags (priv, inbuf);
  if (in_dev)
    gst_cuda_graph_cuda_wait_ready (inbuf);
  if (!gst_cuda_graph_video_meta_fits (inbuf, &priv->in_info, &error))
    return frame_failed (self, error, GST_BUFFER_PTS (inbuf));
  frame = g_new0 (InFlightFrame, 1);
  frame->self = self;
  frame->pts = GST_BUFFER_PTS (inbuf);
  /* The mapping holds a reference on @inbuf until the frame is done. */
  if (!gst_video_frame_map (&frame->in_frame, &priv->in_info, inbuf,
          GST_MAP_READ | in_dev)) {
    g_free (frame);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot map the input buffer as %s %dx%d",
            GST_VIDEO_INFO_NAME (&priv->in_info),
            GST_VIDEO_INFO_WIDTH (&priv->in_info),
            GST_VIDEO_INFO_HEIGHT (&priv->in_info)), (NULL));
    return GST_FLOW_ERROR;
  }
  ret = submit_frame (self, &params, frame, in_dev, outbuf);
  if (ret != GST_FLOW_OK)
    return ret;

  update_counters (self);
  if (klass->decorate)
    klass->decorate (self, outbuf, &params);
  /* A frame done meanwhile may have failed once too often. */
  return priv->flow_error ? GST_FLOW_ERROR : GST_FLOW_OK;
}

/* --- helpers for the subclasses ------------------------------------------ */

/**
 * gst_cuda_graph_base_transform_get_output_location:
 * @self: a #GstCudaGraphBaseTransform
 * @device_ptr: (out): device address of the last output
 * @device_id: (out): its CUDA device
 * @stream: (out) (transfer none): the stream writing it
 *
 * Returns: %TRUE when the last output went to device memory (then the out
 *   values are set), %FALSE for host memory
 */
gboolean
gst_cuda_graph_base_transform_get_output_location (GstCudaGraphBaseTransform
    * self, guint64 * device_ptr, gint * device_id, GcgStream ** stream)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  if (priv->out_device_ptr == 0 || priv->dev.context == NULL)
    return FALSE;
  *device_ptr = priv->out_device_ptr;
  *device_id = gcg_context_get_device_id (priv->dev.context);
  *stream = priv->dev.stream;
  return TRUE;
}

const GstVideoInfo *
gst_cuda_graph_base_transform_get_in_info (GstCudaGraphBaseTransform * self)
{
  return &GET_PRIV (self)->in_info;
}

const GcgFrameChainConfig *
gst_cuda_graph_base_transform_get_config (GstCudaGraphBaseTransform * self)
{
  return &GET_PRIV (self)->config;
}

/* CUDA memory output needs the CUDA backend on a context shared with
 * GStreamer's CUDA elements; before start that is not known yet, and the
 * caps may offer it. */
gboolean
gst_cuda_graph_base_transform_can_output_cuda_memory
    (GstCudaGraphBaseTransform * self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  if (!priv->started)
    return TRUE;
  return priv->dev.active == GCG_BACKEND_CUDA && priv->dev.cuda_context != NULL;
}

/**
 * gst_cuda_graph_base_transform_order_input_caps:
 * @self: a #GstCudaGraphBaseTransform
 * @caps: (transfer full): sink caps a subclass offers upstream
 *
 * Puts CUDA memory first while the element can read it in place (the
 * CUDA backend, or not started yet): an upstream that can give either
 * (cudaupload, NVDEC) then hands over device memory rather than
 * downloading a frame for us to upload again.
 *
 * Returns: (transfer full): @caps in that order
 */
GstCaps *
gst_cuda_graph_base_transform_order_input_caps (GstCudaGraphBaseTransform *
    self, GstCaps * caps)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  gboolean cuda;

  GST_OBJECT_LOCK (self);
  cuda = priv->backend != GCG_BACKEND_CPU;
  GST_OBJECT_UNLOCK (self);
  if (!cuda || !gst_cuda_graph_base_transform_can_output_cuda_memory (self))
    return caps;
  return gst_cuda_graph_caps_cuda_memory_first (caps);
}

GcgBackend
gst_cuda_graph_base_transform_get_active_backend (GstCudaGraphBaseTransform *
    self)
{
  return GET_PRIV (self)->dev.active;
}

gboolean
gst_cuda_graph_values_finite (const gfloat * values, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    if (!isfinite (values[i]))
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_graph_clip_rect (GcgRect * r, gint frame_w, gint frame_h)
{
  gint x1 = CLAMP (r->x, 0, frame_w), y1 = CLAMP (r->y, 0, frame_h);
  gint x2 = CLAMP ((gint64) r->x + r->width, 0, frame_w);
  gint y2 = CLAMP ((gint64) r->y + r->height, 0, frame_h);

  *r = (GcgRect) {
  x1, y1, x2 - x1, y2 - y1};
  return r->width > 0 && r->height > 0;
}

void
gst_cuda_graph_params_meta_register (void)
{
  static const gchar *tags[] = { NULL };

  /* An application may have registered it already, with the same name. */
  if (gst_meta_get_info (GST_CUDA_GRAPH_PARAMS_META_NAME) == NULL)
    gst_meta_register_custom (GST_CUDA_GRAPH_PARAMS_META_NAME, tags, NULL,
        NULL, NULL);
}

static void
override_from_field (const GstStructure * s, const gchar * field,
    gfloat * value)
{
  gdouble d;

  if (gst_structure_get_double (s, field, &d))
    *value = (gfloat) d;
}

void
gst_cuda_graph_apply_params_meta (GstObject * self,
    GstBuffer * buffer, GcgFrameParams * params)
{
  GstCustomMeta *meta;
  GstStructure *s;
  gfloat v[4];

  meta = gst_buffer_get_custom_meta (buffer, GST_CUDA_GRAPH_PARAMS_META_NAME);
  if (meta == NULL)
    return;
  s = gst_custom_meta_get_structure (meta);
  v[0] = params->brightness;
  v[1] = params->contrast;
  v[2] = params->gamma;
  v[3] = params->gain;
  override_from_field (s, "brightness", &v[0]);
  override_from_field (s, "contrast", &v[1]);
  override_from_field (s, "gamma", &v[2]);
  override_from_field (s, "gain", &v[3]);
  if (!gst_cuda_graph_values_finite (v, 4) || v[2] <= 0.0f) {
    GST_WARNING_OBJECT (self, "ignoring invalid %" GST_PTR_FORMAT, s);
    return;
  }
  params->brightness = v[0];
  params->contrast = v[1];
  params->gamma = v[2];
  params->gain = v[3];
}
