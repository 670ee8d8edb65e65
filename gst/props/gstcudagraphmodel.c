/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The model's input decides the element's tensor: its shape gives the
 * batch, layout, size and channels, its type the tensor type, as a
 * .modelinfo file does.  A model whose input cannot be a tensor the
 * element makes is refused when set (a warning; the element fails at
 * start saying why), never a frame later.  The output caps list the
 * model's outputs, in NNStreamer's notation: dimensions innermost first,
 * tensors separated by commas.
 */
#include "gstcudagraphmodel.h"
#include "gstcudagraphrefuse.h"
#include <gcg/gcg-internal.h>

#include <string.h>

enum
{
  PROP_MODEL,
  PROP_KEEP_INPUT,
};

#define FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)

void
gst_cuda_graph_model_install (GObjectClass *klass, guint first)
{
  g_object_class_install_property (klass, first + PROP_MODEL,
      g_param_spec_object ("model", "Model",
          "A model's CUDA graph (GcgModelGraph, e.g. from gcg.torch.attach) "
          "run after the element's kernel in the same graph: the tensor is "
          "written into its input, the output buffer carries its outputs; "
          "its input sets the tensor's size, layout, type and batch",
          GCG_TYPE_MODEL_GRAPH, FLAGS));
  g_object_class_install_property (klass, first + PROP_KEEP_INPUT,
      g_param_spec_boolean ("model-keep-input", "Keep the model's input",
          "With a model, the output buffer carries the preprocessed tensor "
          "too, before the model's outputs",
          FALSE, FLAGS));
}

/* The tensor the model's input is: N×C×H×W or N×H×W×C with C 1 or 3. */
static gboolean
take_input (GcgModelGraph *model, gboolean sets_batch,
    GstCudaGraphTensorProps *props, GError **error)
{
  GcgModelDtype dtype = GCG_MODEL_DTYPE_FLOAT32;
  GcgTensorType type;
  const gint64 *shape;
  guint n = 0;
  gboolean nchw;
  gint64 c;

  shape = gcg_model_graph_get_input_shape (model, &n);
  gcg_model_graph_get_input (model, NULL, NULL, &dtype);
  if (shape == NULL || n != 4
      || !gcg__model_dtype_get_tensor_type (dtype, &type)
      || gcg_model_graph_get_n_outputs (model) == 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "The model's input is not an image tensor the element makes (4 "
        "dimensions, float32, float16 or uint8; it has %u dimensions of %s)"
        " or it has no output",
        n, gcg_model_dtype_get_name (dtype));
    return FALSE;
  }
  if (gcg_model_graph_get_packed_size (model, TRUE)
      > GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "The model's input and outputs take %" G_GSIZE_FORMAT " bytes, more "
        "than an output buffer may hold (%" G_GUINT64_FORMAT ")",
        gcg_model_graph_get_packed_size (model, TRUE),
        (guint64) GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES);
    return FALSE;
  }
  nchw = shape[1] == 1 || shape[1] == 3;
  c = nchw ? shape[1] : shape[3];
  if ((c != 1 && c != 3) || shape[0] < 1 || shape[0] > GCG_FRAME_CHAIN_MAX_ROIS
      || shape[nchw ? 2 : 1] < 1 || shape[nchw ? 3 : 2] < 1
      || shape[nchw ? 2 : 1] > G_MAXINT || shape[nchw ? 3 : 2] > G_MAXINT) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "The model's input %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
        "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT " is neither N×C×H×W nor "
        "N×H×W×C with C 1 or 3 and N at most %d",
        shape[0], shape[1], shape[2], shape[3], GCG_FRAME_CHAIN_MAX_ROIS);
    return FALSE;
  }
  props->open &= ~GST_CUDA_GRAPH_TENSOR_OPEN_ALL;
  props->layout = nchw ? GCG_TENSOR_LAYOUT_NCHW : GCG_TENSOR_LAYOUT_NHWC;
  if (sets_batch)
    props->max_rois = (guint) shape[0];
  props->height = (guint) shape[nchw ? 2 : 1];
  props->width = (guint) shape[nchw ? 3 : 2];
  props->tensor_type = type;
  if (c == 1)
    props->channels = GCG_TENSOR_CHANNELS_GRAY;
  else if (props->channels == GCG_TENSOR_CHANNELS_GRAY)
    props->channels = GCG_TENSOR_CHANNELS_RGB;
  return TRUE;
}

