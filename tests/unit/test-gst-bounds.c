/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Bounds that a launch line cannot get past (issue 37): gst_parse_launch()
 * pipelines with videotestsrc in front, CPU backend, the bus read as an
 * application reads it.
 *
 * - cudagraphbatch's window: with batch-duration at its maximum (one
 *   hour), the frames the element keeps alive stay within what its queues,
 *   its windows (queue-depth frames per stream) and its batches in flight
 *   hold.  They are counted as buffers alive, not as memory: every frame
 *   that enters a sink pad is a copy of its own whose finalization is
 *   counted.  The launch line kept every frame until EOS (483 MB
 *   at 640x480).
 * - batch-duration and timeout past their range (2^64 - 2) are refused
 *   where the launch line sets them: the element keeps its defaults and
 *   batches as with them, no frame dropped as late (the sums that wrapped
 *   dropped 173 of 180 as late, the collector spinning).  At the maximum,
 *   with live sources, no frame is late and the collector does not spin.
 * - One failed negotiation, one ERROR of ours, however often upstream
 *   sends its caps again; the pipeline ends and stops (the launch
 *   line posted eight; it runs 200 times here), and the same through
 *   cudagraphbatch, which negotiates on its own thread, and
 *   cudagraphconvert (whose refusal was only logged).
 * - Every writable integer property of the elements and of
 *   cudagraphbatch's sink pads (times, sizes, counts) is bounded, and its
 *   blurb says to what.
 *
 * Needs videotestsrc and fakesink (the system's plugins, loaded by file
 * from GCG_TEST_SYSTEM_PLUGINS_DIR): those tests skip without.
 */
#include "gcg-gst-test-util.h"
#include "common/gcg-test-messages.h"
#include "common/gcg-test-watchdog.h"

#include <sys/resource.h>

/* --- running a launch line ------------------------------------------------ */

/* What a pipeline posted and how it ended. */
typedef struct
{
  GcgTestMessages m;
  gboolean eos, ended;
  /* CPU time the process took while the pipeline played, over the wall
   * time it played. */
  gdouble cpu_share;
} Outcome;

static void
outcome_clear (Outcome *o)
{
  gcg_test_messages_clear (&o->m);
  memset (o, 0, sizeof (*o));
}

static gint64
cpu_us (void)
{
  struct rusage ru;

  g_assert_cmpint (getrusage (RUSAGE_SELF, &ru), ==, 0);
  return (gint64) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * G_USEC_PER_SEC
      + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

/* Plays @pipe until EOS or its first ERROR (at most @seconds), then stops
 * it: NULL must be reached at once (its streaming threads joined), and
 * what was posted until then is read. */
static void
run_pipeline (GstElement *pipe, guint seconds, Outcome *o)
{
  g_autoptr (GstBus) bus = gst_element_get_bus (pipe);
  GstMessageType types = GST_MESSAGE_EOS | GST_MESSAGE_ERROR
      | GST_MESSAGE_WARNING;
  gint64 wall0, cpu0;
  GstMessage *msg;

  memset (o, 0, sizeof (*o));
  /* What is posted while it stops stays on the bus. */
  gst_pipeline_set_auto_flush_bus (GST_PIPELINE (pipe), FALSE);
  wall0 = g_get_monotonic_time ();
  cpu0 = cpu_us ();
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop_filtered (bus, seconds * GST_SECOND, types))
      != NULL) {
    GstMessageType type = GST_MESSAGE_TYPE (msg);

    gcg_test_messages_keep (&o->m, msg);
    gst_message_unref (msg);
    if (type != GST_MESSAGE_WARNING) {
      o->eos = type == GST_MESSAGE_EOS;
      o->ended = TRUE;
      break;
    }
  }
  o->cpu_share =
      (gdouble) (cpu_us () - cpu0) / MAX (g_get_monotonic_time () - wall0, 1);
  g_assert_cmpint (gst_element_set_state (pipe, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  while ((msg = gst_bus_pop_filtered (bus, types)) != NULL) {
    gcg_test_messages_keep (&o->m, msg);
    gst_message_unref (msg);
  }
}

static GstElement *
launch (const gchar *desc)
{
  g_autoptr (GError) error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error);

  g_assert_no_error (error);
  g_assert_nonnull (pipe);
  return pipe;
}

