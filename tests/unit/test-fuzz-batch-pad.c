/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphbatch's sink pad properties set to hostile values while it
 * streams (issue 23 item 5), CPU backend, deterministic from a seed: crops
 * at and past the frame and the property's bounds (0, 1, the frame's size
 * and one more, GCG_FRAME_CHAIN_MAX_SIZE), roi-type strings (unset, empty,
 * long, not UTF-8, one the frames' regions carry) on three streams of
 * different sizes whose frames carry regions of interest.  Between frames
 * each case sets a few properties, pushes one frame per stream and pulls
 * the batch.  What is checked: nothing crashes or logs a critical; every
 * batch is as large as the first; its GstCudaGraphBatchMeta lists at most the
 * streams, at most the items it holds, each item naming a listed source
 * and a rectangle inside that source's frame; a stream whose crop misses
 * its frame is still batched (its whole visible frame, gstcudagraphcrop.h):
 * no frame is lost.  A second part sets the same values from a
 * thread of its own while the streams push (what it checks holds
 * whatever the interleaving).
 *
 *   GCG_FUZZ_SEED=N      seed (default: fixed, printed)
 *   GCG_FUZZ_CASES=N     frames (default 1500)
 *   GCG_FUZZ_FIRST=N     first frame (default 0)
 */
#include <string.h>

#include "gcg-gst-test-util.h"
#include "common/gcg-test-fuzz.h"
#include "common/gcg-test-gst-batch.h"

#include <gcg.h>

#include "gstcudagraphbatchmeta.h"

#define DEFAULT_SEED 20261125u
#define DEFAULT_CASES 1500
#define N_STREAMS 3

static guint32 fuzz_seed;
static guint case_no;
static gsize batch_size;
static guint n_missed, n_items_seen;

#define FUZZ_CHECK(cond, ...) \
  GCG_FUZZ_CHECK ("batch-pad", fuzz_seed, case_no, cond, __VA_ARGS__)

static const gchar *crop_props[] = { "crop-x", "crop-y", "crop-width",
  "crop-height" };

/* A crop value for a frame of @dim pixels. */
static gint
rand_crop (GRand *r, gint dim)
{
  const gint special[] = { 0, 1, dim - 1, dim, dim + 1, dim / 2,
    GCG_FRAME_CHAIN_MAX_SIZE, GCG_FRAME_CHAIN_MAX_SIZE - 1 };

  if (g_rand_boolean (r))
    return CLAMP (special[g_rand_int_range (r, 0, G_N_ELEMENTS (special))], 0,
        GCG_FRAME_CHAIN_MAX_SIZE);
  return g_rand_int_range (r, 0, dim + 2);
}

static const gchar *
rand_roi_type (GRand *r, gchar *long_type)
{
  static const gchar *types[] = { NULL, "", "car", "face", "person", "\xff\xfe",
    "car\n", "c" };
  gint i = g_rand_int_range (r, 0, G_N_ELEMENTS (types) + 1);

  return i == G_N_ELEMENTS (types) ? long_type : types[i];
}

/* A few properties of random pads set to hostile values. */
static void
set_hostile (GRand *r, GcgTestBatch *f, gchar *long_type)
{
  for (gint n = g_rand_int_range (r, 0, 4); n > 0; n--) {
    guint k = g_rand_int_range (r, 0, N_STREAMS);
    GcgTestStream *s = &f->streams[k];
    GstVideoInfo info = gcg_test_info (s->caps);
    gint which = g_rand_int_range (r, 0, 5);

    /* The first stream keeps its whole frame: every frame gives a batch,
     * so each batch pulled is of the frame just pushed. */
    if (which == 4 || k == 0)
      g_object_set (s->pad, "roi-type", rand_roi_type (r, long_type), NULL);
    else
      g_object_set (s->pad, crop_props[which],
          rand_crop (r,
              which % 2 ? GST_VIDEO_INFO_HEIGHT (&info)
                        : GST_VIDEO_INFO_WIDTH (&info)),
          NULL);
  }
}

/* The batch describes only what it holds. */
static void
check_batch (GstBuffer *out)
{
  GstCudaGraphBatchMeta *m = gst_cuda_graph_buffer_get_batch_meta (out);

  if (batch_size == 0)
    batch_size = gst_buffer_get_size (out);
  FUZZ_CHECK (gst_buffer_get_size (out) == batch_size,
      "a batch of %zu "
      "bytes, the first %zu",
      gst_buffer_get_size (out), batch_size);
  FUZZ_CHECK (m != NULL, "a batch without a GstCudaGraphBatchMeta");
  FUZZ_CHECK (m->n_sources <= N_STREAMS, "%u sources", m->n_sources);
  FUZZ_CHECK (m->n_frames <= m->n_sources, "%u frames of %u sources",
      m->n_frames, m->n_sources);
  FUZZ_CHECK (m->n_items <= m->n_allocated, "%u items of %u", m->n_items,
      m->n_allocated);
  n_items_seen += m->n_items;
  for (guint i = 0; i < m->n_items; i++) {
    const GstCudaGraphBatchMetaItem *it = &m->items[i];
    const GstCudaGraphBatchMetaSource *src;

    FUZZ_CHECK (it->source < m->n_frames,
        "item %u names source %u of %u "
        "frames",
        i, it->source, m->n_frames);
    src = &m->sources[it->source];
    FUZZ_CHECK (it->roi_x >= 0 && it->roi_y >= 0 && it->roi_width > 0
            && it->roi_height > 0
            && it->roi_x + it->roi_width <= (gint) src->width
            && it->roi_y + it->roi_height <= (gint) src->height,
        "item %u: %d,%d %dx%d in a %ux%u frame", i, it->roi_x, it->roi_y,
        it->roi_width, it->roi_height, src->width, src->height);
  }
}

/* Whether @s's crop selects part of its frame (the pad's rule: a width
 * or height of 0 runs to the frame's edge). */
static gboolean
crop_hits (GcgTestStream *s)
{
  GstVideoInfo info = gcg_test_info (s->caps);
  gint w = GST_VIDEO_INFO_WIDTH (&info), h = GST_VIDEO_INFO_HEIGHT (&info);
  gint x, y, cw, ch;

  g_object_get (s->pad, "crop-x", &x, "crop-y", &y, "crop-width", &cw,
      "crop-height", &ch, NULL);
  cw = cw ? cw : w - x;
  ch = ch ? ch : h - y;
  return MIN (x + cw, w) > x && MIN (y + ch, h) > y;
}

/* The batch lists every stream, in order, whether its crop selects
 * something or not (a crop that misses loses no frame). */
static void
check_sources (GcgTestBatch *f, GstBuffer *out, const gboolean *hits,
    GstClockTime pts)
{
  GstCudaGraphBatchMeta *m = gst_cuda_graph_buffer_get_batch_meta (out);

  FUZZ_CHECK (m != NULL && m->n_frames == N_STREAMS,
      "%u streams in the batch, not %u", m ? m->n_frames : 0, N_STREAMS);
  for (guint i = 0; m && i < MIN (m->n_frames, N_STREAMS); i++) {
    FUZZ_CHECK (g_strcmp0 (m->sources[i].pad_name,
                    GST_PAD_NAME (f->streams[i].pad))
            == 0,
        "source %u is %s", i, m->sources[i].pad_name);
    FUZZ_CHECK (m->sources[i].pts == pts,
        "source %s of another frame (%" GST_TIME_FORMAT ")",
        m->sources[i].pad_name, GST_TIME_ARGS (m->sources[i].pts));
    n_missed += !hits[i];
  }
}

static GstBuffer *
frame (GcgTestStream *s, guint stream, guint fr)
{
  GstBuffer *buf =
      gcg_test_batch_frame (s->caps, s->seed + fr, fr * (GST_SECOND / 30));

  gcg_test_batch_vary_rois (stream, fr, buf);
  return buf;
}

static void
test_between_frames (void)
{
  g_autofree gchar *long_type = g_strnfill (5000, 'x');
  guint first, n, ran = 0;
  GcgTestBatch f;

  gcg_test_fuzz_sweep (&fuzz_seed, &first, &n, DEFAULT_SEED, DEFAULT_CASES);
  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 4);
  for (guint i = 0; i < N_STREAMS; i++)
    gcg_test_batch_add_stream (&f, gcg_test_batch_caps[i], i);
  for (guint fr = first; fr < first + n; fr++) {
    guint32 s[2] = { fuzz_seed, fr };
    g_autoptr (GRand) r = g_rand_new_with_seed_array (s, 2);
    gboolean hits[N_STREAMS];
    GstBuffer *out;

    case_no = fr;
    set_hostile (r, &f, long_type);
    for (guint i = 0; i < N_STREAMS; i++) {
      hits[i] = crop_hits (&f.streams[i]);
      gcg_test_batch_push (&f.streams[i], frame (&f.streams[i], i, fr));
    }
    out = gst_harness_pull (f.out);
    FUZZ_CHECK (out != NULL, "no batch");
    check_batch (out);
    check_sources (&f, out, hits, fr * (GST_SECOND / 30));
    gst_buffer_unref (out);
    ran++;
  }
  gcg_test_batch_clear (&f);
  gcg_test_fuzz_ran ("batch-pad", ran, n);
  g_test_message ("%u items, %u stream-frames whose crop missed", n_items_seen,
      n_missed);
  /* The sweep reaches crops that miss and regions that are kept. */
  if (n >= 200) {
    g_assert_cmpuint (n_missed, >, 0);
    g_assert_cmpuint (n_items_seen, >, n);
  }
}

