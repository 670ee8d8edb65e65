/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_GRAPH_PINNED_ALLOCATOR \
  (gst_cuda_graph_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaGraphPinnedAllocator,
    gst_cuda_graph_pinned_allocator, GST, CUDA_GRAPH_PINNED_ALLOCATOR,
    GstAllocator)

#define GST_CUDA_GRAPH_PINNED_MEMORY_TYPE "CudaGraphPinnedMemory"

GstAllocator *gst_cuda_graph_pinned_allocator_new (GcgHostPool *pool);

gboolean gst_cuda_graph_is_pinned_memory (GstMemory *mem);

G_END_DECLS
