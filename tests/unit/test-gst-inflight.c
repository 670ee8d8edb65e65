/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The in-flight data path of both elements on the CPU reference backend
 * (no GPU needed): 50 frames whose values change with every frame (a
 * "GcgParamsMeta" brightness and contrast, a crop meta, a different set of
 * ROI metas or none) give the same bytes, in the same order and with the
 * same timestamps, with in-flight=1 and in-flight=8, also across a flush
 * and a caps change in the middle; each output equals what a fresh element
 * makes of that frame alone; EOS passes after every frame with a
 * cudagraph-stats message counting them; the in-flight property keeps to
 * its range.  The CPU backend would finish each frame inside submit, so
 * GCG_CPU_COMPLETION_DELAY keeps frames pending as a GPU would: the depth
 * then matters (slot waits are counted) and order and reuse are tested.
 */
#include "gcg-gst-test-util.h"
#include "common/gcg-test-gst.h"

#include "gstcudagraphtensormeta.h"

#define N_FRAMES 50
#define FRAME_DURATION (GST_SECOND / 30)
/* How many frames behind the CPU backend finishes (see main()): between
 * the depths tested (1, 8, 16), so two of them wait for slots. */
#define DELAY 12
/* Where the flush or the caps change happens. */
#define MIDDLE 20

#define IN_CAPS "video/x-raw,format=NV12,width=64,height=48,framerate=30/1"
#define IN_CAPS2 "video/x-raw,format=NV12,width=48,height=36,framerate=30/1"

/* --- per-frame input ----------------------------------------------------- */

/* Luma that moves with the frame number, so that every frame differs (one
 * byte per pixel: the harness helper fills plane 0 of NV12). */
static void
moving_luma (guint x, guint y, guint8 *px, gpointer user_data)
{
  guint t = GPOINTER_TO_UINT (user_data);

  px[0] = (guint8) (16 + ((x * 7 + y * 3 + t * 13) % 220));
}

/* cudagraphconvert: brightness and contrast from a params meta on two
 * frames of three, a crop meta of changing size on one of four. */
static void
decorate_convert (GstBuffer *buf, guint i)
{
  if (i % 3 != 2)
    gcg_test_add_params_meta (buf, (gdouble) ((gint) ((i * 7) % 11) - 5) * 0.04,
        0.9 + (i % 5) * 0.05);
  if (i % 4 == 1) {
    GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (buf);

    crop->x = (i % 8) * 2;
    crop->y = (i % 6) * 2;
    crop->width = 24 + (i % 5) * 4;
    crop->height = 16 + (i % 3) * 4;
  }
}

/* ROIs of frame @i: i % 4 of them (none on every fourth frame), with one
 * outside the frame (skipped by the element) on some. */
static guint
n_rois_of (guint i)
{
  return i % 4;
}

static void
roi_of (guint i, guint j, guint *x, guint *y, guint *w, guint *h)
{
  *x = (i * 3 + j * 11) % 32;
  *y = (i + j * 7) % 24;
  *w = 8 + ((i + j) % 5) * 4;
  *h = 6 + ((i * j) % 4) * 5;
}

/* cudagraphpreprocess: a different set of ROI metas on each frame, none
 * on every fourth, and a params meta brightness on even frames. */
static void
decorate_preprocess (GstBuffer *buf, guint i)
{
  /* Outside the frame, before the others: skipped, the items that follow
   * keep their order. */
  if (i % 10 == 9)
    gst_buffer_add_video_region_of_interest_meta (buf, "obj", 1000, 1000, 8, 8);
  for (guint j = 0; j < n_rois_of (i); j++) {
    GstVideoRegionOfInterestMeta *roi;
    guint x, y, w, h;

    roi_of (i, j, &x, &y, &w, &h);
    roi = gst_buffer_add_video_region_of_interest_meta (buf, "obj", x, y, w, h);
    roi->id = (gint) (i * 10 + j);
  }
  if (i % 2 == 0)
    gcg_test_add_params_meta (buf, (gdouble) (i % 7) * 0.05 - 0.15, 1.0);
}

typedef struct
{
  const gchar *launch;          /* element and properties, in-flight aside */
  const gchar *factory;
  const gchar *out_caps;        /* NULL: whatever the element offers */
  void (*decorate) (GstBuffer *buf, guint i);
  gboolean tensor;
} Case;

static const Case convert_case = {
  "cudagraphconvert backend=cpu letterbox=symmetric pad-color=0xff204060",
  "cudagraphconvert", "video/x-raw,format=RGBA,width=40,height=30",
  decorate_convert, FALSE
};

