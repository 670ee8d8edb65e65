/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* What the files of cudagraphbatch share: the instance, a batch, and the
 * functions one file provides to the others.
 *
 *   gstcudagraphbatch.c          the element: type, start/stop, context,
 *                                a collect step (one window's batches)
 *   gstcudagraphbatchsink.c      its sink pads: chain, events, queries,
 *                                flushes; what the collector takes
 *   gstcudagraphbatchsrc.c       its src pad: the collector task,
 *                                negotiation, pushing, seeks, latency
 *   gstcudagraphbatchprops.c     properties
 *   gstcudagraphbatchchildren.c  its sink pads as children (GstChildProxy)
 *   gstcudagraphbatchcaps.c      src caps, the engine for them, allocation
 *   gstcudagraphbatchassemble.c  a batch: a frame from each pad, mapped,
 *                                with its values; the frame queue of
 *                                batches in flight (lib/ stages, runs and
 *                                retires them)
 *   gstcudagraphbatchwindow.c    which frames a batch takes: windows of
 *                                running time, strategies, late frames,
 *                                pads taking turns, empty slots
 *   gstcudagraphbatchrun.c       a batch into its output: the frame
 *                                queue's batch submit, fences, metas,
 *                                timestamps
 *   gstcudagraphbatchcamerasrc.c each stream's own src pad (src_N): its
 *                                frames back out with their results
 *                                (gstcudagraphbatchcamera.c holds what
 *                                waits to leave on it)
 */

#include <gst/gst.h>

#include "gstcudagraphbatchpad.h"
#include "memory/gstcudagraphdevice.h"
#include "buffers/gstcudagraphidlewatch.h"
#include "props/gstcudagraphrunprops.h"
#include "props/gstcudagraphtensorprops.h"
#include "props/gstcudagraphmodel.h"
#include "props/gstcudagraphpostprocess.h"
#include "props/gstcudagraphuserkernel.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_graph_batch_debug);

/* Batches in flight at most: the in-flight property's maximum, the
 * spare batches kept, and the depth of the frame queue that runs them. */
#define GST_CUDA_GRAPH_BATCH_MAX_IN_FLIGHT GCG_FRAME_QUEUE_MAX_DEPTH

/* The longest batch-duration and timeout: one hour each.  With them,
 * upstream's latency and a running time each below 2^63 (what a GstSegment
 * and a live source's latency can hold), no sum the collector makes comes
 * near 2^64; the sums saturate anyway (gst_cuda_graph_batch_add_time()). */
/* The deepest queue-depth. */
#define GST_CUDA_GRAPH_BATCH_MAX_QUEUE_DEPTH 64

#define GST_CUDA_GRAPH_BATCH_MAX_DURATION (3600 * GST_SECOND)
#define GST_CUDA_GRAPH_BATCH_MAX_TIMEOUT (3600 * GST_SECOND)

/* @a + @b, both valid, saturated below GST_CLOCK_TIME_NONE: running times,
 * durations and latencies come from upstream and may be huge, and a sum
 * that wraps would put a window's end before its start or a deadline in
 * the past. */
static inline GstClockTime
gst_cuda_graph_batch_add_time (GstClockTime a, GstClockTime b)
{
  return a < GST_CLOCK_TIME_NONE - 1 - b ? a + b : GST_CLOCK_TIME_NONE - 1;
}

/* One stream's frame in the batch being assembled, mapped until the
 * batch's work is done. */
typedef struct
{
  GstCudaGraphBatchPad *pad;
  GstBuffer *buffer;
  GstVideoFrame frame;
  gboolean mapped;
  GstClockTime running_time;
  gint ids[GCG_FRAME_CHAIN_MAX_ROIS];
  guint n_items;
} BatchInput;

/* A batch: its inputs, mapped and referenced until the frame queue is
 * done with it (its done callback), and what the queue is given. */
typedef struct
{
  struct _GstCudaGraphBatch *owner;
  /* Who still uses the record: the element while it pushes the batch,
   * the frame queue until the batch is retired (the streaming thread
   * only). */
  guint holds;
  guint n;
  BatchInput inputs[GCG_FRAME_BATCH_MAX_SOURCES];
  GcgFrameBatchSource sources[GCG_FRAME_BATCH_MAX_SOURCES];
  GcgFrameParams params[GCG_FRAME_BATCH_MAX_SOURCES];
  GcgFramePlanes planes[GCG_FRAME_BATCH_MAX_SOURCES];
  /* The window the frames are from, and the streams with no frame in it
   * (refs): the batch meta's empty slots. */
  GstClockTime window_start;
  GstClockTime window_duration;
  GstClockTime end;             /* end of its latest frame, once pushed */
  GstCudaGraphBatchPad *absent[GCG_FRAME_BATCH_MAX_SOURCES];
  guint n_absent;
  /* With a postprocess (CUDA): the pinned area the replay writes the
   * batch's results to (its first source's GcgFrameParams.results), kept
   * with the record; has_results: this batch's run wrote it. */
  gpointer results;
  gsize results_size;
  GcgHostPool *results_pool;
  gboolean has_results;
} Batch;

struct _GstCudaGraphBatch
{
  GstElement parent;

  GstPad *srcpad;
  /* The collector thread's wake-ups (gstcudagraphbatchqueue.h). */
  GstCudaGraphBatchCollector collector;
  /* Wakes the collector when a stream's frames wait on a batch still
   * running and no input comes (gstcudagraphidlewatch.h); @idle_kicked
   * says so to the collector (atomic). */
  GstCudaGraphIdleWatch idle;
  gint idle_kicked;

  /* Properties, under the object lock: the run properties every element
   * has (their counters included), the tensor's, and the batch's own. */
  GstCudaGraphRunProps run;
  GstCudaGraphTensorProps props;
  /* A user kernel after the batch op, over the whole tensor. */
  GstCudaGraphUserKernel kernel;
  /* The user's model after it, per batch (gstcudagraphmodel.h), and the
   * postprocess after the model, whose results leave on each stream's
   * own src pad with its frames. */
  GstCudaGraphModel model;
  GstCudaGraphPostprocess postprocess;
  guint batch_size;
  GstClockTime batch_duration;  /* 0: one frame long */
  GstClockTime timeout;         /* live: after the window's end */
  guint queue_depth;            /* buffers per sink pad, and frames
                                 * each pad holds of a window */

  /* Latency, under the object lock: upstream's (have_latency: asked
   * since the pads last changed) and the window's; get_latency(). */
  gboolean have_latency;
  gboolean live;
  GstClockTime upstream_min, upstream_max;
  GstClockTime window_latency;

  /* Flow, under the object lock: a flush forwarded downstream and not
   * yet stopped (src_flushing), the seek's seqnum whose flushes are
   * forwarded, the last downstream flow (returned to upstream). */
  gboolean src_flushing;
  guint32 seek_seqnum;
  GstFlowReturn flow;
  /* The next deadline's base: the next window's start (running time),
   * NONE before the first buffer. */
  GstClockTime next_time;

  /* The src pad's stream (its task, or state changes). */
  gboolean send_stream_start, send_segment, eos_sent;
  GstSegment out_segment;
  GstBufferPool *pool;
  GstAllocator *allocator;
  GstAllocationParams alloc_params;

  /* Counters, under the object lock: run.counts is the current engine's
   * plus those of engines replaced by a renegotiation (retired). */
  GstCudaGraphRunCounts retired;
  guint64 batches;
  guint64 dropped_late;

  /* A GstCudaContext offered by the pipeline, under the object lock. */
  GstObject *gst_context;

  /* Streaming state (the src pad's thread, or state changes). */
  GstCudaGraphDevice dev;
  GcgFrameBatch *engine;
  GcgFrameBatchConfig config;
  gsize out_size;
  /* The negotiation under way posted an error that says why it failed
   * (the collector then adds none of its own). */
  gboolean negotiation_said;
  GstCudaGraphModelLayout layout;       /* the engine's model outputs */
  /* The postprocess the engine ends in, NONE without one. */
  GcgPostprocessKind results_kind;
  guint64 frames;               /* also under the object lock */
  gboolean stats_posted;
  /* The batches in flight: staged, run and retired by lib/ (up to
   * in-flight of them), on the stream or the CPU backend. */
  GcgFrameQueue *queue;
  GQueue spare;                 /* Batch*, free */
  guint next_pad;               /* where the next batch starts taking */
  GstClockTime window_start;    /* running time of the next batch's window */
  GstClockTime window_duration; /* batch-duration, or one frame (nominal) */
  /* Frame-long windows from a frame rate (window_fps_n > 0): window k after
   * window_origin starts k frames after it, exactly (as the streams' own
   * timestamps are: adding the frame duration truncated to the ns drifted
   * 1 ns every 3 frames at 30 fps).  Their frames are those nearest the
   * window's start: from half a frame before it (window_slack), so that
   * timestamps rounded either way, or added up from a truncated duration,
   * stay in their window. */
  GstClockTime window_origin;
  guint64 window_index;
  gint window_fps_n, window_fps_d;
  GstClockTime window_slack;
  /* Frames a pad holds of the window being collected (queue-depth, read
   * once per window collected): later ones are dropped. */
  guint held_max;
};

#define GST_TYPE_CUDA_GRAPH_BATCH (gst_cuda_graph_batch_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaGraphBatch, gst_cuda_graph_batch, GST,
    CUDA_GRAPH_BATCH, GstElement)