static guint64
get_u64 (GstElement *pipe, const gchar *name, const gchar *prop)
{
  g_autoptr (GstElement) e = gst_bin_get_by_name (GST_BIN (pipe), name);
  guint64 v;

  g_object_get (e, prop, &v, NULL);
  return v;
}

static gboolean
skip_without_plugins (void)
{
  if (gcg_test_have_system_plugins ())
    return FALSE;
  g_test_skip ("no videotestsrc or fakesink");
  return TRUE;
}

/* --- frames alive ----------------------------------------------------------- */

/* The frames that entered cudagraphbatch and are still alive, the most at
 * once, and how many entered. */
typedef struct
{
  gint alive, most, entered;
} Alive;

static void
frame_gone (gpointer data, GstMiniObject *obj)
{
  Alive *a = data;

  g_atomic_int_add (&a->alive, -1);
}

/* Each buffer that enters a sink pad becomes a copy of its own (not from
 * upstream's pool, which would keep it alive), whose finalization is
 * counted. */
static GstPadProbeReturn
track_frame (GstPad *pad, GstPadProbeInfo *info, gpointer data)
{
  Alive *a = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstBuffer *copy = gst_buffer_copy_deep (buf);
  gint now, most;

  gst_buffer_unref (buf);
  gst_mini_object_weak_ref (GST_MINI_OBJECT_CAST (copy), frame_gone, a);
  now = g_atomic_int_add (&a->alive, 1) + 1;
  g_atomic_int_inc (&a->entered);
  do
    most = g_atomic_int_get (&a->most);
  while (now > most
      && !g_atomic_int_compare_and_exchange (&a->most, most, now));
  GST_PAD_PROBE_INFO_DATA (info) = copy;
  return GST_PAD_PROBE_OK;
}

static void
track_sink_pads (GstElement *pipe, const gchar *name, guint n, Alive *a)
{
  g_autoptr (GstElement) b = gst_bin_get_by_name (GST_BIN (pipe), name);

  for (guint i = 0; i < n; i++) {
    g_autofree gchar *pad_name = g_strdup_printf ("sink_%u", i);
    g_autoptr (GstPad) pad = gst_element_get_static_pad (b, pad_name);

    g_assert_nonnull (pad);
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, track_frame, a, NULL);
  }
}

/* What cudagraphbatch may hold of @streams streams at once: per stream a
 * full queue (queue-depth), the frame its blocked chain holds, the
 * window's frames (queue-depth) and the one the collector has just taken
 * from the queue; the batches in flight and the one being pushed
 * ((in-flight + 1) x batch-size frames). */
static guint
most_held (guint streams, guint queue_depth, guint in_flight, guint batch_size)
{
  return streams * (2 * queue_depth + 2) + (in_flight + 1) * batch_size;
}

/* --- cudagraphbatch's window ------------------------------------------------ */

/* Two streams of videotestsrc (with @src, more of its properties), 64x48
 * RGBA at 30 fps, into cudagraphbatch named b (with @props) and on to a
 * fakesink. */
static gchar *
batch_line (const gchar *props, const gchar *src)
{
  const gchar *caps =
      "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1";

  return g_strdup_printf ("cudagraphbatch name=b backend=cpu batch-size=2 "
                          "width=16 height=16 %s ! fakesink "
                          "videotestsrc %s ! %s ! b.sink_0 "
                          "videotestsrc %s ! %s ! b.sink_1",
      props, src, caps, src, caps);
}

/* The launch line with a one-hour window (the maximum), smaller
 * frames: 2 x 120 frames, of which a stream keeps queue-depth in the
 * window (said with one warning per stream), the rest dropped as they
 * come; at most most_held() frames alive, none when the pipeline is
 * gone (all 240 were alive at EOS). */
