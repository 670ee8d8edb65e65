/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

G_BEGIN_DECLS

/* The properties that say where and how an element's GPU work runs
 * (cuda-device-id, backend, use-graph, in-flight) and the counters of
 * what ran (captures, replays, eager-frames): one definition, installed by
 * GstCudaGraphBaseTransform (for cudagraphconvert and cudagraphpreprocess)
 * and by cudagraphbatch, a GstAggregator.  Each element says in its own
 * words what one unit of work is (a frame, a batch) through a
 * GstCudaGraphRunPropsText.  The element keeps a GstCudaGraphRunProps in
 * its instance, under its object lock, and hands the property ids from
 * @first_id on to these functions. */

enum
{
  GST_CUDA_GRAPH_RUN_PROP_CUDA_DEVICE_ID,
  GST_CUDA_GRAPH_RUN_PROP_BACKEND,
  GST_CUDA_GRAPH_RUN_PROP_USE_GRAPH,
  GST_CUDA_GRAPH_RUN_PROP_IN_FLIGHT,
  GST_CUDA_GRAPH_RUN_PROP_SYNC_MODE,
  GST_CUDA_GRAPH_RUN_PROP_CAPTURES,
  GST_CUDA_GRAPH_RUN_PROP_REPLAYS,
  GST_CUDA_GRAPH_RUN_PROP_EAGER_FRAMES,
  GST_CUDA_GRAPH_RUN_N_PROPS
};

/* The element's descriptions of the shared properties (static strings),
 * and the most units of work it may have in flight. */
typedef struct
{
  const gchar *backend;
  const gchar *use_graph;
  const gchar *in_flight_nick;
  const gchar *in_flight;
  guint max_in_flight;
  const gchar *captures;
  const gchar *replays;
  const gchar *eager_frames;
} GstCudaGraphRunPropsText;

/* What the engine ran since start: graphs captured, units of work that
 * replayed a graph captured earlier, units run without a graph. */
typedef struct
{
  guint64 captures;
  guint64 replays;
  guint64 eager;
} GstCudaGraphRunCounts;

typedef struct
{
  gint device_id;
  GcgBackend backend;
  gboolean use_graph;
  guint in_flight;
  GcgSyncMode sync_mode;
  GstCudaGraphRunCounts counts;
} GstCudaGraphRunProps;

void gst_cuda_graph_run_props_install (GObjectClass *klass, guint first_id,
    const GstCudaGraphRunPropsText *text);
void gst_cuda_graph_run_props_init (GstCudaGraphRunProps *props);

/* FALSE when @prop_id is not one of ours.  Called with the element's
 * object lock held. */
gboolean gst_cuda_graph_run_props_set (GstCudaGraphRunProps *props,
    guint first_id, guint prop_id, const GValue *value);
gboolean gst_cuda_graph_run_props_get (const GstCudaGraphRunProps *props,
    guint first_id, guint prop_id, GValue *value);

/* Sets @counts from an engine's own counts: it counts every graph launch,
 * the one right after a capture included, while the element's "replays"
 * are the launches of a graph captured earlier (N units of work = 1
 * capture + N - 1 replays). */
void gst_cuda_graph_run_counts_set (GstCudaGraphRunCounts *counts,
    guint64 captures, guint64 launches, guint64 eager);

/**
 * GST_CUDA_GRAPH_STATS_REQUEST_NAME:
 *
 * Name of a custom downstream event (GST_EVENT_CUSTOM_DOWNSTREAM, an empty
 * structure of this name) that makes the element post its
 * `cudagraph-stats` element message now, in stream order, as it does at
 * EOS: counters, frames in flight and the memory it holds.
 */
#define GST_CUDA_GRAPH_STATS_REQUEST_NAME "cudagraph-stats-request"

/* A new `cudagraph-stats` structure with the fields every element posts
 * first: `backend` (@active's name), `captures`, `replays` and
 * `eager-frames`. */
GstStructure *gst_cuda_graph_run_stats_new (GcgBackend active,
    const GstCudaGraphRunCounts *counts);

G_END_DECLS
