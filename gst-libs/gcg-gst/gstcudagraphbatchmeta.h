/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

#include "gcg-gst-api.h"

G_BEGIN_DECLS

/**
 * GST_CUDA_GRAPH_BATCH_META_MAX_SOURCES:
 *
 * The most sources (sink pads) of one batch: the size of
 * #GstCudaGraphBatchMeta.sources.
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_BATCH_META_MAX_SOURCES 64
/**
 * GST_CUDA_GRAPH_BATCH_META_MAX_ITEMS_PER_SOURCE:
 *
 * The most items of one source in a batch.
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_BATCH_META_MAX_ITEMS_PER_SOURCE 64

/**
 * GstCudaGraphBatchMetaSource:
 * @pad_name: the sink pad the frame came on ("sink_0", …)
 * @stream_id: the stream id of that pad's stream-start, or %NULL
 * @pts: the frame's PTS (as it came, before any segment conversion);
 *   %GST_CLOCK_TIME_NONE for a stream with no frame in the batch
 * @running_time: the frame's running time on its pad (or
 *   %GST_CLOCK_TIME_NONE, as @pts)
 * @width: the frame's width (0 for a stream with no frame)
 * @height: the frame's height (0 for a stream with no frame)
 * @first_item: index of the source's first item in the batch tensor
 * @n_items: items of this source (its ROIs, or 1 for the whole frame or
 *   crop; 0 for a stream with no frame)
 *
 * One stream's frame in a batch, or (in the entries from
 * #GstCudaGraphBatchMeta.n_frames on) a stream that had no frame in the batch's
 * window: an empty slot, never a repeated frame.
 *
 * Since: 0.2
 */
typedef struct
{
  gchar *pad_name;
  gchar *stream_id;
  GstClockTime pts;
  GstClockTime running_time;
  guint width;
  guint height;
  guint first_item;
  guint n_items;
} GstCudaGraphBatchMetaSource;

/**
 * GstCudaGraphBatchMetaItem:
 * @source: index into #GstCudaGraphBatchMeta.sources
 * @roi_id: id of the #GstVideoRegionOfInterestMeta the item came from, -1
 *   for the whole frame or crop
 * @roi_x: left column of the source rectangle (clipped to the frame)
 * @roi_y: top row of the source rectangle
 * @roi_width: width of the source rectangle
 * @roi_height: height of the source rectangle
 * @pad_x: columns of padding left of the image in the item
 * @pad_y: rows of padding above the image in the item
 * @scale_x: source pixels per item pixel, horizontally
 * @scale_y: source pixels per item pixel, vertically
 * @offset_x: source column of the item's left edge
 * @offset_y: source row of the item's top edge
 *
 * One item of the batch tensor: its #GcgFrameItemMap (the one definition
 * of an item's geometry), field for field with the same meaning, with the
 * source and ROI it came from.  A point (u, v) of the item maps back to
 * `x = u × scale_x + offset_x`, `y = v × scale_y + offset_y` in the
 * source's frame (as gcg_frame_item_map_to_source() does).
 *
 * Since: 0.2
 */
typedef struct
{
  guint source;
  gint roi_id;
  gint roi_x;
  gint roi_y;
  gint roi_width;
  gint roi_height;
  gint pad_x;
  gint pad_y;
  gdouble scale_x;
  gdouble scale_y;
  gdouble offset_x;
  gdouble offset_y;
} GstCudaGraphBatchMetaItem;

