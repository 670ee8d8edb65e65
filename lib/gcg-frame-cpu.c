/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CPU reference of the frame chain: the loops around the per-pixel
 * functions of kernels/gcg-frame-math.h, the very code the CUDA kernels
 * run.  Built with -ffp-contract=off (see lib/meson.build) so gcc keeps
 * every multiply and add separate, as nvcc does with -fmad=false.
 */
#include "gcg-frame-private.h"
#include "kernels/gcg-frame-math.h"

/**
 * gcg__frame_cpu_run:
 * @config: the chain's configuration
 * @kp: a prepared struct whose plane addresses are host pointers
 *
 * Writes the whole output, synchronously.
 */
void
gcg__frame_cpu_run (const GcgFrameChainConfig *config,
    const GcgFrameKernelParams *kp)
{
  gint32 w = kp->out_width, h = kp->out_height;
  GcgFmShape s = gcg_fm_shape (kp);

  if (config->output == GCG_OUTPUT_KIND_TENSOR) {
    for (gint32 n = 0; n < kp->n_items; n++)
      for (gint32 y = 0; y < h; y++)
        for (gint32 x = 0; x < w; x++)
          gcg_fm_tensor_pixel (kp, s, n, x, y);
  } else if (gcg__pixel_format_is_yuv420 (config->out_format)) {
    for (gint32 by = 0; by < (h + 1) / 2; by++)
      for (gint32 bx = 0; bx < (w + 1) / 2; bx++)
        gcg_fm_yuv420_block (kp, s, bx, by);
  } else {
    for (gint32 y = 0; y < h; y++)
      for (gint32 x = 0; x < w; x++)
        gcg_fm_video_pixel (kp, s, x, y);
  }
}
