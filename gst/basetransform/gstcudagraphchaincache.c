/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* A small LRU list of frame chains keyed by their configuration: the
 * elements' chain-cache-size.  A handful of entries at most, so a linear
 * search is the whole index. */

#include <string.h>

#include "gstcudagraphchaincache.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_graph_base_transform_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_base_transform_debug

struct _GstCudaGraphChainCache
{
  GQueue chains;                /* GcgFrameBatch, most recent at the head */
};

GstCudaGraphChainCache *
gst_cuda_graph_chain_cache_new (void)
{
  GstCudaGraphChainCache *cache = g_new0 (GstCudaGraphChainCache, 1);

  g_queue_init (&cache->chains);
  return cache;
}

void
gst_cuda_graph_chain_cache_clear (GstCudaGraphChainCache *cache)
{
  g_queue_clear_full (&cache->chains, g_object_unref);
}

void
gst_cuda_graph_chain_cache_free (GstCudaGraphChainCache *cache)
{
  if (cache == NULL)
    return;
  gst_cuda_graph_chain_cache_clear (cache);
  g_free (cache);
}

/* Configurations are plain structs of 32-bit fields with no padding,
 * zeroed before they are filled: equal bytes mean the same work. */
static gboolean
chain_has_config (GcgFrameBatch *chain, const GcgFrameChainConfig *config)
{
  GcgFrameChainConfig own;

  memset (&own, 0, sizeof (own));
  (void) gcg_frame_batch_get_frame_config (chain, &own);
  return memcmp (&own, config, sizeof (own)) == 0;
}

GcgFrameBatch *
gst_cuda_graph_chain_cache_take (GstCudaGraphChainCache *cache,
    const GcgFrameChainConfig *config)
{
  for (GList *l = cache->chains.head; l; l = l->next) {
    GcgFrameBatch *chain = l->data;

    if (chain_has_config (chain, config)) {
      g_queue_delete_link (&cache->chains, l);
      return chain;
    }
  }
  return NULL;
}

void
gst_cuda_graph_chain_cache_put (GstCudaGraphChainCache *cache,
    GcgFrameBatch *chain)
{
  g_queue_push_head (&cache->chains, chain);
}

void
gst_cuda_graph_chain_cache_trim (GstCudaGraphChainCache *cache,
    guint max_chains)
{
  while (cache->chains.length > max_chains) {
    GcgFrameBatch *old = g_queue_pop_tail (&cache->chains);

    GST_DEBUG ("chain cache full (%u): dropping the frame chain %p", max_chains,
        old);
    g_object_unref (old);
  }
}
