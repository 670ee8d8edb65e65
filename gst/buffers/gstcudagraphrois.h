/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

G_BEGIN_DECLS

/* A frame's batch items from its GstVideoRegionOfInterestMeta: one per
 * meta of type @roi_type (by name; NULL = every type), in buffer order, up
 * to @max_rois, each clipped to @region (the frame's crop,
 * gstcudagraphcrop.h).  A ROI's coordinates are the frame's, whatever
 * its #GstVideoCropMeta: the same on every element;
 * ROIs that miss @region are skipped with a warning against @object.
 * @ids gets each item's ROI id.  No ROI: one item made of @region
 * (params->n_rois = 0, @ids[0] = -1).  Returns the number of items. */
guint gst_cuda_graph_collect_rois (GstObject *object, GstBuffer *buffer,
    const GcgRect *region, const gchar *roi_type, guint max_rois,
    GcgFrameParams *params, gint *ids);

G_END_DECLS
