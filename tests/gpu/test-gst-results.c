/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Results on the frames of cudagraphpreprocess (issue 35), on a GPU,
 * without PyTorch: the "model" is a graph captured here that copies a
 * synthetic detector output (YOLOv8 layout, items × (4 + classes) ×
 * candidates, written once before the stream) into its output tensor.
 * With postprocess=detect, 120 frames whose ROIs (1 to 4, moving, some
 * past the edge) change every frame: every output buffer leaves in order
 * and carries a GstCudaGraphResultsMeta whose results equal
 * gcg_postprocess_run_cpu() on the same output and that frame's items
 * (its clipped ROIs, letterboxed), each item naming its ROI's id; one
 * capture; at in-flight 1 and 4, the outputs held no further behind than
 * the queue's depth (pipelined: no wait per frame).  A flush drops the
 * held outputs and the stream goes on; a teardown with outputs held
 * leaks nothing.  The latency query counts the hold's idle delay.  One
 * frame pushed at a time gets its output without a next push.  Without postprocess, each output leaves as its input
 * is pushed, with no results meta.  Skipped (TAP) without a driver.
 */
#include <gcg.h>
#include <string.h>
#include "gcg-gst-test-util.h"
#include "gcg-test-util.h"
#include "common/gcg-test-detect.h"
#include "common/gcg-test-detect-model.h"
#include "common/gcg-test-gst-gpu.h"
#include "gstcudagraphresultsmeta.h"

#define W 160
#define H 120
#define CAPS "video/x-raw,format=RGBA,width=160,height=120,framerate=30/1"
#define OW 64
#define OH 48
#define ITEMS 4
#define IN_BYTES (ITEMS * 3 * OW * OH * 4)
#define N_CLASSES 5
#define N_CAND 1000
#define FLOATS ((gsize) ITEMS * (4 + N_CLASSES) * N_CAND)
#define N_FRAMES 120

static const GcgTestDetector detector = { ITEMS, N_CLASSES, N_CAND, OW, OH };

/* Detection: tests/common/gcg-test-detect.h. */
static void
fill_detect (gfloat *out, GRand *rand)
{
  gcg_test_fill_detect (out, ITEMS, N_CLASSES, N_CAND, rand);
}

static GcgModelGraph *
make_model (const gfloat *output)
{
  return gcg_test_detector_new (&detector, output);
}

static GstHarness *
harness (GcgModelGraph *model, gboolean postprocess, guint in_flight)
{
  GstElement *e = gst_element_factory_make ("cudagraphpreprocess", NULL);
  GstHarness *h;

  g_object_set (e, "backend", GCG_BACKEND_CUDA, "in-flight", in_flight, "model",
      model, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "letterbox", "symmetric");
  if (postprocess) {
    gst_util_set_object_arg (G_OBJECT (e), "postprocess", "detect");
    g_object_set (e, "num-classes", N_CLASSES, "score-threshold", 0.3,
        "iou-threshold", 0.45, "max-detections", 60, NULL);
  }
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, CAPS);
  return h;
}

/* Frame @f's ROIs: 1 to ITEMS, moving, some reaching past the edge;
 * their ids in @ids, clipped rectangles in @rects. */
typedef struct
{
  guint n;
  gint ids[ITEMS];
  GcgRect rects[ITEMS];
} Rois;

static GstBuffer *
make_frame (guint f, GRand *rand, Rois *rois)
{
  GstBuffer *buf =
      gcg_test_frame_new (CAPS, gcg_test_moving_px, GUINT_TO_POINTER (f), 0);

  GST_BUFFER_PTS (buf) = f * (GST_SECOND / 30);
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  GST_BUFFER_OFFSET (buf) = f;
  rois->n = 1 + f % ITEMS;
  for (guint k = 0; k < rois->n; k++) {
    gint x = g_rand_int_range (rand, 0, W - 8);
    gint y = g_rand_int_range (rand, 0, H - 8);
    gint w = g_rand_int_range (rand, 8, W);
    gint h = g_rand_int_range (rand, 8, H);
    GstVideoRegionOfInterestMeta *meta =
        gst_buffer_add_video_region_of_interest_meta (buf, "object", x, y, w,
            h);

    /* Ids are the application's to give (GStreamer leaves them 0). */
    meta->id = (gint) (f * 10 + k + 1);
    rois->ids[k] = meta->id;
    rois->rects[k] = (GcgRect) { x, y, MIN (w, W - x), MIN (h, H - y) };
  }
  return buf;
}

