/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-memory-block.h"

G_DEFINE_BOXED_TYPE (GcgMemoryBlock, gcg_memory_block, gcg_memory_block_copy,
    gcg_memory_block_free);

/**
 * gcg_memory_block_copy:
 * @block: a #GcgMemoryBlock
 *
 * Copies a #GcgMemoryBlock.
 *
 * Returns: (transfer full): a copy of @block
 *
 * Since: 0.1
 */
GcgMemoryBlock *
gcg_memory_block_copy (const GcgMemoryBlock *block)
{
  g_return_val_if_fail (block != NULL, NULL);
  return g_memdup2 (block, sizeof (*block));
}

/**
 * gcg_memory_block_free:
 * @block: (transfer full): a #GcgMemoryBlock
 *
 * Frees a #GcgMemoryBlock.
 *
 * Since: 0.1
 */
void
gcg_memory_block_free (GcgMemoryBlock *block)
{
  g_free (block);
}
