/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-allocator-stats.h"

G_DEFINE_BOXED_TYPE (GcgAllocatorStats, gcg_allocator_stats,
    gcg_allocator_stats_copy, gcg_allocator_stats_free);

/**
 * gcg_allocator_stats_copy:
 * @stats: a #GcgAllocatorStats
 *
 * Copies a #GcgAllocatorStats.
 *
 * Returns: (transfer full): a copy of @stats
 *
 * Since: 0.1
 */
GcgAllocatorStats *
gcg_allocator_stats_copy (const GcgAllocatorStats *stats)
{
  g_return_val_if_fail (stats != NULL, NULL);
  return g_memdup2 (stats, sizeof (*stats));
}

/**
 * gcg_allocator_stats_free:
 * @stats: (transfer full): a #GcgAllocatorStats
 *
 * Frees a #GcgAllocatorStats.
 *
 * Since: 0.1
 */
void
gcg_allocator_stats_free (GcgAllocatorStats *stats)
{
  g_free (stats);
}
