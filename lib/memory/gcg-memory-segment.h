/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-memory-block.h"

G_BEGIN_DECLS

/**
 * GcgMemorySegment:
 * @address: device address of the segment
 * @size: size of the segment in bytes
 * @stream: handle (CUstream) of the stream the segment serves; 0 for the
 *   default stream
 * @small_pool: %TRUE for a 2 MiB segment of the small-request pool
 * @blocks: (element-type GcgMemoryBlock): the blocks tiling the segment,
 *   in address order
 *
 * One segment of a #GcgAllocator snapshot: a device allocation the
 * allocator holds and the blocks it is cut into.
 *
 * Since: 0.1
 */
typedef struct
{
  guint64 address;
  guint64 size;
  guint64 stream;
  gboolean small_pool;
  GPtrArray *blocks;
} GcgMemorySegment;

#define GCG_TYPE_MEMORY_SEGMENT (gcg_memory_segment_get_type ())
GCG_API
GType gcg_memory_segment_get_type (void);

GCG_API
GcgMemorySegment *gcg_memory_segment_copy (const GcgMemorySegment *segment);

GCG_API
void gcg_memory_segment_free (GcgMemorySegment *segment);

GCG_API
GPtrArray *gcg_memory_segment_get_blocks (GcgMemorySegment *segment);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgMemorySegment, gcg_memory_segment_free)

G_END_DECLS
