/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-test-gst-batch.h"
#include "gcg-test-watchdog.h"
#include "gcg-gst-test-util.h"
#include "gstcudagraphbatchmeta.h"
#include "gstcudagraphtensormeta.h"

#include <gcg.h>

#define ITEM_BYTES (3 * GCG_TEST_BATCH_W * GCG_TEST_BATCH_H * 4)

const gchar *const gcg_test_batch_caps[7] = {
  "video/x-raw,format=NV12,width=64,height=48,framerate=30/1",
  "video/x-raw,format=RGBA,width=50,height=30,framerate=30/1",
  "video/x-raw,format=GRAY8,width=33,height=77,framerate=30/1",
  "video/x-raw,format=I420,width=40,height=40,framerate=30/1",
  "video/x-raw,format=BGR,width=21,height=35,framerate=30/1",
  "video/x-raw,format=BGRA,width=48,height=18,framerate=30/1",
  "video/x-raw,format=RGB,width=26,height=26,framerate=30/1",
};

typedef struct
{
  guint seed;
  guint pstride;
} Ramp;

static void
ramp_px (guint x, guint y, guint8 *px, gpointer user_data)
{
  const Ramp *r = user_data;

  for (guint c = 0; c < r->pstride; c++)
    px[c] = (guint8) (x * (7 + c) + y * (13 + r->seed) + r->seed * 31 + c * 50);
}

/* A frame of @caps with a pattern of its own per @seed. */
GstBuffer *
gcg_test_batch_frame (const gchar *caps, guint seed, GstClockTime pts)
{
  GstVideoInfo info = gcg_test_info (caps);
  Ramp r = { seed, GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0) };
  GstBuffer *buf;

  buf = gcg_test_frame_new (caps, ramp_px, &r, (guint8) (90 + seed * 11));
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

void
gcg_test_batch_vary_rois (guint stream, guint frame, GstBuffer *buf)
{
  guint n = (stream + frame * 2) % 4;

  for (guint i = 0; i < n; i++) {
    GstVideoRegionOfInterestMeta *m =
        gst_buffer_add_video_region_of_interest_meta (buf,
            i % 2 ? "face" : "car", 2 + i * 3, 1 + i * 2, 12 + i * 5,
            9 + i * 3);

    m->id = (gint) (frame * 10 + i);
  }
}

void
gcg_test_batch_init (GcgTestBatch *f, const gchar *backend,
    const gchar *ref_backend, const gchar *props, guint max_rois)
{
  g_autofree gchar *desc =
      g_strdup_printf ("cudagraphbatch backend=%s " GCG_TEST_BATCH_PROPS
                       " max-rois=%u %s",
          backend, max_rois, props ? props : "");

  memset (f, 0, sizeof (*f));
  /* Until gcg_test_batch_clear(): a batch test that hangs (a stream
   * starved, a push that never returns) fails with the backtraces. */
  gcg_test_watchdog_arm (GCG_TEST_BATCH_WATCHDOG_S, "a cudagraphbatch test");
  f->batch = gst_parse_launch (desc, NULL);
  g_assert_nonnull (f->batch);
  f->max_rois = max_rois;
  f->ref_backend = g_strdup (ref_backend);
  f->check = TRUE;
}

