/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphpreprocess with a model attached, on a GPU, through the public
 * API only (as gcg.torch does it): the "model" is a graph captured here
 * in the device's primary context that copies its input to its first
 * output and the input's first 36 bytes to its second.  Over 50 frames,
 * with model-keep-input, the output buffer holds three tensors at their
 * packed offsets: the kept tensor, bit-identical to the same element's
 * output without a model, and the two outputs, equal to it; the caps and
 * the GstCudaGraphTensorMeta list the three; one capture.  Behind nvcodec's
 * cudaupload, which opens its CUDA context after us (downstream elements
 * change state first) and would make a context of its own, the element's
 * offer of the primary context wins: every frame is read in place and
 * the model runs.  cudagraphbatch with a model of batch 2 over two
 * streams: the same, per batch.  A model on backend=cpu fails the start.  One model serves one element
 * at a time: a second element refuses it.  Skipped (TAP)
 * without a driver.
 */
#include <gcg.h>
#include <dlfcn.h>
#include <string.h>
#include "gcg-gst-test-util.h"
#include "gcg-test-util.h"
#include "common/gcg-test-gst-gpu.h"
#include "gstcudagraphtensormeta.h"

#define CAPS "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1"
#define OW 32
#define OH 24
#define IN_BYTES (3 * OW * OH * 4)
#define TAIL 36
#define N_FRAMES 50

typedef int (*MemcpyDtoDAsync) (guint64, guint64, gsize, gpointer);

typedef struct
{
  GcgContext *ctx;
  GcgStream *stream;
  GcgAllocator *alloc;
  GcgGraph *graph;
  guint64 in, out0, out1;
  gsize bytes;
  MemcpyDtoDAsync copy;
} Model;

static gboolean
model_body (GcgStream *stream, gpointer data, GError **error)
{
  Model *m = data;
  gpointer cu = gcg_stream_get_handle (stream);

  if (m->copy (m->out0, m->in, m->bytes, cu) == 0
      && m->copy (m->out1, m->in, TAIL, cu) == 0)
    return TRUE;
  g_set_error_literal (error, GCG_ERROR, GCG_ERROR_FAILED, "copy failed");
  return FALSE;
}

static void
model_free (gpointer data)
{
  Model *m = data;

  g_clear_object (&m->graph);
  gcg_allocator_free (m->alloc, m->in);
  gcg_allocator_free (m->alloc, m->out0);
  gcg_allocator_free (m->alloc, m->out1);
  g_clear_object (&m->alloc);
  g_clear_object (&m->stream);
  g_clear_object (&m->ctx);
  g_free (m);
}

/* The model, in the primary context of device 0, for @batch items; it
 * owns its memory. */
static GcgModelGraph *
make_batch_model (guint batch)
{
  g_autoptr (GError) error = NULL;
  Model *m = g_new0 (Model, 1);
  const gint64 in_shape[] = { batch, 3, OH, OW };
  const gint64 tail_shape[] = { TAIL / 4 };
  gpointer libcuda = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  GcgModelGraph *model;

  g_assert_nonnull (libcuda);
  m->copy = (MemcpyDtoDAsync) dlsym (libcuda, "cuMemcpyDtoDAsync_v2");
  g_assert_nonnull (m->copy);
  m->ctx = gcg_context_new (0, &error);
  g_assert_no_error (error);
  m->stream = gcg_stream_new (m->ctx, &error);
  m->alloc = gcg_allocator_new (m->ctx, &error);
  g_assert_no_error (error);
  g_assert_true (gcg_allocator_alloc (m->alloc, IN_BYTES * batch, NULL, &m->in,
      &error));
  g_assert_true (gcg_allocator_alloc (m->alloc, IN_BYTES * batch, NULL,
      &m->out0, &error));
  m->bytes = IN_BYTES * batch;
  g_assert_true (gcg_allocator_alloc (m->alloc, TAIL, NULL, &m->out1, &error));
  m->graph = gcg_capture_callable (m->stream, GCG_CAPTURE_MODE_DEFAULT,
      model_body, m, &error);
  g_assert_no_error (error);
  model = gcg_model_graph_new (m->ctx,
      (guint64) (guintptr) gcg_graph_get_graph_handle (m->graph), m, model_free,
      &error);
  g_assert_no_error (error);
  g_assert_true (gcg_model_graph_set_input (model, m->in, in_shape, 4,
      GCG_MODEL_DTYPE_FLOAT32, &error));
  g_assert_cmpint (gcg_model_graph_add_output (model, m->out0, in_shape, 4,
                       GCG_MODEL_DTYPE_FLOAT32, &error),
      ==, 0);
  g_assert_cmpint (gcg_model_graph_add_output (model, m->out1, tail_shape, 1,
                       GCG_MODEL_DTYPE_FLOAT32, &error),
      ==, 1);
  return model;
}