/* gstcudagraphbatchchildren.c: the sink pads as children, so that
 * gst_parse_launch() sets `sink_0::prop=value` on a request pad. */
void gst_cuda_graph_batch_child_proxy_init (gpointer g_iface,
    gpointer iface_data);
GstPad *gst_cuda_graph_batch_request_new_pad (GstElement *element,
    GstPadTemplate *templ, const gchar *name, const GstCaps *caps);
void gst_cuda_graph_batch_release_pad (GstElement *element, GstPad *pad);

/* gstcudagraphbatchprops.c */
void gst_cuda_graph_batch_install_properties (GObjectClass *gobject_class);
void gst_cuda_graph_batch_init_properties (GstCudaGraphBatch *self);

/* gstcudagraphbatchcaps.c */
guint gst_cuda_graph_batch_count_sink_pads (GstCudaGraphBatch *self);
void gst_cuda_graph_batch_retire_engine (GstCudaGraphBatch *self);
GstFlowReturn gst_cuda_graph_batch_update_src_caps (GstCudaGraphBatch *self,
    GstCaps *caps, GstCaps **ret);
gboolean gst_cuda_graph_batch_negotiated_src_caps (GstCudaGraphBatch *self,
    GstCaps *caps);
gboolean gst_cuda_graph_batch_decide_allocation (GstCudaGraphBatch *self,
    GstQuery *query);
