/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-cudagraphpreprocess
 * @title: cudagraphpreprocess
 * @short_description: turn video frames into an inference input tensor
 *   with a replayed CUDA graph
 *
 * Crops, resizes (optionally letterboxed), converts and normalises video
 * into a tensor with NNStreamer's caps:
 * `other/tensors, format=static, num_tensors=1, dimensions=W:H:C:N,
 * types=float32` (NCHW; NNStreamer lists the innermost dimension first, so
 * NHWC reads `C:W:H:N`).  Each #GstVideoRegionOfInterestMeta of a frame
 * (optionally only those whose type is #GstCudaGraphPreprocess:roi-type)
 * becomes one batch item, up to #GstCudaGraphPreprocess:max-rois = N; a
 * frame without ROIs gives one item made of the whole frame.  Items
 * without a ROI are zero.
 *
 * Values: `out = pixel · scale + offset` per channel, pixel in 0–255.  When
 * #GstCudaGraphPreprocess:mean and #GstCudaGraphPreprocess:std are set
 * (values in 0–1, tensor channel order) they give
 * `scale = 1 / (255 · std)`, `offset = −mean / std`; otherwise the
 * #GstCudaGraphPreprocess:scale and #GstCudaGraphPreprocess:offset
 * properties apply to every channel.  Each of mean and std is one value
 * for every channel or three separated by commas; a string that is not
 * that, or a std that makes the scale or offset infinite (0, or 1e-45:
 * 1 / (255 · std) overflows a float), is refused when it is set, with a
 * warning in the debug log: the previous value stays in use, and is what
 * the property reads back.
 *
 * #GstCudaGraphPreprocess:model-info reads the model's own description
 * instead: a GStreamer `.modelinfo` file (GKeyFile, GStreamer 1.28's
 * format; gstcudagraphmodelinfo.h lists the keys read).  Its first input
 * tensor's `dims` set width, height, layout (NCHW when the channel count,
 * 1 or 3, follows the batch; NHWC when it comes last) and, unless the
 * batch is dynamic (-1), max-rois; `type` sets tensor-type; `ranges`
 * ("min,max" pairs: pixel 0–255 maps onto [min, max]) set mean and std;
 * an optional `caps` key with a `format` gives the colour order.  A file
 * that cannot be honoured (missing, no input tensor, a type other than
 * float32/float16/uint8, a dynamic height or width, bad ranges) changes
 * nothing and fails the element at start with a message that names the
 * problem.  Properties set after model-info override its values.
 *
 * #GstCudaGraphPreprocess:roi-type matches a ROI's type by name; ROIs
 * that do not intersect the frame are skipped (a warning in the debug
 * log).  The whole tensor, N items, may be at most
 * %GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES (2 GiB): larger sizes and batches
 * fail to negotiate, with an error message giving the size.
 *
 * The sink pad takes `video/x-raw` in system memory and in
 * `video/x-raw(memory:CUDAMemory)` (GstCudaMemory from nvcodec's elements,
 * read in place in a shared #GstCudaContext); the tensor goes out in
 * system memory (NNStreamer's elements read it on the host) or, when
 * downstream takes `other/tensors(memory:CUDAMemory)`, stays on the GPU as
 * one contiguous block of GstCudaMemory (an inference engine on the same
 * GPU reads it in place; the Python module `gcg.tensor` hands it to
 * PyTorch through DLPack with no copy).  The tensor keeps the input's
 * memory kind when downstream accepts both.  Buffers leave while the GPU
 * may still write them: mapping one waits for that frame only.
 *
 * Every output buffer carries a #GcgTensorMeta (gstcudagraphtensormeta.h)
 * with where the tensor is (device pointer, size, shape, stream) and each
 * item's region, scale and padding, to map detections back to the frame;
 * built against GStreamer 1.26 or newer, also a `GstTensorMeta`.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=1920,height=1080 ! cudagraphpreprocess width=640 height=640 letterbox=symmetric ! fakesink
 * ]| YOLO-style input: 1×3×640×640 float32 in 0–1, letterboxed.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,format=RGBA,width=1280,height=720 ! cudagraphpreprocess width=224 height=224 letterbox=none mean="0.485,0.456,0.406" std="0.229,0.224,0.225" ! fakesink
 * ]| ImageNet-style input: 1×3×224×224 float32, normalised.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=1280,height=720 ! cudagraphpreprocess model-info=classifier.modelinfo ! fakesink
 * ]| The input a model describes in its `.modelinfo` file.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=1920,height=1080 ! cudaupload ! cudagraphpreprocess width=640 height=640 letterbox=symmetric ! fakesink
 * ]| YOLO-style input from GStreamer's CUDA memory (nvh264dec or
 * cudaupload), read in place.
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! qtdemux ! h264parse ! nvh264dec ! cudagraphpreprocess width=640 height=640 letterbox=symmetric ! "other/tensors(memory:CUDAMemory)" ! appsink name=sink
 * ]| Zero copy in and out: decoded frames are read in place on the GPU and
 * the tensor stays there for an application (see `gcg.tensor`).
 *
 * Since: 0.1
 */

