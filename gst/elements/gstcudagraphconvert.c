/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-cudagraphconvert
 * @title: cudagraphconvert
 * @short_description: convert, crop, scale and colour-adjust video with a
 *   replayed CUDA graph
 *
 * Converts between NV12, I420, RGBA, BGRA, RGB, BGR and GRAY8, crops (the
 * crop-* properties and/or a #GstVideoCropMeta on the buffer), scales
 * (nearest or bilinear, optionally letterboxed) and adjusts brightness,
 * contrast, gamma and gain.  The kernels for one caps configuration are
 * captured into a CUDA graph on the first frame and replayed for every
 * later one; per-frame values (crop, adjustments, buffer addresses) are
 * set on the replayed graph's kernel node, so changing them never
 * re-captures.  New caps are captured on their first frame too, unless
 * they came recently: the chains of the last
 * #GstCudaGraphBaseTransform:chain-cache-size caps are kept, and caps
 * going back to one of them replay its graph.  Without a usable GPU,
 * `backend=auto` runs the CPU
 * reference implementation (bit-identical for gamma 1) and says so.
 *
 * A buffer carrying a custom meta named "GcgParamsMeta" (see
 * gst_meta_register_custom()) has its structure's double fields
 * `brightness`, `contrast`, `gamma` and `gain` used instead of the
 * properties for that buffer.
 *
 * Both pads take `video/x-raw` in system memory and in
 * `video/x-raw(memory:CUDAMemory)` (GstCudaMemory, as nvcodec's decoders,
 * cudaupload and cudadownload make and take it): CUDA memory is used in
 * place, in the #GstCudaContext the element shares with its neighbours.
 * The output keeps the input's memory kind when downstream takes it.
 *
 * When input and output caps are equal, no crop is set and every
 * adjustment is the identity, buffers pass through untouched (never with
 * a user kernel).
 *
 * A kernel of the user's own (kernel-source or kernel-location,
 * kernel-entry, kernel-params; docs/user-kernels.md) runs in the same
 * graph, after the conversion on its output or, with
 * kernel-position=before, before it on a scratch copy of the input:
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA,width=1280,height=720 ! \
 *   cudagraphconvert backend=cuda kernel-position=before \
 *   kernel-location=examples/kernels/vignette.cu kernel-entry=vignette \
 *   kernel-params="src=src0,dst=dst0,src_pitch=src_pitch0,dst_pitch=dst_pitch0,width=in_width,height=in_height" ! \
 *   video/x-raw,width=640,height=360 ! fakesink
 * ]|
 *
 * The crop-* properties select a rectangle of the visible frame: the
 * buffer's #GstVideoCropMeta region, or the whole frame without one
 * (crop-x and crop-y count from its top left corner; a 0 width or height
 * reaches to its edge), clipped to it, as on every element and
 * cudagraphbatch sink pad (gstcudagraphcrop.h).  A crop that selects
 * nothing of it (crop-x=1000 on a 160×90 frame, or a crop meta outside
 * the frame) is refused: the whole visible frame is used for that frame,
 * and a warning message naming the element and the values is posted on
 * the bus when the refused crop first appears and whenever it changes,
 * not for every frame.
 *
 * Limitation: a #GstVideoCropMeta is read relative to the frame the caps
 * describe; buffers whose #GstVideoMeta is larger than the caps are
 * processed within the caps' size.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=1920,height=1080 ! cudagraphconvert ! video/x-raw,format=RGBA,width=640,height=360 ! fakesink
 * ]| Converts and scales 1080p NV12 to 640×360 RGBA.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,width=1280,height=720 ! cudagraphconvert crop-x=320 crop-width=640 letterbox=symmetric brightness=0.1 ! video/x-raw,format=BGR,width=640,height=640 ! fakesink
 * ]| Crops the centre, letterboxes it into a square and brightens it.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=1920,height=1080 ! cudaupload ! cudagraphconvert ! video/x-raw(memory:CUDAMemory),format=RGBA,width=640,height=360 ! cudadownload ! fakesink
 * ]| The same conversion on GStreamer's CUDA memory (nvcodec's cudaupload
 * and cudadownload): read and written in place, no copy between host and
 * device in the element.
 *
 * Since: 0.1
 */

#include <math.h>

