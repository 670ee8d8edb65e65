/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphkernel on a GPU.  Each kernel of examples/kernels (its file,
 * entry and the declaration of its own `gcg-params:` line) runs alone in
 * the element, graph and eager, with its per-frame values changing
 * through the buffer's GcgParamsMeta (and the declared defaults on
 * frames without one): every output byte within 1 of the reference
 * computed here on the input (the kernels may fuse multiply-adds).  The
 * vignette runs 1000 frames with a new strength each: one capture, 999
 * replays.  Also: an inline-source NV12 kernel touching both planes; in
 * place on a writable input (the output IS the input buffer); source that
 * does not compile failing the start with the compiler's line; a missing
 * entry point named.  Skipped (TAP) without a driver.
 */
#include <gcg.h>
#include <math.h>
#include <string.h>
#include "gcg-gst-test-util.h"
#include "common/gcg-test-elf.h"
#include "common/gcg-test-gst-gpu.h"

#include <glib/gstdio.h>

#define W 64
#define H 48
#define CAPS "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1"

/* One frame's values of every example's meta keys. */
typedef struct
{
  gboolean with_meta;
  gfloat strength;
  guint map;
  gint roi[4];
  gfloat level;
} Values;

typedef guint8 (*RefFunc) (const guint8 *px, gint c, gint x, gint y,
    const Values *v);

static guint8
vignette_ref (const guint8 *px, gint c, gint x, gint y, const Values *v)
{
  gfloat cx = (x + 0.5f) / W - 0.5f;
  gfloat cy = (y + 0.5f) / H - 0.5f;
  gfloat f = 1.0f - v->strength * 2.0f * (cx * cx + cy * cy);

  if (c == 3)
    return px[3];
  f = fminf (fmaxf (f, 0.0f), 1.0f);
  return (guint8) fmaf (px[c], f, 0.5f);
}

static guint8
swizzle_ref (const guint8 *px, gint c, gint x, gint y, const Values *v)
{
  return px[(v->map >> (8 * c)) & 3];
}

static guint8
roi_mask_ref (const guint8 *px, gint c, gint x, gint y, const Values *v)
{
  gboolean inside = x >= v->roi[0] && y >= v->roi[1]
      && x < v->roi[0] + v->roi[2] && y < v->roi[1] + v->roi[3];
  gfloat f = inside ? 1.0f : fminf (fmaxf (v->level, 0.0f), 1.0f);

  if (c == 3)
    return px[3];
  return (guint8) fmaf (px[c], f, 0.5f);
}

/* Frame @f's values: every fifth frame has no meta (the defaults each
 * example declares). */
static Values
values_for (guint f)
{
  Values v = { f % 5 != 4, 0.5f, 0x03000102, { 0, 0, 0, 0 }, 0.25f };

  if (!v.with_meta)
    return v;
  v.strength = (f % 7) / 6.0f;
  v.map = (f % 3 == 0) ? 0x00010203 : 0x03020100 + (f % 2);
  v.roi[0] = f % 20;
  v.roi[1] = (f * 3) % 17;
  v.roi[2] = 10 + f % 30;
  v.roi[3] = 5 + f % 25;
  v.level = (f % 9) / 8.0f;
  return v;
}

static void
add_meta (GstBuffer *buf, const Values *v)
{
  GstStructure *s;

  if (!v->with_meta)
    return;
  s = gst_custom_meta_get_structure (gst_buffer_add_custom_meta (buf,
      "GcgParamsMeta"));
  gst_structure_set (s, "strength", G_TYPE_DOUBLE, (gdouble) v->strength, "map",
      G_TYPE_UINT, v->map, "roi_x", G_TYPE_INT, v->roi[0], "roi_y", G_TYPE_INT,
      v->roi[1], "roi_w", G_TYPE_INT, v->roi[2], "roi_h", G_TYPE_INT, v->roi[3],
      "mask_level", G_TYPE_DOUBLE, (gdouble) v->level, NULL);
}

/* The file of example @name and the declaration on its gcg-params line. */
static gchar *
example_launch (const gchar *name, gboolean use_graph, gboolean in_place)
{
  g_autofree gchar *path =
      g_build_filename (g_getenv ("GCG_EXAMPLES_DIR"), "kernels", NULL);
  g_autofree gchar *file = g_strdup_printf ("%s/%s.cu", path, name);
  g_autofree gchar *text = NULL;
  g_autofree gchar *decl = NULL;
  const gchar *line;

  g_assert_true (g_file_get_contents (file, &text, NULL, NULL));
  line = strstr (text, "gcg-params: ");
  g_assert_nonnull (line);
  line += strlen ("gcg-params: ");
  decl = g_strndup (line, strcspn (line, "\r\n"));
  return g_strdup_printf ("cudagraphkernel backend=cuda use-graph=%s "
                          "in-place=%s location=%s entry=%s params=\"%s\"",
      use_graph ? "true" : "false", in_place ? "true" : "false", file, name,
      decl);
}

