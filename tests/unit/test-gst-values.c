/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element outputs on non-uniform frames against values worked out here,
 * from the formulas of docs/frame-chain.md, in double precision and
 * without the library's CPU reference (a bug shared by both backends
 * would pass a backend-against-backend test, not this one).  The chain
 * computes in float32, so 8-bit values may be 1 off and float values a
 * little; a wrong weight, neighbour, coefficient or order is far more.
 * CPU backend, harness pads only.
 */
#include <math.h>

#include "gcg-gst-test-util.h"

#define CONVERT "cudagraphconvert backend=cpu"
#define PREPROCESS "cudagraphpreprocess backend=cpu"

/* A smooth pattern with a different slope per channel, so a swapped
 * axis, weight or channel shows: R = 20 x + 3 y, G = 30 y + x,
 * B = 250 - 16 x - 8 y (frames up to 12 x 8). */
static guint
pattern_value (guint x, guint y, guint c)
{
  switch (c) {
    case 0:
      return 20 * x + 3 * y;
    case 1:
      return 30 * y + x;
    default:
      return 250 - 16 * x - 8 * y;
  }
}

static void
pattern_px (guint x, guint y, guint8 *px, gpointer user_data)
{
  guint n = GPOINTER_TO_UINT (user_data);

  for (guint c = 0; c < 3; c++)
    px[c] = pattern_value (x, y, c);
  if (n == 4)
    px[3] = 255;
}

/* Step 3 of docs/frame-chain.md for one axis: the two neighbours and the
 * weight of the second, for output position @o of @s samples over @n
 * input pixels. */
static void
bilinear_axis (guint o, guint n, guint s, guint *i0, guint *i1, gdouble *a)
{
  gdouble f = (o + 0.5) * n / s - 0.5;
  gdouble fl = floor (f);

  *a = f - fl;
  *i0 = (guint) CLAMP (fl, 0, (gdouble) n - 1);
  *i1 = (guint) CLAMP (fl + 1, 0, (gdouble) n - 1);
}

/* Bilinear value of channel @c of the pattern (@iw x @ih) at output
 * pixel (@x, @y) of @ow x @oh, no crop, no letterbox. */
static gdouble
bilinear (guint iw, guint ih, guint ow, guint oh, guint x, guint y, guint c)
{
  guint x0, x1, y0, y1;
  gdouble ax, ay, top, bottom;

  bilinear_axis (x, iw, ow, &x0, &x1, &ax);
  bilinear_axis (y, ih, oh, &y0, &y1, &ay);
  top = pattern_value (x0, y0, c) * (1 - ax) + pattern_value (x1, y0, c) * ax;
  bottom =
      pattern_value (x0, y1, c) * (1 - ax) + pattern_value (x1, y1, c) * ax;
  return top * (1 - ay) + bottom * ay;
}

static gdouble
clamp8 (gdouble v)
{
  return CLAMP (v, 0.0, 255.0);
}

static void
assert_near (guint got, gdouble expect, guint x, guint y, guint c)
{
  if (fabs (got - expect) > 1.0)
    g_error ("pixel (%u, %u) channel %u: %u, expected %.3f", x, y, c, got,
        expect);
}