GcgTestStream *
gcg_test_batch_add_stream (GcgTestBatch *f, const gchar *caps, guint seed)
{
  GcgTestStream *s = &f->streams[f->n++];
  g_autofree gchar *ref =
      g_strdup_printf ("cudagraphpreprocess backend=%s " GCG_TEST_BATCH_PROPS
                       " max-rois=%u %s",
          f->ref_backend, f->max_rois, f->ref_props ? f->ref_props : "");

  s->h =
      gst_harness_new_with_element (f->batch, "sink_%u", f->out ? NULL : "src");
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

void
gcg_test_batch_set_caps (GcgTestStream *s, const gchar *caps)
{
  g_autoptr (GstCaps) c = gst_caps_from_string (caps);

  g_free (s->caps);
  s->caps = g_strdup (caps);
  g_assert_true (gst_harness_push_event (s->h, gst_event_new_caps (c)));
  g_assert_true (gst_harness_push_event (s->ref, gst_event_new_caps (c)));
}

void
gcg_test_batch_remove_stream (GcgTestStream *s)
{
  gst_harness_teardown (s->h);
  s->h = NULL;
  g_assert_null (GST_PAD_PARENT (s->pad));
}

void
gcg_test_batch_clear (GcgTestBatch *f)
{
  for (guint i = 0; i < f->n; i++) {
    GcgTestStream *s = &f->streams[i];

    if (s->h && s->h != f->out)
      gst_harness_teardown (s->h);
    gst_harness_teardown (s->ref);
    gst_clear_object (&s->pad);
    g_free (s->caps);
  }
  gst_harness_teardown (f->out);
  gst_object_unref (f->batch);
  g_free (f->ref_backend);
  g_free (f->ref_props);
  gcg_test_watchdog_disarm ();
}

void
gcg_test_batch_eos (GcgTestStream *s)
{
  g_assert_true (gst_harness_push_event (s->h, gst_event_new_eos ()));
  s->eos = TRUE;
}

/* Streams whose pads may still deliver frames. */
static guint
playing_streams (GcgTestBatch *f)
{
  guint n = 0;

  for (guint i = 0; i < f->n; i++)
    n += f->streams[i].h && !f->streams[i].eos;
  return n;
}

void
gcg_test_batch_push (GcgTestStream *s, GstBuffer *buf)
{
  g_assert_cmpint (gst_harness_push (s->h, buf), ==, GST_FLOW_OK);
}

static void
check_item (const GstCudaGraphBatchMetaItem *it,
    const GstCudaGraphTensorMetaItem *ri, guint k)
{
  GcgRect roi = { ri->roi_x, ri->roi_y, ri->roi_width, ri->roi_height };
  GcgFrameItemMap map;

  g_assert_cmpuint (it->source, ==, k);
  g_assert_cmpint (it->roi_id, ==, ri->roi_id);
  g_assert_true (gcg_frame_item_map_init (&map, &roi, GCG_TEST_BATCH_W,
      GCG_TEST_BATCH_H, GCG_LETTERBOX_SYMMETRIC));
  g_assert_cmpint (it->roi_x, ==, roi.x);
  g_assert_cmpint (it->roi_y, ==, roi.y);
  g_assert_cmpint (it->roi_width, ==, roi.width);
  g_assert_cmpint (it->roi_height, ==, roi.height);
  g_assert_cmpint (it->pad_x, ==, ri->pad_x);
  g_assert_cmpint (it->pad_y, ==, ri->pad_y);
  g_assert_cmpfloat (it->scale_x, ==, map.scale_x);
  g_assert_cmpfloat (it->scale_y, ==, map.scale_y);
  g_assert_cmpfloat (it->offset_x, ==, map.offset_x);
  g_assert_cmpfloat (it->offset_y, ==, map.offset_y);
}

/* Source @k of @batch is @s's frame at @pts whose reference tensor is
 * @ref: its items at the source's place, equal byte for byte.  Returns
 * the index after its items. */
static guint
check_source (GstBuffer *batch, guint k, GcgTestStream *s, GstBuffer *ref,
    GstClockTime pts)
{
  GstCudaGraphBatchMeta *bm = gst_cuda_graph_buffer_get_batch_meta (batch);
  GstCudaGraphTensorMeta *rm = gst_cuda_graph_buffer_get_tensor_meta (ref);
  GstCudaGraphBatchMetaSource *src = &bm->sources[k];
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
  for (guint i = 0; i < rm->n_items; i++)
    check_item (&bm->items[src->first_item + i], &rm->items[i], k);
  return src->first_item + rm->n_items;
}

/* A partial batch leaves at its deadline.  The aggregator may be waiting
 * on a deadline it set before the frames came (passed over when it
 * fires), so the clock is advanced to each deadline it waits on until the
 * batch leaves; within 10 s of real time. */
static GstBuffer *
pull_past_deadline (GstHarness *h)
{
  GstTestClock *clock = gst_harness_get_testclock (h);
  gint64 give_up = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  GstBuffer *out;

  while ((out = gst_harness_try_pull (h)) == NULL
      && g_get_monotonic_time () < give_up) {
    if (gst_test_clock_peek_next_pending_id (clock, NULL))
      gst_harness_crank_single_clock_wait (h);
    else
      g_usleep (100);
  }
  gst_object_unref (clock);
  return out;
}

GstBuffer *
gcg_test_batch_run (GcgTestBatch *f, const guint *which, guint n_which,
    guint frame, GcgTestDecorateFunc decorate)
{
  GstBuffer *refs[16] = { NULL };
  GstClockTime pts = frame * (GST_SECOND / 30);
  GstBuffer *out;
  GstCudaGraphBatchMeta *bm;
  guint k = 0, i;

  for (i = 0; i < n_which; i++) {
    GcgTestStream *s = &f->streams[which ? which[i] : i];
    GstBuffer *buf = gcg_test_batch_frame (s->caps, s->seed + frame, pts);

    if (decorate)
      decorate (which ? which[i] : i, frame, buf);
    if (f->check)
      refs[i] = gcg_test_push_pull (s->ref, gst_buffer_copy_deep (buf));
    gcg_test_batch_push (s, buf);
  }
  out = n_which < playing_streams (f) ? pull_past_deadline (f->out)
                                      : gst_harness_pull (f->out);
  g_assert_nonnull (out);
  g_assert_cmpuint (GST_BUFFER_PTS (out), ==, pts);
  bm = gst_cuda_graph_buffer_get_batch_meta (out);
  g_assert_nonnull (bm);
  g_assert_cmpuint (bm->n_frames, ==, n_which);
  gcg_test_batch_check_absent (bm, playing_streams (f) - n_which);
  if (!f->check)
    return out;
  for (i = 0; i < n_which; i++) {
    k = check_source (out, i, &f->streams[which ? which[i] : i], refs[i], pts);
    gst_buffer_unref (refs[i]);
  }
  g_assert_cmpuint (bm->n_items, ==, k);
  g_assert_cmpuint (gst_cuda_graph_buffer_get_tensor_meta (out)->n_items, ==,
      k);
  return out;
}

void
gcg_test_batch_check_absent (const GstCudaGraphBatchMeta *bm, guint n_absent)
{
  g_assert_cmpuint (bm->n_sources, ==, bm->n_frames + n_absent);
  for (guint i = bm->n_frames; i < bm->n_sources; i++) {
    const GstCudaGraphBatchMetaSource *src = &bm->sources[i];

    g_assert_nonnull (src->pad_name);
    g_assert_cmpuint (src->n_items, ==, 0);
    g_assert_cmpuint (src->pts, ==, GST_CLOCK_TIME_NONE);
    g_assert_cmpuint (src->running_time, ==, GST_CLOCK_TIME_NONE);
    g_assert_cmpuint (src->width, ==, 0);
  }
  for (guint k = 0; k < bm->n_items; k++)
    g_assert_cmpuint (bm->items[k].source, <, bm->n_frames);
}

void
gcg_test_batch_check_dims (GcgTestBatch *f, const gchar *dims)
{
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (f->out->sinkpad);
  GstStructure *s = gst_caps_get_structure (caps, 0);

  g_assert_cmpstr (gst_structure_get_string (s, "dimensions"), ==, dims);
}
