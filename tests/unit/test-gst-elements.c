/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The cudagraph elements on the CPU reference backend (no GPU needed):
 * conversions with known pixel values, crop, resize, letterbox, colour
 * adjustment, caps changes, passthrough, the tensor output and its meta,
 * refusal of bad values, and the errors and warnings a user sees.
 */
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>

#include <gst/base/gstbasetransform.h>

#include "gcg-gst-test-util.h"
#include "gcg-test-util.h"

#include <gst/controller/controller.h>
#include "gstcudagraphtensormeta.h"

/* GCC says __SANITIZE_ADDRESS__, clang __has_feature. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GCG_TEST_CLANG_ASAN 1
#endif
#endif
#ifndef GCG_TEST_CLANG_ASAN
#define GCG_TEST_CLANG_ASAN 0
#endif

#define CONVERT "cudagraphconvert backend=cpu"
#define PREPROCESS "cudagraphpreprocess backend=cpu"

static const guint8 gray100[4] = { 100, 100, 100, 255 };

/* A pattern that tells every pixel apart: R = x, G = y, B = x + 16 y. */
static void
pattern_px (guint x, guint y, guint8 *px, gpointer user_data)
{
  px[0] = x;
  px[1] = y;
  px[2] = x + 16 * y;
  px[3] = 255;
}

static GstBuffer *
convert_one (const gchar *launch, const gchar *in_caps, const gchar *out_caps,
    GstBuffer *in, GstVideoInfo *out_info)
{
  GstHarness *h = gcg_test_harness_new (launch, in_caps, out_caps);
  GstBuffer *out = gcg_test_push_pull (h, in);
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (h->sinkpad);

  g_assert_true (gst_video_info_from_caps (out_info, caps));
  gst_harness_teardown (h);
  return out;
}

static void
assert_rgba (GstVideoFrame *f, guint x, guint y, guint r, guint g, guint b,
    guint a)
{
  const guint8 *p = gcg_test_pixel (f, x, y);

  g_assert_cmpuint (p[0], ==, r);
  g_assert_cmpuint (p[1], ==, g);
  g_assert_cmpuint (p[2], ==, b);
  g_assert_cmpuint (p[3], ==, a);
}

/* A harness like gcg_test_harness_new() whose messages go to @bus, from
 * the caps on (they are set, and refused, before any buffer). */
static GstHarness *
harness_with_bus (const gchar *launch, const gchar *in_caps,
    const gchar *out_caps, GstBus *bus)
{
  GstHarness *h = gst_harness_new_parse (launch);

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, in_caps);
  if (out_caps)
    gst_harness_set_sink_caps_str (h, out_caps);
  return h;
}

static void
teardown_with_bus (GstHarness *h, GstBus *bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
}

/* The message of the first @type message on @bus, which must be there. */
static gchar *
pop_message_text (GstBus *bus, GstMessageType type)
{
  g_autoptr (GstMessage) msg = gst_bus_pop_filtered (bus, type);
  g_autoptr (GError) err = NULL;
  g_autofree gchar *dbg = NULL;

  g_assert_nonnull (msg);
  if (type == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &err, &dbg);
  else
    gst_message_parse_warning (msg, &err, &dbg);
  g_test_message ("%s: %s (%s)", gst_message_type_get_name (type), err->message,
      dbg);
  return g_strdup (err->message);
}

/* An explicit full-frame crop keeps the element out of passthrough, so the
 * chain runs with identity values and must give the input back. */
static void
test_identity_rgba (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=16,height=8";
  GstBuffer *in = gcg_test_frame_new (caps, pattern_px, NULL, 0);
  g_autoptr (GstBuffer) ref = gst_buffer_copy (in);
  g_autoptr (GstBuffer) out = NULL;
  GstVideoInfo info;

  out = convert_one (CONVERT " crop-width=16", caps, caps, in, &info);
  g_assert_true (out != ref);
  gcg_test_assert_same_bytes (out, ref);
}

/* BT.601 limited range (GStreamer's default below 720 lines): Y 235 is
 * white, Y 16 black, (81, 90, 240) pure-ish red (254, 0, 0). */
