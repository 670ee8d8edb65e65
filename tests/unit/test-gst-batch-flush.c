/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphbatch's collect path around flushes, releases and EOS, on the
 * CPU backend (tests/common/gcg-test-gst-batch.c): what any collect path
 * of the element (GstAggregator's, or a replacement of it, issue 22) must
 * keep doing.
 *
 *   seek            a flushing seek on the src pad reaches every stream;
 *                   their flushes leave downstream as one FLUSH_START /
 *                   FLUSH_STOP, a new segment follows, and the window
 *                   starts again (frames from time 0 are not late)
 *   blocked-chain   a stream's chain blocked on its full queue (queue-depth
 *                   frames; the batch waits for another stream) returns
 *                   FLUSHING on
 *                   FLUSH_START; after FLUSH_STOP both streams batch on
 *   release-blocked the same chain, its pad released instead: the push
 *                   returns, the other streams go on without it
 *   eos-queued      EOS on a stream whose frames are still queued: they
 *                   are batched first, then the others go on alone
 *   gap             a GAP on one stream ends its part of the window: the
 *                   batch leaves with the other stream's frame, no wait
 *
 * A blocked chain that is never released hangs the test: the batch
 * helper's watchdog then fails it with every thread's backtrace.
 */
#include "gcg-gst-test-util.h"
#include "common/gcg-test-gst-batch.h"
#include "gstcudagraphbatchmeta.h"

#include <gcg.h>

#define CAPS(i) gcg_test_batch_caps[(i) % G_N_ELEMENTS (gcg_test_batch_caps)]
#define FRAME (GST_SECOND / 30)
/* Frames the pushing thread tries before giving up on blocking. */
#define MAX_PUSHES 1000

static void
run_all (GcgTestBatch *f, guint frame)
{
  gst_buffer_unref (gcg_test_batch_run (f, NULL, f->n, frame, NULL));
}

/* Drops the events @h's sink pad received so far. */
static void
drain_events (GstHarness *h)
{
  GstEvent *ev;

  while ((ev = gst_harness_try_pull_event (h)) != NULL)
    gst_event_unref (ev);
}

/* The next event downstream of the element that is not a stream's
 * serialized bookkeeping (stream-start, caps, tag). */
static GstEvent *
pull_flow_event (GstHarness *h)
{
  GstEvent *ev;

  while ((ev = gst_harness_try_pull_event (h)) != NULL) {
    GstEventType t = GST_EVENT_TYPE (ev);

    if (t != GST_EVENT_STREAM_START && t != GST_EVENT_CAPS
        && t != GST_EVENT_TAG)
      return ev;
    gst_event_unref (ev);
  }
  return NULL;
}

static void
assert_next_event (GstHarness *h, GstEventType type)
{
  GstEvent *ev = pull_flow_event (h);

  g_assert_nonnull (ev);
  g_assert_cmpstr (GST_EVENT_TYPE_NAME (ev), ==,
      gst_event_type_get_name (type));
  gst_event_unref (ev);
}

/* A flush of @s's stream as its upstream does it (seqnum @seqnum, 0 for
 * a new one), then a new time segment from 0. */
static void
flush_stream (GcgTestStream *s, guint32 seqnum, gboolean start, gboolean stop)
{
  GstSegment seg;
  GstEvent *ev;

  if (start) {
    ev = gst_event_new_flush_start ();
    if (seqnum)
      gst_event_set_seqnum (ev, seqnum);
    g_assert_true (gst_harness_push_event (s->h, ev));
  }
  if (!stop)
    return;
  ev = gst_event_new_flush_stop (TRUE);
  if (seqnum)
    gst_event_set_seqnum (ev, seqnum);
  g_assert_true (gst_harness_push_event (s->h, ev));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  g_assert_true (gst_harness_push_event (s->h, gst_event_new_segment (&seg)));
}

