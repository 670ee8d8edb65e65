/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* One frame through GstCudaGraphBaseTransform, top-down from transform()
 * at the bottom: the subclass fills the per-frame values, the input and
 * output are mapped, the frame is handed to the GcgFrameQueue (copy in,
 * graph replay, copy out; lib/) and the output leaves at once when its
 * readers wait for the frame themselves.  The input stays mapped until
 * the queue says the GPU is done with it (frame_done()).
 *
 * A chain that ends in a postprocess writes each frame's results into
 * the frame's results area inside the replay: that output is held
 * (generate_output(), the held list) until the queue says its frame is
 * done, gets its results from the subclass and leaves in order.  Up to
 * the queue's depth of frames stay in flight: the streaming thread waits
 * only when the queue is full (its oldest frame, which then leaves). */
#include "gstcudagraphbasetransform-private.h"
#include "memory/gstcudagraphcudainterop.h"
#include "memory/gstcudagraphfence.h"
#include "buffers/gstcudagraphvideo.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_cuda_graph_base_transform_debug

typedef GstCudaGraphInFlightFrame InFlightFrame;

void
gst_cuda_graph_base_transform_before_transform (GstBaseTransform *trans,
    GstBuffer *buffer)
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

/* The output buffer, mapped for the chain to write: a video frame, or the
 * tensor as one plane. */
typedef struct
{
  gboolean video;
  gboolean in_place;            /* the input's mapping, borrowed */
  GstVideoFrame frame;
  GstMapInfo map;
} OutputMapping;

/* @in_frame is the input's mapping (for writing too, see transform())
 * when the output is the input buffer itself: a buffer mapped once
 * cannot be mapped for writing again, so its planes serve as both. */
static gboolean
map_output (GstCudaGraphBaseTransformPrivate *priv, GstBuffer *outbuf,
    GstVideoFrame *in_frame, OutputMapping *m, GcgFramePlanes *planes)
{
  GstMapFlags device = gst_cuda_graph_device_map_flags (&priv->dev, outbuf);
  GcgMemoryKind kind = gst_cuda_graph_memory_kind (outbuf, device);
  GstMapFlags flags = gst_cuda_graph_device_write_flags (&priv->dev, device);

  memset (planes, 0, sizeof (*planes));
  m->video = priv->config.output == GCG_OUTPUT_KIND_VIDEO;
  m->in_place = in_frame->buffer == outbuf;
  if (m->in_place) {
    gst_cuda_graph_planes_from_frame (planes, in_frame, kind);
    return m->video;
  }
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
unmap_output (GstBuffer *outbuf, OutputMapping *m)
{
  if (m->in_place)
    return;
  if (m->video)
    gst_video_frame_unmap (&m->frame);
  else
    gst_buffer_unmap (outbuf, &m->map);
}

static void
fill_common_params (GstBuffer *inbuf, guint64 frames, GcgFrameParams *params)
{
  gcg_frame_params_init (params);
  params->pts = GST_BUFFER_PTS_IS_VALID (inbuf) ? GST_BUFFER_PTS (inbuf) : 0;
  params->frame_number =
      GST_BUFFER_OFFSET_IS_VALID (inbuf) ? GST_BUFFER_OFFSET (inbuf) : frames;
}

/* A frame that failed before it was queued is dropped. */
static GstFlowReturn
frame_failed (GstCudaGraphBaseTransform *self, const GError *error,
    GstClockTime pts)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  GST_OBJECT_LOCK (self);
  priv->dropped++;
  GST_OBJECT_UNLOCK (self);
  priv->launch_failures++;
  if (gst_cuda_graph_base_transform_count_failure (self, error, pts,
          "frame dropped"))
    return GST_FLOW_ERROR;
  return GST_BASE_TRANSFORM_FLOW_DROPPED;
}

/* The frame queue is done with a frame: release its input and account for
 * a failure on the GPU (the buffer left already: it can only be reported,
 * with its PTS, and the next buffer errors out past max-errors).  A run
 * of failures is counted in stream order: a frame that finishes well ends
 * the run before it, not the drops that came after it while it was on
 * the GPU. */
