/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphbatch on the CPU backend (tests/common/gcg-test-gst-batch.c: a
 * harness per sink pad on a test clock): batch assembly with 1, 3 and 16
 * streams of different formats and sizes, ROI counts changing per frame,
 * crops (the same item as cudagraphconvert's and cudagraphpreprocess's,
 * with and without a crop meta), partial batches on timeout, pads joining and leaving while
 * playing, caps changing mid-stream and EOS.  Every batch is checked byte
 * for byte against cudagraphpreprocess run on each stream alone, and each
 * item's back-map against gcg_frame_item_map_init().
 */
#include "gcg-gst-test-util.h"
#include "common/gcg-test-gst-batch.h"
#include "gstcudagraphbatchmeta.h"
#include "gstcudagraphtensormeta.h"

#include <gcg.h>
#include <stdio.h>

#define CAPS(i) gcg_test_batch_caps[(i) % G_N_ELEMENTS (gcg_test_batch_caps)]

static void
run_all (GcgTestBatch *f, guint frame, GcgTestDecorateFunc decorate)
{
  gst_buffer_unref (gcg_test_batch_run (f, NULL, f->n, frame, decorate));
}

static void
run_some (GcgTestBatch *f, const guint *which, guint n, guint frame)
{
  gst_buffer_unref (gcg_test_batch_run (f, which, n, frame,
      gcg_test_batch_vary_rois));
}

static void
test_pads (guint n_pads, guint n_frames)
{
  g_autofree gchar *dims = g_strdup_printf ("%u:%u:3:%u", GCG_TEST_BATCH_W,
      GCG_TEST_BATCH_H, n_pads);
  GcgTestBatch f;

  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 1);
  for (guint i = 0; i < n_pads; i++)
    gcg_test_batch_add_stream (&f, CAPS (i), i * 3);
  for (guint fr = 0; fr < n_frames; fr++)
    run_all (&f, fr, NULL);
  gcg_test_batch_check_dims (&f, dims);
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "batches"), ==,
      n_frames);
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "eager-frames"),
      ==, n_frames);
  gcg_test_batch_clear (&f);
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
test_rois (void)
{
  g_autoptr (GstElement) ref = NULL;
  GcgTestBatch f;

  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 3);
  gcg_test_batch_add_stream (&f, CAPS (0), 1);
  gcg_test_batch_add_stream (&f, CAPS (1), 2);
  gcg_test_batch_add_stream (&f, CAPS (3), 3);
  /* The reference filters the same way. */
  ref = gst_harness_find_element (f.streams[1].ref, "cudagraphpreprocess");
  g_object_set (ref, "roi-type", "face", NULL);
  g_object_set (f.streams[1].pad, "roi-type", "face", NULL);
  for (guint fr = 0; fr < 6; fr++)
    run_all (&f, fr, gcg_test_batch_vary_rois);
  gcg_test_batch_check_dims (&f, "24:20:3:9");
  gcg_test_batch_clear (&f);
}

/* A pad's crop is its item; the back-map goes to the crop's corners. */
static void
test_crop (void)
{
  GcgRect crop = { 10, 4, 30, 26 };
  g_autoptr (GstBuffer) out = NULL;
  GcgFrameItemMap map;
  GstCudaGraphBatchMeta *bm;
  GcgTestBatch f;
  gdouble x, y;

  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 1);
  gcg_test_batch_add_stream (&f, CAPS (1), 5);
  /* Height 0: to the bottom edge (30 - 4 rows). */
  g_object_set (f.streams[0].pad, "crop-x", 10, "crop-y", 4, "crop-width", 30,
      "crop-height", 0, NULL);
  gcg_test_batch_push (&f.streams[0], gcg_test_batch_frame (CAPS (1), 5, 0));
  out = gst_harness_pull (f.out);
  bm = gst_cuda_graph_buffer_get_batch_meta (out);
  g_assert_cmpuint (bm->n_items, ==, 1);
  g_assert_cmpint (bm->items[0].roi_x, ==, 10);
  g_assert_cmpint (bm->items[0].roi_y, ==, 4);
  g_assert_cmpint (bm->items[0].roi_width, ==, 30);
  g_assert_cmpint (bm->items[0].roi_height, ==, 26);
  g_assert_true (gcg_frame_item_map_init (&map, &crop, GCG_TEST_BATCH_W,
      GCG_TEST_BATCH_H, GCG_LETTERBOX_SYMMETRIC));
  g_assert_cmpfloat (bm->items[0].scale_x, ==, map.scale_x);
  g_assert_cmpfloat (bm->items[0].offset_x, ==, map.offset_x);
  g_assert_cmpfloat (bm->items[0].offset_y, ==, map.offset_y);
  /* The image's far corner in the item is the crop's far corner. */
  gcg_frame_item_map_to_source (&map, map.pad_x + map.width,
      map.pad_y + map.height, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, 40.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, 30.0, 1e-9);
  gcg_test_batch_clear (&f);
}

static guint
count_warnings (GstBus *bus)
{
  GstMessage *msg;
  guint n = 0;

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    n++;
    gst_message_unref (msg);
  }
  return n;
}

/* A pad whose crop misses its frames: each frame is still batched, made
 * of its whole visible frame (here the whole frame), and the bus says so
 * once per crop and frame size, naming the pad, not once per frame. */
static void
test_crop_outside (void)
{
  g_autoptr (GstBus) bus = gst_bus_new ();
  GcgTestBatch f;

  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 1);
  gst_element_set_bus (f.batch, bus);
  gcg_test_batch_add_stream (&f, CAPS (1), 5);
  gcg_test_batch_add_stream (&f, CAPS (2), 6);
  g_object_set (f.streams[0].pad, "crop-x", 500, NULL);
  for (guint round = 0; round < 2; round++) {
    g_autoptr (GstMessage) msg = NULL;
    g_autoptr (GError) err = NULL;

    for (guint fr = 0; fr < 3; fr++) {
      GstClockTime pts = (round * 3 + fr) * (GST_SECOND / 30);
      GstVideoInfo info = gcg_test_info (f.streams[0].caps);
      GstBuffer *out;
      GstCudaGraphBatchMeta *bm;

      for (guint i = 0; i < 2; i++)
        gcg_test_batch_push (&f.streams[i],
            gcg_test_batch_frame (f.streams[i].caps, i, pts));
      out = gst_harness_pull (f.out);
      g_assert_nonnull (out);
      bm = gst_cuda_graph_buffer_get_batch_meta (out);
      g_assert_cmpuint (bm->n_frames, ==, 2);
      g_assert_cmpstr (bm->sources[0].pad_name, ==, "sink_0");
      g_assert_cmpint (bm->items[0].roi_x, ==, 0);
      g_assert_cmpint (bm->items[0].roi_y, ==, 0);
      g_assert_cmpint (bm->items[0].roi_width, ==,
          GST_VIDEO_INFO_WIDTH (&info));
      g_assert_cmpint (bm->items[0].roi_height, ==,
          GST_VIDEO_INFO_HEIGHT (&info));
      gst_buffer_unref (out);
    }
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
    g_assert_nonnull (msg);
    gst_message_parse_warning (msg, &err, NULL);
    g_assert_nonnull (strstr (err->message, "The crop of pad sink_0"));
    g_assert_nonnull (strstr (err->message, "whole visible frame"));
    g_assert_cmpuint (count_warnings (bus), ==, 0);
    /* Another crop that misses: reported again. */
    g_object_set (f.streams[0].pad, "crop-y", 400, NULL);
  }
  gst_element_set_bus (f.batch, NULL);
  gcg_test_batch_clear (&f);
}

