/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* A frame's crop, the one place that computes it (gstcudagraphcrop.h):
 * cudagraphconvert, cudagraphpreprocess and each cudagraphbatch sink pad
 * read the crop-* values, the GstVideoCropMeta and a crop that selects
 * nothing the same way, so the same frame and values give the same item
 * everywhere. */
#include "gstcudagraphcrop.h"
#include "gstcudagraphdebug.h"
#include <gcg/gcg-internal.h>

#include <gst/video/video.h>

static GstDebugCategory *crop_debug;
#define GST_CAT_DEFAULT \
  gst_cuda_graph_debug_category (&crop_debug, "cudagraphcrop", \
      "cudagraph crops")

void
gst_cuda_graph_crop_report_reset (GstCudaGraphCropReport *report)
{
  memset (report, 0, sizeof (*report));
}

static gboolean
rect_equal (const GcgRect *a, const GcgRect *b)
{
  return a->x == b->x && a->y == b->y && a->width == b->width
      && a->height == b->height;
}

/* The buffer's crop meta as a rectangle; 0x0 without one, or with an
 * empty one (read as none, as before a crop meta was ever attached).  Its
 * unsigned values saturate, the clip does the rest. */
static GcgRect
meta_rect (GstBuffer *buffer)
{
  GstVideoCropMeta *meta = gst_buffer_get_video_crop_meta (buffer);

  if (meta == NULL || meta->width == 0 || meta->height == 0)
    return (GcgRect) { 0, 0, 0, 0 };
  return (GcgRect) { (gint) MIN (meta->x, G_MAXINT),
    (gint) MIN (meta->y, G_MAXINT), (gint) MIN (meta->width, G_MAXINT),
    (gint) MIN (meta->height, G_MAXINT) };
}

/* @crop inside @visible: offsets from its corner, 0 = to its edge.  The
 * ends are summed in 64 bits (a crop meta may sit near G_MAXINT) and
 * saturate; FALSE when nothing of @visible is left. */
static gboolean
crop_in_visible (const GcgRect *crop, const GcgRect *visible, GcgRect *out)
{
  gint64 x = (gint64) visible->x + crop->x, y = (gint64) visible->y + crop->y;
  gint64 w = crop->width ? crop->width : (gint64) visible->width - crop->x;
  gint64 h = crop->height ? crop->height : (gint64) visible->height - crop->y;
  GcgRect r;

  if (crop->x < 0 || crop->y < 0 || crop->width < 0 || crop->height < 0
      || x >= (gint64) visible->x + visible->width
      || y >= (gint64) visible->y + visible->height || w <= 0 || h <= 0)
    return FALSE;
  r = (GcgRect) { (gint) x, (gint) y, (gint) MIN (w, G_MAXINT),
    (gint) MIN (h, G_MAXINT) };
  if (!gcg__rect_clip (&r, visible))
    return FALSE;
  *out = r;
  return TRUE;
}

/* A refused crop: a warning message the first time, and again only when
 * what was asked changes (a controller, a moving crop meta, new caps). */
static void
report_refused (GstCudaGraphCropReport *report, GstElement *element,
    GstPad *pad, const GcgRect *crop, const GcgRect *meta, gint fw, gint fh,
    const GcgRect *used)
{
  g_autofree gchar *who = NULL;

  if (report->refused && rect_equal (&report->crop, crop)
      && rect_equal (&report->meta, meta) && report->frame_width == fw
      && report->frame_height == fh) {
    GST_LOG_OBJECT (pad ? (GObject *) pad : (GObject *) element,
        "the crop still selects nothing");
    return;
  }
  who = pad ? g_strdup_printf ("pad %s", GST_PAD_NAME (pad))
            : g_strdup (GST_ELEMENT_NAME (element));
  *report = (GstCudaGraphCropReport) { TRUE, *crop, *meta, fw, fh };
  GST_WARNING_OBJECT (element,
      "%s: crop outside the %dx%d frame, using "
      "%d,%d %dx%d",
      who, fw, fh, used->x, used->y, used->width, used->height);
  GST_ELEMENT_WARNING (element, RESOURCE, SETTINGS,
      ("The crop of %s selects nothing of the %dx%d frame: using its whole "
       "visible frame %d,%d %dx%d instead",
          who, fw, fh, used->x, used->y, used->width, used->height),
      ("crop-x=%d crop-y=%d crop-width=%d crop-height=%d, relative to the "
       "visible frame; crop meta %d,%d %dx%d (0x0: none)",
          crop->x, crop->y, crop->width, crop->height, meta->x, meta->y,
          meta->width, meta->height));
}

gboolean
gst_cuda_graph_crop_region (GstCudaGraphCropReport *report, GstElement *element,
    GstPad *pad, GstBuffer *buffer, gint frame_width, gint frame_height,
    const GcgRect *crop, GcgRect *out)
{
  const GcgRect meta = meta_rect (buffer);
  const gboolean has_meta = meta.width > 0;
  GcgRect visible = meta;
  gboolean meta_ok = !has_meta
      || gcg__rect_clip_to_frame (&visible, frame_width, frame_height);

  if (!has_meta || !meta_ok)
    visible = (GcgRect) { 0, 0, frame_width, frame_height };
  if (meta_ok && crop_in_visible (crop, &visible, out)) {
    report->refused = FALSE;
    return TRUE;
  }
  *out = visible;
  report_refused (report, element, pad, crop, &meta, frame_width, frame_height,
      out);
  return FALSE;
}
