/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The run properties and counters of every cudagraph element, defined once
 * so that all of them take and report the same values the same way. */
#include "gstcudagraphrunprops.h"

#include <string.h>

#define DEFAULT_CUDA_DEVICE_ID -1
#define DEFAULT_BACKEND GCG_BACKEND_AUTO
#define DEFAULT_USE_GRAPH TRUE
#define DEFAULT_IN_FLIGHT 4
#define DEFAULT_SYNC_MODE GCG_SYNC_MODE_POLL

#define READY_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)
#define PLAYING_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)
#define RO (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)

static void
install_settings (GObjectClass *klass, guint id,
    const GstCudaGraphRunPropsText *text)
{
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_RUN_PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device ID",
          "CUDA device ordinal, -1 to the number of devices - 1 (-1 = "
          "automatic: device 0; a device that is not there fails at start)",
          -1, G_MAXINT, DEFAULT_CUDA_DEVICE_ID, READY_FLAGS));
  g_object_class_install_property (klass, id + GST_CUDA_GRAPH_RUN_PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend", text->backend, GCG_TYPE_BACKEND,
          DEFAULT_BACKEND, READY_FLAGS));
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_RUN_PROP_USE_GRAPH,
      g_param_spec_boolean ("use-graph", "Use graph", text->use_graph,
          DEFAULT_USE_GRAPH, PLAYING_FLAGS));
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_RUN_PROP_IN_FLIGHT,
      g_param_spec_uint ("in-flight", text->in_flight_nick, text->in_flight, 1,
          text->max_in_flight, DEFAULT_IN_FLIGHT, READY_FLAGS));
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_RUN_PROP_SYNC_MODE,
      g_param_spec_enum ("sync-mode", "Sync mode",
          "How a thread that needs the GPU work's result (a reader mapping "
          "the output, a full in-flight window, EOS) waits for it: poll "
          "sleeps in short steps between queries, blocking sleeps on a "
          "blocking-sync event (the driver takes an interrupt each time), "
          "driver spins a core (least latency)",
          GCG_TYPE_SYNC_MODE, DEFAULT_SYNC_MODE, PLAYING_FLAGS));
}

static void
install_counters (GObjectClass *klass, guint id,
    const GstCudaGraphRunPropsText *text)
{
  g_object_class_install_property (klass, id + GST_CUDA_GRAPH_RUN_PROP_CAPTURES,
      g_param_spec_uint64 ("captures", "Captures", text->captures, 0,
          G_MAXUINT64, 0, RO));
  g_object_class_install_property (klass, id + GST_CUDA_GRAPH_RUN_PROP_REPLAYS,
      g_param_spec_uint64 ("replays", "Replays", text->replays, 0, G_MAXUINT64,
          0, RO));
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_RUN_PROP_EAGER_FRAMES,
      g_param_spec_uint64 ("eager-frames", "Eager frames", text->eager_frames,
          0, G_MAXUINT64, 0, RO));
}

void
gst_cuda_graph_run_props_install (GObjectClass *klass, guint first_id,
    const GstCudaGraphRunPropsText *text)
{
  install_settings (klass, first_id, text);
  install_counters (klass, first_id, text);
  gst_type_mark_as_plugin_api (GCG_TYPE_BACKEND, 0);
  gst_type_mark_as_plugin_api (GCG_TYPE_SYNC_MODE, 0);
}

void
gst_cuda_graph_run_props_init (GstCudaGraphRunProps *props)
{
  memset (props, 0, sizeof (*props));
  props->device_id = DEFAULT_CUDA_DEVICE_ID;
  props->backend = DEFAULT_BACKEND;
  props->use_graph = DEFAULT_USE_GRAPH;
  props->in_flight = DEFAULT_IN_FLIGHT;
  props->sync_mode = DEFAULT_SYNC_MODE;
}

gboolean
gst_cuda_graph_run_props_set (GstCudaGraphRunProps *props, guint first_id,
    guint prop_id, const GValue *value)
{
  if (prop_id < first_id)
    return FALSE;
  switch (prop_id - first_id) {
    case GST_CUDA_GRAPH_RUN_PROP_CUDA_DEVICE_ID:
      props->device_id = g_value_get_int (value);
      return TRUE;
    case GST_CUDA_GRAPH_RUN_PROP_BACKEND:
      props->backend = g_value_get_enum (value);
      return TRUE;
    case GST_CUDA_GRAPH_RUN_PROP_USE_GRAPH:
      props->use_graph = g_value_get_boolean (value);
      return TRUE;
    case GST_CUDA_GRAPH_RUN_PROP_IN_FLIGHT:
      props->in_flight = g_value_get_uint (value);
      return TRUE;
    case GST_CUDA_GRAPH_RUN_PROP_SYNC_MODE:
      props->sync_mode = g_value_get_enum (value);
      return TRUE;
    default:
      return FALSE;
  }
}

static gboolean
get_counter (const GstCudaGraphRunCounts *counts, guint which, GValue *value)
{
  switch (which) {
    case GST_CUDA_GRAPH_RUN_PROP_CAPTURES:
      g_value_set_uint64 (value, counts->captures);
      return TRUE;
    case GST_CUDA_GRAPH_RUN_PROP_REPLAYS:
      g_value_set_uint64 (value, counts->replays);
      return TRUE;
    case GST_CUDA_GRAPH_RUN_PROP_EAGER_FRAMES:
      g_value_set_uint64 (value, counts->eager);
      return TRUE;
    default:
      return FALSE;
  }
}

gboolean
gst_cuda_graph_run_props_get (const GstCudaGraphRunProps *props, guint first_id,
    guint prop_id, GValue *value)
{
  if (prop_id < first_id)
    return FALSE;
  switch (prop_id - first_id) {
    case GST_CUDA_GRAPH_RUN_PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, props->device_id);
      return TRUE;
    case GST_CUDA_GRAPH_RUN_PROP_BACKEND:
      g_value_set_enum (value, props->backend);
      return TRUE;
    case GST_CUDA_GRAPH_RUN_PROP_USE_GRAPH:
      g_value_set_boolean (value, props->use_graph);
      return TRUE;
    case GST_CUDA_GRAPH_RUN_PROP_IN_FLIGHT:
      g_value_set_uint (value, props->in_flight);
      return TRUE;
    case GST_CUDA_GRAPH_RUN_PROP_SYNC_MODE:
      g_value_set_enum (value, props->sync_mode);
      return TRUE;
    default:
      return get_counter (&props->counts, prop_id - first_id, value);
  }
}

void
gst_cuda_graph_run_counts_set (GstCudaGraphRunCounts *counts, guint64 captures,
    guint64 launches, guint64 eager)
{
  counts->captures = captures;
  counts->replays = launches > captures ? launches - captures : 0;
  counts->eager = eager;
}

GstStructure *
gst_cuda_graph_run_stats_new (GcgBackend active,
    const GstCudaGraphRunCounts *counts)
{
  return gst_structure_new ("cudagraph-stats", "backend", G_TYPE_STRING,
      active == GCG_BACKEND_CUDA ? "cuda" : "cpu", "captures", G_TYPE_UINT64,
      counts->captures, "replays", G_TYPE_UINT64, counts->replays,
      "eager-frames", G_TYPE_UINT64, counts->eager, NULL);
}
