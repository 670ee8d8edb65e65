/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Assembling a batch of cudagraphbatch: the head frame of each pad,
 * mapped as its caps say (refused, with a warning, when the buffer does
 * not hold them), with its per-frame values and ROIs; and the frame queue
 * of batches in flight (lib/frame/gcg-frame-queue.c stages, runs and
 * retires them), whose inputs stay mapped until its done callback. */
#include "gstcudagraphbatch-private.h"
#include "memory/gstcudagraphcudainterop.h"
#include <gcg/gcg-gst.h>
#include "buffers/gstcudagraphrois.h"
#include "buffers/gstcudagraphvideo.h"

#define GST_CAT_DEFAULT gst_cuda_graph_batch_debug

/* --- batches in flight --------------------------------------------------- */

/* A Batch is some 200 KB (64 mapped frames and their values): they are
 * kept for the next batches rather than allocated and zeroed each time. */
Batch *
gst_cuda_graph_batch_new_batch (GstCudaGraphBatch *self)
{
  Batch *batch = g_queue_pop_head (&self->spare);

  if (batch == NULL)
    batch = g_new0 (Batch, 1);
  batch->owner = self;
  batch->holds = 1;
  return batch;
}

/* Frees a batch record kept spare, with its results area. */
void
gst_cuda_graph_batch_free_record (Batch *batch)
{
  g_autoptr (GError) error = NULL;

  if (batch->results != NULL
      && !gcg_host_pool_release (batch->results_pool, batch->results,
          batch->results_size, &error))
    GST_WARNING ("cannot release a batch's results area: %s", error->message);
  g_clear_object (&batch->results_pool);
  g_free (batch);
}

/* Gives @batch a results area of @size bytes from the element's host
 * pool (the one it has when it is large enough): the replay writes the
 * batch's results there (gcg_frame_batch_set_postprocess()). */
gboolean
gst_cuda_graph_batch_ensure_results (GstCudaGraphBatch *self, Batch *batch,
    gsize size, GError **error)
{
  g_autoptr (GError) release_error = NULL;
  gpointer area;

  if (batch->results != NULL && batch->results_pool == self->dev.host_pool
      && batch->results_size >= size)
    return TRUE;
  area = gcg_host_pool_alloc (self->dev.host_pool, size, error);
  if (area == NULL)
    return FALSE;
  if (batch->results != NULL
      && !gcg_host_pool_release (batch->results_pool, batch->results,
          batch->results_size, &release_error))
    GST_WARNING_OBJECT (self, "cannot release a results area: %s",
        release_error->message);
  g_clear_object (&batch->results_pool);
  batch->results = area;
  batch->results_size = size;
  batch->results_pool = g_object_ref (self->dev.host_pool);
  return TRUE;
}

/* Releases @batch's inputs and keeps it for a later batch. */
static void
free_batch (GstCudaGraphBatch *self, Batch *batch)
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
  for (guint i = 0; i < batch->n_absent; i++)
    gst_clear_object (&batch->absent[i]);
  batch->n_absent = 0;
  batch->has_results = FALSE;
  if (g_queue_get_length (&self->spare) <= GST_CUDA_GRAPH_BATCH_MAX_IN_FLIGHT)
    g_queue_push_head (&self->spare, batch);
  else
    gst_cuda_graph_batch_free_record (batch);
}

/* Drops one hold on @batch (the element's, or the frame queue's when it
 * is done with the batch); the last one releases its inputs. */
void
gst_cuda_graph_batch_release_batch (Batch *batch)
{
  g_assert (batch->holds > 0);
  if (--batch->holds == 0)
    free_batch (batch->owner, batch);
}

/* The items of @in (source @s of @batch) as the results describe them:
 * the ROI each came from and its rectangle in the frame (the whole frame
 * for a frame without ROIs). */