static void
check_long_window (guint depth)
{
  g_autofree gchar *props =
      g_strdup_printf ("batch-duration=3600000000000 queue-depth=%u", depth);
  g_autofree gchar *desc = batch_line (props, "num-buffers=120");
  Alive a = { 0 };
  GstElement *pipe = launch (desc);
  guint64 batches, late;
  Outcome o;

  track_sink_pads (pipe, "b", 2, &a);
  run_pipeline (pipe, 30, &o);
  batches = get_u64 (pipe, "b", "batches");
  late = get_u64 (pipe, "b", "dropped-late");
  gst_object_unref (pipe);
  g_test_message (
      "queue-depth %u: %d of %d frames alive at most, %" G_GUINT64_FORMAT
      " batches",
      depth, a.most, a.entered, batches);
  g_assert_true (o.eos);
  g_assert_null (o.m.errors);
  g_assert_cmpint (a.entered, ==, 240);
  g_assert_cmpint (a.alive, ==, 0);
  g_assert_cmpint (a.most, <=, most_held (2, depth, 4, 2));
  /* The window's frames, two at a time; none late. */
  g_assert_cmpuint (batches, ==, depth);
  g_assert_cmpuint (late, ==, 0);
  g_assert_cmpuint (gcg_test_messages_count_from (o.m.warnings, "b"), ==, 2);
  outcome_clear (&o);
}

static void
test_long_window_frames_bounded (void)
{
  if (skip_without_plugins ())
    return;
  gcg_test_watchdog_arm (60, "a one-hour batch window");
  check_long_window (8);
  check_long_window (2);
  gcg_test_watchdog_disarm ();
}

/* The same live (1 s at 30 fps): the window's deadline lies an hour
 * away, the frames beyond queue-depth are dropped as they come, none as
 * late, and the collector waits instead of spinning (the process's CPU
 * time is a small part of the second; a spinning thread takes all of
 * it). */
static void
test_long_window_live (void)
{
  g_autofree gchar *desc = NULL;
  Alive a = { 0 };
  GstElement *pipe;
  guint64 late;
  Outcome o;

  if (skip_without_plugins ())
    return;
  gcg_test_watchdog_arm (60, "a one-hour live batch window");
  desc = batch_line ("batch-duration=3600000000000 timeout=3600000000000",
      "is-live=true num-buffers=30");
  pipe = launch (desc);
  track_sink_pads (pipe, "b", 2, &a);
  run_pipeline (pipe, 30, &o);
  late = get_u64 (pipe, "b", "dropped-late");
  gst_object_unref (pipe);
  gcg_test_watchdog_disarm ();
  g_test_message ("live: %d of %d frames alive at most, CPU %.0f %%", a.most,
      a.entered, 100 * o.cpu_share);
  g_assert_true (o.eos);
  g_assert_null (o.m.errors);
  g_assert_cmpint (a.entered, ==, 60);
  g_assert_cmpint (a.alive, ==, 0);
  g_assert_cmpint (a.most, <=, most_held (2, 8, 4, 2));
  g_assert_cmpuint (late, ==, 0);
  g_assert_cmpfloat (o.cpu_share, <, 0.5);
  outcome_clear (&o);
}

/* --- times past the range ----------------------------------------------------- */

/* @desc made into a pipeline while GObject's refusal of a value out of
 * range (a warning on GLib 2.74, a critical on later ones) is not fatal:
 * it is printed, and the property keeps its value. */
static GstElement *
launch_refusing (const gchar *desc)
{
  GLogLevelFlags fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK);
  GstElement *pipe = launch (desc);

  g_log_set_always_fatal (fatal);
  return pipe;
}

/* batch-duration and timeout of 2^64 - 2 in the launch line: refused
 * there, the defaults stay (a frame-long window, 40 ms), and the streams
 * batch as with them, every frame in its batch, none late.  Live too (1 s
 * at 30 fps): no spinning, and at most a few frames late (a loaded
 * machine may deliver one past its window's 40 ms; the wrapped sums
 * dropped nearly all). */
static void
check_beyond_range (gboolean live)
{
  g_autofree gchar *desc = batch_line (
      "batch-duration=18446744073709551614 timeout=18446744073709551614",
      live ? "is-live=true num-buffers=30" : "num-buffers=30");
  GstElement *pipe;
  guint64 batches, late;
  Outcome o;

  pipe = launch_refusing (desc);
  g_assert_cmpuint (get_u64 (pipe, "b", "batch-duration"), ==, 0);
  g_assert_cmpuint (get_u64 (pipe, "b", "timeout"), ==, 40 * GST_MSECOND);
  run_pipeline (pipe, 30, &o);
  batches = get_u64 (pipe, "b", "batches");
  late = get_u64 (pipe, "b", "dropped-late");
  gst_object_unref (pipe);
  g_test_message ("%s: %" G_GUINT64_FORMAT " batches, %" G_GUINT64_FORMAT
                  " late, CPU %.0f %%",
      live ? "live" : "not live", batches, late, 100 * o.cpu_share);
  g_assert_true (o.eos);
  g_assert_null (o.m.errors);
  g_assert_null (o.m.warnings);
  if (live) {
    /* Every frame not late is batched, at most two a batch (the streams'
     * times jitter: the frames of one moment may fall into two windows). */
    g_assert_cmpuint (late, <=, 6);
    g_assert_cmpuint (batches, >=, (60 - late) / 2);
    g_assert_cmpfloat (o.cpu_share, <, 0.5);
  } else {
    g_assert_cmpuint (late, ==, 0);
    g_assert_cmpuint (batches, ==, 30);
  }
  outcome_clear (&o);
}

