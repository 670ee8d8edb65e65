/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fault-injection spec parser and the call counting behind it.  No
 * driver is needed: the hook sits in front of every driver call.
 */
#include <gcg.h>
#include "gcg-fault-private.h"
#include "gcg-testing.h"

static GcgFaultRule *
rule (GArray *rules, guint i)
{
  return &g_array_index (rules, GcgFaultRule, i);
}

static void
test_parse_valid (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) rules =
      gcg__fault_parse (" cuMemAlloc:3 , "
                        "cuGraphLaunch:*,cuStreamCreate:1=2,cuMemHostAlloc:7="
                        "CUDA_ERROR_OUT_OF_MEMORY,",
          &error);

  g_assert_no_error (error);
  g_assert_cmpuint (rules->len, ==, 4);
  g_assert_cmpint (rule (rules, 0)->func, ==, GCG_CUDA_ID_cuMemAlloc);
  g_assert_cmpuint (rule (rules, 0)->nth, ==, 3);
  g_assert_cmpint (rule (rules, 0)->result, ==, CUDA_ERROR_UNKNOWN);
  g_assert_cmpint (rule (rules, 1)->func, ==, GCG_CUDA_ID_cuGraphLaunch);
  g_assert_cmpuint (rule (rules, 1)->nth, ==, 0);
  g_assert_cmpint (rule (rules, 2)->result, ==, CUDA_ERROR_OUT_OF_MEMORY);
  g_assert_cmpint (rule (rules, 3)->func, ==, GCG_CUDA_ID_cuMemHostAlloc);
  g_assert_cmpint (rule (rules, 3)->result, ==, CUDA_ERROR_OUT_OF_MEMORY);
}

static void
test_parse_empty (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) a = gcg__fault_parse (NULL, &error);
  g_autoptr (GArray) b = gcg__fault_parse (" , ", &error);

  g_assert_no_error (error);
  g_assert_cmpuint (a->len, ==, 0);
  g_assert_cmpuint (b->len, ==, 0);
}

static void
test_parse_invalid (void)
{
  const gchar *bad[] = {
    "cuNoSuchCall:1",
    "cuMemAlloc",
    "cuMemAlloc:0",
    "cuMemAlloc:-1",
    "cuMemAlloc:x",
    "cuMemAlloc:1=",
    "cuMemAlloc:1=0",
    "cuMemAlloc:1=NOPE",
    "cuMemAlloc:1,cuBogus:*",
    ":3",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GArray) rules = gcg__fault_parse (bad[i], &error);

    g_assert_null (rules);
    g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  }
}

static void
test_nth_call_fails_once (void)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (gcg_fault_inject ("cuMemAlloc:3=2", &error));
  g_assert_cmpint (gcg__cuda_fault (GCG_CUDA_ID_cuMemAlloc), ==, 0);
  g_assert_cmpint (gcg__cuda_fault (GCG_CUDA_ID_cuMemFree), ==, 0);
  g_assert_cmpint (gcg__cuda_fault (GCG_CUDA_ID_cuMemAlloc), ==, 0);
  g_assert_cmpint (gcg__cuda_fault (GCG_CUDA_ID_cuMemAlloc), ==, 2);
  g_assert_cmpint (gcg__cuda_fault_last (), ==, 2);
  g_assert_cmpint (gcg__cuda_fault (GCG_CUDA_ID_cuMemAlloc), ==, 0);
  g_assert_true (gcg_fault_inject (NULL, &error));
}

