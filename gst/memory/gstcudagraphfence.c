/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Fences ride on the memory as qdata, so that any GstMemory (ours, or
 * GStreamer's CUDA memory made by our allocator) can carry one without a
 * struct of its own.  Setting one per frame allocates only the first time
 * a memory is used: the pool hands the same memories back. */
#include "gstcudagraphfence.h"
#include "gstcudagraphdebug.h"

static GstDebugCategory *fence_debug;
#define GST_CAT_DEFAULT \
  gst_cuda_graph_debug_category (&fence_debug, "cudagraphfence", \
      "cudagraph output fences")

/* A frame (or a batch) of a queue is pending, or nothing. */
typedef struct
{
  GMutex lock;
  GcgFrameQueue *queue;
  guint64 seq;
} Fence;

static GQuark
fence_quark (void)
{
  static gsize quark = 0;

  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark, g_quark_from_static_string ("gcg-fence"));
  return (GQuark) quark;
}

static void
fence_free (gpointer data)
{
  Fence *fence = data;

  g_clear_object (&fence->queue);
  g_mutex_clear (&fence->lock);
  g_free (fence);
}

/* As G_DEFINE_QUARK, static: the allocators' qdata. */
static GQuark
fence_readers_quark (void)
{
  static GQuark quark;

  if (G_UNLIKELY (quark == 0))
    quark = g_quark_from_static_string ("gst-cuda-graph-fence-readers");
  return quark;
}

void
gst_cuda_graph_fence_mark_allocator (GstAllocator *allocator,
    GstCudaGraphFenceReaders readers)
{
  g_object_set_qdata (G_OBJECT (allocator), fence_readers_quark (),
      GUINT_TO_POINTER (readers));
}

/* What @mem's allocator said of its readers. */
static GstCudaGraphFenceReaders
readers_of (GstMemory *mem)
{
  if (mem->allocator == NULL)
    return GST_CUDA_GRAPH_FENCE_READERS_NONE;
  return GPOINTER_TO_UINT (g_object_get_qdata (G_OBJECT (mem->allocator),
      fence_readers_quark ()));
}

/* Sub-memories share their parent's data, so they share its fence. */
static GstMemory *
fence_owner (GstMemory *mem)
{
  return mem->parent ? mem->parent : mem;
}

static Fence *
get_fence (GstMemory *mem)
{
  GstMiniObject *obj = GST_MINI_OBJECT_CAST (fence_owner (mem));
  Fence *fence = gst_mini_object_get_qdata (obj, fence_quark ());

  if (fence == NULL) {
    fence = g_new0 (Fence, 1);
    g_mutex_init (&fence->lock);
    gst_mini_object_set_qdata (obj, fence_quark (), fence, fence_free);
  }
  return fence;
}

void
gst_cuda_graph_fence_set (GstMemory *mem, GcgFrameQueue *queue, guint64 seq)
{
  Fence *fence = get_fence (mem);
  GcgFrameQueue *old;

  g_mutex_lock (&fence->lock);
  old = fence->queue;
  fence->queue = old == queue ? old : g_object_ref (queue);
  fence->seq = seq;
  g_mutex_unlock (&fence->lock);
  if (old != queue)
    g_clear_object (&old);
}

void
gst_cuda_graph_fence_wait (GstMemory *mem)
{
  GstMiniObject *obj = GST_MINI_OBJECT_CAST (fence_owner (mem));
  Fence *fence = gst_mini_object_get_qdata (obj, fence_quark ());
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameQueue) queue = NULL;
  guint64 seq;

  if (fence == NULL)
    return;
  /* Two readers may map at once: each waits; the fence is cleared only
   * once the frame it named is done. */
  g_mutex_lock (&fence->lock);
  queue = fence->queue ? g_object_ref (fence->queue) : NULL;
  seq = fence->seq;
  g_mutex_unlock (&fence->lock);
  if (queue == NULL)
    return;
  if (!gcg_frame_queue_wait_ready (queue, seq, &error))
    GST_WARNING ("waiting for frame %" G_GUINT64_FORMAT " of %p: %s", seq, mem,
        error->message);
  g_mutex_lock (&fence->lock);
  if (fence->queue == queue && fence->seq == seq)
    g_clear_object (&fence->queue);
  g_mutex_unlock (&fence->lock);
}

/* The stream wait of one memory: FALSE when it is not our fenced CUDA
 * memory or the wait could not be queued. */
static gboolean
memory_wait_on (GstMemory *mem, GcgStream *stream)
{
  GstMiniObject *obj = GST_MINI_OBJECT_CAST (fence_owner (mem));
  Fence *fence;
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameQueue) queue = NULL;
  guint64 seq;

  if (readers_of (mem) != GST_CUDA_GRAPH_FENCE_READERS_DEVICE)
    return FALSE;
  fence = gst_mini_object_get_qdata (obj, fence_quark ());
  if (fence == NULL)
    return TRUE;
  g_mutex_lock (&fence->lock);
  queue = fence->queue ? g_object_ref (fence->queue) : NULL;
  seq = fence->seq;
  g_mutex_unlock (&fence->lock);
  if (queue == NULL
      || gcg_frame_queue_wait_ready_on (queue, seq, stream, &error))
    return TRUE;
  GST_WARNING ("queueing the wait for frame %" G_GUINT64_FORMAT " of %p: "
               "%s",
      seq, mem, error->message);
  return FALSE;
}

gboolean
gst_cuda_graph_fence_wait_on (GstBuffer *buffer, GcgStream *stream)
{
  guint n = gst_buffer_n_memory (buffer);

  for (guint i = 0; i < n; i++)
    if (!memory_wait_on (gst_buffer_peek_memory (buffer, i), stream))
      return FALSE;
  return n > 0;
}

gboolean
gst_cuda_graph_fence_output (GstBuffer *outbuf, GcgMemoryKind kind,
    GcgFrameQueue *queue, guint64 seq, GError **error)
{
  if (kind != GCG_MEMORY_KIND_HOST
      && gst_cuda_graph_fence_is_waited_for (outbuf)) {
    gst_cuda_graph_fence_set (gst_buffer_peek_memory (outbuf, 0), queue, seq);
    return TRUE;
  }
  return gcg_frame_queue_wait (queue, seq, error);
}

gboolean
gst_cuda_graph_fence_is_waited_for (GstBuffer *buffer)
{
  GstMemory *mem;

  if (gst_buffer_n_memory (buffer) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  return readers_of (mem) != GST_CUDA_GRAPH_FENCE_READERS_NONE;
}
