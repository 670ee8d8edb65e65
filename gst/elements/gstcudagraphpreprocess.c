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
 * frame without ROIs gives one item made of its crop.  Items without a
 * ROI are zero.
 *
 * The crop (since 0.3: #GstCudaGraphPreprocess:crop-x, crop-y,
 * crop-width, crop-height) is a rectangle of the visible frame (the
 * buffer's #GstVideoCropMeta region, or the whole frame without one),
 * crop-x and crop-y from its top left corner, a 0 width or height
 * reaching to its edge, clipped to it: the whole visible frame by
 * default.  It means the same as on cudagraphconvert and each
 * cudagraphbatch sink pad (gstcudagraphcrop.h).
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
 * warning on the terminal and, in a pipeline, a warning message on the
 * bus: the previous value stays in use, and is what the property reads
 * back.  The default scale follows #GstCudaGraphPreprocess:tensor-type
 * (1/255 for the float types, 1 for uint8) until one is set; with mean/std
 * in effect, scale and offset read back the first channel's values.
 *
 * Downstream's caps choose the tensor fields no property (nor model-info)
 * set: width, height, batch and type come from a fixed `dimensions` and
 * `types` downstream, as video caps drive videoconvertscale; what it
 * leaves open takes the properties' values, and the properties read back
 * what was negotiated.  A field a property set that downstream's caps
 * contradict fails with an error naming the property.
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
 * nothing, is warned of when set and fails the element at start with a
 * message that names the problem.  Properties set after model-info override its values.
 *
 * #GstCudaGraphPreprocess:roi-type matches a ROI's type by name.  A
 * ROI's coordinates are the frame's (a #GstVideoCropMeta does not move
 * them), as on every element; each ROI is clipped to the crop, and ROIs
 * that do not intersect it are skipped (a warning in the debug log).  A
 * crop that selects nothing (or a crop meta with nothing inside the
 * frame) is refused: the whole visible frame is used, with a warning
 * message on the bus once per change.  The whole tensor, N items, may be at most
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
 * Every output buffer carries a #GstCudaGraphTensorMeta (gstcudagraphtensormeta.h)
 * with where the tensor is (device pointer, size, shape, stream) and each
 * item's region, scale and padding, to map detections back to the frame;
 * built against GStreamer 1.26 or newer, also a `GstTensorMeta`.
 *
 * #GstCudaGraphPreprocess:model attaches the user's model (a
 * #GcgModelGraph: a CUDA graph with its static input and outputs, e.g.
 * PyTorch's, from `gcg.torch.attach()`): the element's kernel writes the
 * tensor straight into the model's input, the model's graph runs as a
 * child graph node of the same replay, and a copy kernel moves its outputs
 * into the output buffer: preprocess, model and copy-out are one graph
 * launch per frame, with no Python and no host work in between.  The
 * model's input (N×C×H×W or N×H×W×C, C 1 or 3, float32, float16 or
 * uint8) sets width, height, layout, tensor-type and max-rois.  The output
 * caps then list the model's outputs (`num_tensors`, `dimensions`,
 * `types`), packed in one buffer, each at a multiple of 256 bytes, with
 * the preprocessed tensor first when
 * #GstCudaGraphPreprocess:model-keep-input is set; the #GstCudaGraphTensorMeta
 * lists them in `tensors` (offset, size, type, shape) and still describes
 * the preprocessed items.  The model must live in the device's primary
 * context (PyTorch's): the element offers that context to the pipeline
 * when it goes to READY, so a decoder opening after it shares it; a model
 * in another context fails the first frame with an error naming both.  A
 * model needs the CUDA backend.
 *
 * #GstCudaGraphPreprocess:postprocess (with a model) turns the model's
 * output into results on each frame in the same replay: `classify`
 * (#GstCudaGraphPreprocess:top-k classes per item, after a softmax unless
 * #GstCudaGraphPreprocess:softmax is off), `detect` (candidates above
 * #GstCudaGraphPreprocess:score-threshold, class-aware non-maximum
 * suppression at #GstCudaGraphPreprocess:iou-threshold, at most
 * #GstCudaGraphPreprocess:max-detections per item, boxes in source-frame
 * pixels) or `user`.  #GstCudaGraphPreprocess:labels-location names the
 * classes, one per line; it is read at start (a regular UTF-8 file of at
 * most 1 MiB and 65536 lines, read without blocking) and must have
 * #GstCudaGraphPreprocess:num-classes lines when that is set: otherwise
 * the element fails to start with an error naming the file.  Each output
 * buffer then carries a #GstCudaGraphResultsMeta, and built against
 * GStreamer 1.24 or newer with its analytics library, a
 * `GstAnalyticsRelationMeta` with the same results (one
 * `GstAnalyticsODMtd` per detection, one `GstAnalyticsClsMtd` per
 * classified item, each ROI's region related to them).  The replay writes
 * the results into the frame's own pinned results area, so with a
 * postprocess each output buffer is held until its frame is done, then
 * leaves with its results, in order: up to
 * #GstCudaGraphBaseTransform:in-flight frames stay queued on the GPU,
 * and an output leaves at the earliest when the next input (or EOS, or
 * another serialized event) arrives: about a frame interval of latency
 * for a live source.  Without a postprocess buffers leave at once.
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
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! qtdemux ! h264parse ! nvh264dec ! cudagraphpreprocess width=640 height=640 letterbox=symmetric postprocess=detect score-threshold=0.3 labels-location=coco.txt ! appsink name=sink
 * ]| Detections on each frame, once an application has attached its
 * detector with `gcg.torch.attach()` (a model cannot be named on a launch
 * line): read them with `gcg.results.from_buffer()` or, on GStreamer 1.24
 * and newer, from the `GstAnalyticsRelationMeta`.
 *
 * Since: 0.1
 */

#include "basetransform/gstcudagraphbasetransform.h"
#include "buffers/gstcudagraphcrop.h"
#include "props/gstcudagraphcropprops.h"
#include "memory/gstcudagraphcudainterop.h"
#include "gstcudagraphelements.h"
#include "props/gstcudagraphmodel.h"
#include "gstcudagraphmodelinfo.h"
#include <gcg/gcg-gst.h>
#include "props/gstcudagraphpostprocess.h"
#include "props/gstcudagraphrefuse.h"
#include "buffers/gstcudagraphrois.h"
#include "buffers/gstcudagraphtensordescribe.h"
#include "props/gstcudagraphtensorprops.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_graph_preprocess_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_preprocess_debug

#define PREPROCESS_FORMATS "{ NV12, I420, RGBA, BGRA, RGB, BGR, GRAY8 }"
static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CUDA_GRAPH_VIDEO_CAPS (PREPROCESS_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_CUDA_GRAPH_TENSOR_SRC_CAPS
        "; " GST_CUDA_GRAPH_MODEL_SRC_CAPS));

