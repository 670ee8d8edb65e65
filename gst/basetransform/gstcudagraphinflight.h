/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/video.h>

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
  /* Private to the pool. */
  GstCudaGraphInFlightFrame *next_free;
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

G_END_DECLS
