/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The postprocess after a model, as properties: what it is (classify,
 * detect, the user's), its thresholds and counts, and the class names
 * (a labels file, one name per line).  A value outside its range is
 * refused when it is set (GLib's range check, and for the thresholds NaN
 * too, which may pass it), the previous value staying; the labels file is
 * untrusted input, read at start within bounds and without blocking
 * (gcg__file_read(): a FIFO or a directory is refused, not waited
 * on), and a file whose line count is not num-classes fails the start
 * with an error naming both.  What the group yields is a
 * GcgPostprocessConfig and the label quarks.
 *
 * postprocess=user runs the user's kernel (postprocess-kernel-*) in the
 * built-in's place: its code is read and compiled at start by the user
 * kernel group's own code (gstcudagraphuserkernel.c, as kernel-location
 * is), after what that group cannot know is checked here: an entry
 * point, a declaration fit for a postprocess kernel, a model, a backend
 * other than cpu.  Its meta:KEY parameters read the frame's
 * GcgParamsMeta when the element runs a kernel-source or
 * kernel-location kernel too (that group gives the engine its values),
 * their defaults otherwise.
 */
#include "gstcudagraphpostprocess.h"
#include "gstcudagraphrefuse.h"

#include <gcg/gcg-internal.h>

#include <fcntl.h>
#include <string.h>

enum
{
  PROP_POSTPROCESS,
  PROP_SCORE_THRESHOLD,
  PROP_IOU_THRESHOLD,
  PROP_MAX_DETECTIONS,
  PROP_TOP_K,
  PROP_SOFTMAX,
  PROP_NUM_CLASSES,
  PROP_LABELS_LOCATION,
  PROP_KERNEL_LOCATION,
  PROP_KERNEL_SOURCE,
  PROP_KERNEL_ENTRY,
  PROP_KERNEL_PARAMS,
};

#define DEFAULT_SCORE_THRESHOLD 0.25
#define DEFAULT_IOU_THRESHOLD 0.45
#define DEFAULT_MAX_DETECTIONS 100
#define DEFAULT_TOP_K 5
#define DEFAULT_SOFTMAX TRUE

#define FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)

static void
install_numbers (GObjectClass *klass, guint first)
{
  g_object_class_install_property (klass, first + PROP_SCORE_THRESHOLD,
      g_param_spec_double ("score-threshold", "Score threshold",
          "postprocess=detect: candidates scoring below are dropped", 0.0, 1.0,
          DEFAULT_SCORE_THRESHOLD, FLAGS));
  g_object_class_install_property (klass, first + PROP_IOU_THRESHOLD,
      g_param_spec_double ("iou-threshold", "IoU threshold",
          "postprocess=detect: a box overlapping a kept box of the same "
          "class by more than this intersection over union is suppressed",
          0.0, 1.0, DEFAULT_IOU_THRESHOLD, FLAGS));
  g_object_class_install_property (klass, first + PROP_MAX_DETECTIONS,
      g_param_spec_uint ("max-detections", "Maximum detections",
          "postprocess=detect: most detections kept per item (ROI), 1-" G_STRINGIFY (
              GCG_RESULT_MAX_PER_ITEM),
          1, GCG_RESULT_MAX_PER_ITEM, DEFAULT_MAX_DETECTIONS, FLAGS));
  g_object_class_install_property (klass, first + PROP_TOP_K,
      g_param_spec_uint ("top-k", "Top k",
          "postprocess=classify: classes kept per item (ROI), best first, 1-" G_STRINGIFY (
              GCG_RESULT_MAX_PER_ITEM),
          1, GCG_RESULT_MAX_PER_ITEM, DEFAULT_TOP_K, FLAGS));
  g_object_class_install_property (klass, first + PROP_NUM_CLASSES,
      g_param_spec_uint ("num-classes", "Number of classes",
          "Classes the model scores (0: as many as labels-location has "
          "lines, or from the model's output shape), 0-" G_STRINGIFY (
              GST_CUDA_GRAPH_POSTPROCESS_MAX_LABELS),
          0, GST_CUDA_GRAPH_POSTPROCESS_MAX_LABELS, 0, FLAGS));
}

