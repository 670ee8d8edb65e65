/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The cudagraph elements on a GPU: every conversion with backend=cuda is
 * compared byte for byte with backend=cpu (gamma 1, so the documented
 * arithmetic is identical), graph counters, eager mode, caps changes (and
 * A -> B -> A changes replayed from the graph cache), a real pipeline, and every driver entry point failing mid-stream.  Skipped (TAP skip) without a CUDA driver and device.
 */
#include <gcg.h>
#include "gcg-gst-test-util.h"
#include "gcg-cuda-private.h"
#include "gcg-testing.h"
#include "common/gcg-test-gst-gpu.h"

#define N_FRAMES 10

/* The element's replays: frames that reused a graph captured on an earlier
 * frame (the first frame of each caps is the capture). */
#define EXPECTED_REPLAYS(n) ((n) - 1)

typedef struct
{
  const gchar *props;
  const gchar *in_caps;
  const gchar *out_caps;
} Case;

static const Case cases[] = {
  { "", "video/x-raw,format=NV12,width=64,height=48",
      "video/x-raw,format=RGBA,width=64,height=48" },
  { "", "video/x-raw,format=NV12,width=1920,height=1080",
      "video/x-raw,format=RGBA,width=640,height=360" },
  { "", "video/x-raw,format=I420,width=64,height=48",
      "video/x-raw,format=BGR,width=32,height=24" },
  { "", "video/x-raw,format=RGB,width=64,height=48",
      "video/x-raw,format=BGR,width=64,height=48" },
  { "", "video/x-raw,format=RGBA,width=64,height=48",
      "video/x-raw,format=NV12,width=64,height=48" },
  { "", "video/x-raw,format=BGRA,width=64,height=48",
      "video/x-raw,format=GRAY8,width=50,height=30" },
  { "method=nearest", "video/x-raw,format=RGBA,width=64,height=48",
      "video/x-raw,format=RGBA,width=100,height=20" },
  { "crop-x=5 crop-y=7 crop-width=33 crop-height=21",
      "video/x-raw,format=RGBA,width=64,height=48",
      "video/x-raw,format=RGBA,width=40,height=40" },
  { "letterbox=symmetric pad-color=0xff102030",
      "video/x-raw,format=NV12,width=64,height=48",
      "video/x-raw,format=RGB,width=40,height=40" },
  { "brightness=0.1 contrast=1.2 gain=0.9",
      "video/x-raw,format=RGBA,width=64,height=48",
      "video/x-raw,format=RGBA,width=64,height=48" },
};

/* Runs N_FRAMES through @launch; returns the outputs (and the element's
 * counters through @captures, @replays, @eager). */
static GPtrArray *
run_frames (const gchar *element, const Case *c, const gchar *backend,
    const gchar *extra, guint64 *captures, guint64 *replays, guint64 *eager)
{
  g_autofree gchar *launch = g_strdup_printf ("%s backend=%s %s %s", element,
      backend, c->props, extra);
  GstHarness *h = gcg_test_harness_new (launch, c->in_caps, c->out_caps);
  GPtrArray *outs =
      g_ptr_array_new_with_free_func ((GDestroyNotify) gst_buffer_unref);
  const gchar *frame_caps = c->in_caps;

  for (guint i = 0; i < N_FRAMES; i++) {
    GstBuffer *in = gcg_test_frame_new (frame_caps, gcg_test_moving_px,
        GUINT_TO_POINTER (i), 100 + i);

    g_ptr_array_add (outs, gcg_test_push_pull (h, in));
  }
  *captures = gcg_test_get_u64 (h, element, "captures");
  *replays = gcg_test_get_u64 (h, element, "replays");
  *eager = gcg_test_get_u64 (h, element, "eager-frames");
  gst_harness_teardown (h);
  return outs;
}

/* Compares the visible bytes of two video frames (row padding is never
 * written), or whole buffers for tensors. */
static void
assert_same_buffer (GstBuffer *a, GstBuffer *b, const GstVideoInfo *info)
{
  GstVideoFrame fa, fb;

  if (info == NULL) {
    gcg_test_assert_same_bytes (a, b);
    return;
  }
  g_assert_true (gst_video_frame_map (&fa, info, a, GST_MAP_READ));
  g_assert_true (gst_video_frame_map (&fb, info, b, GST_MAP_READ));
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
    gsize row = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (&fa, p)
        * GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, p);

    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, p); y++) {
      const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      g_assert_cmpmem (ra, row, rb, row);
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
}

