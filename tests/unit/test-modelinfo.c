/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GStreamer `.modelinfo` files (tests/data/modelinfo) read by the parser
 * and through cudagraphpreprocess's model-info property: the properties
 * and tensor caps they give, the values of a normalised frame, and the
 * errors for files the element cannot honour.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gcg-gst-test-util.h"

#include "../../gst/elements/gstcudagraphmodelinfo.h"

#define PREPROCESS "cudagraphpreprocess backend=cpu"
#define RGBA_64x48 "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1"

static const guint8 grey100[4] = { 100, 100, 100, 255 };

static gchar *
data_path (const gchar *name)
{
  return g_build_filename (GCG_TEST_DATA_DIR, "modelinfo", name, NULL);
}

static void
load_ok (const gchar *name, GstCudaGraphModelInfo *info)
{
  g_autofree gchar *path = data_path (name);
  g_autoptr (GError) error = NULL;

  g_assert_true (gst_cuda_graph_model_info_load (path, info, &error));
  g_assert_no_error (error);
}

static void
assert_triple (const gfloat *v, gfloat a, gfloat b, gfloat c)
{
  g_assert_cmpfloat_with_epsilon (v[0], a, 1e-6);
  g_assert_cmpfloat_with_epsilon (v[1], b, 1e-6);
  g_assert_cmpfloat_with_epsilon (v[2], c, 1e-6);
}

static void
test_nchw_f32_rgb (void)
{
  GstCudaGraphModelInfo info = { 0 };

  load_ok ("nchw-f32-rgb.modelinfo", &info);
  g_assert_cmpstr (info.tensor_name, ==, "input");
  g_assert_cmpuint (info.width, ==, 224);
  g_assert_cmpuint (info.height, ==, 224);
  g_assert_cmpuint (info.batch, ==, 1);
  g_assert_cmpint (info.layout, ==, GCG_TENSOR_LAYOUT_NCHW);
  g_assert_cmpint (info.type, ==, GCG_TENSOR_TYPE_FLOAT32);
  g_assert_cmpint (info.channels, ==, GCG_TENSOR_CHANNELS_RGB);
  /* The file's ranges are ImageNet's mean/std rewritten. */
  assert_triple (info.mean, 0.485f, 0.456f, 0.406f);
  assert_triple (info.std, 0.229f, 0.224f, 0.225f);
  gst_cuda_graph_model_info_clear (&info);
}

static void
test_nhwc_u8 (void)
{
  GstCudaGraphModelInfo info = { 0 };

  load_ok ("nhwc-u8.modelinfo", &info);
  g_assert_cmpstr (info.tensor_name, ==, "normalized_input_image_tensor");
  g_assert_cmpuint (info.width, ==, 300);
  g_assert_cmpuint (info.height, ==, 300);
  g_assert_cmpuint (info.batch, ==, 0);
  g_assert_cmpint (info.layout, ==, GCG_TENSOR_LAYOUT_NHWC);
  g_assert_cmpint (info.type, ==, GCG_TENSOR_TYPE_UINT8);
  /* No ranges: 0-255 passed through. */
  assert_triple (info.mean, 0.0f, 0.0f, 0.0f);
  assert_triple (info.std, 1.0f / 255, 1.0f / 255, 1.0f / 255);
  gst_cuda_graph_model_info_clear (&info);
}

static void
test_bgr_col_major (void)
{
  GstCudaGraphModelInfo info = { 0 };

  load_ok ("bgr-batch.modelinfo", &info);
  g_assert_cmpuint (info.width, ==, 128);
  g_assert_cmpuint (info.height, ==, 64);
  g_assert_cmpuint (info.batch, ==, 4);
  g_assert_cmpint (info.layout, ==, GCG_TENSOR_LAYOUT_NCHW);
  g_assert_cmpint (info.type, ==, GCG_TENSOR_TYPE_FLOAT16);
  g_assert_cmpint (info.channels, ==, GCG_TENSOR_CHANNELS_BGR);
  /* -1..1: (p / 255 - 0.5) / 0.5. */
  assert_triple (info.mean, 0.5f, 0.5f, 0.5f);
  assert_triple (info.std, 0.5f, 0.5f, 0.5f);
  gst_cuda_graph_model_info_clear (&info);
}

