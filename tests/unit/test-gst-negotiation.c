/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Negotiation as a user meets it: a failure that says its cause (CUDA
 * memory downstream of the CPU backend).
 */
#include "gcg-gst-test-util.h"

/* A harness whose element posts on @bus from the start: the caps event,
 * where negotiation fails, goes out when the source caps are set. */
static GstHarness *
harness_with_bus (const gchar * launch, GstBus * bus, const gchar * in_caps,
    const gchar * out_caps)
{
  GstHarness *h = gst_harness_new_parse (launch);

  gst_element_set_bus (h->element, bus);
  gst_harness_set_sink_caps_str (h, out_caps);
  gst_harness_set_src_caps_str (h, in_caps);
  return h;
}

/* Pushes one frame into @launch whose downstream takes only @out_caps,
 * which must fail to negotiate with an error naming the CUDA backend. */
static void
check_cuda_only_downstream (const gchar * launch, const gchar * in_caps,
    const gchar * out_caps)
{
  g_autoptr (GstBus) bus = gst_bus_new ();
  GstHarness *h = harness_with_bus (launch, bus, in_caps, out_caps);
  g_autoptr (GstMessage) msg = NULL;
  g_autoptr (GError) error = NULL;
  const guint8 px[4] = { 1, 2, 3, 255 };

  g_assert_cmpint (gst_harness_push (h, gcg_test_solid_new (in_caps, px, 4,
              0)), ==, GST_FLOW_NOT_NEGOTIATED);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  gst_message_parse_error (msg, &error, NULL);
  g_assert_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION);
  g_assert_nonnull (strstr (error->message, "CUDA memory"));
  g_assert_nonnull (strstr (error->message, "CUDA backend"));
  g_assert_nonnull (strstr (error->message, "backend=cpu"));
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
}

static void
test_cuda_memory_needs_cuda_backend (void)
{
  const gchar *in = "video/x-raw,format=RGBA,width=8,height=8";

  check_cuda_only_downstream ("cudagraphconvert backend=cpu", in,
      "video/x-raw(memory:CUDAMemory),format=RGBA,width=4,height=4");
  check_cuda_only_downstream ("cudagraphpreprocess backend=cpu width=4 "
      "height=4", in, "other/tensors(memory:CUDAMemory)");
}

/* cudagraphbatch (an aggregator: it negotiates on its own thread). */
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

/* A failure with another cause says nothing about the backend. */
static void
test_other_failure_unexplained (void)
{
  const gchar *in = "video/x-raw,format=RGBA,width=8,height=8";
  g_autoptr (GstBus) bus = gst_bus_new ();
  GstHarness *h = harness_with_bus ("cudagraphconvert backend=cpu", bus, in,
      "audio/x-raw");
  g_autoptr (GstMessage) msg = NULL;
  const guint8 px[4] = { 1, 2, 3, 255 };

  g_assert_cmpint (gst_harness_push (h, gcg_test_solid_new (in, px, 4, 0)),
      ==, GST_FLOW_NOT_NEGOTIATED);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  g_assert_null (msg);
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
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
  g_test_add_func ("/gst/negotiation/other-failure-unexplained",
      test_other_failure_unexplained);
  return g_test_run ();
}
