/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphbatch on the CPU backend, one GstHarness per sink pad (the
 * first also holds the src pad) on a test clock: batch assembly with 1, 3
 * and 16 streams of different formats and sizes, ROI counts changing per
 * frame, crops, partial batches on timeout, pads joining and leaving while
 * playing, caps changing mid-stream and EOS.  Every batch is checked byte
 * for byte against cudagraphpreprocess run on each stream alone, and each
 * item's back-map against gcg_frame_item_map_init().
 */
#include "gcg-gst-test-util.h"
#include "../gst/gstcudagraphbatchmeta.h"
#include "../gst/gstcudagraphtensormeta.h"

#include <gcg.h>

#define OUT_W 24
#define OUT_H 20
#define ITEM_BYTES (3 * OUT_W * OUT_H * 4)
#define ELEMENT_PROPS "backend=cpu width=24 height=20 letterbox=symmetric " \
  "mean=0.5,0.4,0.3 std=0.2,0.25,0.3 pad-value=-2"

/* One stream: its harness, caps and reference preprocessor. */
typedef struct
{
  GstHarness *h;
  GstPad *pad;                  /* the element's sink pad */
  gchar *caps;
  GstHarness *ref;
  guint seed;
} Stream;

typedef struct
{
  GstElement *batch;
  GstHarness *out;              /* the first stream's harness: src pad */
  Stream streams[16];
  guint n;
  guint max_rois;
} Fixture;

typedef struct
{
  guint seed;
  guint pstride;
} Ramp;

static void
ramp_px (guint x, guint y, guint8 * px, gpointer user_data)
{
  const Ramp *r = user_data;

  for (guint c = 0; c < r->pstride; c++)
    px[c] = (guint8) (x * (7 + c) + y * (13 + r->seed) + r->seed * 31
        + c * 50);
}

/* A frame of @caps with a pattern of its own per @seed, PTS @pts. */
static GstBuffer *
make_frame (const gchar * caps, guint seed, GstClockTime pts)
{
  GstVideoInfo info = gcg_test_info (caps);
  Ramp r = { seed, GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0) };
  GstBuffer *buf;

  buf = gcg_test_frame_new (caps, ramp_px, &r, (guint8) (90 + seed * 11));
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

static void
add_roi (GstBuffer * buf, const gchar * type, gint id, guint x, guint y,
    guint w, guint h)
{
  GstVideoRegionOfInterestMeta *m =
      gst_buffer_add_video_region_of_interest_meta (buf, type, x, y, w, h);

  m->id = id;
}

static void
fixture_init (Fixture * f, const gchar * props, guint max_rois)
{
  g_autofree gchar *desc = g_strdup_printf ("cudagraphbatch " ELEMENT_PROPS
      " max-rois=%u %s", max_rois, props ? props : "");

  memset (f, 0, sizeof (*f));
  f->batch = gst_parse_launch (desc, NULL);
  g_assert_nonnull (f->batch);
  f->max_rois = max_rois;
}

/* Requests a sink pad (a harness on it) for a stream of @caps. */
static Stream *
add_stream (Fixture * f, const gchar * caps, guint seed)
{
  Stream *s = &f->streams[f->n++];
  g_autofree gchar *ref = g_strdup_printf ("cudagraphpreprocess "
      ELEMENT_PROPS " max-rois=%u", f->max_rois);

  s->h = gst_harness_new_with_element (f->batch, "sink_%u",
      f->out ? NULL : "src");
  if (f->out == NULL) {
    f->out = s->h;
    gst_harness_use_testclock (s->h);
  }
  s->pad = gst_pad_get_peer (s->h->srcpad);
  s->caps = g_strdup (caps);
  s->seed = seed;
  gst_harness_set_src_caps_str (s->h, caps);
  s->ref = gst_harness_new_parse (ref);
  gst_harness_set_src_caps_str (s->ref, caps);
  return s;
}

static void
stream_set_caps (Stream * s, const gchar * caps)
{
  g_autoptr (GstCaps) c = gst_caps_from_string (caps);

  g_free (s->caps);
  s->caps = g_strdup (caps);
  g_assert_true (gst_harness_push_event (s->h, gst_event_new_caps (c)));
  g_assert_true (gst_harness_push_event (s->ref, gst_event_new_caps (c)));
}

static void
stream_clear (Stream * s, gboolean is_out)
{
  if (!is_out && s->h)
    gst_harness_teardown (s->h);
  gst_harness_teardown (s->ref);
  gst_clear_object (&s->pad);
  g_free (s->caps);
}

