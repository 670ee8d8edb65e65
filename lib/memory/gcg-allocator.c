/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgAllocator:
 *
 * A caching allocator of device memory with the semantics of PyTorch's
 * CUDA caching allocator.  Memory is taken from the device in segments
 * (2 MiB for requests up to 1 MiB, 20 MiB for requests up to 10 MiB,
 * the request rounded to 2 MiB above that) and cut into blocks (multiples
 * of 512 bytes).  Freed blocks are kept, merged with free neighbours, and
 * handed out again to requests on the same stream (best fit), so that
 * steady-state allocation never calls the driver.
 *
 * A block used by work on another stream than the one it was allocated
 * for must be declared with gcg_allocator_record_stream(): freeing it then
 * waits (without blocking) for that work before the block is reused.
 *
 * When the device runs out of memory the cache is emptied and the request
 * tried once more; after that the error reports what was asked for and
 * what is allocated, reserved and free.
 *
 * All functions are thread-safe: one lock serialises them.  The driver is
 * called under that lock only where the cache changes shape (cuMemAlloc of
 * a new segment, cuMemFree in empty-cache, event record and query for
 * blocks used by other streams), as PyTorch does; the common allocation
 * and free make no driver call at all.
 *
 * Since: 0.1
 */
#include "gcg-allocator-private.h"
#include "gcg-device-segment-source-private.h"
#include "gcg-stream-private.h"

struct _GcgAllocator
{
  GObject parent_instance;

  GcgContext *context;          /* NULL over a test source */
  GMutex lock;
  GcgBlockAllocator *engine;
};

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_MAX_SPLIT_SIZE,
  PROP_STATS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (GcgAllocator, gcg_allocator, G_TYPE_OBJECT);

/* An allocator made without a context (g_object_new with no "context")
 * has nothing to allocate from. */
static inline gboolean
is_usable (GcgAllocator *self)
{
  return GCG_IS_ALLOCATOR (self) && self->engine != NULL;
}