/* Loading @name fails with @code and a message containing @words. */
static void
assert_file_refused (const gchar *name, gint code, const gchar *words)
{
  g_autofree gchar *path = data_path (name);
  g_autoptr (GError) error = NULL;
  GstCudaGraphModelInfo info = { 0 };

  g_assert_false (gst_cuda_graph_model_info_load (path, &info, &error));
  g_assert_error (error, GST_RESOURCE_ERROR, code);
  if (strstr (error->message, words) == NULL)
    g_error ("\"%s\" does not say \"%s\"", error->message, words);
  g_assert_null (info.tensor_name);
}

static void
test_files_refused (void)
{
  assert_file_refused ("missing.modelinfo", GST_RESOURCE_ERROR_NOT_FOUND,
      "missing.modelinfo");
  assert_file_refused ("not-keyfile.modelinfo", GST_RESOURCE_ERROR_OPEN_READ,
      "not a key file");
  assert_file_refused ("no-input.modelinfo", GST_RESOURCE_ERROR_SETTINGS,
      "no input tensor");
  assert_file_refused ("bad-type.modelinfo", GST_RESOURCE_ERROR_SETTINGS,
      "type \"int64\"");
  assert_file_refused ("dynamic-size.modelinfo", GST_RESOURCE_ERROR_SETTINGS,
      "dynamic height");
  assert_file_refused ("bad-ranges.modelinfo", GST_RESOURCE_ERROR_SETTINGS,
      "min below max");
  assert_file_refused ("bad-version.modelinfo", GST_RESOURCE_ERROR_SETTINGS,
      "version \"2.0\"");
  /* A directory is not a model description. */
  assert_file_refused ("", GST_RESOURCE_ERROR_OPEN_READ, "regular file");
}

/* stat() as the process sees it (GLib's g_stat() is stat() on Unix):
 * while @swap_path is set, a check of that path is answered first, then
 * the path is made a FIFO, as another process could between a check by
 * name and an open by name. */
static gchar *swap_path;

/* Exported (the tests build with -fvisibility=hidden), so that GLib's
 * call reaches it. */
G_GNUC_UNUSED __attribute__ ((visibility ("default"))) int
stat (const char *restrict path, struct stat *restrict buf)
{
  int ret = fstatat (AT_FDCWD, path, buf, 0);

  if (swap_path != NULL && strcmp (path, swap_path) == 0) {
    g_assert_cmpint (unlink (path), ==, 0);
    g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  }
  return ret;
}

/* A model description swapped for a FIFO after any check by name: the
 * load never waits on it (failed before, once stat() was exported: the
 * file was checked by name,
 * then g_key_file_load_from_file() opened the FIFO and waited for a
 * writer for ever; the alarm kills the test then).  It is opened once,
 * and whatever that open finds is what is judged and read. */
static void
test_swapped_for_fifo (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("gcg-minfo-XXXXXX", NULL);
  g_autofree gchar *good = data_path ("nchw-f32-rgb.modelinfo");
  g_autofree gchar *path = g_build_filename (dir, "m.modelinfo", NULL);
  g_autofree gchar *text = NULL;
  g_autoptr (GError) error = NULL;
  GstCudaGraphModelInfo info = { 0 };
  gsize len;

  g_assert_true (g_file_get_contents (good, &text, &len, NULL));
  g_assert_true (g_file_set_contents (path, text, len, NULL));
  swap_path = path;
  alarm (20);
  if (gst_cuda_graph_model_info_load (path, &info, &error))
    g_assert_cmpstr (info.tensor_name, ==, "input");
  else
    g_assert_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ);
  alarm (0);
  swap_path = NULL;
  gst_cuda_graph_model_info_clear (&info);
  g_clear_error (&error);
  /* A FIFO there from the start: refused at once, not waited on. */
  g_unlink (path);
  g_assert_cmpint (mkfifo (path, 0600), ==, 0);
  alarm (20);
  g_assert_false (gst_cuda_graph_model_info_load (path, &info, &error));
  alarm (0);
  g_assert_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ);
  g_assert_nonnull (strstr (error->message, "regular file"));
  g_unlink (path);
  g_rmdir (dir);
}