enum
{
  PROP_0,
  PROP_MODEL_INFO,
  PROP_MODEL_FIRST,
  PROP_TENSOR_FIRST = PROP_MODEL_FIRST + GST_CUDA_GRAPH_MODEL_N_PROPS,
  PROP_POSTPROCESS_FIRST = PROP_TENSOR_FIRST + GST_CUDA_GRAPH_TENSOR_N_PROPS,
  PROP_CROP_FIRST = PROP_POSTPROCESS_FIRST + GST_CUDA_GRAPH_POSTPROCESS_N_PROPS,
};

struct _GstCudaGraphPreprocess
{
  GstCudaGraphBaseTransform parent;

  /* Properties, under the object lock. */
  GstCudaGraphTensorProps props;
  GcgRect crop;
  gchar *model_info;
  /* Why the model-info file could not be used, reported at start. */
  GError *model_info_error;
  GstCudaGraphModel model;
  GstCudaGraphPostprocess postprocess;

  /* Streaming thread only: where each item of the current frame came
   * from, for the tensor meta (and the results: the ROIs' types). */
  guint n_items;
  gint item_ids[GCG_FRAME_CHAIN_MAX_ROIS];
  GQuark item_types[GCG_FRAME_CHAIN_MAX_ROIS];
  /* A crop that selects nothing, said once per change. */
  GstCudaGraphCropReport crop_report;
  /* The postprocess the current chain ends in, NONE without one (set
   * when the chain is made). */
  GcgPostprocessKind results_kind;
  /* The model's outputs of the current chain (set when it is made). */
  GstCudaGraphModelLayout layout;
};

G_DECLARE_FINAL_TYPE (GstCudaGraphPreprocess, gst_cuda_graph_preprocess, GST,
    CUDA_GRAPH_PREPROCESS, GstCudaGraphBaseTransform)
G_DEFINE_TYPE (GstCudaGraphPreprocess, gst_cuda_graph_preprocess,
    GST_TYPE_CUDA_GRAPH_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudagraphpreprocess,
    "cudagraphpreprocess", GST_RANK_NONE, gst_cuda_graph_preprocess_get_type (),
    gst_cuda_graph_params_meta_register ();
    gst_cuda_graph_tensor_meta_get_info ();
    gst_cuda_graph_results_meta_get_info ());

static void gst_cuda_graph_preprocess_set_property (GObject *object,
    guint prop_id, const GValue *value, GParamSpec *pspec);
static void gst_cuda_graph_preprocess_get_property (GObject *object,
    guint prop_id, GValue *value, GParamSpec *pspec);
static void gst_cuda_graph_preprocess_finalize (GObject *object);
static gboolean gst_cuda_graph_preprocess_start (GstBaseTransform *trans);
static void gst_cuda_graph_preprocess_explain_caps_failure (
    GstCudaGraphBaseTransform *base, GstCaps *downstream);
