/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-frame-batch.h"
#include "kernels/gcg-frame-kernel-params.h"

G_BEGIN_DECLS

void gcg__frame_batch_chain_config (const GcgFrameBatchConfig *config,
    const GcgFrameBatchSource *source, GcgFrameChainConfig *chain);

gsize gcg__frame_batch_params_size (const GcgFrameBatchConfig *config);
gsize gcg__frame_batch_params_stride (const GcgFrameBatchConfig *config);

G_END_DECLS
