/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gcg/gcg.h>

#include "gstcudagraphbatchcamera.h"
#include "gstcudagraphbatchqueue.h"
#include "gstcudagraphbatchstrategy.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_GRAPH_BATCH_PAD (gst_cuda_graph_batch_pad_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaGraphBatchPad, gst_cuda_graph_batch_pad, GST,
    CUDA_GRAPH_BATCH_PAD, GstPad)
/* Without the type check, for the streaming thread's loops over the
 * element's sink pads (all of this type: the template says so), where
 * the checks were a tenth of a batch's own work. */
#define GST_CUDA_GRAPH_BATCH_PAD_CAST(obj) ((GstCudaGraphBatchPad *) (obj))

/* Takes the video caps of the pad's stream (from the collector thread,
 * in order with the buffers): FALSE for caps the frame chain cannot
 * read.  check_caps() only says whether they could be taken (upstream's
 * thread, as the CAPS event comes). */
gboolean gst_cuda_graph_batch_pad_set_caps (GstCudaGraphBatchPad *self,
    GstCaps *caps);
gboolean gst_cuda_graph_batch_pad_check_caps (GstCudaGraphBatchPad *self,
    GstCaps *caps);

/* Keeps the id of @event, a stream-start (from the collector
 * thread, in order with the buffers); the stream's id, NULL
 * before the first stream-start, until the next one or the pad's end. */
void gst_cuda_graph_batch_pad_set_stream_start (GstCudaGraphBatchPad *self,
    GstEvent *event);
const gchar *gst_cuda_graph_batch_pad_get_stream_id (
    GstCudaGraphBatchPad *self);

/* The stream's current video info and its description for the batch;
 * NULL / FALSE before caps. */
const GstVideoInfo *gst_cuda_graph_batch_pad_get_info (
    GstCudaGraphBatchPad *self);
gboolean gst_cuda_graph_batch_pad_get_source (GstCudaGraphBatchPad *self,
    GcgFrameBatchSource *source);

/* The region of @buffer, a @width x @height frame of the pad's stream,
 * that its item is made of: the pad's crop inside the visible frame, or
 * the whole visible frame when the crop selects nothing (a warning posted
 * by @element, the pad's parent, once per change; gstcudagraphcrop.h).
 * The collector thread only. */
void gst_cuda_graph_batch_pad_get_region (GstCudaGraphBatchPad *self,
    GstElement *element, GstBuffer *buffer, gint width, gint height,
    GcgRect *region);

/* A reference to the pad's roi-type, else to @fallback (the element's,
 * a GRefString taken under the element's lock); NULL for none.  Drop it
 * with g_ref_string_release(). */
gchar *gst_cuda_graph_batch_pad_ref_roi_type (GstCudaGraphBatchPad *self,
    gchar *fallback);

/* Whether a buffer ever came on the pad (since the element started). */
gboolean gst_cuda_graph_batch_pad_has_delivered (GstCudaGraphBatchPad *self);
void gst_cuda_graph_batch_pad_set_delivered (GstCudaGraphBatchPad *self,
    gboolean delivered);
/* Live, whether the pad is inactive: it never delivered, and a deadline
 * passed while it had not (GstAggregator's ignore-inactive-pads after
 * its first wait); the collector notes the deadlines (note_deadline(),
 * cleared with set_delivered (FALSE)). */
gboolean gst_cuda_graph_batch_pad_is_inactive (GstCudaGraphBatchPad *self);
void gst_cuda_graph_batch_pad_note_deadline (GstCudaGraphBatchPad *self);

/* The pad's queue (gstcudagraphbatchqueue.h), between its upstream
 * thread and the element's collector; attach() sets it up when the
 * element adds the pad. */
void gst_cuda_graph_batch_pad_attach (GstCudaGraphBatchPad *self,
    GstCudaGraphBatchCollector *collector, guint depth);
GstCudaGraphBatchQueue *gst_cuda_graph_batch_pad_get_queue (
    GstCudaGraphBatchPad *self);

/* The collector's view of the stream, in order with the buffers: its
 * segment (the last SEGMENT taken from the queue) and whether its EOS
 * was taken.  A flush (upstream's thread) marks the pad; the collector
 * then forgets both, and the held frames, before it looks again
 * (take_flush()). */
GstSegment *gst_cuda_graph_batch_pad_get_segment (GstCudaGraphBatchPad *self);
gboolean gst_cuda_graph_batch_pad_is_eos (GstCudaGraphBatchPad *self);
void gst_cuda_graph_batch_pad_set_eos (GstCudaGraphBatchPad *self,
    gboolean eos);
void gst_cuda_graph_batch_pad_mark_flushed (GstCudaGraphBatchPad *self);
void gst_cuda_graph_batch_pad_take_flush (GstCudaGraphBatchPad *self);

/* The pad's batch-strategy. */
GstCudaGraphBatchStrategy gst_cuda_graph_batch_pad_get_strategy (
    GstCudaGraphBatchPad *self);

/* The pad's part of the batch window being collected (the collector
 * thread only): the frames taken from its queue for the window, and the
 * end of the last window it had a frame in (its later frames before
 * that end were passed over by its strategy, not late). */
typedef struct
{
  GQueue held;                  /* GstBuffer*, owned, oldest first */
  GstClockTime taken_until;
  /* The pad's batch-strategy, read once per window collected (a change
   * takes effect at the next batch, never halfway through one). */
  GstCudaGraphBatchStrategy strategy;
  /* first-in-batch-with-overlap: its last unused frame of the half window
   * before the window's start (owned), a candidate for the window. */
  GstBuffer *spare;
  /* Its frames of one window beyond queue-depth were dropped and said so
   * (once until a flush or a restart). */
  gboolean warned_full;
} GstCudaGraphBatchPadWindow;

GstCudaGraphBatchPadWindow *gst_cuda_graph_batch_pad_get_window (
    GstCudaGraphBatchPad *self);

/* The stream's branch out of the element (gstcudagraphbatchcamera.h):
 * its src_N pad when one is paired, and what waits to leave on it. */
GstCudaGraphBatchCamera *gst_cuda_graph_batch_pad_get_camera (
    GstCudaGraphBatchPad *self);
/* @buf, taken from the pad's queue, is left out of every batch (late,
 * passed over, over queue-depth, unreadable): dropped, and on the
 * stream's branch it leaves without results. */
void gst_cuda_graph_batch_pad_drop_frame (GstCudaGraphBatchPad *self,
    GstBuffer *buf);
/* Every held frame dropped so (@held: the pad's window's held queue). */
void gst_cuda_graph_batch_pad_drop_held (GstCudaGraphBatchPad *self,
    GQueue *held);

/* Drops the held frames and forgets the last window (flush, stop). */
void gst_cuda_graph_batch_pad_clear_held (GstCudaGraphBatchPad *self);

G_END_DECLS