typedef struct
{
  GcgTestBatch *f;
  gint stop;
} Setter;

static gpointer
set_while_streaming (gpointer data)
{
  Setter *st = data;
  g_autofree gchar *long_type = g_strnfill (5000, 'y');
  g_autoptr (GRand) r = g_rand_new_with_seed (fuzz_seed);

  /* Yielding between sets: where threads run one at a time (valgrind)
   * the frames still flow. */
  while (!g_atomic_int_get (&st->stop)) {
    set_hostile (r, st->f, long_type);
    g_thread_yield ();
  }
  return NULL;
}

/* The same values from another thread while frames flow. */
static void
test_concurrent (void)
{
  GcgTestBatch f;
  Setter st = { &f, 0 };
  GThread *thread;

  fuzz_seed = gcg_test_fuzz_env_uint ("GCG_FUZZ_SEED", DEFAULT_SEED);
  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 4);
  for (guint i = 0; i < N_STREAMS; i++)
    gcg_test_batch_add_stream (&f, gcg_test_batch_caps[i], i);
  thread = g_thread_new ("setter", set_while_streaming, &st);
  for (guint fr = 0; fr < 300; fr++) {
    GstBuffer *out;

    case_no = fr;
    for (guint i = 0; i < N_STREAMS; i++)
      gcg_test_batch_push (&f.streams[i], frame (&f.streams[i], i, fr));
    out = gst_harness_pull (f.out);
    FUZZ_CHECK (out != NULL, "no batch");
    check_batch (out);
    gst_buffer_unref (out);
  }
  g_atomic_int_set (&st.stop, 1);
  g_thread_join (thread);
  gcg_test_batch_clear (&f);
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/batch-pad/between-frames", test_between_frames);
  g_test_add_func ("/batch-pad/concurrent", test_concurrent);
  return g_test_run ();
}