static GstCaps *gst_cuda_graph_preprocess_fixate_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *othercaps);
static GstCaps *gst_cuda_graph_preprocess_transform_caps (
    GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps,
    GstCaps *filter);
static gboolean gst_cuda_graph_preprocess_configure (
    GstCudaGraphBaseTransform *base, const GstVideoInfo *in_info,
    GstCaps *outcaps, GcgFrameChainConfig *config);
static gboolean gst_cuda_graph_preprocess_get_caps_size (
    GstCudaGraphBaseTransform *base, GstCaps *caps, gsize *size);
static void gst_cuda_graph_preprocess_fill_params (
    GstCudaGraphBaseTransform *base, GstBuffer *inbuf, GcgFrameParams *params);
static void gst_cuda_graph_preprocess_decorate (GstCudaGraphBaseTransform *base,
    GstBuffer *outbuf, const GcgFrameParams *params,
    const GstCudaGraphOutputLocation *location);
static gboolean gst_cuda_graph_preprocess_attach (
    GstCudaGraphBaseTransform *base, GcgFrameBatch *chain, GError **error);
static guint gst_cuda_graph_preprocess_describe_items (
    GstCudaGraphBaseTransform *base, const GcgFrameParams *params,
    GstCudaGraphResultsItem *items);
static void gst_cuda_graph_preprocess_add_results (
    GstCudaGraphBaseTransform *base, GstBuffer *outbuf, gconstpointer area,
    gsize size, const GstCudaGraphResultsItem *items, guint n_items);
static GstStateChangeReturn gst_cuda_graph_preprocess_change_state (
    GstElement *element, GstStateChange transition);

#define READY_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)

static void
gst_cuda_graph_preprocess_class_init (GstCudaGraphPreprocessClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaGraphBaseTransformClass *base_class =
      GST_CUDA_GRAPH_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cuda_graph_preprocess_set_property;
  gobject_class->get_property = gst_cuda_graph_preprocess_get_property;
  gobject_class->finalize = gst_cuda_graph_preprocess_finalize;

  gst_cuda_graph_tensor_props_install (gobject_class, PROP_TENSOR_FIRST);
  g_object_class_install_property (gobject_class, PROP_MODEL_INFO,
      g_param_spec_string ("model-info", "Model info",
          "Path of a GStreamer .modelinfo file: its input tensor sets width, "
          "height, layout, tensor-type, channels, max-rois (a fixed batch) "
          "and mean/std (from ranges); properties set after it override "
          "those",
          NULL, READY_FLAGS));
  gst_cuda_graph_model_install (gobject_class, PROP_MODEL_FIRST);
  gst_cuda_graph_postprocess_install (gobject_class, PROP_POSTPROCESS_FIRST);
  /**
   * GstCudaGraphPreprocess:crop-x:
   *
   * With crop-y, crop-width and crop-height: the rectangle of the visible
   * frame a frame's item is made of, as on cudagraphconvert and each
   * cudagraphbatch sink pad.
   *
   * Since: 0.3
   */
  gst_cuda_graph_crop_props_install (gobject_class, PROP_CROP_FIRST);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA graph inference preprocessor",
      "Filter/Converter/Video/Tensor/Hardware",
      "Crops, resizes, converts and normalises video (or its regions of "
      "interest) into a batched tensor with a CUDA graph replayed per frame",
      "gst-cudagraph authors");

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_change_state);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_transform_caps);
  trans_class->fixate_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_fixate_caps);
  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_start);
  base_class->configure =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_configure);
  base_class->get_caps_size =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_get_caps_size);
  base_class->fill_params =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_fill_params);
  base_class->decorate = GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_decorate);
  base_class->attach = GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_attach);
  base_class->describe_items =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_describe_items);
  base_class->add_results =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_add_results);
  base_class->explain_caps_failure =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_preprocess_explain_caps_failure);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_graph_preprocess_debug,
      "cudagraphpreprocess", 0, "cudagraphpreprocess");
}

static void
gst_cuda_graph_preprocess_init (GstCudaGraphPreprocess *self)
{
  gst_cuda_graph_tensor_props_init (&self->props);
  gst_cuda_graph_postprocess_init (&self->postprocess);
  self->model.sets_batch = TRUE;
}

