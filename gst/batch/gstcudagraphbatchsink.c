/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphbatch's sink pads: each stream's buffers and serialized events
 * go into its pad's bounded queue (gstcudagraphbatchqueue.c) in
 * upstream's thread, and the collector (gstcudagraphbatchsrc.c) takes
 * them in order: the events before a buffer are applied as it reaches
 * them (caps, segment, stream-start, EOS), so a stream's new size or
 * segment holds from its next frame on, as GstAggregator did.
 *
 * Flushes: FLUSH_START empties the pad's queue and releases its blocked
 * chain; when it is the seek's flush, or every pad is flushing, it goes
 * downstream once and the collector stops; the FLUSH_STOP that ends the
 * last pad's flush restarts it.
 */
#include "gstcudagraphbatch-private.h"
#include "gstcudagraphelements.h"

#define GST_CAT_DEFAULT gst_cuda_graph_batch_debug

static GstCudaGraphBatchQueue *
queue_of (GstCudaGraphBatchPad *pad)
{
  return gst_cuda_graph_batch_pad_get_queue (pad);
}

static GstCudaGraphBatchCamera *
camera_of (GstCudaGraphBatchPad *pad)
{
  return gst_cuda_graph_batch_pad_get_camera (pad);
}

/* --- upstream's thread --------------------------------------------------- */

static GstFlowReturn
sink_chain (GstPad *pad, GstObject *parent, GstBuffer *buffer)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (parent);
  GstCudaGraphBatchPad *bpad = GST_CUDA_GRAPH_BATCH_PAD_CAST (pad);
  GstFlowReturn flow;

  /* Downstream's refusal (not-linked, an error, EOS) goes upstream. */
  GST_OBJECT_LOCK (self);
  flow = self->flow;
  GST_OBJECT_UNLOCK (self);
  if (flow != GST_FLOW_OK && flow != GST_FLOW_FLUSHING) {
    gst_buffer_unref (buffer);
    return flow;
  }
  gst_cuda_graph_batch_pad_set_delivered (bpad, TRUE);
  return gst_cuda_graph_batch_queue_push_buffer (queue_of (bpad), buffer);
}

/* Whether every sink pad's queue is flushing (@flushing) or none is. */
static gboolean
all_pads_flushing (GstCudaGraphBatch *self, gboolean flushing)
{
  gboolean all = TRUE;

  GST_OBJECT_LOCK (self);
  for (GList *l = GST_ELEMENT (self)->sinkpads; l && all; l = l->next) {
    GstCudaGraphBatchQueue *q = queue_of (l->data);

    g_mutex_lock (&q->lock);
    all = q->flushing == flushing;
    g_mutex_unlock (&q->lock);
  }
  GST_OBJECT_UNLOCK (self);
  return all;
}

static gboolean
flush_start (GstCudaGraphBatch *self, GstCudaGraphBatchPad *pad,
    GstEvent *event)
{
  gboolean forward;

  gst_cuda_graph_batch_queue_set_flushing (queue_of (pad), TRUE);
  gst_cuda_graph_batch_pad_mark_flushed (pad);
  GST_OBJECT_LOCK (self);
  forward = !self->src_flushing
      && (gst_event_get_seqnum (event) == self->seek_seqnum);
  GST_OBJECT_UNLOCK (self);
  forward = forward || all_pads_flushing (self, TRUE);
  GST_OBJECT_LOCK (self);
  forward = forward && !self->src_flushing;
  if (forward)
    self->src_flushing = TRUE;
  GST_OBJECT_UNLOCK (self);
  if (!forward) {
    gst_event_unref (event);
    return TRUE;
  }
  GST_DEBUG_OBJECT (pad, "flushing downstream");
  return gst_cuda_graph_batch_src_flush_start (self, event);
}