static void
assert_frame (GstBuffer *in, GstBuffer *out, RefFunc ref, const Values *v,
    guint f)
{
  GstMapInfo mi, mo;

  g_assert_true (gst_buffer_map (in, &mi, GST_MAP_READ));
  g_assert_true (gst_buffer_map (out, &mo, GST_MAP_READ));
  g_assert_cmpuint (mo.size, ==, mi.size);
  for (gint y = 0; y < H; y++)
    for (gint x = 0; x < W; x++)
      for (gint c = 0; c < 4; c++) {
        gsize i = ((gsize) y * W + x) * 4;
        gint want = ref (mi.data + i, c, x, y, v);

        if (ABS ((gint) mo.data[i + c] - want) > 1)
          g_error ("frame %u (%d,%d).%d: %d, want %d", f, x, y, c,
              mo.data[i + c], want);
      }
  gst_buffer_unmap (in, &mi);
  gst_buffer_unmap (out, &mo);
}

/* @n frames of example @name through the element; the counters after. */
static void
run_example (const gchar *name, RefFunc ref, gboolean use_graph, guint n)
{
  g_autofree gchar *launch = example_launch (name, use_graph, FALSE);
  GstHarness *h = gcg_test_harness_new (launch, CAPS, CAPS);

  for (guint f = 0; f < n; f++) {
    GstBuffer *in =
        gcg_test_frame_new (CAPS, gcg_test_moving_px, GUINT_TO_POINTER (f), 0);
    Values v = values_for (f);
    g_autoptr (GstBuffer) keep = NULL;
    g_autoptr (GstBuffer) out = NULL;

    add_meta (in, &v);
    keep = gst_buffer_ref (in);
    out = gcg_test_push_pull (h, in);
    g_assert_true (out != keep);
    assert_frame (keep, out, ref, &v, f);
  }
  if (use_graph) {
    g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphkernel", "captures"), ==,
        1);
    g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphkernel", "replays"), ==,
        n - 1);
  } else {
    g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphkernel", "captures"), ==,
        0);
    g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphkernel", "eager-frames"),
        ==, n);
  }
  gst_harness_teardown (h);
}

