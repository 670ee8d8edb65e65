/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphbatch's bounded pad queues and their collector
 * (gst/batch/gstcudagraphbatchqueue.c), alone:
 *
 *   order        buffers and events leave in order; events do not count
 *                against the depth
 *   hysteresis   a producer faster than the collector is woken once per
 *                depth / 2 buffers taken, never once per buffer
 *   flush        a producer blocked on a full queue returns FLUSHING on a
 *                flush, the items are dropped, pushes are refused until
 *                unflushed
 *   awaited      the collector waiting for one queue is woken by that
 *                queue's item only, not by another's
 *   any-kick     waiting for any queue: woken by any item; a kick ends a
 *                wait too, a kick before the wait (after prepare) is not
 *                lost
 *   deadline     a wait until a time on a test clock ends when the clock
 *                gets there (FALSE), or earlier by an item (TRUE)
 *   stress       16 producers, one collector taking a frame from each in
 *                turn, waiting for the one it needs: every frame arrives
 *                once, in order, with few wake-ups
 *
 * A lost wake-up hangs: the watchdog fails the test with backtraces.
 */
#include <gst/gst.h>
#include <gst/check/gsttestclock.h>

#include "gcg-gst-test-util.h"
#include "common/gcg-test-watchdog.h"
#include "../../gst/batch/gstcudagraphbatchqueue.h"

#define STREAMS 16

static GstBuffer *
numbered (guint64 n)
{
  GstBuffer *b = gst_buffer_new ();

  GST_BUFFER_OFFSET (b) = n;
  return b;
}

static guint64
number_of (GstMiniObject *item)
{
  g_assert_true (GST_IS_BUFFER (item));
  return GST_BUFFER_OFFSET (GST_BUFFER_CAST (item));
}

/* @q's next item is an event of @type / buffer number @n. */
static void
expect_event (GstCudaGraphBatchQueue *q, GstEventType type)
{
  GstMiniObject *item = gst_cuda_graph_batch_queue_pop (q);

  g_assert_true (item && GST_IS_EVENT (item));
  g_assert_cmpint (GST_EVENT_TYPE (item), ==, type);
  gst_mini_object_unref (item);
}

static void
expect_buffer (GstCudaGraphBatchQueue *q, guint64 n)
{
  GstMiniObject *item = gst_cuda_graph_batch_queue_pop (q);

  g_assert_nonnull (item);
  g_assert_cmpuint (number_of (item), ==, n);
  gst_mini_object_unref (item);
}

static void
test_order (void)
{
  GstCudaGraphBatchCollector c;
  GstCudaGraphBatchQueue q;
  GstMiniObject *item;

  gst_cuda_graph_batch_collector_init (&c);
  gst_cuda_graph_batch_queue_init (&q, &c, 2);
  g_assert_true (gst_cuda_graph_batch_queue_push_event (&q,
      gst_event_new_stream_start ("s")));
  g_assert_cmpint (gst_cuda_graph_batch_queue_push_buffer (&q, numbered (0)),
      ==, GST_FLOW_OK);
  g_assert_true (gst_cuda_graph_batch_queue_push_event (&q,
      gst_event_new_gap (0, 1)));
  g_assert_cmpint (gst_cuda_graph_batch_queue_push_buffer (&q, numbered (1)),
      ==, GST_FLOW_OK);
  g_assert_true (gst_cuda_graph_batch_queue_push_event (&q,
      gst_event_new_eos ()));
  g_assert_cmpuint (gst_cuda_graph_batch_queue_n_buffers (&q), ==, 2);

  item = gst_cuda_graph_batch_queue_peek (&q);
  g_assert_true (GST_IS_EVENT (item));
  gst_mini_object_unref (item);
  expect_event (&q, GST_EVENT_STREAM_START);
  expect_buffer (&q, 0);
  expect_event (&q, GST_EVENT_GAP);
  expect_buffer (&q, 1);
  expect_event (&q, GST_EVENT_EOS);
  g_assert_null (gst_cuda_graph_batch_queue_pop (&q));
  g_assert_null (gst_cuda_graph_batch_queue_peek (&q));

  gst_cuda_graph_batch_queue_clear (&q);
  gst_cuda_graph_batch_collector_clear (&c);
}