static void
test_times_beyond_range (void)
{
  if (skip_without_plugins ())
    return;
  gcg_test_watchdog_arm (60, "batch times beyond their range");
  check_beyond_range (FALSE);
  check_beyond_range (TRUE);
  gcg_test_watchdog_disarm ();
}

/* --- one failed negotiation, one error ------------------------------------- */

/* Runs @desc @runs times: each must end with exactly one ERROR from the
 * element named @ours (and at most the source's not-negotiated besides),
 * and stop (run_pipeline()). */
static void
check_one_error (const gchar *desc, const gchar *ours, guint runs)
{
  for (guint run = 0; run < runs; run++) {
    GstElement *pipe = launch (desc);
    Outcome o;

    run_pipeline (pipe, 10, &o);
    gst_object_unref (pipe);
    if (gcg_test_messages_count_from (o.m.errors, ours) != 1)
      g_error ("run %u: %u errors from %s", run,
          gcg_test_messages_count_from (o.m.errors, ours), ours);
    g_assert_true (o.ended);
    g_assert_cmpuint (gcg_test_messages_count_from (o.m.errors, "videotestsrc"),
        <=, 1);
    g_assert_cmpuint (g_list_length (o.m.errors), <=, 2);
    outcome_clear (&o);
  }
}

#define TENSOR_16384 \
  "other/tensors,format=static,num_tensors=1," \
  "dimensions=16384:16384:3:1,types=float32"

/* The launch line: a tensor over the 2 GiB limit that downstream
 * insists on (eight errors, and gst-launch-1.0 hung in some runs). */
static void
test_too_large_tensor_one_error (void)
{
  if (skip_without_plugins ())
    return;
  gcg_test_watchdog_arm (120, "200 runs of a too large tensor");
  check_one_error (
      "videotestsrc num-buffers=2 ! video/x-raw,width=64,"
      "height=48 ! cudagraphpreprocess name=p backend=cpu ! " TENSOR_16384
      " ! fakesink",
      "p", 200);
  gcg_test_watchdog_disarm ();
}

/* cudagraphbatch negotiates its src caps on its own thread: a batch over
 * the limit (one stream of 16384x16384 float32) is said once, and the
 * collector stops instead of trying again. */
static void
test_batch_too_large_one_error (void)
{
  if (skip_without_plugins ())
    return;
  gcg_test_watchdog_arm (120, "a too large batch");
  check_one_error ("cudagraphbatch name=b backend=cpu width=16384 "
                   "height=16384 ! fakesink videotestsrc num-buffers=2 ! "
                   "video/x-raw,width=64,height=48 ! b.sink_0",
      "b", 50);
  gcg_test_watchdog_disarm ();
}

/* cudagraphconvert refuses YUV to YUV with another colour matrix than
 * the input's, which downstream insists on: said once by the element (it
 * was only logged: the source's bare not-negotiated was all a launch line
 * printed). */
static void
test_convert_colorimetry_one_error (void)
{
  if (skip_without_plugins ())
    return;
  gcg_test_watchdog_arm (120, "a colorimetry conflict");
  check_one_error ("videotestsrc num-buffers=2 ! video/x-raw,format=I420,"
                   "width=64,height=48,colorimetry=bt601 ! cudagraphconvert "
                   "name=c backend=cpu ! video/x-raw,format=NV12,"
                   "colorimetry=bt709 ! fakesink",
      "c", 50);
  gcg_test_watchdog_disarm ();
}

/* --- property ranges ---------------------------------------------------------- */

/* Integer properties whose whole range is meaningful: a colour (every
 * 0xAARRGGBB value is one), a device ordinal (checked against the devices
 * there when the element starts). */