static gchar *
format_triple (const gfloat *v)
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
set_model_info (GstCudaGraphPreprocess *self, const GValue *value,
    gchar **refusal)
{
  GstCudaGraphModelInfo info = { 0 };

  g_free (self->model_info);
  self->model_info = g_value_dup_string (value);
  g_clear_error (&self->model_info_error);
  if (self->model_info == NULL)
    return;
  if (!gst_cuda_graph_model_info_load (self->model_info, &info,
          &self->model_info_error)) {
    gst_cuda_graph_refusal_note (refusal,
        "%s; the element will not "
        "start",
        self->model_info_error->message);
    return;
  }
  self->props.open &= ~(GST_CUDA_GRAPH_TENSOR_OPEN_WIDTH
      | GST_CUDA_GRAPH_TENSOR_OPEN_HEIGHT | GST_CUDA_GRAPH_TENSOR_OPEN_TYPE);
  if (info.batch > 0)
    self->props.open &= ~GST_CUDA_GRAPH_TENSOR_OPEN_BATCH;
  self->props.width = info.width;
  self->props.height = info.height;
  self->props.layout = info.layout;
  self->props.tensor_type = info.type;
  self->props.channels = info.channels;
  if (info.batch > 0)
    self->props.max_rois = info.batch;
  memcpy (self->props.mean, info.mean, sizeof (info.mean));
  memcpy (self->props.std, info.std, sizeof (info.std));
  self->props.use_mean_std = TRUE;
  g_free (self->props.mean_str);
  g_free (self->props.std_str);
  self->props.mean_str = format_triple (info.mean);
  self->props.std_str = format_triple (info.std);
  GST_INFO_OBJECT (self, "model-info %s, tensor [%s]: %ux%u, batch %u",
      self->model_info, info.tensor_name, info.width, info.height,
      self->props.max_rois);
  gst_cuda_graph_model_info_clear (&info);
}

static void
gst_cuda_graph_preprocess_set_property (GObject *object, guint prop_id,
    const GValue *value, GParamSpec *pspec)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (object);
  g_autofree gchar *refusal = NULL;
  gboolean known = TRUE;

  GST_OBJECT_LOCK (self);
  if (prop_id == PROP_MODEL_INFO)
    set_model_info (self, value, &refusal);
  else if (!gst_cuda_graph_model_set (&self->model, PROP_MODEL_FIRST, prop_id,
               value, &self->props, &refusal)
      && !gst_cuda_graph_postprocess_set (&self->postprocess,
          PROP_POSTPROCESS_FIRST, prop_id, value, &refusal)
      && !gst_cuda_graph_crop_props_set (&self->crop, PROP_CROP_FIRST, prop_id,
          value))
    known = gst_cuda_graph_tensor_props_set (&self->props, PROP_TENSOR_FIRST,
        prop_id, value, &refusal);
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_refusal_report (object, pspec, &refusal);
  if (!known)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_cuda_graph_preprocess_get_property (GObject *object, guint prop_id,
    GValue *value, GParamSpec *pspec)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (object);
  gboolean known = TRUE;

  GST_OBJECT_LOCK (self);
  if (prop_id == PROP_MODEL_INFO)
    g_value_set_string (value, self->model_info);
  else if (!gst_cuda_graph_model_get (&self->model, PROP_MODEL_FIRST, prop_id,
               value)
      && !gst_cuda_graph_postprocess_get (&self->postprocess,
          PROP_POSTPROCESS_FIRST, prop_id, value)
      && !gst_cuda_graph_crop_props_get (&self->crop, PROP_CROP_FIRST, prop_id,
          value))
    known = gst_cuda_graph_tensor_props_get (&self->props, PROP_TENSOR_FIRST,
        prop_id, value);
  GST_OBJECT_UNLOCK (self);
  if (!known)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_cuda_graph_preprocess_finalize (GObject *object)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (object);

  gst_cuda_graph_tensor_props_clear (&self->props);
  g_free (self->model_info);
  g_clear_error (&self->model_info_error);
  gst_cuda_graph_model_clear (&self->model);
  gst_cuda_graph_postprocess_clear (&self->postprocess);

  G_OBJECT_CLASS (gst_cuda_graph_preprocess_parent_class)->finalize (object);
}

/* With a model, the device's primary context (the model's) goes to the
 * pipeline before the elements upstream open: downstream elements change
 * state first, so a decoder opening next finds and shares it. */
static GstStateChangeReturn
gst_cuda_graph_preprocess_change_state (GstElement *element,
    GstStateChange transition)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (element);
  gint device_id;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    device_id = gst_cuda_graph_model_get_device (&self->model, element);
    if (device_id >= 0)
      gst_cuda_graph_base_transform_offer_primary_context (
          GST_CUDA_GRAPH_BASE_TRANSFORM (self), device_id);
  }
  return GST_ELEMENT_CLASS (gst_cuda_graph_preprocess_parent_class)
      ->change_state (element, transition);
}

static gboolean
has_model (GstElement *element)
{
  return GST_CUDA_GRAPH_PREPROCESS (element)->model.model != NULL;
}

/* A model-info file or a labels file that could not be used stops the
 * element here, with the reason as the error message. */
