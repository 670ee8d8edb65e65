/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gcg/gcg.h>

G_BEGIN_DECLS

/* Interop with GStreamer's own CUDA memory (gstreamer-cuda-1.0, as made and
 * taken by nvcodec's elements).  The GstCudaContext travels as a GstObject
 * so that callers need not include the CUDA toolkit's headers; without
 * HAVE_GST_CUDA every helper says "not CUDA memory" and the elements keep
 * to system memory. */

/* Same string as GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, usable without the
 * gstreamer-cuda headers. */
#define GST_CUDA_GRAPH_CAPS_FEATURE_CUDA_MEMORY "memory:CUDAMemory"

/* video/x-raw caps for @formats with @features ("" or "(memory:...)"),
 * sizes limited to what the frame chain takes, so that too large a frame
 * fails at negotiation rather than at the first buffer. */
#define GST_CUDA_GRAPH_SIZE_RANGE \
  "[ 1, " G_STRINGIFY (GCG_FRAME_CHAIN_MAX_SIZE) " ]"
#define GST_CUDA_GRAPH_VIDEO_CAPS_FEATURES(features, formats) \
  "video/x-raw" features ", format = (string) " formats ", " \
  "width = (int) " GST_CUDA_GRAPH_SIZE_RANGE ", " \
  "height = (int) " GST_CUDA_GRAPH_SIZE_RANGE ", " \
  "framerate = " GST_VIDEO_FPS_RANGE

/* A caps string of video/x-raw in system memory and, when built with
 * gstreamer-cuda, in CUDA memory, for @formats. */
#ifdef HAVE_GST_CUDA
#define GST_CUDA_GRAPH_VIDEO_CAPS(formats) \
  GST_CUDA_GRAPH_VIDEO_CAPS_FEATURES ("", formats) \
  "; " GST_CUDA_GRAPH_VIDEO_CAPS_FEATURES ( \
      "(" GST_CUDA_GRAPH_CAPS_FEATURE_CUDA_MEMORY ")", formats)
#else
#define GST_CUDA_GRAPH_VIDEO_CAPS(formats) \
  GST_CUDA_GRAPH_VIDEO_CAPS_FEATURES ("", formats)
#endif

#ifdef HAVE_GST_CUDA

/* Loads the driver for gstreamer-cuda; FALSE (error set) when it cannot. */
gboolean gst_cuda_graph_cuda_load (GError **error);

/* Asks the neighbours and the application for a GstCudaContext; one that
 * is found arrives through the element's set_context. */
void gst_cuda_graph_cuda_find_context (GstElement *element);

/* Wraps the device's primary context as a GstCudaContext and offers it to
 * the pipeline (have-context), for when nobody had one.  NULL (error set)
 * on failure. */
GstObject *gst_cuda_graph_cuda_share_primary (GstElement *element,
    gint device_id, GError **error);

/* A GcgContext on @gst_context's CUcontext, holding a reference on
 * @gst_context for as long as it (and so everything made in it) lives. */
GcgContext *gst_cuda_graph_cuda_wrap (GstObject *gst_context, GError **error);

/* GstElement::set_context and the context query, for "gst.cuda.context". */
void gst_cuda_graph_cuda_set_context (GstElement *element, GstContext *context,
    gint device_id, GstObject **gst_context);
gboolean gst_cuda_graph_cuda_context_query (GstElement *element,
    GstQuery *query, GstObject *gst_context);

/* GST_MAP_CUDA when @buffer's memory is GstCudaMemory of the CUcontext
 * @gst_context wraps (its device pointers are valid in our chain's
 * context), 0 otherwise: then it is mapped and staged as host memory,
 * which GstCudaMemory supports by copying. */
GstMapFlags gst_cuda_graph_cuda_map_flags (GstBuffer *buffer,
    GstObject *gst_context);

/* Whether @buffer is GstCudaMemory of another CUcontext than the one
 * @gst_context wraps (another device, say): mapped as host memory, each
 * frame copied through the host. */
gboolean gst_cuda_graph_cuda_is_foreign (GstBuffer *buffer,
    GstObject *gst_context);

/* Makes sure whatever wrote @buffer's CUDA memory is finished before
 * another stream reads it. */
void gst_cuda_graph_cuda_wait_ready (GstBuffer *buffer);

/* A configured pool of GstCudaMemory in @gst_context for @caps; @size gets
 * the pool's (pitched) buffer size.  NULL when it refuses the config. */
GstBufferPool *gst_cuda_graph_cuda_pool_new (GstObject *gst_context,
    GstCaps *caps, gsize *size);

#else

static inline void
gst_cuda_graph_cuda_set_context (GstElement *element, GstContext *context,
    gint device_id, GstObject **gst_context)
{
}

static inline gboolean
gst_cuda_graph_cuda_context_query (GstElement *element, GstQuery *query,
    GstObject *gst_context)
{
  return FALSE;
}

static inline GstMapFlags
gst_cuda_graph_cuda_map_flags (GstBuffer *buffer, GstObject *gst_context)
{
  return 0;
}

static inline gboolean
gst_cuda_graph_cuda_is_foreign (GstBuffer *buffer, GstObject *gst_context)
{
  return FALSE;
}

static inline void
gst_cuda_graph_cuda_wait_ready (GstBuffer *buffer)
{
}

static inline GstBufferPool *
gst_cuda_graph_cuda_pool_new (GstObject *gst_context, GstCaps *caps,
    gsize *size)
{
  return NULL;
}

#endif

/* TRUE when the first structure of @caps has the CUDA memory feature. */
gboolean gst_cuda_graph_caps_is_cuda_memory (const GstCaps *caps);

/* @caps with every structure also offered with the other memory kind
 * (system <-> CUDA), the original features first.  Without HAVE_GST_CUDA,
 * only system memory.  Takes ownership of @caps. */
GstCaps *gst_cuda_graph_caps_add_memory_kinds (GstCaps *caps);

/* @caps without the structures that have the CUDA memory feature.  Takes
 * ownership of @caps. */
GstCaps *gst_cuda_graph_caps_remove_cuda_memory (GstCaps *caps);

/* Whether @downstream (caps a peer takes) takes CUDA memory only: not
 * NULL, empty or ANY, and no structure without the CUDA memory
 * feature. */
gboolean gst_cuda_graph_caps_only_cuda_memory (GstCaps *downstream);

/* When @downstream (caps a peer takes; NULL, empty or ANY: nothing to say)
 * takes only CUDA memory, posts on @element the error that says so: CUDA
 * memory needs the CUDA backend (@asked: the backend property's value,
 * for the message), and returns TRUE.  For an element that cannot write
 * CUDA memory and failed to negotiate: the cause, not a bare
 * not-negotiated. */
gboolean gst_cuda_graph_explain_cuda_memory_refused (GstElement *element,
    GstCaps *downstream, GcgBackend asked);

/* @caps with the CUDA memory structures first, each kind in its order.
 * Takes ownership of @caps. */
GstCaps *gst_cuda_graph_caps_cuda_memory_first (GstCaps *caps);

/* @caps (what transform_caps() made for @direction) within @filter.  Caps
 * for upstream keep our order, not the filter's: an upload element asks
 * with system memory first and would otherwise never hand over CUDA
 * memory.  Returns new caps. */
GstCaps *gst_cuda_graph_caps_filter (GstCaps *caps, GstCaps *filter,
    GstPadDirection direction);

G_END_DECLS
