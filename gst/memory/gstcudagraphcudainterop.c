/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Interop with gstreamer-cuda-1.0: one GstCudaContext shared with nvcodec's
 * elements (context type "gst.cuda.context"), GstCudaMemory read and
 * written in place.  With gstcudagraphcudapool.c (the fenced
 * GstCudaMemory pool) it is one of the two files of the plugin that
 * include the CUDA toolkit's headers (through gst/cuda/); it uses only
 * the public gcg API. */

#include "gstcudagraphcudainterop.h"
#include "gstcudagraphdebug.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif

static GstDebugCategory *interop_debug;
#define GST_CAT_DEFAULT \
  gst_cuda_graph_debug_category (&interop_debug, "cudagraphcudainterop", \
      "cudagraph interop with GStreamer CUDA memory")

gboolean
gst_cuda_graph_caps_is_cuda_memory (const GstCaps *caps)
{
  GstCapsFeatures *features;

  if (caps == NULL || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  features = gst_caps_get_features (caps, 0);
  return features
      && gst_caps_features_contains (features,
          GST_CUDA_GRAPH_CAPS_FEATURE_CUDA_MEMORY);
}

static gboolean
structure_is_cuda_memory (GstCaps *caps, guint i)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, i);

  return f
      && gst_caps_features_contains (f,
          GST_CUDA_GRAPH_CAPS_FEATURE_CUDA_MEMORY);
}

GstCaps *
gst_cuda_graph_caps_remove_cuda_memory (GstCaps *caps)
{
  caps = gst_caps_make_writable (caps);
  for (guint i = gst_caps_get_size (caps); i > 0; i--) {
    if (structure_is_cuda_memory (caps, i - 1))
      gst_caps_remove_structure (caps, i - 1);
  }
  return caps;
}

gboolean
gst_cuda_graph_caps_only_cuda_memory (GstCaps *downstream)
{
  g_autoptr (GstCaps) system = NULL;

  if (downstream == NULL || gst_caps_is_empty (downstream)
      || gst_caps_is_any (downstream))
    return FALSE;
  system = gst_cuda_graph_caps_remove_cuda_memory (gst_caps_ref (downstream));
  return gst_caps_is_empty (system);
}

gboolean
gst_cuda_graph_explain_cuda_memory_refused (GstElement *element,
    GstCaps *downstream, GcgBackend asked)
{
  if (!gst_cuda_graph_caps_only_cuda_memory (downstream))
    return FALSE;
  GST_ELEMENT_ERROR (element, CORE, NEGOTIATION,
      ("Downstream takes only CUDA memory (memory:CUDAMemory), which needs "
       "the CUDA backend (%s)",
          asked == GCG_BACKEND_CPU
              ? "backend=cpu"
              : "no usable CUDA device: the CPU backend runs"),
      ("set backend=cuda (or auto on a machine with a CUDA device), or let "
       "downstream take system memory"));
  return TRUE;
}

/* Caps order is preference order: upstream that can give both (cudaupload,
 * a decoder with a CUDA output) gives what comes first. */
GstCaps *
gst_cuda_graph_caps_cuda_memory_first (GstCaps *caps)
{
  GstCaps *result = gst_caps_new_empty ();

  for (gint pass = 0; pass < 2; pass++) {
    for (guint i = 0; i < gst_caps_get_size (caps); i++) {
      GstCapsFeatures *f = gst_caps_get_features (caps, i);

      if (structure_is_cuda_memory (caps, i) != (pass == 0))
        continue;
      gst_caps_append_structure_full (result,
          gst_structure_copy (gst_caps_get_structure (caps, i)),
          f ? gst_caps_features_copy (f) : NULL);
    }
  }
  gst_caps_unref (caps);
  return result;
}

GstCaps *
gst_cuda_graph_caps_filter (GstCaps *caps, GstCaps *filter,
    GstPadDirection direction)
{
  if (direction == GST_PAD_SRC)
    return gst_caps_intersect_full (caps, filter, GST_CAPS_INTERSECT_FIRST);
  return gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
}

