/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Region-of-interest metas into batch items, the same way for every
 * tensor element. */
#include "gstcudagraphrois.h"
#include "gstcudagraphdebug.h"
#include <gcg/gcg-internal.h>

#include <gst/video/video.h>

static GstDebugCategory *rois_debug;
#define GST_CAT_DEFAULT \
  gst_cuda_graph_debug_category (&rois_debug, "cudagraphrois", \
      "cudagraph regions of interest")

static gboolean
type_matches (GstVideoRegionOfInterestMeta *meta, const gchar *roi_type)
{
  /* By name: a type never used has no quark, and the 0 quark is the type
   * of ROIs that have none. */
  return roi_type == NULL
      || g_strcmp0 (g_quark_to_string (meta->roi_type), roi_type) == 0;
}

guint
gst_cuda_graph_collect_rois (GstObject *object, GstBuffer *buffer,
    const GcgRect *region, const gchar *roi_type, guint max_rois,
    GcgFrameParams *params, gint *ids)
{
  GstVideoRegionOfInterestMeta *meta;
  gpointer state = NULL;
  guint n = 0;

  while ((meta = (GstVideoRegionOfInterestMeta *)
                 gst_buffer_iterate_meta_filtered (buffer, &state,
                     GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
      && n < max_rois) {
    GcgRect r = { (gint) MIN (meta->x, G_MAXINT),
      (gint) MIN (meta->y, G_MAXINT), (gint) MIN (meta->w, G_MAXINT),
      (gint) MIN (meta->h, G_MAXINT) };

    if (!type_matches (meta, roi_type))
      continue;
    if (!gcg__rect_clip (&r, region)) {
      GST_WARNING_OBJECT (object,
          "skipping ROI %d (%u,%u %ux%u) outside "
          "the crop %d,%d %dx%d",
          meta->id, meta->x, meta->y, meta->w, meta->h, region->x, region->y,
          region->width, region->height);
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
