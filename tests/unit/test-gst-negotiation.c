/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Negotiation as a user meets it: a failure that says its cause (CUDA
 * memory downstream of the CPU backend, a tensor the properties rule out),
 * and downstream's tensor caps choosing what no property set.
 */
#include "gcg-gst-test-util.h"

#include <gcg.h>

/* A harness whose element posts on @bus from the start: the caps event,
 * where negotiation fails, goes out when the source caps are set. */
static GstHarness *
harness_with_bus (const gchar *launch, GstBus *bus, const gchar *in_caps,
    const gchar *out_caps)
{
  GstHarness *h = gst_harness_new_parse (launch);

  gst_element_set_bus (h->element, bus);
  gst_harness_set_sink_caps_str (h, out_caps);
  gst_harness_set_src_caps_str (h, in_caps);
  return h;
}

/* Pushes one frame into @launch whose downstream takes only @out_caps,
 * which must fail to negotiate with an error whose message holds each of
 * @says (NULL-terminated). */
static void
check_negotiation_error (const gchar *launch, const gchar *in_caps,
    const gchar *out_caps, const gchar *const *says)
{
  g_autoptr (GstBus) bus = gst_bus_new ();
  GstHarness *h = harness_with_bus (launch, bus, in_caps, out_caps);
  g_autoptr (GstMessage) msg = NULL;
  g_autoptr (GError) error = NULL;
  const guint8 px[4] = { 1, 2, 3, 255 };

  g_assert_cmpint (gst_harness_push (h, gcg_test_solid_new (in_caps, px, 4, 0)),
      ==, GST_FLOW_NOT_NEGOTIATED);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  gst_message_parse_error (msg, &error, NULL);
  g_assert_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION);
  for (guint i = 0; says[i] != NULL; i++)
    g_assert_nonnull (strstr (error->message, says[i]));
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
}

/* The error naming the CUDA backend. */
static void
check_cuda_only_downstream (const gchar *launch, const gchar *in_caps,
    const gchar *out_caps)
{
  const gchar *says[] = { "CUDA memory", "CUDA backend", "backend=cpu", NULL };

  check_negotiation_error (launch, in_caps, out_caps, says);
}

static void
test_cuda_memory_needs_cuda_backend (void)
{
  const gchar *in = "video/x-raw,format=RGBA,width=8,height=8";

  check_cuda_only_downstream ("cudagraphconvert backend=cpu", in,
      "video/x-raw(memory:CUDAMemory),format=RGBA,width=4,height=4");
  check_cuda_only_downstream ("cudagraphpreprocess backend=cpu width=4 "
                              "height=4",
      in, "other/tensors(memory:CUDAMemory)");
}

/* cudagraphbatch (it negotiates on its own collecting thread). */
static void
test_batch_cuda_memory_needs_cuda_backend (void)
{
  const gchar *in = "video/x-raw,format=RGBA,width=8,height=8,"
                    "framerate=30/1";
  g_autoptr (GstElement) batch = NULL;
  g_autoptr (GstBus) bus = gst_bus_new ();
  g_autoptr (GstMessage) msg = NULL;
  g_autoptr (GError) error = NULL;
  const guint8 px[4] = { 1, 2, 3, 255 };
  GstHarness *h;

  batch = gst_element_factory_make ("cudagraphbatch", NULL);
  g_assert_nonnull (batch);
  gst_util_set_object_arg (G_OBJECT (batch), "backend", "cpu");
  g_object_set (batch, "width", 4, "height", 4, NULL);
  gst_element_set_bus (batch, bus);
  h = gst_harness_new_with_element (batch, "sink_%u", "src");
  gst_harness_set_sink_caps_str (h, "other/tensors(memory:CUDAMemory)");
  gst_harness_set_src_caps_str (h, in);
  gst_harness_push (h, gcg_test_solid_new (in, px, 4, 0));
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  gst_message_parse_error (msg, &error, NULL);
  g_assert_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION);
  g_assert_nonnull (strstr (error->message, "CUDA backend (backend=cpu)"));
  gst_harness_teardown (h);
  gst_element_set_bus (batch, NULL);
}

#define IN_CAPS "video/x-raw,format=RGBA,width=8,height=8"
#define TENSOR_224x112_U8 \
  "other/tensors,format=static,num_tensors=1," \
  "dimensions=224:112:3:1,types=uint8"

/* A capsfilter after cudagraphpreprocess that fixes the tensor's dims and
 * type drives width, height, max-rois and tensor-type when no property
 * set them, as video caps drive videoconvertscale; the properties then
 * read back what is in effect (and the default scale follows the type). */
