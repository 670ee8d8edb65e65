/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-capture-pool.h"
#include "gcg-stream-private.h"

G_BEGIN_DECLS

/* Makes a capture pool's private CUmemoryPool the device's current memory
 * pool for a window and puts the previous one back:
 *   GcgMemPoolScope scope = GCG_MEM_POOL_SCOPE_INIT;
 *   if (!gcg__mem_pool_scope_enter (&scope, pool, error))
 *     return FALSE;
 *   ...
 *   gcg__mem_pool_scope_leave (&scope);
 * Entering with a pool that has no private CUmemoryPool changes nothing.
 * Scopes nest: each one restores what it found. */
typedef struct
{
  CUdevice device;
  CUmemoryPool previous;
  gboolean active;
} GcgMemPoolScope;

#define GCG_MEM_POOL_SCOPE_INIT { 0, NULL, FALSE }

gboolean gcg__mem_pool_scope_enter (GcgMemPoolScope *scope,
    GcgCapturePool *pool, GError **error);
void gcg__mem_pool_scope_leave (GcgMemPoolScope *scope);

gboolean gcg__capture_pool_check_unsealed (GcgCapturePool *self,
    GError **error);

G_END_DECLS
