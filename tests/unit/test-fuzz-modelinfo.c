/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A deterministic fuzz test of `.modelinfo` files (issue 23 item 5):
 * mutated copies of the files in tests/data/modelinfo (bytes flipped, inserted,
 * deleted, lines dropped or doubled, the file cut short, keys given
 * hostile values: huge, negative, non-finite, ill-formed caps strings) are
 * read by gst_cuda_graph_model_info_load() and, for a part of them, given
 * to cudagraphpreprocess's model-info property (CPU backend).  What is
 * checked: nothing crashes and GLib logs no critical (fatal here); a file
 * read gives values the element can use (sizes in range, a finite
 * per-pixel mapping, known enums); a file refused gives an error naming
 * the file; the element either runs a frame through with the file's
 * tensor or fails at start with that error.  Under the sanitizer build any
 * out-of-bounds access or leak is a report and fails the test.
 *
 * Each case draws from its own GRand seeded with (seed, case number):
 *
 *   GCG_FUZZ_SEED=N      seed (default: fixed, printed)
 *   GCG_FUZZ_CASES=N     number of cases (default 3000)
 *   GCG_FUZZ_FIRST=N     first case to run (default 0)
 *   GCG_FUZZ_VERBOSE=1   print every mutated file before it is read
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "gcg-gst-test-util.h"
#include "common/gcg-test-fuzz.h"

#include "../../gst/elements/gstcudagraphmodelinfo.h"

#define DEFAULT_SEED 20261125u
#define DEFAULT_CASES 3000
/* One case in ELEMENT_EVERY also goes through the element. */
#define ELEMENT_EVERY 8
/* Tensors larger than this (bytes) are only set, not run: a fuzzed file
 * may ask for 16384x16384x64 floats. */
#define MAX_RUN_BYTES (4 * 1024 * 1024)
#define RGBA_32x24 "video/x-raw,format=RGBA,width=32,height=24,framerate=30/1"

static guint32 fuzz_seed;
static guint case_no;
static gchar *tmp_dir;
static GPtrArray *seeds;        /* contents of the checked-in files */
static guint n_loaded, n_refused, n_run, n_start_refused, n_cases;

#define FUZZ_CHECK(cond, ...) \
  GCG_FUZZ_CHECK ("modelinfo", fuzz_seed, case_no, cond, __VA_ARGS__)

static const gchar *keys[] = { "version", "dir", "id", "type", "dims",
  "dims-order", "ranges", "caps", "group-id" };

/* Values a hostile or careless file could hold, for any key. */
static const gchar *hostile[] = {
  "",
  "-1",
  "0",
  "1",
  "3",
  "65536",
  "16385",
  "2147483647",
  "2147483648",
  "-2147483649",
  "4294967296",
  "99999999999999999999",
  "1e309",
  "nan",
  "inf",
  "-inf",
  "0x10",
  "1.5",
  "-5e43,5e43",
  "0,0",
  "1,0",
  "nan,1",
  "0,1e-45",
  "-3.4e38,3.4e38",
  "0,255;0,255",
  "0,1;0,1;0,1;0,1",
  ";;;",
  "0,1;",
  ",",
  ",,,,",
  "1,3,224,224",
  "-1,3,-1,-1",
  "1,3,0,224",
  "1,2,224,224",
  "1,224,224,2",
  "64,3,16384,16384",
  "65,3,8,8",
  "1,1,1,1,1",
  "3,224",
  "1,3,a,224",
  "float32",
  "float64",
  "uint8",
  "float16",
  "int8",
  "col-major",
  "row-major",
  "diagonal",
  "input",
  "output",
  "1.0",
  "2.0",
  "1",
  "1.",
  ".1",
  "01.0",
  "video/x-raw,format=RGB",
  "video/x-raw,format=GRAY8",
  "video/x-raw,format=NV12",
  "video/x-raw(memory:CUDAMemory),format=BGR",
  "video/x-raw,format=(string)\"BGRx\"",
  "video/x-raw,format=",
  "video/",
  "(((((",
  "video/x-raw,format=RGB;video/x-raw,format=GRAY8",
  "video/x-raw,format={RGB,BGR}",
  "video/x-raw,width=[1,2],format=RGB",
  "ANY",
  "EMPTY",
  "NONE",
  "\\",
  "\\x",
  "\"",
  "=",
  "[",
  "]",
  "#",
  "\xff\xfe",
  "\xc3\x28",
  "a\tb",
  "video/x-raw,format=RGB,,,,format=BGR",
};

