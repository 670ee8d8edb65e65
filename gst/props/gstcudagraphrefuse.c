/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Refused property values, said where a user sees them: one function for
 * every element's set_property() (and the pads'), so that each refusal
 * reads the same on the terminal and on the bus. */
#include "gstcudagraphrefuse.h"

#include <math.h>

/* The element whose bus hears about @object: itself, or a pad's parent.
 * A reference, or NULL when there is none (a pad not yet added). */
static GstElement *
owning_element (GObject *object)
{
  if (GST_IS_ELEMENT (object))
    return gst_object_ref (GST_ELEMENT (object));
  if (GST_IS_PAD (object)) {
    GstObject *parent = gst_object_get_parent (GST_OBJECT (object));

    if (parent != NULL && GST_IS_ELEMENT (parent))
      return GST_ELEMENT (parent);
    g_clear_pointer (&parent, gst_object_unref);
  }
  return NULL;
}

void
gst_cuda_graph_refuse (GObject *object, GParamSpec *pspec, const gchar *why)
{
  g_autoptr (GstElement) element = owning_element (object);
  g_autoptr (GError) error = NULL;
  g_autofree gchar *name = NULL;

  name = GST_IS_OBJECT (object)
      ? gst_object_get_path_string (GST_OBJECT (object))
      : g_strdup (G_OBJECT_TYPE_NAME (object));
  g_warning ("%s: refusing property '%s': %s", name,
      g_param_spec_get_name (pspec), why);
  if (element == NULL)
    return;
  /* No bus (not in a pipeline yet): gst_element_post_message() drops it,
   * the g_warning above has said it. */
  error = g_error_new (GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "Refusing property '%s': %s", g_param_spec_get_name (pspec), why);
  gst_element_post_message (element,
      gst_message_new_warning (GST_OBJECT (object), error, name));
}

void
gst_cuda_graph_refusal_note (gchar **refusal, const gchar *format, ...)
{
  va_list args;

  va_start (args, format);
  g_free (*refusal);
  *refusal = g_strdup_vprintf (format, args);
  va_end (args);
}

void
gst_cuda_graph_refusal_report (GObject *object, GParamSpec *pspec,
    gchar **refusal)
{
  if (*refusal == NULL)
    return;
  gst_cuda_graph_refuse (object, pspec, *refusal);
  g_clear_pointer (refusal, g_free);
}

gboolean
gst_cuda_graph_set_finite (gfloat *field, const GValue *value, gchar **refusal)
{
  gdouble v = g_value_get_double (value);

  if (!isfinite (v)) {
    gst_cuda_graph_refusal_note (refusal,
        "%f is not a finite number; "
        "keeping %f",
        v, *field);
    return FALSE;
  }
  *field = (gfloat) v;
  return TRUE;
}