#include <math.h>
#include <stdlib.h>

#include "gstcudagraphbasetransform.h"
#include "gstcudagraphcudainterop.h"
#include "gstcudagraphelements.h"
#include "gstcudagraphmodelinfo.h"
#include "gstcudagraphtensormeta.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_cuda_graph_preprocess_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_preprocess_debug

#define PREPROCESS_FORMATS "{ NV12, I420, RGBA, BGRA, RGB, BGR, GRAY8 }"
#define TENSOR_CAPS "other/tensors, format = (string) static, " \
  "num_tensors = (int) 1, types = (string) { float32, float16, uint8 }, " \
  "framerate = (fraction) [ 0/1, MAX ]"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CUDA_GRAPH_VIDEO_CAPS (PREPROCESS_FORMATS)));
#ifdef HAVE_GST_CUDA
#define SRC_CAPS TENSOR_CAPS "; other/tensors(" \
  GST_CUDA_GRAPH_CAPS_FEATURE_CUDA_MEMORY "), format = (string) static, " \
  "num_tensors = (int) 1, types = (string) { float32, float16, uint8 }, " \
  "framerate = (fraction) [ 0/1, MAX ]"
#else
#define SRC_CAPS TENSOR_CAPS
#endif
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (SRC_CAPS));

enum
{
  PROP_0,
  PROP_WIDTH,
  PROP_HEIGHT,
  PROP_LAYOUT,
  PROP_TENSOR_TYPE,
  PROP_CHANNELS,
  PROP_MEAN,
  PROP_STD,
  PROP_SCALE,
  PROP_OFFSET,
  PROP_MAX_ROIS,
  PROP_ROI_TYPE,
  PROP_LETTERBOX,
  PROP_PAD_VALUE,
  PROP_METHOD,
  PROP_MODEL_INFO,
};

#define DEFAULT_WIDTH 640
#define DEFAULT_HEIGHT 640
#define DEFAULT_LAYOUT GCG_TENSOR_LAYOUT_NCHW
#define DEFAULT_TENSOR_TYPE GCG_TENSOR_TYPE_FLOAT32
#define DEFAULT_CHANNELS GCG_TENSOR_CHANNELS_RGB
#define DEFAULT_SCALE (1.0 / 255.0)
#define DEFAULT_OFFSET 0.0
#define DEFAULT_MAX_ROIS 1
#define DEFAULT_LETTERBOX GCG_LETTERBOX_SYMMETRIC
#define DEFAULT_PAD_VALUE 0.0
#define DEFAULT_METHOD GCG_RESIZE_BILINEAR

struct _GstCudaGraphPreprocess
{
  GstCudaGraphBaseTransform parent;

  /* Properties, under the object lock. */
  guint width;
  guint height;
  GcgTensorLayout layout;
  GcgTensorType tensor_type;
  GcgTensorChannels channels;
  gchar *mean_str;
  gchar *std_str;
  gfloat mean[3];
  gfloat std[3];
  gboolean use_mean_std;
  gfloat scale;
  gfloat offset;
  guint max_rois;
  gchar *roi_type;
  GcgLetterbox letterbox;
  gfloat pad_value;
  GcgResizeMethod method;
  gchar *model_info;
  /* Why the model-info file could not be used, reported at start. */
  GError *model_info_error;

  /* Streaming thread only: where each item of the current frame came
   * from, for the tensor meta. */
  guint n_items;
  gint item_ids[GCG_FRAME_CHAIN_MAX_ROIS];
};

G_DECLARE_FINAL_TYPE (GstCudaGraphPreprocess, gst_cuda_graph_preprocess,
    GST, CUDA_GRAPH_PREPROCESS, GstCudaGraphBaseTransform)
G_DEFINE_TYPE (GstCudaGraphPreprocess, gst_cuda_graph_preprocess,
    GST_TYPE_CUDA_GRAPH_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudagraphpreprocess,
    "cudagraphpreprocess", GST_RANK_NONE,
    gst_cuda_graph_preprocess_get_type (),
    gst_cuda_graph_params_meta_register ();
    gcg_tensor_meta_get_info ());

