/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphbatch's src pad and its task, the collector: one thread takes
 * the frames of each window from the sink pads' queues
 * (gstcudagraphbatchsink.c), runs the batches (gstcudagraphbatch.c's
 * step) and pushes them.  It waits for the one pad its window needs
 * (woken by that pad's next item only), and, live, until the window's
 * deadline on the pipeline clock: base time + the window's start +
 * latency (upstream's minimum + the window + the timeout), as
 * GstAggregator did, so that a stream late by more than the timeout is
 * left out of its batch.
 *
 * It keeps GstAggregator's user-facing behaviour: one stream-start, the
 * caps, a time segment before the first batch (again after a flush);
 * negotiation when the first frames (or EOS) are there and on
 * reconfigure; the ALLOCATION query's pool; EOS once every pad is at
 * EOS; a flushing seek forwarded to every stream, its flushes downstream
 * once; the LATENCY query answered with upstream's latency plus ours.
 */
#include "gstcudagraphbatch-private.h"

#define GST_CAT_DEFAULT gst_cuda_graph_batch_debug

/* --- latency ------------------------------------------------------------- */

/* Upstream's latency: live when any stream is, the largest minimum, the
 * smallest maximum (NONE: none). */
static void
query_upstream_latency (GstCudaGraphBatch *self, gboolean *live,
    GstClockTime *min, GstClockTime *max)
{
  GList *pads = gst_cuda_graph_batch_list_sink_pads (self);

  *live = FALSE;
  *min = 0;
  *max = GST_CLOCK_TIME_NONE;
  for (GList *l = pads; l; l = l->next) {
    GstQuery *q = gst_query_new_latency ();
    gboolean l_live;
    GstClockTime l_min, l_max;

    if (gst_pad_peer_query (l->data, q)) {
      gst_query_parse_latency (q, &l_live, &l_min, &l_max);
      if (l_live) {
        *live = TRUE;
        *min = MAX (*min, l_min);
        if (GST_CLOCK_TIME_IS_VALID (l_max))
          *max = GST_CLOCK_TIME_IS_VALID (*max) ? MIN (*max, l_max) : l_max;
      }
    }
    gst_query_unref (q);
  }
  g_list_free_full (pads, gst_object_unref);
}

static void
update_latency (GstCudaGraphBatch *self)
{
  gboolean live;
  GstClockTime min, max;

  query_upstream_latency (self, &live, &min, &max);
  GST_OBJECT_LOCK (self);
  self->live = live;
  self->upstream_min = min;
  self->upstream_max = max;
  self->have_latency = TRUE;
  GST_OBJECT_UNLOCK (self);
}

/* Ours on top of upstream's (under the object lock). */
static GstClockTime
own_latency_locked (GstCudaGraphBatch *self)
{
  GstClockTime window =
      GST_CLOCK_TIME_IS_VALID (self->window_latency) ? self->window_latency : 0;

  return gst_cuda_graph_batch_add_time (window, self->timeout);
}

GstClockTime
gst_cuda_graph_batch_get_latency (GstCudaGraphBatch *self)
{
  GstClockTime latency = GST_CLOCK_TIME_NONE;
  gboolean have;

  GST_OBJECT_LOCK (self);
  have = self->have_latency;
  GST_OBJECT_UNLOCK (self);
  if (!have)
    update_latency (self);
  GST_OBJECT_LOCK (self);
  if (self->live)
    latency = gst_cuda_graph_batch_add_time (self->upstream_min,
        own_latency_locked (self));
  GST_OBJECT_UNLOCK (self);
  return latency;
}

void
gst_cuda_graph_batch_set_window_latency (GstCudaGraphBatch *self,
    GstClockTime window)
{
  gboolean changed;

  GST_OBJECT_LOCK (self);
  changed = self->window_latency != window;
  self->window_latency = window;
  GST_OBJECT_UNLOCK (self);
  if (changed)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
}

void
gst_cuda_graph_batch_forget_latency (GstCudaGraphBatch *self)
{
  GST_OBJECT_LOCK (self);
  self->have_latency = FALSE;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_batch_collector_kick (&self->collector);
}

static gboolean
answer_latency (GstCudaGraphBatch *self, GstQuery *query)
{
  gboolean live;
  GstClockTime min, max, own;

  update_latency (self);
  GST_OBJECT_LOCK (self);
  live = self->live;
  min = self->upstream_min;
  max = self->upstream_max;
  own = own_latency_locked (self);
  GST_OBJECT_UNLOCK (self);
  gst_query_set_latency (query, live, gst_cuda_graph_batch_add_time (min, own),
      GST_CLOCK_TIME_IS_VALID (max) ? gst_cuda_graph_batch_add_time (max, own)
                                    : GST_CLOCK_TIME_NONE);
  return TRUE;
}

/* --- output -------------------------------------------------------------- */

static void
push_stream_start (GstCudaGraphBatch *self)
{
  g_autofree gchar *id = NULL;
  GstEvent *ev;

  if (!self->send_stream_start)
    return;
  self->send_stream_start = FALSE;
  /* A new stream of our own (gst_pad_create_stream_id() wants at most
   * one sink pad): random, as it makes one without upstream ids. */
  id = g_strdup_printf ("%08x%08x%08x%08x", g_random_int (), g_random_int (),
      g_random_int (), g_random_int ());
  ev = gst_event_new_stream_start (id);
  gst_event_set_group_id (ev, gst_util_group_id_next ());
  gst_pad_push_event (self->srcpad, ev);
}

/* Stream-start and segment before a batch or EOS. */
static void
push_pending (GstCudaGraphBatch *self)
{
  push_stream_start (self);
  if (!self->send_segment)
    return;
  self->send_segment = FALSE;
  gst_pad_push_event (self->srcpad, gst_event_new_segment (&self->out_segment));
}

GstFlowReturn
gst_cuda_graph_batch_finish_buffer (GstCudaGraphBatch *self, GstBuffer *buffer)
{
  push_pending (self);
  return gst_pad_push (self->srcpad, buffer);
}

static void
push_eos (GstCudaGraphBatch *self)
{
  if (self->eos_sent)
    return;
  self->eos_sent = TRUE;
  push_pending (self);
  gst_pad_push_event (self->srcpad, gst_event_new_eos ());
}

/* --- negotiation and allocation ------------------------------------------ */

static void
set_allocation (GstCudaGraphBatch *self, GstBufferPool *pool,
    GstAllocator *allocator, const GstAllocationParams *params)
{
  GstBufferPool *old_pool;
  GstAllocator *old_allocator;

  GST_OBJECT_LOCK (self);
  old_pool = self->pool;
  old_allocator = self->allocator;
  self->pool = pool;
  self->allocator = allocator;
  if (params)
    self->alloc_params = *params;
  else
    gst_allocation_params_init (&self->alloc_params);
  GST_OBJECT_UNLOCK (self);
  if (old_pool) {
    gst_buffer_pool_set_active (old_pool, FALSE);
    gst_object_unref (old_pool);
  }
  gst_clear_object (&old_allocator);
}

GstBufferPool *
gst_cuda_graph_batch_get_buffer_pool (GstCudaGraphBatch *self)
{
  GstBufferPool *pool;

  GST_OBJECT_LOCK (self);
  pool = self->pool ? gst_object_ref (self->pool) : NULL;
  GST_OBJECT_UNLOCK (self);
  return pool;
}

void
gst_cuda_graph_batch_get_allocator (GstCudaGraphBatch *self,
    GstAllocator **allocator, GstAllocationParams *params)
{
  GST_OBJECT_LOCK (self);
  *allocator = self->allocator ? gst_object_ref (self->allocator) : NULL;
  *params = self->alloc_params;
  GST_OBJECT_UNLOCK (self);
}

/* Downstream's ALLOCATION answer for @caps, decided on, kept. */
static gboolean
do_allocation (GstCudaGraphBatch *self, GstCaps *caps)
{
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstAllocator *allocator = NULL;
  GstAllocationParams params;

  gst_allocation_params_init (&params);
  if (!gst_pad_peer_query (self->srcpad, query))
    GST_DEBUG_OBJECT (self, "no ALLOCATION answer downstream");
  if (!gst_cuda_graph_batch_decide_allocation (self, query)) {
    gst_query_unref (query);
    return FALSE;
  }
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  if (gst_query_get_n_allocation_params (query) > 0)
    gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
  gst_query_unref (query);
  set_allocation (self, pool, allocator, &params);
  return TRUE;
}

static gboolean
negotiate (GstCudaGraphBatch *self)
{
  g_autoptr (GstCaps) templ = gst_pad_get_pad_template_caps (self->srcpad);
  g_autoptr (GstCaps) peer = gst_pad_peer_query_caps (self->srcpad, templ);
  g_autoptr (GstCaps) current = NULL;
  g_autoptr (GstCaps) caps = NULL;

  self->negotiation_said = FALSE;
  if (gst_caps_is_empty (peer)
      || gst_cuda_graph_batch_update_src_caps (self, peer, &caps) != GST_FLOW_OK
      || gst_caps_is_empty (caps))
    return FALSE;
  caps = gst_caps_fixate (g_steal_pointer (&caps));
  if (!gst_cuda_graph_batch_negotiated_src_caps (self, caps))
    return FALSE;
  push_stream_start (self);
  current = gst_pad_get_current_caps (self->srcpad);
  if (current == NULL || !gst_caps_is_equal (current, caps))
    gst_pad_push_event (self->srcpad, gst_event_new_caps (caps));
  if (do_allocation (self, caps))
    return TRUE;
  /* Every refusal there (the CUDA pool's) posted its error: one failure,
   * one error. */
  self->negotiation_said = TRUE;
  return FALSE;
}

/* --- the collector task -------------------------------------------------- */

/* A look at every pad's head (applying the events before it): whether
 * each one that counts has a frame or is at EOS (live, a stream that
 * never delivered does not count), with the first that does not in
 * *@not_ready (a ref), whether any has a frame, whether all are at
 * EOS. */
typedef struct
{
  gboolean ready, any_buffer, all_eos;
  GstCudaGraphBatchPad *not_ready;
} Heads;

static void
look (GstCudaGraphBatch *self, gboolean live, Heads *h)
{
  GList *pads = gst_cuda_graph_batch_list_sink_pads (self);

  memset (h, 0, sizeof (*h));
  h->ready = pads != NULL;
  h->all_eos = pads != NULL;
  for (GList *l = pads; l; l = l->next) {
    GstCudaGraphBatchPad *pad = l->data;
    GstBuffer *head = gst_cuda_graph_batch_peek (self, pad);
    gboolean eos = head == NULL && gst_cuda_graph_batch_pad_is_eos (pad);

    h->any_buffer |= head != NULL;
    h->all_eos &= eos;
    if (head == NULL && !eos
        && !(live && gst_cuda_graph_batch_pad_is_inactive (pad))) {
      if (h->not_ready == NULL)
        h->not_ready = gst_object_ref (pad);
      h->ready = FALSE;
    }
    gst_clear_buffer (&head);
  }
  g_list_free_full (pads, gst_object_unref);
}

static guint
count_items (GstCudaGraphBatch *self)
{
  GList *pads = gst_cuda_graph_batch_list_sink_pads (self);
  guint n = 0;

  for (GList *l = pads; l; l = l->next)
    n += gst_cuda_graph_batch_queue_n_items (
        gst_cuda_graph_batch_pad_get_queue (l->data));
  g_list_free_full (pads, gst_object_unref);
  return n;
}

/* The live deadline on the pipeline clock (NONE: none), with the clock
 * in *@clock (a ref). */
static GstClockTime
deadline (GstCudaGraphBatch *self, GstClock **clock)
{
  GstClockTime latency = gst_cuda_graph_batch_get_latency (self);
  GstClockTime at = GST_CLOCK_TIME_NONE;

  *clock = NULL;
  if (!GST_CLOCK_TIME_IS_VALID (latency))
    return at;
  GST_OBJECT_LOCK (self);
  if (GST_ELEMENT_CLOCK (self) && GST_CLOCK_TIME_IS_VALID (self->next_time)) {
    *clock = gst_object_ref (GST_ELEMENT_CLOCK (self));
    at = gst_cuda_graph_batch_add_time (
        gst_cuda_graph_batch_add_time (GST_ELEMENT_CAST (self)->base_time,
            self->next_time),
        latency);
  }
  GST_OBJECT_UNLOCK (self);
  return at;
}

/* A deadline passed: the pads that never delivered are inactive from now
 * on (live). */
static void
note_deadline (GstCudaGraphBatch *self)
{
  GList *pads = gst_cuda_graph_batch_list_sink_pads (self);

  for (GList *l = pads; l; l = l->next)
    gst_cuda_graph_batch_pad_note_deadline (l->data);
  g_list_free_full (pads, gst_object_unref);
}

/* Waits for @pad's next item (NULL: any pad's, told by the queues'
 * count moving from @items), a kick since @ticket, or the deadline;
 * TRUE when the deadline came. */
static gboolean
wait_for (GstCudaGraphBatch *self, GstCudaGraphBatchPad *pad, guint items,
    guint64 ticket)
{
  GstCudaGraphBatchCollector *c = &self->collector;
  GstClock *clock;
  GstClockTime at = deadline (self, &clock);
  gboolean arrived, woken;

  if (pad) {
    gst_cuda_graph_batch_collector_publish (c,
        gst_cuda_graph_batch_pad_get_queue (pad));
    arrived = gst_cuda_graph_batch_queue_has_item (
        gst_cuda_graph_batch_pad_get_queue (pad));
  } else {
    gst_cuda_graph_batch_collector_publish (c,
        GST_CUDA_GRAPH_BATCH_COLLECTOR_ANY);
    arrived = count_items (self) != items;
  }
  if (arrived) {
    gst_cuda_graph_batch_collector_cancel (c);
    gst_clear_object (&clock);
    return FALSE;
  }
  woken = gst_cuda_graph_batch_collector_wait (c, ticket, clock, at);
  gst_clear_object (&clock);
  if (!woken)
    note_deadline (self);
  return !woken;
}

/* The first buffer starts the deadlines (GstAggregator's start-time
 * zero). */
static void
start_time (GstCudaGraphBatch *self, const Heads *h)
{
  GST_OBJECT_LOCK (self);
  if (h->any_buffer && !GST_CLOCK_TIME_IS_VALID (self->next_time))
    self->next_time = 0;
  GST_OBJECT_UNLOCK (self);
}

/* Negotiates when nothing is (or on reconfigure), once frames or EOS are
 * there: the caps take the streams' frame rate. */
static gboolean
ensure_negotiated (GstCudaGraphBatch *self, const Heads *h)
{
  gboolean reconfigure = gst_pad_check_reconfigure (self->srcpad);

  if (self->engine && !reconfigure)
    return TRUE;
  if (!h->any_buffer && !h->all_eos) {
    if (reconfigure)
      gst_pad_mark_reconfigure (self->srcpad);
    return TRUE;
  }
  if (negotiate (self))
    return TRUE;
  gst_pad_mark_reconfigure (self->srcpad);
  return GST_PAD_IS_FLUSHING (self->srcpad);
}

/* The task stops on @ret (not OK): EOS downstream, an error posted as
 * the other elements do for a flow they cannot go on from, unless
 * @said: one that says why was posted already. */
static void
stop_on (GstCudaGraphBatch *self, GstFlowReturn ret, gboolean said)
{
  GST_OBJECT_LOCK (self);
  self->flow = ret;
  GST_OBJECT_UNLOCK (self);
  if (ret == GST_FLOW_FLUSHING) {
    gst_pad_pause_task (self->srcpad);
    return;
  }
  if (!said && (ret == GST_FLOW_NOT_LINKED || ret < GST_FLOW_EOS))
    GST_ELEMENT_FLOW_ERROR (self, ret);
  /* Every batch done: each stream's branch gets the rest of its frames
   * and its own EOS. */
  gst_cuda_graph_batch_drain_cameras (self, NULL, TRUE);
  push_eos (self);
  gst_pad_pause_task (self->srcpad);
}

/* One round: a look at the pads, a collect step when every pad that
 * counts has its frame (or EOS), else (or when the window is not
 * complete) a wait for the pad it needs, until the live deadline, after
 * which the step runs with the timeout.  The task calls it again. */
static void
collector_loop (gpointer data)
{
  GstCudaGraphBatch *self = data;
  guint64 ticket = gst_cuda_graph_batch_collector_ticket (&self->collector);
  GstCudaGraphBatchPad *waiting = NULL;
  gboolean live, progress = FALSE;
  GstFlowReturn ret = GST_FLOW_OK;
  Heads h;

  if (GST_PAD_IS_FLUSHING (self->srcpad)) {
    gst_pad_pause_task (self->srcpad);
    return;
  }
  /* Input paused with frames waiting on their batch: out they go. */
  if (g_atomic_int_compare_and_exchange (&self->idle_kicked, TRUE, FALSE)) {
    ret = gst_cuda_graph_batch_drain_cameras (self, NULL, FALSE);
    if (ret != GST_FLOW_OK) {
      stop_on (self, ret, FALSE);
      return;
    }
  }
  live = GST_CLOCK_TIME_IS_VALID (gst_cuda_graph_batch_get_latency (self));
  look (self, live, &h);
  start_time (self, &h);
  if (!ensure_negotiated (self, &h)) {
    g_clear_object (&h.not_ready);
    /* One failure, one error: the cause where it was said. */
    if (!self->negotiation_said)
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("Cannot negotiate the batch tensor's caps downstream"), (NULL));
    stop_on (self, GST_FLOW_NOT_NEGOTIATED, TRUE);
    return;
  }
  if (self->engine && (h.ready || h.all_eos)) {
    ret = gst_cuda_graph_batch_step (self, FALSE, &progress, &waiting);
    if (ret != GST_FLOW_OK || progress)
      goto done;
  } else {
    waiting = g_steal_pointer (&h.not_ready);
  }
  if (wait_for (self, waiting, count_items (self), ticket) && self->engine) {
    g_clear_object (&waiting);
    ret = gst_cuda_graph_batch_step (self, TRUE, &progress, &waiting);
  }

done:
  g_clear_object (&h.not_ready);
  g_clear_object (&waiting);
  if (ret != GST_FLOW_OK)
    stop_on (self, ret, FALSE);
}

/* --- the src pad ---------------------------------------------------------- */

static gboolean
src_activate_mode (GstPad *pad, GstObject *parent, GstPadMode mode,
    gboolean active)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (parent);
  gboolean ret;

  if (mode != GST_PAD_MODE_PUSH)
    return FALSE;
  if (active) {
    g_autoptr (GError) error = NULL;

    if (!gst_cuda_graph_idle_watch_start (&self->idle, "gcg-batch-idle",
            GST_CUDA_GRAPH_BATCH_IDLE_US, gst_cuda_graph_batch_kick_idle, self,
            &error)) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Cannot start the batch's idle thread: %s", error->message), (NULL));
      return FALSE;
    }
    return gst_pad_start_task (pad, collector_loop, self, NULL);
  }
  gst_cuda_graph_batch_set_pads_flushing (self, TRUE);
  gst_cuda_graph_batch_collector_kick (&self->collector);
  ret = gst_pad_stop_task (pad);
  gst_cuda_graph_idle_watch_stop (&self->idle);
  return ret;
}

