/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The postprocess properties of cudagraphpreprocess (issue 35): their
 * defaults, values refused with a warning naming the property (the old
 * value kept), and the labels file: read at start within bounds and
 * without blocking, its line count held to num-classes, every refusal an
 * element error naming the file, so the state change fails.  The user's
 * postprocess kernel (postprocess=user, postprocess-kernel-*), on both
 * elements: its properties, and each thing that cannot work (no kernel,
 * no entry point, a declaration reading frame planes, source that does
 * not compile, no model, the CPU backend) failing the start with an
 * error naming the kernel.
 */
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <sys/stat.h>

#include <gcg/gcg.h>

#include "gcg-gst-test-util.h"

#define OWN_DOMAIN "GstCudaGraph"

static GstElement *
make_preprocess (void)
{
  GstElement *e = gst_element_factory_make ("cudagraphpreprocess", NULL);

  g_assert_nonnull (e);
  g_object_set (e, "backend", gcg_test_enum_value (e, "backend", "cpu"), NULL);
  return e;
}

static void
test_defaults (void)
{
  g_autoptr (GstElement) e = make_preprocess ();
  gdouble score = 0, iou = 0;
  guint max_det = 0, top_k = 0, classes = 1;
  gboolean softmax = FALSE;
  g_autofree gchar *labels = NULL;
  gint kind = -1;

  g_object_get (e, "postprocess", &kind, "score-threshold", &score,
      "iou-threshold", &iou, "max-detections", &max_det, "top-k", &top_k,
      "softmax", &softmax, "num-classes", &classes, "labels-location", &labels,
      NULL);
  g_assert_cmpint (kind, ==, GCG_POSTPROCESS_NONE);
  g_assert_cmpfloat_with_epsilon (score, 0.25, 1e-6);
  g_assert_cmpfloat_with_epsilon (iou, 0.45, 1e-6);
  g_assert_cmpuint (max_det, ==, 100);
  g_assert_cmpuint (top_k, ==, 5);
  g_assert_true (softmax);
  g_assert_cmpuint (classes, ==, 0);
  g_assert_null (labels);

  gst_util_set_object_arg (G_OBJECT (e), "postprocess", "detect");
  g_object_get (e, "postprocess", &kind, NULL);
  g_assert_cmpint (kind, ==, GCG_POSTPROCESS_DETECT);
  gst_util_set_object_arg (G_OBJECT (e), "postprocess", "classify");
  g_object_get (e, "postprocess", &kind, NULL);
  g_assert_cmpint (kind, ==, GCG_POSTPROCESS_CLASSIFY);
  g_object_set (e, "score-threshold", 0.5, "top-k", 3, NULL);
  g_object_get (e, "score-threshold", &score, "top-k", &top_k, NULL);
  g_assert_cmpfloat (score, ==, 0.5);
  g_assert_cmpuint (top_k, ==, 3);
}

/* Straight through the class's set_property(): GLib's own range check
 * (which NaN may pass, depending on its version) is not ours to rely on. */
static void
set_raw (GObject *object, const gchar *name, const GValue *v)
{
  GParamSpec *pspec =
      g_object_class_find_property (G_OBJECT_GET_CLASS (object), name);

  g_assert_nonnull (pspec);
  G_OBJECT_GET_CLASS (object)->set_property (object, pspec->param_id, v, pspec);
}

static void
check_refused_double (GObject *e, const gchar *name, gdouble value,
    gdouble kept)
{
  g_autofree gchar *pattern =
      g_strdup_printf ("*refusing property '%s'*", name);
  GValue v = G_VALUE_INIT;
  gdouble now = -1;

  g_value_init (&v, G_TYPE_DOUBLE);
  g_value_set_double (&v, value);
  g_test_expect_message (OWN_DOMAIN, G_LOG_LEVEL_WARNING, pattern);
  set_raw (e, name, &v);
  g_test_assert_expected_messages ();
  g_object_get (e, name, &now, NULL);
  g_assert_cmpfloat (now, ==, kept);
}

static void
check_refused_uint (GObject *e, const gchar *name, guint value, guint kept)
{
  g_autofree gchar *pattern =
      g_strdup_printf ("*refusing property '%s'*", name);
  GValue v = G_VALUE_INIT;
  guint now = 0;

  g_value_init (&v, G_TYPE_UINT);
  g_value_set_uint (&v, value);
  g_test_expect_message (OWN_DOMAIN, G_LOG_LEVEL_WARNING, pattern);
  set_raw (e, name, &v);
  g_test_assert_expected_messages ();
  g_object_get (e, name, &now, NULL);
  g_assert_cmpuint (now, ==, kept);
}

