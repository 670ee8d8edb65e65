/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

#include "gcg-gst-api.h"

G_BEGIN_DECLS

/**
 * GST_CUDA_GRAPH_PARAMS_META_NAME:
 *
 * Name of the custom meta (gst_meta_register_custom()) an application
 * attaches to a buffer to override the elements' colour adjustment for that
 * buffer only: its structure's double fields `brightness`, `contrast`,
 * `gamma` and `gain` replace the properties' values.  Registered when the
 * plugin loads, or by gst_cuda_graph_params_meta_register(); add it with
 * `gst_buffer_add_custom_meta (buf, "GcgParamsMeta")` and set the fields
 * on gst_custom_meta_get_structure().
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_PARAMS_META_NAME "GcgParamsMeta"

GCG_GST_API
void gst_cuda_graph_params_meta_register (void);

GCG_GST_API
GstCustomMeta *gst_cuda_graph_buffer_add_params_meta (GstBuffer *buffer,
    const GstStructure *values);

GCG_GST_API
void gst_cuda_graph_apply_params_meta (GstObject *self, GstBuffer *buffer,
    GcgFrameParams *params);

GCG_GST_API
gboolean gst_cuda_graph_values_finite (const gfloat *values, guint n);

G_END_DECLS
