/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame chain's CPU reference (no GPU) against hand-computed values
 * and an independent double-precision reading of docs/frame-chain.md:
 * copies and channel swaps, YUV matrices and ranges, crop, nearest and
 * bilinear resize, letterbox, pad, colour adjustment, tensor layouts and
 * types, batching, ROI clipping, refused parameters, odd 4:2:0 sizes,
 * configuration checks and output sizes.
 */
#include <gcg.h>
#include "kernels/gcg-frame-math.h"
#include "gcg-frame-batch-private.h"
#include "gcg-rect-private.h"

#include <math.h>
#include <string.h>

#define SENTINEL 0xab

/* A host frame: tightly packed planes unless a stride is given, with
 * guard bytes after the last plane to catch writes past the end. */
typedef struct
{
  GcgPixelFormat format;
  guint width, height;
  gint stride[3];
  gsize offset[3];
  gsize size;
  guint8 *data;
} Frame;

static guint
n_planes (GcgPixelFormat format)
{
  return format == GCG_PIXEL_FORMAT_NV12 ? 2
      : format == GCG_PIXEL_FORMAT_I420  ? 3
                                         : 1;
}

static guint
bytes_per_pixel (GcgPixelFormat format)
{
  switch (format) {
    case GCG_PIXEL_FORMAT_RGBA:
    case GCG_PIXEL_FORMAT_BGRA:
      return 4;
    case GCG_PIXEL_FORMAT_RGB:
    case GCG_PIXEL_FORMAT_BGR:
      return 3;
    default:
      return 1;
  }
}

static void
frame_init (Frame *f, GcgPixelFormat format, guint width, guint height,
    guint row_pad)
{
  guint cw = (width + 1) / 2, ch = (height + 1) / 2;
  gsize at = 0;

  memset (f, 0, sizeof (*f));
  f->format = format;
  f->width = width;
  f->height = height;
  for (guint i = 0; i < n_planes (format); i++) {
    guint rows = i == 0 ? height : ch;
    guint row = i == 0                    ? width * bytes_per_pixel (format)
        : format == GCG_PIXEL_FORMAT_NV12 ? 2 * cw
                                          : cw;

    f->stride[i] = (gint) (row + row_pad);
    f->offset[i] = at;
    at += (gsize) f->stride[i] * rows;
  }
  f->size = at;
  f->data = g_malloc (at + 64);
  memset (f->data, SENTINEL, at + 64);
}

static void
frame_clear (Frame *f)
{
  g_clear_pointer (&f->data, g_free);
}

static guint8 *
plane (const Frame *f, guint i)
{
  return f->data + f->offset[i];
}

static guint8 *
at (const Frame *f, guint i, guint x, guint y)
{
  guint bpp = i == 0                       ? bytes_per_pixel (f->format)
      : f->format == GCG_PIXEL_FORMAT_NV12 ? 2
                                           : 1;

  return plane (f, i) + (gsize) y * f->stride[i] + (gsize) x * bpp;
}

static void
frame_fill_random (Frame *f, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);

  for (gsize i = 0; i < f->size; i++)
    f->data[i] = (guint8) g_rand_int_range (rand, 0, 256);
  g_rand_free (rand);
}

static void
assert_guard (const Frame *f)
{
  for (gsize i = 0; i < 64; i++)
    g_assert_cmphex (f->data[f->size + i], ==, SENTINEL);
}

static void
set_src (GcgFrameParams *p, const Frame *f)
{
  for (guint i = 0; i < 3; i++) {
    p->src[i] = i < n_planes (f->format) ? (guint64) (guintptr) plane (f, i)
                                         : 0;
    p->src_stride[i] = f->stride[i];
  }
}

static void
set_dst (GcgFrameParams *p, const Frame *f)
{
  for (guint i = 0; i < 3; i++) {
    p->dst[i] = i < n_planes (f->format) ? (guint64) (guintptr) plane (f, i)
                                         : 0;
    p->dst_stride[i] = f->stride[i];
  }
}

static void
video_config (GcgFrameChainConfig *c, GcgPixelFormat in, guint iw, guint ih,
    GcgPixelFormat out, guint ow, guint oh)
{
  gcg_frame_chain_config_init (c);
  c->in_format = in;
  c->in_width = iw;
  c->in_height = ih;
  c->out_format = out;
  c->out_width = ow;
  c->out_height = oh;
}

static void
tensor_config (GcgFrameChainConfig *c, GcgPixelFormat in, guint iw, guint ih,
    guint ow, guint oh, guint n)
{
  video_config (c, in, iw, ih, GCG_PIXEL_FORMAT_RGBA, ow, oh);
  c->output = GCG_OUTPUT_KIND_TENSOR;
  c->max_rois = n;
}

