/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* What the files of GstCudaGraphBaseTransform share: its private state
 * and the functions one file provides to the others.
 *
 *   gstcudagraphbasetransform.c        the type, start/stop, events,
 *                                      context, helpers for subclasses
 *   gstcudagraphbasetransformprops.c   properties
 *   gstcudagraphbasetransformstats.c   counters, the cudagraph-stats message
 *   gstcudagraphbasetransformcaps.c    caps, allocation
 *   gstcudagraphbasetransformchain.c   the current chain, the graph cache
 *   gstcudagraphbasetransformframe.c   one frame: map, queue, finish
 */

#include "gstcudagraphbasetransform.h"
#include "gstcudagraphchaincache.h"
#include "memory/gstcudagraphdevice.h"
#include "buffers/gstcudagraphidlewatch.h"
#include "gstcudagraphinflight.h"
#include "props/gstcudagraphuserkernel.h"
#include "props/gstcudagraphrunprops.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_graph_base_transform_debug);

/* What a chain counted: graphs captured, graph launches (the one right
 * after a capture included), eager frames. */
typedef struct
{
  guint64 captures;
  guint64 launches;
  guint64 eager;
} GstCudaGraphChainCounts;

typedef struct
{
  /* Properties, under the object lock: the shared ones (their counters
   * included) and the base's own. */
  GstCudaGraphRunProps run;
  gint max_errors;
  guint chain_cache_size;

  /* Counters, under the object lock: totals over every chain since start
   * (in run.counts); what chains counted while they were current, before
   * the current one; and the current chain's own counts when it became
   * current (a chain from the cache comes back with the counts of its
   * earlier caps). */
  GstCudaGraphChainCounts retired;
  GstCudaGraphChainCounts base;
  guint64 chains_built;
  guint64 frames;
  guint64 dropped;
  guint64 failed;
  /* Streaming thread only (read at EOS, or at stop once it has ended). */
  guint64 in_place_in;
  guint64 in_place_out;
  gboolean stats_posted;
  guint consecutive_errors;
  /* Frames that failed before they were queued (dropped), ever: what a
   * queued frame finishing well leaves of the run is those dropped after
   * it was queued (frames finish in order, but after later drops). */
  guint64 launch_failures;
  /* A frame that failed on the GPU after it was pushed took the errors past
   * max-errors: the next buffer returns GST_FLOW_ERROR. */
  gboolean flow_error;
  /* priv->config holds the negotiated configuration (the chain for it may
   * still be missing after a driver failure). */
  gboolean have_config;
  /* Between start and stop: the backend (and CUDA memory output) known. */
  gboolean started;
  /* Why negotiation failed, said once per negotiation: the causes said
   * since start or the last caps set (under the object lock), and the
   * caps set_caps() last refused (the CAPS event comes back with every
   * sticky event retried upstream; streaming thread). */
  guint explained;
  GstCaps *refused_in;
  GstCaps *refused_out;

  /* The GstCudaContext offered by the pipeline or a neighbour, under the
   * object lock (set_context may come from any thread). */
  GstObject *gst_context;

  /* Streaming state (streaming thread, or state changes). */
  GstCudaGraphDevice dev;
  GcgFrameQueue *queue;
  /* The records of the queue's frames, made with it. */
  GstCudaGraphInFlightPool in_flight;
  /* With a postprocess: the outputs held until their frame is done,
   * oldest first, and the frame transform() just queued, for
   * generate_output() to hold with its output. */
  GstCudaGraphHeldFrames held;
  GstCudaGraphInFlightFrame *just_queued;
  /* Lets the held outputs out once input pauses (CUDA backend, between
   * start and stop). */
  GstCudaGraphIdleWatch idle;
  /* Set (atomically: latency queries come from any thread) once a frame
   * was held: the latency query then counts the hold. */
  gint holding;
  /* The negotiated output caps (a reference): transform_size() answers
   * out_size for them without parsing them again every frame. */
  GstCaps *out_caps;
  GcgFrameBatch *chain;
  GstCudaGraphChainCache *chain_cache;  /* chains of earlier caps */
  /* The user's kernel after ours (its properties under the object lock). */
  GstCudaGraphUserKernel kernel;
  /* Set by a subclass at init (cudagraphkernel): chains have no built-in
   * op, the user's kernel alone reads the input and writes the output. */
  gboolean kernel_only;
  GcgFrameChainConfig config;
  GstVideoInfo in_info;
  GstVideoInfo out_info;
  gsize out_size;
} GstCudaGraphBaseTransformPrivate;

GstCudaGraphBaseTransformPrivate *gst_cuda_graph_base_transform_get_priv (
    GstCudaGraphBaseTransform *self);

#define GET_PRIV(self) gst_cuda_graph_base_transform_get_priv (self)