static void
test_every_call_and_disarm (void)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (gcg_fault_inject ("cuGraphLaunch:*", &error));
  for (gint i = 0; i < 5; i++)
    g_assert_cmpint (gcg__cuda_fault (GCG_CUDA_ID_cuGraphLaunch), ==, 999);
  /* A bad spec leaves the armed one in place. */
  g_assert_false (gcg_fault_inject ("cuGraphLaunch", &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_cmpint (gcg__cuda_fault (GCG_CUDA_ID_cuGraphLaunch), ==, 999);
  g_assert_true (gcg_fault_inject ("", NULL));
  g_assert_cmpint (gcg__cuda_fault (GCG_CUDA_ID_cuGraphLaunch), ==, 0);
}

static void
test_rearm_resets_counts (void)
{
  g_assert_true (gcg_fault_inject ("cuEventRecord:2", NULL));
  g_assert_cmpint (gcg__cuda_fault (GCG_CUDA_ID_cuEventRecord), ==, 0);
  g_assert_true (gcg_fault_inject ("cuEventRecord:2", NULL));
  g_assert_cmpint (gcg__cuda_fault (GCG_CUDA_ID_cuEventRecord), ==, 0);
  g_assert_cmpint (gcg__cuda_fault (GCG_CUDA_ID_cuEventRecord), ==, 999);
  g_assert_true (gcg_fault_inject (NULL, NULL));
}

static guint fake_calls;

static CUresult
fake_mem_free (CUdeviceptr ptr)
{
  fake_calls++;
  return CUDA_SUCCESS;
}

static CUresult
fake_mem_alloc (CUdeviceptr *ptr, size_t bytes)
{
  fake_calls++;
  *ptr = 0x1000;
  return CUDA_SUCCESS;
}

/* An injected failure of a release still releases (memcheck would report
 * the memory of every cuMemFree fault of a sweep as leaked), then reports
 * the failure; any other call that is made to fail is never made. */
static void
test_release_still_releases (void)
{
  GcgCudaTable saved = gcg__cuda;
  CUdeviceptr ptr = 0;

  gcg__cuda.cuMemFree = fake_mem_free;
  gcg__cuda.cuMemAlloc = fake_mem_alloc;
  g_assert_true (gcg_fault_inject ("cuMemFree:1=CUDA_ERROR_INVALID_VALUE,"
                                   "cuMemAlloc:1=CUDA_ERROR_OUT_OF_MEMORY",
      NULL));
  fake_calls = 0;
  g_assert_cmpint (GCG_CU (cuMemFree, 0x1000), ==, CUDA_ERROR_INVALID_VALUE);
  g_assert_cmpuint (fake_calls, ==, 1);
  g_assert_cmpint (GCG_CU (cuMemFree, 0x1000), ==, CUDA_SUCCESS);
  g_assert_cmpuint (fake_calls, ==, 2);
  fake_calls = 0;
  g_assert_cmpint (GCG_CU (cuMemAlloc, &ptr, 16), ==, CUDA_ERROR_OUT_OF_MEMORY);
  g_assert_cmpuint (fake_calls, ==, 0);
  g_assert_cmpuint (ptr, ==, 0);
  g_assert_true (gcg_fault_inject (NULL, NULL));
  g_assert_true (gcg__cuda_is_release (GCG_CUDA_ID_cuMemFreeHost));
  g_assert_true (gcg__cuda_is_release (GCG_CUDA_ID_cuGraphExecDestroy));
  g_assert_false (gcg__cuda_is_release (GCG_CUDA_ID_cuMemFreeAsync));
  g_assert_false (gcg__cuda_is_release (GCG_CUDA_ID_cuGraphLaunch));
  gcg__cuda = saved;
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/fault/parse-valid", test_parse_valid);
  g_test_add_func ("/fault/parse-empty", test_parse_empty);
  g_test_add_func ("/fault/parse-invalid", test_parse_invalid);
  g_test_add_func ("/fault/nth-call-fails-once", test_nth_call_fails_once);
  g_test_add_func ("/fault/every-call-and-disarm", test_every_call_and_disarm);
  g_test_add_func ("/fault/rearm-resets-counts", test_rearm_resets_counts);
  g_test_add_func ("/fault/release-still-releases",
      test_release_still_releases);

  return g_test_run ();
}
