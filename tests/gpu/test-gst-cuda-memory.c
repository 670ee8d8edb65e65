/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Zero-copy interop with GStreamer's CUDA memory: pipelines through
 * nvcodec's cudaupload / cudadownload give the same bytes as the same
 * conversion in system memory, in every mix of memory kinds, and the
 * elements share one GstCudaContext.  Skipped (TAP skip) without a GPU or
 * when nvcodec's elements are not registered.
 */
#include "gcg-gst-test-util.h"
#include "common/gcg-test-gst.h"
#include "common/gcg-test-gst-gpu.h"
#include "gcg-test-util.h"

#define SRC \
  "videotestsrc num-buffers=30 pattern=smpte ! " \
  "video/x-raw,format=NV12,width=640,height=480,framerate=30/1"
#define CUDA_RGBA \
  "video/x-raw(memory:CUDAMemory),format=RGBA,width=320," \
  "height=240"
#define SYS_RGBA "video/x-raw,format=RGBA,width=320,height=240"
#define SINK "appsink name=sink sync=false"
/* The capsfilter keeps cudaupload from passing system memory through. */
#define UPLOAD "cudaupload name=up ! video/x-raw(memory:CUDAMemory)"

static gboolean
have_nvcodec (void)
{
  g_autoptr (GstElementFactory) up = NULL;
  g_autoptr (GstElementFactory) down = NULL;

#ifndef HAVE_GST_CUDA
  gcg_test_no_gst_cuda ();
  return FALSE;
#endif
  if (!gcg_test_have_gpu ())
    return FALSE;
  up = gst_element_factory_find ("cudaupload");
  down = gst_element_factory_find ("cudadownload");
  if (up == NULL || down == NULL) {
    gcg_test_skip_or_fail (
        "nvcodec's cudaupload/cudadownload are not registered");
    return FALSE;
  }
  return TRUE;
}

/* Adds the in-place counts of a cudagraph-stats message to @user_data
 * (inputs, outputs). */
static void
add_in_place (const GstStructure *s, gpointer user_data)
{
  guint64 *in_place = user_data;
  guint64 in = 0, out = 0;

  if (gst_structure_get_uint64 (s, "in-place-inputs", &in)
      && gst_structure_get_uint64 (s, "in-place-outputs", &out)) {
    in_place[0] += in;
    in_place[1] += out;
  }
}

/* Fails on an error message; adds the in-place counts of every
 * cudagraph-stats message to @in_place. */
static void
read_bus (GstElement *pipeline, const gchar *launch, guint64 in_place[2])
{
  g_autoptr (GstBus) bus = gst_element_get_bus (pipeline);

  gcg_test_bus_foreach_stats (bus, launch, add_in_place, in_place);
}

/* Runs @launch to EOS and returns every frame's bytes; @frames gets their
 * count, @in_place the frames our elements read and wrote in place.
 * @check (may be NULL) sees the pipeline while it plays. */
static GByteArray *
run_pipeline (const gchar *launch, guint *frames, guint64 in_place[2],
    void (*check) (GstElement *pipeline))
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) pipeline = gst_parse_launch (launch, &error);
  g_autoptr (GstElement) sink = NULL;
  GByteArray *bytes = g_byte_array_new ();
  GstSample *sample = NULL;
  gboolean eos = FALSE;

  g_assert_no_error (error);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  *frames = 0;
  for (;;) {
    /* Never blocks for good: an error upstream brings no EOS. */
    g_signal_emit_by_name (sink, "try-pull-sample", 20 * GST_SECOND, &sample);
    if (sample == NULL)
      break;
    if (*frames == 0 && check)
      check (pipeline);
    gcg_test_append_visible (bytes, gst_sample_get_buffer (sample),
        gst_sample_get_caps (sample));
    gst_sample_unref (sample);
    (*frames)++;
  }
  g_object_get (sink, "eos", &eos, NULL);
  /* Before NULL, which flushes the bus. */
  read_bus (pipeline, launch, in_place);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_assert_true (eos);
  return bytes;
}

/* @launch gives exactly the frames @reference gives, and its elements read
 * @in_place_in and wrote @in_place_out frames of CUDA memory in place (no
 * copy between host and device). */
static void
assert_same_output (const gchar *launch, const gchar *reference,
    guint64 in_place_in, guint64 in_place_out,
    void (*check) (GstElement *pipeline))
{
  guint n_a = 0, n_b = 0;
  guint64 in_place[2] = { 0, 0 }, ref_in_place[2] = { 0, 0 };
  g_autoptr (GByteArray) a = run_pipeline (launch, &n_a, in_place, check);
  g_autoptr (GByteArray) b = run_pipeline (reference, &n_b, ref_in_place, NULL);

  g_test_message ("%s: %u frames, %u bytes, %" G_GUINT64_FORMAT " in place "
                  "in, %" G_GUINT64_FORMAT " out",
      launch, n_a, a->len, in_place[0], in_place[1]);
  g_assert_cmpuint (in_place[0], ==, in_place_in);
  g_assert_cmpuint (in_place[1], ==, in_place_out);
  g_assert_cmpuint (n_a, ==, 30);
  g_assert_cmpuint (n_a, ==, n_b);
  g_assert_cmpuint (a->len, ==, b->len);
  g_assert_cmpmem (a->data, a->len, b->data, b->len);
}

