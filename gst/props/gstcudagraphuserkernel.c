/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The user's own CUDA kernel inside an element's captured graph, before
 * or after the element's own kernel (kernel-position): "letterbox ->
 * normalise -> my op" stays one replay per frame and needs no extra
 * buffer (after: the kernel works in place on the output, and may read
 * the input planes too; before: it reads the input and writes the scratch
 * copy the element's kernel then reads, the input buffer being
 * read-only).  The code is read and compiled (source, with NVRTC, for the
 * device) into a GcgKernelOp when the element starts, so a file that is
 * missing, source that does not compile, a missing entry point or a bad
 * parameter declaration fail the state change with an error naming the
 * kernel, never a frame later.  Each frame chain (one per caps) gets the
 * op through gcg_frame_batch_add_kernel_at() (the engine keeps compiled
 * images per process).  Per-frame values
 * (`meta:KEY` parameters) come from the buffer's GcgParamsMeta: a field
 * KEY of its structure, for that frame only.
 */
#include "gstcudagraphuserkernel.h"
#include "gstcudagraphdebug.h"
#include <gcg/gcg-gst.h>

#include <gcg/gcg-internal.h>

static GstDebugCategory *user_kernel_debug;
#define GST_CAT_DEFAULT \
  gst_cuda_graph_debug_category (&user_kernel_debug, "cudagraphuserkernel", \
      "cudagraph user kernels")

enum
{
  PROP_SOURCE,
  PROP_LOCATION,
  PROP_ENTRY,
  PROP_PARAMS,
  PROP_POSITION,
};

#define DEFAULT_POSITION GCG_KERNEL_POSITION_AFTER

#define FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)

/* @with_position: FALSE where the kernel can only run after the op (the
 * batch element): kernel-position is not installed then. */
void
gst_cuda_graph_user_kernel_install (GObjectClass *klass, guint first,
    gboolean with_position)
{
  g_object_class_install_property (klass, first + PROP_SOURCE,
      g_param_spec_string ("kernel-source", "Kernel source",
          "CUDA C++ source of a kernel run in the same graph as the "
          "element's own (after it, or before it: kernel-position; compiled "
          "with NVRTC when the element starts; its entry takes one "
          "argument, const gcg_params *); see docs/user-kernels.md",
          NULL, FLAGS));
  g_object_class_install_property (klass, first + PROP_LOCATION,
      g_param_spec_string ("kernel-location", "Kernel file",
          "File of that kernel instead: .cu (source), .ptx, .cubin or "
          ".fatbin",
          NULL, FLAGS));
  g_object_class_install_property (klass, first + PROP_ENTRY,
      g_param_spec_string ("kernel-entry", "Kernel entry point",
          "The kernel's extern \"C\" entry point", NULL, FLAGS));
  g_object_class_install_property (klass, first + PROP_PARAMS,
      g_param_spec_string ("kernel-params", "Kernel parameters",
          "The kernel's parameter declaration, \"name=spec,...\" (e.g. "
          "\"img=dst0,pitch=dst-pitch0,strength=meta:vignette:f32:0.5\")",
          NULL, FLAGS));
  if (!with_position)
    return;
  g_object_class_install_property (klass, first + PROP_POSITION,
      g_param_spec_enum ("kernel-position", "Kernel position",
          "Where the kernel runs: after the element's own kernel, on its "
          "output (in place), or before it, reading the input and writing "
          "a scratch copy of it that the element's kernel reads instead",
          GCG_TYPE_KERNEL_POSITION, DEFAULT_POSITION, FLAGS));
}

void
gst_cuda_graph_user_kernel_init (GstCudaGraphUserKernel *k)
{
  k->position = DEFAULT_POSITION;
}