static gboolean
gst_cuda_graph_preprocess_start (GstBaseTransform *trans)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (trans);
  GError *error = NULL;

  /* Set again when the first chain is made (CUDA backend only). */
  gst_cuda_graph_model_layout_init (&self->layout, NULL, FALSE);
  GST_OBJECT_LOCK (self);
  if (self->model_info_error)
    error = g_error_copy (self->model_info_error);
  GST_OBJECT_UNLOCK (self);
  if (error) {
    gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR,
        error->domain, error->code, g_strdup (error->message),
        g_strdup ("set model-info to a file describing a fixed-size "
                  "float32, float16 or uint8 image tensor"),
        __FILE__, GST_FUNCTION, __LINE__);
    g_error_free (error);
    return FALSE;
  }
  self->results_kind = GCG_POSTPROCESS_NONE;
  if (!gst_cuda_graph_postprocess_start (&self->postprocess,
          GST_ELEMENT (self)))
    return FALSE;
  if (!GST_BASE_TRANSFORM_CLASS (gst_cuda_graph_preprocess_parent_class)
          ->start (trans))
    return FALSE;
  if (gst_cuda_graph_model_check_start (&self->model, GST_ELEMENT (self),
          gst_cuda_graph_base_transform_get_active_backend (
              GST_CUDA_GRAPH_BASE_TRANSFORM (self)))) {
    gst_cuda_graph_postprocess_check_model (&self->postprocess,
        GST_ELEMENT (self), has_model);
    return TRUE;
  }
  GST_BASE_TRANSFORM_CLASS (gst_cuda_graph_preprocess_parent_class)
      ->stop (trans);
  return FALSE;
}

/* --- caps ---------------------------------------------------------------- */

/* The tensor the properties describe, with @framerate (may be NULL); with
 * @open_fields, without the fields no property set (the dimensions when
 * any of width, height, max-rois is open; the type), for downstream to
 * choose (fixate_caps() fills what it leaves). */
static GstStructure *
make_tensor_structure (GstCudaGraphPreprocess *self, const GValue *framerate,
    gboolean open_fields)
{
  GstCudaGraphTensorDesc desc;
  g_autoptr (GcgModelGraph) model = NULL;
  gboolean keep_input = FALSE;
  GstStructure *s;
  guint open;

  GST_OBJECT_LOCK (self);
  if (self->model.model != NULL && self->model.error == NULL) {
    model = g_object_ref (self->model.model);
    keep_input = self->model.keep_input;
  }
  GST_OBJECT_UNLOCK (self);
  if (model != NULL)
    return gst_cuda_graph_model_structure_new (model, keep_input, framerate);

  GST_OBJECT_LOCK (self);
  gst_cuda_graph_tensor_props_get_desc (&self->props, self->props.max_rois,
      &desc);
  open = open_fields ? self->props.open : 0;
  GST_OBJECT_UNLOCK (self);
  s = gst_cuda_graph_tensor_structure_new (&desc, framerate);
  if (open
      & (GST_CUDA_GRAPH_TENSOR_OPEN_WIDTH | GST_CUDA_GRAPH_TENSOR_OPEN_HEIGHT
          | GST_CUDA_GRAPH_TENSOR_OPEN_BATCH))
    gst_structure_remove_field (s, "dimensions");
  if (open & GST_CUDA_GRAPH_TENSOR_OPEN_TYPE)
    gst_structure_remove_field (s, "types");
  return s;
}

/* Downstream takes no tensor of ours (all of width, height, max-rois,
 * tensor-type set, and it asks for others): say which. */
static void
gst_cuda_graph_preprocess_explain_caps_failure (GstCudaGraphBaseTransform *base,
    GstCaps *downstream)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (base);
  g_autoptr (GstStructure) ours = make_tensor_structure (self, NULL, TRUE);
  g_autofree gchar *theirs = NULL;

  for (guint i = 0; i < gst_caps_get_size (downstream); i++) {
    const GstStructure *s = gst_caps_get_structure (downstream, i);

    /* Not a tensor at all: not ours to explain. */
    if (!gst_structure_has_name (s, "other/tensors")
        || gst_structure_can_intersect (s, ours))
      return;
  }
  theirs = gst_caps_to_string (downstream);
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("Downstream asks for a tensor the properties rule out: it takes %s, "
       "the properties give dimensions=%s, types=%s",
          theirs, GST_STR_NULL (gst_structure_get_string (ours, "dimensions")),
          GST_STR_NULL (gst_structure_get_string (ours, "types"))),
      ("leave width, height, max-rois and tensor-type unset to let "
       "downstream choose them"));
}

/* The fields downstream left open (it takes any) get the properties'
 * values; a list it gave, its first. */
