/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gcg-fence
 * @title: GcgFence
 * @short_description: a point in a stream's work, to query or wait for
 *
 * A #GcgFence marks everything queued on a #GcgStream when it was made:
 * whoever holds it can ask whether that work is done, or wait for it (as
 * the stream's #GcgSyncMode says), without waiting for what was queued
 * later.  For work that is not a #GcgFrameQueue frame (a
 * #GcgFrameBatch replay, say) whose output leaves before it is done.
 */
#include "gcg-fence.h"
#include "gcg-stream-private.h"
#include "gcg-cuda-private.h"

/**
 * GcgFence:
 *
 * A point in a #GcgStream's work (an event recorded after the work queued
 * when it was made), to query without waiting or to wait for.  Any thread
 * may query or wait; the fence keeps its context alive.
 *
 * Since: 0.1
 */
struct _GcgFence
{
  GObject parent;

  GcgContext *context;
  CUevent event;
  GcgSyncMode mode;
  /* Set once the work is known done (no more driver calls); readers on
   * several threads may query at once. */
  gint done;
};

G_DEFINE_FINAL_TYPE (GcgFence, gcg_fence, G_TYPE_OBJECT)

static void
gcg_fence_finalize (GObject *object)
{
  GcgFence *self = GCG_FENCE (object);
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  if (self->event && gcg__context_guard_enter (&guard, self->context, NULL))
    GCG_CU_WARN (cuEventDestroy, self->event);
  gcg__context_guard_leave (&guard);
  g_clear_object (&self->context);

  G_OBJECT_CLASS (gcg_fence_parent_class)->finalize (object);
}

static void
gcg_fence_class_init (GcgFenceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gcg_fence_finalize;
}

static void
gcg_fence_init (GcgFence *self)
{
}

/**
 * gcg_fence_new:
 * @stream: the stream whose queued work the fence marks
 * @error: return location for a #GError, or %NULL
 *
 * Records a fence after the work queued on @stream so far.  With
 * %GCG_SYNC_MODE_BLOCKING (the stream's mode now) waits sleep on a
 * blocking-sync event; otherwise the event is a plain one.
 *
 * Returns: (transfer full) (nullable): a new #GcgFence, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
GcgFence *
gcg_fence_new (GcgStream *stream, GError **error)
{
  g_autoptr (GcgFence) self = NULL;
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  guint flags = CU_EVENT_DISABLE_TIMING;

  g_return_val_if_fail (GCG_IS_STREAM (stream), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  self = g_object_new (GCG_TYPE_FENCE, NULL);
  self->context = g_object_ref (gcg_stream_get_context (stream));
  self->mode = gcg_stream_get_sync_mode (stream);
  if (self->mode == GCG_SYNC_MODE_BLOCKING)
    flags |= CU_EVENT_BLOCKING_SYNC;
  if (!gcg__context_guard_enter (&guard, self->context, error))
    return NULL;
  if (!GCG_CU_OK (error, cuEventCreate, &self->event, flags)) {
    self->event = NULL;
    return NULL;
  }
  if (!GCG_CU_OK (error, cuEventRecord, self->event,
          gcg__stream_get_cu (stream)))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * gcg_fence_query:
 * @self: a #GcgFence
 * @done: (out): whether the work before the fence is complete
 * @error: return location for a #GError, or %NULL
 *
 * Asks without waiting.
 *
 * Returns: %FALSE when that work failed (@error set)
 *
 * Since: 0.1
 */
gboolean
gcg_fence_query (GcgFence *self, gboolean *done, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUresult res;

  g_return_val_if_fail (GCG_IS_FENCE (self), FALSE);
  g_return_val_if_fail (done != NULL, FALSE);

  *done = g_atomic_int_get (&self->done);
  if (*done)
    return TRUE;
  if (!gcg__context_guard_enter (&guard, self->context, error))
    return FALSE;
  res = GCG_CU (cuEventQuery, self->event);
  if (res == CUDA_ERROR_NOT_READY)
    return TRUE;
  if (!gcg__cuda_result (res, "cuEventQuery", error, __FILE__, __LINE__,
          G_STRFUNC))
    return FALSE;
  g_atomic_int_set (&self->done, TRUE);
  *done = TRUE;
  return TRUE;
}

/**
 * gcg_fence_wait:
 * @self: a #GcgFence
 * @error: return location for a #GError, or %NULL
 *
 * Waits until the work before the fence is complete.
 *
 * Returns: %FALSE when that work failed (@error set)
 *
 * Since: 0.1
 */
gboolean
gcg_fence_wait (GcgFence *self, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  g_return_val_if_fail (GCG_IS_FENCE (self), FALSE);

  if (g_atomic_int_get (&self->done))
    return TRUE;
  if (!gcg__context_guard_enter (&guard, self->context, error)
      || !gcg__event_wait (self->event, self->mode, error))
    return FALSE;
  g_atomic_int_set (&self->done, TRUE);
  return TRUE;
}