#define EXAMPLE_TESTS(NAME) \
  static void test_##NAME##_graph (void) \
  { \
    if (gcg_test_have_gpu ()) \
      run_example (#NAME, NAME##_ref, TRUE, 60); \
  } \
  static void test_##NAME##_eager (void) \
  { \
    if (gcg_test_have_gpu ()) \
      run_example (#NAME, NAME##_ref, FALSE, 60); \
  }

EXAMPLE_TESTS (vignette)
EXAMPLE_TESTS (swizzle)
EXAMPLE_TESTS (roi_mask)

/* 1000 frames, a new strength on (almost) each: never re-captured. */
static void
test_per_frame_1000 (void)
{
  if (gcg_test_have_gpu ())
    run_example ("vignette", vignette_ref, TRUE, 1000);
}

/* In place: a writable input is written and pushed on as the output
 * (one buffer, no allocation); with another reference held it is not
 * touched and a new buffer comes out. */
static void
test_in_place (void)
{
  g_autofree gchar *launch = NULL;
  GstHarness *h;

  if (!gcg_test_have_gpu ())
    return;
  launch = example_launch ("swizzle", TRUE, TRUE);
  h = gcg_test_harness_new (launch, CAPS, CAPS);
  for (guint f = 0; f < 8; f++) {
    GstBuffer *in =
        gcg_test_frame_new (CAPS, gcg_test_moving_px, GUINT_TO_POINTER (f), 0);
    g_autoptr (GstBuffer) copy = gst_buffer_copy_deep (in);
    g_autoptr (GstBuffer) keep = NULL;
    g_autoptr (GstBuffer) out = NULL;
    Values v = values_for (f);
    GstBuffer *in_ptr = in;

    add_meta (in, &v);
    if (f % 2)
      keep = gst_buffer_ref (in);
    out = gcg_test_push_pull (h, in);
    if (keep) {
      g_assert_true (out != keep);
      gcg_test_assert_same_bytes (keep, copy);
    } else {
      g_assert_true (out == in_ptr);
    }
    assert_frame (copy, out, swizzle_ref, &v, f);
  }
  gst_harness_teardown (h);
}

/* NV12 from inline source: luma inverted, chroma planes swapped (U<->V),
 * reading src planes 0 and 1, writing dst planes 0 and 1. */
#define NV12_CAPS "video/x-raw,format=NV12,width=64,height=48,framerate=30/1"
#define NV12_SOURCE \
  "extern \\\"C\\\" __global__ void nv12 (const gcg_params *p) {" \
  " int x = blockIdx.x * blockDim.x + threadIdx.x;" \
  " int y = blockIdx.y * blockDim.y + threadIdx.y;" \
  " if (x >= p->w || y >= p->h) return;" \
  " const unsigned char *s = (const unsigned char *) p->s0 + y * p->sp0;" \
  " unsigned char *d = (unsigned char *) p->d0 + y * p->dp0;" \
  " d[x] = 255 - s[x];" \
  " if (y % 2 || x % 2) return;" \
  " const unsigned char *su = (const unsigned char *) p->s1" \
  "   + (y / 2) * p->sp1;" \
  " unsigned char *du = (unsigned char *) p->d1 + (y / 2) * p->dp1;" \
  " du[x] = su[x + 1]; du[x + 1] = su[x]; }"

static void
nv12_px (guint x, guint y, guint8 *px, gpointer user_data)
{
  px[0] = (x * 3 + y * 5) & 0xff;
}

static void
test_nv12_source (void)
{
  GstHarness *h;
  GstBuffer *in;
  g_autoptr (GstBuffer) keep = NULL;
  g_autoptr (GstBuffer) out = NULL;
  GstVideoInfo info = gcg_test_info (NV12_CAPS);
  GstVideoFrame fi, fo;

  if (!gcg_test_have_gpu ())
    return;
  h = gcg_test_harness_new (
      "cudagraphkernel backend=cuda entry=nv12 "
      "source=\"" NV12_SOURCE "\" params=\"s0=src0,s1=src1,d0=dst0,"
      "d1=dst1,sp0=src_pitch0,sp1=src_pitch1,dp0=dst_pitch0,"
      "dp1=dst_pitch1,w=out_width,h=out_height\"",
      NV12_CAPS, NV12_CAPS);
  in = gcg_test_frame_new (NV12_CAPS, nv12_px, NULL, 0);
  {
    /* Distinct U and V: U = 10 + x, V = 200 - x. */
    GstVideoFrame f;

    g_assert_true (gst_video_frame_map (&f, &info, in, GST_MAP_WRITE));
    for (gint y = 0; y < H / 2; y++) {
      guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 1)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 1);
      for (gint x = 0; x < W / 2; x++) {
        row[2 * x] = 10 + x;
        row[2 * x + 1] = 200 - x;
      }
    }
    gst_video_frame_unmap (&f);
  }
  keep = gst_buffer_ref (in);
  out = gcg_test_push_pull (h, in);
  g_assert_true (gst_video_frame_map (&fi, &info, keep, GST_MAP_READ));
  g_assert_true (gst_video_frame_map (&fo, &info, out, GST_MAP_READ));
  for (gint y = 0; y < H; y++)
    for (gint x = 0; x < W; x++)
      g_assert_cmpuint (gcg_test_pixel (&fo, x, y)[0], ==,
          255 - gcg_test_pixel (&fi, x, y)[0]);
  for (gint y = 0; y < H / 2; y++) {
    const guint8 *ro = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, 1)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, 1);
    for (gint x = 0; x < W / 2; x++) {
      g_assert_cmpuint (ro[2 * x], ==, 200 - x);
      g_assert_cmpuint (ro[2 * x + 1], ==, 10 + x);
    }
  }
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  gst_harness_teardown (h);
}

static void
assert_start_error (const gchar *desc, const gchar *w1, const gchar *w2)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) e = gst_parse_launch (desc, &error);
  g_autofree gchar *text = NULL;

  g_assert_no_error (error);
  text = gcg_test_start_error (e);
  g_assert_nonnull (text);
  if (strstr (text, w1) == NULL || strstr (text, w2) == NULL)
    g_error ("\"%s\" does not say \"%s\" and \"%s\"", text, w1, w2);
}

/* Errors at READY->PAUSED, naming the kernel: the compiler's line for
 * bad source, the entry point, the declaration. */
