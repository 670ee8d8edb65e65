/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg.h>

G_BEGIN_DECLS

/* A fence on a GstMemory the GPU is still writing: frame @seq of @queue.
 * The elements push output buffers before their frame is done; the
 * allocators of the memories they write (pinned host memory, fenced CUDA
 * memory) call gst_cuda_graph_fence_wait() in their map and copy
 * functions, so whoever reads first waits for that frame only. */

/* Sets (or moves) @mem's fence; the fence holds a reference on @queue. */
void gst_cuda_graph_fence_set (GstMemory * mem, GcgFrameQueue * queue,
    guint64 seq);

/* Waits for @mem's fence, if any, and clears it.  Never fails the map: a
 * failed frame was reported by the element already, so only a warning is
 * logged here. */
void gst_cuda_graph_fence_wait (GstMemory * mem);

G_END_DECLS
