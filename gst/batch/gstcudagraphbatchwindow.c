/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Which frames a batch takes: batches are windows of running time, of
 * batch-duration, or (batch-duration 0) one frame long (the shortest frame
 * duration among the streams), so that a batch holds frames of the same
 * moment and a fast stream is never held to a slow one's rate.  Frame-long
 * windows of a frame rate start exactly k frames after the first (never a
 * truncated duration added up) and hold the frames nearest their start,
 * from half a frame before it (window_slack), whichever way the streams
 * round their times.
 *
 * Collecting a window: each pad's frames that start before the window's
 * end are taken from its queue into the pad's held frames, as its
 * batch-strategy says (all, the first, the last); frames before the
 * window's start are late and dropped (a window that left is never
 * reopened).  A pad is done with the window when its frames cover the
 * window's end (the next cannot start inside it), its next frame lies
 * past the window, it is at EOS, or (live) the deadline passed.  Then the
 * held frames leave in batches of up to batch-size frames, pads taking
 * turns when there are more frames than slots; a stream with none is
 * listed as an empty slot in the batch meta.
 *
 * The window's start is the next deadline's base (next_time), so the
 * collector's live deadline is the window's start plus the latency, which
 * includes the window (gst_cuda_graph_batch_set_window_latency()): a live
 * batch leaves once its window has passed and the `timeout` after it.
 */
#include "gstcudagraphbatch-private.h"

#define GST_CAT_DEFAULT gst_cuda_graph_batch_debug

/* How long a frame of @pad lasts: from the caps' frame rate (steady, so
 * the latency does not move with every buffer; the rate in @fps_n /
 * @fps_d when not NULL), else @buf's duration (rate 0/0); NONE when
 * neither says.  Never 0 (a rate past 1e9/s in the caps): a window of no
 * time would hold no frame, and the next would start at the same
 * place. */
static GstClockTime
frame_duration_rate (GstCudaGraphBatchPad *pad, GstBuffer *buf, gint *fps_n,
    gint *fps_d)
{
  const GstVideoInfo *info = gst_cuda_graph_batch_pad_get_info (pad);
  GstClockTime d = 0;

  *fps_n = *fps_d = 0;
  if (info != NULL && GST_VIDEO_INFO_FPS_N (info) > 0
      && GST_VIDEO_INFO_FPS_D (info) > 0)
    d = gst_util_uint64_scale_int (GST_SECOND, GST_VIDEO_INFO_FPS_D (info),
        GST_VIDEO_INFO_FPS_N (info));
  if (d > 0) {
    *fps_n = GST_VIDEO_INFO_FPS_N (info);
    *fps_d = GST_VIDEO_INFO_FPS_D (info);
  } else if (GST_BUFFER_DURATION_IS_VALID (buf)) {
    d = GST_BUFFER_DURATION (buf);
  }
  return d > 0 ? d : GST_CLOCK_TIME_NONE;
}

static GstClockTime
frame_duration (GstCudaGraphBatchPad *pad, GstBuffer *buf)
{
  gint n, d;

  return frame_duration_rate (pad, buf, &n, &d);
}

static GstClockTime
min_time (GstClockTime a, GstClockTime b)
{
  if (!GST_CLOCK_TIME_IS_VALID (a))
    return b;
  if (!GST_CLOCK_TIME_IS_VALID (b))
    return a;
  return MIN (a, b);
}

/* How far apart @a and @b lie, whichever comes first. */
static GstClockTime
time_distance (GstClockTime a, GstClockTime b)
{
  return a > b ? a - b : b - a;
}

static GstCudaGraphBatchPadWindow *
pad_window (gpointer pad)
{
  return gst_cuda_graph_batch_pad_get_window (
      GST_CUDA_GRAPH_BATCH_PAD_CAST (pad));
}

/* The strategy read for the window being collected (collect()). */
static GstCudaGraphBatchStrategy
strategy_of (gpointer pad)
{
  return pad_window (pad)->strategy;
}

