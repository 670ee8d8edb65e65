/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Failures as a launch line meets them (issue 39): real pipelines from
 * gst_parse_launch(), videotestsrc in front, the bus read as gst-launch
 * reads it.  A harness pushes its caps event straight into the element;
 * a launch line's source first asks for caps, and a negotiation that
 * fails there never sends one, so the element must say why from the caps
 * query too.
 *
 * - A negotiation that fails says its cause (the backend, the memory
 *   kind, the tensor the properties rule out, an output over the size
 *   limit) in one ERROR from our element that names the property to
 *   change, not a bare not-negotiated from the source, and says it once:
 *   the source sends its CAPS event again before every later event, and
 *   each used to post the error again (eight ERROR messages for one
 *   failure).  Run 30 times: the pipeline always ends.
 * - cudagraphbatch: batch-duration and timeout are bounded (one hour),
 *   and a stream's frames of one window are bounded by queue-depth (a
 *   one-hour window held every frame until it closed), with a warning
 *   that names both properties.
 *
 * Needs videotestsrc and fakesink (the system's plugins, loaded by file
 * from GCG_TEST_SYSTEM_PLUGINS_DIR): skipped without.
 */
#include "gcg-gst-test-util.h"
#include "common/gcg-test-messages.h"
#include "common/gcg-test-watchdog.h"

/* What a pipeline posted: its ERROR and WARNING messages, and whether it
 * ended (EOS or an error) in time. */
typedef struct
{
  GcgTestMessages m;
  gboolean ended;
  guint64 batches;
} Outcome;

static void
outcome_clear (Outcome *o)
{
  gcg_test_messages_clear (&o->m);
  memset (o, 0, sizeof (*o));
}

/* Plays @desc until EOS or its first ERROR (at most @seconds), and on
 * until it goes quiet, then stops it (its streaming threads joined) and reads what else it
 * posted; "batches" of the element named b, when there is one.  With
 * @caps, the capsfilter named f takes them once the pipeline is made
 * (caps in the line itself are checked when it links, before anything
 * runs). */
static void
run_launch (const gchar *desc, const gchar *caps, guint seconds, Outcome *o)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) pipe = gst_parse_launch (desc, &error);
  g_autoptr (GstElement) b = NULL;
  g_autoptr (GstBus) bus = NULL;
  GstMessage *msg;
  GstMessageType types = GST_MESSAGE_EOS | GST_MESSAGE_ERROR
      | GST_MESSAGE_WARNING;

  g_assert_no_error (error);
  memset (o, 0, sizeof (*o));
  if (caps != NULL) {
    g_autoptr (GstElement) f = gst_bin_get_by_name (GST_BIN (pipe), "f");

    gst_util_set_object_arg (G_OBJECT (f), "caps", caps);
  }
  /* The messages posted while it stops stay on the bus. */
  gst_pipeline_set_auto_flush_bus (GST_PIPELINE (pipe), FALSE);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop_filtered (bus, seconds * GST_SECOND, types))
      != NULL) {
    GstMessageType type = GST_MESSAGE_TYPE (msg);

    gcg_test_messages_keep (&o->m, msg);
    gst_message_unref (msg);
    if (type != GST_MESSAGE_WARNING) {
      o->ended = TRUE;
      break;
    }
  }
  /* What the pipeline posts after that, as gst-launch-1.0 prints it while
   * it stops: until half a second passes without a message. */
  while ((msg = gst_bus_timed_pop_filtered (bus, GST_SECOND / 2, types))
      != NULL) {
    gcg_test_messages_keep (&o->m, msg);
    gst_message_unref (msg);
  }
  g_assert_cmpint (gst_element_set_state (pipe, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  while ((msg = gst_bus_pop_filtered (bus, types)) != NULL) {
    gcg_test_messages_keep (&o->m, msg);
    gst_message_unref (msg);
  }
  b = gst_bin_get_by_name (GST_BIN (pipe), "b");
  if (b != NULL)
    g_object_get (b, "batches", &o->batches, NULL);
}

/* The text of an ERROR or WARNING: its message and debug text. */
static gchar *
message_text (GstMessage *msg)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *debug = NULL;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &error, &debug);
  else
    gst_message_parse_warning (msg, &error, &debug);
  return g_strdup_printf ("%s\n%s", error->message, GST_STR_NULL (debug));
}

/* @list holds one message from @element, the first of them all (before
 * the source's not-negotiated), whose text holds each of @says
 * (NULL-terminated); any other is the source's flow error. */
