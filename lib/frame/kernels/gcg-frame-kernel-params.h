/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one struct a frame-chain kernel reads: the chain's static
 * configuration and one frame's values, prepared on the host by
 * gcg__frame_prepare().  The frame kernels take it by value as their only
 * argument, set per frame on the replayed graph's kernel node
 * (gcg-kernel-replay.c), so one captured graph serves every buffer; the
 * batch kernels read a cut copy of it per source from a parameter block.
 *
 * Plain C with fixed-width types and explicit padding: gcc and nvcc must
 * lay it out identically, which the assertions at the end check.
 */
#ifndef GCG_FRAME_KERNEL_PARAMS_H
#define GCG_FRAME_KERNEL_PARAMS_H

#include <stdint.h>

#define GCG_FRAME_KP_MAX_ITEMS 64

/* The *4 kernels (gcg-frame-kernels.cu): output pixels per thread along a
 * row, and rows per thread, which the host sizes their grid by. */
#define GCG_FK_PX 4
#define GCG_FK_VIDEO_ROWS 2
#define GCG_FK_TENSOR_ROWS 1

/* Values of the enums in gcg-frame-chain.h, repeated here because nvcc
 * never sees GLib headers.  gcg-frame-prepare.c asserts they agree. */
enum
{
  GCG_FKP_NV12 = 0,
  GCG_FKP_I420 = 1,
  GCG_FKP_RGBA = 2,
  GCG_FKP_BGRA = 3,
  GCG_FKP_RGB = 4,
  GCG_FKP_BGR = 5,
  GCG_FKP_GRAY8 = 6,
};
enum
{
  GCG_FKP_NEAREST = 0,
  GCG_FKP_BILINEAR = 1
};
enum
{
  GCG_FKP_NCHW = 0,
  GCG_FKP_NHWC = 1
};
enum
{
  GCG_FKP_FLOAT32 = 0,
  GCG_FKP_FLOAT16 = 1,
  GCG_FKP_UINT8 = 2
};
enum
{
  GCG_FKP_CH_RGB = 0,
  GCG_FKP_CH_BGR = 1,
  GCG_FKP_CH_GRAY = 2
};

/* One output item (the video frame, or one tensor item): the clipped crop
 * and its fit into the output, computed once per frame on the host. */
typedef struct
{
  int32_t cx, cy, cw, ch;       /* clipped crop in input pixels */
  int32_t px, py, sw, sh;       /* image area inside the output */
  float rx, ry;                 /* cw / sw and ch / sh, float32 */
  int32_t empty;                /* nothing left after clipping: all pad */
  int32_t reserved;
} GcgFrameItem;

typedef struct
{
  /* Planes: device addresses (CUDA) or host addresses (CPU). */
  uint64_t src[3];
  uint64_t dst[3];
  int32_t src_stride[3];
  int32_t dst_stride[3];

  /* Static configuration. */
  int32_t in_format;
  int32_t in_width;
  int32_t in_height;
  int32_t out_format;           /* video output */
  int32_t out_width;
  int32_t out_height;
  int32_t resize;
  int32_t tensor_layout;
  int32_t tensor_type;
  int32_t tensor_channels;
  int32_t n_items;              /* items to write this frame (>= 1) */
  int32_t apply_adjust;         /* any adjustment differs from identity */

  /* YUV -> RGB of the input: Y' = (Y - y_off) * y_scale,
   * C' = (C - 128) * c_scale, then the matrix. */
  float in_y_off;
  float in_y_scale;
  float in_c_scale;
  float crv, cgu, cgv, cbu;

  /* Luma weights, and RGB -> YUV of a YUV output:
   * Y = ((kr R + kg G) + kb B) * out_y_scale + out_y_off,
   * U = (B - luma) * out_u_scale + 128, V = (R - luma) * out_v_scale + 128 */
  float kr, kg, kb;
  float out_y_scale, out_y_off, out_u_scale, out_v_scale;

  /* Per-frame adjustment and output mapping. */
  float gain, contrast, brightness, gamma;
  float pad[4];
  float scale[3];
  float offset[3];
  /* A batch source's first item in the tensor (the items of the sources
   * before it); 0 for a chain. */
  int32_t first_item;
  int32_t reserved[5];

  GcgFrameItem items[GCG_FRAME_KP_MAX_ITEMS];
} GcgFrameKernelParams;

/* The struct of a batch (gcg-frame-batch.c): this header, then
 * n_sources GcgFrameKernelParams, each cut after its max_items items and
 * `stride` bytes apart.  Grid.z is source * max_items + item: a slot,
 * used when its source is one of the batch's and its item one of that
 * source's.  The unused slots are as many as the tensor's items past
 * `items`, and write those as zeros (gcg_fk_batch_zero()), so the kernel
 * writes the whole tensor. */
typedef struct
{
  int32_t stride;
  int32_t max_items;
  int32_t n_sources;
  int32_t items;                /* items the sources write, in all */
} GcgFrameBatchHeader;

#ifdef __cplusplus
#define GCG_FKP_ASSERT(expr, msg) static_assert (expr, msg)
#else
#define GCG_FKP_ASSERT(expr, msg) _Static_assert (expr, msg)
#endif

GCG_FKP_ASSERT (sizeof (GcgFrameBatchHeader) == 16, "GcgFrameBatchHeader");
GCG_FKP_ASSERT (sizeof (GcgFrameItem) == 48, "GcgFrameItem layout");
GCG_FKP_ASSERT (__builtin_offsetof (GcgFrameKernelParams, src_stride) == 48,
    "GcgFrameKernelParams.src_stride");
GCG_FKP_ASSERT (__builtin_offsetof (GcgFrameKernelParams, in_format) == 72,
    "GcgFrameKernelParams.in_format");
GCG_FKP_ASSERT (__builtin_offsetof (GcgFrameKernelParams, in_y_off) == 120,
    "GcgFrameKernelParams.in_y_off");
GCG_FKP_ASSERT (__builtin_offsetof (GcgFrameKernelParams, kr) == 148,
    "GcgFrameKernelParams.kr");
GCG_FKP_ASSERT (__builtin_offsetof (GcgFrameKernelParams, gain) == 176,
    "GcgFrameKernelParams.gain");
GCG_FKP_ASSERT (__builtin_offsetof (GcgFrameKernelParams, first_item) == 232,
    "GcgFrameKernelParams.first_item");
GCG_FKP_ASSERT (__builtin_offsetof (GcgFrameKernelParams, items) == 256,
    "GcgFrameKernelParams.items");
GCG_FKP_ASSERT (sizeof (GcgFrameKernelParams)
        == 256 + 48 * GCG_FRAME_KP_MAX_ITEMS,
    "GcgFrameKernelParams size");
/* The frame kernels take it by value: within the 4 KiB of kernel
 * arguments every CUDA 12 driver accepts. */
GCG_FKP_ASSERT (sizeof (GcgFrameKernelParams) <= 4096,
    "GcgFrameKernelParams fits a kernel's arguments");

#endif /* GCG_FRAME_KERNEL_PARAMS_H */
