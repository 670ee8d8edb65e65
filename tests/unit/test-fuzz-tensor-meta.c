/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A deterministic fuzz test of tensor metas arriving from upstream (issue
 * 23 item 5): frames carrying a GstCudaGraphTensorMeta and a GstCudaGraphBatchMeta whose
 * fields lie (n_items, n_tensors, n_sources past their arrays, sizes and
 * offsets past the buffer, shapes whose product overflows, unknown enums,
 * an items count larger than the items allocated) are copied
 * (gst_buffer_copy, _copy_deep, _copy_region of part or all of the
 * buffer) and pushed through the three elements (CPU backend).  What is
 * checked: nothing crashes or logs a critical; a copy of part of a buffer
 * carries neither meta; a batch meta whose count exceeds its items is not
 * copied; every tensor meta an element writes describes bytes its own
 * output holds (whatever the input's said).  Under the sanitizer build any
 * over-read of a meta is a report and fails the test.
 *
 *   GCG_FUZZ_SEED=N      seed (default: fixed, printed)
 *   GCG_FUZZ_CASES=N     number of cases (default 600)
 *   GCG_FUZZ_FIRST=N     first case to run (default 0)
 */
#include <string.h>

#include "gcg-gst-test-util.h"
#include "common/gcg-test-fuzz.h"
#include "common/gcg-test-gst-batch.h"

#include "gstcudagraphbatchmeta.h"
#include "gstcudagraphtensormeta.h"

#define DEFAULT_SEED 20261125u
#define DEFAULT_CASES 600
#define RGBA_32x24 "video/x-raw,format=RGBA,width=32,height=24,framerate=30/1"

static guint32 fuzz_seed;
static guint case_no;
static const GstMetaInfo *tensor_info, *batch_info;
static guint n_region_copies, n_whole_copies, n_outputs;

#define FUZZ_CHECK(cond, ...) \
  GCG_FUZZ_CHECK ("tensor-meta", fuzz_seed, case_no, cond, __VA_ARGS__)

/* Mostly small, sometimes at or past a bound, sometimes huge. */
static guint64
rand_count (GRand *r, guint64 bound)
{
  static const guint64 special[] = { 0, 1, G_MAXUINT32, G_MAXINT32,
    (guint64) G_MAXINT32 + 1, G_MAXUINT64, G_MAXINT64, 1ull << 32, 1ull << 62 };

  switch (g_rand_int_range (r, 0, 4)) {
    case 0:
      return special[g_rand_int_range (r, 0, G_N_ELEMENTS (special))];
    case 1:
      return bound + g_rand_int_range (r, -1, 3);
    default:
      return g_rand_int_range (r, 0, (gint32) MIN (bound + 2, G_MAXINT32));
  }
}

static void
lie_tensor_meta (GRand *r, GstBuffer *buf)
{
  GstCudaGraphTensorMeta *m =
      (GstCudaGraphTensorMeta *) gst_buffer_add_meta (buf, tensor_info, NULL);

  /* Pointers stay NULL: a reader cannot check where a pointer points,
   * only counts and sizes against what it holds. */
  m->memory = (guint) rand_count (r, 2);
  m->device_id = (gint) rand_count (r, 2);
  m->size = rand_count (r, 32 * 24 * 4);
  m->n_dims = (guint) rand_count (r, 4);
  for (guint i = 0; i < 4; i++)
    m->shape[i] = rand_count (r, 64);
  m->layout = (guint) rand_count (r, 2);
  m->type = (guint) rand_count (r, 3);
  m->channels = (guint) rand_count (r, 3);
  m->width = (guint) rand_count (r, 64);
  m->height = (guint) rand_count (r, 64);
  m->batch = (guint) rand_count (r, GST_CUDA_GRAPH_TENSOR_META_MAX_ITEMS);
  m->n_items = (guint) rand_count (r, GST_CUDA_GRAPH_TENSOR_META_MAX_ITEMS);
  for (guint i = 0; i < GST_CUDA_GRAPH_TENSOR_META_MAX_ITEMS; i++) {
    m->items[i].roi_width = (gint) rand_count (r, 32);
    m->items[i].scale_x = g_rand_boolean (r) ? 0.0f : 1e30f;
  }
  m->n_tensors = (guint) rand_count (r, GST_CUDA_GRAPH_TENSOR_META_MAX_TENSORS);
  for (guint i = 0; i < GST_CUDA_GRAPH_TENSOR_META_MAX_TENSORS; i++) {
    GstCudaGraphTensorMetaTensor *t = &m->tensors[i];

    t->offset = rand_count (r, 32 * 24 * 4);
    t->size = rand_count (r, 32 * 24 * 4);
    t->dtype = (guint) rand_count (r, 7);
    t->n_dims = (guint) rand_count (r, GST_CUDA_GRAPH_TENSOR_META_MAX_DIMS);
    for (guint d = 0; d < GST_CUDA_GRAPH_TENSOR_META_MAX_DIMS; d++)
      t->shape[d] = (gint64) rand_count (r, 1 << 16);
  }
}

static void
lie_batch_meta (GRand *r, GstBuffer *buf)
{
  guint n = g_rand_int_range (r, 0, 8);
  GstCudaGraphBatchMeta *m = (GstCudaGraphBatchMeta *) gst_buffer_add_meta (buf,
      batch_info, GUINT_TO_POINTER (n));
  guint real_sources = g_rand_int_range (r, 0, 3);

  for (guint i = 0; i < real_sources; i++) {
    m->sources[i].pad_name = g_strdup_printf ("sink_%u", i);
    m->sources[i].first_item = (guint) rand_count (r, n);
    m->sources[i].n_items = (guint) rand_count (r, n);
  }
  for (guint i = 0; i < n; i++)
    m->items[i].source = (guint) rand_count (r, real_sources);
  /* n_sources past the array; n_items past the items allocated. */
  m->n_sources = g_rand_boolean (r)
      ? real_sources
      : (guint) rand_count (r, GST_CUDA_GRAPH_BATCH_META_MAX_SOURCES);
  if (m->n_sources < real_sources)
    m->n_sources = real_sources;
  if (g_rand_int_range (r, 0, 3) == 0)
    m->n_items = (guint) rand_count (r, n);
}

static gboolean
batch_meta_lies (const GstCudaGraphBatchMeta *m)
{
  return m->n_items > m->n_allocated;
}

/* A tensor meta an element wrote describes its own output. */
static void
check_written_meta (GstBuffer *out)
{
  GstCudaGraphTensorMeta *m = gst_cuda_graph_buffer_get_tensor_meta (out);
  gsize size = gst_buffer_get_size (out);

  if (m == NULL)
    return;
  n_outputs++;
  FUZZ_CHECK (m->size <= size,
      "meta size %" G_GUINT64_FORMAT " of a %zu-"
      "byte buffer",
      m->size, size);
  FUZZ_CHECK (m->n_items <= GST_CUDA_GRAPH_TENSOR_META_MAX_ITEMS, "n_items %u",
      m->n_items);
  FUZZ_CHECK (m->n_tensors <= GST_CUDA_GRAPH_TENSOR_META_MAX_TENSORS,
      "n_tensors %u", m->n_tensors);
  for (guint i = 0; i < m->n_tensors; i++)
    FUZZ_CHECK (m->tensors[i].offset + m->tensors[i].size <= size,
        "tensor %u past the buffer", i);
}

/* Copies of all and of part of @buf. */
static void
check_copies (GRand *r, GstBuffer *buf)
{
  GstCudaGraphBatchMeta *bm = gst_cuda_graph_buffer_get_batch_meta (buf);
  gboolean lies = bm != NULL && batch_meta_lies (bm);
  gsize size = gst_buffer_get_size (buf);
  gsize off = g_rand_int_range (r, 0, (gint32) size);
  gsize len = g_rand_int_range (r, 1, (gint32) (size - off + 1));
  g_autoptr (GstBuffer) whole = g_rand_boolean (r) ? gst_buffer_copy (buf)
                                                   : gst_buffer_copy_deep (buf);
  g_autoptr (GstBuffer) part = NULL;

  FUZZ_CHECK (gst_cuda_graph_buffer_get_tensor_meta (whole) != NULL,
      "a whole copy lost the tensor meta");
  FUZZ_CHECK ((gst_cuda_graph_buffer_get_batch_meta (whole) != NULL)
          == (bm && !lies),
      "a whole copy %s the batch meta (n_items %u of %u allocated)",
      gst_cuda_graph_buffer_get_batch_meta (whole) ? "kept" : "dropped",
      bm ? bm->n_items : 0, bm ? bm->n_allocated : 0);
  n_whole_copies++;
  part = gst_buffer_copy_region (buf, GST_BUFFER_COPY_ALL, off, len);
  if (off == 0 && len == size)
    return;
  FUZZ_CHECK (gst_cuda_graph_buffer_get_tensor_meta (part) == NULL
          && gst_cuda_graph_buffer_get_batch_meta (part) == NULL,
      "a copy of %zu bytes at %zu of %zu kept a tensor meta", len, off, size);
  n_region_copies++;
}

static void
through_element (GRand *r, GstBuffer *in)
{
  static const gchar *launches[][2] = {
    { "cudagraphconvert backend=cpu", NULL },
    { "cudagraphconvert backend=cpu",
        "video/x-raw,format=NV12,width=16,"
        "height=16" },
    { "cudagraphpreprocess backend=cpu width=16 height=8", NULL },
    { "cudagraphpreprocess backend=cpu width=8 height=8 max-rois=4 "
      "tensor-type=uint8 layout=nhwc",
        NULL },
  };
  guint which = g_rand_int_range (r, 0, G_N_ELEMENTS (launches));
  GstHarness *h =
      gcg_test_harness_new (launches[which][0], RGBA_32x24, launches[which][1]);
  GstBuffer *out = gcg_test_push_pull (h, in);

  /* A passthrough output is the input, lies and all. */
  if (out != in)
    check_written_meta (out);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* @in (taken) through cudagraphbatch, one stream: its batch. */
static GstBuffer *
batch_one (GstBuffer *in)
{
  GcgTestBatch f;
  GstBuffer *out;

  gcg_test_batch_init (&f, "cpu", "cpu", NULL, 1);
  gcg_test_batch_add_stream (&f, RGBA_32x24, 1);
  gcg_test_batch_push (&f.streams[0], in);
  out = gst_harness_pull (f.out);
  g_assert_nonnull (out);
  gcg_test_batch_clear (&f);
  return out;
}

static void
through_batch (GstBuffer *in)
{
  GstBuffer *out = batch_one (in);

  check_written_meta (out);
  gst_buffer_unref (out);
}

static void
run_case (guint i)
{
  static const guint8 grey[4] = { 100, 100, 100, 255 };
  guint32 s[2] = { fuzz_seed, i };
  g_autoptr (GRand) r = g_rand_new_with_seed_array (s, 2);
  GstBuffer *buf = gcg_test_solid_new (RGBA_32x24, grey, 4, 0);

  case_no = i;
  lie_tensor_meta (r, buf);
  if (g_rand_boolean (r))
    lie_batch_meta (r, buf);
  check_copies (r, buf);
  if (i % 4 == 3)
    through_batch (buf);
  else
    through_element (r, buf);
}

/* The metas are registered by the plugin when first used: one frame
 * through each element that writes them. */
static void
register_metas (void)
{
  static const guint8 grey[4] = { 100, 100, 100, 255 };
  GstBuffer *out = batch_one (gcg_test_solid_new (RGBA_32x24, grey, 4, 0));

  g_assert_nonnull (gst_cuda_graph_buffer_get_batch_meta (out));
  g_assert_nonnull (gst_cuda_graph_buffer_get_tensor_meta (out));
  gst_buffer_unref (out);
  tensor_info = gst_meta_get_info ("GstCudaGraphTensorMeta");
  batch_info = gst_meta_get_info ("GstCudaGraphBatchMeta");
  g_assert_nonnull (tensor_info);
  g_assert_nonnull (batch_info);
}

static void
test_tensor_meta_fuzz (void)
{
  guint first, n, ran = 0;

  gcg_test_fuzz_sweep (&fuzz_seed, &first, &n, DEFAULT_SEED, DEFAULT_CASES);
  register_metas ();
  for (guint i = first; i < first + n; i++, ran++)
    run_case (i);
  gcg_test_fuzz_ran ("tensor-meta", ran, n);
  g_test_message ("%u whole copies, %u region copies, %u element outputs "
                  "checked",
      n_whole_copies, n_region_copies, n_outputs);
  if (n >= 100) {
    g_assert_cmpuint (n_region_copies, >, n / 2);
    g_assert_cmpuint (n_outputs, >, n / 4);
  }
}

/* The bounds the transform keeps whatever the counts say (failed before:
 * n_sources past the array was read and its strings duplicated; an
 * n_items past the items allocated was copied). */
static void
test_batch_meta_counts (void)
{
  static const guint8 grey[4] = { 100, 100, 100, 255 };
  g_autoptr (GstBuffer) buf = gcg_test_solid_new (RGBA_32x24, grey, 4, 0);
  g_autoptr (GstBuffer) copy = NULL;
  GstCudaGraphBatchMeta *m;

  register_metas ();
  m = (GstCudaGraphBatchMeta *) gst_buffer_add_meta (buf, batch_info,
      GUINT_TO_POINTER (2));
  g_assert_cmpuint (m->n_allocated, ==, 2);
  m->sources[0].pad_name = g_strdup ("sink_0");
  m->n_sources = GST_CUDA_GRAPH_BATCH_META_MAX_SOURCES + 1000;
  copy = gst_buffer_copy (buf);
  m = gst_cuda_graph_buffer_get_batch_meta (copy);
  g_assert_nonnull (m);
  g_assert_cmpuint (m->n_sources, ==, GST_CUDA_GRAPH_BATCH_META_MAX_SOURCES);
  g_assert_cmpstr (m->sources[0].pad_name, ==, "sink_0");
  gst_clear_buffer (&copy);

  m = gst_cuda_graph_buffer_get_batch_meta (buf);
  m->n_items = 3;
  copy = gst_buffer_copy (buf);
  g_assert_null (gst_cuda_graph_buffer_get_batch_meta (copy));
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL
      | G_LOG_LEVEL_WARNING);

  g_test_add_func ("/tensor-meta/batch-meta-counts", test_batch_meta_counts);
  g_test_add_func ("/tensor-meta/fuzz", test_tensor_meta_fuzz);
  return g_test_run ();
}
