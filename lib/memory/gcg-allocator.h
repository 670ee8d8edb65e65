/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-allocator-stats.h"
#include "gcg-memory-segment.h"
#include "gcg-stream.h"

G_BEGIN_DECLS

#define GCG_TYPE_ALLOCATOR (gcg_allocator_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgAllocator, gcg_allocator, GCG, ALLOCATOR, GObject)

GCG_API
GcgAllocator *gcg_allocator_new (GcgContext *context, GError **error);

GCG_API
GcgContext *gcg_allocator_get_context (GcgAllocator *self);

GCG_API
gboolean gcg_allocator_alloc (GcgAllocator *self, gsize size, GcgStream *stream,
    guint64 *out_ptr, GError **error);

GCG_API
void gcg_allocator_free (GcgAllocator *self, guint64 ptr);

GCG_API
gboolean gcg_allocator_record_stream (GcgAllocator *self, guint64 ptr,
    GcgStream *stream, GError **error);

GCG_API
void gcg_allocator_empty_cache (GcgAllocator *self);

GCG_API
GcgAllocatorStats *gcg_allocator_get_stats (GcgAllocator *self);

GCG_API
void gcg_allocator_reset_peak_stats (GcgAllocator *self);

GCG_API
GPtrArray *gcg_allocator_snapshot (GcgAllocator *self);

GCG_API
guint64 gcg_allocator_get_max_split_size (GcgAllocator *self);

GCG_API
void gcg_allocator_set_max_split_size (GcgAllocator *self,
    guint64 max_split_size);

G_END_DECLS
