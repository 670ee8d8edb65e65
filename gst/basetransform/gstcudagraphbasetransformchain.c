/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The frame chain GstCudaGraphBaseTransform runs: the one for the
 * negotiated configuration, made by the first buffer, or taken back from
 * the chain cache that keeps the chains of earlier caps with their
 * captured graphs. */
#include "gstcudagraphbasetransform-private.h"

#include <gcg/gcg-internal.h>

#include <string.h>

#define GST_CAT_DEFAULT gst_cuda_graph_base_transform_debug

/* Makes @chain (transfer full) the current one; the counters go on from
 * its counts as they are now. */
static void
activate_chain (GstCudaGraphBaseTransform *self, GcgFrameBatch *chain)
{
  gst_cuda_graph_base_transform_count_chain_activated (self, chain);
  GET_PRIV (self)->chain = chain;
}

/* Puts the current chain aside in the cache, keeping what it counted
 * while current in the retired totals so the counters go on across caps
 * changes. */
void
gst_cuda_graph_base_transform_retire_chain (GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  if (priv->chain == NULL)
    return;
  gst_cuda_graph_base_transform_count_chain_retired (self, priv->chain);
  gst_cuda_graph_chain_cache_put (priv->chain_cache,
      g_steal_pointer (&priv->chain));
}

/* Drops the least recently used chains beyond chain-cache-size: only
 * once the next chain was looked up, which may be the one dropped
 * otherwise. */
static void
trim_chain_cache (GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  guint cache_size;

  GST_OBJECT_LOCK (self);
  cache_size = priv->chain_cache_size;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_chain_cache_trim (priv->chain_cache, cache_size);
}

/* Makes the chain for priv->config current unless there is one: the
 * cached chain of earlier caps with this configuration (its graph is
 * replayed, not captured again), else a new one. */
gboolean
gst_cuda_graph_base_transform_build_chain (GstCudaGraphBaseTransform *self,
    GError **error)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  const GcgFrameChainConfig *config = &priv->config;
  GcgFrameBatch *chain;

  if (priv->chain)
    return TRUE;
  chain = gst_cuda_graph_chain_cache_take (priv->chain_cache, config);
  /* Only once the lookup is done: trimming might drop that very chain. */
  trim_chain_cache (self);
  if (chain) {
    GST_INFO_OBJECT (self, "frame chain %ux%u -> %ux%u from the chain cache",
        config->in_width, config->in_height, config->out_width,
        config->out_height);
    activate_chain (self, chain);
    return TRUE;
  }
  if (priv->kernel_only)
    chain = gcg__frame_batch_new_stages_only (config, priv->dev.context, error);
  else
    chain = gcg_frame_batch_new_for_frame (config, priv->dev.active,
        priv->dev.context, error);
  if (chain == NULL)
    return FALSE;
  if (!gst_cuda_graph_user_kernel_attach (&priv->kernel, chain, error)
      || (GST_CUDA_GRAPH_BASE_TRANSFORM_GET_CLASS (self)->attach != NULL
          && priv->dev.active == GCG_BACKEND_CUDA
          && !GST_CUDA_GRAPH_BASE_TRANSFORM_GET_CLASS (self)->attach (self,
              chain, error))) {
    g_object_unref (chain);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "new frame chain %ux%u -> %ux%u (%s backend)",
      config->in_width, config->in_height, config->out_width,
      config->out_height,
      priv->dev.active == GCG_BACKEND_CUDA ? "cuda" : "cpu");
  GST_OBJECT_LOCK (self);
  priv->chains_built++;
  GST_OBJECT_UNLOCK (self);
  activate_chain (self, chain);
  return TRUE;
}

/* Takes @config (already validated) as the one to run.  Its chain is made
 * (or taken from the chain cache) by the first buffer: caps that no
 * buffer comes with (a provisional negotiation, a reconfiguration that
 * is soon replaced) cost neither a chain nor a place in the cache.  A
 * chain the driver cannot make then (a transient failure) does not fail
 * the caps: each buffer tries again and counts as a failed frame until it
 * works, so max-errors decides, as for any other driver failure. */
void
gst_cuda_graph_base_transform_use_config (GstCudaGraphBaseTransform *self,
    const GcgFrameChainConfig *config)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  if (priv->have_config
      && memcmp (&priv->config, config, sizeof (*config)) == 0) {
    GST_DEBUG_OBJECT (self, "same configuration, keeping the chain");
    return;
  }
  /* The old chain's frames finish first (none is lost). */
  if (priv->queue)
    gcg_frame_queue_drain (priv->queue);
  gst_cuda_graph_base_transform_retire_chain (self);
  priv->config = *config;
  priv->have_config = TRUE;
}
