/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one rectangle clipping of the tree (gcg-rect-private.h).
 */
#include "gcg-rect-private.h"

/* Intersects @rect with @region; FALSE (and @rect untouched) when nothing
 * is left, a rectangle of no or negative width or height included.
 * 64-bit ends: x + width must not overflow. */
gboolean
gcg__rect_clip (GcgRect *rect, const GcgRect *region)
{
  gint64 x0 = MAX (rect->x, region->x), y0 = MAX (rect->y, region->y);
  gint64 x1 =
      MIN ((gint64) rect->x + rect->width, (gint64) region->x + region->width);
  gint64 y1 = MIN ((gint64) rect->y + rect->height,
      (gint64) region->y + region->height);

  if (x1 <= x0 || y1 <= y0)
    return FALSE;
  *rect =
      (GcgRect) { (gint) x0, (gint) y0, (gint) (x1 - x0), (gint) (y1 - y0) };
  return TRUE;
}

/* Intersects @rect with a @frame_width × @frame_height frame at 0,0. */
gboolean
gcg__rect_clip_to_frame (GcgRect *rect, gint frame_width, gint frame_height)
{
  const GcgRect frame = { 0, 0, frame_width, frame_height };

  return gcg__rect_clip (rect, &frame);
}
