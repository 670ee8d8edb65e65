/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The most sources (sink pads) of one batch, and items of one source. */
#define GCG_BATCH_META_MAX_SOURCES 64
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
 * rectangle each tensor item holds, and how to map it back.  The API type
 * is registered by the plugin (name "GcgBatchMetaAPI"); this header needs
 * no library to link: use gcg_buffer_get_batch_meta().
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

#define GCG_BATCH_META_API_NAME "GcgBatchMetaAPI"

/**
 * gcg_buffer_get_batch_meta:
 * @buffer: a batch from `cudagraphbatch`
 *
 * Header-only, so applications need not link the plugin.
 *
 * Returns: (transfer none) (nullable): the buffer's #GcgBatchMeta
 */
static inline GcgBatchMeta *
gcg_buffer_get_batch_meta (GstBuffer * buffer)
{
  GType api = g_type_from_name (GCG_BATCH_META_API_NAME);

  if (api == 0)
    return NULL;
  return (GcgBatchMeta *) gst_buffer_get_meta (buffer, api);
}

GType gcg_batch_meta_api_get_type (void);
const GstMetaInfo *gcg_batch_meta_get_info (void);

/* A meta for @n_items items (at most GCG_BATCH_META_MAX_SOURCES ×
 * GCG_BATCH_META_MAX_ITEMS_PER_SOURCE), zeroed, n_sources 0; NULL when
 * @n_items is out of that range. */
GcgBatchMeta *gcg_buffer_add_batch_meta (GstBuffer * buffer, guint n_items);

G_END_DECLS
