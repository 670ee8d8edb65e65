/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A bounded free list of in-flight frame records.  The frame queue holds
 * at most its depth of frames, and one more record is taken before a
 * submit that retires the oldest: depth + 1 records never run out.  A
 * take past them (a bug elsewhere, or a pool never initialised) falls
 * back to the heap, with a warning, rather than failing the frame.
 *
 * With a postprocess each record also keeps its frame's results area,
 * pinned host memory from the device's GcgHostPool made the first time
 * the record needs one and kept until the pool is cleared (one area per
 * frame in flight, none allocated per frame); and the outputs held until
 * their frame is done are listed through the records.
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

static void
release_results (GstCudaGraphInFlightFrame *frame)
{
  g_autoptr (GError) error = NULL;

  if (frame->results != NULL
      && !gcg_host_pool_release (frame->results_pool, frame->results,
          frame->results_size, &error))
    GST_WARNING ("cannot release a results area: %s", error->message);
  frame->results = NULL;
  frame->results_size = 0;
  g_clear_object (&frame->results_pool);
}

/* Every record must be back (the queue cancelled or drained first, the
 * held outputs dropped). */
void
gst_cuda_graph_in_flight_pool_clear (GstCudaGraphInFlightPool *pool)
{
  for (guint i = 0; i < pool->n_slots; i++)
    release_results (&pool->slots[i]);
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
  g_warn_if_fail (frame->outbuf == NULL);
  if (frame->from_heap) {
    release_results (frame);
    g_free (frame);
    return;
  }
  frame->next_free = pool->free;
  pool->free = frame;
}

/* Gives @frame a results area of at least @size bytes from @host_pool
 * (the one it has, when large enough). */
gboolean
gst_cuda_graph_in_flight_frame_ensure_results (GstCudaGraphInFlightFrame *frame,
    GcgHostPool *host_pool, gsize size, GError **error)
{
  gpointer area;

  if (frame->results != NULL && frame->results_pool == host_pool
      && frame->results_size >= size)
    return TRUE;
  area = gcg_host_pool_alloc (host_pool, size, error);
  if (area == NULL)
    return FALSE;
  release_results (frame);
  frame->results = area;
  frame->results_size = size;
  frame->results_pool = g_object_ref (host_pool);
  return TRUE;
}

void
gst_cuda_graph_held_frames_push (GstCudaGraphHeldFrames *held,
    GstCudaGraphInFlightFrame *frame)
{
  frame->next_held = NULL;
  if (held->tail != NULL)
    held->tail->next_held = frame;
  else
    held->head = frame;
  held->tail = frame;
  held->length++;
}

/* The oldest, or NULL. */
GstCudaGraphInFlightFrame *
gst_cuda_graph_held_frames_pop (GstCudaGraphHeldFrames *held)
{
  GstCudaGraphInFlightFrame *frame = held->head;

  if (frame == NULL)
    return NULL;
  held->head = frame->next_held;
  if (held->head == NULL)
    held->tail = NULL;
  frame->next_held = NULL;
  held->length--;
  return frame;
}