static void
assert_same_bytes (GPtrArray *a, GPtrArray *b, const gchar *out_caps)
{
  GstVideoInfo info;

  if (out_caps)
    info = gcg_test_info (out_caps);
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++)
    assert_same_buffer (a->pdata[i], b->pdata[i], out_caps ? &info : NULL);
}

static void
test_convert_matches_cpu (void)
{
  if (!gcg_test_have_gpu ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GPtrArray) gpu = NULL, cpu = NULL, eager = NULL;
    guint64 cap, rep, eag;

    g_test_message ("%s: %s -> %s", cases[i].props, cases[i].in_caps,
        cases[i].out_caps);
    cpu =
        run_frames ("cudagraphconvert", &cases[i], "cpu", "", &cap, &rep, &eag);
    gpu = run_frames ("cudagraphconvert", &cases[i], "cuda", "", &cap, &rep,
        &eag);
    assert_same_bytes (gpu, cpu, cases[i].out_caps);
    g_assert_cmpuint (cap, ==, 1);
    g_assert_cmpuint (rep, ==, EXPECTED_REPLAYS (N_FRAMES));
    g_assert_cmpuint (eag, ==, 0);

    eager = run_frames ("cudagraphconvert", &cases[i], "cuda",
        "use-graph=false", &cap, &rep, &eag);
    assert_same_bytes (eager, cpu, cases[i].out_caps);
    g_assert_cmpuint (cap, ==, 0);
    g_assert_cmpuint (eag, ==, N_FRAMES);
  }
}

static void
test_preprocess_matches_cpu (void)
{
  static const Case pcases[] = {
    { "width=32 height=32", "video/x-raw,format=NV12,width=64,height=48",
        NULL },
    { "width=16 height=8 layout=nhwc channels=bgr tensor-type=uint8 scale=1.0",
        "video/x-raw,format=RGBA,width=64,height=48", NULL },
    { "width=24 height=24 tensor-type=float16 letterbox=top-left "
      "mean=0.485,0.456,0.406 std=0.229,0.224,0.225",
        "video/x-raw,format=I420,width=64,height=48", NULL },
  };

  if (!gcg_test_have_gpu ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (pcases); i++) {
    g_autoptr (GPtrArray) gpu = NULL, cpu = NULL;
    guint64 cap, rep, eag;

    cpu = run_frames ("cudagraphpreprocess", &pcases[i], "cpu", "", &cap, &rep,
        &eag);
    gpu = run_frames ("cudagraphpreprocess", &pcases[i], "cuda", "", &cap, &rep,
        &eag);
    /* Same float32 arithmetic without contraction on both sides. */
    assert_same_bytes (gpu, cpu, NULL);
    g_assert_cmpuint (cap, ==, 1);
  }
}

/* A second size mid-stream: a second capture, the stream goes on. */
static void
test_caps_change_recaptures (void)
{
  const gchar *caps1 = "video/x-raw,format=NV12,width=64,height=48";
  const gchar *caps2 = "video/x-raw,format=NV12,width=32,height=16";
  GstHarness *h;

  if (!gcg_test_have_gpu ())
    return;
  h = gcg_test_harness_new ("cudagraphconvert backend=cuda", caps1,
      "video/x-raw,format=RGBA");
  for (guint i = 0; i < 3; i++)
    gst_buffer_unref (gcg_test_push_pull (h,
        gcg_test_frame_new (caps1, gcg_test_moving_px, GUINT_TO_POINTER (i),
            128)));
  gst_harness_set_src_caps_str (h, caps2);
  for (guint i = 0; i < 4; i++)
    gst_buffer_unref (gcg_test_push_pull (h,
        gcg_test_frame_new (caps2, gcg_test_moving_px, GUINT_TO_POINTER (i),
            128)));
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "captures"), ==,
      2);
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "replays"), ==,
      EXPECTED_REPLAYS (3) + EXPECTED_REPLAYS (4));
  gst_harness_teardown (h);
}

/* Pushes @n frames, the caps alternating between @caps[0] and @caps[1]
 * every @period frames, through @h and, for the first frame after each
 * switch (the first on a chain taken back from the cache), also through
 * @cpu: the outputs must match. */
