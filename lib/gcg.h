/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one header of libgcg-1.0: #include <gcg/gcg.h>
 */
#pragma once

#define GCG_INSIDE
#include "gcg-version.h"
#include "gcg-error.h"
#include "gcg-enum-types.h"
#include "gcg-driver.h"
#include "gcg-context.h"
#include "gcg-stream.h"
#include "gcg-fence.h"
#include "gcg-capture-pool.h"
#include "gcg-graph.h"
#include "gcg-capture.h"
#include "gcg-param-block.h"
#include "gcg-device-scalar.h"
#include "gcg-dispatch-graph.h"
#include "gcg-allocator-stats.h"
#include "gcg-memory-block.h"
#include "gcg-memory-segment.h"
#include "gcg-allocator.h"
#include "gcg-host-pool.h"
#include "gcg-frame-types.h"
#include "gcg-frame-chain.h"
#include "gcg-frame-item-map.h"
#include "gcg-frame-batch.h"
#include "gcg-frame-queue.h"
#include "gcg-model-graph.h"
#include "gcg-kernel-op.h"
#include "gcg-result.h"
#undef GCG_INSIDE
