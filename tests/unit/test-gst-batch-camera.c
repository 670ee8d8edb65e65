/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphbatch's per-stream src pads (issue 35), through launch lines
 * on the CPU backend: each stream's frames come back out on its own
 * src_N, all of them, unchanged, in order, under the stream's own caps,
 * and each branch ends with its own EOS — the shorter stream's while the
 * other goes on; frames a batch window leaves out (last-in-batch) still
 * leave on their branch; a src pad requested before its sink pad pairs
 * with it; frames carry no results without a postprocess (the CPU
 * backend runs no model: the results themselves are tested on a GPU,
 * tests/gpu/test-gst-batch-results.c).  As after a demuxer, every branch
 * has a queue: one streaming thread feeds them all, and a sink waiting
 * for preroll would otherwise hold up the others.
 *
 * Needs videotestsrc and fakesink (the system's plugins, loaded by file
 * from GCG_TEST_SYSTEM_PLUGINS_DIR): skipped without.
 */
#include "gcg-gst-test-util.h"
#include <gst/check/gstharness.h>
#include "common/gcg-test-watchdog.h"
#include "gstcudagraphresultsmeta.h"

#define STREAM_A \
  "videotestsrc num-buffers=30 pattern=solid-color foreground-color=0xff102030 " \
  "! video/x-raw,format=RGBA,width=64,height=48,framerate=30/1 "
#define STREAM_B \
  "videotestsrc num-buffers=20 pattern=solid-color foreground-color=0xff405060 " \
  "! video/x-raw,format=RGBA,width=32,height=24,framerate=30/1 "

/* What one branch's fakesink received. */
typedef struct
{
  guint frames;
  gboolean in_order;
  gboolean unchanged;
  gboolean with_results;
  GstClockTime last_pts;
  guint8 rgba[4];
  gint width, height;
} Branch;

static void
on_handoff (GstElement *sink, GstBuffer *buf, GstPad *pad, gpointer data)
{
  Branch *b = data;
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (pad);
  GstStructure *s = caps ? gst_caps_get_structure (caps, 0) : NULL;
  GstMapInfo map;
  gint w = 0, h = 0;

  if (s != NULL) {
    gst_structure_get_int (s, "width", &w);
    gst_structure_get_int (s, "height", &h);
  }
  if (b->frames > 0 && GST_BUFFER_PTS (buf) <= b->last_pts)
    b->in_order = FALSE;
  b->last_pts = GST_BUFFER_PTS (buf);
  if (w != b->width || h != b->height)
    b->unchanged = FALSE;
  if (gst_buffer_map (buf, &map, GST_MAP_READ)) {
    if (map.size != (gsize) b->width * b->height * 4
        || memcmp (map.data, b->rgba, 4) != 0
        || memcmp (map.data + map.size - 4, b->rgba, 4) != 0)
      b->unchanged = FALSE;
    gst_buffer_unmap (buf, &map);
  } else {
    b->unchanged = FALSE;
  }
  if (gst_buffer_get_meta (buf, GST_CUDA_GRAPH_RESULTS_META_API_TYPE))
    b->with_results = TRUE;
  b->frames++;
}

static void
branch_init (Branch *b, guint32 argb, gint width, gint height)
{
  memset (b, 0, sizeof (*b));
  b->in_order = b->unchanged = TRUE;
  b->rgba[0] = (argb >> 16) & 0xff;
  b->rgba[1] = (argb >> 8) & 0xff;
  b->rgba[2] = argb & 0xff;
  b->rgba[3] = argb >> 24;
  b->width = width;
  b->height = height;
}

static void
watch (GstElement *pipe, const gchar *name, Branch *b)
{
  g_autoptr (GstElement) sink = gst_bin_get_by_name (GST_BIN (pipe), name);

  g_assert_nonnull (sink);
  g_object_set (sink, "signal-handoffs", TRUE, NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), b);
}

/* Plays @desc to its EOS (an ERROR fails), the two branches a0 and a1
 * watched; "batches" of the element b in *@batches. */