static GcgFrameChain *
new_cpu_chain (const GcgFrameChainConfig *c)
{
  g_autoptr (GError) error = NULL;
  GcgFrameChain *chain = gcg_frame_chain_new (c, GCG_BACKEND_CPU, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpint (gcg_frame_chain_get_backend (chain), ==, GCG_BACKEND_CPU);
  return chain;
}

/* Runs one frame on the CPU and expects success. */
static void
run (const GcgFrameChainConfig *c, const GcgFrameParams *p)
{
  g_autoptr (GcgFrameChain) chain = new_cpu_chain (c);
  g_autoptr (GError) error = NULL;

  g_assert_true (gcg_frame_chain_process (chain, p, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gcg_frame_chain_get_eager_count (chain), ==, 1);
  g_assert_cmpuint (gcg_frame_chain_get_capture_count (chain), ==, 0);
}

static void
run_video (const GcgFrameChainConfig *c, GcgFrameParams *p, const Frame *in,
    const Frame *out)
{
  set_src (p, in);
  set_dst (p, out);
  run (c, p);
  assert_guard (out);
}

/* --- independent double-precision reference --------------------------- */

/* RGB of a packed or gray input pixel, in double. */
static void
ref_read (const Frame *f, guint x, guint y, gdouble *rgb)
{
  const guint8 *px = at (f, 0, x, y);

  switch (f->format) {
    case GCG_PIXEL_FORMAT_BGRA:
    case GCG_PIXEL_FORMAT_BGR:
      rgb[0] = px[2], rgb[1] = px[1], rgb[2] = px[0];
      break;
    case GCG_PIXEL_FORMAT_GRAY8:
      rgb[0] = rgb[1] = rgb[2] = px[0];
      break;
    default:
      rgb[0] = px[0], rgb[1] = px[1], rgb[2] = px[2];
      break;
  }
}

/* Pixel (x, y) of a crop (cx, cy, cw, ch) resized to sw x sh. */
static void
ref_resample (const Frame *f, GcgResizeMethod method, gint cx, gint cy, gint cw,
    gint ch, gint sw, gint sh, gint x, gint y, gdouble *rgb)
{
  if (method == GCG_RESIZE_NEAREST) {
    gint ix = MIN ((gint) floor ((x + 0.5) * cw / sw), cw - 1);
    gint iy = MIN ((gint) floor ((y + 0.5) * ch / sh), ch - 1);

    ref_read (f, cx + ix, cy + iy, rgb);
  } else {
    gdouble fx = (x + 0.5) * cw / sw - 0.5, fy = (y + 0.5) * ch / sh - 0.5;
    gint x0 = (gint) floor (fx), y0 = (gint) floor (fy);
    gdouble ax = fx - x0, ay = fy - y0;
    gdouble p[4][3];
    gint xs[2] = { CLAMP (x0, 0, cw - 1), CLAMP (x0 + 1, 0, cw - 1) };
    gint ys[2] = { CLAMP (y0, 0, ch - 1), CLAMP (y0 + 1, 0, ch - 1) };

    for (gint k = 0; k < 4; k++)
      ref_read (f, cx + xs[k & 1], cy + ys[k >> 1], p[k]);
    for (gint c = 0; c < 3; c++)
      rgb[c] = (p[0][c] * (1 - ax) + p[1][c] * ax) * (1 - ay)
          + (p[2][c] * (1 - ax) + p[3][c] * ax) * ay;
  }
}

static guint8
ref_u8 (gdouble v)
{
  return v <= 0 ? 0 : v >= 255 ? 255 : (guint8) floor (v + 0.5);
}

static void
assert_close_u8 (guint8 got, gdouble want, gint tolerance)
{
  gint diff = ABS ((gint) got - (gint) ref_u8 (want));

  if (diff > tolerance)
    g_error ("got %u, want %.4f (+-%d)", got, want, tolerance);
}

/* --- configuration ---------------------------------------------------- */

static void
test_config_defaults (void)
{
  GcgFrameChainConfig c;
  GcgFrameParams p;
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameChainConfig) copy = NULL;
  g_autoptr (GcgFrameParams) pcopy = NULL;

  gcg_frame_chain_config_init (&c);
  g_assert_cmpint (c.in_format, ==, GCG_PIXEL_FORMAT_RGBA);
  g_assert_cmpuint (c.in_width, ==, 640);
  g_assert_cmpuint (c.in_height, ==, 480);
  g_assert_cmpint (c.matrix, ==, GCG_COLOR_MATRIX_BT601);
  g_assert_false (c.full_range);
  g_assert_cmpint (c.output, ==, GCG_OUTPUT_KIND_VIDEO);
  g_assert_cmpint (c.out_format, ==, GCG_PIXEL_FORMAT_RGBA);
  g_assert_cmpuint (c.out_width, ==, 640);
  g_assert_cmpuint (c.out_height, ==, 480);
  g_assert_cmpint (c.resize, ==, GCG_RESIZE_BILINEAR);
  g_assert_cmpint (c.letterbox, ==, GCG_LETTERBOX_NONE);
  g_assert_cmpint (c.tensor_layout, ==, GCG_TENSOR_LAYOUT_NCHW);
  g_assert_cmpint (c.tensor_type, ==, GCG_TENSOR_TYPE_FLOAT32);
  g_assert_cmpint (c.tensor_channels, ==, GCG_TENSOR_CHANNELS_RGB);
  g_assert_cmpuint (c.max_rois, ==, 1);
  g_assert_true (gcg_frame_chain_config_validate (&c, &error));
  g_assert_no_error (error);
  copy = gcg_frame_chain_config_copy (&c);
  g_assert_cmpmem (copy, sizeof (c), &c, sizeof (c));

  gcg_frame_params_init (&p);
  g_assert_cmpfloat (p.gain, ==, 1.0f);
  g_assert_cmpfloat (p.contrast, ==, 1.0f);
  g_assert_cmpfloat (p.brightness, ==, 0.0f);
  g_assert_cmpfloat (p.gamma, ==, 1.0f);
  for (guint i = 0; i < 3; i++) {
    g_assert_cmpfloat (p.scale[i], ==, 1.0f);
    g_assert_cmpfloat (p.offset[i], ==, 0.0f);
  }
  for (guint i = 0; i < 4; i++)
    g_assert_cmpfloat (p.pad[i], ==, 0.0f);
  g_assert_cmpuint (p.n_rois, ==, 0);
  pcopy = gcg_frame_params_copy (&p);
  g_assert_cmpmem (pcopy, sizeof (p), &p, sizeof (p));
  g_assert_true (G_TYPE_IS_BOXED (GCG_TYPE_FRAME_PARAMS));
  g_assert_true (G_TYPE_IS_BOXED (GCG_TYPE_FRAME_CHAIN_CONFIG));
  g_assert_true (G_TYPE_IS_BOXED (GCG_TYPE_RECT));
}

static void
expect_invalid (const GcgFrameChainConfig *c, const gchar *needle)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameChain) chain = NULL;

  g_assert_false (gcg_frame_chain_config_validate (c, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  if (strstr (error->message, needle) == NULL)
    g_error ("\"%s\" does not mention \"%s\"", error->message, needle);
  g_clear_error (&error);
  g_assert_cmpuint (gcg_frame_chain_config_get_output_size (c), ==, 0);
  chain = gcg_frame_chain_new (c, GCG_BACKEND_CPU, NULL, &error);
  g_assert_null (chain);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
}

static void
test_config_validate (void)
{
  GcgFrameChainConfig c;

  gcg_frame_chain_config_init (&c);
  c.in_width = 0;
  expect_invalid (&c, "input size");
  gcg_frame_chain_config_init (&c);
  c.in_height = 16385;
  expect_invalid (&c, "input size");
  gcg_frame_chain_config_init (&c);
  c.out_width = 16385;
  expect_invalid (&c, "output size");
  gcg_frame_chain_config_init (&c);
  c.in_format = 7;
  expect_invalid (&c, "in_format");
  gcg_frame_chain_config_init (&c);
  c.out_format = -1;
  expect_invalid (&c, "out_format");
  gcg_frame_chain_config_init (&c);
  c.matrix = 2;
  expect_invalid (&c, "matrix");
  gcg_frame_chain_config_init (&c);
  c.output = 2;
  expect_invalid (&c, "output");
  gcg_frame_chain_config_init (&c);
  c.resize = 2;
  expect_invalid (&c, "resize");
  gcg_frame_chain_config_init (&c);
  c.letterbox = 3;
  expect_invalid (&c, "letterbox");
  gcg_frame_chain_config_init (&c);
  c.tensor_layout = 2;
  expect_invalid (&c, "tensor_layout");
  gcg_frame_chain_config_init (&c);
  c.tensor_type = 3;
  expect_invalid (&c, "tensor_type");
  gcg_frame_chain_config_init (&c);
  c.tensor_channels = 3;
  expect_invalid (&c, "tensor_channels");
  gcg_frame_chain_config_init (&c);
  c.max_rois = 0;
  expect_invalid (&c, "max_rois");
  c.output = GCG_OUTPUT_KIND_TENSOR;
  c.max_rois = GCG_FRAME_CHAIN_MAX_ROIS + 1;
  expect_invalid (&c, "max_rois");
  c.max_rois = GCG_FRAME_CHAIN_MAX_ROIS;
  g_assert_true (gcg_frame_chain_config_validate (&c, NULL));
  c.output = GCG_OUTPUT_KIND_VIDEO;
  c.max_rois = 2;
  expect_invalid (&c, "video");
  gcg_frame_chain_config_init (&c);
  c.in_width = c.in_height = c.out_width = c.out_height = 16384;
  g_assert_true (gcg_frame_chain_config_validate (&c, NULL));
  /* The output is at most 2 GiB: 8 GRAY uint8 items of 16384x16384 are
   * exactly that, 9 are too many, and 64 RGB float32 ones 192 GiB. */
  c.output = GCG_OUTPUT_KIND_TENSOR;
  c.tensor_type = GCG_TENSOR_TYPE_UINT8;
  c.tensor_channels = GCG_TENSOR_CHANNELS_GRAY;
  c.max_rois = 8;
  g_assert_true (gcg_frame_chain_config_validate (&c, NULL));
  g_assert_cmpuint (gcg_frame_chain_config_get_output_size (&c), ==,
      GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES);
  c.max_rois = 9;
  expect_invalid (&c, "2415919104 bytes");
  c.max_rois = 64;
  c.tensor_type = GCG_TENSOR_TYPE_FLOAT32;
  c.tensor_channels = GCG_TENSOR_CHANNELS_RGB;
  expect_invalid (&c, "206158430208 bytes");
  gcg_frame_chain_config_init (&c);
  c.in_width = c.in_height = c.out_width = c.out_height = 1;
  g_assert_true (gcg_frame_chain_config_validate (&c, NULL));
}

static void
test_output_size (void)
{
  GcgFrameChainConfig c;

  video_config (&c, GCG_PIXEL_FORMAT_RGBA, 8, 8, GCG_PIXEL_FORMAT_RGBA, 5, 3);
  g_assert_cmpuint (gcg_frame_chain_config_get_output_size (&c), ==, 60);
  c.out_format = GCG_PIXEL_FORMAT_BGR;
  g_assert_cmpuint (gcg_frame_chain_config_get_output_size (&c), ==, 45);
  c.out_format = GCG_PIXEL_FORMAT_GRAY8;
  g_assert_cmpuint (gcg_frame_chain_config_get_output_size (&c), ==, 15);
  /* 4:2:0 chroma of an odd 5x3 frame is 3x2. */
  c.out_format = GCG_PIXEL_FORMAT_NV12;
  g_assert_cmpuint (gcg_frame_chain_config_get_output_size (&c), ==, 15 + 12);
  c.out_format = GCG_PIXEL_FORMAT_I420;
  g_assert_cmpuint (gcg_frame_chain_config_get_output_size (&c), ==,
      15 + 6 + 6);
  c.out_width = 1920;
  c.out_height = 1080;
  g_assert_cmpuint (gcg_frame_chain_config_get_output_size (&c), ==,
      1920 * 1080 * 3 / 2);

  tensor_config (&c, GCG_PIXEL_FORMAT_RGBA, 8, 8, 640, 640, 4);
  g_assert_cmpuint (gcg_frame_chain_config_get_output_size (&c), ==,
      4 * 3 * 640 * 640 * 4);
  c.tensor_type = GCG_TENSOR_TYPE_FLOAT16;
  c.tensor_channels = GCG_TENSOR_CHANNELS_GRAY;
  g_assert_cmpuint (gcg_frame_chain_config_get_output_size (&c), ==,
      4 * 640 * 640 * 2);
  c.tensor_type = GCG_TENSOR_TYPE_UINT8;
  c.tensor_channels = GCG_TENSOR_CHANNELS_BGR;
  c.max_rois = 1;
  g_assert_cmpuint (gcg_frame_chain_config_get_output_size (&c), ==,
      3 * 640 * 640);
}

static void
test_backends (void)
{
  GcgFrameChainConfig c;
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameChain) chain = NULL;

  gcg_frame_chain_config_init (&c);
  /* AUTO without a context is the CPU, never an error. */
  chain = gcg_frame_chain_new (&c, GCG_BACKEND_AUTO, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcg_frame_chain_get_backend (chain), ==, GCG_BACKEND_CPU);
  g_assert_true (gcg_frame_chain_get_use_graph (chain));
  gcg_frame_chain_set_use_graph (chain, FALSE);
  g_assert_false (gcg_frame_chain_get_use_graph (chain));
  {
    GcgFrameChainConfig back;

    gcg_frame_chain_get_config (chain, &back);
    g_assert_cmpmem (&back, sizeof (back), &c, sizeof (c));
  }
  g_clear_object (&chain);
  chain = gcg_frame_chain_new (&c, GCG_BACKEND_CUDA, NULL, &error);
  g_assert_null (chain);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
}

