/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The properties of GstCudaGraphBaseTransform, for cudagraphconvert and
 * cudagraphpreprocess: the run properties and counters every cudagraph
 * element has (gstcudagraphrunprops.h), and the base's own. */
#include "gstcudagraphbasetransform-private.h"

enum
{
  PROP_0,
  PROP_MAX_ERRORS,
  PROP_DROPPED_FRAMES,
  PROP_FAILED_FRAMES,
  PROP_CHAIN_CACHE_SIZE,
  PROP_GRAPH_CACHE_SIZE,        /* deprecated alias of chain-cache-size */
  PROP_CHAINS_BUILT,
  PROP_KERNEL_FIRST,
  PROP_RUN_FIRST = PROP_KERNEL_FIRST + GST_CUDA_GRAPH_USER_KERNEL_N_PROPS,
};

#define DEFAULT_MAX_ERRORS 10
#define DEFAULT_CHAIN_CACHE_SIZE 4

#define PLAYING_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)
#define RO (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)

static const GstCudaGraphRunPropsText run_text = {
  .backend = "Where the frame chain runs: auto (CUDA when a GPU is usable, "
             "the CPU reference otherwise), cuda, or cpu",
  .use_graph = "Capture the chain into a CUDA graph once and replay it per "
               "frame (FALSE launches the same kernels eagerly, for A/B "
               "measurement)",
  .in_flight_nick = "Frames in flight",
  .in_flight = "Frames whose GPU work may be queued at once, 1-" G_STRINGIFY (
      GCG_FRAME_QUEUE_MAX_DEPTH) ": buffers leave the element while the "
                                 "GPU still works on them, and whoever maps one first waits for that "
                                 "frame only (1 = one frame at a time)",
  .max_in_flight = GCG_FRAME_QUEUE_MAX_DEPTH,
  .captures = "Graph captures since start (one per negotiated caps)",
  .replays = "Frames that replayed a graph captured on an earlier frame "
             "(N buffers of one caps: 1 capture, N-1 replays)",
  .eager_frames = "Frames run without a graph (use-graph=false, or the CPU "
                  "backend)",
};

static void
install_settings (GObjectClass *gobject_class)
{
  g_object_class_install_property (gobject_class, PROP_MAX_ERRORS,
      g_param_spec_int ("max-errors", "Max errors",
          "Consecutive frames that may fail to process (a driver error, "
          "say) before the element errors out; each failed frame is "
          "dropped with a warning (-1 = never error out, 0 = error out on "
          "the first; at most 2147483647)",
          -1, G_MAXINT, DEFAULT_MAX_ERRORS, PLAYING_FLAGS));
  /**
   * GstCudaGraphBaseTransform:chain-cache-size:
   *
   * Frame chains of earlier caps kept besides the current one, each with
   * its captured graph and device memory.
   *
   * Since: 0.3
   */
  g_object_class_install_property (gobject_class, PROP_CHAIN_CACHE_SIZE,
      g_param_spec_uint ("chain-cache-size", "Chain cache size",
          "Frame chains of earlier caps kept, with their captured graphs "
          "and device memory, besides the current one: caps changing back "
          "to one of them replay its graph instead of capturing again; the "
          "least recently used one is dropped when more are kept, 0-" G_STRINGIFY (
              GST_CUDA_GRAPH_CHAIN_CACHE_MAX) " (0 = none; a "
                                              "smaller value takes effect at the next caps change)",
          0, GST_CUDA_GRAPH_CHAIN_CACHE_MAX, DEFAULT_CHAIN_CACHE_SIZE,
          PLAYING_FLAGS));
  /**
   * GstCudaGraphBaseTransform:graph-cache-size:
   *
   * The old name of #GstCudaGraphBaseTransform:chain-cache-size (it
   * caches chains, not graphs): reads and sets the same value, with a
   * warning when set.
   *
   * Deprecated: 0.3: Use #GstCudaGraphBaseTransform:chain-cache-size.
   */
  g_object_class_install_property (gobject_class, PROP_GRAPH_CACHE_SIZE,
      g_param_spec_uint ("graph-cache-size", "Graph cache size",
          "Deprecated alias of chain-cache-size, 0-" G_STRINGIFY (
              GST_CUDA_GRAPH_CHAIN_CACHE_MAX),
          0, GST_CUDA_GRAPH_CHAIN_CACHE_MAX, DEFAULT_CHAIN_CACHE_SIZE,
          PLAYING_FLAGS | G_PARAM_DEPRECATED));
}