/* --- one crop on every element and pad (gstcudagraphcrop.h) ------------- */

#define SAME_CAPS "video/x-raw,format=RGBA,width=16,height=12,framerate=30/1"

/* R = x, G = y: a copy's first pixel says where it came from. */
static void
xy_px (guint x, guint y, guint8 *px, gpointer user_data)
{
  px[0] = x;
  px[1] = y;
  px[2] = 7;
  px[3] = 255;
}

typedef struct
{
  GcgRect meta;                 /* 0x0: no crop meta */
  GcgRect crop;                 /* crop-x, crop-y, crop-width, crop-height */
  GcgRect item;                 /* the item every element must make */
  gboolean refused;             /* a warning, the whole visible frame */
} CropCase;

static const CropCase crop_cases[] = {
  { { 0, 0, 0, 0 }, { 0, 0, 0, 0 }, { 0, 0, 16, 12 }, FALSE },
  { { 0, 0, 0, 0 }, { 2, 3, 4, 5 }, { 2, 3, 4, 5 }, FALSE },
  { { 0, 0, 0, 0 }, { 10, 0, 0, 0 }, { 10, 0, 6, 12 }, FALSE },
  { { 4, 2, 8, 8 }, { 0, 0, 0, 0 }, { 4, 2, 8, 8 }, FALSE },
  /* Relative to the visible frame: 0 reaches to its edge. */
  { { 4, 2, 8, 8 }, { 2, 3, 4, 0 }, { 6, 5, 4, 5 }, FALSE },
  /* Clipped to the visible frame, not to the whole frame. */
  { { 4, 2, 8, 8 }, { 6, 0, 10, 0 }, { 10, 2, 2, 8 }, FALSE },
  /* Nothing of the visible frame: all of it, with a warning. */
  { { 4, 2, 8, 8 }, { 9, 0, 0, 0 }, { 4, 2, 8, 8 }, TRUE },
  { { 0, 0, 0, 0 }, { 100, 0, 0, 0 }, { 0, 0, 16, 12 }, TRUE },
  /* A crop meta outside the frame: the whole frame, with a warning. */
  { { 20, 20, 8, 8 }, { 0, 0, 0, 0 }, { 0, 0, 16, 12 }, TRUE },
};

static GstBuffer *
crop_case_frame (const CropCase *c, GstClockTime pts)
{
  GstBuffer *buf = gcg_test_frame_new (SAME_CAPS, xy_px, NULL, 0);

  if (c->meta.width > 0) {
    GstVideoCropMeta *m = gst_buffer_add_video_crop_meta (buf);

    m->x = c->meta.x;
    m->y = c->meta.y;
    m->width = c->meta.width;
    m->height = c->meta.height;
  }
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

static void
set_crop (gpointer object, const GcgRect *r)
{
  g_object_set (object, "crop-x", r->x, "crop-y", r->y, "crop-width", r->width,
      "crop-height", r->height, NULL);
}

/* The one warning of a refused crop (naming @who), or none. */
static void
check_crop_warning (GstBus *bus, const CropCase *c, const gchar *who)
{
  g_autoptr (GstMessage) msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  g_autoptr (GError) err = NULL;

  if (!c->refused) {
    g_assert_null (msg);
    return;
  }
  g_assert_nonnull (msg);
  gst_message_parse_warning (msg, &err, NULL);
  g_test_message ("%s", err->message);
  g_assert_nonnull (strstr (err->message, who));
  g_assert_nonnull (strstr (err->message, "selects nothing"));
  g_assert_null (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING));
}

/* An item's rectangle, from a tensor or batch meta. */
static void
assert_item (gint x, gint y, gint width, gint height, const GcgRect *want)
{
  g_assert_cmpint (x, ==, want->x);
  g_assert_cmpint (y, ==, want->y);
  g_assert_cmpint (width, ==, want->width);
  g_assert_cmpint (height, ==, want->height);
}

/* @bus is shared by the cases: flushed of what @h left on it. */
static void
teardown_on_bus (GstHarness *h, GstBus *bus)
{
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (h->element, NULL);
  gst_bus_set_flushing (bus, FALSE);
  gst_harness_teardown (h);
}

/* cudagraphconvert copies the item 1:1 into an output of its size. */
static void
check_convert_case (const CropCase *c, GstBus *bus)
{
  g_autofree gchar *out_caps = g_strdup_printf ("video/x-raw,format=RGBA,"
                                                "width=%d,height=%d",
      c->item.width, c->item.height);
  GstHarness *h = gst_harness_new_parse ("cudagraphconvert backend=cpu");
  g_autoptr (GstElement)
      conv = gst_harness_find_element (h, "cudagraphconvert");
  GstVideoInfo info = gcg_test_info (out_caps);
  g_autoptr (GstBuffer) out = NULL;
  GstVideoFrame vf;
  const guint8 *px;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, SAME_CAPS);
  gst_harness_set_sink_caps_str (h, out_caps);
  set_crop (conv, &c->crop);
  out = gcg_test_push_pull (h, crop_case_frame (c, 0));
  g_assert_true (gst_video_frame_map (&vf, &info, out, GST_MAP_READ));
  px = gcg_test_pixel (&vf, 0, 0);
  g_assert_cmpuint (px[0], ==, c->item.x);
  g_assert_cmpuint (px[1], ==, c->item.y);
  px = gcg_test_pixel (&vf, c->item.width - 1, c->item.height - 1);
  g_assert_cmpuint (px[0], ==, c->item.x + c->item.width - 1);
  g_assert_cmpuint (px[1], ==, c->item.y + c->item.height - 1);
  gst_video_frame_unmap (&vf);
  check_crop_warning (bus, c, "The crop of cudagraphconvert");
  teardown_on_bus (h, bus);
}