static gint
rand_index (GRand *r, guint n)
{
  return g_rand_int_range (r, 0, (gint32) n);
}

/* A random line: a key with a hostile value, a group header, or junk. */
static gchar *
rand_line (GRand *r)
{
  switch (rand_index (r, 6)) {
    case 0:
      return g_strdup_printf ("[%s]",
          hostile[rand_index (r, G_N_ELEMENTS (hostile))]);
    case 1:
      return g_strdup (rand_index (r, 2) ? "[input]" : "[modelinfo]");
    case 2: {
      /* A long value: the loader must not care about length. */
      GString *s = g_string_new (keys[rand_index (r, G_N_ELEMENTS (keys))]);

      g_string_append_c (s, '=');
      for (gint i = g_rand_int_range (r, 1, 4000); i > 0; i--)
        g_string_append_c (s, "0123456789,;-.e"[rand_index (r, 15)]);
      return g_string_free (s, FALSE);
    }
    default:
      return g_strdup_printf ("%s=%s",
          keys[rand_index (r, G_N_ELEMENTS (keys))],
          hostile[rand_index (r, G_N_ELEMENTS (hostile))]);
  }
}

/* Replaces the value of a random `key=` line, keeping the key. */
static void
mutate_value (GRand *r, GPtrArray *lines)
{
  guint i = rand_index (r, lines->len);
  gchar *line = g_ptr_array_index (lines, i);
  gchar *eq = strchr (line, '=');

  if (eq == NULL)
    return;
  *eq = '\0';
  g_ptr_array_index (lines, i) = g_strdup_printf ("%s=%s", line,
      hostile[rand_index (r, G_N_ELEMENTS (hostile))]);
  g_free (line);
}

/* Line-level mutations. */
static void
mutate_lines (GRand *r, GPtrArray *lines)
{
  guint i;

  if (lines->len == 0) {
    g_ptr_array_add (lines, rand_line (r));
    return;
  }
  i = rand_index (r, lines->len);
  switch (rand_index (r, 4)) {
    case 0:
      g_ptr_array_remove_index (lines, i);
      break;
    case 1:
      g_ptr_array_insert (lines, i, g_strdup (g_ptr_array_index (lines, i)));
      break;
    case 2:
      g_ptr_array_insert (lines, i, rand_line (r));
      break;
    default:
      mutate_value (r, lines);
      break;
  }
}

/* Byte-level mutations of the whole text (NUL included). */
static void
mutate_bytes (GRand *r, GByteArray *bytes)
{
  guint i;
  guint8 b = (guint8) g_rand_int (r);

  if (bytes->len == 0) {
    g_byte_array_append (bytes, &b, 1);
    return;
  }
  i = rand_index (r, bytes->len);
  switch (rand_index (r, 4)) {
    case 0:
      bytes->data[i] = b;
      break;
    case 1:
      bytes->data[i] ^= 1u << rand_index (r, 8);
      break;
    case 2:
      g_byte_array_remove_index (bytes, i);
      break;
    default:
      g_byte_array_set_size (bytes, i);
      break;
  }
}

/* A mutated copy of one of the checked-in files. */
static GByteArray *
mutated_file (GRand *r)
{
  const gchar *seed = g_ptr_array_index (seeds, rand_index (r, seeds->len));
  g_auto (GStrv) split = g_strsplit (seed, "\n", -1);
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  GByteArray *bytes = g_byte_array_new ();
  gint n;

  for (guint i = 0; split[i] != NULL; i++)
    g_ptr_array_add (lines, g_strdup (split[i]));
  for (n = g_rand_int_range (r, 1, 5); n > 0; n--)
    mutate_lines (r, lines);
  for (guint i = 0; i < lines->len; i++) {
    const gchar *l = g_ptr_array_index (lines, i);

    g_byte_array_append (bytes, (const guint8 *) l, strlen (l));
    g_byte_array_append (bytes, (const guint8 *) "\n", 1);
  }
  /* A third of the cases also get bytes damaged. */
  if (g_rand_int_range (r, 0, 3) == 0) {
    for (n = g_rand_int_range (r, 1, 4); n > 0; n--)
      mutate_bytes (r, bytes);
  }
  return bytes;
}