static void
frame_done (GcgFrameQueue *queue, guint64 seq, const GError *error,
    gpointer user_data)
{
  InFlightFrame *frame = user_data;
  GstCudaGraphBaseTransform *self = frame->owner;
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  gst_video_frame_unmap (&frame->in_frame);
  if (frame->hold) {
    /* Its output leaves (or is dropped) from the held list. */
    frame->done = TRUE;
    frame->failed = error != NULL;
  }
  if (error == NULL)
    priv->consecutive_errors =
        (guint) (priv->launch_failures - frame->launch_failures);
  else if (!g_error_matches (error, GCG_ERROR, GCG_ERROR_CANCELLED)
      && gst_cuda_graph_base_transform_count_failure (self, error, frame->pts,
          frame->hold ? "its output dropped" : "its output is invalid"))
    priv->flow_error = TRUE;
  if (!frame->hold)
    gst_cuda_graph_in_flight_pool_give (&priv->in_flight, frame);
}

/* Output the GPU may still be writing leaves now when its readers will
 * wait for it (our pinned memory, our CUDA memory: the map waits on a
 * fence); any other memory is complete before it leaves. */
static gboolean
finish_output (GstCudaGraphBaseTransformPrivate *priv, GstBuffer *outbuf,
    const GcgFramePlanes *out, guint64 seq, GError **error)
{
  return priv->dev.active != GCG_BACKEND_CUDA
      || gst_cuda_graph_fence_output (outbuf, out->kind, priv->queue, seq,
          error);
}

/* Where the input is for the frame queue: pageable host memory that came
 * from an upstream pool is registered with the driver on first sight and
 * read by DMA from then on, as pinned memory is. */
static GcgMemoryKind
input_memory_kind (GstCudaGraphBaseTransformPrivate *priv, GstBuffer *inbuf,
    GstMapFlags in_dev)
{
  return gst_cuda_graph_input_memory_kind (inbuf, in_dev,
      priv->dev.active == GCG_BACKEND_CUDA ? priv->dev.context : NULL);
}

/* Queues @frame (its input mapped; taken) into @outbuf, which it maps; sets
 * @location where that mapping put @outbuf in device memory (0 for host
 * memory). */
static GstFlowReturn
submit_frame (GstCudaGraphBaseTransform *self, GcgFrameParams *params,
    InFlightFrame *frame, GstMapFlags in_dev, GstBuffer *outbuf,
    GstCudaGraphOutputLocation *location)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  g_autoptr (GError) error = NULL;
  GcgFramePlanes in, out;
  OutputMapping m;
  GstClockTime pts = frame->pts;
  guint64 seq = 0;
  gboolean queued, ready;

  if (!map_output (priv, outbuf, &frame->in_frame, &m, &out)) {
    gst_video_frame_unmap (&frame->in_frame);
    gst_cuda_graph_in_flight_pool_give (&priv->in_flight, frame);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot map the output buffer (%" G_GSIZE_FORMAT " bytes needed)",
            priv->out_size),
        (NULL));
    return GST_FLOW_ERROR;
  }
  gst_cuda_graph_planes_from_frame (&in, &frame->in_frame,
      input_memory_kind (priv, frame->in_frame.buffer, in_dev));
  queued = gcg_frame_queue_submit_frame (priv->queue, priv->chain, params, &in,
      &out, frame_done, frame, &seq, &error);
  if (!queued) {
    unmap_output (outbuf, &m);
    gst_video_frame_unmap (&frame->in_frame);
    gst_cuda_graph_in_flight_pool_give (&priv->in_flight, frame);
    return frame_failed (self, error, pts);
  }
  /* @frame belongs to the queue now. */
  if (out.kind == GCG_MEMORY_KIND_DEVICE) {
    location->device_ptr = out.data[0];
    location->device_id = gcg_context_get_device_id (priv->dev.context);
    location->stream = priv->dev.stream;
  }
  /* A held output leaves once its frame is done: no fence, no wait. */
  ready = frame->hold || finish_output (priv, outbuf, &out, seq, &error);
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

/* With a postprocess (the chain has a results area, CUDA backend): the
 * frame's own area in @params and its items described, its output to be
 * held until it is done. */
