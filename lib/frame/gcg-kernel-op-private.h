/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What the engine and the plugin need of a GcgKernelOp beyond its public
 * API: a constructor that also names a disk cache for compiled source,
 * and the stage a chain runs (one per chain, from the op's code).
 */
#pragma once

#include "gcg-kernel-op.h"
#include "gcg-frame-stage-private.h"
#include "gcg-kernel-decl-private.h"

G_BEGIN_DECLS

/* NVRTC's oldest architecture: source is compiled for it when no
 * context names a device, to report its errors early. */
#define GCG_KERNEL_OP_CHECK_SM 75

/* A postprocess kernel's threads per block when the op sets none: one
 * block per item, as the built-in postprocesses run. */
#define GCG_KERNEL_OP_POSTPROCESS_BLOCK 256

GCG_PRIVATE_API GcgKernelOp *gcg__kernel_op_new_full (GcgContext *context,
    gboolean is_source, GBytes *code, const gchar *name, const gchar *entry,
    const gchar *params, const gchar *cache_dir, GError **error);

GCG_PRIVATE_API GcgFrameStage *gcg__kernel_op_make_stage (GcgKernelOp *self,
    GcgContext *context, guint width, guint height, guint depth,
    GError **error);

/* A postprocess kernel's stage (gcg-postprocess-stage.c runs it): its
 * declaration may read @pp's fields and no src or dst field; unless the
 * op sets its own, the grid is @max_items × 1 × 1 blocks (blockIdx.x the
 * item) of GCG_KERNEL_OP_POSTPROCESS_BLOCK × 1 threads. */
GCG_PRIVATE_API GcgFrameStage *gcg__kernel_op_make_postprocess_stage (
    GcgKernelOp *self, GcgContext *context, guint max_items,
    const GcgKernelPpValues *pp, GError **error);

G_END_DECLS
