/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/video.h>
#include <gcg/gcg.h>

#include <gcg/gcg-gst.h>

G_BEGIN_DECLS

/* A frame whose GPU work may still be running: its input stays mapped
 * (and so referenced) until the frame queue says the device is done. */
typedef struct _GstCudaGraphInFlightFrame GstCudaGraphInFlightFrame;

struct _GstCudaGraphInFlightFrame
{
  gpointer owner;               /* the element */
  GstVideoFrame in_frame;
  GstClockTime pts;
  guint64 launch_failures;      /* the owner's count when queued */
  /* With a postprocess (the chain has a results area), the output is
   * held until the frame is done: @hold set when queued, @done and
   * @failed by the queue's done callback, @outbuf (owned) once the base
   * class handed it over; @items: where the frame's items came from, as
   * the subclass said when it was queued. */
  gboolean hold;
  gboolean done;
  gboolean failed;
  GstBuffer *outbuf;
  GstCudaGraphResultsItem items[GCG_FRAME_CHAIN_MAX_ROIS];
  guint n_items;
  /* The results area (pinned host memory of @results_pool, @results_size
   * bytes), kept with the record from frame to frame: made once, and
   * again only for a chain whose results need more room. */
  gpointer results;
  gsize results_size;
  GcgHostPool *results_pool;
  /* Private to the pool and the held list. */
  GstCudaGraphInFlightFrame *next_free;
  GstCudaGraphInFlightFrame *next_held;
  gboolean from_heap;
};

/* The records of the frames in flight, made once when the frame queue is
 * (its depth, plus the one being submitted while the queue is full) and
 * reused, so that no frame allocates one.  Driven from the thread that
 * drives the frame queue, whose done callbacks return records: no lock. */
typedef struct
{
  GstCudaGraphInFlightFrame *slots;
  guint n_slots;
  GstCudaGraphInFlightFrame *free;
} GstCudaGraphInFlightPool;

void gst_cuda_graph_in_flight_pool_init (GstCudaGraphInFlightPool *pool,
    guint depth);
void gst_cuda_graph_in_flight_pool_clear (GstCudaGraphInFlightPool *pool);
GstCudaGraphInFlightFrame *gst_cuda_graph_in_flight_pool_take (
    GstCudaGraphInFlightPool *pool);
void gst_cuda_graph_in_flight_pool_give (GstCudaGraphInFlightPool *pool,
    GstCudaGraphInFlightFrame *frame);
gboolean gst_cuda_graph_in_flight_frame_ensure_results (
    GstCudaGraphInFlightFrame *frame, GcgHostPool *host_pool, gsize size,
    GError **error);

/* The outputs held until their frame is done, oldest first: a list
 * through the records themselves (no allocation). */
typedef struct
{
  GstCudaGraphInFlightFrame *head;
  GstCudaGraphInFlightFrame *tail;
  guint length;
} GstCudaGraphHeldFrames;

void gst_cuda_graph_held_frames_push (GstCudaGraphHeldFrames *held,
    GstCudaGraphInFlightFrame *frame);
GstCudaGraphInFlightFrame *gst_cuda_graph_held_frames_pop (
    GstCudaGraphHeldFrames *held);

G_END_DECLS
