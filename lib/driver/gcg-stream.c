/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgStream:
 *
 * A CUDA stream on a #GcgContext.  Streams made here are non-blocking:
 * they never synchronise with the legacy default stream, which both keeps
 * unrelated work from serialising and is required for stream capture.
 * A stream made by someone else can be wrapped; it is then never
 * destroyed.  #GcgStream:sync-mode chooses between spinning and sleeping
 * while gcg_stream_synchronize() waits.
 *
 * Since: 0.1
 */
#include "gcg-stream-private.h"
#include "gcg-enum-types.h"

struct _GcgStream
{
  GObject parent_instance;

  GcgContext *context;
  CUstream cu_stream;
  gboolean owned;

  gint sync_mode;               /* GcgSyncMode, atomic */
  GMutex event_lock;
  CUevent blocking_event;       /* made on first use */
  CUevent poll_event;           /* made on first use */
};

enum
{
  PROP_0,
  PROP_SYNC_MODE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (GcgStream, gcg_stream, G_TYPE_OBJECT);

static void
gcg_stream_finalize (GObject *object)
{
  GcgStream *self = GCG_STREAM (object);

  if (self->blocking_event || self->poll_event
      || (self->owned && self->cu_stream)) {
    g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

    if (gcg__context_guard_enter (&guard, self->context, NULL)) {
      if (self->blocking_event)
        GCG_CU_WARN (cuEventDestroy, self->blocking_event);
      if (self->poll_event)
        GCG_CU_WARN (cuEventDestroy, self->poll_event);
      if (self->owned && self->cu_stream)
        GCG_CU_WARN (cuStreamDestroy, self->cu_stream);
    }
  }
  g_clear_object (&self->context);
  g_mutex_clear (&self->event_lock);

  G_OBJECT_CLASS (gcg_stream_parent_class)->finalize (object);
}

static void
gcg_stream_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  switch (prop_id) {
    case PROP_SYNC_MODE:
      gcg_stream_set_sync_mode (GCG_STREAM (object), g_value_get_enum (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gcg_stream_get_property (GObject *object, guint prop_id, GValue *value,
    GParamSpec *pspec)
{
  switch (prop_id) {
    case PROP_SYNC_MODE:
      g_value_set_enum (value, gcg_stream_get_sync_mode (GCG_STREAM (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gcg_stream_class_init (GcgStreamClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = gcg_stream_finalize;
  object_class->set_property = gcg_stream_set_property;
  object_class->get_property = gcg_stream_get_property;

  /**
   * GcgStream:sync-mode:
   *
   * How gcg_stream_synchronize() waits: spinning (the driver's choice) or
   * sleeping on a blocking-sync event.
   *
   * Since: 0.1
   */
  properties[PROP_SYNC_MODE] = g_param_spec_enum ("sync-mode", "Sync mode",
      "How synchronize waits for the GPU", GCG_TYPE_SYNC_MODE,
      GCG_SYNC_MODE_DRIVER,
      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcg_stream_init (GcgStream *self)
{
  g_mutex_init (&self->event_lock);
}

/**
 * gcg_stream_new:
 * @context: a #GcgContext
 * @error: return location for a #GError, or %NULL
 *
 * Creates a non-blocking CUDA stream in @context, owned by the result.
 *
 * Returns: (transfer full) (nullable): a new non-blocking stream, or %NULL
 *   with @error set
 *
 * Since: 0.1
 */
GcgStream *
gcg_stream_new (GcgContext *context, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  g_autoptr (GcgStream) self = NULL;

  g_return_val_if_fail (GCG_IS_CONTEXT (context), NULL);

  if (!gcg__context_guard_enter (&guard, context, error))
    return NULL;
  self = g_object_new (GCG_TYPE_STREAM, NULL);
  self->context = g_object_ref (context);
  if (!GCG_CU_OK (error, cuStreamCreate, &self->cu_stream,
          CU_STREAM_NON_BLOCKING))
    return NULL;
  self->owned = TRUE;
  return g_steal_pointer (&self);
}

/**
 * gcg_stream_new_wrapped:
 * @context: the #GcgContext @cu_stream belongs to
 * @cu_stream: a CUstream owned by the caller, which must outlive the result
 *
 * Wraps a stream the caller owns (an application's, or another library's)
 * without taking it over.
 *
 * Returns: (transfer full): a #GcgStream using @cu_stream
 *
 * Since: 0.1
 */
GcgStream *
gcg_stream_new_wrapped (GcgContext *context, gpointer cu_stream)
{
  GcgStream *self;

  g_return_val_if_fail (GCG_IS_CONTEXT (context), NULL);

  self = g_object_new (GCG_TYPE_STREAM, NULL);
  self->context = g_object_ref (context);
  self->cu_stream = cu_stream;
  return self;
}

/**
 * gcg_stream_get_context:
 * @self: a #GcgStream
 *
 * Gets the context the stream belongs to.
 *
 * Returns: (transfer none): the context of the stream
 *
 * Since: 0.1
 */
GcgContext *
gcg_stream_get_context (GcgStream *self)
{
  g_return_val_if_fail (GCG_IS_STREAM (self), NULL);
  return self->context;
}

/**
 * gcg_stream_get_handle:
 * @self: a #GcgStream
 *
 * Gets the driver's stream handle, to queue other CUDA work on it.
 *
 * Returns: (transfer none): the CUstream, for interoperation
 *
 * Since: 0.1
 */
gpointer
gcg_stream_get_handle (GcgStream *self)
{
  g_return_val_if_fail (GCG_IS_STREAM (self), NULL);
  return self->cu_stream;
}

CUstream
gcg__stream_get_cu (GcgStream *self)
{
  return self->cu_stream;
}

/**
 * gcg_stream_get_sync_mode:
 * @self: a #GcgStream
 *
 * Gets how gcg_stream_synchronize() waits for the stream.
 *
 * Returns: how gcg_stream_synchronize() waits
 *
 * Since: 0.1
 */
GcgSyncMode
gcg_stream_get_sync_mode (GcgStream *self)
{
  g_return_val_if_fail (GCG_IS_STREAM (self), GCG_SYNC_MODE_DRIVER);
  return g_atomic_int_get (&self->sync_mode);
}

/**
 * gcg_stream_set_sync_mode:
 * @self: a #GcgStream
 * @mode: how gcg_stream_synchronize() is to wait
 *
 * Sets how gcg_stream_synchronize() waits for the stream.
 *
 * Since: 0.1
 */
void
gcg_stream_set_sync_mode (GcgStream *self, GcgSyncMode mode)
{
  g_return_if_fail (GCG_IS_STREAM (self));
  g_return_if_fail (mode == GCG_SYNC_MODE_DRIVER
      || mode == GCG_SYNC_MODE_BLOCKING || mode == GCG_SYNC_MODE_POLL);

  if (g_atomic_int_exchange (&self->sync_mode, mode) != (gint) mode)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SYNC_MODE]);
}

/* How long a poll sleeps between queries.  The kernel adds its timer
 * slack (50 µs for ordinary threads), so a step is some 70 µs. */
#define POLL_STEP_US 20
/* Queries in a row before the first sleep: a frame that is nearly done
 * costs no sleep at all. */
#define POLL_SPINS 8

static gboolean
event_done (CUevent event, gboolean *done, GError **error)
{
  CUresult res = GCG_CU (cuEventQuery, event);

  *done = res != CUDA_ERROR_NOT_READY;
  return !*done
      || gcg__cuda_result (res, "cuEventQuery", error, __FILE__, __LINE__,
          G_STRFUNC);
}

/**
 * gcg__event_wait:
 * @event: a recorded event (made with CU_EVENT_BLOCKING_SYNC for
 *   %GCG_SYNC_MODE_BLOCKING)
 * @mode: how to wait
 * @error: return location for a #GError, or %NULL
 *
 * Waits for @event as @mode says: the driver's blocking wait, a spin on
 * queries (%GCG_SYNC_MODE_DRIVER: an event without the blocking flag
 * would spin in cuEventSynchronize() too), or queries with short sleeps
 * between them.
 *
 * Returns: %TRUE when the work before @event completed without error
 */
gboolean
gcg__event_wait (CUevent event, GcgSyncMode mode, GError **error)
{
  gboolean done = FALSE;

  if (mode == GCG_SYNC_MODE_BLOCKING)
    return GCG_CU_OK (error, cuEventSynchronize, event);
  for (guint i = 0; !done; i++) {
    if (!event_done (event, &done, error))
      return FALSE;
    if (!done && mode == GCG_SYNC_MODE_POLL && i >= POLL_SPINS)
      g_usleep (POLL_STEP_US);
  }
  return TRUE;
}

/* Records the stream's event for @mode (made on first use: a
 * CU_EVENT_BLOCKING_SYNC one to sleep on, a plain one to poll) and waits
 * on it.  A capturing stream takes the plain path, so the capture is
 * invalidated and reported as in the driver mode instead of gaining an
 * event-record node.  Two threads may share an event: a later record only
 * waits for more. */
static gboolean
synchronize_event (GcgStream *self, GcgSyncMode mode, GError **error)
{
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  gboolean blocking = mode == GCG_SYNC_MODE_BLOCKING;
  CUevent *slot = blocking ? &self->blocking_event : &self->poll_event;
  CUevent event;

  if (!GCG_CU_OK (error, cuStreamIsCapturing, self->cu_stream, &status))
    return FALSE;
  if (status != CU_STREAM_CAPTURE_STATUS_NONE)
    return GCG_CU_OK (error, cuStreamSynchronize, self->cu_stream);
  g_mutex_lock (&self->event_lock);
  if (*slot == NULL
      && !GCG_CU_OK (error, cuEventCreate, slot,
          CU_EVENT_DISABLE_TIMING | (blocking ? CU_EVENT_BLOCKING_SYNC : 0))) {
    *slot = NULL;
    g_mutex_unlock (&self->event_lock);
    return FALSE;
  }
  event = *slot;
  g_mutex_unlock (&self->event_lock);
  return GCG_CU_OK (error, cuEventRecord, event, self->cu_stream)
      && gcg__event_wait (event, mode, error);
}

/**
 * gcg_stream_synchronize:
 * @self: a #GcgStream
 * @error: return location for a #GError, or %NULL
 *
 * Waits until all work queued on the stream has completed, as
 * #GcgStream:sync-mode says.  Not allowed while the stream captures: that
 * invalidates the capture.
 *
 * Returns: %TRUE on success; the error of a failed kernel otherwise
 *
 * Since: 0.1
 */
gboolean
gcg_stream_synchronize (GcgStream *self, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  GcgSyncMode mode;

  g_return_val_if_fail (GCG_IS_STREAM (self), FALSE);

  if (!gcg__context_guard_enter (&guard, self->context, error))
    return FALSE;
  mode = g_atomic_int_get (&self->sync_mode);
  if (mode == GCG_SYNC_MODE_DRIVER)
    return GCG_CU_OK (error, cuStreamSynchronize, self->cu_stream);
  return synchronize_event (self, mode, error);
}

/**
 * gcg_stream_query:
 * @self: a #GcgStream
 * @idle: (out): %TRUE when all queued work has completed
 * @error: return location for a #GError, or %NULL
 *
 * Asks, without waiting, whether all work queued on the stream has
 * completed.
 *
 * Returns: %TRUE when the query worked (whatever @idle says)
 *
 * Since: 0.1
 */
gboolean
gcg_stream_query (GcgStream *self, gboolean *idle, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUresult res;

  g_return_val_if_fail (GCG_IS_STREAM (self), FALSE);
  g_return_val_if_fail (idle != NULL, FALSE);

  if (!gcg__context_guard_enter (&guard, self->context, error))
    return FALSE;
  res = GCG_CU (cuStreamQuery, self->cu_stream);
  if (res == CUDA_ERROR_NOT_READY) {
    *idle = FALSE;
    return TRUE;
  }
  if (!gcg__cuda_result (res, "cuStreamQuery", error, __FILE__, __LINE__,
          G_STRFUNC))
    return FALSE;
  *idle = TRUE;
  return TRUE;
}

/**
 * gcg_stream_get_capture_status:
 * @self: a #GcgStream
 * @status: (out): the capture status
 * @error: return location for a #GError, or %NULL
 *
 * Asks the driver whether the stream is being captured.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_stream_get_capture_status (GcgStream *self, GcgCaptureStatus *status,
    GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUstreamCaptureStatus cu_status = CU_STREAM_CAPTURE_STATUS_NONE;

  g_return_val_if_fail (GCG_IS_STREAM (self), FALSE);
  g_return_val_if_fail (status != NULL, FALSE);

  if (!gcg__context_guard_enter (&guard, self->context, error)
      || !GCG_CU_OK (error, cuStreamIsCapturing, self->cu_stream, &cu_status))
    return FALSE;
  *status = (GcgCaptureStatus) cu_status;
  return TRUE;
}

/**
 * gcg_stream_copy_to_device:
 * @self: a #GcgStream
 * @dst: device address to write
 * @src: (array length=size) (element-type guint8): host memory to read
 * @size: bytes to copy
 * @error: return location for a #GError, or %NULL
 *
 * Queues a host-to-device copy on the stream.  From pinned memory (see
 * #GcgHostPool) the copy is asynchronous; from pageable memory the driver
 * stages it and returns once @src may be reused.  Either way @src must
 * stay valid until the stream has passed the copy.  A zero @size queues
 * nothing.
 *
 * Returns: %TRUE when the copy was queued
 *
 * Since: 0.1
 */
gboolean
gcg_stream_copy_to_device (GcgStream *self, guint64 dst, gconstpointer src,
    gsize size, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  g_return_val_if_fail (GCG_IS_STREAM (self), FALSE);
  g_return_val_if_fail (size == 0 || (dst != 0 && src != NULL), FALSE);

  if (size == 0)
    return TRUE;
  return gcg__context_guard_enter (&guard, self->context, error)
      && GCG_CU_OK (error, cuMemcpyHtoDAsync, (CUdeviceptr) dst, src, size,
          self->cu_stream);
}

/**
 * gcg_stream_copy_to_host:
 * @self: a #GcgStream
 * @dst: (array length=size) (element-type guint8): host memory to write
 * @src: device address to read
 * @size: bytes to copy
 * @error: return location for a #GError, or %NULL
 *
 * Queues a device-to-host copy on the stream.  @dst holds the result only
 * once the stream has been synchronised (gcg_stream_synchronize()).  A zero
 * @size queues nothing.
 *
 * Returns: %TRUE when the copy was queued
 *
 * Since: 0.1
 */
gboolean
gcg_stream_copy_to_host (GcgStream *self, gpointer dst, guint64 src, gsize size,
    GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  g_return_val_if_fail (GCG_IS_STREAM (self), FALSE);
  g_return_val_if_fail (size == 0 || (dst != NULL && src != 0), FALSE);

  if (size == 0)
    return TRUE;
  return gcg__context_guard_enter (&guard, self->context, error)
      && GCG_CU_OK (error, cuMemcpyDtoHAsync, dst, (CUdeviceptr) src, size,
          self->cu_stream);
}
