/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* What the files of cudagraphbatch share: the instance, a batch, and the
 * functions one file provides to the others.
 *
 *   gstcudagraphbatch.c          the element: type, start/stop, events,
 *                                context, aggregate()
 *   gstcudagraphbatchprops.c     properties
 *   gstcudagraphbatchchildren.c  its sink pads as children (GstChildProxy)
 *   gstcudagraphbatchcaps.c      src caps, the engine for them, allocation
 *   gstcudagraphbatchassemble.c  a batch: a frame from each pad, mapped,
 *                                with its values; batches in flight
 *   gstcudagraphbatchwindow.c    which frames a batch takes: windows of
 *                                running time, strategies, late frames,
 *                                pads taking turns, empty slots
 *   gstcudagraphbatchrun.c       running a batch into its output: staging,
 *                                the engine, fences, metas, timestamps
 */

#include <gst/base/gstaggregator.h>

#include "gstcudagraphbatchpad.h"
#include "gstcudagraphdevice.h"
#include "gstcudagraphrunprops.h"
#include "gstcudagraphtensorprops.h"
#include "gstcudagraphmodel.h"
#include "gstcudagraphuserkernel.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_graph_batch_debug);

/* Batches in flight at most: the in-flight property's maximum, and the
 * spare batches kept. */
#define GST_CUDA_GRAPH_BATCH_MAX_IN_FLIGHT 16

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

/* A batch: its inputs and, with the CUDA backend, the fence after its
 * work (inputs stay referenced until it has passed). */
typedef struct
{
  guint n;
  BatchInput inputs[GCG_FRAME_BATCH_MAX_SOURCES];
  GcgFrameBatchSource sources[GCG_FRAME_BATCH_MAX_SOURCES];
  GcgFrameParams params[GCG_FRAME_BATCH_MAX_SOURCES];
  /* Device copies of system memory planes (CUDA backend), until the
   * batch's work is queued. */
  guint64 staging[GCG_FRAME_BATCH_MAX_SOURCES * 3];
  guint n_staging;
  GcgFence *fence;
  /* The window the frames are from, and the streams with no frame in it
   * (refs): the batch meta's empty slots. */
  GstClockTime window_start;
  GstClockTime window_duration;
  GstClockTime end;             /* end of its latest frame, once pushed */
  GstCudaGraphBatchPad *absent[GCG_FRAME_BATCH_MAX_SOURCES];
  guint n_absent;
} Batch;

struct _GstCudaGraphBatch
{
  GstAggregator parent;

  /* Properties, under the object lock: the run properties every element
   * has (their counters included), the tensor's, and the batch's own. */
  GstCudaGraphRunProps run;
  GstCudaGraphTensorProps props;
  /* A user kernel after the batch op, over the whole tensor. */
  GstCudaGraphUserKernel kernel;
  /* The user's model after it, per batch (gstcudagraphmodel.h). */
  GstCudaGraphModel model;
  guint batch_size;
  GstClockTime batch_duration;  /* 0: one frame long */

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
  GstCudaGraphModelLayout layout;       /* the engine's model outputs */
  guint64 frames;               /* also under the object lock */
  gboolean stats_posted;
  GQueue pending;               /* Batch*, oldest first */
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
};

#define GST_TYPE_CUDA_GRAPH_BATCH (gst_cuda_graph_batch_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaGraphBatch, gst_cuda_graph_batch, GST,
    CUDA_GRAPH_BATCH, GstAggregator)

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
GstFlowReturn gst_cuda_graph_batch_update_src_caps (GstAggregator *agg,
    GstCaps *caps, GstCaps **ret);
gboolean gst_cuda_graph_batch_negotiated_src_caps (GstAggregator *agg,
    GstCaps *caps);
gboolean gst_cuda_graph_batch_decide_allocation (GstAggregator *agg,
    GstQuery *query);
gboolean gst_cuda_graph_batch_propose_allocation (GstAggregator *agg,
    GstAggregatorPad *pad, GstQuery *decide_query, GstQuery *query);

/* gstcudagraphbatchassemble.c */
Batch *gst_cuda_graph_batch_new_batch (GstCudaGraphBatch *self);
void gst_cuda_graph_batch_free_batch (GstCudaGraphBatch *self, Batch *batch);
void gst_cuda_graph_batch_retire_batches (GstCudaGraphBatch *self, guint keep);
void gst_cuda_graph_batch_retire_all (GstCudaGraphBatch *self);
GList *gst_cuda_graph_batch_list_sink_pads (GstCudaGraphBatch *self);
gboolean gst_cuda_graph_batch_all_pads_eos (GList *pads);
GstClockTime gst_cuda_graph_batch_running_time (GstAggregatorPad *pad,
    GstBuffer *buf);
void gst_cuda_graph_batch_take_frame (GstCudaGraphBatch *self,
    GstCudaGraphBatchPad *pad, GstBuffer *buffer, Batch *batch);

/* gstcudagraphbatchwindow.c */
GstClockTime gst_cuda_graph_batch_open_window (GstCudaGraphBatch *self,
    GList *pads);
/* Takes each pad's frames for the window ending at @end into its held
 * frames; TRUE when the window is complete (every pad done with it, or
 * @timeout: the live deadline passed). */
gboolean gst_cuda_graph_batch_collect (GstCudaGraphBatch *self, GList *pads,
    GstClockTime end, gboolean timeout);
GList *gst_cuda_graph_batch_list_absent (GList *pads);
/* Moves up to @max held frames into @batch (pads taking turns), with the
 * window and @absent (the streams without a frame in it); FALSE when
 * no pad held any. */
gboolean gst_cuda_graph_batch_fill (GstCudaGraphBatch *self, GList *pads,
    GList *absent, Batch *batch, guint max);
void gst_cuda_graph_batch_close_window (GstCudaGraphBatch *self,
    GstClockTime fallback);
void gst_cuda_graph_batch_reset_window (GstCudaGraphBatch *self);

/* gstcudagraphbatchrun.c */
void gst_cuda_graph_batch_engine_counts (GstCudaGraphBatch *self,
    GstCudaGraphRunCounts *counts);
GstFlowReturn gst_cuda_graph_batch_push_batch (GstCudaGraphBatch *self,
    Batch *batch);

G_END_DECLS