static void
fixture_clear (Fixture * f)
{
  for (guint i = 0; i < f->n; i++)
    stream_clear (&f->streams[i], f->streams[i].h == f->out);
  gst_harness_teardown (f->out);
  gst_object_unref (f->batch);
}

/* The reference tensor of @buf (not taken) through @s's preprocessor. */
static GstBuffer *
reference (Stream * s, GstBuffer * buf)
{
  return gcg_test_push_pull (s->ref, gst_buffer_copy_deep (buf));
}

/* Pushes @buf (taken) into @s's pad. */
static void
push (Stream * s, GstBuffer * buf)
{
  g_assert_cmpint (gst_harness_push (s->h, buf), ==, GST_FLOW_OK);
}

/* Expects source @k of @batch to be @s's frame whose reference tensor is
 * @ref (its items at the source's place, equal byte for byte) and each
 * item's back-map to be the chain's fit.  Returns the next item index. */
static guint
check_source (GstBuffer * batch, guint k, Stream * s, GstBuffer * ref,
    GstClockTime pts)
{
  GcgBatchMeta *bm = gcg_buffer_get_batch_meta (batch);
  GcgTensorMeta *rm = gcg_buffer_get_tensor_meta (ref);
  GcgBatchMetaSource *src = &bm->sources[k];
  g_autofree gchar *pad_name = gst_pad_get_name (s->pad);
  GstMapInfo bmap, rmap;

  g_assert_nonnull (rm);
  g_assert_cmpstr (src->pad_name, ==, pad_name);
  g_assert_cmpuint (src->pts, ==, pts);
  g_assert_cmpuint (src->n_items, ==, rm->n_items);
  g_assert_true (gst_buffer_map (batch, &bmap, GST_MAP_READ));
  g_assert_true (gst_buffer_map (ref, &rmap, GST_MAP_READ));
  g_assert_cmpmem (bmap.data + (gsize) src->first_item * ITEM_BYTES,
      rm->n_items * ITEM_BYTES, rmap.data, rm->n_items * ITEM_BYTES);
  gst_buffer_unmap (ref, &rmap);
  gst_buffer_unmap (batch, &bmap);
  for (guint i = 0; i < rm->n_items; i++) {
    GcgBatchMetaItem *it = &bm->items[src->first_item + i];
    GcgTensorMetaItem *ri = &rm->items[i];
    GcgRect roi = { ri->roi_x, ri->roi_y, ri->roi_width, ri->roi_height };
    GcgFrameItemMap map;

    g_assert_cmpuint (it->source, ==, k);
    g_assert_cmpint (it->roi_id, ==, ri->roi_id);
    gcg_frame_item_map_init (&map, &roi, OUT_W, OUT_H,
        GCG_LETTERBOX_SYMMETRIC);
    g_assert_cmpint (it->roi_x, ==, roi.x);
    g_assert_cmpint (it->roi_width, ==, roi.width);
    g_assert_cmpint (it->pad_x, ==, ri->pad_x);
    g_assert_cmpint (it->pad_y, ==, ri->pad_y);
    g_assert_cmpfloat (it->scale_x, ==, map.scale_x);
    g_assert_cmpfloat (it->offset_y, ==, map.offset_y);
  }
  return src->first_item + rm->n_items;
}

/* One batch of a frame from each stream in @which (NULL: all), frames made
 * by @decorate (may be NULL) per stream; checks it whole. */
typedef void (*DecorateFunc) (guint stream, guint frame, GstBuffer * buf);

static void
run_batch (Fixture * f, const guint * which, guint n_which, guint frame,
    DecorateFunc decorate)
{
  GstBuffer *refs[16];
  GstClockTime pts = frame * (GST_SECOND / 30);
  g_autoptr (GstBuffer) out = NULL;
  GcgBatchMeta *bm;
  guint k = 0, i;

  for (i = 0; i < n_which; i++) {
    Stream *s = &f->streams[which ? which[i] : i];
    GstBuffer *buf = make_frame (s->caps, s->seed + frame, pts);

    if (decorate)
      decorate (which ? which[i] : i, frame, buf);
    refs[i] = reference (s, buf);
    push (s, buf);
  }
  out = gst_harness_pull (f->out);
  g_assert_nonnull (out);
  g_assert_cmpuint (GST_BUFFER_PTS (out), ==, pts);
  bm = gcg_buffer_get_batch_meta (out);
  g_assert_nonnull (bm);
  g_assert_cmpuint (bm->n_sources, ==, n_which);
  for (i = 0; i < n_which; i++) {
    k = check_source (out, i, &f->streams[which ? which[i] : i], refs[i],
        pts);
    gst_buffer_unref (refs[i]);
  }
  g_assert_cmpuint (bm->n_items, ==, k);
  g_assert_cmpuint (gcg_buffer_get_tensor_meta (out)->n_items, ==, k);
}