static void gst_cuda_graph_preprocess_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_cuda_graph_preprocess_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_cuda_graph_preprocess_finalize (GObject * object);
static gboolean gst_cuda_graph_preprocess_start (GstBaseTransform * trans);
static GstCaps *gst_cuda_graph_preprocess_transform_caps (GstBaseTransform *
    trans, GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_cuda_graph_preprocess_configure (GstCudaGraphBaseTransform
    * base, const GstVideoInfo * in_info, GstCaps * outcaps,
    GcgFrameChainConfig * config);
static gboolean gst_cuda_graph_preprocess_get_caps_size
    (GstCudaGraphBaseTransform * base, GstCaps * caps, gsize * size);
static void gst_cuda_graph_preprocess_fill_params (GstCudaGraphBaseTransform *
    base, GstBuffer * inbuf, GcgFrameParams * params);
static void gst_cuda_graph_preprocess_decorate (GstCudaGraphBaseTransform *
    base, GstBuffer * outbuf, const GcgFrameParams * params);

#define READY_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)
#define PLAYING_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)

static void
gst_cuda_graph_preprocess_class_init (GstCudaGraphPreprocessClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaGraphBaseTransformClass *base_class =
      GST_CUDA_GRAPH_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cuda_graph_preprocess_set_property;
  gobject_class->get_property = gst_cuda_graph_preprocess_get_property;
  gobject_class->finalize = gst_cuda_graph_preprocess_finalize;

  g_object_class_install_property (gobject_class, PROP_WIDTH,
      g_param_spec_uint ("width", "Width", "Width of each tensor item", 1,
          GCG_FRAME_CHAIN_MAX_SIZE, DEFAULT_WIDTH, READY_FLAGS));
  g_object_class_install_property (gobject_class, PROP_HEIGHT,
      g_param_spec_uint ("height", "Height", "Height of each tensor item", 1,
          GCG_FRAME_CHAIN_MAX_SIZE, DEFAULT_HEIGHT, READY_FLAGS));
  g_object_class_install_property (gobject_class, PROP_LAYOUT,
      g_param_spec_enum ("layout", "Layout", "Tensor memory layout",
          GCG_TYPE_TENSOR_LAYOUT, DEFAULT_LAYOUT, READY_FLAGS));
  g_object_class_install_property (gobject_class, PROP_TENSOR_TYPE,
      g_param_spec_enum ("tensor-type", "Tensor type", "Tensor element type",
          GCG_TYPE_TENSOR_TYPE, DEFAULT_TENSOR_TYPE, READY_FLAGS));
  g_object_class_install_property (gobject_class, PROP_CHANNELS,
      g_param_spec_enum ("channels", "Channels", "Tensor channel order",
          GCG_TYPE_TENSOR_CHANNELS, DEFAULT_CHANNELS, READY_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MEAN,
      g_param_spec_string ("mean", "Mean",
          "Per-channel mean in 0-1, tensor channel order, e.g. "
          "\"0.485,0.456,0.406\" (with std; overrides scale/offset)", NULL,
          PLAYING_FLAGS));
  g_object_class_install_property (gobject_class, PROP_STD,
      g_param_spec_string ("std", "Std",
          "Per-channel standard deviation in 0-1, e.g. "
          "\"0.229,0.224,0.225\" (with mean)", NULL, PLAYING_FLAGS));
  g_object_class_install_property (gobject_class, PROP_SCALE,
      g_param_spec_double ("scale", "Scale",
          "out = pixel * scale + offset, pixel in 0-255 (without mean/std)",
          -G_MAXFLOAT, G_MAXFLOAT, DEFAULT_SCALE,
          PLAYING_FLAGS | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_OFFSET,
      g_param_spec_double ("offset", "Offset",
          "See scale", -G_MAXFLOAT, G_MAXFLOAT, DEFAULT_OFFSET,
          PLAYING_FLAGS | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_MAX_ROIS,
      g_param_spec_uint ("max-rois", "Max ROIs",
          "Batch size N: at most this many region-of-interest metas per frame "
          "become tensor items", 1, GCG_FRAME_CHAIN_MAX_ROIS,
          DEFAULT_MAX_ROIS, READY_FLAGS));
  g_object_class_install_property (gobject_class, PROP_ROI_TYPE,
      g_param_spec_string ("roi-type", "ROI type",
          "Only region-of-interest metas of this type (NULL = all)", NULL,
          PLAYING_FLAGS));
  g_object_class_install_property (gobject_class, PROP_LETTERBOX,
      g_param_spec_enum ("letterbox", "Letterbox",
          "Keep the aspect ratio and pad (symmetric or top-left), or stretch",
          GCG_TYPE_LETTERBOX, DEFAULT_LETTERBOX, READY_FLAGS));
  g_object_class_install_property (gobject_class, PROP_PAD_VALUE,
      g_param_spec_double ("pad-value", "Pad value",
          "Value of padding, as the final tensor value", -G_MAXFLOAT,
          G_MAXFLOAT, DEFAULT_PAD_VALUE,
          PLAYING_FLAGS | GST_PARAM_CONTROLLABLE));
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "Resampling method",
          GCG_TYPE_RESIZE_METHOD, DEFAULT_METHOD, READY_FLAGS));
  g_object_class_install_property (gobject_class, PROP_MODEL_INFO,
      g_param_spec_string ("model-info", "Model info",
          "Path of a GStreamer .modelinfo file: its input tensor sets width, "
          "height, layout, tensor-type, channels, max-rois (a fixed batch) "
          "and mean/std (from ranges); properties set after it override "
          "those", NULL, READY_FLAGS));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA graph inference preprocessor",
      "Filter/Converter/Video/Tensor/Hardware",
      "Crops, resizes, converts and normalises video (or its regions of "
      "interest) into a batched tensor with a CUDA graph replayed per frame",
      "gst-cudagraph authors");

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_transform_caps);
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_start);
  base_class->configure =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_configure);
  base_class->get_caps_size =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_get_caps_size);
  base_class->fill_params =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_fill_params);
  base_class->decorate = GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_decorate);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_graph_preprocess_debug,
      "cudagraphpreprocess", 0, "cudagraphpreprocess");
  gst_type_mark_as_plugin_api (GCG_TYPE_TENSOR_LAYOUT, 0);
  gst_type_mark_as_plugin_api (GCG_TYPE_TENSOR_TYPE, 0);
  gst_type_mark_as_plugin_api (GCG_TYPE_TENSOR_CHANNELS, 0);
}