static const Case preprocess_case = {
  "cudagraphpreprocess backend=cpu width=16 height=16 max-rois=3 "
  "letterbox=symmetric pad-value=0.25",
  "cudagraphpreprocess", NULL, decorate_preprocess, TRUE
};

/* Input frame @i in @caps, with its metas and timestamps. */
static GstBuffer *
make_input (const Case *c, const gchar *caps, guint i)
{
  GstBuffer *buf = gcg_test_frame_new (caps, moving_luma, GUINT_TO_POINTER (i),
      (guint8) (90 + (i * 5) % 80));

  c->decorate (buf, i);
  GST_BUFFER_PTS (buf) = i * FRAME_DURATION;
  GST_BUFFER_DURATION (buf) = FRAME_DURATION;
  GST_BUFFER_OFFSET (buf) = i;
  return buf;
}

/* --- outputs ------------------------------------------------------------- */

/* The visible bytes of a video frame (row padding is never written), or
 * the whole tensor. */
static GBytes *
output_bytes (GstBuffer *buf, GstCaps *caps)
{
  GByteArray *bytes = g_byte_array_new ();

  gcg_test_append_visible (bytes, buf, caps);
  return g_byte_array_free_to_bytes (bytes);
}

/* The tensor meta of frame @i's output names its ROIs, in order, skipping
 * the one outside the frame; a frame without ROIs is one whole-frame
 * item. */
static void
check_tensor_meta (GstBuffer *out, guint i, const gchar *in_caps)
{
  GstVideoInfo info = gcg_test_info (in_caps);
  GstCudaGraphTensorMeta *meta = gst_cuda_graph_buffer_get_tensor_meta (out);
  guint n = n_rois_of (i);

  g_assert_nonnull (meta);
  g_assert_cmpuint (meta->memory, ==, GST_CUDA_GRAPH_TENSOR_MEMORY_SYSTEM);
  g_assert_cmpuint (meta->batch, ==, 3);
  g_assert_cmpuint (meta->size, ==, 3 * 3 * 16 * 16 * sizeof (gfloat));
  g_assert_cmpuint (meta->shape[0], ==, 3);
  g_assert_cmpuint (meta->n_items, ==, MAX (n, 1));
  if (n == 0) {
    g_assert_cmpint (meta->items[0].roi_id, ==, -1);
    g_assert_cmpint (meta->items[0].roi_width, ==,
        GST_VIDEO_INFO_WIDTH (&info));
    return;
  }
  for (guint j = 0; j < n; j++) {
    guint x, y, w, h;

    roi_of (i, j, &x, &y, &w, &h);
    g_assert_cmpint (meta->items[j].roi_id, ==, (gint) (i * 10 + j));
    g_assert_cmpint (meta->items[j].roi_x, ==, (gint) x);
    g_assert_cmpint (meta->items[j].roi_y, ==, (gint) y);
  }
}

/* --- runs ---------------------------------------------------------------- */

typedef enum
{
  RUN_PLAIN,
  RUN_FLUSH,                    /* flush after MIDDLE frames */
  RUN_CAPS,                     /* smaller input from MIDDLE on */
} RunKind;

static const gchar *
caps_of (RunKind kind, guint i)
{
  return kind == RUN_CAPS && i >= MIDDLE ? IN_CAPS2 : IN_CAPS;
}

/* Every field the contract names, with the CPU backend's values. */
static void
check_stats (const GstStructure *s, guint in_flight, guint64 frames)
{
  guint depth = 0;

  g_assert_cmpstr (gst_structure_get_string (s, "backend"), ==, "cpu");
  g_assert_cmpuint (gcg_test_stats_u64 (s, "frames"), ==, frames);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "eager-frames"), ==, frames);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "captures"), ==, 0);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "replays"), ==, 0);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "dropped-frames"), ==, 0);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "in-place-inputs"), ==, 0);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "in-place-outputs"), ==, 0);
  (void) gcg_test_stats_u64 (s, "slot-waits");
  g_assert_true (gst_structure_get_uint (s, "in-flight", &depth));
  g_assert_cmpuint (depth, ==, in_flight);
  /* Device and pinned figures come with the CUDA backend only. */
  g_assert_false (gst_structure_has_field (s, "device-bytes-allocated"));
  g_assert_false (gst_structure_has_field (s, "pinned-bytes-in-use"));
}

