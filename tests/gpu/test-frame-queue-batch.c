/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gcg_frame_queue_submit_batch() on the GPU: host inputs (pageable and
 * pinned, with device inputs mixed in) staged by the queue, the batch
 * replayed, the tensor copied back into pageable or pinned host memory or
 * written in place on the device; every batch's output equal to the CPU
 * reference (one frame chain per source), graph and eager, over more
 * batches than the queue has slots; callbacks in order; after the first
 * round no staging is allocated any more (the slots' staging is reused).
 * Completion marks (/frame-queue-batch/marks/): a full batch, then
 * partial ones, into the SAME device output, each seen done through the
 * stream's mark (the batch's kernel writes its unused items as zeros in
 * the replay, nothing after it): every byte past the batch's items is 0,
 * the items equal the CPU backend's, graph and eager, NCHW and NHWC,
 * float32, float16 and uint8, RGB and gray (items of odd sizes, off
 * 16-byte boundaries), through both the one-pixel and the *4 kernels.
 */
#include "gcg-gpu-fixture.h"
#include "gcg-frame-queue-private.h"
#include "common/gcg-test-frame-batch.h"

#include <string.h>

#define SENTINEL 0xab
#define DEPTH 3
#define BATCHES 24

typedef struct
{
  GcgTestFrameBatch b;
  CUdeviceptr dev_frames[GCG_TEST_FRAME_BATCH_SOURCES];
  guint8 *pinned_frames[GCG_TEST_FRAME_BATCH_SOURCES];
  GcgHostPool *pool;
  GcgAllocator *allocator;
  GcgFrameBatch *batch;
  GcgFrameQueue *queue;
  gsize out_size;
  /* One output per batch in flight, by kind. */
  guint8 *out_host[BATCHES];
  guint8 *out_pinned[BATCHES];
  CUdeviceptr out_dev[BATCHES];
  guint8 *ref[BATCHES];
  guint ref_items[BATCHES];
  guint n_items[BATCHES];
  GcgMemoryKind out_kind[BATCHES];
  guint64 retired[BATCHES];
  guint n_retired;
} Run;

static void
on_done (GcgFrameQueue *queue, guint64 seq, const GError *error,
    gpointer user_data)
{
  Run *r = user_data;

  g_assert_no_error (error);
  g_assert_cmpuint (r->n_retired, <, BATCHES);
  r->retired[r->n_retired++] = seq;
}

static void alloc_outputs (Run *r);

static void
run_init (Run *r, GcgContext *ctx, GcgStream *stream, gboolean use_graph)
{
  GcgFrameBatchConfig config;
  g_autoptr (GError) error = NULL;

  memset (r, 0, sizeof (*r));
  gcg_frame_batch_config_init (&config);
  config.out_width = 32;
  config.out_height = 24;
  config.max_sources = 6;
  config.max_rois = 2;
  gcg_test_frame_batch_init (&r->b, &config, 6, 5);
  r->pool = gcg_host_pool_new (ctx);
  r->allocator = gcg_allocator_new (ctx, &error);
  g_assert_no_error (error);
  r->batch = gcg_frame_batch_new (&config, GCG_BACKEND_CUDA, ctx, &error);
  g_assert_no_error (error);
  gcg_frame_batch_set_use_graph (r->batch, use_graph);
  r->queue = gcg_frame_queue_new (stream, r->allocator, r->pool, DEPTH, &error);
  g_assert_no_error (error);
  r->out_size = gcg_frame_batch_get_output_size (r->batch);
  for (guint i = 0; i < r->b.n_frames; i++) {
    gsize size = r->b.frames[i].layout.size;

    g_assert_true (GCG_CU_OK (&error, cuMemAlloc, &r->dev_frames[i], size));
    g_assert_true (GCG_CU_OK (&error, cuMemcpyHtoD, r->dev_frames[i],
        r->b.frames[i].data, size));
    r->pinned_frames[i] = gcg_host_pool_alloc (r->pool, size, &error);
    g_assert_no_error (error);
    memcpy (r->pinned_frames[i], r->b.frames[i].data, size);
  }
  alloc_outputs (r);
}

