/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame chain's fused kernels (docs/frame-chain.md): each reads the
 * input, resamples, converts and adjusts in registers and writes the
 * output once, with no intermediate buffer.  Their one argument is the
 * device address of a GcgFrameKernelParams in a parameter block, so one
 * captured graph serves every frame.  The per-pixel code is shared with
 * the CPU reference (gcg-frame-math.h); this file only maps threads to
 * pixels and fetches the input bytes.  The 4:2:0 kernel runs one thread
 * per 2x2 block.  The video and tensor kernels run one thread per
 * GCG_FRAME_KP_PX_PER_THREAD consecutive output pixels of a row: the row's
 * values (source rows, y weight) and the struct's fields are loaded and
 * computed once for all of them, the input is read with __ldg (wider where
 * the row's alignment allows), and the pixels go out in one vector store
 * where aligned.  A warp covers consecutive pixels of one row, so writes
 * coalesce.
 *
 * Each kernel is instantiated once per input format and resize method
 * (the tensor kernel also per element type), the choices the inner
 * sampling loop depends on, and named after their GCG_FKP_* values:
 * gcg_frame_video_<in>_<resize>, gcg_frame_yuv420_<in>_<resize>,
 * gcg_frame_tensor_<in>_<resize>_<type>; e.g. gcg_frame_video_0_1 is NV12
 * in, bilinear.  gcg-frame-chain.c builds the name from its configuration.
 * The per-pixel functions see those values as constants and their
 * switches fold away; the remaining choices (video output format, tensor
 * layout and channels) are read from the struct, once per pixel.  The
 * float operations are the CPU reference's either way.
 */
#include "gcg-frame-math.h"

/* A template value of GCG_FK_ANY: read the choice from the struct. */
#define GCG_FK_ANY (-1)

template <int V>
static __device__ __forceinline__ int32_t
gcg_fk_pick (int32_t runtime)
{
  return V == GCG_FK_ANY ? runtime : (int32_t) V;
}

template <int IN, int RS, int TYPE>
static __device__ __forceinline__ GcgFmShape
gcg_fk_shape (const GcgFrameKernelParams *__restrict__ p)
{
  GcgFmShape s = gcg_fm_shape (p);

  s.in_format = gcg_fk_pick<IN> (s.in_format);
  s.resize = gcg_fk_pick<RS> (s.resize);
  s.tensor_type = gcg_fk_pick<TYPE> (s.tensor_type);
  return s;
}

#define GCG_FK_PX GCG_FRAME_KP_PX_PER_THREAD
static_assert (GCG_FK_PX == 4, "the vector stores take 4 pixels");

/* What every pixel of one output row of an item shares: the input rows
 * of its taps (bilinear: y0 and y1; nearest: the one row, twice) in each
 * plane, and the weight of y1.  gcg_fm_sample() computes the same per
 * pixel. */
struct GcgFkRow
{
  const uint8_t *r[2];          /* plane 0 */
  const uint8_t *c[2];          /* plane 1: NV12 UV, I420 U */
  const uint8_t *d[2];          /* plane 2: I420 V */
  float ay;
  bool inside;                  /* the row crosses the image area;
                                 * else the rest is unset */
  bool wide;                    /* rows aligned for one load per pixel:
                                 * NV12's UV pair, RGBA/BGRA's 4 bytes */
};

template <int IN, int RS>
static __device__ __forceinline__ GcgFkRow
gcg_fk_row (const GcgFrameKernelParams *__restrict__ p,
    const GcgFrameItem *__restrict__ it, int32_t y)
{
  GcgFkRow r = { };
  int32_t ly = y - it->py;
  int32_t sy[2];

  /* sw <= 0 makes every pixel padding, like gcg_fm_sample()'s lx test. */
  r.inside = !it->empty && ly >= 0 && ly < it->sh && it->sw > 0;
  if (!r.inside)
    return r;
  if (RS == GCG_FKP_NEAREST) {
    sy[0] = sy[1] = it->cy + gcg_fm_nearest_axis (ly, it->ry, it->ch);
  } else {
    int32_t y0, y1;

    r.ay = gcg_fm_bilinear_axis (ly, it->ry, it->ch, &y0, &y1);
    sy[0] = it->cy + y0;
    sy[1] = it->cy + y1;
  }
#pragma unroll
  for (int i = 0; i < 2; i++) {
    r.r[i] = gcg_fm_src_row (p, 0, sy[i]);
    if (IN == GCG_FKP_NV12 || IN == GCG_FKP_I420)
      r.c[i] = gcg_fm_src_row (p, 1, sy[i] >> 1);
    if (IN == GCG_FKP_I420)
      r.d[i] = gcg_fm_src_row (p, 2, sy[i] >> 1);
  }
  if (IN == GCG_FKP_NV12)
    r.wide = (((uintptr_t) r.c[0] | (uintptr_t) r.c[1]) & 1u) == 0;
  else if (IN == GCG_FKP_RGBA || IN == GCG_FKP_BGRA)
    r.wide = (((uintptr_t) r.r[0] | (uintptr_t) r.r[1]) & 3u) == 0;
  return r;
}

/* Step 4 for input pixel sx of tap row i: the bytes gcg_fm_read_rgb()
 * reads, fetched through the read-only cache, one 16-bit load for an
 * NV12 UV pair and one 32-bit load for an RGBA/BGRA pixel where aligned
 * (the same bytes, little endian); then the shared conversion. */
template <int IN>
static __device__ __forceinline__ void
gcg_fk_tap (const GcgFrameKernelParams *__restrict__ p, const GcgFkRow &r,
    int i, int32_t sx, float *rgb)
{
  uint8_t b0, b1 = 0, b2 = 0;

  if (IN == GCG_FKP_NV12) {
    const uint8_t *uv = r.c[i] + 2 * (sx >> 1);

    b0 = __ldg (r.r[i] + sx);
    if (r.wide) {
      unsigned short w = __ldg ((const unsigned short *) uv);

      b1 = (uint8_t) w;
      b2 = (uint8_t) (w >> 8);
    } else {
      b1 = __ldg (uv);
      b2 = __ldg (uv + 1);
    }
  } else if (IN == GCG_FKP_I420) {
    b0 = __ldg (r.r[i] + sx);
    b1 = __ldg (r.c[i] + (sx >> 1));
    b2 = __ldg (r.d[i] + (sx >> 1));
  } else if (IN == GCG_FKP_GRAY8) {
    b0 = __ldg (r.r[i] + sx);
  } else {
    int four = IN == GCG_FKP_RGBA || IN == GCG_FKP_BGRA;
    const uint8_t *px = r.r[i] + (four ? 4 : 3) * sx;

    if (four && r.wide) {
      unsigned int w = __ldg ((const unsigned int *) px);

      b0 = (uint8_t) w;
      b1 = (uint8_t) (w >> 8);
      b2 = (uint8_t) (w >> 16);
    } else {
      b0 = __ldg (px);
      b1 = __ldg (px + 1);
      b2 = __ldg (px + 2);
    }
  }
  gcg_fm_bytes_rgb (p, IN, b0, b1, b2, rgb);
}

/* gcg_fm_sample() for pixel x of a row prepared by gcg_fk_row(), with
 * the row's share hoisted: the same operations on the same bytes.  The
 * caller has handled rows outside the image area.  A pixel left or right
 * of it is sampled anyway at the nearest image column (a valid read) and
 * reported as padding: straight-line code per pixel lets the compiler
 * load the struct's fields once for all the thread's pixels. */
template <int IN, int RS>
static __device__ __forceinline__ int
gcg_fk_sample (const GcgFrameKernelParams *__restrict__ p,
    const GcgFrameItem *__restrict__ it, const GcgFkRow &r, int32_t x,
    float *rgb)
{
  int32_t lx = x - it->px;
  int padded = lx < 0 || lx >= it->sw;

  lx = lx < 0 ? 0 : (lx > it->sw - 1 ? it->sw - 1 : lx);
  if (RS == GCG_FKP_NEAREST) {
    gcg_fk_tap<IN> (p, r, 0,
        it->cx + gcg_fm_nearest_axis (lx, it->rx, it->cw), rgb);
  } else {
    int32_t x0, x1;
    float ax = gcg_fm_bilinear_axis (lx, it->rx, it->cw, &x0, &x1);
    float p00[3], p10[3], p01[3], p11[3];

    gcg_fk_tap<IN> (p, r, 0, it->cx + x0, p00);
    gcg_fk_tap<IN> (p, r, 0, it->cx + x1, p10);
    gcg_fk_tap<IN> (p, r, 1, it->cx + x0, p01);
    gcg_fk_tap<IN> (p, r, 1, it->cx + x1, p11);
    gcg_fm_bilinear_mix (p00, p10, p01, p11, ax, r.ay, rgb);
  }
  gcg_fm_adjust (p, rgb);
  return padded;
}

/* gcg_fk_sample() for the thread's GCG_FK_PX pixels from x: @padded
 * nonzero for padding (rgb then unset).  One branch on the row for all of
 * them keeps their code in one straight line.  Pixels past the row's end
 * (x + k >= width) are sampled as its last and never stored. */
template <int IN, int RS>
static __device__ __forceinline__ void
gcg_fk_sample_run (const GcgFrameKernelParams *__restrict__ p,
    const GcgFrameItem *__restrict__ it, const GcgFkRow &r, int32_t x,
    int32_t width, float (*rgb)[3], int *padded)
{
#pragma unroll
  for (int k = 0; k < GCG_FK_PX; k++) {
    rgb[k][0] = rgb[k][1] = rgb[k][2] = 0.0f;
    padded[k] = 1;
  }
  if (!r.inside)
    return;
#pragma unroll
  for (int k = 0; k < GCG_FK_PX; k++)
    padded[k] = gcg_fk_sample<IN, RS> (p, it, r, min (x + k, width - 1),
        rgb[k]);
}

/* RGBA, BGRA, RGB, BGR and GRAY8 outputs: GCG_FK_PX pixels per thread;
 * RGBA/BGRA rows take them in one 16-byte store where aligned. */
template <int IN, int RS>
static __device__ __forceinline__ void
gcg_fk_video (const GcgFrameKernelParams *__restrict__ p)
{
  int32_t x = (int32_t) (blockIdx.x * blockDim.x + threadIdx.x) * GCG_FK_PX;
  int32_t y = (int32_t) (blockIdx.y * blockDim.y + threadIdx.y);
  int32_t width = p->out_width;
  GcgFmShape s = gcg_fk_shape<IN, RS, GCG_FK_ANY> (p);
  const GcgFrameItem *it = &p->items[0];
  uint32_t word[GCG_FK_PX];
  float rgb[GCG_FK_PX][3];
  int padded[GCG_FK_PX];
  GcgFkRow r;
  uint8_t *row, *o;

  if (x >= width || y >= p->out_height)
    return;
  r = gcg_fk_row<IN, RS> (p, it, y);
  gcg_fk_sample_run<IN, RS> (p, it, r, x, width, rgb, padded);
#pragma unroll
  for (int k = 0; k < GCG_FK_PX; k++)
    word[k] = gcg_fm_video_word (p, s, padded[k], rgb[k]);
  row = gcg_fm_dst_row (p, 0, y);
  o = row + 4 * x;
  if ((s.out_format == GCG_FKP_RGBA || s.out_format == GCG_FKP_BGRA)
      && x + GCG_FK_PX <= width && ((uintptr_t) o & 15u) == 0) {
    *(uint4 *) (void *) o = make_uint4 (word[0], word[1], word[2], word[3]);
  } else {
#pragma unroll
    for (int k = 0; k < GCG_FK_PX; k++) {
      if (x + k < width)
        gcg_fm_video_put (s, row, x + k, word[k]);
    }
  }
}

/* NV12 and I420 outputs: one thread per 2x2 block, so each chroma sample
 * is computed and written exactly once. */
template <int IN, int RS>
static __device__ __forceinline__ void
gcg_fk_yuv420 (const GcgFrameKernelParams *__restrict__ p)
{
  int32_t bx = (int32_t) (blockIdx.x * blockDim.x + threadIdx.x);
  int32_t by = (int32_t) (blockIdx.y * blockDim.y + threadIdx.y);

  if (bx < (p->out_width + 1) / 2 && by < (p->out_height + 1) / 2)
    gcg_fm_yuv420_block (p, gcg_fk_shape<IN, RS, GCG_FK_ANY> (p), bx, by);
}

/* GCG_FK_PX consecutive elements from @index of a tensor, of which
 * @left are inside the row: one vector store where all are and the
 * address is aligned, else gcg_fm_tensor_store() each. */
template <int TYPE>
static __device__ __forceinline__ void
gcg_fk_tensor_run (const GcgFrameKernelParams *__restrict__ p, size_t index,
    const float *w, int32_t left)
{
  if (left >= GCG_FK_PX) {
    if (TYPE == GCG_FKP_FLOAT32) {
      float *o = (float *) (uintptr_t) p->dst[0] + index;

      if (((uintptr_t) o & 15u) == 0) {
        *(float4 *) (void *) o = make_float4 (w[0], w[1], w[2], w[3]);
        return;
      }
    } else if (TYPE == GCG_FKP_FLOAT16) {
      uint16_t *o = (uint16_t *) (uintptr_t) p->dst[0] + index;

      if (((uintptr_t) o & 7u) == 0) {
        *(uint2 *) (void *) o = make_uint2 (
            (uint32_t) gcg_fm_f16 (w[0]) | ((uint32_t) gcg_fm_f16 (w[1]) << 16),
            (uint32_t) gcg_fm_f16 (w[2]) | ((uint32_t) gcg_fm_f16 (w[3]) << 16));
        return;
      }
    } else {
      uint8_t *o = (uint8_t *) (uintptr_t) p->dst[0] + index;

      if (((uintptr_t) o & 3u) == 0) {
        *(uint32_t *) (void *) o = (uint32_t) gcg_fm_u8 (w[0])
            | ((uint32_t) gcg_fm_u8 (w[1]) << 8)
            | ((uint32_t) gcg_fm_u8 (w[2]) << 16)
            | ((uint32_t) gcg_fm_u8 (w[3]) << 24);
        return;
      }
    }
  }
#pragma unroll
  for (int k = 0; k < GCG_FK_PX; k++) {
    if (k < left)
      gcg_fm_tensor_store (p, TYPE, index + k, w[k]);
  }
}

/* Tensor outputs: GCG_FK_PX pixels per thread; grid.z is the item; items
 * beyond this frame's ROI count are left untouched (their threads leave
 * at once).  The element (n, c, y, x) is gcg_fm_tensor_pixel()'s. */
template <int IN, int RS, int TYPE>
static __device__ __forceinline__ void
gcg_fk_tensor (const GcgFrameKernelParams *__restrict__ p)
{
  int32_t n = (int32_t) blockIdx.z;
  int32_t x = (int32_t) (blockIdx.x * blockDim.x + threadIdx.x) * GCG_FK_PX;
  int32_t y = (int32_t) (blockIdx.y * blockDim.y + threadIdx.y);
  int32_t width = p->out_width;
  GcgFmShape s = gcg_fk_shape<IN, RS, TYPE> (p);
  const GcgFrameItem *it = &p->items[n];
  int nc = s.tensor_channels == GCG_FKP_CH_GRAY ? 1 : 3;
  size_t plane, pixel, base;
  float rgb[GCG_FK_PX][3], v[GCG_FK_PX][3];
  int padded[GCG_FK_PX];
  GcgFkRow r;

  if (n >= p->n_items || x >= width || y >= p->out_height)
    return;
  plane = (size_t) width * (size_t) p->out_height;
  pixel = (size_t) y * (size_t) width + (size_t) x;
  base = (size_t) n * (size_t) nc * plane;
  r = gcg_fk_row<IN, RS> (p, it, y);
  gcg_fk_sample_run<IN, RS> (p, it, r, x, width, rgb, padded);
#pragma unroll
  for (int k = 0; k < GCG_FK_PX; k++) {
    v[k][0] = v[k][1] = v[k][2] = 0.0f;
    gcg_fm_tensor_values (p, s, padded[k], rgb[k], v[k]);
  }
  if (s.tensor_layout == GCG_FKP_NCHW) {
    /* Constant channel indices (unrolled, bounded by nc) keep v[] in
     * registers. */
#pragma unroll
    for (int c = 0; c < 3; c++) {
      float w[GCG_FK_PX];

#pragma unroll
      for (int k = 0; k < GCG_FK_PX; k++)
        w[k] = v[k][c];
      if (c < nc)
        gcg_fk_tensor_run<TYPE> (p, base + (size_t) c * plane + pixel, w,
            width - x);
    }
  } else {
#pragma unroll
    for (int k = 0; k < GCG_FK_PX; k++) {
#pragma unroll
      for (int c = 0; c < 3; c++) {
        if (x + k < width && c < nc)
          gcg_fm_tensor_store (p, TYPE, base + (pixel + k) * nc + c,
              v[k][c]);
      }
    }
  }
}

/* The instantiations: every input format (0-6) and resize method (0-1),
 * times the tensor element types (0-2). */
#define GCG_FK_ENTRY(name, call) \
  extern "C" __global__ void __launch_bounds__ (256) \
  name (const GcgFrameKernelParams *__restrict__ p) { call (p); }

#define GCG_FK_TENSOR(IN, RS, T) \
  GCG_FK_ENTRY (gcg_frame_tensor_##IN##_##RS##_##T, \
      (gcg_fk_tensor<IN, RS, T>))
#define GCG_FK_KERNELS(IN, RS) \
  GCG_FK_ENTRY (gcg_frame_video_##IN##_##RS, (gcg_fk_video<IN, RS>)) \
  GCG_FK_ENTRY (gcg_frame_yuv420_##IN##_##RS, (gcg_fk_yuv420<IN, RS>)) \
  GCG_FK_TENSOR (IN, RS, 0) GCG_FK_TENSOR (IN, RS, 1) \
  GCG_FK_TENSOR (IN, RS, 2)
#define GCG_FK_KERNELS_IN(IN) GCG_FK_KERNELS (IN, 0) GCG_FK_KERNELS (IN, 1)

GCG_FK_KERNELS_IN (0)
GCG_FK_KERNELS_IN (1)
GCG_FK_KERNELS_IN (2)
GCG_FK_KERNELS_IN (3)
GCG_FK_KERNELS_IN (4)
GCG_FK_KERNELS_IN (5)
GCG_FK_KERNELS_IN (6)
