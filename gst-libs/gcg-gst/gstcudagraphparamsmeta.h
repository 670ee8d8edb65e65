/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg.h>

G_BEGIN_DECLS

/**
 * GST_CUDA_GRAPH_PARAMS_META_NAME:
 *
 * Name of the custom meta (gst_meta_register_custom()) an application
 * attaches to a buffer to override the elements' colour adjustment for that
 * buffer only: its structure's double fields `brightness`, `contrast`,
 * `gamma` and `gain` replace the properties' values.  Registered when the
 * plugin loads; add it with
 * `gst_buffer_add_custom_meta (buf, "GcgParamsMeta")`.
 */
#define GST_CUDA_GRAPH_PARAMS_META_NAME "GcgParamsMeta"

void gst_cuda_graph_params_meta_register (void);

/* Overrides @params' colour adjustment with the fields of a "GcgParamsMeta"
 * custom meta on @buffer, if there is one. */
void gst_cuda_graph_apply_params_meta (GstObject *self,
    GstBuffer *buffer, GcgFrameParams *params);

/* TRUE when every value is finite (NaN and infinities are refused). */
gboolean gst_cuda_graph_values_finite (const gfloat *values, guint n);

G_END_DECLS