static void
run_to_eos (const gchar *desc, Branch *a0, Branch *a1, guint64 *batches)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) pipe = gst_parse_launch (desc, &error);
  g_autoptr (GstElement) b = NULL;
  g_autoptr (GstBus) bus = NULL;
  g_autoptr (GstMessage) msg = NULL;

  g_assert_no_error (error);
  watch (pipe, "a0", a0);
  watch (pipe, "a1", a1);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    g_autoptr (GError) e = NULL;

    gst_message_parse_error (msg, &e, NULL);
    g_error ("the pipeline failed: %s", e->message);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  b = gst_bin_get_by_name (GST_BIN (pipe), "b");
  g_object_get (b, "batches", batches, NULL);
}

static gboolean
skip_without_plugins (void)
{
  if (gcg_test_have_system_plugins ())
    return FALSE;
  g_test_skip ("no videotestsrc or fakesink");
  return TRUE;
}

/* Every frame back on its own branch, as it came, the shorter stream's
 * branch ending first (the pipeline's EOS needs both sinks' EOS); src_1
 * requested before sink_1. */
static void
test_frames_back (void)
{
  Branch a0, a1;
  guint64 batches = 0;

  if (skip_without_plugins ())
    return;
  gcg_test_watchdog_arm (60, "two streams' own branches");
  branch_init (&a0, 0xff102030, 64, 48);
  branch_init (&a1, 0xff405060, 32, 24);
  run_to_eos ("cudagraphbatch name=b backend=cpu batch-size=2 width=16 "
              "height=16 ! queue ! fakesink sync=false "
              "b.src_1 ! queue ! fakesink name=a1 sync=false " STREAM_A
              "! b.sink_0 " STREAM_B
              "! b.sink_1 b.src_0 ! queue ! fakesink name=a0 sync=false",
      &a0, &a1, &batches);
  g_assert_cmpuint (a0.frames, ==, 30);
  g_assert_cmpuint (a1.frames, ==, 20);
  g_assert_true (a0.in_order && a1.in_order);
  g_assert_true (a0.unchanged && a1.unchanged);
  g_assert_false (a0.with_results || a1.with_results);
  g_assert_cmpuint (batches, ==, 30);
  gcg_test_watchdog_disarm ();
}

/* last-in-batch over 100 ms windows of a 30 fps stream: two of every three
 * frames are left out of the batches, and still leave on the branch. */
static void
test_left_out_frames_leave (void)
{
  Branch a0, a1;
  guint64 batches = 0;

  if (skip_without_plugins ())
    return;
  gcg_test_watchdog_arm (60, "frames a window leaves out");
  branch_init (&a0, 0xff102030, 64, 48);
  branch_init (&a1, 0xff405060, 32, 24);
  run_to_eos (
      "cudagraphbatch name=b backend=cpu batch-size=2 width=16 "
      "height=16 batch-duration=100000000 "
      "sink_0::batch-strategy=last-in-batch "
      "sink_1::batch-strategy=last-in-batch ! queue ! fakesink sync=false " STREAM_A
      "! b.sink_0 " STREAM_B "! b.sink_1 "
      "b.src_0 ! queue ! fakesink name=a0 sync=false "
      "b.src_1 ! queue ! fakesink name=a1 sync=false",
      &a0, &a1, &batches);
  g_assert_cmpuint (a0.frames, ==, 30);
  g_assert_cmpuint (a1.frames, ==, 20);
  g_assert_true (a0.in_order && a1.in_order);
  g_assert_true (a0.unchanged && a1.unchanged);
  g_assert_cmpuint (batches, <=, 11);
  gcg_test_watchdog_disarm ();
}

/* Stopped while frames wait on the branches, again and again: nothing is
 * left behind (the sanitizer and memcheck runs read the leaks). */
