/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Foundation on a real GPU: every entry point resolved, a context on
 * device 0 with sane properties, streams, a kernel from the embedded
 * fatbin with its output checked, and the fault hook turning a chosen
 * driver call into a proper GError.  Skips (TAP) without a driver.
 */
#include "gcg-test-util.h"
#include "gcg-context-private.h"
#include "gcg-stream-private.h"

static void
test_entry_points (void)
{
  g_autoptr (GcgContext) ctx = gcg_test_open_gpu ();
  gint version = 0;

  if (!ctx)
    return;
  for (guint i = 0; i < GCG_CUDA_N_FUNCS; i++)
    g_assert_nonnull (((gpointer *) &gcg__cuda)[i]);
  g_assert_true (gcg_driver_get_version (&version, NULL));
  g_assert_cmpint (version, >=, 12000);
}

static void
test_properties (void)
{
  g_autoptr (GcgContext) ctx = gcg_test_open_gpu ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *name = NULL;
  guint64 free_bytes = 0, total_bytes = 0;
  gint major = 0, minor = -1;

  if (!ctx)
    return;
  g_object_get (ctx, "name", &name, NULL);
  g_assert_cmpstr (name, ==, gcg_context_get_name (ctx));
  g_assert_cmpuint (strlen (name), >, 0);
  gcg_context_get_compute_capability (ctx, &major, &minor);
  g_assert_cmpint (major, >=, 7);
  g_assert_cmpint (minor, >=, 0);
  g_assert_cmpint (gcg_context_get_sm_count (ctx), >, 0);
  g_assert_cmpuint (gcg_context_get_total_memory (ctx), >,
      G_GUINT64_CONSTANT (1) << 30);
  g_assert_true (g_regex_match_simple ("^[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:"
                                       "[0-9a-fA-F]{2}\\.[0-9]$",
      gcg_context_get_pci_bus_id (ctx), 0, 0));
  g_assert_true (gcg_context_get_memory_info (ctx, &free_bytes, &total_bytes,
      &error));
  g_assert_no_error (error);
  g_assert_cmpuint (free_bytes, <=, total_bytes);
  g_assert_cmpuint (total_bytes, ==, gcg_context_get_total_memory (ctx));
  g_test_message ("%s: sm_%d%d, %d SMs, %" G_GUINT64_FORMAT " bytes", name,
      major, minor, gcg_context_get_sm_count (ctx), total_bytes);
}

static void
test_bad_ordinal_and_wrap (void)
{
  g_autoptr (GcgContext) ctx = gcg_test_open_gpu ();
  g_autoptr (GcgContext) wrapped = NULL;
  g_autoptr (GcgContext) bad = NULL;
  g_autoptr (GError) error = NULL;

  if (!ctx)
    return;
  bad = gcg_context_new (4096, &error);
  g_assert_null (bad);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_NO_DEVICE);
  g_clear_error (&error);
  wrapped = gcg_context_new_wrapped (gcg_context_get_handle (ctx), &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcg_context_get_device_id (wrapped), ==, 0);
  g_assert_cmpstr (gcg_context_get_name (wrapped), ==,
      gcg_context_get_name (ctx));
  g_assert_true (gcg_context_push (wrapped, &error));
  g_assert_true (gcg_context_pop (wrapped, &error));
  g_assert_no_error (error);

  /* A pop that does not pair up fails and leaves the stack alone. */
  {
    CUcontext before = NULL, after = NULL;

    g_assert_true (GCG_CU_OK (&error, cuCtxGetCurrent, &before));
    if (before != gcg_context_get_handle (ctx)) {
      g_assert_false (gcg_context_pop (ctx, &error));
      g_assert_error (error, GCG_ERROR, GCG_ERROR_FAILED);
      g_clear_error (&error);
      g_assert_true (GCG_CU_OK (&error, cuCtxGetCurrent, &after));
      g_assert_true (after == before);
    }
  }
}

