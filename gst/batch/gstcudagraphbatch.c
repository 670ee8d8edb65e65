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
 * whole visible frame (or the pad's crop of it), source after source.  N is
 * #GstCudaGraphBatch:batch-size × max-rois whatever a batch holds; the
 * #GstCudaGraphBatchMeta on each buffer says how many items are valid and where
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
 * Batching: a batch holds the frames of one window of running time,
 * #GstCudaGraphBatch:batch-duration long or (0, the default) one frame
 * long (the shortest frame duration among the streams; exact frames of
 * its rate, each holding the frames nearest its start); each pad's
 * #GstCudaGraphBatchPad:batch-strategy says which of its frames in the
 * window it gives (all, the first, the nearest, the last).  A fast
 * stream is never held to a slow one's rate, and a stream with no frame
 * in the window is left out of that batch, listed in the #GstCudaGraphBatchMeta as
 * an empty slot (never a repeated frame).  The batch leaves once every stream is done with the
 * window (its frames cover the window's end, its next frame lies past it,
 * or EOS); live, at the latest by the deadline (the window's end plus
 * #GstCudaGraphBatch:timeout, as nvstreammux's batched-push-timeout).
 * A window with more frames than batch-size leaves in several full
 * batches, pads taking turns.  A frame that starts before the window
 * being collected is late: dropped, counted
 * (#GstCudaGraphBatch:dropped-late) and posted as a QoS message.  The
 * LATENCY query adds the window and the timeout to upstream's.  EOS when
 * every pad is at EOS.  With batch-size 0 the batch size is the number
 * of sink pads when caps are negotiated; a pad requested beyond it
 * renegotiates (a new capture): set batch-size for streams that come and
 * go.  docs/cudagraphbatch.md has the whole policy.
 *
 * Values: as #GstCudaGraphPreprocess (mean/std or scale/offset, pad-value,
 * the GcgParamsMeta custom meta per frame).
 *
 * A kernel of the user's own (kernel-source or kernel-location,
 * kernel-entry, kernel-params; docs/user-kernels.md) runs after the batch
 * op in the same graph, once per batch over the whole tensor: one z slice
 * of its grid per item (`blockIdx.z`), the tensor in `dst0`, the items
 * written in `items`; its `meta:` values come from the first input of the
 * batch carrying a GcgParamsMeta.  pipelines/kernel.sh runs one.
 *
 * Each stream's own branch (since 0.3): request `src_N` and the frames
 * of `sink_N` leave on it again, unchanged and in order, each once its
 * batch is done, with the stream's events and its own EOS.  With a model
 * and #GstCudaGraphBatch:postprocess, the batch's results are computed in
 * the same replay and each frame carries its own as a
 * #GstCudaGraphResultsMeta (and, from GStreamer 1.24, a
 * `GstAnalyticsRelationMeta`).  As after a demuxer, put a `queue` after
 * `src` and after each `src_N`.  docs/cudagraphbatch.md, "Each stream's
 * own branch".
 *
 * At EOS, and when a `cudagraph-stats-request` custom downstream event
 * reaches it on a sink pad, it posts a `cudagraph-stats` element message (`backend`,
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
 * |[
 * gst-launch-1.0 cudagraphbatch name=b sink_0::batch-strategy=last-in-batch sink_1::crop-x=640 ! fakesink \
 *   videotestsrc num-buffers=100 ! video/x-raw,framerate=60/1 ! b.sink_0 \
 *   videotestsrc num-buffers=100 ! video/x-raw,width=1280,height=720 ! b.sink_1
 * ]| Request pads' properties set on the element as `sink_N::property`
 * (it is a #GstChildProxy of its sink pads): each is set when the link
 * after it requests its pad.
 * |[
 * gst-launch-1.0 cudagraphbatch name=b batch-size=2 width=16 height=16 ! queue ! fakesink \
 *   videotestsrc num-buffers=100 ! video/x-raw,width=320,height=240 ! b.sink_0 \
 *   videotestsrc num-buffers=50 pattern=ball ! video/x-raw,width=640,height=480 ! b.sink_1 \
 *   b.src_0 ! queue ! videoconvert ! autovideosink \
 *   b.src_1 ! queue ! videoconvert ! autovideosink
 * ]| Each stream's frames back on its own branch after the batch (with a
 * model and postprocess=, with their results).
 *
 * Since: 0.1
 */

#include "gstcudagraphbatch-private.h"
#include <gcg/gcg-gst.h>
#include "memory/gstcudagraphcudainterop.h"
#include "gstcudagraphelements.h"
#include "buffers/gstcudagraphtensordescribe.h"

/* Shared with the other files of the element. */
GST_DEBUG_CATEGORY (gst_cuda_graph_batch_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_batch_debug

#define BATCH_FORMATS "{ NV12, I420, RGBA, BGRA, RGB, BGR, GRAY8 }"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink_%u",
    GST_PAD_SINK, GST_PAD_REQUEST,
    GST_STATIC_CAPS (GST_CUDA_GRAPH_VIDEO_CAPS (BATCH_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CUDA_GRAPH_TENSOR_SRC_CAPS
        "; " GST_CUDA_GRAPH_MODEL_SRC_CAPS));
/* Each stream's own branch: sink_N's frames leave again on src_N,
 * unchanged, with their results (gstcudagraphbatchcamerasrc.c). */
static GstStaticPadTemplate camera_src_template =
    GST_STATIC_PAD_TEMPLATE ("src_%u", GST_PAD_SRC, GST_PAD_REQUEST,
        GST_STATIC_CAPS (GST_CUDA_GRAPH_VIDEO_CAPS (BATCH_FORMATS)));

G_DEFINE_TYPE_WITH_CODE (GstCudaGraphBatch, gst_cuda_graph_batch,
    GST_TYPE_ELEMENT,
    G_IMPLEMENT_INTERFACE (GST_TYPE_CHILD_PROXY,
        gst_cuda_graph_batch_child_proxy_init));
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudagraphbatch, "cudagraphbatch",
    GST_RANK_NONE, gst_cuda_graph_batch_get_type (),
    gst_cuda_graph_params_meta_register ();
    gst_cuda_graph_tensor_meta_get_info ();
    gst_cuda_graph_batch_meta_get_info ());

static void gst_cuda_graph_batch_finalize (GObject *object);
static void gst_cuda_graph_batch_set_context (GstElement *element,
    GstContext *context);
static GstStateChangeReturn gst_cuda_graph_batch_change_state (
    GstElement *element, GstStateChange transition);

static void
gst_cuda_graph_batch_class_init (GstCudaGraphBatchClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->finalize = gst_cuda_graph_batch_finalize;
  gst_cuda_graph_batch_install_properties (gobject_class);

  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &sink_template, GST_TYPE_CUDA_GRAPH_BATCH_PAD);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_add_static_pad_template (element_class,
      &camera_src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA graph batch preprocessor", "Filter/Converter/Video/Tensor/Hardware",
      "Batches one frame (or its regions of interest) of each of many video "
      "streams into one inference tensor with one CUDA graph replay",
      "gst-cudagraph authors");

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_set_context);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_change_state);
  element_class->request_new_pad =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_request_new_pad);
  element_class->release_pad =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_batch_release_pad);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_graph_batch_debug, "cudagraphbatch", 0,
      "cudagraphbatch");
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_GRAPH_BATCH_PAD, 0);
}