gboolean
gst_cuda_graph_batch_src_flush_start (GstCudaGraphBatch *self, GstEvent *event)
{
  gboolean ret = gst_pad_push_event (self->srcpad, event);

  gst_cuda_graph_batch_collector_kick (&self->collector);
  gst_pad_pause_task (self->srcpad);
  return ret;
}

gboolean
gst_cuda_graph_batch_src_flush_stop (GstCudaGraphBatch *self, GstEvent *event)
{
  gboolean ret;

  GST_PAD_STREAM_LOCK (self->srcpad);
  gst_cuda_graph_batch_retire_all (self);
  gst_cuda_graph_batch_reset_window (self);
  GST_OBJECT_LOCK (self);
  self->next_time = GST_CLOCK_TIME_NONE;
  self->flow = GST_FLOW_OK;
  GST_OBJECT_UNLOCK (self);
  self->send_segment = TRUE;
  self->eos_sent = FALSE;
  GST_PAD_STREAM_UNLOCK (self->srcpad);
  ret = gst_pad_push_event (self->srcpad, event);
  if (GST_PAD_IS_ACTIVE (self->srcpad))
    gst_pad_start_task (self->srcpad, collector_loop, self, NULL);
  return ret;
}

/* A flushing seek: its flushes, coming back on every pad, go downstream
 * once; every stream is asked. */