/* Bilinear RGBA @iw x @ih -> @ow x @oh, every channel of every pixel. */
static void
check_bilinear (guint iw, guint ih, guint ow, guint oh)
{
  g_autofree gchar *in_caps = g_strdup_printf ("video/x-raw,format=RGBA,"
                                               "width=%u,height=%u",
      iw, ih);
  g_autofree gchar *out_caps = g_strdup_printf ("video/x-raw,format=RGBA,"
                                                "width=%u,height=%u",
      ow, oh);
  GstHarness *h =
      gcg_test_harness_new (CONVERT " method=bilinear", in_caps, out_caps);
  GstBuffer *out = gcg_test_push_pull (h,
      gcg_test_frame_new (in_caps, pattern_px, GUINT_TO_POINTER (4), 0));
  GstVideoInfo info = gcg_test_info (out_caps);
  GstVideoFrame f;

  g_assert_true (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  for (guint y = 0; y < oh; y++)
    for (guint x = 0; x < ow; x++) {
      const guint8 *p = gcg_test_pixel (&f, x, y);

      for (guint c = 0; c < 3; c++)
        assert_near (p[c], bilinear (iw, ih, ow, oh, x, y, c), x, y, c);
      g_assert_cmpuint (p[3], ==, 255);
    }
  gst_video_frame_unmap (&f);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* Down by non-integer ratios (weights strictly between 0 and 1), and up
 * (neighbours clamped at the edges). */
static void
test_bilinear (void)
{
  check_bilinear (8, 6, 5, 4);
  check_bilinear (12, 8, 7, 3);
  check_bilinear (3, 3, 8, 7);
}

/* Step 6 on a value v (0-255). */
static gdouble
adjust (gdouble v, gdouble brightness, gdouble contrast, gdouble gamma,
    gdouble gain)
{
  gdouble t = v / 255 * gain;

  t = ((t - 0.5) * contrast + 0.5) + brightness;
  if (gamma != 1.0)
    t = pow (CLAMP (t, 0.0, 1.0), gamma);
  return clamp8 (t * 255);
}

/* Each colour adjustment alone and all four together, on the pattern at
 * the same size (every output pixel is its input pixel). */
static void
test_adjust (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=8,height=6";
  static const gdouble cases[][4] = {
    /* brightness, contrast, gamma, gain */
    { -0.15, 1, 1, 1 },
    { 0, 1.7, 1, 1 },
    { 0, 0.4, 1, 1 },
    { 0, 1, 0.6, 1 },
    { 0, 1, 2.2, 1 },
    { 0, 1, 1, 1.3 },
    { 0.05, 1.2, 0.8, 0.9 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    const gdouble *k = cases[i];
    g_autofree gchar *launch = g_strdup_printf (CONVERT
        " brightness=%g "
        "contrast=%g gamma=%g gain=%g",
        k[0], k[1], k[2], k[3]);
    GstHarness *h = gcg_test_harness_new (launch, caps, caps);
    GstBuffer *out = gcg_test_push_pull (h,
        gcg_test_frame_new (caps, pattern_px, GUINT_TO_POINTER (4), 0));
    GstVideoInfo info = gcg_test_info (caps);
    GstVideoFrame f;

    g_test_message ("%s", launch);
    g_assert_true (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
    for (guint y = 0; y < 6; y++)
      for (guint x = 0; x < 8; x++)
        for (guint c = 0; c < 3; c++)
          assert_near (gcg_test_pixel (&f, x, y)[c],
              adjust (pattern_value (x, y, c), k[0], k[1], k[2], k[3]), x, y,
              c);
    gst_video_frame_unmap (&f);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

/* RGB -> limited-range YUV of step 7 (kr, kb: the matrix). */
static void
rgb_to_yuv (const guint8 *rgb, gdouble kr, gdouble kb, gdouble yuv[3])
{
  gdouble kg = 1 - kr - kb;
  gdouble l = kr * rgb[0] + kg * rgb[1] + kb * rgb[2];

  yuv[0] = l * 219 / 255 + 16;
  yuv[1] = (rgb[2] - l) / (2 * (1 - kb)) * 224 / 255 + 128;
  yuv[2] = (rgb[0] - l) / (2 * (1 - kr)) * 224 / 255 + 128;
}

/* A coloured RGBA frame into NV12 and I420 (BT.601 and BT.709, limited
 * range): Y of every pixel, U and V of each 2x2 block from its top-left
 * pixel, against the formula. */
static void
check_rgb_to_yuv (const gchar *format, const gchar *colorimetry, gdouble kr,
    gdouble kb)
{
  const gchar *in_caps = "video/x-raw,format=RGBA,width=8,height=6";
  g_autofree gchar *out_caps =
      g_strdup_printf ("video/x-raw,format=%s,"
                       "width=8,height=6,colorimetry=%s",
          format, colorimetry);
  GstHarness *h = gcg_test_harness_new (CONVERT, in_caps, out_caps);
  GstBuffer *out = gcg_test_push_pull (h,
      gcg_test_frame_new (in_caps, pattern_px, GUINT_TO_POINTER (4), 0));
  GstVideoInfo info = gcg_test_info (out_caps);
  GstVideoFrame f;

  g_test_message ("RGBA -> %s %s", format, colorimetry);
  g_assert_true (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  for (guint y = 0; y < 6; y++)
    for (guint x = 0; x < 8; x++) {
      guint8 rgb[3];
      gdouble yuv[3];
      const guint8 *luma = (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, 0)
          + y * GST_VIDEO_FRAME_COMP_STRIDE (&f, 0) + x;

      for (guint c = 0; c < 3; c++)
        rgb[c] = pattern_value (x, y, c);
      rgb_to_yuv (rgb, kr, kb, yuv);
      assert_near (*luma, yuv[0], x, y, 0);
      if (x % 2 == 0 && y % 2 == 0)
        for (guint c = 1; c < 3; c++) {
          const guint8 *chroma =
              (const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, c)
              + (y / 2) * GST_VIDEO_FRAME_COMP_STRIDE (&f, c)
              + (x / 2) * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, c);

          assert_near (*chroma, yuv[c], x, y, c);
        }
    }
  gst_video_frame_unmap (&f);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

static void
test_rgb_to_yuv (void)
{
  check_rgb_to_yuv ("NV12", "bt601", 0.299, 0.114);
  check_rgb_to_yuv ("I420", "bt601", 0.299, 0.114);
  check_rgb_to_yuv ("NV12", "bt709", 0.2126, 0.0722);
  check_rgb_to_yuv ("I420", "bt709", 0.2126, 0.0722);
}

/* cudagraphpreprocess, RGB 12 x 8 -> float32 NCHW 5 x 3, bilinear, with
 * scale and offset: out = v * scale + offset per channel. */
static void
test_preprocess_bilinear (void)
{
  const gchar *caps = "video/x-raw,format=RGB,width=12,height=8";
  GstHarness *h = gcg_test_harness_new (PREPROCESS
      " width=5 height=3 "
      "method=bilinear layout=nchw tensor-type=float32 scale=0.01 "
      "offset=-1",
      caps, NULL);
  GstBuffer *out = gcg_test_push_pull (h,
      gcg_test_frame_new (caps, pattern_px, GUINT_TO_POINTER (3), 0));
  GstMapInfo map;
  const gfloat *t;

  g_assert_true (gst_buffer_map (out, &map, GST_MAP_READ));
  g_assert_cmpuint (map.size, ==, 3 * 5 * 3 * sizeof (gfloat));
  t = (const gfloat *) map.data;
  for (guint c = 0; c < 3; c++)
    for (guint y = 0; y < 3; y++)
      for (guint x = 0; x < 5; x++) {
        gdouble expect = bilinear (12, 8, 5, 3, x, y, c) * 0.01 - 1;

        if (fabs (t[(c * 3 + y) * 5 + x] - expect) > 1e-4)
          g_error ("tensor (c %u, y %u, x %u): %f, expected %f", c, y, x,
              t[(c * 3 + y) * 5 + x], expect);
      }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* Letterbox into a uint8 NHWC tensor: RGB 8 x 4 into 6 x 6 gives
 * s = min (6/8, 6/4) = 0.75, a 6 x 3 picture at row (6 - 3) / 2 = 1;
 * rows 0, 4 and 5 are the pad value, the picture is the bilinear 8 x 4 ->
 * 6 x 3 of the pattern (scale 1: the values themselves). */
static void
test_preprocess_letterbox (void)
{
  const gchar *caps = "video/x-raw,format=RGB,width=8,height=4";
  GstHarness *h = gcg_test_harness_new (PREPROCESS
      " width=6 height=6 "
      "method=bilinear layout=nhwc tensor-type=uint8 letterbox=symmetric "
      "scale=1 offset=0 "
      "pad-value=7",
      caps, NULL);
  GstBuffer *out = gcg_test_push_pull (h,
      gcg_test_frame_new (caps, pattern_px, GUINT_TO_POINTER (3), 0));
  GstMapInfo map;

  g_assert_true (gst_buffer_map (out, &map, GST_MAP_READ));
  g_assert_cmpuint (map.size, ==, 6 * 6 * 3);
  for (guint y = 0; y < 6; y++)
    for (guint x = 0; x < 6; x++)
      for (guint c = 0; c < 3; c++) {
        guint got = map.data[(y * 6 + x) * 3 + c];

        if (y < 1 || y >= 4)
          g_assert_cmpuint (got, ==, 7);
        else
          assert_near (got, bilinear (8, 4, 6, 3, x, y - 1, c), x, y, c);
      }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gst/values/convert/bilinear", test_bilinear);
  g_test_add_func ("/gst/values/convert/adjust", test_adjust);
  g_test_add_func ("/gst/values/convert/rgb-to-yuv", test_rgb_to_yuv);
  g_test_add_func ("/gst/values/preprocess/bilinear", test_preprocess_bilinear);
  g_test_add_func ("/gst/values/preprocess/letterbox",
      test_preprocess_letterbox);
  return g_test_run ();
}