/* One frame per window, the first (or, with overlap, the nearest). */
static gboolean
takes_first (gpointer pad)
{
  GstCudaGraphBatchStrategy st = strategy_of (pad);

  return st == GST_CUDA_GRAPH_BATCH_STRATEGY_FIRST_IN_BATCH
      || st == GST_CUDA_GRAPH_BATCH_STRATEGY_FIRST_IN_BATCH_WITH_OVERLAP;
}

static gboolean
overlaps (gpointer pad)
{
  return strategy_of (pad)
      == GST_CUDA_GRAPH_BATCH_STRATEGY_FIRST_IN_BATCH_WITH_OVERLAP;
}

/* The frames of a window: its start, the shortest frame among the
 * streams (nominal, truncated to the ns) and that stream's frame rate
 * (0/0: from a buffer's duration). */
typedef struct
{
  GstClockTime earliest, duration;
  gint fps_n, fps_d;
} Heads;

/* The earliest head frame's running time and the shortest frame duration
 * among @pads' head frames, with its rate; whether any pad holds frames (a
 * spare included). */
static gboolean
scan_heads (GstCudaGraphBatch *self, GList *pads, Heads *h)
{
  gboolean held = FALSE;

  h->earliest = h->duration = GST_CLOCK_TIME_NONE;
  h->fps_n = h->fps_d = 0;
  for (GList *l = pads; l; l = l->next) {
    GstCudaGraphBatchPad *pad = l->data;
    GstBuffer *head = gst_cuda_graph_batch_peek (self, pad);
    GstClockTime d;
    gint n, dn;

    held |= !g_queue_is_empty (&pad_window (pad)->held)
        || pad_window (pad)->spare != NULL;
    if (head == NULL)
      continue;
    h->earliest =
        min_time (h->earliest, gst_cuda_graph_batch_running_time (pad, head));
    d = frame_duration_rate (pad, head, &n, &dn);
    if (GST_CLOCK_TIME_IS_VALID (d)
        && (!GST_CLOCK_TIME_IS_VALID (h->duration) || d < h->duration)) {
      h->duration = d;
      h->fps_n = n;
      h->fps_d = dn;
    }
    gst_buffer_unref (head);
  }
  return held;
}

/* Where window @k after the origin starts: exactly @k frames of the rate
 * after it, or @k windows of the duration when no rate says. */
static GstClockTime
window_bound (GstCudaGraphBatch *self, guint64 k)
{
  guint64 offset;

  if (self->window_fps_n > 0)
    offset = gst_util_uint64_scale (k,
        (guint64) self->window_fps_d * GST_SECOND, self->window_fps_n);
  else if (self->window_duration > 0 && k > G_MAXUINT64 / self->window_duration)
    offset = GST_CLOCK_TIME_NONE - 1;
  else
    offset = k * self->window_duration;
  return gst_cuda_graph_batch_add_time (self->window_origin,
      MIN (offset, GST_CLOCK_TIME_NONE - 1));
}

/* Windows from now on are counted from @start. */
static void
set_origin (GstCudaGraphBatch *self, GstClockTime start)
{
  self->window_start = self->window_origin = start;
  self->window_index = 0;
}

/* Where the current window ends (the next one starts). */
static GstClockTime
window_end (GstCudaGraphBatch *self)
{
  return window_bound (self, self->window_index + 1);
}

/* Where the frames of a window end and those of the next start: half a
 * frame before the boundary for frame-long windows (window_slack), at it
 * for fixed ones, and at the end of time for a window that reaches it
 * (saturated: half a frame before it could lie before the window's
 * start). */
static GstClockTime
frames_end (GstCudaGraphBatch *self)
{
  GstClockTime end = window_end (self);

  if (end >= GST_CLOCK_TIME_NONE - 1)
    return end;
  return end > self->window_slack ? end - self->window_slack : 0;
}

/* The frame-long windows' rate changed (or they became fixed ones): the
 * windows from the current one on are counted at the new rate. */