static void
test_seek (void)
{
  GcgTestBatch f;
  GstEvent *seek;
  guint32 seqnum;

  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 1);
  gcg_test_batch_add_stream (&f, CAPS (0), 1);
  gcg_test_batch_add_stream (&f, CAPS (1), 2);
  for (guint fr = 0; fr < 3; fr++)
    run_all (&f, fr);
  drain_events (f.out);

  seek = gst_event_new_seek (1.0, GST_FORMAT_TIME, GST_SEEK_FLAG_FLUSH,
      GST_SEEK_TYPE_SET, 0, GST_SEEK_TYPE_NONE, GST_CLOCK_TIME_NONE);
  seqnum = gst_event_get_seqnum (seek);
  g_assert_true (gst_harness_push_upstream_event (f.out, seek));
  /* Every stream is asked to seek. */
  for (guint i = 0; i < f.n; i++) {
    GstEvent *up = gst_harness_try_pull_upstream_event (f.streams[i].h);

    while (up && GST_EVENT_TYPE (up) != GST_EVENT_SEEK) {
      gst_event_unref (up);
      up = gst_harness_try_pull_upstream_event (f.streams[i].h);
    }
    g_assert_nonnull (up);
    g_assert_cmpuint (gst_event_get_seqnum (up), ==, seqnum);
    gst_event_unref (up);
  }
  /* Each stream flushes, as a seeking source does. */
  for (guint i = 0; i < f.n; i++)
    flush_stream (&f.streams[i], seqnum, TRUE, FALSE);
  for (guint i = 0; i < f.n; i++)
    flush_stream (&f.streams[i], seqnum, FALSE, TRUE);

  /* From time 0 again: a new window, not late frames. */
  for (guint fr = 0; fr < 2; fr++)
    run_all (&f, fr);
  assert_next_event (f.out, GST_EVENT_FLUSH_START);
  assert_next_event (f.out, GST_EVENT_FLUSH_STOP);
  assert_next_event (f.out, GST_EVENT_SEGMENT);
  g_assert_null (pull_flow_event (f.out));
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "dropped-late"),
      ==, 0);
  gcg_test_batch_clear (&f);
}

/* A thread pushing frames from @first on into one stream until a push
 * fails, straight on the harness's src pad (a ref: the harness may go
 * while the push is blocked). */
typedef struct
{
  GstPad *srcpad;
  const gchar *caps;
  guint seed;
  guint first;
  guint pushed;
  GstFlowReturn last;
} Pusher;

static gpointer
push_until_refused (gpointer data)
{
  Pusher *p = data;

  p->last = GST_FLOW_OK;
  for (guint k = 0; k < MAX_PUSHES && p->last == GST_FLOW_OK; k++) {
    guint fr = p->first + k;

    p->last = gst_pad_push (p->srcpad,
        gcg_test_batch_frame (p->caps, p->seed + fr, fr * FRAME));
    p->pushed++;
  }
  return NULL;
}

/* Whether a chain on @pad (the element's sink pad) stays inside the pad's
 * stream lock for a while: blocked on its full queue. */
static gboolean
chain_blocked (GstPad *pad)
{
  for (guint polls = 0; polls < 50; polls++) {
    if (GST_PAD_STREAM_TRYLOCK (pad)) {
      GST_PAD_STREAM_UNLOCK (pad);
      return FALSE;
    }
    g_usleep (2000);
  }
  return TRUE;
}

/* Starts pushing into @s from frame @first and returns once the push is
 * blocked (the watchdog fails the test if it never blocks and never
 * stops). */
static GThread *
start_blocked_push (GcgTestStream *s, Pusher *p, guint first)
{
  GThread *t;

  memset (p, 0, sizeof (*p));
  p->srcpad = gst_object_ref (s->h->srcpad);
  p->caps = s->caps;
  p->seed = s->seed;
  p->first = first;
  t = g_thread_new ("pusher", push_until_refused, p);
  while (!chain_blocked (s->pad))
    g_assert_cmpuint (g_atomic_int_get (&p->pushed), <, MAX_PUSHES);
  g_test_message ("blocked after %u frames", g_atomic_int_get (&p->pushed));
  return t;
}

static void
test_blocked_chain (void)
{
  GcgTestBatch f;
  Pusher p;
  GThread *t;

  gcg_test_batch_init (&f, "cpu", "cpu", "queue-depth=3", 1);
  gcg_test_batch_add_stream (&f, CAPS (0), 1);
  gcg_test_batch_add_stream (&f, CAPS (1), 2);
  run_all (&f, 0);
  /* Stream 0 runs ahead; the batch waits for stream 1's frame 1: its
   * queue takes queue-depth frames, the next push blocks. */
  t = start_blocked_push (&f.streams[0], &p, 1);
  g_assert_cmpuint (p.pushed, ==, 3);
  flush_stream (&f.streams[0], 0, TRUE, FALSE);
  g_thread_join (t);
  g_assert_cmpint (p.last, ==, GST_FLOW_FLUSHING);
  gst_object_unref (p.srcpad);
  flush_stream (&f.streams[0], 0, FALSE, TRUE);
  /* The flushed frames are gone: the next batch is of the next frame
   * both streams have. */
  for (guint fr = 100; fr < 102; fr++)
    run_all (&f, fr);
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "batches"), ==,
      3);
  gcg_test_batch_clear (&f);
}

