/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgHostPool:
 *
 * A cache of pinned (page-locked) host memory, for staging frames and
 * results: copies from and to pinned memory run asynchronously and at full
 * bus speed, but pinning is slow (it maps pages for the device), so blocks
 * are kept and reused.  Requests are rounded up to a power of two (at
 * least 4 KiB) and served from a cache per size; the cache holds at most
 * #GcgHostPool:max-cached-bytes and anything beyond is unpinned on
 * release.  A zero-byte request returns %NULL and never reaches the
 * driver.
 *
 * Every block is released with the size it was allocated for; the pool
 * checks this (and that the block is one of its own, in use) in every
 * build, and its byte counters report an error instead of wrapping.
 * Thread-safe; the driver is never called with the pool's lock held.
 *
 * Since: 0.1
 */
#include "gcg-host-pool-private.h"
#include "gcg-checked-private.h"
#include "gcg-context-private.h"

#define N_BUCKETS (GLIB_SIZEOF_SIZE_T * 8)
#define DEFAULT_MAX_CACHED_BYTES (G_GUINT64_CONSTANT (256) << 20)

struct _GcgHostPool
{
  GObject parent_instance;

  GcgContext *context;
  const GcgHostBackend *backend;
  gpointer backend_data;

  GMutex lock;
  GPtrArray *cache[N_BUCKETS];  /* free blocks, by log2 of their size */
  GHashTable *live;             /* block in use -> its size */
  guint64 max_cached_bytes;
  guint64 cached_bytes;
  guint64 in_use_bytes;
};

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_MAX_CACHED_BYTES,
  PROP_CACHED_BYTES,
  PROP_IN_USE_BYTES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (GcgHostPool, gcg_host_pool, G_TYPE_OBJECT);

static gpointer
pinned_alloc (gpointer user_data, gsize size, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  gpointer ptr = NULL;

  if (!gcg__context_guard_enter (&guard, user_data, error))
    return NULL;
  /* Portable: usable from every context, as GStreamer buffers travel. */
  if (!GCG_CU_OK (error, cuMemHostAlloc, &ptr, size,
          CU_MEMHOSTALLOC_PORTABLE)) {
    g_autofree gchar *str = g_format_size_full (size, G_FORMAT_SIZE_IEC_UNITS);

    g_prefix_error (error, "Pinning %s of host memory: ", str);
    return NULL;
  }
  return ptr;
}

static void
pinned_free (gpointer user_data, gpointer ptr)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  if (gcg__context_guard_enter (&guard, user_data, NULL))
    GCG_CU_WARN (cuMemFreeHost, ptr);
}

static const GcgHostBackend pinned_backend = {
  .alloc = pinned_alloc,
  .free = pinned_free,
};

