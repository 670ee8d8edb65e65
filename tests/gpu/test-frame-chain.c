/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame chain's CUDA backend against its CPU reference, on a real GPU:
 * every input format × video and tensor outputs × crop/downscale, nearest
 * upscale and letterbox at odd sizes, random input bytes, outputs compared
 * bit for bit (8-bit, float32 and float16 alike, gamma 1); gamma ≠ 1
 * within the documented tolerance; 50 replays with changing ROIs, values
 * and plane pointers, one capture; eager launches; one graph per stream;
 * an injected cuGraphLaunch fault; every driver entry point failing at
 * its first, second or third call while frames are processed, each frame
 * after it still right; refused parameters that leave the output alone.  Skips (TAP) without a driver.
 */
#include "gcg-gpu-fixture.h"

#include <math.h>
#include <string.h>

#define GUARD 256
#define SENTINEL 0xab

/* --- buffers ---------------------------------------------------------- */

/* Planes of a frame in one buffer; rows padded by @row_pad bytes. */
typedef struct
{
  gint stride[3];
  gsize offset[3];
  gsize size;
} Layout;

static void
layout_init (Layout *l, GcgPixelFormat format, guint w, guint h, guint row_pad)
{
  guint cw = (w + 1) / 2, ch = (h + 1) / 2;
  guint rows[3] = { h, ch, ch };
  guint bytes[3] = { w, 0, 0 };
  guint n = 1;

  switch (format) {
    case GCG_PIXEL_FORMAT_NV12:
      bytes[1] = 2 * cw;
      n = 2;
      break;
    case GCG_PIXEL_FORMAT_I420:
      bytes[1] = bytes[2] = cw;
      n = 3;
      break;
    case GCG_PIXEL_FORMAT_RGBA:
    case GCG_PIXEL_FORMAT_BGRA:
      bytes[0] = 4 * w;
      break;
    case GCG_PIXEL_FORMAT_RGB:
    case GCG_PIXEL_FORMAT_BGR:
      bytes[0] = 3 * w;
      break;
    default:
      break;
  }
  memset (l, 0, sizeof (*l));
  for (guint i = 0; i < n; i++) {
    l->stride[i] = (gint) (bytes[i] + row_pad);
    l->offset[i] = l->size;
    l->size += (gsize) l->stride[i] * rows[i];
  }
}

/* A host buffer and its device twin, both size + GUARD bytes. */
typedef struct
{
  gsize size;
  guint8 *host;
  CUdeviceptr dev;
} Buffer;

static void
buffer_init (Buffer *b, gsize size)
{
  b->size = size;
  b->host = g_malloc (size + GUARD);
  memset (b->host, SENTINEL, size + GUARD);
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &b->dev, size + GUARD));
  g_assert_true (GCG_CU_OK (NULL, cuMemcpyHtoD, b->dev, b->host, size + GUARD));
  /* A copy from pageable memory may still be in flight when it returns,
   * and the test stream does not wait for the legacy stream. */
  g_assert_true (GCG_CU_OK (NULL, cuCtxSynchronize));
}

static void
buffer_random (Buffer *b, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);

  for (gsize i = 0; i < b->size; i++)
    b->host[i] = (guint8) g_rand_int_range (rand, 0, 256);
  g_rand_free (rand);
  g_assert_true (GCG_CU_OK (NULL, cuMemcpyHtoD, b->dev, b->host, b->size));
  g_assert_true (GCG_CU_OK (NULL, cuCtxSynchronize));
}

static guint8 *
buffer_download (Buffer *b, Fixture *f)
{
  guint8 *out = g_malloc (b->size + GUARD);

  g_assert_true (gcg_stream_synchronize (f->stream, NULL));
  g_assert_true (GCG_CU_OK (NULL, cuMemcpyDtoH, out, b->dev, b->size + GUARD));
  return out;
}

static void
buffer_clear (Buffer *b)
{
  g_clear_pointer (&b->host, g_free);
  if (b->dev)
    GCG_CU_WARN (cuMemFree, b->dev);
  b->dev = 0;
}