static void
set_window_rate (GstCudaGraphBatch *self, gint fps_n, gint fps_d)
{
  if (fps_n == self->window_fps_n && fps_d == self->window_fps_d)
    return;
  self->window_fps_n = fps_n;
  self->window_fps_d = fps_d;
  if (GST_CLOCK_TIME_IS_VALID (self->window_start))
    set_origin (self, self->window_start);
}

/* The window's length changed: the collector's deadline and the latency
 * reported include it. */
static void
set_window_duration (GstCudaGraphBatch *self, GstClockTime duration)
{
  if (duration == self->window_duration)
    return;
  self->window_duration = duration;
  GST_DEBUG_OBJECT (self, "batch window %" GST_TIME_FORMAT,
      GST_TIME_ARGS (duration));
  gst_cuda_graph_batch_set_window_latency (self,
      GST_CLOCK_TIME_IS_VALID (duration) ? duration : 0);
}

/* The next window with a frame in it when every head frame lies past the
 * current one (a gap in all streams) and nothing is held: fixed windows
 * move by whole windows (they stay on their grid), frame-long ones start
 * at the earliest head frame. */
static void
skip_gap (GstCudaGraphBatch *self, GstClockTime earliest, gboolean fixed)
{
  GstClockTime start = self->window_start, dur = self->window_duration;

  if (!GST_CLOCK_TIME_IS_VALID (start) || !fixed)
    set_origin (self, earliest);
  else
    set_origin (self, start + (earliest - start) / dur * dur);
}

/* Where the next batch's window starts, from @pads' head frames; returns
 * the window's end, NONE when nothing says how long a window lasts (then
 * every pad's head frame is taken, as without windows).  The window moves
 * forward over a gap in all streams, never backwards. */
GstClockTime
gst_cuda_graph_batch_open_window (GstCudaGraphBatch *self, GList *pads)
{
  GstClockTime fixed;
  Heads h;
  gboolean held = scan_heads (self, pads, &h);

  GST_OBJECT_LOCK (self);
  fixed = self->batch_duration;
  GST_OBJECT_UNLOCK (self);
  if (fixed > 0) {
    set_window_duration (self, fixed);
    set_window_rate (self, 0, 0);
  } else if (GST_CLOCK_TIME_IS_VALID (h.duration)) {
    set_window_duration (self, h.duration);
    set_window_rate (self, h.fps_n, h.fps_d);
  }
  if (!GST_CLOCK_TIME_IS_VALID (self->window_duration))
    return GST_CLOCK_TIME_NONE;
  self->window_slack = fixed > 0 ? 0 : self->window_duration / 2;
  if (GST_CLOCK_TIME_IS_VALID (h.earliest) && !held
      && (!GST_CLOCK_TIME_IS_VALID (self->window_start)
          || h.earliest >= frames_end (self)))
    skip_gap (self, h.earliest, fixed > 0);
  if (!GST_CLOCK_TIME_IS_VALID (self->window_start))
    return GST_CLOCK_TIME_NONE;
  return frames_end (self);
}

/* The window is done (its batches left, or it passed empty): the next one
 * starts where it ends, and so does the collector's next deadline. */
void
gst_cuda_graph_batch_close_window (GstCudaGraphBatch *self,
    GstClockTime fallback)
{
  GstClockTime next = fallback;

  /* A window that reaches the end of time (saturated) has no next one:
   * it stays, rather than give way to a window of no time, which could
   * hold no frame. */
  if (GST_CLOCK_TIME_IS_VALID (self->window_start)
      && GST_CLOCK_TIME_IS_VALID (self->window_duration)
      && window_end (self) < GST_CLOCK_TIME_NONE - 1) {
    self->window_start = window_end (self);
    self->window_index++;
    next = self->window_start;
  }
  if (!GST_CLOCK_TIME_IS_VALID (next))
    return;
  GST_OBJECT_LOCK (self);
  self->next_time = next;
  GST_OBJECT_UNLOCK (self);
}