gboolean
gst_cuda_graph_model_check_input (GcgModelGraph *model,
    const GcgFrameChainConfig *config, GError **error)
{
  GcgModelDtype dtype = GCG_MODEL_DTYPE_FLOAT32;
  GcgTensorType type = GCG_TENSOR_TYPE_FLOAT32;
  gsize n_bytes = 0, need = gcg_frame_chain_config_get_output_size (config);
  guint n = 0;
  const gint64 *shape;

  gcg_model_graph_get_input (model, NULL, &n_bytes, &dtype);
  if (gcg__model_dtype_get_tensor_type (dtype, &type)
      && type == config->tensor_type && n_bytes == need)
    return TRUE;
  shape = gcg_model_graph_get_input_shape (model, &n);
  g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "The element's tensor (%u×%u, batch %u, %s: %" G_GSIZE_FORMAT
      " bytes) is not the model's input (%" G_GINT64_FORMAT "×%" G_GINT64_FORMAT
      "×%" G_GINT64_FORMAT "×%" G_GINT64_FORMAT ", %s: %" G_GSIZE_FORMAT
      " bytes)",
      config->out_width, config->out_height, config->max_rois,
      gst_cuda_graph_tensor_type_name (config->tensor_type), need,
      n == 4 ? shape[0] : 0, n == 4 ? shape[1] : 0, n == 4 ? shape[2] : 0,
      n == 4 ? shape[3] : 0, gcg_model_dtype_get_name (dtype), n_bytes);
  return FALSE;
}

/* One element at a time may hold a model: two elements replaying it would
 * write its static input and read its outputs on two streams at once.
 * The claim is the holder's GstCudaGraphModel, in the model's qdata,
 * taken and given back atomically. */
static GQuark
claim_quark (void)
{
  return g_quark_from_static_string ("gst-cuda-graph-model-holder");
}

static gboolean
claim (GstCudaGraphModel *m, GcgModelGraph *model)
{
  return g_object_get_qdata (G_OBJECT (model), claim_quark ()) == m
      || g_object_replace_qdata (G_OBJECT (model), claim_quark (), NULL, m,
          NULL, NULL);
}

/* Gives the model back (unclaimed when @m held it) and drops it. */
static void
release (GstCudaGraphModel *m)
{
  if (m->model != NULL)
    g_object_replace_qdata (G_OBJECT (m->model), claim_quark (), m, NULL, NULL,
        NULL);
  g_clear_object (&m->model);
  g_clear_error (&m->error);
}

gboolean
gst_cuda_graph_model_set (GstCudaGraphModel *m, guint first, guint prop_id,
    const GValue *value, GstCudaGraphTensorProps *props, gchar **refusal)
{
  if (prop_id == first + PROP_KEEP_INPUT) {
    m->keep_input = g_value_get_boolean (value);
    return TRUE;
  }
  if (prop_id != first + PROP_MODEL)
    return FALSE;
  release (m);
  m->model = g_value_dup_object (value);
  if (m->model == NULL)
    return TRUE;
  if (!claim (m, m->model))
    g_set_error_literal (&m->error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY,
        "The model is attached to another element "
        "already: its static input and outputs can serve one element at a "
        "time (capture the model once per element, as gcg.torch.attach "
        "does)");
  else
    take_input (m->model, m->sets_batch, props, &m->error);
  if (m->error != NULL)
    gst_cuda_graph_refusal_note (refusal, "%s; the element will not start",
        m->error->message);
  return TRUE;
}

gboolean
gst_cuda_graph_model_get (GstCudaGraphModel *m, guint first, guint prop_id,
    GValue *value)
{
  if (prop_id == first + PROP_KEEP_INPUT)
    g_value_set_boolean (value, m->keep_input);
  else if (prop_id == first + PROP_MODEL)
    g_value_set_object (value, m->model);
  else
    return FALSE;
  return TRUE;
}

gboolean
gst_cuda_graph_model_check_start (GstCudaGraphModel *m, GstElement *element,
    GcgBackend active)
{
  GError *error = NULL;
  gboolean has_model;

  GST_OBJECT_LOCK (element);
  has_model = m->model != NULL;
  if (m->error)
    error = g_error_copy (m->error);
  GST_OBJECT_UNLOCK (element);
  if (error) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS, ("%s", error->message),
        ("%s",
            error->code == GST_RESOURCE_ERROR_BUSY
                ? "one model, one element"
                : "the model's input must be a "
                  "fixed-size float32, float16 or uint8 image tensor"));
    g_error_free (error);
    return FALSE;
  }
  if (!has_model || active == GCG_BACKEND_CUDA)
    return TRUE;
  GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
      ("A model needs the CUDA backend: this element runs the CPU backend"),
      ("set backend=cuda (or auto on a machine with a usable GPU), or unset "
       "model"));
  return FALSE;
}

GcgModelGraph *
gst_cuda_graph_model_ref (GstCudaGraphModel *m, GstElement *element,
    gboolean *keep_input)
{
  GcgModelGraph *model;

  GST_OBJECT_LOCK (element);
  model = m->model ? g_object_ref (m->model) : NULL;
  *keep_input = m->keep_input;
  GST_OBJECT_UNLOCK (element);
  return model;
}