GstCaps *
gst_cuda_graph_caps_add_memory_kinds (GstCaps *caps)
{
#ifdef HAVE_GST_CUDA
  GstCaps *other = gst_caps_copy (caps);
  guint i;

  for (i = 0; i < gst_caps_get_size (other); i++) {
    GstCapsFeatures *f = gst_caps_get_features (other, i);
    gboolean cuda = f
        && gst_caps_features_contains (f,
            GST_CUDA_GRAPH_CAPS_FEATURE_CUDA_MEMORY);

    gst_caps_set_features (other, i,
        cuda ? gst_caps_features_new_empty ()
             : gst_caps_features_new (GST_CUDA_GRAPH_CAPS_FEATURE_CUDA_MEMORY,
                   NULL));
  }
  return gst_caps_merge (caps, other);
#else
  return caps;
#endif
}

#ifdef HAVE_GST_CUDA

gboolean
gst_cuda_graph_cuda_load (GError **error)
{
  if (!gst_cuda_load_library ()) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_FAILED,
        "gstreamer-cuda cannot load the CUDA driver library");
    return FALSE;
  }
  gst_cuda_memory_init_once ();
  return TRUE;
}

typedef struct
{
  GstQuery *query;
  gboolean answered;
} ContextQuery;

static gboolean
peer_context_query (GstElement *element, GstPad *pad, gpointer user_data)
{
  ContextQuery *q = user_data;

  q->answered = gst_pad_peer_query (pad, q->query);
  /* TRUE goes on to the next pad: stop at the first answer. */
  return !q->answered;
}

/* The usual order (as gst_cuda_ensure_element_context() does it): ask the
 * neighbours downstream, then upstream, then the application through a
 * need-context message.  A bin that holds a context answers the message
 * synchronously through our set_context. */
void
gst_cuda_graph_cuda_find_context (GstElement *element)
{
  ContextQuery q = { gst_query_new_context (GST_CUDA_CONTEXT_TYPE), FALSE };
  GstContext *ctx = NULL;

  gst_element_foreach_src_pad (element, peer_context_query, &q);
  if (!q.answered)
    gst_element_foreach_sink_pad (element, peer_context_query, &q);
  if (q.answered) {
    gst_query_parse_context (q.query, &ctx);
    if (ctx) {
      GST_DEBUG_OBJECT (element, "a neighbour shares its CUDA context");
      gst_element_set_context (element, ctx);
    }
  }
  gst_query_unref (q.query);
  if (ctx == NULL)
    gst_element_post_message (element,
        gst_message_new_need_context (GST_OBJECT (element),
            GST_CUDA_CONTEXT_TYPE));
}

/* Nobody had a context: wrap the device's primary context (rather than
 * have gst_cuda_context_new() create one more context on the device) and
 * share it.  The GcgContext that retains the primary context rides on the
 * GstCudaContext, so the context lives as long as any element holds it. */
GstObject *
gst_cuda_graph_cuda_share_primary (GstElement *element, gint device_id,
    GError **error)
{
  g_autoptr (GcgContext) primary = gcg_context_new (MAX (device_id, 0), error);
  GstCudaContext *ctx;
  GstContext *context;

  if (primary == NULL)
    return NULL;
  ctx = gst_cuda_context_new_wrapped (gcg_context_get_handle (primary),
      gcg_context_get_device_id (primary));
  if (ctx == NULL) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_FAILED,
        "gst_cuda_context_new_wrapped() refused device %d's primary context",
        gcg_context_get_device_id (primary));
    return NULL;
  }
  g_object_set_data_full (G_OBJECT (ctx), "gcg-primary-context",
      g_steal_pointer (&primary), g_object_unref);
  GST_INFO_OBJECT (element, "sharing device %d's primary context",
      MAX (device_id, 0));
  /* As gst_cuda_ensure_element_context() does: the element keeps it, and
   * the bin hands it to every element that asks later. */
  context = gst_context_new_cuda_context (ctx);
  gst_element_set_context (element, context);
  gst_element_post_message (element,
      gst_message_new_have_context (GST_OBJECT (element), context));
  return GST_OBJECT (ctx);
}