static void
gst_cuda_graph_preprocess_init (GstCudaGraphPreprocess * self)
{
  self->width = DEFAULT_WIDTH;
  self->height = DEFAULT_HEIGHT;
  self->layout = DEFAULT_LAYOUT;
  self->tensor_type = DEFAULT_TENSOR_TYPE;
  self->channels = DEFAULT_CHANNELS;
  self->scale = DEFAULT_SCALE;
  self->offset = DEFAULT_OFFSET;
  self->max_rois = DEFAULT_MAX_ROIS;
  self->letterbox = DEFAULT_LETTERBOX;
  self->pad_value = DEFAULT_PAD_VALUE;
  self->method = DEFAULT_METHOD;
}

/* Parses "a,b,c" (or one value for every channel) into @out; FALSE, with
 * @out unchanged, for anything else: a wrong count, an empty field, text
 * that is not a number (white space around one is fine), or a value that
 * is not finite as a float. */
static gboolean
parse_triple (const gchar * str, gfloat * out)
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
parse_mean_std (const gchar * mean_str, const gchar * std_str,
    gfloat * mean, gfloat * std)
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

/* Sets the mean (@field is &self->mean_str) or std string to @value when,
 * with the other one, it gives usable numbers; otherwise warns and keeps
 * the old string and numbers, so that reading the property back tells
 * what is used.  NULL for both goes back to scale/offset.  Called with
 * the object lock held. */
static void
set_mean_std (GstCudaGraphPreprocess * self, gchar ** field,
    const GValue * value, GParamSpec * pspec)
{
  const gchar *str = g_value_get_string (value);
  const gchar *mean_str = field == &self->mean_str ? str : self->mean_str;
  const gchar *std_str = field == &self->std_str ? str : self->std_str;
  gfloat mean[3], std[3];

  if (mean_str != NULL || std_str != NULL) {
    if (!parse_mean_std (mean_str, std_str, mean, std)) {
      GST_WARNING_OBJECT (self, "refusing %s=\"%s\" (with mean \"%s\", "
          "std \"%s\"): not 1 or 3 numbers, or a std that makes the scale or "
          "offset infinite; keeping \"%s\"", g_param_spec_get_name (pspec),
          GST_STR_NULL (str), GST_STR_NULL (mean_str),
          GST_STR_NULL (std_str), GST_STR_NULL (*field));
      return;
    }
    memcpy (self->mean, mean, sizeof (mean));
    memcpy (self->std, std, sizeof (std));
  }
  self->use_mean_std = mean_str != NULL || std_str != NULL;
  g_free (*field);
  *field = g_strdup (str);
}

static gchar *
format_triple (const gfloat * v)
{
  gchar b[3][G_ASCII_DTOSTR_BUF_SIZE];

  for (guint i = 0; i < 3; i++)
    g_ascii_dtostr (b[i], sizeof (b[i]), v[i]);
  return g_strjoin (",", b[0], b[1], b[2], NULL);
}

/* Sets the properties the model description at @value's path gives; a
 * file that cannot be used leaves them as they were and is an error at
 * start (a property cannot fail).  Called with the object lock held. */
static void
set_model_info (GstCudaGraphPreprocess * self, const GValue * value)
{
  GstCudaGraphModelInfo info = { 0 };

  g_free (self->model_info);
  self->model_info = g_value_dup_string (value);
  g_clear_error (&self->model_info_error);
  if (self->model_info == NULL)
    return;
  if (!gst_cuda_graph_model_info_load (self->model_info, &info,
          &self->model_info_error)) {
    GST_WARNING_OBJECT (self, "%s", self->model_info_error->message);
    return;
  }
  self->width = info.width;
  self->height = info.height;
  self->layout = info.layout;
  self->tensor_type = info.type;
  self->channels = info.channels;
  if (info.batch > 0)
    self->max_rois = info.batch;
  memcpy (self->mean, info.mean, sizeof (info.mean));
  memcpy (self->std, info.std, sizeof (info.std));
  self->use_mean_std = TRUE;
  g_free (self->mean_str);
  g_free (self->std_str);
  self->mean_str = format_triple (info.mean);
  self->std_str = format_triple (info.std);
  GST_INFO_OBJECT (self, "model-info %s, tensor [%s]: %ux%u, batch %u",
      self->model_info, info.tensor_name, info.width, info.height,
      self->max_rois);
  gst_cuda_graph_model_info_clear (&info);
}

