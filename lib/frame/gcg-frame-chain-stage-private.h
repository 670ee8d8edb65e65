/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Stages after a frame chain's built-in op, in the same captured graph
 * (issue 20: "letterbox → normalise → my op" is one replay).  A stage of
 * a chain sees the chain's output (params->dst) as both its input
 * (@chain_out) and its output (@out): it works in place on the buffer the
 * chain wrote, so no extra buffer is needed.  A stage BEFORE the op reads
 * the input planes and writes a scratch copy of them (allocated once per
 * stream, gcg-frame-scratch-private.h) that the op then reads instead.
 */
#pragma once

#include "gcg-frame-types.h"
#include "gcg-frame-stage-private.h"

G_BEGIN_DECLS

GCG_PRIVATE_API GcgFrameChain *gcg__frame_chain_new_stages_only (
    const GcgFrameChainConfig *config, GcgContext *context, GError **error);

GCG_PRIVATE_API gboolean gcg__frame_chain_add_stage (GcgFrameChain *self,
    GcgFrameStage *stage, GError **error);

GCG_PRIVATE_API GcgFrameBatch *gcg__frame_chain_get_batch (GcgFrameChain *self);

GCG_PRIVATE_API void gcg__frame_chain_set_value_lookup (GcgFrameChain *self,
    GcgFrameValueLookup lookup, gpointer user_data);

G_END_DECLS