/* cudagraphpreprocess's tensor meta names the item's rectangle. */
static void
check_preprocess_case (const CropCase *c, GstBus *bus)
{
  GstHarness *h = gst_harness_new_parse ("cudagraphpreprocess backend=cpu "
                                         "width=8 height=8");
  g_autoptr (GstElement)
      pre = gst_harness_find_element (h, "cudagraphpreprocess");
  g_autoptr (GstBuffer) out = NULL;
  GstCudaGraphTensorMeta *tm;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, SAME_CAPS);
  set_crop (pre, &c->crop);
  out = gcg_test_push_pull (h, crop_case_frame (c, 0));
  tm = gst_cuda_graph_buffer_get_tensor_meta (out);
  g_assert_nonnull (tm);
  g_assert_cmpuint (tm->n_items, ==, 1);
  assert_item (tm->items[0].roi_x, tm->items[0].roi_y, tm->items[0].roi_width,
      tm->items[0].roi_height, &c->item);
  check_crop_warning (bus, c, "The crop of cudagraphpreprocess");
  teardown_on_bus (h, bus);
}

/* The same frame and crop make the same item on cudagraphconvert,
 * cudagraphpreprocess and a cudagraphbatch sink pad, with
 * and without a GstVideoCropMeta; a crop that selects nothing loses no
 * frame on any of them and warns once, naming the element or pad. */
static void
test_crop_same_everywhere (void)
{
  g_autoptr (GstBus) bus = gst_bus_new ();
  GcgTestBatch f;

  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 1);
  gcg_test_batch_add_stream (&f, SAME_CAPS, 1);
  gst_element_set_bus (f.batch, bus);
  for (guint i = 0; i < G_N_ELEMENTS (crop_cases); i++) {
    const CropCase *c = &crop_cases[i];
    g_autoptr (GstBuffer) out = NULL;
    GstCudaGraphBatchMeta *bm;

    g_test_message ("case %u", i);
    set_crop (f.streams[0].pad, &c->crop);
    gcg_test_batch_push (&f.streams[0],
        crop_case_frame (c, i * (GST_SECOND / 30)));
    out = gst_harness_pull (f.out);
    g_assert_nonnull (out);
    bm = gst_cuda_graph_buffer_get_batch_meta (out);
    g_assert_cmpuint (bm->n_frames, ==, 1);
    g_assert_cmpuint (bm->n_items, ==, 1);
    assert_item (bm->items[0].roi_x, bm->items[0].roi_y, bm->items[0].roi_width,
        bm->items[0].roi_height, &c->item);
    check_crop_warning (bus, c, "The crop of pad sink_0");

    check_convert_case (c, bus);
    check_preprocess_case (c, bus);
  }
  gst_element_set_bus (f.batch, NULL);
  gcg_test_batch_clear (&f);
}

/* One pushing thread per stream, frames until told to stop or refused. */
typedef struct
{
  GcgTestStream *s;
  volatile gint *stop;
} Pusher;

static gpointer
push_frames (gpointer data)
{
  Pusher *p = data;

  for (guint fr = 0; !g_atomic_int_get (p->stop); fr++) {
    GstBuffer *buf = gcg_test_batch_frame (p->s->caps, p->s->seed + fr,
        fr * (GST_SECOND / 30));

    if (gst_harness_push (p->s->h, buf) != GST_FLOW_OK)
      break;
  }
  return NULL;
}

/* More streams than batch slots: every stream gets its share of batches
 * (the collect loop used to start at the first pad each time, so with
 * batch-size 2 the third of three streams got no frame, ever, and with
 * batch-size 1 its upstream blocked for good). */
static void
test_fair (gconstpointer data)
{
  guint batch_size = GPOINTER_TO_UINT (data), n_batches = 30, counts[3] = { 0 };
  g_autofree gchar *props = g_strdup_printf ("batch-size=%u", batch_size);
  GThread *threads[3];
  Pusher pushers[3];
  volatile gint stop = 0;
  GcgTestBatch f;

  gcg_test_batch_init (&f, "cpu", "cpu", props, 1);
  f.check = FALSE;
  for (guint i = 0; i < 3; i++) {
    pushers[i].s = gcg_test_batch_add_stream (&f, CAPS (i), i);
    pushers[i].stop = &stop;
  }
  for (guint i = 0; i < 3; i++)
    threads[i] = g_thread_new ("pusher", push_frames, &pushers[i]);
  for (guint b = 0; b < n_batches; b++) {
    GstBuffer *out = gst_harness_pull (f.out);
    GstCudaGraphBatchMeta *bm;

    g_assert_nonnull (out);
    bm = gst_cuda_graph_buffer_get_batch_meta (out);
    g_assert_nonnull (bm);
    for (guint k = 0; k < bm->n_frames; k++) {
      guint idx;

      g_assert_true (sscanf (bm->sources[k].pad_name, "sink_%u", &idx) == 1);
      g_assert_cmpuint (idx, <, 3);
      counts[idx]++;
    }
    gst_buffer_unref (out);
  }
  /* Turn taking gives each stream its share of the batches, to within one
   * round: a window's three frames leave in batches of batch-size (the
   * last one partial), so every stream has as many frames as the others,
   * give or take the window still leaving when the test stopped. */
  for (guint i = 0; i < 3; i++) {
    g_test_message ("sink_%u: %u frames in %u batches", i, counts[i],
        n_batches);
    g_assert_cmpuint (counts[i], >=, n_batches / 3);
    for (guint j = 0; j < 3; j++)
      g_assert_cmpuint (counts[i] + batch_size, >=, counts[j]);
  }
  g_atomic_int_set (&stop, 1);
  /* Stopping the element unblocks pushers waiting on a full pad. */
  gst_element_set_state (f.batch, GST_STATE_NULL);
  for (guint i = 0; i < 3; i++)
    g_thread_join (threads[i]);
  gcg_test_batch_clear (&f);
}

#define SLOW_CAPS "video/x-raw,format=RGBA,width=50,height=30,framerate=10/1"
#define WINDOW (GST_SECOND / 30)

/* A 30 fps stream (sink_0) and a 10 fps one (sink_1), batches only
 * counted. */
static void
init_two_rates (GcgTestBatch *f, const gchar *props)
{
  gcg_test_batch_init (f, "cpu", "cpu", props, 1);
  f->check = FALSE;
  gcg_test_batch_add_stream (f, CAPS (0), 1);
  gcg_test_batch_add_stream (f, SLOW_CAPS, 2);
}

/* Frame @k of the 10 fps stream (at 10 fps times, 1/10 s long). */
static GstBuffer *
slow_frame (guint k)
{
  GstBuffer *buf = gcg_test_batch_frame (SLOW_CAPS, 2, k * 3 * WINDOW);

  GST_BUFFER_DURATION (buf) = GST_SECOND / 10;
  return buf;
}

/* Two live cameras, 30 and 10 fps: batches are windows of one 30 fps
 * frame; the fast stream is in every batch, the slow one in every third,
 * items of one batch are of the same moment, and each batch leaves by its
 * window's end plus the timeout (the fast stream was held to the slow
 * one's rate: the deadline was counted from the end of the slow stream's
 * frame).  The latency reported includes the window. */