/* Setting graph-cache-size still works, and says it is going: in the
 * debug log and, in a pipeline, on the bus (GLib warns of a deprecated
 * property only with G_ENABLE_DIAGNOSTIC set).  Without the lock: posting
 * takes it. */
static void
warn_deprecated_cache_size (GObject *object)
{
  GST_WARNING_OBJECT (object,
      "graph-cache-size is deprecated: use "
      "chain-cache-size");
  GST_ELEMENT_WARNING (object, LIBRARY, SETTINGS,
      ("The property graph-cache-size is deprecated: use chain-cache-size "
       "(the same value; it caches frame chains)"),
      (NULL));
}

static void
install_counters (GObjectClass *gobject_class)
{
  g_object_class_install_property (gobject_class, PROP_DROPPED_FRAMES,
      g_param_spec_uint64 ("dropped-frames", "Dropped frames",
          "Frames dropped because processing them failed", 0, G_MAXUINT64, 0,
          RO));
  g_object_class_install_property (gobject_class, PROP_FAILED_FRAMES,
      g_param_spec_uint64 ("failed-frames", "Failed frames",
          "Frames whose processing failed: the dropped ones, and those that "
          "failed on the GPU after their buffer had left (reported with a "
          "warning naming their PTS)",
          0, G_MAXUINT64, 0, RO));
  g_object_class_install_property (gobject_class, PROP_CHAINS_BUILT,
      g_param_spec_uint64 ("chains-built", "Chains built",
          "Frame chains built since start: one per caps not found in the "
          "chain cache (a chain taken back from the cache is not counted)",
          0, G_MAXUINT64, 0, RO));
}

static void
gst_cuda_graph_base_transform_set_property (GObject *object, guint prop_id,
    const GValue *value, GParamSpec *pspec)
{
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (object));

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_MAX_ERRORS:
      priv->max_errors = g_value_get_int (value);
      break;
    case PROP_CHAIN_CACHE_SIZE:
    case PROP_GRAPH_CACHE_SIZE:
      priv->chain_cache_size = g_value_get_uint (value);
      break;
    default:
      if (!gst_cuda_graph_user_kernel_set (&priv->kernel, PROP_KERNEL_FIRST,
              prop_id, value)
          && !gst_cuda_graph_run_props_set (&priv->run, PROP_RUN_FIRST, prop_id,
              value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
  if (prop_id == PROP_GRAPH_CACHE_SIZE)
    warn_deprecated_cache_size (object);
}

static void
gst_cuda_graph_base_transform_get_property (GObject *object, guint prop_id,
    GValue *value, GParamSpec *pspec)
{
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (object));

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_MAX_ERRORS:
      g_value_set_int (value, priv->max_errors);
      break;
    case PROP_CHAIN_CACHE_SIZE:
    case PROP_GRAPH_CACHE_SIZE:
      g_value_set_uint (value, priv->chain_cache_size);
      break;
    case PROP_DROPPED_FRAMES:
      g_value_set_uint64 (value, priv->dropped);
      break;
    case PROP_FAILED_FRAMES:
      g_value_set_uint64 (value, priv->failed);
      break;
    case PROP_CHAINS_BUILT:
      g_value_set_uint64 (value, priv->chains_built);
      break;
    default:
      if (!gst_cuda_graph_user_kernel_get (&priv->kernel, PROP_KERNEL_FIRST,
              prop_id, value)
          && !gst_cuda_graph_run_props_get (&priv->run, PROP_RUN_FIRST, prop_id,
              value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

gboolean
gst_cuda_graph_base_transform_has_user_kernel_locked (
    GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  return priv->kernel.source != NULL || priv->kernel.location != NULL;
}

void
gst_cuda_graph_base_transform_install_properties (GObjectClass *gobject_class)
{
  gobject_class->set_property = gst_cuda_graph_base_transform_set_property;
  gobject_class->get_property = gst_cuda_graph_base_transform_get_property;

  gst_cuda_graph_run_props_install (gobject_class, PROP_RUN_FIRST, &run_text);
  install_settings (gobject_class);
  install_counters (gobject_class);
  gst_cuda_graph_user_kernel_install (gobject_class, PROP_KERNEL_FIRST, TRUE);
}

void
gst_cuda_graph_base_transform_init_properties (
    GstCudaGraphBaseTransformPrivate *priv)
{
  gst_cuda_graph_run_props_init (&priv->run);
  gst_cuda_graph_user_kernel_init (&priv->kernel);
  priv->max_errors = DEFAULT_MAX_ERRORS;
  priv->chain_cache_size = DEFAULT_CHAIN_CACHE_SIZE;
}
