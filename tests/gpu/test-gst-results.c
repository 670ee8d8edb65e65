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
 * is pushed, with no results meta.  With postprocess=user, the user's
 * kernel (postprocess-kernel-source) writes each item's first candidate
 * and a record of an unknown class, claiming more than max-detections:
 * the meta holds max-detections a item, boxes mapped to the frame, the
 * labels file's names and "class-N" past it, one capture; a kernel that
 * does not compile or has no model fails the start naming it.  Skipped
 * (TAP) without a driver.
 */
#include <gcg.h>
#include <string.h>
#include <glib/gstdio.h>
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

/* Pushes @in and waits (2 s at most) for an output: with a postprocess
 * it leaves once its frame is done, without a next push. */
static GstBuffer *
push_wait (GstHarness *h, GstBuffer *in)
{
  gint64 deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  GstBuffer *out;

  g_assert_cmpint (gst_harness_push (h, in), ==, GST_FLOW_OK);
  while ((out = gst_harness_try_pull (h)) == NULL
      && g_get_monotonic_time () < deadline)
    g_usleep (200);
  g_assert_nonnull (out);
  return out;
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
    GstBuffer *out;
    Rois rois;

    out = push_wait (h, make_frame (f, rand, &rois));
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

/* The user's postprocess kernel: per item, record 0 is candidate 0 of
 * the detector output (its box as left, top, width, height in the item's
 * pixels, its best class: NaN never wins, -1 when every score is NaN),
 * record 1 a box of class N_CLASSES + item (past the labels); it claims
 * 5 records, max-detections keeps 2. */
static const gchar first_source[] =
    "extern \"C\" __global__ void first (const gcg_params *p)\n"
    "{\n"
    "  const unsigned item = blockIdx.x;\n"
    "  const unsigned a = (unsigned) p->n_cand;\n"
    "  const float *in;\n"
    "  gcg_result *r;\n"
    "  float best = -1.0f;\n"
    "  int label = 0;\n"
    "  if (item >= (unsigned) p->n || threadIdx.x != 0)\n"
    "    return;\n"
    "  in = (const float *) p->in + (size_t) item * (4 + p->nc) * a;\n"
    "  for (int c = 0; c < p->nc; c++) {\n"
    "    float v = in[(size_t) (4 + c) * a];\n"
    "    if (v > best) {\n"
    "      best = v;\n"
    "      label = c;\n"
    "    }\n"
    "  }\n"
    "  r = (gcg_result *) p->recs + (size_t) item * p->per;\n"
    "  r[0].x = in[0] - 0.5f * in[2 * a];\n"
    "  r[0].y = in[a] - 0.5f * in[3 * a];\n"
    "  r[0].width = in[2 * a];\n"
    "  r[0].height = in[3 * a];\n"
    "  r[0].confidence = best;\n"
    "  r[0].label = label;\n"
    "  r[1].x = 0.0f;\n"
    "  r[1].y = 0.0f;\n"
    "  r[1].width = 1.0f;\n"
    "  r[1].height = 1.0f;\n"
    "  r[1].confidence = 0.5f;\n"
    "  r[1].label = p->nc + (int) item;\n"
    "  ((unsigned *) p->cnt)[item] = 5u;\n"
    "}\n";

#define FIRST_PARAMS \
  "in=output,n=items,nc=classes,recs=records,cnt=counts,per=max_results," \
  "n_cand=i32:" G_STRINGIFY (N_CAND)

/* NULL-terminated: g_strjoinv() writes the labels file from it. */
static const gchar *const label_names[N_CLASSES + 1] = { "person", "car", "dog",
  "cat", "bus", NULL };

static GstElement *
user_element (GcgModelGraph *model, const gchar *source, const gchar *labels)
{
  GstElement *e = gst_element_factory_make ("cudagraphpreprocess", NULL);

  g_object_set (e, "backend", GCG_BACKEND_CUDA, "model", model, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "letterbox", "symmetric");
  gst_util_set_object_arg (G_OBJECT (e), "postprocess", "user");
  g_object_set (e, "num-classes", N_CLASSES, "max-detections", 2,
      "labels-location", labels, "postprocess-kernel-source", source,
      "postprocess-kernel-entry", "first", "postprocess-kernel-params",
      FIRST_PARAMS, NULL);
  return e;
}

/* Item @k's record @r of @meta against candidate 0 of @output's item
 * @slot, mapped through @rect. */
static void
check_user_item (GstCudaGraphResultsMeta *meta, guint k, const gfloat *output,
    guint slot, const GcgRect *rect)
{
  const gfloat *in = output + (gsize) slot * (4 + N_CLASSES) * N_CAND;
  const GcgResult *r = &meta->results[2 * k];
  GcgFrameItemMap map;
  gfloat best = -1.0f, l, t;
  gint label = 0;
  gdouble x1, y1, x2, y2;
  g_autofree gchar *unknown = g_strdup_printf ("class-%u", N_CLASSES + k);

  for (gint c = 0; c < N_CLASSES; c++) {
    if (in[(gsize) (4 + c) * N_CAND] > best) {
      best = in[(gsize) (4 + c) * N_CAND];
      label = c;
    }
  }
  gcg_frame_item_map_init (&map, rect, OW, OH, GCG_LETTERBOX_SYMMETRIC);
  l = in[0] - 0.5f * in[2 * N_CAND];
  t = in[N_CAND] - 0.5f * in[3 * N_CAND];
  gcg_frame_item_map_to_source (&map, l, t, &x1, &y1);
  gcg_frame_item_map_to_source (&map, l + in[2 * N_CAND], t + in[3 * N_CAND],
      &x2, &y2);
  g_assert_cmpuint (r[0].item, ==, k);
  g_assert_cmpint (r[0].label, ==, label);
  g_assert_cmpfloat (r[0].confidence, ==, best);
  g_assert_cmpfloat_with_epsilon (r[0].x, x1, 1e-3);
  g_assert_cmpfloat_with_epsilon (r[0].y, y1, 1e-3);
  g_assert_cmpfloat_with_epsilon (r[0].width, x2 - x1, 1e-3);
  g_assert_cmpfloat_with_epsilon (r[0].height, y2 - y1, 1e-3);
  g_assert_cmpstr (gst_cuda_graph_results_meta_get_label_name (meta, 2 * k), ==,
      label_names[label]);
  g_assert_cmpuint (r[1].item, ==, k);
  g_assert_cmpint (r[1].label, ==, N_CLASSES + (gint) k);
  g_assert_cmpfloat (r[1].confidence, ==, 0.5f);
  g_assert_cmpstr (gst_cuda_graph_results_meta_get_label_name (meta, 2 * k + 1),
      ==, unknown);
}

/* One frame's results meta from the user's kernel. */
static void
check_user_results (GstBuffer *out, const gfloat *output, const Rois *rois)
{
  GstCudaGraphResultsMeta *meta = gst_cuda_graph_buffer_get_results_meta (out);

  g_assert_nonnull (meta);
  g_assert_cmpint (meta->kind, ==, GCG_POSTPROCESS_USER);
  g_assert_cmpuint (meta->n_items, ==, rois->n);
  /* 5 claimed, max-detections (2) kept. */
  g_assert_cmpuint (meta->n_results, ==, 2 * rois->n);
  for (guint k = 0; k < rois->n; k++) {
    guint j = 0;

    while (j < rois->n && rois->ids[j] != meta->items[k].roi_id)
      j++;
    g_assert_cmpuint (j, <, rois->n);
    /* Item k of the frame is slot k of the model's output. */
    check_user_item (meta, k, output, k, &rois->rects[j]);
  }
}

static gchar *
write_labels (void)
{
  g_autofree gchar *dir = g_dir_make_tmp ("gcg-user-pp-XXXXXX", NULL);
  g_autofree gchar *text = g_strjoinv ("\n", (gchar **) label_names);
  gchar *path = g_build_filename (dir, "labels.txt", NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
remove_labels (gchar *path)
{
  g_autofree gchar *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
}

/* postprocess=user over frames whose ROIs change: results from the
 * user's kernel, clamped and mapped, one capture. */
static void
test_user_kernel (void)
{
  g_autofree gfloat *output = g_new (gfloat, FLOATS);
  g_autoptr (GcgModelGraph) model = NULL;
  gchar *labels;
  GRand *rand;
  GstHarness *h;
  GstElement *e;

  if (!gcg_test_have_gpu ())
    return;
  rand = g_rand_new_with_seed (38);
  labels = write_labels ();
  fill_detect (output, rand);
  model = make_model (output);
  e = user_element (model, first_source, labels);
  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, CAPS);
  for (guint f = 0; f < 24; f++) {
    Rois rois;
    g_autoptr (GstBuffer) out = push_wait (h, make_frame (f, rand, &rois));

    check_user_results (out, output, &rois);
  }
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphpreprocess", "captures"), ==,
      1);
  gst_harness_teardown (h);
  g_rand_free (rand);
  remove_labels (labels);
}

/* Source that does not compile, or no model: the start fails with an
 * error naming the kernel. */
static void
test_user_kernel_refused (void)
{
  g_autofree gfloat *output = g_new0 (gfloat, FLOATS);
  g_autoptr (GcgModelGraph) model = NULL;
  g_autoptr (GstElement) bad = NULL;
  g_autoptr (GstElement) alone = NULL;
  g_autofree gchar *bad_error = NULL, *alone_error = NULL;
  gchar *labels;

  if (!gcg_test_have_gpu ())
    return;
  labels = write_labels ();
  model = make_model (output);
  bad = user_element (model,
      "extern \"C\" __global__ void first (const gcg_params *p)\n"
      "{\n  p->no_such_field = 1;\n}\n",
      labels);
  bad_error = gcg_test_start_error (bad);
  g_assert_nonnull (bad_error);
  g_assert_nonnull (strstr (bad_error, "first"));
  g_assert_nonnull (strstr (bad_error, "no_such_field"));
  alone = user_element (NULL, first_source, labels);
  alone_error = gcg_test_start_error (alone);
  g_assert_nonnull (alone_error);
  g_assert_nonnull (strstr (alone_error, "Postprocess kernel 'first'"));
  g_assert_nonnull (strstr (alone_error, "needs a model"));
  remove_labels (labels);
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
  g_test_add_func ("/gst/results/user-kernel", test_user_kernel);
  g_test_add_func ("/gst/results/user-kernel-refused",
      test_user_kernel_refused);
  return g_test_run ();
}