static void
gst_cuda_graph_batch_init (GstCudaGraphBatch *self)
{
  GstPadTemplate *templ =
      gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (self), "src");

  gst_cuda_graph_batch_collector_init (&self->collector);
  gst_cuda_graph_idle_watch_init (&self->idle);
  gst_cuda_graph_batch_init_properties (self);
  gst_cuda_graph_postprocess_init (&self->postprocess);
  self->dev.active = GCG_BACKEND_CPU;
  g_queue_init (&self->spare);
  self->window_start = self->window_duration = GST_CLOCK_TIME_NONE;
  self->window_latency = GST_CLOCK_TIME_NONE;
  self->next_time = GST_CLOCK_TIME_NONE;
  gst_allocation_params_init (&self->alloc_params);
  gst_segment_init (&self->out_segment, GST_FORMAT_TIME);
  self->srcpad = gst_cuda_graph_batch_src_new (self, templ);
  gst_element_add_pad (GST_ELEMENT (self), self->srcpad);
}

static void
gst_cuda_graph_batch_finalize (GObject *object)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (object);

  gst_cuda_graph_tensor_props_clear (&self->props);
  gst_cuda_graph_user_kernel_clear (&self->kernel);
  gst_cuda_graph_model_clear (&self->model);
  gst_clear_object (&self->gst_context);
  g_queue_clear_full (&self->spare,
      (GDestroyNotify) gst_cuda_graph_batch_free_record);
  gst_cuda_graph_postprocess_clear (&self->postprocess);
  gst_cuda_graph_idle_watch_clear (&self->idle);
  gst_cuda_graph_batch_collector_clear (&self->collector);

  G_OBJECT_CLASS (gst_cuda_graph_batch_parent_class)->finalize (object);
}

