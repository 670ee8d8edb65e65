/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Output buffers in GStreamer's CUDA memory that may leave the element
 * before the GPU has written them.
 *
 * GStreamer 1.22's GstCudaMemory has no stream of its own: its users
 * expect the data to be ready when a buffer arrives.  So the memory comes
 * from a subclass of GstCudaAllocator whose map and copy first wait for
 * the memory's fence (the frame still being written): a CUDA element
 * mapping it with GST_MAP_CUDA, a download for the CPU, or a deep copy
 * all see finished data, and each waits for that one frame only.
 */
#ifdef HAVE_GST_CUDA

#include "gstcudagraphcudapool.h"
#include "gstcudagraphfence.h"

#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_graph_cuda_pool_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_cuda_pool_debug

/* --- the fenced allocator ------------------------------------------------ */

typedef struct
{
  GstCudaAllocator parent;

  GstMemoryMapFunction parent_map;
  GstMemoryCopyFunction parent_copy;
} GstCudaGraphFencedAllocator;

typedef struct
{
  GstCudaAllocatorClass parent_class;
} GstCudaGraphFencedAllocatorClass;

static GType gst_cuda_graph_fenced_allocator_get_type (void);
G_DEFINE_TYPE (GstCudaGraphFencedAllocator, gst_cuda_graph_fenced_allocator,
    GST_TYPE_CUDA_ALLOCATOR);

static gpointer
fenced_map (GstMemory *mem, gsize maxsize, GstMapFlags flags)
{
  GstCudaGraphFencedAllocator *self =
      (GstCudaGraphFencedAllocator *) mem->allocator;

  if (!(flags & GST_CUDA_GRAPH_MAP_NO_FENCE))
    gst_cuda_graph_fence_wait (mem);
  return self->parent_map (mem, maxsize, flags & ~GST_CUDA_GRAPH_MAP_NO_FENCE);
}

static GstMemory *
fenced_copy (GstMemory *mem, gssize offset, gssize size)
{
  GstCudaGraphFencedAllocator *self =
      (GstCudaGraphFencedAllocator *) mem->allocator;

  gst_cuda_graph_fence_wait (mem);
  return self->parent_copy (mem, offset, size);
}

static void
gst_cuda_graph_fenced_allocator_class_init (
    GstCudaGraphFencedAllocatorClass *klass)
{
}

/* GstCudaAllocator sets its memory functions per instance: wrap them. */
static void
gst_cuda_graph_fenced_allocator_init (GstCudaGraphFencedAllocator *self)
{
  GstAllocator *allocator = GST_ALLOCATOR (self);

  self->parent_map = allocator->mem_map;
  self->parent_copy = allocator->mem_copy;
  allocator->mem_map = fenced_map;
  allocator->mem_copy = fenced_copy;
  gst_cuda_graph_fence_mark_allocator (allocator,
      GST_CUDA_GRAPH_FENCE_READERS_DEVICE);
}

/* One for the process: allocators are stateless here. */
static GstAllocator *
fenced_allocator (void)
{
  static GstAllocator *allocator = NULL;

  if (g_once_init_enter (&allocator)) {
    GstAllocator *a =
        g_object_new (gst_cuda_graph_fenced_allocator_get_type (), NULL);

    gst_object_ref_sink (a);
    GST_OBJECT_FLAG_SET (a, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    g_once_init_leave (&allocator, a);
  }
  return allocator;
}

/* --- the pool ------------------------------------------------------------ */

typedef struct
{
  GstBufferPool parent;

  GstCudaContext *context;
  GstVideoInfo info;            /* of the frame, or of the tensor's block */
  gboolean video;
  gsize size;
} GstCudaGraphCudaOutputPool;

typedef struct
{
  GstBufferPoolClass parent_class;
} GstCudaGraphCudaOutputPoolClass;

static GType gst_cuda_graph_cuda_output_pool_get_type (void);
G_DEFINE_TYPE (GstCudaGraphCudaOutputPool, gst_cuda_graph_cuda_output_pool,
    GST_TYPE_BUFFER_POOL);

/* A tensor is one row of RGBA "pixels" (GstCudaMemory takes a handful
 * of video formats only, GRAY8 not among them): the pitched allocation is
 * then one contiguous block of at least @size bytes. */
static gboolean
tensor_info (GstVideoInfo *info, gsize size)
{
  if (size == 0 || size > G_MAXINT / 2)
    return FALSE;
  return gst_video_info_set_format (info, GST_VIDEO_FORMAT_RGBA,
      (guint) ((size + 3) / 4), 1);
}

static GstMemory *
output_pool_alloc_memory (GstCudaGraphCudaOutputPool *self)
{
  /* GStreamer 1.24 gave the call a stream to order the memory's own work
   * on: none here, our fence orders it. */
#if GST_CHECK_VERSION(1, 24, 0)
  return gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (fenced_allocator ()),
      self->context, NULL, &self->info);
#else
  return gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (fenced_allocator ()),
      self->context, &self->info);
