/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphbatch's per-stream src pads (issue 35): `src_N`, requested as
 * a launch line's `b.src_0 ! ...` does, pairs with `sink_N` (whichever
 * came first) and gives that stream's frames back, unchanged, in order,
 * each once its batch is done and with its own results when the batch
 * ends in a postprocess (gstcudagraphbatchcamera.c holds what waits to
 * leave).  So each camera goes on to an overlay, an encoder or a sink of
 * its own, the batched tensor still leaving on `src` for whoever wants
 * it.
 *
 * Upstream, a src_N pad is its stream's: its caps and most queries and
 * events go to sink_N's peer; a seek goes to the element (every stream
 * seeks together, as through `src`), and latency (one window more than
 * the tensor's) and the CUDA context are the element's answers.  A src_N whose sink_N is released gets EOS.
 */
#include "gstcudagraphbatch-private.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_cuda_graph_batch_debug

#define SRC_PREFIX "src_"
#define SINK_PREFIX "sink_"

/* N of @name, "PREFIXN"; FALSE when it is not one. */
static gboolean
index_of (const gchar *name, const gchar *prefix, guint *n)
{
  guint64 v;

  if (name == NULL || !g_str_has_prefix (name, prefix)
      || !g_ascii_string_to_unsigned (name + strlen (prefix), 10, 0, G_MAXUINT,
          &v, NULL))
    return FALSE;
  *n = (guint) v;
  return TRUE;
}

/* The pad named @to_prefix + the index of @pad (a ref), or NULL. */
static GstPad *
counterpart (GstCudaGraphBatch *self, GstPad *pad, const gchar *from_prefix,
    const gchar *to_prefix)
{
  g_autofree gchar *name = NULL;
  guint n;

  if (!index_of (GST_PAD_NAME (pad), from_prefix, &n))
    return NULL;
  name = g_strdup_printf ("%s%u", to_prefix, n);
  return gst_element_get_static_pad (GST_ELEMENT (self), name);
}

static GstCudaGraphBatchCamera *
camera_of (GstPad *sink)
{
  return gst_cuda_graph_batch_pad_get_camera (GST_CUDA_GRAPH_BATCH_PAD (sink));
}

/* @name when it is a src_N not taken, else (NULL asked) the lowest free
 * one; NULL when none (under the object lock). */
static gchar *
free_src_name (GstElement *element, const gchar *name)
{
  guint n = 0;

  if (name != NULL && !index_of (name, SRC_PREFIX, &n))
    return NULL;
  for (;;) {
    g_autofree gchar *candidate = g_strdup_printf (SRC_PREFIX "%u", n);
    gboolean taken = FALSE;

    for (GList *l = element->srcpads; l && !taken; l = l->next)
      taken = g_strcmp0 (GST_OBJECT_NAME (l->data), candidate) == 0;
    if (!taken)
      return g_steal_pointer (&candidate);
    if (name != NULL || n == G_MAXUINT)
      return NULL;
    n++;
  }
}

static gboolean
camera_src_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (parent);
  g_autoptr (GstPad) sink = NULL;

  /* Every stream seeks together, as a seek through `src` does. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK)
    return gst_pad_send_event (self->srcpad, event);
  sink = counterpart (self, pad, SRC_PREFIX, SINK_PREFIX);
  if (sink == NULL) {
    gst_event_unref (event);
    return FALSE;
  }
  return gst_pad_push_event (sink, event);
}

/* The stream's caps as upstream offers them (frames leave unchanged). */
static gboolean
answer_caps (GstPad *pad, GstPad *sink, GstQuery *query)
{
  GstCaps *filter, *caps, *templ = gst_pad_get_pad_template_caps (pad);

  gst_query_parse_caps (query, &filter);
  if (sink != NULL) {
    GstCaps *peer = gst_pad_peer_query_caps (sink, filter);

    caps = gst_caps_intersect_full (peer, templ, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (peer);
  } else {
    caps = filter
        ? gst_caps_intersect_full (filter, templ, GST_CAPS_INTERSECT_FIRST)
        : gst_caps_ref (templ);
  }
  gst_query_set_caps_result (query, caps);
  gst_caps_unref (caps);
  gst_caps_unref (templ);
  return TRUE;
}

/* The element's latency, and one window more: a frame leaves on its
 * branch once its batch is seen done, at the latest when the next window's
 * batch is made. */
static gboolean
answer_latency (GstCudaGraphBatch *self, GstQuery *query)
{
  GstClockTime min, max, window;
  gboolean live;

  if (!gst_pad_query (self->srcpad, query))
    return FALSE;
  gst_query_parse_latency (query, &live, &min, &max);
  GST_OBJECT_LOCK (self);
  window = GST_CLOCK_TIME_IS_VALID (self->window_latency) ? self->window_latency
                                                          : 0;
  GST_OBJECT_UNLOCK (self);
  gst_query_set_latency (query, live,
      gst_cuda_graph_batch_add_time (min, window),
      GST_CLOCK_TIME_IS_VALID (max)
          ? gst_cuda_graph_batch_add_time (max, window)
          : GST_CLOCK_TIME_NONE);
  return TRUE;
}

static gboolean
camera_src_query (GstPad *pad, GstObject *parent, GstQuery *query)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (parent);
  g_autoptr (GstPad) sink = counterpart (self, pad, SRC_PREFIX, SINK_PREFIX);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
      return answer_caps (pad, sink, query);
    case GST_QUERY_LATENCY:
      return answer_latency (self, query);
    case GST_QUERY_CONTEXT:
      /* The element's device. */
      return gst_pad_query (self->srcpad, query);
    default:
      break;
  }
  if (sink != NULL)
    return gst_pad_peer_query (sink, query);
  return gst_pad_query_default (pad, parent, query);
}