/* --- context sharing ----------------------------------------------------- */

/* A "gst.cuda.context" from the pipeline or a neighbour; kept only while we
 * have none (the one we run in is never replaced mid-stream). */
static void
gst_cuda_graph_batch_set_context (GstElement *element, GstContext *context)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (element);

  gst_cuda_graph_device_set_context (element, context, &self->run,
      &self->gst_context);

  GST_ELEMENT_CLASS (gst_cuda_graph_batch_parent_class)
      ->set_context (element, context);
}

/* --- state --------------------------------------------------------------- */

static void
reset_counters (GstCudaGraphBatch *self)
{
  GST_OBJECT_LOCK (self);
  memset (&self->retired, 0, sizeof (self->retired));
  memset (&self->run.counts, 0, sizeof (self->run.counts));
  self->batches = 0;
  self->dropped_late = 0;
  self->frames = 0;
  GST_OBJECT_UNLOCK (self);
  self->stats_posted = FALSE;
}

static gboolean
has_model (GstElement *element)
{
  return GST_CUDA_GRAPH_BATCH (element)->model.model != NULL;
}

static gboolean
start (GstCudaGraphBatch *self)
{
  reset_counters (self);
  self->results_kind = GCG_POSTPROCESS_NONE;
  if (!gst_cuda_graph_postprocess_start (&self->postprocess,
          GST_ELEMENT (self)))
    return FALSE;
  gst_cuda_graph_batch_reset_window (self);
  self->next_pad = 0;
  if (!gst_cuda_graph_device_open (&self->dev, GST_ELEMENT (self), &self->run,
          &self->gst_context))
    return FALSE;
  if (gst_cuda_graph_user_kernel_start (&self->kernel, GST_ELEMENT (self),
          self->dev.active, self->dev.context)
      && gst_cuda_graph_model_check_start (&self->model, GST_ELEMENT (self),
          self->dev.active)) {
    gst_cuda_graph_postprocess_check_model (&self->postprocess,
        GST_ELEMENT (self), has_model);
    return TRUE;
  }
  gst_cuda_graph_device_close (&self->dev);
  gst_cuda_graph_postprocess_stop (&self->postprocess);
  return FALSE;
}