static void
test_live_rates (void)
{
  GstClockTime window = WINDOW, timeout = 10 * GST_MSECOND, min_latency;
  g_autofree gchar *props =
      g_strdup_printf ("timeout=%" G_GUINT64_FORMAT, timeout);
  GcgTestBatch f;

  init_two_rates (&f, props);
  for (guint k = 0; k < 9; k++) {
    GstClockTime t = k * window, now;
    GstBuffer *out;
    GstCudaGraphBatchMeta *bm;

    gcg_test_batch_push (&f.streams[0], gcg_test_batch_frame (CAPS (0), 1, t));
    if (k % 3 == 0) {
      gcg_test_batch_push (&f.streams[1], slow_frame (k / 3));
    } else {
      gst_harness_crank_single_clock_wait (f.out);
    }
    out = gst_harness_pull (f.out);
    g_assert_nonnull (out);
    now = gst_clock_get_time (GST_ELEMENT_CLOCK (f.batch));
    g_assert_cmpuint (now, <=,
        gst_util_uint64_scale (k, GST_SECOND, 30) + window + timeout);
    bm = gst_cuda_graph_buffer_get_batch_meta (out);
    g_assert_cmpuint (bm->n_frames, ==, k % 3 == 0 ? 2 : 1);
    g_assert_cmpstr (bm->sources[0].pad_name, ==, "sink_0");
    for (guint i = 0; i < bm->n_frames; i++)
      g_assert_cmpuint (bm->sources[i].running_time, ==, t);
    /* The slow stream between its frames: an empty slot, not its last
     * frame again. */
    gcg_test_batch_check_absent (bm, k % 3 == 0 ? 0 : 1);
    if (k % 3 != 0)
      g_assert_cmpstr (bm->sources[1].pad_name, ==, "sink_1");
    /* The frames' times are added up from a truncated duration (as
     * many sources do); the windows are exact frames of 30 fps, and
     * each still holds its own frames. */
    g_assert_cmpuint (bm->window_start, ==,
        gst_util_uint64_scale (k, GST_SECOND, 30));
    g_assert_cmpuint (bm->window_start + bm->window_duration, ==,
        gst_util_uint64_scale (k + 1, GST_SECOND, 30));
    g_assert_cmpuint (GST_BUFFER_PTS (out), ==, t);
    gst_buffer_unref (out);
  }
  g_assert_true (gst_harness_query_latency (f.out) >= window + timeout);
  min_latency = gst_harness_query_latency (f.out);
  g_assert_cmpuint (min_latency, <=, window + timeout + GST_MSECOND);
  gcg_test_batch_clear (&f);
}

/* The same two rates from files (not live): every frame is batched, each
 * in the window of its own time, never paired with a frame of another
 * moment (the slow stream's frames used to go out one per batch, next to
 * the fast stream's frame of that batch whatever its time). */
static void
test_file_rates (void)
{
  GcgTestBatch f;

  init_two_rates (&f, NULL);
  gst_harness_set_live (f.streams[0].h, FALSE);
  gst_harness_set_live (f.streams[1].h, FALSE);
  for (guint k = 0; k < 7; k++) {
    GstClockTime t = k * WINDOW;
    GstBuffer *out;
    GstCudaGraphBatchMeta *bm;

    gcg_test_batch_push (&f.streams[0], gcg_test_batch_frame (CAPS (0), 1, t));
    /* The slow stream's next frame is queued ahead of its time. */
    if (k == 0)
      gcg_test_batch_push (&f.streams[1], slow_frame (0));
    if (k % 3 == 0)
      gcg_test_batch_push (&f.streams[1], slow_frame (k / 3 + 1));
    out = gst_harness_pull (f.out);
    g_assert_nonnull (out);
    bm = gst_cuda_graph_buffer_get_batch_meta (out);
    g_assert_cmpuint (bm->n_frames, ==, k % 3 == 0 ? 2 : 1);
    for (guint i = 0; i < bm->n_frames; i++)
      g_assert_cmpuint (bm->sources[i].running_time, ==, t);
    gst_buffer_unref (out);
  }
  gcg_test_batch_clear (&f);
}

/* Each source carries its pad's stream id, and a new stream-start's
 * from the next frame on. */
static void
test_stream_ids (void)
{
  GstCudaGraphBatchMeta *bm;
  GcgTestBatch f;
  GstBuffer *out;

  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 1);
  gcg_test_batch_add_stream (&f, CAPS (0), 1);
  gcg_test_batch_add_stream (&f, CAPS (2), 2);
  for (guint fr = 0; fr < 2; fr++) {
    out = gcg_test_batch_run (&f, NULL, f.n, fr, NULL);
    bm = gst_cuda_graph_buffer_get_batch_meta (out);
    g_assert_cmpuint (bm->n_sources, ==, 2);
    for (guint i = 0; i < 2; i++) {
      g_autofree gchar *id = gst_pad_get_stream_id (f.streams[i].pad);

      g_assert_nonnull (id);
      g_assert_cmpstr (bm->sources[i].stream_id, ==, id);
    }
    gst_buffer_unref (out);
  }
  g_assert_true (gst_harness_push_event (f.streams[1].h,
      gst_event_new_stream_start ("another-stream")));
  out = gcg_test_batch_run (&f, NULL, f.n, 2, NULL);
  bm = gst_cuda_graph_buffer_get_batch_meta (out);
  g_assert_cmpstr (bm->sources[1].stream_id, ==, "another-stream");
  g_assert_cmpstr (bm->sources[0].stream_id, !=, "another-stream");
  gst_buffer_unref (out);
  gcg_test_batch_clear (&f);
}

/* Frame-long windows of a @rate (fps_n, fps_d) stream over 3000 frames:
 * each window starts exactly k frames after the first (the frame
 * duration truncated to the ns, added up, drifted 1 ns every 3 frames at
 * 30 fps: 1 µs behind the frames after 3000), and each batch holds its
 * frame, whether the frames' times are exact (@added FALSE, as
 * videotestsrc's) or added up from the truncated duration (TRUE). */