/* Pulls the one output frame @i gave: in order, with its timestamps. */
static GBytes *
pull_output (GstHarness *h, const Case *c, RunKind kind, guint i)
{
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (h->sinkpad);
  GstBuffer *out = gst_harness_try_pull (h);
  GBytes *bytes;

  g_assert_nonnull (out);
  g_assert_cmpuint (GST_BUFFER_PTS (out), ==, i * FRAME_DURATION);
  g_assert_cmpuint (GST_BUFFER_DURATION (out), ==, FRAME_DURATION);
  if (c->tensor)
    check_tensor_meta (out, i, caps_of (kind, i));
  bytes = output_bytes (out, caps);
  gst_buffer_unref (out);
  return bytes;
}

/* N_FRAMES through @c with @in_flight, then EOS; returns each frame's
 * output bytes, in input order.  RUN_FLUSH pushes MIDDLE frames and
 * flushes before pulling any (they were pushed: the flush must not touch
 * them); RUN_CAPS changes the input size at frame MIDDLE. */
static GPtrArray *
run (const Case *c, guint in_flight, RunKind kind)
{
  g_autofree gchar *launch =
      g_strdup_printf ("%s in-flight=%u", c->launch, in_flight);
  GstHarness *h = gcg_test_harness_new (launch, IN_CAPS, c->out_caps);
  GPtrArray *outs =
      g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr (GstBus) bus = gst_bus_new ();
  g_autoptr (GstStructure) stats = NULL;
  g_autoptr (GstElement) e = gst_harness_find_element (h, c->factory);
  guint pulled = 0;

  gst_element_set_bus (h->element, bus);
  {
    guint v = 0;

    g_object_get (e, "in-flight", &v, NULL);
    g_assert_cmpuint (v, ==, in_flight);
  }
  for (guint i = 0; i < N_FRAMES; i++) {
    if (i == MIDDLE && kind == RUN_FLUSH)
      gcg_test_flush (h);
    if (i == MIDDLE && kind == RUN_CAPS)
      gst_harness_set_src_caps_str (h, IN_CAPS2);
    g_assert_cmpint (gst_harness_push (h, make_input (c, caps_of (kind, i), i)),
        ==, GST_FLOW_OK);
    /* A flush run holds its first outputs until after the flush. */
    if (kind == RUN_FLUSH && i < MIDDLE)
      continue;
    for (; pulled <= i; pulled++)
      g_ptr_array_add (outs, pull_output (h, c, kind, pulled));
  }
  /* EOS goes downstream after every frame, with the stats before it. */
  stats = gcg_test_finish_segment (h, bus);
  /* Frames were really queued (see main()): with DELAY frames pending
   * and room for in-flight, every frame past the depth waited for a
   * slot; none did with more room than DELAY. */
  if (kind == RUN_PLAIN)
    g_assert_cmpuint (gcg_test_stats_u64 (stats, "slot-waits"), ==,
        in_flight <= DELAY ? N_FRAMES - in_flight : 0);
  check_stats (stats, in_flight, N_FRAMES);
  g_assert_cmpuint (gcg_test_get_u64 (h, c->factory, "dropped-frames"), ==, 0);

  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
  g_assert_cmpuint (outs->len, ==, N_FRAMES);
  return outs;
}

/* Frame @i alone through a fresh element: what it must give whatever came
 * before it. */
static GBytes *
alone (const Case *c, RunKind kind, guint i)
{
  const gchar *caps = caps_of (kind, i);
  GstHarness *h = gcg_test_harness_new (c->launch, caps, c->out_caps);
  GstBuffer *out = gcg_test_push_pull (h, make_input (c, caps, i));
  g_autoptr (GstCaps) out_caps = gst_pad_get_current_caps (h->sinkpad);
  GBytes *bytes = output_bytes (out, out_caps);

  gst_buffer_unref (out);
  gst_harness_teardown (h);
  return bytes;
}

static void
assert_same (GPtrArray *a, GPtrArray *b, const gchar *what)
{
  g_assert_cmpuint (a->len, ==, b->len);
  for (guint i = 0; i < a->len; i++) {
    if (!g_bytes_equal (a->pdata[i], b->pdata[i]))
      g_error ("%s: frame %u differs", what, i);
  }
}

/* One test: a case, a kind of run, and the name its failures give. */
typedef struct
{
  const gchar *path;
  const Case *c;
  RunKind kind;
  const gchar *name;
} CaseTest;

