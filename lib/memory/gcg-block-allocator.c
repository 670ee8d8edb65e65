/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The caching block allocator (see gcg-block-allocator-private.h).
 *
 * Segments are cut into blocks that tile them, linked to their neighbours.
 * Free blocks sit in one of two ordered sets (small and large pool) keyed
 * by (stream, size, address), so a best fit for a stream is the lower bound
 * of (stream, size, 0).  A split keeps the lower part in the block being
 * handed out and a merge always lets the lower block absorb the higher
 * one, so the first block of a segment is the same object for the
 * segment's whole life.
 */
#include "gcg-block-allocator-private.h"
#include "gcg-addr-map-private.h"
#include "gcg-block-set-private.h"
#include "gcg-error.h"

/* Larger requests cannot be rounded without overflow. */
#define MAX_REQUEST (G_MAXSIZE / 2)

typedef struct
{
  GList link;                   /* in segments; data points here */
  GcgBlock *head;
  gsize size;
} Segment;

typedef struct
{
  GList link;                   /* in pending; data points here */
  gpointer event;
  GcgBlock *block;
} PendingEvent;

struct _GcgBlockAllocator
{
  const GcgSegmentSource *source;
  gpointer user_data;
  gchar *device_desc;
  gsize max_split_size;

  GcgBlockSet small_pool;
  GcgBlockSet large_pool;
  GcgAddrMap allocated;         /* address -> GcgBlock */
  GcgBlock *spare_blocks;       /* recycled structs, linked by next */
  GQueue segments;
  GQueue pending;
  GPtrArray *spare_events;

  GcgAllocatorStats stats;
};

/* Splits and merges make and drop block structs on the fast path: keep
 * the dropped ones for reuse rather than go through malloc each time. */
static GcgBlock *
block_new (GcgBlockAllocator *self)
{
  GcgBlock *block = self->spare_blocks;

  if (block == NULL)
    return g_new0 (GcgBlock, 1);
  self->spare_blocks = block->next;
  memset (block, 0, sizeof (*block));
  return block;
}

static void
block_free (GcgBlockAllocator *self, GcgBlock *block)
{
  g_clear_pointer (&block->stream_uses, g_ptr_array_unref);
  block->next = self->spare_blocks;
  self->spare_blocks = block;
}

static GcgBlockSet *
pool_of (GcgBlockAllocator *self, const GcgBlock *block)
{
  return block->small ? &self->small_pool : &self->large_pool;
}

static void
stat_add (guint64 *current, guint64 *peak, guint64 n)
{
  *current += n;
  if (*current > *peak)
    *peak = *current;
}

GcgBlockAllocator *
gcg__block_allocator_new (const GcgSegmentSource *source, gpointer user_data,
    const gchar *device_desc)
{
  GcgBlockAllocator *self = g_new0 (GcgBlockAllocator, 1);

  self->source = source;
  self->user_data = user_data;
  self->device_desc = g_strdup (device_desc);
  self->max_split_size = G_MAXSIZE;
  gcg__block_set_init (&self->small_pool);
  gcg__block_set_init (&self->large_pool);
  gcg__addr_map_init (&self->allocated);
  g_queue_init (&self->segments);
  g_queue_init (&self->pending);
  self->spare_events = g_ptr_array_new ();
  return self;
}

/* Every request is a multiple of 512 bytes, at least 512. */
gsize
gcg__block_allocator_round_size (gsize size)
{
  if (size < GCG_BLOCK_MIN_SIZE)
    return GCG_BLOCK_MIN_SIZE;
  return (size + GCG_BLOCK_MIN_SIZE - 1) / GCG_BLOCK_MIN_SIZE
      * GCG_BLOCK_MIN_SIZE;
}

/* Size of the segment a new block of @rounded bytes is cut from. */
gsize
gcg__block_allocator_segment_size (gsize rounded)
{
  if (rounded <= GCG_BLOCK_SMALL_SIZE)
    return GCG_BLOCK_SMALL_SEGMENT;
  if (rounded < GCG_BLOCK_MIN_LARGE_ALLOC)
    return GCG_BLOCK_LARGE_SEGMENT;
  return (rounded + GCG_BLOCK_ROUND_LARGE - 1) / GCG_BLOCK_ROUND_LARGE
      * GCG_BLOCK_ROUND_LARGE;
}

void
gcg__block_allocator_set_max_split_size (GcgBlockAllocator *self,
    gsize max_split_size)
{
  self->max_split_size = max_split_size;
}