static void
check_frame_windows (gint fps_n, gint fps_d, gboolean added)
{
  g_autofree gchar *caps = g_strdup_printf (
      "video/x-raw,format=GRAY8,width=8,height=8,framerate=%d/%d", fps_n,
      fps_d);
  GstClockTime frame = gst_util_uint64_scale (GST_SECOND, fps_d, fps_n);
  GcgTestStream *s;
  GcgTestBatch f;

  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 1);
  f.check = FALSE;
  s = gcg_test_batch_add_stream (&f, caps, 1);
  gst_harness_set_live (s->h, FALSE);
  for (guint64 k = 0; k < 3000; k++) {
    GstClockTime exact = gst_util_uint64_scale (k, fps_d * GST_SECOND, fps_n);
    GstClockTime next =
        gst_util_uint64_scale (k + 1, fps_d * GST_SECOND, fps_n);
    GstClockTime pts = added ? k * frame : exact;
    GstBuffer *buf = gcg_test_batch_frame (caps, 1, pts);
    GstCudaGraphBatchMeta *bm;
    GstBuffer *out;

    GST_BUFFER_DURATION (buf) = added ? frame : next - exact;
    gcg_test_batch_push (s, buf);
    out = gst_harness_pull (f.out);
    g_assert_nonnull (out);
    bm = gst_cuda_graph_buffer_get_batch_meta (out);
    g_assert_cmpuint (bm->n_frames, ==, 1);
    g_assert_cmpuint (bm->sources[0].running_time, ==, pts);
    g_assert_cmpuint (bm->window_start, ==, exact);
    g_assert_cmpuint (bm->window_duration, ==, next - exact);
    gst_buffer_unref (out);
  }
  gcg_test_batch_clear (&f);
}

static void
test_frame_windows (void)
{
  check_frame_windows (30000, 1001, FALSE);
  check_frame_windows (30, 1, FALSE);
  check_frame_windows (30000, 1001, TRUE);
  check_frame_windows (30, 1, TRUE);
}

/* A live stream with no frame by the deadline is left out. */
static void
test_timeout (void)
{
  guint second[] = { 1 };
  GstCudaGraphBatchMeta *bm;
  GcgTestBatch f;
  GstBuffer *out;

  gcg_test_batch_init (&f, "cpu", "cpu", "timeout=10000000", 1);
  gcg_test_batch_add_stream (&f, CAPS (0), 1);
  gcg_test_batch_add_stream (&f, CAPS (2), 2);
  run_all (&f, 0, NULL);
  out = gcg_test_batch_run (&f, second, 1, 1, NULL);
  bm = gst_cuda_graph_buffer_get_batch_meta (out);
  g_assert_cmpstr (bm->sources[0].pad_name, ==, "sink_1");
  /* The absent stream is listed with its name and stream id too. */
  g_assert_cmpuint (bm->n_sources, ==, 2);
  g_assert_cmpstr (bm->sources[1].pad_name, ==, "sink_0");
  {
    g_autofree gchar *id = gst_pad_get_stream_id (f.streams[0].pad);

    g_assert_nonnull (id);
    g_assert_cmpstr (bm->sources[1].stream_id, ==, id);
  }
  gst_buffer_unref (out);
  /* The dimensions stay those of the full batch. */
  gcg_test_batch_check_dims (&f, "24:20:3:2");
  gcg_test_batch_clear (&f);
}

/* Frame @k of a 30 fps stream, at its exact time (k/30 s, so that frame
 * 3 starts a 100 ms window rather than ending the one before). */
static GstBuffer *
frame_at (GcgTestStream *s, guint k)
{
  return gcg_test_batch_frame (s->caps, s->seed + k,
      gst_util_uint64_scale (k, GST_SECOND, 30));
}

/* EOS comes out (after whatever other events). */
static void
assert_eos_out (GcgTestBatch *f)
{
  gboolean eos = FALSE;
  GstEvent *ev;

  while (!eos && (ev = gst_harness_pull_event (f->out))) {
    eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
  }
  g_assert_true (eos);
}

/* Pushes frames 0 .. n_frames - 1 of one stream, then EOS. */
typedef struct
{
  GcgTestStream *s;
  guint n_frames;
} FramePusher;

static gpointer
push_then_eos (gpointer data)
{
  FramePusher *p = data;

  for (guint k = 0; k < p->n_frames; k++)
    if (gst_harness_push (p->s->h, frame_at (p->s, k)) != GST_FLOW_OK)
      break;
  gst_harness_push_event (p->s->h, gst_event_new_eos ());
  return NULL;
}

/* Three 30 fps streams into windows of 100 ms (three frames each), one
 * per batch-strategy: sink_0 all (its three frames, in order), sink_1
 * first-in-batch (frame 0 of the window), sink_2 last-in-batch (frame 2).
 * Without batch-duration the windows were one frame long; without the
 * strategies every stream gave all three frames (nine, two batches).
 * The frames passed over are not late. */
static void
test_strategies (void)
{
  static const guint expect[2][5][2] = {
    { { 0, 0 }, { 0, 1 }, { 0, 2 }, { 1, 0 }, { 2, 2 } },
    { { 0, 3 }, { 0, 4 }, { 0, 5 }, { 1, 3 }, { 2, 5 } },
  };
  static const gchar *strategies[] = { "all", "first-in-batch",
    "last-in-batch" };
  FramePusher pushers[3];
  GThread *threads[3];
  GcgTestBatch f;

  gcg_test_batch_init (&f, "cpu", "cpu",
      "batch-size=5 batch-duration=" G_STRINGIFY (100000000), 1);
  f.check = FALSE;
  for (guint i = 0; i < 3; i++) {
    pushers[i].s = gcg_test_batch_add_stream (&f, CAPS (i), i * 10);
    pushers[i].n_frames = 6;
    gst_harness_set_live (pushers[i].s->h, FALSE);
    gst_util_set_object_arg (G_OBJECT (pushers[i].s->pad), "batch-strategy",
        strategies[i]);
  }
  for (guint i = 0; i < 3; i++)
    threads[i] = g_thread_new ("pusher", push_then_eos, &pushers[i]);
  for (guint b = 0; b < 2; b++) {
    GstBuffer *out = gst_harness_pull (f.out);
    GstCudaGraphBatchMeta *bm;

    g_assert_nonnull (out);
    bm = gst_cuda_graph_buffer_get_batch_meta (out);
    g_assert_cmpuint (bm->window_start, ==, b * 100 * GST_MSECOND);
    g_assert_cmpuint (bm->window_duration, ==, 100 * GST_MSECOND);
    g_assert_cmpuint (bm->n_frames, ==, 5);
    for (guint k = 0; k < 5; k++) {
      g_autofree gchar *name = g_strdup_printf ("sink_%u", expect[b][k][0]);

      g_assert_cmpstr (bm->sources[k].pad_name, ==, name);
      g_assert_cmpuint (bm->sources[k].pts, ==,
          gst_util_uint64_scale (expect[b][k][1], GST_SECOND, 30));
    }
    gst_buffer_unref (out);
  }
  for (guint i = 0; i < 3; i++)
    g_thread_join (threads[i]);
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "dropped-late"),
      ==, 0);
  gcg_test_batch_clear (&f);
}

/* first-in-batch-with-overlap against first-in-batch: a 30 fps stream
 * whose frames after the first start 30 ms late (0, 63, 96, 130, 163,
 * 196, 230 ms), into 100 ms windows from 0.  first-in-batch takes 0,
 * 130, 230; with overlap the second window takes 96 (4 ms before its
 * start, unused) over 130 (30 ms after it), and the third 196 over 230. */