/* A producer pushing buffers 0 to n - 1, then EOS. */
typedef struct
{
  GstCudaGraphBatchQueue *q;
  guint n;
  GstFlowReturn last;
  gint pushed;
} Producer;

static gpointer
produce (gpointer data)
{
  Producer *p = data;

  p->last = GST_FLOW_OK;
  for (guint i = 0; i < p->n && p->last == GST_FLOW_OK; i++) {
    p->last = gst_cuda_graph_batch_queue_push_buffer (p->q, numbered (i));
    g_atomic_int_inc (&p->pushed);
  }
  if (p->last == GST_FLOW_OK)
    gst_cuda_graph_batch_queue_push_event (p->q, gst_event_new_eos ());
  return NULL;
}

/* Takes @q's next item, waiting for it. */
static GstMiniObject *
take (GstCudaGraphBatchCollector *c, GstCudaGraphBatchQueue *q)
{
  GstMiniObject *item;

  while ((item = gst_cuda_graph_batch_queue_pop (q)) == NULL)
    gst_cuda_graph_batch_collector_wait_for (c, q, NULL, GST_CLOCK_TIME_NONE);
  return item;
}

static void
test_hysteresis (void)
{
  const guint n = 400, depth = 8;
  GstCudaGraphBatchCollector c;
  GstCudaGraphBatchQueue q;
  Producer p = { &q, n };
  GThread *t;

  gst_cuda_graph_batch_collector_init (&c);
  gst_cuda_graph_batch_queue_init (&q, &c, depth);
  t = g_thread_new ("producer", produce, &p);
  /* The producer fills the queue and blocks before anything is taken. */
  while (!g_atomic_int_get (&q.producer_waiting))
    g_usleep (1000);
  for (guint i = 0; i < n; i++) {
    GstMiniObject *item = take (&c, &q);

    g_assert_cmpuint (number_of (item), ==, i);
    gst_mini_object_unref (item);
  }
  gst_mini_object_unref (take (&c, &q));        /* EOS */
  g_thread_join (t);
  /* Once per depth / 2 buffers at most (GstAggregator: once per buffer). */
  g_test_message ("producer woken %" G_GUINT64_FORMAT " times for %u buffers",
      q.producer_wakeups, n);
  g_assert_cmpuint (q.producer_wakeups, <=, n / (depth - depth / 2) + 1);
  gst_cuda_graph_batch_queue_clear (&q);
  gst_cuda_graph_batch_collector_clear (&c);
}

static void
test_flush (void)
{
  GstCudaGraphBatchCollector c;
  GstCudaGraphBatchQueue q;
  Producer p = { &q, 1000 };
  g_autoptr (GstCaps) caps = gst_caps_new_empty_simple ("video/x-raw");
  GstSegment seg;
  GThread *t;

  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_cuda_graph_batch_collector_init (&c);
  gst_cuda_graph_batch_queue_init (&q, &c, 4);
  /* Caps survive a flush (sticky), segments do not. */
  gst_cuda_graph_batch_queue_push_event (&q, gst_event_new_caps (caps));
  gst_cuda_graph_batch_queue_push_event (&q, gst_event_new_segment (&seg));
  t = g_thread_new ("producer", produce, &p);
  while (!g_atomic_int_get (&q.producer_waiting))
    g_usleep (1000);
  g_assert_cmpuint (gst_cuda_graph_batch_queue_n_buffers (&q), ==, 4);
  gst_cuda_graph_batch_queue_set_flushing (&q, TRUE);
  g_thread_join (t);
  g_assert_cmpint (p.last, ==, GST_FLOW_FLUSHING);
  g_assert_cmpint (p.pushed, ==, 5);
  expect_event (&q, GST_EVENT_CAPS);
  g_assert_null (gst_cuda_graph_batch_queue_pop (&q));
  g_assert_cmpint (gst_cuda_graph_batch_queue_push_buffer (&q, numbered (9)),
      ==, GST_FLOW_FLUSHING);
  g_assert_false (gst_cuda_graph_batch_queue_push_event (&q,
      gst_event_new_eos ()));
  gst_cuda_graph_batch_queue_set_flushing (&q, FALSE);
  g_assert_cmpint (gst_cuda_graph_batch_queue_push_buffer (&q, numbered (9)),
      ==, GST_FLOW_OK);
  g_assert_cmpuint (gst_cuda_graph_batch_queue_n_buffers (&q), ==, 1);
  gst_cuda_graph_batch_queue_clear (&q);
  gst_cuda_graph_batch_collector_clear (&c);
}