static gboolean
flush_stop (GstCudaGraphBatch *self, GstCudaGraphBatchPad *pad, GstEvent *event)
{
  gboolean forward;

  gst_cuda_graph_batch_queue_set_flushing (queue_of (pad), FALSE);
  gst_cuda_graph_batch_pad_set_delivered (pad, FALSE);
  GST_OBJECT_LOCK (self);
  forward = self->src_flushing;
  GST_OBJECT_UNLOCK (self);
  forward = forward && all_pads_flushing (self, FALSE);
  GST_OBJECT_LOCK (self);
  forward = forward && self->src_flushing;
  if (forward) {
    self->src_flushing = FALSE;
    self->seek_seqnum = GST_SEQNUM_INVALID;
  }
  GST_OBJECT_UNLOCK (self);
  if (!forward) {
    gst_event_unref (event);
    return TRUE;
  }
  return gst_cuda_graph_batch_src_flush_stop (self, event);
}

static GstBuffer *
gap_buffer (GstEvent *event)
{
  GstBuffer *buf = gst_buffer_new ();
  GstClockTime pts, duration;

  gst_event_parse_gap (event, &pts, &duration);
  gst_event_unref (event);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = duration;
  GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_GAP | GST_BUFFER_FLAG_DROPPABLE);
  return buf;
}

/* Serialized events go to the collector in order with the buffers; caps
 * the frame chain cannot read are refused at once. */
static gboolean
sink_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (parent);
  GstCudaGraphBatchPad *bpad = GST_CUDA_GRAPH_BATCH_PAD_CAST (pad);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      /* The stream's own branch flushes with it. */
      gst_cuda_graph_batch_camera_flush (camera_of (bpad),
          gst_event_ref (event));
      return flush_start (self, bpad, event);
    case GST_EVENT_FLUSH_STOP:
      gst_cuda_graph_batch_camera_flush (camera_of (bpad),
          gst_event_ref (event));
      return flush_stop (self, bpad, event);
    case GST_EVENT_CAPS: {
      GstCaps *caps;

      gst_event_parse_caps (event, &caps);
      if (!gst_cuda_graph_batch_pad_check_caps (bpad, caps)) {
        gst_event_unref (event);
        return FALSE;
      }
      break;
    }
    case GST_EVENT_TAG:
      gst_event_unref (event);
      return TRUE;
    case GST_EVENT_GAP:
      /* A buffer with no frame, as GstAggregator made one: the stream's
       * time moves on (its window is done), nothing is batched. */
      return gst_cuda_graph_batch_queue_push_buffer (queue_of (bpad),
                 gap_buffer (event))
          == GST_FLOW_OK;
    default:
      break;
  }
  if (!GST_EVENT_IS_SERIALIZED (event))
    return gst_pad_event_default (pad, parent, event);
  return gst_cuda_graph_batch_queue_push_event (queue_of (bpad), event);
}

static gboolean
sink_query (GstPad *pad, GstObject *parent, GstQuery *query)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_ALLOCATION:
      return gst_cuda_graph_batch_propose_allocation (self, query);
    case GST_QUERY_CONTEXT:
      if (gst_cuda_graph_device_context_query (GST_ELEMENT (self), query,
              &self->gst_context))
        return TRUE;
      break;
    case GST_QUERY_DRAIN:
      /* Nothing of upstream's is held past the batch it is in. */
      return TRUE;
    default:
      /* Caps: with a branch of its own, what it takes too. */
      if (gst_cuda_graph_batch_camera_sink_query (
              camera_of (GST_CUDA_GRAPH_BATCH_PAD_CAST (pad)), pad, query))
        return TRUE;
      break;
  }
  return gst_pad_query_default (pad, parent, query);
}

void
gst_cuda_graph_batch_sink_setup (GstCudaGraphBatch *self, GstPad *pad)
{
  guint depth;

  GST_OBJECT_LOCK (self);
  depth = self->queue_depth;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_batch_pad_attach (GST_CUDA_GRAPH_BATCH_PAD_CAST (pad),
      &self->collector, depth);
  gst_pad_set_chain_function (pad, GST_DEBUG_FUNCPTR (sink_chain));
  gst_pad_set_event_function (pad, GST_DEBUG_FUNCPTR (sink_event));
  gst_pad_set_query_function (pad, GST_DEBUG_FUNCPTR (sink_query));
}

