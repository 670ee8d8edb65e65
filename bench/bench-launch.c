/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst-launch with a stopwatch: runs a pipeline description and times the
 * frames that reach its sink after a warm-up, wall clock and the whole
 * process's CPU time (user + system, getrusage):
 *
 *   bench-launch [--warmup=200] [--frames=3000] "videotestsrc
 *       num-buffers=3200 ! ... ! fakesink sync=false"
 *
 * The source must make at least warmup + frames buffers.  It prints one
 * line, "frames=N fps=F cpu_us=C caps=...", the caps being those of the
 * sink's pad (to check that two pipelines made the same output), and
 * "stats=..." with the last cudagraph-stats message when one of our
 * elements posted one.
 *
 * It links GStreamer's core only, so that a build made against one
 * GStreamer runs against another (bench/peer-gst126.sh runs it on
 * Debian 13's GStreamer 1.26 to time nvcodec's cudaconvertscale beside
 * cudagraphconvert).  No GPU of its own: it skips nothing.
 */
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

typedef struct
{
  guint64 warmup;
  guint64 frames;
  guint64 seen;                 /* buffers that reached the sink */
  gint64 t0_us, t1_us;          /* monotonic, at warmup and warmup + frames */
  gint64 cpu0_us, cpu1_us;      /* user + system then */
  GstCaps *caps;                /* the sink pad's, at the last timed frame */
  GstStructure *stats;          /* the last "cudagraph-stats" message */
} Stopwatch;

/* The process's CPU time (every thread), in µs. */
static gint64
cpu_us (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ((gint64) ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000
      + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

/* Runs in the sink's streaming thread, once per buffer (buffer lists
 * count each buffer). */
static GstPadProbeReturn
count_frame (GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  Stopwatch *sw = user_data;
  guint n = 1;

  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER_LIST)
    n = gst_buffer_list_length (GST_PAD_PROBE_INFO_BUFFER_LIST (info));
  for (guint i = 0; i < n; i++) {
    sw->seen++;
    if (sw->seen == sw->warmup) {
      sw->cpu0_us = cpu_us ();
      sw->t0_us = g_get_monotonic_time ();
    } else if (sw->seen == sw->warmup + sw->frames) {
      sw->t1_us = g_get_monotonic_time ();
      sw->cpu1_us = cpu_us ();
      sw->caps = gst_pad_get_current_caps (pad);
    }
  }
  return GST_PAD_PROBE_OK;
}

/* The pipeline's one sink's sink pad (a reference), or NULL. */
static GstPad *
find_sink_pad (GstElement *pipeline)
{
  g_autoptr (GstIterator) it = NULL;
  GValue item = G_VALUE_INIT;
  GstPad *pad = NULL;

  if (!GST_IS_BIN (pipeline))
    return NULL;
  it = gst_bin_iterate_sinks (GST_BIN (pipeline));
  if (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    pad = gst_element_get_static_pad (g_value_get_object (&item), "sink");
    g_value_unset (&item);
  }
  return pad;
}

/* Plays until EOS or an error, keeping the last cudagraph-stats an
 * element of ours posted; FALSE on an error. */
static gboolean
play (GstElement *pipeline, Stopwatch *sw)
{
  g_autoptr (GstBus) bus = gst_element_get_bus (pipeline);
  gboolean ok = TRUE, done = FALSE;

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      == GST_STATE_CHANGE_FAILURE) {
    fprintf (stderr, "bench-launch: the pipeline does not start\n");
    ok = FALSE;
    done = TRUE;
  }
  while (!done) {
    g_autoptr (GstMessage)
        msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
            GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT);
    const GstStructure *s = gst_message_get_structure (msg);
    g_autoptr (GError) error = NULL;
    g_autofree gchar *debug = NULL;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT) {
      if (s && gst_structure_has_name (s, "cudagraph-stats")) {
        g_clear_pointer (&sw->stats, gst_structure_free);
        sw->stats = gst_structure_copy (s);
      }
      continue;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &error, &debug);
      fprintf (stderr, "bench-launch: %s (%s)\n", error->message,
          debug ? debug : "");
      ok = FALSE;
    }
    done = TRUE;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  return ok;
}

static void
report (const Stopwatch *sw)
{
  g_autofree gchar *caps_str = sw->caps ? gst_caps_to_string (sw->caps) : NULL;
  gdouble s = (sw->t1_us - sw->t0_us) / 1e6;

  printf ("frames=%" G_GUINT64_FORMAT " fps=%.1f cpu_us=%.2f caps=%s\n",
      sw->frames, s > 0 ? sw->frames / s : 0.0,
      (gdouble) (sw->cpu1_us - sw->cpu0_us) / sw->frames,
      caps_str ? caps_str : "(none)");
  if (sw->stats) {
    g_autofree gchar *stats_str = gst_structure_to_string (sw->stats);

    printf ("stats=%s\n", stats_str);
  }
}

static void
stopwatch_clear (Stopwatch *sw)
{
  gst_clear_caps (&sw->caps);
  g_clear_pointer (&sw->stats, gst_structure_free);
}

int
main (int argc, char **argv)
{
  gint warmup = 200, frames = 3000;
  GOptionEntry entries[] = {
    { "warmup", 0, 0, G_OPTION_ARG_INT, &warmup,
        "Untimed frames at the sink first (at least 1)", "N" },
    { "frames", 0, 0, G_OPTION_ARG_INT, &frames, "Timed frames", "N" }, { NULL }
  };
  g_autoptr (GOptionContext) options = g_option_context_new ("PIPELINE");
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) pipeline = NULL;
  g_autoptr (GstPad) pad = NULL;
  g_autofree gchar *desc = NULL;
  Stopwatch sw = { 0 };

  g_option_context_add_main_entries (options, entries, NULL);
  g_option_context_add_group (options, gst_init_get_option_group ());
  if (!g_option_context_parse (options, &argc, &argv, &error) || warmup < 1
      || frames < 1 || argc < 2) {
    fprintf (stderr, "bench-launch: %s\n",
        error ? error->message
              : "usage: bench-launch [--warmup=N] [--frames=N] PIPELINE "
                "(N ≥ 1)");
    return 2;
  }
  desc = g_strjoinv (" ", argv + 1);
  pipeline = gst_parse_launch (desc, &error);
  if (pipeline == NULL || error) {
    fprintf (stderr, "bench-launch: %s\n",
        error ? error->message : "no pipeline");
    return 1;
  }
  pad = find_sink_pad (pipeline);
  if (pad == NULL) {
    fprintf (stderr,
        "bench-launch: the pipeline has no sink with a "
        "\"sink\" pad\n");
    return 1;
  }
  sw.warmup = warmup;
  sw.frames = frames;
  gst_pad_add_probe (pad,
      GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST, count_frame,
      &sw, NULL);
  if (!play (pipeline, &sw)) {
    stopwatch_clear (&sw);
    return 1;
  }
  if (sw.seen < sw.warmup + sw.frames) {
    fprintf (stderr,
        "bench-launch: %" G_GUINT64_FORMAT " frames reached the sink, "
        "fewer than warm-up + frames (%" G_GUINT64_FORMAT ")\n",
        sw.seen, sw.warmup + sw.frames);
    stopwatch_clear (&sw);
    return 1;
  }
  report (&sw);
  stopwatch_clear (&sw);
  return 0;
}
