/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Results on each stream's own src pad of cudagraphbatch (issue 35), on
 * a GPU, without PyTorch: the detector of tests/common/
 * gcg-test-detect-model.c (a fixed synthetic YOLOv8-layout output) after
 * a batch of two streams of different sizes × up to two ROIs (four
 * slots), postprocess=detect.  Stream 0 has one or two moving ROIs per
 * frame (some past the edge), stream 1 none (the whole frame is its
 * item).  Every frame of each stream comes back on its src_N, in order,
 * with a GstCudaGraphResultsMeta equal to gcg_postprocess_run_cpu() on
 * its own slots of the output (where the batch meta on the tensor says
 * they are) and its own items, boxes in its own pixels; stream 1 ends
 * (EOS) at frame 40 while stream 0 goes on: its branch gets its EOS, the
 * other its remaining frames with results.  One capture throughout.
 * One frame per stream at a time: each comes back without a next push.
 * Skipped (TAP) without a driver.
 */
#include <gcg.h>
#include <string.h>
#include "gcg-gst-test-util.h"
#include "gcg-test-util.h"
#include "common/gcg-test-detect.h"
#include "common/gcg-test-detect-model.h"
#include "common/gcg-test-gst-gpu.h"
#include "gstcudagraphbatchmeta.h"
#include "gstcudagraphresultsmeta.h"

#define OW 64
#define OH 48
#define ROIS 2
#define STREAMS 2
#define N_CLASSES 5
#define N_CAND 1000
#define N_FRAMES 60
#define STREAM_1_FRAMES 40
#define FRAME_NS (GST_SECOND / 30)

static const GcgTestDetector detector = { STREAMS * ROIS, N_CLASSES, N_CAND, OW,
  OH };
static const gint widths[STREAMS] = { 160, 96 };
static const gint heights[STREAMS] = { 120, 64 };

/* One frame's items as the test made them, and where its batch put
 * them (the batch meta's first slot; -1 until its batch is seen). */
typedef struct
{
  guint n;
  gint ids[ROIS];
  GcgRect rects[ROIS];
  gint first;
} Frame;

static Frame frames[STREAMS][N_FRAMES];

static gchar *
caps_of (guint s)
{
  return g_strdup_printf ("video/x-raw,format=RGBA,width=%d,height=%d,"
                          "framerate=30/1",
      widths[s], heights[s]);
}

static GstBuffer *
make_frame (guint s, guint f, GRand *rand, Frame *fr)
{
  g_autofree gchar *caps = caps_of (s);
  GstBuffer *buf =
      gcg_test_frame_new (caps, gcg_test_moving_px, GUINT_TO_POINTER (f), 0);
  gint w = widths[s], h = heights[s];

  GST_BUFFER_PTS (buf) = f * FRAME_NS;
  GST_BUFFER_DURATION (buf) = FRAME_NS;
  GST_BUFFER_OFFSET (buf) = f;
  fr->first = -1;
  if (s == 1) {
    /* No ROI: the whole frame is the item. */
    fr->n = 1;
    fr->ids[0] = -1;
    fr->rects[0] = (GcgRect) { 0, 0, w, h };
    return buf;
  }
  fr->n = 1 + f % ROIS;
  for (guint k = 0; k < fr->n; k++) {
    gint x = g_rand_int_range (rand, 0, w - 8);
    gint y = g_rand_int_range (rand, 0, h - 8);
    gint rw = g_rand_int_range (rand, 8, w);
    gint rh = g_rand_int_range (rand, 8, h);
    GstVideoRegionOfInterestMeta *meta =
        gst_buffer_add_video_region_of_interest_meta (buf, "object", x, y, rw,
            rh);

    meta->id = (gint) (f * 10 + k + 1);
    fr->ids[k] = meta->id;
    fr->rects[k] = (GcgRect) { x, y, MIN (rw, w - x), MIN (rh, h - y) };
  }
  return buf;
}