static void
run_all (Fixture * f, guint frame, DecorateFunc decorate)
{
  run_batch (f, NULL, f->n, frame, decorate);
}

static const gchar *const mixed_caps[] = {
  "video/x-raw,format=NV12,width=64,height=48,framerate=30/1",
  "video/x-raw,format=RGBA,width=50,height=30,framerate=30/1",
  "video/x-raw,format=GRAY8,width=33,height=77,framerate=30/1",
  "video/x-raw,format=I420,width=40,height=40,framerate=30/1",
  "video/x-raw,format=BGR,width=21,height=35,framerate=30/1",
  "video/x-raw,format=BGRA,width=48,height=18,framerate=30/1",
  "video/x-raw,format=RGB,width=26,height=26,framerate=30/1",
};

static void
check_dims (Fixture * f, const gchar * dims)
{
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (f->out->sinkpad);
  GstStructure *s = gst_caps_get_structure (caps, 0);

  g_assert_cmpstr (gst_structure_get_string (s, "dimensions"), ==, dims);
}

static void
test_pads (guint n_pads, guint n_frames)
{
  Fixture f;
  g_autofree gchar *dims = g_strdup_printf ("%u:%u:3:%u", OUT_W, OUT_H,
      n_pads);

  fixture_init (&f, NULL, 1);
  for (guint i = 0; i < n_pads; i++)
    add_stream (&f, mixed_caps[i % G_N_ELEMENTS (mixed_caps)], i * 3);
  for (guint fr = 0; fr < n_frames; fr++)
    run_all (&f, fr, NULL);
  check_dims (&f, dims);
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "batches"),
      ==, n_frames);
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch",
          "eager-frames"), ==, n_frames);
  fixture_clear (&f);
}

static void
test_one_pad (void)
{
  test_pads (1, 3);
}

static void
test_three_pads (void)
{
  test_pads (3, 3);
}

static void
test_sixteen_pads (void)
{
  test_pads (16, 2);
}

/* ROI counts change per frame and per stream, 0 included; pad 1 keeps
 * only "face" ROIs, the element every type. */
static void
rois_decorate (guint stream, guint frame, GstBuffer * buf)
{
  guint n = (stream + frame * 2) % 4;

  for (guint i = 0; i < n; i++)
    add_roi (buf, i % 2 ? "face" : "car", (gint) (frame * 10 + i),
        2 + i * 3, 1 + i * 2, 12 + i * 5, 9 + i * 3);
}

static void
test_rois (void)
{
  g_autoptr (GstElement) ref = NULL;
  Fixture f;

  fixture_init (&f, NULL, 3);
  add_stream (&f, mixed_caps[0], 1);
  add_stream (&f, mixed_caps[1], 2);
  add_stream (&f, mixed_caps[3], 3);
  /* The reference filters the same way. */
  ref = gst_harness_find_element (f.streams[1].ref, "cudagraphpreprocess");
  g_object_set (ref, "roi-type", "face", NULL);
  g_object_set (f.streams[1].pad, "roi-type", "face", NULL);
  for (guint fr = 0; fr < 6; fr++)
    run_all (&f, fr, rois_decorate);
  check_dims (&f, "24:20:3:9");
  fixture_clear (&f);
}

/* A pad's crop is its item; the back-map goes to the crop's corners. */
static void
test_crop (void)
{
  Fixture f;
  g_autoptr (GstBuffer) out = NULL;
  GcgBatchMeta *bm;
  gdouble x, y;
  GcgFrameItemMap map;

  fixture_init (&f, NULL, 1);
  add_stream (&f, mixed_caps[1], 5);
  g_object_set (f.streams[0].pad, "crop-x", 10, "crop-y", 4, "crop-width",
      30, "crop-height", 0, NULL);
  push (&f.streams[0], make_frame (mixed_caps[1], 5, 0));
  out = gst_harness_pull (f.out);
  bm = gcg_buffer_get_batch_meta (out);
  g_assert_cmpuint (bm->n_items, ==, 1);
  g_assert_cmpint (bm->items[0].roi_x, ==, 10);
  g_assert_cmpint (bm->items[0].roi_y, ==, 4);
  g_assert_cmpint (bm->items[0].roi_width, ==, 30);
  g_assert_cmpint (bm->items[0].roi_height, ==, 26);
  g_assert_true (gcg_frame_item_map_init (&map, &(GcgRect) {
        10, 4, 30, 26}, OUT_W, OUT_H, GCG_LETTERBOX_SYMMETRIC));
  g_assert_cmpfloat (bm->items[0].scale_x, ==, map.scale_x);
  g_assert_cmpfloat (bm->items[0].offset_x, ==, map.offset_x);
  g_assert_cmpfloat (bm->items[0].offset_y, ==, map.offset_y);
  /* The image's far corner in the item is the crop's far corner. */
  gcg_frame_item_map_to_source (&map, map.pad_x + map.width,
      map.pad_y + map.height, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, 40.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, 30.0, 1e-9);
  fixture_clear (&f);
}

