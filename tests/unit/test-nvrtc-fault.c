/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fault-injection sweep of NVRTC's entry points, without a GPU: each
 * one made to fail (gcg_fault_inject ("nvrtcX:*")) while a kernel that
 * compiles and one that does not go through gcg__nvrtc_compile(), the
 * compiled-kernel cache and GcgKernelOp.  Each outcome is either the
 * compile's own (the failed call was not needed) or a GError that names
 * the call; no NVRTC program is left alive, nothing failed is cached, and
 * the next compile, disarmed, works.  Leaks of our own memory are the
 * sanitizer run's to find (CI's asan setup runs this test).  Skips only
 * when NVRTC is absent, and says so.
 */
#include <gcg.h>
#include "gcg-nvrtc-private.h"
#include "gcg-testing.h"
#include "common/gcg-test-nvrtc.h"

#include <glib/gstdio.h>
#include <string.h>

#define SM 90

static const gchar *good_source =
    "extern \"C\" __global__ void k (int *p) { p[threadIdx.x] = 7; }\n";
static const gchar *bad_source =
    "extern \"C\" __global__ void k (int *p)\n{\n  p[0] = nothing;\n}\n";

/* What a fault in one entry point does to each source: FALSE where the
 * call is not made or its failure does not matter (the compile's own
 * outcome), TRUE where the compile fails naming the call. */
static const struct
{
  const gchar *func;
  gboolean fails_good;
  gboolean fails_bad;
} sweep[] = {
  { "nvrtcCreateProgram", TRUE, TRUE },
  { "nvrtcCompileProgram", TRUE, TRUE },
  /* Only read after a failed compile: its error says "(no log)". */
  { "nvrtcGetProgramLogSize", FALSE, FALSE },
  { "nvrtcGetProgramLog", FALSE, FALSE },
  { "nvrtcGetCUBINSize", TRUE, FALSE },
  { "nvrtcGetCUBIN", TRUE, FALSE },
  /* A release: made anyway, its failure only logged. */
  { "nvrtcDestroyProgram", FALSE, FALSE },
};

static GBytes *
compile_with_fault (const gchar *func, const gchar *source, GError **error)
{
  g_autofree gchar *spec = g_strdup_printf ("%s:*", func);
  GBytes *cubin;

  g_assert_true (gcg_fault_inject (spec, NULL));
  cubin = gcg__nvrtc_compile (NULL, source, "k.cu", SM, NULL, error);
  g_assert_true (gcg_fault_inject (NULL, NULL));
  g_assert_cmpuint (gcg__nvrtc_get_live_programs (), ==, 0);
  return cubin;
}

static void
test_sweep (void)
{
  g_autoptr (GBytes) clean = NULL;
  guint cases = 0;

  if (!gcg_test_nvrtc_or_skip ())
    return;
  clean = gcg__nvrtc_compile (NULL, good_source, "k.cu", SM, NULL, NULL);
  g_assert_nonnull (clean);
  for (guint i = 0; i < G_N_ELEMENTS (sweep); i++) {
    g_autoptr (GError) good_error = NULL;
    g_autoptr (GError) bad_error = NULL;
    g_autoptr (GBytes)
        good = compile_with_fault (sweep[i].func, good_source, &good_error);
    g_autoptr (GBytes)
        bad = compile_with_fault (sweep[i].func, bad_source, &bad_error);

    g_test_message ("%s: %s / %s", sweep[i].func,
        good_error ? good_error->message : "compiled", bad_error->message);
    if (sweep[i].fails_good) {
      g_assert_null (good);
      g_assert_nonnull (strstr (good_error->message, sweep[i].func));
    } else {
      g_assert_no_error (good_error);
      g_assert_true (g_bytes_equal (good, clean));
    }
    g_assert_null (bad);
    g_assert_nonnull (bad_error);
    if (sweep[i].fails_bad) {
      g_assert_nonnull (strstr (bad_error->message, sweep[i].func));
    } else {
      g_assert_error (bad_error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (strstr (bad_error->message, "does not compile"));
    }
    cases += 2;
  }
  g_assert_cmpuint (cases, ==, 2 * G_N_ELEMENTS (sweep));
}

/* The log's two calls failing: the compile error is still one, without
 * the log. */
static void
test_no_log (void)
{
  const gchar *funcs[] = { "nvrtcGetProgramLogSize", "nvrtcGetProgramLog" };

  if (!gcg_test_nvrtc_or_skip ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (funcs); i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GBytes) bad = compile_with_fault (funcs[i], bad_source, &error);

    g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "(no log)"));
  }
}

/* RESULT picks NVRTC's error: an invalid option is the caller's mistake,
 * a number NVRTC does not have is its internal error. */