static void
check_one_message (GList *list, const gchar *element, const gchar *const *says)
{
  g_autofree gchar *text = NULL;

  g_assert_cmpuint (gcg_test_messages_count_from (list, element), ==, 1);
  g_assert_cmpuint (gcg_test_messages_count_from (list, "videotestsrc"), <=, 1);
  g_assert_cmpuint (g_list_length (list), <=, 2);
  g_assert_true (g_str_has_prefix (GST_MESSAGE_SRC_NAME (list->data), element));
  text = message_text (list->data);
  for (guint i = 0; says[i] != NULL; i++) {
    if (strstr (text, says[i]) == NULL)
      g_error ("%s not in: %s", says[i], text);
  }
}

/* Runs @desc (see run_launch()), which must end with one ERROR from
 * @element that says each of @says, before the source's own. */
static void
check_launch_error (const gchar *desc, const gchar *caps, const gchar *element,
    const gchar *const *says)
{
  Outcome o;

  run_launch (desc, caps, 10, &o);
  g_assert_true (o.ended);
  check_one_message (o.m.errors, element, says);
  outcome_clear (&o);
}

static gboolean
skip_without_plugins (void)
{
  if (gcg_test_have_system_plugins ())
    return FALSE;
  g_test_skip ("no videotestsrc or fakesink");
  return TRUE;
}

/* --- a negotiation failure says why, once --------------------------------- */

#define VIDEO_64x48 "video/x-raw,format=RGBA,width=64,height=48 ! "
#define TENSOR_224x112 \
  "other/tensors,format=static,num_tensors=1,dimensions=224:112:3:1," \
  "types=uint8"
#define TENSOR_16384 \
  "other/tensors,format=static,num_tensors=1," \
  "dimensions=16384:16384:3:1,types=float32"

/* A tensor over the 2 GiB limit that downstream insists on: one error
 * that says so, and the pipeline ends, every time (it posted eight,
 * and gst-launch-1.0 hung in some runs). */
static void
test_too_large_tensor (void)
{
  const gchar *says[] = { "more than the limit", "width, height", NULL };

  if (skip_without_plugins ())
    return;
  for (guint run = 0; run < 30; run++) {
    gcg_test_watchdog_arm (60, "a too large tensor's launch line");
    check_launch_error ("videotestsrc num-buffers=2 ! " VIDEO_64x48
                        "cudagraphpreprocess backend=cpu ! " TENSOR_16384
                        " ! fakesink",
        NULL, "cudagraphpreprocess", says);
  }
  gcg_test_watchdog_disarm ();
}

/* Downstream takes only CUDA memory, the CPU backend cannot write it:
 * the error names the memory kind and backend=cpu, and the debug text
 * the property value that fixes it (the source's bare not-negotiated was
 * all a launch line printed). */
static void
check_cuda_memory_explained (const gchar *element, const gchar *caps)
{
  g_autofree gchar *desc = g_strdup_printf ("videotestsrc num-buffers=2 ! "
                                            "%s backend=cpu ! %s ! fakesink",
      element, caps);
  const gchar *says[] = { "CUDA memory", "backend=cpu", "backend=cuda", NULL };

  check_launch_error (desc, NULL, element, says);
}

static void
test_cuda_memory_explained (void)
{
  if (skip_without_plugins ())
    return;
  gcg_test_watchdog_arm (60, "the CUDA memory launch lines");
  check_cuda_memory_explained ("cudagraphpreprocess",
      "other/tensors(memory:CUDAMemory)");
  check_cuda_memory_explained ("cudagraphconvert",
      "video/x-raw(memory:CUDAMemory),width=32,height=24");
  gcg_test_watchdog_disarm ();
}

/* cudagraphbatch, which negotiates on its own thread: one error of its
 * own (it posted the cause, a generic one and a flow error). */
static void
test_batch_cuda_memory_explained (void)
{
  const gchar *says[] = { "CUDA memory", "backend=cpu", "backend=cuda", NULL };

  if (skip_without_plugins ())
    return;
  gcg_test_watchdog_arm (60, "the batch's CUDA memory launch line");
  check_launch_error ("cudagraphbatch name=b backend=cpu width=16 height=16 ! "
                      "other/tensors(memory:CUDAMemory) ! fakesink "
                      "videotestsrc num-buffers=2 ! " VIDEO_64x48 "b.sink_0",
      NULL, "b", says);
  gcg_test_watchdog_disarm ();
}

/* A tensor the properties rule out: caught in the caps query when every
 * field is set (the source never sends caps), in set_caps when one is;
 * either way one error naming the property. */
