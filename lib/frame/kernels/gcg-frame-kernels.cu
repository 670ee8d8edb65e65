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
 * pixels.  Blocks are 32x8: a warp covers 32 consecutive output pixels of
 * one row, so writes coalesce.
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

/* Batch tensors: one source per group of grid.z slices.  The input
 * format is read from each source's struct (sources differ), a
 * block-uniform branch; sources past this batch's count and items past a
 * source's count return at once. */
template <int RS, int TYPE>
static __device__ __forceinline__ void
gcg_fk_batch (const GcgFrameBatchHeader *__restrict__ h)
{
  int32_t source = (int32_t) blockIdx.z / h->max_items;
  int32_t n = (int32_t) blockIdx.z % h->max_items;
  int32_t x = (int32_t) (blockIdx.x * blockDim.x + threadIdx.x);
  int32_t y = (int32_t) (blockIdx.y * blockDim.y + threadIdx.y);
  const GcgFrameKernelParams *p;

  if (source >= h->n_sources)
    return;
  p = (const GcgFrameKernelParams *) ((const uint8_t *) (h + 1)
      + (size_t) source * (size_t) h->stride);
  if (n < p->n_items && x < p->out_width && y < p->out_height)
    gcg_fm_tensor_pixel (p, gcg_fk_shape<GCG_FK_ANY, RS, TYPE> (p), n, x, y);
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

#define GCG_FK_BATCH(RS, T) \
  extern "C" __global__ void __launch_bounds__ (256) \
  gcg_frame_batch_##RS##_##T (const GcgFrameBatchHeader *__restrict__ h) \
  { gcg_fk_batch<RS, T> (h); }

GCG_FK_BATCH (0, 0) GCG_FK_BATCH (0, 1) GCG_FK_BATCH (0, 2)
GCG_FK_BATCH (1, 0) GCG_FK_BATCH (1, 1) GCG_FK_BATCH (1, 2)
