/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* A camera's branch of cudagraphbatch: the records of what the collector
 * took from one stream, pushed out on its src pad in order as they
 * become ready (gstcudagraphbatchcamera.h).  The element-agnostic part:
 * the src pad itself is made in gstcudagraphbatchcamerasrc.c. */
#include "gstcudagraphbatchcamera.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_graph_batch_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_batch_debug

/* A frame or a serialized event of the stream; a frame is ready once its
 * batch is done or the window left it out, an event at once.  A frame's
 * results wait here, copied, until it leaves: attached then, when the
 * batch has let go of the buffer, they need no copy of it (a copy made
 * while the batch still held it would share the decoder's memory, and
 * its pool would then drop the buffer and allocate another: a quarter
 * of the CPU of 8 NVDEC streams on an H200). */
typedef struct
{
  GstMiniObject *obj;           /* owned */
  gboolean ready;
  gboolean has_results;
  GstCudaGraphBatchCameraResults results;       /* arrays owned */
} Record;

static void
record_free (Record *r)
{
  if (r->obj != NULL)
    gst_mini_object_unref (r->obj);
  g_free ((gpointer) r->results.results);
  g_free ((gpointer) r->results.items);
  g_free (r);
}

static void
push_record (GstCudaGraphBatchCamera *camera, GstMiniObject *obj,
    gboolean ready)
{
  Record *r = g_new0 (Record, 1);

  r->obj = obj;
  r->ready = ready;
  g_queue_push_tail (&camera->records, r);
}

void
gst_cuda_graph_batch_camera_init (GstCudaGraphBatchCamera *camera)
{
  g_mutex_init (&camera->lock);
  g_queue_init (&camera->records);
  camera->src = NULL;
}

void
gst_cuda_graph_batch_camera_forget (GstCudaGraphBatchCamera *camera)
{
  g_mutex_lock (&camera->lock);
  g_queue_clear_full (&camera->records, (GDestroyNotify) record_free);
  g_mutex_unlock (&camera->lock);
}

void
gst_cuda_graph_batch_camera_clear (GstCudaGraphBatchCamera *camera)
{
  gst_cuda_graph_batch_camera_forget (camera);
  gst_clear_object (&camera->src);
  g_mutex_clear (&camera->lock);
}

static gboolean
copy_sticky (GstPad *sink, GstEvent **event, gpointer src)
{
  gst_pad_store_sticky_event (src, *event);
  return TRUE;
}

void
gst_cuda_graph_batch_camera_set_src (GstCudaGraphBatchCamera *camera,
    GstPad *sink, GstPad *src)
{
  GstPad *old;

  g_mutex_lock (&camera->lock);
  old = camera->src;
  g_atomic_pointer_set (&camera->src, src ? gst_object_ref (src) : NULL);
  g_queue_clear_full (&camera->records, (GDestroyNotify) record_free);
  g_mutex_unlock (&camera->lock);
  gst_clear_object (&old);
  /* Paired mid-stream: the branch starts from the stream's latest
   * stream-start, caps and segment. */
  if (src != NULL && sink != NULL)
    gst_pad_sticky_events_foreach (sink, copy_sticky, src);
}

GstPad *
gst_cuda_graph_batch_camera_ref_src (GstCudaGraphBatchCamera *camera)
{
  GstPad *src;

  g_mutex_lock (&camera->lock);
  src = camera->src ? gst_object_ref (camera->src) : NULL;
  g_mutex_unlock (&camera->lock);
  return src;
}

/* Per frame, without the lock: a stale answer costs one record made or
 * skipped while a pad is being paired, which set_src() then drops. */
gboolean
gst_cuda_graph_batch_camera_is_paired (GstCudaGraphBatchCamera *camera)
{
  return g_atomic_pointer_get (&camera->src) != NULL;
}

gboolean
gst_cuda_graph_batch_camera_has_records (GstCudaGraphBatchCamera *camera)
{
  gboolean any;

  g_mutex_lock (&camera->lock);
  any = camera->records.length > 0;
  g_mutex_unlock (&camera->lock);
  return any;
}

void
gst_cuda_graph_batch_camera_take_event (GstCudaGraphBatchCamera *camera,
    GstEvent *event)
{
  if (!gst_cuda_graph_batch_camera_is_paired (camera))
    return;
  g_mutex_lock (&camera->lock);
  if (camera->src != NULL)
    push_record (camera, GST_MINI_OBJECT_CAST (gst_event_ref (event)), TRUE);
  g_mutex_unlock (&camera->lock);
}