static void
stop (GstCudaGraphBatch *self)
{
  gst_cuda_graph_batch_retire_engine (self);
  gst_cuda_graph_batch_close_queue (self);
  gst_cuda_graph_batch_forget_cameras (self);
  gst_cuda_graph_batch_reset_window (self);
  gst_cuda_graph_user_kernel_stop (&self->kernel);
  /* The spare batches' results areas are the device's host pool's. */
  g_queue_clear_full (&self->spare,
      (GDestroyNotify) gst_cuda_graph_batch_free_record);
  gst_cuda_graph_postprocess_stop (&self->postprocess);
  gst_cuda_graph_device_close (&self->dev);
  GST_OBJECT_LOCK (self);
  gst_clear_object (&self->gst_context);
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_batch_src_clear (self);
}

/* With a model, the device's primary context goes to the pipeline before
 * the decoders upstream open (see cudagraphpreprocess).  Starting, the
 * engine's device opens and the pads take buffers before they are
 * activated (the src pad's activation starts the collector); stopping,
 * the device closes once they are deactivated (the collector stopped). */
static GstStateChangeReturn
gst_cuda_graph_batch_change_state (GstElement *element,
    GstStateChange transition)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (element);
  GstStateChangeReturn ret;
  gint device_id;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    device_id = gst_cuda_graph_model_get_device (&self->model, element);
    if (device_id >= 0)
      gst_cuda_graph_device_offer_primary (element, device_id,
          &self->gst_context);
  }
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    if (!start (self))
      return GST_STATE_CHANGE_FAILURE;
    gst_cuda_graph_batch_src_reset (self);
    gst_cuda_graph_batch_set_pads_flushing (self, FALSE);
  }
  ret = GST_ELEMENT_CLASS (gst_cuda_graph_batch_parent_class)
            ->change_state (element, transition);
  /* The clock and base time the live deadline is on are there now: a
   * wait that started without them looks again. */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING)
    gst_cuda_graph_batch_collector_kick (&self->collector);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    stop (self);
  else if (transition == GST_STATE_CHANGE_READY_TO_PAUSED
      && ret == GST_STATE_CHANGE_FAILURE)
    stop (self);
  return ret;
}

/* --- batching ------------------------------------------------------------ */

/* Live, nothing came by the deadline: the next deadline is a window
 * later (without windows, a timeout later), so the collector does not
 * spin. */
static void
skip_empty_deadline (GstCudaGraphBatch *self)
{
  GstClockTime latency = gst_cuda_graph_batch_get_latency (self);
  GstClockTime next;

  GST_OBJECT_LOCK (self);
  next = self->next_time;
  GST_OBJECT_UNLOCK (self);
  if (!GST_CLOCK_TIME_IS_VALID (next))
    return;
  gst_cuda_graph_batch_close_window (self, next + MAX (latency, GST_MSECOND));
}

/* A renegotiation when batch-size is 0 and pads were requested beyond the
 * negotiated batch (the next batch captures again). */
static void
check_growth (GstCudaGraphBatch *self)
{
  guint batch_size;

  GST_OBJECT_LOCK (self);
  batch_size = self->batch_size;
  GST_OBJECT_UNLOCK (self);
  if (batch_size == 0 && self->engine
      && gst_cuda_graph_batch_count_sink_pads (self) > self->config.max_sources)
    gst_pad_mark_reconfigure (self->srcpad);
}

/* At EOS, as the other elements do: the counters (final once the batches
 * in flight are done) and the memory held, which gst-launch-1.0 -m
 * prints. */
static void
post_stats (GstCudaGraphBatch *self)
{
  if (self->stats_posted)
    return;
  self->stats_posted = TRUE;
  gst_cuda_graph_batch_post_stats_now (self);
}

void
gst_cuda_graph_batch_post_stats_now (GstCudaGraphBatch *self)
{
  GstStructure *s;

  gst_cuda_graph_batch_retire_all (self);
  GST_OBJECT_LOCK (self);
  s = gst_cuda_graph_run_stats_new (self->dev.active, &self->run.counts);
  gst_structure_set (s, "batches", G_TYPE_UINT64, self->batches, "frames",
      G_TYPE_UINT64, self->frames, "dropped-late", G_TYPE_UINT64,
      self->dropped_late, NULL);
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_device_add_memory_stats (&self->dev, s);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* Pushes one batch of the window's held frames (up to batch-size, pads
 * taking turns); *@any FALSE when none were held. */
