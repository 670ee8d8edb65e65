/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-frame-types.h"

G_BEGIN_DECLS

/**
 * GcgFrameItemMap:
 * @roi: the source rectangle the item was made from (a ROI or the crop),
 *   in source pixels
 * @pad_x: columns of padding left of the image in the item
 * @pad_y: rows of padding above the image in the item
 * @width: width of the image in the item (the item's width unless
 *   letterboxed)
 * @height: height of the image in the item
 * @scale_x: source pixels per item pixel, horizontally
 * @scale_y: source pixels per item pixel, vertically
 * @offset_x: source column of the item's left edge (x = u × @scale_x +
 *   @offset_x)
 * @offset_y: source row of the item's top edge
 *
 * Where one tensor item came from: a point (u, v) of the item, in item
 * pixel coordinates (edges, not centres: 0 is the left edge of the first
 * column), maps to the source point
 * `x = u × scale_x + offset_x`, `y = v × scale_y + offset_y`.  The fit is
 * the frame chain's own (docs/frame-chain.md, step 2), letterbox
 * included, so boxes a model finds in the item map back exactly.
 *
 * This is the one definition of an item's geometry; @scale_x and @scale_y
 * always mean source pixels per item pixel.  The other forms are derived
 * from it, never computed on their own, and keep each field's meaning:
 * #GstCudaGraphBatchMetaItem copies it field for field;
 * #GstCudaGraphTensorMetaItem keeps the scales in float and no offsets; the
 * kernel's per-item struct holds the same fit (one function computes both)
 * with a float32 scale.
 *
 * Since: 0.1
 */
typedef struct
{
  GcgRect roi;
  gint pad_x;
  gint pad_y;
  gint width;
  gint height;
  gdouble scale_x;
  gdouble scale_y;
  gdouble offset_x;
  gdouble offset_y;
} GcgFrameItemMap;

#define GCG_TYPE_FRAME_ITEM_MAP (gcg_frame_item_map_get_type ())
GCG_API
GType gcg_frame_item_map_get_type (void) G_GNUC_CONST;

GCG_API
GcgFrameItemMap *gcg_frame_item_map_new (const GcgRect *roi, guint out_width,
    guint out_height, GcgLetterbox letterbox);

GCG_API
GcgFrameItemMap *gcg_frame_item_map_copy (const GcgFrameItemMap *map);

GCG_API
void gcg_frame_item_map_free (GcgFrameItemMap *map);

GCG_API
gboolean gcg_frame_item_map_init (GcgFrameItemMap *map, const GcgRect *roi,
    guint out_width, guint out_height, GcgLetterbox letterbox);

GCG_API
void gcg_frame_item_map_to_source (const GcgFrameItemMap *map, gdouble u,
    gdouble v, gdouble *x, gdouble *y);

GCG_API
void gcg_frame_item_map_from_source (const GcgFrameItemMap *map, gdouble x,
    gdouble y, gdouble *u, gdouble *v);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgFrameItemMap, gcg_frame_item_map_free)

G_END_DECLS
