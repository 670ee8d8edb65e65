/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgCapture:
 *
 * A stream capture in progress: begin it on a #GcgStream, queue the work
 * of one frame on the stream, then gcg_capture_finish() it into a
 * #GcgGraph that replays that work for every later frame.
 *
 * The object is a guard.  Dropping the last reference to a capture that
 * was neither finished nor aborted ends the capture, discards what it
 * recorded and restores what beginning it changed (the device's current
 * memory pool when a pool with a private CUmemoryPool was given), so the
 * stream can run eager work again.
 *
 * In %GCG_CAPTURE_MODE_THREAD_LOCAL and %GCG_CAPTURE_MODE_GLOBAL the
 * driver only lets the thread that began a capture end it: finish, abort
 * and drop the guard on that thread.  Finishing from another thread fails
 * with %GCG_ERROR_CAPTURE_STATE, and the driver (580 series, measured)
 * then discards the capture too: the guard is over and the stream is
 * usable again, but nothing was captured.
 *
 * While a capture is active, anything that waits for the stream
 * (gcg_stream_synchronize(), gcg_stream_query(), cuMemAlloc, ...)
 * invalidates it; gcg_capture_get_status() then says
 * %GCG_CAPTURE_STATUS_INVALIDATED and gcg_capture_finish() fails with
 * %GCG_ERROR_CAPTURE_INVALIDATED.  See #GcgCapturePool for what happens to
 * allocations made during a capture.
 *
 * Since: 0.1
 */
#include "gcg-capture-private.h"
#include "gcg-enum-types.h"

struct _GcgCapture
{
  GObject parent_instance;

  GcgStream *stream;
  GcgCaptureMode mode;
  GcgCapturePool *pool;
  GcgMemPoolScope scope;
  gboolean active;
};

