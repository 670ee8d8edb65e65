/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A user kernel inside an element's graph on a GPU: cudagraphconvert with
 * examples/kernels/vignette.cu (kernel-location, kernel-entry, the
 * declaration from the file's gcg-params line), after the element's op
 * and before it (kernel-position), over 200 frames, the
 * strength changing every frame through the buffer's GcgParamsMeta (its
 * declared default on frames without one, never passed through): each
 * output within 1 of the vignette computed here on the input (the kernel
 * may fuse multiply-adds), one capture; and source that does not compile
 * failing the start with the compiler's line.  Skipped (TAP) without a
 * driver.
 */
#include <gcg.h>
#include <math.h>
#include <string.h>
#include "gcg-gst-test-util.h"
#include "common/gcg-test-gst-gpu.h"

#define CAPS "video/x-raw,format=RGBA,width=64,height=48"
#define W 64
#define H 48
#define N_FRAMES 200

/* Before the element's op the kernel reads the input and writes the
 * scratch copy that the op (here a same-size copy) reads: its size is
 * the input's. */
static gchar *
vignette_launch (const gchar *position)
{
  g_autofree gchar *path = g_build_filename (g_getenv ("GCG_EXAMPLES_DIR"),
      "kernels", "vignette.cu", NULL);
  const gchar *side = g_str_equal (position, "before") ? "in" : "out";

  return g_strdup_printf (
      "cudagraphconvert backend=cuda "
      "kernel-location=%s kernel-entry=vignette kernel-position=%s "
      "kernel-params=\"src=src0,dst=dst0,src_pitch=src_pitch0,"
      "dst_pitch=dst_pitch0,width=%s_width,height=%s_height,"
      "strength=meta:strength:f32:0.5\"",
      path, position, side, side);
}

/* examples/kernels/vignette.cu, in C. */
static guint8
vignette_ref (guint8 s, gint x, gint y, gfloat strength)
{
  gfloat cx = (x + 0.5f) / W - 0.5f;
  gfloat cy = (y + 0.5f) / H - 0.5f;
  gfloat f = 1.0f - strength * 2.0f * (cx * cx + cy * cy);

  f = fminf (fmaxf (f, 0.0f), 1.0f);
  return (guint8) fmaf (s, f, 0.5f);
}

static void
test_vignette_per_frame (gconstpointer data)
{
  const gchar *position = data;
  gboolean before = g_str_equal (position, "before");
  g_autofree gchar *launch = NULL;
  GstHarness *h;

  if (!gcg_test_have_gpu ())
    return;
  launch = vignette_launch (position);
  h = gcg_test_harness_new (launch, CAPS, CAPS);
  for (guint f = 0; f < N_FRAMES; f++) {
    GstBuffer *in =
        gcg_test_frame_new (CAPS, gcg_test_moving_px, GUINT_TO_POINTER (f), 0);
    /* Every fifth frame has no meta: the declared default, 0.5 (and the
     * element, RGBA to RGBA, must not pass the frame through). */
    gboolean with_meta = f % 5 != 4;
    gfloat strength = with_meta ? (f % 7) / 6.0f : 0.5f;
    g_autoptr (GstBuffer) ref = NULL;
    g_autoptr (GstBuffer) out = NULL;
    GstMapInfo mi, mo;

    if (with_meta)
      gst_structure_set (gst_custom_meta_get_structure (
                             gst_buffer_add_custom_meta (in, "GcgParamsMeta")),
          "strength", G_TYPE_DOUBLE, (gdouble) strength, NULL);
    ref = gst_buffer_ref (in);
    out = gcg_test_push_pull (h, in);
    g_assert_true (gst_buffer_map (ref, &mi, GST_MAP_READ));
    g_assert_true (gst_buffer_map (out, &mo, GST_MAP_READ));
    for (gint y = 0; y < H; y++)
      for (gint x = 0; x < W; x++)
        for (gint c = 0; c < 4; c++) {
          gsize i = ((gsize) y * W + x) * 4 + c;
          /* Alpha: after the op the kernel copies the input's; before
           * it, the op writes RGBA output opaque. */
          gint want = c != 3 ? vignette_ref (mi.data[i], x, y, strength)
              : before       ? 255
                             : mi.data[i];

          g_assert_cmpint (ABS ((gint) mo.data[i] - want), <=, 1);
        }
    gst_buffer_unmap (ref, &mi);
    gst_buffer_unmap (out, &mo);
  }
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "captures"), ==,
      1);
  /* The first frame is the capture. */
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "replays"), ==,
      N_FRAMES - 1);
  gst_harness_teardown (h);
}

/* Source that does not compile: the start fails, the message points at
 * the user's line. */
static void
test_bad_source (void)
{
  g_autoptr (GstElement) e = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *text = NULL;

  if (!gcg_test_have_gpu ())
    return;
  e = gst_parse_launch (
      "cudagraphconvert backend=cuda kernel-entry=k "
      "kernel-source=\"extern \\\"C\\\" __global__ void k (const gcg_params "
      "*p)\n{\n  p->nope = 1;\n}\n\" kernel-params=a=f32:1",
      &error);
  g_assert_no_error (error);
  text = gcg_test_start_error (e);
  g_assert_nonnull (text);
  if (strstr (text, "(3)") == NULL || strstr (text, "nope") == NULL)
    g_error ("no compiler line in: %s", text);
}

int
main (int argc, char **argv)
{
  gcg_test_add_bundle_plugins ();
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/gst/user-kernel/vignette-per-frame/after", "after",
      test_vignette_per_frame);
  g_test_add_data_func ("/gst/user-kernel/vignette-per-frame/before", "before",
      test_vignette_per_frame);
  g_test_add_func ("/gst/user-kernel/bad-source", test_bad_source);
  return g_test_run ();
}
