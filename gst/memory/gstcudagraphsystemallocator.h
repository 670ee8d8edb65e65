/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_GRAPH_SYSTEM_ALLOCATOR \
  (gst_cuda_graph_system_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaGraphSystemAllocator,
    gst_cuda_graph_system_allocator, GST, CUDA_GRAPH_SYSTEM_ALLOCATOR,
    GstAllocator)

GstAllocator *gst_cuda_graph_system_allocator_get (void);

GstMemory *gst_cuda_graph_try_system_memory (gsize size,
    const GstAllocationParams *params);

gboolean gst_cuda_graph_is_system_allocator (GstAllocator *allocator);

G_END_DECLS
