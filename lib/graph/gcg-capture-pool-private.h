/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-capture-pool.h"
#include "gcg-stream-private.h"

G_BEGIN_DECLS

/* Makes a capture pool's private CUmemoryPool the device's current memory
 * pool for a window (gcg-mem-pool-scope.c):
 *   GcgMemPoolScope scope = GCG_MEM_POOL_SCOPE_INIT;
 *   if (!gcg__mem_pool_scope_enter (&scope, pool, error))
 *     return FALSE;
 *   ...
 *   gcg__mem_pool_scope_leave (&scope);
 * Entering with a pool that has no private CUmemoryPool changes nothing.
 * Scopes may end in any order (two captures on two threads): the device
 * keeps the pool of the newest scope still open, and gets back the pool it
 * had before the first one once the last has left. */
typedef struct
{
  CUdevice device;
  CUmemoryPool pool;
  gboolean active;
  GList link;
} GcgMemPoolScope;

/* clang-format off */
#define GCG_MEM_POOL_SCOPE_INIT { 0, NULL, FALSE, { NULL, NULL, NULL } }
/* clang-format on */

gboolean gcg__mem_pool_scope_enter (GcgMemPoolScope *scope,
    GcgCapturePool *pool, GError **error);
void gcg__mem_pool_scope_leave (GcgMemPoolScope *scope);

/* The context of a pool with a private CUmemoryPool, NULL otherwise. */
GcgContext *gcg__capture_pool_get_context (GcgCapturePool *self);

gboolean gcg__capture_pool_check_unsealed (GcgCapturePool *self,
    GError **error);

G_END_DECLS
