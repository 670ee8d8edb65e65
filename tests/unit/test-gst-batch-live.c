/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Two live cameras into cudagraphbatch (CPU backend, issue 22): a
 * videotestsrc is-live at 30 fps and one at 10 fps, 3 s of each, in real
 * time.  Each stream must come out at its own rate (the 30 fps stream was
 * held to about 10 items per second) and the frames of one batch within
 * one batch window of each other in running time (they drifted up to 2 s
 * apart).  Rates are counted in running time (frames over the span of
 * their timestamps), not wall time, so a slow machine only shows as
 * frames dropped late, which the tolerance allows for.  The figures are
 * printed as test messages.
 *
 * And a launch line as a user writes one, with request pads' properties
 * (`sink_0::batch-strategy=...`, which failed on GStreamer 1.22: "no
 * property").
 *
 * Needs videotestsrc and fakesink (the system's plugins, loaded from the
 * folder tests/meson.build names in GCG_TEST_SYSTEM_PLUGINS_DIR): skipped
 * without.
 */
#include "gcg-gst-test-util.h"
#include "common/gcg-test-watchdog.h"
#include "gstcudagraphbatchmeta.h"

#include <stdio.h>

#define SECONDS 3
#define N_STREAMS 2

static const guint fps[N_STREAMS] = { 30, 10 };

typedef struct
{
  guint batches;
  guint frames[N_STREAMS];
  GstClockTime first[N_STREAMS], last[N_STREAMS];
  GstClockTime max_spread, window;
  guint64 dropped;
} Figures;

static void
count_batch (Figures *fig, GstCudaGraphBatchMeta *bm)
{
  GstClockTime lo = GST_CLOCK_TIME_NONE, hi = 0;

  fig->batches++;
  fig->window = bm->window_duration;
  for (guint i = 0; i < bm->n_frames; i++) {
    GstClockTime rt = bm->sources[i].running_time;
    guint s;

    g_assert_true (sscanf (bm->sources[i].pad_name, "sink_%u", &s) == 1);
    g_assert_cmpuint (s, <, N_STREAMS);
    g_assert_true (GST_CLOCK_TIME_IS_VALID (rt));
    if (fig->frames[s]++ == 0)
      fig->first[s] = rt;
    fig->last[s] = rt;
    lo = MIN (lo, rt);
    hi = MAX (hi, rt);
  }
  if (bm->n_frames > 0)
    fig->max_spread = MAX (fig->max_spread, hi - lo);
}

static GstPadProbeReturn
on_batch (GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  GstCudaGraphBatchMeta *bm =
      gst_cuda_graph_buffer_get_batch_meta (GST_PAD_PROBE_INFO_BUFFER (info));

  g_assert_nonnull (bm);
  count_batch (user_data, bm);
  return GST_PAD_PROBE_OK;
}

/* Plays @pipe until its EOS (an error fails the test). */
static void
play_to_eos (GstElement *pipe)
{
  g_autoptr (GstBus) bus = gst_element_get_bus (pipe);
  g_autoptr (GstMessage) msg = NULL;

  g_assert_cmpint (gst_element_set_state (pipe, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_EOS);
}

static void
run_cameras (Figures *fig, GstClockTime duration)
{
  g_autofree gchar *desc = g_strdup_printf (
      "cudagraphbatch name=b "
      "backend=cpu width=24 height=20 batch-size=%u timeout=%" G_GUINT64_FORMAT
      " batch-duration=%" G_GUINT64_FORMAT " ! fakesink sync=false "
      "videotestsrc is-live=true num-buffers=%u ! "
      "video/x-raw,format=RGBA,width=64,height=48,framerate=%u/1 ! b.sink_0 "
      "videotestsrc is-live=true num-buffers=%u pattern=ball ! "
      "video/x-raw,format=NV12,width=64,height=48,framerate=%u/1 ! b.sink_1",
      duration ? 4 : 2, (guint64) (100 * GST_MSECOND), duration,
      SECONDS * fps[0], fps[0], SECONDS * fps[1], fps[1]);
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) pipe = gst_parse_launch (desc, &error);
  g_autoptr (GstElement) batch = NULL;
  g_autoptr (GstPad) src = NULL;

  g_assert_no_error (error);
  batch = gst_bin_get_by_name (GST_BIN (pipe), "b");
  src = gst_element_get_static_pad (batch, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, on_batch, fig, NULL);
  play_to_eos (pipe);
  g_object_get (batch, "dropped-late", &fig->dropped, NULL);
  gst_element_set_state (pipe, GST_STATE_NULL);
}

/* @data: batch-duration in ms (0: one frame long, 1/30 s). */
static void
test_two_cameras (gconstpointer data)
{
  GstClockTime duration = GPOINTER_TO_UINT (data) * GST_MSECOND;
  Figures fig = { 0 };

  if (!gcg_test_have_system_plugins ()) {
    g_test_skip ("no videotestsrc or fakesink");
    return;
  }
  gcg_test_watchdog_arm (60, "the two live cameras");
  run_cameras (&fig, duration);
  gcg_test_watchdog_disarm ();
  g_test_message ("%u batches in %u s, window %" GST_TIME_FORMAT
                  ", %" G_GUINT64_FORMAT " frames dropped late",
      fig.batches, SECONDS, GST_TIME_ARGS (fig.window), fig.dropped);
  for (guint s = 0; s < N_STREAMS; s++) {
    gdouble span, rate;

    g_assert_cmpuint (fig.frames[s], >, 1);
    span = (fig.last[s] - fig.first[s]) / (gdouble) GST_SECOND;
    rate = (fig.frames[s] - 1) / span;
    g_test_message ("sink_%u (%u fps): %u items, %.2f items/s of running "
                    "time",
        s, fps[s], fig.frames[s], rate);
    /* Its own rate, less what a loaded machine may drop late. */
    g_assert_cmpfloat (rate, >=, fps[s] * 0.8);
    g_assert_cmpfloat (rate, <=, fps[s] * 1.05);
  }
  g_test_message (
      "largest spread of running times in one batch: %" GST_TIME_FORMAT,
      GST_TIME_ARGS (fig.max_spread));
  g_assert_cmpuint (fig.max_spread, <, fig.window);
}

/* The launch line of docs/cudagraphbatch.md's per-pad properties: each
 * property reaches its request pad, which the link after it requests, and
 * the pipeline runs to EOS. */
static void
test_launch_pad_props (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) pipe = NULL;
  g_autoptr (GstElement) batch = NULL;
  g_autoptr (GstPad) p0 = NULL;
  g_autoptr (GstPad) p1 = NULL;
  gint crop_x = 0, crop_w = 0, strategy = -1;
  guint64 batches = 0;

  if (!gcg_test_have_system_plugins ()) {
    g_test_skip ("no videotestsrc or fakesink");
    return;
  }
  gcg_test_watchdog_arm (60, "the launch line");
  pipe = gst_parse_launch (
      "cudagraphbatch name=b backend=cpu width=24 height=20 "
      "sink_0::batch-strategy=last-in-batch sink_0::crop-x=8 "
      "sink_1::crop-width=16 ! fakesink "
      "videotestsrc num-buffers=3 ! "
      "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1 ! b.sink_0 "
      "videotestsrc num-buffers=3 ! "
      "video/x-raw,format=NV12,width=64,height=48,framerate=30/1 ! b.sink_1",
      &error);
  g_assert_no_error (error);
  batch = gst_bin_get_by_name (GST_BIN (pipe), "b");
  p0 = gst_element_get_static_pad (batch, "sink_0");
  p1 = gst_element_get_static_pad (batch, "sink_1");
  g_assert_nonnull (p0);
  g_assert_nonnull (p1);
  g_object_get (p0, "batch-strategy", &strategy, "crop-x", &crop_x, NULL);
  g_object_get (p1, "crop-width", &crop_w, NULL);
  g_assert_cmpint (strategy, ==,
      gcg_test_enum_value (p0, "batch-strategy", "last-in-batch"));
  g_assert_cmpint (crop_x, ==, 8);
  g_assert_cmpint (crop_w, ==, 16);
  play_to_eos (pipe);
  g_object_get (batch, "batches", &batches, NULL);
  g_assert_cmpuint (batches, ==, 3);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gcg_test_watchdog_disarm ();
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  gcg_test_load_system_plugins ();
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_data_func ("/batch-live/two-cameras/frame-window",
      GUINT_TO_POINTER (0), test_two_cameras);
  /* Windows of 100 ms: three frames of the fast camera per batch. */
  g_test_add_data_func ("/batch-live/two-cameras/batch-duration-100ms",
      GUINT_TO_POINTER (100), test_two_cameras);
  g_test_add_func ("/batch-live/launch-pad-props", test_launch_pad_props);
  return g_test_run ();
}
