/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The hand-off of cudagraphbatch's own collect path (issue 22, design (a)
 * of .wt/briefs/collect.md): a bounded queue per sink pad between its
 * upstream thread (the producer) and the element's one collector thread,
 * in place of GstAggregator's, which wakes its src thread for every
 * queued buffer and the upstream thread for every buffer taken.
 *
 *  - A queue holds a sink pad's buffers and the serialized events between
 *    them (caps, segment, EOS...), in order, up to `depth` buffers
 *    (events do not count).  A producer that finds it full waits, and is
 *    woken once the collector has taken it down to half (hysteresis: one
 *    wake-up per depth / 2 buffers, not one per buffer).
 *  - The collector waits for one queue at a time (the one its window
 *    waits for) or for any, until a pipeline-clock time (a live deadline)
 *    or for ever: a producer wakes it only when its item is awaited, so
 *    a batch of N frames costs the collector about one wake-up, not N.
 *  - A flush (FLUSH_START, a release, a stop) empties a queue (but for
 *    its caps and stream-start), refuses
 *    its pushes with GST_FLOW_FLUSHING until unflushed, releases a
 *    blocked producer and wakes the collector.
 *
 * Locks: a queue's and the collector's are never held together by a
 * producer; the collector takes a queue's alone.  Not yet wired into the
 * element (gst/batch/README.md): built and tested on its own. */

typedef struct _GstCudaGraphBatchQueue GstCudaGraphBatchQueue;

/* The collector's side, shared by an element's queues. */
typedef struct
{
  GMutex lock;
  GCond cond;
  /* What the collector waits for: a queue, ANY, or NULL (not waiting);
   * read by producers without the lock (atomic). */
  gpointer waiting_for;
  /* Bumped by whatever should end the collector's wait. */
  guint64 seq;
  /* The clock wait in progress, to unschedule (under the lock). */
  GstClockID clock_id;
  /* Times a producer or a flush ended a wait (tests, benches). */
  guint64 wakeups;
} GstCudaGraphBatchCollector;

#define GST_CUDA_GRAPH_BATCH_COLLECTOR_ANY ((gpointer) 1)

struct _GstCudaGraphBatchQueue
{
  GMutex lock;
  GCond space;
  GQueue items;                 /* GstMiniObject*, owned, oldest first */
  guint n_buffers;
  guint depth;
  gboolean flushing;
  gboolean producer_waiting;
  GstCudaGraphBatchCollector *collector;
  /* Times a waiting producer was woken (tests, benches). */
  guint64 producer_wakeups;
};

void gst_cuda_graph_batch_collector_init (GstCudaGraphBatchCollector *c);
void gst_cuda_graph_batch_collector_clear (GstCudaGraphBatchCollector *c);

/* Ends the collector's current (or next) wait, whatever it waits for:
 * a state change, a property, a pad added or released. */
void gst_cuda_graph_batch_collector_kick (GstCudaGraphBatchCollector *c);

/* Waiting, in two steps so that no item is missed between the look and
 * the wait: prepare() says what the collector is about to wait for (a
 * queue, or GST_CUDA_GRAPH_BATCH_COLLECTOR_ANY) and returns a ticket;
 * the collector then looks at the queues, and either cancel()s (it found
 * what it needs) or wait()s with the ticket: until an awaited item, a
 * kick or a flush came after prepare(), or (@clock non-NULL and @until
 * valid) @clock reaches @until.  wait() returns TRUE when woken (look
 * again), FALSE when the time came. */
guint64 gst_cuda_graph_batch_collector_prepare (GstCudaGraphBatchCollector *c,
    gpointer what);
/* prepare() in two parts, for a collector that took its ticket before
 * looking at the queues (a kick since then ends the wait at once), and
 * publishes what it waits for only once it knows. */
guint64 gst_cuda_graph_batch_collector_ticket (GstCudaGraphBatchCollector *c);
void gst_cuda_graph_batch_collector_publish (GstCudaGraphBatchCollector *c,
    gpointer what);
void gst_cuda_graph_batch_collector_cancel (GstCudaGraphBatchCollector *c);
gboolean gst_cuda_graph_batch_collector_wait (GstCudaGraphBatchCollector *c,
    guint64 ticket, GstClock *clock, GstClockTime until);
/* The two steps for one queue: returns at once when @q has an item. */
gboolean gst_cuda_graph_batch_collector_wait_for (GstCudaGraphBatchCollector *c,
    GstCudaGraphBatchQueue *q, GstClock *clock, GstClockTime until);

/* @depth: buffers at most (at least 2, for the hysteresis). */
void gst_cuda_graph_batch_queue_init (GstCudaGraphBatchQueue *q,
    GstCudaGraphBatchCollector *c, guint depth);
void gst_cuda_graph_batch_queue_clear (GstCudaGraphBatchQueue *q);

/* Producer side.  Takes @buffer; waits while the queue is full.
 * GST_FLOW_FLUSHING (the buffer dropped) while flushing. */
GstFlowReturn gst_cuda_graph_batch_queue_push_buffer (GstCudaGraphBatchQueue *q,
    GstBuffer *buffer);
/* Takes @event (a serialized one), never waits; FALSE (dropped) while
 * flushing. */
gboolean gst_cuda_graph_batch_queue_push_event (GstCudaGraphBatchQueue *q,
    GstEvent *event);

/* Collector side.  The oldest item (a ref), NULL when empty. */
GstMiniObject *gst_cuda_graph_batch_queue_peek (GstCudaGraphBatchQueue *q);
/* Takes the oldest item, NULL when empty; wakes a waiting producer once
 * the queue is down to half. */
GstMiniObject *gst_cuda_graph_batch_queue_pop (GstCudaGraphBatchQueue *q);

/* Any thread.  TRUE: drops the items (but the sticky events other than
 * EOS and SEGMENT: caps, stream-start, as a pad keeps them), refuses pushes, releases a blocked
 * producer and kicks the collector (FLUSH_START, release, stop); FALSE:
 * takes pushes again (FLUSH_STOP, start). */
void gst_cuda_graph_batch_queue_set_flushing (GstCudaGraphBatchQueue *q,
    gboolean flushing);

/* Whether @q holds an item (buffer or event). */
gboolean gst_cuda_graph_batch_queue_has_item (GstCudaGraphBatchQueue *q);

/* Buffers queued now, and the depth (changed while streaming: a producer
 * waiting is woken when there is room at the new depth). */
guint gst_cuda_graph_batch_queue_n_buffers (GstCudaGraphBatchQueue *q);
guint gst_cuda_graph_batch_queue_n_items (GstCudaGraphBatchQueue *q);
void gst_cuda_graph_batch_queue_set_depth (GstCudaGraphBatchQueue *q,
    guint depth);

G_END_DECLS
