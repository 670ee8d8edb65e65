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
 * compositor and audiomixer do.
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

/* The element's parent class (the type is final). */
static GstElementClass *
aggregator_class (void)
{
  return GST_ELEMENT_CLASS (g_type_class_peek (GST_TYPE_AGGREGATOR));
}

GstPad *
gst_cuda_graph_batch_request_new_pad (GstElement *element,
    GstPadTemplate *templ, const gchar *name, const GstCaps *caps)
{
  GstElementClass *parent = aggregator_class ();
  GstPad *pad = parent->request_new_pad (element, templ, name, caps);

  if (pad == NULL)
    return NULL;
  GST_DEBUG_OBJECT (element, "child %s added", GST_OBJECT_NAME (pad));
  gst_child_proxy_child_added (GST_CHILD_PROXY (element), G_OBJECT (pad),
      GST_OBJECT_NAME (pad));
  return pad;
}

void
gst_cuda_graph_batch_release_pad (GstElement *element, GstPad *pad)
{
  GstElementClass *parent = aggregator_class ();

  gst_child_proxy_child_removed (GST_CHILD_PROXY (element), G_OBJECT (pad),
      GST_OBJECT_NAME (pad));
  parent->release_pad (element, pad);
}