static GstCaps *
gst_cuda_graph_preprocess_fixate_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *othercaps)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (trans);
  g_autoptr (GstStructure) ours = NULL;
  GstStructure *s;

  if (direction != GST_PAD_SINK)
    return GST_BASE_TRANSFORM_CLASS (gst_cuda_graph_preprocess_parent_class)
        ->fixate_caps (trans, direction, caps, othercaps);
  othercaps = gst_caps_truncate (gst_caps_make_writable (othercaps));
  s = gst_caps_get_structure (othercaps, 0);
  if (gst_structure_has_name (s, "other/tensors")) {
    static const gchar *fields[] = { "dimensions", "types", "framerate" };
    GstCapsFeatures *f = gst_caps_get_features (othercaps, 0);

    /* Our structure, in our field order, with downstream's choices. */
    ours = make_tensor_structure (self, NULL, FALSE);
    for (guint i = 0; i < G_N_ELEMENTS (fields); i++) {
      if (!gst_structure_has_field (s, fields[i]))
        continue;
      gst_structure_fixate_field (s, fields[i]);
      gst_structure_set_value (ours, fields[i],
          gst_structure_get_value (s, fields[i]));
    }
    f = f ? gst_caps_features_copy (f) : NULL;
    gst_caps_remove_structure (othercaps, 0);
    gst_caps_append_structure_full (othercaps, g_steal_pointer (&ours), f);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_graph_preprocess_parent_class)
      ->fixate_caps (trans, direction, caps, othercaps);
}

/* Video of any size and supported format, with @framerate (may be NULL). */
static GstCaps *
make_video_caps (const GValue *framerate)
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
gst_cuda_graph_preprocess_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (trans);
  GstCaps *result = gst_caps_new_empty ();
  guint i;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GValue *fr =
        gst_structure_get_value (gst_caps_get_structure (caps, i), "framerate");
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    /* The tensor stays in the input's memory kind when downstream takes
     * it (CUDA in, CUDA out: no round trip over the bus). */
    if (direction == GST_PAD_SINK)
      result = gst_caps_merge_structure_full (result,
          make_tensor_structure (self, fr, TRUE),
          f && !gst_caps_features_is_any (f) ? gst_caps_features_copy (f)
                                             : NULL);
    else
      result = gst_caps_merge (result, make_video_caps (fr));
  }
  /* The video caps come in both memory kinds already. */
  if (direction == GST_PAD_SINK)
    result = gst_cuda_graph_caps_add_memory_kinds (result);
  result = gst_cuda_graph_base_transform_restrict_caps (
      GST_CUDA_GRAPH_BASE_TRANSFORM (trans), direction, result, filter);
  GST_DEBUG_OBJECT (trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps,
      result);
  return result;
}

static gboolean
gst_cuda_graph_preprocess_get_caps_size (GstCudaGraphBaseTransform *base,
    GstCaps *caps, gsize *size)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (base);
  gboolean has_model;

  GST_OBJECT_LOCK (self);
  has_model = self->model.model != NULL;
  if (has_model)
    *size = gcg_model_graph_get_packed_size (self->model.model,
        self->model.keep_input);
  GST_OBJECT_UNLOCK (self);
  return has_model || gst_cuda_graph_tensor_caps_get_size (caps, size);
}

/* What a property set rules out in @outcaps (chosen downstream for the
 * fields left open), as a sentence; NULL when nothing. */
static gchar *
shape_conflict (const GstCudaGraphTensorProps *props, GstCaps *outcaps,
    const GcgFrameChainConfig *config)
{
  GcgTensorType type;
  gsize type_size;
  guint dims[4], channels;

  if (!gst_cuda_graph_tensor_caps_parse (outcaps, dims, &type, &type_size))
    return g_strdup ("not a tensor we make");
  channels = props->channels == GCG_TENSOR_CHANNELS_GRAY ? 1 : 3;
  if (dims[props->layout == GCG_TENSOR_LAYOUT_NHWC ? 0 : 2] != channels)
    return g_strdup_printf ("the channel dimension is not %u (channels, "
                            "layout)",
        channels);
  if (!(props->open & GST_CUDA_GRAPH_TENSOR_OPEN_WIDTH)
      && config->out_width != props->width)
    return g_strdup_printf ("width=%u is set", props->width);
  if (!(props->open & GST_CUDA_GRAPH_TENSOR_OPEN_HEIGHT)
      && config->out_height != props->height)
    return g_strdup_printf ("height=%u is set", props->height);
  if (!(props->open & GST_CUDA_GRAPH_TENSOR_OPEN_BATCH)
      && config->max_rois != props->max_rois)
    return g_strdup_printf ("max-rois=%u is set", props->max_rois);
  if (!(props->open & GST_CUDA_GRAPH_TENSOR_OPEN_TYPE)
      && config->tensor_type != props->tensor_type)
    return g_strdup_printf ("tensor-type=%s is set",
        gst_cuda_graph_tensor_type_name (props->tensor_type));
  return NULL;
}

/* Refuses, with an error that says why, output caps that a property set
 * rules out; otherwise stores the values downstream chose for the open
 * fields, so that the properties read back what is in effect (and the
 * default scale follows the negotiated type). */