static const gchar *const whole_range[] = { "pad-color", "cuda-device-id",
  NULL };

/* The decimal text of @pspec's maximum; NULL for a type that is not an
 * integer. */
static gchar *
max_text (GParamSpec *pspec)
{
  if (G_IS_PARAM_SPEC_INT (pspec))
    return g_strdup_printf ("%d", G_PARAM_SPEC_INT (pspec)->maximum);
  if (G_IS_PARAM_SPEC_UINT (pspec))
    return g_strdup_printf ("%u", G_PARAM_SPEC_UINT (pspec)->maximum);
  if (G_IS_PARAM_SPEC_INT64 (pspec))
    return g_strdup_printf ("%" G_GINT64_FORMAT,
        G_PARAM_SPEC_INT64 (pspec)->maximum);
  if (G_IS_PARAM_SPEC_UINT64 (pspec))
    return g_strdup_printf ("%" G_GUINT64_FORMAT,
        G_PARAM_SPEC_UINT64 (pspec)->maximum);
  return NULL;
}

/* Whether @pspec takes its type's every value up to the top. */
static gboolean
unbounded (GParamSpec *pspec)
{
  if (G_IS_PARAM_SPEC_UINT (pspec))
    return G_PARAM_SPEC_UINT (pspec)->maximum == G_MAXUINT;
  if (G_IS_PARAM_SPEC_INT64 (pspec))
    return G_PARAM_SPEC_INT64 (pspec)->maximum == G_MAXINT64;
  if (G_IS_PARAM_SPEC_UINT64 (pspec))
    return G_PARAM_SPEC_UINT64 (pspec)->maximum == G_MAXUINT64;
  return FALSE;
}

/* Every writable integer property of ours on @object (not GstObject's or
 * GstPad's): bounded below its type's top (64-bit times and sizes wrapped
 * in sums) and its maximum in its blurb, unless its whole range means
 * something. */
static guint
check_ranges (GObject *object, const gchar *what)
{
  guint n_specs, checked = 0;
  g_autofree GParamSpec **specs =
      g_object_class_list_properties (G_OBJECT_GET_CLASS (object), &n_specs);

  for (guint i = 0; i < n_specs; i++) {
    GParamSpec *p = specs[i];
    g_autofree gchar *max = max_text (p);

    if (max == NULL || !(p->flags & G_PARAM_WRITABLE)
        || !g_str_has_prefix (g_type_name (p->owner_type), "GstCudaGraph")
        || g_strv_contains (whole_range, p->name))
      continue;
    if (unbounded (p))
      g_error ("%s::%s takes any value up to %s", what, p->name, max);
    if (strstr (g_param_spec_get_blurb (p), max) == NULL)
      g_error ("%s::%s: its blurb does not say its maximum %s: %s", what,
          p->name, max, g_param_spec_get_blurb (p));
    checked++;
  }
  return checked;
}

static void
test_property_ranges (void)
{
  const gchar *elements[] = { "cudagraphconvert", "cudagraphpreprocess",
    "cudagraphkernel", "cudagraphbatch" };

  for (guint i = 0; i < G_N_ELEMENTS (elements); i++) {
    g_autoptr (GstElement) e = gst_element_factory_make (elements[i], NULL);

    g_assert_nonnull (e);
    g_assert_cmpuint (check_ranges (G_OBJECT (e), elements[i]), >, 0);
    if (i == 3) {
      GstPad *pad = gst_element_request_pad_simple (e, "sink_%u");

      g_assert_cmpuint (check_ranges (G_OBJECT (pad), "sink_0"), >, 0);
      gst_element_release_request_pad (e, pad);
      gst_object_unref (pad);
    }
  }
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  gcg_test_load_system_plugins ();
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/bounds/long-window-frames-bounded",
      test_long_window_frames_bounded);
  g_test_add_func ("/bounds/long-window-live", test_long_window_live);
  g_test_add_func ("/bounds/times-beyond-range", test_times_beyond_range);
  g_test_add_func ("/bounds/too-large-tensor-one-error",
      test_too_large_tensor_one_error);
  g_test_add_func ("/bounds/batch-too-large-one-error",
      test_batch_too_large_one_error);
  g_test_add_func ("/bounds/convert-colorimetry-one-error",
      test_convert_colorimetry_one_error);
  g_test_add_func ("/bounds/property-ranges", test_property_ranges);
  return g_test_run ();
}
