/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Capture in one call: a callback into a graph (the seeds'
 * make_graphed_callable), and a prologue run eagerly followed by a body
 * captured into a capture pool (capture_into_private_pool).  Every state
 * they change is restored on every exit path.
 */
#include "gcg-capture-private.h"

/* Runs @func; a failure always comes back with an error set. */
static gboolean
run_func (GcgCaptureFunc func, GcgStream *stream, gpointer data,
    const gchar *what, GError **error)
{
  GError *local = NULL;

  if (func (stream, data, &local)) {
    if (local) {
      g_warning ("The %s succeeded but set an error: %s", what, local->message);
      g_error_free (local);
    }
    return TRUE;
  }
  if (local == NULL)
    local = g_error_new (GCG_ERROR, GCG_ERROR_FAILED,
        "The %s failed without saying why", what);
  g_propagate_error (error, local);
  return FALSE;
}

/* Begins a capture, runs @body and finishes.  On any error the guard's
 * disposal discards the capture. */
static GcgGraph *
capture_body (GcgStream *stream, GcgCaptureMode mode, GcgCapturePool *pool,
    GcgCaptureFunc body, gpointer data, GError **error)
{
  g_autoptr (GcgCapture) capture = NULL;

  capture = gcg_capture_begin_with_pool (stream, mode, pool, error);
  if (capture == NULL || !run_func (body, stream, data, "capture body", error))
    return NULL;
  return gcg_capture_finish (capture, error);
}

/**
 * gcg_capture_callable:
 * @stream: the stream to capture on; it must not be capturing
 * @mode: a #GcgCaptureMode, usually %GCG_CAPTURE_MODE_DEFAULT
 * @func: (scope call) (closure user_data): queues the work to capture
 * @user_data: data for @func
 * @error: return location for a #GError, or %NULL
 *
 * Captures what @func queues on @stream into a graph.  When @func fails,
 * the capture is discarded and its error returned.
 *
 * Returns: (transfer full) (nullable): the graph, or %NULL with @error set
 *
 * Since: 0.1
 */
GcgGraph *
gcg_capture_callable (GcgStream *stream, GcgCaptureMode mode,
    GcgCaptureFunc func, gpointer user_data, GError **error)
{
  g_return_val_if_fail (GCG_IS_STREAM (stream), NULL);
  g_return_val_if_fail (func != NULL, NULL);

  return capture_body (stream, mode, NULL, func, user_data, error);
}

/**
 * gcg_capture_into_pool:
 * @stream: the stream to run on and capture; it must not be capturing
 * @pool: the #GcgCapturePool to capture into
 * @mode: a #GcgCaptureMode, usually %GCG_CAPTURE_MODE_DEFAULT
 * @prologue: (scope call) (closure prologue_data) (nullable): eager work
 *   run before the capture: allocate buffers, warm up
 * @prologue_data: data for @prologue
 * @body: (scope call) (closure body_data): queues the work to capture
 * @body_data: data for @body
 * @error: return location for a #GError, or %NULL
 *
 * Runs @prologue eagerly, then captures @body into a graph bound to
 * @pool.  When @pool owns a private CUmemoryPool it is the device's
 * current memory pool from before @prologue until the capture ends, so
 * cuMemAllocAsync in @prologue is served from it (in @body it becomes a
 * graph allocation node whatever the pool: see #GcgCapturePool); the
 * previous pool is restored on every exit path.  A sealed @pool refuses
 * before @prologue runs.
 *
 * Returns: (transfer full) (nullable): the graph, or %NULL with @error set
 *   to the error of @prologue, of @body or of the capture; the capture is
 *   then discarded and the stream usable
 *
 * Since: 0.1
 */
GcgGraph *
gcg_capture_into_pool (GcgStream *stream, GcgCapturePool *pool,
    GcgCaptureMode mode, GcgCaptureFunc prologue, gpointer prologue_data,
    GcgCaptureFunc body, gpointer body_data, GError **error)
{
  GcgMemPoolScope scope = GCG_MEM_POOL_SCOPE_INIT;
  GcgGraph *graph = NULL;

  g_return_val_if_fail (GCG_IS_STREAM (stream), NULL);
  g_return_val_if_fail (GCG_IS_CAPTURE_POOL (pool), NULL);
  g_return_val_if_fail (body != NULL, NULL);

  if (!gcg__capture_pool_check_unsealed (pool, error)
      || !gcg__mem_pool_scope_enter (&scope, pool, error))
    return NULL;
  if (prologue == NULL
      || run_func (prologue, stream, prologue_data, "capture prologue", error))
    graph = capture_body (stream, mode, pool, body, body_data, error);
  gcg__mem_pool_scope_leave (&scope);
  return graph;
}
