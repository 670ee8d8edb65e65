/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#ifdef HAVE_GST_CUDA

/* A configured pool of GStreamer CUDA memory in @gst_context (a
 * GstCudaContext) for the elements' output: video frames for video/x-raw
 * @caps (pitched like GstCudaBufferPool's, with a video meta), or one
 * contiguous block of @tensor_size bytes for tensor caps.  Its memory
 * waits for the frame the GPU is still writing into it whenever it is
 * mapped or copied (gstcudagraphfence.h), so buffers can be pushed before
 * the frame is done.  @size gets the size of a buffer.  NULL when the
 * config is refused. */
GstBufferPool *gst_cuda_graph_cuda_output_pool_new (GstObject *gst_context,
    GstCaps *caps, gsize tensor_size, guint min_buffers, gsize *size);

#else

static inline GstBufferPool *
gst_cuda_graph_cuda_output_pool_new (GstObject *gst_context, GstCaps *caps,
    gsize tensor_size, guint min_buffers, gsize *size)
{
  return NULL;
}

#endif

G_END_DECLS