gboolean gst_cuda_graph_batch_propose_allocation (GstCudaGraphBatch *self,
    GstQuery *query);

/* gstcudagraphbatchassemble.c */
Batch *gst_cuda_graph_batch_new_batch (GstCudaGraphBatch *self);
void gst_cuda_graph_batch_release_batch (Batch *batch);
void gst_cuda_graph_batch_free_record (Batch *batch);
gboolean gst_cuda_graph_batch_ensure_results (GstCudaGraphBatch *self,
    Batch *batch, gsize size, GError **error);
gboolean gst_cuda_graph_batch_submit (GstCudaGraphBatch *self, Batch *batch,
    const GcgFramePlanes *out, guint *n_items, guint64 *seq, GError **error);
gboolean gst_cuda_graph_batch_open_queue (GstCudaGraphBatch *self);
void gst_cuda_graph_batch_close_queue (GstCudaGraphBatch *self);
void gst_cuda_graph_batch_retire_batches (GstCudaGraphBatch *self, guint keep);
void gst_cuda_graph_batch_retire_all (GstCudaGraphBatch *self);
GList *gst_cuda_graph_batch_list_sink_pads (GstCudaGraphBatch *self);
gboolean gst_cuda_graph_batch_all_pads_eos (GstCudaGraphBatch *self,
    GList *pads);
GstClockTime gst_cuda_graph_batch_running_time (GstCudaGraphBatchPad *pad,
    GstBuffer *buf);
void gst_cuda_graph_batch_take_frame (GstCudaGraphBatch *self,
    GstCudaGraphBatchPad *pad, GstBuffer *buffer, Batch *batch);

/* gstcudagraphbatchwindow.c */
GstClockTime gst_cuda_graph_batch_open_window (GstCudaGraphBatch *self,
    GList *pads);
/* Takes each pad's frames for the window ending at @end into its held
 * frames; TRUE when the window is complete (every pad done with it, or
 * @timeout: the live deadline passed), else the first pad not done in
 * *@waiting (a ref). */
gboolean gst_cuda_graph_batch_collect (GstCudaGraphBatch *self, GList *pads,
    GstClockTime end, gboolean timeout, GstCudaGraphBatchPad **waiting);
GList *gst_cuda_graph_batch_list_absent (GstCudaGraphBatch *self, GList *pads);
/* Moves up to @max held frames into @batch (pads taking turns), with the
 * window and @absent (the streams without a frame in it); FALSE when
 * no pad held any. */
gboolean gst_cuda_graph_batch_fill (GstCudaGraphBatch *self, GList *pads,
    GList *absent, Batch *batch, guint max);
void gst_cuda_graph_batch_close_window (GstCudaGraphBatch *self,
    GstClockTime fallback);
void gst_cuda_graph_batch_reset_window (GstCudaGraphBatch *self);

