/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The engine behind a #GcgFrameChain: a #GcgFrameBatch of one frame
 * (gcg_frame_batch_new_for_frame()), which the frame queue runs.  Stages,
 * scratch copies and named values are the batch's
 * (gcg-frame-batch-private.h).
 */
#pragma once

#include "gcg-frame-types.h"
#include "gcg-frame-stage-private.h"

G_BEGIN_DECLS

GCG_PRIVATE_API GcgFrameBatch *gcg__frame_chain_get_batch (GcgFrameChain *self);

G_END_DECLS