/* A live stream with no frame by the deadline is left out. */
static void
test_timeout (void)
{
  Fixture f;
  g_autoptr (GstBuffer) out = NULL;
  GcgBatchMeta *bm;
  guint which[] = { 0, 1 };

  fixture_init (&f, "timeout=10000000", 1);
  add_stream (&f, mixed_caps[0], 1);
  add_stream (&f, mixed_caps[2], 2);
  run_batch (&f, which, 2, 0, NULL);
  push (&f.streams[1], make_frame (mixed_caps[2], 9, GST_SECOND / 30));
  gst_harness_crank_single_clock_wait (f.out);
  out = gst_harness_pull (f.out);
  bm = gcg_buffer_get_batch_meta (out);
  g_assert_cmpuint (bm->n_sources, ==, 1);
  g_assert_cmpuint (bm->n_items, ==, 1);
  g_assert_cmpstr (bm->sources[0].pad_name, ==, "sink_1");
  /* The dimensions stay those of the full batch. */
  check_dims (&f, "24:20:3:2");
  fixture_clear (&f);
}

/* Streams join and leave while playing, and change caps: the tensor keeps
 * its caps (no renegotiation, so no new capture on a GPU). */
static void
test_join_leave (void)
{
  Fixture f;
  guint first[] = { 0, 1 }, all[] = { 0, 1, 2 }, after[] = { 0, 2 };

  fixture_init (&f, "batch-size=3", 2);
  add_stream (&f, mixed_caps[0], 1);
  add_stream (&f, mixed_caps[1], 2);
  run_batch (&f, first, 2, 0, rois_decorate);
  add_stream (&f, mixed_caps[4], 3);
  run_batch (&f, all, 3, 1, rois_decorate);
  /* The harness releases the request pad. */
  gst_harness_teardown (f.streams[1].h);
  f.streams[1].h = NULL;
  g_assert_null (GST_PAD_PARENT (f.streams[1].pad));
  stream_set_caps (&f.streams[0], mixed_caps[6]);
  run_batch (&f, after, 2, 2, rois_decorate);
  run_batch (&f, after, 2, 3, rois_decorate);
  check_dims (&f, "24:20:3:6");
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "batches"),
      ==, 4);
  fixture_clear (&f);
}

/* EOS on one pad: the others go on; EOS on all: EOS downstream. */
static void
test_eos (void)
{
  Fixture f;
  guint second[] = { 1 };
  GstEvent *ev;

  fixture_init (&f, NULL, 1);
  add_stream (&f, mixed_caps[0], 1);
  add_stream (&f, mixed_caps[1], 2);
  run_all (&f, 0, NULL);
  g_assert_true (gst_harness_push_event (f.streams[0].h,
          gst_event_new_eos ()));
  run_batch (&f, second, 1, 1, NULL);
  g_assert_true (gst_harness_push_event (f.streams[1].h,
          gst_event_new_eos ()));
  while ((ev = gst_harness_pull_event (f.out))) {
    gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;

    gst_event_unref (ev);
    if (eos)
      break;
  }
  g_assert_nonnull (ev);
  fixture_clear (&f);
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/batch/one-pad", test_one_pad);
  g_test_add_func ("/batch/three-pads", test_three_pads);
  g_test_add_func ("/batch/sixteen-pads", test_sixteen_pads);
  g_test_add_func ("/batch/rois", test_rois);
  g_test_add_func ("/batch/crop", test_crop);
  g_test_add_func ("/batch/timeout", test_timeout);
  g_test_add_func ("/batch/join-leave", test_join_leave);
  g_test_add_func ("/batch/eos", test_eos);
  return g_test_run ();
}
