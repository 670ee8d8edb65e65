/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Running an assembled batch of cudagraphbatch into its output, top-down
 * from push_batch() at the bottom: an output buffer, the batch handed to
 * the element's GcgFrameQueue (lib/ stages host inputs, replays the
 * GcgFrameBatch, copies a host output back and retires the batch), the
 * output fenced with (queue, seq) or waited for, described by its metas,
 * then timestamped and pushed. */
#include "gstcudagraphbatch-private.h"
#include <gcg/gcg-gst.h>
#include "memory/gstcudagraphfence.h"
#include "buffers/gstcudagraphtensordescribe.h"
#include "buffers/gstcudagraphvideo.h"

#include <stdlib.h>
#include <string.h>

#if defined(HAVE_GST_ANALYTICS) && GST_CHECK_VERSION(1, 28, 0)
#include <gst/analytics/analytics.h>
#define HAVE_GST_ANALYTICS_BATCH 1
#endif

#define GST_CAT_DEFAULT gst_cuda_graph_batch_debug

static GstFlowReturn
acquire_output (GstCudaGraphBatch *self, GstBuffer **outbuf)
{
  g_autoptr (GstBufferPool) pool = gst_cuda_graph_batch_get_buffer_pool (self);
  GstAllocator *allocator = NULL;
  GstAllocationParams params;

  *outbuf = NULL;
  if (pool) {
    /* The decided pool is kept without activating it (and deactivated
     * when replaced or dropped: gstcudagraphbatchsrc.c). */
    if (!gst_buffer_pool_is_active (pool)
        && !gst_buffer_pool_set_active (pool, TRUE))
      GST_WARNING_OBJECT (self, "cannot activate the output pool");
    else if (gst_buffer_pool_acquire_buffer (pool, outbuf, NULL) != GST_FLOW_OK)
      *outbuf = NULL;
  } else {
    gst_cuda_graph_batch_get_allocator (self, &allocator, &params);
    *outbuf = gst_buffer_new_allocate (allocator, self->out_size, &params);
    gst_clear_object (&allocator);
  }
  if (*outbuf && gst_buffer_get_size (*outbuf) >= self->out_size)
    return GST_FLOW_OK;
  gst_clear_buffer (outbuf);
  GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
      ("Cannot allocate a batch of %" G_GSIZE_FORMAT " bytes", self->out_size),
      (NULL));
  return GST_FLOW_ERROR;
}

/* The output buffer, mapped for the frame queue: device memory when it
 * is our CUDA memory, pinned or pageable host memory otherwise (the queue
 * stages it). */
typedef struct
{
  GstMapInfo map;
  GcgFramePlanes planes;
} OutputTarget;

static gboolean
map_output (GstCudaGraphBatch *self, GstBuffer *outbuf, OutputTarget *t,
    GError **error)
{
  GstMapFlags dev = gst_cuda_graph_device_map_flags (&self->dev, outbuf);
  GstMapFlags flags = gst_cuda_graph_device_write_flags (&self->dev, dev);

  memset (t, 0, sizeof (*t));
  if (!gst_buffer_map (outbuf, &t->map, flags)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_FAILED,
        "cannot map the output buffer");
    return FALSE;
  }
  t->planes.kind = gst_cuda_graph_memory_kind (outbuf, dev);
  t->planes.n_planes = 1;
  t->planes.data[0] = (guint64) (guintptr) t->map.data;
  t->planes.size[0] = MIN (t->map.size, self->out_size);
  return TRUE;
}

/* Each frame's planes where its mapping put them: device memory, or host
 * memory the frame queue stages to the device (pageable memory of an
 * upstream pool registered, then read by DMA, as the single-frame
 * elements do). */