static gboolean
forward_seek (GstCudaGraphBatch *self, GstEvent *event)
{
  GList *pads = gst_cuda_graph_batch_list_sink_pads (self);
  GstSeekFlags flags;
  gboolean ok = pads != NULL;

  gst_event_parse_seek (event, NULL, NULL, &flags, NULL, NULL, NULL, NULL);
  if (flags & GST_SEEK_FLAG_FLUSH) {
    GST_OBJECT_LOCK (self);
    self->seek_seqnum = gst_event_get_seqnum (event);
    GST_OBJECT_UNLOCK (self);
  }
  for (GList *l = pads; l; l = l->next)
    ok &= gst_pad_push_event (l->data, gst_event_ref (event));
  g_list_free_full (pads, gst_object_unref);
  gst_event_unref (event);
  return ok;
}

static gboolean
src_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_SEEK)
    return forward_seek (GST_CUDA_GRAPH_BATCH (parent), event);
  return gst_pad_event_default (pad, parent, event);
}

static gboolean
src_query (GstPad *pad, GstObject *parent, GstQuery *query)
{
  GstCudaGraphBatch *self = GST_CUDA_GRAPH_BATCH (parent);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_LATENCY:
      return answer_latency (self, query);
    case GST_QUERY_CONTEXT:
      if (gst_cuda_graph_device_context_query (GST_ELEMENT (self), query,
              &self->gst_context))
        return TRUE;
      break;
    default:
      break;
  }
  return gst_pad_query_default (pad, parent, query);
}

