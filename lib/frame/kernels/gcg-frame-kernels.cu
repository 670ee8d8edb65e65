/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame chain's fused kernels (docs/frame-chain.md): each reads the
 * input, resamples, converts and adjusts in registers and writes the
 * output once, with no intermediate buffer.  Their one argument is a
 * GcgFrameKernelParams by value, set per frame on the replayed graph's
 * node, so one captured graph serves every frame (the batch kernels read
 * theirs, too large for an argument, from a parameter block).  The
 * per-pixel code is shared with the CPU reference (gcg-frame-math.h);
 * this file only maps threads to pixels.  Blocks are 32x8: a warp covers
 * 32 consecutive output pixels of one row, so writes coalesce.
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
 * integer and float operations are the CPU reference's either way.
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

/* RGBA, BGRA, RGB, BGR and GRAY8 outputs: one thread per pixel. */
template <int IN, int RS>
static __device__ __forceinline__ void
gcg_fk_video (const GcgFrameKernelParams *__restrict__ p)
{
  int32_t x = (int32_t) (blockIdx.x * blockDim.x + threadIdx.x);
  int32_t y = (int32_t) (blockIdx.y * blockDim.y + threadIdx.y);

  if (x < p->out_width && y < p->out_height)
    gcg_fm_video_pixel (p, gcg_fk_shape<IN, RS, GCG_FK_ANY> (p), x, y);
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

/* Tensor outputs: grid.z is the item; items beyond this frame's ROI count
 * are left untouched (their threads leave at once). */
template <int IN, int RS, int TYPE>
static __device__ __forceinline__ void
gcg_fk_tensor (const GcgFrameKernelParams *__restrict__ p)
{
  int32_t n = (int32_t) blockIdx.z;
  int32_t x = (int32_t) (blockIdx.x * blockDim.x + threadIdx.x);
  int32_t y = (int32_t) (blockIdx.y * blockDim.y + threadIdx.y);

  if (n < p->n_items && x < p->out_width && y < p->out_height)
    gcg_fm_tensor_pixel (p, gcg_fk_shape<IN, RS, TYPE> (p), n, x, y);
}

/* Batch tensors: one source per group of grid.z slices, so a block
 * serves one slot, (source, item).  Slots past this batch's sources
 * (NULL) and items past a source's count are unused: their blocks write
 * zeros over the tensor's items past the batch's last instead
 * (gcg_fk_batch_zero()). */
static __device__ __forceinline__ const GcgFrameKernelParams *
gcg_fk_batch_source (const GcgFrameBatchHeader *__restrict__ h, int32_t *n)
{
  int32_t source = (int32_t) blockIdx.z / h->max_items;

  *n = (int32_t) blockIdx.z % h->max_items;
  if (source >= h->n_sources)
    return NULL;
  return (const GcgFrameKernelParams *) ((const uint8_t *) (h + 1)
      + (size_t) source * (size_t) h->stride);
}

/* The blocks of an unused slot (@p its source's struct, NULL past the
 * batch's sources) write one item past the batch's last as zeros: every
 * byte of it, whatever the layout and element type.  Unused slots are
 * exactly as many as those items, so slot z takes item
 * items + (z - the used slots before z): a source's used slots come
 * first_item + n_items before its unused ones, and every used slot
 * before the slots past the sources.  Source 0's struct holds what every
 * source shares: the tensor's address (its items start at 0) and the
 * item's size.  The block's threads, in order, write 16-byte words from
 * the first 16-byte boundary, and single bytes before and after. */
template <int TYPE>
static __device__ __noinline__ void
gcg_fk_batch_zero (const GcgFrameBatchHeader *__restrict__ h,
    const GcgFrameKernelParams *__restrict__ p)
{
  const GcgFrameKernelParams *p0 = (const GcgFrameKernelParams *) (h + 1);
  int32_t used = p == NULL ? h->items : p->first_item + p->n_items;
  int32_t type = gcg_fk_pick<TYPE> (p0->tensor_type);
  size_t bytes = (size_t) p0->out_width * (size_t) p0->out_height
      * (p0->tensor_channels == GCG_FKP_CH_GRAY ? 1u : 3u)
      * (type == GCG_FKP_FLOAT32 ? 4u : type == GCG_FKP_FLOAT16 ? 2u : 1u);
  uint8_t *o = (uint8_t *) (uintptr_t) p0->dst[0]
      + (size_t) (h->items + (int32_t) blockIdx.z - used) * bytes;
  size_t threads = (size_t) gridDim.x * gridDim.y * blockDim.x * blockDim.y;
  size_t t = ((size_t) (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.y
      + threadIdx.y) * blockDim.x + threadIdx.x;
  size_t head = min (bytes, (size_t) ((16u - ((uintptr_t) o & 15u)) & 15u));
  size_t words = (bytes - head) / 16;
  size_t tail = head + words * 16;

  /* A block has 256 threads: more than the 15 bytes either side. */
  if (t < head)
    o[t] = 0;
  for (size_t i = t; i < words; i += threads)
    ((uint4 *) (void *) (o + head))[i] = make_uint4 (0, 0, 0, 0);
  if (t < bytes - tail)
    o[tail + t] = 0;
}

/* Sources differ in input format, and the sampling code is only fast
 * specialised on one: read per sample, the format is a switch per read
 * (a batch of 16 NV12 frames took 1.2x the time of 16 single frames).
 * It is block-uniform, so @f runs with it as a template value and every
 * block takes the single-frame kernels' code for its source. */
template <typename F>
static __device__ __forceinline__ void
gcg_fk_by_format (int32_t in_format, F &f)
{
  switch (in_format) {
    case GCG_FKP_NV12:
      f.template run<GCG_FKP_NV12> ();
      break;
    case GCG_FKP_I420:
      f.template run<GCG_FKP_I420> ();
      break;
    case GCG_FKP_RGBA:
      f.template run<GCG_FKP_RGBA> ();
      break;
    case GCG_FKP_BGRA:
      f.template run<GCG_FKP_BGRA> ();
      break;
    case GCG_FKP_RGB:
      f.template run<GCG_FKP_RGB> ();
      break;
    case GCG_FKP_BGR:
      f.template run<GCG_FKP_BGR> ();
      break;
    default:
      f.template run<GCG_FKP_GRAY8> ();
      break;
  }
}

/* One pixel of a batch source's item. */
template <int RS, int TYPE>
struct GcgFkBatchPixel
{
  const GcgFrameKernelParams *__restrict__ p;
  int32_t n, x, y;

  template <int IN>
  __device__ __forceinline__ void
  run ()
  {
    gcg_fm_tensor_pixel (p, gcg_fk_shape<IN, RS, TYPE> (p), n, x, y);
  }
};

template <int RS, int TYPE>
static __device__ __forceinline__ void
gcg_fk_batch (const GcgFrameBatchHeader *__restrict__ h)
{
  int32_t n;
  const GcgFrameKernelParams *p = gcg_fk_batch_source (h, &n);
  int32_t x = (int32_t) (blockIdx.x * blockDim.x + threadIdx.x);
  int32_t y = (int32_t) (blockIdx.y * blockDim.y + threadIdx.y);

  if (p == NULL || n >= p->n_items) {
    gcg_fk_batch_zero<TYPE> (h, p);
    return;
  }
  if (x < p->out_width && y < p->out_height) {
    GcgFkBatchPixel<RS, TYPE> f = { p, n, x, y };

    gcg_fk_by_format (p->in_format, f);
  }
}

/* --- Several output pixels per thread --------------------------------
 *
 * The *4 kernels (gcg_frame_tensor4_*, gcg_frame_video4_*,
 * gcg_frame_batch4_*): each thread makes GCG_FK_PX consecutive pixels of
 * ROWS consecutive rows of one item, so what a row or a column costs
 * (the item, the vertical taps and their row addresses, the horizontal
 * taps) is worked out once per thread instead of once per pixel, and the
 * output leaves in 16-byte stores.  Bilinear is the reference's (rows
 * first, then between them, in fixed point, then the conversion to RGB),
 * each input row's taps weighed once per thread even where neighbouring
 * output rows share it: the same inputs through the same operations give
 * the same bits, so the output is the one-pixel kernels' (and the CPU
 * reference's) exactly. */
/* Per pixel of the thread: its taps (absolute input columns; nearest uses
 * x0 only), the weight of the second, and whether it is padding.  Padding
 * pixels sample the nearest image column: in bounds, never used. */
template <int RS>
static __device__ __forceinline__ void
gcg_fk_columns (const GcgFrameItem *it, int32_t x, int32_t *x0, int32_t *x1,
    uint32_t *ax, int *pad)
{
#pragma unroll
  for (int i = 0; i < GCG_FK_PX; i++) {
    int32_t lx = x + i - it->px;

    pad[i] = lx < 0 || lx >= it->sw;
    lx = gcg_fm_clamp (lx, it->sw - 1);
    if (RS == GCG_FKP_NEAREST) {
      x0[i] = x1[i] = it->cx + gcg_fm_nearest_axis (lx, it->rx, it->cw);
      ax[i] = 0;
    } else {
      ax[i] = gcg_fm_bilinear_axis (lx, it->rx, it->cw, &x0[i], &x1[i]);
      x0[i] += it->cx;
      x1[i] += it->cx;
    }
  }
}

static __device__ __forceinline__ void
gcg_fk_copy3 (uint32_t *to, const uint32_t *from)
{
  to[0] = from[0];
  to[1] = from[1];
  to[2] = from[2];
}

/* Input row @sy along the thread's pixels: bilinear's horizontal half
 * (nearest: the samples), in the input's own terms (YUV stays YUV until
 * the pixel is interpolated).  Every tap is read, even one the previous
 * pixel read too: a comparison and a predicated read per tap cost more
 * instructions than the reads they save, which hit the same cache lines
 * (sm_90, static: 1144 -> 1045 instructions in the 640x640 tensor
 * kernel). */
template <int RS>
static __device__ __forceinline__ void
gcg_fk_hpass (const GcgFrameKernelParams *__restrict__ p, int32_t in_format,
    int32_t sy, const int32_t *x0, const int32_t *x1, const uint32_t *ax,
    uint32_t (*h)[3])
{
  GcgFmSrcRows r = gcg_fm_src_rows (p, in_format, sy);

#pragma unroll
  for (int i = 0; i < GCG_FK_PX; i++) {
    uint32_t a[3], b[3];

    gcg_fm_read_at (in_format, r, x0[i], a);
    if (RS == GCG_FKP_NEAREST) {
      gcg_fk_copy3 (h[i], a);
      continue;
    }
    gcg_fm_read_at (in_format, r, x1[i], b);
    gcg_fm_lerp3 (a, b, ax[i], h[i]);
  }
}

/* The adjusted RGB of the thread's pixels on each of its rows, handed to
 * @out row by row with which pixels are padding.  The two input rows of
 * the last output row are kept: the next output row often starts on the
 * second (a downscale under 2x) or reuses both (an upscale). */
template <int IN, int RS, int ROWS, typename Out>
static __device__ __forceinline__ void
gcg_fk_item_rows (const GcgFrameKernelParams *__restrict__ p, GcgFmShape s,
    const GcgFrameItem *__restrict__ it, int32_t x, int32_t y_first,
    Out &out)
{
  int32_t x0[GCG_FK_PX], x1[GCG_FK_PX];
  uint32_t ax[GCG_FK_PX];
  int pad[GCG_FK_PX], all_pad[GCG_FK_PX];
  uint32_t ha[GCG_FK_PX][3], hb[GCG_FK_PX][3], v[GCG_FK_PX][3];
  float rgb[GCG_FK_PX][3];
  int32_t ya = -1, yb = -1;
  int empty = it->empty;

#pragma unroll
  for (int i = 0; i < GCG_FK_PX; i++)
    all_pad[i] = 1;
  if (!empty)
    gcg_fk_columns<RS> (it, x, x0, x1, ax, pad);
#pragma unroll
  for (int r = 0; r < ROWS; r++) {
    int32_t y = y_first + r;
    int32_t ly = y - it->py;
    int32_t y0, y1;
    uint32_t ay = 0;

    if (y >= p->out_height)
      break;
    if (empty || ly < 0 || ly >= it->sh) {
      out.row (y, all_pad, rgb);
      continue;
    }
    if (RS == GCG_FKP_NEAREST) {
      y0 = y1 = it->cy + gcg_fm_nearest_axis (ly, it->ry, it->ch);
    } else {
      ay = gcg_fm_bilinear_axis (ly, it->ry, it->ch, &y0, &y1);
      y0 += it->cy;
      y1 += it->cy;
    }
    if (y0 != ya) {
      if (y0 == yb) {
#pragma unroll
        for (int i = 0; i < GCG_FK_PX; i++)
          gcg_fk_copy3 (ha[i], hb[i]);
      } else {
        gcg_fk_hpass<RS> (p, s.in_format, y0, x0, x1, ax, ha);
      }
      ya = y0;
    }
    if (RS == GCG_FKP_NEAREST) {
#pragma unroll
      for (int i = 0; i < GCG_FK_PX; i++)
        gcg_fk_copy3 (v[i], ha[i]);
    } else {
      if (y1 == ya) {
#pragma unroll
        for (int i = 0; i < GCG_FK_PX; i++)
          gcg_fk_copy3 (hb[i], ha[i]);
      } else if (y1 != yb) {
        gcg_fk_hpass<RS> (p, s.in_format, y1, x0, x1, ax, hb);
      }
#pragma unroll
      for (int i = 0; i < GCG_FK_PX; i++)
        gcg_fm_lerp3 (ha[i], hb[i], ay, v[i]);
    }
    yb = y1;
#pragma unroll
    for (int i = 0; i < GCG_FK_PX; i++) {
      gcg_fm_to_rgb (p, s.in_format, RS != GCG_FKP_NEAREST, v[i], rgb[i]);
      gcg_fm_adjust (p, rgb[i]);
    }
    out.row (y, pad, rgb);
  }
}

/* Four consecutive elements of a tensor from @index (a multiple of 4,
 * 16-byte aligned in every element type the caller allows). */
static __device__ __forceinline__ void
gcg_fk_tensor_store4 (const GcgFrameKernelParams *__restrict__ p,
    int32_t tensor_type, size_t index, const float *v)
{
  switch (tensor_type) {
    case GCG_FKP_FLOAT32:
      ((float4 *) (uintptr_t) p->dst[0])[index / 4] =
          make_float4 (v[0], v[1], v[2], v[3]);
      break;
    case GCG_FKP_FLOAT16:
      ((uint2 *) (uintptr_t) p->dst[0])[index / 4] =
          make_uint2 ((uint32_t) gcg_fm_f16 (v[0])
          | ((uint32_t) gcg_fm_f16 (v[1]) << 16),
          (uint32_t) gcg_fm_f16 (v[2]) | ((uint32_t) gcg_fm_f16 (v[3]) << 16));
      break;
    default:
      ((uint32_t *) (uintptr_t) p->dst[0])[index / 4] =
          (uint32_t) gcg_fm_u8 (v[0]) | ((uint32_t) gcg_fm_u8 (v[1]) << 8)
          | ((uint32_t) gcg_fm_u8 (v[2]) << 16)
          | ((uint32_t) gcg_fm_u8 (v[3]) << 24);
      break;
  }
}

/* Writes the thread's pixels of one row of tensor item n. */
struct GcgFkTensorOut
{
  const GcgFrameKernelParams *__restrict__ p;
  GcgFmShape s;
  int32_t n, x;

  __device__ __forceinline__ void
  row (int32_t y, const int *pad, float (*rgb)[3])
  {
    int32_t w = p->out_width;
    size_t plane = (size_t) w * (size_t) p->out_height;
    size_t pixel = (size_t) y * (size_t) w + (size_t) x;
    float v[GCG_FK_PX][3];
    int nc = 1;
    size_t base;
    /* Whole groups of four from a 16-byte boundary: every run below
     * starts on a multiple of four elements. */
    bool vec = (w & 3) == 0 && (p->dst[0] & 15u) == 0;

#pragma unroll
    for (int i = 0; i < GCG_FK_PX; i++)
      nc = gcg_fm_tensor_values (p, s, pad[i], rgb[i], v[i]);
    base = (size_t) n * (size_t) nc * plane;
    if (s.tensor_layout == GCG_FKP_NCHW) {
      for (int c = 0; c < nc; c++) {
        size_t index = base + (size_t) c * plane + pixel;

        if (vec) {
          float run[GCG_FK_PX] = { v[0][c], v[1][c], v[2][c], v[3][c] };

          gcg_fk_tensor_store4 (p, s.tensor_type, index, run);
        } else {
#pragma unroll
          for (int i = 0; i < GCG_FK_PX; i++)
            if (x + i < w)
              gcg_fm_tensor_store (p, s.tensor_type, index + i, v[i][c]);
        }
      }
    } else if (vec && nc == 3) {
      /* Four RGB pixels: twelve elements, three runs of four. */
      size_t index = base + pixel * 3;
      float run0[4] = { v[0][0], v[0][1], v[0][2], v[1][0] };
      float run1[4] = { v[1][1], v[1][2], v[2][0], v[2][1] };
      float run2[4] = { v[2][2], v[3][0], v[3][1], v[3][2] };

      gcg_fk_tensor_store4 (p, s.tensor_type, index, run0);
      gcg_fk_tensor_store4 (p, s.tensor_type, index + 4, run1);
      gcg_fk_tensor_store4 (p, s.tensor_type, index + 8, run2);
    } else {
#pragma unroll
      for (int i = 0; i < GCG_FK_PX; i++)
        if (x + i < w)
          for (int c = 0; c < nc; c++)
            gcg_fm_tensor_store (p, s.tensor_type,
                base + (pixel + i) * nc + c, v[i][c]);
    }
  }
};

/* Writes the thread's pixels of one row of a video output (RGB types,
 * GRAY8); RGBA and BGRA rows on 16-byte boundaries take one store. */
struct GcgFkVideoOut
{
  const GcgFrameKernelParams *__restrict__ p;
  GcgFmShape s;
  int32_t x;

  __device__ __forceinline__ void
  row (int32_t y, const int *pad, float (*rgb)[3])
  {
    uint8_t *o = gcg_fm_dst_row (p, 0, y);
    uint8_t alpha[GCG_FK_PX];
    bool four = s.out_format == GCG_FKP_RGBA || s.out_format == GCG_FKP_BGRA;

#pragma unroll
    for (int i = 0; i < GCG_FK_PX; i++)
      alpha[i] = pad[i] ? gcg_fm_video_pad (p, rgb[i]) : 255;
    if (four && (p->out_width & 3) == 0
        && ((p->dst[0] | (uint64_t) (uint32_t) p->dst_stride[0]) & 15u) == 0) {
      ((uint4 *) (void *) o)[x / 4] =
          make_uint4 (gcg_fm_video_word (s, rgb[0], alpha[0]),
          gcg_fm_video_word (s, rgb[1], alpha[1]),
          gcg_fm_video_word (s, rgb[2], alpha[2]),
          gcg_fm_video_word (s, rgb[3], alpha[3]));
      return;
    }
#pragma unroll
    for (int i = 0; i < GCG_FK_PX; i++)
      if (x + i < p->out_width)
        gcg_fm_video_store (p, s, o, x + i, rgb[i], alpha[i]);
  }
};

/* The thread's first pixel: GCG_FK_PX columns, ROWS rows per thread. */
template <int ROWS>
static __device__ __forceinline__ void
gcg_fk_origin (int32_t *x, int32_t *y)
{
  *x = (int32_t) (blockIdx.x * blockDim.x + threadIdx.x) * GCG_FK_PX;
  *y = (int32_t) (blockIdx.y * blockDim.y + threadIdx.y) * ROWS;
}

template <int IN, int RS>
static __device__ __forceinline__ void
gcg_fk_video4 (const GcgFrameKernelParams *__restrict__ p)
{
  int32_t x, y;

  gcg_fk_origin<GCG_FK_VIDEO_ROWS> (&x, &y);
  if (x < p->out_width && y < p->out_height) {
    GcgFkVideoOut out = { p, gcg_fk_shape<IN, RS, GCG_FK_ANY> (p), x };

    gcg_fk_item_rows<IN, RS, GCG_FK_VIDEO_ROWS> (p, out.s, &p->items[0], x,
        y, out);
  }
}

template <int IN, int RS, int TYPE>
static __device__ __forceinline__ void
gcg_fk_tensor4 (const GcgFrameKernelParams *__restrict__ p)
{
  int32_t n = (int32_t) blockIdx.z;
  int32_t x, y;

  gcg_fk_origin<GCG_FK_TENSOR_ROWS> (&x, &y);
  if (n < p->n_items && x < p->out_width && y < p->out_height) {
    GcgFkTensorOut out = { p, gcg_fk_shape<IN, RS, TYPE> (p), n, x };

    gcg_fk_item_rows<IN, RS, GCG_FK_TENSOR_ROWS> (p, out.s, &p->items[n],
        x, y, out);
  }
}

/* The thread's pixels of a batch source's item (gcg_fk_by_format()). */
template <int RS, int TYPE>
struct GcgFkBatchRows
{
  const GcgFrameKernelParams *__restrict__ p;
  int32_t n, x, y;

  template <int IN>
  __device__ __forceinline__ void
  run ()
  {
    GcgFkTensorOut out = { p, gcg_fk_shape<IN, RS, TYPE> (p), n, x };

    gcg_fk_item_rows<IN, RS, GCG_FK_TENSOR_ROWS> (p, out.s, &p->items[n], x,
        y, out);
  }
};

template <int RS, int TYPE>
static __device__ __forceinline__ void
gcg_fk_batch4 (const GcgFrameBatchHeader *__restrict__ h)
{
  int32_t n;
  const GcgFrameKernelParams *p = gcg_fk_batch_source (h, &n);
  int32_t x, y;

  if (p == NULL || n >= p->n_items) {
    gcg_fk_batch_zero<TYPE> (h, p);
    return;
  }
  gcg_fk_origin<GCG_FK_TENSOR_ROWS> (&x, &y);
  if (x < p->out_width && y < p->out_height) {
    GcgFkBatchRows<RS, TYPE> f = { p, n, x, y };

    gcg_fk_by_format (p->in_format, f);
  }
}

/* The instantiations: every input format (0-6) and resize method (0-1),
 * times the tensor element types (0-2).  Each takes its struct by value,
 * set per frame on the replayed graph's node (gcg-kernel-replay.c), and
 * reads it in place: __grid_constant__ keeps it in the parameter space,
 * where taking its address costs no copy to local memory. */
#define GCG_FK_ENTRY(name, call) \
  extern "C" __global__ void __launch_bounds__ (256) \
  name (const __grid_constant__ GcgFrameKernelParams p) { call (&p); }

/* The *4 kernels: @blocks blocks an SM at least, so at most 64 registers
 * at 4.  At 4, a 640² tensor's grid runs in one wave on an H100, and so
 * does a 720p video frame's (450 blocks); at the 80 registers the video
 * ones would take, three blocks fit, and the 54 blocks past the first
 * wave cost a second (ncu: 1.14 waves, SM 33 % busy).  At 64, video
 * from NV12 spilled ~90 bytes a thread and was still faster (H100, kernel
 * alone: 8.5 µs against 8.8 at 80; ~70 bytes since bilinear weighs in
 * integers); from the other inputs but GRAY8 it would spill ~100 bytes
 * too, unmeasured, so those keep 3 blocks. */
#define GCG_FK_ENTRY_N(name, call, blocks) \
  extern "C" __global__ void __launch_bounds__ (256, blocks) \
  name (const __grid_constant__ GcgFrameKernelParams p) { call (&p); }
#define GCG_FK_ENTRY4(name, call) GCG_FK_ENTRY_N (name, call, 4)
#define GCG_FK_VIDEO4_BLOCKS(IN) \
  ((IN) == GCG_FKP_NV12 || (IN) == GCG_FKP_GRAY8 ? 4 : 3)

#define GCG_FK_TENSOR(IN, RS, T) \
  GCG_FK_ENTRY (gcg_frame_tensor_##IN##_##RS##_##T, \
      (gcg_fk_tensor<IN, RS, T>))
#define GCG_FK_TENSOR4(IN, RS, T) \
  GCG_FK_ENTRY4 (gcg_frame_tensor4_##IN##_##RS##_##T, \
      (gcg_fk_tensor4<IN, RS, T>))
#define GCG_FK_KERNELS(IN, RS) \
  GCG_FK_ENTRY (gcg_frame_video_##IN##_##RS, (gcg_fk_video<IN, RS>)) \
  GCG_FK_ENTRY_N (gcg_frame_video4_##IN##_##RS, (gcg_fk_video4<IN, RS>), \
      GCG_FK_VIDEO4_BLOCKS (IN)) \
  GCG_FK_ENTRY (gcg_frame_yuv420_##IN##_##RS, (gcg_fk_yuv420<IN, RS>)) \
  GCG_FK_TENSOR (IN, RS, 0) GCG_FK_TENSOR (IN, RS, 1) \
  GCG_FK_TENSOR (IN, RS, 2) \
  GCG_FK_TENSOR4 (IN, RS, 0) GCG_FK_TENSOR4 (IN, RS, 1) \
  GCG_FK_TENSOR4 (IN, RS, 2)
#define GCG_FK_KERNELS_IN(IN) GCG_FK_KERNELS (IN, 0) GCG_FK_KERNELS (IN, 1)

GCG_FK_KERNELS_IN (0)
GCG_FK_KERNELS_IN (1)
GCG_FK_KERNELS_IN (2)
GCG_FK_KERNELS_IN (3)
GCG_FK_KERNELS_IN (4)
GCG_FK_KERNELS_IN (5)
GCG_FK_KERNELS_IN (6)

#define GCG_FK_BATCH(RS, T) \
  extern "C" __global__ void __launch_bounds__ (256) \
  gcg_frame_batch_##RS##_##T (const GcgFrameBatchHeader *__restrict__ h) \
  { gcg_fk_batch<RS, T> (h); }

#define GCG_FK_BATCH4(RS, T) \
  extern "C" __global__ void __launch_bounds__ (256, 4) \
  gcg_frame_batch4_##RS##_##T (const GcgFrameBatchHeader *__restrict__ h) \
  { gcg_fk_batch4<RS, T> (h); }

GCG_FK_BATCH (0, 0) GCG_FK_BATCH (0, 1) GCG_FK_BATCH (0, 2)
GCG_FK_BATCH (1, 0) GCG_FK_BATCH (1, 1) GCG_FK_BATCH (1, 2)
GCG_FK_BATCH4 (0, 0) GCG_FK_BATCH4 (0, 1) GCG_FK_BATCH4 (0, 2)
GCG_FK_BATCH4 (1, 0) GCG_FK_BATCH4 (1, 1) GCG_FK_BATCH4 (1, 2)