static void
test_errors (void)
{
  if (!gcg_test_have_gpu ())
    return;
  assert_start_error (
      "cudagraphkernel backend=cuda entry=k "
      "source=\"extern \\\"C\\\" __global__ void k (const gcg_params *p)\n"
      "{\n  p->nope = 1;\n}\n\" params=a=f32:1",
      "(3)", "nope");
  assert_start_error (
      "cudagraphkernel backend=cuda entry=other "
      "source=\"extern \\\"C\\\" __global__ void k (const gcg_params *p) "
      "{}\" params=a=f32:1",
      "other", "entry point");
  assert_start_error (
      "cudagraphkernel backend=cuda entry=k "
      "source=\"extern \\\"C\\\" __global__ void k (const gcg_params *p) "
      "{}\" params=a=f99:1",
      "User kernel k", "f99");
}

/* A cubin given as location whose ELF header uses extended numbering to
 * point past its end fails the start with the image check's error, not
 * the driver's (the check runs before cuModuleLoadData, which takes no
 * length and would read where the header points): e_shnum 0 with 2^40
 * sections counted in section 0's sh_size; e_phnum PN_XNUM with 2^20
 * program headers counted in sh_info (past the 0xffff the file holds);
 * e_shstrndx SHN_XINDEX with a name table index past the table in
 * sh_link.  Before the fix the check passed each (kernel-image/
 * elf-extended has the same cases without a GPU). */
static void
test_elf_extended_refused (void)
{
  static const struct
  {
    const gchar *what;
    guint n_segments;
    struct
    {
      guint64 off, v;
      guint bytes;
    } set[4];
  } cases[] = {
    { "e_shnum 0", 1,
        { { GCG_TEST_ELF_E_SHNUM, 0, 2 },
            { GCG_TEST_ELF_SH0_SIZE, 1ull << 40, 8 } } },
    { "PN_XNUM", 0xffff,
        { { GCG_TEST_ELF_E_PHNUM, 0xffff, 2 },
            { GCG_TEST_ELF_SH0_INFO, 1u << 20, 4 } } },
    { "SHN_XINDEX", 1,
        { { GCG_TEST_ELF_E_SHNUM, 0, 2 }, { GCG_TEST_ELF_SH0_SIZE, 2, 8 },
            { GCG_TEST_ELF_E_SHSTRNDX, 0xffff, 2 },
            { GCG_TEST_ELF_SH0_LINK, 9, 4 } } },
  };
  g_autofree gchar *dir = NULL;

  if (!gcg_test_have_gpu ())
    return;
  dir = g_dir_make_tmp ("gcg-elf-XXXXXX", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GByteArray) elf = gcg_test_elf_new (cases[i].n_segments);
    g_autofree gchar *path = g_build_filename (dir, "k.cubin", NULL);
    g_autofree gchar *desc = NULL;
    g_autoptr (GstElement) e = NULL;
    g_autofree gchar *text = NULL;

    for (guint k = 0; k < G_N_ELEMENTS (cases[i].set); k++) {
      if (cases[i].set[k].bytes)
        gcg_test_elf_put (elf, cases[i].set[k].off, cases[i].set[k].v,
            cases[i].set[k].bytes);
    }
    g_assert_true (g_file_set_contents (path, (const gchar *) elf->data,
        elf->len, NULL));
    desc = g_strdup_printf ("cudagraphkernel backend=cuda entry=k "
                            "location=\"%s\"",
        path);
    e = gst_parse_launch (desc, NULL);
    g_assert_nonnull (e);
    text = gcg_test_start_error (e);
    g_assert_nonnull (text);
    g_test_message ("%s: %s", cases[i].what, text);
    if (strstr (text, "damaged or truncated") == NULL
        || strstr (text, "cuModuleLoadData") != NULL)
      g_error ("%s: \"%s\" is not the image check's", cases[i].what, text);
    g_unlink (path);
  }
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  gcg_test_add_bundle_plugins ();
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/kernel/vignette/graph", test_vignette_graph);
  g_test_add_func ("/gst/kernel/vignette/eager", test_vignette_eager);
  g_test_add_func ("/gst/kernel/swizzle/graph", test_swizzle_graph);
  g_test_add_func ("/gst/kernel/swizzle/eager", test_swizzle_eager);
  g_test_add_func ("/gst/kernel/roi_mask/graph", test_roi_mask_graph);
  g_test_add_func ("/gst/kernel/roi_mask/eager", test_roi_mask_eager);
  g_test_add_func ("/gst/kernel/per-frame-1000", test_per_frame_1000);
  g_test_add_func ("/gst/kernel/in-place", test_in_place);
  g_test_add_func ("/gst/kernel/nv12-source", test_nv12_source);
  g_test_add_func ("/gst/kernel/errors", test_errors);
  g_test_add_func ("/gst/kernel/elf-extended-refused",
      test_elf_extended_refused);
  return g_test_run ();
}