enum
{
  PROP_0,
  PROP_STREAM,
  PROP_MODE,
  PROP_POOL,
  PROP_ACTIVE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (GcgCapture, gcg_capture, G_TYPE_OBJECT);

static void
gcg_capture_get_property (GObject *object, guint prop_id, GValue *value,
    GParamSpec *pspec)
{
  GcgCapture *self = GCG_CAPTURE (object);

  switch (prop_id) {
    case PROP_STREAM:
      g_value_set_object (value, self->stream);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_POOL:
      g_value_set_object (value, self->pool);
      break;
    case PROP_ACTIVE:
      g_value_set_boolean (value, self->active);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gcg_capture_dispose (GObject *object)
{
  GcgCapture *self = GCG_CAPTURE (object);
  g_autoptr (GError) error = NULL;

  if (self->active && !gcg_capture_abort (self, &error))
    g_warning ("Discarding an unfinished capture: %s", error->message);
  gcg__mem_pool_scope_leave (&self->scope);
  g_clear_object (&self->pool);
  g_clear_object (&self->stream);

  G_OBJECT_CLASS (gcg_capture_parent_class)->dispose (object);
}

static void
gcg_capture_class_init (GcgCaptureClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = gcg_capture_get_property;
  object_class->dispose = gcg_capture_dispose;

  /**
   * GcgCapture:stream:
   *
   * The stream being captured.
   *
   * Since: 0.1
   */
  properties[PROP_STREAM] = g_param_spec_object ("stream", "Stream",
      "The capturing stream", GCG_TYPE_STREAM,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgCapture:mode:
   *
   * The #GcgCaptureMode the capture was begun with.
   *
   * Since: 0.1
   */
  properties[PROP_MODE] = g_param_spec_enum ("mode", "Mode", "The capture mode",
      GCG_TYPE_CAPTURE_MODE, GCG_CAPTURE_MODE_DEFAULT,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgCapture:pool:
   *
   * The capture pool the resulting graph keeps alive, or %NULL.
   *
   * Since: 0.1
   */
  properties[PROP_POOL] = g_param_spec_object ("pool", "Pool",
      "The capture pool the graph will keep alive", GCG_TYPE_CAPTURE_POOL,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgCapture:active:
   *
   * %TRUE until the capture is finished or aborted; notified when that
   * happens.
   *
   * Since: 0.1
   */
  properties[PROP_ACTIVE] = g_param_spec_boolean ("active", "Active",
      "Whether the capture is neither finished nor aborted", FALSE,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcg_capture_init (GcgCapture *self)
{
  self->mode = GCG_CAPTURE_MODE_DEFAULT;
}

static gboolean
check_stream_idle (GcgStream *stream, GError **error)
{
  GcgCaptureStatus status = GCG_CAPTURE_STATUS_NONE;

  if (!gcg_stream_get_capture_status (stream, &status, error))
    return FALSE;
  if (status == GCG_CAPTURE_STATUS_NONE)
    return TRUE;
  g_set_error_literal (error, GCG_ERROR, GCG_ERROR_CAPTURE_STATE,
      "Cannot begin a capture: the stream is already capturing; finish or "
      "abort that capture first");
  return FALSE;
}

/**
 * gcg_capture_begin:
 * @stream: the stream to capture; it must not be capturing
 * @mode: a #GcgCaptureMode, usually %GCG_CAPTURE_MODE_DEFAULT
 * @error: return location for a #GError, or %NULL
 *
 * Begins capturing the work queued on @stream.
 *
 * Returns: (transfer full) (nullable): the capture guard, or %NULL with
 *   @error set (%GCG_ERROR_CAPTURE_STATE when @stream already captures)
 *
 * Since: 0.1
 */
GcgCapture *
gcg_capture_begin (GcgStream *stream, GcgCaptureMode mode, GError **error)
{
  return gcg_capture_begin_with_pool (stream, mode, NULL, error);
}

/**
 * gcg_capture_begin_with_pool:
 * @stream: the stream to capture; it must not be capturing
 * @mode: a #GcgCaptureMode, usually %GCG_CAPTURE_MODE_DEFAULT
 * @pool: (nullable): the #GcgCapturePool the resulting graph keeps alive
 * @error: return location for a #GError, or %NULL
 *
 * Begins capturing the work queued on @stream, bound to @pool.  A sealed
 * @pool refuses.  When @pool owns a private CUmemoryPool, it is the
 * device's current memory pool until the capture ends (the device-wide
 * setting, seen by every thread using the device).
 *
 * Returns: (transfer full) (nullable): the capture guard, or %NULL with
 *   @error set (%GCG_ERROR_POOL_SEALED, %GCG_ERROR_CAPTURE_STATE, driver
 *   failure); on error nothing is changed
 *
 * Since: 0.1
 */
GcgCapture *
gcg_capture_begin_with_pool (GcgStream *stream, GcgCaptureMode mode,
    GcgCapturePool *pool, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  g_autoptr (GcgCapture) self = NULL;

  g_return_val_if_fail (GCG_IS_STREAM (stream), NULL);
  g_return_val_if_fail ((guint) mode <= GCG_CAPTURE_MODE_RELAXED, NULL);
  g_return_val_if_fail (pool == NULL || GCG_IS_CAPTURE_POOL (pool), NULL);

  if ((pool && !gcg__capture_pool_check_unsealed (pool, error))
      || !gcg__context_guard_enter (&guard, gcg_stream_get_context (stream),
          error)
      || !check_stream_idle (stream, error))
    return NULL;

  self = g_object_new (GCG_TYPE_CAPTURE, NULL);
  self->stream = g_object_ref (stream);
  self->mode = mode;
  self->pool = pool ? g_object_ref (pool) : NULL;
  /* On failure dispose leaves the scope, restoring the memory pool. */
  if (!gcg__mem_pool_scope_enter (&self->scope, pool, error)
      || !GCG_CU_OK (error, cuStreamBeginCapture, gcg__stream_get_cu (stream),
          (CUstreamCaptureMode) mode))
    return NULL;
  self->active = TRUE;
  return g_steal_pointer (&self);
}

/* After a failed cuStreamEndCapture (a fault injected before the driver
 * ran, say) the stream may still capture: end that capture for good so
 * the stream is usable again. */
static void
discard_leftover_capture (CUstream stream)
{
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUgraph graph = NULL;

  if (GCG_CU (cuStreamIsCapturing, stream, &status) != CUDA_SUCCESS
      || status == CU_STREAM_CAPTURE_STATUS_NONE)
    return;
  if (GCG_CU (cuStreamEndCapture, stream, &graph) == CUDA_SUCCESS && graph)
    GCG_CU_WARN (cuGraphDestroy, graph);
}

static gboolean
stream_still_capturing (CUstream stream)
{
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;

  return GCG_CU (cuStreamIsCapturing, stream, &status) == CUDA_SUCCESS
      && status != CU_STREAM_CAPTURE_STATUS_NONE;
}

static void
mark_ended (GcgCapture *self)
{
  self->active = FALSE;
  gcg__mem_pool_scope_leave (&self->scope);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVE]);
}

/* Ends the capture and restores what begin changed.  Returns the captured
 * CUgraph, owned by the caller (counted by gcg__graph_handle_acquired()),
 * or NULL with @error set; nothing is leaked either way.  Only a capture
 * ended from the wrong thread that the driver left running stays active,
 * so that the right thread can still end it. */
CUgraph
gcg__capture_end (GcgCapture *self, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUstream stream = gcg__stream_get_cu (self->stream);
  CUgraph graph = NULL;
  CUresult res;

  if (!self->active) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_CAPTURE_STATE,
        "The capture is already finished or aborted; begin a new one");
    return NULL;
  }
  if (!gcg__context_guard_enter (&guard, gcg_stream_get_context (self->stream),
          error))
    return NULL;
  res = GCG_CU (cuStreamEndCapture, stream, &graph);
  if (res == CUDA_SUCCESS && graph) {
    gcg__graph_handle_acquired ();
    mark_ended (self);
    return graph;
  }
  if (graph)
    GCG_CU_WARN (cuGraphDestroy, graph);
  /* Measured on an H200 (driver 580): ending a thread-local capture from
   * another thread fails with WRONG_THREAD *and* terminates the capture
   * sequence (the stream no longer captures).  Keep the guard active only
   * if the driver really left the stream capturing. */
  if (res != CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD
      || !stream_still_capturing (stream)) {
    discard_leftover_capture (stream);
    mark_ended (self);
  }
  if (res == CUDA_SUCCESS)
    res = CUDA_ERROR_UNKNOWN;   /* success without a graph: never seen */
  gcg__cuda_result (res, "cuStreamEndCapture", error, __FILE__, __LINE__,
      G_STRFUNC);
  return NULL;
}

/**
 * gcg_capture_finish:
 * @self: an active #GcgCapture
 * @error: return location for a #GError, or %NULL
 *
 * Ends the capture and instantiates what it recorded.  The capture is
 * over whatever happens (except when called from another thread than the
 * one that began a thread-local or global capture).
 *
 * Returns: (transfer full) (nullable): the graph, or %NULL with @error
 *   set: %GCG_ERROR_CAPTURE_INVALIDATED when an operation not allowed
 *   during capture ran, %GCG_ERROR_CAPTURE_STATE when the capture is
 *   already over, a driver error when instantiation failed
 *
 * Since: 0.1
 */
GcgGraph *
gcg_capture_finish (GcgCapture *self, GError **error)
{
  CUgraph graph;

  g_return_val_if_fail (GCG_IS_CAPTURE (self), NULL);

  graph = gcg__capture_end (self, error);
  if (graph == NULL)
    return NULL;
  return gcg__graph_new_take (gcg_stream_get_context (self->stream), graph,
      self->pool, error);
}

/* Here rather than in gcg-graph.c: a capture makes graphs and hands them
 * what it recorded, so the graph never reaches into a capture. */

/**
 * gcg_graph_update_from_capture:
 * @self: a #GcgGraph
 * @capture: an active #GcgCapture on a stream of the graph's context
 * @reinstantiated: (out) (optional): set to %TRUE when the topology
 *   changed and the graph was instantiated anew, %FALSE when the
 *   executable graph was updated in place (cuGraphExecUpdate)
 * @error: return location for a #GError, or %NULL
 *
 * Ends @capture and makes @self replay what it recorded: in place when
 * the topology is the same (only kernel arguments, addresses and copy
 * sizes changed), by instantiating anew otherwise.  Launches already
 * queued run the old work.  @self takes the capture pool of @capture
 * (dropping its own reference on the previous one), and reads as not
 * uploaded afterwards.
 *
 * This is how code that captures its own work (its kernels launched on
 * the capture's stream) keeps one #GcgGraph when a buffer moves or a size
 * changes, without a new instantiation when the topology is the same:
 *
 * ```c
 * // Queues the application's kernels on @stream (cuLaunchKernel on
 * // gcg_stream_get_handle (stream)), reading w->input and w->output.
 * static gboolean queue_work (GcgStream *stream, gpointer w, GError **error);
 *
 * g_autoptr (GcgGraph) graph =
 *     gcg_capture_callable (stream, GCG_CAPTURE_MODE_DEFAULT, queue_work,
 *         &work, &error);
 * // ... gcg_graph_launch (graph, stream, &error) for every frame ...
 *
 * // The buffers were reallocated: record the same work again.
 * work.input = new_input;
 * work.output = new_output;
 * g_autoptr (GcgCapture) capture =
 *     gcg_capture_begin (stream, GCG_CAPTURE_MODE_DEFAULT, &error);
 * gboolean reinstantiated;
 * if (capture == NULL || !queue_work (stream, &work, &error)
 *     || !gcg_graph_update_from_capture (graph, capture, &reinstantiated,
 *         &error))
 *   return FALSE;      // the graph still replays the old buffers
 * // reinstantiated is FALSE: cuGraphExecUpdate changed the addresses in place
 * gcg_graph_launch (graph, stream, &error);
 * ```
 *
 * Returns: %TRUE on success; on error @self is unchanged and still
 *   replays the old work, and the capture is over
 *
 * Since: 0.1
 */
gboolean
gcg_graph_update_from_capture (GcgGraph *self, GcgCapture *capture,
    gboolean *reinstantiated, GError **error)
{
  CUgraph graph;

  g_return_val_if_fail (GCG_IS_GRAPH (self), FALSE);
  g_return_val_if_fail (GCG_IS_CAPTURE (capture), FALSE);
  g_return_val_if_fail (gcg__graph_same_context (self, capture->stream), FALSE);

  graph = gcg__capture_end (capture, error);
  if (graph == NULL)
    return FALSE;
  return gcg__graph_update_take (self, graph, capture->pool, reinstantiated,
      error);
}

/**
 * gcg_capture_abort:
 * @self: a #GcgCapture
 * @error: return location for a #GError, or %NULL
 *
 * Ends the capture and discards what it recorded; an invalidated capture
 * is discarded without error.  Does nothing when the capture is already
 * over.
 *
 * Returns: %TRUE when the stream no longer captures
 *
 * Since: 0.1
 */
gboolean
gcg_capture_abort (GcgCapture *self, GError **error)
{
  g_autoptr (GError) local = NULL;
  CUgraph graph;

  g_return_val_if_fail (GCG_IS_CAPTURE (self), FALSE);

  if (!self->active)
    return TRUE;
  graph = gcg__capture_end (self, &local);
  if (graph) {
    gcg__graph_destroy_cu (graph);
    return TRUE;
  }
  if (g_error_matches (local, GCG_ERROR, GCG_ERROR_CAPTURE_INVALIDATED))
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}

/**
 * gcg_capture_is_active:
 * @self: a #GcgCapture
 *
 * Tells whether the capture still has to be finished or aborted.
 *
 * Returns: %TRUE until the capture is finished or aborted (an invalidated
 *   capture is still active: it must be ended)
 *
 * Since: 0.1
 */
gboolean
gcg_capture_is_active (GcgCapture *self)
{
  g_return_val_if_fail (GCG_IS_CAPTURE (self), FALSE);

  return self->active;
}

/**
 * gcg_capture_get_status:
 * @self: a #GcgCapture
 * @status: (out): the capture status of the stream
 * @error: return location for a #GError, or %NULL
 *
 * Asks the driver: %GCG_CAPTURE_STATUS_INVALIDATED means the capture can
 * no longer be finished.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_capture_get_status (GcgCapture *self, GcgCaptureStatus *status,
    GError **error)
{
  g_return_val_if_fail (GCG_IS_CAPTURE (self), FALSE);

  return gcg_stream_get_capture_status (self->stream, status, error);
}

/**
 * gcg_capture_get_stream:
 * @self: a #GcgCapture
 *
 * Gets the stream being captured.
 *
 * Returns: (transfer none): the capturing stream
 *
 * Since: 0.1
 */
GcgStream *
gcg_capture_get_stream (GcgCapture *self)
{
  g_return_val_if_fail (GCG_IS_CAPTURE (self), NULL);

  return self->stream;
}

/**
 * gcg_capture_get_mode:
 * @self: a #GcgCapture
 *
 * Gets the mode the capture was begun with.
 *
 * Returns: the capture mode
 *
 * Since: 0.1
 */
GcgCaptureMode
gcg_capture_get_mode (GcgCapture *self)
{
  g_return_val_if_fail (GCG_IS_CAPTURE (self), GCG_CAPTURE_MODE_DEFAULT);

  return self->mode;
}

/**
 * gcg_capture_get_pool:
 * @self: a #GcgCapture
 *
 * Gets the capture pool the capture was begun with, which the resulting
 * graph keeps alive.
 *
 * Returns: (transfer none) (nullable): the capture pool, if any
 *
 * Since: 0.1
 */
GcgCapturePool *
gcg_capture_get_pool (GcgCapture *self)
{
  g_return_val_if_fail (GCG_IS_CAPTURE (self), NULL);

  return self->pool;
}