static GstClockTime
overlap_pts (guint k)
{
  return k ? gst_util_uint64_scale (k, GST_SECOND, 30) + 30 * GST_MSECOND : 0;
}

static void
test_overlap (gconstpointer data)
{
  gboolean overlap = GPOINTER_TO_INT (data);
  const guint expect[2][3] = { { 0, 3, 6 }, { 0, 2, 5 } };
  GcgTestBatch f;
  GcgTestStream *s;

  gcg_test_batch_init (&f, "cpu", "cpu",
      "batch-duration=" G_STRINGIFY (100000000), 1);
  f.check = FALSE;
  s = gcg_test_batch_add_stream (&f, CAPS (0), 1);
  gst_harness_set_live (s->h, FALSE);
  gst_util_set_object_arg (G_OBJECT (s->pad), "batch-strategy",
      overlap ? "first-in-batch-with-overlap" : "first-in-batch");
  for (guint k = 0; k < 7; k++)
    gcg_test_batch_push (s, gcg_test_batch_frame (s->caps, k, overlap_pts (k)));
  gcg_test_batch_eos (s);
  for (guint b = 0; b < 3; b++) {
    GstBuffer *out = gst_harness_pull (f.out);
    GstCudaGraphBatchMeta *bm = gst_cuda_graph_buffer_get_batch_meta (out);

    g_assert_cmpuint (bm->n_frames, ==, 1);
    g_assert_cmpuint (bm->window_start, ==, b * 100 * GST_MSECOND);
    g_assert_cmpuint (bm->sources[0].pts, ==, overlap_pts (expect[overlap][b]));
    gst_buffer_unref (out);
  }
  assert_eos_out (&f);
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "dropped-late"),
      ==, 0);
  gcg_test_batch_clear (&f);
}

/* Pushes frames at @pts (GST_CLOCK_TIME_NONE ends the list), then EOS. */
typedef struct
{
  GcgTestStream *s;
  const GstClockTime *pts;
} TimedPusher;

static gpointer
push_times (gpointer data)
{
  TimedPusher *p = data;

  for (guint k = 0; GST_CLOCK_TIME_IS_VALID (p->pts[k]); k++)
    if (gst_harness_push (p->s->h,
            gcg_test_batch_frame (p->s->caps, k, p->pts[k]))
        != GST_FLOW_OK)
      break;
  gst_harness_push_event (p->s->h, gst_event_new_eos ());
  return NULL;
}

/* With overlap, a stream with no frame in a window (nor a spare) gives
 * the frame that starts at most half a window after it: sink_1's frame
 * at 240 ms goes into the window of 100-200 ms, next to sink_0's frames
 * of that window. */
static void
test_overlap_later (void)
{
  static const GstClockTime fast[] = { 0, 50 * GST_MSECOND, 100 * GST_MSECOND,
    150 * GST_MSECOND, 200 * GST_MSECOND, 250 * GST_MSECOND,
    GST_CLOCK_TIME_NONE };
  static const GstClockTime slow[] = { 0, 240 * GST_MSECOND,
    GST_CLOCK_TIME_NONE };
  TimedPusher pushers[2];
  GThread *threads[2];
  GstBuffer *out;
  GstCudaGraphBatchMeta *bm;
  GcgTestBatch f;

  gcg_test_batch_init (&f, "cpu", "cpu",
      "batch-size=4 batch-duration=" G_STRINGIFY (100000000), 1);
  f.check = FALSE;
  for (guint i = 0; i < 2; i++) {
    pushers[i].s = gcg_test_batch_add_stream (&f, CAPS (i), i);
    pushers[i].pts = i ? slow : fast;
    gst_harness_set_live (pushers[i].s->h, FALSE);
  }
  gst_util_set_object_arg (G_OBJECT (pushers[1].s->pad), "batch-strategy",
      "first-in-batch-with-overlap");
  for (guint i = 0; i < 2; i++)
    threads[i] = g_thread_new ("pusher", push_times, &pushers[i]);
  gst_buffer_unref (gst_harness_pull (f.out));
  out = gst_harness_pull (f.out);
  bm = gst_cuda_graph_buffer_get_batch_meta (out);
  g_assert_cmpuint (bm->window_start, ==, 100 * GST_MSECOND);
  g_assert_cmpuint (bm->n_frames, ==, 3);
  g_assert_cmpstr (bm->sources[2].pad_name, ==, "sink_1");
  g_assert_cmpuint (bm->sources[2].pts, ==, 240 * GST_MSECOND);
  gst_buffer_unref (out);
  for (guint i = 0; i < 2; i++)
    g_thread_join (threads[i]);
  gcg_test_batch_clear (&f);
}

/* A live frame that comes after its window's batch left (later than the
 * timeout) is dropped, counted and reported with a QoS message; it used to
 * go into the next batch, next to frames of another moment. */
static void
test_late (void)
{
  g_autoptr (GstBus) bus = gst_bus_new ();
  g_autoptr (GstMessage) qos = NULL;
  GstCudaGraphBatchMeta *bm;
  GstBuffer *out;
  GcgTestBatch f;
  guint64 processed, dropped;

  gcg_test_batch_init (&f, "cpu", "cpu", "timeout=10000000", 1);
  f.check = FALSE;
  gst_element_set_bus (f.batch, bus);
  gcg_test_batch_add_stream (&f, CAPS (0), 1);
  gcg_test_batch_add_stream (&f, CAPS (1), 2);
  for (guint i = 0; i < 2; i++)
    gcg_test_batch_push (&f.streams[i], frame_at (&f.streams[i], 0));
  gst_buffer_unref (gst_harness_pull (f.out));
  /* Window 1 leaves at its deadline without sink_1. */
  gcg_test_batch_push (&f.streams[0], frame_at (&f.streams[0], 1));
  gst_harness_crank_single_clock_wait (f.out);
  gst_buffer_unref (gst_harness_pull (f.out));
  /* sink_1's frame of window 1 comes now: late. */
  gcg_test_batch_push (&f.streams[1], frame_at (&f.streams[1], 1));
  gcg_test_batch_push (&f.streams[0], frame_at (&f.streams[0], 2));
  gst_harness_crank_single_clock_wait (f.out);
  out = gst_harness_pull (f.out);
  bm = gst_cuda_graph_buffer_get_batch_meta (out);
  g_assert_cmpuint (bm->n_frames, ==, 1);
  g_assert_cmpstr (bm->sources[0].pad_name, ==, "sink_0");
  g_assert_cmpuint (bm->sources[0].running_time, ==,
      gst_util_uint64_scale (2, GST_SECOND, 30));
  gcg_test_batch_check_absent (bm, 1);
  gst_buffer_unref (out);
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "dropped-late"),
      ==, 1);
  qos = gst_bus_pop_filtered (bus, GST_MESSAGE_QOS);
  g_assert_nonnull (qos);
  gst_message_parse_qos_stats (qos, NULL, &processed, &dropped);
  g_assert_cmpuint (dropped, ==, 1);
  gst_element_set_bus (f.batch, NULL);
  gcg_test_batch_clear (&f);
}