static void
describe_inputs (GstCudaGraphBatch *self, Batch *batch)
{
  GcgContext *context = self->dev.active == GCG_BACKEND_CUDA ? self->dev.context
                                                             : NULL;

  for (guint s = 0; s < batch->n; s++) {
    BatchInput *in = &batch->inputs[s];
    GstMapFlags dev = gst_cuda_graph_device_map_flags (&self->dev, in->buffer);

    gst_cuda_graph_planes_from_frame (&batch->planes[s], &in->frame,
        gst_cuda_graph_input_memory_kind (in->buffer, dev, context));
  }
}

/* After the frame queue took the batch: output the GPU may still be
 * writing leaves now when its readers will wait for it (our pinned
 * memory, our CUDA memory: the map waits on the queue's fence, as for
 * the single-frame elements); any other output is complete before it
 * leaves. */
static gboolean
finish_output (GstCudaGraphBatch *self, GstBuffer *outbuf,
    const GcgFramePlanes *out, guint64 seq, GError **error)
{
  return self->dev.active != GCG_BACKEND_CUDA
      || gst_cuda_graph_fence_output (outbuf, out->kind, self->queue, seq,
          error);
}

/* The current engine's own counts. */
void
gst_cuda_graph_batch_engine_counts (GstCudaGraphBatch *self,
    GstCudaGraphRunCounts *counts)
{
  gst_cuda_graph_run_counts_set (counts,
      gcg_frame_batch_get_capture_count (self->engine),
      gcg_frame_batch_get_replay_count (self->engine),
      gcg_frame_batch_get_eager_count (self->engine));
}

static void
update_counters (GstCudaGraphBatch *self)
{
  GstCudaGraphRunCounts now;

  gst_cuda_graph_batch_engine_counts (self, &now);
  GST_OBJECT_LOCK (self);
  self->run.counts.captures = self->retired.captures + now.captures;
  self->run.counts.replays = self->retired.replays + now.replays;
  self->run.counts.eager = self->retired.eager + now.eager;
  self->batches++;
  GST_OBJECT_UNLOCK (self);
}

#ifdef HAVE_GST_ANALYTICS_BATCH
/* GStreamer 1.28's description of a batch for its analytics elements:
 * one stream per source, by its sink pad's index (the frames themselves
 * are in the tensor, so no buffers are listed). */
static void
add_analytics_batch_meta (GstBuffer *outbuf, Batch *batch)
{
  GstAnalyticsBatchMeta *meta = gst_buffer_add_analytics_batch_meta (outbuf);

  if (meta == NULL)
    return;
  meta->streams = g_new0 (GstAnalyticsBatchStream, MAX (batch->n, 1));
  meta->n_streams = 0;
  for (guint s = 0; s < batch->n; s++) {
    /* One stream per pad: with batch-strategy=all a pad's frames of one
     * window are consecutive sources. */
    if (s > 0 && batch->inputs[s].pad == batch->inputs[s - 1].pad)
      continue;
    /* "sink_%u" */
    meta->streams[meta->n_streams++].index =
        (guint) strtoul (GST_PAD_NAME (batch->inputs[s].pad) + 5, NULL, 10);
  }
}
#else
static void
add_analytics_batch_meta (GstBuffer *outbuf, Batch *batch)
{
}
#endif

/* The meta's copies of @pad's name and stream id.  A request pad's name
 * is set before it is added and never changes while the element holds it
 * (gst_object_set_name() refuses a parented object), so it is read without
 * the lock gst_pad_get_name() takes; the id is the pad's copy of its
 * last stream-start, not a look-up of the sticky event per batch. */
static void
describe_stream (GstCudaGraphBatchMetaSource *src, GstCudaGraphBatchPad *pad)
{
  src->pad_name = g_strdup (GST_PAD_NAME (pad));
  src->stream_id = g_strdup (gst_cuda_graph_batch_pad_get_stream_id (pad));
}

