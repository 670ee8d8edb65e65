/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

#include <gcg/gcg-gst.h>

G_BEGIN_DECLS

/* Attaches the GstCudaGraphTensorMeta of a contiguous tensor of @desc, @size bytes,
 * to @outbuf: in system memory, or (when @stream is set) device memory at
 * @data on @device_id written on @stream.  Items are the caller's. */
GstCudaGraphTensorMeta *gst_cuda_graph_tensor_meta_add (GstBuffer *outbuf,
    const GstCudaGraphTensorDesc *desc, gsize size, guint64 data,
    gint device_id, GcgStream *stream);

/* Item @i of @meta: @roi fitted into the item as @map says. */
void gst_cuda_graph_tensor_meta_set_item (GstCudaGraphTensorMeta *meta, guint i,
    const GcgFrameItemMap *map, gint roi_id);

/* @item: @map (the one definition of an item's geometry) as the batch
 * meta says it, from source @source and ROI @roi_id. */
void gst_cuda_graph_batch_meta_item_set (GstCudaGraphBatchMetaItem *item,
    guint source, const GcgFrameItemMap *map, gint roi_id);

/* Built against GStreamer 1.26's analytics library: the same tensor as a
 * GstTensorMeta named @id, sharing @outbuf's memory.  A no-op otherwise. */
void gst_cuda_graph_add_gst_tensor_meta (GstBuffer *outbuf,
    const GstCudaGraphTensorMeta *meta, const gchar *id);

G_END_DECLS
