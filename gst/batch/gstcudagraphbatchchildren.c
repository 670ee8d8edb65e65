/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphbatch's sink pads as its children (GstChildProxy), so that a
 * launch line reaches a request pad's properties:
 *
 *   cudagraphbatch name=b sink_0::batch-strategy=last-in-batch ! ...
 *   videotestsrc ! b.sink_0
 *
 * gst_parse_launch() sets `sink_0::batch-strategy` on an element only
 * through GstChildProxy (GStreamer 1.22 to 1.26; GstAggregator does not
 * implement it, and without it the line fails with "no property").  The
 * pad does not exist yet when the property is parsed (the link after it
 * requests it), so the parser waits for the element's "child-added"
 * signal: requesting a pad emits it, releasing one "child-removed", as
 * compositor and audiomixer do.  Requests for the streams' own src pads
 * (src_N) go to gstcudagraphbatchcamerasrc.c; they are not children.
 */
#include "gstcudagraphbatch-private.h"

#define GST_CAT_DEFAULT gst_cuda_graph_batch_debug

static GObject *
get_child_by_index (GstChildProxy *proxy, guint index)
{
  GstElement *element = GST_ELEMENT (proxy);
  GObject *child;

  GST_OBJECT_LOCK (element);
  child = g_list_nth_data (element->sinkpads, index);
  if (child != NULL)
    gst_object_ref (child);
  GST_OBJECT_UNLOCK (element);
  return child;
}

static guint
get_children_count (GstChildProxy *proxy)
{
  GstElement *element = GST_ELEMENT (proxy);
  guint count;

  GST_OBJECT_LOCK (element);
  count = element->numsinkpads;
  GST_OBJECT_UNLOCK (element);
  return count;
}

/* By name among the sink pads only: the default walks the children by
 * index, taking the lock once per pad. */
static GObject *
get_child_by_name (GstChildProxy *proxy, const gchar *name)
{
  GstElement *element = GST_ELEMENT (proxy);
  GObject *child = NULL;

  GST_OBJECT_LOCK (element);
  for (GList *l = element->sinkpads; l && child == NULL; l = l->next) {
    if (g_strcmp0 (GST_OBJECT_NAME (l->data), name) == 0)
      child = gst_object_ref (l->data);
  }
  GST_OBJECT_UNLOCK (element);
  return child;
}

void
gst_cuda_graph_batch_child_proxy_init (gpointer g_iface, gpointer iface_data)
{
  GstChildProxyInterface *iface = g_iface;

  iface->get_child_by_index = get_child_by_index;
  iface->get_children_count = get_children_count;
  iface->get_child_by_name = get_child_by_name;
}

/* A free pad name: @name when asked for and free, else sink_N with the
 * lowest N not taken (under the object lock). */
static gchar *
free_pad_name (GstElement *element, const gchar *name)
{
  guint n = 0;
  gboolean taken;

  if (name != NULL) {
    for (GList *l = element->sinkpads; l; l = l->next)
      if (g_strcmp0 (GST_OBJECT_NAME (l->data), name) == 0)
        return NULL;
    return g_strdup (name);
  }
  do {
    g_autofree gchar *candidate = g_strdup_printf ("sink_%u", n);

    taken = FALSE;
    for (GList *l = element->sinkpads; l && !taken; l = l->next)
      taken = g_strcmp0 (GST_OBJECT_NAME (l->data), candidate) == 0;
    if (!taken)
      return g_steal_pointer (&candidate);
    n++;
  } while (n < G_MAXUINT);
  return NULL;
}

GstPad *
gst_cuda_graph_batch_request_new_pad (GstElement *element,
    GstPadTemplate *templ, const gchar *name, const GstCaps *caps)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (element);
  g_autofree gchar *pad_name = NULL;
  GstPad *pad;

  if (templ->direction == GST_PAD_SRC)
    return gst_cuda_graph_batch_camera_src_request (self, templ, name);
  if (templ->direction != GST_PAD_SINK)
    return NULL;
  GST_OBJECT_LOCK (element);
  pad_name = free_pad_name (element, name);
  GST_OBJECT_UNLOCK (element);
  if (pad_name == NULL)
    return NULL;
  pad = g_object_new (GST_TYPE_CUDA_GRAPH_BATCH_PAD, "name", pad_name,
      "direction", GST_PAD_SINK, "template", templ, NULL);
  gst_cuda_graph_batch_sink_setup (self, pad);
  if (!gst_element_add_pad (element, pad)) {
    gst_object_unref (pad);
    return NULL;
  }
  GST_DEBUG_OBJECT (element, "child %s added", GST_OBJECT_NAME (pad));
  gst_child_proxy_child_added (GST_CHILD_PROXY (element), G_OBJECT (pad),
      GST_OBJECT_NAME (pad));
  gst_cuda_graph_batch_forget_latency (self);
  /* Its src_N, when that was requested first. */
  gst_cuda_graph_batch_camera_src_pair (self, pad);
  return pad;
}

/* The pad's queue flushes first: its blocked chain returns, and the
 * collector, kicked, lets go of it. */
void
gst_cuda_graph_batch_release_pad (GstElement *element, GstPad *pad)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (element);

  if (GST_PAD_IS_SRC (pad)) {
    gst_cuda_graph_batch_camera_src_release (self, pad);
    return;
  }
  gst_cuda_graph_batch_camera_src_unpair (self, pad);
  gst_cuda_graph_batch_queue_set_flushing (
      gst_cuda_graph_batch_pad_get_queue (GST_CUDA_GRAPH_BATCH_PAD (pad)),
      TRUE);
  gst_child_proxy_child_removed (GST_CHILD_PROXY (element), G_OBJECT (pad),
      GST_OBJECT_NAME (pad));
  gst_element_remove_pad (element, pad);
  gst_cuda_graph_batch_forget_latency (self);
}