static void
set_planes (guint64 *ptr, gint *stride, const Layout *l, guint64 base)
{
  for (guint i = 0; i < 3; i++) {
    ptr[i] = l->stride[i] ? base + l->offset[i] : 0;
    stride[i] = l->stride[i];
  }
}

/* --- one case --------------------------------------------------------- */

typedef struct
{
  GcgFrameChainConfig config;
  GcgFrameParams params;
  Layout in_layout, out_layout;
  Buffer in, out;
  GcgFrameChain *gpu, *cpu;
} Case;

static void
case_init (Case *k, Fixture *f, const GcgFrameChainConfig *config,
    const GcgFrameParams *params, guint32 seed)
{
  g_autoptr (GError) error = NULL;
  gsize out_size;

  memset (k, 0, sizeof (*k));
  k->config = *config;
  k->params = *params;
  layout_init (&k->in_layout, config->in_format, config->in_width,
      config->in_height, 64);
  buffer_init (&k->in, k->in_layout.size);
  buffer_random (&k->in, seed);
  if (config->output == GCG_OUTPUT_KIND_VIDEO) {
    layout_init (&k->out_layout, config->out_format, config->out_width,
        config->out_height, 32);
    out_size = k->out_layout.size;
  } else {
    out_size = gcg_frame_chain_config_get_output_size (config);
  }
  buffer_init (&k->out, out_size);
  k->gpu = gcg_frame_chain_new (config, GCG_BACKEND_CUDA, f->ctx, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcg_frame_chain_get_backend (k->gpu), ==, GCG_BACKEND_CUDA);
  k->cpu = gcg_frame_chain_new (config, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
}

static void
case_clear (Case *k)
{
  buffer_clear (&k->in);
  buffer_clear (&k->out);
  g_clear_object (&k->gpu);
  g_clear_object (&k->cpu);
}

/* Parameters with the case's planes: device or host addresses. */
static void
case_params (Case *k, gboolean device, GcgFrameParams *p)
{
  *p = k->params;
  set_planes (p->src, p->src_stride, &k->in_layout,
      device ? k->in.dev : (guint64) (guintptr) k->in.host);
  if (k->config.output == GCG_OUTPUT_KIND_VIDEO) {
    set_planes (p->dst, p->dst_stride, &k->out_layout,
        device ? k->out.dev : (guint64) (guintptr) k->out.host);
  } else {
    p->dst[0] = device ? k->out.dev : (guint64) (guintptr) k->out.host;
  }
}

static void
case_run_cpu (Case *k)
{
  g_autoptr (GError) error = NULL;
  GcgFrameParams p;

  case_params (k, FALSE, &p);
  g_assert_true (gcg_frame_chain_process (k->cpu, &p, NULL, &error));
  g_assert_no_error (error);
}

static void
case_run_gpu (Case *k, Fixture *f)
{
  g_autoptr (GError) error = NULL;
  GcgFrameParams p;

  case_params (k, TRUE, &p);
  g_assert_true (gcg_frame_chain_process (k->gpu, &p, f->stream, &error));
  g_assert_no_error (error);
}

static const gchar *
format_name (GcgPixelFormat format)
{
  static const gchar *names[] = { "NV12", "I420", "RGBA", "BGRA", "RGB", "BGR",
    "GRAY8" };

  return names[format];
}

static gchar *
describe (const GcgFrameChainConfig *c)
{
  static const gchar *types[] = { "f32", "f16", "u8" };
  static const gchar *chans[] = { "RGB", "BGR", "GRAY" };

  if (c->output == GCG_OUTPUT_KIND_VIDEO)
    return g_strdup_printf ("%s %ux%u -> %s %ux%u resize %d letterbox %d "
                            "matrix %d full %d",
        format_name (c->in_format), c->in_width, c->in_height,
        format_name (c->out_format), c->out_width, c->out_height, c->resize,
        c->letterbox, c->matrix, c->full_range);
  return g_strdup_printf ("%s %ux%u -> tensor %s %s %s %ux%u x%u resize %d "
                          "letterbox %d matrix %d full %d",
      format_name (c->in_format), c->in_width, c->in_height,
      c->tensor_layout == GCG_TENSOR_LAYOUT_NCHW ? "NCHW" : "NHWC",
      types[c->tensor_type], chans[c->tensor_channels], c->out_width,
      c->out_height, c->max_rois, c->resize, c->letterbox, c->matrix,
      c->full_range);
}

/* Bit-for-bit comparison of the whole buffer, guard included; on a
 * mismatch, says where and what before failing. */
static void
assert_same_bytes (const GcgFrameChainConfig *c, const guint8 *cpu,
    const guint8 *gpu, gsize size)
{
  g_autofree gchar *what = NULL;
  guint shown = 0;
  gsize count = 0;

  if (memcmp (cpu, gpu, size) == 0)
    return;
  what = describe (c);
  for (gsize i = 0; i < size; i++) {
    if (cpu[i] == gpu[i])
      continue;
    if (shown++ < 8)
      g_test_message ("%s: byte %" G_GSIZE_FORMAT ": cpu 0x%02x gpu 0x%02x",
          what, i, cpu[i], gpu[i]);
    count++;
  }
  g_error ("%s: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " bytes differ "
           "between the CPU reference and CUDA",
      what, count, size);
}

/* Runs the case on both backends and compares every byte. */
static void
case_compare (Case *k, Fixture *f)
{
  g_autofree guint8 *gpu = NULL;

  case_run_cpu (k);
  {
    g_autofree guint8 *before = buffer_download (&k->out, f);
    gsize bad = 0, first = 0;

    for (gsize i = 0; i < k->out.size + GUARD; i++) {
      if (before[i] != SENTINEL && bad++ == 0)
        first = i;
    }
    if (bad)
      g_test_message (
          "device output not all sentinel before the run: %" G_GSIZE_FORMAT
          " bytes, first at %" G_GSIZE_FORMAT " (0x%02x)",
          bad, first, before[first]);
  }
  case_run_gpu (k, f);
  gpu = buffer_download (&k->out, f);
  assert_same_bytes (&k->config, k->out.host, gpu, k->out.size + GUARD);
}

/* --- the matrix ------------------------------------------------------- */

typedef struct
{
  guint in_w, in_h, out_w, out_h;
  GcgResizeMethod resize;
  GcgLetterbox letterbox;
  GcgRect roi;                  /* width 0: whole frame */
} Geometry;

static const Geometry geometries[] = {
  /* crop + bilinear downscale, odd sizes */
  { 1279, 719, 417, 233, GCG_RESIZE_BILINEAR, GCG_LETTERBOX_NONE,
      { 101, 53, 1000, 600 } },
  /* nearest upscale of the whole frame */
  { 161, 97, 643, 359, GCG_RESIZE_NEAREST, GCG_LETTERBOX_NONE, { 0, 0, 0, 0 } },
  /* symmetric letterbox, bilinear, a crop across the right edge */
  { 1279, 719, 321, 215, GCG_RESIZE_BILINEAR, GCG_LETTERBOX_SYMMETRIC,
      { 200, 9, 1200, 700 } },
};

typedef struct
{
  GcgOutputKind output;
  GcgPixelFormat format;
  GcgTensorLayout layout;
  GcgTensorType type;
  GcgTensorChannels channels;
} Output;

static const Output outputs[] = {
  { GCG_OUTPUT_KIND_VIDEO, GCG_PIXEL_FORMAT_RGBA },
  { GCG_OUTPUT_KIND_VIDEO, GCG_PIXEL_FORMAT_BGR },
  { GCG_OUTPUT_KIND_VIDEO, GCG_PIXEL_FORMAT_GRAY8 },
  { GCG_OUTPUT_KIND_VIDEO, GCG_PIXEL_FORMAT_NV12 },
  { GCG_OUTPUT_KIND_VIDEO, GCG_PIXEL_FORMAT_I420 },
  { GCG_OUTPUT_KIND_TENSOR, 0, GCG_TENSOR_LAYOUT_NCHW, GCG_TENSOR_TYPE_FLOAT32,
      GCG_TENSOR_CHANNELS_RGB },
  { GCG_OUTPUT_KIND_TENSOR, 0, GCG_TENSOR_LAYOUT_NHWC, GCG_TENSOR_TYPE_UINT8,
      GCG_TENSOR_CHANNELS_BGR },
  { GCG_OUTPUT_KIND_TENSOR, 0, GCG_TENSOR_LAYOUT_NCHW, GCG_TENSOR_TYPE_FLOAT16,
      GCG_TENSOR_CHANNELS_GRAY },
};

static void
matrix_config (GcgFrameChainConfig *c, GcgPixelFormat in, const Output *o,
    const Geometry *g, guint variant)
{
  gcg_frame_chain_config_init (c);
  c->in_format = in;
  c->in_width = g->in_w;
  c->in_height = g->in_h;
  c->output = o->output;
  c->out_format = o->output == GCG_OUTPUT_KIND_VIDEO ? o->format
                                                     : GCG_PIXEL_FORMAT_RGBA;
  c->out_width = g->out_w;
  c->out_height = g->out_h;
  c->resize = g->resize;
  c->letterbox = g->letterbox;
  c->tensor_layout = o->layout;
  c->tensor_type = o->type;
  c->tensor_channels = o->channels;
  /* Alternate the matrices and ranges over the cases. */
  c->matrix = variant & 1 ? GCG_COLOR_MATRIX_BT709 : GCG_COLOR_MATRIX_BT601;
  c->full_range = (variant >> 1) & 1;
}

static void
matrix_params (GcgFrameParams *p, const GcgFrameChainConfig *c,
    const Geometry *g, guint variant)
{
  static const gfloat mean[3] = { 0.485f, 0.456f, 0.406f };
  static const gfloat std[3] = { 0.229f, 0.224f, 0.225f };

  gcg_frame_params_init (p);
  if (g->roi.width > 0) {
    p->rois[0] = g->roi;
    p->n_rois = 1;
  }
  if (c->output == GCG_OUTPUT_KIND_TENSOR
      && c->tensor_type == GCG_TENSOR_TYPE_FLOAT32)
    gcg_frame_params_set_mean_std (p, mean, std);
  else if (c->output == GCG_OUTPUT_KIND_TENSOR
      && c->tensor_type == GCG_TENSOR_TYPE_FLOAT16)
    p->scale[0] = 1.0f / 255.0f;
  p->pad[0] = 114;
  p->pad[1] = 20.5f;
  p->pad[2] = 250;
  p->pad[3] = 128;
  /* Every other case adjusts (gamma stays 1: exact comparison). */
  if (variant & 1) {
    p->gain = 1.1f;
    p->contrast = 0.9f;
    p->brightness = 0.03f;
  }
}

static void
test_matrix (Fixture *f, gconstpointer data)
{
  guint variant = 0;

  if (!f->ctx)
    return;
  for (GcgPixelFormat in = GCG_PIXEL_FORMAT_NV12; in <= GCG_PIXEL_FORMAT_GRAY8;
      in++) {
    for (gsize o = 0; o < G_N_ELEMENTS (outputs); o++) {
      for (gsize g = 0; g < G_N_ELEMENTS (geometries); g++, variant++) {
        GcgFrameChainConfig c;
        GcgFrameParams p;
        Case k;

        matrix_config (&c, in, &outputs[o], &geometries[g], variant);
        matrix_params (&p, &c, &geometries[g], variant);
        case_init (&k, f, &c, &p, 1000 + variant);
        case_compare (&k, f);
        case_clear (&k);
      }
    }
  }
  g_test_message ("%u cases identical on CPU and CUDA", variant);
}

/* Gamma ≠ 1: powf may differ between glibc and CUDA by a few ulp. */
static void
test_gamma_tolerance (Fixture *f, gconstpointer data)
{
  static const Output outs[] = {
    { GCG_OUTPUT_KIND_VIDEO, GCG_PIXEL_FORMAT_RGBA },
    { GCG_OUTPUT_KIND_TENSOR, 0, GCG_TENSOR_LAYOUT_NCHW,
        GCG_TENSOR_TYPE_FLOAT32, GCG_TENSOR_CHANNELS_RGB },
  };

  if (!f->ctx)
    return;
  for (gsize o = 0; o < G_N_ELEMENTS (outs); o++) {
    GcgFrameChainConfig c;
    GcgFrameParams p;
    Case k;
    g_autofree guint8 *gpu = NULL;

    matrix_config (&c, GCG_PIXEL_FORMAT_NV12, &outs[o], &geometries[0], 0);
    matrix_params (&p, &c, &geometries[0], 0);
    p.gamma = 0.45f;
    p.gain = 1.2f;
    case_init (&k, f, &c, &p, 77);
    case_run_cpu (&k);
    case_run_gpu (&k, f);
    gpu = buffer_download (&k.out, f);
    if (c.output == GCG_OUTPUT_KIND_VIDEO) {
      for (gsize i = 0; i < k.out.size + GUARD; i++)
        g_assert_cmpint (ABS ((gint) gpu[i] - (gint) k.out.host[i]), <=, 1);
    } else {
      const gfloat *a = (const gfloat *) k.out.host;
      const gfloat *b = (const gfloat *) gpu;

      for (gsize i = 0; i < k.out.size / 4; i++)
        g_assert_cmpfloat (fabsf (a[i] - b[i]), <=,
            1e-5f * MAX (1.0f, fabsf (a[i])));
      g_assert_cmpmem (k.out.host + k.out.size, GUARD, gpu + k.out.size, GUARD);
    }
    case_clear (&k);
  }
}

/* --- replay ----------------------------------------------------------- */

#define REPLAY_FRAMES 50

/* Frame i of the replay test: ROIs, values and input move every frame. */
static void
replay_params (GcgFrameParams *p, guint i)
{
  gcg_frame_params_init (p);
  p->n_rois = 1 + i % 3;
  for (guint r = 0; r < p->n_rois; r++)
    p->rois[r] = (GcgRect) { (gint) (7 * i + 40 * r) - 20, (gint) (3 * i),
      100 + (gint) (5 * i), 80 + (gint) (2 * i + r) };
  p->brightness = 0.01f * (gfloat) (i % 7) - 0.03f;
  p->contrast = 1.0f + 0.02f * (gfloat) (i % 5);
  p->pad[0] = (gfloat) i;
  p->scale[1] = 1.0f / 255.0f;
  p->offset[2] = -0.5f * (gfloat) i;
}

typedef struct
{
  GcgFrameChainConfig config;
  Buffer in[2];
  Layout in_layout;
  Buffer out[REPLAY_FRAMES];
  gsize out_size;
} Replay;

static void
replay_init (Replay *r)
{
  GcgFrameChainConfig *c = &r->config;

  gcg_frame_chain_config_init (c);
  c->in_format = GCG_PIXEL_FORMAT_NV12;
  c->in_width = 333;
  c->in_height = 199;
  c->output = GCG_OUTPUT_KIND_TENSOR;
  c->out_width = 64;
  c->out_height = 48;
  c->letterbox = GCG_LETTERBOX_SYMMETRIC;
  c->max_rois = 4;
  layout_init (&r->in_layout, c->in_format, c->in_width, c->in_height, 0);
  r->out_size = gcg_frame_chain_config_get_output_size (c);
  for (guint i = 0; i < 2; i++) {
    buffer_init (&r->in[i], r->in_layout.size);
    buffer_random (&r->in[i], 500 + i);
  }
  for (guint i = 0; i < REPLAY_FRAMES; i++)
    buffer_init (&r->out[i], r->out_size);
}

static void
replay_clear (Replay *r)
{
  for (guint i = 0; i < 2; i++)
    buffer_clear (&r->in[i]);
  for (guint i = 0; i < REPLAY_FRAMES; i++)
    buffer_clear (&r->out[i]);
}

/* Queues every frame without waiting (the ring of 8 parameter slots is
 * overtaken), then checks each frame's output against the CPU. */
static void
run_replay (Fixture *f, gboolean use_graph)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameChain) gpu = NULL;
  g_autoptr (GcgFrameChain) cpu = NULL;
  Replay r;

  replay_init (&r);
  gpu = gcg_frame_chain_new (&r.config, GCG_BACKEND_AUTO, f->ctx, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gcg_frame_chain_get_backend (gpu), ==, GCG_BACKEND_CUDA);
  gcg_frame_chain_set_use_graph (gpu, use_graph);
  cpu = gcg_frame_chain_new (&r.config, GCG_BACKEND_CPU, NULL, &error);
  for (guint i = 0; i < REPLAY_FRAMES; i++) {
    GcgFrameParams p;

    replay_params (&p, i);
    set_planes (p.src, p.src_stride, &r.in_layout, r.in[i % 2].dev);
    p.dst[0] = r.out[i].dev;
    g_assert_true (gcg_frame_chain_process (gpu, &p, f->stream, &error));
    g_assert_no_error (error);
    set_planes (p.src, p.src_stride, &r.in_layout,
        (guint64) (guintptr) r.in[i % 2].host);
    p.dst[0] = (guint64) (guintptr) r.out[i].host;
    g_assert_true (gcg_frame_chain_process (cpu, &p, NULL, &error));
  }
  for (guint i = 0; i < REPLAY_FRAMES; i++) {
    g_autofree guint8 *out = buffer_download (&r.out[i], f);

    assert_same_bytes (&r.config, r.out[i].host, out, r.out_size + GUARD);
  }
  g_assert_cmpuint (gcg_frame_chain_get_capture_count (gpu), ==,
      use_graph ? 1 : 0);
  g_assert_cmpuint (gcg_frame_chain_get_replay_count (gpu), ==,
      use_graph ? REPLAY_FRAMES : 0);
  g_assert_cmpuint (gcg_frame_chain_get_eager_count (gpu), ==,
      use_graph ? 0 : REPLAY_FRAMES);
  replay_clear (&r);
}

