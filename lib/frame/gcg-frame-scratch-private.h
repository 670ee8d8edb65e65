/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The scratch copy of a frame's input planes that a user kernel BEFORE
 * the built-in op writes and the built-in op then reads (the input
 * buffer is not ours to write).  One device allocation per stream, made
 * on the stream's first frame and sized from the chain's configuration
 * (tight rows rounded up to 256 bytes), so two frames in flight on two
 * streams never share it.  The built-in op is not re-captured: its
 * source-plane pointers and pitches are redirected in the per-frame
 * struct, like every per-frame value.
 */
#pragma once

#include "gcg-frame-stage-private.h"
#include "kernels/gcg-frame-kernel-params.h"

G_BEGIN_DECLS

/* Bound on one stream's scratch: a 16384 × 16384 RGBA input. */
#define GCG_FRAME_SCRATCH_MAX_BYTES ((gsize) 1 << 30)

typedef struct _GcgFrameScratch GcgFrameScratch;

GcgFrameScratch *gcg__frame_scratch_new (GcgContext *context,
    const GcgFrameChainConfig *config, GError **error);

void gcg__frame_scratch_free (GcgFrameScratch *self);

gboolean gcg__frame_scratch_redirect (GcgFrameScratch *self, GcgStream *stream,
    const GcgFrameParams *params, GcgFrameKernelParams *kp,
    const GcgFrameStageIo *io, GcgFrameStageIo *before, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgFrameScratch, gcg__frame_scratch_free)

G_END_DECLS
