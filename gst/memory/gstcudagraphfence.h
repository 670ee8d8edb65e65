/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

G_BEGIN_DECLS

/* A fence on a GstMemory the GPU is still writing: frame (or batch) @seq
 * of @queue.
 * The elements push output buffers before their frame is done; the
 * allocators of the memories they write (pinned host memory, fenced CUDA
 * memory) call gst_cuda_graph_fence_wait() in their map and copy
 * functions, so whoever reads first waits for that frame only. */

/* A map flag for the element's own write of an output buffer: its work is
 * ordered on the same stream after the frame the fence names, so waiting
 * for that frame on the CPU would only serialise the frames in flight (a
 * pool hands a buffer back while its last frame still runs).  Beyond
 * GstVideoFrame's and GStreamer's CUDA/GL map flags. */
#define GST_CUDA_GRAPH_MAP_NO_FENCE (GST_MAP_FLAG_LAST << 12)

/* Who waits for the fence of an allocator's memories: its own map and
 * copy functions call gst_cuda_graph_fence_wait() (HOST: our pinned host
 * memory), and DEVICE memory's readers may also queue the wait on their
 * stream instead (our fenced CUDA memory).  The allocators say so
 * themselves, so that this file knows none of them. */
typedef enum
{
  GST_CUDA_GRAPH_FENCE_READERS_NONE,
  GST_CUDA_GRAPH_FENCE_READERS_HOST,
  GST_CUDA_GRAPH_FENCE_READERS_DEVICE,
} GstCudaGraphFenceReaders;

/* Marks the memories of @allocator, from its instance init on. */
void gst_cuda_graph_fence_mark_allocator (GstAllocator *allocator,
    GstCudaGraphFenceReaders readers);

/* Sets (or moves) @mem's fence; the fence holds a reference on @queue. */
void gst_cuda_graph_fence_set (GstMemory *mem, GcgFrameQueue *queue,
    guint64 seq);

/* After frame (or batch) @seq of @queue was queued into @outbuf, whose
 * memory is of @kind: an output the GPU may still be writing leaves now
 * when its readers wait for it (not pageable, and
 * gst_cuda_graph_fence_is_waited_for()), its fence set; any other is
 * waited for (the frames before it retired) so that it is complete before
 * it leaves.  FALSE with @error when that frame failed. */
gboolean gst_cuda_graph_fence_output (GstBuffer *outbuf, GcgMemoryKind kind,
    GcgFrameQueue *queue, guint64 seq, GError **error);

/* TRUE when @buffer is one memory whose readers wait on its fence (our
 * pinned host memory, our fenced CUDA memory): it may leave while the GPU
 * still writes it.  Any other output must be complete before it leaves. */
gboolean gst_cuda_graph_fence_is_waited_for (GstBuffer *buffer);

/* For a reader on @stream of @buffer's CUDA memory, in stream order (the
 * next element): when every memory of @buffer is our fenced CUDA memory,
 * queues @stream's wait for the frames writing them on the device and
 * returns TRUE; the buffer may then be mapped with
 * GST_CUDA_GRAPH_MAP_NO_FENCE, without the host waiting.  FALSE
 * otherwise (map it as usual). */
gboolean gst_cuda_graph_fence_wait_on (GstBuffer *buffer, GcgStream *stream);

/* Waits for @mem's fence, if any, and clears it.  Never fails the map: a
 * failed frame was reported by the element already, so only a warning is
 * logged here. */
void gst_cuda_graph_fence_wait (GstMemory *mem);

G_END_DECLS