/* GstBaseTransform's class, to chain up to from any file of the base. */
GstBaseTransformClass *gst_cuda_graph_base_transform_get_parent_class (void);

#define PARENT_CLASS (gst_cuda_graph_base_transform_get_parent_class ())

/* gstcudagraphbasetransformprops.c */
void gst_cuda_graph_base_transform_install_properties (
    GObjectClass *gobject_class);
void gst_cuda_graph_base_transform_init_properties (
    GstCudaGraphBaseTransformPrivate *priv);

/* gstcudagraphbasetransformstats.c */
void gst_cuda_graph_base_transform_reset_counters (
    GstCudaGraphBaseTransform *self);
void gst_cuda_graph_base_transform_count_chain_activated (
    GstCudaGraphBaseTransform *self, GcgFrameBatch *chain);
void gst_cuda_graph_base_transform_count_chain_retired (
    GstCudaGraphBaseTransform *self, GcgFrameBatch *chain);
void gst_cuda_graph_base_transform_count_frame (
    GstCudaGraphBaseTransform *self);
gboolean gst_cuda_graph_base_transform_count_failure (
    GstCudaGraphBaseTransform *self, const GError *error, GstClockTime pts,
    const gchar *what);
void gst_cuda_graph_base_transform_post_stats (GstCudaGraphBaseTransform *self);

/* gstcudagraphbasetransformcaps.c */
gboolean gst_cuda_graph_base_transform_set_caps (GstBaseTransform *trans,
    GstCaps *incaps, GstCaps *outcaps);
gboolean gst_cuda_graph_base_transform_transform_size (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, gsize size, GstCaps *othercaps,
    gsize *othersize);
/* After the input caps failed to negotiate: says so with an error that
 * names the cause where we know it (downstream takes only CUDA memory,
 * which the CPU backend cannot write), instead of a bare not-negotiated. */
void gst_cuda_graph_base_transform_explain_caps_failure (
    GstCudaGraphBaseTransform *self);
/* After the base class answered @query on the pad of @direction: a caps
 * query answered with no caps, or caps refused, on the sink pad is a
 * negotiation that fails there (a launch line's source never sends its
 * caps), explained as above once the element has started. */
void gst_cuda_graph_base_transform_check_caps_query (
    GstCudaGraphBaseTransform *self, GstPadDirection direction,
    GstQuery *query);
/* Start, stop: no failure said, no caps refused. */
void gst_cuda_graph_base_transform_forget_refusals (
    GstCudaGraphBaseTransform *self);
gboolean gst_cuda_graph_base_transform_get_unit_size (GstBaseTransform *trans,
    GstCaps *caps, gsize *size);
gboolean gst_cuda_graph_base_transform_propose_allocation (
    GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query);
gboolean gst_cuda_graph_base_transform_decide_allocation (
    GstBaseTransform *trans, GstQuery *query);
GstFlowReturn gst_cuda_graph_base_transform_prepare_output_buffer (
    GstBaseTransform *trans, GstBuffer *input, GstBuffer **outbuf);

/* gstcudagraphbasetransformchain.c */
gboolean gst_cuda_graph_base_transform_build_chain (
    GstCudaGraphBaseTransform *self, GError **error);
void gst_cuda_graph_base_transform_use_config (GstCudaGraphBaseTransform *self,
    const GcgFrameChainConfig *config);
void gst_cuda_graph_base_transform_retire_chain (
    GstCudaGraphBaseTransform *self);

/* gstcudagraphbasetransformframe.c */
void gst_cuda_graph_base_transform_before_transform (GstBaseTransform *trans,
    GstBuffer *buffer);
GstFlowReturn gst_cuda_graph_base_transform_transform (GstBaseTransform *trans,
    GstBuffer *inbuf, GstBuffer *outbuf);
GstFlowReturn gst_cuda_graph_base_transform_submit_input_buffer (
    GstBaseTransform *trans, gboolean is_discont, GstBuffer *input);
GstFlowReturn gst_cuda_graph_base_transform_generate_output (
    GstBaseTransform *trans, GstBuffer **outbuf);
/* The held outputs: pushed once every frame is done (EOS, a serialized
 * event, a drain), or dropped (flush, stop: the queue cancelled first). */
void gst_cuda_graph_base_transform_finish_held (
    GstCudaGraphBaseTransform *self);
/* How long input must pause before the held outputs leave without a
 * next input (µs): above a frame's interval at the rates the GPU path
 * runs (thousands of fps), so a steady stream never waits for it. */
#define GST_CUDA_GRAPH_HOLD_IDLE_US 200
void gst_cuda_graph_base_transform_finish_held_idle (gpointer self);
void gst_cuda_graph_base_transform_drop_held (GstCudaGraphBaseTransform *self);
void gst_cuda_graph_base_transform_add_hold_latency (
    GstCudaGraphBaseTransform *self, GstQuery *query);

G_END_DECLS