static void
alternate_caps (GstHarness *h, GstHarness *cpu, const gchar *caps[2],
    const gchar *out_caps, guint n, guint period)
{
  GstVideoInfo info = gcg_test_info (out_caps);

  for (guint i = 0; i < n; i++) {
    const gchar *in_caps = caps[(i / period) % 2];
    GstBuffer *in = gcg_test_frame_new (in_caps, gcg_test_moving_px,
        GUINT_TO_POINTER (i), 128);
    GstBuffer *out, *want;

    if (i % period != 0) {
      gst_buffer_unref (gcg_test_push_pull (h, in));
      continue;
    }
    gst_harness_set_src_caps_str (h, in_caps);
    gst_harness_set_src_caps_str (cpu, in_caps);
    out = gcg_test_push_pull (h, gst_buffer_ref (in));
    want = gcg_test_push_pull (cpu, in);
    assert_same_buffer (out, want, &info);
    gst_buffer_unref (out);
    gst_buffer_unref (want);
  }
}

/* A -> B -> A -> ... over 10 000 frames, caps switching every 100: the
 * graph cache keeps both chains, so there are two captures in all and
 * every other frame replays; each switch's first frame equals the CPU
 * backend's.  With chain-cache-size=0 each switch captures again. */
static void
test_graph_cache_aba (void)
{
  const gchar *caps[2] = { "video/x-raw,format=NV12,width=64,height=48",
    "video/x-raw,format=NV12,width=32,height=16" };
  const gchar *out_caps = "video/x-raw,format=RGBA,width=40,height=30";
  GstHarness *h, *cpu;

  if (!gcg_test_have_gpu ())
    return;
  h = gcg_test_harness_new ("cudagraphconvert backend=cuda", caps[0], out_caps);
  cpu =
      gcg_test_harness_new ("cudagraphconvert backend=cpu", caps[0], out_caps);
  alternate_caps (h, cpu, caps, out_caps, 10000, 100);
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "captures"), ==,
      2);
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "chains-built"),
      ==, 2);
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "replays"), ==,
      10000 - 2);
  gst_harness_teardown (h);

  h = gcg_test_harness_new ("cudagraphconvert backend=cuda "
                            "chain-cache-size=0",
      caps[0], out_caps);
  alternate_caps (h, cpu, caps, out_caps, 1000, 100);
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "captures"), ==,
      10);
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "chains-built"),
      ==, 10);
  gst_harness_teardown (h);
  gst_harness_teardown (cpu);
}

/* Driver failures mid-stream (injected into cuGraphLaunch): a failed frame
 * is dropped with a warning and the stream goes on; more than max-errors
 * failures in a row stop it with an error.  Nothing crashes or leaks. */
static void
test_driver_failure_drops_frame (void)
{
  const gchar *caps = "video/x-raw,format=NV12,width=64,height=48";
  GstHarness *h;
  GstFlowReturn ret = GST_FLOW_OK;
  guint pushed;

  if (!gcg_test_have_gpu ())
    return;
  h = gcg_test_harness_new ("cudagraphconvert backend=cuda max-errors=2", caps,
      "video/x-raw,format=RGBA");
  g_assert_true (gcg_fault_inject ("cuGraphLaunch:3", NULL));
  for (guint i = 0; i < 5; i++)
    g_assert_cmpint (gst_harness_push (h,
                         gcg_test_frame_new (caps, gcg_test_moving_px,
                             GUINT_TO_POINTER (i), 128)),
        ==, GST_FLOW_OK);
  /* Frame 3 was dropped, the others came through. */
  g_assert_cmpuint (gst_harness_buffers_received (h), ==, 4);
  g_assert_cmpuint (gcg_test_get_u64 (h, "cudagraphconvert", "dropped-frames"),
      ==, 1);

  /* Every launch fails from now on: 2 drops are tolerated, the third
   * failure in a row is an error. */
  g_assert_true (gcg_fault_inject ("cuGraphLaunch:*", NULL));
  for (pushed = 0; pushed < 5 && ret == GST_FLOW_OK; pushed++)
    ret = gst_harness_push (h,
        gcg_test_frame_new (caps, gcg_test_moving_px, GUINT_TO_POINTER (pushed),
            128));
  g_assert_cmpint (ret, ==, GST_FLOW_ERROR);
  g_assert_cmpuint (pushed, ==, 3);
  g_assert_true (gcg_fault_inject (NULL, NULL));
  gst_harness_teardown (h);
}

/* With no pool from downstream, results land in pinned memory (so the
 * download runs at full speed), also after a passthrough spell ends. */