GstPad *
gst_cuda_graph_batch_camera_src_request (GstCudaGraphBatch *self,
    GstPadTemplate *templ, const gchar *name)
{
  g_autofree gchar *pad_name = NULL;
  g_autoptr (GstPad) sink = NULL;
  GstPad *pad;

  GST_OBJECT_LOCK (self);
  pad_name = free_src_name (GST_ELEMENT (self), name);
  GST_OBJECT_UNLOCK (self);
  if (pad_name == NULL)
    return NULL;
  pad = gst_pad_new_from_template (templ, pad_name);
  gst_pad_set_event_function (pad, GST_DEBUG_FUNCPTR (camera_src_event));
  gst_pad_set_query_function (pad, GST_DEBUG_FUNCPTR (camera_src_query));
  if (!gst_element_add_pad (GST_ELEMENT (self), pad)) {
    gst_object_unref (pad);
    return NULL;
  }
  sink = counterpart (self, pad, SRC_PREFIX, SINK_PREFIX);
  if (sink != NULL)
    gst_cuda_graph_batch_camera_set_src (camera_of (sink), sink, pad);
  GST_DEBUG_OBJECT (self, "%s added%s", pad_name,
      sink ? ", paired" : ", waiting for its sink pad");
  return pad;
}

void
gst_cuda_graph_batch_camera_src_release (GstCudaGraphBatch *self, GstPad *pad)
{
  g_autoptr (GstPad) sink = counterpart (self, pad, SRC_PREFIX, SINK_PREFIX);

  if (sink != NULL)
    gst_cuda_graph_batch_camera_set_src (camera_of (sink), NULL, NULL);
  gst_pad_set_active (pad, FALSE);
  gst_element_remove_pad (GST_ELEMENT (self), pad);
}

void
gst_cuda_graph_batch_camera_src_pair (GstCudaGraphBatch *self, GstPad *sink)
{
  g_autoptr (GstPad) src = counterpart (self, sink, SINK_PREFIX, SRC_PREFIX);

  if (src != NULL)
    gst_cuda_graph_batch_camera_set_src (camera_of (sink), sink, src);
}

/* The stream is gone: its branch ends (what still waited is dropped). */
void
gst_cuda_graph_batch_camera_src_unpair (GstCudaGraphBatch *self, GstPad *sink)
{
  GstCudaGraphBatchCamera *camera = camera_of (sink);
  g_autoptr (GstPad) src = gst_cuda_graph_batch_camera_ref_src (camera);

  if (src == NULL)
    return;
  gst_cuda_graph_batch_camera_set_src (camera, NULL, NULL);
  /* After a drain that took the pad before it was unpaired. */
  GST_PAD_STREAM_LOCK (src);
  gst_pad_push_event (src, gst_event_new_eos ());
  GST_PAD_STREAM_UNLOCK (src);
}

GstFlowReturn
gst_cuda_graph_batch_drain_cameras (GstCudaGraphBatch *self, GList *pads,
    gboolean all)
{
  gboolean pending = FALSE;
  /* The collect step's list of the sink pads, or (NULL) our own. */
  GList *own = pads ? NULL : gst_cuda_graph_batch_list_sink_pads (self);
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean any = FALSE;

  if (own != NULL)
    pads = own;
  for (GList *l = pads; l && !any; l = l->next)
    any = gst_cuda_graph_batch_camera_is_paired (camera_of (l->data));
  /* The batches the GPU finished since, without waiting: their frames
   * are ready (at the end, every batch). */
  if (any && all)
    gst_cuda_graph_batch_retire_all (self);
  else if (any)
    gst_cuda_graph_batch_retire_batches (self, G_MAXUINT);
  for (GList *l = pads; l; l = l->next) {
    GstCudaGraphBatchCamera *camera = camera_of (l->data);
    GstFlowReturn r = gst_cuda_graph_batch_camera_drain (camera, all);

    if (ret == GST_FLOW_OK)
      ret = r;
    /* No lock taken for a stream without a branch (the tensor-only
     * batch: every stream). */
    pending = pending
        || (any && gst_cuda_graph_batch_camera_is_paired (camera)
            && gst_cuda_graph_batch_camera_has_records (camera));
  }
  g_list_free_full (own, gst_object_unref);
  /* Frames whose batch is still running: if no input comes to run the
   * next step, the idle watch kicks the collector to drain them. */
  if (pending && !all)
    gst_cuda_graph_idle_watch_arm (&self->idle);
  return ret;
}

/* The idle watch's call: the collector thread wakes and drains
 * (gstcudagraphbatchsrc.c). */
void
gst_cuda_graph_batch_kick_idle (gpointer data)
{
  GstCudaGraphBatch *self = data;

  g_atomic_int_set (&self->idle_kicked, TRUE);
  gst_cuda_graph_batch_collector_kick (&self->collector);
}

void
gst_cuda_graph_batch_forget_cameras (GstCudaGraphBatch *self)
{
  GList *pads = gst_cuda_graph_batch_list_sink_pads (self);

  for (GList *l = pads; l; l = l->next)
    gst_cuda_graph_batch_camera_forget (camera_of (l->data));
  g_list_free_full (pads, gst_object_unref);
}
