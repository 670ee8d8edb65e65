/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What the frame-chain backends share: the host-side preparation of the
 * kernel struct (one function for both backends, so both see the same
 * crop, fit and coefficients) and the CPU reference loops.
 */
#pragma once

#include "gcg-frame-types.h"
#include "kernels/gcg-frame-kernel-params.h"

G_BEGIN_DECLS

void gcg__frame_prepare_static (const GcgFrameChainConfig *config,
    GcgFrameKernelParams *kp);

gboolean gcg__frame_check_params (const GcgFrameChainConfig *config,
    const GcgFrameParams *params, GError **error);

void gcg__frame_prepare_frame (const GcgFrameChainConfig *config,
    const GcgFrameParams *params, GcgFrameKernelParams *kp);

void gcg__frame_fit (GcgLetterbox letterbox, gint32 cw, gint32 ch, gint32 ow,
    gint32 oh, gint32 *px, gint32 *py, gint32 *sw, gint32 *sh);

void gcg__frame_cpu_run (const GcgFrameChainConfig *config,
    const GcgFrameKernelParams *kp);

/* The launch of a fused kernel: the name of its *4 instantiation (several
 * pixels per thread) or of its one-pixel-per-thread one, whichever is
 * faster for @items items of @width × @height pixels (see
 * gcg-frame-launch.c; GCG_FRAME_KERNELS=1 or =4 forces one), and the grid
 * of @block threads covering them (the *4 kernels cover GCG_FK_PX ×
 * @rows4 pixels a thread). */
void gcg__frame_kernel_launch (const gchar *family, const gchar *suffix,
    guint width, guint height, guint items, guint rows4, const guint block[2],
    guint grid[2], gchar *name, gsize size);

gboolean gcg__pixel_format_is_yuv420 (GcgPixelFormat format);
guint gcg__pixel_format_n_planes (GcgPixelFormat format);
gsize gcg__pixel_format_row_bytes (GcgPixelFormat format, guint plane,
    guint width);
guint gcg__pixel_format_plane_height (GcgPixelFormat format, guint plane,
    guint height);

G_END_DECLS