gsize
gcg__block_allocator_get_max_split_size (GcgBlockAllocator *self)
{
  return self->max_split_size;
}

/* The smallest free block of @stream that fits @size, unless the only fit
 * is an oversize block (at least max-split-size) that would be wasted on
 * this request: those only serve oversize requests, and not much smaller
 * ones. */
static GcgBlock *
find_free_block (GcgBlockAllocator *self, GcgBlockSet *pool, gpointer stream,
    gsize size)
{
  GcgBlock *block = gcg__block_set_lower_bound (pool, stream, size);

  if (block == NULL || block->stream != stream)
    return NULL;
  if (size < self->max_split_size && block->size >= self->max_split_size)
    return NULL;
  if (size >= self->max_split_size
      && block->size >= size + GCG_BLOCK_LARGE_SEGMENT)
    return NULL;
  return block;
}

/* Small blocks split whenever a minimum block remains; large ones only
 * when more than 1 MiB would remain and the request is below
 * max-split-size (oversize blocks are handed out whole). */
static gboolean
should_split (GcgBlockAllocator *self, const GcgBlock *block, gsize size)
{
  gsize remaining = block->size - size;

  if (block->small)
    return remaining >= GCG_BLOCK_MIN_SIZE;
  return size < self->max_split_size && remaining > GCG_BLOCK_SMALL_SIZE;
}

/* Cuts @block down to @size; the rest becomes a free block after it. */
static void
split_block (GcgBlockAllocator *self, GcgBlock *block, gsize size)
{
  GcgBlock *rest = block_new (self);

  rest->addr = block->addr + size;
  rest->size = block->size - size;
  rest->stream = block->stream;
  rest->small = block->small;
  rest->state = GCG_MEMORY_BLOCK_FREE;
  rest->prev = block;
  rest->next = block->next;
  if (rest->next)
    rest->next->prev = rest;
  block->next = rest;
  block->size = size;
  gcg__block_set_insert (pool_of (self, rest), rest);
}

/* @low takes over its higher neighbour, which must be out of the pool. */
static void
absorb_next (GcgBlockAllocator *self, GcgBlock *low)
{
  GcgBlock *high = low->next;

  low->size += high->size;
  low->next = high->next;
  if (low->next)
    low->next->prev = low;
  block_free (self, high);
}

/* Puts a block no longer in use back in its pool, merged with free
 * neighbours so that free space is never fragmented needlessly. */
static void
return_block (GcgBlockAllocator *self, GcgBlock *block)
{
  GcgBlockSet *pool = pool_of (self, block);

  self->stats.active_bytes -= block->size;
  block->state = GCG_MEMORY_BLOCK_FREE;
  if (block->next && block->next->state == GCG_MEMORY_BLOCK_FREE) {
    gcg__block_set_remove (pool, block->next);
    absorb_next (self, block);
  }
  if (block->prev && block->prev->state == GCG_MEMORY_BLOCK_FREE) {
    block = block->prev;
    gcg__block_set_remove (pool, block);
    absorb_next (self, block);
  }
  gcg__block_set_insert (pool, block);
}

/* Recycles the event of a completed stream use; the block goes back to its
 * pool with the last one. */
static void
event_done (GcgBlockAllocator *self, PendingEvent *pending)
{
  GcgBlock *block = pending->block;

  g_ptr_array_add (self->spare_events, pending->event);
  g_free (pending);
  if (--block->event_count == 0)
    return_block (self, block);
}

/* Releases every block whose stream uses have all completed.  Cheap when
 * nothing is pending: the allocation fast path calls it. */
void
gcg__block_allocator_process_events (GcgBlockAllocator *self)
{
  GList *link = self->pending.head;

  while (link) {
    GList *next = link->next;
    PendingEvent *pending = link->data;

    if (self->source->event_query (self->user_data, pending->event)) {
      g_queue_unlink (&self->pending, link);
      event_done (self, pending);
    }
    link = next;
  }
}

/* Waits for every pending stream use (this blocks on the device). */
static void
synchronize_events (GcgBlockAllocator *self)
{
  GList *link;

  while ((link = g_queue_pop_head_link (&self->pending))) {
    PendingEvent *pending = link->data;

    self->source->event_synchronize (self->user_data, pending->event);
    event_done (self, pending);
  }
}

