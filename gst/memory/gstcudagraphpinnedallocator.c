/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gstcudagraphpinnedallocator
 * @title: GstCudaGraphPinnedAllocator
 * @short_description: system memory that is pinned for the GPU
 *
 * A #GstAllocator whose memory comes from a #GcgHostPool: ordinary
 * mappable system memory, but page-locked, so the cudagraph elements copy
 * it to and from the device asynchronously at full bus speed.  Blocks go
 * back to the pool's cache when freed (pinning is slow, reuse is not).
 * When memory cannot be pinned (the driver failing, page-locked memory
 * exhausted) it hands out ordinary system memory instead, with a warning:
 * copies from it are slower, but the stream goes on.  When that cannot be
 * had either, the allocation fails (%NULL) rather than aborting.
 *
 * Since: 0.1
 */

#include "gstcudagraphpinnedallocator.h"
#include "gstcudagraphfence.h"
#include "gstcudagraphsystemallocator.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_graph_pinned_allocator_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_pinned_allocator_debug

/* Pool blocks are at least page aligned (cuMemHostAlloc). */
#define PINNED_ALIGN 4096

typedef struct
{
  GstMemory mem;
  guint8 *data;                 /* start of the pool block (NULL: shared) */
  gsize block_size;             /* size the block was allocated for */
} GstCudaGraphPinnedMemory;

struct _GstCudaGraphPinnedAllocator
{
  GstAllocator parent;

  GcgHostPool *pool;
};

G_DEFINE_FINAL_TYPE (GstCudaGraphPinnedAllocator,
    gst_cuda_graph_pinned_allocator, GST_TYPE_ALLOCATOR);

static GstMemory *
pinned_alloc (GstAllocator *allocator, gsize size, GstAllocationParams *params)
{
  GstCudaGraphPinnedAllocator *self =
      GST_CUDA_GRAPH_PINNED_ALLOCATOR (allocator);
  g_autoptr (GError) error = NULL;
  GstCudaGraphPinnedMemory *mem;
  gsize maxsize = size + params->prefix + params->padding;
  guint8 *data;

  if (params->align >= PINNED_ALIGN) {
    GST_WARNING_OBJECT (self,
        "alignment %" G_GSIZE_FORMAT " not supported, "
        "using system memory",
        params->align + 1);
    return gst_cuda_graph_try_system_memory (size, params);
  }
  data = gcg_host_pool_alloc (self->pool, maxsize, &error);
  if (data == NULL) {
    GST_WARNING_OBJECT (self,
        "pinned allocation of %" G_GSIZE_FORMAT
        " bytes failed, using system memory: %s",
        maxsize, error ? error->message : "size 0");
    return gst_cuda_graph_try_system_memory (size, params);
  }
  if (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED && params->prefix)
    memset (data, 0, params->prefix);
  if (params->flags & GST_MEMORY_FLAG_ZERO_PADDED && params->padding)
    memset (data + params->prefix + size, 0, params->padding);

  mem = g_new0 (GstCudaGraphPinnedMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (mem), params->flags, allocator, NULL,
      maxsize, params->align, params->prefix, size);
  mem->data = data;
  mem->block_size = maxsize;
  return GST_MEMORY_CAST (mem);
}

static void
pinned_free (GstAllocator *allocator, GstMemory *memory)
{
  GstCudaGraphPinnedAllocator *self =
      GST_CUDA_GRAPH_PINNED_ALLOCATOR (allocator);
  GstCudaGraphPinnedMemory *mem = (GstCudaGraphPinnedMemory *) memory;
  g_autoptr (GError) error = NULL;

  /* A shared sub-memory borrows its parent's block. */
  if (memory->parent == NULL
      && !gcg_host_pool_release (self->pool, mem->data, mem->block_size,
          &error))
    GST_ERROR_OBJECT (self, "releasing pinned memory: %s", error->message);
  g_free (mem);
}

