/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The caching block allocator: PyTorch's CUDACachingAllocator block logic
 * in plain C.  It never calls the driver itself: segments come from a
 * GcgSegmentSource, and stream use is tracked through the source's events,
 * so the whole engine runs in unit tests on machines without a GPU.
 *
 * Not thread-safe: the owner (GcgAllocator) serialises every call.
 */
#pragma once

#include "gcg-allocator-stats.h"
#include "gcg-memory-segment.h"

G_BEGIN_DECLS

/* Sizes and thresholds, as in PyTorch. */
#define GCG_BLOCK_MIN_SIZE ((gsize) 512)        /* rounding unit */
#define GCG_BLOCK_SMALL_SIZE ((gsize) 1 << 20)  /* largest small request */
#define GCG_BLOCK_SMALL_SEGMENT ((gsize) 2 << 20)
#define GCG_BLOCK_MIN_LARGE_ALLOC ((gsize) 10 << 20)
#define GCG_BLOCK_LARGE_SEGMENT ((gsize) 20 << 20)
#define GCG_BLOCK_ROUND_LARGE ((gsize) 2 << 20)

typedef enum
{
  GCG_SEGMENT_OK,
  GCG_SEGMENT_OUT_OF_MEMORY,    /* worth freeing the cache and retrying */
  GCG_SEGMENT_FAILED,           /* anything else; the GError says what */
} GcgSegmentResult;

/* Where segments and events come from.  Streams and events are opaque
 * pointers to the engine (NULL is a valid stream: the default one).
 * Every callback gets the user_data given to gcg__block_allocator_new(). */
typedef struct
{
  /* Reserves @size bytes at a new address; returns OUT_OF_MEMORY without
   * setting @error when memory is exhausted. */
  GcgSegmentResult (*alloc_segment) (gpointer user_data, gsize size,
      guint64 *addr, GError **error);
  void (*free_segment) (gpointer user_data, guint64 addr, gsize size);
  /* Memory still free where segments come from, for the OOM message;
   * FALSE when unknown. */
  gboolean (*get_free_memory) (gpointer user_data, guint64 *free_bytes);

  gpointer (*event_create) (gpointer user_data, GError **error);
  gboolean (*event_record) (gpointer user_data, gpointer event, gpointer stream,
      GError **error);
  /* TRUE once the work recorded before the event has completed. */
  gboolean (*event_query) (gpointer user_data, gpointer event);
  void (*event_synchronize) (gpointer user_data, gpointer event);
  void (*event_destroy) (gpointer user_data, gpointer event);
  /* Waits for the work queued on @stream: the fallback when no event can
   * be created or recorded for a stream use. */
  gboolean (*stream_synchronize) (gpointer user_data, gpointer stream,
      GError **error);
} GcgSegmentSource;

typedef struct _GcgBlockAllocator GcgBlockAllocator;

GcgBlockAllocator *gcg__block_allocator_new (const GcgSegmentSource *source,
    gpointer user_data, const gchar *device_desc);
void gcg__block_allocator_free (GcgBlockAllocator *self);

gsize gcg__block_allocator_round_size (gsize size);
gsize gcg__block_allocator_segment_size (gsize rounded);

void gcg__block_allocator_set_max_split_size (GcgBlockAllocator *self,
    gsize max_split_size);
gsize gcg__block_allocator_get_max_split_size (GcgBlockAllocator *self);

gboolean gcg__block_allocator_alloc (GcgBlockAllocator *self, gsize size,
    gpointer stream, guint64 *addr, GError **error);
gboolean gcg__block_allocator_release (GcgBlockAllocator *self, guint64 addr);
gboolean gcg__block_allocator_record_stream (GcgBlockAllocator *self,
    guint64 addr, gpointer stream, GError **error);
void gcg__block_allocator_process_events (GcgBlockAllocator *self);
void gcg__block_allocator_empty_cache (GcgBlockAllocator *self);

void gcg__block_allocator_get_stats (GcgBlockAllocator *self,
    GcgAllocatorStats *stats);
void gcg__block_allocator_reset_peak_stats (GcgBlockAllocator *self);
GPtrArray *gcg__block_allocator_snapshot (GcgBlockAllocator *self);

G_END_DECLS
