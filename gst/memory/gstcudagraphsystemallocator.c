/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gstcudagraphsystemallocator
 * @title: GstCudaGraphSystemAllocator
 * @short_description: system memory whose allocation may fail
 *
 * GStreamer's own system allocator aborts the process when malloc fails.
 * Output buffers are sized from caps and properties (a tensor batch may
 * be up to %GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES), so the elements allocate
 * them here instead: the memory comes from g_try_malloc() and is ordinary
 * system memory (GST_ALLOCATOR_SYSMEM, freed with g_free()), and a size
 * that cannot be had gives %NULL, which the buffer pool or the base
 * transform turns into a flow error.
 *
 * Since: 0.1
 */

#include "gstcudagraphsystemallocator.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_graph_system_allocator_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_system_allocator_debug

struct _GstCudaGraphSystemAllocator
{
  GstAllocator parent;
};

G_DEFINE_FINAL_TYPE (GstCudaGraphSystemAllocator,
    gst_cuda_graph_system_allocator, GST_TYPE_ALLOCATOR);

/**
 * gst_cuda_graph_try_system_memory:
 * @size: bytes the caller may use
 * @params: prefix, padding, alignment and flags, as for gst_allocator_alloc()
 *
 * Allocates with g_try_malloc(): on failure (or a size that overflows
 * with its prefix, padding and alignment) %NULL is returned and nothing
 * else happens.
 *
 * Returns: (transfer full) (nullable): wrapped system memory, or %NULL
 */
GstMemory *
gst_cuda_graph_try_system_memory (gsize size, const GstAllocationParams *params)
{
  gsize align = params->align, maxsize, total, offset;
  guint8 *data;

  /* catch gsize overflow */
  if (!g_size_checked_add (&maxsize, size, params->prefix)
      || !g_size_checked_add (&maxsize, maxsize, params->padding)
      || !g_size_checked_add (&total, maxsize, align))
    return NULL;
  data = g_try_malloc (MAX (total, 1));
  if (data == NULL) {
    GST_WARNING ("cannot allocate %" G_GSIZE_FORMAT " bytes", total);
    return NULL;
  }
  /* align is a mask (alignment - 1), as in GstAllocationParams. */
  offset = ((guintptr) data & align) ? align + 1 - ((guintptr) data & align)
                                     : 0;
  if ((params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED) && params->prefix)
    memset (data + offset, 0, params->prefix);
  if ((params->flags & GST_MEMORY_FLAG_ZERO_PADDED) && params->padding)
    memset (data + offset + params->prefix + size, 0, params->padding);
  return gst_memory_new_wrapped (params->flags, data, total,
      offset + params->prefix, size, data, g_free);
}

static GstMemory *
system_alloc (GstAllocator *allocator, gsize size, GstAllocationParams *params)
{
  return gst_cuda_graph_try_system_memory (size, params);
}

/* Never called: the memory belongs to GStreamer's system allocator. */
static void
system_free (GstAllocator *allocator, GstMemory *memory)
{
  g_assert_not_reached ();
}

static void
gst_cuda_graph_system_allocator_class_init (
    GstCudaGraphSystemAllocatorClass *klass)
{
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  allocator_class->alloc = GST_DEBUG_FUNCPTR (system_alloc);
  allocator_class->free = GST_DEBUG_FUNCPTR (system_free);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_graph_system_allocator_debug,
      "cudagraphsystemallocator", 0, "cudagraph system memory");
}

static void
gst_cuda_graph_system_allocator_init (GstCudaGraphSystemAllocator *self)
{
  GstAllocator *allocator = GST_ALLOCATOR (self);

  allocator->mem_type = GST_ALLOCATOR_SYSMEM;
}

/**
 * gst_cuda_graph_system_allocator_get:
 *
 * Returns: (transfer full): the process's one system allocator that fails
 *   instead of aborting
 */
GstAllocator *
gst_cuda_graph_system_allocator_get (void)
{
  static GstAllocator *allocator;

  if (g_once_init_enter (&allocator)) {
    GstAllocator *a = g_object_new (GST_TYPE_CUDA_GRAPH_SYSTEM_ALLOCATOR, NULL);

    gst_object_ref_sink (a);
    /* Kept for the life of the process, like GStreamer's own. */
    GST_OBJECT_FLAG_SET (a, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    g_once_init_leave (&allocator, a);
  }
  return gst_object_ref (allocator);
}

/**
 * gst_cuda_graph_is_system_allocator:
 * @allocator: (nullable): an allocator from an allocation query
 *
 * Returns: whether @allocator stands for plain system memory: %NULL
 *   (GStreamer's default), GStreamer's system allocator, or ours
 */
gboolean
gst_cuda_graph_is_system_allocator (GstAllocator *allocator)
{
  return allocator == NULL
      || g_strcmp0 (allocator->mem_type, GST_ALLOCATOR_SYSMEM) == 0;
}