static void
test_stream (void)
{
  g_autoptr (GcgContext) ctx = gcg_test_open_gpu ();
  g_autoptr (GcgStream) stream = NULL;
  g_autoptr (GError) error = NULL;
  GcgCaptureStatus status = GCG_CAPTURE_STATUS_ACTIVE;
  gboolean idle = FALSE;

  if (!ctx)
    return;
  stream = gcg_stream_new (ctx, &error);
  g_assert_no_error (error);
  g_assert_true (gcg_stream_get_context (stream) == ctx);
  g_assert_nonnull (gcg_stream_get_handle (stream));
  g_assert_true (gcg_stream_synchronize (stream, &error));
  g_assert_true (gcg_stream_query (stream, &idle, &error));
  g_assert_true (idle);
  g_assert_true (gcg_stream_get_capture_status (stream, &status, &error));
  g_assert_cmpint (status, ==, GCG_CAPTURE_STATUS_NONE);
  g_assert_no_error (error);
}

/* A blocking synchronize really waits: a 100 ms kernel has set its flag
 * when it returns, in both modes, and the mode is a notifying property. */
static void
test_stream_sync_modes (void)
{
  g_autoptr (GcgContext) ctx = gcg_test_open_gpu ();
  g_autoptr (GcgStream) stream = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUdeviceptr flag = 0;
  CUfunction fn;
  gint khz = 0;
  guint notified = 0;

  if (!ctx)
    return;
  stream = gcg_stream_new (ctx, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcg_stream_get_sync_mode (stream), ==, GCG_SYNC_MODE_DRIVER);
  g_signal_connect_swapped (stream, "notify::sync-mode",
      G_CALLBACK (g_atomic_int_inc), &notified);
  fn = gcg__context_get_function (ctx, "gcg_test_spin", &error);
  g_assert_nonnull (fn);
  g_assert_true (gcg__context_guard_enter (&guard, ctx, &error));
  g_assert_true (GCG_CU_OK (&error, cuMemAlloc, &flag, sizeof (guint32)));
  g_assert_true (GCG_CU_OK (&error, cuDeviceGetAttribute, &khz,
      CU_DEVICE_ATTRIBUTE_CLOCK_RATE, gcg__context_get_cu_device (ctx)));
  for (GcgSyncMode mode = GCG_SYNC_MODE_DRIVER; mode <= GCG_SYNC_MODE_POLL;
      mode++) {
    unsigned long long cycles = (unsigned long long) MAX (khz, 1000000) * 100;
    void *params[] = { &cycles, &flag };
    guint32 host = 0;

    g_object_set (stream, "sync-mode", mode, NULL);
    for (gint round = 0; round < 2; round++) {
      g_assert_true (GCG_CU_OK (&error, cuMemsetD32Async, flag, 0, 1,
          gcg__stream_get_cu (stream)));
      g_assert_true (GCG_CU_OK (&error, cuLaunchKernel, fn, 1, 1, 1, 1, 1, 1, 0,
          gcg__stream_get_cu (stream), params, NULL));
      g_assert_true (gcg_stream_synchronize (stream, &error));
      g_assert_no_error (error);
      g_assert_true (GCG_CU_OK (&error, cuMemcpyDtoH, &host, flag,
          sizeof (host)));
      g_assert_cmpuint (host, ==, 1);
    }
  }
  /* driver -> blocking -> poll: two changes notified. */
  g_assert_cmpuint (notified, ==, 2);
  g_object_set (stream, "sync-mode", GCG_SYNC_MODE_POLL, NULL);
  g_assert_cmpuint (notified, ==, 2);
  GCG_CU_WARN (cuMemFree, flag);
}