static gboolean
take_negotiated_shape (GstCudaGraphPreprocess *self, GstCaps *outcaps,
    const GcgFrameChainConfig *config)
{
  g_autofree gchar *conflict = NULL;

  GST_OBJECT_LOCK (self);
  conflict = shape_conflict (&self->props, outcaps, config);
  if (conflict == NULL) {
    self->props.width = config->out_width;
    self->props.height = config->out_height;
    self->props.max_rois = config->max_rois;
    self->props.tensor_type = config->tensor_type;
  }
  GST_OBJECT_UNLOCK (self);
  if (conflict == NULL)
    return TRUE;
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("Downstream asks for a tensor the properties rule out: %s", conflict),
      ("output caps %" GST_PTR_FORMAT "; leave width, height, max-rois and "
       "tensor-type unset to let downstream choose them",
          outcaps));
  return FALSE;
}

/* The tensor properties changed after the model was set may no longer
 * make its input: an error now, naming both, not frames dropped later. */
static gboolean
model_takes_tensor (GstCudaGraphPreprocess *self, GcgModelGraph *model,
    const GcgFrameChainConfig *config)
{
  g_autoptr (GError) error = NULL;

  if (gst_cuda_graph_model_check_input (model, config, &error))
    return TRUE;
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", error->message),
      ("set the tensor properties before model, or leave them to it"));
  return FALSE;
}

static gboolean
gst_cuda_graph_preprocess_configure (GstCudaGraphBaseTransform *base,
    const GstVideoInfo *in_info, GstCaps *outcaps, GcgFrameChainConfig *config)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (base);

  GST_OBJECT_LOCK (self);
  config->output = GCG_OUTPUT_KIND_TENSOR;
  config->tensor_layout = self->props.layout;
  config->tensor_channels = self->props.channels;
  config->resize = self->props.method;
  config->letterbox = self->props.letterbox;
  if (self->model.model != NULL) {
    g_autoptr (GcgModelGraph) model = g_object_ref (self->model.model);

    /* The caps list the model's outputs; the tensor is its input. */
    config->tensor_type = self->props.tensor_type;
    config->out_width = self->props.width;
    config->out_height = self->props.height;
    config->max_rois = self->props.max_rois;
    GST_OBJECT_UNLOCK (self);
    return model_takes_tensor (self, model, config);
  }
  GST_OBJECT_UNLOCK (self);
  if (!gst_cuda_graph_tensor_caps_get_shape (outcaps, config->tensor_layout,
          &config->tensor_type, &config->out_width, &config->out_height,
          &config->max_rois)) {
    GST_ERROR_OBJECT (self, "unsupported output caps %" GST_PTR_FORMAT,
        outcaps);
    return FALSE;
  }
  return take_negotiated_shape (self, outcaps, config);
}

/* --- per frame ----------------------------------------------------------- */

/* Each item's ROI type, for the results' regions. */
static void
collect_roi_types (GstCudaGraphPreprocess *self, GstBuffer *inbuf)
{
  for (guint i = 0; i < self->n_items; i++) {
    GstVideoRegionOfInterestMeta *roi = self->item_ids[i] < 0
        ? NULL
        : gst_buffer_get_video_region_of_interest_meta_id (inbuf,
              self->item_ids[i]);

    self->item_types[i] = roi ? roi->roi_type : 0;
  }
}

static void
gst_cuda_graph_preprocess_fill_params (GstCudaGraphBaseTransform *base,
    GstBuffer *inbuf, GcgFrameParams *params)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (base);
  const GstVideoInfo *info = gst_cuda_graph_base_transform_get_in_info (base);
  GcgRect crop, region;
  gchar *roi_type;
  guint max_rois;

  max_rois = gst_cuda_graph_base_transform_get_config (base)->max_rois;
  GST_OBJECT_LOCK (self);
  gst_cuda_graph_tensor_props_fill_params (&self->props, params);
  crop = self->crop;
  roi_type = self->props.roi_type;
  if (roi_type != NULL)
    g_ref_string_acquire (roi_type);
  GST_OBJECT_UNLOCK (self);

  gst_cuda_graph_apply_params_meta (GST_OBJECT (base), inbuf, params);
  /* The crop of the visible frame, as every element and pad reads it:
   * the item without ROIs, and the ROIs clipped to it. */
  gst_cuda_graph_crop_region (&self->crop_report, GST_ELEMENT (self), NULL,
      inbuf, GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), &crop,
      &region);
  self->n_items = gst_cuda_graph_collect_rois (GST_OBJECT (self), inbuf,
      &region, roi_type, max_rois, params, self->item_ids);
  g_clear_pointer (&roi_type, g_ref_string_release);
  if (self->results_kind != GCG_POSTPROCESS_NONE)
    collect_roi_types (self, inbuf);
}

/* The frame's items, kept with it until its results are attached: the
 * ROI each came from (GstVideoRegionOfInterestMeta id and type, -1 and 0
 * for the whole frame) and its rectangle in the frame.  GcgResult.item
 * indexes these. */
static guint
gst_cuda_graph_preprocess_describe_items (GstCudaGraphBaseTransform *base,
    const GcgFrameParams *params, GstCudaGraphResultsItem *items)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (base);

  for (guint i = 0; i < self->n_items; i++) {
    items[i].roi_id = self->item_ids[i];
    items[i].roi_type = self->item_types[i];
    items[i].x = params->rois[i].x;
    items[i].y = params->rois[i].y;
    items[i].width = params->rois[i].width;
    items[i].height = params->rois[i].height;
  }
  return self->n_items;
}

