/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * More than one GPU (issue 40): cudagraphconvert, cudagraphpreprocess and
 * cudagraphbatch with cuda-device-id=1, alone and beside the same element
 * on device 0 in one pipeline, behind cudaupload or NVDEC on their own
 * device (nvcodec's decoder of GPU N: nvh264deviceNdec, whose
 * cuda-device-id is read-only).  Every output buffer is GstCudaMemory on
 * its element's device (asked of the driver: cuPointerGetAttribute's device ordinal),
 * the inputs were read in place (cudagraph-stats), and the bytes equal
 * the same pipeline's on device 0.  Upstream memory on another device
 * than the element's is copied through the host: the output is still on
 * the element's device and byte-equal, and the copy is counted
 * (in-place-inputs stays 0; docs/scaling.md).
 *
 * Skipped (TAP skip) with fewer than two CUDA devices, even under
 * GCG_TEST_REQUIRE_GPU=1 (the GPU host's usual one-GPU run);
 * GCG_TEST_REQUIRE_GPUS=2 makes that a failure, on a two-GPU host.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "gcg-gst-test-util.h"
#include "common/gcg-test-gst.h"
#include "common/gcg-test-gst-gpu.h"
#include "gcg-test-util.h"

/* gstreamer-cuda's flag for a device map (gst/cuda/gstcudamemory.h, which
 * needs cuda.h: not on the tests' include path). */
#ifndef GST_MAP_CUDA
#define GST_MAP_CUDA (GST_MAP_FLAG_LAST << 1)
#endif

/* cuda.h's values for cuPointerGetAttribute(). */
#define CU_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL 9
#define CU_MEMORYTYPE_DEVICE 2
typedef int (*PointerGetAttribute) (void *data, int attribute, guint64 ptr);

#define N_FRAMES 30
/* Frames of an NVDEC stream: the checked-in clip's. */
#define N_CLIP_FRAMES 30
#define MAX_BRANCHES 2

/* A stream in CUDA memory of device %d. */
#define UPLOAD_SRC \
  "videotestsrc num-buffers=30 pattern=%s ! " \
  "video/x-raw,format=NV12,width=640,height=480,framerate=30/1 ! " \
  "cudaupload cuda-device-id=%d ! video/x-raw(memory:CUDAMemory)"
#define NVDEC_SRC \
  "filesrc location=%s ! qtdemux ! h264parse ! %s ! " \
  "video/x-raw(memory:CUDAMemory)"
/* nvcodec's decoders per GPU (see decoder_for_device()). */
#define MAX_DECODERS 16
#define SINK "appsink name=sink%u sync=false"

typedef enum
{
  KIND_CONVERT,
  KIND_PREPROCESS,
  KIND_BATCH,
  KIND_BATCH_NVDEC,
} Kind;

/* Branch @i of a pipeline: the element of @kind on @device, fed from
 * @src_device, into appsink sink@i. */
typedef struct
{
  Kind kind;
  gint device;
  gint src_device;
} Branch;

/* What a pipeline gave on one branch. */
typedef struct
{
  GByteArray *bytes;
  guint frames;
  /* From the element's cudagraph-stats; G_MAXUINT64 when it has none
   * (cudagraphbatch). */
  guint64 in_place_in;
  guint64 in_place_out;
} Output;

static gchar *
clip_path (void)
{
  /* tests/meson.build points GCG_EXAMPLES_DIR at the source tree's. */
  g_autofree gchar *src = g_path_get_dirname (g_getenv ("GCG_EXAMPLES_DIR"));

  return g_build_filename (src, "tests", "data", "analytics",
      "solid-64-128-192.mp4", NULL);
}

/* The name of nvcodec's H.264 decoder on @device, or NULL.  nvcodec
 * registers one element per GPU (nvh264dec on the first, nvh264deviceNdec
 * on the others) whose cuda-device-id is read-only: a launch line's
 * "nvh264dec cuda-device-id=1" decodes on the first GPU all the same. */
static gchar *
decoder_for_device (gint device)
{
  for (guint i = 0; i < MAX_DECODERS; i++) {
    g_autofree gchar *name = i == 0 ? g_strdup ("nvh264dec")
                                    : g_strdup_printf ("nvh264device%udec", i);
    GstElement *e = gst_element_factory_make (name, NULL);
    gint id = -1;

    if (e == NULL)
      continue;
    gst_object_ref_sink (e);
    g_object_get (e, "cuda-device-id", &id, NULL);
    gst_object_unref (e);
    if (id == device)
      return g_steal_pointer (&name);
  }
  return NULL;
}

static gchar *
source (const Branch *b, const gchar *pattern)
{
  g_autofree gchar *clip = NULL;
  g_autofree gchar *decoder = NULL;

  if (b->kind != KIND_BATCH_NVDEC)
    return g_strdup_printf (UPLOAD_SRC, pattern, b->src_device);
  clip = clip_path ();
  decoder = decoder_for_device (b->src_device);
  g_assert_nonnull (decoder);
  return g_strdup_printf (NVDEC_SRC, clip, decoder);
}

static gchar *
branch_launch (const Branch *b, guint i)
{
  g_autofree gchar *a = source (b, "smpte");
  g_autofree gchar *c = source (b, "ball");

  switch (b->kind) {
    case KIND_CONVERT:
      return g_strdup_printf (
          "%s ! cudagraphconvert name=e%u backend=cuda "
          "cuda-device-id=%d ! video/x-raw(memory:"
          "CUDAMemory),format=RGBA,width=320,height=240 ! " SINK,
          a, i, b->device, i);
    case KIND_PREPROCESS:
      return g_strdup_printf ("%s ! cudagraphpreprocess name=e%u backend=cuda "
                              "cuda-device-id=%d width=224 height=224 "
                              "letterbox=symmetric ! other/tensors(memory:"
                              "CUDAMemory) ! " SINK,
          a, i, b->device, i);
    case KIND_BATCH:
    case KIND_BATCH_NVDEC:
      return g_strdup_printf (
          "cudagraphbatch name=e%u backend=cuda "
          "cuda-device-id=%d batch-size=2 width=224 "
          "height=224 ! other/tensors(memory:CUDAMemory) ! " SINK
          " %s ! e%u.sink_0 %s ! e%u.sink_1",
          i, b->device, i, a, i, c, i);
  }
  g_assert_not_reached ();
}

static gchar *
pipeline_launch (const Branch *branches, guint n)
{
  g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (parts, branch_launch (&branches[i], i));
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (" ", (gchar **) parts->pdata);
}

static PointerGetAttribute
find_pointer_get_attribute (void)
{
  /* libgcg loaded the driver already. */
  gpointer libcuda = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  gpointer sym = libcuda ? dlsym (libcuda, "cuPointerGetAttribute") : NULL;

  g_assert_nonnull (sym);
  return (PointerGetAttribute) sym;
}

/* @buf is one GstCudaMemory whose device memory is on @device, as the
 * driver sees it. */
static void
assert_on_device (GstBuffer *buf, gint device)
{
  static PointerGetAttribute get_attribute;
  GstMapInfo map;
  guint type = 0;
  gint ordinal = -1;

  if (get_attribute == NULL)
    get_attribute = find_pointer_get_attribute ();
  g_assert_cmpuint (gst_buffer_n_memory (buf), ==, 1);
  g_assert_true (gst_buffer_map (buf, &map, GST_MAP_READ | GST_MAP_CUDA));
  /* A host pointer (memory that is not GstCudaMemory) is refused here. */
  g_assert_cmpint (get_attribute (&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                       (guint64) (guintptr) map.data),
      ==, 0);
  g_assert_cmpint (get_attribute (&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                       (guint64) (guintptr) map.data),
      ==, 0);
  gst_buffer_unmap (buf, &map);
  g_assert_cmpuint (type, ==, CU_MEMORYTYPE_DEVICE);
  g_assert_cmpint (ordinal, ==, device);
}

/* Fails on an error message; the in-place counts of element e@i's
 * cudagraph-stats go to @out[i]. */
static void
read_bus (GstElement *pipeline, const gchar *launch, Output *out, guint n)
{
  g_autoptr (GstBus) bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  while ((msg = gst_bus_pop_filtered (bus,
              GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (msg);
    const gchar *name = GST_OBJECT_NAME (GST_MESSAGE_SRC (msg));
    guint i;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      g_autoptr (GError) err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      g_error ("%s: %s", launch, err->message);
    }
    if (gst_structure_has_name (s, "cudagraph-stats")
        && sscanf (name, "e%u", &i) == 1 && i < n
        && gst_structure_has_field (s, "in-place-inputs")) {
      out[i].in_place_in = gcg_test_stats_u64 (s, "in-place-inputs");
      out[i].in_place_out = gcg_test_stats_u64 (s, "in-place-outputs");
    }
    gst_message_unref (msg);
  }
}

/* Pulls a sample from each branch still running, in turn, until all are
 * at EOS; each output is checked to be on its branch's device. */
static void
pull_all (GstElement *pipeline, const Branch *branches, Output *out, guint n)
{
  GstElement *sinks[MAX_BRANCHES];
  guint running = n;

  for (guint i = 0; i < n; i++) {
    g_autofree gchar *name = g_strdup_printf ("sink%u", i);

    sinks[i] = gst_bin_get_by_name (GST_BIN (pipeline), name);
  }
  while (running > 0) {
    for (guint i = 0; i < n; i++) {
      GstSample *sample = NULL;
      gboolean eos = FALSE;

      if (sinks[i] == NULL)
        continue;
      /* Never blocks for good: an error upstream brings no EOS. */
      g_signal_emit_by_name (sinks[i], "try-pull-sample", 20 * GST_SECOND,
          &sample);
      if (sample == NULL) {
        g_object_get (sinks[i], "eos", &eos, NULL);
        g_assert_true (eos);
        gst_clear_object (&sinks[i]);
        running--;
        continue;
      }
      assert_on_device (gst_sample_get_buffer (sample), branches[i].device);
      gcg_test_append_visible (out[i].bytes, gst_sample_get_buffer (sample),
          gst_sample_get_caps (sample));
      out[i].frames++;
      gst_sample_unref (sample);
    }
  }
}

/* Runs the @n branches as one pipeline to EOS; @out[i] gets what branch
 * @i gave (free with output_clear()). */
static void
run_branches (const Branch *branches, guint n, Output *out)
{
  g_autofree gchar *launch = pipeline_launch (branches, n);
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) pipeline = NULL;

  g_assert_cmpuint (n, <=, MAX_BRANCHES);
  for (guint i = 0; i < n; i++)
    out[i] = (Output) { g_byte_array_new (), 0, G_MAXUINT64, G_MAXUINT64 };
  pipeline = gst_parse_launch (launch, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  pull_all (pipeline, branches, out, n);
  /* Before NULL, which flushes the bus. */
  read_bus (pipeline, launch, out, n);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  for (guint i = 0; i < n; i++)
    g_test_message (
        "%s\n  branch %u: %u frames, %u bytes, in place in %" G_GINT64_MODIFIER
        "d out %" G_GINT64_MODIFIER "d",
        launch, i, out[i].frames, out[i].bytes->len,
        (gint64) out[i].in_place_in, (gint64) out[i].in_place_out);
}

static void
output_clear (Output *out)
{
  g_byte_array_unref (out->bytes);
}

/* @out holds @ref's frames, byte for byte. */
static void
assert_same (const Output *out, const Output *ref)
{
  g_assert_cmpuint (out->frames, ==, ref->frames);
  g_assert_cmpmem (out->bytes->data, out->bytes->len, ref->bytes->data,
      ref->bytes->len);
}

static guint
expected_frames (Kind kind)
{
  return kind == KIND_BATCH_NVDEC ? N_CLIP_FRAMES : N_FRAMES;
}

/* Each in-place count as a single-frame element reports it, or none from
 * cudagraphbatch. */
static void
assert_in_place (Kind kind, const Output *out, guint64 in, guint64 outputs)
{
  if (kind == KIND_BATCH || kind == KIND_BATCH_NVDEC) {
    g_assert_cmpuint (out->in_place_in, ==, G_MAXUINT64);
    return;
  }
  g_assert_cmpuint (out->in_place_in, ==, in);
  g_assert_cmpuint (out->in_place_out, ==, outputs);
}

static gboolean
have_factory (const gchar *name)
{
  g_autoptr (GstElementFactory) f = gst_element_factory_find (name);

  if (f == NULL) {
    g_autofree gchar *why =
        g_strdup_printf ("nvcodec's %s is not registered", name);

    gcg_test_skip_or_fail (why);
  }
  return f != NULL;
}

/* Whether nvcodec has an H.264 decoder on devices 0 and 1. */
static gboolean
have_decoders (void)
{
  for (gint d = 0; d < 2; d++) {
    g_autofree gchar *name = decoder_for_device (d);

    if (name == NULL) {
      g_autofree gchar *why =
          g_strdup_printf ("nvcodec has no H.264 decoder on device %d", d);

      gcg_test_skip_or_fail (why);
      return FALSE;
    }
  }
  return TRUE;
}

/* Whether GCG_TEST_REQUIRE_GPUS asks for @n devices or more. */
static gboolean
require_gpus (gint n)
{
  const gchar *v = g_getenv ("GCG_TEST_REQUIRE_GPUS");

  return v != NULL && atoi (v) >= n;
}

/* Whether two devices and nvcodec's elements are here; when not, the test
 * is skipped (or failed: gcg_test_skip_or_fail(), GCG_TEST_REQUIRE_GPUS)
 * and the caller returns at once. */
static gboolean
have_two_gpus (Kind kind)
{
  g_autoptr (GError) error = NULL;
  gint count;

#ifndef HAVE_GST_CUDA
  gcg_test_no_gst_cuda ();
  return FALSE;
#endif
  if (!gcg_test_have_gpu ())
    return FALSE;
  count = gcg_context_get_device_count (&error);
  g_assert_no_error (error);
  if (count < 2) {
    g_autofree gchar *why =
        g_strdup_printf ("needs 2 CUDA devices, this host has %d", count);

    if (require_gpus (2)) {
      g_test_message ("GCG_TEST_REQUIRE_GPUS=2, so this is a failure: %s", why);
      g_test_fail ();
    } else {
      g_test_skip (why);
    }
    return FALSE;
  }
  return have_factory ("cudaupload")
      && (kind != KIND_BATCH_NVDEC || have_decoders ());
}

/* Device 0 alone: what every other case must give. */
static void
reference (Kind kind, Output *ref)
{
  Branch b = { kind, 0, 0 };

  run_branches (&b, 1, ref);
  g_assert_cmpuint (ref->frames, ==, expected_frames (kind));
  assert_in_place (kind, ref, N_FRAMES, N_FRAMES);
}

/* The element alone on device 1, fed from @src_device: there, its input is
 * read in place; on device 0, it is copied through the host (counted: no
 * input in place).  Either way the output is on device 1 with the same
 * bytes. */
static void
check_device_1 (Kind kind, gint src_device)
{
  Branch b = { kind, 1, src_device };
  Output ref, out;

  if (!have_two_gpus (kind))
    return;
  reference (kind, &ref);
  run_branches (&b, 1, &out);
  assert_same (&out, &ref);
  assert_in_place (kind, &out, src_device == 1 ? N_FRAMES : 0, N_FRAMES);
  output_clear (&out);
  output_clear (&ref);
}

static void
check_alone (gconstpointer data)
{
  check_device_1 (GPOINTER_TO_INT (data), 1);
}

static void
check_other_device (gconstpointer data)
{
  check_device_1 (GPOINTER_TO_INT (data), 0);
}

/* One branch on device 0 and one on device 1 in one pipeline. */
static void
check_beside (gconstpointer data)
{
  Kind kind = GPOINTER_TO_INT (data);
  Branch b[2] = { { kind, 0, 0 }, { kind, 1, 1 } };
  Output ref, out[2];

  if (!have_two_gpus (kind))
    return;
  reference (kind, &ref);
  run_branches (b, 2, out);
  for (guint i = 0; i < 2; i++) {
    assert_same (&out[i], &ref);
    assert_in_place (kind, &out[i], N_FRAMES, N_FRAMES);
    output_clear (&out[i]);
  }
  output_clear (&ref);
}

static void
add_cases (const gchar *name, Kind kind)
{
  const struct
  {
    const gchar *what;
    GTestDataFunc func;
  } cases[] = {
    { "device-1", check_alone },
    { "beside-device-0", check_beside },
    { "input-on-device-0", check_other_device },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    g_autofree gchar *path =
        g_strdup_printf ("/gst/multi-gpu/%s/%s", name, cases[c].what);

    /* NVDEC's frames on another device are the upload case again. */
    if (kind == KIND_BATCH_NVDEC && cases[c].func == check_other_device)
      continue;
    g_test_add_data_func (path, GINT_TO_POINTER (kind), cases[c].func);
  }
}

int
main (int argc, char **argv)
{
  gcg_test_add_bundle_plugins ();
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  add_cases ("convert", KIND_CONVERT);
  add_cases ("preprocess", KIND_PREPROCESS);
  add_cases ("batch", KIND_BATCH);
  add_cases ("batch-nvdec", KIND_BATCH_NVDEC);
  return g_test_run ();
}