/* NaN, infinities and values past the ranges: refused with our warning,
 * on the bus too, the old value kept. */
static void
test_refusals (void)
{
  g_autoptr (GstElement) pipeline = gst_pipeline_new (NULL);
  g_autoptr (GstBus) bus = gst_element_get_bus (pipeline);
  GstElement *e = make_preprocess ();
  GObject *o = G_OBJECT (e);
  g_autoptr (GstMessage) msg = NULL;
  g_autoptr (GError) error = NULL;
  guint top_k = 0;

  gst_bin_add (GST_BIN (pipeline), e);
  g_object_set (e, "score-threshold", 0.5, "iou-threshold", 0.75, NULL);
  check_refused_double (o, "score-threshold", NAN, 0.5);
  check_refused_double (o, "score-threshold", INFINITY, 0.5);
  check_refused_double (o, "score-threshold", 1.5, 0.5);
  check_refused_double (o, "iou-threshold", NAN, 0.75);
  check_refused_double (o, "iou-threshold", -0.25, 0.75);
  check_refused_uint (o, "max-detections", 0, 100);
  check_refused_uint (o, "max-detections", GCG_RESULT_MAX_PER_ITEM + 1, 100);
  check_refused_uint (o, "top-k", 0, 5);
  check_refused_uint (o, "top-k", 100000, 5);
  check_refused_uint (o, "num-classes", 65537, 0);

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  g_assert_nonnull (msg);
  gst_message_parse_warning (msg, &error, NULL);
  g_assert_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS);
  g_assert_nonnull (strstr (error->message, "score-threshold"));

  /* Through g_object_set(), GLib refuses a value past the pspec's range
   * first (how it says so changed between GLib versions: a warning, then
   * a critical), so the range itself is what is checked. */
  {
    GParamSpec *pspec =
        g_object_class_find_property (G_OBJECT_GET_CLASS (e), "top-k");
    GValue v = G_VALUE_INIT;

    g_value_init (&v, G_TYPE_UINT);
    g_value_set_uint (&v, 0);
    g_assert_true (g_param_value_validate (pspec, &v));
    g_assert_cmpuint (G_PARAM_SPEC_UINT (pspec)->minimum, ==, 1);
  }
  g_object_get (e, "top-k", &top_k, NULL);
  g_assert_cmpuint (top_k, ==, 5);
}

typedef struct
{
  gchar *dir;
} Files;

static void
files_setup (Files *f, gconstpointer data)
{
  f->dir = g_dir_make_tmp ("gcg-labels-XXXXXX", NULL);
  g_assert_nonnull (f->dir);
}

static void
files_teardown (Files *f, gconstpointer data)
{
  g_autoptr (GDir) dir = g_dir_open (f->dir, 0, NULL);
  const gchar *name;

  while (dir && (name = g_dir_read_name (dir)) != NULL) {
    g_autofree gchar *path = g_build_filename (f->dir, name, NULL);

    if (g_file_test (path, G_FILE_TEST_IS_DIR))
      g_rmdir (path);
    else
      g_unlink (path);
  }
  g_rmdir (f->dir);
  g_free (f->dir);
}

static gchar *
write_file (Files *f, const gchar *name, const gchar *text, gssize len)
{
  gchar *path = g_build_filename (f->dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, len, NULL));
  return path;
}

/* The error the element posts when it goes to PAUSED with @path as its
 * labels file and @n_classes classes, or NULL when it started. */
static gchar *
start_with (const gchar *path, guint n_classes)
{
  g_autoptr (GstElement) e = make_preprocess ();

  gst_util_set_object_arg (G_OBJECT (e), "postprocess", "classify");
  g_object_set (e, "labels-location", path, "num-classes", n_classes, NULL);
  return gcg_test_start_error (e);
}

static void
assert_refused (const gchar *path, guint n_classes, const gchar *why)
{
  g_autofree gchar *error = start_with (path, n_classes);
  g_autofree gchar *base = g_path_get_basename (path);

  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error, base));
  if (strstr (error, why) == NULL)
    g_error ("\"%s\" does not say \"%s\"", error, why);
}

/* Files whose lines are the classes start the element; the count is the
 * lines, a last line end or not, CRLF too. */
static void
test_labels_good (Files *f, gconstpointer data)
{
  g_autofree gchar *lf = write_file (f, "lf.txt", "person\ncar\ndog\n", -1);
  g_autofree gchar *no_end = write_file (f, "no-end.txt", "a\nb\nc", -1);
  g_autofree gchar *crlf = write_file (f, "crlf.txt", "a\r\n\r\nc\r\n", -1);
  const gchar *ok[] = { lf, no_end, crlf };

  for (guint i = 0; i < G_N_ELEMENTS (ok); i++) {
    g_autofree gchar *error = start_with (ok[i], 3);
    g_autofree gchar *any = start_with (ok[i], 0);

    g_assert_null (error);
    g_assert_null (any);
  }
}

