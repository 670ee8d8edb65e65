/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* A camera's branch of cudagraphbatch (issue 35): the request src pad
 * src_N paired with the sink pad sink_N, on which that stream's frames
 * leave again, unchanged and in order, each once its batch is done, with
 * its own results when the batch ends in a postprocess; the stream's
 * serialized events (stream-start, caps, segment, gaps, EOS) go between
 * them where they came.
 *
 * The collector thread records what it takes from sink_N's queue, in
 * order (take_event(), take_frame()); a frame's record becomes ready
 * when its batch is done (done(), with its results) or when the window
 * leaves it out (pass()); drain() pushes the ready records from the
 * oldest on, stopping at the first frame still in flight.  A frame is
 * never held for a later one, so a stream's branch waits for nothing but
 * its own batches. */

#include <gst/gst.h>
#include <gcg/gcg.h>

#include <gcg/gcg-gst.h>

G_BEGIN_DECLS

typedef struct
{
  GMutex lock;
  /* src_N, a ref, or NULL while none is paired (then nothing is
   * recorded). */
  GstPad *src;
  GQueue records;               /* oldest first, under lock */
} GstCudaGraphBatchCamera;

/* One frame's answers, for done(): the source's own results (their
 * #GcgResult.item counted within the frame) and its items. */
typedef struct
{
  GcgPostprocessKind kind;
  const GcgResult *results;
  guint n_results;
  const GQuark *labels;
  guint n_labels;
  const GstCudaGraphResultsItem *items;
  guint n_items;
} GstCudaGraphBatchCameraResults;

void gst_cuda_graph_batch_camera_init (GstCudaGraphBatchCamera *camera);
void gst_cuda_graph_batch_camera_clear (GstCudaGraphBatchCamera *camera);

/* Pairs @src with the stream (NULL unpairs; what was recorded is
 * dropped).  A new pair's src gets the sink pad's sticky events. */
void gst_cuda_graph_batch_camera_set_src (GstCudaGraphBatchCamera *camera,
    GstPad *sink, GstPad *src);
/* The paired src pad (a ref), or NULL. */
GstPad *gst_cuda_graph_batch_camera_ref_src (GstCudaGraphBatchCamera *camera);
gboolean gst_cuda_graph_batch_camera_is_paired (
    GstCudaGraphBatchCamera *camera);
/* Whether anything waits to leave on the stream's branch. */
gboolean gst_cuda_graph_batch_camera_has_records (
    GstCudaGraphBatchCamera *camera);

/* The collector thread: what it takes from the stream's queue, in
 * order (neither is owned). */
void gst_cuda_graph_batch_camera_take_event (GstCudaGraphBatchCamera *camera,
    GstEvent *event);
void gst_cuda_graph_batch_camera_take_frame (GstCudaGraphBatchCamera *camera,
    GstBuffer *buffer);
/* @buffer leaves without results: the window left it out. */
void gst_cuda_graph_batch_camera_pass (GstCudaGraphBatchCamera *camera,
    GstBuffer *buffer);
/* @buffer's batch is done, with @results (NULL: none, the batch had no
 * postprocess or failed; their results array is taken, g_malloc'd);
 * frames taken before it that are still waiting were left out and
 * pass. */
void gst_cuda_graph_batch_camera_done (GstCudaGraphBatchCamera *camera,
    GstBuffer *buffer, const GstCudaGraphBatchCameraResults *results);
/* Pushes the ready records, oldest first; @all: every record, the
 * frames still waiting without results (the stream ends, nothing is in
 * flight any more).  Returns the first push's failure that is the
 * stream's to report (an error, not-negotiated), else OK. */
GstFlowReturn gst_cuda_graph_batch_camera_drain (
    GstCudaGraphBatchCamera *camera, gboolean all);
/* Drops every record (stop). */
void gst_cuda_graph_batch_camera_forget (GstCudaGraphBatchCamera *camera);

/* Upstream's flush of the stream, on its branch: FLUSH_START goes out
 * and the records are dropped; FLUSH_STOP goes out.  @event owned. */
gboolean gst_cuda_graph_batch_camera_flush (GstCudaGraphBatchCamera *camera,
    GstEvent *event);

/* The sink pad's CAPS and ACCEPT_CAPS answers narrowed to what the
 * branch downstream takes (the frames leave unchanged); FALSE when the
 * query is not one of those or no branch is paired. */
gboolean gst_cuda_graph_batch_camera_sink_query (
    GstCudaGraphBatchCamera *camera, GstPad *sink, GstQuery *query);

G_END_DECLS
