/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Our results are what GStreamer's own analytics elements read (issue
 * 35): a black frame whose buffer carries gst_cuda_graph_buffer_add_results()
 * with one detection goes through objectdetectionoverlay (gst-plugins-bad
 * 1.24 and newer), which draws the box: pixels along the box's left edge
 * turn bright, the frame's far corner and the box's centre stay black.
 * The results are added on the overlay's sink pad (a probe), so no
 * element before it has a chance to drop the meta.
 *
 * Exit status 77 (a skip) built without gstreamer-analytics-1.0 >= 1.24
 * or where objectdetectionoverlay is not installed; CI's Debian 13 and 14
 * lanes run it.
 */
#include <gst/gst.h>

#include "gstcudagraphresultsmeta.h"

#ifndef HAVE_GST_ANALYTICS_RELATION

int
main (void)
{
  g_print ("built without gstreamer-analytics-1.0 >= 1.24: skipped\n");
  return 77;
}

#else
#include <gst/app/app.h>
#include <gst/video/video.h>

#define W 320
#define H 240
#define BOX_X 40
#define BOX_Y 60
#define BOX_W 120
#define BOX_H 100

static GstPadProbeReturn
add_results (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  GstBuffer *buf = gst_buffer_make_writable (GST_PAD_PROBE_INFO_BUFFER (info));
  const GcgResult det = { BOX_X, BOX_Y, BOX_W, BOX_H, 0.9f, 0, 0, 0 };
  const GstCudaGraphResultsItem item = { -1, 0, 0, 0, W, H };
  GQuark label = g_quark_from_static_string ("box");

  gst_cuda_graph_buffer_add_results (buf, GCG_POSTPROCESS_DETECT, &det, 1,
      &label, 1, &item, 1);
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

/* The brightest channel of pixel (@x, @y) of an RGBA frame. */
static guint
level (const GstVideoFrame *f, gint x, gint y)
{
  const guint8 *p = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (f, 0)
      + y * GST_VIDEO_FRAME_PLANE_STRIDE (f, 0) + x * 4;

  return MAX (p[0], MAX (p[1], p[2]));
}

static void
test_overlay_draws_box (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) pipeline = gst_parse_launch (
      "videotestsrc "
      "num-buffers=1 pattern=black ! video/x-raw,width=320,height=240 ! "
      "videoconvert ! objectdetectionoverlay name=overlay ! videoconvert ! "
      "video/x-raw,format=RGBA ! appsink name=sink",
      &error);
  g_autoptr (GstElement) overlay = NULL;
  g_autoptr (GstElement) sink = NULL;
  g_autoptr (GstPad) pad = NULL;
  g_autoptr (GstSample) sample = NULL;
  GstVideoInfo info;
  GstVideoFrame frame;
  guint edge = 0;

  g_assert_no_error (error);
  overlay = gst_bin_get_by_name (GST_BIN (pipeline), "overlay");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (overlay, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, add_results, NULL, NULL);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 10 * GST_SECOND);
  g_assert_nonnull (sample);
  g_assert_true (gst_video_info_from_caps (&info,
      gst_sample_get_caps (sample)));
  g_assert_true (gst_video_frame_map (&frame, &info,
      gst_sample_get_buffer (sample), GST_MAP_READ));
  /* The outline: some pixel within two of the left edge, halfway down. */
  for (gint x = BOX_X - 2; x <= BOX_X + 2; x++)
    edge = MAX (edge, level (&frame, x, BOX_Y + BOX_H / 2));
  g_assert_cmpuint (edge, >, 64);
  g_assert_cmpuint (level (&frame, BOX_X + BOX_W / 2, BOX_Y + BOX_H / 2), <,
      16);
  g_assert_cmpuint (level (&frame, W - 1, H - 1), <, 16);
  gst_video_frame_unmap (&frame);
  gst_element_set_state (pipeline, GST_STATE_NULL);
}

int
main (int argc, char **argv)
{
  g_autoptr (GstElementFactory) factory = NULL;

  gst_init (&argc, &argv);
  factory = gst_element_factory_find ("objectdetectionoverlay");
  if (factory == NULL) {
    g_print ("no objectdetectionoverlay (gst-plugins-bad >= 1.24): "
             "skipped\n");
    return 77;
  }
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/results-overlay/draws-box", test_overlay_draws_box);
  return g_test_run ();
}
#endif