gint
gst_cuda_graph_model_get_device (GstCudaGraphModel *m, GstElement *element)
{
  gint device_id = -1;

  GST_OBJECT_LOCK (element);
  if (m->model != NULL && m->error == NULL)
    device_id =
        gcg_context_get_device_id (gcg_model_graph_get_context (m->model));
  GST_OBJECT_UNLOCK (element);
  return device_id;
}

/* The model's batch dimension (its input's first), 0 without a model. */
guint
gst_cuda_graph_model_get_batch (GcgModelGraph *model)
{
  guint n = 0;
  const gint64 *shape = gcg_model_graph_get_input_shape (model, &n);

  return shape != NULL && n > 0 ? (guint) shape[0] : 0;
}

void
gst_cuda_graph_model_clear (GstCudaGraphModel *m)
{
  release (m);
}

/* Packed tensor @index's shape and type. */
static const gint64 *
packed_shape (GcgModelGraph *model, gboolean keep_input, guint index,
    guint *n_dims, GcgModelDtype *dtype)
{
  if (keep_input && index == 0) {
    gcg_model_graph_get_input (model, NULL, NULL, dtype);
    return gcg_model_graph_get_input_shape (model, n_dims);
  }
  index -= keep_input ? 1 : 0;
  gcg_model_graph_get_output (model, index, NULL, NULL, dtype);
  return gcg_model_graph_get_output_shape (model, index, n_dims);
}

static guint
n_packed (GcgModelGraph *model, gboolean keep_input)
{
  return gcg_model_graph_get_n_outputs (model) + (keep_input ? 1 : 0);
}

GstStructure *
gst_cuda_graph_model_structure_new (GcgModelGraph *model, gboolean keep_input,
    const GValue *framerate)
{
  GString *dims = g_string_new (NULL);
  GString *types = g_string_new (NULL);
  guint n = n_packed (model, keep_input);
  GstStructure *s;

  for (guint t = 0; t < n; t++) {
    GcgModelDtype dtype = GCG_MODEL_DTYPE_FLOAT32;
    guint n_dims = 0;
    const gint64 *shape = packed_shape (model, keep_input, t, &n_dims, &dtype);

    if (t > 0) {
      g_string_append_c (dims, ',');
      g_string_append_c (types, ',');
    }
    /* Innermost first; a scalar is one element. */
    for (guint d = n_dims; d > 0; d--)
      g_string_append_printf (dims, "%s%" G_GINT64_FORMAT,
          d < n_dims ? ":" : "", shape[d - 1]);
    if (n_dims == 0)
      g_string_append_c (dims, '1');
    g_string_append (types, gcg_model_dtype_get_name (dtype));
  }
  s = gst_structure_new ("other/tensors", "format", G_TYPE_STRING, "static",
      "num_tensors", G_TYPE_INT, (gint) n, "dimensions", G_TYPE_STRING,
      dims->str, "types", G_TYPE_STRING, types->str, NULL);
  if (framerate)
    gst_structure_set_value (s, "framerate", framerate);
  else
    gst_structure_set (s, "framerate", GST_TYPE_FRACTION_RANGE, 0, 1, G_MAXINT,
        1, NULL);
  g_string_free (dims, TRUE);
  g_string_free (types, TRUE);
  return s;
}

void
gst_cuda_graph_model_layout_init (GstCudaGraphModelLayout *layout,
    GcgModelGraph *model, gboolean keep_input)
{
  guint n = model ? MIN (n_packed (model, keep_input),
                        GST_CUDA_GRAPH_TENSOR_META_MAX_TENSORS)
                  : 0;

  memset (layout, 0, sizeof (*layout));
  layout->n_tensors = n;
  layout->size = model ? gcg_model_graph_get_packed_size (model, keep_input)
                       : 0;
  for (guint t = 0; t < n; t++) {
    GstCudaGraphTensorMetaTensor *mt = &layout->tensors[t];
    GcgModelDtype dtype = GCG_MODEL_DTYPE_FLOAT32;
    guint n_dims = 0;
    const gint64 *shape = packed_shape (model, keep_input, t, &n_dims, &dtype);
    gsize offset = 0, size = 0;

    gcg_model_graph_get_packed_tensor (model, keep_input, t, &offset, &size,
        NULL);
    mt->offset = offset;
    mt->size = size;
    mt->dtype = dtype;
    mt->n_dims = MIN (n_dims, GST_CUDA_GRAPH_TENSOR_META_MAX_DIMS);
    for (guint d = 0; d < mt->n_dims; d++)
      mt->shape[d] = shape[d];
  }
}

void
gst_cuda_graph_model_layout_apply (const GstCudaGraphModelLayout *layout,
    GstCudaGraphTensorMeta *meta)
{
  meta->size = layout->size;
  meta->n_tensors = layout->n_tensors;
  memcpy (meta->tensors, layout->tensors,
      layout->n_tensors * sizeof (layout->tensors[0]));
}