static gboolean
hold_output (GstCudaGraphBaseTransform *self, InFlightFrame *frame,
    GcgFrameParams *params, GError **error)
{
  GstCudaGraphBaseTransformClass *klass =
      GST_CUDA_GRAPH_BASE_TRANSFORM_GET_CLASS (self);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  gsize size = 0;

  if (priv->dev.active == GCG_BACKEND_CUDA && priv->dev.host_pool != NULL
      && klass->add_results != NULL)
    size = gcg_frame_batch_get_results_size (priv->chain);
  frame->hold = size > 0;
  frame->done = FALSE;
  frame->failed = FALSE;
  frame->n_items = 0;
  params->results = 0;
  if (!frame->hold)
    return TRUE;
  if (!gst_cuda_graph_in_flight_frame_ensure_results (frame,
          priv->dev.host_pool, size, error))
    return FALSE;
  /* The first held frame: the pipeline asks for our latency again. */
  if (!g_atomic_int_get (&priv->holding)) {
    g_atomic_int_set (&priv->holding, TRUE);
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
  }
  /* Under unified addressing (every 64-bit platform) the pinned block's
   * host pointer is its device address. */
  params->results = (guint64) (guintptr) frame->results;
  if (klass->describe_items != NULL)
    frame->n_items = MIN (klass->describe_items (self, params, frame->items),
        G_N_ELEMENTS (frame->items));
  return TRUE;
}

GstFlowReturn
gst_cuda_graph_base_transform_transform (GstBaseTransform *trans,
    GstBuffer *inbuf, GstBuffer *outbuf)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);
  GstCudaGraphBaseTransformClass *klass =
      GST_CUDA_GRAPH_BASE_TRANSFORM_GET_CLASS (self);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  GcgFrameParams params;
  GstCudaGraphOutputLocation location = { 0, -1, NULL };
  InFlightFrame *frame;
  GstFlowReturn ret;
  GstMapFlags in_dev;
  GstMapFlags no_fence = 0;
  gboolean use_graph;
  GcgSyncMode sync_mode;
  guint64 frames;
  g_autoptr (GError) error = NULL;

  if (!priv->have_config) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("buffer before caps were set"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  if (priv->flow_error)
    return GST_FLOW_ERROR;
  if (priv->chain == NULL
      && !gst_cuda_graph_base_transform_build_chain (self, &error))
    return frame_failed (self, error, GST_BUFFER_PTS (inbuf));
  /* One lock a frame for what the properties and counters say. */
  GST_OBJECT_LOCK (self);
  use_graph = priv->run.use_graph;
  sync_mode = priv->run.sync_mode;
  frames = priv->frames;
  GST_OBJECT_UNLOCK (self);
  gcg_frame_batch_set_use_graph (priv->chain, use_graph);
  if (priv->dev.stream)
    gcg_stream_set_sync_mode (priv->dev.stream, sync_mode);

  fill_common_params (inbuf, frames, &params);
  klass->fill_params (self, inbuf, &params);
  gst_cuda_graph_user_kernel_set_frame (&priv->kernel, inbuf);

  in_dev = gst_cuda_graph_device_map_flags (&priv->dev, inbuf);
  /* Another cudagraph element's output: our stream waits for its frame
   * on the device, the host goes on (no wait per frame between two
   * elements).  Anything else: the host waits as a map does. */
  if (in_dev && gst_cuda_graph_fence_wait_on (inbuf, priv->dev.stream))
    no_fence = GST_CUDA_GRAPH_MAP_NO_FENCE;
  else if (in_dev)
    gst_cuda_graph_cuda_wait_ready (inbuf);
  if (!gst_cuda_graph_video_meta_fits (inbuf, &priv->in_info, &error))
    return frame_failed (self, error, GST_BUFFER_PTS (inbuf));
  frame = gst_cuda_graph_in_flight_pool_take (&priv->in_flight);
  frame->owner = self;
  frame->pts = GST_BUFFER_PTS (inbuf);
  frame->launch_failures = priv->launch_failures;
  if (!hold_output (self, frame, &params, &error)) {
    gst_cuda_graph_in_flight_pool_give (&priv->in_flight, frame);
    return frame_failed (self, error, GST_BUFFER_PTS (inbuf));
  }
  /* The mapping holds a reference on @inbuf until the frame is done.  In
   * place (a subclass made @outbuf the input, cudagraphkernel in-place)
   * the buffer is mapped for writing first: a memory mapped for reading
   * only cannot be mapped for writing as well. */
  if (!gst_video_frame_map (&frame->in_frame, &priv->in_info, inbuf,
          GST_MAP_READ | in_dev | no_fence
              | (inbuf == outbuf ? GST_MAP_WRITE : 0))) {
    gst_cuda_graph_in_flight_pool_give (&priv->in_flight, frame);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot map the input buffer as %s %dx%d",
            GST_VIDEO_INFO_NAME (&priv->in_info),
            GST_VIDEO_INFO_WIDTH (&priv->in_info),
            GST_VIDEO_INFO_HEIGHT (&priv->in_info)),
        (NULL));
    return GST_FLOW_ERROR;
  }
  ret = submit_frame (self, &params, frame, in_dev, outbuf, &location);
  if (ret != GST_FLOW_OK)
    return ret;
  /* Queued: generate_output() holds it with @outbuf. */
  if (frame->hold)
    priv->just_queued = frame;

  gst_cuda_graph_base_transform_count_frame (self);
  if (klass->decorate)
    klass->decorate (self, outbuf, &params,
        location.device_ptr != 0 ? &location : NULL);
  /* A frame done meanwhile may have failed once too often. */
  return priv->flow_error ? GST_FLOW_ERROR : GST_FLOW_OK;
}