/* The collector in a thread: waits (prepare()d by the test) and
 * counts. */
typedef struct
{
  GstCudaGraphBatchCollector *c;
  guint64 ticket;
  GstClock *clock;
  GstClockTime until;
  gboolean woken;
  gint done;
} Waiter;

static gpointer
wait_thread (gpointer data)
{
  Waiter *w = data;

  w->woken =
      gst_cuda_graph_batch_collector_wait (w->c, w->ticket, w->clock, w->until);
  g_atomic_int_set (&w->done, TRUE);
  return NULL;
}

static GThread *
start_wait (Waiter *w, GstCudaGraphBatchCollector *c, gpointer what,
    GstClock *clock, GstClockTime until)
{
  memset (w, 0, sizeof (*w));
  w->c = c;
  w->clock = clock;
  w->until = until;
  w->ticket = gst_cuda_graph_batch_collector_prepare (c, what);
  return g_thread_new ("collector", wait_thread, w);
}

static void
test_awaited (void)
{
  GstCudaGraphBatchCollector c;
  GstCudaGraphBatchQueue q[2];
  Waiter w;
  GThread *t;

  gst_cuda_graph_batch_collector_init (&c);
  for (guint i = 0; i < 2; i++)
    gst_cuda_graph_batch_queue_init (&q[i], &c, 4);
  t = start_wait (&w, &c, &q[1], NULL, GST_CLOCK_TIME_NONE);
  /* Queue 0's items do not end a wait for queue 1. */
  for (guint i = 0; i < 3; i++)
    gst_cuda_graph_batch_queue_push_buffer (&q[0], numbered (i));
  g_assert_cmpuint (c.wakeups, ==, 0);
  gst_cuda_graph_batch_queue_push_buffer (&q[1], numbered (0));
  g_thread_join (t);
  g_assert_true (w.woken);
  g_assert_cmpuint (c.wakeups, ==, 1);
  /* Not waiting: no wake-up at all. */
  gst_cuda_graph_batch_queue_push_buffer (&q[1], numbered (1));
  g_assert_cmpuint (c.wakeups, ==, 1);
  for (guint i = 0; i < 2; i++)
    gst_cuda_graph_batch_queue_clear (&q[i]);
  gst_cuda_graph_batch_collector_clear (&c);
}

static void
test_any_kick (void)
{
  GstCudaGraphBatchCollector c;
  GstCudaGraphBatchQueue q;
  Waiter w;
  GThread *t;

  gst_cuda_graph_batch_collector_init (&c);
  gst_cuda_graph_batch_queue_init (&q, &c, 4);
  t = start_wait (&w, &c, GST_CUDA_GRAPH_BATCH_COLLECTOR_ANY, NULL,
      GST_CLOCK_TIME_NONE);
  gst_cuda_graph_batch_queue_push_event (&q, gst_event_new_eos ());
  g_thread_join (t);
  g_assert_true (w.woken);
  /* A kick between prepare() and wait() is not lost. */
  w.ticket = gst_cuda_graph_batch_collector_prepare (&c, NULL);
  gst_cuda_graph_batch_collector_kick (&c);
  g_assert_true (gst_cuda_graph_batch_collector_wait (&c, w.ticket, NULL,
      GST_CLOCK_TIME_NONE));
  /* A kick ends a wait in progress. */
  t = start_wait (&w, &c, NULL, NULL, GST_CLOCK_TIME_NONE);
  g_usleep (10000);
  gst_cuda_graph_batch_collector_kick (&c);
  g_thread_join (t);
  g_assert_true (w.woken);
  gst_cuda_graph_batch_queue_clear (&q);
  gst_cuda_graph_batch_collector_clear (&c);
}

/* Waits for @clock to have a pending wait. */
static void
wait_pending (GstTestClock *clock)
{
  gst_test_clock_wait_for_next_pending_id (clock, NULL);
}