/* --- packed formats --------------------------------------------------- */

static void
test_rgba_identity (void)
{
  GcgFrameChainConfig c;
  GcgFrameParams p;
  Frame in, out;

  video_config (&c, GCG_PIXEL_FORMAT_RGBA, 37, 11, GCG_PIXEL_FORMAT_RGBA, 37,
      11);
  frame_init (&in, GCG_PIXEL_FORMAT_RGBA, 37, 11, 12);
  frame_init (&out, GCG_PIXEL_FORMAT_RGBA, 37, 11, 8);
  frame_fill_random (&in, 1);
  gcg_frame_params_init (&p);
  run_video (&c, &p, &in, &out);
  for (guint y = 0; y < 11; y++) {
    for (guint x = 0; x < 37; x++) {
      g_assert_cmpmem (at (&out, 0, x, y), 3, at (&in, 0, x, y), 3);
      g_assert_cmpuint (at (&out, 0, x, y)[3], ==, 255);
    }
    /* Row padding is not written. */
    g_assert_cmphex (at (&out, 0, 37, y)[0], ==, SENTINEL);
  }
  frame_clear (&in);
  frame_clear (&out);
}

static void
test_swaps (void)
{
  static const struct
  {
    GcgPixelFormat in, out;
    gint map[3];                /* out byte c takes in byte map[c] */
    gboolean alpha;
  } cases[] = {
    { GCG_PIXEL_FORMAT_RGB, GCG_PIXEL_FORMAT_BGR, { 2, 1, 0 }, FALSE },
    { GCG_PIXEL_FORMAT_BGR, GCG_PIXEL_FORMAT_RGB, { 2, 1, 0 }, FALSE },
    { GCG_PIXEL_FORMAT_RGBA, GCG_PIXEL_FORMAT_BGRA, { 2, 1, 0 }, TRUE },
    { GCG_PIXEL_FORMAT_BGR, GCG_PIXEL_FORMAT_RGBA, { 2, 1, 0 }, TRUE },
    { GCG_PIXEL_FORMAT_BGRA, GCG_PIXEL_FORMAT_BGR, { 0, 1, 2 }, FALSE },
    { GCG_PIXEL_FORMAT_GRAY8, GCG_PIXEL_FORMAT_RGB, { 0, 0, 0 }, FALSE },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    GcgFrameChainConfig c;
    GcgFrameParams p;
    Frame in, out;

    video_config (&c, cases[i].in, 9, 4, cases[i].out, 9, 4);
    frame_init (&in, cases[i].in, 9, 4, 0);
    frame_init (&out, cases[i].out, 9, 4, 0);
    frame_fill_random (&in, 10 + i);
    gcg_frame_params_init (&p);
    run_video (&c, &p, &in, &out);
    for (guint y = 0; y < 4; y++) {
      for (guint x = 0; x < 9; x++) {
        for (guint ch = 0; ch < 3; ch++)
          g_assert_cmpuint (at (&out, 0, x, y)[ch], ==,
              at (&in, 0, x, y)[cases[i].map[ch]]);
        if (cases[i].alpha)
          g_assert_cmpuint (at (&out, 0, x, y)[3], ==, 255);
      }
    }
    frame_clear (&in);
    frame_clear (&out);
  }
}

/* GRAY8 output is the full-range luma: a gray input comes back as is. */
static void
test_gray_out (void)
{
  GcgFrameChainConfig c;
  GcgFrameParams p;
  Frame in, out;
  guint8 *px;

  video_config (&c, GCG_PIXEL_FORMAT_RGB, 4, 1, GCG_PIXEL_FORMAT_GRAY8, 4, 1);
  frame_init (&in, GCG_PIXEL_FORMAT_RGB, 4, 1, 0);
  frame_init (&out, GCG_PIXEL_FORMAT_GRAY8, 4, 1, 0);
  px = plane (&in, 0);
  memcpy (px, (guint8[]) { 77, 77, 77, 255, 0, 0, 0, 255, 0, 0, 0, 255 }, 12);
  gcg_frame_params_init (&p);
  run_video (&c, &p, &in, &out);
  /* BT.601 weights: 0.299 * 255 = 76.245, 0.587 * 255 = 149.685,
   * 0.114 * 255 = 29.07. */
  g_assert_cmpuint (plane (&out, 0)[0], ==, 77);
  g_assert_cmpuint (plane (&out, 0)[1], ==, 76);
  g_assert_cmpuint (plane (&out, 0)[2], ==, 150);
  g_assert_cmpuint (plane (&out, 0)[3], ==, 29);
  frame_clear (&in);
  frame_clear (&out);
}

/* --- YUV inputs ------------------------------------------------------- */

static void
fill_nv12 (Frame *f, const guint8 *y, guint8 u, guint8 v)
{
  for (guint r = 0; r < f->height; r++)
    memcpy (at (f, 0, 0, r), y + r * f->width, f->width);
  for (guint r = 0; r < (f->height + 1) / 2; r++)
    for (guint x = 0; x < (f->width + 1) / 2; x++) {
      at (f, 1, x, r)[0] = u;
      at (f, 1, x, r)[1] = v;
    }
}