static void
release_segment (GcgBlockAllocator *self, Segment *segment)
{
  GcgBlock *head = segment->head;

  gcg__block_set_remove (pool_of (self, head), head);
  self->source->free_segment (self->user_data, head->addr, segment->size);
  self->stats.reserved_bytes -= segment->size;
  self->stats.segments--;
  self->stats.device_frees++;
  g_queue_unlink (&self->segments, &segment->link);
  block_free (self, head);
  g_free (segment);
}

/* Gives every entirely free segment back to the source, after waiting for
 * pending stream uses so their blocks count as free. */
void
gcg__block_allocator_empty_cache (GcgBlockAllocator *self)
{
  GList *link = self->segments.head;

  synchronize_events (self);
  while (link) {
    GList *next = link->next;
    Segment *segment = link->data;

    if (segment->head->state == GCG_MEMORY_BLOCK_FREE
        && segment->head->next == NULL)
      release_segment (self, segment);
    link = next;
  }
}

/* "30.0 GiB": g_format_size() puts a no-break space before the unit,
 * which messages grepped from logs do without. */
static gchar *
format_size (guint64 bytes)
{
  static const gchar *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
  gdouble value = bytes;
  guint unit = 0;

  if (bytes < 1024)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " bytes", bytes);
  value /= 1024;
  while (value >= 1024 && unit + 1 < G_N_ELEMENTS (units)) {
    value /= 1024;
    unit++;
  }
  return g_strdup_printf ("%.1f %s", value, units[unit]);
}

static void
set_oom_error (GcgBlockAllocator *self, gsize size, GError **error)
{
  g_autofree gchar *want = format_size (size);
  g_autofree gchar *allocated = format_size (self->stats.allocated_bytes);
  g_autofree gchar *reserved = format_size (self->stats.reserved_bytes);
  g_autofree gchar *free_str = NULL;
  guint64 free_bytes = 0;

  if (self->source->get_free_memory (self->user_data, &free_bytes))
    free_str = format_size (free_bytes);
  g_set_error (error, GCG_ERROR, GCG_ERROR_OUT_OF_MEMORY,
      "Out of device memory allocating %s on %s: %s allocated by "
      "gst-cudagraph, %s reserved, %s free on the device; free memory held "
      "by other users of the device, reduce batch or frame sizes, or lower "
      "the allocator's max-split-size if reserved is much above allocated",
      want, self->device_desc, allocated, reserved,
      free_str ? free_str : "unknown");
}

/* A new segment for a request of @size bytes (@rounded), returned as its
 * one free block, outside the pools.  When the source is out of memory the
 * cache is emptied and the source asked once more. */
static GcgBlock *
new_segment (GcgBlockAllocator *self, gpointer stream, gsize size,
    gsize rounded, GError **error)
{
  gsize segment_size = gcg__block_allocator_segment_size (rounded);
  const GcgSegmentSource *source = self->source;
  GcgSegmentResult res;
  Segment *segment;
  GcgBlock *head;
  guint64 addr = 0;

  res = source->alloc_segment (self->user_data, segment_size, &addr, error);
  if (res == GCG_SEGMENT_OUT_OF_MEMORY) {
    self->stats.alloc_retries++;
    gcg__block_allocator_empty_cache (self);
    res = source->alloc_segment (self->user_data, segment_size, &addr, error);
  }
  if (res == GCG_SEGMENT_OUT_OF_MEMORY) {
    self->stats.oom_count++;
    set_oom_error (self, size, error);
  }
  if (res != GCG_SEGMENT_OK)
    return NULL;

  head = block_new (self);
  head->addr = addr;
  head->size = segment_size;
  head->stream = stream;
  head->small = rounded <= GCG_BLOCK_SMALL_SIZE;
  head->state = GCG_MEMORY_BLOCK_FREE;
  segment = g_new0 (Segment, 1);
  segment->head = head;
  segment->size = segment_size;
  segment->link.data = segment;
  g_queue_push_tail_link (&self->segments, &segment->link);
  stat_add (&self->stats.reserved_bytes, &self->stats.reserved_bytes_peak,
      segment_size);
  self->stats.segments++;
  self->stats.device_allocs++;
  return head;
}

/* Allocates @size bytes for use on @stream.  A zero-byte request yields
 * address 0 and touches nothing.  On failure nothing changes but the
 * retry and OOM counters, and @error says why. */