/* The LATENCY query with live upstreams (20 ms): upstream's, plus the
 * window (batch-duration, or one frame when 0), plus the timeout; a fixed
 * window is in it before the first frame. */
static void
test_latency (gconstpointer data)
{
  GstClockTime duration = GPOINTER_TO_UINT (data) * GST_MSECOND;
  GstClockTime upstream = 20 * GST_MSECOND, timeout = 10 * GST_MSECOND;
  GstClockTime window = duration ? duration : WINDOW;
  g_autofree gchar *props =
      g_strdup_printf ("timeout=%" G_GUINT64_FORMAT
                       " batch-duration=%" G_GUINT64_FORMAT,
          timeout, duration);
  GcgTestBatch f;

  gcg_test_batch_init (&f, "cpu", "cpu", props, 1);
  f.check = FALSE;
  for (guint i = 0; i < 2; i++) {
    gcg_test_batch_add_stream (&f, CAPS (i), i);
    gst_harness_set_upstream_latency (f.streams[i].h, upstream);
  }
  if (duration)
    g_assert_cmpuint (gst_harness_query_latency (f.out), ==,
        upstream + window + timeout);
  for (guint i = 0; i < 2; i++)
    gcg_test_batch_push (&f.streams[i], frame_at (&f.streams[i], 0));
  if (duration) {
    /* A window of several frames leaves at its deadline. */
    gst_harness_crank_single_clock_wait (f.out);
  }
  gst_buffer_unref (gst_harness_pull (f.out));
  g_test_message ("latency %" GST_TIME_FORMAT " (upstream %" GST_TIME_FORMAT
                  ", window %" GST_TIME_FORMAT ", timeout %" GST_TIME_FORMAT
                  ")",
      GST_TIME_ARGS (gst_harness_query_latency (f.out)),
      GST_TIME_ARGS (upstream), GST_TIME_ARGS (window),
      GST_TIME_ARGS (timeout));
  g_assert_cmpuint (gst_harness_query_latency (f.out), ==,
      upstream + window + timeout);
  gcg_test_batch_clear (&f);
}

/* Streams join and leave while playing, and change caps: the tensor keeps
 * its caps (no renegotiation, so no new capture on a GPU). */
static void
test_join_leave (void)
{
  guint first[] = { 0, 1 }, all[] = { 0, 1, 2 }, after[] = { 0, 2 };
  GcgTestBatch f;

  gcg_test_batch_init (&f, "cpu", "cpu", "batch-size=3", 2);
  gcg_test_batch_add_stream (&f, CAPS (0), 1);
  gcg_test_batch_add_stream (&f, CAPS (1), 2);
  run_some (&f, first, 2, 0);
  gcg_test_batch_add_stream (&f, CAPS (4), 3);
  run_some (&f, all, 3, 1);
  gcg_test_batch_remove_stream (&f.streams[1]);
  gcg_test_batch_set_caps (&f.streams[0], CAPS (6));
  run_some (&f, after, 2, 2);
  run_some (&f, after, 2, 3);
  gcg_test_batch_check_dims (&f, "24:20:3:6");
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "batches"), ==,
      4);
  gcg_test_batch_clear (&f);
}

/* EOS on one pad: the others go on; EOS on all: EOS downstream. */
static void
test_eos (void)
{
  guint second[] = { 1 };
  GcgTestBatch f;

  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 1);
  gcg_test_batch_add_stream (&f, CAPS (0), 1);
  gcg_test_batch_add_stream (&f, CAPS (1), 2);
  run_all (&f, 0, NULL);
  gcg_test_batch_eos (&f.streams[0]);
  run_some (&f, second, 1, 1);
  gcg_test_batch_eos (&f.streams[1]);
  assert_eos_out (&f);
  gcg_test_batch_clear (&f);
}

/* ROIs far outside the frame, of huge sizes or empty, are skipped as
 * cudagraphpreprocess skips them. */
static void
hostile_rois (guint stream, guint frame, GstBuffer *buf)
{
  gst_buffer_add_video_region_of_interest_meta (buf, "car", G_MAXUINT32 - 5, 3,
      10, 10);
  gst_buffer_add_video_region_of_interest_meta (buf, "car", 2, 2, G_MAXUINT32,
      G_MAXUINT32);
  gst_buffer_add_video_region_of_interest_meta (buf, "car", 5, 5, 0, 7);
  gst_buffer_add_video_region_of_interest_meta (buf, "car", 1, 1, 9, 9);
}

/* A frame that does not hold its caps: too small, or a video meta whose
 * planes reach past the buffer. */
static GstBuffer *
bad_frame (guint kind)
{
  GstBuffer *buf =
      gst_buffer_new_allocate (NULL, kind ? 64 * 48 * 2 : 100, NULL);
  gsize offsets[GST_VIDEO_MAX_PLANES] = { 0, 64 * 48 };
  gint strides[GST_VIDEO_MAX_PLANES] = { 64, 4096 };

  if (kind == 1)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_FORMAT_NV12, 64, 48, 2, offsets, strides);
  /* A window of its own (an earlier one's frames would be late). */
  GST_BUFFER_PTS (buf) = GST_SECOND + kind * (GST_SECOND / 30);
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

static void
test_hostile (void)
{
  guint second[] = { 1 };
  GcgTestBatch f;

  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 4);
  gcg_test_batch_add_stream (&f, CAPS (0), 1);
  gcg_test_batch_add_stream (&f, CAPS (1), 2);
  run_all (&f, 0, hostile_rois);
  /* The bad frame is left out; the other stream's frame goes on. */
  for (guint kind = 0; kind < 2; kind++) {
    GstBuffer *out;
    GstCudaGraphBatchMeta *bm;

    gcg_test_batch_push (&f.streams[0], bad_frame (kind));
    gcg_test_batch_push (&f.streams[1],
        gcg_test_batch_frame (CAPS (1), 7,
            GST_SECOND + kind * (GST_SECOND / 30)));
    out = gst_harness_pull (f.out);
    bm = gst_cuda_graph_buffer_get_batch_meta (out);
    g_assert_cmpuint (bm->n_frames, ==, 1);
    g_assert_cmpstr (bm->sources[0].pad_name, ==, "sink_1");
    gst_buffer_unref (out);
  }
  run_some (&f, second, 1, 40);
  run_all (&f, 41, hostile_rois);
  gcg_test_batch_clear (&f);
}

/* Times that break naive sums: a frame rate whose frame lasts 0 ns
 * (windows of no time used to spin the aggregator: no frame ever fell
 * inside), and running times next to the end of the clock (a window's
 * end wrapped before its start).  Batches still leave, then EOS. */