static void
gcg_host_pool_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GcgHostPool *self = GCG_HOST_POOL (object);

  switch (prop_id) {
    case PROP_CONTEXT:
      self->context = g_value_dup_object (value);
      break;
    case PROP_MAX_CACHED_BYTES:
      gcg_host_pool_set_max_cached_bytes (self, g_value_get_uint64 (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gcg_host_pool_get_property (GObject *object, guint prop_id, GValue *value,
    GParamSpec *pspec)
{
  GcgHostPool *self = GCG_HOST_POOL (object);

  switch (prop_id) {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_MAX_CACHED_BYTES:
      g_value_set_uint64 (value, gcg_host_pool_get_max_cached_bytes (self));
      break;
    case PROP_CACHED_BYTES:
      g_value_set_uint64 (value, gcg_host_pool_get_cached_bytes (self));
      break;
    case PROP_IN_USE_BYTES:
      g_value_set_uint64 (value, gcg_host_pool_get_in_use_bytes (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gcg_host_pool_constructed (GObject *object)
{
  GcgHostPool *self = GCG_HOST_POOL (object);

  G_OBJECT_CLASS (gcg_host_pool_parent_class)->constructed (object);

  if (self->context) {
    self->backend = &pinned_backend;
    self->backend_data = self->context;
  }
}

static void
gcg_host_pool_finalize (GObject *object)
{
  GcgHostPool *self = GCG_HOST_POOL (object);
  guint live = g_hash_table_size (self->live);

  if (self->backend)
    gcg_host_pool_clear (self);
  /* Still in use by someone: unpinning it under them would be worse. */
  if (live > 0)
    g_warning ("GcgHostPool finalized with %u blocks still in use; they "
               "are leaked",
        live);
  for (guint i = 0; i < N_BUCKETS; i++)
    g_clear_pointer (&self->cache[i], g_ptr_array_unref);
  g_hash_table_unref (self->live);
  g_clear_object (&self->context);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (gcg_host_pool_parent_class)->finalize (object);
}

static void
gcg_host_pool_class_init (GcgHostPoolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->set_property = gcg_host_pool_set_property;
  object_class->get_property = gcg_host_pool_get_property;
  object_class->constructed = gcg_host_pool_constructed;
  object_class->finalize = gcg_host_pool_finalize;

  /**
   * GcgHostPool:context:
   *
   * The context pinned memory is allocated in; set at construction,
   * required.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] = g_param_spec_object ("context", "Context",
      "The context pinned memory is allocated in (required)", GCG_TYPE_CONTEXT,
      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * GcgHostPool:max-cached-bytes:
   *
   * The most bytes the pool keeps in released blocks for reuse; blocks
   * released beyond it go back to the driver, and lowering it unpins the
   * excess.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_CACHED_BYTES] = g_param_spec_uint64 ("max-cached-bytes",
      "Max cached bytes",
      "Released blocks kept for reuse, in bytes at most; lowering it unpins "
      "the excess",
      0, G_MAXUINT64, DEFAULT_MAX_CACHED_BYTES,
      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * GcgHostPool:cached-bytes:
   *
   * Bytes in released blocks kept for reuse.
   *
   * Since: 0.1
   */
  properties[PROP_CACHED_BYTES] = g_param_spec_uint64 ("cached-bytes",
      "Cached bytes", "Bytes in released blocks kept for reuse", 0, G_MAXUINT64,
      0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgHostPool:in-use-bytes:
   *
   * Bytes in blocks handed out and not yet released, counted at their
   * bucket sizes.
   *
   * Since: 0.1
   */
  properties[PROP_IN_USE_BYTES] = g_param_spec_uint64 ("in-use-bytes",
      "In-use bytes",
      "Bytes in blocks handed out and not yet released "
      "(bucket sizes)",
      0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcg_host_pool_init (GcgHostPool *self)
{
  g_mutex_init (&self->lock);
  self->live = g_hash_table_new (NULL, NULL);
  self->max_cached_bytes = DEFAULT_MAX_CACHED_BYTES;
}

/**
 * gcg_host_pool_new:
 * @context: the #GcgContext to pin memory in
 *
 * Makes an empty pool of pinned (page-locked) host memory in @context.
 *
 * Returns: (transfer full): a new, empty #GcgHostPool
 *
 * Since: 0.1
 */
GcgHostPool *
gcg_host_pool_new (GcgContext *context)
{
  g_return_val_if_fail (GCG_IS_CONTEXT (context), NULL);

  return g_object_new (GCG_TYPE_HOST_POOL, "context", context, NULL);
}

GcgHostPool *
gcg__host_pool_new_with_backend (const GcgHostBackend *backend,
    gpointer user_data)
{
  GcgHostPool *self = g_object_new (GCG_TYPE_HOST_POOL, NULL);

  self->backend = backend;
  self->backend_data = user_data;
  return self;
}

static inline gboolean
is_usable (GcgHostPool *self)
{
  return GCG_IS_HOST_POOL (self) && self->backend != NULL;
}

/**
 * gcg_host_pool_bucket_size:
 * @size: a request in bytes
 *
 * Rounds a request to the size of the pool's block that serves it.
 *
 * Returns: the size of the block a request of @size bytes gets: the next
 *   power of two, at least 4096; 0 for 0, and for sizes above 2^63 that
 *   cannot be rounded
 *
 * Since: 0.1
 */
gsize
gcg_host_pool_bucket_size (gsize size)
{
  if (size == 0 || size > (G_MAXSIZE >> 1) + 1)
    return 0;
  if (size <= GCG_HOST_POOL_MIN_BUCKET)
    return GCG_HOST_POOL_MIN_BUCKET;
  return (gsize) 1 << g_bit_storage (size - 1);
}

static GPtrArray *
cache_of (GcgHostPool *self, gsize bucket)
{
  guint index = g_bit_storage (bucket) - 1;

  if (self->cache[index] == NULL)
    self->cache[index] = g_ptr_array_new ();
  return self->cache[index];
}

/* A cached block of @bucket bytes, now in use, or NULL (with @error set
 * only when the books do not add up). */
static gpointer
take_cached_locked (GcgHostPool *self, gsize bucket, GError **error)
{
  GPtrArray *cache = cache_of (self, bucket);
  gpointer ptr;

  if (cache->len == 0)
    return NULL;
  if (!gcg__checked_sub (&self->cached_bytes, bucket,
          "the host pool's "
          "cached bytes",
          error))
    return NULL;
  ptr = g_ptr_array_steal_index_fast (cache, cache->len - 1);
  self->in_use_bytes += bucket; /* cannot wrap: it was in cached_bytes */
  g_hash_table_insert (self->live, ptr, GSIZE_TO_POINTER (bucket));
  return ptr;
}

static gboolean
add_live_locked (GcgHostPool *self, gpointer ptr, gsize bucket, GError **error)
{
  if (!gcg__checked_add (&self->in_use_bytes, bucket,
          "the host pool's "
          "in-use bytes",
          error))
    return FALSE;
  g_hash_table_insert (self->live, ptr, GSIZE_TO_POINTER (bucket));
  return TRUE;
}

/* A new block from the backend, called without the lock held. */
static gpointer
alloc_new (GcgHostPool *self, gsize bucket, GError **error)
{
  gpointer ptr = self->backend->alloc (self->backend_data, bucket, error);
  gboolean ok;

  if (ptr == NULL)
    return NULL;
  g_mutex_lock (&self->lock);
  ok = add_live_locked (self, ptr, bucket, error);
  g_mutex_unlock (&self->lock);
  if (!ok) {
    self->backend->free (self->backend_data, ptr);
    return NULL;
  }
  return ptr;
}

/**
 * gcg_host_pool_alloc:
 * @self: a #GcgHostPool
 * @size: bytes needed
 * @error: return location for a #GError, or %NULL
 *
 * Hands out a pinned block of at least @size bytes (its size is
 * gcg_host_pool_bucket_size() of @size), from the cache when it has one.
 *
 * Returns: (transfer none) (nullable): the block, to be given back with
 *   gcg_host_pool_release(); %NULL without an error for @size 0; %NULL
 *   with @error set on failure (%GCG_ERROR_OUT_OF_MEMORY when memory cannot
 *   be pinned, %GCG_ERROR_INVALID_ARGUMENT for a size above 2^63)
 *
 * Since: 0.1
 */
gpointer
gcg_host_pool_alloc (GcgHostPool *self, gsize size, GError **error)
{
  g_autoptr (GError) local_error = NULL;
  gsize bucket = gcg_host_pool_bucket_size (size);
  gpointer ptr;

  g_return_val_if_fail (is_usable (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (size == 0)
    return NULL;
  if (bucket == 0) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Cannot pin %" G_GSIZE_FORMAT " bytes: the size has no power-of-two "
        "bucket; check how it was computed",
        size);
    return NULL;
  }
  g_mutex_lock (&self->lock);
  ptr = take_cached_locked (self, bucket, &local_error);
  g_mutex_unlock (&self->lock);
  if (local_error) {
    g_propagate_error (error, g_steal_pointer (&local_error));
    return NULL;
  }
  return ptr ? ptr : alloc_new (self, bucket, error);
}

/* Takes @ptr out of the live set after checking it was handed out for
 * @size; sets *to_free when it does not fit in the cache. */
static gboolean
release_locked (GcgHostPool *self, gpointer ptr, gsize size, gpointer *to_free,
    GError **error)
{
  gpointer value;
  gsize bucket;

  if (!g_hash_table_lookup_extended (self->live, ptr, NULL, &value)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Releasing %p: not a block in use from this host pool (never "
        "allocated here, or released twice)",
        ptr);
    return FALSE;
  }
  bucket = GPOINTER_TO_SIZE (value);
  if (gcg_host_pool_bucket_size (size) != bucket) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Releasing %p with size %" G_GSIZE_FORMAT ": it is a %" G_GSIZE_FORMAT
        "-byte block, allocated for another size; release it with the size "
        "it was allocated with",
        ptr, size, bucket);
    return FALSE;
  }
  if (!gcg__checked_sub (&self->in_use_bytes, bucket,
          "the host pool's "
          "in-use bytes",
          error))
    return FALSE;
  g_hash_table_remove (self->live, ptr);
  if (self->max_cached_bytes - MIN (self->cached_bytes, self->max_cached_bytes)
      < bucket) {
    *to_free = ptr;
    return TRUE;
  }
  self->cached_bytes += bucket; /* cannot wrap: at most max-cached-bytes */
  g_ptr_array_add (cache_of (self, bucket), ptr);
  return TRUE;
}

/**
 * gcg_host_pool_release:
 * @self: a #GcgHostPool
 * @ptr: (nullable): a block from gcg_host_pool_alloc(), or %NULL with
 *   @size 0
 * @size: the size @ptr was allocated with
 * @error: return location for a #GError, or %NULL
 *
 * Gives a block back: it is cached for reuse, or unpinned when the cache
 * is full.  Nothing is changed when the checks fail.
 *
 * Returns: %TRUE on success; %FALSE with %GCG_ERROR_INVALID_ARGUMENT when
 *   @ptr is not in use from this pool or @size does not match it, or
 *   %GCG_ERROR_FAILED when the pool's byte accounting would underflow
 *
 * Since: 0.1
 */
gboolean
gcg_host_pool_release (GcgHostPool *self, gpointer ptr, gsize size,
    GError **error)
{
  gpointer to_free = NULL;
  gboolean ok;

  g_return_val_if_fail (is_usable (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (ptr == NULL && size == 0)
    return TRUE;
  g_mutex_lock (&self->lock);
  ok = release_locked (self, ptr, size, &to_free, error);
  g_mutex_unlock (&self->lock);
  if (to_free)
    self->backend->free (self->backend_data, to_free);
  return ok;
}

/* Moves cached blocks into @out, largest first, until at most @keep
 * bytes stay cached. */
static void
trim_locked (GcgHostPool *self, guint64 keep, GPtrArray *out)
{
  for (gint i = N_BUCKETS - 1; i >= 0 && self->cached_bytes > keep; i--) {
    GPtrArray *cache = self->cache[i];
    gsize bucket = (gsize) 1 << i;

    while (cache && cache->len > 0 && self->cached_bytes > keep) {
      g_ptr_array_add (out,
          g_ptr_array_steal_index_fast (cache, cache->len - 1));
      self->cached_bytes -= bucket;
    }
  }
}

static void
trim (GcgHostPool *self, guint64 keep)
{
  g_autoptr (GPtrArray) to_free = g_ptr_array_new ();

  g_mutex_lock (&self->lock);
  trim_locked (self, keep, to_free);
  g_mutex_unlock (&self->lock);
  for (guint i = 0; i < to_free->len; i++)
    self->backend->free (self->backend_data, to_free->pdata[i]);
}

/**
 * gcg_host_pool_clear:
 * @self: a #GcgHostPool
 *
 * Unpins every cached block.  Blocks in use are not affected.
 *
 * Since: 0.1
 */
void
gcg_host_pool_clear (GcgHostPool *self)
{
  g_return_if_fail (is_usable (self));
  trim (self, 0);
}

/**
 * gcg_host_pool_get_max_cached_bytes:
 * @self: a #GcgHostPool
 *
 * Gets the most bytes the pool keeps cached.
 *
 * Returns: the #GcgHostPool:max-cached-bytes
 *
 * Since: 0.1
 */
guint64
gcg_host_pool_get_max_cached_bytes (GcgHostPool *self)
{
  guint64 bytes;

  g_return_val_if_fail (GCG_IS_HOST_POOL (self), 0);

  g_mutex_lock (&self->lock);
  bytes = self->max_cached_bytes;
  g_mutex_unlock (&self->lock);
  return bytes;
}

/**
 * gcg_host_pool_set_max_cached_bytes:
 * @self: a #GcgHostPool
 * @max_cached_bytes: how many bytes of released blocks to keep at most
 *
 * Cached blocks beyond the new bound are unpinned at once.
 *
 * Since: 0.1
 */
void
gcg_host_pool_set_max_cached_bytes (GcgHostPool *self, guint64 max_cached_bytes)
{
  gboolean changed;

  g_return_if_fail (GCG_IS_HOST_POOL (self));

  g_mutex_lock (&self->lock);
  changed = self->max_cached_bytes != max_cached_bytes;
  self->max_cached_bytes = max_cached_bytes;
  g_mutex_unlock (&self->lock);
  if (self->backend)
    trim (self, max_cached_bytes);
  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self),
        properties[PROP_MAX_CACHED_BYTES]);
}

/**
 * gcg_host_pool_get_cached_bytes:
 * @self: a #GcgHostPool
 *
 * Gets the bytes the pool keeps in released blocks for reuse.
 *
 * Returns: bytes in released blocks kept for reuse
 *
 * Since: 0.1
 */
guint64
gcg_host_pool_get_cached_bytes (GcgHostPool *self)
{
  guint64 bytes;

  g_return_val_if_fail (GCG_IS_HOST_POOL (self), 0);

  g_mutex_lock (&self->lock);
  bytes = self->cached_bytes;
  g_mutex_unlock (&self->lock);
  return bytes;
}

/**
 * gcg_host_pool_get_in_use_bytes:
 * @self: a #GcgHostPool
 *
 * Gets the bytes handed out and not yet released.
 *
 * Returns: bytes in blocks handed out and not yet released, counted at
 *   their bucket sizes
 *
 * Since: 0.1
 */
guint64
gcg_host_pool_get_in_use_bytes (GcgHostPool *self)
{
  guint64 bytes;

  g_return_val_if_fail (GCG_IS_HOST_POOL (self), 0);

  g_mutex_lock (&self->lock);
  bytes = self->in_use_bytes;
  g_mutex_unlock (&self->lock);
  return bytes;
}