static void
test_nv12_bt601_limited (void)
{
  static const guint8 luma[8] = { 16, 235, 126, 0, 255, 100, 16, 235 };
  GcgFrameChainConfig c;
  GcgFrameParams p;
  Frame in, out;

  video_config (&c, GCG_PIXEL_FORMAT_NV12, 4, 2, GCG_PIXEL_FORMAT_RGBA, 4, 2);
  frame_init (&in, GCG_PIXEL_FORMAT_NV12, 4, 2, 0);
  frame_init (&out, GCG_PIXEL_FORMAT_RGBA, 4, 2, 0);
  fill_nv12 (&in, luma, 128, 128);
  gcg_frame_params_init (&p);
  run_video (&c, &p, &in, &out);
  /* Neutral chroma: gray, Y' = (Y - 16) * 255 / 219. */
  for (guint i = 0; i < 8; i++) {
    gdouble want = (luma[i] - 16) * 255.0 / 219.0;

    for (guint ch = 0; ch < 3; ch++)
      assert_close_u8 (at (&out, 0, i % 4, i / 4)[ch], want, 0);
  }
  g_assert_cmpuint (at (&out, 0, 0, 0)[0], ==, 0);
  g_assert_cmpuint (at (&out, 0, 1, 0)[0], ==, 255);

  /* A colour: Y 81, U 90, V 240 (BT.601 limited red). */
  {
    const guint8 y[8] = { 81, 81, 81, 81, 81, 81, 81, 81 };
    gdouble yy = (81 - 16) * 255.0 / 219.0, uu = (90 - 128) * 255.0 / 224.0;
    gdouble vv = (240 - 128) * 255.0 / 224.0;
    gdouble kr = 0.299, kb = 0.114, kg = 1 - kr - kb;

    fill_nv12 (&in, y, 90, 240);
    run_video (&c, &p, &in, &out);
    assert_close_u8 (at (&out, 0, 3, 1)[0], yy + 2 * (1 - kr) * vv, 0);
    assert_close_u8 (at (&out, 0, 3, 1)[1],
        yy - 2 * kb * (1 - kb) / kg * uu - 2 * kr * (1 - kr) / kg * vv, 0);
    assert_close_u8 (at (&out, 0, 3, 1)[2], yy + 2 * (1 - kb) * uu, 0);
    g_assert_cmpuint (at (&out, 0, 3, 1)[0], >=, 250);
    g_assert_cmpuint (at (&out, 0, 3, 1)[1], <=, 2);
  }
  frame_clear (&in);
  frame_clear (&out);
}

/* BT.709 full range, I420 and NV12 alike: gray passes through exactly,
 * and each 2x2 block uses its own chroma sample. */
static void
test_yuv_bt709_full (void)
{
  GcgPixelFormat formats[] = { GCG_PIXEL_FORMAT_NV12, GCG_PIXEL_FORMAT_I420 };

  for (guint k = 0; k < 2; k++) {
    GcgFrameChainConfig c;
    GcgFrameParams p;
    Frame in, out;
    gdouble kr = 0.2126, kb = 0.0722, kg = 1 - kr - kb;

    video_config (&c, formats[k], 4, 4, GCG_PIXEL_FORMAT_RGB, 4, 4);
    c.matrix = GCG_COLOR_MATRIX_BT709;
    c.full_range = TRUE;
    frame_init (&in, formats[k], 4, 4, 3);
    frame_init (&out, GCG_PIXEL_FORMAT_RGB, 4, 4, 0);
    frame_fill_random (&in, 20 + k);
    gcg_frame_params_init (&p);
    run_video (&c, &p, &in, &out);
    for (guint y = 0; y < 4; y++) {
      for (guint x = 0; x < 4; x++) {
        gdouble yy = *at (&in, 0, x, y), uu, vv;

        if (formats[k] == GCG_PIXEL_FORMAT_NV12) {
          uu = at (&in, 1, x / 2, y / 2)[0] - 128.0;
          vv = at (&in, 1, x / 2, y / 2)[1] - 128.0;
        } else {
          uu = at (&in, 1, x / 2, y / 2)[0] - 128.0;
          vv = at (&in, 2, x / 2, y / 2)[0] - 128.0;
        }
        assert_close_u8 (at (&out, 0, x, y)[0], yy + 2 * (1 - kr) * vv, 1);
        assert_close_u8 (at (&out, 0, x, y)[1],
            yy - 2 * kb * (1 - kb) / kg * uu - 2 * kr * (1 - kr) / kg * vv, 1);
        assert_close_u8 (at (&out, 0, x, y)[2], yy + 2 * (1 - kb) * uu, 1);
      }
    }
    /* Neutral chroma: exactly the luma. */
    for (guint r = 0; r < 2; r++)
      memset (plane (&in, 1) + r * in.stride[1], 128, in.stride[1]);
    if (formats[k] == GCG_PIXEL_FORMAT_I420)
      memset (plane (&in, 2), 128, 2 * in.stride[2]);
    run_video (&c, &p, &in, &out);
    for (guint y = 0; y < 4; y++)
      for (guint x = 0; x < 4; x++)
        for (guint ch = 0; ch < 3; ch++)
          g_assert_cmpuint (at (&out, 0, x, y)[ch], ==, *at (&in, 0, x, y));
    frame_clear (&in);
    frame_clear (&out);
  }
}

/* --- geometry --------------------------------------------------------- */

static void
test_crop (void)
{
  GcgFrameChainConfig c;
  GcgFrameParams p;
  Frame in, out;

  video_config (&c, GCG_PIXEL_FORMAT_BGRA, 20, 10, GCG_PIXEL_FORMAT_BGRA, 6, 4);
  frame_init (&in, GCG_PIXEL_FORMAT_BGRA, 20, 10, 0);
  frame_init (&out, GCG_PIXEL_FORMAT_BGRA, 6, 4, 0);
  frame_fill_random (&in, 3);
  gcg_frame_params_init (&p);
  p.rois[0] = (GcgRect) { 7, 5, 6, 4 };
  p.n_rois = 1;
  for (guint m = 0; m < 2; m++) {
    c.resize = m ? GCG_RESIZE_NEAREST : GCG_RESIZE_BILINEAR;
    run_video (&c, &p, &in, &out);
    for (guint y = 0; y < 4; y++)
      for (guint x = 0; x < 6; x++)
        g_assert_cmpmem (at (&out, 0, x, y), 3, at (&in, 0, 7 + x, 5 + y), 3);
  }
  frame_clear (&in);
  frame_clear (&out);
}

/* Resizes of a random frame against the double reference (within 1), and
 * a 2x bilinear downscale of a ramp, which is exact. */