static gchar **
field (GstCudaGraphUserKernel *k, guint id)
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
gst_cuda_graph_user_kernel_set (GstCudaGraphUserKernel *k, guint first,
    guint prop_id, const GValue *value)
{
  gchar **f;

  if (prop_id < first || prop_id >= first + GST_CUDA_GRAPH_USER_KERNEL_N_PROPS)
    return FALSE;
  if (prop_id - first == PROP_POSITION) {
    k->position = g_value_get_enum (value);
    return TRUE;
  }
  f = field (k, prop_id - first);
  g_free (*f);
  *f = g_value_dup_string (value);
  return TRUE;
}

gboolean
gst_cuda_graph_user_kernel_get (GstCudaGraphUserKernel *k, guint first,
    guint prop_id, GValue *value)
{
  if (prop_id < first || prop_id >= first + GST_CUDA_GRAPH_USER_KERNEL_N_PROPS)
    return FALSE;
  if (prop_id - first == PROP_POSITION)
    g_value_set_enum (value, k->position);
  else
    g_value_set_string (value, *field (k, prop_id - first));
  return TRUE;
}

void
gst_cuda_graph_user_kernel_stop (GstCudaGraphUserKernel *k)
{
  g_clear_object (&k->op);
  k->values = NULL;
}

void
gst_cuda_graph_user_kernel_clear (GstCudaGraphUserKernel *k)
{
  gst_cuda_graph_user_kernel_stop (k);
  for (guint i = PROP_SOURCE; i <= PROP_PARAMS; i++)
    g_clear_pointer (field (k, i), g_free);
}

/* The kernel as errors name it: its file's base name, or its entry
 * point; quoted, so that a megabyte of either is never echoed whole. */
static gchar *
kernel_name (const gchar *location, const gchar *entry)
{
  g_autofree gchar *name = location ? g_filename_display_basename (location)
                                    : g_strdup (entry);

  return gcg__error_quote (name);
}

/* What can be judged of the kernel @k without a device (under the
 * object lock): its parameter declaration, parsed as the engine will
 * parse it (a name the generated struct cannot hold, a bad value).  So
 * that a mistake there is named as itself on any backend, not hidden by
 * a missing GPU or backend=cpu.  Nothing set: TRUE.  FALSE with @error
 * (GST_RESOURCE_ERROR_SETTINGS) naming the kernel. */
gboolean
gst_cuda_graph_user_kernel_check (const GstCudaGraphUserKernel *k,
    GError **error)
{
  g_autoptr (GcgKernelDecl) decl = NULL;
  g_autoptr (GError) local = NULL;
  g_autofree gchar *name = NULL;

  if (k->source == NULL && k->location == NULL)
    return TRUE;
  decl = gcg__kernel_decl_parse (k->params, &local);
  if (decl != NULL)
    return TRUE;
  name = kernel_name (k->location, k->entry);
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "User kernel %s: kernel-params: %s", name, local->message);
  return FALSE;
}

/* The code named by the properties (under the object lock): inline
 * source, or a file (source by its .cu/.cuh extension, a binary
 * otherwise), bounded before reading. */
static GBytes *
read_code (const gchar *source, const gchar *location, gboolean *is_source,
    GError **error)
{
  GBytes *code;

  if (source != NULL) {
    *is_source = TRUE;
    return g_bytes_new (source, strlen (source));
  }
  *is_source = g_str_has_suffix (location, ".cu")
      || g_str_has_suffix (location, ".cuh");
  code =
      gcg__kernel_code_read_file (location, GCG_KERNEL_STAGE_MAX_CODE, error);
  if (code == NULL)
    g_prefix_error (error, "kernel-location: ");
  return code;
}

/* The op of the properties, its code compiled (kept under the user cache
 * directory across runs), loaded and checked in @context, with @block
 * threads per block (cudagraphkernel's block-size). */
