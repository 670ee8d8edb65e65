/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GcgFrameBatch on the CPU backend (no GPU): every batch equals one
 * GcgFrameChain per source with outputs concatenated, byte for byte, for
 * mixed formats and sizes, partial batches, sources in any order and ROI
 * counts from 0 to max; items past the batch are untouched; refused
 * batches name the source and change nothing; configuration bounds; a
 * batch of one frame.
 */
#include <gcg.h>
#include "common/gcg-test-frame-batch.h"

#include <math.h>
#include <string.h>

#define SENTINEL 0xab

static void
default_config (GcgFrameBatchConfig *config, guint max_sources, guint max_rois)
{
  gcg_frame_batch_config_init (config);
  config->out_width = 24;
  config->out_height = 20;
  config->max_sources = max_sources;
  config->max_rois = max_rois;
}

/* Runs batch @k of @n sources in @order and compares it with the
 * reference; the tail past the batch, preset to a sentinel, must be
 * zeroed. */
static void
check_batch (GcgFrameBatch *batch, const GcgTestFrameBatch *b,
    const guint *order, guint n, guint k)
{
  gsize size = gcg_frame_batch_config_get_output_size (&b->config);
  g_autofree guint8 *out = g_malloc (size);
  g_autofree guint8 *ref = g_malloc (size);
  GcgFrameBatchSource sources[GCG_TEST_FRAME_BATCH_SOURCES];
  GcgFrameParams params[GCG_TEST_FRAME_BATCH_SOURCES];
  g_autoptr (GError) error = NULL;
  guint n_items = 0, ref_items;

  memset (out, SENTINEL, size);
  memset (ref, SENTINEL, size);
  for (guint j = 0; j < n; j++) {
    sources[j] = b->frames[order[j]].source;
    gcg_test_frame_batch_params (b, order[j], k, 0, &params[j]);
  }
  gcg_frame_batch_process (batch, n, sources, params, (guint64) (guintptr) out,
      NULL, &n_items, &error);
  g_assert_no_error (error);
  ref_items = gcg_test_frame_batch_reference (b, order, n, k, ref);
  g_assert_cmpuint (n_items, ==, ref_items);
  gcg_test_frame_batch_assert_equal (b, out, ref, size);
}

static void
test_mixed_sources (void)
{
  GcgFrameBatchConfig config;
  g_autoptr (GcgFrameBatch) batch = NULL;
  g_autoptr (GError) error = NULL;
  GcgTestFrameBatch b;
  guint order[GCG_TEST_FRAME_BATCH_SOURCES];

  default_config (&config, 7, 3);
  gcg_test_frame_batch_init (&b, &config, 7, 1);
  batch = gcg_frame_batch_new (&config, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcg_frame_batch_get_backend (batch), ==, GCG_BACKEND_CPU);
  for (guint i = 0; i < 7; i++)
    order[i] = 6 - i;
  /* Four batches walk every source through every ROI pattern. */
  for (guint k = 0; k < 4; k++)
    check_batch (batch, &b, order, 7, k);
  g_assert_cmpuint (gcg_frame_batch_get_eager_count (batch), ==, 4);
  g_assert_cmpuint (gcg_frame_batch_get_capture_count (batch), ==, 0);
  gcg_test_frame_batch_clear (&b);
}