/* The GPU may still be writing an output frame into it: wait for that
 * frame (gstcudagraphfence.h). */
static gpointer
pinned_map (GstMemory *memory, gsize maxsize, GstMapFlags flags)
{
  if (!(flags & GST_CUDA_GRAPH_MAP_NO_FENCE))
    gst_cuda_graph_fence_wait (memory);
  return ((GstCudaGraphPinnedMemory *) memory)->data;
}

static void
pinned_unmap (GstMemory *memory)
{
}

static GstMemory *
pinned_share (GstMemory *memory, gssize offset, gssize size)
{
  GstCudaGraphPinnedMemory *mem = (GstCudaGraphPinnedMemory *) memory;
  GstCudaGraphPinnedMemory *sub;
  GstMemory *parent;

  if (size == -1)
    size = memory->size - offset;
  parent = memory->parent ? memory->parent : memory;
  sub = g_new0 (GstCudaGraphPinnedMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, parent, memory->maxsize, memory->align,
      memory->offset + offset, size);
  sub->data = mem->data;
  return GST_MEMORY_CAST (sub);
}

static void
gst_cuda_graph_pinned_allocator_finalize (GObject *object)
{
  GstCudaGraphPinnedAllocator *self = GST_CUDA_GRAPH_PINNED_ALLOCATOR (object);

  g_clear_object (&self->pool);

  G_OBJECT_CLASS (gst_cuda_graph_pinned_allocator_parent_class)
      ->finalize (object);
}

static void
gst_cuda_graph_pinned_allocator_class_init (
    GstCudaGraphPinnedAllocatorClass *klass)
{
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = gst_cuda_graph_pinned_allocator_finalize;
  allocator_class->alloc = GST_DEBUG_FUNCPTR (pinned_alloc);
  allocator_class->free = GST_DEBUG_FUNCPTR (pinned_free);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_graph_pinned_allocator_debug,
      "cudagraphpinnedallocator", 0, "cudagraph pinned host memory");
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_GRAPH_PINNED_ALLOCATOR, 0);
}

static void
gst_cuda_graph_pinned_allocator_init (GstCudaGraphPinnedAllocator *self)
{
  GstAllocator *allocator = GST_ALLOCATOR (self);

  allocator->mem_type = GST_CUDA_GRAPH_PINNED_MEMORY_TYPE;
  allocator->mem_map = pinned_map;
  allocator->mem_unmap = pinned_unmap;
  allocator->mem_share = pinned_share;
  gst_cuda_graph_fence_mark_allocator (allocator,
      GST_CUDA_GRAPH_FENCE_READERS_HOST);
  /* Mapping is cheap (it waits only for a fence), so copies and is_span
   * can use the defaults, which map.  Not
   * CUSTOM_ALLOC: any element may allocate from it (that is what proposing
   * it upstream is for). */
}

/**
 * gst_cuda_graph_is_pinned_memory:
 * @mem: a #GstMemory
 *
 * Returns: whether @mem is page-locked memory from a pinned allocator (the
 *   device copies it by DMA, asynchronously)
 */
gboolean
gst_cuda_graph_is_pinned_memory (GstMemory *mem)
{
  return mem->allocator && GST_IS_CUDA_GRAPH_PINNED_ALLOCATOR (mem->allocator);
}

/**
 * gst_cuda_graph_pinned_allocator_new:
 * @pool: the #GcgHostPool to take blocks from
 *
 * Returns: (transfer full): a new allocator holding a reference on @pool
 */
GstAllocator *
gst_cuda_graph_pinned_allocator_new (GcgHostPool *pool)
{
  GstCudaGraphPinnedAllocator *self;

  g_return_val_if_fail (GCG_IS_HOST_POOL (pool), NULL);

  self = g_object_new (GST_TYPE_CUDA_GRAPH_PINNED_ALLOCATOR, NULL);
  gst_object_ref_sink (self);
  self->pool = g_object_ref (pool);
  return GST_ALLOCATOR (self);
}