#include "basetransform/gstcudagraphbasetransform.h"
#include "buffers/gstcudagraphcrop.h"
#include "props/gstcudagraphcropprops.h"
#include "memory/gstcudagraphcudainterop.h"
#include "gstcudagraphelements.h"
#include <gcg/gcg-gst.h>
#include "props/gstcudagraphrefuse.h"
#include "buffers/gstcudagraphvideo.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_graph_convert_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_convert_debug

#define CONVERT_FORMATS "{ NV12, I420, RGBA, BGRA, RGB, BGR, GRAY8 }"
#define CONVERT_CAPS GST_CUDA_GRAPH_VIDEO_CAPS (CONVERT_FORMATS)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (CONVERT_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (CONVERT_CAPS));

enum
{
  PROP_0,
  PROP_METHOD,
  PROP_LETTERBOX,
  PROP_PAD_COLOR,
  PROP_BRIGHTNESS,
  PROP_CONTRAST,
  PROP_GAMMA,
  PROP_GAIN,
  PROP_CROP_FIRST,
};

#define DEFAULT_METHOD GCG_RESIZE_BILINEAR
#define DEFAULT_LETTERBOX GCG_LETTERBOX_NONE
#define DEFAULT_PAD_COLOR 0xff000000
#define DEFAULT_BRIGHTNESS 0.0
#define DEFAULT_CONTRAST 1.0
#define DEFAULT_GAMMA 1.0
#define DEFAULT_GAIN 1.0

struct _GstCudaGraphConvert
{
  GstCudaGraphBaseTransform parent;

  /* Properties, under the object lock. */
  GcgRect crop;
  GcgResizeMethod method;
  GcgLetterbox letterbox;
  guint pad_color;
  gfloat adjust[4];             /* brightness, contrast, gamma, gain */

  /* Streaming thread only. */
  gboolean same_caps;
  /* A crop that selects nothing, said once per change. */
  GstCudaGraphCropReport crop_report;
};

G_DECLARE_FINAL_TYPE (GstCudaGraphConvert, gst_cuda_graph_convert, GST,
    CUDA_GRAPH_CONVERT, GstCudaGraphBaseTransform)
G_DEFINE_TYPE (GstCudaGraphConvert, gst_cuda_graph_convert,
    GST_TYPE_CUDA_GRAPH_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudagraphconvert, "cudagraphconvert",
    GST_RANK_NONE, gst_cuda_graph_convert_get_type (),
    gst_cuda_graph_params_meta_register ());

enum
{
  ADJ_BRIGHTNESS,
  ADJ_CONTRAST,
  ADJ_GAMMA,
  ADJ_GAIN,
};

static void gst_cuda_graph_convert_set_property (GObject *object, guint prop_id,
    const GValue *value, GParamSpec *pspec);
static void gst_cuda_graph_convert_get_property (GObject *object, guint prop_id,
    GValue *value, GParamSpec *pspec);
static GstCaps *gst_cuda_graph_convert_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter);
static GstCaps *gst_cuda_graph_convert_fixate_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *othercaps);
static gboolean gst_cuda_graph_convert_set_caps (GstBaseTransform *trans,
    GstCaps *incaps, GstCaps *outcaps);
static void gst_cuda_graph_convert_before_transform (GstBaseTransform *trans,
    GstBuffer *buffer);
static void update_passthrough (GstCudaGraphConvert *self, GstBuffer *buffer);
static gboolean gst_cuda_graph_convert_configure (
    GstCudaGraphBaseTransform *base, const GstVideoInfo *in_info,
    GstCaps *outcaps, GcgFrameChainConfig *config);
static void gst_cuda_graph_convert_fill_params (GstCudaGraphBaseTransform *base,
    GstBuffer *inbuf, GcgFrameParams *params);

static void
install_adjust_property (GObjectClass *gobject_class, guint id,
    const gchar *name, const gchar *blurb, gdouble min, gdouble max,
    gdouble def)
{
  g_object_class_install_property (gobject_class, id,
      g_param_spec_double (name, name, blurb, min, max, def,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_CONTROLLABLE
              | GST_PARAM_MUTABLE_PLAYING));
}