/**
 * GstCudaGraphBatchMeta:
 * @meta: the parent #GstMeta
 * @n_sources: entries of @sources: the frames (the first @n_frames), then
 *   the streams with no frame in the batch's window
 * @sources: the frames, in sink pad order (a pad whose batch-strategy is
 *   `all` may have several frames in one window: consecutive entries),
 *   then the streams left out of this batch, in sink pad order, each with
 *   @n_items 0 and @pts %GST_CLOCK_TIME_NONE
 * @n_items: items holding data; the tensor's other items are zeroed
 * @items: (array length=n_items): the items, in tensor order
 * @n_allocated: how many items @items holds (Since: 0.2): written once
 *   by gst_cuda_graph_buffer_add_batch_meta(); a meta whose @n_items exceeds it is
 *   not copied, and readers check @n_items against it
 * @n_frames: how many of @sources hold a frame (Since: 0.2; at most
 *   @n_sources): every item's source is below it
 * @window_start: running time where the batch's window starts
 *   (Since: 0.2), or %GST_CLOCK_TIME_NONE when no frame said how long a
 *   window lasts
 * @window_duration: the window's length (Since: 0.2): the element's
 *   batch-duration, or the shortest frame duration among the streams
 *
 * Attached by `cudagraphbatch` to every batch: which stream, frame and
 * rectangle each tensor item holds, and how to map it back.  Its API type
 * is registered by libgcg-gst-1.0 (name "GstCudaGraphBatchMetaAPI"), which the
 * plugin and applications link (pkg-config gcg-gst-1.0): read it with
 * gst_cuda_graph_buffer_get_batch_meta().
 *
 * Since: 0.2
 */
typedef struct
{
  GstMeta meta;

  guint n_sources;
  GstCudaGraphBatchMetaSource sources[GST_CUDA_GRAPH_BATCH_META_MAX_SOURCES];
  guint n_items;
  GstCudaGraphBatchMetaItem *items;

  /* Since 0.2: appended, so readers of the fields above are unchanged. */
  guint n_allocated;
  guint n_frames;
  GstClockTime window_start;
  GstClockTime window_duration;
} GstCudaGraphBatchMeta;

/**
 * GST_CUDA_GRAPH_BATCH_META_API_NAME:
 *
 * The name the #GstCudaGraphBatchMeta API type is registered under.
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_BATCH_META_API_NAME "GstCudaGraphBatchMetaAPI"

GCG_GST_API
GType gst_cuda_graph_batch_meta_api_get_type (void);
GCG_GST_API
const GstMetaInfo *gst_cuda_graph_batch_meta_get_info (void);

/**
 * GST_CUDA_GRAPH_BATCH_META_API_TYPE:
 *
 * The #GstCudaGraphBatchMeta API type, for gst_buffer_get_meta() and
 * the ALLOCATION query (gst_cuda_graph_batch_meta_api_get_type()).
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_BATCH_META_API_TYPE \
  (gst_cuda_graph_batch_meta_api_get_type ())

/**
 * GST_CUDA_GRAPH_BATCH_META_INFO:
 *
 * The #GstMetaInfo of #GstCudaGraphBatchMeta
 * (gst_cuda_graph_batch_meta_get_info()).
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_BATCH_META_INFO (gst_cuda_graph_batch_meta_get_info ())

/* A meta for @n_items items (at most GST_CUDA_GRAPH_BATCH_META_MAX_SOURCES ×
 * GST_CUDA_GRAPH_BATCH_META_MAX_ITEMS_PER_SOURCE), zeroed, n_sources and n_frames 0,
 * no window (GST_CLOCK_TIME_NONE); NULL when @n_items is out of that
 * range. */
GCG_GST_API
GstCudaGraphBatchMeta *gst_cuda_graph_buffer_add_batch_meta (GstBuffer *buffer,
    guint n_items);
GCG_GST_API
GstCudaGraphBatchMeta *gst_cuda_graph_buffer_get_batch_meta (GstBuffer *buffer);
GCG_GST_API
GstCudaGraphBatchMetaItem *gst_cuda_graph_batch_meta_get_item (
    GstCudaGraphBatchMeta *meta, guint index);
GCG_GST_API
GstCudaGraphBatchMetaSource *gst_cuda_graph_batch_meta_get_source (
    GstCudaGraphBatchMeta *meta, guint index);

G_END_DECLS
