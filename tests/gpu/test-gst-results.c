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
 * leaks nothing.  The latency query counts a frame interval for the
 * hold.  Without postprocess, each output leaves as its input
 * is pushed, with no results meta.  Skipped (TAP) without a driver.
 */
#include <gcg.h>
#include <dlfcn.h>
#include <math.h>
#include <string.h>
#include "gcg-gst-test-util.h"
#include "gcg-test-util.h"
#include "common/gcg-test-detect.h"
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

typedef int (*MemcpyDtoDAsync) (guint64, guint64, gsize, gpointer);
typedef int (*MemcpyHtoD) (guint64, gconstpointer, gsize);

typedef struct
{
  GcgContext *ctx;
  GcgStream *stream;
  GcgAllocator *alloc;
  GcgGraph *graph;
  guint64 in, out, src;
  MemcpyDtoDAsync copy;
} Model;

static gboolean
model_body (GcgStream *stream, gpointer data, GError **error)
{
  Model *m = data;

  if (m->copy (m->out, m->src, FLOATS * 4, gcg_stream_get_handle (stream)) == 0)
    return TRUE;
  g_set_error_literal (error, GCG_ERROR, GCG_ERROR_FAILED, "copy failed");
  return FALSE;
}

static void
model_free (gpointer data)
{
  Model *m = data;

  g_clear_object (&m->graph);
  gcg_allocator_free (m->alloc, m->in);
  gcg_allocator_free (m->alloc, m->out);
  gcg_allocator_free (m->alloc, m->src);
  g_clear_object (&m->alloc);
  g_clear_object (&m->stream);
  g_clear_object (&m->ctx);
  g_free (m);
}

/* Detection: tests/common/gcg-test-detect.h. */
static void
fill_detect (gfloat *out, GRand *rand)
{
  gcg_test_fill_detect (out, ITEMS, N_CLASSES, N_CAND, rand);
}

/* The detector, in the primary context of device 0, whose output is
 * @output (FLOATS floats) on every frame. */
static GcgModelGraph *
make_model (const gfloat *output)
{
  g_autoptr (GError) error = NULL;
  Model *m = g_new0 (Model, 1);
  const gint64 in_shape[] = { ITEMS, 3, OH, OW };
  const gint64 out_shape[] = { ITEMS, 4 + N_CLASSES, N_CAND };
  gpointer libcuda = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  MemcpyHtoD upload;
  GcgModelGraph *model;

  g_assert_nonnull (libcuda);
  m->copy = (MemcpyDtoDAsync) dlsym (libcuda, "cuMemcpyDtoDAsync_v2");
  upload = (MemcpyHtoD) dlsym (libcuda, "cuMemcpyHtoD_v2");
  g_assert_nonnull (m->copy);
  g_assert_nonnull (upload);
  m->ctx = gcg_context_new (0, &error);
  g_assert_no_error (error);
  m->stream = gcg_stream_new (m->ctx, &error);
  m->alloc = gcg_allocator_new (m->ctx, &error);
  g_assert_no_error (error);
  g_assert_true (gcg_allocator_alloc (m->alloc, IN_BYTES, NULL, &m->in,
      &error));
  g_assert_true (gcg_allocator_alloc (m->alloc, FLOATS * 4, NULL, &m->out,
      &error));
  g_assert_true (gcg_allocator_alloc (m->alloc, FLOATS * 4, NULL, &m->src,
      &error));
  g_assert_true (gcg_stream_synchronize (m->stream, &error));
  g_assert_true (gcg_context_push (m->ctx, &error));
  g_assert_cmpint (upload (m->src, output, FLOATS * 4), ==, 0);
  g_assert_true (gcg_context_pop (m->ctx, &error));
  m->graph = gcg_capture_callable (m->stream, GCG_CAPTURE_MODE_DEFAULT,
      model_body, m, &error);
  g_assert_no_error (error);
  model = gcg_model_graph_new (m->ctx,
      (guint64) (guintptr) gcg_graph_get_graph_handle (m->graph), m, model_free,
      &error);
  g_assert_no_error (error);
  g_assert_true (gcg_model_graph_set_input (model, m->in, in_shape, 4,
      GCG_MODEL_DTYPE_FLOAT32, &error));
  g_assert_cmpint (gcg_model_graph_add_output (model, m->out, out_shape, 3,
                       GCG_MODEL_DTYPE_FLOAT32, &error),
      ==, 0);
  return model;
}