static void
set_finite (GstCudaGraphPreprocess * self, gfloat * field,
    const GValue * value, GParamSpec * pspec)
{
  gdouble v = g_value_get_double (value);

  if (!isfinite (v)) {
    GST_WARNING_OBJECT (self, "refusing %s=%f, keeping %f",
        g_param_spec_get_name (pspec), v, *field);
    return;
  }
  *field = (gfloat) v;
}

static void
gst_cuda_graph_preprocess_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_WIDTH:
      self->width = g_value_get_uint (value);
      break;
    case PROP_HEIGHT:
      self->height = g_value_get_uint (value);
      break;
    case PROP_LAYOUT:
      self->layout = g_value_get_enum (value);
      break;
    case PROP_TENSOR_TYPE:
      self->tensor_type = g_value_get_enum (value);
      break;
    case PROP_CHANNELS:
      self->channels = g_value_get_enum (value);
      break;
    case PROP_MEAN:
      set_mean_std (self, &self->mean_str, value, pspec);
      break;
    case PROP_STD:
      set_mean_std (self, &self->std_str, value, pspec);
      break;
    case PROP_SCALE:
      set_finite (self, &self->scale, value, pspec);
      break;
    case PROP_OFFSET:
      set_finite (self, &self->offset, value, pspec);
      break;
    case PROP_MAX_ROIS:
      self->max_rois = g_value_get_uint (value);
      break;
    case PROP_ROI_TYPE:
      g_free (self->roi_type);
      self->roi_type = g_value_dup_string (value);
      break;
    case PROP_LETTERBOX:
      self->letterbox = g_value_get_enum (value);
      break;
    case PROP_PAD_VALUE:
      set_finite (self, &self->pad_value, value, pspec);
      break;
    case PROP_METHOD:
      self->method = g_value_get_enum (value);
      break;
    case PROP_MODEL_INFO:
      set_model_info (self, value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_graph_preprocess_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_WIDTH:
      g_value_set_uint (value, self->width);
      break;
    case PROP_HEIGHT:
      g_value_set_uint (value, self->height);
      break;
    case PROP_LAYOUT:
      g_value_set_enum (value, self->layout);
      break;
    case PROP_TENSOR_TYPE:
      g_value_set_enum (value, self->tensor_type);
      break;
    case PROP_CHANNELS:
      g_value_set_enum (value, self->channels);
      break;
    case PROP_MEAN:
      g_value_set_string (value, self->mean_str);
      break;
    case PROP_STD:
      g_value_set_string (value, self->std_str);
      break;
    case PROP_SCALE:
      g_value_set_double (value, self->scale);
      break;
    case PROP_OFFSET:
      g_value_set_double (value, self->offset);
      break;
    case PROP_MAX_ROIS:
      g_value_set_uint (value, self->max_rois);
      break;
    case PROP_ROI_TYPE:
      g_value_set_string (value, self->roi_type);
      break;
    case PROP_LETTERBOX:
      g_value_set_enum (value, self->letterbox);
      break;
    case PROP_PAD_VALUE:
      g_value_set_double (value, self->pad_value);
      break;
    case PROP_METHOD:
      g_value_set_enum (value, self->method);
      break;
    case PROP_MODEL_INFO:
      g_value_set_string (value, self->model_info);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_graph_preprocess_finalize (GObject * object)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (object);

  g_free (self->mean_str);
  g_free (self->std_str);
  g_free (self->roi_type);
  g_free (self->model_info);
  g_clear_error (&self->model_info_error);

  G_OBJECT_CLASS (gst_cuda_graph_preprocess_parent_class)->finalize (object);
}

/* A model-info file that could not be used stops the element here, with
 * the reason as the error message. */
static gboolean
gst_cuda_graph_preprocess_start (GstBaseTransform * trans)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (trans);
  GError *error = NULL;

  GST_OBJECT_LOCK (self);
  if (self->model_info_error)
    error = g_error_copy (self->model_info_error);
  GST_OBJECT_UNLOCK (self);
  if (error) {
    gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR,
        error->domain, error->code, g_strdup (error->message),
        g_strdup ("set model-info to a file describing a fixed-size "
            "float32, float16 or uint8 image tensor"), __FILE__,
        GST_FUNCTION, __LINE__);
    g_error_free (error);
    return FALSE;
  }
  return GST_BASE_TRANSFORM_CLASS
      (gst_cuda_graph_preprocess_parent_class)->start (trans);
}