static void
test_resize (void)
{
  /* 97x301 has enough rows to be cut into bands on every core. */
  static const guint sizes[][2] = { { 7, 5 }, { 13, 3 }, { 3, 9 }, { 31, 17 },
    { 1, 1 }, { 97, 301 } };

  for (guint m = 0; m < 2; m++) {
    for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++) {
      GcgFrameChainConfig c;
      GcgFrameParams p;
      Frame in, out;
      guint ow = sizes[s][0], oh = sizes[s][1];

      video_config (&c, GCG_PIXEL_FORMAT_RGB, 11, 8, GCG_PIXEL_FORMAT_RGB, ow,
          oh);
      c.resize = m ? GCG_RESIZE_NEAREST : GCG_RESIZE_BILINEAR;
      frame_init (&in, GCG_PIXEL_FORMAT_RGB, 11, 8, 1);
      frame_init (&out, GCG_PIXEL_FORMAT_RGB, ow, oh, 0);
      frame_fill_random (&in, 30 + s);
      gcg_frame_params_init (&p);
      run_video (&c, &p, &in, &out);
      for (guint y = 0; y < oh; y++) {
        for (guint x = 0; x < ow; x++) {
          gdouble rgb[3];

          ref_resample (&in, c.resize, 0, 0, 11, 8, ow, oh, x, y, rgb);
          for (guint ch = 0; ch < 3; ch++)
            assert_close_u8 (at (&out, 0, x, y)[ch], rgb[ch], m ? 0 : 1);
        }
      }
      frame_clear (&in);
      frame_clear (&out);
    }
  }

  /* Ramp 10x: every output is the mean of two inputs, 20x + 5. */
  {
    GcgFrameChainConfig c;
    GcgFrameParams p;
    Frame in, out;

    video_config (&c, GCG_PIXEL_FORMAT_GRAY8, 16, 4, GCG_PIXEL_FORMAT_GRAY8, 8,
        2);
    frame_init (&in, GCG_PIXEL_FORMAT_GRAY8, 16, 4, 0);
    frame_init (&out, GCG_PIXEL_FORMAT_GRAY8, 8, 2, 0);
    for (guint y = 0; y < 4; y++)
      for (guint x = 0; x < 16; x++)
        *at (&in, 0, x, y) = (guint8) (10 * x);
    gcg_frame_params_init (&p);
    run_video (&c, &p, &in, &out);
    for (guint y = 0; y < 2; y++)
      for (guint x = 0; x < 8; x++)
        g_assert_cmpuint (*at (&out, 0, x, y), ==, 20 * x + 5);
    frame_clear (&in);
    frame_clear (&out);
  }
}

/* Bilinear weighs in fixed point (12-bit weights, gcg-frame-math.h):
 * against the exact resampler, over random crops and scales (up and
 * down, 1-64 pixels each way), a float32 tensor of the raw levels is
 * within 255 * 2 * 2^-13 = 0.062 levels (each axis's weight rounded to
 * 1/4096, plus float32 ratios), and 8-bit video within 1 level (the
 * rounding of a value that close to a half).  Measured: 0.0510 and 1. */
#define BILINEAR_MAX_ERROR 0.0625

static void
test_bilinear_error (void)
{
  GRand *rand = g_rand_new_with_seed (38);
  Frame in;
  gdouble worst = 0;
  gint worst_u8 = 0;

  frame_init (&in, GCG_PIXEL_FORMAT_RGB, 64, 48, 5);
  frame_fill_random (&in, 38);
  for (guint trial = 0; trial < 400; trial++) {
    GcgFrameChainConfig c;
    GcgFrameParams p;
    Frame out;
    gint cw = g_rand_int_range (rand, 1, 65);
    gint ch = g_rand_int_range (rand, 1, 49);
    gint cx = g_rand_int_range (rand, 0, 64 - cw + 1);
    gint cy = g_rand_int_range (rand, 0, 48 - ch + 1);
    guint ow = g_rand_int_range (rand, 1, 65);
    guint oh = g_rand_int_range (rand, 1, 65);
    g_autofree gfloat *t = g_new (gfloat, 3 * ow * oh);

    tensor_config (&c, GCG_PIXEL_FORMAT_RGB, 64, 48, ow, oh, 1);
    gcg_frame_params_init (&p);
    set_src (&p, &in);
    p.dst[0] = (guint64) (guintptr) t;
    p.rois[0] = (GcgRect) { cx, cy, cw, ch };
    p.n_rois = 1;
    /* scale 1, offset 0: the levels themselves. */
    run (&c, &p);
    video_config (&c, GCG_PIXEL_FORMAT_RGB, 64, 48, GCG_PIXEL_FORMAT_RGB, ow,
        oh);
    frame_init (&out, GCG_PIXEL_FORMAT_RGB, ow, oh, 0);
    run_video (&c, &p, &in, &out);
    for (guint y = 0; y < oh; y++)
      for (guint x = 0; x < ow; x++) {
        gdouble rgb[3];

        ref_resample (&in, GCG_RESIZE_BILINEAR, cx, cy, cw, ch, (gint) ow,
            (gint) oh, (gint) x, (gint) y, rgb);
        for (guint k = 0; k < 3; k++) {
          gdouble e = fabs (t[(k * oh + y) * ow + x] - rgb[k]);
          gint e8 = ABS ((gint) at (&out, 0, x, y)[k] - ref_u8 (rgb[k]));

          worst = MAX (worst, e);
          worst_u8 = MAX (worst_u8, e8);
        }
      }
    frame_clear (&out);
  }
  g_test_message ("bilinear against the exact resampler: %.4f levels "
                  "(float32), %d (8-bit)",
      worst, worst_u8);
  g_assert_cmpfloat (worst, <=, BILINEAR_MAX_ERROR);
  g_assert_cmpint (worst_u8, <=, 1);
  frame_clear (&in);
  g_rand_free (rand);
}

/* 4x2 into 5x6: s = 1.25, image 5x3 (2.5 rounds away from zero), pad
 * 1 row above and 2 below (the odd one at the bottom), or 3 below. */
static void
test_letterbox (void)
{
  for (guint mode = 0; mode < 2; mode++) {
    GcgFrameChainConfig c;
    GcgFrameParams p;
    Frame in, out;
    guint top = mode == 0 ? 1 : 0;

    video_config (&c, GCG_PIXEL_FORMAT_RGBA, 4, 2, GCG_PIXEL_FORMAT_RGBA, 5, 6);
    c.letterbox = mode == 0 ? GCG_LETTERBOX_SYMMETRIC : GCG_LETTERBOX_TOP_LEFT;
    c.resize = GCG_RESIZE_NEAREST;
    frame_init (&in, GCG_PIXEL_FORMAT_RGBA, 4, 2, 0);
    frame_init (&out, GCG_PIXEL_FORMAT_RGBA, 5, 6, 0);
    frame_fill_random (&in, 40);
    gcg_frame_params_init (&p);
    p.pad[0] = 10;
    p.pad[1] = 20.4f;
    p.pad[2] = 30.5f;
    p.pad[3] = 300;
    run_video (&c, &p, &in, &out);
    for (guint y = 0; y < 6; y++) {
      for (guint x = 0; x < 5; x++) {
        const guint8 *o = at (&out, 0, x, y);

        if (y < top || y >= top + 3) {
          g_assert_cmpuint (o[0], ==, 10);
          g_assert_cmpuint (o[1], ==, 20);
          g_assert_cmpuint (o[2], ==, 31);
          g_assert_cmpuint (o[3], ==, 255);
        } else {
          /* Nearest: x -> floor ((x + 0.5) * 0.8),
           * y -> floor ((y' + 0.5) * 2/3). */
          guint ix = (guint) floor ((x + 0.5) * 0.8);
          guint iy = (guint) floor ((y - top + 0.5) * 2.0 / 3.0);

          g_assert_cmpmem (o, 3, at (&in, 0, ix, iy), 3);
          g_assert_cmpuint (o[3], ==, 255);
        }
      }
    }
    frame_clear (&in);
    frame_clear (&out);
  }

  /* Width-limited, odd side padding: 8x8 into 11x4: image 4x4 at x = 3. */
  {
    GcgFrameChainConfig c;
    GcgFrameParams p;
    Frame in, out;

    video_config (&c, GCG_PIXEL_FORMAT_GRAY8, 8, 8, GCG_PIXEL_FORMAT_GRAY8, 11,
        4);
    c.letterbox = GCG_LETTERBOX_SYMMETRIC;
    frame_init (&in, GCG_PIXEL_FORMAT_GRAY8, 8, 8, 0);
    frame_init (&out, GCG_PIXEL_FORMAT_GRAY8, 11, 4, 0);
    memset (plane (&in, 0), 200, in.size);
    gcg_frame_params_init (&p);
    p.pad[0] = p.pad[1] = p.pad[2] = 7;
    run_video (&c, &p, &in, &out);
    for (guint y = 0; y < 4; y++)
      for (guint x = 0; x < 11; x++)
        g_assert_cmpuint (*at (&out, 0, x, y), ==, x >= 3 && x < 7 ? 200 : 7);
    frame_clear (&in);
    frame_clear (&out);
  }
}