/* The object in @element's "gst.cuda.context", or NULL. */
static gpointer
element_cuda_context (GstElement *pipeline, const gchar *name)
{
  g_autoptr (GstElement) e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  GstContext *context = gst_element_get_context (e, "gst.cuda.context");
  const GValue *v;
  gpointer obj = NULL;

  if (context == NULL)
    return NULL;
  v = gst_structure_get_value (gst_context_get_structure (context),
      "gst.cuda.context");
  if (v && G_VALUE_HOLDS_OBJECT (v))
    obj = g_value_get_object (v);
  gst_context_unref (context);
  return obj;
}

/* One GstCudaContext for cudaupload, us and cudadownload. */
static void
check_shared_context (GstElement *pipeline)
{
  gpointer ours = element_cuda_context (pipeline, "conv");

  g_assert_nonnull (ours);
  g_assert_true (element_cuda_context (pipeline, "up") == ours);
  g_assert_true (element_cuda_context (pipeline, "down") == ours);
}

static void
test_cuda_in_cuda_out (void)
{
  if (!have_nvcodec ())
    return;
  assert_same_output (SRC " ! " UPLOAD " ! cudagraphconvert name=conv "
                          "backend=cuda ! " CUDA_RGBA
                          " ! cudadownload name=down ! " SINK,
      SRC " ! cudagraphconvert backend=cuda ! " SYS_RGBA " ! " SINK, 30, 30,
      check_shared_context);
}

static void
test_cuda_in_system_out (void)
{
  if (!have_nvcodec ())
    return;
  assert_same_output (SRC
      " ! " UPLOAD " ! cudagraphconvert backend=cuda ! " SYS_RGBA " ! " SINK,
      SRC " ! cudagraphconvert backend=cuda ! " SYS_RGBA " ! " SINK, 30, 0,
      NULL);
}

static void
test_system_in_cuda_out (void)
{
  if (!have_nvcodec ())
    return;
  assert_same_output (SRC " ! cudagraphconvert backend=cuda ! " CUDA_RGBA
                          " ! cudadownload ! " SINK,
      SRC " ! cudagraphconvert backend=cuda ! " SYS_RGBA " ! " SINK, 0, 30,
      NULL);
}

/* Tensors (system memory) from CUDA memory read in place. */
static void
test_preprocess_from_cuda (void)
{
  if (!have_nvcodec ())
    return;
  assert_same_output (SRC
      " ! " UPLOAD " ! cudagraphpreprocess backend=cuda "
      "width=224 height=224 letterbox=symmetric ! other/tensors ! " SINK,
      SRC " ! cudagraphpreprocess backend=cuda width=224 height=224 "
          "letterbox=symmetric ! " SINK,
      30, 0, NULL);
}

/* Two of our elements back to back in CUDA memory: the chain of the second
 * reads what the first wrote, in place. */
static void
test_convert_chain_in_cuda (void)
{
  if (!have_nvcodec ())
    return;
  assert_same_output (SRC
      " ! " UPLOAD " ! cudagraphconvert backend=cuda ! "
      "video/x-raw(memory:CUDAMemory),format=RGBA,width=640,height=480 ! "
      "cudagraphconvert backend=cuda ! " CUDA_RGBA " ! cudadownload ! " SINK,
      SRC " ! cudagraphconvert backend=cuda ! video/x-raw,format=RGBA,"
          "width=640,height=480 ! cudagraphconvert backend=cuda ! " SYS_RGBA
          " ! " SINK,
      60, 60, NULL);
}

int
main (int argc, char **argv)
{
  gcg_test_add_bundle_plugins ();
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gst/cuda-memory/cuda-in-cuda-out", test_cuda_in_cuda_out);
  g_test_add_func ("/gst/cuda-memory/cuda-in-system-out",
      test_cuda_in_system_out);
  g_test_add_func ("/gst/cuda-memory/system-in-cuda-out",
      test_system_in_cuda_out);
  g_test_add_func ("/gst/cuda-memory/preprocess-from-cuda",
      test_preprocess_from_cuda);
  g_test_add_func ("/gst/cuda-memory/convert-chain-in-cuda",
      test_convert_chain_in_cuda);
  return g_test_run ();
}