/* --- caps ---------------------------------------------------------------- */

static const gchar *
tensor_type_name (GcgTensorType type)
{
  switch (type) {
    case GCG_TENSOR_TYPE_FLOAT16:
      return "float16";
    case GCG_TENSOR_TYPE_UINT8:
      return "uint8";
    case GCG_TENSOR_TYPE_FLOAT32:
    default:
      return "float32";
  }
}

static gboolean
tensor_type_from_name (const gchar * name, GcgTensorType * type, gsize * size)
{
  if (g_strcmp0 (name, "float32") == 0) {
    *type = GCG_TENSOR_TYPE_FLOAT32;
    *size = 4;
  } else if (g_strcmp0 (name, "float16") == 0) {
    *type = GCG_TENSOR_TYPE_FLOAT16;
    *size = 2;
  } else if (g_strcmp0 (name, "uint8") == 0) {
    *type = GCG_TENSOR_TYPE_UINT8;
    *size = 1;
  } else {
    return FALSE;
  }
  return TRUE;
}

/* NNStreamer's dimension string, innermost dimension first. */
static gchar *
dimensions_string (GcgTensorLayout layout, guint c, guint w, guint h, guint n)
{
  if (layout == GCG_TENSOR_LAYOUT_NHWC)
    return g_strdup_printf ("%u:%u:%u:%u", c, w, h, n);
  return g_strdup_printf ("%u:%u:%u:%u", w, h, c, n);
}

/* The tensor the properties describe, with @framerate (may be NULL). */
static GstStructure *
make_tensor_structure (GstCudaGraphPreprocess * self, const GValue * framerate)
{
  g_autofree gchar *dims = NULL;
  GstStructure *s;

  GST_OBJECT_LOCK (self);
  dims = dimensions_string (self->layout,
      self->channels == GCG_TENSOR_CHANNELS_GRAY ? 1 : 3, self->width,
      self->height, self->max_rois);
  s = gst_structure_new ("other/tensors",
      "format", G_TYPE_STRING, "static",
      "num_tensors", G_TYPE_INT, 1,
      "dimensions", G_TYPE_STRING, dims,
      "types", G_TYPE_STRING, tensor_type_name (self->tensor_type), NULL);
  GST_OBJECT_UNLOCK (self);
  if (framerate)
    gst_structure_set_value (s, "framerate", framerate);
  else
    gst_structure_set (s, "framerate", GST_TYPE_FRACTION_RANGE, 0, 1,
        G_MAXINT, 1, NULL);
  return s;
}

/* Video of any size and supported format, with @framerate (may be NULL). */
static GstCaps *
make_video_caps (const GValue * framerate)
{
  GstCaps *caps = gst_static_pad_template_get_caps (&sink_template);
  guint i;

  if (framerate == NULL)
    return caps;
  caps = gst_caps_make_writable (caps);
  for (i = 0; i < gst_caps_get_size (caps); i++)
    gst_structure_set_value (gst_caps_get_structure (caps, i), "framerate",
        framerate);
  return caps;
}

static GstCaps *
gst_cuda_graph_preprocess_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (trans);
  GstCaps *result = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GValue *fr = gst_structure_get_value (gst_caps_get_structure (caps,
            i), "framerate");
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    /* The tensor stays in the input's memory kind when downstream takes
     * it (CUDA in, CUDA out: no round trip over the bus). */
    if (direction == GST_PAD_SINK)
      result = gst_caps_merge_structure_full (result,
          make_tensor_structure (self, fr), f && !gst_caps_features_is_any (f)
          ? gst_caps_features_copy (f) : NULL);
    else
      result = gst_caps_merge (result, make_video_caps (fr));
  }
  if (direction == GST_PAD_SINK) {
    result = gst_cuda_graph_caps_add_memory_kinds (result);
    if (!gst_cuda_graph_base_transform_can_output_cuda_memory
        (GST_CUDA_GRAPH_BASE_TRANSFORM (trans)))
      result = gst_cuda_graph_caps_remove_cuda_memory (result);
  } else {
    result = gst_cuda_graph_base_transform_order_input_caps
        (GST_CUDA_GRAPH_BASE_TRANSFORM (trans), result);
  }
  if (filter) {
    GstCaps *tmp = gst_cuda_graph_caps_filter (result, filter, direction);

    gst_caps_unref (result);
    result = tmp;
  }
  GST_DEBUG_OBJECT (trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps,
      result);
  return result;
}