gboolean
gcg__block_allocator_alloc (GcgBlockAllocator *self, gsize size,
    gpointer stream, guint64 *addr, GError **error)
{
  GcgBlockSet *pool;
  GcgBlock *block;
  gsize rounded;

  *addr = 0;
  if (size == 0)
    return TRUE;
  if (size > MAX_REQUEST) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Cannot allocate %" G_GSIZE_FORMAT " bytes: the size is absurd; "
        "check how it was computed",
        size);
    return FALSE;
  }
  gcg__block_allocator_process_events (self);
  rounded = gcg__block_allocator_round_size (size);
  pool = rounded <= GCG_BLOCK_SMALL_SIZE ? &self->small_pool
                                         : &self->large_pool;
  block = find_free_block (self, pool, stream, rounded);
  if (block) {
    gcg__block_set_remove (pool, block);
    self->stats.cache_hits++;
  } else {
    block = new_segment (self, stream, size, rounded, error);
    if (block == NULL)
      return FALSE;
    self->stats.cache_misses++;
  }
  if (should_split (self, block, rounded))
    split_block (self, block, rounded);

  block->state = GCG_MEMORY_BLOCK_ALLOCATED;
  block->requested = size;
  gcg__addr_map_insert (&self->allocated, block->addr, block);
  stat_add (&self->stats.allocated_bytes, &self->stats.allocated_bytes_peak,
      block->size);
  stat_add (&self->stats.active_bytes, &self->stats.active_bytes_peak,
      block->size);
  stat_add (&self->stats.requested_bytes, &self->stats.requested_bytes_peak,
      size);
  *addr = block->addr;
  return TRUE;
}

static gpointer
take_event (GcgBlockAllocator *self, GError **error)
{
  if (self->spare_events->len > 0)
    return g_ptr_array_steal_index_fast (self->spare_events,
        self->spare_events->len - 1);
  return self->source->event_create (self->user_data, error);
}

/* Queues an event behind the work on @stream; FALSE (and the event back to
 * the spares) when there is none to be had. */
static gboolean
queue_stream_use (GcgBlockAllocator *self, GcgBlock *block, gpointer stream,
    GError **error)
{
  gpointer event = take_event (self, error);
  PendingEvent *pending;

  if (event == NULL)
    return FALSE;
  if (!self->source->event_record (self->user_data, event, stream, error)) {
    g_ptr_array_add (self->spare_events, event);
    return FALSE;
  }
  pending = g_new0 (PendingEvent, 1);
  pending->event = event;
  pending->block = block;
  pending->link.data = pending;
  g_queue_push_tail_link (&self->pending, &pending->link);
  block->event_count++;
  return TRUE;
}

/* Records one event per stream that used @block.  Without an event the
 * stream is waited for right here, which stalls this thread but keeps the
 * block reusable.  Only when even that fails is the use counted for good:
 * the block then stays out of the cache, which wastes memory but never
 * hands out memory still in use. */
static void
record_stream_uses (GcgBlockAllocator *self, GcgBlock *block)
{
  GPtrArray *streams = block->stream_uses;

  for (guint i = 0; i < streams->len; i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GError) sync_error = NULL;

    if (queue_stream_use (self, block, streams->pdata[i], &error))
      continue;
    if (self->source->stream_synchronize (self->user_data, streams->pdata[i],
            &sync_error)) {
      g_warning ("No event for a stream use of block 0x%" G_GINT64_MODIFIER
                 "x (%s); waited for the stream instead",
          block->addr, error->message);
      continue;
    }
    block->event_count++;
    g_warning (
        "No event for a stream use of block 0x%" G_GINT64_MODIFIER
        "x (%s) and waiting for the stream failed (%s); the block is kept "
        "out of the cache",
        block->addr, error->message, sync_error->message);
  }
  g_ptr_array_set_size (streams, 0);
  if (block->event_count == 0)
    return_block (self, block);
}

/* Frees the block at @addr: back to the pool at once, or once the work of
 * every stream recorded on it has completed.  FALSE when @addr is not an
 * allocated block of this allocator. */
gboolean
gcg__block_allocator_release (GcgBlockAllocator *self, guint64 addr)
{
  GcgBlock *block = gcg__addr_map_steal (&self->allocated, addr);

  if (block == NULL)
    return FALSE;
  self->stats.allocated_bytes -= block->size;
  self->stats.requested_bytes -= block->requested;
  block->requested = 0;
  if (block->stream_uses && block->stream_uses->len > 0) {
    block->state = GCG_MEMORY_BLOCK_PENDING;
    record_stream_uses (self, block);
  } else {
    return_block (self, block);
  }
  return TRUE;
}

