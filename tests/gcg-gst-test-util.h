/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers shared by the element tests: frames made from caps strings,
 * filled per pixel, and one-frame runs through a GstHarness.  Only the
 * harness's own pads are used, so no other plugin is needed.
 */
#pragma once

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

typedef void (*GcgTestPixelFunc) (guint x, guint y, guint8 *px,
    gpointer user_data);

static inline GstVideoInfo
gcg_test_info (const gchar *caps_str)
{
  g_autoptr (GstCaps) caps = gst_caps_from_string (caps_str);
  GstVideoInfo info;

  g_assert_nonnull (caps);
  g_assert_true (gst_video_info_from_caps (&info, caps));
  return info;
}

/* A frame of @caps_str whose packed pixels (or luma plane) come from
 * @func; the other planes of YUV formats are set to @chroma. */
static inline GstBuffer *
gcg_test_frame_new (const gchar *caps_str, GcgTestPixelFunc func,
    gpointer user_data, guint8 chroma)
{
  GstVideoInfo info = gcg_test_info (caps_str);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info.size, NULL);
  GstVideoFrame frame;
  guint pstride, x, y, p;

  g_assert_true (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0);
  for (y = 0; y < (guint) info.height; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (x = 0; x < (guint) info.width; x++)
      func (x, y, row + x * pstride, user_data);
  }
  for (p = 1; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++)
    memset (GST_VIDEO_FRAME_PLANE_DATA (&frame, p), chroma,
        GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p)
            * GST_VIDEO_FRAME_COMP_HEIGHT (&frame, p));
  gst_video_frame_unmap (&frame);
  GST_BUFFER_PTS (buf) = 0;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

/* Every pixel the same bytes (up to 4). */
static inline void
gcg_test_solid_px (guint x, guint y, guint8 *px, gpointer user_data)
{
  const guint8 *v = user_data;

  memcpy (px, v + 1, v[0]);
}

static inline GstBuffer *
gcg_test_solid_new (const gchar *caps_str, const guint8 *bytes, guint n,
    guint8 chroma)
{
  guint8 v[5] = { (guint8) n };

  memcpy (v + 1, bytes, n);
  return gcg_test_frame_new (caps_str, gcg_test_solid_px, v, chroma);
}

/* Pixel at (x, y) of a packed frame or of plane 0. */
static inline const guint8 *
gcg_test_pixel (GstVideoFrame *frame, guint x, guint y)
{
  return (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame, 0)
      + y * GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0)
      + x * GST_VIDEO_FRAME_COMP_PSTRIDE (frame, 0);
}

/* A moving pattern (frame @user_data as an integer), so every frame
 * differs. */
static inline void
gcg_test_moving_px (guint x, guint y, guint8 *px, gpointer user_data)
{
  guint t = GPOINTER_TO_UINT (user_data);

  px[0] = (x * 7 + t * 13) & 0xff;
  px[1] = (y * 5 + x * 3 + t) & 0xff;
  px[2] = (x * y + t * 29) & 0xff;
  px[3] = 200;
}

/* Both buffers hold the same bytes, all of them. */
static inline void
gcg_test_assert_same_bytes (GstBuffer *a, GstBuffer *b)
{
  GstMapInfo ma, mb;

  g_assert_true (gst_buffer_map (a, &ma, GST_MAP_READ));
  g_assert_true (gst_buffer_map (b, &mb, GST_MAP_READ));
  g_assert_cmpmem (ma.data, ma.size, mb.data, mb.size);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
}

/* The value of @nick of @object's enum property @name. */
static inline gint
gcg_test_enum_value (gpointer object, const gchar *name, const gchar *nick)
{
  GParamSpec *pspec =
      g_object_class_find_property (G_OBJECT_GET_CLASS (object), name);
  GEnumValue *v;

  g_assert_true (G_IS_PARAM_SPEC_ENUM (pspec));
  v = g_enum_get_value_by_nick (G_PARAM_SPEC_ENUM (pspec)->enum_class, nick);
  g_assert_nonnull (v);
  return v->value;
}

/* Sets @element to PAUSED on a bus of its own and back to NULL; the
 * message of the error it posted when that failed, or NULL when the
 * change worked. */