/* @out's results meta against the CPU's results for @rois. */
static void
check_results (GstBuffer *out, const gfloat *output, const Rois *rois)
{
  gcg_test_detector_check (&detector,
      gst_cuda_graph_buffer_get_results_meta (out), output, rois->rects,
      rois->ids, rois->n);
}

/* The element's latency, as downstream asks for it. */
static GstClockTime
min_latency (GstHarness *h)
{
  GstQuery *q = gst_query_new_latency ();
  GstClockTime min = GST_CLOCK_TIME_NONE, max;
  gboolean live;

  g_assert_true (gst_pad_peer_query (h->sinkpad, q));
  gst_query_parse_latency (q, &live, &min, &max);
  gst_query_unref (q);
  return min;
}

/* N_FRAMES frames with changing ROIs at @in_flight: every output, in
 * order, with the results of its own frame; outputs never more than the
 * queue's depth (+ the one being queued) behind their inputs. */
static void
run_stream (guint in_flight)
{
  g_autofree gfloat *output = g_new (gfloat, FLOATS);
  g_autoptr (GcgModelGraph) model = NULL;
  Rois *rois = g_new0 (Rois, N_FRAMES);
  GRand *rand = g_rand_new_with_seed (35);
  GstHarness *h;
  guint pulled = 0;

  fill_detect (output, rand);
  model = make_model (output);
  h = harness (model, TRUE, in_flight);
  for (guint f = 0; f < N_FRAMES; f++) {
    GstBuffer *out;

    g_assert_cmpint (gst_harness_push (h, make_frame (f, rand, &rois[f])), ==,
        GST_FLOW_OK);
    while ((out = gst_harness_try_pull (h)) != NULL) {
      g_assert_cmpuint (GST_BUFFER_PTS (out), ==, pulled * (GST_SECOND / 30));
      check_results (out, output, &rois[pulled]);
      gst_buffer_unref (out);
      pulled++;
    }
    /* Held no further back than the frames the queue holds. */
    g_assert_cmpuint (f + 1 - pulled, <=, in_flight + 1);
  }
  g_assert_true (gst_harness_push_event (h, gst_event_new_eos ()));
  for (GstBuffer *out; (out = gst_harness_try_pull (h)) != NULL; pulled++) {
    g_assert_cmpuint (GST_BUFFER_PTS (out), ==, pulled * (GST_SECOND / 30));
    check_results (out, output, &rois[pulled]);
    gst_buffer_unref (out);
  }
  g_assert_cmpuint (pulled, ==, N_FRAMES);
  /* Holding outputs costs the idle delay (200 µs, shorter than a frame
   * interval here) at least. */
  g_assert_cmpuint (min_latency (h), >=, 200 * GST_USECOND);
  g_assert_cmpuint (min_latency (h), <, GST_SECOND / 30);
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphpreprocess", "captures"), ==,
      1);
  gst_harness_teardown (h);
  g_rand_free (rand);
  g_free (rois);
}

static void
test_depth_1 (void)
{
  if (!gcg_test_have_gpu ())
    return;
  run_stream (1);
}

static void
test_depth_4 (void)
{
  if (!gcg_test_have_gpu ())
    return;
  run_stream (4);
}

/* One frame at a time, as a request-response application pushes: each
 * output leaves with its results once its frame is done, with no later
 * input and no EOS to push it out (it once waited for the next frame). */
