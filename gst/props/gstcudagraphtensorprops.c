/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The tensor properties of cudagraphpreprocess and cudagraphbatch, defined
 * once so that both elements take the same values the same way. */
#include "gstcudagraphtensorprops.h"
#include <gcg/gcg-gst.h>
#include "gstcudagraphrefuse.h"

#include <math.h>
#include <string.h>

#define DEFAULT_WIDTH 640
#define DEFAULT_HEIGHT 640
#define DEFAULT_LAYOUT GCG_TENSOR_LAYOUT_NCHW
#define DEFAULT_TENSOR_TYPE GCG_TENSOR_TYPE_FLOAT32
#define DEFAULT_CHANNELS GCG_TENSOR_CHANNELS_RGB
/* Until scale is set, it follows tensor-type: a float tensor holds 0-1,
 * a uint8 one the pixel values themselves. */
#define DEFAULT_SCALE (1.0 / 255.0)
#define DEFAULT_SCALE_UINT8 1.0
#define DEFAULT_OFFSET 0.0
#define DEFAULT_MAX_ROIS 1
#define DEFAULT_LETTERBOX GCG_LETTERBOX_SYMMETRIC
#define DEFAULT_PAD_VALUE 0.0
#define DEFAULT_METHOD GCG_RESIZE_BILINEAR

#define READY_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)
#define PLAYING_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)

static void
install_shape (GObjectClass *klass, guint id)
{
  g_object_class_install_property (klass, id + GST_CUDA_GRAPH_TENSOR_PROP_WIDTH,
      g_param_spec_uint ("width", "Width",
          "Width of each tensor item, 1-" G_STRINGIFY (
              GCG_FRAME_CHAIN_MAX_SIZE) " pixels (the whole tensor at most "
                                        "2 GiB)",
          1, GCG_FRAME_CHAIN_MAX_SIZE, DEFAULT_WIDTH, READY_FLAGS));
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_TENSOR_PROP_HEIGHT,
      g_param_spec_uint ("height", "Height",
          "Height of each tensor item, 1-" G_STRINGIFY (
              GCG_FRAME_CHAIN_MAX_SIZE) " pixels (the whole tensor at most "
                                        "2 GiB)",
          1, GCG_FRAME_CHAIN_MAX_SIZE, DEFAULT_HEIGHT, READY_FLAGS));
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_TENSOR_PROP_LAYOUT,
      g_param_spec_enum ("layout", "Layout", "Tensor memory layout",
          GCG_TYPE_TENSOR_LAYOUT, DEFAULT_LAYOUT, READY_FLAGS));
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_TENSOR_PROP_TENSOR_TYPE,
      g_param_spec_enum ("tensor-type", "Tensor type", "Tensor element type",
          GCG_TYPE_TENSOR_TYPE, DEFAULT_TENSOR_TYPE, READY_FLAGS));
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_TENSOR_PROP_CHANNELS,
      g_param_spec_enum ("channels", "Channels", "Tensor channel order",
          GCG_TYPE_TENSOR_CHANNELS, DEFAULT_CHANNELS, READY_FLAGS));
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_TENSOR_PROP_MAX_ROIS,
      g_param_spec_uint ("max-rois", "Max ROIs",
          "Batch size N, 1-" G_STRINGIFY (
              GCG_FRAME_CHAIN_MAX_ROIS) ": at "
                                        "most this many region-of-interest metas per frame become tensor "
                                        "items",
          1, GCG_FRAME_CHAIN_MAX_ROIS, DEFAULT_MAX_ROIS, READY_FLAGS));
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_TENSOR_PROP_LETTERBOX,
      g_param_spec_enum ("letterbox", "Letterbox",
          "Keep the aspect ratio and pad (symmetric or top-left), or stretch",
          GCG_TYPE_LETTERBOX, DEFAULT_LETTERBOX, READY_FLAGS));
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_TENSOR_PROP_METHOD,
      g_param_spec_enum ("method", "Method", "Resampling method",
          GCG_TYPE_RESIZE_METHOD, DEFAULT_METHOD, READY_FLAGS));
}