GstPad *
gst_cuda_graph_batch_src_new (GstCudaGraphBatch *self, GstPadTemplate *templ)
{
  GstPad *pad = gst_pad_new_from_template (templ, "src");

  gst_pad_set_activatemode_function (pad,
      GST_DEBUG_FUNCPTR (src_activate_mode));
  gst_pad_set_event_function (pad, GST_DEBUG_FUNCPTR (src_event));
  gst_pad_set_query_function (pad, GST_DEBUG_FUNCPTR (src_query));
  return pad;
}

/* Before the pads start (READY to PAUSED): a new stream downstream. */
void
gst_cuda_graph_batch_src_reset (GstCudaGraphBatch *self)
{
  GST_OBJECT_LOCK (self);
  self->have_latency = FALSE;
  self->src_flushing = FALSE;
  self->seek_seqnum = GST_SEQNUM_INVALID;
  self->flow = GST_FLOW_OK;
  self->next_time = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (self);
  self->send_stream_start = self->send_segment = TRUE;
  self->eos_sent = FALSE;
  gst_segment_init (&self->out_segment, GST_FORMAT_TIME);
}

/* After they stopped: the pool and allocator go. */
void
gst_cuda_graph_batch_src_clear (GstCudaGraphBatch *self)
{
  set_allocation (self, NULL, NULL, NULL);
}