/* --- outputs held until their frame is done ------------------------------ */

/* The oldest held output whose frame is done, its results attached, in
 * @outbuf (NULL when none is ready); failed frames' outputs are dropped
 * on the way.  Asks the queue first, without waiting, when the oldest is
 * not known done yet. */
static void
pop_done (GstCudaGraphBaseTransform *self, GstBuffer **outbuf)
{
  GstCudaGraphBaseTransformClass *klass =
      GST_CUDA_GRAPH_BASE_TRANSFORM_GET_CLASS (self);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  InFlightFrame *frame;

  *outbuf = NULL;
  if (priv->held.head != NULL && !priv->held.head->done && priv->queue)
    gcg_frame_queue_poll (priv->queue);
  while (*outbuf == NULL && priv->held.head != NULL && priv->held.head->done) {
    GstBuffer *buf;

    frame = gst_cuda_graph_held_frames_pop (&priv->held);
    buf = g_steal_pointer (&frame->outbuf);
    if (buf != NULL && frame->failed) {
      GST_OBJECT_LOCK (self);
      priv->dropped++;
      GST_OBJECT_UNLOCK (self);
      gst_clear_buffer (&buf);
    } else if (buf != NULL) {
      klass->add_results (self, buf, frame->results, frame->results_size,
          frame->items, frame->n_items);
    }
    gst_cuda_graph_in_flight_pool_give (&priv->in_flight, frame);
    *outbuf = buf;
  }
}

/* Downstream asked for a renegotiation: the base class may send new
 * caps before it takes @input, so the outputs held under the old ones
 * leave first. */
GstFlowReturn
gst_cuda_graph_base_transform_submit_input_buffer (GstBaseTransform *trans,
    gboolean is_discont, GstBuffer *input)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);

  if (GET_PRIV (self)->held.head != NULL
      && gst_pad_needs_reconfigure (GST_BASE_TRANSFORM_SRC_PAD (trans)))
    gst_cuda_graph_base_transform_finish_held (self);
  return PARENT_CLASS->submit_input_buffer (trans, is_discont, input);
}

/* GstBaseTransform calls this until it gives no buffer: the input, when
 * one is queued, is transformed; its output is held when its frame has
 * results to wait for; then the oldest held output that is ready leaves.
 * Without a postprocess nothing is ever held: the output of transform()
 * leaves as before. */
