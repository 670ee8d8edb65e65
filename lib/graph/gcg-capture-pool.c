/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgCapturePool:
 *
 * What a captured graph needs to stay alive, and where its buffers come
 * from.
 *
 * A graph records raw device addresses, so every buffer it touches must
 * outlive it.  Register such buffers with gcg_capture_pool_keep() or
 * gcg_capture_pool_keep_object(); a #GcgGraph captured with the pool holds
 * a reference on it, so the kept buffers are released (their destroy
 * notifies run, in the order they were kept) only when the last graph
 * made with the pool and the pool itself are gone.  Release runs on the
 * host at once: make sure the GPU is done with the graphs (synchronize
 * their streams) before dropping the last reference.
 *
 * A pool made with gcg_capture_pool_new_private() also owns a private
 * CUmemoryPool on its device (release threshold UINT64_MAX, so freed
 * memory stays reserved for the next frame).  Allocate the buffers of a
 * capture from it with gcg_capture_pool_alloc() *before* the capture
 * begins.
 *
 * ## Allocation during capture
 *
 * An allocation made with cuMemAllocAsync() while a stream captures is not
 * served from any memory pool: the driver records it as a graph-owned
 * memory-allocation node (CU_GRAPH_NODE_TYPE_MEM_ALLOC), whichever pool is
 * the device's current one, and the memory comes from the device's graph
 * memory (see gcg_graph_get_device_graph_memory()).  So:
 *
 * - gcg_capture_pool_alloc() refuses to allocate on a capturing stream
 *   (%GCG_ERROR_CAPTURE_STATE): allocate first, then capture.
 * - Allocations that other code makes during a capture are detected when
 *   the capture ends; such a graph is instantiated with
 *   CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH (each launch frees what
 *   the previous launch allocated and did not free, so it can be replayed)
 *   and gcg_graph_get_alloc_node_count() reports them.
 *
 * A sealed pool refuses to begin captures (%GCG_ERROR_POOL_SEALED): seal a
 * pool once the graphs that need it are recorded, so nothing records more
 * work against buffers that are about to be released.
 *
 * Pools can also be shared by number through a process-wide registry:
 * gcg_capture_pool_handle_new(), gcg_capture_pool_handle_lookup(),
 * gcg_capture_pool_handle_release().
 *
 * Every function here is thread-safe.
 *
 * Since: 0.1
 */
#include "gcg-capture-pool-private.h"

typedef struct
{
  gpointer data;
  GDestroyNotify notify;
} GcgKeptItem;

struct _GcgCapturePool
{
  GObject parent_instance;

  gint sealed;                  /* atomic */
  GMutex lock;
  GPtrArray *kept;              /* of GcgKeptItem, guarded by lock */

  GcgContext *context;          /* only with a private pool */
  CUmemoryPool mem_pool;
};