static void
init_pp (GcgPostprocessConfig *pp)
{
  gcg_postprocess_config_init (pp);
  pp->kind = GCG_POSTPROCESS_DETECT;
  pp->n_classes = N_CLASSES;
  pp->score_threshold = 0.3f;
  pp->iou_threshold = 0.45f;
  pp->max_per_item = 60;
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

/* What the GPU must have given for a frame of @rois. */
static guint8 *
expected_area (const gfloat *output, const Rois *rois, gsize size)
{
  g_autoptr (GError) error = NULL;
  GcgPostprocessConfig pp;
  GcgFrameItemMap maps[ITEMS];
  guint8 *area = g_malloc0 (size);

  init_pp (&pp);
  for (guint k = 0; k < rois->n; k++)
    gcg_frame_item_map_init (&maps[k], &rois->rects[k], OW, OH,
        GCG_LETTERBOX_SYMMETRIC);
  g_assert_true (gcg_postprocess_run_cpu (&pp, output, FLOATS, N_CAND, maps,
      rois->n, 0, area, size, &error));
  g_assert_no_error (error);
  return area;
}

/* @out's results meta against the CPU's results for @rois: every
 * record, bit for bit (NaN confidences compare equal). */
static void
check_results (GstBuffer *out, const gfloat *output, const Rois *rois)
{
  GstCudaGraphResultsMeta *meta = gst_cuda_graph_buffer_get_results_meta (out);
  GcgPostprocessConfig pp;
  g_autofree guint8 *area = NULL;
  const GcgResult *want;
  gsize size;
  guint n_want = 0, got = 0;
  Rois items = { 0 };

  g_assert_nonnull (meta);
  g_assert_cmpint (meta->kind, ==, GCG_POSTPROCESS_DETECT);
  /* The items in the element's order (the ROI metas'), each naming the
   * ROI it was cut from. */
  g_assert_cmpuint (meta->n_items, ==, rois->n);
  items.n = rois->n;
  for (guint k = 0; k < rois->n; k++) {
    guint j = 0;

    while (j < rois->n && rois->ids[j] != meta->items[k].roi_id)
      j++;
    g_assert_cmpuint (j, <, rois->n);
    items.ids[k] = rois->ids[j];
    items.rects[k] = rois->rects[j];
  }
  init_pp (&pp);
  size = gcg_postprocess_config_get_results_size (&pp, ITEMS);
  area = expected_area (output, &items, size);
  want = gcg_frame_results_get (area, size, &n_want);
  g_assert_nonnull (want);
  g_assert_cmpuint (n_want, >, 0);
  for (guint k = 0; k < n_want; k++) {
    GcgResult a, b = want[k];

    /* What the meta keeps (gstcudagraphresultsmeta.c): finite values, no
     * negative size. */
    if (!isfinite (b.x) || !isfinite (b.y) || !isfinite (b.width)
        || !isfinite (b.height) || !isfinite (b.confidence) || b.width < 0
        || b.height < 0)
      continue;
    g_assert_cmpuint (got, <, meta->n_results);
    a = meta->results[got++];
    if (memcmp (&a, &b, sizeof (a)) != 0)
      g_error ("result %u: GPU %g %g %g %g %g %d %u, CPU %g %g %g %g %g %d %u",
          k, a.x, a.y, a.width, a.height, a.confidence, a.label, a.item, b.x,
          b.y, b.width, b.height, b.confidence, b.label, b.item);
  }
  g_assert_cmpuint (got, ==, meta->n_results);
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
  /* Holding outputs costs a frame interval at least. */
  g_assert_cmpuint (min_latency (h), >=, GST_SECOND / 30);
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
  g_test_add_func ("/gst/results/flush-teardown", test_flush_teardown);
  g_test_add_func ("/gst/results/no-postprocess", test_no_postprocess);
  return g_test_run ();
}