static void
install_values (GObjectClass *klass, guint id)
{
  g_object_class_install_property (klass, id + GST_CUDA_GRAPH_TENSOR_PROP_MEAN,
      g_param_spec_string ("mean", "Mean",
          "Per-channel mean in 0-1, tensor channel order, e.g. "
          "\"0.485,0.456,0.406\" (with std; overrides scale/offset)",
          NULL, PLAYING_FLAGS));
  g_object_class_install_property (klass, id + GST_CUDA_GRAPH_TENSOR_PROP_STD,
      g_param_spec_string ("std", "Std",
          "Per-channel standard deviation in 0-1, e.g. "
          "\"0.229,0.224,0.225\" (with mean)",
          NULL, PLAYING_FLAGS));
  g_object_class_install_property (klass, id + GST_CUDA_GRAPH_TENSOR_PROP_SCALE,
      g_param_spec_double ("scale", "Scale",
          "out = pixel * scale + offset, pixel in 0-255 (without mean/std; "
          "default 1/255, 1 for tensor-type=uint8; with mean/std it reads "
          "back the first channel's scale they give)",
          -G_MAXFLOAT, G_MAXFLOAT, DEFAULT_SCALE,
          PLAYING_FLAGS | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_TENSOR_PROP_OFFSET,
      g_param_spec_double ("offset", "Offset",
          "See scale (with mean/std it reads back the first channel's "
          "offset they give)",
          -G_MAXFLOAT, G_MAXFLOAT, DEFAULT_OFFSET,
          PLAYING_FLAGS | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_TENSOR_PROP_ROI_TYPE,
      g_param_spec_string ("roi-type", "ROI type",
          "Only region-of-interest metas of this type (NULL = all)", NULL,
          PLAYING_FLAGS));
  g_object_class_install_property (klass,
      id + GST_CUDA_GRAPH_TENSOR_PROP_PAD_VALUE,
      g_param_spec_double ("pad-value", "Pad value",
          "Value of padding, as the final tensor value", -G_MAXFLOAT,
          G_MAXFLOAT, DEFAULT_PAD_VALUE,
          PLAYING_FLAGS | GST_PARAM_CONTROLLABLE));
}

void
gst_cuda_graph_tensor_props_install (GObjectClass *klass, guint first_id)
{
  install_shape (klass, first_id);
  install_values (klass, first_id);
  gst_type_mark_as_plugin_api (GCG_TYPE_TENSOR_LAYOUT, 0);
  gst_type_mark_as_plugin_api (GCG_TYPE_TENSOR_TYPE, 0);
  gst_type_mark_as_plugin_api (GCG_TYPE_TENSOR_CHANNELS, 0);
}

void
gst_cuda_graph_tensor_props_init (GstCudaGraphTensorProps *props)
{
  memset (props, 0, sizeof (*props));
  props->open = GST_CUDA_GRAPH_TENSOR_OPEN_ALL;
  props->width = DEFAULT_WIDTH;
  props->height = DEFAULT_HEIGHT;
  props->layout = DEFAULT_LAYOUT;
  props->tensor_type = DEFAULT_TENSOR_TYPE;
  props->channels = DEFAULT_CHANNELS;
  props->scale = DEFAULT_SCALE;
  props->offset = DEFAULT_OFFSET;
  props->max_rois = DEFAULT_MAX_ROIS;
  props->letterbox = DEFAULT_LETTERBOX;
  props->pad_value = DEFAULT_PAD_VALUE;
  props->method = DEFAULT_METHOD;
}

void
gst_cuda_graph_tensor_props_clear (GstCudaGraphTensorProps *props)
{
  g_clear_pointer (&props->mean_str, g_free);
  g_clear_pointer (&props->std_str, g_free);
  g_clear_pointer (&props->roi_type, g_ref_string_release);
}

/* Parses "a,b,c" (or one value for every channel) into @out; FALSE, with
 * @out unchanged, for anything else: a wrong count, an empty field, text
 * that is not a number (white space around one is fine), or a value that
 * is not finite as a float. */
static gboolean
parse_triple (const gchar *str, gfloat *out)
{
  g_auto (GStrv) parts = NULL;
  gfloat v[3];
  guint i, n;

  if (str == NULL || *str == '\0')
    return FALSE;
  parts = g_strsplit (str, ",", -1);
  n = g_strv_length (parts);
  if (n != 1 && n != 3)
    return FALSE;
  for (i = 0; i < n; i++) {
    gchar *end;

    v[i] = (gfloat) g_ascii_strtod (parts[i], &end);
    while (g_ascii_isspace (*end))
      end++;
    if (end == parts[i] || *end != '\0' || !isfinite (v[i]))
      return FALSE;
  }
  for (i = 0; i < 3; i++)
    out[i] = v[n == 1 ? 0 : i];
  return TRUE;
}

/* The numbers @mean_str and @std_str stand for (NULL: mean 0, std 1);
 * FALSE when either does not parse or the scale or offset they give is
 * not finite (a zero std, or one so small that 1 / (255 std) overflows a
 * float: every frame would be refused). */
static gboolean
parse_mean_std (const gchar *mean_str, const gchar *std_str, gfloat *mean,
    gfloat *std)
{
  GcgFrameParams params;

  if (!parse_triple (mean_str ? mean_str : "0", mean)
      || !parse_triple (std_str ? std_str : "1", std))
    return FALSE;
  /* The kernels' own arithmetic decides. */
  gcg_frame_params_init (&params);
  gcg_frame_params_set_mean_std (&params, mean, std);
  return gst_cuda_graph_values_finite (params.scale, 3)
      && gst_cuda_graph_values_finite (params.offset, 3);
}

/* Sets the mean (@field is &props->mean_str) or std string to @value when,
 * with the other one, it gives usable numbers; otherwise warns and keeps
 * the old string and numbers, so that reading the property back tells
 * what is used.  NULL for both goes back to scale/offset. */
static void
set_mean_std (GstCudaGraphTensorProps *props, gchar **field,
    const GValue *value, gchar **refusal)
{
  const gchar *str = g_value_get_string (value);
  const gchar *mean_str = field == &props->mean_str ? str : props->mean_str;
  const gchar *std_str = field == &props->std_str ? str : props->std_str;
  gfloat mean[3], std[3];

  if (mean_str != NULL || std_str != NULL) {
    if (!parse_mean_std (mean_str, std_str, mean, std)) {
      gst_cuda_graph_refusal_note (refusal,
          "\"%s\" (with mean \"%s\", "
          "std \"%s\") is not 1 or 3 numbers, or has a std that makes the "
          "scale or offset infinite; keeping \"%s\"",
          GST_STR_NULL (str), GST_STR_NULL (mean_str), GST_STR_NULL (std_str),
          GST_STR_NULL (*field));
      return;
    }
    memcpy (props->mean, mean, sizeof (mean));
    memcpy (props->std, std, sizeof (std));
  }
  props->use_mean_std = mean_str != NULL || std_str != NULL;
  g_free (*field);
  *field = g_strdup (str);
}

/* The scale in use without mean/std. */
static gfloat
scale_in_effect (const GstCudaGraphTensorProps *props)
{
  if (props->scale_set)
    return props->scale;
  return props->tensor_type == GCG_TENSOR_TYPE_UINT8 ? DEFAULT_SCALE_UINT8
                                                     : DEFAULT_SCALE;
}

gboolean
gst_cuda_graph_tensor_props_set (GstCudaGraphTensorProps *props, guint first_id,
    guint prop_id, const GValue *value, gchar **refusal)
{
  if (prop_id < first_id)
    return FALSE;
  switch (prop_id - first_id) {
    case GST_CUDA_GRAPH_TENSOR_PROP_WIDTH:
      props->width = g_value_get_uint (value);
      props->open &= ~GST_CUDA_GRAPH_TENSOR_OPEN_WIDTH;
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_HEIGHT:
      props->height = g_value_get_uint (value);
      props->open &= ~GST_CUDA_GRAPH_TENSOR_OPEN_HEIGHT;
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_LAYOUT:
      props->layout = g_value_get_enum (value);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_TENSOR_TYPE:
      props->tensor_type = g_value_get_enum (value);
      props->open &= ~GST_CUDA_GRAPH_TENSOR_OPEN_TYPE;
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_CHANNELS:
      props->channels = g_value_get_enum (value);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_MEAN:
      set_mean_std (props, &props->mean_str, value, refusal);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_STD:
      set_mean_std (props, &props->std_str, value, refusal);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_SCALE:
      if (gst_cuda_graph_set_finite (&props->scale, value, refusal))
        props->scale_set = TRUE;
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_OFFSET:
      gst_cuda_graph_set_finite (&props->offset, value, refusal);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_MAX_ROIS:
      props->max_rois = g_value_get_uint (value);
      props->open &= ~GST_CUDA_GRAPH_TENSOR_OPEN_BATCH;
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_ROI_TYPE:
      g_clear_pointer (&props->roi_type, g_ref_string_release);
      if (g_value_get_string (value) != NULL)
        props->roi_type = g_ref_string_new (g_value_get_string (value));
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_LETTERBOX:
      props->letterbox = g_value_get_enum (value);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_PAD_VALUE:
      gst_cuda_graph_set_finite (&props->pad_value, value, refusal);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_METHOD:
      props->method = g_value_get_enum (value);
      break;
    default:
      return FALSE;
  }
  return TRUE;
}

/* What scale or offset (@which) reads back: the value in effect, the first
 * channel's when mean/std give them (the channels may differ). */
static void
get_scale_offset (const GstCudaGraphTensorProps *props, guint which,
    GValue *value)
{
  GcgFrameParams params;

  gcg_frame_params_init (&params);
  gst_cuda_graph_tensor_props_fill_params (props, &params);
  g_value_set_double (value,
      which == GST_CUDA_GRAPH_TENSOR_PROP_SCALE ? params.scale[0]
                                                : params.offset[0]);
}

gboolean
gst_cuda_graph_tensor_props_get (const GstCudaGraphTensorProps *props,
    guint first_id, guint prop_id, GValue *value)
{
  if (prop_id < first_id)
    return FALSE;
  switch (prop_id - first_id) {
    case GST_CUDA_GRAPH_TENSOR_PROP_WIDTH:
      g_value_set_uint (value, props->width);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_HEIGHT:
      g_value_set_uint (value, props->height);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_LAYOUT:
      g_value_set_enum (value, props->layout);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_TENSOR_TYPE:
      g_value_set_enum (value, props->tensor_type);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_CHANNELS:
      g_value_set_enum (value, props->channels);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_MEAN:
      g_value_set_string (value, props->mean_str);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_STD:
      g_value_set_string (value, props->std_str);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_SCALE:
    case GST_CUDA_GRAPH_TENSOR_PROP_OFFSET:
      get_scale_offset (props, prop_id - first_id, value);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_MAX_ROIS:
      g_value_set_uint (value, props->max_rois);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_ROI_TYPE:
      g_value_set_string (value, props->roi_type);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_LETTERBOX:
      g_value_set_enum (value, props->letterbox);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_PAD_VALUE:
      g_value_set_double (value, props->pad_value);
      break;
    case GST_CUDA_GRAPH_TENSOR_PROP_METHOD:
      g_value_set_enum (value, props->method);
      break;
    default:
      return FALSE;
  }
  return TRUE;
}

void
gst_cuda_graph_tensor_props_get_desc (const GstCudaGraphTensorProps *props,
    guint batch, GstCudaGraphTensorDesc *desc)
{
  desc->layout = props->layout;
  desc->type = props->tensor_type;
  desc->channels = props->channels;
  desc->width = props->width;
  desc->height = props->height;
  desc->batch = batch;
}

void
gst_cuda_graph_tensor_props_fill_params (const GstCudaGraphTensorProps *props,
    GcgFrameParams *params)
{
  guint c;

  if (props->use_mean_std) {
    gcg_frame_params_set_mean_std (params, props->mean, props->std);
  } else {
    for (c = 0; c < 3; c++) {
      params->scale[c] = scale_in_effect (props);
      params->offset[c] = props->offset;
    }
  }
  for (c = 0; c < 4; c++)
    params->pad[c] = props->pad_value;
}