static void
test_output_pinned (void)
{
  const gchar *caps = "video/x-raw,format=RGBA,width=64,height=48";
  GstHarness *h;
  GstBuffer *out;

  if (!gcg_test_have_gpu ())
    return;
  h = gcg_test_harness_new ("cudagraphconvert backend=cuda", caps,
      "video/x-raw,format=RGBA,width=32,height=24");
  out = gcg_test_push_pull (h,
      gcg_test_frame_new (caps, gcg_test_moving_px, NULL, 0));
  g_assert_true (gst_memory_is_type (gst_buffer_peek_memory (out, 0),
      "CudaGraphPinnedMemory"));
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  /* Same caps, identity settings: passthrough; then brightness ends it. */
  h = gcg_test_harness_new ("cudagraphconvert backend=cuda", caps, caps);
  out = gcg_test_push_pull (h,
      gcg_test_frame_new (caps, gcg_test_moving_px, NULL, 0));
  gst_buffer_unref (out);
  {
    g_autoptr (GstElement)
        conv = gst_harness_find_element (h, "cudagraphconvert");

    g_object_set (conv, "brightness", 0.1, NULL);
  }
  out = gcg_test_push_pull (h,
      gcg_test_frame_new (caps, gcg_test_moving_px, NULL, 0));
  g_assert_true (gst_memory_is_type (gst_buffer_peek_memory (out, 0),
      "CudaGraphPinnedMemory"));
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* Same visible bytes as assert_same_buffer(), as a verdict. */
static gboolean
same_frame (GstBuffer *a, GstBuffer *b, const GstVideoInfo *info)
{
  GstVideoFrame fa, fb;
  gboolean same = TRUE;

  g_assert_true (gst_video_frame_map (&fa, info, a, GST_MAP_READ));
  g_assert_true (gst_video_frame_map (&fb, info, b, GST_MAP_READ));
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++) {
    gsize row = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (&fa, p)
        * GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, p);

    for (gint y = 0; same && y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, p); y++)
      same = memcmp ((const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p)
                     + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p),
                 (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p)
                     + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p),
                 row)
          == 0;
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return same;
}

/* One entry point failing at its @nth call while three frames go through;
 * returns what went wrong (NULL: nothing) and counts drops in @hit. */
static gchar *
sweep_one (const gchar *spec, const gchar *caps, const gchar *out_caps,
    GstBuffer *expected, guint *hit)
{
  GstVideoInfo info = gcg_test_info (out_caps);
  GstHarness *h =
      gcg_test_harness_new ("cudagraphconvert backend=cuda max-errors=-1", caps,
          out_caps);
  gchar *problem = NULL;
  GstFlowReturn ret = GST_FLOW_OK;
  GstBuffer *out;
  guint64 dropped;

  g_assert_true (gcg_fault_inject (spec, NULL));
  for (guint i = 0; i < 3 && ret == GST_FLOW_OK; i++)
    ret = gst_harness_push (h,
        gcg_test_frame_new (caps, gcg_test_moving_px, GUINT_TO_POINTER (i),
            128));
  g_assert_true (gcg_fault_inject (NULL, NULL));
  dropped = gcg_test_get_u64 (h, "cudagraphconvert", "dropped-frames");
  /* A frame that fails on the GPU after it left is counted as failed, not
   * dropped: it came out. */
  *hit += gcg_test_get_u64 (h, "cudagraphconvert", "failed-frames") > 0;
  if (ret != GST_FLOW_OK)
    problem =
        g_strdup_printf ("%s: push returned %s", spec, gst_flow_get_name (ret));
  else if (gst_harness_buffers_received (h) + dropped != 3)
    problem = g_strdup_printf ("%s: %u frames out, %" G_GUINT64_FORMAT
                               " dropped, of 3",
        spec, gst_harness_buffers_received (h), dropped);
  while ((out = gst_harness_try_pull (h)))
    gst_buffer_unref (out);
  if (problem == NULL) {
    ret = gst_harness_push (h,
        gcg_test_frame_new (caps, gcg_test_moving_px, GUINT_TO_POINTER (9),
            128));
    out = gst_harness_try_pull (h);
    if (ret != GST_FLOW_OK || out == NULL)
      problem = g_strdup_printf ("%s: the frame after the fault: %s", spec,
          gst_flow_get_name (ret));
    else if (!same_frame (expected, out, &info))
      problem = g_strdup_printf ("%s: the frame after the fault differs from "
                                 "the CPU backend's",
          spec);
    gst_clear_buffer (&out);
  }
  gst_harness_teardown (h);
  return problem;
}

/* Every entry point failing at its first or second call while three
 * frames go through: each frame comes out or is counted as dropped, none
 * is lost otherwise (one that failed after it left also counts as failed), and the next frame after the fault equals the CPU
 * backend's.  Every case runs; the failures are listed together. */
