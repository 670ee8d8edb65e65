/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:element-cudagraphkernel
 * @title: cudagraphkernel
 * @short_description: run your own CUDA kernel on every video frame, as a
 *   replayed CUDA graph
 *
 * Runs one user kernel per frame and nothing else: no built-in op.  The
 * kernel comes as CUDA C++ source (#GstCudaGraphKernel:source inline, or
 * a `.cu` file in #GstCudaGraphKernel:location, compiled with NVRTC for
 * the device when the element starts) or as a `.ptx`, `.cubin` or
 * `.fatbin` file; #GstCudaGraphKernel:entry names its `extern "C"
 * __global__` entry point, which takes ONE argument, a pointer to the
 * struct its #GstCudaGraphKernel:params declaration describes (typedef'd
 * as `gcg_params` before the source).  See docs/user-kernels.md for the
 * declaration grammar and docs/cudagraphkernel.md for this element.
 *
 * The kernel is captured into a CUDA graph on the first frame and
 * replayed for every later one (`captures` stays 1): every value that
 * changes between frames — plane addresses, frame number, PTS, and the
 * `meta:KEY` parameters read from the buffer's GcgParamsMeta — reaches
 * it through the device parameter block, never through a re-capture.
 * `use-graph=false` launches the same kernel eagerly, for comparison.
 *
 * Caps: video in system memory or `memory:CUDAMemory`, in every format
 * the plugin supports; the output has the same format and size.  The
 * grid covers the frame (width × height threads, in blocks of
 * #GstCudaGraphKernel:block-size); staying inside the planes is the
 * kernel's job, with the sizes it declared (`width=out_width`, ...).
 *
 * Out of place by default: the kernel reads the input planes (`src0`...)
 * and writes the output planes (`dst0`...) of a new buffer.  With
 * #GstCudaGraphKernel:in-place, a writable input buffer is the output
 * too (`src0` == `dst0`): the kernel must then read each pixel before
 * writing it, in the same thread.  An input that is not writable (held
 * elsewhere too) is still processed out of place, never copied first.
 *
 * Errors: source that does not compile (the NVRTC log, with its line
 * numbers), a missing entry point, a declaration that does not parse, a
 * missing file, a bad block size and `backend=cpu` (user kernels need
 * CUDA) all fail the READY→PAUSED change with an error naming the
 * kernel.  A kernel that faults on the GPU poisons the CUDA context: the
 * frame fails, the error says so and the pipeline stops.
 *
 * The `kernel-source`, `kernel-location`, `kernel-entry` and
 * `kernel-params` properties this element shares with cudagraphconvert
 * are the same settings under their other names.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,format=RGBA,width=1280,height=720 ! cudagraphkernel location=examples/kernels/vignette.cu entry=vignette params="src=src0,dst=dst0,src_pitch=src_pitch0,dst_pitch=dst_pitch0,width=out_width,height=out_height,strength=f32:0.8" ! fakesink
 * ]| Darkens the corners of each frame with the example vignette.
 * |[
 * gst-launch-1.0 videotestsrc num-buffers=300 ! video/x-raw,format=RGBA,width=1280,height=720 ! cudaupload ! cudagraphkernel location=examples/kernels/swizzle.cu entry=swizzle block-size=32x8 params="src=src0,dst=dst0,src_pitch=src_pitch0,dst_pitch=dst_pitch0,width=out_width,height=out_height,map=u32:0x03000102" ! cudadownload ! fakesink
 * ]| Swaps red and blue on GstCudaMemory, read and written on the device.
 *
 * Since: 0.2
 */

#include "basetransform/gstcudagraphbasetransform-private.h"
#include "memory/gstcudagraphcudainterop.h"
#include "gstcudagraphelements.h"
#include <gcg/gcg-gst.h>
#include "buffers/gstcudagraphvideo.h"

#include <gcg/gcg-internal.h>

#include <glib/gstdio.h>
#include <sys/stat.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_graph_kernel_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_kernel_debug

#define KERNEL_FORMATS "{ NV12, I420, RGBA, BGRA, RGB, BGR, GRAY8 }"
#define KERNEL_CAPS GST_CUDA_GRAPH_VIDEO_CAPS (KERNEL_FORMATS)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (KERNEL_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (KERNEL_CAPS));

/* The first four in the order of GstCudaGraphUserKernel's own
 * properties: they are handed to its setter as they are. */
enum
{
  PROP_0,
  PROP_SOURCE,
  PROP_LOCATION,
  PROP_ENTRY,
  PROP_PARAMS,
  PROP_BLOCK_SIZE,
  PROP_IN_PLACE,
};

/* 32 × 8: a warp per row, 256 threads, as the built-in kernels use. */
#define DEFAULT_BLOCK_SIZE "32x8"
#define DEFAULT_IN_PLACE FALSE

struct _GstCudaGraphKernel
{
  GstCudaGraphBaseTransform parent;

  /* Properties, under the object lock. */
  gchar *block_size;
  gboolean in_place;
};

G_DECLARE_FINAL_TYPE (GstCudaGraphKernel, gst_cuda_graph_kernel, GST,
    CUDA_GRAPH_KERNEL, GstCudaGraphBaseTransform)
G_DEFINE_TYPE (GstCudaGraphKernel, gst_cuda_graph_kernel,
    GST_TYPE_CUDA_GRAPH_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE (cudagraphkernel, "cudagraphkernel",
    GST_RANK_NONE, gst_cuda_graph_kernel_get_type (),
    gst_cuda_graph_params_meta_register ());

static void gst_cuda_graph_kernel_finalize (GObject *object);
static void gst_cuda_graph_kernel_set_property (GObject *object, guint prop_id,
    const GValue *value, GParamSpec *pspec);
static void gst_cuda_graph_kernel_get_property (GObject *object, guint prop_id,
    GValue *value, GParamSpec *pspec);
static gboolean gst_cuda_graph_kernel_start (GstBaseTransform *trans);
static GstCaps *gst_cuda_graph_kernel_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter);
static GstFlowReturn gst_cuda_graph_kernel_prepare_output_buffer (
    GstBaseTransform *trans, GstBuffer *input, GstBuffer **outbuf);
static gboolean gst_cuda_graph_kernel_configure (
    GstCudaGraphBaseTransform *base, const GstVideoInfo *in_info,
    GstCaps *outcaps, GcgFrameChainConfig *config);
static void gst_cuda_graph_kernel_fill_params (GstCudaGraphBaseTransform *base,
    GstBuffer *inbuf, GcgFrameParams *params);

#define STRING_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)

static void
install_properties (GObjectClass *gobject_class)
{
  g_object_class_install_property (gobject_class, PROP_SOURCE,
      g_param_spec_string ("source", "Source",
          "CUDA C++ source of the kernel, compiled with NVRTC for the "
          "device when the element starts; its entry takes one argument, "
          "const gcg_params *",
          NULL, STRING_FLAGS));
  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location",
          "File of the kernel instead: .cu (source), .ptx, .cubin or "
          ".fatbin",
          NULL, STRING_FLAGS));
  g_object_class_install_property (gobject_class, PROP_ENTRY,
      g_param_spec_string ("entry", "Entry point",
          "The kernel's extern \"C\" __global__ entry point", NULL,
          STRING_FLAGS));
  g_object_class_install_property (gobject_class, PROP_PARAMS,
      g_param_spec_string ("params", "Parameters",
          "The kernel's parameter declaration, \"name=spec,...\" (e.g. "
          "\"src=src0,dst=dst0,gain=f32:1.5,level=meta:mask_level\"); see "
          "docs/user-kernels.md",
          NULL, STRING_FLAGS));
  g_object_class_install_property (gobject_class, PROP_BLOCK_SIZE,
      g_param_spec_string ("block-size", "Block size",
          "Threads per block, WIDTHxHEIGHT (at most 1024 threads); the grid "
          "covers the frame",
          DEFAULT_BLOCK_SIZE, STRING_FLAGS));
  g_object_class_install_property (gobject_class, PROP_IN_PLACE,
      g_param_spec_boolean ("in-place", "In place",
          "Write into the input buffer when it is writable (src planes == "
          "dst planes: the kernel must read a pixel before writing it); "
          "out of place otherwise",
          DEFAULT_IN_PLACE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_READY));
}

static void
gst_cuda_graph_kernel_class_init (GstCudaGraphKernelClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaGraphBaseTransformClass *base_class =
      GST_CUDA_GRAPH_BASE_TRANSFORM_CLASS (klass);

  gobject_class->finalize = gst_cuda_graph_kernel_finalize;
  gobject_class->set_property = gst_cuda_graph_kernel_set_property;
  gobject_class->get_property = gst_cuda_graph_kernel_get_property;
  install_properties (gobject_class);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "CUDA graph user kernel", "Filter/Effect/Video/Hardware",
      "Runs the user's own CUDA kernel on every frame, captured once into "
      "a CUDA graph and replayed per frame",
      "gst-cudagraph authors");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_graph_kernel_start);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_kernel_transform_caps);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_kernel_prepare_output_buffer);
  base_class->configure = GST_DEBUG_FUNCPTR (gst_cuda_graph_kernel_configure);
  base_class->get_caps_size =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_video_caps_size);
  base_class->fill_params =
      GST_DEBUG_FUNCPTR (gst_cuda_graph_kernel_fill_params);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_graph_kernel_debug, "cudagraphkernel", 0,
      "cudagraphkernel");
}

static void
gst_cuda_graph_kernel_init (GstCudaGraphKernel *self)
{
  self->block_size = g_strdup (DEFAULT_BLOCK_SIZE);
  self->in_place = DEFAULT_IN_PLACE;
  /* The user's kernel alone: its chains have no built-in op. */
  GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (self))->kernel_only = TRUE;
}

static void
gst_cuda_graph_kernel_finalize (GObject *object)
{
  g_free (GST_CUDA_GRAPH_KERNEL (object)->block_size);

  G_OBJECT_CLASS (gst_cuda_graph_kernel_parent_class)->finalize (object);
}

static void
gst_cuda_graph_kernel_set_property (GObject *object, guint prop_id,
    const GValue *value, GParamSpec *pspec)
{
  GstCudaGraphKernel *self = GST_CUDA_GRAPH_KERNEL (object);
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (self));

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SOURCE:
    case PROP_LOCATION:
    case PROP_ENTRY:
    case PROP_PARAMS:
      gst_cuda_graph_user_kernel_set (&priv->kernel, PROP_SOURCE, prop_id,
          value);
      break;
    case PROP_BLOCK_SIZE:
      g_free (self->block_size);
      self->block_size = g_value_dup_string (value);
      break;
    case PROP_IN_PLACE:
      self->in_place = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_graph_kernel_get_property (GObject *object, guint prop_id,
    GValue *value, GParamSpec *pspec)
{
  GstCudaGraphKernel *self = GST_CUDA_GRAPH_KERNEL (object);
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (self));

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SOURCE:
    case PROP_LOCATION:
    case PROP_ENTRY:
    case PROP_PARAMS:
      gst_cuda_graph_user_kernel_get (&priv->kernel, PROP_SOURCE, prop_id,
          value);
      break;
    case PROP_BLOCK_SIZE:
      g_value_set_string (value, self->block_size);
      break;
    case PROP_IN_PLACE:
      g_value_set_boolean (value, self->in_place);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* --- start: what can be known before the device opens -------------------- */

/* "WxH" (or "W" for W × 1), each 1..1024, at most 1024 threads; NULL or
 * "" is the default.  FALSE for anything else. */
static gboolean
parse_block_size (const gchar *text, guint block[2])
{
  guint64 v[2] = { 1, 1 };
  gchar *end = NULL;
  const gchar *s = text;

  if (text == NULL || *text == '\0')
    text = s = DEFAULT_BLOCK_SIZE;
  for (guint i = 0; i < 2; i++) {
    if (!g_ascii_isdigit (*s))
      return FALSE;
    v[i] = g_ascii_strtoull (s, &end, 10);
    if (v[i] == 0 || v[i] > 1024)
      return FALSE;
    if (*end == '\0')
      break;
    if (i == 1 || (*end != 'x' && *end != 'X'))
      return FALSE;
    s = end + 1;
  }
  if (v[0] * v[1] > 1024)
    return FALSE;
  block[0] = (guint) v[0];
  block[1] = (guint) v[1];
  return TRUE;
}

/* @path is a regular file whose size a kernel's code may have; nothing
 * is read (a FIFO is not opened, a huge file costs nothing). */
static gboolean
location_usable (const gchar *path)
{
  GStatBuf st;

  return g_stat (path, &st) == 0 && S_ISREG (st.st_mode) && st.st_size > 0
      && (guint64) st.st_size <= GCG_KERNEL_STAGE_MAX_CODE;
}

/* The settings a kernel needs, checked before the device is opened so
 * that a mistake is reported as itself (not as a missing GPU), each
 * naming the kernel.  What a message quotes of a property is bounded
 * (gcg__error_quote()).  Under the object lock. */
static gboolean
check_settings_locked (GstCudaGraphKernel *self, gchar **message)
{
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (self));
  GstCudaGraphUserKernel *k = &priv->kernel;
  g_autofree gchar *name =
      gcg__error_quote (k->entry ? k->entry : "(no entry)");
  g_autofree gchar *block = gcg__error_quote (self->block_size);
  g_autofree gchar *location = gcg__error_quote (k->location);
  g_autoptr (GError) error = NULL;

  if ((k->source == NULL) == (k->location == NULL))
    *message = g_strdup_printf (
        "cudagraphkernel %s needs its code: set "
        "either source (inline CUDA C++) or location (a .cu, .ptx, .cubin "
        "or .fatbin file), not both",
        name);
  else if (k->entry == NULL || *k->entry == '\0')
    *message = g_strdup ("cudagraphkernel needs entry: the name of the "
                         "kernel's extern \"C\" __global__ entry point");
  else if (!parse_block_size (self->block_size, k->block))
    *message = g_strdup_printf ("Kernel %s: block-size \"%s\" is not "
                                "WIDTHxHEIGHT with 1 to 1024 threads in all",
        name, block);
  else if (!gcg__kernel_code_check_entry ("cudagraphkernel", k->entry,
               k->source != NULL || g_str_has_suffix (k->location, ".cu")
                   || g_str_has_suffix (k->location, ".cuh"),
               &error))
    *message = g_strdup (error->message);
  else if (k->location != NULL && !location_usable (k->location))
    *message = g_strdup_printf ("Kernel %s: location \"%s\" is not a file "
                                "of 1 byte to %d bytes",
        name, location, GCG_KERNEL_STAGE_MAX_CODE);
  else if (!gst_cuda_graph_user_kernel_check (k, &error))
    *message = g_strdup (error->message);
  else if (priv->run.backend == GCG_BACKEND_CPU)
    *message = g_strdup_printf (
        "Kernel %s needs the CUDA backend: "
        "backend=cpu cannot run user kernels (use backend=cuda, or auto "
        "on a machine with a usable GPU)",
        name);
  return *message == NULL;
}

/* Refuses what is wrong in the settings, then starts as every element
 * does: the device opens and the kernel is read, compiled and loaded
 * (gst_cuda_graph_user_kernel_start(), with the NVRTC log on failure). */
static gboolean
gst_cuda_graph_kernel_start (GstBaseTransform *trans)
{
  GstCudaGraphKernel *self = GST_CUDA_GRAPH_KERNEL (trans);
  g_autofree gchar *message = NULL;
  gboolean ok;

  GST_OBJECT_LOCK (self);
  ok = check_settings_locked (self, &message);
  GST_OBJECT_UNLOCK (self);
  if (!ok) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s", message), (NULL));
    return FALSE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_graph_kernel_parent_class)
      ->start (trans);
}

/* --- caps ---------------------------------------------------------------- */

/* The same format and size on the other side; only the memory kind may
 * change (system memory or GstCudaMemory, as the base can serve). */
static GstCaps *
gst_cuda_graph_kernel_transform_caps (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstCaps *result;

  result = gst_cuda_graph_caps_add_memory_kinds (gst_caps_ref (caps));
  result = gst_cuda_graph_base_transform_restrict_caps (
      GST_CUDA_GRAPH_BASE_TRANSFORM (trans), direction, result, filter);
  GST_DEBUG_OBJECT (trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps,
      result);
  return result;
}

/* The output side of the chain's configuration: the input's. */
static gboolean
gst_cuda_graph_kernel_configure (GstCudaGraphBaseTransform *base,
    const GstVideoInfo *in_info, GstCaps *outcaps, GcgFrameChainConfig *config)
{
  GstVideoInfo out_info;

  if (!gst_video_info_from_caps (&out_info, outcaps)
      || GST_VIDEO_INFO_FORMAT (&out_info) != GST_VIDEO_INFO_FORMAT (in_info)
      || GST_VIDEO_INFO_WIDTH (&out_info) != GST_VIDEO_INFO_WIDTH (in_info)
      || GST_VIDEO_INFO_HEIGHT (&out_info) != GST_VIDEO_INFO_HEIGHT (in_info)) {
    GST_ELEMENT_ERROR (base, CORE, NEGOTIATION,
        ("cudagraphkernel writes the input's format and size; output caps "
         "%" GST_PTR_FORMAT " differ",
            outcaps),
        (NULL));
    return FALSE;
  }
  config->output = GCG_OUTPUT_KIND_VIDEO;
  config->out_format = config->in_format;
  config->out_width = config->in_width;
  config->out_height = config->in_height;
  config->max_rois = 1;
  return TRUE;
}

/* --- per frame ----------------------------------------------------------- */

/* In place: the input itself when in-place is set and nobody else holds
 * it or its memory (writing into a shared buffer would change what
 * someone else reads); otherwise a new buffer, as the base makes it. */
static GstFlowReturn
gst_cuda_graph_kernel_prepare_output_buffer (GstBaseTransform *trans,
    GstBuffer *input, GstBuffer **outbuf)
{
  GstCudaGraphKernel *self = GST_CUDA_GRAPH_KERNEL (trans);
  gboolean in_place;

  GST_OBJECT_LOCK (self);
  in_place = self->in_place;
  GST_OBJECT_UNLOCK (self);
  if (in_place && gst_buffer_is_writable (input)
      && gst_buffer_is_all_memory_writable (input)) {
    GST_LOG_OBJECT (self, "in place");
    *outbuf = input;
    return GST_FLOW_OK;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_graph_kernel_parent_class)
      ->prepare_output_buffer (trans, input, outbuf);
}

/* No built-in op reads the chain's values: the base's plane addresses,
 * frame number and PTS are all the kernel's fields need, and its
 * meta:KEY values come from the buffer's GcgParamsMeta (the base). */
static void
gst_cuda_graph_kernel_fill_params (GstCudaGraphBaseTransform *base,
    GstBuffer *inbuf, GcgFrameParams *params)
{
  params->n_rois = 0;
}
