/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The per-pixel arithmetic of the frame chain (docs/frame-chain.md), as
 * static inline functions compiled both by gcc (the CPU reference,
 * lib/frame/gcg-frame-cpu.c) and by nvcc
 * (lib/frame/kernels/gcg-frame-kernels.cu).
 * One piece of code for both backends: with contraction off on both sides
 * (-ffp-contract=off, -fmad=false) and no fast math, every operation is
 * the same IEEE float32 operation in the same order, so the results agree
 * bit for bit (powf for gamma != 1 is the one exception).  Bilinear
 * weighs the input bytes in integers (fixed point, GCG_FM_WBITS), which
 * every backend computes alike by construction, and in fewer
 * instructions than float.  Where the GPU has one instruction for what
 * the reference spells out (gcg_fm_u8(), gcg_fm_f16()), the two forms
 * are the same function of their input.
 *
 * Keep every expression in the order frame-chain.md writes it: a reordered
 * sum is a different result.
 */
#ifndef GCG_FRAME_MATH_H
#define GCG_FRAME_MATH_H

#include "gcg-frame-kernel-params.h"

#ifdef __CUDACC__
#define GCG_FM_FN static __host__ __device__ __forceinline__
#define GCG_FM_FLOAT_BITS(f) __float_as_uint (f)
#else
#include <math.h>
#include <stddef.h>
#define GCG_FM_FN static inline
static inline uint32_t
gcg_fm_float_bits (float f)
{
  union
  {
    float f;
    uint32_t u;
  } v;

  v.f = f;
  return v.u;
}
#define GCG_FM_FLOAT_BITS(f) gcg_fm_float_bits (f)
#endif

