/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * NVRTC without a GPU: the example kernels of examples/kernels/ compile
 * for sm_90 with the struct their "gcg-params:" line declares; a compile
 * error carries NVRTC's log with the user's line numbers; a missing NVRTC
 * is an error naming what was tried.  Compiling tests skip only when
 * NVRTC cannot be loaded on this machine, and say so.
 */
#include <gcg.h>
#include "gcg-kernel-decl-private.h"
#include "gcg-nvrtc-private.h"
#include "common/gcg-test-nvrtc.h"

#include <string.h>

#define TEST_SM 90

/* The declaration after "// gcg-params: " in @source. */
static gchar *
params_line (const gchar *source)
{
  const gchar *tag = "// gcg-params: ";
  const gchar *start = strstr (source, tag);

  g_assert_nonnull (start);
  start += strlen (tag);
  return g_strndup (start, strcspn (start, "\n"));
}

static void
test_example (gconstpointer data)
{
  const gchar *name = data;
  const gchar *dir = g_getenv ("GCG_EXAMPLES_DIR");
  g_autofree gchar *path = NULL;
  g_autofree gchar *source = NULL;
  g_autofree gchar *decl_text = NULL;
  g_autofree gchar *prelude = NULL;
  g_autoptr (GcgKernelDecl) decl = NULL;
  g_autoptr (GBytes) cubin = NULL;
  g_autoptr (GError) error = NULL;
  gsize size;
  const guint8 *bytes;

  if (!gcg_test_nvrtc_or_skip ())
    return;
  g_assert_nonnull (dir);
  path = g_build_filename (dir, "kernels", name, NULL);
  g_assert_true (g_file_get_contents (path, &source, NULL, &error));
  decl_text = params_line (source);
  decl = gcg__kernel_decl_parse (decl_text, &error);
  g_assert_no_error (error);
  prelude = gcg__kernel_decl_to_c (decl, "gcg_params");
  cubin = gcg__nvrtc_compile (prelude, source, name, TEST_SM, NULL, &error);
  g_assert_no_error (error);
  bytes = g_bytes_get_data (cubin, &size);
  g_assert_cmpuint (size, >, 64);
  g_assert_cmpmem (bytes, 4, "\177ELF", 4);
}

static void
test_compile_error (void)
{
  const gchar *source = "extern \"C\" __global__ void k (const gcg_params *p)\n"
                        "{\n  no_such_thing = p->gain;\n}\n";
  g_autoptr (GcgKernelDecl) decl = gcg__kernel_decl_parse ("gain=f32:1", NULL);
  g_autofree gchar *prelude = gcg__kernel_decl_to_c (decl, "gcg_params");
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) cubin = NULL;

  if (!gcg_test_nvrtc_or_skip ())
    return;
  cubin = gcg__nvrtc_compile (prelude, source, "bad.cu", TEST_SM, NULL, &error);
  g_assert_null (cubin);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "bad.cu"));
  /* The user's line 3, not line 3 + the prelude's. */
  g_assert_nonnull (strstr (error->message, "bad.cu(3)"));
  g_assert_nonnull (strstr (error->message, "no_such_thing"));
}

/* A log longer than GCG_NVRTC_MAX_LOG (a 200 KB line quoted in it) is
 * cut, keeping its first error and line number (failed before: the whole
 * log was left out, "too long to show"). */
static void
test_long_log (void)
{
  g_autofree gchar *junk = g_strnfill (200 * 1024, 'x');
  g_autofree gchar *source =
      g_strdup_printf ("extern \"C\" __global__ "
                       "void k (int *p)\n{\n  p[0] = nothing + %s;\n}\n",
          junk);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) cubin = NULL;

  if (!gcg_test_nvrtc_or_skip ())
    return;
  cubin = gcg__nvrtc_compile (NULL, source, "long.cu", TEST_SM, NULL, &error);
  g_assert_null (cubin);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "long.cu(3)"));
  g_assert_nonnull (strstr (error->message, "the log goes on for"));
  g_assert_cmpuint (strlen (error->message), <=, GCG_NVRTC_MAX_LOG + 256);
}

static void
test_bad_option_and_name (void)
{
  const gchar *const opts[] = { "--no-such-option", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) a = NULL;
  g_autoptr (GBytes) b = NULL;

  if (!gcg_test_nvrtc_or_skip ())
    return;
  a = gcg__nvrtc_compile (NULL, "", "a\"b.cu", TEST_SM, NULL, &error);
  g_assert_null (a);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  b = gcg__nvrtc_compile (NULL, "", "opt.cu", TEST_SM, opts, &error);
  g_assert_null (b);
  g_assert_nonnull (error);
}

static void
test_absent (void)
{
  if (g_test_subprocess ()) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GBytes) cubin = NULL;

    g_setenv ("GCG_NVRTC_LIBRARY", "/nonexistent/libnvrtc.so.99", TRUE);
    cubin = gcg__nvrtc_compile (NULL, "", "x.cu", TEST_SM, NULL, &error);
    g_assert_null (cubin);
    g_assert_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED);
    g_assert_nonnull (strstr (error->message, "/nonexistent/libnvrtc.so.99"));
    g_assert_false (gcg__nvrtc_load (NULL));
    return;
  }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/nvrtc/absent", test_absent);
  g_test_add_data_func ("/nvrtc/example/vignette", "vignette.cu", test_example);
  g_test_add_data_func ("/nvrtc/example/swizzle", "swizzle.cu", test_example);
  g_test_add_data_func ("/nvrtc/example/roi_mask", "roi_mask.cu", test_example);
  g_test_add_data_func ("/nvrtc/example/postprocess-top1",
      "postprocess-top1.cu", test_example);
  g_test_add_func ("/nvrtc/compile-error", test_compile_error);
  g_test_add_func ("/nvrtc/bad-option-and-name", test_bad_option_and_name);
  g_test_add_func ("/nvrtc/long-log", test_long_log);
  return g_test_run ();
}
