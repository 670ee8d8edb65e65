/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The GcgParamsMeta custom meta: an application's per-buffer colour
 * adjustment, read the same way by every element. */
#include "gstcudagraphparamsmeta.h"

#include <math.h>

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_graph_base_transform_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_base_transform_debug

gboolean
gst_cuda_graph_values_finite (const gfloat * values, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    if (!isfinite (values[i]))
      return FALSE;
  }
  return TRUE;
}

void
gst_cuda_graph_params_meta_register (void)
{
  static const gchar *tags[] = { NULL };

  /* An application may have registered it already, with the same name. */
  if (gst_meta_get_info (GST_CUDA_GRAPH_PARAMS_META_NAME) == NULL)
    gst_meta_register_custom (GST_CUDA_GRAPH_PARAMS_META_NAME, tags, NULL,
        NULL, NULL);
}

static void
override_from_field (const GstStructure * s, const gchar * field,
    gfloat * value)
{
  gdouble d;

  if (gst_structure_get_double (s, field, &d))
    *value = (gfloat) d;
}

void
gst_cuda_graph_apply_params_meta (GstObject * self,
    GstBuffer * buffer, GcgFrameParams * params)
{
  GstCustomMeta *meta;
  GstStructure *s;
  gfloat v[4];

  meta = gst_buffer_get_custom_meta (buffer, GST_CUDA_GRAPH_PARAMS_META_NAME);
  if (meta == NULL)
    return;
  s = gst_custom_meta_get_structure (meta);
  v[0] = params->brightness;
  v[1] = params->contrast;
  v[2] = params->gamma;
  v[3] = params->gain;
  override_from_field (s, "brightness", &v[0]);
  override_from_field (s, "contrast", &v[1]);
  override_from_field (s, "gamma", &v[2]);
  override_from_field (s, "gain", &v[3]);
  if (!gst_cuda_graph_values_finite (v, 4) || v[2] <= 0.0f) {
    GST_WARNING_OBJECT (self, "ignoring invalid %" GST_PTR_FORMAT, s);
    return;
  }
  params->brightness = v[0];
  params->contrast = v[1];
  params->gamma = v[2];
  params->gain = v[3];
}
