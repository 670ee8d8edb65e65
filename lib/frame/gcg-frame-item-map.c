/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Mapping tensor items back to their source: the letterbox fit is the
 * frame chain's own (gcg__frame_fit).
 */
#include "gcg-frame-item-map.h"
#include "gcg-frame-private.h"

G_DEFINE_BOXED_TYPE (GcgFrameItemMap, gcg_frame_item_map,
    gcg_frame_item_map_copy, gcg_frame_item_map_free)

/**
 * gcg_frame_item_map_init:
 * @map: (out caller-allocates): the map to fill
 * @roi: the source rectangle of the item, already clipped to the frame
 * @out_width: width of a tensor item
 * @out_height: height of a tensor item
 * @letterbox: how the rectangle was fitted into the item
 *
 * Computes where @roi landed in an item of @out_width × @out_height.
 *
 * Returns: %TRUE; %FALSE (and @map zeroed) when @roi or the item size is
 *   empty
 *
 * Since: 0.1
 */
gboolean
gcg_frame_item_map_init (GcgFrameItemMap *map, const GcgRect *roi,
    guint out_width, guint out_height, GcgLetterbox letterbox)
{
  gint ow = (gint) MIN (out_width, GCG_FRAME_CHAIN_MAX_SIZE);
  gint oh = (gint) MIN (out_height, GCG_FRAME_CHAIN_MAX_SIZE);

  g_return_val_if_fail (map != NULL && roi != NULL, FALSE);

  *map = (GcgFrameItemMap) { 0 };
  if (roi->width <= 0 || roi->height <= 0 || ow <= 0 || oh <= 0)
    return FALSE;
  map->roi = *roi;
  gcg__frame_fit (letterbox, roi->width, roi->height, ow, oh, &map->pad_x,
      &map->pad_y, &map->width, &map->height);
  map->scale_x = (gdouble) roi->width / map->width;
  map->scale_y = (gdouble) roi->height / map->height;
  map->offset_x = roi->x - map->pad_x * map->scale_x;
  map->offset_y = roi->y - map->pad_y * map->scale_y;
  return TRUE;
}

/**
 * gcg_frame_item_map_new:
 * @roi: the source rectangle of the item
 * @out_width: width of a tensor item
 * @out_height: height of a tensor item
 * @letterbox: how the rectangle was fitted into the item
 *
 * A new map, as gcg_frame_item_map_init() fills it.
 *
 * Returns: (transfer full): a new #GcgFrameItemMap
 *
 * Since: 0.1
 */
GcgFrameItemMap *
gcg_frame_item_map_new (const GcgRect *roi, guint out_width, guint out_height,
    GcgLetterbox letterbox)
{
  GcgFrameItemMap *map = g_new0 (GcgFrameItemMap, 1);

  gcg_frame_item_map_init (map, roi, out_width, out_height, letterbox);
  return map;
}

/**
 * gcg_frame_item_map_copy:
 * @map: a #GcgFrameItemMap
 *
 * Copies a #GcgFrameItemMap.
 *
 * Returns: (transfer full): a newly allocated copy of @map
 *
 * Since: 0.1
 */
GcgFrameItemMap *
gcg_frame_item_map_copy (const GcgFrameItemMap *map)
{
  g_return_val_if_fail (map != NULL, NULL);

  return g_memdup2 (map, sizeof (*map));
}

/**
 * gcg_frame_item_map_free:
 * @map: (nullable): a #GcgFrameItemMap
 *
 * Frees @map.
 *
 * Since: 0.1
 */
void
gcg_frame_item_map_free (GcgFrameItemMap *map)
{
  g_free (map);
}

/**
 * gcg_frame_item_map_to_source:
 * @map: a #GcgFrameItemMap
 * @u: column in the item (pixel edges: 0 is the item's left edge)
 * @v: row in the item
 * @x: (out): the source column
 * @y: (out): the source row
 *
 * Maps a point of a tensor item (a box corner a model gave) back to the
 * source frame.  Points in the padding map outside @map's rectangle.
 *
 * Since: 0.1
 */
void
gcg_frame_item_map_to_source (const GcgFrameItemMap *map, gdouble u, gdouble v,
    gdouble *x, gdouble *y)
{
  g_return_if_fail (map != NULL && x != NULL && y != NULL);

  *x = u * map->scale_x + map->offset_x;
  *y = v * map->scale_y + map->offset_y;
}

/**
 * gcg_frame_item_map_from_source:
 * @map: a #GcgFrameItemMap
 * @x: column in the source frame
 * @y: row in the source frame
 * @u: (out): the column in the item
 * @v: (out): the row in the item
 *
 * The inverse of gcg_frame_item_map_to_source().  @map must have been
 * filled (its scales are not zero).
 *
 * Since: 0.1
 */
void
gcg_frame_item_map_from_source (const GcgFrameItemMap *map, gdouble x,
    gdouble y, gdouble *u, gdouble *v)
{
  g_return_if_fail (map != NULL && u != NULL && v != NULL);
  g_return_if_fail (map->scale_x > 0.0 && map->scale_y > 0.0);

  *u = (x - map->offset_x) / map->scale_x;
  *v = (y - map->offset_y) / map->scale_y;
}
