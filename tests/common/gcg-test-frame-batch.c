/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-test-frame-batch.h"
#include "gcg-frame-batch-private.h"

#include <string.h>

/* The configuration of a batch of one frame of source @i alone. */
void
gcg_test_frame_batch_frame_config (const GcgTestFrameBatch *b, guint i,
    GcgFrameChainConfig *config)
{
  gcg__frame_batch_chain_config (&b->config, &b->frames[i].source, config);
}

/* Formats and sizes the sources cycle through: every format the chain
 * reads, odd 4:2:0 sizes, and a frame smaller than the output. */
static const GcgFrameBatchSource kinds[] = {
  { GCG_PIXEL_FORMAT_NV12, 96, 54, GCG_COLOR_MATRIX_BT709, FALSE },
  { GCG_PIXEL_FORMAT_RGBA, 80, 60, GCG_COLOR_MATRIX_BT601, FALSE },
  { GCG_PIXEL_FORMAT_I420, 61, 37, GCG_COLOR_MATRIX_BT601, TRUE },
  { GCG_PIXEL_FORMAT_BGR, 40, 72, GCG_COLOR_MATRIX_BT601, FALSE },
  { GCG_PIXEL_FORMAT_GRAY8, 24, 20, GCG_COLOR_MATRIX_BT601, FALSE },
  { GCG_PIXEL_FORMAT_BGRA, 128, 32, GCG_COLOR_MATRIX_BT601, FALSE },
  { GCG_PIXEL_FORMAT_RGB, 33, 33, GCG_COLOR_MATRIX_BT601, FALSE },
};

void
gcg_test_frame_batch_init (GcgTestFrameBatch *b,
    const GcgFrameBatchConfig *config, guint n_frames, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);

  g_assert_cmpuint (n_frames, <=, GCG_TEST_FRAME_BATCH_SOURCES);
  memset (b, 0, sizeof (*b));
  b->config = *config;
  b->n_frames = n_frames;
  b->item_size = gcg_frame_batch_config_get_item_size (config);
  g_assert_cmpuint (b->item_size, >, 0);
  for (guint i = 0; i < n_frames; i++) {
    GcgTestFrameBatchSource *f = &b->frames[i];

    f->source = kinds[i % G_N_ELEMENTS (kinds)];
    /* Same kind, another size: sources of one format differ too. */
    f->source.width += 2 * (i / G_N_ELEMENTS (kinds));
    gcg_test_layout_video (&f->layout, f->source.format, f->source.width,
        f->source.height, 3 * i);
    f->data = g_malloc (f->layout.size);
    for (gsize j = 0; j < f->layout.size; j++)
      f->data[j] = (guint8) g_rand_int (rand);
  }
  g_rand_free (rand);
}

void
gcg_test_frame_batch_clear (GcgTestFrameBatch *b)
{
  for (guint i = 0; i < b->n_frames; i++)
    g_free (b->frames[i].data);
  memset (b, 0, sizeof (*b));
}

void
gcg_test_frame_batch_params (const GcgTestFrameBatch *b, guint i, guint k,
    guint64 base, GcgFrameParams *params)
{
  const GcgTestFrameBatchSource *f = &b->frames[i];
  gint w = (gint) f->source.width, h = (gint) f->source.height;
  guint pattern = (i + k) % 4;

  gcg_frame_params_init (params);
  if (base == 0)
    base = (guint64) (guintptr) f->data;
  for (guint p = 0; p < f->layout.n_planes; p++) {
    params->src[p] = base + f->layout.offset[p];
    params->src_stride[p] = f->layout.stride[p];
  }
  /* 0: whole frame; 1: one ROI; 2: max ROIs, one half outside; 3: none
   * again with an adjustment and a mean/std mapping (gamma stays 1: the
   * one value where CUDA's powf may differ from the CPU's). */
  if (pattern == 1 || pattern == 2) {
    params->n_rois = pattern == 1 ? 1 : b->config.max_rois;
    for (guint r = 0; r < params->n_rois; r++) {
      GcgRect *roi = &params->rois[r];

      roi->x = (gint) ((r * 7 + k) % (guint) w) - (r % 3 == 2 ? w / 2 : 0);
      roi->y = (gint) ((r * 5 + k) % (guint) h);
      roi->width = 1 + (gint) ((r * 13 + k) % (guint) w);
      roi->height = 1 + (gint) ((r * 11 + k) % (guint) h);
    }
  }
  if (pattern == 3) {
    static const gfloat mean[3] = { 0.485f, 0.456f, 0.406f };
    static const gfloat std[3] = { 0.229f, 0.224f, 0.225f };

    params->gain = 1.25f;
    params->contrast = 0.75f;
    params->brightness = -0.0625f;
    gcg_frame_params_set_mean_std (params, mean, std);
  }
  params->pad[0] = (gfloat) (k % 7) / 7.0f;
  params->frame_number = k;
}

guint
gcg_test_frame_batch_reference (const GcgTestFrameBatch *b, const guint *order,
    guint n, guint k, guint8 *out)
{
  guint items = 0;

  for (guint j = 0; j < n; j++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GcgFrameChain) chain = NULL;
    GcgFrameChainConfig config;
    GcgFrameParams params;

    gcg_test_frame_batch_frame_config (b, order[j], &config);
    chain = gcg_frame_chain_new (&config, GCG_BACKEND_CPU, NULL, &error);
    g_assert_no_error (error);
    gcg_test_frame_batch_params (b, order[j], k, 0, &params);
    params.dst[0] = (guint64) (guintptr) (out + items * b->item_size);
    g_assert_true (gcg_frame_chain_process (chain, &params, NULL, &error));
    g_assert_no_error (error);
    items += MAX (params.n_rois, 1);
  }
  /* Items past the batch's are zeroed (the tensor is written whole). */
  memset (out + items * b->item_size, 0,
      (b->config.max_sources * b->config.max_rois - items) * b->item_size);
  return items;
}

void
gcg_test_frame_batch_shuffle (GRand *rand, guint *order, guint n)
{
  for (guint j = 0; j < n; j++)
    order[j] = j;
  for (guint j = n - 1; j > 0; j--) {
    guint s = (guint) g_rand_int_range (rand, 0, (gint32) j + 1), t;

    t = order[j];
    order[j] = order[s];
    order[s] = t;
  }
}

void
gcg_test_frame_batch_assert_equal (const GcgTestFrameBatch *b,
    const guint8 *out, const guint8 *ref, gsize size)
{
  for (gsize j = 0; j < size; j++) {
    if (out[j] != ref[j])
      g_error ("batch differs from the reference at item %" G_GSIZE_FORMAT
               ", byte %" G_GSIZE_FORMAT ": 0x%02x, expected 0x%02x",
          j / b->item_size, j % b->item_size, out[j], ref[j]);
  }
}
