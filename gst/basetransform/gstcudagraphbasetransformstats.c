/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* What GstCudaGraphBaseTransform counts (captures, replays and eager
 * frames over every chain since start, frames, dropped and failed ones)
 * and the `cudagraph-stats` element message that reports it. */
#include "gstcudagraphbasetransform-private.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_cuda_graph_base_transform_debug

static void
chain_counts (GcgFrameBatch *chain, GstCudaGraphChainCounts *counts)
{
  counts->captures = gcg_frame_batch_get_capture_count (chain);
  counts->launches = gcg_frame_batch_get_replay_count (chain);
  counts->eager = gcg_frame_batch_get_eager_count (chain);
}

void
gst_cuda_graph_base_transform_reset_counters (GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  GST_OBJECT_LOCK (self);
  memset (&priv->run.counts, 0, sizeof (priv->run.counts));
  memset (&priv->retired, 0, sizeof (priv->retired));
  memset (&priv->base, 0, sizeof (priv->base));
  priv->chains_built = 0;
  priv->frames = priv->dropped = priv->failed = 0;
  priv->consecutive_errors = 0;
  priv->in_place_in = priv->in_place_out = 0;
  priv->stats_posted = FALSE;
  priv->flow_error = FALSE;
  GST_OBJECT_UNLOCK (self);
}

/* @chain becomes the current one: the counters go on from its counts as
 * they are now. */
void
gst_cuda_graph_base_transform_count_chain_activated (
    GstCudaGraphBaseTransform *self, GcgFrameBatch *chain)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  GST_OBJECT_LOCK (self);
  chain_counts (chain, &priv->base);
  GST_OBJECT_UNLOCK (self);
}

/* @chain, the current one, is put aside: what it counted while current
 * goes to the retired totals, so the counters go on across caps
 * changes. */
void
gst_cuda_graph_base_transform_count_chain_retired (
    GstCudaGraphBaseTransform *self, GcgFrameBatch *chain)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  GstCudaGraphChainCounts now;

  chain_counts (chain, &now);
  GST_OBJECT_LOCK (self);
  priv->retired.captures += now.captures - priv->base.captures;
  priv->retired.launches += now.launches - priv->base.launches;
  priv->retired.eager += now.eager - priv->base.eager;
  GST_OBJECT_UNLOCK (self);
}

/* A frame was queued on the current chain. */
void
gst_cuda_graph_base_transform_count_frame (GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  GstCudaGraphChainCounts now;

  chain_counts (priv->chain, &now);
  GST_OBJECT_LOCK (self);
  gst_cuda_graph_run_counts_set (&priv->run.counts,
      priv->retired.captures + now.captures - priv->base.captures,
      priv->retired.launches + now.launches - priv->base.launches,
      priv->retired.eager + now.eager - priv->base.eager);
  priv->frames++;
  GST_OBJECT_UNLOCK (self);
}

/* Counts a failed frame; TRUE when that makes more than max-errors
 * failures in a row.  A failed frame is dropped (or, failing on the GPU
 * after it left, reported) with a warning so the stream goes on, like
 * GstVideoDecoder's max-errors; only a run of failures (a lost device, a
 * sticky CUDA error) stops the pipeline. */
gboolean
gst_cuda_graph_base_transform_count_failure (GstCudaGraphBaseTransform *self,
    const GError *error, GstClockTime pts, const gchar *what)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  gint max_errors;

  GST_OBJECT_LOCK (self);
  max_errors = priv->max_errors;
  priv->failed++;
  GST_OBJECT_UNLOCK (self);
  priv->consecutive_errors++;
  GST_WARNING_OBJECT (self,
      "frame %" GST_TIME_FORMAT " failed (%u in a row):"
      " %s",
      GST_TIME_ARGS (pts), priv->consecutive_errors, error->message);
  if (max_errors >= 0 && priv->consecutive_errors > (guint) max_errors) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Processing a frame failed %u times in a row (frame PTS %" GST_TIME_FORMAT
         "): %s",
            priv->consecutive_errors, GST_TIME_ARGS (pts), error->message),
        ("max-errors is %d", max_errors));
    return TRUE;
  }
  GST_ELEMENT_WARNING (self, STREAM, FAILED,
      ("Processing the frame with PTS %" GST_TIME_FORMAT " failed, %s: %s",
          GST_TIME_ARGS (pts), what, error->message),
      ("%u failure(s) in a row, max-errors %d", priv->consecutive_errors,
          max_errors));
  return FALSE;
}

void
gst_cuda_graph_base_transform_post_stats (GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  GstStructure *s;

  GST_OBJECT_LOCK (self);
  s = gst_cuda_graph_run_stats_new (priv->dev.active, &priv->run.counts);
  gst_structure_set (s, "chains-built", G_TYPE_UINT64, priv->chains_built,
      "frames", G_TYPE_UINT64, priv->frames, "dropped-frames", G_TYPE_UINT64,
      priv->dropped, "failed-frames", G_TYPE_UINT64, priv->failed,
      "in-place-inputs", G_TYPE_UINT64, priv->in_place_in, "in-place-outputs",
      G_TYPE_UINT64, priv->in_place_out, NULL);
  GST_OBJECT_UNLOCK (self);
  if (priv->queue)
    gst_structure_set (s, "in-flight", G_TYPE_UINT,
        gcg_frame_queue_get_depth (priv->queue), "slot-waits", G_TYPE_UINT64,
        gcg_frame_queue_get_slot_waits (priv->queue), NULL);
  gst_cuda_graph_device_add_memory_stats (&priv->dev, s);

  GST_INFO_OBJECT (self, "%" GST_PTR_FORMAT, s);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}