/* --- adjustment ------------------------------------------------------- */

static guint8
adjust_one (guint8 value, gfloat gain, gfloat contrast, gfloat brightness,
    gfloat gamma)
{
  GcgFrameChainConfig c;
  GcgFrameParams p;
  Frame in, out;
  guint8 result;

  video_config (&c, GCG_PIXEL_FORMAT_GRAY8, 1, 1, GCG_PIXEL_FORMAT_GRAY8, 1, 1);
  frame_init (&in, GCG_PIXEL_FORMAT_GRAY8, 1, 1, 0);
  frame_init (&out, GCG_PIXEL_FORMAT_GRAY8, 1, 1, 0);
  *plane (&in, 0) = value;
  gcg_frame_params_init (&p);
  p.gain = gain;
  p.contrast = contrast;
  p.brightness = brightness;
  p.gamma = gamma;
  run_video (&c, &p, &in, &out);
  result = *plane (&out, 0);
  frame_clear (&in);
  frame_clear (&out);
  return result;
}

static void
test_adjust (void)
{
  /* Away from .5 ties, so exact. */
  g_assert_cmpuint (adjust_one (100, 2, 1, 0, 1), ==, 200);
  g_assert_cmpuint (adjust_one (200, 2, 1, 0, 1), ==, 255);
  g_assert_cmpuint (adjust_one (200, 1, 0.5f, 0, 1), ==, 164);  /* 163.75 */
  g_assert_cmpuint (adjust_one (100, 1, 1, 0.2f, 1), ==, 151);
  g_assert_cmpuint (adjust_one (100, 1, 1, -0.5f, 1), ==, 0);
  g_assert_cmpuint (adjust_one (128, 1, 1, 0, 2), ==, 64);      /* 64.25 */
  g_assert_cmpuint (adjust_one (64, 1, 1, 0, 0.5f), ==, 128);   /* 127.75 */
  /* Order: gain, then contrast around 0.5, then brightness, then gamma:
   * 50 * 2 = 100 -> (0.392 - 0.5) * 3 + 0.5 + 0.1 = 0.2765 -> ^2 -> 19.5. */
  {
    gdouble t = 50.0 / 255 * 2;

    t = (t - 0.5) * 3 + 0.5 + 0.1;
    assert_close_u8 (adjust_one (50, 2, 3, 0.1f, 2), pow (t, 2) * 255, 1);
  }
  for (guint v = 0; v < 256; v += 5)
    g_assert_cmpuint (adjust_one (v, 1, 1, 0, 1), ==, v);
}

/* --- tensors ---------------------------------------------------------- */

static void
test_tensor_layouts (void)
{
  GcgFrameChainConfig c;
  GcgFrameParams p;
  Frame in;
  g_autofree gfloat *nchw = g_new (gfloat, 3 * 6);
  g_autofree guint8 *nhwc = g_new (guint8, 3 * 6);
  const gfloat mean[3] = { 0.485f, 0.456f, 0.406f };
  const gfloat std[3] = { 0.229f, 0.224f, 0.225f };

  tensor_config (&c, GCG_PIXEL_FORMAT_RGBA, 3, 2, 3, 2, 1);
  frame_init (&in, GCG_PIXEL_FORMAT_RGBA, 3, 2, 0);
  frame_fill_random (&in, 50);
  gcg_frame_params_init (&p);
  set_src (&p, &in);
  p.dst[0] = (guint64) (guintptr) nchw;
  gcg_frame_params_set_mean_std (&p, mean, std);
  g_assert_cmpfloat_with_epsilon (p.scale[0], 1 / (255 * 0.229), 1e-9);
  g_assert_cmpfloat_with_epsilon (p.offset[2], -0.406 / 0.225, 1e-6);
  run (&c, &p);
  for (guint y = 0; y < 2; y++)
    for (guint x = 0; x < 3; x++)
      for (guint ch = 0; ch < 3; ch++) {
        gdouble want = (at (&in, 0, x, y)[ch] / 255.0 - mean[ch]) / std[ch];
        gfloat got = nchw[ch * 6 + y * 3 + x];

        g_assert_cmpfloat (fabs (got - want), <=, 1e-5 * MAX (1, fabs (want)));
      }

  /* NHWC uint8 BGR, identity mapping: the bytes, swapped. */
  c.tensor_layout = GCG_TENSOR_LAYOUT_NHWC;
  c.tensor_type = GCG_TENSOR_TYPE_UINT8;
  c.tensor_channels = GCG_TENSOR_CHANNELS_BGR;
  gcg_frame_params_init (&p);
  set_src (&p, &in);
  p.dst[0] = (guint64) (guintptr) nhwc;
  run (&c, &p);
  for (guint y = 0; y < 2; y++)
    for (guint x = 0; x < 3; x++)
      for (guint ch = 0; ch < 3; ch++)
        g_assert_cmpuint (nhwc[(y * 3 + x) * 3 + ch], ==,
            at (&in, 0, x, y)[2 - ch]);

  /* uint8 rounds half away from zero and saturates: scale 0.5 of 3 is
   * 1.5 -> 2; offset -300 -> 0. */
  memset (plane (&in, 0), 3, in.size);
  p.scale[0] = 0.5f;
  p.offset[1] = -300;
  p.offset[2] = 1000;
  run (&c, &p);
  g_assert_cmpuint (nhwc[0], ==, 2);
  g_assert_cmpuint (nhwc[1], ==, 0);
  g_assert_cmpuint (nhwc[2], ==, 255);
  frame_clear (&in);
}

