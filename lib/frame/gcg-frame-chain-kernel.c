/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A GcgKernelOp joins a frame chain: the public face of the chain's
 * stages (gcg-frame-chain-stage-private.h).
 */
#include "gcg-kernel-op-private.h"
#include "gcg-error.h"
#include "gcg-frame-chain-stage-private.h"

/**
 * gcg_frame_chain_add_kernel:
 * @chain: a #GcgFrameChain on the CUDA backend, before its first frame
 * @op: the user kernel
 * @position: before or after the chain's built-in op
 * @error: return location for a #GError, or %NULL
 *
 * Adds @op to @chain, captured into the same graph as the built-in op, so
 * a frame stays one replay.  After the op, the kernel's `dst` planes are
 * the chain's output (it works in place on what the op wrote) and its
 * `src` planes the input.  Before the op, its `src` planes are the input
 * and its `dst` planes a scratch copy of it (same format and size, its
 * own pitches) that the built-in op reads instead of the input: the
 * kernel must write every pixel of it.  Several kernels on one side run
 * in the order they were added (at most 8 in all).  The grid covers the
 * frame the kernel writes (the input before, the output after) unless
 * gcg_kernel_op_set_grid() set one.  The code is loaded in the chain's
 * context now (source compiled for its device, from the cache when it
 * was compiled before).
 *
 * Returns: %TRUE, or %FALSE with @error set: %GCG_ERROR_NOT_SUPPORTED on
 *   the CPU backend, %GCG_ERROR_INVALID_ARGUMENT after the first frame or
 *   past the bound, or the code's error (load, entry point)
 *
 * Since: 0.2
 */
gboolean
gcg_frame_chain_add_kernel (GcgFrameChain *chain, GcgKernelOp *op,
    GcgKernelPosition position, GError **error)
{
  GcgFrameChainConfig config;
  GcgContext *context;
  GcgFrameStage *stage;
  gboolean before = position == GCG_KERNEL_POSITION_BEFORE;

  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (chain), FALSE);
  g_return_val_if_fail (GCG_IS_KERNEL_OP (op), FALSE);
  g_return_val_if_fail (position <= GCG_KERNEL_POSITION_AFTER, FALSE);

  context = gcg__frame_chain_get_context (chain);
  if (gcg_frame_chain_get_backend (chain) != GCG_BACKEND_CUDA
      || context == NULL) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "Kernel '%s': user kernels need a chain on the CUDA backend",
        gcg_kernel_op_get_name (op));
    return FALSE;
  }
  gcg_frame_chain_get_config (chain, &config);
  stage = gcg__kernel_op_make_stage (op, context,
      before ? config.in_width : config.out_width,
      before ? config.in_height : config.out_height, 1, error);
  return stage != NULL
      && gcg__frame_chain_add_stage_at (chain, stage, before, error);
}