/* The element, with @model set before it starts (model is a READY
 * property), in a harness. */
static GcgModelGraph *
make_model (void)
{
  return make_batch_model (1);
}

static GstHarness *
harness (GcgModelGraph *model)
{
  GstElement *e = gst_element_factory_make ("cudagraphpreprocess", NULL);
  GstHarness *h;

  g_object_set (e, "backend", GCG_BACKEND_CUDA, "width", OW, "height", OH,
      NULL);
  if (model)
    g_object_set (e, "model", model, "model-keep-input", TRUE, NULL);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, CAPS);
  return h;
}

static guint64
element_u64 (GstElement *e, const gchar *prop)
{
  guint64 v = 0;

  g_object_get (e, prop, &v, NULL);
  return v;
}

static void
check_meta (GstBuffer *out)
{
  GstCudaGraphTensorMeta *meta = gst_cuda_graph_buffer_get_tensor_meta (out);

  g_assert_nonnull (meta);
  g_assert_cmpuint (meta->n_tensors, ==, 3);
  g_assert_cmpuint (meta->size, ==, 2 * IN_BYTES + TAIL);
  g_assert_cmpuint (meta->tensors[1].offset, ==, IN_BYTES);
  g_assert_cmpuint (meta->tensors[2].offset, ==, 2 * IN_BYTES);
  g_assert_cmpuint (meta->tensors[2].size, ==, TAIL);
  g_assert_cmpuint (meta->tensors[0].n_dims, ==, 4);
  g_assert_cmpint (meta->tensors[0].shape[1], ==, 3);
  g_assert_cmpint (meta->tensors[2].shape[0], ==, TAIL / 4);
  g_assert_cmpuint (meta->tensors[2].dtype, ==, GCG_MODEL_DTYPE_FLOAT32);
  /* The preprocessed tensor's own description stays. */
  g_assert_cmpuint (meta->width, ==, OW);
  g_assert_cmpuint (meta->n_items, ==, 1);
}

static void
test_outputs (void)
{
  g_autoptr (GcgModelGraph) model = NULL;
  g_autoptr (GstCaps) caps = NULL;
  GstHarness *plain, *with;
  const GstStructure *s;

  if (!gcg_test_have_gpu ())
    return;
  model = make_model ();
  plain = harness (NULL);
  with = harness (model);
  for (guint f = 0; f < N_FRAMES; f++) {
    GstBuffer *in =
        gcg_test_frame_new (CAPS, gcg_test_moving_px, GUINT_TO_POINTER (f), 0);
    g_autoptr (GstBuffer)
        ref = gcg_test_push_pull (plain, gst_buffer_copy (in));
    g_autoptr (GstBuffer) out = gcg_test_push_pull (with, in);
    GstMapInfo mr, mo;

    g_assert_true (gst_buffer_map (ref, &mr, GST_MAP_READ));
    g_assert_true (gst_buffer_map (out, &mo, GST_MAP_READ));
    g_assert_cmpuint (mr.size, ==, IN_BYTES);
    g_assert_cmpuint (mo.size, ==, 2 * IN_BYTES + TAIL);
    g_assert_cmpmem (mo.data, IN_BYTES, mr.data, IN_BYTES);
    g_assert_cmpmem (mo.data + IN_BYTES, IN_BYTES, mr.data, IN_BYTES);
    g_assert_cmpmem (mo.data + 2 * IN_BYTES, TAIL, mr.data, TAIL);
    gst_buffer_unmap (ref, &mr);
    gst_buffer_unmap (out, &mo);
    check_meta (out);
  }
  caps = gst_pad_get_current_caps (with->sinkpad);
  s = gst_caps_get_structure (caps, 0);
  g_assert_cmpstr (gst_structure_get_string (s, "dimensions"), ==,
      "32:24:3:1,32:24:3:1,9");
  g_assert_cmpstr (gst_structure_get_string (s, "types"), ==,
      "float32,float32,float32");
  g_assert_cmpuint (gcg_test_get_u64 (with, "cudagraphpreprocess", "captures"),
      ==, 1);
  gst_harness_teardown (plain);
  /* The element holds the model: dropping ours first is fine. */
  g_clear_object (&model);
  gst_harness_teardown (with);
}

