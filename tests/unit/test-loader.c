/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The driver loader, on machines without a GPU: a missing library, a
 * too-old driver, a missing entry point, a failing cuInit and fault
 * injection, each in its own subprocess (the load happens once per process).
 * The stand-in driver is tests/unit/fake-cuda.c.
 */
#include <gcg.h>
#include "gcg-cuda-private.h"

static void
run_child (const gchar *library, const gchar *const *env)
{
  g_setenv ("GCG_CUDA_LIBRARY", library, TRUE);
  for (guint i = 0; env && env[i]; i += 2)
    g_setenv (env[i], env[i + 1], TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  for (guint i = 0; env && env[i]; i += 2)
    g_unsetenv (env[i]);
  g_unsetenv ("GCG_CUDA_LIBRARY");
  g_test_trap_assert_passed ();
}

static const gchar *
fake_library (void)
{
  const gchar *path = g_getenv ("GCG_TEST_FAKE_CUDA");

  g_assert_nonnull (path);
  return path;
}

static void
test_no_driver (void)
{
  if (g_test_subprocess ()) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GError) again = NULL;
    g_autoptr (GcgContext) ctx = NULL;
    gint version = -7;

    g_assert_false (gcg_driver_init (&error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_NO_DRIVER);
    g_assert_nonnull (strstr (error->message, "/nonexistent/libcuda.so.1"));
    g_assert_nonnull (strstr (error->message, "install the NVIDIA driver"));
    /* The failure is cached and reported the same way every time. */
    g_assert_false (gcg_driver_get_version (&version, &again));
    g_assert_cmpint (version, ==, -7);
    g_assert_cmpstr (again->message, ==, error->message);
    g_clear_error (&again);
    g_assert_cmpint (gcg_context_get_device_count (&again), ==, -1);
    g_assert_error (again, GCG_ERROR, GCG_ERROR_NO_DRIVER);
    g_clear_error (&again);
    ctx = gcg_context_new (0, &again);
    g_assert_null (ctx);
    g_assert_error (again, GCG_ERROR, GCG_ERROR_NO_DRIVER);
    return;
  }
  run_child ("/nonexistent/libcuda.so.1", NULL);
}

static void
test_old_driver (void)
{
  const gchar *env[] = { "FAKE_CUDA_VERSION", "11080", NULL };

  if (g_test_subprocess ()) {
    g_autoptr (GError) error = NULL;

    g_assert_false (gcg_driver_init (&error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER_TOO_OLD);
    g_assert_nonnull (strstr (error->message, "11.8"));
    g_assert_nonnull (strstr (error->message, "12.0"));
    return;
  }
  run_child (fake_library (), env);
}

static void
test_missing_entry_point (void)
{
  const gchar *env[] = { "FAKE_CUDA_MISSING", "cuGraphExecUpdate", NULL };

  if (g_test_subprocess ()) {
    g_autoptr (GError) error = NULL;

    g_assert_false (gcg_driver_init (&error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER_TOO_OLD);
    g_assert_nonnull (strstr (error->message, "cuGraphExecUpdate"));
    /* A half-filled table must not be left behind. */
    g_assert_null (gcg__cuda.cuInit);
    return;
  }
  run_child (fake_library (), env);
}

static void
test_init_fails (void)
{
  const gchar *env[] = { "FAKE_CUDA_INIT_RESULT", "100", NULL };

  if (g_test_subprocess ()) {
    g_autoptr (GError) error = NULL;

    g_assert_false (gcg_driver_init (&error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_NO_DEVICE);
    g_assert_nonnull (strstr (error->message, "cuInit failed"));
    g_assert_nonnull (strstr (error->message, "CUDA_ERROR_NO_DEVICE"));
    g_assert_nonnull (strstr (error->message, "nvidia-smi"));
    return;
  }
  run_child (fake_library (), env);
}

static void
test_loads_without_devices (void)
{
  if (g_test_subprocess ()) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GcgContext) ctx = NULL;
    gint version = 0;

    g_assert_true (gcg_driver_get_version (&version, &error));
    g_assert_no_error (error);
    g_assert_cmpint (version, ==, 12080);
    /* Every entry point is resolved. */
    for (guint i = 0; i < GCG_CUDA_N_FUNCS; i++)
      g_assert_nonnull (((gpointer *) &gcg__cuda)[i]);
    g_assert_cmpint (gcg_context_get_device_count (&error), ==, 0);
    ctx = gcg_context_new (0, &error);
    g_assert_null (ctx);
    g_assert_error (error, GCG_ERROR, GCG_ERROR_NO_DEVICE);
    g_assert_nonnull (strstr (error->message, "No CUDA device 0"));
    return;
  }
  run_child (fake_library (), NULL);
}

static void
test_fault_from_env (void)
{
  const gchar *env[] = { "GCG_FAULT_INJECT",
    "cuDeviceGetCount:2=CUDA_ERROR_OUT_OF_MEMORY", NULL };

  if (g_test_subprocess ()) {
    g_autoptr (GError) error = NULL;

    g_assert_cmpint (gcg_context_get_device_count (&error), ==, 0);
    g_assert_cmpint (gcg_context_get_device_count (&error), ==, -1);
    g_assert_error (error, GCG_ERROR, GCG_ERROR_OUT_OF_MEMORY);
    g_assert_nonnull (strstr (error->message, "cuDeviceGetCount failed"));
    g_clear_error (&error);
    g_assert_cmpint (gcg_context_get_device_count (&error), ==, 0);
    g_assert_no_error (error);
    return;
  }
  run_child (fake_library (), env);
}

static void
test_fault_on_init (void)
{
  const gchar *env[] = { "GCG_FAULT_INJECT", "cuInit:1", NULL };

  if (g_test_subprocess ()) {
    g_autoptr (GError) error = NULL;

    g_assert_false (gcg_driver_init (&error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
    g_assert_nonnull (strstr (error->message, "CUDA_ERROR_UNKNOWN"));
    return;
  }
  run_child (fake_library (), env);
}

static void
test_bad_fault_spec_in_env (void)
{
  const gchar *env[] = { "GCG_FAULT_INJECT", "cuNoSuchCall:1", NULL };

  if (g_test_subprocess ()) {
    g_autoptr (GError) error = NULL;

    g_assert_false (gcg_driver_init (&error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "GCG_FAULT_INJECT"));
    g_assert_nonnull (strstr (error->message, "cuNoSuchCall"));
    return;
  }
  run_child (fake_library (), env);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/loader/no-driver", test_no_driver);
  g_test_add_func ("/loader/old-driver", test_old_driver);
  g_test_add_func ("/loader/missing-entry-point", test_missing_entry_point);
  g_test_add_func ("/loader/init-fails", test_init_fails);
  g_test_add_func ("/loader/loads-without-devices", test_loads_without_devices);
  g_test_add_func ("/loader/fault-from-env", test_fault_from_env);
  g_test_add_func ("/loader/fault-on-init", test_fault_on_init);
  g_test_add_func ("/loader/bad-fault-spec-in-env", test_bad_fault_spec_in_env);

  return g_test_run ();
}