static void
test_release_blocked (void)
{
  guint rest[] = { 0, 1 };
  g_autoptr (GstBuffer) out = NULL;
  GcgTestBatch f;
  Pusher p;
  GThread *t;

  gcg_test_batch_init (&f, "cpu", "cpu", "batch-size=3", 1);
  gcg_test_batch_add_stream (&f, CAPS (0), 1);
  gcg_test_batch_add_stream (&f, CAPS (1), 2);
  gcg_test_batch_add_stream (&f, CAPS (3), 3);
  run_all (&f, 0);
  t = start_blocked_push (&f.streams[2], &p, 1);
  gcg_test_batch_remove_stream (&f.streams[2]);
  g_thread_join (t);
  g_assert_cmpint (p.last, !=, GST_FLOW_OK);
  gst_object_unref (p.srcpad);
  /* The released stream's frames went with it. */
  for (guint fr = 1; fr < 4; fr++) {
    gst_clear_buffer (&out);
    out = gcg_test_batch_run (&f, rest, 2, fr, NULL);
  }
  g_assert_cmpuint (gst_cuda_graph_buffer_get_batch_meta (out)->n_sources, ==,
      2);
  gcg_test_batch_clear (&f);
}

/* Frames still queued on a stream when its EOS comes are batched before
 * it counts as ended. */
/* Two streams, batch-size 1: frame 0 of both batched, then stream 0's
 * frame 1 queued while stream 1 has none yet. */
static void
two_streams_one_ahead (GcgTestBatch *f)
{
  gcg_test_batch_init (f, "cpu", "cpu", NULL, 1);
  gcg_test_batch_add_stream (f, CAPS (0), 1);
  gcg_test_batch_add_stream (f, CAPS (1), 2);
  run_all (f, 0);
  gcg_test_batch_push (&f->streams[0],
      gcg_test_batch_frame (CAPS (0), 1 + 1, FRAME));
}

static void
test_eos_queued (void)
{
  guint second[] = { 1 };
  g_autoptr (GstBuffer) out = NULL;
  GstCudaGraphBatchMeta *bm;
  GcgTestBatch f;

  two_streams_one_ahead (&f);
  gcg_test_batch_eos (&f.streams[0]);
  gcg_test_batch_push (&f.streams[1],
      gcg_test_batch_frame (CAPS (1), 2 + 1, FRAME));
  out = gst_harness_pull (f.out);
  bm = gst_cuda_graph_buffer_get_batch_meta (out);
  g_assert_cmpuint (GST_BUFFER_PTS (out), ==, FRAME);
  g_assert_cmpuint (bm->n_frames, ==, 2);
  for (guint fr = 2; fr < 4; fr++)
    gst_buffer_unref (gcg_test_batch_run (&f, second, 1, fr, NULL));
  gcg_test_batch_clear (&f);
}

static void
test_gap (void)
{
  g_autoptr (GstBuffer) out = NULL;
  GcgTestBatch f;

  two_streams_one_ahead (&f);
  g_assert_true (gst_harness_push_event (f.streams[1].h,
      gst_event_new_gap (FRAME, FRAME)));
  /* No clock moved: the gap, not the deadline, lets it leave. */
  out = gst_harness_pull (f.out);
  g_assert_cmpuint (GST_BUFFER_PTS (out), ==, FRAME);
  g_assert_cmpuint (gst_cuda_graph_buffer_get_batch_meta (out)->n_frames, ==,
      1);
  gcg_test_batch_clear (&f);
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/batch-flush/seek", test_seek);
  g_test_add_func ("/batch-flush/blocked-chain", test_blocked_chain);
  g_test_add_func ("/batch-flush/release-blocked", test_release_blocked);
  g_test_add_func ("/batch-flush/eos-queued", test_eos_queued);
  g_test_add_func ("/batch-flush/gap", test_gap);
  return g_test_run ();
}