/* Moves @clock to @t and fires the wait due then. */
static void
fire_at (GstTestClock *clock, GstClockTime t)
{
  GstClockID id;

  gst_test_clock_set_time (clock, t);
  id = gst_test_clock_process_next_clock_id (clock);
  g_assert_nonnull (id);
  gst_clock_id_unref (id);
}

static void
test_deadline (void)
{
  GstClock *clock = gst_test_clock_new ();
  GstTestClock *tc = GST_TEST_CLOCK (clock);
  GstCudaGraphBatchCollector c;
  GstCudaGraphBatchQueue q;
  Waiter w;
  GThread *t;

  gst_cuda_graph_batch_collector_init (&c);
  gst_cuda_graph_batch_queue_init (&q, &c, 4);
  /* The time comes: FALSE. */
  t = start_wait (&w, &c, &q, clock, 100 * GST_MSECOND);
  wait_pending (tc);
  fire_at (tc, 100 * GST_MSECOND);
  g_thread_join (t);
  g_assert_false (w.woken);
  /* An item before the time: TRUE, the clock not moved. */
  t = start_wait (&w, &c, &q, clock, 200 * GST_MSECOND);
  wait_pending (tc);
  gst_cuda_graph_batch_queue_push_buffer (&q, numbered (0));
  g_thread_join (t);
  g_assert_true (w.woken);
  g_assert_cmpuint (gst_clock_get_time (clock), ==, 100 * GST_MSECOND);
  /* A flush ends it too. */
  t = start_wait (&w, &c, &q, clock, 300 * GST_MSECOND);
  wait_pending (tc);
  gst_cuda_graph_batch_queue_set_flushing (&q, TRUE);
  g_thread_join (t);
  g_assert_true (w.woken);
  gst_cuda_graph_batch_queue_clear (&q);
  gst_cuda_graph_batch_collector_clear (&c);
  gst_object_unref (clock);
}

static void
test_stress (void)
{
  const guint n = 2000;
  GstCudaGraphBatchCollector c;
  GstCudaGraphBatchQueue q[STREAMS];
  Producer p[STREAMS];
  GThread *t[STREAMS];

  gst_cuda_graph_batch_collector_init (&c);
  for (guint i = 0; i < STREAMS; i++) {
    gst_cuda_graph_batch_queue_init (&q[i], &c, 4 + i % 3);
    p[i] = (Producer) { &q[i], n };
    t[i] = g_thread_new ("producer", produce, &p[i]);
  }
  for (guint b = 0; b < n; b++) {
    for (guint i = 0; i < STREAMS; i++) {
      GstMiniObject *item = take (&c, &q[i]);

      g_assert_cmpuint (number_of (item), ==, b);
      gst_mini_object_unref (item);
    }
  }
  for (guint i = 0; i < STREAMS; i++) {
    GstMiniObject *eos = take (&c, &q[i]);

    g_assert_true (GST_IS_EVENT (eos));
    gst_mini_object_unref (eos);
    g_thread_join (t[i]);
    g_assert_cmpint (p[i].last, ==, GST_FLOW_OK);
    gst_cuda_graph_batch_queue_clear (&q[i]);
  }
  /* At most one collector wake-up per frame (GstAggregator: one per frame
   * queued, awaited or not); in practice far fewer. */
  g_test_message ("collector woken %" G_GUINT64_FORMAT " times for %u "
                  "batches of %u",
      c.wakeups, n, STREAMS);
  g_assert_cmpuint (c.wakeups, <=, (guint64) n * STREAMS + STREAMS);
  gst_cuda_graph_batch_collector_clear (&c);
}

int
main (int argc, char **argv)
{
  gint ret;

  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  gcg_test_watchdog_arm (100, "test-batch-queue");
  g_test_add_func ("/batch-queue/order", test_order);
  g_test_add_func ("/batch-queue/hysteresis", test_hysteresis);
  g_test_add_func ("/batch-queue/flush", test_flush);
  g_test_add_func ("/batch-queue/awaited", test_awaited);
  g_test_add_func ("/batch-queue/any-kick", test_any_kick);
  g_test_add_func ("/batch-queue/deadline", test_deadline);
  g_test_add_func ("/batch-queue/stress", test_stress);
  ret = g_test_run ();
  gcg_test_watchdog_disarm ();
  return ret;
}
