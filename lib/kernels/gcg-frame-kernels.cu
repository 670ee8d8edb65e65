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
 */
#include "gcg-frame-math.h"

/* RGBA, BGRA, RGB, BGR and GRAY8 outputs: one thread per pixel. */
extern "C" __global__ void __launch_bounds__ (256)
gcg_frame_video (const GcgFrameKernelParams *__restrict__ p)
{
  int32_t x = (int32_t) (blockIdx.x * blockDim.x + threadIdx.x);
  int32_t y = (int32_t) (blockIdx.y * blockDim.y + threadIdx.y);

  if (x < p->out_width && y < p->out_height)
    gcg_fm_video_pixel (p, x, y);
}

/* NV12 and I420 outputs: one thread per 2x2 block, so each chroma sample
 * is computed and written exactly once. */
extern "C" __global__ void __launch_bounds__ (256)
gcg_frame_yuv420 (const GcgFrameKernelParams *__restrict__ p)
{
  int32_t bx = (int32_t) (blockIdx.x * blockDim.x + threadIdx.x);
  int32_t by = (int32_t) (blockIdx.y * blockDim.y + threadIdx.y);

  if (bx < (p->out_width + 1) / 2 && by < (p->out_height + 1) / 2)
    gcg_fm_yuv420_block (p, bx, by);
}

/* Tensor outputs: grid.z is the item; items beyond this frame's ROI count
 * are left untouched (their threads leave at once). */
extern "C" __global__ void __launch_bounds__ (256)
gcg_frame_tensor (const GcgFrameKernelParams *__restrict__ p)
{
  int32_t n = (int32_t) blockIdx.z;
  int32_t x = (int32_t) (blockIdx.x * blockDim.x + threadIdx.x);
  int32_t y = (int32_t) (blockIdx.y * blockDim.y + threadIdx.y);

  if (n < p->n_items && x < p->out_width && y < p->out_height)
    gcg_fm_tensor_pixel (p, n, x, y);
}