/* gstcudagraphbatchsink.c: the sink pads' functions, and what the
 * collector takes from their queues: the head buffer (a ref) or pops it,
 * after applying the serialized events before it (caps, segment,
 * stream-start, EOS, stats requests); EOS once its EOS was taken. */
void gst_cuda_graph_batch_sink_setup (GstCudaGraphBatch *self, GstPad *pad);
GstBuffer *gst_cuda_graph_batch_peek (GstCudaGraphBatch *self,
    GstCudaGraphBatchPad *pad);
GstBuffer *gst_cuda_graph_batch_pop (GstCudaGraphBatch *self,
    GstCudaGraphBatchPad *pad);
gboolean gst_cuda_graph_batch_is_eos (GstCudaGraphBatch *self,
    GstCudaGraphBatchPad *pad);
/* Every sink pad flushing (stop) or not (start): their queues. */
void gst_cuda_graph_batch_set_pads_flushing (GstCudaGraphBatch *self,
    gboolean flushing);
/* A cudagraph-stats-request reached the collector. */
void gst_cuda_graph_batch_post_stats_now (GstCudaGraphBatch *self);

/* gstcudagraphbatchsrc.c: the src pad and the collector task. */
GstPad *gst_cuda_graph_batch_src_new (GstCudaGraphBatch *self,
    GstPadTemplate *templ);
void gst_cuda_graph_batch_src_reset (GstCudaGraphBatch *self);
void gst_cuda_graph_batch_src_clear (GstCudaGraphBatch *self);
/* The latency GstAggregator's get_latency() gave: NONE unless upstream
 * is live, else upstream's minimum + the window + the timeout. */
GstClockTime gst_cuda_graph_batch_get_latency (GstCudaGraphBatch *self);
/* The window's part of the latency (a LATENCY message when it moves). */
void gst_cuda_graph_batch_set_window_latency (GstCudaGraphBatch *self,
    GstClockTime window);
/* The flush of every sink pad (or the seek's) downstream: the collector
 * stops / starts again (@event owned). */
gboolean gst_cuda_graph_batch_src_flush_start (GstCudaGraphBatch *self,
    GstEvent *event);
gboolean gst_cuda_graph_batch_src_flush_stop (GstCudaGraphBatch *self,
    GstEvent *event);
/* The pads changed: upstream's latency is asked again. */
void gst_cuda_graph_batch_forget_latency (GstCudaGraphBatch *self);
GstBufferPool *gst_cuda_graph_batch_get_buffer_pool (GstCudaGraphBatch *self);
void gst_cuda_graph_batch_get_allocator (GstCudaGraphBatch *self,
    GstAllocator **allocator, GstAllocationParams *params);
GstFlowReturn gst_cuda_graph_batch_finish_buffer (GstCudaGraphBatch *self,
    GstBuffer *buffer);
/* One collect step (gstcudagraphbatch.c): FALSE in *@progress when it
 * must wait (for *@waiting, a ref, or any pad). */
GstFlowReturn gst_cuda_graph_batch_step (GstCudaGraphBatch *self,
    gboolean timeout, gboolean *progress, GstCudaGraphBatchPad **waiting);

/* gstcudagraphbatchcamerasrc.c: the streams' own src pads (src_N with
 * sink_N), requested and released; pairing a sink pad that came (or
 * unpairing one that goes: its branch ends with EOS); what waits to
 * leave on them pushed (@all: everything, at the end). */
GstPad *gst_cuda_graph_batch_camera_src_request (GstCudaGraphBatch *self,
    GstPadTemplate *templ, const gchar *name);
void gst_cuda_graph_batch_camera_src_release (GstCudaGraphBatch *self,
    GstPad *pad);
void gst_cuda_graph_batch_camera_src_pair (GstCudaGraphBatch *self,
    GstPad *sink);
void gst_cuda_graph_batch_camera_src_unpair (GstCudaGraphBatch *self,
    GstPad *sink);
GstFlowReturn gst_cuda_graph_batch_drain_cameras (GstCudaGraphBatch *self,
    GList *pads, gboolean all);
void gst_cuda_graph_batch_forget_cameras (GstCudaGraphBatch *self);
void gst_cuda_graph_batch_kick_idle (gpointer self);
/* How long input must pause before frames whose batch is done leave on
 * their branches without a next collect step (µs). */
#define GST_CUDA_GRAPH_BATCH_IDLE_US 200

/* gstcudagraphbatchrun.c */
void gst_cuda_graph_batch_engine_counts (GstCudaGraphBatch *self,
    GstCudaGraphRunCounts *counts);
GstFlowReturn gst_cuda_graph_batch_push_batch (GstCudaGraphBatch *self,
    Batch *batch);

G_END_DECLS
