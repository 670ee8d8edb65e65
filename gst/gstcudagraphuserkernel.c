/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The user's own CUDA kernel inside an element's captured graph, after
 * the element's own kernel: "letterbox -> normalise -> my op" stays one
 * replay per frame and needs no extra buffer (the kernel works in place
 * on the output; it may read the input planes too).  The code is read
 * and compiled (source, with NVRTC, for the device) when the element
 * starts, so a file that is missing, source that does not compile, a
 * missing entry point or a bad parameter declaration fail the state
 * change with an error naming the kernel, never a frame later.  Each
 * frame chain (one per caps) gets its own stage of the same compiled
 * code (the engine keeps compiled images per process).  Per-frame values
 * (`meta:KEY` parameters) come from the buffer's GcgParamsMeta: a field
 * KEY of its structure, for that frame only.
 */
#include "gstcudagraphuserkernel.h"
#include "gstcudagraphparamsmeta.h"

#include "gcg-frame-chain-stage-private.h"
#include "gcg-kernel-stage-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_graph_base_transform_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_base_transform_debug

enum
{
  PROP_SOURCE,
  PROP_LOCATION,
  PROP_ENTRY,
  PROP_PARAMS,
};

#define FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS \
    | GST_PARAM_MUTABLE_READY)

void
gst_cuda_graph_user_kernel_install (GObjectClass * klass, guint first)
{
  g_object_class_install_property (klass, first + PROP_SOURCE,
      g_param_spec_string ("kernel-source", "Kernel source",
          "CUDA C++ source of a kernel run after the element's own in the "
          "same graph (compiled with NVRTC when the element starts; its "
          "entry takes one argument, const gcg_params *); see "
          "docs/user-kernels.md", NULL, FLAGS));
  g_object_class_install_property (klass, first + PROP_LOCATION,
      g_param_spec_string ("kernel-location", "Kernel file",
          "File of that kernel instead: .cu (source), .ptx, .cubin or "
          ".fatbin", NULL, FLAGS));
  g_object_class_install_property (klass, first + PROP_ENTRY,
      g_param_spec_string ("kernel-entry", "Kernel entry point",
          "The kernel's extern \"C\" entry point", NULL, FLAGS));
  g_object_class_install_property (klass, first + PROP_PARAMS,
      g_param_spec_string ("kernel-params", "Kernel parameters",
          "The kernel's parameter declaration, \"name=spec,...\" (e.g. "
          "\"img=dst0,pitch=dst-pitch0,strength=meta:vignette:f32:0.5\")",
          NULL, FLAGS));
}

static gchar **
field (GstCudaGraphUserKernel * k, guint id)
{
  switch (id) {
    case PROP_SOURCE:
      return &k->source;
    case PROP_LOCATION:
      return &k->location;
    case PROP_ENTRY:
      return &k->entry;
    default:
      return &k->params;
  }
}

/* Under the element's object lock. */
gboolean
gst_cuda_graph_user_kernel_set (GstCudaGraphUserKernel * k, guint first,
    guint prop_id, const GValue * value)
{
  gchar **f;

  if (prop_id < first || prop_id >= first + GST_CUDA_GRAPH_USER_KERNEL_N_PROPS)
    return FALSE;
  f = field (k, prop_id - first);
  g_free (*f);
  *f = g_value_dup_string (value);
  return TRUE;
}

gboolean
gst_cuda_graph_user_kernel_get (GstCudaGraphUserKernel * k, guint first,
    guint prop_id, GValue * value)
{
  if (prop_id < first || prop_id >= first + GST_CUDA_GRAPH_USER_KERNEL_N_PROPS)
    return FALSE;
  g_value_set_string (value, *field (k, prop_id - first));
  return TRUE;
}

void
gst_cuda_graph_user_kernel_stop (GstCudaGraphUserKernel * k)
{
  g_clear_pointer (&k->code, g_bytes_unref);
  g_clear_pointer (&k->name, g_free);
  g_clear_pointer (&k->decl, g_free);
  g_clear_pointer (&k->entry_point, g_free);
  k->values = NULL;
}

void
gst_cuda_graph_user_kernel_clear (GstCudaGraphUserKernel * k)
{
  gst_cuda_graph_user_kernel_stop (k);
  for (guint i = 0; i < GST_CUDA_GRAPH_USER_KERNEL_N_PROPS; i++)
    g_clear_pointer (field (k, i), g_free);
}

/* The code named by the properties: inline source, or a file (source by
 * its .cu/.cuh extension, a binary otherwise).  Bounded before reading. */
static gboolean
read_code (GstCudaGraphUserKernel * k, GError ** error)
{
  gchar *contents = NULL;
  gsize size = 0;

  if (k->source != NULL) {
    k->is_source = TRUE;
    k->name = g_strdup (k->entry_point);
    k->code = g_bytes_new (k->source, strlen (k->source));
    return TRUE;
  }
  k->name = g_path_get_basename (k->location);
  k->is_source = g_str_has_suffix (k->location, ".cu")
      || g_str_has_suffix (k->location, ".cuh");
  if (!g_file_test (k->location, G_FILE_TEST_IS_REGULAR)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
        "kernel-location \"%s\" is not a file", k->location);
    return FALSE;
  }
  if (!g_file_get_contents (k->location, &contents, &size, error))
    return FALSE;
  if (size == 0 || size > GCG_KERNEL_STAGE_MAX_CODE) {
    g_free (contents);
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "kernel-location \"%s\" is empty or larger than %d bytes",
        k->location, GCG_KERNEL_STAGE_MAX_CODE);
    return FALSE;
  }
  k->code = g_bytes_new_take (contents, size);
  return TRUE;
}