static const CaseTest case_tests[] = {
  { "/gst/inflight/convert/plain", &convert_case, RUN_PLAIN, "convert" },
  { "/gst/inflight/convert/flush", &convert_case, RUN_FLUSH, "convert, flush" },
  { "/gst/inflight/convert/caps-change", &convert_case, RUN_CAPS,
      "convert, caps change" },
  { "/gst/inflight/preprocess/plain", &preprocess_case, RUN_PLAIN,
      "preprocess" },
  { "/gst/inflight/preprocess/flush", &preprocess_case, RUN_FLUSH,
      "preprocess, flush" },
  { "/gst/inflight/preprocess/caps-change", &preprocess_case, RUN_CAPS,
      "preprocess, caps change" },
};

static void
test_case (gconstpointer data)
{
  const CaseTest *t = data;
  g_autoptr (GPtrArray) one = run (t->c, 1, t->kind);
  g_autoptr (GPtrArray) eight = run (t->c, 8, t->kind);
  g_autoptr (GPtrArray)
      ref = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);

  for (guint i = 0; i < N_FRAMES; i++)
    g_ptr_array_add (ref, alone (t->c, t->kind, i));
  assert_same (eight, one, t->name);
  assert_same (one, ref, t->name);
  /* The values really change from frame to frame. */
  for (guint i = 1; i < N_FRAMES; i++)
    g_assert_false (g_bytes_equal (ref->pdata[i], ref->pdata[i - 1]));
}

/* --- the property -------------------------------------------------------- */

static void
check_property (const gchar *factory)
{
  g_autoptr (GstElement) e = gst_element_factory_make (factory, NULL);
  GParamSpec *p;
  guint v = 0;

  g_assert_nonnull (e);
  p = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "in-flight");
  g_assert_nonnull (p);
  g_assert_true (G_IS_PARAM_SPEC_UINT (p));
  g_assert_cmpint (p->flags & G_PARAM_READWRITE, ==, G_PARAM_READWRITE);
  g_assert_true (p->flags & GST_PARAM_MUTABLE_READY);
  g_assert_cmpuint (G_PARAM_SPEC_UINT (p)->minimum, ==, 1);
  g_assert_cmpuint (G_PARAM_SPEC_UINT (p)->maximum, ==, 16);
  g_assert_cmpuint (G_PARAM_SPEC_UINT (p)->default_value, ==, 4);

  g_object_get (e, "in-flight", &v, NULL);
  g_assert_cmpuint (v, ==, 4);
  g_object_set (e, "in-flight", 1, NULL);
  g_object_get (e, "in-flight", &v, NULL);
  g_assert_cmpuint (v, ==, 1);
  g_object_set (e, "in-flight", 16, NULL);
  g_object_get (e, "in-flight", &v, NULL);
  g_assert_cmpuint (v, ==, 16);

  /* 0 and 17 never reach the element: the range asserted above keeps them
   * out (how GLib reports that differs between 2.74 and 2.84).  A string
   * that does not parse, as gst-launch would pass it, leaves the value. */
  gst_util_set_object_arg (G_OBJECT (e), "in-flight", "many");
  g_object_get (e, "in-flight", &v, NULL);
  g_assert_cmpuint (v, ==, 16);

  /* As gst-launch sets it. */
  gst_util_set_object_arg (G_OBJECT (e), "in-flight", "3");
  g_object_get (e, "in-flight", &v, NULL);
  g_assert_cmpuint (v, ==, 3);
}

static void
test_property (void)
{
  check_property ("cudagraphconvert");
  check_property ("cudagraphpreprocess");
}

/* The deepest queue the range allows gives the same bytes too. */
static void
test_max_depth (void)
{
  g_autoptr (GPtrArray) one = run (&convert_case, 1, RUN_PLAIN);
  g_autoptr (GPtrArray) deepest = run (&convert_case, 16, RUN_PLAIN);

  assert_same (deepest, one, "convert, in-flight=16");
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  /* Before any element makes its frame queue (lib/frame/gcg-frame-queue.c
   * reads it then): a CPU frame stays pending until DELAY later frames
   * came, as on a GPU, so in-flight depth, order and reuse are tested. */
  g_setenv ("GCG_CPU_COMPLETION_DELAY", G_STRINGIFY (DELAY), TRUE);

  /* Loading the plugin registers the "GcgParamsMeta" custom meta. */
  {
    g_autoptr (GstElement)
        e = gst_element_factory_make ("cudagraphconvert", NULL);

    g_assert_nonnull (e);
    g_assert_nonnull (gst_meta_get_info ("GcgParamsMeta"));
  }

  for (guint i = 0; i < G_N_ELEMENTS (case_tests); i++)
    g_test_add_data_func (case_tests[i].path, &case_tests[i], test_case);
  g_test_add_func ("/gst/inflight/property", test_property);
  g_test_add_func ("/gst/inflight/max-depth", test_max_depth);
  return g_test_run ();
}