/* @batch's frames as the meta's sources, with their items. */
static void
describe_frames (GstCudaGraphBatch *self, GstCudaGraphBatchMeta *bmeta,
    GstCudaGraphTensorMeta *tmeta, Batch *batch, guint n_items)
{
  const GcgFrameBatchConfig *c = &self->config;
  guint k = 0;

  for (guint s = 0; s < batch->n; s++) {
    BatchInput *in = &batch->inputs[s];
    GstCudaGraphBatchMetaSource *src = &bmeta->sources[s];
    const GcgFrameParams *p = &batch->params[s];

    describe_stream (src, in->pad);
    src->pts = GST_BUFFER_PTS (in->buffer);
    src->running_time = in->running_time;
    src->width = batch->sources[s].width;
    src->height = batch->sources[s].height;
    src->first_item = k;
    src->n_items = in->n_items;
    for (guint i = 0; i < in->n_items && k < n_items; i++, k++) {
      GcgFrameItemMap map;

      gcg_frame_item_map_init (&map, &p->rois[i], c->out_width, c->out_height,
          c->letterbox);
      gst_cuda_graph_batch_meta_item_set (&bmeta->items[k], s, &map,
          in->ids[i]);
      gst_cuda_graph_tensor_meta_set_item (tmeta, k, &map, in->ids[i]);
    }
    bmeta->n_sources = bmeta->n_frames = s + 1;
  }
}

/* The streams with no frame in @batch's window, after its frames: empty
 * slots a reader can see (no item, no time), as many as the array
 * holds. */
static void
describe_absent (GstCudaGraphBatchMeta *bmeta, Batch *batch)
{
  for (guint a = 0; a < batch->n_absent
      && bmeta->n_sources < GST_CUDA_GRAPH_BATCH_META_MAX_SOURCES;
      a++) {
    GstCudaGraphBatchMetaSource *src = &bmeta->sources[bmeta->n_sources];

    describe_stream (src, batch->absent[a]);
    src->pts = src->running_time = GST_CLOCK_TIME_NONE;
    src->first_item = bmeta->n_items;
    bmeta->n_sources++;
  }
}

/* The batch's GstCudaGraphBatchMeta and GstCudaGraphTensorMeta. */
static void
decorate (GstCudaGraphBatch *self, GstBuffer *outbuf, Batch *batch,
    guint n_items, OutputTarget *t)
{
  const GcgFrameBatchConfig *c = &self->config;
  gboolean device = t->planes.kind == GCG_MEMORY_KIND_DEVICE;
  GstCudaGraphTensorDesc desc = { c->tensor_layout, c->tensor_type,
    c->tensor_channels, c->out_width, c->out_height,
    c->max_sources * c->max_rois };
  GstCudaGraphBatchMeta *bmeta =
      gst_cuda_graph_buffer_add_batch_meta (outbuf, n_items);
  GstCudaGraphTensorMeta *tmeta = gst_cuda_graph_tensor_meta_add (outbuf, &desc,
      self->out_size, device ? t->planes.data[0] : 0,
      device ? gcg_context_get_device_id (self->dev.context) : -1,
      device ? self->dev.stream : NULL);

  if (self->layout.n_tensors > 0)
    gst_cuda_graph_model_layout_apply (&self->layout, tmeta);
  tmeta->n_items = n_items;
  if (bmeta == NULL)
    return;
  describe_frames (self, bmeta, tmeta, batch, n_items);
  describe_absent (bmeta, batch);
  bmeta->window_start = batch->window_start;
  bmeta->window_duration = batch->window_duration;
  gst_cuda_graph_add_gst_tensor_meta (outbuf, tmeta, "cudagraphbatch");
  add_analytics_batch_meta (outbuf, batch);
}

/* The batch's time: the earliest running time among its frames (the
 * output segment is time, from 0), lasting to the end of the latest
 * (kept in @batch: without a batch window, where the window closer moves
 * the output position, the next live deadline's start). */
