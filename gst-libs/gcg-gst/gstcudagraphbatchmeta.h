/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

#include "gcg-gst-api.h"

G_BEGIN_DECLS

/**
 * GCG_BATCH_META_MAX_SOURCES:
 *
 * The most sources (sink pads) of one batch: the size of
 * #GcgBatchMeta.sources.
 *
 * Since: 0.2
 */
#define GCG_BATCH_META_MAX_SOURCES 64
/**
 * GCG_BATCH_META_MAX_ITEMS_PER_SOURCE:
 *
 * The most items of one source in a batch.
 *
 * Since: 0.2
 */
#define GCG_BATCH_META_MAX_ITEMS_PER_SOURCE 64

/**
 * GcgBatchMetaSource:
 * @pad_name: the sink pad the frame came on ("sink_0", …)
 * @stream_id: the stream id of that pad's stream-start, or %NULL
 * @pts: the frame's PTS (as it came, before any segment conversion)
 * @running_time: the frame's running time on its pad
 * @width: the frame's width
 * @height: the frame's height
 * @first_item: index of the source's first item in the batch tensor
 * @n_items: items of this source (its ROIs, or 1 for the whole frame or
 *   crop)
 *
 * One stream's frame in a batch.
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
} GcgBatchMetaSource;

/**
 * GcgBatchMetaItem:
 * @source: index into #GcgBatchMeta.sources
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
 * One item of the batch tensor: a point (u, v) of the item maps back to
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
} GcgBatchMetaItem;

/**
 * GcgBatchMeta:
 * @meta: the parent #GstMeta
 * @n_sources: sources in the batch (streams that delivered a frame)
 * @sources: the sources, in sink pad order
 * @n_items: items holding data; the tensor's other items are untouched
 * @items: (array length=n_items): the items, in tensor order
 * @n_allocated: how many items @items holds (Since: 0.2): written once
 *   by gcg_buffer_add_batch_meta(); a meta whose @n_items exceeds it is
 *   not copied, and readers check @n_items against it
 *
 * Attached by `cudagraphbatch` to every batch: which stream, frame and
 * rectangle each tensor item holds, and how to map it back.  Its API type
 * is registered by libgcg-gst-1.0 (name "GcgBatchMetaAPI"), which the
 * plugin and applications link (pkg-config gcg-gst-1.0): read it with
 * gcg_buffer_get_batch_meta().
 *
 * Since: 0.2
 */
typedef struct
{
  GstMeta meta;

  guint n_sources;
  GcgBatchMetaSource sources[GCG_BATCH_META_MAX_SOURCES];
  guint n_items;
  GcgBatchMetaItem *items;

  /* Since 0.2: appended, so readers of the fields above are unchanged. */
  guint n_allocated;
} GcgBatchMeta;

/**
 * GCG_BATCH_META_API_NAME:
 *
 * The name the #GcgBatchMeta API type is registered under.
 *
 * Since: 0.2
 */
#define GCG_BATCH_META_API_NAME "GcgBatchMetaAPI"

GCG_GST_API
GType gcg_batch_meta_api_get_type (void);
GCG_GST_API
const GstMetaInfo *gcg_batch_meta_get_info (void);
GCG_GST_API
GcgBatchMeta *gcg_buffer_add_batch_meta (GstBuffer * buffer, guint n_items);
GCG_GST_API
GcgBatchMeta *gcg_buffer_get_batch_meta (GstBuffer * buffer);
GCG_GST_API
GcgBatchMetaItem *gcg_batch_meta_get_item (GcgBatchMeta * meta,
    guint index);
GCG_GST_API
GcgBatchMetaSource *gcg_batch_meta_get_source (GcgBatchMeta * meta,
    guint index);

G_END_DECLS
