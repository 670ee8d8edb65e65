/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

G_BEGIN_DECLS

/* The input tensor a GStreamer `.modelinfo` file describes, as
 * cudagraphpreprocess's properties.  The format (GStreamer 1.28's
 * analytics library, GstAnalyticsModelInfo) is a GKeyFile: an optional
 * `[modelinfo]` group with `version=1.x`, then one group per tensor named
 * after it with `dir` (input/output), `type`, `dims` (comma separated,
 * -1 = dynamic), `dims-order` (row-major, the default, or col-major) and,
 * for inputs, `ranges` ("min,max" for every channel or one pair per
 * channel separated by ';': pixel 0-255 maps linearly onto [min, max];
 * absent means 0,255).  Beyond 1.28's keys, `caps` (a video caps string)
 * gives the colour order through its `format` (RGB, BGR, GRAY8 and their
 * 4-byte kin; RGB when absent). */
typedef struct
{
  gchar *tensor_name;
  guint width;
  guint height;
  /* 0: a dynamic batch (-1), the element's max-rois is kept. */
  guint batch;
  GcgTensorLayout layout;
  GcgTensorType type;
  GcgTensorChannels channels;
  /* In the element's mean/std units: out = (pixel / 255 - mean) / std. */
  gfloat mean[3];
  gfloat std[3];
} GstCudaGraphModelInfo;

/* Reads the first input tensor of the key file at @path into @info.  On
 * error (GST_RESOURCE_ERROR: NOT_FOUND, OPEN_READ for a file that is not a
 * key file, SETTINGS for one the element cannot honour), FALSE is
 * returned, @error says why in words a user can act on, and @info is
 * untouched. */
gboolean gst_cuda_graph_model_info_load (const gchar *path,
    GstCudaGraphModelInfo *info, GError **error);

/* The same from a loaded key file (its list separator must be ','). */
gboolean gst_cuda_graph_model_info_parse (GKeyFile *kf,
    GstCudaGraphModelInfo *info, GError **error);

void gst_cuda_graph_model_info_clear (GstCudaGraphModelInfo *info);

G_END_DECLS