/* No window yet and nothing held: after a flush or a new start.  A fixed
 * window's length is known already, so the latency reported before the
 * first frame includes it. */
void
gst_cuda_graph_batch_reset_window (GstCudaGraphBatch *self)
{
  GList *pads = gst_cuda_graph_batch_list_sink_pads (self);
  GstClockTime fixed;

  for (GList *l = pads; l; l = l->next)
    gst_cuda_graph_batch_pad_clear_held (l->data);
  g_list_free_full (pads, gst_object_unref);
  GST_OBJECT_LOCK (self);
  fixed = self->batch_duration;
  GST_OBJECT_UNLOCK (self);
  self->window_start = GST_CLOCK_TIME_NONE;
  self->window_fps_n = self->window_fps_d = 0;
  self->window_slack = 0;
  set_window_duration (self, fixed > 0 ? fixed : GST_CLOCK_TIME_NONE);
}

/* --- late frames --------------------------------------------------------- */

/* A frame that starts before the window being collected: its window has
 * left, so it is dropped (never put into a later batch, where it would
 * sit next to frames of another moment), counted and reported, as a sink
 * reports a frame it drops (a QoS message with the frames batched and
 * dropped so far). */
static void
drop_late (GstCudaGraphBatch *self, GstCudaGraphBatchPad *pad, GstBuffer *buf,
    GstClockTime rt)
{
  guint64 dropped, processed;
  GstMessage *qos;

  GST_OBJECT_LOCK (self);
  dropped = ++self->dropped_late;
  processed = self->frames;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (pad,
      "late frame at %" GST_TIME_FORMAT ", window starts "
      "at %" GST_TIME_FORMAT ": dropped",
      GST_TIME_ARGS (rt), GST_TIME_ARGS (self->window_start));
  qos = gst_message_new_qos (GST_OBJECT (self), TRUE, rt, GST_CLOCK_TIME_NONE,
      GST_BUFFER_PTS (buf), GST_BUFFER_DURATION (buf));
  gst_message_set_qos_stats (qos, GST_FORMAT_BUFFERS, processed, dropped);
  gst_element_post_message (GST_ELEMENT (self), qos);
  gst_cuda_graph_batch_pad_drop_frame (pad, buf);
}

/* Where the frames of the window being collected start (frames_end()). */
static GstClockTime
frames_start (GstCudaGraphBatch *self)
{
  return self->window_start > self->window_slack
      ? self->window_start - self->window_slack
      : 0;
}

/* Half a window before its start: how early a first-in-batch-with-overlap
 * frame may start. */
static GstClockTime
overlap_start (GstCudaGraphBatch *self)
{
  GstClockTime half = self->window_duration / 2;

  return self->window_start > half ? self->window_start - half : 0;
}

/* Whether @pad has a head frame, with its running time in @rt. */
static gboolean
peek_time (GstCudaGraphBatch *self, GstCudaGraphBatchPad *pad, GstClockTime *rt)
{
  GstBuffer *head = gst_cuda_graph_batch_peek (self, pad);

  if (head == NULL)
    return FALSE;
  *rt = gst_cuda_graph_batch_running_time (pad, head);
  gst_buffer_unref (head);
  return TRUE;
}

/* Drops @pad's head frames that start before the window: late ones
 * (counted), or, for first-in-batch, ones of a window the pad already had
 * its frame in (passed over).  With overlap, one that starts at most half
 * a window early is kept as the pad's spare instead (the latest such).
 * Returns whether it stopped at a head frame, with its running time in
 * @head_rt (so the caller need not look at it again: each look takes the
 * pad's locks). */