/* Notes that work on @stream uses the block at @addr, so freeing it waits
 * for that work. */
gboolean
gcg__block_allocator_record_stream (GcgBlockAllocator *self, guint64 addr,
    gpointer stream, GError **error)
{
  GcgBlock *block = gcg__addr_map_lookup (&self->allocated, addr);

  if (block == NULL) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Address 0x%" G_GINT64_MODIFIER "x is not a block allocated by this "
        "allocator (never allocated, already freed, or not the start of a "
        "block)",
        addr);
    return FALSE;
  }
  if (stream == block->stream)
    return TRUE;
  if (block->stream_uses == NULL)
    block->stream_uses = g_ptr_array_new ();
  if (!g_ptr_array_find (block->stream_uses, stream, NULL))
    g_ptr_array_add (block->stream_uses, stream);
  return TRUE;
}

void
gcg__block_allocator_get_stats (GcgBlockAllocator *self,
    GcgAllocatorStats *stats)
{
  *stats = self->stats;
}

void
gcg__block_allocator_reset_peak_stats (GcgBlockAllocator *self)
{
  GcgAllocatorStats *s = &self->stats;

  s->allocated_bytes_peak = s->allocated_bytes;
  s->reserved_bytes_peak = s->reserved_bytes;
  s->active_bytes_peak = s->active_bytes;
  s->requested_bytes_peak = s->requested_bytes;
}

static GcgMemorySegment *
snapshot_segment (const Segment *segment)
{
  GcgMemorySegment *out = g_new0 (GcgMemorySegment, 1);
  const GcgBlock *head = segment->head;

  out->address = head->addr;
  out->size = segment->size;
  out->stream = (guintptr) head->stream;
  out->small_pool = head->small;
  out->blocks =
      g_ptr_array_new_with_free_func ((GDestroyNotify) gcg_memory_block_free);
  for (const GcgBlock *b = head; b; b = b->next) {
    GcgMemoryBlock *block = g_new0 (GcgMemoryBlock, 1);

    block->address = b->addr;
    block->size = b->size;
    block->requested_size = b->requested;
    block->state = b->state;
    g_ptr_array_add (out->blocks, block);
  }
  return out;
}

static gint
segment_compare (gconstpointer a, gconstpointer b)
{
  const GcgMemorySegment *x = *(GcgMemorySegment *const *) a;
  const GcgMemorySegment *y = *(GcgMemorySegment *const *) b;

  return x->address < y->address ? -1 : x->address > y->address;
}

/* Every segment with its blocks, in address order. */
GPtrArray *
gcg__block_allocator_snapshot (GcgBlockAllocator *self)
{
  GPtrArray *out =
      g_ptr_array_new_with_free_func ((GDestroyNotify) gcg_memory_segment_free);

  for (GList *l = self->segments.head; l; l = l->next)
    g_ptr_array_add (out, snapshot_segment (l->data));
  g_ptr_array_sort (out, segment_compare);
  return out;
}

static void
free_all_segments (GcgBlockAllocator *self)
{
  GList *link;

  while ((link = g_queue_pop_head_link (&self->segments))) {
    Segment *segment = link->data;
    GcgBlock *block = segment->head;

    self->source->free_segment (self->user_data, block->addr, segment->size);
    while (block) {
      GcgBlock *next = block->next;

      g_clear_pointer (&block->stream_uses, g_ptr_array_unref);
      g_free (block);
      block = next;
    }
    g_free (segment);
  }
}

/* Waits for pending stream uses, then gives everything back, blocks still
 * allocated included: their addresses must not be used afterwards. */
void
gcg__block_allocator_free (GcgBlockAllocator *self)
{
  guint live;

  if (self == NULL)
    return;
  synchronize_events (self);
  live = self->allocated.count;
  if (live > 0)
    g_warning ("Allocator destroyed with %u blocks still allocated; their "
               "memory is freed now and must not be used",
        live);
  for (guint i = 0; i < self->spare_events->len; i++)
    self->source->event_destroy (self->user_data, self->spare_events->pdata[i]);
  g_ptr_array_unref (self->spare_events);
  free_all_segments (self);
  while (self->spare_blocks) {
    GcgBlock *next = self->spare_blocks->next;

    g_free (self->spare_blocks);
    self->spare_blocks = next;
  }
  gcg__addr_map_clear (&self->allocated);
  g_free (self->device_desc);
  g_free (self);
}