enum
{
  PROP_0,
  PROP_SEALED,
  PROP_KEPT_COUNT,
  PROP_HAS_PRIVATE_POOL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (GcgCapturePool, gcg_capture_pool, G_TYPE_OBJECT);

static void
kept_item_free (gpointer p)
{
  GcgKeptItem *item = p;

  if (item->notify)
    item->notify (item->data);
  g_free (item);
}

static void
gcg_capture_pool_set_property (GObject *object, guint prop_id,
    const GValue *value, GParamSpec *pspec)
{
  GcgCapturePool *self = GCG_CAPTURE_POOL (object);

  switch (prop_id) {
    case PROP_SEALED:
      if (g_value_get_boolean (value))
        gcg_capture_pool_seal (self);
      else
        gcg_capture_pool_unseal (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gcg_capture_pool_get_property (GObject *object, guint prop_id, GValue *value,
    GParamSpec *pspec)
{
  GcgCapturePool *self = GCG_CAPTURE_POOL (object);

  switch (prop_id) {
    case PROP_SEALED:
      g_value_set_boolean (value, gcg_capture_pool_is_sealed (self));
      break;
    case PROP_KEPT_COUNT:
      g_value_set_uint (value, gcg_capture_pool_get_kept_count (self));
      break;
    case PROP_HAS_PRIVATE_POOL:
      g_value_set_boolean (value, self->mem_pool != NULL);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gcg_capture_pool_finalize (GObject *object)
{
  GcgCapturePool *self = GCG_CAPTURE_POOL (object);

  /* Kept buffers first: they may be allocations from the private pool. */
  g_clear_pointer (&self->kept, g_ptr_array_unref);
  if (self->mem_pool) {
    g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

    /* Allocations still outstanding keep the driver's pool alive until
     * they are freed; destroying it here is always allowed. */
    if (gcg__context_guard_enter (&guard, self->context, NULL))
      GCG_CU_WARN (cuMemPoolDestroy, self->mem_pool);
  }
  g_clear_object (&self->context);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (gcg_capture_pool_parent_class)->finalize (object);
}

static void
gcg_capture_pool_class_init (GcgCapturePoolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->set_property = gcg_capture_pool_set_property;
  object_class->get_property = gcg_capture_pool_get_property;
  object_class->finalize = gcg_capture_pool_finalize;

  /**
   * GcgCapturePool:sealed:
   *
   * Whether the pool refuses to begin captures (gcg_capture_pool_seal() and
   * gcg_capture_pool_unseal() set it).
   *
   * Since: 0.1
   */
  properties[PROP_SEALED] = g_param_spec_boolean ("sealed", "Sealed",
      "Whether the pool refuses to begin captures", FALSE,
      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * GcgCapturePool:kept-count:
   *
   * The number of buffers the pool keeps alive for its graphs.
   *
   * Since: 0.1
   */
  properties[PROP_KEPT_COUNT] = g_param_spec_uint ("kept-count", "Kept count",
      "Number of buffers kept alive by the pool", 0, G_MAXUINT, 0,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgCapturePool:has-private-pool:
   *
   * Whether the pool owns a private CUDA memory pool.
   *
   * Since: 0.1
   */
  properties[PROP_HAS_PRIVATE_POOL] = g_param_spec_boolean ("has-private-pool",
      "Has private pool", "Whether the pool owns a private CUmemoryPool", FALSE,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcg_capture_pool_init (GcgCapturePool *self)
{
  g_mutex_init (&self->lock);
  self->kept = g_ptr_array_new_with_free_func (kept_item_free);
}

/**
 * gcg_capture_pool_new:
 *
 * Makes a pool without a private memory pool: it keeps buffers alive and
 * can be sealed.  Needs no driver.
 *
 * Returns: (transfer full): a new, unsealed, empty #GcgCapturePool
 *
 * Since: 0.1
 */
GcgCapturePool *
gcg_capture_pool_new (void)
{
  return g_object_new (GCG_TYPE_CAPTURE_POOL, NULL);
}

static gboolean
check_mem_pools_supported (GcgContext *context, GError **error)
{
  gint supported = 0;

  if (!GCG_CU_OK (error, cuDeviceGetAttribute, &supported,
          CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
          gcg__context_get_cu_device (context)))
    return FALSE;
  if (!supported) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "%s does not support stream-ordered memory pools, so a capture pool "
        "cannot own a private one; use gcg_capture_pool_new()",
        gcg_context_get_name (context));
    return FALSE;
  }
  return TRUE;
}

static gboolean
create_mem_pool (GcgCapturePool *self, GError **error)
{
  CUmemPoolProps props = { 0 };
  cuuint64_t threshold = G_MAXUINT64;

  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = gcg__context_get_cu_device (self->context);
  if (!GCG_CU_OK (error, cuMemPoolCreate, &self->mem_pool, &props)) {
    self->mem_pool = NULL;
    return FALSE;
  }
  /* Never give reserved memory back between frames. */
  return GCG_CU_OK (error, cuMemPoolSetAttribute, self->mem_pool,
      CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
}

/**
 * gcg_capture_pool_new_private:
 * @context: the #GcgContext whose device the memory pool lives on
 * @error: return location for a #GError, or %NULL
 *
 * Makes a pool that also owns a private CUmemoryPool on the device of
 * @context, with a release threshold of UINT64_MAX.
 *
 * Returns: (transfer full) (nullable): a new #GcgCapturePool, or %NULL
 *   with @error set (memory pools unsupported, driver failure)
 *
 * Since: 0.1
 */
GcgCapturePool *
gcg_capture_pool_new_private (GcgContext *context, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  g_autoptr (GcgCapturePool) self = NULL;

  g_return_val_if_fail (GCG_IS_CONTEXT (context), NULL);

  if (!gcg__context_guard_enter (&guard, context, error)
      || !check_mem_pools_supported (context, error))
    return NULL;
  self = gcg_capture_pool_new ();
  self->context = g_object_ref (context);
  if (!create_mem_pool (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * gcg_capture_pool_seal:
 * @self: a #GcgCapturePool
 *
 * From now on the pool refuses to begin captures, until
 * gcg_capture_pool_unseal().  Graphs already made keep working.
 *
 * Since: 0.1
 */
void
gcg_capture_pool_seal (GcgCapturePool *self)
{
  g_return_if_fail (GCG_IS_CAPTURE_POOL (self));

  if (!g_atomic_int_exchange (&self->sealed, TRUE))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEALED]);
}

/**
 * gcg_capture_pool_unseal:
 * @self: a #GcgCapturePool
 *
 * Lets the pool begin captures again.
 *
 * Since: 0.1
 */
void
gcg_capture_pool_unseal (GcgCapturePool *self)
{
  g_return_if_fail (GCG_IS_CAPTURE_POOL (self));

  if (g_atomic_int_exchange (&self->sealed, FALSE))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEALED]);
}

/**
 * gcg_capture_pool_is_sealed:
 * @self: a #GcgCapturePool
 *
 * Tells whether the pool is sealed, i.e. refuses to begin captures.
 *
 * Returns: %TRUE when the pool refuses to begin captures
 *
 * Since: 0.1
 */
gboolean
gcg_capture_pool_is_sealed (GcgCapturePool *self)
{
  g_return_val_if_fail (GCG_IS_CAPTURE_POOL (self), FALSE);

  return g_atomic_int_get (&self->sealed);
}

gboolean
gcg__capture_pool_check_unsealed (GcgCapturePool *self, GError **error)
{
  if (!g_atomic_int_get (&self->sealed))
    return TRUE;
  g_set_error_literal (error, GCG_ERROR, GCG_ERROR_POOL_SEALED,
      "Cannot begin a capture: its capture pool is sealed; unseal it with "
      "gcg_capture_pool_unseal() or capture with another pool");
  return FALSE;
}

/**
 * gcg_capture_pool_keep: (skip)
 * @self: a #GcgCapturePool
 * @data: (nullable): what to keep alive, e.g. a device buffer
 * @notify: (nullable): called with @data when the pool releases it
 *
 * Keeps @data alive until gcg_capture_pool_clear() or until the pool and
 * every graph holding it are gone; then @notify releases it.
 *
 * Returns: the index of @data among the kept buffers
 *
 * Since: 0.1
 */
guint
gcg_capture_pool_keep (GcgCapturePool *self, gpointer data,
    GDestroyNotify notify)
{
  GcgKeptItem *item;
  guint index;

  g_return_val_if_fail (GCG_IS_CAPTURE_POOL (self), 0);

  item = g_new (GcgKeptItem, 1);
  item->data = data;
  item->notify = notify;
  g_mutex_lock (&self->lock);
  index = self->kept->len;
  g_ptr_array_add (self->kept, item);
  g_mutex_unlock (&self->lock);
  return index;
}

/**
 * gcg_capture_pool_keep_object:
 * @self: a #GcgCapturePool
 * @object: (transfer none): an object to keep alive
 *
 * Like gcg_capture_pool_keep(), holding a reference on @object.
 *
 * Returns: the index of @object among the kept buffers
 *
 * Since: 0.1
 */
guint
gcg_capture_pool_keep_object (GcgCapturePool *self, GObject *object)
{
  g_return_val_if_fail (GCG_IS_CAPTURE_POOL (self), 0);
  g_return_val_if_fail (G_IS_OBJECT (object), 0);

  return gcg_capture_pool_keep (self, g_object_ref (object), g_object_unref);
}

/**
 * gcg_capture_pool_get_kept_count:
 * @self: a #GcgCapturePool
 *
 * Counts the buffers the pool keeps alive for its graphs.
 *
 * Returns: the number of buffers the pool keeps alive
 *
 * Since: 0.1
 */
guint
gcg_capture_pool_get_kept_count (GcgCapturePool *self)
{
  guint count;

  g_return_val_if_fail (GCG_IS_CAPTURE_POOL (self), 0);

  g_mutex_lock (&self->lock);
  count = self->kept->len;
  g_mutex_unlock (&self->lock);
  return count;
}

/**
 * gcg_capture_pool_clear:
 * @self: a #GcgCapturePool
 *
 * Releases every kept buffer now (their destroy notifies run, outside the
 * pool's lock).  Only safe once no graph using them can run again.
 *
 * Since: 0.1
 */
void
gcg_capture_pool_clear (GcgCapturePool *self)
{
  g_autoptr (GPtrArray) old = NULL;

  g_return_if_fail (GCG_IS_CAPTURE_POOL (self));

  g_mutex_lock (&self->lock);
  old = g_steal_pointer (&self->kept);
  self->kept = g_ptr_array_new_with_free_func (kept_item_free);
  g_mutex_unlock (&self->lock);
}

/**
 * gcg_capture_pool_has_private_pool:
 * @self: a #GcgCapturePool
 *
 * Tells whether the pool owns a private CUDA memory pool.
 *
 * Returns: %TRUE when the pool owns a private CUmemoryPool
 *
 * Since: 0.1
 */
gboolean
gcg_capture_pool_has_private_pool (GcgCapturePool *self)
{
  g_return_val_if_fail (GCG_IS_CAPTURE_POOL (self), FALSE);

  return self->mem_pool != NULL;
}

/**
 * gcg_capture_pool_get_mem_pool_handle:
 * @self: a #GcgCapturePool
 *
 * Gets the pool's private CUDA memory pool, for interoperation with code
 * that allocates from it.
 *
 * Returns: (transfer none) (nullable): the private CUmemoryPool, for
 *   interoperation, or %NULL when the pool has none
 *
 * Since: 0.1
 */
gpointer
gcg_capture_pool_get_mem_pool_handle (GcgCapturePool *self)
{
  g_return_val_if_fail (GCG_IS_CAPTURE_POOL (self), NULL);

  return self->mem_pool;
}

static gboolean
check_not_capturing (GcgStream *stream, GError **error)
{
  GcgCaptureStatus status = GCG_CAPTURE_STATUS_NONE;

  if (!gcg_stream_get_capture_status (stream, &status, error))
    return FALSE;
  if (status == GCG_CAPTURE_STATUS_NONE)
    return TRUE;
  g_set_error_literal (error, GCG_ERROR, GCG_ERROR_CAPTURE_STATE,
      "Cannot allocate from a capture pool on a capturing stream: the driver "
      "would record a graph-owned allocation instead of a pool buffer; "
      "allocate before the capture begins");
  return FALSE;
}

/**
 * gcg_capture_pool_alloc:
 * @self: a #GcgCapturePool with a private memory pool
 * @stream: the stream the allocation is ordered on; must not be capturing
 * @bytes: size of the allocation
 * @device_ptr: (out): the device address
 * @error: return location for a #GError, or %NULL
 *
 * Allocates from the private memory pool, stream-ordered
 * (cuMemAllocFromPoolAsync).  Refused with %GCG_ERROR_CAPTURE_STATE while
 * @stream captures (see the section on allocation during capture).  Free
 * with gcg_capture_pool_free(), or keep the address alive with
 * gcg_capture_pool_keep().
 *
 * Returns: %TRUE on success; on error nothing is allocated
 *
 * Since: 0.1
 */
gboolean
gcg_capture_pool_alloc (GcgCapturePool *self, GcgStream *stream, gsize bytes,
    guint64 *device_ptr, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUdeviceptr ptr = 0;

  g_return_val_if_fail (GCG_IS_CAPTURE_POOL (self), FALSE);
  g_return_val_if_fail (self->mem_pool != NULL, FALSE);
  g_return_val_if_fail (GCG_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (device_ptr != NULL, FALSE);

  if (!gcg__context_guard_enter (&guard, gcg_stream_get_context (stream), error)
      || !check_not_capturing (stream, error)
      || !GCG_CU_OK (error, cuMemAllocFromPoolAsync, &ptr, bytes,
          self->mem_pool, gcg__stream_get_cu (stream)))
    return FALSE;
  *device_ptr = ptr;
  return TRUE;
}

/**
 * gcg_capture_pool_free:
 * @self: a #GcgCapturePool
 * @stream: the stream the free is ordered on
 * @device_ptr: an address from gcg_capture_pool_alloc()
 * @error: return location for a #GError, or %NULL
 *
 * Returns the memory to the private pool once the work queued on @stream
 * so far is done (cuMemFreeAsync).
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_capture_pool_free (GcgCapturePool *self, GcgStream *stream,
    guint64 device_ptr, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  g_return_val_if_fail (GCG_IS_CAPTURE_POOL (self), FALSE);
  g_return_val_if_fail (GCG_IS_STREAM (stream), FALSE);

  return gcg__context_guard_enter (&guard, gcg_stream_get_context (stream),
             error)
      && GCG_CU_OK (error, cuMemFreeAsync, device_ptr,
          gcg__stream_get_cu (stream));
}

GcgContext *
gcg__capture_pool_get_context (GcgCapturePool *self)
{
  return self->context;
}