static gboolean
drop_before_window (GstCudaGraphBatch *self, GstCudaGraphBatchPad *pad,
    GstClockTime *head_rt)
{
  GstCudaGraphBatchPadWindow *w = pad_window (pad);
  GstBuffer *head;
  GstClockTime rt;

  if (!GST_CLOCK_TIME_IS_VALID (self->window_start))
    return FALSE;
  while (peek_time (self, pad, &rt)) {
    if (!GST_CLOCK_TIME_IS_VALID (rt) || rt >= frames_start (self)) {
      *head_rt = rt;
      return TRUE;
    }
    head = gst_cuda_graph_batch_pop (self, pad);
    if (head == NULL)
      break;                    /* flushed meanwhile */
    if (overlaps (pad) && rt >= overlap_start (self)) {
      if (w->spare != NULL)
        gst_cuda_graph_batch_pad_drop_frame (pad, w->spare);
      w->spare = head;
    } else if (takes_first (pad) && GST_CLOCK_TIME_IS_VALID (w->taken_until)
        && rt < w->taken_until) {
      GST_LOG_OBJECT (pad, "passing over a frame at %" GST_TIME_FORMAT,
          GST_TIME_ARGS (rt));
      gst_cuda_graph_batch_pad_drop_frame (pad, head);
    } else {
      drop_late (self, pad, head, rt);
    }
  }
  return FALSE;
}

/* --- collecting a window ------------------------------------------------- */

/* @pad holds queue-depth frames of the window already: @buf is dropped,
 * said once (until a flush or a restart) with what would keep it. */
static void
drop_over_depth (GstCudaGraphBatch *self, GstCudaGraphBatchPad *pad,
    GstBuffer *buf)
{
  GstCudaGraphBatchPadWindow *w = pad_window (pad);
  GstClockTime duration;

  GST_LOG_OBJECT (pad,
      "window full (%u frames): frame at %" GST_TIME_FORMAT " dropped",
      self->held_max,
      GST_TIME_ARGS (gst_cuda_graph_batch_running_time (pad, buf)));
  gst_cuda_graph_batch_pad_drop_frame (pad, buf);
  if (w->warned_full)
    return;
  w->warned_full = TRUE;
  GST_OBJECT_LOCK (self);
  duration = self->batch_duration;
  GST_OBJECT_UNLOCK (self);
  GST_ELEMENT_WARNING (self, STREAM, FAILED,
      ("%s: more than queue-depth=%u frames start in one batch window "
       "(batch-duration=%" G_GUINT64_FORMAT " ns): the window's later "
       "frames from this stream are dropped",
          GST_PAD_NAME (pad), self->held_max, duration),
      ("shorten batch-duration, raise queue-depth (at most %u), or set "
       "%s::batch-strategy to first-in-batch or last-in-batch",
          GST_CUDA_GRAPH_BATCH_MAX_QUEUE_DEPTH, GST_PAD_NAME (pad)));
}

/* @buf (taken from @pad) into the pad's held frames, as its strategy
 * says, up to queue-depth of them. */
static void
hold_frame (GstCudaGraphBatch *self, GstCudaGraphBatchPad *pad, GstBuffer *buf)
{
  GQueue *held = &pad_window (pad)->held;

  if (buf == NULL)
    return;                     /* the pad was flushed meanwhile */
  switch (strategy_of (pad)) {
    case GST_CUDA_GRAPH_BATCH_STRATEGY_FIRST_IN_BATCH:
    case GST_CUDA_GRAPH_BATCH_STRATEGY_FIRST_IN_BATCH_WITH_OVERLAP:
      if (!g_queue_is_empty (held)) {
        gst_cuda_graph_batch_pad_drop_frame (pad, buf);
        return;
      }
      break;
    case GST_CUDA_GRAPH_BATCH_STRATEGY_LAST_IN_BATCH:
      gst_cuda_graph_batch_pad_drop_held (pad, held);
      break;
    default:
      if (g_queue_get_length (held) >= self->held_max) {
        drop_over_depth (self, pad, buf);
        return;
      }
      break;
  }
  g_queue_push_tail (held, buf);
}

/* Whether @pad's held frames leave no room for another frame of its in
 * the window ending at @end: its last one lasts to the end (or it has its
 * first, for first-in-batch with or without overlap). */
