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
 * GPU, and says so on the bus), builds a #GcgFrameBatch for the first
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
 * #GstCudaGraphBaseTransform:chain-cache-size configurations before the
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

#include "gstcudagraphbasetransform-private.h"
#include "memory/gstcudagraphcudainterop.h"

/* Shared with the other files of basetransform/ (declared in
 * gstcudagraphbasetransform-private.h); the helpers every element uses log
 * under categories of their own (gstcudagraphdebug.h). */
GST_DEBUG_CATEGORY (gst_cuda_graph_base_transform_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_base_transform_debug

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaGraphBaseTransform,
    gst_cuda_graph_base_transform, GST_TYPE_BASE_TRANSFORM);

static void gst_cuda_graph_base_transform_finalize (GObject *object);
static gboolean gst_cuda_graph_base_transform_start (GstBaseTransform *trans);
static gboolean gst_cuda_graph_base_transform_stop (GstBaseTransform *trans);
static gboolean gst_cuda_graph_base_transform_sink_event (
    GstBaseTransform *trans, GstEvent *event);
static void gst_cuda_graph_base_transform_set_context (GstElement *element,
    GstContext *context);
static gboolean gst_cuda_graph_base_transform_query (GstBaseTransform *trans,
    GstPadDirection direction, GstQuery *query);

static void
gst_cuda_graph_base_transform_class_init (GstCudaGraphBaseTransformClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_cuda_graph_base_transform_finalize;
  gst_cuda_graph_base_transform_install_properties (gobject_class);

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
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_submit_input_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_base_transform_generate_output);
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
}

static void
gst_cuda_graph_base_transform_init (GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  gst_cuda_graph_base_transform_init_properties (priv);
  priv->chain_cache = gst_cuda_graph_chain_cache_new ();
  gst_cuda_graph_idle_watch_init (&priv->idle);
  priv->dev.active = GCG_BACKEND_CPU;
}

GstCudaGraphBaseTransformPrivate *
gst_cuda_graph_base_transform_get_priv (GstCudaGraphBaseTransform *self)
{
  return gst_cuda_graph_base_transform_get_instance_private (self);
}

GstBaseTransformClass *
gst_cuda_graph_base_transform_get_parent_class (void)
{
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_graph_base_transform_parent_class);
}

static void gst_cuda_graph_base_transform_close (
    GstCudaGraphBaseTransform *self);

static void
gst_cuda_graph_base_transform_finalize (GObject *object)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (object);

  gst_cuda_graph_base_transform_close (self);
  gst_cuda_graph_chain_cache_free (GET_PRIV (self)->chain_cache);
  gst_cuda_graph_user_kernel_clear (&GET_PRIV (self)->kernel);
  gst_cuda_graph_idle_watch_clear (&GET_PRIV (self)->idle);

  G_OBJECT_CLASS (gst_cuda_graph_base_transform_parent_class)
      ->finalize (object);
}

/* --- state --------------------------------------------------------------- */

static void
gst_cuda_graph_base_transform_close (GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  /* It pushes held outputs, which go below; it takes the stream lock, not
   * held here (pads are deactivated before stop). */
  gst_cuda_graph_idle_watch_stop (&priv->idle);
  /* Frames in flight still use the chain, the staging and their buffers. */
  if (priv->queue)
    gcg_frame_queue_cancel (priv->queue);
  gst_cuda_graph_base_transform_drop_held (self);
  g_atomic_int_set (&priv->holding, FALSE);
  g_clear_object (&priv->queue);
  gst_cuda_graph_in_flight_pool_clear (&priv->in_flight);
  gst_clear_caps (&priv->out_caps);
  gst_cuda_graph_base_transform_forget_refusals (self);
  gst_cuda_graph_base_transform_retire_chain (self);
  /* The chains hold device memory of the context closed below. */
  gst_cuda_graph_chain_cache_clear (priv->chain_cache);
  priv->have_config = FALSE;
  gst_cuda_graph_user_kernel_stop (&priv->kernel);
  gst_cuda_graph_device_close (&priv->dev);
  GST_OBJECT_LOCK (self);
  gst_clear_object (&priv->gst_context);
  GST_OBJECT_UNLOCK (self);
  priv->dev.active = GCG_BACKEND_CPU;
}

static gboolean
open_backend (GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  gst_cuda_graph_base_transform_reset_counters (self);
  gst_cuda_graph_base_transform_forget_refusals (self);
  return gst_cuda_graph_device_open (&priv->dev, GST_ELEMENT (self), &priv->run,
      &priv->gst_context);
}

/* The queue the frames run through: on the stream for CUDA, synchronous
 * for the CPU backend. */
static gboolean
open_queue (GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  g_autoptr (GError) error = NULL;
  guint depth;

  GST_OBJECT_LOCK (self);
  depth = priv->run.in_flight;
  GST_OBJECT_UNLOCK (self);
  priv->queue = gcg_frame_queue_new (priv->dev.stream, priv->dev.allocator,
      priv->dev.host_pool, depth, &error);
  if (priv->queue == NULL) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Cannot make the frame queue: %s", error->message), (NULL));
    return FALSE;
  }
  gst_cuda_graph_in_flight_pool_init (&priv->in_flight,
      gcg_frame_queue_get_depth (priv->queue));
  /* Outputs are held only on the GPU (gstcudagraphbasetransformframe.c). */
  if (priv->dev.active == GCG_BACKEND_CUDA
      && !gst_cuda_graph_idle_watch_start (&priv->idle, "gcg-held-idle",
          GST_CUDA_GRAPH_HOLD_IDLE_US,
          gst_cuda_graph_base_transform_finish_held_idle, self, &error)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Cannot start the thread for held outputs: %s", error->message),
        (NULL));
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_cuda_graph_base_transform_start (GstBaseTransform *trans)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  priv->started = open_backend (self)
      && gst_cuda_graph_user_kernel_start (&priv->kernel, GST_ELEMENT (self),
          priv->dev.active, priv->dev.context)
      && open_queue (self);
  if (!priv->started)
    gst_cuda_graph_base_transform_close (self);
  return priv->started;
}

