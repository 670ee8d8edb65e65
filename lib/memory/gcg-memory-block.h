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
 * GcgMemoryBlockState:
 * @GCG_MEMORY_BLOCK_FREE: cached, ready for reuse on the segment's stream
 * @GCG_MEMORY_BLOCK_ALLOCATED: handed out and not yet freed
 * @GCG_MEMORY_BLOCK_PENDING: freed, but work recorded on other streams
 *   may still use it; it is reused once that work has completed
 *
 * State of a block in a #GcgAllocator snapshot.
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_MEMORY_BLOCK_FREE,
  GCG_MEMORY_BLOCK_ALLOCATED,
  GCG_MEMORY_BLOCK_PENDING,
} GcgMemoryBlockState;

/**
 * GcgMemoryBlock:
 * @address: device address of the block
 * @size: size of the block in bytes
 * @requested_size: bytes the caller asked for (0 unless allocated)
 * @state: whether the block is free, allocated or pending
 *
 * One block of a #GcgMemorySegment in a snapshot.
 *
 * Since: 0.1
 */
typedef struct
{
  guint64 address;
  guint64 size;
  guint64 requested_size;
  GcgMemoryBlockState state;
} GcgMemoryBlock;

#define GCG_TYPE_MEMORY_BLOCK (gcg_memory_block_get_type ())
GCG_API
GType gcg_memory_block_get_type (void);

GCG_API
GcgMemoryBlock *gcg_memory_block_copy (const GcgMemoryBlock *block);

GCG_API
void gcg_memory_block_free (GcgMemoryBlock *block);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgMemoryBlock, gcg_memory_block_free)

G_END_DECLS