static void
test_stop_mid_stream (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) pipe = NULL;

  if (skip_without_plugins ())
    return;
  gcg_test_watchdog_arm (60, "stopping with frames on the branches");
  pipe = gst_parse_launch (
      "cudagraphbatch name=b backend=cpu batch-size=2 "
      "width=16 height=16 ! queue ! fakesink sync=false "
      "videotestsrc ! video/x-raw,format=RGBA,width=64,height=48 ! b.sink_0 "
      "videotestsrc ! video/x-raw,format=RGBA,width=32,height=24 ! b.sink_1 "
      "b.src_0 ! queue ! fakesink sync=false "
      "b.src_1 ! queue ! fakesink sync=false",
      &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 5; i++) {
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    g_assert_cmpint (gst_element_get_state (pipe, NULL, NULL, 10 * GST_SECOND),
        ==, GST_STATE_CHANGE_SUCCESS);
    g_usleep (20000);
    g_assert_cmpint (gst_element_set_state (pipe, GST_STATE_NULL), ==,
        GST_STATE_CHANGE_SUCCESS);
  }
  gcg_test_watchdog_disarm ();
}

/* Branches requested, linked, unlinked and released at random while two
 * streams play (src_N with and without its sink_N):
 * the element goes on batching, posts no error, and stops cleanly. */