/* A file larger than its size says (a /proc file says 0 bytes) is read
 * no further than the bound (failed before: the size was checked by
 * stat(), then the whole file, 5 MB here, was read and refused as "not
 * a key file"). */
static void
test_read_bounded (void)
{
  const gchar *path = "/proc/kallsyms";
  g_autoptr (GError) error = NULL;
  GstCudaGraphModelInfo info = { 0 };
  GStatBuf st;

  g_autofree gchar *whole = NULL;
  gsize len = 0;

  if (g_stat (path, &st) != 0 || st.st_size != 0
      || !g_file_get_contents (path, &whole, &len, NULL)
      || len <= 1024 * 1024) {
    g_test_skip ("no /proc/kallsyms of more than 1 MiB to read");
    return;
  }
  g_assert_false (gst_cuda_graph_model_info_load (path, &info, &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ);
  if (strstr (error->message, "not a key file") != NULL)
    g_error ("%s: read whole", error->message);
  g_assert_nonnull (strstr (error->message, "larger than"));
}

/* open() and read() as the process sees them (GLib calls open64, the
 * library openat64): while @watch_path is set, the opens naming it are
 * counted, and the bytes read through the last descriptor they gave.
 * Each passes on to the C library's own (the symbol after this one);
 * exported, as stat() above. */
static const gchar *watch_path;
static guint n_opens;
static gint watch_fd = -1;
static gsize n_read;

static int
watched (const char *path, int fd)
{
  if (watch_path != NULL && fd >= 0 && strcmp (path, watch_path) == 0) {
    n_opens++;
    watch_fd = fd;
  }
  return fd;
}

#define WATCHED_OPEN(NAME, SYMBOL) \
  __attribute__ ((visibility ("default"))) int NAME (const char *path, \
      int flags, ...) __asm__ (SYMBOL); \
  int NAME (const char *path, int flags, ...) \
  { \
    int (*real) (const char *, int, ...) = dlsym (RTLD_NEXT, SYMBOL); \
    va_list args; \
    mode_t mode; \
\
    va_start (args, flags); \
    mode = va_arg (args, mode_t); \
    va_end (args); \
    return watched (path, real (path, flags, mode)); \
  }
#define WATCHED_OPENAT(NAME, SYMBOL) \
  __attribute__ ((visibility ("default"))) int NAME (int dir, \
      const char *path, int flags, ...) __asm__ (SYMBOL); \
  int NAME (int dir, const char *path, int flags, ...) \
  { \
    int (*real) (int, const char *, int, ...) = dlsym (RTLD_NEXT, SYMBOL); \
    va_list args; \
    mode_t mode; \
\
    va_start (args, flags); \
    mode = va_arg (args, mode_t); \
    va_end (args); \
    return watched (path, real (dir, path, flags, mode)); \
  }
WATCHED_OPEN (watched_open, "open")
WATCHED_OPEN (watched_open64, "open64")
WATCHED_OPENAT (watched_openat, "openat")
WATCHED_OPENAT (watched_openat64, "openat64")

__attribute__ ((visibility ("default"))) ssize_t watched_read (int fd,
    void *buf, size_t n) __asm__ ("read");

ssize_t
watched_read (int fd, void *buf, size_t n)
{
  ssize_t (*real) (int, void *, size_t) = dlsym (RTLD_NEXT, "read");
  ssize_t got = real (fd, buf, n);

  if (watch_path != NULL && fd == watch_fd && got > 0)
    n_read += got;
  return got;
}

/* Loads @path while watching it: the opens naming it, the bytes read. */
static gboolean
load_watched (const gchar *path, GError **error)
{
  GstCudaGraphModelInfo info = { 0 };
  gboolean ok;

  n_opens = 0;
  n_read = 0;
  watch_fd = -1;
  watch_path = path;
  ok = gst_cuda_graph_model_info_load (path, &info, error);
  watch_path = NULL;
  gst_cuda_graph_model_info_clear (&info);
  return ok;
}

/* A model description is named once: one open, no check by name (the
 * stat() above would see it), and what that open gives is what is read
 * (failed before: stat() by name, then a second open by
 * g_key_file_load_from_file()).  A file over the 1 MiB limit (sparse, 1
 * GiB) is refused with not a byte read (the descriptor's size says so
 * before any read). */
static void
test_one_open (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("gcg-minfo-XXXXXX", NULL);
  g_autofree gchar *good = data_path ("nchw-f32-rgb.modelinfo");
  g_autofree gchar *path = g_build_filename (dir, "m.modelinfo", NULL);
  g_autofree gchar *big = g_build_filename (dir, "big.modelinfo", NULL);
  g_autofree gchar *text = NULL;
  g_autoptr (GError) error = NULL;
  gsize len;
  gint fd;

  g_assert_true (g_file_get_contents (good, &text, &len, NULL));
  g_assert_true (g_file_set_contents (path, text, len, NULL));
  /* A stat() by name would make it a FIFO, and an open by name wait on
   * it: the alarm ends the test then. */
  swap_path = path;
  alarm (20);
  g_assert_true (load_watched (path, &error));
  alarm (0);
  swap_path = NULL;
  g_assert_no_error (error);
  g_assert_cmpuint (n_opens, ==, 1);
  g_assert_cmpuint (n_read, ==, len);

  fd = open (big, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (ftruncate (fd, (off_t) 1 << 30), ==, 0);
  close (fd);
  g_assert_false (load_watched (big, &error));
  g_assert_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ);
  g_assert_nonnull (strstr (error->message, "larger than"));
  g_assert_cmpuint (n_opens, ==, 1);
  g_assert_cmpuint (n_read, ==, 0);
  g_unlink (big);
  g_unlink (path);
  g_rmdir (dir);
}

/* An [input] group of @body (after dir=input) fails with @words. */
/* Parses a file whose input tensor group holds @body. */
static gboolean
parse_input (const gchar *body, GstCudaGraphModelInfo *info, GError **error)
{
  g_autofree gchar *text = g_strdup_printf ("[modelinfo]\nversion=1.0\n"
                                            "[input]\ndir=input\n%s",
      body);
  g_autoptr (GKeyFile) kf = g_key_file_new ();

  g_key_file_set_list_separator (kf, ',');
  g_assert_true (g_key_file_load_from_data (kf, text, -1, 0, NULL));
  return gst_cuda_graph_model_info_parse (kf, info, error);
}

static void
assert_input_refused (const gchar *body, const gchar *words)
{
  g_autoptr (GError) error = NULL;
  GstCudaGraphModelInfo info = { 0 };

  g_assert_false (parse_input (body, &info, &error));
  g_assert_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS);
  if (strstr (error->message, words) == NULL)
    g_error ("\"%s\" does not say \"%s\"", error->message, words);
}

