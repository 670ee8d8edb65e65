/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-allocator.h"
#include "gcg-frame-batch.h"
#include "gcg-frame-chain.h"
#include "gcg-host-pool.h"

G_BEGIN_DECLS

/**
 * GcgMemoryKind:
 * @GCG_MEMORY_KIND_HOST: ordinary (pageable) host memory: staged through
 *   the slot's pinned buffer
 * @GCG_MEMORY_KIND_HOST_PINNED: page-locked host memory (#GcgHostPool,
 *   cuMemHostAlloc): copied by DMA directly, asynchronously
 * @GCG_MEMORY_KIND_DEVICE: device memory of the queue's context: read or
 *   written in place
 *
 * Where the planes of a frame are, so a #GcgFrameQueue knows how to move
 * them.
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_MEMORY_KIND_HOST,
  GCG_MEMORY_KIND_HOST_PINNED,
  GCG_MEMORY_KIND_DEVICE,
} GcgMemoryKind;

/**
 * GcgFramePlanes:
 * @kind: where the planes are
 * @n_planes: planes in use (1–3)
 * @data: address of each plane (a host pointer as an integer, or a device
 *   pointer)
 * @stride: bytes per row of each plane
 * @size: bytes of each plane the chain may touch (stride × rows); the
 *   caller has checked them against the memory
 *
 * One frame's input or output memory, as given to gcg_frame_queue_submit().
 * Tensors are one plane.
 *
 * Since: 0.1
 */
typedef struct
{
  GcgMemoryKind kind;
  guint n_planes;
  guint64 data[3];
  gint stride[3];
  gsize size[3];
} GcgFramePlanes;

#define GCG_TYPE_FRAME_PLANES (gcg_frame_planes_get_type ())
GCG_API
GType gcg_frame_planes_get_type (void) G_GNUC_CONST;

GCG_API
GcgFramePlanes *gcg_frame_planes_copy (const GcgFramePlanes *planes);

GCG_API
void gcg_frame_planes_free (GcgFramePlanes *planes);

#define GCG_TYPE_FRAME_QUEUE (gcg_frame_queue_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgFrameQueue, gcg_frame_queue, GCG, FRAME_QUEUE, GObject)

/**
 * GcgFrameDoneFunc:
 * @queue: the queue
 * @seq: the frame's sequence number (from gcg_frame_queue_submit())
 * @error: (nullable): why the frame failed (%GCG_ERROR_CANCELLED when it
 *   was given up), %NULL when its output is complete
 * @user_data: the data given with the frame
 *
 * Called once per submitted frame, in submission order, on the thread that
 * drives the queue (inside gcg_frame_queue_submit(), _poll(), _wait(),
 * _drain() or _cancel()), once the device no longer uses the frame's
 * memory: the caller may release it now.
 *
 * Since: 0.1
 */
typedef void (*GcgFrameDoneFunc) (GcgFrameQueue *queue, guint64 seq,
    const GError *error, gpointer user_data);

GCG_API
GcgFrameQueue *gcg_frame_queue_new (GcgStream *stream, GcgAllocator *allocator,
    GcgHostPool *host_pool, guint depth, GError **error);

GCG_API
guint gcg_frame_queue_get_depth (GcgFrameQueue *self);

GCG_API
GcgStream *gcg_frame_queue_get_stream (GcgFrameQueue *self);

GCG_API
gboolean gcg_frame_queue_submit (GcgFrameQueue *self, GcgFrameChain *chain,
    GcgFrameParams *params, const GcgFramePlanes *in, const GcgFramePlanes *out,
    GcgFrameDoneFunc done, gpointer user_data, guint64 *seq, GError **error);

GCG_API
gboolean gcg_frame_queue_submit_frame (GcgFrameQueue *self,
    GcgFrameBatch *frame, GcgFrameParams *params, const GcgFramePlanes *in,
    const GcgFramePlanes *out, GcgFrameDoneFunc done, gpointer user_data,
    guint64 *seq, GError **error);

GCG_API
gboolean gcg_frame_queue_submit_batch (GcgFrameQueue *self,
    GcgFrameBatch *batch, guint n_sources, const GcgFrameBatchSource *sources,
    GcgFrameParams *params, const GcgFramePlanes *in, const GcgFramePlanes *out,
    GcgFrameDoneFunc done, gpointer user_data, guint *n_items, guint64 *seq,
    GError **error);

GCG_API
guint gcg_frame_queue_poll (GcgFrameQueue *self);

GCG_API
gboolean gcg_frame_queue_wait (GcgFrameQueue *self, guint64 seq,
    GError **error);

GCG_API
void gcg_frame_queue_drain (GcgFrameQueue *self);

GCG_API
void gcg_frame_queue_cancel (GcgFrameQueue *self);

GCG_API
gboolean gcg_frame_queue_wait_ready (GcgFrameQueue *self, guint64 seq,
    GError **error);

GCG_API
gboolean gcg_frame_queue_wait_ready_on (GcgFrameQueue *self, guint64 seq,
    GcgStream *waiter, GError **error);

GCG_API
guint gcg_frame_queue_get_in_flight (GcgFrameQueue *self);

GCG_API
guint64 gcg_frame_queue_get_submitted (GcgFrameQueue *self);

GCG_API
guint64 gcg_frame_queue_get_slot_waits (GcgFrameQueue *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgFramePlanes, gcg_frame_planes_free)

G_END_DECLS