static void
install_kernel (GObjectClass *klass, guint first)
{
  g_object_class_install_property (klass, first + PROP_KERNEL_LOCATION,
      g_param_spec_string ("postprocess-kernel-location",
          "Postprocess kernel file",
          "postprocess=user: the file of the kernel that turns the model's "
          "output into results: .cu or .cuh (source, compiled with NVRTC "
          "when the element starts), .ptx, .cubin or .fatbin; see "
          "docs/user-kernels.md",
          NULL, FLAGS));
  g_object_class_install_property (klass, first + PROP_KERNEL_SOURCE,
      g_param_spec_string ("postprocess-kernel-source",
          "Postprocess kernel source",
          "postprocess=user: that kernel's CUDA C++ source instead of a "
          "file",
          NULL, FLAGS));
  g_object_class_install_property (klass, first + PROP_KERNEL_ENTRY,
      g_param_spec_string ("postprocess-kernel-entry",
          "Postprocess kernel entry point",
          "postprocess=user: the kernel's extern \"C\" entry point (one "
          "argument, const gcg_params *)",
          NULL, FLAGS));
  g_object_class_install_property (klass, first + PROP_KERNEL_PARAMS,
      g_param_spec_string ("postprocess-kernel-params",
          "Postprocess kernel parameters",
          "postprocess=user: the kernel's parameter declaration, "
          "\"name=spec,...\" (e.g. \"in=output,recs=records,cnt=counts,"
          "per=max_results,n=items,nc=classes\")",
          NULL, FLAGS));
}

/* The kernel property @id's string in @p. */
static gchar **
kernel_field (GstCudaGraphPostprocess *p, guint id)
{
  switch (id) {
    case PROP_KERNEL_LOCATION:
      return &p->kernel.location;
    case PROP_KERNEL_SOURCE:
      return &p->kernel.source;
    case PROP_KERNEL_ENTRY:
      return &p->kernel.entry;
    default:
      return &p->kernel.params;
  }
}

void
gst_cuda_graph_postprocess_install (GObjectClass *klass, guint first)
{
  g_object_class_install_property (klass, first + PROP_POSTPROCESS,
      g_param_spec_enum ("postprocess", "Postprocess",
          "What turns the model's output into results on each frame (a "
          "GstCudaGraphResultsMeta, and GStreamer's analytics meta from "
          "1.24): none, classify (top-k per item), detect (score "
          "threshold, per-class NMS, boxes in source-frame pixels) or "
          "user (the user's kernel writes GcgResult records); needs model",
          GCG_TYPE_POSTPROCESS_KIND, GCG_POSTPROCESS_NONE, FLAGS));
  install_numbers (klass, first);
  g_object_class_install_property (klass, first + PROP_SOFTMAX,
      g_param_spec_boolean ("softmax", "Softmax",
          "postprocess=classify: softmax over the scores (the model gives "
          "logits); FALSE keeps them as they are",
          DEFAULT_SOFTMAX, FLAGS));
  g_object_class_install_property (klass, first + PROP_LABELS_LOCATION,
      g_param_spec_string ("labels-location", "Labels file",
          "A text file naming the classes, one per line in class order "
          "(at most 1 MiB and 65536 lines; its line count must equal "
          "num-classes when that is set); classes without a name read "
          "\"class-N\"",
          NULL, FLAGS));
  install_kernel (klass, first);
}

void
gst_cuda_graph_postprocess_init (GstCudaGraphPostprocess *p)
{
  memset (p, 0, sizeof (*p));
  p->config.kind = GCG_POSTPROCESS_NONE;
  p->config.top_k = DEFAULT_TOP_K;
  p->config.softmax = DEFAULT_SOFTMAX;
  p->config.score_threshold = DEFAULT_SCORE_THRESHOLD;
  p->config.iou_threshold = DEFAULT_IOU_THRESHOLD;
  p->config.max_per_item = DEFAULT_MAX_DETECTIONS;
  gst_cuda_graph_user_kernel_init (&p->kernel);
}