static GstFlowReturn
push_one (GstCudaGraphBatch *self, GList *pads, GList *absent, gboolean *any,
    GstClockTime *end)
{
  Batch *batch = gst_cuda_graph_batch_new_batch (self);
  GstFlowReturn ret = GST_FLOW_OK;
  guint in_flight;

  *any = gst_cuda_graph_batch_fill (self, pads, absent, batch,
      self->config.max_sources);
  /* Every frame may have been refused (no caps, too small). */
  if (batch->n == 0)
    goto done;
  ret = gst_cuda_graph_batch_push_batch (self, batch);
  *end = batch->end;
  /* The GPU may still read the inputs: the frame queue holds them until
   * it is done; at most in-flight batches stay queued. */
  GST_OBJECT_LOCK (self);
  in_flight = self->run.in_flight;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_batch_retire_batches (self, in_flight);

done:
  gst_cuda_graph_batch_release_batch (batch);
  return ret;
}

/* The window is complete: its frames leave, in as many batches as they
 * need (a batch is pushed when full), and the next window opens.  FALSE
 * in *@pushed when it held no frame. */
static GstFlowReturn
push_window (GstCudaGraphBatch *self, GList *pads, gboolean *pushed)
{
  GList *absent = gst_cuda_graph_batch_list_absent (self, pads);
  GstClockTime end = GST_CLOCK_TIME_NONE;
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean any = TRUE;

  *pushed = FALSE;
  while (ret == GST_FLOW_OK && any) {
    ret = push_one (self, pads, absent, &any, &end);
    *pushed |= any;
  }
  g_list_free_full (absent, gst_object_unref);
  if (*pushed)
    gst_cuda_graph_batch_close_window (self, end);
  return ret;
}

GstFlowReturn
gst_cuda_graph_batch_step (GstCudaGraphBatch *self, gboolean timeout,
    gboolean *progress, GstCudaGraphBatchPad **waiting)
{
  GList *pads = gst_cuda_graph_batch_list_sink_pads (self);
  GstFlowReturn ret = GST_FLOW_OK;
  GstClockTime next, end;
  gboolean pushed;

  *progress = FALSE;
  *waiting = NULL;
  if (self->engine == NULL) {
    ret = GST_FLOW_NOT_NEGOTIATED;
    goto done;
  }
  check_growth (self);
  /* Controlled properties (scale, offset, pad-value) at the batch's time. */
  GST_OBJECT_LOCK (self);
  next = self->next_time;
  GST_OBJECT_UNLOCK (self);
  if (GST_CLOCK_TIME_IS_VALID (next))
    gst_object_sync_values (GST_OBJECT (self), next);
  end = gst_cuda_graph_batch_open_window (self, pads);
  /* Not complete: more frames of the window are coming. */
  if (!gst_cuda_graph_batch_collect (self, pads, end, timeout, waiting))
    goto done;
  ret = push_window (self, pads, &pushed);
  *progress = pushed;
  if (pushed || ret != GST_FLOW_OK)
    goto done;
  if (gst_cuda_graph_batch_all_pads_eos (self, pads)) {
    post_stats (self);
    ret = GST_FLOW_EOS;
  } else if (timeout) {
    skip_empty_deadline (self);
    *progress = TRUE;
  }

done:
  /* The streams' own branches: the frames whose batches are done. */
  if (ret == GST_FLOW_OK)
    ret = gst_cuda_graph_batch_drain_cameras (self, pads, FALSE);
  g_list_free_full (pads, gst_object_unref);
  return ret;
}