static void
test_results (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) a = NULL;
  g_autoptr (GBytes) b = NULL;

  if (!gcg_test_nvrtc_or_skip ())
    return;
  g_assert_true (gcg_fault_inject ("nvrtcCompileProgram:1=5", &error));
  a = gcg__nvrtc_compile (NULL, good_source, "k.cu", SM, NULL, &error);
  g_assert_null (a);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "nvrtcCompileProgram"));
  g_clear_error (&error);
  g_assert_true (gcg_fault_inject ("nvrtcCompileProgram:1=999", &error));
  b = gcg__nvrtc_compile (NULL, good_source, "k.cu", SM, NULL, &error);
  g_assert_null (b);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "INTERNAL"));
  g_assert_true (gcg_fault_inject (NULL, NULL));
  g_assert_cmpuint (gcg__nvrtc_get_live_programs (), ==, 0);
}

/* Through the cache (memory and disk) and GcgKernelOp: a failed compile
 * is never cached, and the same kernel compiles once disarmed. */
static void
test_through_cache_and_op (void)
{
  const gchar *prelude = "typedef struct { int x; } gcg_params;";
  g_autofree gchar *dir = NULL;
  g_autofree gchar *sub = NULL;

  if (!gcg_test_nvrtc_or_skip ())
    return;
  dir = g_dir_make_tmp ("gcg-nvrtc-fault-XXXXXX", NULL);
  sub = g_build_filename (dir, "kernels", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (sweep); i++) {
    /* A source of its own per entry point: no hit from an earlier case. */
    g_autofree gchar *src = g_strdup_printf (
        "// %s\n"
        "extern \"C\" __global__ void gain (const gcg_params *p) {}\n",
        sweep[i].func);
    g_autofree gchar *spec = g_strdup_printf ("%s:*", sweep[i].func);
    g_autoptr (GError) error = NULL;
    g_autoptr (GBytes) cubin = NULL;
    g_autoptr (GcgKernelOp) op = NULL;

    g_assert_true (gcg_fault_inject (spec, NULL));
    cubin =
        gcg__nvrtc_compile_cached (prelude, src, "k.cu", SM, NULL, sub, &error);
    g_assert_true ((cubin == NULL) == sweep[i].fails_good);
    g_clear_error (&error);
    op = gcg_kernel_op_new_from_source (NULL, src, "gain", NULL, &error);
    g_assert_true ((op == NULL) == sweep[i].fails_good);
    g_assert_true ((error != NULL) == sweep[i].fails_good);
    if (error)
      g_assert_nonnull (strstr (error->message, sweep[i].func));
    g_assert_true (gcg_fault_inject (NULL, NULL));
    g_assert_cmpuint (gcg__nvrtc_get_live_programs (), ==, 0);
    g_clear_error (&error);
    g_clear_pointer (&cubin, g_bytes_unref);
    g_clear_object (&op);
    /* Disarmed: the same kernel, nothing poisoned. */
    cubin =
        gcg__nvrtc_compile_cached (prelude, src, "k.cu", SM, NULL, sub, &error);
    g_assert_no_error (error);
    op = gcg_kernel_op_new_from_source (NULL, src, "gain", NULL, &error);
    g_assert_no_error (error);
  }
  {
    g_autoptr (GDir) d = g_dir_open (sub, 0, NULL);
    const gchar *name;

    while (d != NULL && (name = g_dir_read_name (d)) != NULL) {
      g_autofree gchar *p = g_build_filename (sub, name, NULL);

      g_unlink (p);
    }
  }
  g_rmdir (sub);
  g_rmdir (dir);
}

/* nvrtcVersion fails the load, which is tried once per process: every
 * later compile gives the same error, naming the call. */
static void
test_version (void)
{
  if (g_test_subprocess ()) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GBytes) cubin = NULL;

    g_assert_true (gcg_fault_inject ("nvrtcVersion:1", NULL));
    g_assert_false (gcg__nvrtc_load (&error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED);
    g_assert_nonnull (strstr (error->message, "nvrtcVersion"));
    g_clear_error (&error);
    g_assert_true (gcg_fault_inject (NULL, NULL));
    cubin = gcg__nvrtc_compile (NULL, good_source, "k.cu", SM, NULL, &error);
    g_assert_null (cubin);
    g_assert_nonnull (strstr (error->message, "nvrtcVersion"));
    return;
  }
  if (!gcg_test_nvrtc_or_skip ())
    return;
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

/* Every NVRTC entry point is a name the spec takes. */
static void
test_spec_names (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (sweep); i++) {
    g_autofree gchar *spec = g_strdup_printf ("%s:2=6", sweep[i].func);
    g_autoptr (GError) error = NULL;

    g_assert_true (gcg_fault_inject (spec, &error));
    g_assert_no_error (error);
  }
  g_assert_true (gcg_fault_inject ("nvrtcVersion:*", NULL));
  g_assert_false (gcg_fault_inject ("nvrtcGetErrorString:1", NULL));
  g_assert_true (gcg_fault_inject (NULL, NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/nvrtc-fault/spec-names", test_spec_names);
  g_test_add_func ("/nvrtc-fault/version", test_version);
  g_test_add_func ("/nvrtc-fault/sweep", test_sweep);
  g_test_add_func ("/nvrtc-fault/no-log", test_no_log);
  g_test_add_func ("/nvrtc-fault/results", test_results);
  g_test_add_func ("/nvrtc-fault/through-cache-and-op",
      test_through_cache_and_op);
  return g_test_run ();
}
