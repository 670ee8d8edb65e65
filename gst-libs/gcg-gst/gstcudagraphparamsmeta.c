/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gstcudagraphparamsmeta
 * @title: GcgParamsMeta
 * @short_description: per-buffer colour adjustment from the application
 *
 * The "GcgParamsMeta" custom meta (#GST_CUDA_GRAPH_PARAMS_META_NAME): an
 * application's per-buffer colour adjustment, read the same way by every
 * element.  To attach one:
 * |[<!-- language="C" -->
 *   GstCustomMeta *m;
 *
 *   gst_cuda_graph_params_meta_register ();
 *   m = gst_buffer_add_custom_meta (buffer, GST_CUDA_GRAPH_PARAMS_META_NAME);
 *   gst_structure_set (gst_custom_meta_get_structure (m),
 *       "brightness", G_TYPE_DOUBLE, 0.1, NULL);
 * ]|
 *
 * Since: 0.2
 */
#include "gstcudagraphparamsmeta.h"

#include <math.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_graph_params_meta_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_params_meta_debug

/* The meta may have been registered by an application instead of
 * gst_cuda_graph_params_meta_register(): each path that logs makes sure. */
static void
ensure_debug_category (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_cuda_graph_params_meta_debug, "gcgparamsmeta",
        0, "the GcgParamsMeta custom meta");
    g_once_init_leave (&done, 1);
  }
}

/* @buffer's params meta, or NULL.  gst_buffer_get_custom_meta() looks the
 * name up in GStreamer's table of metas on every call, most of what a
 * frame without the meta costs; once the meta is registered (for good:
 * the table never forgets), its API type is kept and the buffer's metas
 * are searched by it, as gst_buffer_get_custom_meta() then does. */
static GstCustomMeta *
get_params_meta (GstBuffer *buffer)
{
  static GType api = 0;         /* 0 until registered */
  GType type = g_atomic_pointer_get (&api);

  if (type == 0) {
    const GstMetaInfo *info =
        gst_meta_get_info (GST_CUDA_GRAPH_PARAMS_META_NAME);

    /* Not registered: no buffer carries it.  Registered as another kind
     * of meta: none of its metas is a params meta. */
    if (info == NULL || !gst_meta_info_is_custom (info))
      return NULL;
    type = info->api;
    g_atomic_pointer_set (&api, type);
  }
  return (GstCustomMeta *) gst_buffer_get_meta (buffer, type);
}

/**
 * gst_cuda_graph_values_finite:
 * @values: (array length=n): the values
 * @n: how many
 *
 * Checks values before they reach the device: the elements refuse
 * property values and params metas that are not finite.
 *
 * Returns: %TRUE when every value is finite (NaN and infinities are not)
 *
 * Since: 0.2
 */
gboolean
gst_cuda_graph_values_finite (const gfloat *values, guint n)
{
  guint i;

  for (i = 0; i < n; i++) {
    if (!isfinite (values[i]))
      return FALSE;
  }
  return TRUE;
}

/**
 * gst_cuda_graph_params_meta_register:
 *
 * Registers the "GcgParamsMeta" custom meta, if nobody has yet, so that
 * gst_buffer_add_custom_meta() can attach it.  Safe to call any number of
 * times, from any thread.
 *
 * Since: 0.2
 */
void
gst_cuda_graph_params_meta_register (void)
{
  static const gchar *tags[] = { NULL };

  /* An application may have registered it already, with the same name. */
  if (gst_meta_get_info (GST_CUDA_GRAPH_PARAMS_META_NAME) == NULL)
    gst_meta_register_custom (GST_CUDA_GRAPH_PARAMS_META_NAME, tags, NULL, NULL,
        NULL);
}

/**
 * gst_cuda_graph_buffer_add_params_meta:
 * @buffer: a writable #GstBuffer
 * @values: the values for @buffer only: double fields among `brightness`,
 *   `contrast`, `gamma` and `gain` (the structure's name does not matter)
 *
 * Registers the meta if need be and attaches it to @buffer with a copy of
 * @values' fields: the one call bindings need, where the structure of
 * gst_custom_meta_get_structure() reaches them as a copy.  The elements
 * check the values when they apply them (gst_cuda_graph_apply_params_meta()).
 *
 * Returns: (transfer none): the meta attached to @buffer
 *
 * Since: 0.2
 */
GstCustomMeta *
gst_cuda_graph_buffer_add_params_meta (GstBuffer *buffer,
    const GstStructure *values)
{
  GstCustomMeta *meta;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (values != NULL, NULL);

  gst_cuda_graph_params_meta_register ();
  meta = gst_buffer_add_custom_meta (buffer, GST_CUDA_GRAPH_PARAMS_META_NAME);
  if (meta == NULL)
    return NULL;
  for (gint i = 0; i < gst_structure_n_fields (values); i++) {
    const gchar *name = gst_structure_nth_field_name (values, i);

    gst_structure_set_value (gst_custom_meta_get_structure (meta), name,
        gst_structure_get_value (values, name));
  }
  return meta;
}

static void
override_from_field (const GstStructure *s, const gchar *field, gfloat *value)
{
  gdouble d;

  if (gst_structure_get_double (s, field, &d))
    *value = (gfloat) d;
}

/**
 * gst_cuda_graph_apply_params_meta:
 * @self: (nullable): the object to log the refusal of bad values against
 * @buffer: a buffer that may carry a "GcgParamsMeta"
 * @params: the frame's values, changed in place
 *
 * Overrides @params' colour adjustment (brightness, contrast, gamma,
 * gain) with the fields of @buffer's "GcgParamsMeta", as the elements do
 * before each frame: a field that is absent keeps its value, and a meta
 * with a value that is not finite or a gamma that is not positive is
 * ignored whole (with a warning).  Nothing happens without the meta.
 *
 * Since: 0.2
 */
void
gst_cuda_graph_apply_params_meta (GstObject *self, GstBuffer *buffer,
    GcgFrameParams *params)
{
  GstCustomMeta *meta;
  GstStructure *s;
  gfloat v[4];

  g_return_if_fail (GST_IS_BUFFER (buffer));
  g_return_if_fail (params != NULL);

  meta = get_params_meta (buffer);
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
    ensure_debug_category ();
    GST_WARNING_OBJECT (self, "ignoring invalid %" GST_PTR_FORMAT, s);
    return;
  }
  params->brightness = v[0];
  params->contrast = v[1];
  params->gamma = v[2];
  params->gain = v[3];
}