GcgContext *
gst_cuda_graph_cuda_wrap (GstObject *gst_context, GError **error)
{
  GcgContext *context = gcg_context_new_wrapped (
      gst_cuda_context_get_handle (GST_CUDA_CONTEXT (gst_context)), error);

  /* Pinned memory, streams and chains made in @context may outlive the
   * element (buffers held downstream or by the application): each holds
   * the GcgContext, which holds the GstCudaContext and so the CUcontext.
   * Qdata goes after the GcgContext's own finalize, which still uses it. */
  if (context)
    g_object_set_data_full (G_OBJECT (context), "gst-cuda-context",
        gst_object_ref (gst_context), gst_object_unref);
  return context;
}

void
gst_cuda_graph_cuda_set_context (GstElement *element, GstContext *context,
    gint device_id, GstObject **gst_context)
{
  gst_cuda_handle_set_context (element, context, device_id,
      (GstCudaContext **) gst_context);
}

gboolean
gst_cuda_graph_cuda_context_query (GstElement *element, GstQuery *query,
    GstObject *gst_context)
{
  return gst_context
      && gst_cuda_handle_context_query (element, query,
          GST_CUDA_CONTEXT (gst_context));
}

/* Two GstCudaContexts may wrap one CUcontext (the primary one, say): the
 * handle is what makes device pointers valid in our chain. */
static gboolean
same_cuda_context (GstCudaContext *a, GstObject *b)
{
  return GST_OBJECT (a) == b
      || gst_cuda_context_get_handle (a)
      == gst_cuda_context_get_handle (GST_CUDA_CONTEXT (b));
}

GstMapFlags
gst_cuda_graph_cuda_map_flags (GstBuffer *buffer, GstObject *gst_context)
{
  GstMemory *mem;

  /* A buffer of several memories would be merged (copied) by the map. */
  if (gst_context == NULL || gst_buffer_n_memory (buffer) != 1)
    return 0;
  mem = gst_buffer_peek_memory (buffer, 0);
  if (!gst_is_cuda_memory (mem))
    return 0;
  if (!same_cuda_context (GST_CUDA_MEMORY_CAST (mem)->context, gst_context)) {
    GST_LOG ("CUDA memory of another context: copied through the host");
    return 0;
  }
  return GST_MAP_CUDA;
}

gboolean
gst_cuda_graph_cuda_is_foreign (GstBuffer *buffer, GstObject *gst_context)
{
  GstMemory *mem;

  if (gst_context == NULL || gst_buffer_n_memory (buffer) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  return gst_is_cuda_memory (mem)
      && !same_cuda_context (GST_CUDA_MEMORY_CAST (mem)->context, gst_context);
}

/* GStreamer 1.22's CUDA elements finish their work before pushing; from
 * 1.24 on, memory may carry the stream that still writes it. */
void
gst_cuda_graph_cuda_wait_ready (GstBuffer *buffer)
{
#if GST_CHECK_VERSION(1, 24, 0)
  guint i;

  for (i = 0; i < gst_buffer_n_memory (buffer); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buffer, i);

    if (gst_is_cuda_memory (mem))
      gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (mem));
  }
#endif
}

GstBufferPool *
gst_cuda_graph_cuda_pool_new (GstObject *gst_context, GstCaps *caps,
    gsize *size)
{
  GstBufferPool *pool;
  GstStructure *config;
  GstVideoInfo info;
  guint pool_size = 0;

  if (gst_context == NULL || !gst_video_info_from_caps (&info, caps))
    return NULL;
  pool = gst_cuda_buffer_pool_new (GST_CUDA_CONTEXT (gst_context));
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info),
      0, 0);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  /* The pool pitches rows for the device: its size is the one to tell. */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, &pool_size, NULL, NULL);
  gst_structure_free (config);
  *size = pool_size;
  return pool;
}

#endif
