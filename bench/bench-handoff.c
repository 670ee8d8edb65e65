/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What handing frames from 16 stream threads to one batching thread costs
 * the CPU by itself (no frames, no GStreamer: counters behind locks), in
 * two designs, to size cudagraphbatch's hand-off before replacing it:
 *
 *   aggregator  GstAggregator's pattern (GStreamer 1.22): each pad holds
 *               --depth items (1 for a non-live stream without latency);
 *               a push broadcasts the element's condition, a pop the
 *               pad's, and the batching thread re-checks every pad on
 *               each wake-up
 *   bounded     a queue of --depth items per pad; a stream thread is
 *               woken only once its queue is down to half (hysteresis),
 *               the batching thread only by the pad it is waiting for
 *   queue       the same design in cudagraphbatch's own code
 *               (gst/batch/gstcudagraphbatchqueue.c: GstBuffers, GMutex
 *               and GCond per pad, the collector's two-step wait), when
 *               built with GStreamer
 *
 * Per batch of one item from each of the 16 threads: process CPU µs (all
 * threads), wall µs and context switches.  Needs no GPU.
 *
 *   bench-handoff [--batches=50000] [--depth=8]
 */
#include <glib.h>
#include <stdio.h>
#include <sys/resource.h>
#ifdef GCG_BENCH_HANDOFF_QUEUE
#include "../gst/batch/gstcudagraphbatchqueue.h"
#endif

#define STREAMS 16
#define MAX_DEPTH 1024

typedef struct
{
  GMutex lock;
  GCond cond;
  gint items;
  gboolean producer_waiting;
} Pad;

typedef struct
{
  Pad pads[STREAMS];
  GMutex src_lock;
  GCond src_cond;
  gint consumer_waits_for;      /* a pad index, -1: none */
  gboolean bounded;
  gint depth;
  gint64 batches;
#ifdef GCG_BENCH_HANDOFF_QUEUE
  /* The element's own queues (the "queue" row), when real is set. */
  gboolean real;
  GstCudaGraphBatchCollector collector;
  GstCudaGraphBatchQueue queues[STREAMS];
  GstBuffer *item;
#endif
} Handoff;

typedef struct
{
  Handoff *h;
  Pad *pad;
  gint index;
} Producer;

/* One item into @p's pad, waiting while it is full; wakes the batching
 * thread as the design says. */
static void
push (Handoff *h, Pad *p, gint index)
{
  gboolean was_empty;

  g_mutex_lock (&p->lock);
  while (p->items >= h->depth) {
    p->producer_waiting = TRUE;
    g_cond_wait (&p->cond, &p->lock);
  }
  p->producer_waiting = FALSE;
  was_empty = p->items++ == 0;
  g_mutex_unlock (&p->lock);
  if (h->bounded && !was_empty)
    return;
  g_mutex_lock (&h->src_lock);
  if (!h->bounded)
    g_cond_broadcast (&h->src_cond);
  else if (h->consumer_waits_for == index)
    g_cond_signal (&h->src_cond);
  g_mutex_unlock (&h->src_lock);
}

#ifdef GCG_BENCH_HANDOFF_QUEUE
/* The element's queues: a ref of one buffer per item. */
static void
push_real (Handoff *h, gint index)
{
  gst_cuda_graph_batch_queue_push_buffer (&h->queues[index],
      gst_buffer_ref (h->item));
}

static void
take_batch_real (Handoff *h)
{
  for (gint i = 0; i < STREAMS; i++) {
    GstCudaGraphBatchQueue *q = &h->queues[i];
    GstMiniObject *item;

    while ((item = gst_cuda_graph_batch_queue_pop (q)) == NULL)
      gst_cuda_graph_batch_collector_wait_for (&h->collector, q, NULL,
          GST_CLOCK_TIME_NONE);
    gst_mini_object_unref (item);
  }
}
#endif

static gpointer
producer (gpointer data)
{
  Producer *pr = data;

  for (gint64 i = 0; i < pr->h->batches; i++) {
#ifdef GCG_BENCH_HANDOFF_QUEUE
    if (pr->h->real) {
      push_real (pr->h, pr->index);
      continue;
    }
#endif
    push (pr->h, pr->pad, pr->index);
  }
  return NULL;
}

static gboolean
all_ready (Handoff *h)
{
  gboolean ready = TRUE;

  for (guint i = 0; i < STREAMS; i++) {
    g_mutex_lock (&h->pads[i].lock);
    ready &= h->pads[i].items > 0;
    g_mutex_unlock (&h->pads[i].lock);
  }
  return ready;
}

/* GstAggregator: wait until every pad has an item (each push wakes us),
 * then pop one from each (each pop wakes its stream). */
static void
take_batch_aggregator (Handoff *h)
{
  g_mutex_lock (&h->src_lock);
  while (!all_ready (h))
    g_cond_wait (&h->src_cond, &h->src_lock);
  g_mutex_unlock (&h->src_lock);
  for (guint i = 0; i < STREAMS; i++) {
    g_mutex_lock (&h->pads[i].lock);
    h->pads[i].items--;
    g_cond_broadcast (&h->pads[i].cond);
    g_mutex_unlock (&h->pads[i].lock);
  }
}

/* Waits for pad @i's next item (the element's lock taken before the
 * pad's, as push() does). */
static void
wait_for (Handoff *h, gint i)
{
  Pad *p = &h->pads[i];
  gboolean empty;

  g_mutex_lock (&h->src_lock);
  h->consumer_waits_for = i;
  g_mutex_lock (&p->lock);
  empty = p->items == 0;
  g_mutex_unlock (&p->lock);
  if (empty)
    g_cond_wait (&h->src_cond, &h->src_lock);
  h->consumer_waits_for = -1;
  g_mutex_unlock (&h->src_lock);
}

/* Bounded queues: take each pad's head in turn, a stream woken once its
 * queue is down to half. */
static void
take_batch_bounded (Handoff *h)
{
  for (gint i = 0; i < STREAMS; i++) {
    Pad *p = &h->pads[i];

    g_mutex_lock (&p->lock);
    while (p->items == 0) {
      g_mutex_unlock (&p->lock);
      wait_for (h, i);
      g_mutex_lock (&p->lock);
    }
    p->items--;
    if (p->producer_waiting && p->items <= h->depth / 2)
      g_cond_signal (&p->cond);
    g_mutex_unlock (&p->lock);
  }
}

static const gchar *
design_name (Handoff *h)
{
#ifdef GCG_BENCH_HANDOFF_QUEUE
  if (h->real)
    return "queue";
#endif
  return h->bounded ? "bounded" : "aggregator";
}

static void
run (Handoff *h)
{
  Producer producers[STREAMS];
  GThread *threads[STREAMS];
  struct rusage u0, u1;
  gint64 t0, t1;
  gdouble cpu, switches;

  getrusage (RUSAGE_SELF, &u0);
  t0 = g_get_monotonic_time ();
  for (gint i = 0; i < STREAMS; i++) {
    producers[i] = (Producer) { h, &h->pads[i], i };
    threads[i] = g_thread_new ("stream", producer, &producers[i]);
  }
  for (gint64 b = 0; b < h->batches; b++) {
#ifdef GCG_BENCH_HANDOFF_QUEUE
    if (h->real) {
      take_batch_real (h);
      continue;
    }
#endif
    if (h->bounded)
      take_batch_bounded (h);
    else
      take_batch_aggregator (h);
  }
  for (gint i = 0; i < STREAMS; i++)
    g_thread_join (threads[i]);
  t1 = g_get_monotonic_time ();
  getrusage (RUSAGE_SELF, &u1);
  cpu = (u1.ru_utime.tv_sec - u0.ru_utime.tv_sec + u1.ru_stime.tv_sec
            - u0.ru_stime.tv_sec)
          * 1e6
      + (u1.ru_utime.tv_usec - u0.ru_utime.tv_usec + u1.ru_stime.tv_usec
          - u0.ru_stime.tv_usec);
  switches =
      (gdouble) (u1.ru_nvcsw - u0.ru_nvcsw) + (u1.ru_nivcsw - u0.ru_nivcsw);
  printf ("%-10s | %5d | %12.1f | %13.1f | %14.1f\n", design_name (h), h->depth,
      cpu / h->batches, (t1 - t0) / (gdouble) h->batches,
      switches / h->batches);
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  gint depth = 8;
  gint64 batches = 50000;
  GOptionEntry entries[] = { { "batches", 0, 0, G_OPTION_ARG_INT64, &batches,
                                 "Batches", "N" },
    { "depth", 0, 0, G_OPTION_ARG_INT, &depth,
        "Items a pad holds in the bounded design", "D" },
    { NULL } };
  g_autoptr (GOptionContext) options = g_option_context_new ("");
  g_autoptr (GError) error = NULL;
  /* Static: two designs' locks and counters, reused one after the other. */
  static Handoff h;

  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error) || batches < 1
      || depth < 2 || depth > MAX_DEPTH) {
    fprintf (stderr, "bench-handoff: %s\n",
        error ? error->message : "--batches ≥ 1, --depth 2 to 1024");
    return 2;
  }
  for (guint i = 0; i < STREAMS; i++) {
    g_mutex_init (&h.pads[i].lock);
    g_cond_init (&h.pads[i].cond);
  }
  g_mutex_init (&h.src_lock);
  g_cond_init (&h.src_cond);
  h.batches = batches;
  h.consumer_waits_for = -1;
  printf ("bench-handoff: %d streams → 1 thread, %" G_GINT64_FORMAT
          " batches of one item each\n",
      STREAMS, batches);
  printf ("design     | depth | CPU µs/batch | wall µs/batch | "
          "switches/batch\n");
  /* GstAggregator's depth for a non-live stream, then the bounded one. */
  h.bounded = FALSE;
  h.depth = 1;
  run (&h);
  h.bounded = TRUE;
  h.depth = depth;
  run (&h);
#ifdef GCG_BENCH_HANDOFF_QUEUE
  gst_init (&argc, &argv);
  h.item = gst_buffer_new ();
  gst_cuda_graph_batch_collector_init (&h.collector);
  for (guint i = 0; i < STREAMS; i++)
    gst_cuda_graph_batch_queue_init (&h.queues[i], &h.collector, depth);
  h.real = TRUE;
  run (&h);
  for (guint i = 0; i < STREAMS; i++)
    gst_cuda_graph_batch_queue_clear (&h.queues[i]);
  gst_cuda_graph_batch_collector_clear (&h.collector);
  gst_buffer_unref (h.item);
#endif
  return 0;
}