static gboolean
gst_cuda_graph_base_transform_stop (GstBaseTransform *trans)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  if (!priv->stats_posted)
    gst_cuda_graph_base_transform_post_stats (self);
  gst_cuda_graph_base_transform_close (self);
  priv->started = FALSE;
  return TRUE;
}

/* EOS waits for the frames in flight, so that their failures are
 * reported before it and the counters are final; a flush gives them up
 * (they left already, or, held for their results, are dropped) and
 * forgets past failures; a stats request posts the stats as they are
 * (frames may be in flight).  Outputs held for their results leave
 * before any serialized event, so that none overtakes them. */
static gboolean
gst_cuda_graph_base_transform_sink_event (GstBaseTransform *trans,
    GstEvent *event)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  if (GST_EVENT_IS_SERIALIZED (event)
      && GST_EVENT_TYPE (event) != GST_EVENT_FLUSH_STOP)
    gst_cuda_graph_base_transform_finish_held (self);
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:
      if (GST_BASE_TRANSFORM_CLASS (gst_cuda_graph_base_transform_parent_class)
              ->sink_event (trans, event))
        return TRUE;
      gst_cuda_graph_base_transform_explain_caps_failure (self);
      return FALSE;
    case GST_EVENT_EOS:
      if (priv->queue)
        gcg_frame_queue_drain (priv->queue);
      gst_cuda_graph_base_transform_post_stats (self);
      priv->stats_posted = TRUE;
      break;
    case GST_EVENT_CUSTOM_DOWNSTREAM:
      if (gst_event_has_name (event, GST_CUDA_GRAPH_STATS_REQUEST_NAME))
        gst_cuda_graph_base_transform_post_stats (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      if (priv->queue)
        gcg_frame_queue_cancel (priv->queue);
      gst_cuda_graph_base_transform_drop_held (self);
      priv->consecutive_errors = 0;
      priv->flow_error = FALSE;
      break;
    default:
      break;
  }

  return GST_BASE_TRANSFORM_CLASS (gst_cuda_graph_base_transform_parent_class)
      ->sink_event (trans, event);
}

/* --- context sharing ---------------------------------------------------- */

/* A "gst.cuda.context" from the pipeline or a neighbour; kept only while we
 * have none (the one our chain runs in is never replaced mid-stream). */
static void
gst_cuda_graph_base_transform_set_context (GstElement *element,
    GstContext *context)
{
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (element));

  gst_cuda_graph_device_set_context (element, context, &priv->run,
      &priv->gst_context);

  GST_ELEMENT_CLASS (gst_cuda_graph_base_transform_parent_class)
      ->set_context (element, context);
}

static gboolean
gst_cuda_graph_base_transform_query (GstBaseTransform *trans,
    GstPadDirection direction, GstQuery *query)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  gboolean ret;

  if (gst_cuda_graph_device_context_query (GST_ELEMENT (trans), query,
          &priv->gst_context))
    return TRUE;
  /* Upstream wants its buffers back: the held outputs' frames finish.
   * Under the stream lock: the idle watch may be pushing them too. */
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_DRAIN) {
    GST_PAD_STREAM_LOCK (GST_BASE_TRANSFORM_SINK_PAD (trans));
    gst_cuda_graph_base_transform_finish_held (self);
    GST_PAD_STREAM_UNLOCK (GST_BASE_TRANSFORM_SINK_PAD (trans));
  }
  ret = GST_BASE_TRANSFORM_CLASS (gst_cuda_graph_base_transform_parent_class)
            ->query (trans, direction, query);
  if (ret)
    gst_cuda_graph_base_transform_check_caps_query (self, direction, query);
  if (ret && direction == GST_PAD_SRC
      && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    gst_cuda_graph_base_transform_add_hold_latency (self, query);
  return ret;
}

/* --- helpers for the subclasses ------------------------------------------ */

/* See gst_cuda_graph_device_offer_primary(). */
void
gst_cuda_graph_base_transform_offer_primary_context (
    GstCudaGraphBaseTransform *self, gint device_id)
{
  gst_cuda_graph_device_offer_primary (GST_ELEMENT (self), device_id,
      &GET_PRIV (self)->gst_context);
}

const GstVideoInfo *
gst_cuda_graph_base_transform_get_in_info (GstCudaGraphBaseTransform *self)
{
  return &GET_PRIV (self)->in_info;
}

const GcgFrameChainConfig *
gst_cuda_graph_base_transform_get_config (GstCudaGraphBaseTransform *self)
{
  return &GET_PRIV (self)->config;
}

GcgBackend
gst_cuda_graph_base_transform_get_active_backend (
    GstCudaGraphBaseTransform *self)
{
  return GET_PRIV (self)->dev.active;
}
