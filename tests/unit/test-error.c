/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * CUresult -> GError: code, and a message that names the call, the
 * driver's error name, the place and what to do.
 */
#include <gcg.h>
#include "gcg-error-private.h"

typedef struct
{
  CUresult result;
  gint code;
  const gchar *name;
  const gchar *hint_part;
} Case;

static const Case cases[] = {
  { CUDA_ERROR_OUT_OF_MEMORY, GCG_ERROR_OUT_OF_MEMORY,
      "CUDA_ERROR_OUT_OF_MEMORY", "free device memory" },
  { CUDA_ERROR_NO_DEVICE, GCG_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE",
      "CUDA_VISIBLE_DEVICES" },
  { CUDA_ERROR_INVALID_DEVICE, GCG_ERROR_NO_DEVICE, "CUDA_ERROR_INVALID_DEVICE",
      "gcg-info" },
  { CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, GCG_ERROR_CAPTURE_INVALIDATED,
      "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "capture again" },
  { CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, GCG_ERROR_CAPTURE_INVALIDATED,
      "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "before the capture" },
  { CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, GCG_ERROR_CAPTURE_STATE,
      "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", "where it began" },
  { CUDA_ERROR_NO_BINARY_FOR_GPU, GCG_ERROR_NO_KERNELS,
      "CUDA_ERROR_NO_BINARY_FOR_GPU", "cuda-archs" },
  { CUDA_ERROR_INVALID_VALUE, GCG_ERROR_INVALID_ARGUMENT,
      "CUDA_ERROR_INVALID_VALUE", "out of range" },
  { CUDA_ERROR_NOT_SUPPORTED, GCG_ERROR_NOT_SUPPORTED,
      "CUDA_ERROR_NOT_SUPPORTED", "does not support" },
  { CUDA_ERROR_ILLEGAL_ADDRESS, GCG_ERROR_DRIVER, "CUDA_ERROR_ILLEGAL_ADDRESS",
      "restart the process" },
  { 12345, GCG_ERROR_DRIVER, "CUDA_ERROR_(unnamed)",
      "CUDA driver API documentation" },
};

static void
test_success (void)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (gcg__cuda_result (CUDA_SUCCESS, "cuInit", &error, "f.c", 1,
      "fn"));
  g_assert_no_error (error);
}

static void
test_mapping (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) error = NULL;
    g_autofree gchar *number = g_strdup_printf ("(%d,", cases[i].result);

    g_assert_false (gcg__cuda_result (cases[i].result, "cuMemAlloc", &error,
        "gcg-thing.c", 42, "gcg_thing_do"));
    g_assert_error (error, GCG_ERROR, cases[i].code);
    g_assert_true (g_str_has_prefix (error->message, "cuMemAlloc failed: "));
    g_assert_nonnull (strstr (error->message, cases[i].name));
    g_assert_nonnull (strstr (error->message, number));
    g_assert_nonnull (strstr (error->message,
        "gcg_thing_do at gcg-thing.c:42"));
    g_assert_nonnull (strstr (error->message, cases[i].hint_part));
    g_assert_cmpint (gcg__cuda_result_to_code (cases[i].result), ==,
        cases[i].code);
  }
}

static void
test_null_error_warns (void)
{
  g_test_expect_message ("Gcg", G_LOG_LEVEL_WARNING,
      "cuStreamDestroy failed: CUDA_ERROR_INVALID_HANDLE*");
  g_assert_false (gcg__cuda_result (CUDA_ERROR_INVALID_HANDLE,
      "cuStreamDestroy", NULL, "x.c", 7, "f"));
  g_test_assert_expected_messages ();
}

static void
test_enum_registered (void)
{
  g_autoptr (GEnumClass) klass = g_type_class_ref (GCG_TYPE_ERROR);
  GEnumValue *value = g_enum_get_value (klass, GCG_ERROR_POOL_SEALED);

  g_assert_nonnull (value);
  g_assert_cmpstr (value->value_nick, ==, "pool-sealed");
  g_assert_cmpstr (g_quark_to_string (GCG_ERROR), ==, "gcg-error-quark");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/error/success", test_success);
  g_test_add_func ("/error/mapping", test_mapping);
  g_test_add_func ("/error/null-error-warns", test_null_error_warns);
  g_test_add_func ("/error/enum-registered", test_enum_registered);

  return g_test_run ();
}
