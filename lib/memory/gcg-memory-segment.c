/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-memory-segment.h"

G_DEFINE_BOXED_TYPE (GcgMemorySegment, gcg_memory_segment,
    gcg_memory_segment_copy, gcg_memory_segment_free);

static gpointer
copy_block (gconstpointer block, gpointer unused)
{
  return gcg_memory_block_copy (block);
}

/**
 * gcg_memory_segment_copy:
 * @segment: a #GcgMemorySegment
 *
 * Copies a #GcgMemorySegment and its blocks.
 *
 * Returns: (transfer full): a deep copy of @segment, blocks included
 *
 * Since: 0.1
 */
GcgMemorySegment *
gcg_memory_segment_copy (const GcgMemorySegment *segment)
{
  GcgMemorySegment *copy;

  g_return_val_if_fail (segment != NULL, NULL);

  copy = g_memdup2 (segment, sizeof (*segment));
  copy->blocks = g_ptr_array_copy (segment->blocks, copy_block, NULL);
  g_ptr_array_set_free_func (copy->blocks,
      (GDestroyNotify) gcg_memory_block_free);
  return copy;
}

/**
 * gcg_memory_segment_free:
 * @segment: (transfer full): a #GcgMemorySegment
 *
 * Frees a #GcgMemorySegment and its blocks.
 *
 * Since: 0.1
 */
void
gcg_memory_segment_free (GcgMemorySegment *segment)
{
  if (segment == NULL)
    return;
  g_clear_pointer (&segment->blocks, g_ptr_array_unref);
  g_free (segment);
}

/**
 * gcg_memory_segment_get_blocks:
 * @segment: a #GcgMemorySegment
 *
 * Gets the blocks of a segment of an allocator snapshot.
 *
 * Returns: (transfer none) (element-type GcgMemoryBlock): the blocks
 *   tiling the segment, in address order
 *
 * Since: 0.1
 */
GPtrArray *
gcg_memory_segment_get_blocks (GcgMemorySegment *segment)
{
  g_return_val_if_fail (segment != NULL, NULL);
  return segment->blocks;
}