static void
gst_cuda_graph_convert_class_init (GstCudaGraphConvertClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaGraphBaseTransformClass *base_class =
      GST_CUDA_GRAPH_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cuda_graph_convert_set_property;
  gobject_class->get_property = gst_cuda_graph_convert_get_property;

  gst_cuda_graph_crop_props_install (gobject_class, PROP_CROP_FIRST);
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "Resampling method",
          GCG_TYPE_RESIZE_METHOD, DEFAULT_METHOD,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_LETTERBOX,
      g_param_spec_enum ("letterbox", "Letterbox",
          "Keep the aspect ratio and pad (symmetric or top-left), or stretch",
          GCG_TYPE_LETTERBOX, DEFAULT_LETTERBOX,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_PAD_COLOR,
      g_param_spec_uint ("pad-color", "Pad color",
          "Colour of letterbox padding, as 0xAARRGGBB", 0, G_MAXUINT32,
          DEFAULT_PAD_COLOR,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_CONTROLLABLE
              | GST_PARAM_MUTABLE_PLAYING));
  install_adjust_property (gobject_class, PROP_BRIGHTNESS, "brightness",
      "Added after contrast, in units of full scale", -1.0, 1.0,
      DEFAULT_BRIGHTNESS);
  install_adjust_property (gobject_class, PROP_CONTRAST, "contrast",
      "Factor around mid-grey", 0.0, 100.0, DEFAULT_CONTRAST);
  install_adjust_property (gobject_class, PROP_GAMMA, "gamma",
      "Exponent applied last", 0.01, 100.0, DEFAULT_GAMMA);
  install_adjust_property (gobject_class, PROP_GAIN, "gain",
      "Factor applied first", 0.0, 100.0, DEFAULT_GAIN);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA graph video converter", "Filter/Converter/Video/Scaler/Hardware",
      "Converts, crops, scales and colour-adjusts video with a CUDA graph "
      "captured once and replayed per frame",
      "gst-cudagraph authors");

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_convert_transform_caps);
  trans_class->fixate_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_convert_fixate_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_graph_convert_set_caps);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_convert_before_transform);
  base_class->configure = GST_DEBUG_FUNCPTR (gst_cuda_graph_convert_configure);
  base_class->get_caps_size =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_video_caps_size);
  base_class->fill_params =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_convert_fill_params);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_graph_convert_debug, "cudagraphconvert", 0,
      "cudagraphconvert");
  gst_type_mark_as_plugin_api (GCG_TYPE_RESIZE_METHOD, 0);
  gst_type_mark_as_plugin_api (GCG_TYPE_LETTERBOX, 0);
}

static void
gst_cuda_graph_convert_init (GstCudaGraphConvert *self)
{
  self->method = DEFAULT_METHOD;
  self->letterbox = DEFAULT_LETTERBOX;
  self->pad_color = DEFAULT_PAD_COLOR;
  self->adjust[ADJ_BRIGHTNESS] = DEFAULT_BRIGHTNESS;
  self->adjust[ADJ_CONTRAST] = DEFAULT_CONTRAST;
  self->adjust[ADJ_GAMMA] = DEFAULT_GAMMA;
  self->adjust[ADJ_GAIN] = DEFAULT_GAIN;
}