static void
test_inputs_refused (void)
{
  assert_input_refused ("type=float32\n", "dims must be");
  assert_input_refused ("type=float32\ndims=1,3,a,224\n", "not integers");
  assert_input_refused ("type=float32\ndims=1,3,224,224,1\n", "3 or 4");
  assert_input_refused ("type=float32\ndims=1,4,224,224\n", "channel");
  assert_input_refused ("type=float32\ndims=-1,3,224,-1\n", "dynamic width");
  assert_input_refused ("type=float32\ndims=1,3,0,224\n", "height 0");
  assert_input_refused ("type=float32\ndims=1,3,20000,224\n", "height 20000");
  assert_input_refused ("type=float32\ndims=65,3,224,224\n", "batch 65");
  assert_input_refused ("type=float32\ndims=1,3,8,8\ndims-order=diagonal\n",
      "dims-order");
  assert_input_refused ("dims=1,3,8,8\n", "(missing)");
  assert_input_refused ("type=float32\ndims=1,3,8,8\nranges=0,1;0,1\n",
      "2 pairs");
  assert_input_refused ("type=float32\ndims=1,3,8,8\nranges=0,x\n",
      "not \"min,max\"");
  assert_input_refused ("type=float32\ndims=1,3,8,8\nranges=1,0\n",
      "min below max");
  assert_input_refused ("type=float32\ndims=1,3,8,8\nranges=0,1e-300\n",
      "far enough");
  assert_input_refused ("type=float32\ndims=1,3,8,8\ncaps=video/x-raw\n",
      "format of RGB");
  assert_input_refused ("type=float32\ndims=1,3,8,8\n"
                        "caps=video/x-raw,format=GRAY8\n",
      "does not match");
  /* Accepted by the parse but every frame refused: scale 1/(255 std)
   * overflows float32. */
  assert_input_refused ("type=float32\ndims=1,3,8,8\nranges=-5e43,5e43\n",
      "spans too much");
  /* Caps strings GStreamer's parser meets with criticals or warnings:
   * refused with our error alone (a critical would fail this test). */
  assert_input_refused ("type=float32\ndims=1,3,8,8\n"
                        "caps=8ideo/x-raw,format=RGB\n",
      "format of RGB");
  assert_input_refused ("type=float32\ndims=1,3,8,8\ncaps=24Y\n",
      "format of RGB");
  assert_input_refused ("type=float32\ndims=1,3,8,8\n"
                        "caps=video/x-raw(memory=CUDAMemory),format=BGR\n",
      "format of RGB");
  assert_input_refused ("type=float32\ndims=1,3,8,8\n"
                        "caps=video/x-raw,format={RGB,BGR}\n",
      "format of RGB");
}