/* What a file that loads must give: something the element can use. */
static void
check_loaded (const GstCudaGraphModelInfo *info)
{
  FUZZ_CHECK (info->tensor_name != NULL, "no tensor name");
  FUZZ_CHECK (info->width >= 1 && info->width <= GCG_FRAME_CHAIN_MAX_SIZE,
      "width %u", info->width);
  FUZZ_CHECK (info->height >= 1 && info->height <= GCG_FRAME_CHAIN_MAX_SIZE,
      "height %u", info->height);
  FUZZ_CHECK (info->batch <= GCG_FRAME_CHAIN_MAX_ROIS, "batch %u", info->batch);
  FUZZ_CHECK (info->layout == GCG_TENSOR_LAYOUT_NCHW
          || info->layout == GCG_TENSOR_LAYOUT_NHWC,
      "layout %d", info->layout);
  FUZZ_CHECK (info->type == GCG_TENSOR_TYPE_FLOAT32
          || info->type == GCG_TENSOR_TYPE_FLOAT16
          || info->type == GCG_TENSOR_TYPE_UINT8,
      "type %d", info->type);
  FUZZ_CHECK (info->channels == GCG_TENSOR_CHANNELS_RGB
          || info->channels == GCG_TENSOR_CHANNELS_BGR
          || info->channels == GCG_TENSOR_CHANNELS_GRAY,
      "channels %d", info->channels);
  for (guint c = 0; c < 3; c++) {
    gfloat scale = 1.0f / (255.0f * info->std[c]);
    gfloat offset = -info->mean[c] / info->std[c];

    FUZZ_CHECK (isfinite (info->mean[c]) && isfinite (info->std[c])
            && info->std[c] != 0.0f,
        "mean %g std %g", info->mean[c], info->std[c]);
    FUZZ_CHECK (isfinite (scale) && isfinite (offset)
            && isfinite (scale * 255.0f + offset),
        "mapping of mean %g std %g", info->mean[c], info->std[c]);
  }
}

/* The tensor's size; a dynamic batch (0) is the element's max-rois. */
static gsize
tensor_bytes (const GstCudaGraphModelInfo *info, guint max_rois)
{
  gsize elem = info->type == GCG_TENSOR_TYPE_UINT8 ? 1
      : info->type == GCG_TENSOR_TYPE_FLOAT16      ? 2
                                                   : 4;
  gsize c = info->channels == GCG_TENSOR_CHANNELS_GRAY ? 1 : 3;

  return (gsize) info->width * info->height * c * elem
      * (info->batch ? info->batch : max_rois);
}

/* The element refuses the file at set time (a warning of ours, expected
 * here) or takes it; any other warning or critical is fatal. */
static void
refusal_only (const gchar *domain, GLogLevelFlags level, const gchar *message,
    gpointer user_data)
{
  FUZZ_CHECK (strstr (message, "refusing property 'model-info'") != NULL,
      "unexpected %s warning: %s", domain, message);
  *(gboolean *) user_data = TRUE;
}

/* One frame through cudagraphpreprocess with the file: a tensor of the
 * file's size out, or, for a refused file, an error at start naming it. */
static void
run_element (const gchar *path, gboolean loaded,
    const GstCudaGraphModelInfo *info)
{
  static const guint8 grey[4] = { 100, 100, 100, 255 };
  g_autoptr (GstElement)
      e = gst_element_factory_make ("cudagraphpreprocess", NULL);
  g_autofree gchar *launch = NULL;
  g_autofree gchar *err = NULL;
  gboolean refused = FALSE;
  GstHarness *h;
  GstBuffer *out;
  guint id, max_rois;
  GLogLevelFlags fatal;

  gst_util_set_object_arg (G_OBJECT (e), "backend", "cpu");
  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  id = g_log_set_handler ("GstCudaGraph", G_LOG_LEVEL_WARNING, refusal_only,
      &refused);
  g_object_set (e, "model-info", path, NULL);
  g_log_remove_handler ("GstCudaGraph", id);
  g_log_set_always_fatal (fatal);
  FUZZ_CHECK (refused == !loaded, "the element %s a file the loader %s",
      refused ? "refused" : "took", loaded ? "read" : "refused");
  g_object_get (e, "max-rois", &max_rois, NULL);
  if (!loaded || tensor_bytes (info, max_rois) > MAX_RUN_BYTES) {
    err = gcg_test_start_error (e);
    FUZZ_CHECK ((err != NULL) == !loaded, "start error: %s", err);
    FUZZ_CHECK (err == NULL || strstr (err, path) != NULL,
        "the start error does not name the file: %s", err);
    n_start_refused += err != NULL;
    return;
  }
  launch =
      g_strdup_printf ("cudagraphpreprocess backend=cpu model-info=%s", path);
  h = gcg_test_harness_new (launch, RGBA_32x24, NULL);
  out = gcg_test_push_pull (h, gcg_test_solid_new (RGBA_32x24, grey, 4, 0));
  FUZZ_CHECK (gst_buffer_get_size (out) == tensor_bytes (info, max_rois),
      "output of %zu bytes, the file's tensor %zu", gst_buffer_get_size (out),
      tensor_bytes (info, max_rois));
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  n_run++;
}

