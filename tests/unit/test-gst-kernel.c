/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphkernel without a GPU: its properties (and their kernel-*
 * aliases) read back, every setting it can judge before the device opens
 * fails the start with an error naming the kernel and the cause (no code,
 * two codes, no entry, a bad block size, a missing file, backend=cpu;
 * backend=auto on a machine without a driver: the CUDA backend; a
 * parameter name the generated struct cannot hold), each error quoting
 * at most 64 characters of a property, and its caps keep the input's
 * format and size on the output.
 */
#include "gcg-gst-test-util.h"

#include <gst/base/gstbasetransform.h>

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void
assert_start_error (const gchar *desc, const gchar *words)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) e = gst_parse_launch (desc, &error);
  g_autofree gchar *text = NULL;

  g_assert_no_error (error);
  g_assert_nonnull (e);
  text = gcg_test_start_error (e);
  if (text == NULL)
    g_error ("\"%s\" started", desc);
  if (strstr (text, words) == NULL)
    g_error ("\"%s\": \"%s\" does not say \"%s\"", desc, text, words);
}

static void
test_properties (void)
{
  g_autoptr (GstElement) e = gst_element_factory_make ("cudagraphkernel", NULL);
  g_autofree gchar *src = NULL, *entry = NULL, *params = NULL, *loc = NULL;
  g_autofree gchar *block = NULL, *alias = NULL;
  gboolean in_place = TRUE;

  g_assert_nonnull (e);
  g_object_get (e, "block-size", &block, "in-place", &in_place, NULL);
  g_assert_cmpstr (block, ==, "32x8");
  g_assert_false (in_place);
  g_clear_pointer (&block, g_free);

  g_object_set (e, "source",
      "extern \"C\" __global__ void k "
      "(const gcg_params *p) {}",
      "entry", "k", "params", "a=f32:1", "location", "/x.cu", "block-size",
      "16x16", "in-place", TRUE, NULL);
  g_object_get (e, "source", &src, "entry", &entry, "params", &params,
      "location", &loc, "block-size", &block, "in-place", &in_place, NULL);
  g_assert_nonnull (strstr (src, "void k"));
  g_assert_cmpstr (entry, ==, "k");
  g_assert_cmpstr (params, ==, "a=f32:1");
  g_assert_cmpstr (loc, ==, "/x.cu");
  g_assert_cmpstr (block, ==, "16x16");
  g_assert_true (in_place);
  /* The names cudagraphconvert uses are the same settings. */
  g_object_get (e, "kernel-entry", &alias, NULL);
  g_assert_cmpstr (alias, ==, "k");
}

static void
test_refused_at_start (void)
{
  assert_start_error ("cudagraphkernel backend=cuda entry=k", "source");
  assert_start_error ("cudagraphkernel backend=cuda entry=k source=x "
                      "location=/x.cu",
      "not both");
  assert_start_error ("cudagraphkernel backend=cuda source=x", "entry");
  assert_start_error ("cudagraphkernel backend=cuda source=x entry=k "
                      "entry=\"\"",
      "entry");
  assert_start_error ("cudagraphkernel backend=cuda entry=k "
                      "location=/nonexistent/k.cu",
      "/nonexistent/k.cu\" is not a file");
  assert_start_error ("cudagraphkernel backend=cpu entry=k source=x",
      "Kernel k needs the CUDA backend");
  /* No driver here: auto falls back to the CPU, which cannot run it. */
  assert_start_error ("cudagraphkernel entry=k source=x",
      "needs the CUDA backend");
}

static void
test_bad_block_size (void)
{
  static const gchar *bad[] = {
    "0x8",
    "33x33",
    "2048",
    "8x",
    "x8",
    "axb",
    "8x8x8",
    "8*8",
    "-8x8",
    "8x0",
    " 8x8",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autofree gchar *desc =
        g_strdup_printf ("cudagraphkernel backend=cpu "
                         "entry=k source=x block-size=\"%s\"",
            bad[i]);

    assert_start_error (desc, "block-size");
  }
  /* Good ones get past it, to the backend. */
  assert_start_error ("cudagraphkernel backend=cpu entry=k source=x "
                      "block-size=1024",
      "needs the CUDA backend");
  assert_start_error ("cudagraphkernel backend=cpu entry=k source=x "
                      "block-size=32x32",
      "needs the CUDA backend");
}