/* Caps strings in the forms GStreamer writes are read. */
static void
test_caps_forms (void)
{
  static const gchar *forms[] = {
    "video/x-raw,format=BGR",
    "video/x-raw, format=(string)BGR, width=(int)8",
    "video/x-raw(memory:CUDAMemory),width=8,format=\"BGR\"",
    "video/x-raw,format=BGR;video/x-raw,format=RGB",
  };

  for (guint i = 0; i < G_N_ELEMENTS (forms); i++) {
    g_autofree gchar *body = g_strdup_printf ("type=float32\n"
                                              "dims=1,3,8,8\ncaps=%s\n",
        forms[i]);
    g_autoptr (GError) error = NULL;
    GstCudaGraphModelInfo info = { 0 };

    g_assert_true (parse_input (body, &info, &error));
    g_assert_no_error (error);
    g_assert_cmpint (info.channels, ==, GCG_TENSOR_CHANNELS_BGR);
    gst_cuda_graph_model_info_clear (&info);
  }
}

static void
test_gray_three_dims (void)
{
  const gchar *text = "[frame]\ntype=uint8\ndims=1,32,16\n"
                      "caps=video/x-raw,format=GRAY8\nranges=0,255;\n";
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) error = NULL;
  GstCudaGraphModelInfo info = { 0 };

  /* No [modelinfo] group and no dir: read as the only tensor. */
  g_key_file_set_list_separator (kf, ',');
  g_assert_true (g_key_file_load_from_data (kf, text, -1, 0, NULL));
  g_assert_true (gst_cuda_graph_model_info_parse (kf, &info, &error));
  g_assert_no_error (error);
  g_assert_cmpint (info.channels, ==, GCG_TENSOR_CHANNELS_GRAY);
  g_assert_cmpint (info.layout, ==, GCG_TENSOR_LAYOUT_NCHW);
  g_assert_cmpuint (info.batch, ==, 1);
  g_assert_cmpuint (info.height, ==, 32);
  g_assert_cmpuint (info.width, ==, 16);
  gst_cuda_graph_model_info_clear (&info);
}

