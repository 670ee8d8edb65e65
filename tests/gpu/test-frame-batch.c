/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GcgFrameBatch on the GPU: every batch bit-exact with one CPU frame chain
 * per source (mixed formats and sizes, every tensor type), graph and
 * eager; over 10 000 batches with sources joining, leaving, reordering
 * and changing ROI counts, one capture and one replay per batch.
 */
#include "gcg-gpu-fixture.h"
#include "common/gcg-test-frame-batch.h"

#include <string.h>

#define SENTINEL 0xab

typedef struct
{
  GcgTestFrameBatch b;
  CUdeviceptr frames[GCG_TEST_FRAME_BATCH_SOURCES];
  CUdeviceptr out;
  gsize out_size;
  guint8 *host_out;
  guint8 *ref;
} DeviceBatch;

static void
device_batch_init (DeviceBatch *d, const GcgFrameBatchConfig *config,
    guint32 seed)
{
  g_autoptr (GError) error = NULL;

  memset (d, 0, sizeof (*d));
  gcg_test_frame_batch_init (&d->b, config, GCG_TEST_FRAME_BATCH_SOURCES, seed);
  for (guint i = 0; i < d->b.n_frames; i++) {
    g_assert_true (GCG_CU_OK (&error, cuMemAlloc, &d->frames[i],
        d->b.frames[i].layout.size));
    g_assert_true (GCG_CU_OK (&error, cuMemcpyHtoD, d->frames[i],
        d->b.frames[i].data, d->b.frames[i].layout.size));
  }
  d->out_size = gcg_frame_batch_config_get_output_size (config);
  g_assert_true (GCG_CU_OK (&error, cuMemAlloc, &d->out, d->out_size));
  g_assert_no_error (error);
  d->host_out = g_malloc (d->out_size);
  d->ref = g_malloc (d->out_size);
}

static void
device_batch_clear (DeviceBatch *d)
{
  for (guint i = 0; i < d->b.n_frames; i++)
    g_assert_true (GCG_CU_OK (NULL, cuMemFree, d->frames[i]));
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, d->out));
  g_free (d->host_out);
  g_free (d->ref);
  gcg_test_frame_batch_clear (&d->b);
}

/* Queues batch @k of @n sources in @order. */
static guint
run_batch (GcgFrameBatch *batch, DeviceBatch *d, GcgStream *stream,
    const guint *order, guint n, guint k)
{
  GcgFrameBatchSource sources[GCG_TEST_FRAME_BATCH_SOURCES];
  GcgFrameParams params[GCG_TEST_FRAME_BATCH_SOURCES];
  g_autoptr (GError) error = NULL;
  guint n_items = 0;

  for (guint j = 0; j < n; j++) {
    sources[j] = d->b.frames[order[j]].source;
    gcg_test_frame_batch_params (&d->b, order[j], k, d->frames[order[j]],
        &params[j]);
  }
  gcg_frame_batch_process (batch, n, sources, params, d->out, stream, &n_items,
      &error);
  g_assert_no_error (error);
  return n_items;
}

/* Runs batch @k with the output preset to the sentinel and compares the
 * whole tensor, tail included (zeroed), with the reference. */
static void
check_batch (GcgFrameBatch *batch, DeviceBatch *d, GcgStream *stream,
    const guint *order, guint n, guint k)
{
  g_autoptr (GError) error = NULL;
  guint items, ref_items;

  g_assert_true (GCG_CU_OK (&error, cuMemsetD8Async, d->out, SENTINEL,
      d->out_size, gcg__stream_get_cu (stream)));
  items = run_batch (batch, d, stream, order, n, k);
  g_assert_true (gcg_stream_synchronize (stream, &error));
  g_assert_true (GCG_CU_OK (&error, cuMemcpyDtoH, d->host_out, d->out,
      d->out_size));
  g_assert_no_error (error);
  memset (d->ref, SENTINEL, d->out_size);
  ref_items = gcg_test_frame_batch_reference (&d->b, order, n, k, d->ref);
  g_assert_cmpuint (items, ==, ref_items);
  gcg_test_frame_batch_assert_equal (&d->b, d->host_out, d->ref, d->out_size);
}