static void
describe_items (Batch *batch, guint s, GstCudaGraphResultsItem *items)
{
  BatchInput *in = &batch->inputs[s];
  const GcgFrameParams *p = &batch->params[s];

  for (guint i = 0; i < in->n_items; i++) {
    GstVideoRegionOfInterestMeta *roi = in->ids[i] < 0
        ? NULL
        : gst_buffer_get_video_region_of_interest_meta_id (in->buffer,
              in->ids[i]);
    GcgRect r = i < (guint) p->n_rois
        ? p->rois[i]
        : (GcgRect) { 0, 0, batch->sources[s].width, batch->sources[s].height };

    items[i].roi_id = in->ids[i];
    items[i].roi_type = roi ? roi->roi_type : 0;
    items[i].x = r.x;
    items[i].y = r.y;
    items[i].width = r.width;
    items[i].height = r.height;
  }
}

/* Source @s's frame, done: on its branch with its own results (the items
 * from @first on in the batch's area, counted from 0 again). */
static void
frame_done (GstCudaGraphBatch *self, Batch *batch, guint s, guint first,
    gboolean ok)
{
  BatchInput *in = &batch->inputs[s];
  GstCudaGraphBatchCamera *camera =
      gst_cuda_graph_batch_pad_get_camera (in->pad);
  GstCudaGraphResultsItem items[GCG_FRAME_CHAIN_MAX_ROIS];
  GstCudaGraphBatchCameraResults r = { self->results_kind, NULL, 0,
    self->postprocess.labels, self->postprocess.n_labels, items, in->n_items };
  g_autofree GcgResult *own = NULL;
  guint n = 0;

  if (!gst_cuda_graph_batch_camera_is_paired (camera))
    return;
  if (!ok || !batch->has_results) {
    gst_cuda_graph_batch_camera_done (camera, in->buffer, NULL);
    return;
  }
  for (guint i = 0; i < in->n_items; i++) {
    guint k = 0;

    (void) gcg_frame_results_get_item (batch->results, batch->results_size,
        first + i, &k);
    n += MIN (k, GCG_RESULT_MAX_PER_ITEM);
  }
  own = g_new (GcgResult, MAX (n, 1));
  n = 0;
  for (guint i = 0; i < in->n_items; i++) {
    guint k = 0;
    const GcgResult *res = gcg_frame_results_get_item (batch->results,
        batch->results_size, first + i, &k);

    for (guint j = 0; j < k && j < GCG_RESULT_MAX_PER_ITEM; j++, n++) {
      own[n] = res[j];
      own[n].item = i;
    }
  }
  describe_items (batch, s, items);
  /* The record takes the array: one copy of the results per frame. */
  r.results = g_steal_pointer (&own);
  r.n_results = n;
  gst_cuda_graph_batch_camera_done (camera, in->buffer, &r);
}

/* The frame queue is done with a batch: the device no longer reads its
 * inputs, its results are written, its frames may leave on their
 * branches.  A batch that failed on the GPU left already: it can only be
 * reported (its frames leave without results). */
static void
batch_done (GcgFrameQueue *queue, guint64 seq, const GError *error,
    gpointer user_data)
{
  Batch *batch = user_data;
  guint first = 0;

  if (error != NULL && !g_error_matches (error, GCG_ERROR, GCG_ERROR_CANCELLED))
    GST_WARNING_OBJECT (batch->owner,
        "a batch failed on the GPU after it left: %s", error->message);
  for (guint s = 0; s < batch->n; s++) {
    frame_done (batch->owner, batch, s, first, error == NULL);
    first += batch->inputs[s].n_items;
  }
  gst_cuda_graph_batch_release_batch (batch);
}

/* Queues @batch's run into @out: from now on the frame queue holds the
 * batch too, until batch_done(). */
gboolean
gst_cuda_graph_batch_submit (GstCudaGraphBatch *self, Batch *batch,
    const GcgFramePlanes *out, guint *n_items, guint64 *seq, GError **error)
{
  /* On the CPU backend the batch is done (batch_done()) inside the
   * submit. */
  batch->holds++;
  if (gcg_frame_queue_submit_batch (self->queue, self->engine, batch->n,
          batch->sources, batch->params, batch->planes, out, batch_done, batch,
          n_items, seq, error))
    return TRUE;
  batch->holds--;
  return FALSE;
}