static void
test_nv12_to_rgba (void)
{
  const gchar *in_caps = "video/x-raw,format=NV12,width=4,height=2";
  GstVideoInfo in_info = gcg_test_info (in_caps), info;
  GstBuffer *in = gst_buffer_new_allocate (NULL, in_info.size, NULL);
  g_autoptr (GstBuffer) out = NULL;
  GstVideoFrame f;
  guint8 *y, *uv;

  g_assert_true (gst_video_frame_map (&f, &in_info, in, GST_MAP_WRITE));
  y = GST_VIDEO_FRAME_PLANE_DATA (&f, 0);
  uv = GST_VIDEO_FRAME_PLANE_DATA (&f, 1);
  /* Left 2x2 block: white / black columns on grey chroma; right: red. */
  for (guint r = 0; r < 2; r++) {
    guint8 *row = y + r * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
    row[0] = 235;
    row[1] = 16;
    row[2] = row[3] = 81;
  }
  uv[0] = 128;
  uv[1] = 128;
  uv[2] = 90;
  uv[3] = 240;
  gst_video_frame_unmap (&f);

  out = convert_one (CONVERT, in_caps,
      "video/x-raw,format=RGBA,width=4,height=2", in, &info);
  g_assert_true (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  for (guint r = 0; r < 2; r++) {
    assert_rgba (&f, 0, r, 255, 255, 255, 255);
    assert_rgba (&f, 1, r, 0, 0, 0, 255);
    assert_rgba (&f, 2, r, 254, 0, 0, 255);
    assert_rgba (&f, 3, r, 254, 0, 0, 255);
  }
  gst_video_frame_unmap (&f);
}

static void
check_swap (const gchar *from, const gchar *to)
{
  g_autofree gchar *in_caps =
      g_strdup_printf ("video/x-raw,format=%s,width=4,height=2", from);
  g_autofree gchar *out_caps =
      g_strdup_printf ("video/x-raw,format=%s,width=4,height=2", to);
  const guint8 px[3] = { 10, 20, 30 };
  g_autoptr (GstBuffer) out = NULL;
  GstVideoFrame f;
  GstVideoInfo info;

  out = convert_one (CONVERT, in_caps, out_caps,
      gcg_test_solid_new (in_caps, px, 3, 0), &info);
  g_assert_cmpint (GST_VIDEO_INFO_FORMAT (&info), ==,
      gst_video_format_from_string (to));
  g_assert_true (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  for (guint y = 0; y < 2; y++) {
    for (guint x = 0; x < 4; x++) {
      const guint8 *p = gcg_test_pixel (&f, x, y);
      g_assert_cmpuint (p[0], ==, 30);
      g_assert_cmpuint (p[1], ==, 20);
      g_assert_cmpuint (p[2], ==, 10);
    }
  }
  gst_video_frame_unmap (&f);
}

static void
test_rgb_bgr (void)
{
  check_swap ("RGB", "BGR");
  check_swap ("BGR", "RGB");
}

/* A 4x4 crop at (2, 3) scaled 1:1 must be an exact copy of the region. */
static void
check_crop (GstBuffer *out, GstVideoInfo *info, guint ox, guint oy)
{
  GstVideoFrame f;

  g_assert_cmpint (GST_VIDEO_INFO_WIDTH (info), ==, 4);
  g_assert_cmpint (GST_VIDEO_INFO_HEIGHT (info), ==, 4);
  g_assert_true (gst_video_frame_map (&f, info, out, GST_MAP_READ));
  for (guint y = 0; y < 4; y++)
    for (guint x = 0; x < 4; x++)
      assert_rgba (&f, x, y, ox + x, oy + y, ox + x + 16 * (oy + y), 255);
  gst_video_frame_unmap (&f);
}

static void
test_crop_property (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=8,height=8";
  g_autoptr (GstBuffer) out = NULL;
  GstVideoInfo info;

  out = convert_one (CONVERT " crop-x=2 crop-y=3 crop-width=4 crop-height=4",
      caps, "video/x-raw,format=RGBA,width=4,height=4",
      gcg_test_frame_new (caps, pattern_px, NULL, 0), &info);
  check_crop (out, &info, 2, 3);
}

static void
test_crop_meta (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=8,height=8";
  GstBuffer *in = gcg_test_frame_new (caps, pattern_px, NULL, 0);
  GstVideoCropMeta *meta = gst_buffer_add_video_crop_meta (in);
  g_autoptr (GstBuffer) out = NULL;
  GstVideoInfo info;

  meta->x = 2;
  meta->y = 3;
  meta->width = 4;
  meta->height = 4;
  out = convert_one (CONVERT, caps, "video/x-raw,format=RGBA,width=4,height=4",
      in, &info);
  check_crop (out, &info, 2, 3);
}

/* A crop meta shifted by crop-x far beyond the frame (16384, the most it
 * takes) is refused: the whole visible frame, the meta's region, is
 * used. */
static void
test_crop_far_outside (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=8,height=8";
  const gchar *out_caps = "video/x-raw,format=RGBA,width=4,height=4";
  g_autoptr (GstBuffer) out = NULL;
  g_autoptr (GstBuffer) out2 = NULL;
  GstHarness *h = gcg_test_harness_new (CONVERT, caps, out_caps);
  GstBuffer *in = gcg_test_frame_new (caps, pattern_px, NULL, 0);
  GstVideoCropMeta *meta = gst_buffer_add_video_crop_meta (in);
  GstVideoInfo info = gcg_test_info (out_caps);

  meta->x = 2;
  meta->y = 3;
  meta->width = 4;
  meta->height = 4;
  out = gcg_test_push_pull (h, gst_buffer_copy_deep (in));
  check_crop (out, &info, 2, 3);
  {
    g_autoptr (GstElement)
        conv = gst_harness_find_element (h, "cudagraphconvert");

    gst_util_set_object_arg (G_OBJECT (conv), "crop-x", "16384");
  }
  out2 = gcg_test_push_pull (h, in);
  check_crop (out2, &info, 2, 3);
  gst_harness_teardown (h);
}

/* Pushes @in (a reference) and checks that the whole frame came out. */
static void
push_expect_whole_frame (GstHarness *h, GstBuffer *in)
{
  g_autoptr (GstBuffer) out = gcg_test_push_pull (h, gst_buffer_ref (in));
  GstMapInfo map;

  g_assert_true (gst_buffer_map (in, &map, GST_MAP_READ));
  g_assert_cmpuint (gst_buffer_get_size (out), ==, map.size);
  g_assert_cmpint (gst_buffer_memcmp (out, 0, map.data, map.size), ==, 0);
  gst_buffer_unmap (in, &map);
}

/* A crop entirely outside the frame (crop-x=1000 on 160x90) gives the
 * whole visible frame (here the whole frame), whatever crop was good
 * before, with one warning message naming the element per refused crop,
 * not per frame: again when it changes, or when it comes back after a
 * good one. */
static void
test_crop_outside_warns (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=160,height=90";
  const struct
  {
    guint crop_x;
    const gchar *warning;       /* NULL: none */
  } steps[] = {
    { 1000, "visible frame 0,0 160x90" },
    { 2000, "visible frame 0,0 160x90" },
    { 8, NULL },
    { 1000, "visible frame 0,0 160x90" },
  };
  g_autoptr (GstBus) bus = gst_bus_new ();
  GstHarness *h = harness_with_bus (CONVERT, caps, caps, bus);
  g_autoptr (GstElement)
      conv = gst_harness_find_element (h, "cudagraphconvert");
  g_autoptr (GstBuffer) in = gcg_test_frame_new (caps, pattern_px, NULL, 0);

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++) {
    g_object_set (conv, "crop-x", steps[i].crop_x, NULL);
    for (guint f = 0; f < 3; f++) {
      if (steps[i].warning)
        push_expect_whole_frame (h, in);
      else
        gst_buffer_unref (gcg_test_push_pull (h, gst_buffer_ref (in)));
    }
    if (steps[i].warning) {
      g_autofree gchar *text = pop_message_text (bus, GST_MESSAGE_WARNING);

      g_assert_nonnull (strstr (text, "The crop of cudagraphconvert"));
      g_assert_nonnull (strstr (text, "of the 160x90 frame"));
      g_assert_nonnull (strstr (text, steps[i].warning));
    }
    g_assert_null (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING));
  }
  teardown_with_bus (h, bus);
}

/* YUV to YUV downscaled below HD keeps the input's BT.709 in the output
 * caps instead of the BT.601 default of the smaller size. */
static void
test_yuv_keeps_colorimetry (void)
{
  const gchar *caps =
      "video/x-raw,format=NV12,width=1280,height=720,colorimetry=bt709";
  GstHarness *h = gcg_test_harness_new (CONVERT, caps,
      "video/x-raw,format=NV12,width=320,height=180");
  g_autoptr (GstCaps) out_caps = NULL;
  GstBuffer *out;
  GstVideoInfo info;

  out =
      gcg_test_push_pull (h, gcg_test_frame_new (caps, pattern_px, NULL, 128));
  gst_buffer_unref (out);
  out_caps = gst_pad_get_current_caps (h->sinkpad);
  g_assert_true (gst_video_info_from_caps (&info, out_caps));
  g_assert_cmpint (info.colorimetry.matrix, ==, GST_VIDEO_COLOR_MATRIX_BT709);
  g_assert_cmpint (info.colorimetry.range, ==, GST_VIDEO_COLOR_RANGE_16_235);
  gst_harness_teardown (h);
}