/* A count that is not num-classes: the error names the file, both counts
 * and the properties. */
static void
test_labels_mismatch (Files *f, gconstpointer data)
{
  g_autofree gchar *path = write_file (f, "three.txt", "a\nb\nc\n", -1);
  g_autofree gchar *error = start_with (path, 5);

  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error, path));
  g_assert_nonnull (strstr (error, "names 3 classes"));
  g_assert_nonnull (strstr (error, "num-classes is 5"));
  g_assert_nonnull (strstr (error, "labels-location"));
}

/* What is not a bounded text file is refused before anything is read:
 * a FIFO without a writer (the test would hang if the element waited),
 * a directory, a file past 1 MiB, more than 65536 lines, bytes that are
 * not UTF-8, a missing file, an empty one. */
static void
test_labels_refused (Files *f, gconstpointer data)
{
  g_autofree gchar *fifo = g_build_filename (f->dir, "fifo", NULL);
  g_autofree gchar *dir = g_build_filename (f->dir, "dir", NULL);
  g_autofree gchar *big_text = g_malloc (1024 * 1024 + 2);
  g_autofree gchar *big = NULL, *many = NULL, *bad = NULL, *empty = NULL;
  g_autofree gchar *missing = g_build_filename (f->dir, "missing", NULL);
  g_autoptr (GString) lines = g_string_new (NULL);

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  memset (big_text, 'a', 1024 * 1024 + 1);
  big_text[1024 * 1024 + 1] = '\0';
  big = write_file (f, "big.txt", big_text, -1);
  for (guint i = 0; i < 65537; i++)
    g_string_append (lines, "x\n");
  many = write_file (f, "many.txt", lines->str, lines->len);
  bad = write_file (f, "bad.txt", "ok\n\xff\xfe\n", -1);
  empty = write_file (f, "empty.txt", "", 0);

  assert_refused (fifo, 0, "is not a regular file");
  assert_refused (dir, 0, "is not a regular file");
  assert_refused (big, 0, "larger than");
  assert_refused (many, 0, "65537 lines");
  assert_refused (bad, 0, "UTF-8");
  assert_refused (missing, 0, "cannot be opened");
  assert_refused (empty, 0, "is empty");
  g_assert_cmpint (g_unlink (fifo), ==, 0);
}

/* The warning @e posts going to PAUSED, which it reaches. */
static gchar *
start_warning (GstElement *e)
{
  g_autoptr (GstBus) bus = gst_bus_new ();
  g_autoptr (GstMessage) msg = NULL;
  g_autoptr (GError) error = NULL;

  gst_element_set_bus (e, bus);
  g_assert_cmpint (gst_element_set_state (e, GST_STATE_PAUSED), !=,
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  g_assert_nonnull (msg);
  gst_message_parse_warning (msg, &error, NULL);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  return g_strdup (error->message);
}

/* postprocess without a model: the element starts, with a warning. */
static void
test_no_model_warns (void)
{
  g_autoptr (GstElement) e = make_preprocess ();
  g_autofree gchar *warning = NULL;

  gst_util_set_object_arg (G_OBJECT (e), "postprocess", "detect");
  warning = start_warning (e);
  g_assert_nonnull (strstr (warning, "no model"));
}

static const gchar *const pp_elements[] = { "cudagraphpreprocess",
  "cudagraphbatch" };

static const gchar *const kernel_props[] = { "postprocess-kernel-location",
  "postprocess-kernel-source", "postprocess-kernel-entry",
  "postprocess-kernel-params" };

static GstElement *
make_cpu (const gchar *factory)
{
  GstElement *e = gst_element_factory_make (factory, NULL);

  g_assert_nonnull (e);
  g_object_set (e, "backend", gcg_test_enum_value (e, "backend", "cpu"), NULL);
  return e;
}

/* The kernel's properties on both elements: unset by default, each
 * string kept as set. */
static void
test_kernel_props (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (pp_elements); i++) {
    g_autoptr (GstElement) e = make_cpu (pp_elements[i]);

    for (guint k = 0; k < G_N_ELEMENTS (kernel_props); k++) {
      g_autofree gchar *before = NULL, *after = NULL;
      g_autofree gchar *value = g_strdup_printf ("value-%u", k);

      g_object_get (e, kernel_props[k], &before, NULL);
      g_assert_null (before);
      g_object_set (e, kernel_props[k], value, NULL);
      g_object_get (e, kernel_props[k], &after, NULL);
      g_assert_cmpstr (after, ==, value);
    }
    gst_util_set_object_arg (G_OBJECT (e), "postprocess", "user");
  }
}