/* Sources leave, come back, change places: partial batches of 1 to 16. */
static void
test_partial_and_reordered (void)
{
  GcgFrameBatchConfig config;
  g_autoptr (GcgFrameBatch) batch = NULL;
  g_autoptr (GError) error = NULL;
  GRand *rand = g_rand_new_with_seed (7);
  GcgTestFrameBatch b;

  default_config (&config, 16, 4);
  config.tensor_layout = GCG_TENSOR_LAYOUT_NHWC;
  config.tensor_type = GCG_TENSOR_TYPE_UINT8;
  config.tensor_channels = GCG_TENSOR_CHANNELS_BGR;
  config.resize = GCG_RESIZE_NEAREST;
  gcg_test_frame_batch_init (&b, &config, 16, 2);
  batch = gcg_frame_batch_new (&config, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  for (guint k = 0; k < 24; k++) {
    guint order[GCG_TEST_FRAME_BATCH_SOURCES];
    guint n = k < 16 ? k + 1 : (guint) g_rand_int_range (rand, 1, 17);

    gcg_test_frame_batch_shuffle (rand, order, 16);
    check_batch (batch, &b, order, n, k);
  }
  g_rand_free (rand);
  gcg_test_frame_batch_clear (&b);
}

/* A refused batch names its source and writes nothing. */
static void
test_refused (void)
{
  GcgFrameBatchConfig config;
  g_autoptr (GcgFrameBatch) batch = NULL;
  g_autoptr (GError) error = NULL;
  GcgFrameBatchSource sources[3];
  GcgFrameParams params[3];
  guint8 out[24 * 20 * 3 * 4 * 3 * 2];
  GcgTestFrameBatch b;
  guint n_items = 99;

  default_config (&config, 3, 2);
  gcg_test_frame_batch_init (&b, &config, 3, 3);
  batch = gcg_frame_batch_new (&config, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sizeof (out), ==,
      gcg_frame_batch_config_get_output_size (&config));
  for (guint i = 0; i < 3; i++) {
    sources[i] = b.frames[i].source;
    gcg_test_frame_batch_params (&b, i, 0, 0, &params[i]);
  }
  memset (out, SENTINEL, sizeof (out));

  params[2].n_rois = 3;
  g_assert_false (gcg_frame_batch_process (batch, 3, sources, params,
      (guint64) (guintptr) out, NULL, &n_items, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "source 2"));
  g_clear_error (&error);
  params[2].n_rois = 0;

  params[1].gain = NAN;
  g_assert_false (gcg_frame_batch_process (batch, 3, sources, params,
      (guint64) (guintptr) out, NULL, &n_items, &error));
  g_assert_nonnull (strstr (error->message, "source 1"));
  g_clear_error (&error);
  params[1].gain = 1.0f;

  sources[0].width = 0;
  g_assert_false (gcg_frame_batch_process (batch, 3, sources, params,
      (guint64) (guintptr) out, NULL, &n_items, &error));
  g_assert_nonnull (strstr (error->message, "source 0"));
  g_clear_error (&error);
  sources[0].width = b.frames[0].source.width;

  g_assert_false (gcg_frame_batch_process (batch, 0, sources, params,
      (guint64) (guintptr) out, NULL, &n_items, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (gcg_frame_batch_process (batch, 4, sources, params,
      (guint64) (guintptr) out, NULL, &n_items, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  for (gsize j = 0; j < sizeof (out); j++)
    g_assert_cmpuint (out[j], ==, SENTINEL);
  g_assert_cmpuint (n_items, ==, 99);
  g_assert_cmpuint (gcg_frame_batch_get_eager_count (batch), ==, 0);
  gcg_test_frame_batch_clear (&b);
}

/* Refuses @sources as a fresh batch does, with the same message. */
static void
assert_refused_alike (GcgFrameBatch *batch, const GcgFrameBatchConfig *config,
    const GcgFrameBatchSource *sources, const GcgFrameParams *params, guint n,
    guint8 *out)
{
  g_autoptr (GcgFrameBatch)
      fresh = gcg_frame_batch_new (config, GCG_BACKEND_CPU, NULL, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) fresh_error = NULL;

  g_assert_false (gcg_frame_batch_process (batch, n, sources, params,
      (guint64) (guintptr) out, NULL, NULL, &error));
  g_assert_false (gcg_frame_batch_process (fresh, n, sources, params,
      (guint64) (guintptr) out, NULL, NULL, &fresh_error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, fresh_error->message);
}

/* A batch validates a slot's description once, until it changes: a
 * source that was accepted and then turns invalid in the same slot is
 * refused as by a fresh batch, and a valid one afterwards is right. */
static void
test_revalidated (void)
{
  const guint order[3] = { 0, 1, 2 }, swapped[3] = { 2, 0, 1 };
  GcgTestFrameBatch b;
  GcgFrameBatchSource sources[3];
  GcgFrameParams params[3];
  GcgFrameBatchConfig config;
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameBatch) batch = NULL;
  g_autofree guint8 *out = NULL;

  default_config (&config, 3, 2);
  gcg_test_frame_batch_init (&b, &config, 3, 4);
  out = g_malloc (gcg_frame_batch_config_get_output_size (&config));
  batch = gcg_frame_batch_new (&config, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  check_batch (batch, &b, order, 3, 0);
  for (guint i = 0; i < 3; i++) {
    sources[i] = b.frames[i].source;
    gcg_test_frame_batch_params (&b, i, 1, 0, &params[i]);
  }
  sources[1].width = 0;
  assert_refused_alike (batch, &config, sources, params, 3, out);
  sources[1].width = b.frames[1].source.width;
  sources[2].format = (GcgPixelFormat) 999;
  assert_refused_alike (batch, &config, sources, params, 3, out);
  sources[2].format = b.frames[2].source.format;
  sources[0].matrix = (GcgColorMatrix) -1;
  assert_refused_alike (batch, &config, sources, params, 1, out);
  /* The slots refused hold valid sources again, or others. */
  check_batch (batch, &b, order, 3, 1);
  check_batch (batch, &b, swapped, 3, 2);
  check_batch (batch, &b, order, 2, 3);
  gcg_test_frame_batch_clear (&b);
}

static void
test_config (void)
{
  GcgFrameBatchConfig config;
  GcgFrameBatchSource source = { GCG_PIXEL_FORMAT_NV12, 64, 48,
    GCG_COLOR_MATRIX_BT601, FALSE };
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameBatchConfig) copy = NULL;

  default_config (&config, 16, 4);
  g_assert_true (gcg_frame_batch_config_validate (&config, &error));
  g_assert_cmpuint (gcg_frame_batch_config_get_item_size (&config), ==,
      24 * 20 * 3 * 4);
  g_assert_cmpuint (gcg_frame_batch_config_get_output_size (&config), ==,
      16 * 4 * 24 * 20 * 3 * 4);
  copy = gcg_frame_batch_config_copy (&config);
  g_assert_cmpmem (copy, sizeof (*copy), &config, sizeof (config));

  config.max_sources = 0;
  g_assert_false (gcg_frame_batch_config_validate (&config, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  config.max_sources = GCG_FRAME_BATCH_MAX_SOURCES + 1;
  g_assert_false (gcg_frame_batch_config_validate (&config, &error));
  g_clear_error (&error);
  g_assert_null (gcg_frame_batch_new (&config, GCG_BACKEND_CPU, NULL, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  config.max_sources = 16;
  config.max_rois = GCG_FRAME_CHAIN_MAX_ROIS + 1;
  g_assert_false (gcg_frame_batch_config_validate (&config, &error));
  g_clear_error (&error);

  /* 64 × 64 items of 4096² float32 RGB: far past the output bound. */
  config.max_sources = GCG_FRAME_BATCH_MAX_SOURCES;
  config.max_rois = GCG_FRAME_CHAIN_MAX_ROIS;
  config.out_width = config.out_height = 4096;
  g_assert_false (gcg_frame_batch_config_validate (&config, &error));
  g_assert_nonnull (strstr (error->message, "bytes"));
  g_clear_error (&error);
  g_assert_cmpuint (gcg_frame_batch_config_get_output_size (&config), ==, 0);

  /* 64 sources of 64 ROIs: past what one batch's values may hold. */
  config.out_width = config.out_height = 8;
  g_assert_false (gcg_frame_batch_config_validate (&config, &error));
  g_assert_nonnull (strstr (error->message, "per-batch values"));
  g_clear_error (&error);
  config.max_rois = 16;
  g_assert_false (gcg_frame_batch_config_validate (&config, NULL));
  config.max_rois = 15;
  g_assert_true (gcg_frame_batch_config_validate (&config, &error));
  config.max_sources = 16;
  config.max_rois = GCG_FRAME_CHAIN_MAX_ROIS;
  g_assert_true (gcg_frame_batch_config_validate (&config, &error));

  g_assert_true (gcg_frame_batch_source_validate (&source, &error));
  source.width = 0;
  g_assert_false (gcg_frame_batch_source_validate (&source, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  source.width = GCG_FRAME_CHAIN_MAX_SIZE + 1;
  g_assert_false (gcg_frame_batch_source_validate (&source, &error));
  g_clear_error (&error);
}

/* AUTO without a context is the CPU, and the CUDA backend needs one. */
static void
test_backends (void)
{
  GcgFrameBatchConfig config;
  g_autoptr (GcgFrameBatch) batch = NULL;
  g_autoptr (GError) error = NULL;

  default_config (&config, 2, 1);
  batch = gcg_frame_batch_new (&config, GCG_BACKEND_AUTO, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcg_frame_batch_get_backend (batch), ==, GCG_BACKEND_CPU);
  g_assert_null (gcg_frame_batch_new (&config, GCG_BACKEND_CUDA, NULL, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
}

/* A frame is a batch of one: gcg_frame_batch_new_for_frame() of a
 * source's configuration writes, through gcg_frame_batch_process(), what
 * a batch of several sources writes for that source alone (its tail
 * zeroed), and through gcg_frame_batch_process_frame() the same items,
 * leaving the rest as they were; each refuses the other's work. */
static void
test_one_frame (void)
{
  GcgFrameBatchConfig config;
  g_autoptr (GcgFrameBatch) several = NULL;
  g_autoptr (GError) error = NULL;
  GcgTestFrameBatch b;
  GcgFrameChainConfig frame_config;

  default_config (&config, 1, 3);
  gcg_test_frame_batch_init (&b, &config, 4, 5);
  several = gcg_frame_batch_new (&config, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (gcg_frame_batch_get_frame_config (several, &frame_config));
  for (guint i = 0; i < b.n_frames; i++) {
    const GcgFrameBatchSource *source = &b.frames[i].source;
    gsize size = gcg_frame_batch_config_get_output_size (&config);
    g_autofree guint8 *out = g_malloc (size);
    g_autofree guint8 *alone = g_malloc (size);
    g_autofree guint8 *ref = g_malloc (size);
    g_autoptr (GcgFrameBatch) one = NULL;
    GcgFrameChainConfig c, got;
    GcgFrameBatchSource other = *source;

    gcg_test_frame_batch_frame_config (&b, i, &c);
    one = gcg_frame_batch_new_for_frame (&c, GCG_BACKEND_CPU, NULL, &error);
    g_assert_no_error (error);
    memset (&got, 0xff, sizeof (got));
    g_assert_true (gcg_frame_batch_get_frame_config (one, &got));
    g_assert_cmpmem (&got, sizeof (got), &c, sizeof (c));
    g_assert_cmpuint (gcg_frame_batch_get_output_size (one), ==, size);
    for (guint k = 0; k < 3; k++) {
      GcgFrameParams params;
      guint n_items = 0, ref_items;

      memset (out, SENTINEL, size);
      memset (alone, SENTINEL, size);
      ref_items = gcg_test_frame_batch_reference (&b, &i, 1, k, ref);
      gcg_test_frame_batch_params (&b, i, k, 0, &params);
      g_assert_true (gcg_frame_batch_process (one, 1, source, &params,
          (guint64) (guintptr) out, NULL, &n_items, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (n_items, ==, ref_items);
      gcg_test_frame_batch_assert_equal (&b, out, ref, size);
      params.dst[0] = (guint64) (guintptr) alone;
      g_assert_true (gcg_frame_batch_process_frame (one, &params, NULL,
          &error));
      g_assert_no_error (error);
      g_assert_cmpmem (alone, ref_items * b.item_size, ref,
          ref_items * b.item_size);
      for (gsize j = ref_items * b.item_size; j < size; j++)
        g_assert_cmpuint (alone[j], ==, SENTINEL);
    }
    g_assert_cmpuint (gcg_frame_batch_get_eager_count (one), ==, 6);
    other.width += 2;
    {
      GcgFrameParams params;

      gcg_test_frame_batch_params (&b, i, 0, 0, &params);
      g_assert_false (gcg_frame_batch_process (one, 1, &other, &params,
          (guint64) (guintptr) out, NULL, NULL, &error));
      g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
      params.dst[0] = (guint64) (guintptr) out;
      g_assert_false (gcg_frame_batch_process_frame (several, &params, NULL,
          &error));
      g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
    }
  }
  gcg_test_frame_batch_clear (&b);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/frame-batch/mixed-sources", test_mixed_sources);
  g_test_add_func ("/frame-batch/partial-and-reordered",
      test_partial_and_reordered);
  g_test_add_func ("/frame-batch/refused", test_refused);
  g_test_add_func ("/frame-batch/revalidated", test_revalidated);
  g_test_add_func ("/frame-batch/config", test_config);
  g_test_add_func ("/frame-batch/backends", test_backends);
  g_test_add_func ("/frame-batch/one-frame", test_one_frame);
  return g_test_run ();
}