static void
test_replay (Fixture *f, gconstpointer data)
{
  if (!f->ctx)
    return;
  run_replay (f, TRUE);
}

static void
test_eager (Fixture *f, gconstpointer data)
{
  if (!f->ctx)
    return;
  run_replay (f, FALSE);
}

/* A second stream gets its own parameter block and graph. */
static void
test_two_streams (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgStream) other = NULL;
  GcgFrameChainConfig c;
  GcgFrameParams p, q;
  Case k;
  g_autofree guint8 *first = NULL;
  g_autofree guint8 *second = NULL;

  if (!f->ctx)
    return;
  other = gcg_stream_new (f->ctx, &error);
  g_assert_no_error (error);
  matrix_config (&c, GCG_PIXEL_FORMAT_RGBA, &outputs[0], &geometries[1], 0);
  matrix_params (&p, &c, &geometries[1], 0);
  case_init (&k, f, &c, &p, 9);
  case_run_cpu (&k);
  case_params (&k, TRUE, &q);
  g_assert_true (gcg_frame_chain_process (k.gpu, &q, f->stream, &error));
  g_assert_true (gcg_stream_synchronize (f->stream, NULL));
  first = buffer_download (&k.out, f);
  /* Back to sentinel, so the second stream must write the image again
   * and must leave the row padding alone. */
  g_assert_true (GCG_CU_OK (NULL, cuMemsetD8Async, k.out.dev, SENTINEL,
      k.out.size, gcg__stream_get_cu (other)));
  g_assert_true (gcg_frame_chain_process (k.gpu, &q, other, &error));
  g_assert_no_error (error);
  g_assert_true (gcg_stream_synchronize (other, NULL));
  second = buffer_download (&k.out, f);
  assert_same_bytes (&c, k.out.host, first, k.out.size + GUARD);
  assert_same_bytes (&c, k.out.host, second, k.out.size + GUARD);
  g_assert_cmpuint (gcg_frame_chain_get_capture_count (k.gpu), ==, 2);
  g_assert_cmpuint (gcg_frame_chain_get_replay_count (k.gpu), ==, 2);
  /* Back on the first stream: replay only. */
  g_assert_true (gcg_frame_chain_process (k.gpu, &q, f->stream, &error));
  g_assert_cmpuint (gcg_frame_chain_get_capture_count (k.gpu), ==, 2);
  g_assert_true (gcg_stream_synchronize (f->stream, NULL));
  case_clear (&k);
}