/* Reads "d0:d1:d2:d3" and the type of tensor caps. */
static gboolean
parse_tensor_caps (GstCaps * caps, guint dims[4], GcgTensorType * type,
    gsize * type_size)
{
  const GstStructure *s;
  g_auto (GStrv) parts = NULL;
  guint i;

  if (caps == NULL || gst_caps_get_size (caps) < 1)
    return FALSE;
  s = gst_caps_get_structure (caps, 0);
  if (!gst_structure_has_name (s, "other/tensors")
      || !gst_structure_get_string (s, "dimensions")
      || !tensor_type_from_name (gst_structure_get_string (s, "types"), type,
          type_size))
    return FALSE;
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

static gboolean
gst_cuda_graph_preprocess_get_caps_size (GstCudaGraphBaseTransform * base,
    GstCaps * caps, gsize * size)
{
  GcgTensorType type;
  gsize type_size;
  guint dims[4];

  if (!parse_tensor_caps (caps, dims, &type, &type_size))
    return FALSE;
  /* Caps from downstream may say anything: catch gsize overflow. */
  *size = type_size;
  for (guint i = 0; i < 4; i++) {
    if (!g_size_checked_mul (size, *size, dims[i]))
      return FALSE;
  }
  return TRUE;
}

static gboolean
gst_cuda_graph_preprocess_configure (GstCudaGraphBaseTransform * base,
    const GstVideoInfo * in_info, GstCaps * outcaps,
    GcgFrameChainConfig * config)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (base);
  GcgTensorType type;
  gsize type_size;
  guint dims[4];

  if (!parse_tensor_caps (outcaps, dims, &type, &type_size)) {
    GST_ERROR_OBJECT (self, "unsupported output caps %" GST_PTR_FORMAT,
        outcaps);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  config->output = GCG_OUTPUT_KIND_TENSOR;
  config->tensor_layout = self->layout;
  config->tensor_channels = self->channels;
  config->resize = self->method;
  config->letterbox = self->letterbox;
  GST_OBJECT_UNLOCK (self);
  config->tensor_type = type;
  /* NCHW: W:H:C:N; NHWC: C:W:H:N. */
  if (config->tensor_layout == GCG_TENSOR_LAYOUT_NHWC) {
    config->out_width = dims[1];
    config->out_height = dims[2];
  } else {
    config->out_width = dims[0];
    config->out_height = dims[1];
  }
  config->max_rois = dims[3];
  return TRUE;
}

/* --- per frame ----------------------------------------------------------- */

/* One item per matching ROI meta, in buffer order, up to the batch size;
 * ROIs outside the frame are skipped with a warning.  No ROI: the whole
 * frame once (n_rois = 0). */
static void
collect_rois (GstCudaGraphPreprocess * self, GstBuffer * inbuf,
    const gchar * roi_type, guint max_rois, GcgFrameParams * params)
{
  const GstVideoInfo *info =
      gst_cuda_graph_base_transform_get_in_info (GST_CUDA_GRAPH_BASE_TRANSFORM
      (self));
  GstVideoRegionOfInterestMeta *meta;
  gpointer state = NULL;
  guint n = 0;

  while ((meta = (GstVideoRegionOfInterestMeta *)
          gst_buffer_iterate_meta_filtered (inbuf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) && n < max_rois) {
    GcgRect r = { meta->x, meta->y, meta->w, meta->h };

    /* By name: a type never used has no quark, and the 0 quark is
     * the type of ROIs that have none. */
    if (roi_type && g_strcmp0 (g_quark_to_string (meta->roi_type),
            roi_type) != 0)
      continue;
    if (!gst_cuda_graph_clip_rect (&r, GST_VIDEO_INFO_WIDTH (info),
            GST_VIDEO_INFO_HEIGHT (info))) {
      GST_WARNING_OBJECT (self, "skipping ROI %d (%u,%u %ux%u) outside the "
          "frame", meta->id, meta->x, meta->y, meta->w, meta->h);
      continue;
    }
    params->rois[n] = r;
    self->item_ids[n] = meta->id;
    n++;
  }
  params->n_rois = n;
  self->n_items = MAX (n, 1);
  if (n == 0) {
    params->rois[0] = (GcgRect) {
    0, 0, GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info)};
    self->item_ids[0] = -1;
  }
}

static void
gst_cuda_graph_preprocess_fill_params (GstCudaGraphBaseTransform * base,
    GstBuffer * inbuf, GcgFrameParams * params)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (base);
  g_autofree gchar *roi_type = NULL;
  guint max_rois, c;

  max_rois = gst_cuda_graph_base_transform_get_config (base)->max_rois;
  GST_OBJECT_LOCK (self);
  if (self->use_mean_std) {
    gcg_frame_params_set_mean_std (params, self->mean, self->std);
  } else {
    for (c = 0; c < 3; c++) {
      params->scale[c] = self->scale;
      params->offset[c] = self->offset;
    }
  }
  for (c = 0; c < 4; c++)
    params->pad[c] = self->pad_value;
  roi_type = g_strdup (self->roi_type);
  GST_OBJECT_UNLOCK (self);

  gst_cuda_graph_apply_params_meta (base, inbuf, params);
  collect_rois (self, inbuf, roi_type, max_rois, params);
}