static void
test_fault_sweep (void)
{
  const gchar *caps = "video/x-raw,format=NV12,width=64,height=48";
  const gchar *out_caps = "video/x-raw,format=RGBA,width=40,height=30";
  g_autoptr (GString) problems = g_string_new (NULL);
  GstHarness *cpu;
  GstBuffer *expected;
  GLogLevelFlags fatal;
  guint hit = 0;

  if (!gcg_test_have_gpu ())
    return;
  cpu = gcg_test_harness_new ("cudagraphconvert backend=cpu", caps, out_caps);
  expected = gcg_test_push_pull (cpu,
      gcg_test_frame_new (caps, gcg_test_moving_px, GUINT_TO_POINTER (9), 128));
  gst_harness_teardown (cpu);
  /* Cleanup calls failing under injection warn; criticals stay fatal.
   * (A fatal handler would not do: GLib still prints TAP's "Bail out!".) */
  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  for (GcgCudaId id = 0; id < GCG_CUDA_N_FUNCS; id++) {
    for (guint nth = 1; nth <= 2; nth++) {
      g_autofree gchar *spec =
          g_strdup_printf ("%s:%u", gcg__cuda_func_name (id), nth);
      g_autofree gchar *problem =
          sweep_one (spec, caps, out_caps, expected, &hit);

      if (problem) {
        g_test_message ("%s", problem);
        g_string_append_printf (problems, "%s\n", problem);
      }
    }
  }
  g_log_set_always_fatal (fatal);
  gst_buffer_unref (expected);
  g_test_message ("%u of %u injected faults dropped a frame", hit,
      2 * GCG_CUDA_N_FUNCS);
  g_assert_cmpstr (problems->str, ==, "");
  g_assert_cmpuint (hit, >=, 10);
}

/* videotestsrc ! cudagraphconvert ! fakesink reaches EOS, and the stats
 * message says the CUDA backend ran. */
static void
test_pipeline_eos (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) pipeline = NULL;
  g_autoptr (GstBus) bus = NULL;
  gboolean saw_stats = FALSE;
  GstMessage *msg;

  if (!gcg_test_have_gpu ())
    return;
  pipeline = gst_parse_launch (
      "videotestsrc num-buffers=60 ! "
      "video/x-raw,format=NV12,width=1920,height=1080 ! "
      "cudagraphconvert backend=cuda ! "
      "video/x-raw,format=RGBA,width=640,height=360 ! fakesink",
      &error);
  g_assert_no_error (error);
  bus = gst_element_get_bus (pipeline);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  while ((msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    GstMessageType type = GST_MESSAGE_TYPE (msg);
    const GstStructure *s = gst_message_get_structure (msg);

    if (type == GST_MESSAGE_ERROR) {
      g_autoptr (GError) err = NULL;
      gst_message_parse_error (msg, &err, NULL);
      g_error ("pipeline error: %s", err->message);
    }
    if (type == GST_MESSAGE_ELEMENT
        && gst_structure_has_name (s, "cudagraph-stats")) {
      guint64 captures = 0, frames = 0;

      g_assert_cmpstr (gst_structure_get_string (s, "backend"), ==, "cuda");
      gst_structure_get_uint64 (s, "captures", &captures);
      gst_structure_get_uint64 (s, "frames", &frames);
      g_assert_cmpuint (captures, ==, 1);
      g_assert_cmpuint (frames, ==, 60);
      saw_stats = TRUE;
    }
    gst_message_unref (msg);
    if (type == GST_MESSAGE_EOS)
      break;
  }
  g_assert_true (saw_stats);
  gst_element_set_state (pipeline, GST_STATE_NULL);
}

int
main (int argc, char **argv)
{
  gcg_test_add_bundle_plugins ();
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gst/gpu/convert-matches-cpu", test_convert_matches_cpu);
  g_test_add_func ("/gst/gpu/preprocess-matches-cpu",
      test_preprocess_matches_cpu);
  g_test_add_func ("/gst/gpu/caps-change-recaptures",
      test_caps_change_recaptures);
  g_test_add_func ("/gst/gpu/graph-cache-aba", test_graph_cache_aba);
  g_test_add_func ("/gst/gpu/pipeline-eos", test_pipeline_eos);
  g_test_add_func ("/gst/gpu/output-pinned", test_output_pinned);
  g_test_add_func ("/gst/gpu/fault-sweep", test_fault_sweep);
  g_test_add_func ("/gst/gpu/driver-failure-drops-frame",
      test_driver_failure_drops_frame);
  return g_test_run ();
}
