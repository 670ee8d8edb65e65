/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A bounded free list of in-flight frame records.  The frame queue holds
 * at most its depth of frames, and one more record is taken before a
 * submit that retires the oldest: depth + 1 records never run out.  A
 * take past them (a bug elsewhere, or a pool never initialised) falls
 * back to the heap, with a warning, rather than failing the frame.
 */
#include "gstcudagraphinflight.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_graph_base_transform_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_base_transform_debug

void
gst_cuda_graph_in_flight_pool_init (GstCudaGraphInFlightPool *pool, guint depth)
{
  gst_cuda_graph_in_flight_pool_clear (pool);
  pool->n_slots = depth + 1;
  pool->slots = g_new0 (GstCudaGraphInFlightFrame, pool->n_slots);
  for (guint i = 0; i < pool->n_slots; i++) {
    pool->slots[i].next_free = pool->free;
    pool->free = &pool->slots[i];
  }
}

/* Every record must be back (the queue cancelled or drained first). */
void
gst_cuda_graph_in_flight_pool_clear (GstCudaGraphInFlightPool *pool)
{
  g_clear_pointer (&pool->slots, g_free);
  pool->n_slots = 0;
  pool->free = NULL;
}

/* A record whose fields the caller sets (in_frame by its map). */
GstCudaGraphInFlightFrame *
gst_cuda_graph_in_flight_pool_take (GstCudaGraphInFlightPool *pool)
{
  GstCudaGraphInFlightFrame *frame = pool->free;

  if (frame == NULL) {
    GST_WARNING ("all %u in-flight records in use: allocating one",
        pool->n_slots);
    frame = g_new0 (GstCudaGraphInFlightFrame, 1);
    frame->from_heap = TRUE;
    return frame;
  }
  pool->free = frame->next_free;
  frame->next_free = NULL;
  return frame;
}

void
gst_cuda_graph_in_flight_pool_give (GstCudaGraphInFlightPool *pool,
    GstCudaGraphInFlightFrame *frame)
{
  if (frame->from_heap) {
    g_free (frame);
    return;
  }
  frame->next_free = pool->free;
  pool->free = frame;
}