static GcgKernelOp *
new_op (const gchar *source, const gchar *location, const gchar *entry,
    const gchar *params, const guint block[2], GcgContext *context,
    GError **error)
{
  g_autofree gchar *cache = g_build_filename (g_get_user_cache_dir (),
      "gst-cudagraph", "kernels", NULL);
  g_autofree gchar *name = kernel_name (location, entry);
  g_autoptr (GBytes) code = NULL;
  gboolean is_source = FALSE;

  g_autoptr (GcgKernelOp) op = NULL;

  code = read_code (source, location, &is_source, error);
  if (code == NULL)
    return NULL;
  op = gcg__kernel_op_new_full (context, is_source, code, name, entry,
      params ? params : "", cache, error);
  /* A component left at 0 keeps the engine's default. */
  if (op != NULL && (block[0] != 0 || block[1] != 0)
      && !gcg_kernel_op_set_block (op,
          block[0] ? block[0] : GCG_KERNEL_OP_DEFAULT_BLOCK,
          block[1] ? block[1] : GCG_KERNEL_OP_DEFAULT_BLOCK, error))
    return NULL;
  return g_steal_pointer (&op);
}

/* At start: with a kernel set, read and compile it now (on the CUDA
 * backend only), posting an error naming it when that fails. */
gboolean
gst_cuda_graph_user_kernel_start (GstCudaGraphUserKernel *k,
    GstElement *element, GcgBackend backend, GcgContext *context)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *source = NULL;
  g_autofree gchar *location = NULL;
  g_autofree gchar *entry = NULL;
  g_autofree gchar *params = NULL;

  gboolean checked;

  GST_OBJECT_LOCK (element);
  source = g_strdup (k->source);
  location = g_strdup (k->location);
  entry = g_strdup (k->entry);
  params = g_strdup (k->params);
  k->at = k->position;
  checked = gst_cuda_graph_user_kernel_check (k, &error);
  GST_OBJECT_UNLOCK (element);
  if (source == NULL && location == NULL)
    return TRUE;
  if (entry == NULL || *entry == '\0') {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("A user kernel needs kernel-entry: the name of its extern \"C\" "
         "entry point"),
        (NULL));
    return FALSE;
  }
  if (!checked) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS, ("%s", error->message),
        (NULL));
    return FALSE;
  }
  if (backend != GCG_BACKEND_CUDA) {
    g_autofree gchar *quoted = gcg__error_quote (entry);

    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("User kernel %s needs the CUDA backend (backend=cuda, or auto on "
         "a machine with a usable GPU)",
            quoted),
        (NULL));
    return FALSE;
  }
  k->op = new_op (source, location, entry, params, k->block, context, &error);
  if (k->op == NULL) {
    g_autofree gchar *name = kernel_name (location, entry);

    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("User kernel %s: %s", name, error->message), (NULL));
    return FALSE;
  }
  return TRUE;
}

/* This frame's value of @name from the buffer's GcgParamsMeta. */
static gboolean
lookup_value (const gchar *name, GcgFrameValue *value, gpointer user_data)
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

/* A new engine: the kernel before or after its op, in the same graph (or
 * alone, in an engine without a built-in op); a batch of several sources
 * takes it after its op only (kernel-position is not installed there). */
gboolean
gst_cuda_graph_user_kernel_attach (GstCudaGraphUserKernel *k,
    GcgFrameBatch *engine, GError **error)
{
  if (k->op == NULL)
    return TRUE;
  if (!gcg_frame_batch_add_kernel_at (engine, k->op, k->at, error))
    return FALSE;
  gcg__frame_batch_set_value_lookup (engine, lookup_value, k);
  return TRUE;
}

/* The named values of the frame about to be processed (the buffer
 * outlives its processing). */
void
gst_cuda_graph_user_kernel_set_frame (GstCudaGraphUserKernel *k,
    GstBuffer *buffer)
{
  GstCustomMeta *meta;

  if (k->op == NULL)
    return;
  meta = gst_buffer_get_custom_meta (buffer, GST_CUDA_GRAPH_PARAMS_META_NAME);
  k->values = meta ? gst_custom_meta_get_structure (meta) : NULL;
}