static void
gst_cuda_graph_convert_set_property (GObject *object, guint prop_id,
    const GValue *value, GParamSpec *pspec)
{
  GstCudaGraphConvert *self = GST_CUDA_GRAPH_CONVERT (object);
  g_autofree gchar *refusal = NULL;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_METHOD:
      self->method = g_value_get_enum (value);
      break;
    case PROP_LETTERBOX:
      self->letterbox = g_value_get_enum (value);
      break;
    case PROP_PAD_COLOR:
      self->pad_color = g_value_get_uint (value);
      break;
    case PROP_BRIGHTNESS:
      gst_cuda_graph_set_finite (&self->adjust[ADJ_BRIGHTNESS], value,
          &refusal);
      break;
    case PROP_CONTRAST:
      gst_cuda_graph_set_finite (&self->adjust[ADJ_CONTRAST], value, &refusal);
      break;
    case PROP_GAMMA:
      gst_cuda_graph_set_finite (&self->adjust[ADJ_GAMMA], value, &refusal);
      break;
    case PROP_GAIN:
      gst_cuda_graph_set_finite (&self->adjust[ADJ_GAIN], value, &refusal);
      break;
    default:
      if (!gst_cuda_graph_crop_props_set (&self->crop, PROP_CROP_FIRST, prop_id,
              value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_refusal_report (object, pspec, &refusal);
}

static void
gst_cuda_graph_convert_get_property (GObject *object, guint prop_id,
    GValue *value, GParamSpec *pspec)
{
  GstCudaGraphConvert *self = GST_CUDA_GRAPH_CONVERT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_METHOD:
      g_value_set_enum (value, self->method);
      break;
    case PROP_LETTERBOX:
      g_value_set_enum (value, self->letterbox);
      break;
    case PROP_PAD_COLOR:
      g_value_set_uint (value, self->pad_color);
      break;
    case PROP_BRIGHTNESS:
      g_value_set_double (value, self->adjust[ADJ_BRIGHTNESS]);
      break;
    case PROP_CONTRAST:
      g_value_set_double (value, self->adjust[ADJ_CONTRAST]);
      break;
    case PROP_GAMMA:
      g_value_set_double (value, self->adjust[ADJ_GAMMA]);
      break;
    case PROP_GAIN:
      g_value_set_double (value, self->adjust[ADJ_GAIN]);
      break;
    default:
      if (!gst_cuda_graph_crop_props_get (&self->crop, PROP_CROP_FIRST, prop_id,
              value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* --- caps ---------------------------------------------------------------- */

/* Any format and size on the other side: the input caps first, so that
 * passthrough wins when the peer accepts it. */
static GstCaps *
gst_cuda_graph_convert_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstCaps *freed = gst_caps_new_empty ();
  GstCaps *result;
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));

    gst_structure_remove_fields (s, "format", "colorimetry", "chroma-site",
        "pixel-aspect-ratio", NULL);
    gst_structure_set (s, "width", GST_TYPE_INT_RANGE, 1,
        GCG_FRAME_CHAIN_MAX_SIZE, "height", GST_TYPE_INT_RANGE, 1,
        GCG_FRAME_CHAIN_MAX_SIZE, NULL);
    freed = gst_caps_merge_structure (freed, s);
  }
  /* The same memory kind first: CUDA memory stays CUDA memory when the
   * peer takes it, system memory stays system memory. */
  result = gst_caps_merge (gst_caps_ref (caps), freed);
  result = gst_cuda_graph_caps_add_memory_kinds (result);
  result = gst_cuda_graph_base_transform_restrict_caps (
      GST_CUDA_GRAPH_BASE_TRANSFORM (trans), direction, result, filter);
  GST_DEBUG_OBJECT (trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps,
      result);
  return result;
}

static void
fixate_format (const GstStructure *in_s, GstStructure *s)
{
  const gchar *format = gst_structure_get_string (in_s, "format");

  if (format)
    gst_structure_fixate_field_string (s, "format", format);
}

/* Keeps the input size; when the peer fixed one side only, the other
 * follows the input's aspect ratio. */
static void
fixate_size (const GstStructure *in_s, GstStructure *s)
{
  gint in_w = 0, in_h = 0, w, h;
  gboolean w_fixed, h_fixed;

  if (!gst_structure_get_int (in_s, "width", &in_w)
      || !gst_structure_get_int (in_s, "height", &in_h))
    return;
  w_fixed = gst_structure_get_int (s, "width", &w);
  h_fixed = gst_structure_get_int (s, "height", &h);
  if (w_fixed && !h_fixed)
    gst_structure_fixate_field_nearest_int (s, "height",
        (gint) gst_util_uint64_scale_int_round (w, in_h, in_w));
  else if (h_fixed && !w_fixed)
    gst_structure_fixate_field_nearest_int (s, "width",
        (gint) gst_util_uint64_scale_int_round (h, in_w, in_h));
  gst_structure_fixate_field_nearest_int (s, "width", in_w);
  gst_structure_fixate_field_nearest_int (s, "height", in_h);
}

static void
fixate_par (const GstStructure *in_s, GstStructure *s)
{
  gint n = 1, d = 1;

  gst_structure_get_fraction (in_s, "pixel-aspect-ratio", &n, &d);
  if (gst_structure_has_field (s, "pixel-aspect-ratio"))
    gst_structure_fixate_field_nearest_fraction (s, "pixel-aspect-ratio", n, d);
  else
    gst_structure_set (s, "pixel-aspect-ratio", GST_TYPE_FRACTION, n, d, NULL);
}

static gboolean
structure_is_yuv (const GstStructure *s)
{
  const gchar *format = gst_structure_get_string (s, "format");

  return format
      && GST_VIDEO_FORMAT_INFO_IS_YUV (
          gst_video_format_get_info (gst_video_format_from_string (format)));
}

/* YUV to YUV keeps the input's matrix and range (one conversion matrix
 * for both ways), so the output says so, rather than the default its size
 * would give it (BT.709 above SD, BT.601 below). */
static void
fixate_colorimetry (GstCaps *caps, GstStructure *s)
{
  const GstStructure *in_s = gst_caps_get_structure (caps, 0);
  const gchar *site = gst_structure_get_string (in_s, "chroma-site");
  g_autofree gchar *colorimetry = NULL;
  GstVideoInfo in_info;

  if (!structure_is_yuv (in_s) || !structure_is_yuv (s)
      || !gst_video_info_from_caps (&in_info, caps))
    return;
  colorimetry = gst_video_colorimetry_to_string (&in_info.colorimetry);
  if (colorimetry == NULL)
    return;
  if (gst_structure_has_field (s, "colorimetry"))
    gst_structure_fixate_field_string (s, "colorimetry", colorimetry);
  else
    gst_structure_set (s, "colorimetry", G_TYPE_STRING, colorimetry, NULL);
  if (site && !gst_structure_has_field (s, "chroma-site"))
    gst_structure_set (s, "chroma-site", G_TYPE_STRING, site, NULL);
}

static GstCaps *
gst_cuda_graph_convert_fixate_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *othercaps)
{
  const GstStructure *in_s;
  GstStructure *s;

  /* Passthrough when the peer takes the caps as they are (the input caps
   * themselves, not their intersection, which could gain fields). */
  if (gst_caps_is_fixed (caps) && gst_caps_can_intersect (othercaps, caps)) {
    gst_caps_unref (othercaps);
    return gst_caps_copy (caps);
  }

  othercaps = gst_caps_make_writable (gst_caps_truncate (othercaps));
  in_s = gst_caps_get_structure (caps, 0);
  s = gst_caps_get_structure (othercaps, 0);
  fixate_format (in_s, s);
  fixate_size (in_s, s);
  fixate_par (in_s, s);
  fixate_colorimetry (caps, s);
  othercaps = gst_caps_fixate (othercaps);
  GST_DEBUG_OBJECT (trans, "fixated to %" GST_PTR_FORMAT, othercaps);
  return othercaps;
}