static void
gcg_allocator_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GcgAllocator *self = GCG_ALLOCATOR (object);

  switch (prop_id) {
    case PROP_CONTEXT:
      self->context = g_value_dup_object (value);
      break;
    case PROP_MAX_SPLIT_SIZE:
      gcg_allocator_set_max_split_size (self, g_value_get_uint64 (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gcg_allocator_get_property (GObject *object, guint prop_id, GValue *value,
    GParamSpec *pspec)
{
  GcgAllocator *self = GCG_ALLOCATOR (object);

  switch (prop_id) {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_MAX_SPLIT_SIZE:
      g_value_set_uint64 (value, gcg_allocator_get_max_split_size (self));
      break;
    case PROP_STATS:
      g_value_take_boxed (value, gcg_allocator_get_stats (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gcg_allocator_constructed (GObject *object)
{
  GcgAllocator *self = GCG_ALLOCATOR (object);

  G_OBJECT_CLASS (gcg_allocator_parent_class)->constructed (object);

  if (self->context) {
    g_autofree gchar *desc = g_strdup_printf ("%s (device %d)",
        gcg_context_get_name (self->context),
        gcg_context_get_device_id (self->context));

    self->engine = gcg__block_allocator_new (&gcg__device_segment_source,
        self->context, desc);
  }
}

static void
gcg_allocator_finalize (GObject *object)
{
  GcgAllocator *self = GCG_ALLOCATOR (object);

  g_clear_pointer (&self->engine, gcg__block_allocator_free);
  g_clear_object (&self->context);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (gcg_allocator_parent_class)->finalize (object);
}

static void
gcg_allocator_class_init (GcgAllocatorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->set_property = gcg_allocator_set_property;
  object_class->get_property = gcg_allocator_get_property;
  object_class->constructed = gcg_allocator_constructed;
  object_class->finalize = gcg_allocator_finalize;

  /**
   * GcgAllocator:context:
   *
   * The context whose device memory the allocator hands out; set at
   * construction, required.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] = g_param_spec_object ("context", "Context",
      "The context whose device memory is allocated (required)",
      GCG_TYPE_CONTEXT,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * GcgAllocator:max-split-size:
   *
   * Blocks of this size or more are "oversize": never split, never given
   * to requests below this size, nor to requests 20 MiB or more smaller
   * than the block.  Lowering it limits fragmentation when large sizes
   * vary (reserved much above allocated).  The default never applies.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_SPLIT_SIZE] = g_param_spec_uint64 ("max-split-size",
      "Max split size", "Blocks this large or larger are never split",
      GCG_BLOCK_LARGE_SEGMENT, G_MAXUINT64, G_MAXUINT64,
      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * GcgAllocator:stats:
   *
   * A snapshot of the allocator's counters, as gcg_allocator_get_stats()
   * gives it.
   *
   * Since: 0.1
   */
  properties[PROP_STATS] = g_param_spec_boxed ("stats", "Statistics",
      "A snapshot of the allocator's counters", GCG_TYPE_ALLOCATOR_STATS,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcg_allocator_init (GcgAllocator *self)
{
  g_mutex_init (&self->lock);
}

/**
 * gcg_allocator_new:
 * @context: the #GcgContext whose device memory to manage
 * @error: return location for a #GError, or %NULL
 *
 * Makes an empty allocator; device memory is taken on first use.
 *
 * Returns: (transfer full) (nullable): a new #GcgAllocator, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
GcgAllocator *
gcg_allocator_new (GcgContext *context, GError **error)
{
  g_return_val_if_fail (GCG_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_object_new (GCG_TYPE_ALLOCATOR, "context", context, NULL);
}

GcgAllocator *
gcg__allocator_new_for_source (const GcgSegmentSource *source,
    gpointer user_data, const gchar *device_desc)
{
  GcgAllocator *self = g_object_new (GCG_TYPE_ALLOCATOR, NULL);

  self->engine = gcg__block_allocator_new (source, user_data, device_desc);
  return self;
}

/**
 * gcg_allocator_get_context:
 * @self: a #GcgAllocator
 *
 * Gets the context whose device memory @self allocates.
 *
 * Returns: (transfer none): the context the memory belongs to
 *
 * Since: 0.1
 */
GcgContext *
gcg_allocator_get_context (GcgAllocator *self)
{
  g_return_val_if_fail (GCG_IS_ALLOCATOR (self), NULL);
  return self->context;
}

/* Streams are told apart by their CUstream, so two wrappers of one stream
 * share blocks; NULL is the context's default (legacy) stream. */
static gboolean
stream_belongs (GcgAllocator *self, GcgStream *stream)
{
  return self->context
      && gcg__context_get_cu (gcg_stream_get_context (stream))
      == gcg__context_get_cu (self->context);
}

static gpointer
stream_key (GcgStream *stream)
{
  return stream ? (gpointer) gcg__stream_get_cu (stream) : NULL;
}

/**
 * gcg_allocator_alloc:
 * @self: a #GcgAllocator
 * @size: bytes to allocate; 0 gives a 0 pointer and touches nothing
 * @stream: (nullable): the stream the memory will be used on, %NULL for
 *   the default stream.  Blocks are reused only on the same stream
 *   without further synchronisation.
 * @out_ptr: (out): the device address (CUdeviceptr) of the block
 * @error: return location for a #GError, or %NULL
 *
 * Allocates device memory, from the cache when it can.  The address is
 * aligned to 512 bytes.
 *
 * Returns: %TRUE on success; on failure @error is set, with
 *   %GCG_ERROR_OUT_OF_MEMORY when the device is out of memory even after
 *   the cache was emptied
 *
 * Since: 0.1
 */
gboolean
gcg_allocator_alloc (GcgAllocator *self, gsize size, GcgStream *stream,
    guint64 *out_ptr, GError **error)
{
  gboolean ok;

  g_return_val_if_fail (is_usable (self), FALSE);
  g_return_val_if_fail (stream == NULL || GCG_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (stream == NULL || stream_belongs (self, stream), FALSE);
  g_return_val_if_fail (out_ptr != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_mutex_lock (&self->lock);
  ok = gcg__block_allocator_alloc (self->engine, size, stream_key (stream),
      out_ptr, error);
  g_mutex_unlock (&self->lock);
  return ok;
}

/**
 * gcg_allocator_free:
 * @self: a #GcgAllocator
 * @ptr: an address gcg_allocator_alloc() returned, or 0
 *
 * Returns the block to the cache.  Work already queued on the block's
 * stream may still use it: the next user of the block is on the same
 * stream, so it runs after that work.  Work on other streams must have
 * been declared with gcg_allocator_record_stream().
 *
 * Since: 0.1
 */
void
gcg_allocator_free (GcgAllocator *self, guint64 ptr)
{
  gboolean known;

  g_return_if_fail (is_usable (self));

  if (ptr == 0)
    return;
  g_mutex_lock (&self->lock);
  known = gcg__block_allocator_release (self->engine, ptr);
  g_mutex_unlock (&self->lock);
  if (!known)
    g_critical ("gcg_allocator_free: 0x%" G_GINT64_MODIFIER "x was not "
                "allocated by this allocator, or was freed already",
        ptr);
}

/**
 * gcg_allocator_record_stream:
 * @self: a #GcgAllocator
 * @ptr: an address gcg_allocator_alloc() returned and not yet freed
 * @stream: a stream, other than the block's own, whose queued or future
 *   work uses the block
 * @error: return location for a #GError, or %NULL
 *
 * Declares that work on @stream uses the block.  When the block is freed,
 * an event is recorded on each such stream and the block is reused only
 * after all of them have completed.
 *
 * Returns: %TRUE on success; %FALSE with %GCG_ERROR_INVALID_ARGUMENT when
 *   @ptr is not a live block of this allocator
 *
 * Since: 0.1
 */
gboolean
gcg_allocator_record_stream (GcgAllocator *self, guint64 ptr, GcgStream *stream,
    GError **error)
{
  gboolean ok;

  g_return_val_if_fail (is_usable (self), FALSE);
  g_return_val_if_fail (GCG_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (stream_belongs (self, stream), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_mutex_lock (&self->lock);
  ok = gcg__block_allocator_record_stream (self->engine, ptr,
      stream_key (stream), error);
  g_mutex_unlock (&self->lock);
  return ok;
}

/**
 * gcg_allocator_empty_cache:
 * @self: a #GcgAllocator
 *
 * Gives every segment with no block in use back to the device.  Waits for
 * the work of streams recorded on freed blocks first, so this may block.
 *
 * Since: 0.1
 */
void
gcg_allocator_empty_cache (GcgAllocator *self)
{
  g_return_if_fail (is_usable (self));

  g_mutex_lock (&self->lock);
  gcg__block_allocator_empty_cache (self->engine);
  g_mutex_unlock (&self->lock);
}

/**
 * gcg_allocator_get_stats:
 * @self: a #GcgAllocator
 *
 * Takes a snapshot of the allocator's counters (bytes allocated, reserved
 * and active, their peaks, cache hits and misses, segments, driver calls).
 *
 * Returns: (transfer full): the allocator's counters now
 *
 * Since: 0.1
 */
GcgAllocatorStats *
gcg_allocator_get_stats (GcgAllocator *self)
{
  GcgAllocatorStats *stats;

  g_return_val_if_fail (is_usable (self), NULL);

  stats = g_new0 (GcgAllocatorStats, 1);
  g_mutex_lock (&self->lock);
  gcg__block_allocator_get_stats (self->engine, stats);
  g_mutex_unlock (&self->lock);
  return stats;
}

/**
 * gcg_allocator_reset_peak_stats:
 * @self: a #GcgAllocator
 *
 * Restarts every peak counter from its current value.
 *
 * Since: 0.1
 */
void
gcg_allocator_reset_peak_stats (GcgAllocator *self)
{
  g_return_if_fail (is_usable (self));

  g_mutex_lock (&self->lock);
  gcg__block_allocator_reset_peak_stats (self->engine);
  g_mutex_unlock (&self->lock);
}

/**
 * gcg_allocator_snapshot:
 * @self: a #GcgAllocator
 *
 * Describes every segment the allocator holds and the blocks that tile
 * it, for tests, tools and the curious.
 *
 * Returns: (transfer full) (element-type GcgMemorySegment): the segments,
 *   in address order
 *
 * Since: 0.1
 */
GPtrArray *
gcg_allocator_snapshot (GcgAllocator *self)
{
  GPtrArray *segments;

  g_return_val_if_fail (is_usable (self), NULL);

  g_mutex_lock (&self->lock);
  segments = gcg__block_allocator_snapshot (self->engine);
  g_mutex_unlock (&self->lock);
  return segments;
}

/**
 * gcg_allocator_get_max_split_size:
 * @self: a #GcgAllocator
 *
 * Gets the size from which blocks are never split.
 *
 * Returns: the #GcgAllocator:max-split-size in bytes
 *
 * Since: 0.1
 */
guint64
gcg_allocator_get_max_split_size (GcgAllocator *self)
{
  guint64 size;

  g_return_val_if_fail (is_usable (self), 0);

  g_mutex_lock (&self->lock);
  size = gcg__block_allocator_get_max_split_size (self->engine);
  g_mutex_unlock (&self->lock);
  return size;
}

/**
 * gcg_allocator_set_max_split_size:
 * @self: a #GcgAllocator
 * @max_split_size: the new #GcgAllocator:max-split-size, at least 20 MiB
 *
 * Applies to blocks handed out from now on.
 *
 * Since: 0.1
 */
void
gcg_allocator_set_max_split_size (GcgAllocator *self, guint64 max_split_size)
{
  gboolean changed;

  g_return_if_fail (is_usable (self));
  g_return_if_fail (max_split_size >= GCG_BLOCK_LARGE_SEGMENT);

  max_split_size = MIN (max_split_size, G_MAXSIZE);
  g_mutex_lock (&self->lock);
  changed = gcg__block_allocator_get_max_split_size (self->engine)
      != max_split_size;
  gcg__block_allocator_set_max_split_size (self->engine, max_split_size);
  g_mutex_unlock (&self->lock);
  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_SPLIT_SIZE]);
}