/* Nearest picks floor((x + 0.5) * 2) = 1, 3, 5, 7 of each row and column. */
static void
test_resize (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=8,height=8";
  g_autoptr (GstBuffer) out = NULL;
  GstVideoFrame f;
  GstVideoInfo info;

  out = convert_one (CONVERT " method=nearest", caps,
      "video/x-raw,format=RGBA,width=4,height=4",
      gcg_test_frame_new (caps, pattern_px, NULL, 0), &info);
  g_assert_cmpint (GST_VIDEO_INFO_WIDTH (&info), ==, 4);
  g_assert_true (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  for (guint y = 0; y < 4; y++)
    for (guint x = 0; x < 4; x++)
      assert_rgba (&f, x, y, 2 * x + 1, 2 * y + 1, 2 * x + 1 + 16 * (2 * y + 1),
          255);
  gst_video_frame_unmap (&f);

  /* Bilinear of a uniform frame stays uniform at any size. */
  gst_buffer_unref (out);
  out = convert_one (CONVERT, caps, "video/x-raw,format=RGBA,width=3,height=5",
      gcg_test_solid_new (caps, gray100, 4, 0), &info);
  g_assert_true (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  for (guint y = 0; y < 5; y++)
    for (guint x = 0; x < 3; x++)
      assert_rgba (&f, x, y, 100, 100, 100, 255);
  gst_video_frame_unmap (&f);
}

/* 8x4 into 8x8 symmetric: scale 1, rows 0-1 and 6-7 are the pad colour. */
static void
test_letterbox (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=8,height=4";
  const guint8 white[4] = { 255, 255, 255, 255 };
  g_autoptr (GstBuffer) out = NULL;
  GstVideoFrame f;
  GstVideoInfo info;

  out = convert_one (CONVERT " letterbox=symmetric pad-color=0xff0000ff", caps,
      "video/x-raw,format=RGBA,width=8,height=8",
      gcg_test_solid_new (caps, white, 4, 0), &info);
  g_assert_true (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  for (guint y = 0; y < 8; y++) {
    for (guint x = 0; x < 8; x++) {
      if (y < 2 || y >= 6)
        assert_rgba (&f, x, y, 0, 0, 255, 255);
      else
        assert_rgba (&f, x, y, 255, 255, 255, 255);
    }
  }
  gst_video_frame_unmap (&f);
}

static void
assert_uniform (GstBuffer *out, GstVideoInfo *info, guint v)
{
  GstVideoFrame f;

  g_assert_true (gst_video_frame_map (&f, info, out, GST_MAP_READ));
  for (guint y = 0; y < (guint) GST_VIDEO_INFO_HEIGHT (info); y++)
    for (guint x = 0; x < (guint) GST_VIDEO_INFO_WIDTH (info); x++)
      assert_rgba (&f, x, y, v, v, v, 255);
  gst_video_frame_unmap (&f);
}

/* brightness 0.2 adds 0.2 x 255 = 51. */
static void
test_brightness (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=4,height=4";
  g_autoptr (GstBuffer) out = NULL;
  GstVideoInfo info;

  out = convert_one (CONVERT " brightness=0.2", caps, caps,
      gcg_test_solid_new (caps, gray100, 4, 0), &info);
  assert_uniform (out, &info, 151);
}

/* A GstController drives brightness over stream time: each buffer gets the
 * value at its timestamp, with no re-capture (the CPU backend here, the
 * same path for CUDA). */
static void
test_controller (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=4,height=4";
  GstHarness *h = gcg_test_harness_new (CONVERT, caps, caps);
  g_autoptr (GstElement) e = gst_harness_find_element (h, "cudagraphconvert");
  GstControlSource *cs = gst_interpolation_control_source_new ();
  GstTimedValueControlSource *tv = GST_TIMED_VALUE_CONTROL_SOURCE (cs);
  GstVideoInfo info = gcg_test_info (caps);
  const guint expect[] = { 100, 151, 100 };

  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  gst_timed_value_control_source_set (tv, 0, 0.0);
  gst_timed_value_control_source_set (tv, GST_SECOND, 0.2);
  gst_timed_value_control_source_set (tv, 2 * GST_SECOND, 0.0);
  g_assert_true (gst_object_add_control_binding (GST_OBJECT (e),
      gst_direct_control_binding_new_absolute (GST_OBJECT (e), "brightness",
          cs)));
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++) {
    GstBuffer *in = gcg_test_solid_new (caps, gray100, 4, 0);
    g_autoptr (GstBuffer) out = NULL;

    GST_BUFFER_PTS (in) = i * GST_SECOND;
    out = gcg_test_push_pull (h, in);
    assert_uniform (out, &info, expect[i]);
  }
  gst_object_unref (cs);
  gst_harness_teardown (h);
}

/* A "GcgParamsMeta" on one buffer overrides the properties for it only. */
static void
test_params_meta (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=4,height=4";
  GstHarness *h = gcg_test_harness_new (CONVERT " crop-width=4", caps, caps);
  GstBuffer *in = gcg_test_solid_new (caps, gray100, 4, 0);
  GstCustomMeta *meta = gst_buffer_add_custom_meta (in, "GcgParamsMeta");
  g_autoptr (GstBuffer) out1 = NULL, out2 = NULL;
  GstVideoInfo info = gcg_test_info (caps);

  g_assert_nonnull (meta);
  gst_structure_set (gst_custom_meta_get_structure (meta), "brightness",
      G_TYPE_DOUBLE, 0.2, NULL);
  out1 = gcg_test_push_pull (h, in);
  assert_uniform (out1, &info, 151);
  out2 = gcg_test_push_pull (h, gcg_test_solid_new (caps, gray100, 4, 0));
  assert_uniform (out2, &info, 100);
  gst_harness_teardown (h);
}

/* NaN is refused wherever it can reach our code, the previous values stay
 * and frames go on being right: a "GcgParamsMeta" and the mean/std
 * strings.  Through g_object_set (and so GstController) NaN never reaches
 * the element: the property's declared range keeps it out, and how GLib
 * reports that (a warning on 2.74, a critical on 2.84) is GLib's. */
static void
test_nan_refused (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=4,height=4";
  GstHarness *h = gcg_test_harness_new (CONVERT " brightness=0.2", caps, caps);
  g_autoptr (GstElement) e = gst_harness_find_element (h, "cudagraphconvert");
  g_autoptr (GstElement)
      pre = gst_element_factory_make ("cudagraphpreprocess", NULL);
  g_autoptr (GstBuffer) out = NULL, out2 = NULL;
  GstVideoInfo info = gcg_test_info (caps);
  GstCustomMeta *meta;
  g_autofree gchar *mean = NULL;
  g_auto (GValue) nan = G_VALUE_INIT;
  GstBuffer *in;
  gdouble v;

  g_value_init (&nan, G_TYPE_DOUBLE);
  g_value_set_double (&nan, NAN);
  g_assert_false (g_param_value_is_valid (
      g_object_class_find_property (G_OBJECT_GET_CLASS (e), "brightness"),
      &nan));
  g_object_get (e, "brightness", &v, NULL);
  g_assert_cmpfloat_with_epsilon (v, 0.2, 1e-6);
  out = gcg_test_push_pull (h, gcg_test_solid_new (caps, gray100, 4, 0));
  assert_uniform (out, &info, 151);

  in = gcg_test_solid_new (caps, gray100, 4, 0);
  meta = gst_buffer_add_custom_meta (in, "GcgParamsMeta");
  gst_structure_set (gst_custom_meta_get_structure (meta), "gain",
      G_TYPE_DOUBLE, (gdouble) NAN, "gamma", G_TYPE_DOUBLE, 0.0, NULL);
  out2 = gcg_test_push_pull (h, in);
  assert_uniform (out2, &info, 151);
  gst_harness_teardown (h);

  /* A mean/std string that does not parse is refused: the old value (no
   * mean) stays, test_mean_std_refused() has the rest. */
  g_test_expect_message ("GstCudaGraph", G_LOG_LEVEL_WARNING,
      "*refusing property 'mean'*");
  g_object_set (pre, "mean", "nan,0,0", "std", "1,1,1", NULL);
  g_test_assert_expected_messages ();
  g_object_get (pre, "mean", &mean, NULL);
  g_assert_null (mean);
}

/* A GstVideoMeta whose strides and offsets reach past the buffer, or
 * smaller than the caps (which gst_video_frame_map() would meet with a
 * critical): the frame is dropped with a warning, nothing is read out of
 * bounds (the sanitizer build would report it), and the next good frame
 * comes out. */
static void
test_video_meta_past_buffer (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=4,height=4";
  const gchar *launch[] = {
    CONVERT " brightness=0.2",
    PREPROCESS " width=4 height=4",
  };
  GstVideoInfo info = gcg_test_info (caps);

  for (guint i = 0; i < G_N_ELEMENTS (launch); i++) {
    GstHarness *h = gcg_test_harness_new (launch[i], caps, NULL);
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
    gint huge[GST_VIDEO_MAX_PLANES] = { 1 << 28 },
         wide[GST_VIDEO_MAX_PLANES] = { 32 };
    GstBuffer *bad = gst_buffer_new_allocate (NULL, info.size, NULL);
    GstBuffer *wide_buf = gst_buffer_new_allocate (NULL, info.size, NULL);
    GstBuffer *small = gst_buffer_new_allocate (NULL, info.size, NULL);
    gint small_stride[GST_VIDEO_MAX_PLANES] = { 8 };
    GstBuffer *out;

    gst_buffer_memset (bad, 0, 100, info.size);
    gst_buffer_memset (wide_buf, 0, 100, info.size);
    gst_buffer_add_video_meta_full (bad, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_RGBA, 4, 4, 1, offset, huge);
    gst_buffer_add_video_meta_full (wide_buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_RGBA, 4, 4, 1, offset, wide);
    g_assert_cmpint (gst_harness_push (h, bad), ==, GST_FLOW_OK);
    gst_buffer_add_video_meta_full (small, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_RGBA, 2, 2, 1, offset, small_stride);
    g_assert_cmpint (gst_harness_push (h, wide_buf), ==, GST_FLOW_OK);
    g_assert_cmpint (gst_harness_push (h, small), ==, GST_FLOW_OK);
    g_assert_null (gst_harness_try_pull (h));
    g_assert_cmpuint (gcg_test_get_u64 (h,
                          i == 0 ? "cudagraphconvert" : "cudagraphpreprocess",
                          "dropped-frames"),
        ==, 3);
    out = gcg_test_push_pull (h, gcg_test_solid_new (caps, gray100, 4, 0));
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

/* A new size mid-stream makes a new chain; the stream goes on.  The CPU
 * backend counts every frame as eager and captures nothing. */
static void
test_caps_change (void)
{
  const gchar *caps1 = "video/x-raw,format=RGBA,width=8,height=8";
  const gchar *caps2 = "video/x-raw,format=RGBA,width=4,height=2";
  GstHarness *h = gcg_test_harness_new (CONVERT " brightness=0.2", caps1,
      "video/x-raw,format=RGBA");
  g_autoptr (GstCaps) out_caps = NULL;
  GstVideoInfo info;
  GstBuffer *out;

  for (guint i = 0; i < 3; i++) {
    out = gcg_test_push_pull (h, gcg_test_solid_new (caps1, gray100, 4, 0));
    info = gcg_test_info (caps1);
    assert_uniform (out, &info, 151);
    gst_buffer_unref (out);
  }
  gst_harness_set_src_caps_str (h, caps2);
  for (guint i = 0; i < 2; i++) {
    out = gcg_test_push_pull (h, gcg_test_solid_new (caps2, gray100, 4, 0));
    out_caps = gst_pad_get_current_caps (h->sinkpad);
    g_assert_true (gst_video_info_from_caps (&info, out_caps));
    g_clear_pointer (&out_caps, gst_caps_unref);
    g_assert_cmpint (GST_VIDEO_INFO_WIDTH (&info), ==, 4);
    g_assert_cmpint (GST_VIDEO_INFO_HEIGHT (&info), ==, 2);
    assert_uniform (out, &info, 151);
    gst_buffer_unref (out);
  }
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "eager-frames"),
      ==, 5);
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "captures"), ==,
      0);
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "replays"), ==, 0);
  gst_harness_teardown (h);
}

