/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphbatch's values worked out by hand (docs/frame-chain.md, step
 * 2: letterbox), not compared with cudagraphpreprocess: both run the same
 * per-pixel code on the CPU, so a bug they share would pass that
 * comparison.  A solid colour per stream, uint8 NCHW items with scale 1,
 * so every byte is either the stream's colour or the pad value, at rows
 * and columns known in advance.  CPU backend, harness pads only.
 */
#include "gcg-gst-test-util.h"

#define W 6
#define H 6
#define PAD 9

typedef struct
{
  const gchar *caps;
  guint8 rgb[3];
  /* The picture inside the W x H item: [x0, x1) x [y0, y1). */
  guint x0, x1, y0, y1;
} Stream;

/* RGB 8x4 into 6x6: s = min (6/8, 6/4) = 0.75, picture 6x3 at row
 * (6 - 3) / 2 = 1, so rows 0, 4 and 5 are padding.
 * RGB 2x6: s = min (6/2, 6/6) = 1, picture 2x6 at column (6 - 2) / 2 = 2,
 * so columns 0, 1, 4 and 5 are padding.
 * RGB 5x5: s = min (6/5, 6/5) = 1.2, picture 6x6: no padding. */
static const Stream streams[] = {
  { "video/x-raw,format=RGB,width=8,height=4,framerate=30/1", { 200, 100, 50 },
      0, 6, 1, 4 },
  { "video/x-raw,format=RGB,width=2,height=6,framerate=30/1", { 10, 20, 30 }, 2,
      4, 0, 6 },
  { "video/x-raw,format=RGB,width=5,height=5,framerate=30/1", { 255, 0, 128 },
      0, 6, 0, 6 },
};

/* Item @n of the batch in @map against its stream's colour and padding;
 * @top_left: the picture starts at (0, 0) instead of being centred. */
static void
check_item (const GstMapInfo *map, guint n, gboolean top_left)
{
  Stream moved = streams[n];
  const Stream *s = &moved;
  const guint8 *item = map->data + (gsize) n * 3 * W * H;

  if (top_left) {
    moved.x1 -= moved.x0;
    moved.y1 -= moved.y0;
    moved.x0 = moved.y0 = 0;
  }
  for (guint c = 0; c < 3; c++)
    for (guint y = 0; y < H; y++)
      for (guint x = 0; x < W; x++) {
        gboolean inside = x >= s->x0 && x < s->x1 && y >= s->y0 && y < s->y1;
        guint got = item[(c * H + y) * W + x];

        if (got != (inside ? s->rgb[c] : PAD))
          g_error ("item %u channel %u (%u, %u): %u, expected %u (%s)", n, c, x,
              y, got, inside ? s->rgb[c] : PAD, inside ? "picture" : "padding");
      }
}

static void
run_batch (const gchar *letterbox)
{
  g_autofree gchar *desc = g_strdup_printf (
      "cudagraphbatch backend=cpu "
      "width=%u height=%u layout=nchw tensor-type=uint8 channels=rgb "
      "scale=1 offset=0 pad-value=%u batch-size=%u letterbox=%s",
      W, H, PAD, (guint) G_N_ELEMENTS (streams), letterbox);
  GstElement *e = gst_parse_launch (desc, NULL);
  GstHarness *h[G_N_ELEMENTS (streams)];
  GstBuffer *out;
  GstMapInfo map;

  g_assert_nonnull (e);
  for (guint i = 0; i < G_N_ELEMENTS (streams); i++) {
    h[i] = gst_harness_new_with_element (e, "sink_%u", i == 0 ? "src" : NULL);
    gst_harness_set_src_caps_str (h[i], streams[i].caps);
  }
  gst_object_unref (e);
  for (guint i = 0; i < G_N_ELEMENTS (streams); i++)
    g_assert_cmpint (gst_harness_push (h[i],
                         gcg_test_solid_new (streams[i].caps, streams[i].rgb, 3,
                             0)),
        ==, GST_FLOW_OK);
  out = gst_harness_pull (h[0]);
  g_assert_nonnull (out);
  g_assert_true (gst_buffer_map (out, &map, GST_MAP_READ));
  g_assert_cmpuint (map.size, ==, G_N_ELEMENTS (streams) * 3 * W * H);
  for (guint n = 0; n < G_N_ELEMENTS (streams); n++)
    check_item (&map, n, g_str_equal (letterbox, "top-left"));
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  for (guint i = G_N_ELEMENTS (streams); i > 0; i--)
    gst_harness_teardown (h[i - 1]);
}

/* Symmetric letterbox: the offsets above. */
static void
test_letterbox_symmetric (void)
{
  run_batch ("symmetric");
}

/* Top-left: the same pictures at (0, 0), the padding all right/bottom. */
static void
test_letterbox_top_left (void)
{
  run_batch ("top-left");
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gst/batch-values/letterbox-symmetric",
      test_letterbox_symmetric);
  g_test_add_func ("/gst/batch-values/letterbox-top-left",
      test_letterbox_top_left);
  return g_test_run ();
}
