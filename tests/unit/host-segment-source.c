/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "host-segment-source.h"
#include "gcg-error.h"

/* Unallocated space between segments, so neighbours never touch. */
#define GAP ((guint64) 1 << 20)

static GcgSegmentResult
host_alloc_segment (gpointer user_data, gsize size, guint64 *addr,
    GError **error)
{
  HostSource *src = user_data;

  src->alloc_calls++;
  if (src->fail_hard) {
    src->fail_hard = FALSE;
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_DRIVER,
        "host source: failure on demand");
    return GCG_SEGMENT_FAILED;
  }
  if (src->fail_next > 0) {
    src->fail_next--;
    return GCG_SEGMENT_OUT_OF_MEMORY;
  }
  if (size > src->capacity - src->reserved)
    return GCG_SEGMENT_OUT_OF_MEMORY;
  *addr = src->next_addr;
  src->next_addr += size + GAP;
  src->reserved += size;
  g_hash_table_insert (src->segments, g_memdup2 (addr, sizeof (*addr)),
      g_memdup2 (&(guint64) { size }, sizeof (guint64)));
  return GCG_SEGMENT_OK;
}

static void
host_free_segment (gpointer user_data, guint64 addr, gsize size)
{
  HostSource *src = user_data;
  guint64 *known = g_hash_table_lookup (src->segments, &addr);

  g_assert_nonnull (known);
  g_assert_cmpuint (*known, ==, size);
  g_hash_table_remove (src->segments, &addr);
  src->reserved -= size;
}

static gboolean
host_get_free_memory (gpointer user_data, guint64 *free_bytes)
{
  *free_bytes = ((HostSource *) user_data)->free_memory;
  return TRUE;
}

static gboolean
host_event_fails (HostSource *src, GError **error)
{
  if (src->fail_events == 0)
    return FALSE;
  src->fail_events--;
  g_set_error_literal (error, GCG_ERROR, GCG_ERROR_DRIVER, "event failed");
  return TRUE;
}

static gpointer
host_event_create (gpointer user_data, GError **error)
{
  HostSource *src = user_data;
  HostEvent *event;

  if (host_event_fails (src, error))
    return NULL;
  event = g_new0 (HostEvent, 1);
  src->events_created++;
  g_ptr_array_add (src->events, event);
  return event;
}

static gboolean
host_event_record (gpointer user_data, gpointer event, gpointer stream,
    GError **error)
{
  HostEvent *e = event;

  if (host_event_fails (user_data, error))
    return FALSE;
  e->stream = stream;
  e->recorded = TRUE;
  e->complete = FALSE;
  return TRUE;
}

static gboolean
host_event_query (gpointer user_data, gpointer event)
{
  return ((HostEvent *) event)->complete;
}

static void
host_event_synchronize (gpointer user_data, gpointer event)
{
  ((HostEvent *) event)->complete = TRUE;
}

static void
host_event_destroy (gpointer user_data, gpointer event)
{
  HostSource *src = user_data;

  g_assert_true (g_ptr_array_remove_fast (src->events, event));
  g_free (event);
}

/* Events are never complete on their own here, so waiting for a stream is
 * completing every event recorded on it. */
static gboolean
host_stream_synchronize (gpointer user_data, gpointer stream, GError **error)
{
  HostSource *src = user_data;

  if (src->fail_stream_sync) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_DRIVER, "sync failed");
    return FALSE;
  }
  src->stream_syncs++;
  host_source_complete_stream (src, stream);
  return TRUE;
}

const GcgSegmentSource host_segment_source = {
  .alloc_segment = host_alloc_segment,
  .free_segment = host_free_segment,
  .get_free_memory = host_get_free_memory,
  .event_create = host_event_create,
  .event_record = host_event_record,
  .event_query = host_event_query,
  .event_synchronize = host_event_synchronize,
  .event_destroy = host_event_destroy,
  .stream_synchronize = host_stream_synchronize,
};

HostSource *
host_source_new (guint64 capacity)
{
  HostSource *src = g_new0 (HostSource, 1);

  src->capacity = capacity;
  src->free_memory = G_GUINT64_CONSTANT (1) << 20;
  src->next_addr = G_GUINT64_CONSTANT (0x7f0000000000);
  src->segments =
      g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  src->events = g_ptr_array_new ();
  return src;
}