/* A threshold: finite (NaN may pass the param spec's range check) and
 * within 0 to 1. */
static void
set_threshold (gfloat *field, const GValue *value, gchar **refusal)
{
  gdouble v = g_value_get_double (value);
  gfloat old = *field;

  if (!gst_cuda_graph_set_finite (field, value, refusal))
    return;
  if (v < 0.0 || v > 1.0) {
    *field = old;
    gst_cuda_graph_refusal_note (refusal, "%g is outside 0 to 1; keeping %g", v,
        old);
  }
}

/* A count from 1 to @max (the param spec checks it too; a value set
 * through another path is held to it here). */
static void
set_count (guint *field, const GValue *value, guint min, guint max,
    gchar **refusal)
{
  guint v = g_value_get_uint (value);

  if (v < min || v > max) {
    gst_cuda_graph_refusal_note (refusal, "%u is outside %u to %u; keeping %u",
        v, min, max, *field);
    return;
  }
  *field = v;
}

gboolean
gst_cuda_graph_postprocess_set (GstCudaGraphPostprocess *p, guint first,
    guint prop_id, const GValue *value, gchar **refusal)
{
  GcgPostprocessConfig *c = &p->config;

  if (prop_id < first || prop_id >= first + GST_CUDA_GRAPH_POSTPROCESS_N_PROPS)
    return FALSE;
  switch (prop_id - first) {
    case PROP_POSTPROCESS:
      c->kind = g_value_get_enum (value);
      break;
    case PROP_SCORE_THRESHOLD:
      set_threshold (&c->score_threshold, value, refusal);
      break;
    case PROP_IOU_THRESHOLD:
      set_threshold (&c->iou_threshold, value, refusal);
      break;
    case PROP_MAX_DETECTIONS:
      set_count (&c->max_per_item, value, 1, GCG_RESULT_MAX_PER_ITEM, refusal);
      break;
    case PROP_TOP_K:
      set_count (&c->top_k, value, 1, GCG_RESULT_MAX_PER_ITEM, refusal);
      break;
    case PROP_SOFTMAX:
      c->softmax = g_value_get_boolean (value);
      break;
    case PROP_NUM_CLASSES:
      set_count (&c->n_classes, value, 0, GST_CUDA_GRAPH_POSTPROCESS_MAX_LABELS,
          refusal);
      break;
    case PROP_LABELS_LOCATION:
      g_free (p->labels_location);
      p->labels_location = g_value_dup_string (value);
      break;
    default:
      g_free (*kernel_field (p, prop_id - first));
      *kernel_field (p, prop_id - first) = g_value_dup_string (value);
      break;
  }
  return TRUE;
}

gboolean
gst_cuda_graph_postprocess_get (GstCudaGraphPostprocess *p, guint first,
    guint prop_id, GValue *value)
{
  const GcgPostprocessConfig *c = &p->config;

  if (prop_id < first || prop_id >= first + GST_CUDA_GRAPH_POSTPROCESS_N_PROPS)
    return FALSE;
  switch (prop_id - first) {
    case PROP_POSTPROCESS:
      g_value_set_enum (value, c->kind);
      break;
    case PROP_SCORE_THRESHOLD:
      g_value_set_double (value, c->score_threshold);
      break;
    case PROP_IOU_THRESHOLD:
      g_value_set_double (value, c->iou_threshold);
      break;
    case PROP_MAX_DETECTIONS:
      g_value_set_uint (value, c->max_per_item);
      break;
    case PROP_TOP_K:
      g_value_set_uint (value, c->top_k);
      break;
    case PROP_SOFTMAX:
      g_value_set_boolean (value, c->softmax);
      break;
    case PROP_NUM_CLASSES:
      g_value_set_uint (value, c->n_classes);
      break;
    case PROP_LABELS_LOCATION:
      g_value_set_string (value, p->labels_location);
      break;
    default:
      g_value_set_string (value, *kernel_field (p, prop_id - first));
      break;
  }
  return TRUE;
}

