/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include <glib-object.h>
#include "gcg-version.h"

G_BEGIN_DECLS

/**
 * GcgAllocatorStats:
 * @allocated_bytes: bytes in blocks handed out and not yet freed (rounded
 *   block sizes, so at least @requested_bytes)
 * @allocated_bytes_peak: highest @allocated_bytes since the last reset
 * @reserved_bytes: bytes in segments held from the device, in use or cached
 * @reserved_bytes_peak: highest @reserved_bytes since the last reset
 * @active_bytes: @allocated_bytes plus freed blocks still waiting for work
 *   on other streams (see gcg_allocator_record_stream())
 * @active_bytes_peak: highest @active_bytes since the last reset
 * @requested_bytes: bytes callers asked for, over the blocks in
 *   @allocated_bytes
 * @requested_bytes_peak: highest @requested_bytes since the last reset
 * @segments: segments held from the device
 * @cache_hits: allocations served from cached blocks
 * @cache_misses: allocations that needed a new segment
 * @device_allocs: segments allocated from the device
 * @device_frees: segments given back to the device
 * @alloc_retries: allocations that freed the cache and retried after the
 *   device ran out of memory
 * @oom_count: allocations that failed for lack of device memory
 *
 * Counters of a #GcgAllocator, as gcg_allocator_get_stats() returns them.
 * Peaks restart from the current values with
 * gcg_allocator_reset_peak_stats().
 *
 * Since: 0.1
 */
typedef struct
{
  guint64 allocated_bytes;
  guint64 allocated_bytes_peak;
  guint64 reserved_bytes;
  guint64 reserved_bytes_peak;
  guint64 active_bytes;
  guint64 active_bytes_peak;
  guint64 requested_bytes;
  guint64 requested_bytes_peak;
  guint64 segments;
  guint64 cache_hits;
  guint64 cache_misses;
  guint64 device_allocs;
  guint64 device_frees;
  guint64 alloc_retries;
  guint64 oom_count;
} GcgAllocatorStats;

#define GCG_TYPE_ALLOCATOR_STATS (gcg_allocator_stats_get_type ())
GCG_API
GType gcg_allocator_stats_get_type (void);

GCG_API
GcgAllocatorStats *gcg_allocator_stats_copy (const GcgAllocatorStats *stats);

GCG_API
void gcg_allocator_stats_free (GcgAllocatorStats *stats);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgAllocatorStats, gcg_allocator_stats_free)

G_END_DECLS
