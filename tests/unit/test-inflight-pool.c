/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The in-flight frame records of the single-frame elements
 * (gst/gstcudagraphinflight.c): a queue of depth N never needs more than
 * N + 1 of them at once, all from the pool made at start; records come
 * back for reuse in any order; a take past the pool still gives a record
 * (from the heap) instead of failing the frame.  The outputs held for
 * their results (a postprocess) leave the held list oldest first, the
 * list threaded through the records themselves.
 */
#include <gst/gst.h>

#include "gcg-gst-test-util.h"
#include "../../gst/basetransform/gstcudagraphinflight.h"

GST_DEBUG_CATEGORY (gst_cuda_graph_base_transform_debug);

static gboolean
in_pool (const GstCudaGraphInFlightPool *pool,
    const GstCudaGraphInFlightFrame *frame)
{
  return frame >= pool->slots && frame < pool->slots + pool->n_slots;
}

/* depth + 1 records, all distinct and from the pool, then one from the
 * heap; given back in another order, they serve again from the pool. */
static void
test_bounded (void)
{
  GstCudaGraphInFlightPool pool = { 0 };
  GstCudaGraphInFlightFrame *taken[8], *extra;
  const guint depth = 4;

  gst_cuda_graph_in_flight_pool_init (&pool, depth);
  g_assert_cmpuint (pool.n_slots, ==, depth + 1);
  for (guint round = 0; round < 3; round++) {
    for (guint i = 0; i <= depth; i++) {
      taken[i] = gst_cuda_graph_in_flight_pool_take (&pool);
      g_assert_true (in_pool (&pool, taken[i]));
      g_assert_false (taken[i]->from_heap);
      for (guint j = 0; j < i; j++)
        g_assert_true (taken[i] != taken[j]);
    }
    extra = gst_cuda_graph_in_flight_pool_take (&pool);
    g_assert_nonnull (extra);
    g_assert_true (extra->from_heap);
    g_assert_false (in_pool (&pool, extra));
    gst_cuda_graph_in_flight_pool_give (&pool, extra);
    /* Back in an order that is not the taking order. */
    for (guint i = 0; i <= depth; i++)
      gst_cuda_graph_in_flight_pool_give (&pool,
          taken[(i * 3 + round) % (depth + 1)]);
  }
  gst_cuda_graph_in_flight_pool_clear (&pool);
  g_assert_null (pool.slots);
  g_assert_null (pool.free);
}

/* A frame queue of depth 1: one record out while the next is taken. */
static void
test_depth_one (void)
{
  GstCudaGraphInFlightPool pool = { 0 };
  GstCudaGraphInFlightFrame *a, *b;

  gst_cuda_graph_in_flight_pool_init (&pool, 1);
  for (guint i = 0; i < 100; i++) {
    a = gst_cuda_graph_in_flight_pool_take (&pool);
    b = gst_cuda_graph_in_flight_pool_take (&pool);
    g_assert_true (in_pool (&pool, a) && in_pool (&pool, b) && a != b);
    gst_cuda_graph_in_flight_pool_give (&pool, a);
    gst_cuda_graph_in_flight_pool_give (&pool, b);
  }
  gst_cuda_graph_in_flight_pool_clear (&pool);
}

/* Made again (a restart with another in-flight): the old records go. */
static void
test_reinit (void)
{
  GstCudaGraphInFlightPool pool = { 0 };
  GstCudaGraphInFlightFrame *f;

  gst_cuda_graph_in_flight_pool_init (&pool, 2);
  gst_cuda_graph_in_flight_pool_init (&pool, 8);
  g_assert_cmpuint (pool.n_slots, ==, 9);
  for (guint i = 0; i < 9; i++) {
    f = gst_cuda_graph_in_flight_pool_take (&pool);
    g_assert_true (in_pool (&pool, f));
  }
  gst_cuda_graph_in_flight_pool_clear (&pool);
}

/* A queue of depth 3 with outputs held: records go on the held list as
 * they are queued and come off it in that order, interleaved with new
 * ones, never more than depth + 1 out of the pool. */
static void
test_held_order (void)
{
  GstCudaGraphInFlightPool pool = { 0 };
  GstCudaGraphHeldFrames held = { 0 };
  GstCudaGraphInFlightFrame *f;
  const guint depth = 3;
  guint64 next_out = 0;

  gst_cuda_graph_in_flight_pool_init (&pool, depth);
  g_assert_null (gst_cuda_graph_held_frames_pop (&held));
  for (guint64 i = 0; i < 50; i++) {
    f = gst_cuda_graph_in_flight_pool_take (&pool);
    g_assert_true (in_pool (&pool, f));
    f->pts = i;
    gst_cuda_graph_held_frames_push (&held, f);
    /* The queue is full: its oldest frame is done and leaves. */
    while (held.length > depth) {
      f = gst_cuda_graph_held_frames_pop (&held);
      g_assert_cmpuint (f->pts, ==, next_out++);
      gst_cuda_graph_in_flight_pool_give (&pool, f);
    }
  }
  while ((f = gst_cuda_graph_held_frames_pop (&held)) != NULL) {
    g_assert_cmpuint (f->pts, ==, next_out++);
    gst_cuda_graph_in_flight_pool_give (&pool, f);
  }
  g_assert_cmpuint (next_out, ==, 50);
  g_assert_cmpuint (held.length, ==, 0);
  g_assert_null (held.head);
  g_assert_null (held.tail);
  gst_cuda_graph_in_flight_pool_clear (&pool);
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_graph_base_transform_debug, "test-inflight",
      0, "test");

  g_test_add_func ("/inflight-pool/bounded", test_bounded);
  g_test_add_func ("/inflight-pool/depth-one", test_depth_one);
  g_test_add_func ("/inflight-pool/reinit", test_reinit);
  g_test_add_func ("/inflight-pool/held-order", test_held_order);
  return g_test_run ();
}