/* A location is judged before the device opens and before anything is
 * read: a FIFO (never opened), a directory, an empty file and a sparse
 * file past the limit on code each fail the start naming the file; an
 * entry point that is not a C identifier fails it too (it is written into
 * the compiled source). */
static void
test_hostile_location_and_entry (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("gcg-kloc-XXXXXX", NULL);
  g_autofree gchar *fifo = g_build_filename (dir, "fifo.cu", NULL);
  g_autofree gchar *empty = g_build_filename (dir, "empty.ptx", NULL);
  g_autofree gchar *huge = g_build_filename (dir, "huge.cubin", NULL);
  const gchar *paths[] = { fifo, dir, empty, huge };
  static const gchar *entries[] = { "k;", "9k", "k(x)", "k\\ k" };
  FILE *f;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_true (g_file_set_contents (empty, "", 0, NULL));
  f = fopen (huge, "w");
  g_assert_nonnull (f);
  g_assert_cmpint (ftruncate (fileno (f), 256 * 1024 * 1024 + 1), ==, 0);
  fclose (f);
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++) {
    g_autofree gchar *desc = g_strdup_printf ("cudagraphkernel backend=cuda "
                                              "entry=k location=\"%s\"",
        paths[i]);
    g_autofree gchar *words = g_strdup_printf ("%s\" is not a file", paths[i]);

    assert_start_error (desc, words);
  }
  for (guint i = 0; i < G_N_ELEMENTS (entries); i++) {
    g_autofree gchar *desc = g_strdup_printf ("cudagraphkernel backend=cuda "
                                              "source=x entry=\"%s\"",
        entries[i]);

    assert_start_error (desc, "entry point must be");
  }
  g_unlink (fifo);
  g_unlink (empty);
  g_unlink (huge);
  g_rmdir (dir);
}

/* Parameter names the generated struct cannot hold fail the start with
 * the rule they break, before the device opens and on either backend
 * (failed before: the declaration was first parsed when the kernel was
 * compiled, so without a GPU the start failed on the backend, and on a
 * GPU CUDART_VERSION=i32:1 broke the compile, blamed on the user's line
 * 2); a good declaration gets past them, to the backend. */
static void
test_reserved_param_names (void)
{
  static const struct
  {
    const gchar *params, *words;
  } cases[] = {
    { "CUDART_VERSION=i32:1", "no lowercase letter" },
    { "gain=f32:1,NULL=u64:0", "keyword" },
    { "int=i32:1", "keyword" },
    { "__CUDA_ARCH__=i32:1", "reserved" },
    { "_Gain=f32:1", "reserved" },
    { "CUDA_scale=f32:1", "begins with CUDA" },
    { "NV_HAS_FEATURE_SM_90a=i32:1", "begins with CUDA" },
    { "gcg_params=u64:0", "gcg_" },
    { "warpSize=i32:32", "CUDA macro" },
    { "cudaStreamDefault=u64:0", "'cuda' and an uppercase letter" },
  };
  static const gchar *backends[] = { "cpu", "cuda" };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    for (guint b = 0; b < G_N_ELEMENTS (backends); b++) {
      g_autofree gchar *desc =
          g_strdup_printf ("cudagraphkernel backend=%s "
                           "entry=k source=x params=\"%s\"",
              backends[b], cases[i].params);

      assert_start_error (desc, cases[i].words);
      assert_start_error (desc, "User kernel k: kernel-params");
    }
  }
  assert_start_error ("cudagraphkernel backend=cpu entry=k source=x "
                      "params=\"gain=f32:1,cuda=i32:2,myCUDA=u64:3\"",
      "needs the CUDA backend");
}

/* The start's error for @prop set to @value (and the other properties
 * of a kernel that could otherwise start: @source, entry k). */
static gchar *
start_error_with (const gchar *source, const gchar *prop, const gchar *value)
{
  g_autoptr (GstElement) e = gst_parse_launch ("cudagraphkernel backend=cpu "
                                               "entry=k",
      NULL);

  g_assert_nonnull (e);
  if (source != NULL)
    g_object_set (e, "source", source, NULL);
  g_object_set (e, prop, value, NULL);
  return gcg_test_start_error (e);
}