static void
run_clear (Run *r)
{
  g_clear_object (&r->queue);
  for (guint k = 0; k < BATCHES; k++) {
    g_free (r->out_host[k]);
    g_free (r->ref[k]);
    if (r->out_pinned[k])
      gcg_host_pool_release (r->pool, r->out_pinned[k], r->out_size, NULL);
    if (r->out_dev[k])
      g_assert_true (GCG_CU_OK (NULL, cuMemFree, r->out_dev[k]));
  }
  for (guint i = 0; i < r->b.n_frames; i++) {
    g_assert_true (GCG_CU_OK (NULL, cuMemFree, r->dev_frames[i]));
    gcg_host_pool_release (r->pool, r->pinned_frames[i],
        r->b.frames[i].layout.size, NULL);
  }
  g_clear_object (&r->batch);
  g_clear_object (&r->allocator);
  g_clear_object (&r->pool);
  gcg_test_frame_batch_clear (&r->b);
}

/* Source @i's planes for batch @k: pageable, pinned or device memory in
 * turn. */
static void
source_planes (Run *r, guint i, guint k, GcgFramePlanes *p)
{
  const GcgTestLayout *l = &r->b.frames[i].layout;

  switch ((i + k) % 3) {
    case 0:
      gcg_test_planes_init (p, l, GCG_MEMORY_KIND_HOST,
          (guint64) (guintptr) r->b.frames[i].data);
      break;
    case 1:
      gcg_test_planes_init (p, l, GCG_MEMORY_KIND_HOST_PINNED,
          (guint64) (guintptr) r->pinned_frames[i]);
      break;
    default:
      gcg_test_planes_init (p, l, GCG_MEMORY_KIND_DEVICE, r->dev_frames[i]);
      break;
  }
}

/* Every batch's output, allocated before the first (so that the pinned
 * pool's use counts staging only): pageable, pinned or device memory in
 * turn. */
static void
alloc_outputs (Run *r)
{
  g_autoptr (GError) error = NULL;
  g_autofree guint8 *sentinel = g_malloc (r->out_size);

  memset (sentinel, SENTINEL, r->out_size);
  for (guint k = 0; k < BATCHES; k++) {
    r->out_kind[k] = (GcgMemoryKind) (k % 3);
    switch (r->out_kind[k]) {
      case GCG_MEMORY_KIND_HOST:
        r->out_host[k] = g_malloc (r->out_size);
        memset (r->out_host[k], SENTINEL, r->out_size);
        break;
      case GCG_MEMORY_KIND_HOST_PINNED:
        r->out_pinned[k] = gcg_host_pool_alloc (r->pool, r->out_size, &error);
        g_assert_no_error (error);
        memset (r->out_pinned[k], SENTINEL, r->out_size);
        break;
      default:
        g_assert_true (GCG_CU_OK (&error, cuMemAlloc, &r->out_dev[k],
            r->out_size));
        g_assert_true (GCG_CU_OK (&error, cuMemcpyHtoD, r->out_dev[k], sentinel,
            r->out_size));
        break;
    }
    g_assert_no_error (error);
  }
}

static void
output_planes (Run *r, guint k, GcgFramePlanes *out)
{
  memset (out, 0, sizeof (*out));
  out->kind = r->out_kind[k];
  out->n_planes = 1;
  out->size[0] = r->out_size;
  out->data[0] = r->out_host[k] ? (guint64) (guintptr) r->out_host[k]
      : r->out_pinned[k]        ? (guint64) (guintptr) r->out_pinned[k]
                                : r->out_dev[k];
}

/* Batch @k: the first DEPTH batches hold every source (each slot's
 * staging at its largest), the next ones fewer, in another order. */