void
gst_cuda_graph_batch_set_pads_flushing (GstCudaGraphBatch *self,
    gboolean flushing)
{
  GList *pads = gst_cuda_graph_batch_list_sink_pads (self);

  for (GList *l = pads; l; l = l->next) {
    gst_cuda_graph_batch_queue_set_flushing (queue_of (l->data), flushing);
    if (flushing)
      gst_cuda_graph_batch_pad_mark_flushed (l->data);
    else
      gst_cuda_graph_batch_pad_set_delivered (l->data, FALSE);
  }
  g_list_free_full (pads, gst_object_unref);
}

/* --- the collector's side ------------------------------------------------ */

/* Applies @event, taken from @pad's queue (owned). */
static void
apply_event (GstCudaGraphBatch *self, GstCudaGraphBatchPad *pad,
    GstEvent *event)
{
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS: {
      GstCaps *caps;

      gst_event_parse_caps (event, &caps);
      gst_cuda_graph_batch_pad_set_caps (pad, caps);
      break;
    }
    case GST_EVENT_SEGMENT:
      gst_event_copy_segment (event,
          gst_cuda_graph_batch_pad_get_segment (pad));
      break;
    case GST_EVENT_STREAM_START:
      gst_cuda_graph_batch_pad_set_stream_start (pad, event);
      break;
    case GST_EVENT_EOS:
      gst_cuda_graph_batch_pad_set_eos (pad, TRUE);
      break;
    case GST_EVENT_CUSTOM_DOWNSTREAM:
      if (gst_event_has_name (event, GST_CUDA_GRAPH_STATS_REQUEST_NAME)) {
        gst_cuda_graph_batch_post_stats_now (self);
        gst_event_unref (event);
        return;
      }
      break;
    default:
      break;
  }
  /* On the stream's own branch, in its place among the frames. */
  gst_cuda_graph_batch_camera_take_event (camera_of (pad), event);
  gst_event_unref (event);
}

GstBuffer *
gst_cuda_graph_batch_peek (GstCudaGraphBatch *self, GstCudaGraphBatchPad *pad)
{
  GstCudaGraphBatchQueue *q = queue_of (pad);
  GstMiniObject *head;

  gst_cuda_graph_batch_pad_take_flush (pad);
  while ((head = gst_cuda_graph_batch_queue_peek (q)) != NULL) {
    if (GST_IS_BUFFER (head))
      return GST_BUFFER_CAST (head);
    gst_mini_object_unref (head);
    head = gst_cuda_graph_batch_queue_pop (q);
    /* NULL or a buffer: flushed (and maybe refilled) meanwhile. */
    if (head == NULL)
      break;
    if (!GST_IS_EVENT (head)) {
      gst_mini_object_unref (head);
      continue;
    }
    apply_event (self, pad, GST_EVENT_CAST (head));
  }
  return NULL;
}

GstBuffer *
gst_cuda_graph_batch_pop (GstCudaGraphBatch *self, GstCudaGraphBatchPad *pad)
{
  GstBuffer *head = gst_cuda_graph_batch_peek (self, pad);
  GstMiniObject *popped;

  if (head == NULL)
    return NULL;
  gst_buffer_unref (head);
  popped = gst_cuda_graph_batch_queue_pop (queue_of (pad));
  if (popped != NULL && GST_IS_BUFFER (popped))
    gst_cuda_graph_batch_camera_take_frame (camera_of (pad),
        GST_BUFFER_CAST (popped));
  if (popped == NULL || GST_IS_BUFFER (popped))
    return GST_BUFFER_CAST (popped);
  /* Flushed, and an event came first since: none this time. */
  apply_event (self, pad, GST_EVENT_CAST (popped));
  return NULL;
}

gboolean
gst_cuda_graph_batch_is_eos (GstCudaGraphBatch *self, GstCudaGraphBatchPad *pad)
{
  GstBuffer *head = gst_cuda_graph_batch_peek (self, pad);

  if (head != NULL) {
    gst_buffer_unref (head);
    return FALSE;
  }
  return gst_cuda_graph_batch_pad_is_eos (pad);
}