static void
test_embedded_kernel_runs (void)
{
  g_autoptr (GcgContext) ctx = gcg_test_open_gpu ();
  g_autoptr (GcgStream) stream = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  const guint32 n = 100000, step = 3, base = 17;
  g_autofree guint32 *host = g_new0 (guint32, n);
  CUdeviceptr out = 0, dbase = 0;
  CUfunction fn;

  if (!ctx)
    return;
  g_assert_true (gcg_context_load_kernels (ctx, &error));
  g_assert_no_error (error);
  stream = gcg_stream_new (ctx, &error);
  fn = gcg__context_get_function (ctx, "gcg_test_iota_u32", &error);
  g_assert_no_error (error);
  g_assert_nonnull (fn);
  g_assert_true (gcg__context_guard_enter (&guard, ctx, &error));
  g_assert_true (GCG_CU_OK (&error, cuMemAlloc, &out, n * sizeof (guint32)));
  g_assert_true (GCG_CU_OK (&error, cuMemAlloc, &dbase, sizeof (guint32)));
  g_assert_true (GCG_CU_OK (&error, cuMemcpyHtoD, dbase, &base, sizeof (base)));
  {
    guint32 count = n, stride = step;
    void *params[] = { &out, &count, &stride, &dbase };

    g_assert_true (GCG_CU_OK (&error, cuLaunchKernel, fn, (n + 255) / 256, 1, 1,
        256, 1, 1, 0, gcg__stream_get_cu (stream), params, NULL));
  }
  g_assert_true (gcg_stream_synchronize (stream, &error));
  g_assert_true (GCG_CU_OK (&error, cuMemcpyDtoH, host, out,
      n * sizeof (guint32)));
  for (guint32 i = 0; i < n; i++)
    g_assert_cmpuint (host[i], ==, i * step + base);
  GCG_CU_WARN (cuMemFree, out);
  GCG_CU_WARN (cuMemFree, dbase);
  g_assert_no_error (error);

  /* Unknown kernels are a clear error, not a crash. */
  g_assert_null (gcg__context_get_function (ctx, "gcg_no_such_kernel", &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
  g_assert_nonnull (strstr (error->message, "gcg_no_such_kernel"));
}

static void
test_fault_hook (void)
{
  g_autoptr (GcgContext) ctx = gcg_test_open_gpu ();
  g_autoptr (GcgStream) stream = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUdeviceptr ptr = 0;

  if (!ctx)
    return;
  g_assert_true (gcg_fault_inject ("cuMemAlloc:2=CUDA_ERROR_OUT_OF_MEMORY,"
                                   "cuStreamCreate:1",
      &error));
  g_assert_true (gcg__context_guard_enter (&guard, ctx, &error));
  g_assert_true (GCG_CU_OK (&error, cuMemAlloc, &ptr, 4096));
  GCG_CU_WARN (cuMemFree, ptr);
  ptr = 0;
  g_assert_false (GCG_CU_OK (&error, cuMemAlloc, &ptr, 4096));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_OUT_OF_MEMORY);
  g_assert_nonnull (strstr (error->message, "cuMemAlloc failed"));
  g_assert_cmpuint (ptr, ==, 0);
  g_clear_error (&error);

  stream = gcg_stream_new (ctx, &error);
  g_assert_null (stream);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
  g_assert_nonnull (strstr (error->message, "cuStreamCreate failed"));
  g_clear_error (&error);
  g_assert_true (gcg_fault_inject (NULL, &error));

  /* Everything works again once disarmed. */
  stream = gcg_stream_new (ctx, &error);
  g_assert_no_error (error);
  g_assert_true (GCG_CU_OK (&error, cuMemAlloc, &ptr, 4096));
  GCG_CU_WARN (cuMemFree, ptr);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/gpu/context/entry-points", test_entry_points);
  g_test_add_func ("/gpu/context/properties", test_properties);
  g_test_add_func ("/gpu/context/bad-ordinal-and-wrap",
      test_bad_ordinal_and_wrap);
  g_test_add_func ("/gpu/context/stream", test_stream);
  g_test_add_func ("/gpu/context/stream-sync-modes", test_stream_sync_modes);
  g_test_add_func ("/gpu/context/embedded-kernel-runs",
      test_embedded_kernel_runs);
  g_test_add_func ("/gpu/context/fault-hook", test_fault_hook);

  return g_test_run ();
}