static const gchar top1_source[] =
    "extern \"C\" __global__ void top1 (const gcg_params *p)\n"
    "{\n"
    "  gcg_result *r = (gcg_result *) p->recs + blockIdx.x * p->per;\n"
    "  if (blockIdx.x >= (unsigned) p->n || threadIdx.x > 0)\n"
    "    return;\n"
    "  r->label = 0;\n"
    "  ((unsigned *) p->cnt)[blockIdx.x] = 1u;\n"
    "}\n";

#define TOP1_PARAMS "recs=records,cnt=counts,per=max_results,n=items"

/* The error @factory posts going to PAUSED with postprocess=user and the
 * kernel's @source, @entry and @params (each may be NULL). */
static gchar *
start_user (const gchar *factory, const gchar *source, const gchar *entry,
    const gchar *params)
{
  g_autoptr (GstElement) e = make_cpu (factory);

  gst_util_set_object_arg (G_OBJECT (e), "postprocess", "user");
  g_object_set (e, "num-classes", 10, "postprocess-kernel-source", source,
      "postprocess-kernel-entry", entry, "postprocess-kernel-params", params,
      NULL);
  return gcg_test_start_error (e);
}

static void
assert_says (const gchar *error, const gchar *a, const gchar *b)
{
  g_assert_nonnull (error);
  if (strstr (error, a) == NULL || (b != NULL && strstr (error, b) == NULL))
    g_error ("\"%s\" does not say \"%s\" and \"%s\"", error, a, b ? b : "");
}

/* Each mistake fails the start with an error naming the kernel and what
 * to set. */
static void
test_kernel_refused (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (pp_elements); i++) {
    const gchar *el = pp_elements[i];
    g_autofree gchar *none = start_user (el, NULL, NULL, NULL);
    g_autofree gchar *no_entry = start_user (el, top1_source, NULL, NULL);
    g_autofree gchar *planes =
        start_user (el, top1_source, "top1", "img=dst0,n=items");
    g_autofree gchar *bad_decl = start_user (el, top1_source, "top1", "x=");
    g_autofree gchar *cpu = start_user (el, top1_source, "top1", TOP1_PARAMS);
    g_autofree gchar *bad = NULL;

    assert_says (none, "postprocess=user needs its kernel",
        "postprocess-kernel-source");
    assert_says (no_entry, "postprocess-kernel-entry", NULL);
    assert_says (planes, "Postprocess kernel 'top1'", "no frame planes");
    assert_says (bad_decl, "'top1'", "postprocess-kernel-params");
    /* Compiled first (NVRTC, no device needed), then the CPU backend,
     * which has no model, refused. */
    assert_says (cpu, "top1", NULL);
    if (strstr (cpu, "needs a model") == NULL) {
      assert_says (cpu, "NVRTC", NULL);
      g_test_message ("no NVRTC here: %s", cpu);
      continue;
    }
    assert_says (cpu, "Postprocess kernel 'top1'", "CUDA backend");
    /* NVRTC's log, naming what the user's source got wrong. */
    bad = start_user (el,
        "extern \"C\" __global__ void top1 (const "
        "gcg_params *p)\n{\n  p->nope = 1;\n}\n",
        "top1", TOP1_PARAMS);
    assert_says (bad, "top1", "nope");
  }
}

/* The kernel's properties without postprocess=user: the element starts,
 * warning that the kernel is not run. */
static void
test_kernel_unused_warns (void)
{
  g_autoptr (GstElement) e = make_preprocess ();
  g_autofree gchar *warning = NULL;

  g_object_set (e, "postprocess-kernel-source", top1_source,
      "postprocess-kernel-entry", "top1", NULL);
  warning = start_warning (e);
  g_assert_nonnull (strstr (warning, "is not run"));
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/postprocess/defaults", test_defaults);
  g_test_add_func ("/postprocess/refusals", test_refusals);
  g_test_add ("/postprocess/labels-good", Files, NULL, files_setup,
      test_labels_good, files_teardown);
  g_test_add ("/postprocess/labels-mismatch", Files, NULL, files_setup,
      test_labels_mismatch, files_teardown);
  g_test_add ("/postprocess/labels-refused", Files, NULL, files_setup,
      test_labels_refused, files_teardown);
  g_test_add_func ("/postprocess/no-model-warns", test_no_model_warns);
  g_test_add_func ("/postprocess/kernel-props", test_kernel_props);
  g_test_add_func ("/postprocess/kernel-refused", test_kernel_refused);
  g_test_add_func ("/postprocess/kernel-unused-warns",
      test_kernel_unused_warns);
  return g_test_run ();
}
