/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

G_BEGIN_DECLS

/* The frame chains of earlier caps, most recently used first, each with
 * the graphs it captured and its parameter blocks: a caps change back to
 * one of them (an adaptive stream switching resolution, a camera mode)
 * takes it out again instead of building and capturing anew.  Driven
 * from one thread at a time (the streaming thread, or state changes). */
typedef struct _GstCudaGraphChainCache GstCudaGraphChainCache;

/* The most chains a cache may be asked to keep: each holds device memory
 * (a parameter ring per stream) and an executable graph. */
#define GST_CUDA_GRAPH_CHAIN_CACHE_MAX 16

GstCudaGraphChainCache *gst_cuda_graph_chain_cache_new (void);
void gst_cuda_graph_chain_cache_free (GstCudaGraphChainCache *cache);

/* The chain made for @config, removed from the cache (transfer full), or
 * NULL when there is none. */
GcgFrameBatch *gst_cuda_graph_chain_cache_take (GstCudaGraphChainCache *cache,
    const GcgFrameChainConfig *config);

/* Keeps @chain (transfer full) as the most recently used. */
void gst_cuda_graph_chain_cache_put (GstCudaGraphChainCache *cache,
    GcgFrameBatch *chain);

/* Drops the least recently used chains beyond @max_chains.  A dropped
 * chain's memory goes back once the frames still running it are done
 * (each frame in flight holds a reference). */
void gst_cuda_graph_chain_cache_trim (GstCudaGraphChainCache *cache,
    guint max_chains);

void gst_cuda_graph_chain_cache_clear (GstCudaGraphChainCache *cache);

G_END_DECLS
