/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gstcudagraphtensorcaps
 * @title: Tensor caps
 * @short_description: NNStreamer tensor caps, as the tensor elements say them
 *
 * Tensor caps, written and read the same way by every tensor element and
 * by applications that build or read them.
 *
 * Since: 0.2
 */
#include "gstcudagraphtensorcaps.h"
#include <gcg/gcg-internal.h>

/**
 * gst_cuda_graph_tensor_type_name:
 * @type: a tensor element type
 *
 * Names @type as the caps' `types` field does.
 *
 * Returns: the name NNStreamer's caps give @type ("float32", "float16",
 *   "uint8"); "float32" for a value out of range
 *
 * Since: 0.2
 */
const gchar *
gst_cuda_graph_tensor_type_name (GcgTensorType type)
{
  return gcg__tensor_type_get_name (type);
}

/* NNStreamer's dimension string, innermost dimension first. */
static gchar *
dimensions_string (GcgTensorLayout layout, guint c, guint w, guint h, guint n)
{
  if (layout == GCG_TENSOR_LAYOUT_NHWC)
    return g_strdup_printf ("%u:%u:%u:%u", c, w, h, n);
  return g_strdup_printf ("%u:%u:%u:%u", w, h, c, n);
}

/**
 * gst_cuda_graph_tensor_structure_new:
 * @desc: the tensor
 * @framerate: (nullable): a fraction, or %NULL for any frame rate
 *
 * Writes @desc as tensor caps (#GST_CUDA_GRAPH_TENSOR_CAPS), its
 * dimensions innermost first in @desc's layout.
 *
 * Returns: (transfer full): the caps structure of @desc with @framerate
 *
 * Since: 0.2
 */
GstStructure *
gst_cuda_graph_tensor_structure_new (const GstCudaGraphTensorDesc *desc,
    const GValue *framerate)
{
  g_autofree gchar *dims = NULL;
  GstStructure *s;

  dims = dimensions_string (desc->layout,
      desc->channels == GCG_TENSOR_CHANNELS_GRAY ? 1 : 3, desc->width,
      desc->height, desc->batch);
  s = gst_structure_new ("other/tensors", "format", G_TYPE_STRING, "static",
      "num_tensors", G_TYPE_INT, 1, "dimensions", G_TYPE_STRING, dims, "types",
      G_TYPE_STRING, gst_cuda_graph_tensor_type_name (desc->type), NULL);
  if (framerate)
    gst_structure_set_value (s, "framerate", framerate);
  else
    gst_structure_set (s, "framerate", GST_TYPE_FRACTION_RANGE, 0, 1, G_MAXINT,
        1, NULL);
  return s;
}

/**
 * gst_cuda_graph_tensor_caps_parse:
 * @caps: caps, from anywhere
 * @dims: (out caller-allocates) (array fixed-size=4): the dimensions,
 *   innermost first
 * @type: (out): the element type
 * @type_size: (out): its size in bytes
 *
 * Reads the first structure of @caps.
 *
 * Returns: %FALSE for anything that is not fixed tensor caps with four
 *   dimensions of 1 to G_MAXINT and a type of the elements'
 *
 * Since: 0.2
 */
gboolean
gst_cuda_graph_tensor_caps_parse (GstCaps *caps, guint dims[4],
    GcgTensorType *type, gsize *type_size)
{
  const GstStructure *s;
  g_auto (GStrv) parts = NULL;
  guint i;

  if (caps == NULL || gst_caps_get_size (caps) < 1)
    return FALSE;
  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, "other/tensors")
      || !gst_structure_get_string (s, "dimensions")
      || !gcg__tensor_type_from_name (gst_structure_get_string (s, "types"),
          type))
    return FALSE;
  *type_size = gcg__tensor_type_get_size (*type);
  parts = g_strsplit (gst_structure_get_string (s, "dimensions"), ":", -1);
  if (g_strv_length (parts) != 4)
    return FALSE;
  for (i = 0; i < 4; i++) {
    gchar *end;
    guint64 d = g_ascii_strtoull (parts[i], &end, 10);

    if (end == parts[i] || *end != '\0' || d == 0 || d > G_MAXINT)
      return FALSE;
    dims[i] = (guint) d;
  }
  return TRUE;
}

/**
 * gst_cuda_graph_tensor_caps_get_shape:
 * @caps: caps, from anywhere
 * @layout: the order to read the dimensions in
 * @type: (out): the element type
 * @width: (out): width of each item
 * @height: (out): height of each item
 * @batch: (out): items in the tensor
 *
 * Reads width, height and batch of @caps in @layout's order.
 *
 * Returns: %FALSE as gst_cuda_graph_tensor_caps_parse() does
 *
 * Since: 0.2
 */
gboolean
gst_cuda_graph_tensor_caps_get_shape (GstCaps *caps, GcgTensorLayout layout,
    GcgTensorType *type, guint *width, guint *height, guint *batch)
{
  gsize type_size;
  guint dims[4];

  if (!gst_cuda_graph_tensor_caps_parse (caps, dims, type, &type_size))
    return FALSE;
  /* NCHW: W:H:C:N; NHWC: C:W:H:N. */
  *width = layout == GCG_TENSOR_LAYOUT_NHWC ? dims[1] : dims[0];
  *height = layout == GCG_TENSOR_LAYOUT_NHWC ? dims[2] : dims[1];
  *batch = dims[3];
  return TRUE;
}

/**
 * gst_cuda_graph_tensor_caps_get_size:
 * @caps: caps, from anywhere
 * @size: (out): bytes of one buffer of @caps
 *
 * Works out the size of one tensor buffer of @caps.
 *
 * Returns: %FALSE when the caps do not say or the product overflows a
 *   #gsize (caps from downstream may say anything)
 *
 * Since: 0.2
 */
gboolean
gst_cuda_graph_tensor_caps_get_size (GstCaps *caps, gsize *size)
{
  GcgTensorType type;
  gsize type_size;
  guint dims[4];

  if (!gst_cuda_graph_tensor_caps_parse (caps, dims, &type, &type_size))
    return FALSE;
  *size = type_size;
  for (guint i = 0; i < 4; i++) {
    if (!g_size_checked_mul (size, *size, dims[i]))
      return FALSE;
  }
  return TRUE;
}