static void
test_float16 (void)
{
  static const struct
  {
    gfloat in;
    guint16 out;
  } cases[] = {
    { 0.0f, 0x0000 },
    { -0.0f, 0x8000 },
    { 1.0f, 0x3c00 },
    { -2.0f, 0xc000 },
    { 65504.0f, 0x7bff },
    { 65519.0f, 0x7bff },
    { 65520.0f, 0x7c00 },
    { 1e10f, 0x7c00 },
    { -1e10f, 0xfc00 },
    { INFINITY, 0x7c00 },
    { 5.9604645e-08f, 0x0001 },               /* 2^-24 */
    { 2.9802322e-08f, 0x0000 },               /* 2^-25: tie to even 0 */
    { 8.940697e-08f, 0x0002 },                /* 1.5 * 2^-24: tie to 2 */
    { 6.1035156e-05f, 0x0400 },               /* 2^-14, smallest normal */
    { 6.102e-05f, 0x0400 },                   /* rounds up into normal */
    { 6.1e-05f, 0x03ff },
    { 1.00048828125f, 0x3c00 },               /* 1 + 2^-11: tie to even */
    { 1.00146484375f, 0x3c02 },               /* 1 + 3 * 2^-11: tie up */
    { 1.0009765625f, 0x3c01 },
    { 0.1f, 0x2e66 },
    { 3.14159265f, 0x4248 },
    { 1e-9f, 0x0000 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    g_assert_cmphex (gcg_fm_f16 (cases[i].in), ==, cases[i].out);
  g_assert_cmphex (gcg_fm_f16 (NAN) & 0x7c00, ==, 0x7c00);
  g_assert_cmphex (gcg_fm_f16 (NAN) & 0x3ff, !=, 0);

  /* A GRAY float16 tensor of a uniform frame. */
  {
    GcgFrameChainConfig c;
    GcgFrameParams p;
    Frame in;
    guint16 out[4];

    tensor_config (&c, GCG_PIXEL_FORMAT_GRAY8, 2, 2, 2, 2, 1);
    c.tensor_type = GCG_TENSOR_TYPE_FLOAT16;
    c.tensor_channels = GCG_TENSOR_CHANNELS_GRAY;
    frame_init (&in, GCG_PIXEL_FORMAT_GRAY8, 2, 2, 0);
    memset (plane (&in, 0), 255, in.size);
    gcg_frame_params_init (&p);
    set_src (&p, &in);
    p.dst[0] = (guint64) (guintptr) out;
    p.scale[0] = 1.0f / 255.0f;
    run (&c, &p);
    for (guint i = 0; i < 4; i++)
      g_assert_cmphex (out[i], ==, 0x3c00);
    frame_clear (&in);
  }
}

/* Three ROIs into a batch of four: items 0-2 are their crops, item 3 is
 * left alone; an ROI across the edge is clipped, one outside is pad. */
static void
test_batch_and_clipping (void)
{
  GcgFrameChainConfig c;
  GcgFrameParams p;
  Frame in;
  const gsize item = 3 * 4 * 4;
  g_autofree guint8 *out = g_malloc (4 * item);

  tensor_config (&c, GCG_PIXEL_FORMAT_RGB, 16, 12, 4, 4, 4);
  c.tensor_type = GCG_TENSOR_TYPE_UINT8;
  frame_init (&in, GCG_PIXEL_FORMAT_RGB, 16, 12, 0);
  frame_fill_random (&in, 60);
  memset (out, SENTINEL, 4 * item);
  gcg_frame_params_init (&p);
  set_src (&p, &in);
  p.dst[0] = (guint64) (guintptr) out;
  p.pad[0] = 1;
  p.pad[1] = 2;
  p.pad[2] = 3;
  p.rois[0] = (GcgRect) { 2, 3, 4, 4 };
  p.rois[1] = (GcgRect) { 14, -2, 4, 4 };     /* clipped to 14,0 2x2 */
  p.rois[2] = (GcgRect) { 16, 0, 4, 4 };      /* outside: pad */
  p.n_rois = 3;
  c.resize = GCG_RESIZE_NEAREST;
  run (&c, &p);
  for (guint y = 0; y < 4; y++)
    for (guint x = 0; x < 4; x++)
      for (guint ch = 0; ch < 3; ch++) {
        g_assert_cmpuint (out[ch * 16 + y * 4 + x], ==,
            at (&in, 0, 2 + x, 3 + y)[ch]);
        /* 2x2 crop stretched to 4x4: each input pixel twice each
         * way. */
        g_assert_cmpuint (out[item + ch * 16 + y * 4 + x], ==,
            at (&in, 0, 14 + x / 2, y / 2)[ch]);
        g_assert_cmpuint (out[2 * item + ch * 16 + y * 4 + x], ==, ch + 1);
      }
  for (gsize i = 3 * item; i < 4 * item; i++)
    g_assert_cmphex (out[i], ==, SENTINEL);

  /* n_rois 0: the whole frame into item 0 only. */
  memset (out, SENTINEL, 4 * item);
  p.n_rois = 0;
  run (&c, &p);
  g_assert_cmpuint (out[0], ==, at (&in, 0, 2, 1)[0]);
  for (gsize i = item; i < 4 * item; i++)
    g_assert_cmphex (out[i], ==, SENTINEL);
  frame_clear (&in);
}

/* --- refused parameters ----------------------------------------------- */

static void
expect_refused (GcgFrameChain *chain, const GcgFrameParams *p, const Frame *out,
    const gchar *needle)
{
  g_autoptr (GError) error = NULL;
  guint64 before = gcg_frame_chain_get_eager_count (chain);

  g_assert_false (gcg_frame_chain_process (chain, p, NULL, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  if (strstr (error->message, needle) == NULL)
    g_error ("\"%s\" does not mention \"%s\"", error->message, needle);
  g_assert_cmpuint (gcg_frame_chain_get_eager_count (chain), ==, before);
  for (gsize i = 0; i < out->size + 64; i++)
    g_assert_cmphex (out->data[i], ==, SENTINEL);
}

static void
test_refused (void)
{
  GcgFrameChainConfig c;
  GcgFrameParams good, p;
  Frame in, out;
  g_autoptr (GcgFrameChain) chain = NULL;

  video_config (&c, GCG_PIXEL_FORMAT_NV12, 8, 6, GCG_PIXEL_FORMAT_I420, 4, 4);
  chain = new_cpu_chain (&c);
  frame_init (&in, GCG_PIXEL_FORMAT_NV12, 8, 6, 0);
  frame_init (&out, GCG_PIXEL_FORMAT_I420, 4, 4, 0);
  gcg_frame_params_init (&good);
  set_src (&good, &in);
  set_dst (&good, &out);

  p = good;
  p.gain = NAN;
  expect_refused (chain, &p, &out, "gain");
  p = good;
  p.brightness = INFINITY;
  expect_refused (chain, &p, &out, "brightness");
  p = good;
  p.contrast = -INFINITY;
  expect_refused (chain, &p, &out, "contrast");
  p = good;
  p.gamma = 0;
  expect_refused (chain, &p, &out, "gamma");
  p = good;
  p.gamma = NAN;
  expect_refused (chain, &p, &out, "gamma");
  p = good;
  p.pad[3] = NAN;
  expect_refused (chain, &p, &out, "pad[3]");
  p = good;
  p.scale[1] = INFINITY;
  expect_refused (chain, &p, &out, "scale[1]");
  p = good;
  p.offset[2] = NAN;
  expect_refused (chain, &p, &out, "offset[2]");
  p = good;
  p.src[1] = 0;
  expect_refused (chain, &p, &out, "src[1]");
  p = good;
  p.src_stride[1] = 7;
  expect_refused (chain, &p, &out, "src_stride[1]");
  p = good;
  p.dst[2] = 0;
  expect_refused (chain, &p, &out, "dst[2]");
  p = good;
  p.dst_stride[0] = 3;
  expect_refused (chain, &p, &out, "dst_stride[0]");
  p = good;
  p.n_rois = 2;
  expect_refused (chain, &p, &out, "ROIs");
  p = good;
  p.rois[0] = (GcgRect) { 8, 0, 4, 4 };
  p.n_rois = 1;
  expect_refused (chain, &p, &out, "nothing inside");
  p.rois[0] = (GcgRect) { 0, 0, 0, 4 };
  expect_refused (chain, &p, &out, "nothing inside");
  p.rois[0] = (GcgRect) { G_MAXINT, 0, G_MAXINT, 4 };
  expect_refused (chain, &p, &out, "nothing inside");
  p.rois[0] = (GcgRect) { -10, -10, 11, 11 };
  g_assert_true (gcg_frame_chain_process (chain, &p, NULL, NULL));
  frame_clear (&in);
  frame_clear (&out);
}

/* --- odd 4:2:0 sizes -------------------------------------------------- */

/* NV12 5x3 -> I420 5x3 and back, full range, nearest at the same size:
 * neutral chroma keeps luma exactly; random chroma comes back within 1;
 * nothing is written past the tight planes. */
static void
test_odd_yuv (void)
{
  GcgPixelFormat formats[][2] = {
    { GCG_PIXEL_FORMAT_NV12, GCG_PIXEL_FORMAT_I420 },
    { GCG_PIXEL_FORMAT_I420, GCG_PIXEL_FORMAT_NV12 },
  };

  for (guint k = 0; k < 2; k++) {
    GcgFrameChainConfig c;
    GcgFrameParams p;
    Frame in, out;

    video_config (&c, formats[k][0], 5, 3, formats[k][1], 5, 3);
    c.full_range = TRUE;
    c.matrix = GCG_COLOR_MATRIX_BT709;
    frame_init (&in, formats[k][0], 5, 3, 0);
    frame_init (&out, formats[k][1], 5, 3, 0);
    frame_fill_random (&in, 70 + k);
    /* Keep chroma moderate so RGB stays in gamut and nothing clips. */
    for (gsize i = in.offset[1]; i < in.size; i++)
      in.data[i] = (guint8) (118 + in.data[i] % 21);
    for (gsize i = 0; i < in.offset[1]; i++)
      in.data[i] = (guint8) (60 + in.data[i] % 130);
    gcg_frame_params_init (&p);
    run_video (&c, &p, &in, &out);
    g_assert_cmpuint (out.size, ==, 15 + 6 + 6);
    for (guint y = 0; y < 3; y++)
      for (guint x = 0; x < 5; x++)
        g_assert_cmpint (ABS ((gint) *at (&out, 0, x, y) - *at (&in, 0, x, y)),
            <=, 1);
    for (guint y = 0; y < 2; y++)
      for (guint x = 0; x < 3; x++) {
        guint8 iu, iv, ou, ov;

        if (formats[k][0] == GCG_PIXEL_FORMAT_NV12) {
          iu = at (&in, 1, x, y)[0], iv = at (&in, 1, x, y)[1];
          ou = at (&out, 1, x, y)[0], ov = at (&out, 2, x, y)[0];
        } else {
          iu = at (&in, 1, x, y)[0], iv = at (&in, 2, x, y)[0];
          ou = at (&out, 1, x, y)[0], ov = at (&out, 1, x, y)[1];
        }
        g_assert_cmpint (ABS ((gint) ou - iu), <=, 1);
        g_assert_cmpint (ABS ((gint) ov - iv), <=, 1);
      }
    frame_clear (&in);
    frame_clear (&out);
  }
}

/* Limited-range NV12 output of a padded RGBA frame: black pad is Y 16. */
static void
test_yuv_out_pad (void)
{
  GcgFrameChainConfig c;
  GcgFrameParams p;
  Frame in, out;

  video_config (&c, GCG_PIXEL_FORMAT_RGBA, 4, 4, GCG_PIXEL_FORMAT_NV12, 7, 3);
  c.letterbox = GCG_LETTERBOX_SYMMETRIC;
  frame_init (&in, GCG_PIXEL_FORMAT_RGBA, 4, 4, 0);
  frame_init (&out, GCG_PIXEL_FORMAT_NV12, 7, 3, 0);
  memset (plane (&in, 0), 255, in.size);
  gcg_frame_params_init (&p);
  run_video (&c, &p, &in, &out);
  /* Image 3x3 at x = 2: white is Y 235, black pad Y 16, chroma 128. */
  for (guint y = 0; y < 3; y++)
    for (guint x = 0; x < 7; x++)
      g_assert_cmpuint (*at (&out, 0, x, y), ==, x >= 2 && x < 5 ? 235 : 16);
  for (guint y = 0; y < 2; y++)
    for (guint x = 0; x < 4; x++) {
      g_assert_cmpuint (at (&out, 1, x, y)[0], ==, 128);
      g_assert_cmpuint (at (&out, 1, x, y)[1], ==, 128);
    }
  frame_clear (&in);
  frame_clear (&out);
}

/* A chain without a built-in op runs stages, which are CUDA only: with
 * no GcgContext it is refused, naming why, never made on the CPU. */
static void
test_stages_only_needs_cuda (void)
{
  g_autoptr (GError) error = NULL;
  GcgFrameChainConfig config;
  GcgFrameBatch *engine;

  gcg_frame_chain_config_init (&config);
  config.in_width = config.out_width = 64;
  config.in_height = config.out_height = 48;
  engine = gcg__frame_batch_new_stages_only (&config, NULL, &error);
  g_assert_null (engine);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "CUDA backend"));
}

/* The tree's one rectangle clipping (gcg-rect.c): the chain clips its
 * ROIs with it, the elements their crops and ROI metas. */
static void
assert_rect (const GcgRect *r, gint x, gint y, gint w, gint h)
{
  g_assert_cmpint (r->x, ==, x);
  g_assert_cmpint (r->y, ==, y);
  g_assert_cmpint (r->width, ==, w);
  g_assert_cmpint (r->height, ==, h);
}

static void
test_clip (void)
{
  const GcgRect region = { 10, 20, 100, 50 };
  GcgRect r = { 0, 0, 50, 40 };

  g_assert_true (gcg__rect_clip (&r, &region));
  assert_rect (&r, 10, 20, 40, 20);
  r = (GcgRect) { 30, 30, 10, 10 };
  g_assert_true (gcg__rect_clip (&r, &region));
  assert_rect (&r, 30, 30, 10, 10);
  r = (GcgRect) { 100, 60, 1000, 1000 };
  g_assert_true (gcg__rect_clip (&r, &region));
  assert_rect (&r, 100, 60, 10, 10);
}

/* Nothing left: FALSE, and the rectangle as it was. */
static void
test_clip_empty (void)
{
  const GcgRect region = { 10, 20, 100, 50 };
  const GcgRect cases[] = {
    { 110, 20, 5, 5 },          /* touching the right edge */
    { 0, 0, 10, 100 },          /* touching the left edge */
    { 20, 30, 0, 5 },           /* no width */
    { 20, 30, 5, -1 },          /* negative height */
    { G_MININT, 0, 5, 5 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GcgRect r = cases[i];

    g_assert_false (gcg__rect_clip (&r, &region));
    assert_rect (&r, cases[i].x, cases[i].y, cases[i].width, cases[i].height);
  }
}

/* x + width beyond G_MAXINT does not wrap around. */
static void
test_clip_overflow (void)
{
  GcgRect r = { G_MAXINT - 5, 0, G_MAXINT, G_MAXINT };

  g_assert_false (gcg__rect_clip_to_frame (&r, 640, 480));
  r = (GcgRect) { 600, 400, G_MAXINT, G_MAXINT };
  g_assert_true (gcg__rect_clip_to_frame (&r, 640, 480));
  assert_rect (&r, 600, 400, 40, 80);
  r = (GcgRect) { G_MININT, G_MININT, G_MAXINT, G_MAXINT };
  g_assert_false (gcg__rect_clip_to_frame (&r, 640, 480));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/frame-chain/config-defaults", test_config_defaults);
  g_test_add_func ("/frame-chain/config-validate", test_config_validate);
  g_test_add_func ("/frame-chain/output-size", test_output_size);
  g_test_add_func ("/frame-chain/backends", test_backends);
  g_test_add_func ("/frame-chain/stages-only-needs-cuda",
      test_stages_only_needs_cuda);
  g_test_add_func ("/frame-chain/rgba-identity", test_rgba_identity);
  g_test_add_func ("/frame-chain/swaps", test_swaps);
  g_test_add_func ("/frame-chain/gray-out", test_gray_out);
  g_test_add_func ("/frame-chain/nv12-bt601-limited", test_nv12_bt601_limited);
  g_test_add_func ("/frame-chain/yuv-bt709-full", test_yuv_bt709_full);
  g_test_add_func ("/frame-chain/crop", test_crop);
  g_test_add_func ("/frame-chain/resize", test_resize);
  g_test_add_func ("/frame-chain/bilinear-error", test_bilinear_error);
  g_test_add_func ("/frame-chain/letterbox", test_letterbox);
  g_test_add_func ("/frame-chain/adjust", test_adjust);
  g_test_add_func ("/frame-chain/tensor-layouts", test_tensor_layouts);
  g_test_add_func ("/frame-chain/float16", test_float16);
  g_test_add_func ("/frame-chain/batch-and-clipping", test_batch_and_clipping);
  g_test_add_func ("/frame-chain/refused", test_refused);
  g_test_add_func ("/frame-chain/odd-yuv", test_odd_yuv);
  g_test_add_func ("/frame-chain/yuv-out-pad", test_yuv_out_pad);
  g_test_add_func ("/frame-chain/rect-clip", test_clip);
  g_test_add_func ("/frame-chain/rect-clip-empty", test_clip_empty);
  g_test_add_func ("/frame-chain/rect-clip-overflow", test_clip_overflow);

  return g_test_run ();
}