static void
test_one_at_a_time (void)
{
  g_autofree gfloat *output = g_new (gfloat, FLOATS);
  g_autoptr (GcgModelGraph) model = NULL;
  GRand *rand = g_rand_new_with_seed (36);
  GstHarness *h;

  if (!gcg_test_have_gpu ())
    return;
  fill_detect (output, rand);
  model = make_model (output);
  h = harness (model, TRUE, 4);
  for (guint f = 0; f < 20; f++) {
    gint64 deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
    GstBuffer *out = NULL;
    Rois rois;

    g_assert_cmpint (gst_harness_push (h, make_frame (f, rand, &rois)), ==,
        GST_FLOW_OK);
    while ((out = gst_harness_try_pull (h)) == NULL
        && g_get_monotonic_time () < deadline)
      g_usleep (200);
    g_assert_nonnull (out);
    g_assert_cmpuint (GST_BUFFER_PTS (out), ==, f * (GST_SECOND / 30));
    check_results (out, output, &rois);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  g_rand_free (rand);
}

/* Outputs held at a flush are dropped; the stream goes on with results;
 * a teardown with outputs held frees them. */
static void
test_flush_teardown (void)
{
  g_autofree gfloat *output = g_new (gfloat, FLOATS);
  g_autoptr (GcgModelGraph) model = NULL;
  GRand *rand = g_rand_new_with_seed (36);
  GstHarness *h;
  GstBuffer *out;
  GstSegment seg;
  Rois rois;

  if (!gcg_test_have_gpu ())
    return;
  fill_detect (output, rand);
  model = make_model (output);
  h = harness (model, TRUE, 4);
  for (guint f = 0; f < 6; f++)
    g_assert_cmpint (gst_harness_push (h, make_frame (f, rand, &rois)), ==,
        GST_FLOW_OK);
  g_assert_true (gst_harness_push_event (h, gst_event_new_flush_start ()));
  g_assert_true (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  while ((out = gst_harness_try_pull (h)) != NULL)
    gst_buffer_unref (out);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  g_assert_true (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  g_assert_cmpint (gst_harness_push (h, make_frame (0, rand, &rois)), ==,
      GST_FLOW_OK);
  g_assert_true (gst_harness_push_event (h, gst_event_new_eos ()));
  out = gst_harness_try_pull (h);
  g_assert_nonnull (out);
  check_results (out, output, &rois);
  gst_buffer_unref (out);
  /* After a flush (EOS is over), frames held, then the element stops. */
  g_assert_true (gst_harness_push_event (h, gst_event_new_flush_start ()));
  g_assert_true (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  g_assert_true (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  for (guint f = 0; f < 3; f++)
    g_assert_cmpint (gst_harness_push (h, make_frame (f, rand, &rois)), ==,
        GST_FLOW_OK);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

/* No postprocess: the output of each frame leaves as it is pushed, with
 * no results. */
static void
test_no_postprocess (void)
{
  g_autofree gfloat *output = g_new (gfloat, FLOATS);
  g_autoptr (GcgModelGraph) model = NULL;
  GRand *rand = g_rand_new_with_seed (37);
  GstHarness *h;
  Rois rois;

  if (!gcg_test_have_gpu ())
    return;
  fill_detect (output, rand);
  model = make_model (output);
  h = harness (model, FALSE, 4);
  for (guint f = 0; f < 10; f++) {
    g_autoptr (GstBuffer)
        out = gcg_test_push_pull (h, make_frame (f, rand, &rois));

    g_assert_null (gst_cuda_graph_buffer_get_results_meta (out));
  }
  g_assert_cmpuint (min_latency (h), <, GST_SECOND / 30);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  gcg_test_add_bundle_plugins ();
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/results/detect-depth-1", test_depth_1);
  g_test_add_func ("/gst/results/detect-depth-4", test_depth_4);
  g_test_add_func ("/gst/results/one-at-a-time", test_one_at_a_time);
  g_test_add_func ("/gst/results/flush-teardown", test_flush_teardown);
  g_test_add_func ("/gst/results/no-postprocess", test_no_postprocess);
  return g_test_run ();
}