/* The queue the batches run through: on the stream for CUDA, done at once
 * for the CPU backend; as deep as in-flight may go (the window is kept
 * to the property by retire_batches()). */
gboolean
gst_cuda_graph_batch_open_queue (GstCudaGraphBatch *self)
{
  g_autoptr (GError) error = NULL;

  if (self->queue != NULL)
    return TRUE;
  self->queue = gcg_frame_queue_new (self->dev.stream, self->dev.allocator,
      self->dev.host_pool, GST_CUDA_GRAPH_BATCH_MAX_IN_FLIGHT, &error);
  if (self->queue != NULL)
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("Cannot make the frame queue: %s", error->message), (NULL));
  return FALSE;
}

/* Every batch retired, the queue dropped (an output fence may keep it
 * a while: it holds no batch any more). */
void
gst_cuda_graph_batch_close_queue (GstCudaGraphBatch *self)
{
  gst_cuda_graph_batch_retire_all (self);
  g_clear_object (&self->queue);
}

/* Retires the batches the GPU is done with, oldest first; waits for the
 * oldest while more than @keep are left. */
void
gst_cuda_graph_batch_retire_batches (GstCudaGraphBatch *self, guint keep)
{
  guint64 submitted;

  if (self->queue == NULL)
    return;
  gcg_frame_queue_poll (self->queue);
  submitted = gcg_frame_queue_get_submitted (self->queue);
  if (gcg_frame_queue_get_in_flight (self->queue) > keep)
    (void) gcg_frame_queue_wait (self->queue, submitted - keep, NULL);
}

void
gst_cuda_graph_batch_retire_all (GstCudaGraphBatch *self)
{
  gst_cuda_graph_batch_retire_batches (self, 0);
}

/* --- assembling a batch -------------------------------------------------- */

/* The pads to take frames from this time, in pad order (refs). */
GList *
gst_cuda_graph_batch_list_sink_pads (GstCudaGraphBatch *self)
{
  GList *pads;

  GST_OBJECT_LOCK (self);
  pads = g_list_copy (GST_ELEMENT (self)->sinkpads);
  for (GList *l = pads; l; l = l->next)
    gst_object_ref (l->data);
  GST_OBJECT_UNLOCK (self);
  return pads;
}

gboolean
gst_cuda_graph_batch_all_pads_eos (GstCudaGraphBatch *self, GList *pads)
{
  for (GList *l = pads; l; l = l->next) {
    if (!gst_cuda_graph_batch_is_eos (self, l->data))
      return FALSE;
  }
  return TRUE;
}

/* Every plane holds the rows the chain reads: upstream's video meta and
 * buffer are its word only. */
static gboolean
planes_fit (GstVideoFrame *frame, GError **error)
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
          "%u rows of %" G_GSIZE_FORMAT " bytes",
          i, planes.stride[i], planes.size[i], rows, row);
      return FALSE;
    }
  }
  return TRUE;
}

/* Maps @in's buffer as its pad's caps say; FALSE (with a warning: the
 * frame is left out) when it does not hold them. */
static gboolean
map_input (GstCudaGraphBatch *self, BatchInput *in, const GstVideoInfo *info)
{
  g_autoptr (GError) error = NULL;
  GstMapFlags dev = gst_cuda_graph_device_map_flags (&self->dev, in->buffer);

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
        "the buffer does not hold a %s %dx%d frame", GST_VIDEO_INFO_NAME (info),
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info));
  }
  GST_ELEMENT_WARNING (self, STREAM, FORMAT,
      ("Leaving a frame of %s out of the batch: %s", GST_PAD_NAME (in->pad),
          error->message),
      (NULL));
  return FALSE;
}

