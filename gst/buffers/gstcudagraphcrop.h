/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

G_BEGIN_DECLS

/* What was last reported of a crop that selects nothing, so that a
 * stream stuck with one posts one warning, not one per frame: a new
 * warning comes when the crop asked for, the crop meta or the frame size
 * changes.  Zeroed (or reset()) it has reported nothing.  Used by one
 * streaming thread (an element's, a pad's collector): no lock. */
typedef struct
{
  gboolean refused;
  GcgRect crop;
  GcgRect meta;
  gint frame_width, frame_height;
} GstCudaGraphCropReport;

void gst_cuda_graph_crop_report_reset (GstCudaGraphCropReport *report);

/* The region of a @frame_width x @frame_height frame (the caps' size)
 * that a frame's item is made of, the same way on every element and pad:
 *
 * - the visible frame is the buffer's #GstVideoCropMeta region clipped
 *   to the frame, or the whole frame without one;
 * - @crop (the crop-* properties: x, y from the visible frame's top left
 *   corner, a 0 width or height reaching to its edge) selects a rectangle
 *   inside the visible frame, clipped to it;
 * - a crop with nothing left inside (or a crop meta with nothing inside
 *   the frame) is refused: the item is the whole visible frame (the whole
 *   frame when the meta missed it), and a warning message naming @pad
 *   (or @element when @pad is NULL) and the values is posted by @element
 *   once per change (@report).  No frame is lost.
 *
 * @out is never empty.  Returns FALSE when the crop was refused. */
gboolean gst_cuda_graph_crop_region (GstCudaGraphCropReport *report,
    GstElement *element, GstPad *pad, GstBuffer *buffer, gint frame_width,
    gint frame_height, const GcgRect *crop, GcgRect *out);

G_END_DECLS