static GstElement *
preprocess_with (const gchar *name)
{
  GstElement *e = gst_element_factory_make ("cudagraphpreprocess", NULL);
  g_autofree gchar *path = data_path (name);

  g_assert_nonnull (e);
  gst_util_set_object_arg (G_OBJECT (e), "backend", "cpu");
  g_object_set (e, "model-info", path, NULL);
  return e;
}

static gchar *
negotiated_caps (const gchar *name)
{
  g_autofree gchar *path = data_path (name);
  g_autofree gchar *launch =
      g_strdup_printf (PREPROCESS " model-info=%s", path);
  GstHarness *h = gcg_test_harness_new (launch, RGBA_64x48, NULL);
  g_autoptr (GstCaps) caps = NULL;
  GstBuffer *out;
  gchar *str;

  out = gcg_test_push_pull (h, gcg_test_solid_new (RGBA_64x48, grey100, 4, 0));
  caps = gst_pad_get_current_caps (h->sinkpad);
  str = g_strdup_printf ("%s %s",
      gst_structure_get_string (gst_caps_get_structure (caps, 0), "dimensions"),
      gst_structure_get_string (gst_caps_get_structure (caps, 0), "types"));
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  return str;
}

static void
test_element_properties (void)
{
  g_autoptr (GstElement) e = preprocess_with ("bgr-batch.modelinfo");
  g_autofree gchar *mean = NULL, *std = NULL, *path = NULL;
  guint width, height, max_rois;
  gint layout, type, channels;

  g_object_get (e, "width", &width, "height", &height, "max-rois", &max_rois,
      "layout", &layout, "tensor-type", &type, "channels", &channels, "mean",
      &mean, "std", &std, "model-info", &path, NULL);
  g_assert_cmpuint (width, ==, 128);
  g_assert_cmpuint (height, ==, 64);
  g_assert_cmpuint (max_rois, ==, 4);
  g_assert_cmpint (layout, ==, GCG_TENSOR_LAYOUT_NCHW);
  g_assert_cmpint (type, ==, GCG_TENSOR_TYPE_FLOAT16);
  g_assert_cmpint (channels, ==, GCG_TENSOR_CHANNELS_BGR);
  g_assert_cmpstr (mean, ==, "0.5,0.5,0.5");
  g_assert_cmpstr (std, ==, "0.5,0.5,0.5");
  g_assert_true (g_str_has_suffix (path, "bgr-batch.modelinfo"));

  /* A property set afterwards overrides the file's value. */
  g_object_set (e, "width", 96, NULL);
  g_object_get (e, "width", &width, "height", &height, NULL);
  g_assert_cmpuint (width, ==, 96);
  g_assert_cmpuint (height, ==, 64);
}

static void
test_element_caps (void)
{
  g_autofree gchar *nchw = negotiated_caps ("nchw-f32-rgb.modelinfo");
  g_autofree gchar *nhwc = negotiated_caps ("nhwc-u8.modelinfo");
  g_autofree gchar *bgr = negotiated_caps ("bgr-batch.modelinfo");

  /* NNStreamer's dimensions, innermost first: NCHW is W:H:C:N. */
  g_assert_cmpstr (nchw, ==, "224:224:3:1 float32");
  g_assert_cmpstr (nhwc, ==, "3:300:300:1 uint8");
  g_assert_cmpstr (bgr, ==, "128:64:3:4 float16");
}

/* A uniform grey frame through the ImageNet ranges: each channel holds
 * (100 / 255 - mean) / std, as the mean/std properties would give. */
