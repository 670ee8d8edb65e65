/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Rectangle clipping, once for the tree (gcg-rect.c): the frame chain
 * clips its ROIs to the frame with it, the elements (gst/) their crops
 * and region-of-interest metas, so every side keeps the same pixels.
 */
#pragma once

#include "gcg-frame-types.h"

G_BEGIN_DECLS

GCG_PRIVATE_API gboolean gcg__rect_clip (GcgRect *rect, const GcgRect *region);

GCG_PRIVATE_API gboolean gcg__rect_clip_to_frame (GcgRect *rect,
    gint frame_width, gint frame_height);

G_END_DECLS