static void
add_in_place (const GstStructure *s, gpointer user_data)
{
  guint64 in = 0;

  if (gst_structure_get_uint64 (s, "in-place-inputs", &in))
    *(guint64 *) user_data += in;
}

/* cudaupload shares the primary context the element offers. */
static void
test_context_offer (void)
{
  static const gchar *launch =
      "videotestsrc num-buffers=20 ! "
      "video/x-raw,format=RGBA,width=64,height=48 ! cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudagraphpreprocess name=pp "
      "backend=cuda ! fakesink";
  g_autoptr (GcgModelGraph) model = NULL;
  g_autoptr (GstElement) pipeline = NULL;
  g_autoptr (GstElement) pp = NULL;
  g_autoptr (GstBus) bus = NULL;
  GstMessage *msg;
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElementFactory) up = NULL;
  guint64 in_place = 0;

  if (!gcg_test_have_gpu ())
    return;
#ifndef HAVE_GST_CUDA
  gcg_test_no_gst_cuda ();
  return;
#endif
  up = gst_element_factory_find ("cudaupload");
  if (up == NULL) {
    gcg_test_skip_or_fail ("nvcodec's cudaupload is not registered");
    return;
  }
  model = make_model ();
  pipeline = gst_parse_launch (launch, &error);
  g_assert_no_error (error);
  pp = gst_bin_get_by_name (GST_BIN (pipeline), "pp");
  g_object_set (pp, "model", model, NULL);
  bus = gst_element_get_bus (pipeline);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  /* The stats (an element message) come before the EOS. */
  while ((msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    GstMessageType type = GST_MESSAGE_TYPE (msg);

    if (type == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &error, NULL);
      g_error ("%s", error->message);
    }
    if (type == GST_MESSAGE_ELEMENT)
      add_in_place (gst_message_get_structure (msg), &in_place);
    gst_clear_message (&msg);
    if (type == GST_MESSAGE_EOS)
      break;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_assert_cmpuint (in_place, ==, 20);
}

/* Every buffer of a two-stream cudagraphbatch, as bytes, with @model. */
static GPtrArray *
run_batch (GcgModelGraph *model)
{
  static const gchar *launch =
      "cudagraphbatch name=b backend=cuda "
      "width=32 height=24 ! appsink name=sink sync=false "
      "videotestsrc num-buffers=8 pattern=ball ! " CAPS " ! b.sink_0 "
      "videotestsrc num-buffers=8 pattern=smpte ! " CAPS " ! b.sink_1";
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) pipeline = gst_parse_launch (launch, &error);
  g_autoptr (GstElement) b = NULL;
  g_autoptr (GstElement) sink = NULL;
  GPtrArray *out =
      g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  GstSample *sample;

  g_assert_no_error (error);
  b = gst_bin_get_by_name (GST_BIN (pipeline), "b");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  if (model)
    g_object_set (b, "model", model, "model-keep-input", TRUE, NULL);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  while ((g_signal_emit_by_name (sink, "try-pull-sample", 20 * GST_SECOND,
              &sample),
      sample != NULL)) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstMapInfo map;

    if (model)
      g_assert_cmpuint (gst_cuda_graph_buffer_get_tensor_meta (buf)->n_tensors,
          ==, 3);
    g_assert_true (gst_buffer_map (buf, &map, GST_MAP_READ));
    g_ptr_array_add (out, g_bytes_new (map.data, map.size));
    gst_buffer_unmap (buf, &map);
    gst_sample_unref (sample);
  }
  if (model)
    g_assert_cmpuint (element_u64 (b, "captures"), ==, 1);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  return out;
}

