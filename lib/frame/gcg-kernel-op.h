/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-context.h"

G_BEGIN_DECLS

/**
 * GcgKernelPosition:
 * @GCG_KERNEL_POSITION_BEFORE: before the chain's built-in op: the kernel
 *   reads the input planes and writes a scratch copy of them that the
 *   built-in op then reads instead of the input
 * @GCG_KERNEL_POSITION_AFTER: after the built-in op, on its output
 *
 * Where a user kernel runs in the path of one frame; either way it is
 * captured into the same graph as the built-in op.
 *
 * Since: 0.2
 */
typedef enum
{
  GCG_KERNEL_POSITION_BEFORE,
  GCG_KERNEL_POSITION_AFTER,
} GcgKernelPosition;

/**
 * GCG_KERNEL_OP_DEFAULT_BLOCK:
 *
 * Threads per block in x and y when none is set (16 × 16).
 *
 * Since: 0.2
 */
#define GCG_KERNEL_OP_DEFAULT_BLOCK 16

#define GCG_TYPE_KERNEL_OP (gcg_kernel_op_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgKernelOp, gcg_kernel_op, GCG, KERNEL_OP, GObject)

GCG_API
GcgKernelOp *gcg_kernel_op_new_from_source (GcgContext *context,
    const gchar *source, const gchar *entry, const gchar *params,
    GError **error);

GCG_API
GcgKernelOp *gcg_kernel_op_new_from_binary (GcgContext *context, GBytes *code,
    const gchar *entry, const gchar *params, GError **error);

GCG_API
GcgKernelOp *gcg_kernel_op_new_from_file (GcgContext *context,
    const gchar *path, const gchar *entry, const gchar *params, GError **error);

GCG_API
const gchar *gcg_kernel_op_get_name (GcgKernelOp *self);

GCG_API
const gchar *gcg_kernel_op_get_entry (GcgKernelOp *self);

GCG_API
const gchar *gcg_kernel_op_get_params (GcgKernelOp *self);

GCG_API
gboolean gcg_kernel_op_is_source (GcgKernelOp *self);

GCG_API
gboolean gcg_kernel_op_set_block (GcgKernelOp *self, guint x, guint y,
    GError **error);

GCG_API
void gcg_kernel_op_get_block (GcgKernelOp *self, guint *x, guint *y);

GCG_API
void gcg_kernel_op_set_grid (GcgKernelOp *self, guint x, guint y, guint z);

GCG_API
void gcg_kernel_op_get_grid (GcgKernelOp *self, guint *x, guint *y, guint *z);

G_END_DECLS