/* GstBaseTransform calls before_transform before it renegotiates, so the
 * passthrough decision is refreshed here too. */
static gboolean
gst_cuda_graph_convert_set_caps (GstBaseTransform *trans, GstCaps *incaps,
    GstCaps *outcaps)
{
  GstCudaGraphConvert *self = GST_CUDA_GRAPH_CONVERT (trans);

  if (!GST_BASE_TRANSFORM_CLASS (gst_cuda_graph_convert_parent_class)
          ->set_caps (trans, incaps, outcaps))
    return FALSE;
  self->same_caps = gst_caps_is_equal (incaps, outcaps);
  update_passthrough (self, NULL);
  return TRUE;
}

static gboolean
gst_cuda_graph_convert_configure (GstCudaGraphBaseTransform *base,
    const GstVideoInfo *in_info, GstCaps *outcaps, GcgFrameChainConfig *config)
{
  GstCudaGraphConvert *self = GST_CUDA_GRAPH_CONVERT (base);
  GstVideoInfo out_info;

  if (!gst_video_info_from_caps (&out_info, outcaps)
      || !gst_cuda_graph_pixel_format_from_video (
          GST_VIDEO_INFO_FORMAT (&out_info), &config->out_format)) {
    GST_ERROR_OBJECT (self, "unsupported output caps %" GST_PTR_FORMAT,
        outcaps);
    return FALSE;
  }
  config->output = GCG_OUTPUT_KIND_VIDEO;
  config->out_width = GST_VIDEO_INFO_WIDTH (&out_info);
  config->out_height = GST_VIDEO_INFO_HEIGHT (&out_info);
  config->max_rois = 1;
  /* RGB in, YUV out: the output's colorimetry decides.  YUV to YUV keeps
   * the input's (see fixate_colorimetry()): other output caps are refused
   * rather than mislabelled. */
  if (GST_VIDEO_INFO_IS_YUV (&out_info)) {
    GcgColorMatrix matrix = out_info.colorimetry.matrix
            == GST_VIDEO_COLOR_MATRIX_BT709
        ? GCG_COLOR_MATRIX_BT709
        : GCG_COLOR_MATRIX_BT601;
    gboolean full_range = out_info.colorimetry.range
        == GST_VIDEO_COLOR_RANGE_0_255;

    if (!GST_VIDEO_INFO_IS_YUV (in_info)) {
      config->matrix = matrix;
      config->full_range = full_range;
    } else if (matrix != config->matrix || full_range != config->full_range) {
      /* Said once: the base class refuses the same caps again without a
       * word when upstream sends them again. */
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("YUV to YUV keeps the input's colour matrix and range; "
           "downstream asks for others"),
          ("output caps %" GST_PTR_FORMAT "; let downstream take the "
           "input's colorimetry, or convert to RGB first",
              outcaps));
      return FALSE;
    }
  }
  GST_OBJECT_LOCK (self);
  config->resize = self->method;
  config->letterbox = self->letterbox;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* --- per frame ----------------------------------------------------------- */

