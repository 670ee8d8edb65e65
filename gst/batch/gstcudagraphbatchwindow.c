/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Which frames a batch takes: batches are windows of running time, one
 * frame duration long (the shortest among the streams), so that a batch
 * holds frames of the same moment and a fast stream is never held to a
 * slow one's rate.  A stream whose head frame lies in a later window waits
 * for it; a stream with no frame in the window is left out of the batch.
 * Within a window, when more streams have a frame than a batch has slots,
 * streams take turns.
 *
 * The window's start is the output segment's position, so GstAggregator's
 * live deadline is the window's start plus the latency, which includes the
 * window (gst_aggregator_set_latency()): a live batch leaves once its
 * window has passed and the `timeout` after it.
 */
#include "gstcudagraphbatch-private.h"

#define GST_CAT_DEFAULT gst_cuda_graph_batch_debug

/* How long a frame of @pad lasts: from the caps' frame rate (steady, so
 * the latency does not move with every buffer), else its head buffer's
 * duration; NONE when neither says. */
static GstClockTime
frame_duration (GstCudaGraphBatchPad * pad, GstBuffer * head)
{
  const GstVideoInfo *info = gst_cuda_graph_batch_pad_get_info (pad);

  if (info != NULL && GST_VIDEO_INFO_FPS_N (info) > 0
      && GST_VIDEO_INFO_FPS_D (info) > 0)
    return gst_util_uint64_scale_int (GST_SECOND, GST_VIDEO_INFO_FPS_D (info),
        GST_VIDEO_INFO_FPS_N (info));
  if (GST_BUFFER_DURATION_IS_VALID (head) && GST_BUFFER_DURATION (head) > 0)
    return GST_BUFFER_DURATION (head);
  return GST_CLOCK_TIME_NONE;
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

/* The earliest head frame's running time and the shortest frame duration
 * among @pads' head frames. */
static void
scan_heads (GList * pads, GstClockTime * earliest, GstClockTime * duration)
{
  *earliest = *duration = GST_CLOCK_TIME_NONE;
  for (GList * l = pads; l; l = l->next) {
    GstAggregatorPad *pad = l->data;
    GstBuffer *head = gst_aggregator_pad_peek_buffer (pad);

    if (head == NULL)
      continue;
    *earliest = min_time (*earliest,
        gst_cuda_graph_batch_running_time (pad, head));
    *duration = min_time (*duration,
        frame_duration (GST_CUDA_GRAPH_BATCH_PAD (pad), head));
    gst_buffer_unref (head);
  }
}

/* The window's length changed: GstAggregator's deadline and the latency it
 * reports include it. */
static void
set_window_duration (GstCudaGraphBatch * self, GstClockTime duration)
{
  if (duration == self->window_duration)
    return;
  self->window_duration = duration;
  GST_DEBUG_OBJECT (self, "batch window %" GST_TIME_FORMAT,
      GST_TIME_ARGS (duration));
  gst_aggregator_set_latency (GST_AGGREGATOR (self),
      GST_CLOCK_TIME_IS_VALID (duration) ? duration : 0,
      GST_CLOCK_TIME_IS_VALID (duration) ? duration : 0);
}

/* Where the next batch's window starts, from @pads' head frames; returns
 * the window's end, NONE when no frame says how long it lasts (then every
 * head frame is taken, as without windows).  The window jumps forward to
 * the earliest head frame when every head frame lies past it (a gap in all
 * streams), never backwards. */
GstClockTime
gst_cuda_graph_batch_open_window (GstCudaGraphBatch * self, GList * pads)
{
  GstClockTime earliest, duration;

  scan_heads (pads, &earliest, &duration);
  if (GST_CLOCK_TIME_IS_VALID (duration))
    set_window_duration (self, duration);
  if (!GST_CLOCK_TIME_IS_VALID (self->window_duration))
    return GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (earliest)
      && (!GST_CLOCK_TIME_IS_VALID (self->window_start)
          || earliest >= self->window_start + self->window_duration))
    self->window_start = earliest;
  if (!GST_CLOCK_TIME_IS_VALID (self->window_start))
    return GST_CLOCK_TIME_NONE;
  return self->window_start + self->window_duration;
}

/* The window is done (a batch left, or it passed empty): the next one
 * starts where it ends, and so does GstAggregator's next deadline. */
void
gst_cuda_graph_batch_close_window (GstCudaGraphBatch * self,
    GstClockTime fallback)
{
  GstAggregatorPad *srcpad = GST_AGGREGATOR_PAD (GST_AGGREGATOR_SRC_PAD
      (self));
  GstClockTime next = fallback;

  if (GST_CLOCK_TIME_IS_VALID (self->window_start)
      && GST_CLOCK_TIME_IS_VALID (self->window_duration)) {
    self->window_start += self->window_duration;
    next = self->window_start;
  }
  if (!GST_CLOCK_TIME_IS_VALID (next))
    return;
  GST_OBJECT_LOCK (self);
  srcpad->segment.position = next;
  GST_OBJECT_UNLOCK (self);
}

/* No window yet: after a flush or a new start. */
void
gst_cuda_graph_batch_reset_window (GstCudaGraphBatch * self)
{
  self->window_start = GST_CLOCK_TIME_NONE;
  set_window_duration (self, GST_CLOCK_TIME_NONE);
}

/* @pad has a frame for the window ending at @end (NONE: any frame).  A
 * late frame (before the window's start) is taken too: it is never
 * dropped, and each batch takes one frame per stream, so a stream that
 * fell behind catches up one frame per window. */
static gboolean
has_frame_for (GstAggregatorPad * pad, GstClockTime end)
{
  GstBuffer *head = gst_aggregator_pad_peek_buffer (pad);
  GstClockTime rt;

  if (head == NULL)
    return FALSE;
  rt = gst_cuda_graph_batch_running_time (pad, head);
  gst_buffer_unref (head);
  return !GST_CLOCK_TIME_IS_VALID (end) || !GST_CLOCK_TIME_IS_VALID (rt)
      || rt < end;
}

/* Of @pads (in pad order), the ones whose head frames the next batch takes,
 * still in pad order (a batch's sources stay in pad order): up to @max pads
 * with a frame for the window ending at @end, counted from the pad after
 * the last one the previous batch took.  With fewer slots than pads,
 * always counting from the first pad would leave the later ones out for
 * ever (their upstreams block once their queues are full).  The list
 * holds no references of its own. */
GList *
gst_cuda_graph_batch_choose_pads (GstCudaGraphBatch * self, GList * pads,
    guint max, GstClockTime end)
{
  guint n = g_list_length (pads), start, i, taken = 0, last = 0;
  GList *chosen = NULL;

  if (n == 0 || max == 0)
    return NULL;
  start = self->next_pad % n;
  for (i = 0; i < n && taken < max; i++) {
    if (has_frame_for (g_list_nth_data (pads, (start + i) % n), end)) {
      taken++;
      last = i;
    }
  }
  if (taken == 0)
    return NULL;
  /* The pads from start to last (cyclically) with a frame, in pad order. */
  i = 0;
  for (GList * l = pads; l; l = l->next, i++) {
    if ((i + n - start) % n <= last && has_frame_for (l->data, end))
      chosen = g_list_prepend (chosen, l->data);
  }
  self->next_pad = start + last + 1;
  return g_list_reverse (chosen);
}