void
gst_cuda_graph_postprocess_stop (GstCudaGraphPostprocess *p)
{
  g_clear_pointer (&p->labels, g_free);
  p->n_labels = 0;
  gst_cuda_graph_user_kernel_stop (&p->kernel);
}

void
gst_cuda_graph_postprocess_clear (GstCudaGraphPostprocess *p)
{
  gst_cuda_graph_postprocess_stop (p);
  g_clear_pointer (&p->labels_location, g_free);
  gst_cuda_graph_user_kernel_clear (&p->kernel);
}

gboolean
gst_cuda_graph_postprocess_enabled (GstCudaGraphPostprocess *p)
{
  return p->config.kind != GCG_POSTPROCESS_NONE;
}

/* The lines of @text (@size bytes, no NUL, UTF-8) as quarks; the count
 * was checked by the caller. */
static GQuark *
split_labels (const gchar *text, gsize size, guint n)
{
  GQuark *labels = g_new0 (GQuark, MAX (n, 1));
  const gchar *line = text, *end = text + size;

  for (guint i = 0; i < n; i++) {
    const gchar *nl = memchr (line, '\n', end - line);
    gsize len = (nl ? nl : end) - line;
    g_autofree gchar *name = NULL;

    if (len > 0 && line[len - 1] == '\r')
      len--;
    name = g_strstrip (g_strndup (line, len));
    /* An empty line names no class: "class-N" when read. */
    labels[i] = name[0] ? g_quark_from_string (name) : 0;
    line = nl ? nl + 1 : end;
  }
  return labels;
}

gboolean
gst_cuda_graph_postprocess_read_labels (const gchar *path, GQuark **labels,
    guint *n_labels, GError **error)
{
  g_autofree gchar *shown = g_filename_display_name (path);
  g_autoptr (GBytes) bytes = NULL;
  const gchar *text;
  gsize size = 0;
  guint64 n = 0;

  bytes = gcg__file_read (AT_FDCWD, path,
      GST_CUDA_GRAPH_POSTPROCESS_MAX_LABELS_BYTES, GCG_FILE_READ_NON_EMPTY,
      "Labels file", error);
  if (bytes == NULL)
    return FALSE;
  text = g_bytes_get_data (bytes, &size);
  if (memchr (text, '\0', size) != NULL
      || !g_utf8_validate (text, size, NULL)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "Labels file \"%s\" is not UTF-8 text", shown);
    return FALSE;
  }
  for (gsize i = 0; i < size; i++)
    n += text[i] == '\n';
  /* A last line without a line end is a line too. */
  n += text[size - 1] != '\n';
  if (n > GST_CUDA_GRAPH_POSTPROCESS_MAX_LABELS) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "Labels file \"%s\" has %" G_GUINT64_FORMAT " lines, more than %d",
        shown, n, GST_CUDA_GRAPH_POSTPROCESS_MAX_LABELS);
    return FALSE;
  }
  *labels = split_labels (text, size, (guint) n);
  *n_labels = (guint) n;
  return TRUE;
}

/* Reads the labels file, if any, and checks its count against
 * num-classes (when set). */
static gboolean
load_labels (GstCudaGraphPostprocess *p, const gchar *path, guint n_classes,
    GError **error)
{
  g_autofree gchar *shown = g_filename_display_name (path);
  GQuark *labels = NULL;
  guint n = 0;

  if (!gst_cuda_graph_postprocess_read_labels (path, &labels, &n, error))
    return FALSE;
  if (n_classes != 0 && n != n_classes) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Labels file \"%s\" (labels-location) names %u classes, but "
        "num-classes is %u",
        shown, n, n_classes);
    g_free (labels);
    return FALSE;
  }
  p->labels = labels;
  p->n_labels = n;
  return TRUE;
}

/* Whether @element's property @name, an object, is set; the group knows
 * the element by its properties only (both elements have "model"). */
static gboolean
object_property_set (GstElement *element, const gchar *name)
{
  g_autoptr (GObject) value = NULL;

  if (g_object_class_find_property (G_OBJECT_GET_CLASS (element), name) == NULL)
    return FALSE;
  g_object_get (element, name, &value, NULL);
  return value != NULL;
}

