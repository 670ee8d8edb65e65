/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The segment source of a GcgAllocator on a real device: segments from
 * cuMemAlloc, stream uses tracked with timing-free CUevents (the block
 * allocator keeps completed ones for reuse).  user_data is the
 * GcgContext; each callback makes it current for its own calls.
 */
#pragma once

#include "gcg-block-allocator-private.h"

G_BEGIN_DECLS

extern const GcgSegmentSource gcg__device_segment_source;

G_END_DECLS
