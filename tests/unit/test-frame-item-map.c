/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GcgFrameItemMap against what the CPU chain really wrote: the padding it
 * reports is where the chain put the pad value, and the item's corners
 * map back to the corners of the source rectangle.
 */
#include <gcg.h>

#include <string.h>

#define PAD -7.0f

/* Runs a GRAY float32 tensor of @ow x @oh from a @iw x @ih frame of 200s
 * cropped to @roi, letterboxed as @lb; returns the item (g_free). */
static gfloat *
run_gray (guint iw, guint ih, const GcgRect *roi, guint ow, guint oh,
    GcgLetterbox lb)
{
  g_autoptr (GcgFrameChainConfig) c = gcg_frame_chain_config_new ();
  g_autoptr (GcgFrameChain) chain = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree guint8 *frame = g_malloc (iw * ih);
  gfloat *out = g_new0 (gfloat, ow * oh);
  GcgFrameParams p;

  c->in_format = GCG_PIXEL_FORMAT_GRAY8;
  c->in_width = iw;
  c->in_height = ih;
  c->output = GCG_OUTPUT_KIND_TENSOR;
  c->out_width = ow;
  c->out_height = oh;
  c->letterbox = lb;
  c->tensor_channels = GCG_TENSOR_CHANNELS_GRAY;
  c->max_rois = 1;
  chain = gcg_frame_chain_new (c, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  memset (frame, 200, iw * ih);
  gcg_frame_params_init (&p);
  p.src[0] = (guint64) (guintptr) frame;
  p.src_stride[0] = iw;
  p.dst[0] = (guint64) (guintptr) out;
  p.rois[0] = *roi;
  p.n_rois = 1;
  p.pad[0] = PAD;
  g_assert_true (gcg_frame_chain_process (chain, &p, NULL, &error));
  g_assert_no_error (error);
  return out;
}

/* Every item pixel is padding exactly where the map says it is. */
static void
check_padding (const gfloat *out, guint ow, guint oh, const GcgFrameItemMap *m)
{
  for (guint v = 0; v < oh; v++) {
    for (guint u = 0; u < ow; u++) {
      gboolean inside = (gint) u >= m->pad_x && (gint) u < m->pad_x + m->width
          && (gint) v >= m->pad_y && (gint) v < m->pad_y + m->height;

      if (inside)
        g_assert_cmpfloat (out[v * ow + u], !=, PAD);
      else
        g_assert_cmpfloat (out[v * ow + u], ==, PAD);
    }
  }
}

static void
check_corners (const GcgFrameItemMap *m, const GcgRect *roi)
{
  gdouble x, y, u, v;

  gcg_frame_item_map_to_source (m, m->pad_x, m->pad_y, &x, &y);
  g_assert_cmpfloat_with_epsilon (x, roi->x, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, roi->y, 1e-9);
  gcg_frame_item_map_to_source (m, m->pad_x + m->width, m->pad_y + m->height,
      &x, &y);
  g_assert_cmpfloat_with_epsilon (x, roi->x + roi->width, 1e-9);
  g_assert_cmpfloat_with_epsilon (y, roi->y + roi->height, 1e-9);
  gcg_frame_item_map_from_source (m, x, y, &u, &v);
  g_assert_cmpfloat_with_epsilon (u, m->pad_x + m->width, 1e-9);
  g_assert_cmpfloat_with_epsilon (v, m->pad_y + m->height, 1e-9);
}

static void
check_fit (guint iw, guint ih, GcgRect roi, guint ow, guint oh, GcgLetterbox lb)
{
  g_autofree gfloat *out = run_gray (iw, ih, &roi, ow, oh, lb);
  GcgFrameItemMap m;

  g_assert_true (gcg_frame_item_map_init (&m, &roi, ow, oh, lb));
  check_padding (out, ow, oh, &m);
  check_corners (&m, &roi);
}

static void
test_symmetric (void)
{
  check_fit (100, 50, (GcgRect) { 0, 0, 100, 50 }, 64, 64,
      GCG_LETTERBOX_SYMMETRIC);
  /* An odd amount of padding: the extra row goes to the bottom. */
  check_fit (90, 31, (GcgRect) { 5, 2, 77, 23 }, 40, 33,
      GCG_LETTERBOX_SYMMETRIC);
  check_fit (31, 90, (GcgRect) { 0, 0, 31, 90 }, 48, 20,
      GCG_LETTERBOX_SYMMETRIC);
}

static void
test_top_left (void)
{
  check_fit (90, 31, (GcgRect) { 5, 2, 77, 23 }, 40, 33,
      GCG_LETTERBOX_TOP_LEFT);
}

static void
test_stretch (void)
{
  GcgRect roi = { 10, 20, 30, 40 };
  g_autoptr (GcgFrameItemMap)
      m = gcg_frame_item_map_new (&roi, 60, 20, GCG_LETTERBOX_NONE);

  g_assert_cmpint (m->pad_x, ==, 0);
  g_assert_cmpint (m->width, ==, 60);
  g_assert_cmpfloat (m->scale_x, ==, 0.5);
  g_assert_cmpfloat (m->scale_y, ==, 2.0);
  check_fit (64, 64, roi, 60, 20, GCG_LETTERBOX_NONE);
}

static void
test_empty (void)
{
  GcgRect roi = { 0, 0, 0, 10 };
  GcgFrameItemMap m;

  g_assert_false (gcg_frame_item_map_init (&m, &roi, 8, 8,
      GCG_LETTERBOX_SYMMETRIC));
  g_assert_cmpfloat (m.scale_x, ==, 0.0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/frame-item-map/symmetric", test_symmetric);
  g_test_add_func ("/frame-item-map/top-left", test_top_left);
  g_test_add_func ("/frame-item-map/stretch", test_stretch);
  g_test_add_func ("/frame-item-map/empty", test_empty);
  return g_test_run ();
}