/* The results of a frame that is done, from its results area (pinned
 * host memory of gcg_frame_batch_get_results_size() bytes the replay
 * wrote); NULL when the area does not hold valid results. */
static const GcgResult *
frame_results (GstCudaGraphPreprocess *self, gconstpointer area, gsize size,
    guint *n_results)
{
  const GcgResult *results = gcg_frame_results_get (area, size, n_results);

  if (results == NULL)
    GST_WARNING_OBJECT (self,
        "a frame's results area is not valid: no "
        "results on it");
  return results;
}

/* The frame's results on @outbuf, once its frame is done (the base held
 * it until then): the results meta, and GStreamer's analytics meta where
 * the build has it (gcg-gst checks every value). */
static void
gst_cuda_graph_preprocess_add_results (GstCudaGraphBaseTransform *base,
    GstBuffer *outbuf, gconstpointer area, gsize size,
    const GstCudaGraphResultsItem *items, guint n_items)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (base);
  const GcgResult *results;
  guint n_results = 0;

  if (self->results_kind == GCG_POSTPROCESS_NONE)
    return;
  results = frame_results (self, area, size, &n_results);
  if (results == NULL)
    return;
  gst_cuda_graph_buffer_add_results (outbuf, self->results_kind, results,
      n_results, self->postprocess.labels, self->postprocess.n_labels, items,
      n_items);
}

static void
gst_cuda_graph_preprocess_decorate (GstCudaGraphBaseTransform *base,
    GstBuffer *outbuf, const GcgFrameParams *params,
    const GstCudaGraphOutputLocation *location)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (base);
  const GcgFrameChainConfig *config =
      gst_cuda_graph_base_transform_get_config (base);
  GstCudaGraphTensorDesc desc = { config->tensor_layout, config->tensor_type,
    config->tensor_channels, config->out_width, config->out_height,
    config->max_rois };
  GstCudaGraphTensorMeta *meta;
  guint i;

  /* Items past the frame's ROIs were zeroed by the frame queue. */
  meta = gst_cuda_graph_tensor_meta_add (outbuf, &desc,
      gcg_frame_chain_config_get_output_size (config),
      location ? location->device_ptr : 0, location ? location->device_id : -1,
      location ? location->stream : NULL);
  if (self->layout.n_tensors > 0)
    gst_cuda_graph_model_layout_apply (&self->layout, meta);
  meta->n_items = self->n_items;
  for (i = 0; i < self->n_items; i++) {
    GcgFrameItemMap map;

    gcg_frame_item_map_init (&map, &params->rois[i], config->out_width,
        config->out_height, config->letterbox);
    gst_cuda_graph_tensor_meta_set_item (meta, i, &map, self->item_ids[i]);
  }
  gst_cuda_graph_add_gst_tensor_meta (outbuf, meta, "cudagraphpreprocess");
}

/* After the model, the postprocess when one is asked for: its results
 * ride on each output buffer, held by the base until its frame is done
 * (add_results()). */
static gboolean
attach_postprocess (GstCudaGraphPreprocess *self, GcgFrameBatch *chain,
    GcgModelGraph *model, GError **error)
{
  GcgPostprocessConfig config;

  if (!gst_cuda_graph_postprocess_get_config (&self->postprocess,
          GST_ELEMENT (self), model, &config, error))
    return FALSE;
  if (config.kind == GCG_POSTPROCESS_NONE)
    return TRUE;
  /* After gcg_frame_batch_attach_model(), before the first frame (USER:
   * the kernel made at start); the engine refuses outputs not shaped for
   * the kind, failing the chain with its error. */
  if (!gst_cuda_graph_postprocess_attach (&self->postprocess, chain, &config,
          error))
    return FALSE;
  self->results_kind = config.kind;
  return TRUE;
}

/* A new chain ends in the model, when one is attached, and its
 * postprocess. */
static gboolean
gst_cuda_graph_preprocess_attach (GstCudaGraphBaseTransform *base,
    GcgFrameBatch *chain, GError **error)
{
  GstCudaGraphPreprocess *self = GST_CUDA_GRAPH_PREPROCESS (base);
  gboolean keep_input = FALSE;
  g_autoptr (GcgModelGraph) model =
      gst_cuda_graph_model_ref (&self->model, GST_ELEMENT (self), &keep_input);

  gst_cuda_graph_model_layout_init (&self->layout, model, keep_input);
  self->results_kind = GCG_POSTPROCESS_NONE;
  if (model == NULL)
    return TRUE;
  if (!gcg_frame_batch_attach_model (chain, model, keep_input, error))
    return FALSE;
  return attach_postprocess (self, chain, model, error);
}