static GcgFrameStage *
new_stage (GstCudaGraphUserKernel * k, GcgContext * context, guint width,
    guint height, GError ** error)
{
  g_autofree gchar *cache = g_build_filename (g_get_user_cache_dir (),
      "gst-cudagraph", "kernels", NULL);
  GcgKernelStageSpec spec = { 0 };

  spec.kind = k->is_source ? GCG_KERNEL_CODE_SOURCE : GCG_KERNEL_CODE_BINARY;
  spec.name = k->name;
  spec.code = k->code;
  spec.entry = k->entry_point;
  spec.decl = k->decl;
  spec.block[0] = k->block[0];
  spec.block[1] = k->block[1];
  spec.width = width;
  spec.height = height;
  spec.cache_dir = cache;
  return gcg__kernel_stage_new (context, &spec, error);
}

/* At start: with a kernel set, read and compile it now (on the CUDA
 * backend only), posting an error naming it when that fails. */
gboolean
gst_cuda_graph_user_kernel_start (GstCudaGraphUserKernel * k,
    GstElement * element, GcgBackend backend, GcgContext * context)
{
  g_autoptr (GError) error = NULL;
  GcgFrameStage *probe;

  GST_OBJECT_LOCK (element);
  if (k->source == NULL && k->location == NULL) {
    GST_OBJECT_UNLOCK (element);
    return TRUE;
  }
  k->entry_point = g_strdup (k->entry);
  k->decl = g_strdup (k->params ? k->params : "");
  GST_OBJECT_UNLOCK (element);
  if (k->entry_point == NULL || *k->entry_point == '\0') {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("A user kernel needs kernel-entry: the name of its extern \"C\" "
            "entry point"), (NULL));
    return FALSE;
  }
  if (backend != GCG_BACKEND_CUDA) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("User kernel %s needs the CUDA backend (backend=cuda, or auto on "
            "a machine with a usable GPU)", k->entry_point), (NULL));
    return FALSE;
  }
  if (!read_code (k, &error)
      || (probe = new_stage (k, context, 1, 1, &error)) == NULL) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("User kernel %s: %s", k->name ? k->name : k->entry_point,
            error->message), (NULL));
    return FALSE;
  }
  gcg__frame_stage_free (probe);
  return TRUE;
}

/* This frame's value of @name from the buffer's GcgParamsMeta. */
static gboolean
lookup_value (const gchar * name, GcgFrameValue * value, gpointer user_data)
{
  GstCudaGraphUserKernel *k = user_data;
  const GValue *v;

  if (k->values == NULL
      || (v = gst_structure_get_value (k->values, name)) == NULL)
    return FALSE;
  if (G_VALUE_HOLDS_INT (v) || G_VALUE_HOLDS_INT64 (v)) {
    value->type = GCG_FRAME_VALUE_INT;
    value->v.i = G_VALUE_HOLDS_INT (v) ? g_value_get_int (v)
        : g_value_get_int64 (v);
  } else if (G_VALUE_HOLDS_UINT (v) || G_VALUE_HOLDS_UINT64 (v)) {
    value->type = GCG_FRAME_VALUE_UINT;
    value->v.u = G_VALUE_HOLDS_UINT (v) ? g_value_get_uint (v)
        : g_value_get_uint64 (v);
  } else if (G_VALUE_HOLDS_DOUBLE (v) || G_VALUE_HOLDS_FLOAT (v)) {
    value->type = GCG_FRAME_VALUE_DOUBLE;
    value->v.d = G_VALUE_HOLDS_DOUBLE (v) ? g_value_get_double (v)
        : g_value_get_float (v);
  } else {
    return FALSE;
  }
  return TRUE;
}

/* A new chain: the kernel after its own, in the same graph (or alone,
 * in a chain without a built-in op). */
gboolean
gst_cuda_graph_user_kernel_attach (GstCudaGraphUserKernel * k,
    GcgFrameChain * chain, const GcgFrameChainConfig * config,
    GcgContext * context, GError ** error)
{
  GcgFrameStage *stage;

  if (k->code == NULL)
    return TRUE;
  stage = new_stage (k, context, config->out_width, config->out_height,
      error);
  if (stage == NULL || !gcg__frame_chain_add_stage (chain, stage, error))
    return FALSE;
  gcg__frame_chain_set_value_lookup (chain, lookup_value, k);
  return TRUE;
}

/* The named values of the frame about to be processed (the buffer
 * outlives its processing). */
void
gst_cuda_graph_user_kernel_set_frame (GstCudaGraphUserKernel * k,
    GstBuffer * buffer)
{
  GstCustomMeta *meta;

  if (k->code == NULL)
    return;
  meta = gst_buffer_get_custom_meta (buffer, GST_CUDA_GRAPH_PARAMS_META_NAME);
  k->values = meta ? gst_custom_meta_get_structure (meta) : NULL;
}