/* The collector's stand-in for a GAP event (gstcudagraphbatchsink.c): a
 * buffer with the flag and no memory. */
static gboolean
is_gap (GstBuffer *buffer)
{
  return GST_BUFFER_FLAG_IS_SET (buffer, GST_BUFFER_FLAG_GAP)
      && gst_buffer_n_memory (buffer) == 0;
}

void
gst_cuda_graph_batch_camera_take_frame (GstCudaGraphBatchCamera *camera,
    GstBuffer *buffer)
{
  GstMiniObject *obj;

  if (!gst_cuda_graph_batch_camera_is_paired (camera))
    return;
  /* A gap goes on as the event it came as. */
  obj = is_gap (buffer)
      ? GST_MINI_OBJECT_CAST (gst_event_new_gap (GST_BUFFER_PTS (buffer),
            GST_BUFFER_DURATION (buffer)))
      : GST_MINI_OBJECT_CAST (gst_buffer_ref (buffer));
  g_mutex_lock (&camera->lock);
  if (camera->src != NULL)
    push_record (camera, obj, GST_IS_EVENT (obj));
  else
    gst_mini_object_unref (obj);
  g_mutex_unlock (&camera->lock);
}

/* The oldest frame record of @buffer still waiting (under the lock). */
static GList *
find_waiting (GstCudaGraphBatchCamera *camera, GstBuffer *buffer)
{
  for (GList *l = camera->records.head; l; l = l->next) {
    Record *r = l->data;

    if (!r->ready && r->obj == GST_MINI_OBJECT_CAST (buffer))
      return l;
  }
  return NULL;
}

void
gst_cuda_graph_batch_camera_pass (GstCudaGraphBatchCamera *camera,
    GstBuffer *buffer)
{
  GList *l;

  if (!gst_cuda_graph_batch_camera_is_paired (camera))
    return;
  g_mutex_lock (&camera->lock);
  l = find_waiting (camera, buffer);
  if (l != NULL)
    ((Record *) l->data)->ready = TRUE;
  g_mutex_unlock (&camera->lock);
}

/* Keeps @results with @r until the frame leaves: their results array
 * (taken), a copy of their items (the labels are the element's, valid
 * until it stops, which forgets the records). */
static void
keep_results (Record *r, const GstCudaGraphBatchCameraResults *results)
{
  r->results = *results;
  r->results.items = g_memdup2 (results->items,
      (gsize) results->n_items * sizeof (GstCudaGraphResultsItem));
  r->has_results = TRUE;
}

/* @r's frame, with its results attached when it has some: writable
 * without a copy when the record holds the only reference, as it does
 * once the batch let go. */
static GstMiniObject *
take_frame (Record *r)
{
  GstBuffer *buf = GST_BUFFER_CAST (g_steal_pointer (&r->obj));
  const GstCudaGraphBatchCameraResults *res = &r->results;

  if (!r->has_results)
    return GST_MINI_OBJECT_CAST (buf);
  buf = gst_buffer_make_writable (buf);
  gst_cuda_graph_buffer_add_results (buf, res->kind, res->results,
      res->n_results, res->labels, res->n_labels, res->items, res->n_items);
  return GST_MINI_OBJECT_CAST (buf);
}

void
gst_cuda_graph_batch_camera_done (GstCudaGraphBatchCamera *camera,
    GstBuffer *buffer, const GstCudaGraphBatchCameraResults *results)
{
  GList *l;

  if (!gst_cuda_graph_batch_camera_is_paired (camera)) {
    if (results != NULL)
      g_free ((gpointer) results->results);
    return;
  }
  g_mutex_lock (&camera->lock);
  l = find_waiting (camera, buffer);
  if (l != NULL) {
    /* A stream's frames are batched in their order: one taken earlier
     * and still waiting will never be. */
    for (GList *e = camera->records.head; e != l; e = e->next)
      ((Record *) e->data)->ready = TRUE;
    ((Record *) l->data)->ready = TRUE;
    if (results != NULL) {
      keep_results (l->data, results);
      results = NULL;
    }
  }
  g_mutex_unlock (&camera->lock);
  /* Its frame is not waiting here any more (flushed, unpaired). */
  if (results != NULL)
    g_free ((gpointer) results->results);
}

/* The oldest record when it may leave (owned), else NULL. */
static Record *
pop_ready (GstCudaGraphBatchCamera *camera, gboolean all)
{
  Record *r;

  g_mutex_lock (&camera->lock);
  r = g_queue_peek_head (&camera->records);
  if (r != NULL && (r->ready || all))
    g_queue_pop_head (&camera->records);
  else
    r = NULL;
  g_mutex_unlock (&camera->lock);
  return r;
}