#endif
}

/* A video frame's rows are pitched for the device: one trial allocation
 * tells the buffer size the pool must announce (the pool resizes every
 * returning buffer to it), as GstCudaBufferPool does. */
static gboolean
pitched_size (GstCudaGraphCudaOutputPool *self, gsize *size)
{
  GstMemory *mem = output_pool_alloc_memory (self);

  if (mem == NULL)
    return FALSE;
  *size = mem->size;
  gst_memory_unref (mem);
  return TRUE;
}

static gboolean
output_pool_set_config (GstBufferPool *pool, GstStructure *config)
{
  GstCudaGraphCudaOutputPool *self = (GstCudaGraphCudaOutputPool *) pool;
  GstCaps *caps = NULL;
  guint size, min, max;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max)
      || caps == NULL || gst_caps_is_empty (caps))
    return FALSE;
  self->video =
      gst_structure_has_name (gst_caps_get_structure (caps, 0), "video/x-raw");
  if (self->video && !gst_video_info_from_caps (&self->info, caps))
    return FALSE;
  if (!self->video && !tensor_info (&self->info, size)) {
    GST_WARNING_OBJECT (pool, "cannot hold a %u-byte tensor", size);
    return FALSE;
  }
  self->size = size;
  if (self->video
      && (!pitched_size (self, &self->size) || self->size > G_MAXUINT)) {
    GST_WARNING_OBJECT (pool,
        "cannot allocate CUDA memory for %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
  gst_buffer_pool_config_set_params (config, caps, (guint) self->size, min,
      max);
  return GST_BUFFER_POOL_CLASS (gst_cuda_graph_cuda_output_pool_parent_class)
      ->set_config (pool, config);
}

static GstFlowReturn
output_pool_alloc_buffer (GstBufferPool *pool, GstBuffer **buffer,
    GstBufferPoolAcquireParams *params)
{
  GstCudaGraphCudaOutputPool *self = (GstCudaGraphCudaOutputPool *) pool;
  GstMemory *mem = output_pool_alloc_memory (self);
  GstVideoInfo *minfo;
  GstBuffer *buf;

  if (mem == NULL) {
    GST_ERROR_OBJECT (pool, "cannot allocate CUDA memory");
    return GST_FLOW_ERROR;
  }
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  minfo = &GST_CUDA_MEMORY_CAST (mem)->info;
  if (self->video)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (minfo), GST_VIDEO_INFO_WIDTH (minfo),
        GST_VIDEO_INFO_HEIGHT (minfo), GST_VIDEO_INFO_N_PLANES (minfo),
        minfo->offset, minfo->stride);
  else
    gst_buffer_set_size (buf, self->size);
  *buffer = buf;
  return GST_FLOW_OK;
}

static void
output_pool_finalize (GObject *object)
{
  gst_clear_object (&((GstCudaGraphCudaOutputPool *) object)->context);
  G_OBJECT_CLASS (gst_cuda_graph_cuda_output_pool_parent_class)
      ->finalize (object);
}

static void
gst_cuda_graph_cuda_output_pool_class_init (
    GstCudaGraphCudaOutputPoolClass *klass)
{
  GstBufferPoolClass *pool_class = GST_BUFFER_POOL_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = output_pool_finalize;
  pool_class->set_config = output_pool_set_config;
  pool_class->alloc_buffer = output_pool_alloc_buffer;
  GST_DEBUG_CATEGORY_INIT (gst_cuda_graph_cuda_pool_debug, "cudagraphcudapool",
      0, "cudagraph CUDA output pool");
}

static void
gst_cuda_graph_cuda_output_pool_init (GstCudaGraphCudaOutputPool *self)
{
}

GstBufferPool *
gst_cuda_graph_cuda_output_pool_new (GstObject *gst_context, GstCaps *caps,
    gsize tensor_size, guint min_buffers, gsize *size)
{
  GstCudaGraphCudaOutputPool *self;
  GstStructure *config;

  if (gst_context == NULL || tensor_size > G_MAXUINT)
    return NULL;
  self = g_object_new (gst_cuda_graph_cuda_output_pool_get_type (), NULL);
  gst_object_ref_sink (self);
  self->context = GST_CUDA_CONTEXT (gst_object_ref (gst_context));
  config = gst_buffer_pool_get_config (GST_BUFFER_POOL (self));
  gst_buffer_pool_config_set_params (config, caps, (guint) tensor_size,
      min_buffers, 0);
  if (!gst_buffer_pool_set_config (GST_BUFFER_POOL (self), config)) {
    gst_object_unref (self);
    return NULL;
  }
  *size = self->size;
  return GST_BUFFER_POOL (self);
}

#endif