/* Checks that the allocator gave everything back before it went. */
void
host_source_free (HostSource *src)
{
  g_assert_cmpuint (g_hash_table_size (src->segments), ==, 0);
  g_assert_cmpuint (src->events->len, ==, 0);
  g_hash_table_unref (src->segments);
  g_ptr_array_unref (src->events);
  g_free (src);
}

/* Completes the work of @stream recorded so far. */
void
host_source_complete_stream (HostSource *src, gpointer stream)
{
  for (guint i = 0; i < src->events->len; i++) {
    HostEvent *e = src->events->pdata[i];

    if (e->recorded && e->stream == stream)
      e->complete = TRUE;
  }
}

guint
host_source_pending_events (HostSource *src)
{
  guint n = 0;

  for (guint i = 0; i < src->events->len; i++) {
    HostEvent *e = src->events->pdata[i];

    n += e->recorded && !e->complete;
  }
  return n;
}

/* The blocks of one segment tile it, and free space is always merged. */
static void
check_segment (const GcgMemorySegment *seg, GcgAllocatorStats *sums)
{
  guint64 at = seg->address;

  g_assert_cmpuint (seg->blocks->len, >, 0);
  g_assert_true (seg->small_pool == (seg->size == GCG_BLOCK_SMALL_SEGMENT));
  for (guint i = 0; i < seg->blocks->len; i++) {
    const GcgMemoryBlock *b = seg->blocks->pdata[i];

    g_assert_cmpuint (b->address, ==, at);
    g_assert_cmpuint (b->size, >, 0);
    g_assert_cmpuint (b->size % GCG_BLOCK_MIN_SIZE, ==, 0);
    at += b->size;
    if (b->state == GCG_MEMORY_BLOCK_ALLOCATED) {
      g_assert_cmpuint (b->requested_size, >, 0);
      g_assert_cmpuint (b->requested_size, <=, b->size);
      sums->allocated_bytes += b->size;
      sums->requested_bytes += b->requested_size;
    } else {
      g_assert_cmpuint (b->requested_size, ==, 0);
    }
    if (b->state != GCG_MEMORY_BLOCK_FREE)
      sums->active_bytes += b->size;
    if (i > 0 && b->state == GCG_MEMORY_BLOCK_FREE) {
      const GcgMemoryBlock *prev = seg->blocks->pdata[i - 1];

      g_assert_cmpint (prev->state, !=, GCG_MEMORY_BLOCK_FREE);
    }
  }
  g_assert_cmpuint (at, ==, seg->address + seg->size);
}

/* Checks a snapshot against the source's segments and the statistics:
 * segments are the ones the source handed out, blocks tile them, and
 * every figure in @stats is what the blocks add up to. */
void
host_source_check (HostSource *src, GPtrArray *snapshot,
    const GcgAllocatorStats *stats)
{
  GcgAllocatorStats sums = { 0 };
  guint64 end = 0;

  g_assert_cmpuint (snapshot->len, ==, g_hash_table_size (src->segments));
  for (guint i = 0; i < snapshot->len; i++) {
    const GcgMemorySegment *seg = snapshot->pdata[i];
    guint64 *size = g_hash_table_lookup (src->segments, &seg->address);

    g_assert_nonnull (size);
    g_assert_cmpuint (*size, ==, seg->size);
    g_assert_cmpuint (seg->address, >=, end);
    end = seg->address + seg->size;
    sums.reserved_bytes += seg->size;
    check_segment (seg, &sums);
  }
  g_assert_cmpuint (stats->segments, ==, snapshot->len);
  g_assert_cmpuint (stats->reserved_bytes, ==, sums.reserved_bytes);
  g_assert_cmpuint (stats->reserved_bytes, ==, src->reserved);
  g_assert_cmpuint (stats->allocated_bytes, ==, sums.allocated_bytes);
  g_assert_cmpuint (stats->requested_bytes, ==, sums.requested_bytes);
  g_assert_cmpuint (stats->active_bytes, ==, sums.active_bytes);
  g_assert_cmpuint (stats->allocated_bytes_peak, >=, stats->allocated_bytes);
  g_assert_cmpuint (stats->reserved_bytes_peak, >=, stats->reserved_bytes);
  g_assert_cmpuint (stats->active_bytes_peak, >=, stats->active_bytes);
  g_assert_cmpuint (stats->requested_bytes_peak, >=, stats->requested_bytes);
  g_assert_cmpuint (stats->device_allocs - stats->device_frees, ==,
      stats->segments);
}
