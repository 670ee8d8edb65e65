/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The device's current memory pool while capture pools are in use.  The
 * setting is per device and process-wide, and scopes (captures on several
 * threads) may end in any order, so each device has one stack of open
 * scopes: the newest open scope's pool is current, and the pool found
 * before the first scope comes back when the last one leaves.  A scope
 * that leaves from the middle changes nothing for the others.
 */
#include "gcg-capture-pool-private.h"
#include "gcg-context-private.h"

typedef struct
{
  CUmemoryPool original;        /* current before the first open scope */
  GQueue scopes;                /* open scopes, oldest first */
} DeviceStack;

static GMutex stacks_lock;
static GHashTable *stacks;      /* CUdevice -> DeviceStack */

static DeviceStack *
stack_for (CUdevice device)
{
  DeviceStack *stack;

  if (stacks == NULL)
    stacks = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  stack = g_hash_table_lookup (stacks, GINT_TO_POINTER (device));
  if (stack == NULL) {
    stack = g_new0 (DeviceStack, 1);
    g_hash_table_insert (stacks, GINT_TO_POINTER (device), stack);
  }
  return stack;
}

/* Device-level calls: they need no current context, so the restore in
 * leave() cannot fail for want of one. */
gboolean
gcg__mem_pool_scope_enter (GcgMemPoolScope *scope, GcgCapturePool *pool,
    GError **error)
{
  CUmemoryPool mem_pool = pool ? gcg_capture_pool_get_mem_pool_handle (pool)
                               : NULL;
  DeviceStack *stack;
  CUdevice dev;
  gboolean ok = TRUE;

  scope->active = FALSE;
  if (mem_pool == NULL)
    return TRUE;
  dev = gcg__context_get_cu_device (gcg__capture_pool_get_context (pool));
  g_mutex_lock (&stacks_lock);
  stack = stack_for (dev);
  if (stack->scopes.length == 0)
    ok = GCG_CU_OK (error, cuDeviceGetMemPool, &stack->original, dev);
  ok = ok && GCG_CU_OK (error, cuDeviceSetMemPool, dev, mem_pool);
  if (ok) {
    scope->device = dev;
    scope->pool = mem_pool;
    scope->active = TRUE;
    scope->link.data = scope;
    g_queue_push_tail_link (&stack->scopes, &scope->link);
  }
  g_mutex_unlock (&stacks_lock);
  return ok;
}

void
gcg__mem_pool_scope_leave (GcgMemPoolScope *scope)
{
  DeviceStack *stack;
  CUmemoryPool current;

  if (!scope->active)
    return;
  g_mutex_lock (&stacks_lock);
  stack = stack_for (scope->device);
  g_queue_unlink (&stack->scopes, &scope->link);
  current = stack->scopes.tail
      ? ((GcgMemPoolScope *) stack->scopes.tail->data)->pool
      : stack->original;
  GCG_CU_WARN (cuDeviceSetMemPool, scope->device, current);
  g_mutex_unlock (&stacks_lock);
  scope->active = FALSE;
}
