/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The user's own kernel as a frame stage: CUDA C++ source compiled by
 * NVRTC for the context's device, or PTX, cubin or fatbin bytes, with a
 * named entry point taking ONE argument, a pointer to the struct of its
 * declared parameters (gcg-kernel-decl-private.h).  For source, the
 * struct is typedef'd as gcg_params before the user's code, so the entry
 * reads `extern "C" __global__ void NAME (const gcg_params *p)`.
 */
#pragma once

#include "gcg-context.h"
#include "gcg-frame-stage-private.h"
#include "gcg-kernel-decl-private.h"

G_BEGIN_DECLS

/* A binary bigger than this is refused before the driver reads it. */
#define GCG_KERNEL_STAGE_MAX_CODE (256 * 1024 * 1024)

typedef enum
{
  GCG_KERNEL_CODE_SOURCE,       /* CUDA C++, compiled with NVRTC */
  GCG_KERNEL_CODE_BINARY,       /* PTX text, cubin or fatbin */
} GcgKernelCodeKind;

/* @name: what errors call the kernel (its file name, or the entry);
 * @block: threads per block in x and y, 0 for 16 × 16;
 * @grid: blocks in x, y, z, 0 for enough blocks of @block to cover
 * @width × @height (the output size); @cache_dir: where compiled source
 * is kept across processes (e.g. g_get_user_cache_dir()/gst-cudagraph/
 * kernels; made 0700), %NULL for the process's memory cache only;
 * @postprocess: a postprocess kernel's values (copied; its declaration
 * may read them and no src or dst field), %NULL for any other kernel
 * (which may not read them): gcg__kernel_decl_check_role(). */
typedef struct
{
  GcgKernelCodeKind kind;
  const gchar *name;
  GBytes *code;
  const gchar *entry;
  const gchar *decl;
  const gchar *const *options;
  guint block[2];
  guint grid[3];
  guint width;
  guint height;
  const gchar *cache_dir;
  const GcgKernelPpValues *postprocess;
} GcgKernelStageSpec;

GCG_PRIVATE_API GcgFrameStage *gcg__kernel_stage_new (GcgContext *context,
    const GcgKernelStageSpec *spec, GError **error);

G_END_DECLS