static gboolean
held_covers (GstCudaGraphBatchPad *pad, GstClockTime end)
{
  GQueue *held = &pad_window (pad)->held;
  GstBuffer *last = g_queue_peek_tail (held);
  GstClockTime rt, dur;

  if (last == NULL)
    return FALSE;
  if (takes_first (pad))
    return TRUE;
  rt = gst_cuda_graph_batch_running_time (pad, last);
  dur = GST_BUFFER_DURATION_IS_VALID (last) ? GST_BUFFER_DURATION (last)
                                            : frame_duration (pad, last);
  return GST_CLOCK_TIME_IS_VALID (rt) && GST_CLOCK_TIME_IS_VALID (dur)
      && gst_cuda_graph_batch_add_time (rt, dur) >= end;
}

/* With overlap, a stream with no frame for the window ending at @end (none
 * inside it, no spare) takes its next frame when that starts at most half
 * a window after the end (@rt). */
static void
take_later (GstCudaGraphBatch *self, GstCudaGraphBatchPad *pad, GstClockTime rt,
    GstClockTime end)
{
  GstCudaGraphBatchPadWindow *w = pad_window (pad);

  if (!overlaps (pad) || w->spare != NULL || !g_queue_is_empty (&w->held)
      || rt >= gst_cuda_graph_batch_add_time (end, self->window_duration / 2))
    return;
  hold_frame (self, pad, gst_cuda_graph_batch_pop (self, pad));
}

/* The window is complete: a pad's spare (with overlap) replaces its frame
 * from inside or after the window when it starts closer to the window's
 * start, else it is passed over. */
static void
settle_spare (GstCudaGraphBatch *self, GstCudaGraphBatchPad *pad)
{
  GstCudaGraphBatchPadWindow *w = pad_window (pad);
  GstBuffer *chosen = g_queue_peek_head (&w->held);
  GstClockTime spare_rt, chosen_rt;

  if (w->spare == NULL)
    return;
  spare_rt = gst_cuda_graph_batch_running_time (pad, w->spare);
  chosen_rt = chosen ? gst_cuda_graph_batch_running_time (pad, chosen)
                     : GST_CLOCK_TIME_NONE;
  if (!GST_CLOCK_TIME_IS_VALID (chosen_rt)
      || time_distance (self->window_start, spare_rt)
          <= time_distance (chosen_rt, self->window_start)) {
    gst_cuda_graph_batch_pad_drop_held (pad, &w->held);
    g_queue_push_tail (&w->held, g_steal_pointer (&w->spare));
  }
  if (w->spare != NULL)
    gst_cuda_graph_batch_pad_drop_frame (pad, g_steal_pointer (&w->spare));
}

/* Takes @pad's frames for the window ending at @end (NONE: its head frame
 * only) into its held frames; returns whether the pad is done with the
 * window. */
static gboolean
collect_pad (GstCudaGraphBatch *self, GstCudaGraphBatchPad *bpad,
    GstClockTime end, gboolean live)
{
  GstCudaGraphBatchPad *pad = bpad;
  GstClockTime rt = GST_CLOCK_TIME_NONE;
  gboolean peeked = drop_before_window (self, pad, &rt);
  GstBuffer *buf;

  while (!held_covers (bpad, end) && (peeked || peek_time (self, pad, &rt))) {
    peeked = FALSE;
    if (GST_CLOCK_TIME_IS_VALID (end) && GST_CLOCK_TIME_IS_VALID (rt)
        && rt >= end) {
      take_later (self, bpad, rt, end);
      return TRUE;              /* its next frame is past the window */
    }
    buf = gst_cuda_graph_batch_pop (self, pad);
    if (buf == NULL)
      break;                    /* flushed meanwhile */
    hold_frame (self, bpad, buf);
    if (!GST_CLOCK_TIME_IS_VALID (end))
      return TRUE;              /* no windows: one frame per batch */
  }
  /* Live, a stream that never started does not hold the window back (nor
   * does the collector wait for it, as GstAggregator's
   * ignore-inactive-pads). */
  return held_covers (bpad, end) || gst_cuda_graph_batch_is_eos (self, pad)
      || (live && gst_cuda_graph_batch_pad_is_inactive (bpad));
}