/* Packed 32-bit pixel stores assume the byte order of every GPU. */
#if defined(__CUDACC__) \
    || (defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define GCG_FM_LITTLE_ENDIAN 1
#else
#define GCG_FM_LITTLE_ENDIAN 0
#endif

/* The configuration values that choose code paths (the GCG_FKP_* enums).
 * The CPU reference fills it from the struct (gcg_fm_shape()); each CUDA
 * kernel is instantiated for one combination and passes constants, so
 * every switch on these folds away at compile time.  Either way the same
 * functions run the same float operations: only the branching differs. */
typedef struct
{
  int32_t in_format;
  int32_t resize;
  int32_t out_format;
  int32_t tensor_layout;
  int32_t tensor_type;
  int32_t tensor_channels;
} GcgFmShape;

GCG_FM_FN GcgFmShape
gcg_fm_shape (const GcgFrameKernelParams *p)
{
  GcgFmShape s;

  s.in_format = p->in_format;
  s.resize = p->resize;
  s.out_format = p->out_format;
  s.tensor_layout = p->tensor_layout;
  s.tensor_type = p->tensor_type;
  s.tensor_channels = p->tensor_channels;
  return s;
}

GCG_FM_FN uint8_t *
gcg_fm_dst_row (const GcgFrameKernelParams *p, int plane, int32_t y)
{
  return (uint8_t *) (uintptr_t) (p->dst[plane]
      + (uint64_t) ((int64_t) y * p->dst_stride[plane]));
}

/* Round half away from zero and saturate to 0-255; NaN gives 0.  Only
 * v > 0 reaches the rounding, where floorf (v + 0.5f) is half-away.
 * The GPU's saturating conversion to u8 (floor mode) computes the same
 * from v + 0.5f in one instruction: NaN gives 0, v <= 0 a floor of at
 * most 0, v >= 255 one of at least 255, and in between floorf. */
GCG_FM_FN uint8_t
gcg_fm_u8 (float v)
{
#ifdef __CUDA_ARCH__
  uint32_t r;

  asm ("cvt.rmi.sat.u8.f32 %0, %1;" : "=r"(r) : "f"(v + 0.5f));
  return (uint8_t) r;
#else
  if (!(v > 0.0f))
    return 0;
  if (v >= 255.0f)
    return 255;
  return (uint8_t) floorf (v + 0.5f);
#endif
}

/* floorf (v) as an integer, for v within int32 (never NaN here): one
 * conversion in floor mode on the GPU. */
GCG_FM_FN int32_t
gcg_fm_floor_i32 (float v)
{
#ifdef __CUDA_ARCH__
  return __float2int_rd (v);
#else
  return (int32_t) floorf (v);
#endif
}

/* float32 -> float16, round to nearest even (what __float2half_rn does for
 * every non-NaN input; NaN becomes the quiet NaN 0x7e00).  Integer-only,
 * so host and device give the same bits. */
GCG_FM_FN uint16_t
gcg_fm_f16 (float f)
{
#ifdef __CUDA_ARCH__
  /* The hardware conversion rounds every non-NaN alike, in one
   * instruction; only its NaN differs. */
  uint16_t h;

  if (f != f)
    return (uint16_t) (((GCG_FM_FLOAT_BITS (f) >> 16) & 0x8000u) | 0x7e00u);
  asm ("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
#else
  uint32_t x = GCG_FM_FLOAT_BITS (f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7fffffffu;
  uint32_t h, rem, half;

  if (ax >= 0x7f800000u)
    return (uint16_t) (sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
  /* 65520 and above round to infinity. */
  if (ax >= 0x477ff000u)
    return (uint16_t) (sign | 0x7c00u);
  if (ax < 0x38800000u) {
    /* Below 2^-14: a subnormal half (units of 2^-24), or zero; 2^-25
     * itself is a tie that goes to the even zero. */
    uint32_t mant = (ax & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - (ax >> 23);

    if (ax <= 0x33000000u)
      return (uint16_t) sign;
    h = mant >> shift;
    rem = mant & ((1u << shift) - 1u);
    half = 1u << (shift - 1u);
  } else {
    /* Rebias the exponent from 127 to 15 and keep 10 mantissa bits. */
    h = (ax >> 13) - (112u << 10);
    rem = ax & 0x1fffu;
    half = 0x1000u;
  }
  /* A carry out of the mantissa correctly bumps the exponent. */
  if (rem > half || (rem == half && (h & 1u)))
    h++;
  return (uint16_t) (sign | h);
#endif
}

/* Full-range luma of RGB in 0-255: (Kr R + Kg G) + Kb B. */
GCG_FM_FN float
gcg_fm_luma (const GcgFrameKernelParams *p, const float *rgb)
{
  return p->kr * rgb[0] + p->kg * rgb[1] + p->kb * rgb[2];
}

/* A byte of the input: through the read-only data cache on the GPU. */
#ifdef __CUDACC__
#define GCG_FM_LOAD(ptr) __ldg (ptr)
#else
#define GCG_FM_LOAD(ptr) (*(ptr))
#endif

/* Bilinear's fixed point: a weight is an integer in 1/GCG_FM_WONE, so a
 * sample, bytes weighed along both axes, is an integer in
 * 1/GCG_FM_WONE^2 of a level, below 255 * 2^24 < 2^32 (uint32). */
#define GCG_FM_WBITS 12
#define GCG_FM_WONE (1 << GCG_FM_WBITS)
/* One level in a bilinear sample's units, and one such unit in levels. */
#define GCG_FM_FIXED_ONE 16777216.0f
#define GCG_FM_FIXED_UNIT (1.0f / 16777216.0f)

/* Step 5's matrix: one YUV sample as RGB float 0-255.  The sample is in
 * units of @unit levels (1 for bytes, GCG_FM_FIXED_UNIT for a bilinear
 * sample; @one is 1 / @unit): the offsets are scaled up and the scales
 * down instead of the sample, the same floats (scaling by a power of two
 * is exact and commutes with rounding) in three fewer multiplies. */
GCG_FM_FN void
gcg_fm_yuv_rgb (const GcgFrameKernelParams *p, float y, float u, float v,
    float one, float unit, float *rgb)
{
  y = (y - p->in_y_off * one) * (p->in_y_scale * unit);
  u = (u - 128.0f * one) * (p->in_c_scale * unit);
  v = (v - 128.0f * one) * (p->in_c_scale * unit);
  rgb[0] = y + p->crv * v;
  rgb[1] = y - p->cgu * u - p->cgv * v;
  rgb[2] = y + p->cbu * u;
}

/* The rows step 4 reads for input row @sy: the luma (or packed) row and,
 * for YUV inputs, the chroma rows of its 2x2 block (NULL otherwise). */
typedef struct
{
  const uint8_t *row;
  const uint8_t *c1;
  const uint8_t *c2;
} GcgFmSrcRows;

/* Row @y of a plane; 64-bit offsets, as y · stride may pass 2 GiB. */
GCG_FM_FN const uint8_t *
gcg_fm_src_row (const GcgFrameKernelParams *p, int plane, int32_t y)
{
  return (const uint8_t *) (uintptr_t) (p->src[plane]
      + (uint64_t) ((int64_t) y * p->src_stride[plane]));
}

GCG_FM_FN GcgFmSrcRows
gcg_fm_src_rows (const GcgFrameKernelParams *p, int32_t in_format, int32_t sy)
{
  GcgFmSrcRows r;

  r.row = gcg_fm_src_row (p, 0, sy);
  r.c1 = r.c2 = NULL;
  if (in_format == GCG_FKP_NV12 || in_format == GCG_FKP_I420)
    r.c1 = gcg_fm_src_row (p, 1, sy >> 1);
  if (in_format == GCG_FKP_I420)
    r.c2 = gcg_fm_src_row (p, 2, sy >> 1);
  return r;
}

/* Step 4: input pixel @sx (absolute) of the rows @r in the input's own
 * terms, as integers: its Y, U and V bytes for YUV inputs, R, G and B
 * otherwise (gray three times).  gcg_fm_to_rgb() makes it RGB. */
GCG_FM_FN void
gcg_fm_read_at (int32_t in_format, GcgFmSrcRows r, int32_t sx, uint32_t *v)
{
  const uint8_t *px;

  switch (in_format) {
    case GCG_FKP_NV12:
      px = r.c1 + 2 * (sx >> 1);
      v[0] = GCG_FM_LOAD (r.row + sx);
      v[1] = GCG_FM_LOAD (px);
      v[2] = GCG_FM_LOAD (px + 1);
      break;
    case GCG_FKP_I420:
      v[0] = GCG_FM_LOAD (r.row + sx);
      v[1] = GCG_FM_LOAD (r.c1 + (sx >> 1));
      v[2] = GCG_FM_LOAD (r.c2 + (sx >> 1));
      break;
    case GCG_FKP_RGBA:
    case GCG_FKP_RGB:
      px = r.row + (in_format == GCG_FKP_RGBA ? 4 : 3) * sx;
      v[0] = GCG_FM_LOAD (px);
      v[1] = GCG_FM_LOAD (px + 1);
      v[2] = GCG_FM_LOAD (px + 2);
      break;
    case GCG_FKP_BGRA:
    case GCG_FKP_BGR:
      px = r.row + (in_format == GCG_FKP_BGRA ? 4 : 3) * sx;
      v[0] = GCG_FM_LOAD (px + 2);
      v[1] = GCG_FM_LOAD (px + 1);
      v[2] = GCG_FM_LOAD (px);
      break;
    default:
      v[0] = v[1] = v[2] = GCG_FM_LOAD (r.row + sx);
      break;
  }
}

/* Step 5's conversion: a sample gcg_fm_read_at() read (@fixed false), or
 * one interpolated between such samples (@fixed true: in
 * GCG_FM_FIXED_UNIT), as RGB float 0-255.  The matrix is linear, so
 * interpolating before it is interpolating the RGB it gives: bilinear
 * converts once per output pixel instead of once per tap, and weighs
 * integers.  A sample below 2^32 becomes the nearest float on both
 * backends. */
GCG_FM_FN void
gcg_fm_to_rgb (const GcgFrameKernelParams *p, int32_t in_format, int fixed,
    const uint32_t *v, float *rgb)
{
  float one = fixed ? GCG_FM_FIXED_ONE : 1.0f;
  float unit = fixed ? GCG_FM_FIXED_UNIT : 1.0f;

  if (in_format == GCG_FKP_NV12 || in_format == GCG_FKP_I420) {
    gcg_fm_yuv_rgb (p, (float) v[0], (float) v[1], (float) v[2], one, unit,
        rgb);
    return;
  }
  rgb[0] = (float) v[0] * unit;
  rgb[1] = (float) v[1] * unit;
  rgb[2] = (float) v[2] * unit;
}

/* Step 4: one input pixel (absolute coordinates) in the input's own
 * terms (gcg_fm_read_at()). */
GCG_FM_FN void
gcg_fm_read (const GcgFrameKernelParams *p, int32_t in_format, int32_t sx,
    int32_t sy, uint32_t *v)
{
  gcg_fm_read_at (in_format, gcg_fm_src_rows (p, in_format, sy), sx, v);
}

GCG_FM_FN int32_t
gcg_fm_clamp (int32_t v, int32_t hi)
{
  return v < 0 ? 0 : (v > hi ? hi : v);
}

/* Step 3, one axis of bilinear: the two neighbours (relative to the crop)
 * and the weight of the second, in 1/GCG_FM_WONE.  The position in
 * 1/GCG_FM_WONE of a pixel, rounded,
 *   q = floor (((float) l + 0.5f) * (ratio * WONE) - (WONE / 2 - 0.5f)),
 * is WONE times the float position ((l + 0.5) ratio - 0.5) up to one
 * float rounding, plus a half for the rounding: its integer part is the
 * first neighbour, its fraction the weight (an arithmetic shift, so -1
 * left of the first column, clamped like any). */
GCG_FM_FN uint32_t
gcg_fm_bilinear_axis (int32_t l, float ratio, int32_t size, int32_t *i0,
    int32_t *i1)
{
  int32_t q =
      gcg_fm_floor_i32 (((float) l + 0.5f) * (ratio * (float) GCG_FM_WONE)
          - ((float) (GCG_FM_WONE / 2) - 0.5f));
  int32_t i = q >> GCG_FM_WBITS;

  *i0 = gcg_fm_clamp (i, size - 1);
  /* l >= 0, so q >= -WONE / 2 and i >= -1: i + 1 needs no lower bound. */
  *i1 = i + 1 > size - 1 ? size - 1 : i + 1;
  return (uint32_t) q & (GCG_FM_WONE - 1);
}

/* Step 3, one axis of nearest. */
GCG_FM_FN int32_t
gcg_fm_nearest_axis (int32_t l, float ratio, int32_t size)
{
  int32_t i = (int32_t) floorf (((float) l + 0.5f) * ratio);

  return i > size - 1 ? size - 1 : i;
}

/* Step 5's interpolation along one axis, in fixed point:
 * a (WONE - w) + b w per channel, horizontally on each of the two rows
 * (bytes in, below 2^20 out), then vertically between them (below 2^32
 * out).  Integer, so exact: no order to keep. */
GCG_FM_FN void
gcg_fm_lerp3 (const uint32_t *a, const uint32_t *b, uint32_t w, uint32_t *out)
{
  for (int c = 0; c < 3; c++)
    out[c] = a[c] * (GCG_FM_WONE - w) + b[c] * w;
}

/* Step 5, bilinear. */
GCG_FM_FN void
gcg_fm_bilinear (const GcgFrameKernelParams *p, int32_t in_format,
    const GcgFrameItem *it, int32_t lx, int32_t ly, float *rgb)
{
  int32_t x0, x1, y0, y1;
  uint32_t ax = gcg_fm_bilinear_axis (lx, it->rx, it->cw, &x0, &x1);
  uint32_t ay = gcg_fm_bilinear_axis (ly, it->ry, it->ch, &y0, &y1);
  uint32_t p00[3], p10[3], p01[3], p11[3], top[3], bottom[3], v[3];

  gcg_fm_read (p, in_format, it->cx + x0, it->cy + y0, p00);
  gcg_fm_read (p, in_format, it->cx + x1, it->cy + y0, p10);
  gcg_fm_read (p, in_format, it->cx + x0, it->cy + y1, p01);
  gcg_fm_read (p, in_format, it->cx + x1, it->cy + y1, p11);
  gcg_fm_lerp3 (p00, p10, ax, top);
  gcg_fm_lerp3 (p01, p11, ax, bottom);
  gcg_fm_lerp3 (top, bottom, ay, v);
  gcg_fm_to_rgb (p, in_format, 1, v, rgb);
}

/* Step 6, skipped as a whole when every value is the identity, so that
 * v stays bit for bit what the sampling gave. */
GCG_FM_FN void
gcg_fm_adjust (const GcgFrameKernelParams *p, float *rgb)
{
  if (!p->apply_adjust)
    return;
  for (int c = 0; c < 3; c++) {
    float t = rgb[c] / 255.0f;

    t = t * p->gain;
    t = (t - 0.5f) * p->contrast + 0.5f + p->brightness;
    if (p->gamma != 1.0f) {
      t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
      t = powf (t, p->gamma);
    }
    rgb[c] = t * 255.0f;
  }
}

/* Steps 2-6 for output pixel (x, y) of an item: the adjusted RGB, or
 * nonzero when the pixel is padding (rgb then untouched). */
GCG_FM_FN int
gcg_fm_sample (const GcgFrameKernelParams *p, GcgFmShape s,
    const GcgFrameItem *it, int32_t x, int32_t y, float *rgb)
{
  int32_t lx = x - it->px;
  int32_t ly = y - it->py;

  if (it->empty || lx < 0 || ly < 0 || lx >= it->sw || ly >= it->sh)
    return 1;
  if (s.resize == GCG_FKP_NEAREST) {
    uint32_t v[3];

    gcg_fm_read (p, s.in_format,
        it->cx + gcg_fm_nearest_axis (lx, it->rx, it->cw),
        it->cy + gcg_fm_nearest_axis (ly, it->ry, it->ch), v);
    gcg_fm_to_rgb (p, s.in_format, 0, v, rgb);
  } else {
    gcg_fm_bilinear (p, s.in_format, it, lx, ly, rgb);
  }
  gcg_fm_adjust (p, rgb);
  return 0;
}

/* Step 7, the padding of a video output: the RGBA colour pad[]. */
GCG_FM_FN uint8_t
gcg_fm_video_pad (const GcgFrameKernelParams *p, float *rgb)
{
  rgb[0] = p->pad[0];
  rgb[1] = p->pad[1];
  rgb[2] = p->pad[2];
  return gcg_fm_u8 (p->pad[3]);
}

/* Step 7, RGBA and BGRA outputs: one pixel's four bytes as the 32-bit
 * word they make in memory (little endian). */
GCG_FM_FN uint32_t
gcg_fm_video_word (GcgFmShape s, const float *rgb, uint8_t alpha)
{
  int swap = s.out_format == GCG_FKP_BGRA;
  /* Selects, not rgb[swap ? 2 : 0]: a computed index can put rgb[] in
   * local memory on the GPU. */
  uint8_t c0 = gcg_fm_u8 (swap ? rgb[2] : rgb[0]);
  uint8_t c1 = gcg_fm_u8 (rgb[1]);
  uint8_t c2 = gcg_fm_u8 (swap ? rgb[0] : rgb[2]);

  return (uint32_t) c0 | ((uint32_t) c1 << 8) | ((uint32_t) c2 << 16)
      | ((uint32_t) alpha << 24);
}

/* Step 7, video RGB-type and GRAY8 outputs: pixel x of @row from its RGB
 * (GRAY8 takes its luma). */
GCG_FM_FN void
gcg_fm_video_store (const GcgFrameKernelParams *p, GcgFmShape s, uint8_t *row,
    int32_t x, const float *rgb, uint8_t alpha)
{
  if (s.out_format == GCG_FKP_GRAY8) {
    row[x] = gcg_fm_u8 (gcg_fm_luma (p, rgb));
  } else {
    int four = s.out_format == GCG_FKP_RGBA || s.out_format == GCG_FKP_BGRA;
    int swap = s.out_format == GCG_FKP_BGRA || s.out_format == GCG_FKP_BGR;
    uint8_t *o = row + (four ? 4 : 3) * x;

    /* One 32-bit store per 4-byte pixel where the row allows it: a quarter
     * of the store instructions, and the same bytes (little endian). */
    if (GCG_FM_LITTLE_ENDIAN && four && ((uintptr_t) o & 3u) == 0) {
      *(uint32_t *) (void *) o = gcg_fm_video_word (s, rgb, alpha);
    } else {
      o[0] = gcg_fm_u8 (swap ? rgb[2] : rgb[0]);
      o[1] = gcg_fm_u8 (rgb[1]);
      o[2] = gcg_fm_u8 (swap ? rgb[0] : rgb[2]);
      if (four)
        o[3] = alpha;
    }
  }
}

/* Step 7, video RGB-type and GRAY8 outputs: one pixel. */
GCG_FM_FN void
gcg_fm_video_pixel (const GcgFrameKernelParams *p, GcgFmShape s, int32_t x,
    int32_t y)
{
  float rgb[3];
  uint8_t alpha = 255;

  if (gcg_fm_sample (p, s, &p->items[0], x, y, rgb))
    alpha = gcg_fm_video_pad (p, rgb);
  gcg_fm_video_store (p, s, gcg_fm_dst_row (p, 0, y), x, rgb, alpha);
}

/* Step 7, NV12/I420 outputs: the 2x2 block (bx, by), so each chroma
 * sample is written once, from the block's top-left pixel.  Odd sizes:
 * the last block column/row has only the pixels inside the frame. */
GCG_FM_FN void
gcg_fm_yuv420_block (const GcgFrameKernelParams *p, GcgFmShape s, int32_t bx,
    int32_t by)
{
  float rgb0[3] = { 0.0f, 0.0f, 0.0f };
  float luma0 = 0.0f;

  for (int dy = 0; dy < 2; dy++) {
    int32_t y = 2 * by + dy;
    uint8_t *row;

    if (y >= p->out_height)
      break;
    row = gcg_fm_dst_row (p, 0, y);
    for (int dx = 0; dx < 2; dx++) {
      int32_t x = 2 * bx + dx;
      float rgb[3], luma;

      if (x >= p->out_width)
        break;
      if (gcg_fm_sample (p, s, &p->items[0], x, y, rgb)) {
        rgb[0] = p->pad[0];
        rgb[1] = p->pad[1];
        rgb[2] = p->pad[2];
      }
      luma = gcg_fm_luma (p, rgb);
      row[x] = gcg_fm_u8 (luma * p->out_y_scale + p->out_y_off);
      if (dx == 0 && dy == 0) {
        rgb0[0] = rgb[0];
        rgb0[1] = rgb[1];
        rgb0[2] = rgb[2];
        luma0 = luma;
      }
    }
  }
  {
    uint8_t u = gcg_fm_u8 ((rgb0[2] - luma0) * p->out_u_scale + 128.0f);
    uint8_t v = gcg_fm_u8 ((rgb0[0] - luma0) * p->out_v_scale + 128.0f);

    if (s.out_format == GCG_FKP_NV12) {
      uint8_t *o = gcg_fm_dst_row (p, 1, by) + 2 * bx;

      o[0] = u;
      o[1] = v;
    } else {
      gcg_fm_dst_row (p, 1, by)[bx] = u;
      gcg_fm_dst_row (p, 2, by)[bx] = v;
    }
  }
}

/* Step 7, tensors: element (n, c, y, x) of the output. */
GCG_FM_FN void
gcg_fm_tensor_store (const GcgFrameKernelParams *p, int32_t tensor_type,
    size_t index, float v)
{
  switch (tensor_type) {
    case GCG_FKP_FLOAT32:
      ((float *) (uintptr_t) p->dst[0])[index] = v;
      break;
    case GCG_FKP_FLOAT16:
      ((uint16_t *) (uintptr_t) p->dst[0])[index] = gcg_fm_f16 (v);
      break;
    default:
      ((uint8_t *) (uintptr_t) p->dst[0])[index] = gcg_fm_u8 (v);
      break;
  }
}

/* Step 7, tensors: the channel values of one pixel from its RGB, or the
 * padding when @pad; returns the number of channels. */
GCG_FM_FN int
gcg_fm_tensor_values (const GcgFrameKernelParams *p, GcgFmShape s, int pad,
    const float *rgb, float *v)
{
  int nc = s.tensor_channels == GCG_FKP_CH_GRAY ? 1 : 3;

  if (pad) {
    v[0] = p->pad[0];
    v[1] = p->pad[1];
    v[2] = p->pad[2];
    return nc;
  }
  if (s.tensor_channels == GCG_FKP_CH_GRAY) {
    v[0] = gcg_fm_luma (p, rgb);
  } else if (s.tensor_channels == GCG_FKP_CH_BGR) {
    v[0] = rgb[2];
    v[1] = rgb[1];
    v[2] = rgb[0];
  } else {
    v[0] = rgb[0];
    v[1] = rgb[1];
    v[2] = rgb[2];
  }
  for (int c = 0; c < nc; c++)
    v[c] = v[c] * p->scale[c] + p->offset[c];
  return nc;
}

/* Step 7, tensors: every channel of pixel (x, y) of item n. */
GCG_FM_FN void
gcg_fm_tensor_pixel (const GcgFrameKernelParams *p, GcgFmShape s, int32_t n,
    int32_t x, int32_t y)
{
  size_t plane = (size_t) p->out_width * (size_t) p->out_height;
  size_t pixel = (size_t) y * (size_t) p->out_width + (size_t) x;
  float rgb[3], v[3];
  int pad = gcg_fm_sample (p, s, &p->items[n], x, y, rgb);
  int nc = gcg_fm_tensor_values (p, s, pad, rgb, v);
  size_t base = (size_t) n * (size_t) nc * plane;

  for (int c = 0; c < nc; c++) {
    size_t index = s.tensor_layout == GCG_FKP_NCHW
        ? base + (size_t) c * plane + pixel
        : base + pixel * nc + c;

    gcg_fm_tensor_store (p, s.tensor_type, index, v[c]);
  }
}

#endif /* GCG_FRAME_MATH_H */