/* --- failures --------------------------------------------------------- */

static void
test_launch_fault (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  GcgFrameChainConfig c;
  GcgFrameParams p, q;
  Case k;
  g_autofree guint8 *gpu = NULL;

  if (!f->ctx)
    return;
  matrix_config (&c, GCG_PIXEL_FORMAT_NV12, &outputs[5], &geometries[2], 0);
  matrix_params (&p, &c, &geometries[2], 0);
  case_init (&k, f, &c, &p, 11);
  case_params (&k, TRUE, &q);
  g_assert_true (gcg_fault_inject ("cuGraphLaunch:1", NULL));
  g_assert_false (gcg_frame_chain_process (k.gpu, &q, f->stream, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
  g_assert_nonnull (strstr (error->message, "cuGraphLaunch"));
  g_clear_error (&error);
  g_assert_cmpuint (gcg_frame_chain_get_capture_count (k.gpu), ==, 1);
  g_assert_cmpuint (gcg_frame_chain_get_replay_count (k.gpu), ==, 0);
  /* The next frame replays the graph captured before the fault. */
  case_compare (&k, f);
  g_assert_cmpuint (gcg_frame_chain_get_capture_count (k.gpu), ==, 1);
  g_assert_cmpuint (gcg_frame_chain_get_replay_count (k.gpu), ==, 1);
  /* And once more, after a fault on a chain that had already replayed. */
  g_assert_true (gcg_fault_inject ("cuGraphLaunch:1", NULL));
  g_assert_false (gcg_frame_chain_process (k.gpu, &q, f->stream, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
  g_clear_error (&error);
  g_assert_true (gcg_frame_chain_process (k.gpu, &q, f->stream, &error));
  g_assert_no_error (error);
  gpu = buffer_download (&k.out, f);
  assert_same_bytes (&c, k.out.host, gpu, k.out.size + GUARD);
  g_assert_cmpuint (gcg_frame_chain_get_replay_count (k.gpu), ==, 2);
  case_clear (&k);
}

/* One entry point failing at its @nth call during three frames: each frame
 * succeeds or fails with a GError; afterwards the chain is right again.
 * Returns how many frames failed. */
static guint
sweep_one (Fixture *f, const GcgFrameChainConfig *c, const GcgFrameParams *p,
    const gchar *fn, guint nth)
{
  g_autofree gchar *spec = g_strdup_printf ("%s:%u", fn, nth);
  GcgFrameParams q;
  guint failed = 0;
  Case k;

  case_init (&k, f, c, p, 13);
  case_params (&k, TRUE, &q);
  g_assert_true (gcg_fault_inject (spec, NULL));
  for (guint frame = 0; frame < 3; frame++) {
    g_autoptr (GError) error = NULL;

    q.frame_number = frame;
    if (gcg_frame_chain_process (k.gpu, &q, f->stream, &error))
      continue;
    g_assert_nonnull (error);
    g_assert_true (error->domain == GCG_ERROR);
    g_assert_cmpuint (strlen (error->message), >, 0);
    if (failed++ == 0)
      g_test_message ("%s: %s", spec, error->message);
  }
  g_assert_true (gcg_fault_inject (NULL, NULL));
  /* Whatever the fault left queued is done before the comparison. */
  (void) gcg_stream_synchronize (f->stream, NULL);
  case_compare (&k, f);
  case_clear (&k);
  return failed;
}

static void
test_fault_sweep (Fixture *f, gconstpointer data)
{
  GcgFrameChainConfig c;
  GcgFrameParams p;
  GLogLevelFlags fatal;
  guint hit = 0, failed_frames = 0;

  if (!f->ctx)
    return;
  matrix_config (&c, GCG_PIXEL_FORMAT_NV12, &outputs[5], &geometries[2], 0);
  matrix_params (&p, &c, &geometries[2], 0);
  /* Cleanup calls failing under injection warn; criticals stay fatal.
   * (A fatal handler would not do: GLib still prints TAP's "Bail out!".) */
  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  for (GcgCudaId id = 0; id < GCG_CUDA_N_FUNCS; id++) {
    for (guint nth = 1; nth <= 3; nth++) {
      guint failed = sweep_one (f, &c, &p, gcg__cuda_func_name (id), nth);

      hit += failed > 0;
      failed_frames += failed;
    }
  }
  g_log_set_always_fatal (fatal);
  g_test_message ("%u of %u injected faults failed a frame (%u frames); "
                  "every chain was right afterwards",
      hit, 3 * GCG_CUDA_N_FUNCS, failed_frames);
  /* The frame path makes a dozen kinds of calls; a sweep where almost
   * nothing fired would prove nothing. */
  g_assert_cmpuint (hit, >=, 10);
}

static void
test_refused (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  GcgFrameChainConfig c;
  GcgFrameParams p, q;
  Case k;
  g_autofree guint8 *gpu = NULL;

  if (!f->ctx)
    return;
  matrix_config (&c, GCG_PIXEL_FORMAT_I420, &outputs[3], &geometries[0], 0);
  matrix_params (&p, &c, &geometries[0], 0);
  case_init (&k, f, &c, &p, 12);
  case_params (&k, TRUE, &q);
  q.gain = NAN;
  g_assert_false (gcg_frame_chain_process (k.gpu, &q, f->stream, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  case_params (&k, TRUE, &q);
  q.src_stride[2] = 1;
  g_assert_false (gcg_frame_chain_process (k.gpu, &q, f->stream, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  case_params (&k, TRUE, &q);
  q.rois[0] = (GcgRect) { -500, 0, 400, 10 };
  g_assert_false (gcg_frame_chain_process (k.gpu, &q, f->stream, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* Nothing ran: the output is still all sentinel. */
  gpu = buffer_download (&k.out, f);
  for (gsize i = 0; i < k.out.size + GUARD; i++)
    g_assert_cmphex (gpu[i], ==, SENTINEL);
  g_assert_cmpuint (gcg_frame_chain_get_capture_count (k.gpu), ==, 0);
  g_assert_cmpuint (gcg_frame_chain_get_replay_count (k.gpu), ==, 0);
  /* A good frame after the refused ones. */
  case_compare (&k, f);
  case_clear (&k);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

#define ADD(path, fn) \
  g_test_add (path, Fixture, NULL, fixture_setup, fn, fixture_teardown)
  ADD ("/frame-chain/matrix", test_matrix);
  ADD ("/frame-chain/gamma-tolerance", test_gamma_tolerance);
  ADD ("/frame-chain/replay", test_replay);
  ADD ("/frame-chain/eager", test_eager);
  ADD ("/frame-chain/two-streams", test_two_streams);
  ADD ("/frame-chain/launch-fault", test_launch_fault);
  ADD ("/frame-chain/fault-sweep", test_fault_sweep);
  ADD ("/frame-chain/refused", test_refused);
#undef ADD

  return g_test_run ();
}