/* Pushes two frames of each caps of @seq (a letter each: A, B, C are
 * three sizes) through @launch, checks each output, and returns the
 * element's chains-built. */
static guint64
run_caps_sequence (const gchar *launch, const gchar *seq)
{
  static const gchar *caps[] = {
    "video/x-raw,format=RGBA,width=8,height=8",
    "video/x-raw,format=RGBA,width=4,height=2",
    "video/x-raw,format=RGBA,width=6,height=4",
  };
  GstHarness *h = gcg_test_harness_new (launch, caps[seq[0] - 'A'],
      "video/x-raw,format=RGBA");
  guint64 built;

  for (const gchar *c = seq; *c; c++) {
    const gchar *in_caps = caps[*c - 'A'];
    GstVideoInfo info = gcg_test_info (in_caps);

    gst_harness_set_src_caps_str (h, in_caps);
    for (guint i = 0; i < 2; i++) {
      GstBuffer *out =
          gcg_test_push_pull (h, gcg_test_solid_new (in_caps, gray100, 4, 0));

      g_assert_cmpuint (gst_buffer_get_size (out), ==, info.size);
      assert_uniform (out, &info, 151);
      gst_buffer_unref (out);
    }
  }
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "eager-frames"),
      ==, 2 * strlen (seq));
  built = gcg_test_get_u64 (h, "cudagraphconvert", "chains-built");
  gst_harness_teardown (h);
  return built;
}

/* Caps going back to earlier ones take their chain (with its graph, on
 * the CUDA backend) from the chain cache instead of building another;
 * the least recently used chain is dropped when the cache is full; size
 * 0 keeps none. */
static void
test_chain_cache (void)
{
  g_assert_cmpuint (run_caps_sequence (CONVERT " brightness=0.2", "ABA"), ==,
      2);
  g_assert_cmpuint (run_caps_sequence (CONVERT " brightness=0.2", "ABCACBBA"),
      ==, 3);
  /* One kept: C drops A, going back to A drops B. */
  g_assert_cmpuint (run_caps_sequence (CONVERT " brightness=0.2 "
                                               "chain-cache-size=1",
                        "ABCACB"),
      ==, 5);
  g_assert_cmpuint (run_caps_sequence (CONVERT " brightness=0.2 "
                                               "chain-cache-size=0",
                        "ABA"),
      ==, 3);
}

/* graph-cache-size, the old name of chain-cache-size, still sets and
 * reads the same value, is flagged deprecated, and says so on the bus
 * when set; chain-cache-size itself posts nothing. */
static void
test_graph_cache_size_deprecated (void)
{
  g_autoptr (GstBus) bus = gst_bus_new ();
  g_autoptr (GstElement)
      e = gst_element_factory_make ("cudagraphconvert", NULL);
  GParamSpec *old =
      g_object_class_find_property (G_OBJECT_GET_CLASS (e), "graph-cache-size");
  g_autofree gchar *text = NULL;
  guint size = 0;

  g_assert_nonnull (old);
  g_assert_true (old->flags & G_PARAM_DEPRECATED);
  gst_element_set_bus (e, bus);
  g_object_set (e, "chain-cache-size", 2, NULL);
  g_assert_null (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING));
  g_object_get (e, "graph-cache-size", &size, NULL);
  g_assert_cmpuint (size, ==, 2);
  g_object_set (e, "graph-cache-size", 1, NULL);
  g_object_get (e, "chain-cache-size", &size, NULL);
  g_assert_cmpuint (size, ==, 1);
  text = pop_message_text (bus, GST_MESSAGE_WARNING);
  g_assert_nonnull (strstr (text, "graph-cache-size is deprecated"));
  g_assert_nonnull (strstr (text, "chain-cache-size"));
  /* Still the same cache: one kept, as above. */
  g_assert_cmpuint (run_caps_sequence (CONVERT " brightness=0.2 "
                                               "graph-cache-size=1",
                        "ABCACB"),
      ==, 5);
  gst_element_set_bus (e, NULL);
}

/* A stats request posts the cudagraph-stats message at once, as often as
 * asked, with the counters so far; EOS still posts its own. */
static void
test_stats_request (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=8,height=8";
  g_autoptr (GstBus) bus = gst_bus_new ();
  GstHarness *h = harness_with_bus (CONVERT " brightness=0.2", caps,
      "video/x-raw,format=RGBA", bus);

  GstMessage *eos_stats;

  for (guint i = 1; i <= 2; i++) {
    g_autoptr (GstMessage) msg = NULL;
    const GstStructure *s;
    guint64 frames = 0, built = 0;

    gst_buffer_unref (gcg_test_push_pull (h,
        gcg_test_solid_new (caps, gray100, 4, 0)));
    g_assert_true (gst_harness_push_event (h,
        gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
            gst_structure_new_empty ("cudagraph-stats-request"))));
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
    g_assert_nonnull (msg);
    s = gst_message_get_structure (msg);
    g_assert_true (gst_structure_has_name (s, "cudagraph-stats"));
    g_assert_true (gst_structure_get_uint64 (s, "frames", &frames));
    g_assert_true (gst_structure_get_uint64 (s, "chains-built", &built));
    g_assert_cmpuint (frames, ==, i);
    g_assert_cmpuint (built, ==, 1);
  }
  g_assert_true (gst_harness_push_event (h, gst_event_new_eos ()));
  eos_stats = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
  g_assert_nonnull (eos_stats);
  gst_message_unref (eos_stats);
  teardown_with_bus (h, bus);
}

/* Same caps, identity values, no crop: the very input buffer comes out. */
static void
test_passthrough (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=4,height=4";
  GstHarness *h = gcg_test_harness_new (CONVERT, caps, caps);
  GstBuffer *in = gcg_test_solid_new (caps, gray100, 4, 0);
  GstBuffer *out;

  out = gcg_test_push_pull (h, gst_buffer_ref (in));
  g_assert_true (out == in);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "eager-frames"),
      ==, 0);
  gst_harness_teardown (h);
}

/* --- cudagraphpreprocess ------------------------------------------------- */