GstFlowReturn
gst_cuda_graph_base_transform_generate_output (GstBaseTransform *trans,
    GstBuffer **outbuf)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  InFlightFrame *frame;
  GstFlowReturn ret;

  priv->just_queued = NULL;
  ret = PARENT_CLASS->generate_output (trans, outbuf);
  frame = g_steal_pointer (&priv->just_queued);
  if (frame != NULL) {
    /* An output not handed over (an error after the frame was queued)
     * is dropped when its frame is done. */
    if (ret == GST_FLOW_OK)
      frame->outbuf = g_steal_pointer (outbuf);
    gst_cuda_graph_held_frames_push (&priv->held, frame);
  }
  if (ret != GST_FLOW_OK || *outbuf != NULL || priv->held.head == NULL)
    return ret;
  pop_done (self, outbuf);
  if (priv->held.head != NULL)
    gst_cuda_graph_idle_watch_arm (&priv->idle);
  return GST_FLOW_OK;
}

/* Every held output, once its frame is done, pushed in order before the
 * event that called for it goes on. */
void
gst_cuda_graph_base_transform_finish_held (GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  GstBuffer *buf;

  if (priv->held.head == NULL)
    return;
  gcg_frame_queue_drain (priv->queue);
  for (pop_done (self, &buf); buf != NULL; pop_done (self, &buf)) {
    GstFlowReturn ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), buf);

    if (ret != GST_FLOW_OK) {
      GST_DEBUG_OBJECT (self, "held output not taken (%s): dropping %u more",
          gst_flow_get_name (ret), priv->held.length);
      gst_cuda_graph_base_transform_drop_held (self);
      return;
    }
  }
}

/* Input paused: what is held leaves now, in the idle watch's thread,
 * under the sink pad's stream lock, which serialises it with the
 * streaming thread's buffers and events. */
void
gst_cuda_graph_base_transform_finish_held_idle (gpointer data)
{
  GstCudaGraphBaseTransform *self = data;
  GstPad *sinkpad = GST_BASE_TRANSFORM_SINK_PAD (self);

  GST_PAD_STREAM_LOCK (sinkpad);
  if (!GST_PAD_IS_FLUSHING (sinkpad))
    gst_cuda_graph_base_transform_finish_held (self);
  GST_PAD_STREAM_UNLOCK (sinkpad);
}

/* Holding outputs adds latency: the next frame's interval or the idle
 * watch's delay, whichever is shorter (an output leaves when a later
 * input finds its frame done, or once input pauses), and up to the
 * queue's depth of frames held. */
void
gst_cuda_graph_base_transform_add_hold_latency (GstCudaGraphBaseTransform *self,
    GstQuery *query)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  GstClockTime min, max, frame;
  gboolean live;
  gint fps_n, fps_d;
  guint depth;

  if (!g_atomic_int_get (&priv->holding))
    return;
  GST_OBJECT_LOCK (self);
  fps_n = GST_VIDEO_INFO_FPS_N (&priv->in_info);
  fps_d = GST_VIDEO_INFO_FPS_D (&priv->in_info);
  depth = priv->run.in_flight;
  GST_OBJECT_UNLOCK (self);
  frame = GST_CUDA_GRAPH_HOLD_IDLE_US * GST_USECOND;
  if (fps_n > 0 && fps_d > 0)
    frame = MIN (frame, gst_util_uint64_scale_int (GST_SECOND, fps_d, fps_n));
  gst_query_parse_latency (query, &live, &min, &max);
  min += frame;
  if (GST_CLOCK_TIME_IS_VALID (max))
    max += frame * MAX (depth, 1);
  GST_DEBUG_OBJECT (self,
      "holding outputs: latency %" GST_TIME_FORMAT " - %" GST_TIME_FORMAT,
      GST_TIME_ARGS (min), GST_TIME_ARGS (max));
  gst_query_set_latency (query, live, min, max);
}

/* The held outputs dropped; their frames must be done (the queue drained
 * or cancelled). */
void
gst_cuda_graph_base_transform_drop_held (GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  InFlightFrame *frame;

  while ((frame = gst_cuda_graph_held_frames_pop (&priv->held)) != NULL) {
    g_warn_if_fail (frame->done);
    gst_clear_buffer (&frame->outbuf);
    gst_cuda_graph_in_flight_pool_give (&priv->in_flight, frame);
  }
}
