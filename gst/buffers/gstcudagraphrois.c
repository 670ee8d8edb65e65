/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Region-of-interest metas into batch items, the same way for every
 * tensor element. */
#include "gstcudagraphrois.h"

#include <gst/video/video.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_graph_rois_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_rois_debug

/* Intersects @r with @region; FALSE when nothing is left. */
static gboolean
clip_to (GcgRect * r, const GcgRect * region)
{
  gint64 x1 = MAX (r->x, region->x), y1 = MAX (r->y, region->y);
  gint64 x2 = MIN ((gint64) r->x + r->width,
      (gint64) region->x + region->width);
  gint64 y2 = MIN ((gint64) r->y + r->height,
      (gint64) region->y + region->height);

  if (x2 <= x1 || y2 <= y1)
    return FALSE;
  *r = (GcgRect) {
  (gint) x1, (gint) y1, (gint) (x2 - x1), (gint) (y2 - y1)};
  return TRUE;
}

static gboolean
type_matches (GstVideoRegionOfInterestMeta * meta, const gchar * roi_type)
{
  /* By name: a type never used has no quark, and the 0 quark is the type
   * of ROIs that have none. */
  return roi_type == NULL
      || g_strcmp0 (g_quark_to_string (meta->roi_type), roi_type) == 0;
}

guint
gst_cuda_graph_collect_rois (GstObject * object, GstBuffer * buffer,
    const GcgRect * region, const gchar * roi_type, guint max_rois,
    GcgFrameParams * params, gint * ids)
{
  GstVideoRegionOfInterestMeta *meta;
  gpointer state = NULL;
  guint n = 0;

  if (gst_cuda_graph_rois_debug == NULL)
    GST_DEBUG_CATEGORY_INIT (gst_cuda_graph_rois_debug, "cudagraphrois", 0,
        "cudagraph regions of interest");
  while ((meta = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) && n < max_rois) {
    GcgRect r = { (gint) MIN (meta->x, G_MAXINT), (gint) MIN (meta->y,
          G_MAXINT), (gint) MIN (meta->w, G_MAXINT), (gint) MIN (meta->h,
          G_MAXINT)
    };

    if (!type_matches (meta, roi_type))
      continue;
    if (!clip_to (&r, region)) {
      GST_WARNING_OBJECT (object, "skipping ROI %d (%u,%u %ux%u) outside "
          "the frame", meta->id, meta->x, meta->y, meta->w, meta->h);
      continue;
    }
    params->rois[n] = r;
    ids[n] = meta->id;
    n++;
  }
  params->n_rois = n;
  if (n > 0)
    return n;
  params->rois[0] = *region;
  ids[0] = -1;
  return 1;
}
