/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers shared by the test programs.
 */
#pragma once

#include <gcg.h>
#include "gcg-testing.h"

/* Whether a test that cannot run must fail instead of skipping:
 * GCG_TEST_REQUIRE_GPU set to anything but "" or "0".  The GPU host's
 * runner (tools/gpu-host-run.sh) sets it, so a host whose driver, device
 * or nvcodec is missing fails instead of looking green. */
static inline gboolean
gcg_test_require_gpu (void)
{
  const gchar *v = g_getenv ("GCG_TEST_REQUIRE_GPU");

  return v != NULL && *v != '\0' && g_strcmp0 (v, "0") != 0;
}

/* Marks the running test skipped for @why, or failed when
 * gcg_test_require_gpu(): every "cannot run here" path goes through it. */
static inline void
gcg_test_skip_or_fail (const gchar *why)
{
  if (gcg_test_require_gpu ()) {
    g_test_message ("GCG_TEST_REQUIRE_GPU is set, so this is a failure: %s",
        why);
    g_test_fail ();
  } else {
    g_test_skip (why);
  }
}

/* Whether this build was meant to have the gstreamer-cuda interop:
 * tests/meson.build defines GCG_TEST_GST_CUDA_EXPECTED=1 when nvcc and
 * gstreamer-cuda-1.0 were both found.  Then a build without HAVE_GST_CUDA
 * means gst/meson.build's header probe failed, which must fail the
 * interop tests rather than skip them. */
static inline gboolean
gcg_test_gst_cuda_expected (void)
{
#if defined(GCG_TEST_GST_CUDA_EXPECTED) && GCG_TEST_GST_CUDA_EXPECTED
  return TRUE;
#else
  return FALSE;
#endif
}

/* What an interop test does in a build without HAVE_GST_CUDA: fails when
 * the interop was expected (see above), else skips (or fails under
 * GCG_TEST_REQUIRE_GPU). */
static inline void
gcg_test_no_gst_cuda (void)
{
  if (gcg_test_gst_cuda_expected ()) {
    g_test_message (
        "nvcc and gstreamer-cuda-1.0 were found but the plugin "
        "was built without the interop: gst/meson.build's probe failed "
        "(see meson-logs/meson-log.txt)");
    g_test_fail ();
  } else {
    gcg_test_skip_or_fail ("built without gstreamer-cuda");
  }
}

/* The seed of a randomised test: fixed (so CI runs the same cases every
 * time) unless GCG_TEST_RANDOM_SEED is set: "1" takes a new seed from
 * GTest (which --seed fixes), any other number is used as the seed.
 * The seed is always printed, so a failing random run can be replayed
 * with GCG_TEST_RANDOM_SEED=SEED. */
static inline guint32
gcg_test_seed (guint32 fixed)
{
  const gchar *v = g_getenv ("GCG_TEST_RANDOM_SEED");
  guint32 seed = fixed;

  if (v != NULL && *v != '\0' && g_strcmp0 (v, "0") != 0)
    seed = g_strcmp0 (v, "1") == 0 ? (guint32) g_test_rand_int ()
                                   : (guint32) g_ascii_strtoull (v, NULL, 0);
  g_test_message ("seed %u (GCG_TEST_RANDOM_SEED=%u replays it)", seed, seed);
  return seed;
}

/* Opens device 0 for a GPU test, or marks the test skipped (with the
 * driver's reason) and returns NULL: callers return at once on NULL.
 * A skipped GPU test is reported as a TAP skip, never as a pass; under
 * GCG_TEST_REQUIRE_GPU=1 it is a failure. */
static inline GcgContext *
gcg_test_open_gpu (void)
{
  g_autoptr (GError) error = NULL;
  GcgContext *ctx;
  gint count;

  if (!gcg_driver_init (&error)) {
    g_autofree gchar *why =
        g_strdup_printf ("no CUDA driver: %s", error->message);

    gcg_test_skip_or_fail (why);
    return NULL;
  }
  count = gcg_context_get_device_count (&error);
  if (count <= 0) {
    g_autofree gchar *why = g_strdup_printf ("no CUDA device: %s",
        error ? error->message : "device count is 0");

    gcg_test_skip_or_fail (why);
    return NULL;
  }
  ctx = gcg_context_new (0, &error);
  g_assert_no_error (error);
  return ctx;
}