/* Where the batch meta of @tensor put each stream's frame. */
static void
note_slots (GstBuffer *tensor)
{
  GstCudaGraphBatchMeta *bm = gst_cuda_graph_buffer_get_batch_meta (tensor);

  g_assert_nonnull (bm);
  for (guint i = 0; i < bm->n_frames; i++) {
    const GstCudaGraphBatchMetaSource *src = &bm->sources[i];
    guint s = g_str_equal (src->pad_name, "sink_0") ? 0 : 1;
    guint f = (guint) (src->pts / FRAME_NS);

    g_assert_cmpuint (f, <, N_FRAMES);
    g_assert_cmpuint (src->n_items, ==, frames[s][f].n);
    frames[s][f].first = (gint) src->first_item;
  }
}

/* A frame back on stream @s's branch: the next one, with its results. */
static void
check_frame (guint s, GstBuffer *out, guint *pulled, const gfloat *output)
{
  const Frame *fr = &frames[s][*pulled];
  gsize slot_floats = (gsize) (4 + N_CLASSES) * N_CAND;

  g_assert_cmpuint (GST_BUFFER_PTS (out), ==, *pulled * FRAME_NS);
  g_assert_cmpint (fr->first, >=, 0);
  gcg_test_detector_check (&detector,
      gst_cuda_graph_buffer_get_results_meta (out),
      output + fr->first * slot_floats, fr->rects, fr->ids, fr->n);
  (*pulled)++;
}

/* Pulls stream @s's branch until its EOS, checking that nothing but its
 * own events comes after its last frame. */
static void
expect_eos (GstHarness *h)
{
  for (;;) {
    GstEvent *ev = gst_harness_pull_event (h);
    gboolean eos;

    g_assert_nonnull (ev);
    eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
    if (eos)
      break;
  }
  g_assert_null (gst_harness_try_pull (h));
}

/* The batch with the detector after it: a harness on its tensor src pad
 * and one per stream (sink_N → src_N). */
typedef struct
{
  GstHarness *tensor;
  GstHarness *h[STREAMS];
} Batch;

static void
batch_open (Batch *b, GcgModelGraph *model)
{
  GstElement *e = gst_element_factory_make ("cudagraphbatch", NULL);

  g_object_set (e, "backend", GCG_BACKEND_CUDA, "batch-size", STREAMS,
      "max-rois", ROIS, "width", OW, "height", OH, "model", model,
      "num-classes", N_CLASSES, "score-threshold", 0.3, "iou-threshold", 0.45,
      "max-detections", 60, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "letterbox", "symmetric");
  gst_util_set_object_arg (G_OBJECT (e), "postprocess", "detect");
  b->tensor = gst_harness_new_with_element (e, NULL, "src");
  gst_harness_use_testclock (b->tensor);
  for (guint s = 0; s < STREAMS; s++) {
    g_autofree gchar *sink = g_strdup_printf ("sink_%u", s);
    g_autofree gchar *src = g_strdup_printf ("src_%u", s);
    g_autofree gchar *caps = caps_of (s);

    b->h[s] = gst_harness_new_with_element (e, sink, src);
    gst_harness_set_src_caps_str (b->h[s], caps);
  }
  gst_object_unref (e);
}

/* Its captures, then the harnesses torn down. */
static guint64
batch_close (Batch *b)
{
  GstElement *e = gst_harness_find_element (b->tensor, "cudagraphbatch");
  guint64 captures = 0;

  g_object_get (e, "captures", &captures, NULL);
  gst_object_unref (e);
  for (guint s = 0; s < STREAMS; s++)
    gst_harness_teardown (b->h[s]);
  gst_harness_teardown (b->tensor);
  return captures;
}