static void
test_tensor_from_downstream (void)
{
  GstHarness *h = gcg_test_harness_new ("cudagraphpreprocess backend=cpu",
      IN_CAPS, TENSOR_224x112_U8);
  g_autoptr (GstElement)
      e = gst_harness_find_element (h, "cudagraphpreprocess");
  const guint8 px[4] = { 10, 20, 30, 255 };
  GstBuffer *out;
  GstMapInfo map;
  guint width, height, max_rois;
  gint type;
  gdouble scale;

  g_assert_cmpint (gst_harness_push (h, gcg_test_solid_new (IN_CAPS, px, 4, 0)),
      ==, GST_FLOW_OK);
  out = gst_harness_pull (h);
  g_assert_cmpuint (gst_buffer_get_size (out), ==, 224 * 112 * 3);
  g_assert_true (gst_buffer_map (out, &map, GST_MAP_READ));
  /* The R plane's centre (letterboxed: the sides are padding) holds the
   * pixel value itself. */
  g_assert_cmpuint (map.data[56 * 224 + 112], ==, 10);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  g_object_get (e, "width", &width, "height", &height, "max-rois", &max_rois,
      "tensor-type", &type, "scale", &scale, NULL);
  g_assert_cmpuint (width, ==, 224);
  g_assert_cmpuint (height, ==, 112);
  g_assert_cmpuint (max_rois, ==, 1);
  g_assert_cmpint (type, ==, GCG_TENSOR_TYPE_UINT8);
  g_assert_cmpfloat (scale, ==, 1.0);
  gst_harness_teardown (h);
}

/* Without a word from downstream, the properties' defaults. */
static void
test_tensor_defaults_without_downstream (void)
{
  GstHarness *h = gcg_test_harness_new ("cudagraphpreprocess backend=cpu "
                                        "width=4 tensor-type=float16",
      IN_CAPS, "other/tensors");
  const guint8 px[4] = { 10, 20, 30, 255 };
  GstBuffer *out;

  g_assert_cmpint (gst_harness_push (h, gcg_test_solid_new (IN_CAPS, px, 4, 0)),
      ==, GST_FLOW_OK);
  out = gst_harness_pull (h);
  /* 4 x 640 (the default height) x 3 float16 */
  g_assert_cmpuint (gst_buffer_get_size (out), ==, 4 * 640 * 3 * 2);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* A property set that downstream's tensor contradicts: an error that
 * names the property, not a bare not-negotiated. */
static void
test_tensor_conflict_explained (void)
{
  const gchar *says[] = { "properties rule out", "width=64 is set", NULL };

  check_negotiation_error ("cudagraphpreprocess backend=cpu width=64", IN_CAPS,
      TENSOR_224x112_U8, says);
}

/* Every field set, and downstream asking for another tensor: the caps do
 * not meet, and the error says what each side wants. */
static void
test_tensor_conflict_all_set_explained (void)
{
  const gchar *says[] = { "properties rule out", "224:112:3:1",
    "dimensions=64:64:3:1", NULL };

  check_negotiation_error ("cudagraphpreprocess backend=cpu width=64 "
                           "height=64 max-rois=1 tensor-type=uint8",
      IN_CAPS, TENSOR_224x112_U8, says);
}

/* A failure with another cause (downstream takes no tensor, no video)
 * says nothing about the backend or the tensor properties. */
static void
check_unexplained (const gchar *launch)
{
  g_autoptr (GstBus) bus = gst_bus_new ();
  GstHarness *h = harness_with_bus (launch, bus, IN_CAPS, "audio/x-raw");
  g_autoptr (GstMessage) msg = NULL;
  const guint8 px[4] = { 1, 2, 3, 255 };

  g_assert_cmpint (gst_harness_push (h, gcg_test_solid_new (IN_CAPS, px, 4, 0)),
      ==, GST_FLOW_NOT_NEGOTIATED);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  g_assert_null (msg);
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
}

static void
test_other_failure_unexplained (void)
{
  check_unexplained ("cudagraphconvert backend=cpu");
  check_unexplained ("cudagraphpreprocess backend=cpu width=4 height=4 "
                     "max-rois=1 tensor-type=float32");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gcg_test_gst_init (&argc, &argv);

  g_test_add_func ("/gst/negotiation/cuda-memory-needs-cuda-backend",
      test_cuda_memory_needs_cuda_backend);
  g_test_add_func ("/gst/negotiation/batch-cuda-memory-needs-cuda-backend",
      test_batch_cuda_memory_needs_cuda_backend);
  g_test_add_func ("/gst/negotiation/tensor-from-downstream",
      test_tensor_from_downstream);
  g_test_add_func ("/gst/negotiation/tensor-defaults-without-downstream",
      test_tensor_defaults_without_downstream);
  g_test_add_func ("/gst/negotiation/tensor-conflict-explained",
      test_tensor_conflict_explained);
  g_test_add_func ("/gst/negotiation/tensor-conflict-all-set-explained",
      test_tensor_conflict_all_set_explained);
  g_test_add_func ("/gst/negotiation/other-failure-unexplained",
      test_other_failure_unexplained);
  return g_test_run ();
}