static void
test_tensor_conflict_explained (void)
{
  const gchar *all_set[] = { "properties rule out", "dimensions=64:64:3:1",
    "224:112:3:1", NULL };
  const gchar *one_set[] = { "properties rule out", "width=64", NULL };

  if (skip_without_plugins ())
    return;
  gcg_test_watchdog_arm (60, "the tensor conflict launch lines");
  check_launch_error (
      "videotestsrc num-buffers=2 ! " VIDEO_64x48
      "cudagraphpreprocess backend=cpu width=64 height=64 max-rois=1 "
      "tensor-type=uint8 ! capsfilter name=f ! fakesink",
      TENSOR_224x112, "cudagraphpreprocess", all_set);
  check_launch_error (
      "videotestsrc num-buffers=2 ! " VIDEO_64x48
      "cudagraphpreprocess backend=cpu width=64 ! capsfilter name=f ! "
      "fakesink",
      TENSOR_224x112, "cudagraphpreprocess", one_set);
  gcg_test_watchdog_disarm ();
}

/* --- cudagraphbatch's window ---------------------------------------------- */

/* batch-duration and timeout stop at one hour, documented in their
 * blurbs; a larger value is refused (the property keeps its value). */
static void
test_batch_time_bounded (void)
{
  const gchar *names[] = { "batch-duration", "timeout" };
  g_autoptr (GstElement) b = gst_element_factory_make ("cudagraphbatch", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++) {
    GParamSpec *pspec =
        g_object_class_find_property (G_OBJECT_GET_CLASS (b), names[i]);
    guint64 before, after;

    g_assert_cmpuint (G_PARAM_SPEC_UINT64 (pspec)->maximum, ==,
        3600 * GST_SECOND);
    g_assert_nonnull (strstr (g_param_spec_get_blurb (pspec), "3600000000000"));
    GValue v = G_VALUE_INIT;

    /* GLib refuses a value past the range before the element sees it;
     * how it says so differs between versions (warning, then critical),
     * so the refusal is checked on the pspec, not by setting it. */
    g_object_get (b, names[i], &before, NULL);
    g_value_init (&v, G_TYPE_UINT64);
    g_value_set_uint64 (&v, G_GUINT64_CONSTANT (18446744073709551614));
    g_assert_true (g_param_value_validate (pspec, &v));
    g_object_get (b, names[i], &after, NULL);
    g_assert_cmpuint (after, ==, before);
  }
}

/* The launch line (smaller frames, fewer of them): a one-hour
 * window held all 2 x 120 frames until EOS (400 frames, 483 MB at
 * 640x480).  Each stream now holds queue-depth (8) frames of the window,
 * said once per stream with a warning that names the properties; the
 * batches are those frames, two at a time. */
static void
test_batch_long_window_bounded (void)
{
  Outcome o;

  if (skip_without_plugins ())
    return;
  gcg_test_watchdog_arm (60, "a one-hour batch window");
  run_launch ("cudagraphbatch name=b backend=cpu batch-size=2 width=16 "
              "height=16 batch-duration=3600000000000 ! fakesink "
              "videotestsrc num-buffers=120 ! video/x-raw,format=RGBA,"
              "width=64,height=48,framerate=30/1 ! b.sink_0 "
              "videotestsrc num-buffers=120 ! video/x-raw,format=RGBA,"
              "width=64,height=48,framerate=30/1 ! b.sink_1",
      NULL, 30, &o);
  gcg_test_watchdog_disarm ();
  g_assert_true (o.ended);
  g_assert_null (o.m.errors);
  g_assert_cmpuint (o.batches, ==, 8);
  g_assert_cmpuint (gcg_test_messages_count_from (o.m.warnings, "b"), ==, 2);
  for (GList *l = o.m.warnings; l; l = l->next) {
    g_autofree gchar *text = message_text (l->data);

    g_assert_nonnull (strstr (text, "queue-depth=8"));
    g_assert_nonnull (strstr (text, "batch-duration"));
    g_assert_nonnull (strstr (text, "batch-strategy"));
  }
  outcome_clear (&o);
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  gcg_test_load_system_plugins ();
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/launch-failures/too-large-tensor", test_too_large_tensor);
  g_test_add_func ("/launch-failures/cuda-memory-explained",
      test_cuda_memory_explained);
  g_test_add_func ("/launch-failures/batch-cuda-memory-explained",
      test_batch_cuda_memory_explained);
  g_test_add_func ("/launch-failures/tensor-conflict-explained",
      test_tensor_conflict_explained);
  g_test_add_func ("/launch-failures/batch-time-bounded",
      test_batch_time_bounded);
  g_test_add_func ("/launch-failures/batch-long-window-bounded",
      test_batch_long_window_bounded);
  return g_test_run ();
}