static void
test_preprocess_caps (void)
{
  GstHarness *h = gcg_test_harness_new (PREPROCESS " width=32 height=16",
      "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1", NULL);
  g_autoptr (GstCaps) caps = NULL;
  g_autofree gchar *str = NULL;
  GstBuffer *out;

  out = gcg_test_push_pull (h,
      gcg_test_solid_new ("video/x-raw,format=RGBA,width=64,height=48", gray100,
          4, 0));
  g_assert_cmpuint (gst_buffer_get_size (out), ==, 32 * 16 * 3 * 4);
  gst_buffer_unref (out);
  caps = gst_pad_get_current_caps (h->sinkpad);
  str = gst_caps_to_string (caps);
  g_assert_cmpstr (str, ==,
      "other/tensors, format=(string)static, "
      "num_tensors=(int)1, dimensions=(string)32:16:3:1, "
      "types=(string)float32, framerate=(fraction)30/1");
  gst_harness_teardown (h);

  h = gcg_test_harness_new (PREPROCESS " width=8 height=4 layout=nhwc "
                                       "tensor-type=uint8 max-rois=2",
      "video/x-raw,format=NV12,width=64,height=48,framerate=25/1", NULL);
  out = gcg_test_push_pull (h,
      gcg_test_solid_new ("video/x-raw,format=NV12,width=64,height=48", gray100,
          1, 128));
  gst_buffer_unref (out);
  g_clear_pointer (&caps, gst_caps_unref);
  g_clear_pointer (&str, g_free);
  caps = gst_pad_get_current_caps (h->sinkpad);
  str = gst_caps_to_string (caps);
  g_assert_cmpstr (str, ==,
      "other/tensors, format=(string)static, "
      "num_tensors=(int)1, dimensions=(string)3:8:4:2, "
      "types=(string)uint8, framerate=(fraction)25/1");
  gst_harness_teardown (h);
}

/* Uniform (124, 116, 104) with ImageNet mean/std: each plane holds
 * v * (1 / (255 std)) + (-mean / std), computed as the chain does. */
static void
test_preprocess_values (void)
{
  const gchar *caps = "video/x-raw,format=RGB,width=16,height=8";
  const guint8 px[3] = { 124, 116, 104 };
  const gfloat mean[3] = { 0.485f, 0.456f, 0.406f };
  const gfloat std[3] = { 0.229f, 0.224f, 0.225f };
  GstHarness *h = gcg_test_harness_new (PREPROCESS
      " width=4 height=2 "
      "mean=0.485,0.456,0.406 std=0.229,0.224,0.225",
      caps, NULL);
  GstBuffer *out = gcg_test_push_pull (h, gcg_test_solid_new (caps, px, 3, 0));
  GstMapInfo map;
  const gfloat *t;

  g_assert_true (gst_buffer_map (out, &map, GST_MAP_READ));
  g_assert_cmpuint (map.size, ==, 3 * 4 * 2 * sizeof (gfloat));
  t = (const gfloat *) map.data;
  for (guint c = 0; c < 3; c++) {
    gfloat scale = 1.0f / (255.0f * std[c]), offset = -mean[c] / std[c];
    gfloat expect = px[c] * scale + offset;
    for (guint i = 0; i < 8; i++)
      g_assert_cmpfloat_with_epsilon (t[c * 8 + i], expect, 1e-5);
  }
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* Two ROI metas on a frame whose left half is 0 and right half 255, batch
 * of four: items 0 and 1 hold the ROIs, items 2 and 3 are zero; the tensor
 * meta says where each came from. */
static void
half_px (guint x, guint y, guint8 *px, gpointer user_data)
{
  px[0] = px[1] = px[2] = x < 32 ? 0 : 255;
}

static void
test_preprocess_rois (void)
{
  const gchar *caps = "video/x-raw,format=RGB,width=64,height=32";
  GstHarness *h = gcg_test_harness_new (PREPROCESS
      " width=8 height=8 "
      "max-rois=4 tensor-type=uint8 scale=1.0 letterbox=symmetric "
      "pad-value=7",
      caps, NULL);
  GstBuffer *in = gcg_test_frame_new (caps, half_px, NULL, 0);
  GstVideoRegionOfInterestMeta *r1, *r2;
  GstCudaGraphTensorMeta *meta;
  GstMapInfo map;
  GstBuffer *out;

  r1 = gst_buffer_add_video_region_of_interest_meta (in, "face", 0, 0, 16, 8);
  r2 = gst_buffer_add_video_region_of_interest_meta (in, "car", 40, 4, 16, 16);
  r1->id = 11;
  r2->id = 22;
  out = gcg_test_push_pull (h, in);
  g_assert_true (gst_buffer_map (out, &map, GST_MAP_READ));
  g_assert_cmpuint (map.size, ==, 4 * 3 * 8 * 8);
  /* Item 0: 16x8 letterboxed into 8x8: scale 0.5, 4 image rows between
   * two rows of padding above and below. */
  for (guint c = 0; c < 3; c++) {
    for (guint y = 0; y < 8; y++) {
      guint8 v = map.data[c * 64 + y * 8];
      g_assert_cmpuint (v, ==, (y < 2 || y >= 6) ? 7 : 0);
    }
  }
  /* Item 1: square, fills the item, all 255. */
  for (guint i = 0; i < 3 * 64; i++)
    g_assert_cmpuint (map.data[192 + i], ==, 255);
  for (guint i = 2 * 192; i < 4 * 192; i++)
    g_assert_cmpuint (map.data[i], ==, 0);
  gst_buffer_unmap (out, &map);

  meta = gst_cuda_graph_buffer_get_tensor_meta (out);
  g_assert_nonnull (meta);
  g_assert_cmpuint (meta->batch, ==, 4);
  g_assert_cmpuint (meta->n_items, ==, 2);
  g_assert_cmpuint (meta->width, ==, 8);
  g_assert_cmpuint (meta->height, ==, 8);
  g_assert_cmpint (meta->items[0].roi_id, ==, 11);
  g_assert_cmpint (meta->items[0].roi_width, ==, 16);
  g_assert_cmpfloat (meta->items[0].scale_x, ==, 2.0f);
  g_assert_cmpfloat (meta->items[0].scale_y, ==, 2.0f);
  g_assert_cmpint (meta->items[0].pad_x, ==, 0);
  g_assert_cmpint (meta->items[0].pad_y, ==, 2);
  g_assert_cmpint (meta->items[1].roi_id, ==, 22);
  g_assert_cmpint (meta->items[1].roi_x, ==, 40);
  g_assert_cmpint (meta->items[1].roi_y, ==, 4);
  g_assert_cmpint (meta->items[1].pad_y, ==, 0);
  gst_buffer_unref (out);

  /* roi-type filters: only the car. */
  {
    g_autoptr (GstElement)
        e = gst_harness_find_element (h, "cudagraphpreprocess");
    g_object_set (e, "roi-type", "car", NULL);
  }
  in = gcg_test_frame_new (caps, half_px, NULL, 0);
  gst_buffer_add_video_region_of_interest_meta (in, "face", 0, 0, 16, 8);
  gst_buffer_add_video_region_of_interest_meta (in, "car", 40, 4, 16, 16);
  out = gcg_test_push_pull (h, in);
  meta = gst_cuda_graph_buffer_get_tensor_meta (out);
  g_assert_cmpuint (meta->n_items, ==, 1);
  g_assert_cmpint (meta->items[0].roi_x, ==, 40);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* Uniform (124, 116, 104) through mean 0.5, std 0.25: each item holds
 * v * (1 / (255 std)) + (-mean / std), computed as the chain does. */
static void
assert_mean_std_output (GstBuffer *out)
{
  const guint8 px[3] = { 124, 116, 104 };
  const gfloat scale = 1.0f / (255.0f * 0.25f), offset = -0.5f / 0.25f;
  GstMapInfo map;

  g_assert_true (gst_buffer_map (out, &map, GST_MAP_READ));
  g_assert_cmpuint (map.size, ==, 3 * 4 * 2 * sizeof (gfloat));
  for (guint c = 0; c < 3; c++)
    for (guint i = 0; i < 8; i++)
      g_assert_cmpfloat_with_epsilon (((const gfloat *) map.data)[c * 8 + i],
          px[c] * scale + offset, 1e-5);
  gst_buffer_unmap (out, &map);
}

/* mean/std strings that are not 1 or 3 numbers, and a std that makes the
 * scale or offset infinite (0, 1e-45), are refused when set: the old
 * value stays in use and reads back, and frames go on being made. */
static void
test_mean_std_refused (void)
{
  const gchar *caps = "video/x-raw,format=RGB,width=16,height=8";
  const guint8 px[3] = { 124, 116, 104 };
  const gchar *bad_mean[] = { "nan,0,0", "0.1,0.2", "0.1,,0.2", "", "abc",
    "0.5x", "0.1,0.2,0.3,0.4", "1e39" };
  const gchar *bad_std[] = { "0", "1e-45", "0.2,0,0.2", "-0", "inf", "," };
  GstHarness *h = gcg_test_harness_new (PREPROCESS " width=4 height=2 "
                                                   "mean=0.5 std=0.25",
      caps, NULL);
  g_autoptr (GstElement)
      e = gst_harness_find_element (h, "cudagraphpreprocess");

  for (guint i = 0; i < G_N_ELEMENTS (bad_mean) + G_N_ELEMENTS (bad_std); i++) {
    gboolean is_mean = i < G_N_ELEMENTS (bad_mean);
    const gchar *name = is_mean ? "mean" : "std";
    g_autofree gchar *value = NULL;
    GstBuffer *out;

    g_test_expect_message ("GstCudaGraph", G_LOG_LEVEL_WARNING,
        is_mean ? "*refusing property 'mean'*" : "*refusing property 'std'*");
    g_object_set (e, name,
        is_mean ? bad_mean[i] : bad_std[i - G_N_ELEMENTS (bad_mean)], NULL);
    g_test_assert_expected_messages ();
    g_object_get (e, name, &value, NULL);
    g_assert_cmpstr (value, ==, is_mean ? "0.5" : "0.25");
    out = gcg_test_push_pull (h, gcg_test_solid_new (caps, px, 3, 0));
    assert_mean_std_output (out);
    gst_buffer_unref (out);
  }
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphpreprocess",
                        "dropped-frames"),
      ==, 0);
  gst_harness_teardown (h);
}