static void
test_element_values (void)
{
  g_autofree gchar *path = data_path ("nchw-f32-rgb.modelinfo");
  g_autofree gchar *launch =
      g_strdup_printf (PREPROCESS " model-info=%s", path);
  GstHarness *h = gcg_test_harness_new (launch, RGBA_64x48, NULL);
  const gfloat mean[3] = { 0.485f, 0.456f, 0.406f };
  const gfloat std[3] = { 0.229f, 0.224f, 0.225f };
  GstBuffer *out;
  GstMapInfo map;

  out = gcg_test_push_pull (h, gcg_test_solid_new (RGBA_64x48, grey100, 4, 0));
  g_assert_true (gst_buffer_map (out, &map, GST_MAP_READ));
  g_assert_cmpuint (map.size, ==, 3 * 224 * 224 * sizeof (gfloat));
  for (guint c = 0; c < 3; c++) {
    const gfloat *plane = (const gfloat *) map.data + c * 224 * 224;
    gfloat want = (100.0f / 255.0f - mean[c]) / std[c];

    /* Centre and a corner (letterboxed 64x48: the image fills the width,
     * row 0 is padding). */
    g_assert_cmpfloat_with_epsilon (plane[112 * 224 + 112], want, 1e-4);
    g_assert_cmpfloat (plane[0], ==, 0.0f);
  }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* A file the element cannot honour: a warning at set time, the old
 * properties kept, and an error naming the problem when it starts. */
static void
test_element_error (void)
{
  g_autoptr (GstElement) e = NULL;
  g_autoptr (GstBus) bus = gst_bus_new ();
  g_autoptr (GstMessage) msg = NULL;
  g_autoptr (GError) error = NULL;
  guint width;

  g_test_expect_message ("GstCudaGraph", G_LOG_LEVEL_WARNING,
      "*refusing property 'model-info'*dynamic height*will not start*");
  e = preprocess_with ("dynamic-size.modelinfo");
  g_test_assert_expected_messages ();
  g_object_get (e, "width", &width, NULL);
  g_assert_cmpuint (width, ==, 640);
  gst_element_set_bus (e, bus);
  g_assert_cmpint (gst_element_set_state (e, GST_STATE_PAUSED), ==,
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  gst_message_parse_error (msg, &error, NULL);
  g_assert_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS);
  g_assert_nonnull (strstr (error->message, "dynamic height"));
  gst_element_set_state (e, GST_STATE_NULL);

  /* Clearing the property clears the error. */
  g_object_set (e, "model-info", NULL, NULL);
  g_assert_cmpint (gst_element_set_state (e, GST_STATE_PAUSED), !=,
      GST_STATE_CHANGE_FAILURE);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/modelinfo/nchw-f32-rgb", test_nchw_f32_rgb);
  g_test_add_func ("/modelinfo/nhwc-u8", test_nhwc_u8);
  g_test_add_func ("/modelinfo/caps-forms", test_caps_forms);
  g_test_add_func ("/modelinfo/bgr-col-major", test_bgr_col_major);
  g_test_add_func ("/modelinfo/gray-three-dims", test_gray_three_dims);
  g_test_add_func ("/modelinfo/files-refused", test_files_refused);
  g_test_add_func ("/modelinfo/swapped-for-fifo", test_swapped_for_fifo);
  g_test_add_func ("/modelinfo/read-bounded", test_read_bounded);
  g_test_add_func ("/modelinfo/one-open", test_one_open);
  g_test_add_func ("/modelinfo/inputs-refused", test_inputs_refused);
  g_test_add_func ("/modelinfo/element/properties", test_element_properties);
  g_test_add_func ("/modelinfo/element/caps", test_element_caps);
  g_test_add_func ("/modelinfo/element/values", test_element_values);
  g_test_add_func ("/modelinfo/element/error", test_element_error);
  return g_test_run ();
}