static void
timestamp (GstCudaGraphBatch *self, GstBuffer *outbuf, Batch *batch)
{
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
  batch->end = GST_CLOCK_TIME_IS_VALID (end) ? end : t;
}

/* A user kernel's per-batch named values (its meta: parameters): those of
 * the first input of the batch that carries a GcgParamsMeta. */
static void
set_kernel_values (GstCudaGraphBatch *self, Batch *batch)
{
  self->kernel.values = NULL;
  for (guint i = 0; i < batch->n && self->kernel.values == NULL; i++) {
    if (batch->inputs[i].buffer != NULL)
      gst_cuda_graph_user_kernel_set_frame (&self->kernel,
          batch->inputs[i].buffer);
  }
}

/* With a postprocess (CUDA backend): the batch's results area, where the
 * replay writes its results for its frames' branches (batch_done() in
 * gstcudagraphbatchassemble.c reads it). */
static gboolean
prepare_results (GstCudaGraphBatch *self, Batch *batch, GError **error)
{
  gsize size;

  batch->has_results = FALSE;
  if (batch->n == 0 || self->results_kind == GCG_POSTPROCESS_NONE
      || self->dev.active != GCG_BACKEND_CUDA || self->dev.host_pool == NULL)
    return TRUE;
  size = gcg_frame_batch_get_results_size (self->engine);
  if (size == 0
      || !gst_cuda_graph_batch_ensure_results (self, batch, size, error))
    return size == 0;
  /* Under unified addressing (every 64-bit platform) the pinned block's
   * host pointer is its device address. */
  batch->params[0].results = (guint64) (guintptr) batch->results;
  batch->has_results = TRUE;
  return TRUE;
}

/* Runs @batch into @outbuf through the frame queue; on failure @outbuf
 * is not pushed. */
static gboolean
run_batch (GstCudaGraphBatch *self, Batch *batch, GstBuffer *outbuf,
    GError **error)
{
  OutputTarget t;
  gboolean use_graph;
  GcgSyncMode sync_mode;
  guint n_items = 0;
  guint64 seq = 0;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  use_graph = self->run.use_graph;
  sync_mode = self->run.sync_mode;
  GST_OBJECT_UNLOCK (self);
  gcg_frame_batch_set_use_graph (self->engine, use_graph);
  /* Whoever waits for a batch (the queue's full window, a reader of the
   * output) waits this way. */
  if (self->dev.stream)
    gcg_stream_set_sync_mode (self->dev.stream, sync_mode);
  if (!map_output (self, outbuf, &t, error))
    return FALSE;
  set_kernel_values (self, batch);
  describe_inputs (self, batch);
  ok = prepare_results (self, batch, error)
      && gst_cuda_graph_batch_submit (self, batch, &t.planes, &n_items, &seq,
          error)
      && finish_output (self, outbuf, &t.planes, seq, error);
  if (ok)
    decorate (self, outbuf, batch, n_items, &t);
  gst_buffer_unmap (outbuf, &t.map);
  return ok;
}

GstFlowReturn
gst_cuda_graph_batch_push_batch (GstCudaGraphBatch *self, Batch *batch)
{
  g_autoptr (GError) error = NULL;
  GstBuffer *outbuf;
  GstFlowReturn ret;

  if (!gst_cuda_graph_batch_open_queue (self))
    return GST_FLOW_ERROR;
  ret = acquire_output (self, &outbuf);
  if (ret != GST_FLOW_OK)
    return ret;
  if (!run_batch (self, batch, outbuf, &error)) {
    gst_buffer_unref (outbuf);
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Processing a batch of %u streams failed: %s", batch->n,
            error->message),
        (NULL));
    return GST_FLOW_ERROR;
  }
  timestamp (self, outbuf, batch);
  update_counters (self);
  GST_OBJECT_LOCK (self);
  self->frames += batch->n;
  GST_OBJECT_UNLOCK (self);
  return gst_cuda_graph_batch_finish_buffer (self, outbuf);
}