/* roi-type naming a type no ROI ever had matches nothing, not the ROIs
 * without a type (quark 0, which g_quark_try_string() also returns for a
 * string never seen): the whole frame is the one item. */
static void
test_roi_type_unused (void)
{
  const gchar *caps = "video/x-raw,format=RGB,width=64,height=32";
  const gchar *unused = "gcg-test-roi-type-nobody-uses";
  GstHarness *h = gcg_test_harness_new (PREPROCESS
      " width=8 height=8 "
      "max-rois=2 tensor-type=uint8",
      caps, NULL);
  g_autoptr (GstElement)
      e = gst_harness_find_element (h, "cudagraphpreprocess");
  GstBuffer *in = gcg_test_frame_new (caps, half_px, NULL, 0);
  GstVideoRegionOfInterestMeta *r;
  GstCudaGraphTensorMeta *meta;
  GstBuffer *out;

  g_object_set (e, "roi-type", unused, NULL);
  g_assert_cmpuint (g_quark_try_string (unused), ==, 0);
  r = gst_buffer_add_video_region_of_interest_meta_id (in, 0, 0, 0, 16, 8);
  r->id = 11;
  r = gst_buffer_add_video_region_of_interest_meta (in, "car", 40, 4, 16, 16);
  r->id = 22;
  out = gcg_test_push_pull (h, in);
  meta = gst_cuda_graph_buffer_get_tensor_meta (out);
  g_assert_nonnull (meta);
  g_assert_cmpuint (meta->n_items, ==, 1);
  g_assert_cmpint (meta->items[0].roi_id, ==, -1);
  g_assert_cmpint (meta->items[0].roi_width, ==, 64);
  g_assert_cmpint (meta->items[0].roi_height, ==, 32);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* --- errors, warnings, registration -------------------------------------- */

static GstMessage *
start_alone (const gchar *launch, GstBus **bus_out, GstStateChangeReturn *ret,
    GstElement **elem_out)
{
  GstElement *e = gst_object_ref_sink (gst_parse_launch (launch, NULL));
  GstBus *bus = gst_bus_new ();

  g_assert_nonnull (e);
  gst_element_set_bus (e, bus);
  *ret = gst_element_set_state (e, GST_STATE_PAUSED);
  *bus_out = bus;
  *elem_out = e;
  return gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
}

/* Messages on the bus hold the element, which holds the bus: flush both
 * ways before letting go. */
static void
stop_alone (GstElement *e, GstBus *bus)
{
  gst_element_set_state (e, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (e, NULL);
  gst_object_unref (e);
  gst_object_unref (bus);
}

/* In-range properties asking for a 192 GiB tensor (64 items of
 * 16384x16384x3 float32): the caps are refused with an error naming the
 * size, nothing is allocated and nothing aborts. */
static void
test_tensor_too_large (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=4,height=4";
  g_autoptr (GstBus) bus = gst_bus_new ();
  GstHarness *h = harness_with_bus (PREPROCESS " width=16384 height=16384 "
                                               "max-rois=64",
      caps, NULL, bus);
  g_autofree gchar *text = NULL;

  g_assert_cmpint (gst_harness_push (h,
                       gcg_test_solid_new (caps, gray100, 4, 0)),
      ==, GST_FLOW_NOT_NEGOTIATED);
  text = pop_message_text (bus, GST_MESSAGE_ERROR);
  g_assert_nonnull (strstr (text, "206158430208 bytes"));
  g_assert_nonnull (strstr (text, "more than the limit"));
  teardown_with_bus (h, bus);
}

/* An output within the limit that the machine cannot give (here, the
 * address space is capped below its 1.5 GiB): the buffer allocation
 * fails with an error naming the size, instead of GLib aborting. */
static void
test_output_allocation_fails (void)
{
#if defined(__SANITIZE_ADDRESS__) || GCG_TEST_CLANG_ASAN
  g_test_skip ("the address sanitizer reserves more than the cap");
#else
  if (g_test_subprocess ()) {
    const gchar *caps = "video/x-raw,format=GRAY8,width=4,height=4";
    g_autoptr (GstBus) bus = gst_bus_new ();
    GstHarness *h = harness_with_bus (PREPROCESS " width=16384 height=8192 "
                                                 "channels=rgb",
        caps, NULL, bus);
    g_autofree gchar *text = NULL;
    glong pages = 0;
    struct rlimit cap;
    FILE *statm = fopen ("/proc/self/statm", "r");

    g_assert_nonnull (statm);
    g_assert_cmpint (fscanf (statm, "%ld", &pages), ==, 1);
    fclose (statm);
    cap.rlim_cur = cap.rlim_max = pages * sysconf (_SC_PAGESIZE) + (512 << 20);
    g_assert_cmpint (setrlimit (RLIMIT_AS, &cap), ==, 0);
    g_assert_cmpint (gst_harness_push (h,
                         gcg_test_solid_new (caps, gray100, 1, 0)),
        ==, GST_FLOW_ERROR);
    text = pop_message_text (bus, GST_MESSAGE_ERROR);
    g_assert_nonnull (strstr (text, "1610612736 bytes"));
    teardown_with_bus (h, bus);
    return;
  }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
#endif
}

/* The unit environment points GCG_CUDA_LIBRARY at a file that does not
 * exist: backend=cuda must fail at start, saying why and what to do. */
static void
test_cuda_without_driver (void)
{
  g_autoptr (GError) err = NULL;
  g_autofree gchar *dbg = NULL;
  GstStateChangeReturn ret;
  GstElement *e;
  GstBus *bus;
  GstMessage *msg;

  msg = start_alone ("cudagraphconvert backend=cuda", &bus, &ret, &e);
  g_assert_cmpint (ret, ==, GST_STATE_CHANGE_FAILURE);
  g_assert_nonnull (msg);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, &dbg);
  g_test_message ("error: %s (%s)", err->message, dbg);
  g_assert_nonnull (strstr (err->message, "backend=cuda"));
  g_assert_nonnull (strstr (err->message, "/nonexistent/libcuda.so.1"));
  g_assert_nonnull (strstr (dbg, "backend=auto"));
  gst_message_unref (msg);
  stop_alone (e, bus);
}

/* backend=auto without a GPU warns on the bus and runs on the CPU. */
static void
test_auto_falls_back (void)
{
  g_autoptr (GError) err = NULL;
  GstStateChangeReturn ret;
  GstElement *e;
  GstBus *bus;
  GstMessage *msg;

  msg = start_alone ("cudagraphpreprocess", &bus, &ret, &e);
  g_assert_cmpint (ret, !=, GST_STATE_CHANGE_FAILURE);
  g_assert_nonnull (msg);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_WARNING);
  gst_message_parse_warning (msg, &err, NULL);
  g_assert_nonnull (strstr (err->message, "running the CPU reference backend"));
  g_assert_nonnull (strstr (err->message, "no usable GPU ("));
  gst_message_unref (msg);
  stop_alone (e, bus);
}