static void
test_detect_per_stream (void)
{
  g_autofree gfloat *output =
      g_new (gfloat, gcg_test_detector_floats (&detector));
  g_autoptr (GcgModelGraph) model = NULL;
  GRand *rand = g_rand_new_with_seed (135);
  guint pulled[STREAMS] = { 0, 0 };
  GstHarness *tensor, **h;
  Batch b;

  if (!gcg_test_have_gpu ())
    return;
  memset (frames, 0, sizeof (frames));
  gcg_test_fill_detect (output, detector.items, N_CLASSES, N_CAND, rand);
  model = gcg_test_detector_new (&detector, output);
  batch_open (&b, model);
  tensor = b.tensor;
  h = b.h;

  for (guint f = 0; f < N_FRAMES; f++) {
    GstBuffer *out;

    for (guint s = 0; s < STREAMS; s++) {
      if (s == 1 && f == STREAM_1_FRAMES)
        g_assert_true (gst_harness_push_event (h[1], gst_event_new_eos ()));
      if (s == 1 && f >= STREAM_1_FRAMES)
        continue;
      g_assert_cmpint (gst_harness_push (h[s],
                           make_frame (s, f, rand, &frames[s][f])),
          ==, GST_FLOW_OK);
    }
    out = gst_harness_pull (tensor);
    g_assert_nonnull (out);
    note_slots (out);
    gst_buffer_unref (out);
    /* Frames whose batches are done leave on their branches meanwhile. */
    for (guint s = 0; s < STREAMS; s++) {
      while ((out = gst_harness_try_pull (h[s])) != NULL) {
        check_frame (s, out, &pulled[s], output);
        gst_buffer_unref (out);
      }
    }
  }
  g_assert_true (gst_harness_push_event (h[0], gst_event_new_eos ()));
  while (pulled[0] < N_FRAMES) {
    GstBuffer *out = gst_harness_pull (h[0]);

    g_assert_nonnull (out);
    check_frame (0, out, &pulled[0], output);
    gst_buffer_unref (out);
  }
  while (pulled[1] < STREAM_1_FRAMES) {
    GstBuffer *out = gst_harness_pull (h[1]);

    g_assert_nonnull (out);
    check_frame (1, out, &pulled[1], output);
    gst_buffer_unref (out);
  }
  expect_eos (h[1]);
  expect_eos (h[0]);
  g_assert_cmpuint (batch_close (&b), ==, 1);
  g_rand_free (rand);
}

/* One frame per stream at a time, as a request-response application
 * pushes: each stream's frame comes back on its branch with its results
 * once its batch is done, with no later input and no EOS to push it out
 * (it once waited for the next collect step). */
static void
test_one_at_a_time (void)
{
  g_autofree gfloat *output =
      g_new (gfloat, gcg_test_detector_floats (&detector));
  g_autoptr (GcgModelGraph) model = NULL;
  GRand *rand = g_rand_new_with_seed (136);
  guint pulled[STREAMS] = { 0, 0 };
  Batch b;

  if (!gcg_test_have_gpu ())
    return;
  memset (frames, 0, sizeof (frames));
  gcg_test_fill_detect (output, detector.items, N_CLASSES, N_CAND, rand);
  model = gcg_test_detector_new (&detector, output);
  batch_open (&b, model);
  for (guint f = 0; f < 10; f++) {
    GstBuffer *out;

    for (guint s = 0; s < STREAMS; s++)
      g_assert_cmpint (gst_harness_push (b.h[s],
                           make_frame (s, f, rand, &frames[s][f])),
          ==, GST_FLOW_OK);
    out = gst_harness_pull (b.tensor);
    g_assert_nonnull (out);
    note_slots (out);
    gst_buffer_unref (out);
    for (guint s = 0; s < STREAMS; s++) {
      gint64 deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;

      while ((out = gst_harness_try_pull (b.h[s])) == NULL
          && g_get_monotonic_time () < deadline)
        g_usleep (200);
      g_assert_nonnull (out);
      check_frame (s, out, &pulled[s], output);
      gst_buffer_unref (out);
    }
  }
  g_assert_cmpuint (batch_close (&b), ==, 1);
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  gcg_test_add_bundle_plugins ();
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/batch-results/one-at-a-time", test_one_at_a_time);
  g_test_add_func ("/gst/batch-results/detect-per-stream",
      test_detect_per_stream);
  return g_test_run ();
}