/* The per-frame values of @in, as cudagraphpreprocess fills them. */
static void
fill_params (GstCudaGraphBatch *self, BatchInput *in, const GcgRect *region,
    GcgFrameParams *params)
{
  gchar *roi_type;
  GstBuffer *buf = in->buffer;
  guint max_rois = self->config.max_rois;
  gboolean cropped;

  gcg_frame_params_init (params);
  params->pts = GST_BUFFER_PTS_IS_VALID (buf) ? GST_BUFFER_PTS (buf) : 0;
  params->frame_number =
      GST_BUFFER_OFFSET_IS_VALID (buf) ? GST_BUFFER_OFFSET (buf) : self->frames;
  for (guint i = 0; i < GST_VIDEO_FRAME_N_PLANES (&in->frame); i++) {
    params->src[i] =
        (guint64) (guintptr) GST_VIDEO_FRAME_PLANE_DATA (&in->frame, i);
    params->src_stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (&in->frame, i);
  }
  GST_OBJECT_LOCK (self);
  gst_cuda_graph_tensor_props_fill_params (&self->props, params);
  roi_type =
      gst_cuda_graph_batch_pad_ref_roi_type (in->pad, self->props.roi_type);
  GST_OBJECT_UNLOCK (self);
  /* Per frame: casts without the type checks (about 130 instructions). */
  gst_cuda_graph_apply_params_meta (GST_OBJECT_CAST (self), buf, params);
  in->n_items = gst_cuda_graph_collect_rois (GST_OBJECT_CAST (in->pad), buf,
      region, roi_type, max_rois, params, in->ids);
  g_clear_pointer (&roi_type, g_ref_string_release);
  /* The chain reads no ROI as the whole frame: a crop is one ROI. */
  cropped = region->x != 0 || region->y != 0
      || region->width != GST_VIDEO_FRAME_WIDTH (&in->frame)
      || region->height != GST_VIDEO_FRAME_HEIGHT (&in->frame);
  if (params->n_rois == 0 && cropped)
    params->n_rois = 1;
}

/* The collector's segment of @pad: the one before its head buffer. */
GstClockTime
gst_cuda_graph_batch_running_time (GstCudaGraphBatchPad *pad, GstBuffer *buf)
{
  GstSegment *segment = gst_cuda_graph_batch_pad_get_segment (pad);

  if (!GST_BUFFER_PTS_IS_VALID (buf) || segment->format != GST_FORMAT_TIME)
    return GST_CLOCK_TIME_NONE;
  return gst_segment_to_running_time (segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf));
}

/* Takes @buffer (a frame of @pad, owned) into @batch when it can be
 * batched; a frame that cannot (no caps, buffer too small) is dropped.
 * A crop that selects nothing of it does not drop it: its item is then
 * its whole visible frame (gstcudagraphcrop.h). */
void
gst_cuda_graph_batch_take_frame (GstCudaGraphBatch *self,
    GstCudaGraphBatchPad *pad, GstBuffer *buffer, Batch *batch)
{
  BatchInput *in = &batch->inputs[batch->n];
  const GstVideoInfo *info = gst_cuda_graph_batch_pad_get_info (pad);
  GcgRect region;

  in->buffer = buffer;
  if (in->buffer == NULL)
    return;
  in->pad = gst_object_ref (pad);
  in->running_time = gst_cuda_graph_batch_running_time (pad, in->buffer);
  /* A GAP event's stand-in (gstcudagraphbatchsink.c): no frame. */
  if (info == NULL || GST_BUFFER_FLAG_IS_SET (in->buffer, GST_BUFFER_FLAG_GAP)
      || !map_input (self, in, info)) {
    if (in->mapped)
      gst_video_frame_unmap (&in->frame);
    gst_cuda_graph_batch_pad_drop_frame (pad, g_steal_pointer (&in->buffer));
    gst_clear_object (&in->pad);
    in->mapped = FALSE;
    return;
  }
  gst_cuda_graph_batch_pad_get_source (pad, &batch->sources[batch->n]);
  gst_cuda_graph_batch_pad_get_region (pad, GST_ELEMENT_CAST (self), in->buffer,
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), &region);
  fill_params (self, in, &region, &batch->params[batch->n]);
  batch->n++;
}