/* The fit of docs/frame-chain.md, step 2, for the tensor meta. */
static void
fit_item (const GcgFrameChainConfig * config, const GcgRect * r,
    GcgTensorMetaItem * item)
{
  gint ow = config->out_width, oh = config->out_height;
  gint sw = ow, sh = oh;

  if (config->letterbox != GCG_LETTERBOX_NONE) {
    gfloat s = MIN ((gfloat) ow / r->width, (gfloat) oh / r->height);

    sw = CLAMP ((gint) roundf (r->width * s), 1, ow);
    sh = CLAMP ((gint) roundf (r->height * s), 1, oh);
    if (config->letterbox == GCG_LETTERBOX_SYMMETRIC) {
      item->pad_x = (ow - sw) / 2;
      item->pad_y = (oh - sh) / 2;
    }
  }
  item->roi_x = r->x;
  item->roi_y = r->y;
  item->roi_width = r->width;
  item->roi_height = r->height;
  item->scale_x = (gfloat) sw / r->width;
  item->scale_y = (gfloat) sh / r->height;
}

/* Where the tensor is and its shape, outermost dimension first.  Items
 * past the frame's ROIs were zeroed by the frame queue, on the device. */
static void
describe_location (GstCudaGraphBaseTransform * base, GcgTensorMeta * meta,
    const GcgFrameChainConfig * config)
{
  guint64 c = config->tensor_channels == GCG_TENSOR_CHANNELS_GRAY ? 1 : 3;
  GcgStream *stream = NULL;
  gboolean nchw = config->tensor_layout == GCG_TENSOR_LAYOUT_NCHW;

  meta->n_dims = 4;
  meta->shape[0] = config->max_rois;
  meta->shape[1] = nchw ? c : config->out_height;
  meta->shape[2] = nchw ? config->out_height : config->out_width;
  meta->shape[3] = nchw ? config->out_width : c;
  meta->size = gcg_frame_chain_config_get_output_size (config);
  meta->memory = GCG_TENSOR_MEMORY_SYSTEM;
  if (!gst_cuda_graph_base_transform_get_output_location (base, &meta->data,
          &meta->device_id, &stream))
    return;
  meta->memory = GCG_TENSOR_MEMORY_CUDA;
  meta->stream = gcg_stream_get_handle (stream);
  meta->stream_owner = G_OBJECT (g_object_ref (stream));
}

#ifdef HAVE_GST_ANALYTICS
/* GStreamer 1.26's own description of the same tensor, for its analytics
 * elements: the data is a buffer sharing @outbuf's memory. */
static void
add_gst_tensor_meta (GstBuffer * outbuf, const GcgTensorMeta * meta)
{
  static const GstTensorDataType types[] = { GST_TENSOR_DATA_TYPE_FLOAT32,
    GST_TENSOR_DATA_TYPE_FLOAT16, GST_TENSOR_DATA_TYPE_UINT8
  };
  gsize dims[4];
  GstBuffer *data;
  GstTensor **tensors;
  GstTensorMeta *tmeta;

  data = gst_buffer_copy_region (outbuf, GST_BUFFER_COPY_MEMORY, 0,
      meta->size);
  if (data == NULL || meta->type >= G_N_ELEMENTS (types))
    return;
  for (guint i = 0; i < 4; i++)
    dims[i] = meta->shape[i];
  tensors = g_new (GstTensor *, 1);
  tensors[0] = gst_tensor_new_simple (g_quark_from_static_string
      ("cudagraphpreprocess"), types[meta->type], data,
      GST_TENSOR_DIM_ORDER_ROW_MAJOR, 4, dims);
  tmeta = gst_buffer_add_tensor_meta (outbuf);
  gst_tensor_meta_set (tmeta, 1, tensors);
}
#endif

static void
gst_cuda_graph_preprocess_decorate (GstCudaGraphBaseTransform * base,
    GstBuffer * outbuf, const GcgFrameParams * params)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (base);
  const GcgFrameChainConfig *config =
      gst_cuda_graph_base_transform_get_config (base);
  GcgTensorMeta *meta;
  guint i;

  meta = gcg_buffer_add_tensor_meta (outbuf);
  describe_location (base, meta, config);
  meta->layout = config->tensor_layout;
  meta->type = config->tensor_type;
  meta->channels = config->tensor_channels;
  meta->width = config->out_width;
  meta->height = config->out_height;
  meta->batch = config->max_rois;
  meta->n_items = self->n_items;
  for (i = 0; i < self->n_items; i++) {
    fit_item (config, &params->rois[i], &meta->items[i]);
    meta->items[i].roi_id = self->item_ids[i];
  }
#ifdef HAVE_GST_ANALYTICS
  add_gst_tensor_meta (outbuf, meta);
#endif
}
