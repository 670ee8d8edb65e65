/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The process-wide registry of capture pools by number, so that code
 * that cannot pass objects around (two elements of a pipeline, a
 * language binding) can share one pool: one side makes a handle, the
 * others look it up.  Handles are never reused within a process.
 */
#include "gcg-capture-pool-private.h"

G_LOCK_DEFINE_STATIC (registry);
static GHashTable *registry_pools;      /* guint64* -> GcgCapturePool */
static guint64 registry_next = 1;       /* 0 is never a handle */

static GHashTable *
registry_get_locked (void)
{
  if (registry_pools == NULL)
    registry_pools = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
        g_object_unref);
  return registry_pools;
}

/**
 * gcg_capture_pool_handle_new:
 *
 * Makes a new #GcgCapturePool (without a private memory pool) owned by
 * the registry, under a new handle.
 *
 * Returns: the handle, never 0 and never one given out before
 *
 * Since: 0.1
 */
guint64
gcg_capture_pool_handle_new (void)
{
  guint64 *key = g_new (guint64, 1);
  GcgCapturePool *pool = gcg_capture_pool_new ();
  guint64 handle;

  G_LOCK (registry);
  handle = *key = registry_next++;
  g_hash_table_insert (registry_get_locked (), key, pool);
  G_UNLOCK (registry);
  return handle;
}

/**
 * gcg_capture_pool_handle_lookup:
 * @handle: a handle from gcg_capture_pool_handle_new()
 *
 * Looks up the pool registered under a handle of the process-wide registry.
 *
 * Returns: (transfer full) (nullable): the pool registered under
 *   @handle, or %NULL when the handle is unknown or released
 *
 * Since: 0.1
 */
GcgCapturePool *
gcg_capture_pool_handle_lookup (guint64 handle)
{
  GcgCapturePool *pool = NULL;

  G_LOCK (registry);
  if (registry_pools)
    pool = g_hash_table_lookup (registry_pools, &handle);
  if (pool)
    g_object_ref (pool);
  G_UNLOCK (registry);
  return pool;
}

/**
 * gcg_capture_pool_handle_release:
 * @handle: a handle from gcg_capture_pool_handle_new()
 *
 * Drops the registry's reference on the pool of @handle; the pool lives on
 * while graphs or callers hold it.  Releasing an unknown or already
 * released handle does nothing.
 *
 * Since: 0.1
 */
void
gcg_capture_pool_handle_release (guint64 handle)
{
  gpointer key = NULL, pool = NULL;
  gboolean found = FALSE;

  /* Steal under the lock, unref outside it: the pool's destroy notifies
   * may call back into the registry. */
  G_LOCK (registry);
  if (registry_pools)
    found = g_hash_table_steal_extended (registry_pools, &handle, &key, &pool);
  G_UNLOCK (registry);
  if (found) {
    g_free (key);
    g_object_unref (pool);
  }
}