static void
test_hostile_times (void)
{
  static const gchar *caps =
      "video/x-raw,format=GRAY8,width=8,height=8,framerate=2147483647/1";
  GstClockTime huge = GST_CLOCK_TIME_NONE - 100;
  GcgTestBatch f;

  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 1);
  f.check = FALSE;
  gcg_test_batch_add_stream (&f, caps, 1);
  gst_harness_set_live (f.streams[0].h, FALSE);
  for (guint k = 0; k < 3; k++) {
    GstBuffer *buf = gcg_test_batch_frame (caps, k, k * GST_MSECOND);

    GST_BUFFER_DURATION (buf) = GST_CLOCK_TIME_NONE;
    gcg_test_batch_push (&f.streams[0], buf);
    gst_buffer_unref (gst_harness_pull (f.out));
  }
  for (guint k = 0; k < 2; k++) {
    GstBuffer *buf = gcg_test_batch_frame (caps, k, huge + k * 50);

    GST_BUFFER_DURATION (buf) = GST_SECOND;
    gcg_test_batch_push (&f.streams[0], buf);
  }
  gst_buffer_unref (gst_harness_pull (f.out));
  gcg_test_batch_eos (&f.streams[0]);
  assert_eos_out (&f);
  gcg_test_batch_clear (&f);
}

/* Answers the allocation query (once the harness has) with a plain
 * buffer pool, as a downstream element that owns its buffers does. */
static GstPadProbeReturn
offer_pool (GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstBufferPool **offered = user_data;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_clear_object (offered);
  *offered = gst_buffer_pool_new ();
  gst_query_add_allocation_pool (query, *offered, 0, 2, 0);
  return GST_PAD_PROBE_OK;
}

/* A pool downstream offers is configured and activated by the element
 * (GstAggregator activates none), and every batch comes from it. */
static void
test_downstream_pool (void)
{
  g_autoptr (GstBufferPool) offered = NULL;
  GcgTestBatch f;

  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 1);
  gcg_test_batch_add_stream (&f, CAPS (0), 1);
  gst_pad_add_probe (f.out->sinkpad,
      GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM | GST_PAD_PROBE_TYPE_PULL, offer_pool,
      &offered, NULL);
  gcg_test_batch_add_stream (&f, CAPS (1), 2);
  for (guint fr = 0; fr < 3; fr++) {
    GstBuffer *out = gcg_test_batch_run (&f, NULL, f.n, fr, NULL);

    g_assert_nonnull (offered);
    g_assert_true (out->pool == offered);
    gst_buffer_unref (out);
  }
  gcg_test_batch_clear (&f);
}

/* A launch line sets request pads' properties (`sink_0::prop=value`):
 * the element is a GstChildProxy of its sink pads, and requesting a pad
 * (as a link to b.sink_0 does, after the properties were parsed) sets
 * the ones waiting for it.  Without it gst_parse_launch() failed ("no
 * property") on GStreamer 1.22.  The system's plugins are not needed:
 * the pads are requested here as a link would. */
static void
test_launch_pad_props (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) b = gst_parse_launch (
      "cudagraphbatch name=b backend=cpu sink_0::batch-strategy=last-in-batch "
      "sink_0::crop-x=8 sink_1::crop-width=16 sink_1::roi-type=face",
      &error);
  g_autoptr (GstPad) p0 = NULL;
  g_autoptr (GstPad) p1 = NULL;
  g_autoptr (GObject) child = NULL;
  g_autofree gchar *roi_type = NULL;
  gint crop_x = -1, crop_w = -1, strategy = -1;

  g_assert_no_error (error);
  g_assert_true (GST_IS_CHILD_PROXY (b));
  p0 = gst_element_request_pad_simple (b, "sink_%u");
  p1 = gst_element_request_pad_simple (b, "sink_%u");
  g_assert_cmpstr (GST_OBJECT_NAME (p1), ==, "sink_1");
  g_object_get (p0, "batch-strategy", &strategy, "crop-x", &crop_x, NULL);
  g_assert_cmpint (strategy, ==,
      gcg_test_enum_value (p0, "batch-strategy", "last-in-batch"));
  g_assert_cmpint (crop_x, ==, 8);
  g_object_get (p1, "crop-width", &crop_w, "roi-type", &roi_type, NULL);
  g_assert_cmpint (crop_w, ==, 16);
  g_assert_cmpstr (roi_type, ==, "face");
  /* The children are the sink pads, by name and index. */
  g_assert_cmpuint (gst_child_proxy_get_children_count (GST_CHILD_PROXY (b)),
      ==, 2);
  child = gst_child_proxy_get_child_by_name (GST_CHILD_PROXY (b), "sink_1");
  g_assert_true (child == G_OBJECT (p1));
  g_assert_null (gst_child_proxy_get_child_by_name (GST_CHILD_PROXY (b),
      "src"));
  gst_element_release_request_pad (b, p0);
  g_assert_cmpuint (gst_child_proxy_get_children_count (GST_CHILD_PROXY (b)),
      ==, 1);
  gst_element_release_request_pad (b, p1);
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
  g_test_add_func ("/batch/crop-outside", test_crop_outside);
  g_test_add_func ("/batch/crop-same-everywhere", test_crop_same_everywhere);
  g_test_add_func ("/batch/timeout", test_timeout);
  g_test_add_func ("/batch/stream-ids", test_stream_ids);
  g_test_add_func ("/batch/live-rates", test_live_rates);
  g_test_add_func ("/batch/file-rates", test_file_rates);
  g_test_add_func ("/batch/frame-windows", test_frame_windows);
  g_test_add_data_func ("/batch/fair/batch-size-1", GUINT_TO_POINTER (1),
      test_fair);
  g_test_add_data_func ("/batch/fair/batch-size-2", GUINT_TO_POINTER (2),
      test_fair);
  g_test_add_func ("/batch/strategies", test_strategies);
  g_test_add_func ("/batch/late", test_late);
  g_test_add_data_func ("/batch/overlap/without", GINT_TO_POINTER (FALSE),
      test_overlap);
  g_test_add_data_func ("/batch/overlap/with", GINT_TO_POINTER (TRUE),
      test_overlap);
  g_test_add_func ("/batch/overlap/later", test_overlap_later);
  g_test_add_data_func ("/batch/latency/frame-window", GUINT_TO_POINTER (0),
      test_latency);
  g_test_add_data_func ("/batch/latency/batch-duration", GUINT_TO_POINTER (100),
      test_latency);
  g_test_add_func ("/batch/join-leave", test_join_leave);
  g_test_add_func ("/batch/eos", test_eos);
  g_test_add_func ("/batch/hostile", test_hostile);
  g_test_add_func ("/batch/hostile-times", test_hostile_times);
  g_test_add_func ("/batch/downstream-pool", test_downstream_pool);
  g_test_add_func ("/batch/launch-pad-props", test_launch_pad_props);
  return g_test_run ();
}