/* A megabyte in any property is quoted in the start's error at most 64
 * characters long, then "...", and as valid UTF-8 (failed before:
 * block-size, location and an entry without code were echoed whole, and
 * a bad entry was cut at 64 bytes, in the middle of a character). */
static void
test_errors_bounded (void)
{
  const gsize big = 1024 * 1024;
  g_autofree gchar *name = g_strnfill (big, 'x');
  g_autofree gchar *params = g_strconcat ("gain=f32:1,", name, "=f32:1", NULL);
  g_autofree gchar *path = g_strconcat ("/", name, NULL);
  GString *utf8 = g_string_new ("a");
  g_autofree gchar *bad_entry = NULL;
  const struct
  {
    const gchar *source, *prop, *value, *words;
  } cases[] = {
    { "x", "block-size", name, "block-size" },
    { NULL, "location", path, "not a file" },
    { NULL, "entry", name, "needs its code" },
    { "x", "entry", NULL, "entry point must be" },
    { "x", "params", params, "kernel-params" },
  };

  while (utf8->len < big)
    g_string_append (utf8, "\xc3\xa9");
  bad_entry = g_string_free (utf8, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree gchar *text = start_error_with (cases[i].source, cases[i].prop,
        cases[i].value ? cases[i].value : bad_entry);

    g_assert_nonnull (text);
    g_test_message ("%s", text);
    if (strstr (text, cases[i].words) == NULL)
      g_error ("\"%.200s\" does not say \"%s\"", text, cases[i].words);
    g_assert_cmpuint (strlen (text), <, 1024);
    g_assert_nonnull (strstr (text, "..."));
    g_assert_true (g_utf8_validate (text, -1, NULL));
  }
}

/* What the element offers downstream for @in_caps. */
static GstCaps *
src_caps_for (const gchar *in_caps)
{
  g_autoptr (GstElement) e = gst_element_factory_make ("cudagraphkernel", NULL);
  g_autoptr (GstCaps) in = gst_caps_from_string (in_caps);

  return GST_BASE_TRANSFORM_GET_CLASS (e)->transform_caps (
      GST_BASE_TRANSFORM (e), GST_PAD_SINK, in, NULL);
}

static void
test_caps_same_format (void)
{
  static const gchar *formats[] = {
    "NV12",
    "I420",
    "RGBA",
    "BGRA",
    "RGB",
    "BGR",
    "GRAY8",
  };

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    g_autofree gchar *in = g_strdup_printf ("video/x-raw,format=%s,"
                                            "width=64,height=48,framerate=30/1",
        formats[i]);
    g_autoptr (GstCaps) caps = src_caps_for (in);
    gboolean cuda = FALSE;

    g_assert_false (gst_caps_is_empty (caps));
    for (guint s = 0; s < gst_caps_get_size (caps); s++) {
      GstStructure *st = gst_caps_get_structure (caps, s);
      GstCapsFeatures *f = gst_caps_get_features (caps, s);
      gint w = 0, h = 0;

      g_assert_cmpstr (gst_structure_get_string (st, "format"), ==, formats[i]);
      g_assert_true (gst_structure_get_int (st, "width", &w));
      g_assert_true (gst_structure_get_int (st, "height", &h));
      g_assert_cmpint (w, ==, 64);
      g_assert_cmpint (h, ==, 48);
      cuda |= f != NULL && gst_caps_features_contains (f, "memory:CUDAMemory");
    }
    /* Before start the element may still output CUDA memory. */
    g_assert_true (cuda);
  }
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/kernel/properties", test_properties);
  g_test_add_func ("/gst/kernel/refused-at-start", test_refused_at_start);
  g_test_add_func ("/gst/kernel/bad-block-size", test_bad_block_size);
  g_test_add_func ("/gst/kernel/hostile-location-and-entry",
      test_hostile_location_and_entry);
  g_test_add_func ("/gst/kernel/caps-same-format", test_caps_same_format);
  g_test_add_func ("/gst/kernel/reserved-param-names",
      test_reserved_param_names);
  g_test_add_func ("/gst/kernel/errors-bounded", test_errors_bounded);
  return g_test_run ();
}
