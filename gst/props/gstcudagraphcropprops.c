/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The crop-* properties, installed the same on every element and pad
 * (gstcudagraphcropprops.h). */
#include "gstcudagraphcropprops.h"

enum
{
  CROP_X,
  CROP_Y,
  CROP_WIDTH,
  CROP_HEIGHT,
};

/* In input pixels: at most GCG_FRAME_CHAIN_MAX_SIZE, the largest frame (a
 * larger value selects nothing of any frame, or all of it), which the
 * blurbs spell out. */
G_STATIC_ASSERT (GCG_FRAME_CHAIN_MAX_SIZE == 16384);

static const struct
{
  const gchar *name;
  const gchar *nick;
  const gchar *blurb;
} crop_props[GST_CUDA_GRAPH_CROP_N_PROPS] = {
  { "crop-x", "Crop X",
      "Left column of the crop, 0-16384 pixels from the visible frame's "
      "left edge (the crop meta's region, else the whole frame)" },
  { "crop-y", "Crop Y",
      "Top row of the crop, 0-16384 pixels from the visible frame's top "
      "edge (the crop meta's region, else the whole frame)" },
  { "crop-width", "Crop width",
      "Width of the crop, 0-16384 pixels (0 = to the visible frame's right "
      "edge)" },
  { "crop-height", "Crop height",
      "Height of the crop, 0-16384 pixels (0 = to the visible frame's "
      "bottom edge)" },
};

void
gst_cuda_graph_crop_props_install (GObjectClass *klass, guint first)
{
  for (guint i = 0; i < GST_CUDA_GRAPH_CROP_N_PROPS; i++)
    g_object_class_install_property (klass, first + i,
        g_param_spec_uint (crop_props[i].name, crop_props[i].nick,
            crop_props[i].blurb, 0, GCG_FRAME_CHAIN_MAX_SIZE, 0,
            G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_CONTROLLABLE
                | GST_PARAM_MUTABLE_PLAYING));
}

static gint *
field (GcgRect *crop, guint which)
{
  switch (which) {
    case CROP_X:
      return &crop->x;
    case CROP_Y:
      return &crop->y;
    case CROP_WIDTH:
      return &crop->width;
    default:
      return &crop->height;
  }
}

gboolean
gst_cuda_graph_crop_props_set (GcgRect *crop, guint first, guint prop_id,
    const GValue *value)
{
  if (prop_id < first || prop_id >= first + GST_CUDA_GRAPH_CROP_N_PROPS)
    return FALSE;
  /* The pspec's range (at most 16384) keeps it a gint. */
  *field (crop, prop_id - first) = (gint) g_value_get_uint (value);
  return TRUE;
}

gboolean
gst_cuda_graph_crop_props_get (const GcgRect *crop, guint first, guint prop_id,
    GValue *value)
{
  const gint v[GST_CUDA_GRAPH_CROP_N_PROPS] = { crop->x, crop->y, crop->width,
    crop->height };

  if (prop_id < first || prop_id >= first + GST_CUDA_GRAPH_CROP_N_PROPS)
    return FALSE;
  g_value_set_uint (value, (guint) v[prop_id - first]);
  return TRUE;
}

gboolean
gst_cuda_graph_crop_props_is_set (const GcgRect *crop)
{
  return crop->x != 0 || crop->y != 0 || crop->width != 0 || crop->height != 0;
}
