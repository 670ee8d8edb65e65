/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The user-kernel properties of the elements without a GPU: they read
 * back, and a kernel the element cannot run fails the start with an error
 * naming why (no entry point; a bad kernel-params, before the backend;
 * the CPU backend), never a frame later.
 */
#include <gcg.h>
#include "gcg-gst-test-util.h"

#include <string.h>

static void
assert_start_error (const gchar *desc, const gchar *words)
{
  g_autoptr (GstElement) e = gst_parse_launch (desc, NULL);
  g_autofree gchar *text = NULL;

  g_assert_nonnull (e);
  text = gcg_test_start_error (e);
  g_assert_nonnull (text);
  if (strstr (text, words) == NULL)
    g_error ("\"%s\" does not say \"%s\"", text, words);
}

static void
test_properties (void)
{
  g_autoptr (GstElement)
      e = gst_element_factory_make ("cudagraphconvert", NULL);
  g_autofree gchar *src = NULL, *entry = NULL, *params = NULL, *loc = NULL;

  g_object_set (e, "kernel-source",
      "extern \"C\" __global__ void k "
      "(const gcg_params *p) {}",
      "kernel-entry", "k", "kernel-params", "a=f32:1", "kernel-location",
      "/x.cu", NULL);
  g_object_get (e, "kernel-source", &src, "kernel-entry", &entry,
      "kernel-params", &params, "kernel-location", &loc, NULL);
  g_assert_nonnull (strstr (src, "void k"));
  g_assert_cmpstr (entry, ==, "k");
  g_assert_cmpstr (params, ==, "a=f32:1");
  g_assert_cmpstr (loc, ==, "/x.cu");
}

static void
test_position (void)
{
  g_autoptr (GstElement)
      e = gst_element_factory_make ("cudagraphconvert", NULL);
  g_autoptr (GstElement)
      p = gst_element_factory_make ("cudagraphpreprocess", NULL);
  GcgKernelPosition pos = GCG_KERNEL_POSITION_BEFORE;

  g_object_get (e, "kernel-position", &pos, NULL);
  g_assert_cmpint (pos, ==, GCG_KERNEL_POSITION_AFTER);
  gst_util_set_object_arg (G_OBJECT (e), "kernel-position", "before");
  g_object_get (e, "kernel-position", &pos, NULL);
  g_assert_cmpint (pos, ==, GCG_KERNEL_POSITION_BEFORE);
  gst_util_set_object_arg (G_OBJECT (p), "kernel-position", "before");
  g_object_get (p, "kernel-position", &pos, NULL);
  g_assert_cmpint (pos, ==, GCG_KERNEL_POSITION_BEFORE);
}

/* cudagraphbatch takes the same kernel, after its op only. */
static void
test_batch (void)
{
  g_autoptr (GstElement) e = gst_element_factory_make ("cudagraphbatch", NULL);
  g_autofree gchar *entry = NULL, *params = NULL;

  g_assert_nonnull (e);
  g_assert_null (g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "kernel-position"));
  g_object_set (e, "kernel-entry", "k", "kernel-params", "t=dst0,n=items",
      NULL);
  g_object_get (e, "kernel-entry", &entry, "kernel-params", &params, NULL);
  g_assert_cmpstr (entry, ==, "k");
  g_assert_cmpstr (params, ==, "t=dst0,n=items");
  assert_start_error ("cudagraphbatch backend=cpu kernel-source=x "
                      "kernel-entry=k",
      "needs the CUDA backend");
  assert_start_error ("cudagraphbatch backend=cpu kernel-location=/x.cu",
      "kernel-entry");
}

static void
test_refused_at_start (void)
{
  /* No kernel: the element starts as ever. */
  g_autoptr (GstElement) plain = gst_parse_launch ("cudagraphconvert "
                                                   "backend=cpu",
      NULL);
  g_autofree gchar *none = gcg_test_start_error (plain);

  g_assert_null (none);
  assert_start_error ("cudagraphconvert backend=cpu kernel-location=/x.cu",
      "kernel-entry");
  assert_start_error ("cudagraphpreprocess backend=cpu "
                      "kernel-location=/x.cu kernel-entry=k",
      "needs the CUDA backend");
  assert_start_error ("cudagraphconvert backend=cpu kernel-source=x "
                      "kernel-entry=k",
      "needs the CUDA backend");
}

/* kernel-params is judged at start before the backend is: a name the
 * generated struct cannot hold is refused with its rule by every element
 * that takes a kernel, and a megabyte item is quoted, not echoed (failed
 * before: the declaration was first read when the kernel was compiled,
 * so backend=cpu said only that it needs CUDA, and a GPU compiled
 * CUDART_VERSION into a broken struct). */
static void
test_params_refused_at_start (void)
{
  static const gchar *elements[] = {
    "cudagraphconvert",
    "cudagraphpreprocess",
    "cudagraphbatch",
  };
  g_autofree gchar *name = g_strnfill (1024 * 1024, 'x');
  g_autofree gchar *big = g_strconcat (name, "=f32:1", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (elements); i++) {
    g_autofree gchar *desc = g_strdup_printf ("%s backend=cpu kernel-source=x "
                                              "kernel-entry=k kernel-params="
                                              "\"CUDART_VERSION=i32:1\"",
        elements[i]);
    g_autoptr (GstElement) e = gst_parse_launch (desc, NULL);
    g_autofree gchar *text = NULL;

    assert_start_error (desc, "no lowercase letter");
    g_assert_nonnull (e);
    g_object_set (e, "kernel-params", big, NULL);
    text = gcg_test_start_error (e);
    g_assert_nonnull (text);
    g_assert_nonnull (strstr (text, "User kernel k: kernel-params"));
    g_assert_nonnull (strstr (text, "..."));
    g_assert_cmpuint (strlen (text), <, 1024);
  }
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/user-kernel/properties", test_properties);
  g_test_add_func ("/gst/user-kernel/position", test_position);
  g_test_add_func ("/gst/user-kernel/batch", test_batch);
  g_test_add_func ("/gst/user-kernel/refused-at-start", test_refused_at_start);
  g_test_add_func ("/gst/user-kernel/params-refused-at-start",
      test_params_refused_at_start);
  return g_test_run ();
}