GstFlowReturn
gst_cuda_graph_batch_camera_drain (GstCudaGraphBatchCamera *camera,
    gboolean all)
{
  GstFlowReturn first = GST_FLOW_OK;
  GstPad *src;
  Record *r;

  if (!gst_cuda_graph_batch_camera_is_paired (camera))
    return GST_FLOW_OK;
  src = gst_cuda_graph_batch_camera_ref_src (camera);
  if (src == NULL)
    return GST_FLOW_OK;
  /* The stream lock keeps a flush from passing between a record taken
   * and its push (gst_cuda_graph_batch_camera_flush()). */
  GST_PAD_STREAM_LOCK (src);
  while ((r = pop_ready (camera, all)) != NULL) {
    GstMiniObject *obj = GST_IS_EVENT (r->obj) ? g_steal_pointer (&r->obj)
                                               : take_frame (r);
    GstFlowReturn ret = GST_FLOW_OK;

    record_free (r);
    if (GST_IS_EVENT (obj))
      gst_pad_push_event (src, GST_EVENT_CAST (obj));
    else
      ret = gst_pad_push (src, GST_BUFFER_CAST (obj));
    /* A branch that is flushing, unlinked or at its end drops its frames
     * and holds nothing else up; an error stops the element. */
    if (ret < GST_FLOW_EOS && first == GST_FLOW_OK) {
      GST_DEBUG_OBJECT (src, "push failed: %s", gst_flow_get_name (ret));
      first = ret;
    }
  }
  GST_PAD_STREAM_UNLOCK (src);
  gst_object_unref (src);
  return first;
}

gboolean
gst_cuda_graph_batch_camera_flush (GstCudaGraphBatchCamera *camera,
    GstEvent *event)
{
  GstPad *src = gst_cuda_graph_batch_camera_ref_src (camera);
  gboolean ret = TRUE;

  if (src == NULL) {
    gst_event_unref (event);
    return TRUE;
  }
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_START) {
    /* Out first: a drain blocked downstream returns, then lets go. */
    ret = gst_pad_push_event (src, event);
    GST_PAD_STREAM_LOCK (src);
    gst_cuda_graph_batch_camera_forget (camera);
    GST_PAD_STREAM_UNLOCK (src);
  } else {
    GST_PAD_STREAM_LOCK (src);
    gst_cuda_graph_batch_camera_forget (camera);
    ret = gst_pad_push_event (src, event);
    GST_PAD_STREAM_UNLOCK (src);
  }
  gst_object_unref (src);
  return ret;
}

static gboolean
answer_caps (GstPad *sink, GstPad *src, GstQuery *query)
{
  GstCaps *filter, *peer, *templ, *caps;

  gst_query_parse_caps (query, &filter);
  peer = gst_pad_peer_query_caps (src, filter);
  templ = gst_pad_get_pad_template_caps (sink);
  caps = gst_caps_intersect_full (peer, templ, GST_CAPS_INTERSECT_FIRST);
  gst_query_set_caps_result (query, caps);
  gst_caps_unref (caps);
  gst_caps_unref (templ);
  gst_caps_unref (peer);
  return TRUE;
}

static gboolean
answer_accept_caps (GstPad *sink, GstPad *src, GstQuery *query)
{
  GstCaps *caps, *templ;
  gboolean ok;

  gst_query_parse_accept_caps (query, &caps);
  templ = gst_pad_get_pad_template_caps (sink);
  ok = gst_caps_is_subset (caps, templ)
      && gst_pad_peer_query_accept_caps (src, caps);
  gst_caps_unref (templ);
  gst_query_set_accept_caps_result (query, ok);
  return TRUE;
}

gboolean
gst_cuda_graph_batch_camera_sink_query (GstCudaGraphBatchCamera *camera,
    GstPad *sink, GstQuery *query)
{
  GstPad *src;
  gboolean ret = FALSE;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CAPS
      && GST_QUERY_TYPE (query) != GST_QUERY_ACCEPT_CAPS)
    return FALSE;
  src = gst_cuda_graph_batch_camera_ref_src (camera);
  if (src == NULL || !gst_pad_is_linked (src)) {
    gst_clear_object (&src);
    return FALSE;
  }
  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS)
    ret = answer_caps (sink, src, query);
  else
    ret = answer_accept_caps (sink, src, query);
  gst_object_unref (src);
  return ret;
}