static void
submit (Run *r, guint k)
{
  GcgFrameBatchSource sources[GCG_TEST_FRAME_BATCH_SOURCES];
  GcgFrameParams params[GCG_TEST_FRAME_BATCH_SOURCES];
  GcgFramePlanes in[GCG_TEST_FRAME_BATCH_SOURCES], out;
  guint order[GCG_TEST_FRAME_BATCH_SOURCES];
  guint n = k < DEPTH ? r->b.n_frames : 1 + k % r->b.n_frames;
  g_autoptr (GError) error = NULL;
  guint64 seq = 0;

  for (guint j = 0; j < n; j++) {
    order[j] = (j + k) % r->b.n_frames;
    sources[j] = r->b.frames[order[j]].source;
    gcg_test_frame_batch_params (&r->b, order[j], k, 0, &params[j]);
    source_planes (r, order[j], k, &in[j]);
  }
  output_planes (r, k, &out);
  r->ref[k] = g_malloc (r->out_size);
  memset (r->ref[k], SENTINEL, r->out_size);
  r->ref_items[k] =
      gcg_test_frame_batch_reference (&r->b, order, n, k, r->ref[k]);
  g_assert_true (gcg_frame_queue_submit_batch (r->queue, r->batch, n, sources,
      params, in, &out, on_done, r, &r->n_items[k], &seq, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (seq, ==, k + 1);
}

static void
check (Run *r, guint k)
{
  g_autofree guint8 *host = NULL;
  const guint8 *got;
  g_autoptr (GError) error = NULL;

  g_assert_cmpuint (r->n_items[k], ==, r->ref_items[k]);
  switch (r->out_kind[k]) {
    case GCG_MEMORY_KIND_HOST:
      got = r->out_host[k];
      break;
    case GCG_MEMORY_KIND_HOST_PINNED:
      got = r->out_pinned[k];
      break;
    default:
      host = g_malloc (r->out_size);
      g_assert_true (GCG_CU_OK (&error, cuMemcpyDtoH, host, r->out_dev[k],
          r->out_size));
      got = host;
      break;
  }
  gcg_test_frame_batch_assert_equal (&r->b, got, r->ref[k], r->out_size);
}

static guint64
staging_allocations (Run *r)
{
  g_autoptr (GcgAllocatorStats) stats = gcg_allocator_get_stats (r->allocator);

  return stats->cache_hits + stats->cache_misses;
}

static void
test_host_inputs (Fixture *f, gconstpointer data)
{
  gboolean use_graph = GPOINTER_TO_INT (data);
  guint64 warm;
  guint64 pinned_in_use;
  Run r;

  if (!f->ctx)
    return;
  run_init (&r, f->ctx, f->stream, use_graph);
  for (guint k = 0; k < DEPTH; k++)
    submit (&r, k);
  gcg_frame_queue_drain (r.queue);
  warm = staging_allocations (&r);
  pinned_in_use = gcg_host_pool_get_in_use_bytes (r.pool);
  for (guint k = DEPTH; k < BATCHES; k++)
    submit (&r, k);
  gcg_frame_queue_drain (r.queue);
  /* No staging allocated after the first round, pinned or device (the
   * outputs the test allocates are counted apart). */
  g_assert_cmpuint (staging_allocations (&r), ==, warm);
  g_assert_cmpuint (gcg_host_pool_get_in_use_bytes (r.pool), ==, pinned_in_use);
  g_assert_cmpuint (r.n_retired, ==, BATCHES);
  for (guint k = 0; k < BATCHES; k++) {
    g_assert_cmpuint (r.retired[k], ==, k + 1);
    check (&r, k);
  }
  g_assert_cmpuint (gcg_frame_batch_get_capture_count (r.batch), ==,
      use_graph ? 1 : 0);
  run_clear (&r);
}

/* --- completion marks ---------------------------------------------------- */

typedef struct
{
  const gchar *name;
  gboolean use_graph;
  GcgTensorLayout layout;
  GcgTensorType type;
  GcgTensorChannels channels;
  const gchar *kernels;         /* GCG_FRAME_KERNELS: "1" or "4" */
} TailCase;

#define TAIL_SOURCES 4
#define TAIL_ROIS 3

/* Source @i's values in a batch of @n_items items for it (1 to
 * TAIL_ROIS; 1: the whole frame). */
static void
tail_params (const GcgTestFrameBatch *b, guint i, guint n_items,
    GcgFrameParams *params)
{
  const GcgFrameBatchSource *src = &b->frames[i].source;

  gcg_test_frame_batch_params (b, i, 3, 0, params);
  params->n_rois = n_items > 1 ? n_items : 0;
  for (guint r = 0; r < params->n_rois; r++)
    params->rois[r] = (GcgRect) { (gint) r * 3, (gint) r * 2,
      (gint) src->width / 2 + (gint) r, (gint) src->height / 2 };
}

static void
on_tail_done (GcgFrameQueue *queue, guint64 seq, const GError *error,
    gpointer user_data)
{
  guint *retired = user_data;

  g_assert_no_error (error);
  (*retired)++;
}

/* One batch of @n sources, source i with items[i] items, into @out_dev
 * through the queue, and the same on the CPU backend; once it is done,
 * the whole tensor equals the CPU's and every byte past its items is 0. */
static void
tail_batch (GcgTestFrameBatch *b, GcgFrameQueue *queue, GcgFrameBatch *gpu,
    GcgFrameBatch *cpu, const CUdeviceptr *dev_frames, CUdeviceptr out_dev,
    guint n, const guint *items, guint *retired)
{
  GcgFrameBatchSource sources[TAIL_SOURCES];
  GcgFrameParams params[TAIL_SOURCES];
  GcgFramePlanes in[TAIL_SOURCES], out = { 0 };
  gsize size = gcg_frame_batch_get_output_size (gpu);
  g_autofree guint8 *got = g_malloc (size);
  g_autofree guint8 *ref = g_malloc (size);
  g_autoptr (GError) error = NULL;
  guint n_items = 0, ref_items = 0;
  guint64 seq = 0;

  for (guint i = 0; i < n; i++) {
    sources[i] = b->frames[i].source;
    tail_params (b, i, items[i], &params[i]);
    gcg_test_planes_init (&in[i], &b->frames[i].layout, GCG_MEMORY_KIND_DEVICE,
        dev_frames[i]);
  }
  out.kind = GCG_MEMORY_KIND_DEVICE;
  out.n_planes = 1;
  out.size[0] = size;
  out.data[0] = out_dev;
  memset (ref, SENTINEL, size);
  g_assert_true (gcg_frame_batch_process (cpu, n, sources, params,
      (guint64) (guintptr) ref, NULL, &ref_items, &error));
  g_assert_no_error (error);
  g_assert_true (gcg_frame_queue_submit_batch (queue, gpu, n, sources, params,
      in, &out, on_tail_done, retired, &n_items, &seq, &error));
  g_assert_no_error (error);
  g_assert_true (gcg_frame_queue_wait (queue, seq, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_items, ==, ref_items);
  g_assert_true (GCG_CU_OK (&error, cuMemcpyDtoH, got, out_dev, size));
  for (gsize j = (gsize) n_items * b->item_size; j < size; j++) {
    if (got[j] != 0)
      g_error ("byte %" G_GSIZE_FORMAT " of unused item %" G_GSIZE_FORMAT
               " is 0x%02x, not 0",
          j % b->item_size, j / b->item_size, got[j]);
  }
  gcg_test_frame_batch_assert_equal (b, got, ref, size);
}

static void
test_marks_tail (Fixture *f, gconstpointer data)
{
  const TailCase *c = data;
  /* Full; two sources, one and two of three items (slots unused inside
   * a source and past the sources); one source, one item. */
  static const guint full[TAIL_SOURCES] = { 3, 3, 3, 3 };
  static const guint partial[TAIL_SOURCES] = { 1, 2 };
  static const guint one[TAIL_SOURCES] = { 1 };
  GcgFrameBatchConfig config;
  GcgTestFrameBatch b;
  CUdeviceptr dev_frames[TAIL_SOURCES];
  g_autoptr (GcgAllocator) allocator = NULL;
  g_autoptr (GcgHostPool) pool = NULL;
  g_autoptr (GcgFrameBatch) gpu = NULL;
  g_autoptr (GcgFrameBatch) cpu = NULL;
  g_autoptr (GcgFrameQueue) queue = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree guint8 *sentinel = NULL;
  CUdeviceptr out_dev;
  guint retired = 0;
  gsize size;

  if (!f->ctx)
    return;
  gcg_frame_batch_config_init (&config);
  /* Odd sizes: a uint8 gray item is 510 bytes, so items start off
   * 16-byte boundaries. */
  config.out_width = 30;
  config.out_height = 17;
  config.tensor_layout = c->layout;
  config.tensor_type = c->type;
  config.tensor_channels = c->channels;
  config.max_sources = TAIL_SOURCES;
  config.max_rois = TAIL_ROIS;
  gcg_test_frame_batch_init (&b, &config, TAIL_SOURCES, 38);
  /* The kernel is picked when the batch is made. */
  g_setenv ("GCG_FRAME_KERNELS", c->kernels, TRUE);
  gpu = gcg_frame_batch_new (&config, GCG_BACKEND_CUDA, f->ctx, &error);
  g_unsetenv ("GCG_FRAME_KERNELS");
  g_assert_no_error (error);
  gcg_frame_batch_set_use_graph (gpu, c->use_graph);
  cpu = gcg_frame_batch_new (&config, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  pool = gcg_host_pool_new (f->ctx);
  allocator = gcg_allocator_new (f->ctx, &error);
  g_assert_no_error (error);
  queue = gcg_frame_queue_new (f->stream, allocator, pool, DEPTH, &error);
  g_assert_no_error (error);
  /* Whatever GCG_COMPLETION says. */
  gcg__frame_queue_set_marks (queue, TRUE);
  for (guint i = 0; i < TAIL_SOURCES; i++) {
    gsize bytes = b.frames[i].layout.size;

    g_assert_true (GCG_CU_OK (&error, cuMemAlloc, &dev_frames[i], bytes));
    g_assert_true (GCG_CU_OK (&error, cuMemcpyHtoD, dev_frames[i],
        b.frames[i].data, bytes));
  }
  size = gcg_frame_batch_get_output_size (gpu);
  sentinel = g_malloc (size);
  memset (sentinel, SENTINEL, size);
  g_assert_true (GCG_CU_OK (&error, cuMemAlloc, &out_dev, size));
  g_assert_true (GCG_CU_OK (&error, cuMemcpyHtoD, out_dev, sentinel, size));

  tail_batch (&b, queue, gpu, cpu, dev_frames, out_dev, TAIL_SOURCES, full,
      &retired);
  tail_batch (&b, queue, gpu, cpu, dev_frames, out_dev, 2, partial, &retired);
  tail_batch (&b, queue, gpu, cpu, dev_frames, out_dev, 1, one, &retired);
  gcg_frame_queue_drain (queue);
  g_assert_cmpuint (retired, ==, 3);
  /* Every batch seen done through the mark: nothing ran after its replay. */
  g_assert_cmpuint (gcg__frame_queue_get_marked (queue), ==, 3);
  g_assert_cmpuint (gcg_frame_batch_get_capture_count (gpu), ==,
      c->use_graph ? 1 : 0);

  g_clear_object (&queue);
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, out_dev));
  for (guint i = 0; i < TAIL_SOURCES; i++)
    g_assert_true (GCG_CU_OK (NULL, cuMemFree, dev_frames[i]));
  gcg_test_frame_batch_clear (&b);
}

int
main (int argc, char **argv)
{
  static const TailCase tails[] = {
    { "graph", TRUE, GCG_TENSOR_LAYOUT_NCHW, GCG_TENSOR_TYPE_FLOAT32,
        GCG_TENSOR_CHANNELS_RGB, "1" },
    { "eager", FALSE, GCG_TENSOR_LAYOUT_NCHW, GCG_TENSOR_TYPE_FLOAT32,
        GCG_TENSOR_CHANNELS_RGB, "1" },
    { "nhwc-uint8", TRUE, GCG_TENSOR_LAYOUT_NHWC, GCG_TENSOR_TYPE_UINT8,
        GCG_TENSOR_CHANNELS_RGB, "1" },
    { "float16", TRUE, GCG_TENSOR_LAYOUT_NCHW, GCG_TENSOR_TYPE_FLOAT16,
        GCG_TENSOR_CHANNELS_BGR, "1" },
    { "gray-uint8-eager", FALSE, GCG_TENSOR_LAYOUT_NCHW, GCG_TENSOR_TYPE_UINT8,
        GCG_TENSOR_CHANNELS_GRAY, "1" },
    { "wide", TRUE, GCG_TENSOR_LAYOUT_NCHW, GCG_TENSOR_TYPE_FLOAT32,
        GCG_TENSOR_CHANNELS_RGB, "4" },
    { "wide-nhwc-float16-eager", FALSE, GCG_TENSOR_LAYOUT_NHWC,
        GCG_TENSOR_TYPE_FLOAT16, GCG_TENSOR_CHANNELS_RGB, "4" },
    { "wide-gray-uint8", TRUE, GCG_TENSOR_LAYOUT_NHWC, GCG_TENSOR_TYPE_UINT8,
        GCG_TENSOR_CHANNELS_GRAY, "4" },
  };

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add ("/frame-queue-batch/host-inputs/graph", Fixture,
      GINT_TO_POINTER (TRUE), fixture_setup, test_host_inputs,
      fixture_teardown);
  g_test_add ("/frame-queue-batch/host-inputs/eager", Fixture,
      GINT_TO_POINTER (FALSE), fixture_setup, test_host_inputs,
      fixture_teardown);
  for (guint i = 0; i < G_N_ELEMENTS (tails); i++) {
    g_autofree gchar *path =
        g_strdup_printf ("/frame-queue-batch/marks/tail/%s", tails[i].name);

    g_test_add (path, Fixture, &tails[i], fixture_setup, test_marks_tail,
        fixture_teardown);
  }
  return g_test_run ();
}