static void
run_case (guint i)
{
  guint32 s[2] = { fuzz_seed, i };
  g_autoptr (GRand) r = g_rand_new_with_seed_array (s, 2);
  g_autoptr (GByteArray) bytes = mutated_file (r);
  g_autofree gchar *name = g_strdup_printf ("case-%u.modelinfo", i);
  g_autofree gchar *path = g_build_filename (tmp_dir, name, NULL);
  g_autoptr (GError) error = NULL;
  GstCudaGraphModelInfo info = { 0 };
  gboolean loaded;

  case_no = i;
  g_assert_true (g_file_set_contents (path, (const gchar *) bytes->data,
      bytes->len, NULL));
  if (g_getenv ("GCG_FUZZ_VERBOSE"))
    g_printerr ("case %u:\n%.*s\n", i, (int) bytes->len, bytes->data);
  loaded = gst_cuda_graph_model_info_load (path, &info, &error);
  if (loaded) {
    FUZZ_CHECK (error == NULL, "an error set on success");
    check_loaded (&info);
    n_loaded++;
  } else {
    FUZZ_CHECK (error != NULL, "refused without an error");
    FUZZ_CHECK (strstr (error->message, path) != NULL,
        "the error does not name the file: %s", error->message);
    n_refused++;
  }
  if (i % ELEMENT_EVERY == 0)
    run_element (path, loaded, &info);
  gst_cuda_graph_model_info_clear (&info);
  g_unlink (path);
  n_cases++;
}

static gint
compare_texts (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const gchar *const *) a, *(const gchar *const *) b);
}

static void
load_seeds (void)
{
  g_autofree gchar *dir =
      g_build_filename (GCG_TEST_DATA_DIR, "modelinfo", NULL);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  g_assert_nonnull (d);
  seeds = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (d)) != NULL) {
    g_autofree gchar *path = g_build_filename (dir, name, NULL);
    gchar *text = NULL;

    g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
    g_ptr_array_add (seeds, text);
  }
  /* Sorted, so the cases do not depend on the directory's order. */
  g_ptr_array_sort (seeds, compare_texts);
  g_assert_cmpuint (seeds->len, >=, 5);
}

static void
test_modelinfo_fuzz (void)
{
  guint first, n;

  gcg_test_fuzz_sweep (&fuzz_seed, &first, &n, DEFAULT_SEED, DEFAULT_CASES);
  load_seeds ();
  tmp_dir = g_dir_make_tmp ("gcg-fuzz-modelinfo-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  for (guint i = first; i < first + n; i++)
    run_case (i);
  g_rmdir (tmp_dir);
  g_test_message ("%u files read, %u refused; through the element: %u "
                  "run, %u refused at start",
      n_loaded, n_refused, n_run, n_start_refused);
  gcg_test_fuzz_ran ("modelinfo", n_cases, n);
  /* The sweep must reach both sides and the element's frame path. */
  if (n >= 500) {
    g_assert_cmpuint (n_loaded, >, n / 20);
    g_assert_cmpuint (n_refused, >, n / 20);
    g_assert_cmpuint (n_run, >, 0);
    g_assert_cmpuint (n_start_refused, >, 0);
  }
  g_clear_pointer (&tmp_dir, g_free);
  g_clear_pointer (&seeds, g_ptr_array_unref);
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  /* Criticals are bugs here, whatever GLib's defaults. */
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL
      | G_LOG_LEVEL_WARNING);

  g_test_add_func ("/modelinfo/fuzz", test_modelinfo_fuzz);
  return g_test_run ();
}