static void
test_pads_while_playing (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) pipe = NULL;
  g_autoptr (GstElement) b = NULL;
  g_autoptr (GstBus) bus = NULL;
  GstPad *pads[4] = { NULL };
  GstElement *sinks[4] = { NULL };
  GRand *rand = g_rand_new_with_seed (3539);
  guint64 before = 0, after = 0;
  GstMessage *msg;

  if (skip_without_plugins ())
    return;
  gcg_test_watchdog_arm (60, "branches coming and going");
  pipe = gst_parse_launch (
      "cudagraphbatch name=b backend=cpu batch-size=2 "
      "width=16 height=16 ! queue ! fakesink sync=false "
      "videotestsrc ! video/x-raw,format=RGBA,width=64,height=48 ! b.sink_0 "
      "videotestsrc ! video/x-raw,format=RGBA,width=32,height=24 ! b.sink_1",
      &error);
  g_assert_no_error (error);
  b = gst_bin_get_by_name (GST_BIN (pipe), "b");
  bus = gst_element_get_bus (pipe);
  g_assert_cmpint (gst_element_set_state (pipe, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  g_assert_cmpint (gst_element_get_state (pipe, NULL, NULL, 10 * GST_SECOND),
      ==, GST_STATE_CHANGE_SUCCESS);
  g_object_get (b, "batches", &before, NULL);
  for (guint step = 0; step < 120; step++) {
    guint k = g_rand_int_range (rand, 0, 4);
    g_autofree gchar *name = g_strdup_printf ("src_%u", k);

    if (pads[k] == NULL) {
      pads[k] = gst_element_request_pad_simple (b, name);
      g_assert_nonnull (pads[k]);
      if (g_rand_boolean (rand)) {
        GstPad *sinkpad;

        sinks[k] = gst_element_factory_make ("fakesink", NULL);
        g_object_set (sinks[k], "sync", FALSE, "async", FALSE, NULL);
        gst_bin_add (GST_BIN (pipe), sinks[k]);
        gst_element_sync_state_with_parent (sinks[k]);
        sinkpad = gst_element_get_static_pad (sinks[k], "sink");
        g_assert_cmpint (gst_pad_link (pads[k], sinkpad), ==, GST_PAD_LINK_OK);
        gst_object_unref (sinkpad);
      }
    } else {
      if (sinks[k] != NULL) {
        GstPad *peer = gst_pad_get_peer (pads[k]);

        gst_pad_unlink (pads[k], peer);
        gst_object_unref (peer);
        gst_element_set_state (sinks[k], GST_STATE_NULL);
        gst_bin_remove (GST_BIN (pipe), sinks[k]);
        sinks[k] = NULL;
      }
      gst_element_release_request_pad (b, pads[k]);
      gst_clear_object (&pads[k]);
    }
    g_usleep (2000);
  }
  g_usleep (50000);
  g_object_get (b, "batches", &after, NULL);
  g_assert_cmpuint (after, >, before);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (msg != NULL) {
    g_autoptr (GError) e = NULL;

    gst_message_parse_error (msg, &e, NULL);
    g_error ("an error while branches came and went: %s", e->message);
  }
  g_assert_cmpint (gst_element_set_state (pipe, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  for (guint k = 0; k < 4; k++) {
    if (pads[k] != NULL) {
      gst_element_release_request_pad (b, pads[k]);
      gst_object_unref (pads[k]);
    }
  }
  g_rand_free (rand);
  gcg_test_watchdog_disarm ();
}

/* What reached a branch's own sink pad, in order: "caps WxH", "buf N"
 * (N the frame number), "eos"; under its lock. */
typedef struct
{
  GMutex lock;
  GPtrArray *seen;
  gint eos;
} Recorder;

static void
record (Recorder *r, gchar *what)
{
  g_mutex_lock (&r->lock);
  g_ptr_array_add (r->seen, what);
  g_mutex_unlock (&r->lock);
}

static GstStaticPadTemplate recorder_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static GstFlowReturn
recorder_chain (GstPad *pad, GstObject *parent, GstBuffer *buf)
{
  record (gst_pad_get_element_private (pad),
      g_strdup_printf ("buf %" G_GUINT64_FORMAT,
          GST_BUFFER_PTS (buf) / (GST_SECOND / 30)));
  gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

static gboolean
recorder_event (GstPad *pad, GstObject *parent, GstEvent *event)
{
  Recorder *r = gst_pad_get_element_private (pad);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    GstCaps *caps;
    gint w = 0, h = 0;

    gst_event_parse_caps (event, &caps);
    gst_structure_get_int (gst_caps_get_structure (caps, 0), "width", &w);
    gst_structure_get_int (gst_caps_get_structure (caps, 0), "height", &h);
    record (r, g_strdup_printf ("caps %dx%d", w, h));
  } else if (GST_EVENT_TYPE (event) == GST_EVENT_EOS) {
    record (r, g_strdup ("eos"));
    g_atomic_int_set (&r->eos, TRUE);
  }
  gst_event_unref (event);
  return TRUE;
}

static void
push_frames (GstHarness *h, const gchar *caps, guint first, guint n)
{
  const guint8 grey[4] = { 100, 100, 100, 255 };

  gst_harness_set_src_caps_str (h, caps);
  for (guint f = first; f < first + n; f++) {
    GstBuffer *buf = gcg_test_solid_new (caps, grey, 4, 0);

    GST_BUFFER_PTS (buf) = f * (GST_SECOND / 30);
    GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
    g_assert_cmpint (gst_harness_push (h, buf), ==, GST_FLOW_OK);
  }
}

/* cudagraphbatch on the CPU backend, batch-size 1, its tensor in a
 * harness (the element is live there; the harness's test clock never
 * fires: every window completes by its frames) and src_0 linked to a
 * recording pad, requested before sink_0. */
typedef struct
{
  GstElement *e;
  GstHarness *tensor;
  GstPad *src, *rec;
  Recorder r;
} Branch0;

static void
branch0_setup (Branch0 *f, const gchar *what)
{
  memset (f, 0, sizeof (*f));
  gcg_test_watchdog_arm (60, what);
  g_mutex_init (&f->r.lock);
  f->r.seen = g_ptr_array_new_with_free_func (g_free);
  f->e = gst_element_factory_make ("cudagraphbatch", NULL);
  g_assert_nonnull (f->e);
  gst_util_set_object_arg (G_OBJECT (f->e), "backend", "cpu");
  g_object_set (f->e, "batch-size", 1, "width", 16, "height", 16, NULL);
  f->tensor = gst_harness_new_with_element (f->e, NULL, "src");
  gst_harness_use_testclock (f->tensor);
  f->src = gst_element_request_pad_simple (f->e, "src_0");
  f->rec = gst_pad_new_from_static_template (&recorder_template, "rec");
  gst_pad_set_element_private (f->rec, &f->r);
  gst_pad_set_chain_function (f->rec, recorder_chain);
  gst_pad_set_event_function (f->rec, recorder_event);
  gst_pad_set_active (f->rec, TRUE);
  g_assert_cmpint (gst_pad_link (f->src, f->rec), ==, GST_PAD_LINK_OK);
}

/* Pulls @n tensors, then waits for the branch's EOS. */
static void
branch0_finish (Branch0 *f, guint n)
{
  for (guint i = 0; i < n; i++)
    gst_buffer_unref (gst_harness_pull (f->tensor));
  while (!g_atomic_int_get (&f->r.eos))
    g_usleep (1000);
}

static void
branch0_teardown (Branch0 *f)
{
  gst_pad_unlink (f->src, f->rec);
  gst_element_release_request_pad (f->e, f->src);
  gst_object_unref (f->src);
  gst_object_unref (f->rec);
  gst_harness_teardown (f->tensor);
  gst_object_unref (f->e);
  g_ptr_array_unref (f->r.seen);
  g_mutex_clear (&f->r.lock);
  gcg_test_watchdog_disarm ();
}

/* A stream whose caps change mid-stream: its branch gets the new caps
 * between the last frame of the old size and the first of the new, and
 * its EOS after its last frame. */
static void
test_caps_change_in_order (void)
{
  const gchar *caps_a = "video/x-raw,format=RGBA,width=64,height=48,"
                        "framerate=30/1";
  const gchar *caps_b = "video/x-raw,format=RGBA,width=32,height=24,"
                        "framerate=30/1";
  const gchar *want[] = { "caps 64x48", "buf 0", "buf 1", "buf 2", "caps 32x24",
    "buf 3", "buf 4", "buf 5", "eos" };
  Branch0 f;
  GstHarness *h;
  guint k = 0;

  branch0_setup (&f, "a branch through a caps change");
  h = gst_harness_new_with_element (f.e, "sink_0", NULL);
  push_frames (h, caps_a, 0, 3);
  push_frames (h, caps_b, 3, 3);
  g_assert_true (gst_harness_push_event (h, gst_event_new_eos ()));
  branch0_finish (&f, 6);
  /* The branch's own order, whatever else (stream-start, segments) came
   * between. */
  for (guint i = 0; i < f.r.seen->len && k < G_N_ELEMENTS (want); i++) {
    const gchar *got = g_ptr_array_index (f.r.seen, i);

    if (g_str_equal (got, want[k]))
      k++;
    else if (g_str_has_prefix (got, "buf") || g_str_has_prefix (got, "caps"))
      g_error ("got %s where %s was due", got, want[k]);
  }
  g_assert_cmpuint (k, ==, G_N_ELEMENTS (want));
  gst_harness_teardown (h);
  branch0_teardown (&f);
}

/* Releasing a stream's sink pad ends its branch: EOS on src_N. */
static void
test_release_ends_branch (void)
{
  Branch0 f;
  GstHarness *h;

  branch0_setup (&f, "a released stream's branch");
  h = gst_harness_new_with_element (f.e, "sink_0", NULL);
  push_frames (h, "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1",
      0, 2);
  /* The harness releases the request pad it made; then no EOS came from
   * upstream, the release gives it. */
  for (guint i = 0; i < 2; i++)
    gst_buffer_unref (gst_harness_pull (f.tensor));
  gst_harness_teardown (h);
  branch0_finish (&f, 0);
  branch0_teardown (&f);
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  gcg_test_load_system_plugins ();
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/batch-camera/frames-back", test_frames_back);
  g_test_add_func ("/batch-camera/left-out-frames-leave",
      test_left_out_frames_leave);
  g_test_add_func ("/batch-camera/stop-mid-stream", test_stop_mid_stream);
  g_test_add_func ("/batch-camera/pads-while-playing", test_pads_while_playing);
  g_test_add_func ("/batch-camera/caps-change-in-order",
      test_caps_change_in_order);
  g_test_add_func ("/batch-camera/release-ends-branch",
      test_release_ends_branch);
  return g_test_run ();
}