static void
check_pspec (GstElement *e, const gchar *name, GType type, GParamFlags flags)
{
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (e), name);

  g_assert_nonnull (p);
  g_assert_true (G_PARAM_SPEC_VALUE_TYPE (p) == type
      || g_type_is_a (G_PARAM_SPEC_VALUE_TYPE (p), type));
  g_assert_cmpint (p->flags & flags, ==, flags);
}

static gchar *
enum_nick (GstElement *e, const gchar *name)
{
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (e), name);
  g_auto (GValue) v = G_VALUE_INIT;

  g_value_init (&v, G_PARAM_SPEC_VALUE_TYPE (p));
  g_object_get_property (G_OBJECT (e), name, &v);
  return g_strdup (g_enum_get_value (G_PARAM_SPEC_ENUM (p)->enum_class,
      g_value_get_enum (&v))
          ->value_nick);
}

static void
test_registration (void)
{
  g_autoptr (GstPlugin)
      plugin = gst_registry_find_plugin (gst_registry_get (), "cudagraph");
  g_autoptr (GstElement)
      conv = gst_element_factory_make ("cudagraphconvert", NULL);
  g_autoptr (GstElement)
      pre = gst_element_factory_make ("cudagraphpreprocess", NULL);
  const GParamFlags rw = G_PARAM_READWRITE;
  const GParamFlags ctl = rw | GST_PARAM_CONTROLLABLE
      | GST_PARAM_MUTABLE_PLAYING;
  guint64 captures = 1;
  gint dev = 0;
  g_autofree gchar *sync = NULL;

  g_assert_nonnull (plugin);
  g_assert_nonnull (conv);
  g_assert_nonnull (pre);
  for (guint i = 0; i < 2; i++) {
    GstElement *e = i ? pre : conv;

    check_pspec (e, "cuda-device-id", G_TYPE_INT, rw);
    check_pspec (e, "backend", G_TYPE_ENUM, rw);
    check_pspec (e, "use-graph", G_TYPE_BOOLEAN, rw);
    check_pspec (e, "sync-mode", G_TYPE_ENUM, rw);
    check_pspec (e, "captures", G_TYPE_UINT64, G_PARAM_READABLE);
    check_pspec (e, "replays", G_TYPE_UINT64, G_PARAM_READABLE);
    check_pspec (e, "eager-frames", G_TYPE_UINT64, G_PARAM_READABLE);
    check_pspec (e, "chains-built", G_TYPE_UINT64, G_PARAM_READABLE);
    check_pspec (e, "chain-cache-size", G_TYPE_UINT,
        rw | GST_PARAM_MUTABLE_PLAYING);
    check_pspec (e, "graph-cache-size", G_TYPE_UINT,
        rw | GST_PARAM_MUTABLE_PLAYING | G_PARAM_DEPRECATED);
    g_assert_false (
        g_object_class_find_property (G_OBJECT_GET_CLASS (e), "captures")->flags
        & G_PARAM_WRITABLE);
  }
  check_pspec (conv, "brightness", G_TYPE_DOUBLE, ctl);
  check_pspec (conv, "contrast", G_TYPE_DOUBLE, ctl);
  check_pspec (conv, "gamma", G_TYPE_DOUBLE, ctl);
  check_pspec (conv, "gain", G_TYPE_DOUBLE, ctl);
  check_pspec (conv, "crop-x", G_TYPE_UINT, ctl);
  /* One definition of the crop on every element (and batch pad). */
  check_pspec (pre, "crop-height", G_TYPE_UINT, ctl);
  check_pspec (conv, "pad-color", G_TYPE_UINT, ctl);
  check_pspec (conv, "method", G_TYPE_ENUM, rw);
  check_pspec (conv, "letterbox", G_TYPE_ENUM, rw);
  check_pspec (pre, "width", G_TYPE_UINT, rw);
  check_pspec (pre, "layout", G_TYPE_ENUM, rw);
  check_pspec (pre, "tensor-type", G_TYPE_ENUM, rw);
  check_pspec (pre, "channels", G_TYPE_ENUM, rw);
  check_pspec (pre, "mean", G_TYPE_STRING, rw);
  check_pspec (pre, "std", G_TYPE_STRING, rw);
  check_pspec (pre, "max-rois", G_TYPE_UINT, rw);
  check_pspec (pre, "roi-type", G_TYPE_STRING, rw);
  check_pspec (pre, "pad-value", G_TYPE_DOUBLE, ctl);
  g_object_get (conv, "captures", &captures, "cuda-device-id", &dev, NULL);
  g_assert_cmpuint (captures, ==, 0);
  g_assert_cmpint (dev, ==, -1);
  /* Least CPU by default; the driver's spin by name, as gst-launch sets it. */
  sync = enum_nick (conv, "sync-mode");
  g_assert_cmpstr (sync, ==, "poll");
  gst_util_set_object_arg (G_OBJECT (conv), "sync-mode", "driver");
  g_free (sync);
  sync = enum_nick (conv, "sync-mode");
  g_assert_cmpstr (sync, ==, "driver");
}

/* --- CUDA memory (caps only: no GPU here) ------------------------------- */

#define CUDA_FEATURE "memory:CUDAMemory"

/* Index of the first structure of @caps with (or without) the CUDA memory
 * feature, or -1. */
static gint
find_memory_kind (GstCaps *caps, gboolean cuda)
{
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    gboolean is_cuda = f && gst_caps_features_contains (f, CUDA_FEATURE);

    if (is_cuda == cuda)
      return (gint) i;
  }
  return -1;
}

static void
check_template (const gchar *factory, const gchar *pad, gboolean cuda)
{
  g_autoptr (GstElement) e = gst_element_factory_make (factory, NULL);
  g_autoptr (GstCaps) caps = NULL;

  g_assert_nonnull (e);
  caps = gst_pad_template_get_caps (gst_element_get_pad_template (e, pad));
  g_assert_cmpint (find_memory_kind (caps, FALSE), >=, 0);
  g_assert_cmpint (find_memory_kind (caps, TRUE) >= 0, ==, cuda);
}

static void
test_cuda_memory_templates (void)
{
#ifdef HAVE_GST_CUDA
  const gboolean built = TRUE;
#else
  const gboolean built = FALSE;

  /* Fails where the interop was expected; the templates are still
   * checked against what was built. */
  if (gcg_test_gst_cuda_expected ())
    gcg_test_no_gst_cuda ();
#endif

  check_template ("cudagraphconvert", "sink", built);
  check_template ("cudagraphconvert", "src", built);
  check_template ("cudagraphpreprocess", "sink", built);
  /* Tensors go out in system memory, or stay on the GPU. */
  check_template ("cudagraphpreprocess", "src", built);
}

#ifdef HAVE_GST_CUDA
static GstCaps *
transform_caps_filtered (GstElement *e, GstPadDirection direction,
    const gchar *str, const gchar *filter_str)
{
  g_autoptr (GstCaps) caps = gst_caps_from_string (str);
  g_autoptr (GstCaps) filter = filter_str ? gst_caps_from_string (filter_str)
                                          : NULL;

  return GST_BASE_TRANSFORM_GET_CLASS (e)->transform_caps (
      GST_BASE_TRANSFORM (e), direction, caps, filter);
}

static GstCaps *
transform_caps (GstElement *e, GstPadDirection direction, const gchar *str)
{
  return transform_caps_filtered (e, direction, str, NULL);
}
#endif