/* cudagraphbatch ends in a model of batch 2: the kept tensor is the
 * plain batch's, the model's copy equals it. */
static void
test_batch (void)
{
  g_autoptr (GcgModelGraph) model = NULL;
  g_autoptr (GPtrArray) plain = NULL;
  g_autoptr (GPtrArray) with = NULL;
  const gsize bytes = 2 * IN_BYTES;

  if (!gcg_test_have_gpu ())
    return;
  model = make_batch_model (2);
  plain = run_batch (NULL);
  with = run_batch (model);
  g_assert_cmpuint (plain->len, ==, 8);
  g_assert_cmpuint (with->len, ==, plain->len);
  for (guint i = 0; i < plain->len; i++) {
    gsize n = 0, m = 0;
    const guint8 *p = g_bytes_get_data (plain->pdata[i], &n);
    const guint8 *w = g_bytes_get_data (with->pdata[i], &m);

    g_assert_cmpuint (n, ==, bytes);
    g_assert_cmpuint (m, ==, 2 * bytes + TAIL);
    g_assert_cmpmem (w, bytes, p, bytes);
    g_assert_cmpmem (w + bytes, bytes, p, bytes);
    g_assert_cmpmem (w + 2 * bytes, TAIL, p, TAIL);
  }
}

/* One model, one element: a second element given the model a first one
 * holds refuses it (a warning) and fails at start, saying why; once the
 * first lets go, the second may take it. */
static void
test_one_element (void)
{
  g_autoptr (GcgModelGraph) model = NULL;
  g_autoptr (GstElement) first = NULL;
  g_autoptr (GstElement) second = NULL;
  g_autofree gchar *text = NULL;
  g_autofree gchar *again = NULL;

  if (!gcg_test_have_gpu ())
    return;
  model = make_model ();
  first = gst_element_factory_make ("cudagraphpreprocess", "first");
  second = gst_element_factory_make ("cudagraphbatch", "second");
  g_object_set (first, "model", model, NULL);
  g_test_expect_message ("GstCudaGraph", G_LOG_LEVEL_WARNING,
      "*refusing property 'model': The model is attached to another "
      "element already*");
  g_object_set (second, "model", model, NULL);
  g_test_assert_expected_messages ();
  text = gcg_test_start_error (second);
  g_assert_nonnull (text);
  if (strstr (text, "attached to another element") == NULL)
    g_error ("unexpected error: %s", text);
  /* The first element setting it again keeps its claim. */
  g_object_set (first, "model", model, NULL);
  g_object_set (first, "model", NULL, NULL);
  g_object_set (second, "model", model, NULL);
  again = gcg_test_start_error (second);
  if (again != NULL && strstr (again, "attached to another") != NULL)
    g_error ("still refused: %s", again);
  /* Freed with its claim held: the model is free again. */
  g_clear_object (&second);
  g_object_set (first, "model", model, NULL);
  g_object_set (first, "model", NULL, NULL);
}

/* A model on the CPU backend fails the start, saying why. */
static void
test_cpu_backend (void)
{
  g_autoptr (GcgModelGraph) model = NULL;
  g_autoptr (GstElement) e = NULL;
  g_autofree gchar *text = NULL;

  if (!gcg_test_have_gpu ())
    return;
  model = make_model ();
  e = gst_element_factory_make ("cudagraphpreprocess", NULL);
  g_object_set (e, "backend", GCG_BACKEND_CPU, "model", model, NULL);
  text = gcg_test_start_error (e);
  g_assert_nonnull (text);
  if (strstr (text, "CUDA backend") == NULL)
    g_error ("unexpected error: %s", text);
}

int
main (int argc, char **argv)
{
  gcg_test_add_bundle_plugins ();
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/model/outputs", test_outputs);
  g_test_add_func ("/gst/model/context-offer", test_context_offer);
  g_test_add_func ("/gst/model/batch", test_batch);
  g_test_add_func ("/gst/model/cpu-backend", test_cpu_backend);
  g_test_add_func ("/gst/model/one-element", test_one_element);
  return g_test_run ();
}