/* Whether @element's "backend" is cpu (auto settles later: without a
 * GPU the model, which a user postprocess needs, is refused then). */
static gboolean
backend_is_cpu (GstElement *element)
{
  gint backend = GCG_BACKEND_AUTO;

  if (g_object_class_find_property (G_OBJECT_GET_CLASS (element), "backend")
      != NULL)
    g_object_get (element, "backend", &backend, NULL);
  return backend == GCG_BACKEND_CPU;
}

/* What the user kernel group cannot judge of a postprocess kernel named
 * @name before compiling it (under no lock; @user: postprocess=user,
 * @code: a source or location set): posts the element error and returns
 * FALSE. */
static gboolean
check_kernel (GstElement *element, const gchar *name, gboolean user,
    gboolean code, const gchar *entry, const gchar *params)
{
  g_autoptr (GcgKernelDecl) decl = NULL;
  g_autoptr (GError) error = NULL;

  if (!user || !code) {
    if (user)
      GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
          ("postprocess=user needs its kernel: set postprocess-kernel-"
           "location or postprocess-kernel-source"),
          (NULL));
    else if (code)
      GST_ELEMENT_WARNING (element, RESOURCE, SETTINGS,
          ("Postprocess kernel %s is not run: postprocess is not user", name),
          (NULL));
    return !user;
  }
  if (entry == NULL || *entry == '\0') {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("Postprocess kernel %s needs postprocess-kernel-entry: the name of "
         "its extern \"C\" entry point",
            name),
        (NULL));
    return FALSE;
  }
  decl = gcg__kernel_decl_parse (params, &error);
  if (decl == NULL || !gcg__kernel_decl_check_role (decl, TRUE, &error)) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("Postprocess kernel %s: postprocess-kernel-params: %s", name,
            error->message),
        (NULL));
    return FALSE;
  }
  return TRUE;
}

/* A postprocess kernel reads a model's output on the GPU. */
static gboolean
check_model (GstElement *element, const gchar *name)
{
  if (!backend_is_cpu (element) && object_property_set (element, "model"))
    return TRUE;
  GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
      ("Postprocess kernel %s reads a model's output: it needs a model "
       "(model) on the CUDA backend (backend=cuda or auto)",
          name),
      (NULL));
  return FALSE;
}

/* The kernel as errors name it: its file's base name, or its entry
 * point, quoted ('...' when the property was set to something huge). */
static gchar *
display_name (const gchar *location, const gchar *entry)
{
  g_autofree gchar *name = location ? g_filename_display_basename (location)
                                    : g_strdup (entry);
  g_autofree gchar *quoted = gcg__error_quote (name);

  return g_strdup_printf ("'%s'", quoted);
}

/* postprocess=user: the kernel checked, read and compiled (without a
 * context: for the oldest architecture, its NVRTC log as the error, on
 * any machine with NVRTC; for the device when the first chain or batch
 * engine loads it), then its model and backend checked. */
static gboolean
start_kernel (GstCudaGraphPostprocess *p, GstElement *element)
{
  GstCudaGraphUserKernel *k = &p->kernel;
  g_autofree gchar *name = NULL;
  g_autofree gchar *entry = NULL;
  g_autofree gchar *params = NULL;
  gboolean user, code;

  GST_OBJECT_LOCK (element);
  user = p->config.kind == GCG_POSTPROCESS_USER;
  code = k->source != NULL || k->location != NULL;
  entry = g_strdup (k->entry);
  params = g_strdup (k->params);
  name = display_name (k->location, k->entry);
  GST_OBJECT_UNLOCK (element);
  if (!check_kernel (element, name, user, code, entry, params))
    return FALSE;
  return !user
      || (gst_cuda_graph_user_kernel_start (k, element, GCG_BACKEND_CUDA, NULL)
          && check_model (element, name));
}