static gboolean
is_identity (const gfloat *adjust)
{
  return adjust[ADJ_BRIGHTNESS] == 0.0f && adjust[ADJ_CONTRAST] == 1.0f
      && adjust[ADJ_GAMMA] == 1.0f && adjust[ADJ_GAIN] == 1.0f;
}

/* Decided per buffer and at each negotiation: a property or controller
 * change, or a crop or params meta on the buffer, takes the element out of
 * passthrough at once; the base class then allocates an output buffer. */
static void
update_passthrough (GstCudaGraphConvert *self, GstBuffer *buffer)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  gboolean passthrough;

  GST_OBJECT_LOCK (self);
  passthrough = self->same_caps && is_identity (self->adjust)
      && !gst_cuda_graph_crop_props_is_set (&self->crop)
      && !gst_cuda_graph_base_transform_has_user_kernel_locked (
          GST_CUDA_GRAPH_BASE_TRANSFORM (self));
  GST_OBJECT_UNLOCK (self);
  passthrough = passthrough
      && (buffer == NULL
          || (gst_buffer_get_video_crop_meta (buffer) == NULL
              && gst_buffer_get_custom_meta (buffer,
                     GST_CUDA_GRAPH_PARAMS_META_NAME)
                  == NULL));
  if (passthrough != gst_base_transform_is_passthrough (trans)) {
    GST_DEBUG_OBJECT (self, "passthrough %d", passthrough);
    gst_base_transform_set_passthrough (trans, passthrough);
    /* In passthrough no allocation was decided: without a new query the
     * output would come from plain system memory whatever the caps say
     * (CUDA memory, downstream's pool, pinned memory).  Runs before the
     * base class checks for reconfiguration, so it applies to this
     * buffer already. */
    if (!passthrough)
      gst_base_transform_reconfigure_src (trans);
  }
}

static void
gst_cuda_graph_convert_before_transform (GstBaseTransform *trans,
    GstBuffer *buffer)
{
  GST_BASE_TRANSFORM_CLASS (gst_cuda_graph_convert_parent_class)
      ->before_transform (trans, buffer);
  update_passthrough (GST_CUDA_GRAPH_CONVERT (trans), buffer);
}

static void
gst_cuda_graph_convert_fill_params (GstCudaGraphBaseTransform *base,
    GstBuffer *inbuf, GcgFrameParams *params)
{
  GstCudaGraphConvert *self = GST_CUDA_GRAPH_CONVERT (base);
  const GstVideoInfo *info = gst_cuda_graph_base_transform_get_in_info (base);
  GcgRect prop_crop;
  guint argb;

  GST_OBJECT_LOCK (self);
  prop_crop = self->crop;
  argb = self->pad_color;
  params->brightness = self->adjust[ADJ_BRIGHTNESS];
  params->contrast = self->adjust[ADJ_CONTRAST];
  params->gamma = self->adjust[ADJ_GAMMA];
  params->gain = self->adjust[ADJ_GAIN];
  GST_OBJECT_UNLOCK (self);

  params->pad[0] = (argb >> 16) & 0xff;
  params->pad[1] = (argb >> 8) & 0xff;
  params->pad[2] = argb & 0xff;
  params->pad[3] = (argb >> 24) & 0xff;
  gst_cuda_graph_apply_params_meta (GST_OBJECT (base), inbuf, params);
  gst_cuda_graph_crop_region (&self->crop_report, GST_ELEMENT (self), NULL,
      inbuf, GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
      &prop_crop, &params->rois[0]);
  params->n_rois = 1;
}