gboolean
gst_cuda_graph_batch_collect (GstCudaGraphBatch *self, GList *pads,
    GstClockTime end, gboolean timeout, GstCudaGraphBatchPad **waiting)
{
  /* The latency is NONE unless upstream is live. */
  gboolean live =
      GST_CLOCK_TIME_IS_VALID (gst_cuda_graph_batch_get_latency (self));
  gboolean done = TRUE;

  *waiting = NULL;
  GST_OBJECT_LOCK (self);
  self->held_max = self->queue_depth;
  GST_OBJECT_UNLOCK (self);
  for (GList *l = pads; l; l = l->next)
    pad_window (l->data)->strategy =
        gst_cuda_graph_batch_pad_get_strategy (l->data);
  for (GList *l = pads; l; l = l->next) {
    gboolean pad_done = collect_pad (self, l->data, end, live);

    if (!pad_done && *waiting == NULL)
      *waiting = gst_object_ref (l->data);
    done &= pad_done;
  }
  if (!done && !timeout)
    return FALSE;
  g_clear_object (waiting);
  for (GList *l = pads; l; l = l->next)
    settle_spare (self, l->data);
  return TRUE;
}

/* --- batches of the window ----------------------------------------------- */

/* How many held frames each of @pads (in pad order) gives the next batch,
 * up to @max in all, counted from the pad after the last one the previous
 * batch took from: with fewer slots than frames, always counting from the
 * first pad would leave the later ones out for ever.  Returns the total. */
static guint
share_slots (GstCudaGraphBatch *self, GList *pads, guint *counts, guint max)
{
  guint n = g_list_length (pads), start, taken = 0, i;

  if (n == 0)
    return 0;
  start = self->next_pad % n;
  for (i = 0; i < n && taken < max; i++) {
    guint p = (start + i) % n;
    guint held =
        g_queue_get_length (&pad_window (g_list_nth_data (pads, p))->held);

    counts[p] = MIN (held, max - taken);
    taken += counts[p];
    if (counts[p] > 0)
      self->next_pad = p + 1;
  }
  return taken;
}

/* Streams that had no frame in the window and may still have some (not
 * at EOS), in pad order (refs): the batch meta's empty slots. */
GList *
gst_cuda_graph_batch_list_absent (GstCudaGraphBatch *self, GList *pads)
{
  GList *absent = NULL;

  for (GList *l = pads; l; l = l->next) {
    if (g_queue_is_empty (&pad_window (l->data)->held)
        && !gst_cuda_graph_batch_is_eos (self, l->data))
      absent = g_list_prepend (absent, gst_object_ref (l->data));
  }
  return g_list_reverse (absent);
}

gboolean
gst_cuda_graph_batch_fill (GstCudaGraphBatch *self, GList *pads, GList *absent,
    Batch *batch, guint max)
{
  g_autofree guint *counts = g_new0 (guint, g_list_length (pads));
  guint i = 0;
  gboolean any = share_slots (self, pads, counts, max) > 0;

  batch->window_start = self->window_start;
  batch->window_duration = GST_CLOCK_TIME_IS_VALID (self->window_start)
      ? window_end (self) - self->window_start
      : self->window_duration;
  for (GList *l = absent; l && batch->n_absent < G_N_ELEMENTS (batch->absent);
      l = l->next)
    batch->absent[batch->n_absent++] = gst_object_ref (l->data);
  /* Sources in pad order. */
  for (GList *l = pads; l; l = l->next, i++) {
    GstCudaGraphBatchPadWindow *w = pad_window (l->data);

    for (guint k = 0; k < counts[i]; k++) {
      GstBuffer *buf = g_queue_pop_head (&w->held);

      if (GST_CLOCK_TIME_IS_VALID (self->window_start))
        w->taken_until = frames_end (self);
      gst_cuda_graph_batch_take_frame (self, l->data, buf, batch);
    }
  }
  return any;
}