/* Every tensor type and layout, both resize methods, graph and eager. */
static void
test_bit_exact (Fixture *f, gconstpointer data)
{
  static const struct
  {
    GcgTensorType type;
    GcgTensorLayout layout;
    GcgTensorChannels channels;
    GcgResizeMethod resize;
    GcgLetterbox letterbox;
  } cases[] = {
    { GCG_TENSOR_TYPE_FLOAT32, GCG_TENSOR_LAYOUT_NCHW, GCG_TENSOR_CHANNELS_RGB,
        GCG_RESIZE_BILINEAR, GCG_LETTERBOX_SYMMETRIC },
    { GCG_TENSOR_TYPE_FLOAT16, GCG_TENSOR_LAYOUT_NHWC, GCG_TENSOR_CHANNELS_BGR,
        GCG_RESIZE_NEAREST, GCG_LETTERBOX_NONE },
    { GCG_TENSOR_TYPE_UINT8, GCG_TENSOR_LAYOUT_NCHW, GCG_TENSOR_CHANNELS_GRAY,
        GCG_RESIZE_BILINEAR, GCG_LETTERBOX_TOP_LEFT },
  };
  GRand *rand;

  if (!f->ctx)
    return;
  rand = g_rand_new_with_seed (11);
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    GcgFrameBatchConfig config;
    g_autoptr (GcgFrameBatch) batch = NULL;
    g_autoptr (GError) error = NULL;
    guint order[GCG_TEST_FRAME_BATCH_SOURCES];
    DeviceBatch d;

    gcg_frame_batch_config_init (&config);
    config.out_width = 48;
    config.out_height = 40;
    config.tensor_type = cases[c].type;
    config.tensor_layout = cases[c].layout;
    config.tensor_channels = cases[c].channels;
    config.resize = cases[c].resize;
    config.letterbox = cases[c].letterbox;
    config.max_sources = GCG_TEST_FRAME_BATCH_SOURCES;
    config.max_rois = 4;
    device_batch_init (&d, &config, 20 + c);
    batch = gcg_frame_batch_new (&config, GCG_BACKEND_CUDA, f->ctx, &error);
    g_assert_no_error (error);
    for (guint k = 0; k < 12; k++) {
      guint n = 1 + (guint) g_rand_int_range (rand, 0, 16);

      gcg_frame_batch_set_use_graph (batch, k % 3 != 2);
      gcg_test_frame_batch_shuffle (rand, order, GCG_TEST_FRAME_BATCH_SOURCES);
      check_batch (batch, &d, f->stream, order, n, k);
    }
    g_assert_cmpuint (gcg_frame_batch_get_capture_count (batch), ==, 1);
    g_assert_cmpuint (gcg_frame_batch_get_replay_count (batch), ==, 8);
    g_assert_cmpuint (gcg_frame_batch_get_eager_count (batch), ==, 4);
    device_batch_clear (&d);
  }
  g_rand_free (rand);
}

/* 10 000 batches: sources join and leave (1 to 16), reorder, change ROI
 * counts (0 to max) and crops every batch; one capture throughout.
 * Batches are queued back to back (the parameter ring keeps each one's
 * values); every 250th is checked against the reference. */
static void
test_churn (Fixture *f, gconstpointer data)
{
  GcgFrameBatchConfig config;
  g_autoptr (GcgFrameBatch) batch = NULL;
  g_autoptr (GError) error = NULL;
  guint order[GCG_TEST_FRAME_BATCH_SOURCES];
  GRand *rand;
  DeviceBatch d;
  guint checked = 0;

  if (!f->ctx)
    return;
  gcg_frame_batch_config_init (&config);
  config.out_width = 32;
  config.out_height = 32;
  config.max_sources = GCG_TEST_FRAME_BATCH_SOURCES;
  config.max_rois = 4;
  device_batch_init (&d, &config, 5);
  batch = gcg_frame_batch_new (&config, GCG_BACKEND_CUDA, f->ctx, &error);
  g_assert_no_error (error);
  rand = g_rand_new_with_seed (3);
  for (guint k = 0; k < 10000; k++) {
    guint n = 1 + (guint) g_rand_int_range (rand, 0, 16);

    gcg_test_frame_batch_shuffle (rand, order, GCG_TEST_FRAME_BATCH_SOURCES);
    if (k % 250 == 0) {
      check_batch (batch, &d, f->stream, order, n, k);
      checked++;
    } else {
      run_batch (batch, &d, f->stream, order, n, k);
    }
  }
  g_assert_true (gcg_stream_synchronize (f->stream, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (checked, ==, 40);
  g_assert_cmpuint (gcg_frame_batch_get_capture_count (batch), ==, 1);
  g_assert_cmpuint (gcg_frame_batch_get_replay_count (batch), ==, 10000);
  g_assert_cmpuint (gcg_frame_batch_get_eager_count (batch), ==, 0);
  g_rand_free (rand);
  device_batch_clear (&d);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/frame-batch/bit-exact", Fixture, NULL, fixture_setup,
      test_bit_exact, fixture_teardown);
  g_test_add ("/frame-batch/churn", Fixture, NULL, fixture_setup, test_churn,
      fixture_teardown);
  return g_test_run ();
}
