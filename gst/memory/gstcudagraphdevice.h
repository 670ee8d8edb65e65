/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

#include "props/gstcudagraphrunprops.h"

G_BEGIN_DECLS

/* What an element runs on: the CPU reference, or the CUDA backend with
 * its context (shared with GStreamer's CUDA elements when it can be),
 * stream, device allocator and pinned host memory.  Opened at start,
 * closed at stop, by the base transform and by cudagraphbatch alike. */
typedef struct
{
  GcgBackend active;
  GstObject *cuda_context;      /* the GstCudaContext we run in, or NULL */
  GcgContext *context;
  GcgStream *stream;
  GcgAllocator *allocator;
  GcgHostPool *host_pool;
  GstAllocator *pinned;
  /* The element it was opened for (not a reference: the device is part
   * of it), and whether CUDA memory of another context was said. */
  GstElement *element;
  gboolean warned_foreign;
} GstCudaGraphDevice;

/* Opens @device for the backend and CUDA device of @run (the element's
 * run properties, read under @element's object lock).  @shared is the
 * element's slot
 * for a GstCudaContext offered by the pipeline (read and, when we share
 * the primary context, written under @element's object lock).  With
 * backend=auto and no usable GPU it falls back to the CPU with a warning
 * on the bus; with backend=cuda that is an element error and FALSE. */
gboolean gst_cuda_graph_device_open (GstCudaGraphDevice *device,
    GstElement *element, const GstCudaGraphRunProps *run, GstObject **shared);

/* Offers device @device_id's primary context (the one PyTorch and a
 * user's model graph use) to the pipeline at once, unless @shared holds
 * a context: so that a decoder opening after us shares it instead of
 * making its own.  Without gstreamer-cuda it does nothing. */
void gst_cuda_graph_device_offer_primary (GstElement *element, gint device_id,
    GstObject **shared);

/* GstElement::set_context: keeps a "gst.cuda.context" for the CUDA device
 * of @run in @shared (both under @element's object lock) while it holds
 * none; the one we run in is never replaced mid-stream. */
void gst_cuda_graph_device_set_context (GstElement *element,
    GstContext *context, const GstCudaGraphRunProps *run, GstObject **shared);

/* Answers a context query with the GstCudaContext in @shared; FALSE when
 * it is not such a query or there is none. */
gboolean gst_cuda_graph_device_context_query (GstElement *element,
    GstQuery *query, GstObject **shared);

/* GST_MAP_CUDA when the work on @device can use @buffer's memory in
 * place: CUDA memory of our context, with the CUDA backend; else 0. */
GstMapFlags gst_cuda_graph_device_map_flags (GstCudaGraphDevice *device,
    GstBuffer *buffer);

/* The flags to map an output buffer for our write, @in_place being its
 * gst_cuda_graph_device_map_flags(): the CUDA backend writes in stream
 * order after the buffer's last frame (no wait on its fence); the CPU
 * backend must wait for it like any reader. */
GstMapFlags gst_cuda_graph_device_write_flags (GstCudaGraphDevice *device,
    GstMapFlags in_place);

/* Releases everything; @device is the CPU backend afterwards. */
void gst_cuda_graph_device_close (GstCudaGraphDevice *device);

/* Device and pinned memory held now, into @s (nothing for the CPU). */
void gst_cuda_graph_device_add_memory_stats (GstCudaGraphDevice *device,
    GstStructure *s);

/* Input allocation for a sink pad (propose_allocation): a pool of our
 * CUDA memory for CUDA memory @caps, pinned host memory for system memory
 * @caps, when the CUDA backend runs; nothing otherwise.  @min_buffers: the
 * frames we may hold at once. */
void gst_cuda_graph_device_propose_input_pool (GstCudaGraphDevice *device,
    GstElement *element, GstQuery *query, GstCaps *caps, guint min_buffers);

/* Output allocation for a src pad (decide_allocation): a pool of our CUDA
 * memory for CUDA memory caps (an error when the device cannot make it),
 * else pinned memory when the CUDA backend runs and downstream gave no
 * pool, else an allocator that fails instead of aborting.  @size is the
 * bytes of one buffer of @caps. */
gboolean gst_cuda_graph_device_decide_allocation (GstCudaGraphDevice *device,
    GstElement *element, GstQuery *query, GstCaps *caps, gboolean video,
    gsize size);

G_END_DECLS