/* The same memory kind comes first, the other one is offered too. */
static void
test_cuda_memory_transform_caps (void)
{
#ifdef HAVE_GST_CUDA
  g_autoptr (GstElement)
      conv = gst_element_factory_make ("cudagraphconvert", NULL);
  g_autoptr (GstElement)
      pre = gst_element_factory_make ("cudagraphpreprocess", NULL);
  g_autoptr (GstCaps) from_cuda = transform_caps (conv, GST_PAD_SINK,
      "video/x-raw(" CUDA_FEATURE "),format=NV12,width=64,height=48");
  g_autoptr (GstCaps) from_sys = transform_caps (conv, GST_PAD_SINK,
      "video/x-raw,format=NV12,width=64,height=48");
  g_autoptr (GstCaps) to_pre = transform_caps (pre, GST_PAD_SRC,
      "other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,"
      "types=float32,framerate=30/1");
  g_autoptr (GstCaps) from_pre = transform_caps (pre, GST_PAD_SINK,
      "video/x-raw(" CUDA_FEATURE "),format=NV12,width=64,height=48");
  g_autoptr (GstCaps) from_pre_sys = transform_caps (pre, GST_PAD_SINK,
      "video/x-raw,format=NV12,width=64,height=48");

  g_assert_cmpint (find_memory_kind (from_cuda, TRUE), ==, 0);
  g_assert_cmpint (find_memory_kind (from_cuda, FALSE), >, 0);
  g_assert_cmpint (find_memory_kind (from_sys, FALSE), ==, 0);
  g_assert_cmpint (find_memory_kind (from_sys, TRUE), >, 0);
  g_autoptr (GstCaps) to_conv = transform_caps (conv, GST_PAD_SRC,
      "video/x-raw,format=RGBA,width=64,height=48");

  /* Upstream is asked for CUDA memory first while the CUDA backend may
   * run (read in place), whatever memory the output is in. */
  g_assert_cmpint (find_memory_kind (to_pre, TRUE), ==, 0);
  g_assert_cmpint (find_memory_kind (to_pre, FALSE), >, 0);
  g_assert_cmpint (find_memory_kind (to_conv, TRUE), ==, 0);
  g_assert_cmpint (find_memory_kind (to_conv, FALSE), >, 0);
  /* cudaupload asks with system memory first: our order still wins. */
  {
    g_autoptr (GstCaps) asked = transform_caps_filtered (pre, GST_PAD_SRC,
        "other/tensors,format=static,num_tensors=1,dimensions=3:64:64:1,"
        "types=float32,framerate=30/1",
        "video/x-raw,format=NV12,width=64,height=48; video/x-raw(" CUDA_FEATURE
        "),format=NV12,width=64,height=48");

    g_assert_cmpint (find_memory_kind (asked, TRUE), ==, 0);
    g_assert_cmpint (find_memory_kind (asked, FALSE), ==, 1);
  }
  /* Tensors: the input's memory kind first, the other one offered too. */
  g_assert_cmpint (find_memory_kind (from_pre, TRUE), ==, 0);
  g_assert_cmpint (find_memory_kind (from_pre, FALSE), >, 0);
  g_assert_cmpint (find_memory_kind (from_pre_sys, FALSE), ==, 0);
  g_assert_cmpint (find_memory_kind (from_pre_sys, TRUE), >, 0);

  /* Started on the CPU backend: CUDA memory is still taken in, never
   * offered out (the backend could not write it). */
  {
    g_autoptr (GstElement)
        cpu = gst_element_factory_make ("cudagraphconvert", NULL);
    g_autoptr (GstCaps) out = NULL;
    g_autoptr (GstCaps) in = NULL;

    gst_util_set_object_arg (G_OBJECT (cpu), "backend", "cpu");
    g_assert_cmpint (gst_element_set_state (cpu, GST_STATE_PAUSED), !=,
        GST_STATE_CHANGE_FAILURE);
    out = transform_caps (cpu, GST_PAD_SINK,
        "video/x-raw(" CUDA_FEATURE "),format=NV12,width=64,height=48");
    in = transform_caps (cpu, GST_PAD_SRC,
        "video/x-raw,format=NV12,width=64,height=48");
    g_assert_cmpint (find_memory_kind (out, TRUE), ==, -1);
    g_assert_cmpint (find_memory_kind (out, FALSE), >=, 0);
    g_assert_cmpint (find_memory_kind (in, TRUE), >, 0);
    g_assert_cmpint (find_memory_kind (in, FALSE), ==, 0);
    g_assert_cmpint (gst_element_set_state (cpu, GST_STATE_NULL), ==,
        GST_STATE_CHANGE_SUCCESS);
  }
#else
  gcg_test_no_gst_cuda ();
#endif
}

/* Buffers under CUDA memory caps that are not GstCudaMemory (or that the
 * CPU backend meets) are read through a host map: CUDA memory in, system
 * memory out gives the same bytes as system memory throughout. */
static void
test_cuda_memory_caps_host_path (void)
{
#ifdef HAVE_GST_CUDA
  const gchar *sys = "video/x-raw,format=RGBA,width=8,height=8";
  const gchar *cuda = "video/x-raw(" CUDA_FEATURE "),format=RGBA,width=8,"
                      "height=8";
  const gchar *out_caps = "video/x-raw,format=RGBA,width=4,height=4";
  GstVideoInfo info;
  g_autoptr (GstBuffer) a = convert_one (CONVERT, sys, out_caps,
      gcg_test_frame_new (sys, pattern_px, NULL, 0), &info);
  g_autoptr (GstBuffer) b = convert_one (CONVERT, cuda, out_caps,
      gcg_test_frame_new (sys, pattern_px, NULL, 0), &info);

  GstMapInfo m;

  g_assert_cmpuint (gst_buffer_get_size (a), ==, gst_buffer_get_size (b));
  g_assert_true (gst_buffer_map (a, &m, GST_MAP_READ));
  g_assert_cmpint (gst_buffer_memcmp (b, 0, m.data, m.size), ==, 0);
  gst_buffer_unmap (a, &m);
#else
  gcg_test_no_gst_cuda ();
#endif
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gst/convert/identity-rgba", test_identity_rgba);
  g_test_add_func ("/gst/convert/nv12-to-rgba", test_nv12_to_rgba);
  g_test_add_func ("/gst/convert/rgb-bgr", test_rgb_bgr);
  g_test_add_func ("/gst/convert/crop-property", test_crop_property);
  g_test_add_func ("/gst/convert/crop-meta", test_crop_meta);
  g_test_add_func ("/gst/convert/crop-far-outside", test_crop_far_outside);
  g_test_add_func ("/gst/convert/crop-outside-warns", test_crop_outside_warns);
  g_test_add_func ("/gst/convert/yuv-keeps-colorimetry",
      test_yuv_keeps_colorimetry);
  g_test_add_func ("/gst/convert/resize", test_resize);
  g_test_add_func ("/gst/convert/letterbox", test_letterbox);
  g_test_add_func ("/gst/convert/brightness", test_brightness);
  g_test_add_func ("/gst/convert/params-meta", test_params_meta);
  g_test_add_func ("/gst/convert/controller", test_controller);
  g_test_add_func ("/gst/convert/nan-refused", test_nan_refused);
  g_test_add_func ("/gst/convert/caps-change", test_caps_change);
  g_test_add_func ("/gst/convert/chain-cache", test_chain_cache);
  g_test_add_func ("/gst/convert/graph-cache-size-deprecated",
      test_graph_cache_size_deprecated);
  g_test_add_func ("/gst/convert/stats-request", test_stats_request);
  g_test_add_func ("/gst/errors/video-meta-past-buffer",
      test_video_meta_past_buffer);
  g_test_add_func ("/gst/convert/passthrough", test_passthrough);
  g_test_add_func ("/gst/preprocess/caps", test_preprocess_caps);
  g_test_add_func ("/gst/preprocess/values", test_preprocess_values);
  g_test_add_func ("/gst/preprocess/rois", test_preprocess_rois);
  g_test_add_func ("/gst/preprocess/mean-std-refused", test_mean_std_refused);
  g_test_add_func ("/gst/preprocess/roi-type-unused", test_roi_type_unused);
  g_test_add_func ("/gst/errors/tensor-too-large", test_tensor_too_large);
  g_test_add_func ("/gst/errors/output-allocation-fails",
      test_output_allocation_fails);
  g_test_add_func ("/gst/errors/cuda-without-driver", test_cuda_without_driver);
  g_test_add_func ("/gst/errors/auto-falls-back", test_auto_falls_back);
  g_test_add_func ("/gst/plugin/registration", test_registration);
  g_test_add_func ("/gst/cuda-memory/templates", test_cuda_memory_templates);
  g_test_add_func ("/gst/cuda-memory/transform-caps",
      test_cuda_memory_transform_caps);
  g_test_add_func ("/gst/cuda-memory/caps-host-path",
      test_cuda_memory_caps_host_path);
  return g_test_run ();
}