gboolean
gst_cuda_graph_postprocess_start (GstCudaGraphPostprocess *p,
    GstElement *element)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *path = NULL;
  guint n_classes;

  gst_cuda_graph_postprocess_stop (p);
  GST_OBJECT_LOCK (element);
  path = g_strdup (p->labels_location);
  n_classes = p->config.n_classes;
  GST_OBJECT_UNLOCK (element);
  if (path == NULL || load_labels (p, path, n_classes, &error)) {
    if (start_kernel (p, element))
      return TRUE;
    gst_cuda_graph_postprocess_stop (p);
    return FALSE;
  }
  GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS, ("%s", error->message),
      ("labels-location must name a UTF-8 text file of at most %d bytes, "
       "one class name per line, as many lines as num-classes (%u; 0 "
       "takes the file's count)",
          GST_CUDA_GRAPH_POSTPROCESS_MAX_LABELS_BYTES, n_classes));
  return FALSE;
}

void
gst_cuda_graph_postprocess_check_model (GstCudaGraphPostprocess *p,
    GstElement *element, gboolean (*has_model) (GstElement *element))
{
  gboolean alone;

  GST_OBJECT_LOCK (element);
  alone = gst_cuda_graph_postprocess_enabled (p) && !has_model (element);
  GST_OBJECT_UNLOCK (element);
  if (alone)
    GST_ELEMENT_WARNING (element, RESOURCE, SETTINGS,
        ("postprocess is set but no model is attached: no results"),
        ("set model (e.g. gcg.torch.attach()) or postprocess=none"));
}

/* The class count @model's output gives: its last dimension (classify),
 * its second less the box's 4 rows (detect: batch × (4 + classes) ×
 * candidates); 0 when it does not say. */
static guint
classes_of_model (GcgModelGraph *model, const GcgPostprocessConfig *c)
{
  const gint64 *shape;
  guint n = 0;
  gint64 classes = 0;

  if (model == NULL || c->output_index >= gcg_model_graph_get_n_outputs (model))
    return 0;
  shape = gcg_model_graph_get_output_shape (model, c->output_index, &n);
  if (shape == NULL || n < 2)
    return 0;
  if (c->kind == GCG_POSTPROCESS_CLASSIFY)
    classes = shape[n - 1];
  else if (c->kind == GCG_POSTPROCESS_DETECT && n == 3)
    classes = shape[1] - 4;
  return classes > 0 && classes <= GST_CUDA_GRAPH_POSTPROCESS_MAX_LABELS
      ? (guint) classes
      : 0;
}

gboolean
gst_cuda_graph_postprocess_get_config (GstCudaGraphPostprocess *p,
    GstElement *element, GcgModelGraph *model, GcgPostprocessConfig *config,
    GError **error)
{
  GST_OBJECT_LOCK (element);
  *config = p->config;
  GST_OBJECT_UNLOCK (element);
  if (config->kind == GCG_POSTPROCESS_NONE)
    return TRUE;
  if (config->n_classes == 0)
    config->n_classes = p->n_labels;
  if (config->n_classes == 0)
    config->n_classes = classes_of_model (model, config);
  if (config->n_classes == 0) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "postprocess: the number of classes is not known: set num-classes "
        "or labels-location (the model's output does not say)");
    return FALSE;
  }
  if (config->kind == GCG_POSTPROCESS_CLASSIFY
      && config->top_k > config->n_classes) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "postprocess=classify: top-k is %u, more than the %u classes",
        config->top_k, config->n_classes);
    return FALSE;
  }
  GST_INFO_OBJECT (element,
      "postprocess %d: %u classes, top-k %u, score %g, IoU %g, at most %u "
      "per item",
      config->kind, config->n_classes, config->top_k, config->score_threshold,
      config->iou_threshold, config->max_per_item);
  return TRUE;
}

gboolean
gst_cuda_graph_postprocess_attach (GstCudaGraphPostprocess *p,
    GcgFrameBatch *engine, const GcgPostprocessConfig *config, GError **error)
{
  if (config->kind == GCG_POSTPROCESS_USER && p->kernel.op != NULL)
    return gcg_frame_batch_set_postprocess_kernel (engine, config, p->kernel.op,
        error);
  return gcg_frame_batch_set_postprocess (engine, config, error);
}