static inline gchar *
gcg_test_start_error (GstElement *element)
{
  g_autoptr (GstBus) bus = gst_bus_new ();
  gchar *text = NULL;

  gst_element_set_bus (element, bus);
  if (gst_element_set_state (element, GST_STATE_PAUSED)
      == GST_STATE_CHANGE_FAILURE) {
    g_autoptr (GstMessage) msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    GError *error = NULL;

    g_assert_nonnull (msg);
    gst_message_parse_error (msg, &error, NULL);
    text = g_strdup (error->message);
    g_error_free (error);
  }
  gst_element_set_state (element, GST_STATE_NULL);
  gst_element_set_bus (element, NULL);
  return text;
}

/* A harness around @launch (an element description) whose sink accepts
 * @out_caps (NULL: anything), fed @in_caps. */
static inline GstHarness *
gcg_test_harness_new (const gchar *launch, const gchar *in_caps,
    const gchar *out_caps)
{
  GstHarness *h = gst_harness_new_parse (launch);

  gst_harness_set_src_caps_str (h, in_caps);
  if (out_caps)
    gst_harness_set_sink_caps_str (h, out_caps);
  return h;
}

/* Pushes @in (taking it) and returns the output buffer. */
static inline GstBuffer *
gcg_test_push_pull (GstHarness *h, GstBuffer *in)
{
  GstBuffer *out;

  g_assert_cmpint (gst_harness_push (h, in), ==, GST_FLOW_OK);
  out = gst_harness_try_pull (h);
  g_assert_nonnull (out);
  return out;
}

static inline guint64
gcg_test_get_u64 (GstHarness *h, const gchar *factory, const gchar *prop)
{
  g_autoptr (GstElement) e = gst_harness_find_element (h, factory);
  guint64 v = 0;

  g_object_get (e, prop, &v, NULL);
  return v;
}

/* On a GPU host with the runtime bundle (tools/gpu-host-run.sh) the stock
 * plugins are in GST_PLUGIN_SYSTEM_PATH, which the test environment's empty
 * GST_PLUGIN_SYSTEM_PATH_1_0 would hide: add it to the plugin path.  Call
 * before gcg_test_gst_init(). */
static inline void
gcg_test_add_bundle_plugins (void)
{
  const gchar *sys = g_getenv ("GST_PLUGIN_SYSTEM_PATH");
  const gchar *path = g_getenv ("GST_PLUGIN_PATH_1_0");
  g_autofree gchar *both = NULL;

  if (sys == NULL || *sys == '\0')
    return;
  both = g_strjoin (G_SEARCHPATH_SEPARATOR_S, path ? path : "", sys, NULL);
  g_setenv ("GST_PLUGIN_PATH_1_0", both, TRUE);
}

/* The system's videotestsrc and core elements (fakesink, capsfilter),
 * loaded by file from the folder tests/meson.build names in
 * GCG_TEST_SYSTEM_PLUGINS_DIR (the whole folder's other plugins'
 * one-time allocations would read as leaks under ASan); nothing without
 * it.  Call after gcg_test_gst_init(). */
static inline void
gcg_test_load_system_plugins (void)
{
  const gchar *dir = g_getenv ("GCG_TEST_SYSTEM_PLUGINS_DIR");
  const gchar *files[] = { "libgstvideotestsrc.so", "libgstcoreelements.so" };

  for (guint i = 0; dir != NULL && i < G_N_ELEMENTS (files); i++) {
    g_autofree gchar *path = g_build_filename (dir, files[i], NULL);
    GstPlugin *plugin = gst_plugin_load_file (path, NULL);

    if (plugin != NULL)
      gst_object_unref (plugin);
  }
}

/* Whether launch lines of videotestsrc and fakesink can run. */
static inline gboolean
gcg_test_have_system_plugins (void)
{
  const gchar *needed[] = { "videotestsrc", "fakesink" };

  for (guint i = 0; i < G_N_ELEMENTS (needed); i++) {
    g_autoptr (GstElementFactory) f = gst_element_factory_find (needed[i]);

    if (f == NULL)
      return FALSE;
  }
  return TRUE;
}

/* Points the registry at a fresh file and scans in-process, so that every
 * test program sees the plugin just built. */
static inline void
gcg_test_gst_init (int *argc, char ***argv)
{
  g_autofree gchar *reg = g_strdup_printf ("%s/gcg-test-registry-%d.bin",
      g_get_tmp_dir (), (int) getpid ());

  g_setenv ("GST_REGISTRY", reg, TRUE);
  g_setenv ("GST_REGISTRY_FORK", "no", TRUE);
  g_setenv ("GST_REGISTRY_UPDATE", "yes", TRUE);
  gst_init (argc, argv);
  g_unlink (reg);
}
