/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-context.h"

G_BEGIN_DECLS

/**
 * GcgCaptureStatus:
 * @GCG_CAPTURE_STATUS_NONE: the stream is not capturing
 * @GCG_CAPTURE_STATUS_ACTIVE: the stream is capturing
 * @GCG_CAPTURE_STATUS_INVALIDATED: the capture was invalidated by an
 *   operation not allowed during capture; it must be ended and discarded
 *
 * Capture state of a #GcgStream (the driver's CUstreamCaptureStatus).
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_CAPTURE_STATUS_NONE = 0,
  GCG_CAPTURE_STATUS_ACTIVE = 1,
  GCG_CAPTURE_STATUS_INVALIDATED = 2,
} GcgCaptureStatus;

/**
 * GcgSyncMode:
 * @GCG_SYNC_MODE_DRIVER: cuStreamSynchronize() under the context's
 *   scheduling policy; on a primary context that is the driver's automatic
 *   choice, which spins a CPU core while the GPU works whenever there are
 *   fewer contexts than cores: the lowest latency, a busy core
 * @GCG_SYNC_MODE_BLOCKING: record an event made with
 *   CU_EVENT_BLOCKING_SYNC and wait on it: the thread sleeps until the
 *   GPU is done, at the price of a wake-up latency; the driver takes an
 *   interrupt for every such event, waited on or not
 * @GCG_SYNC_MODE_POLL: record a plain event and query it, sleeping in
 *   short steps (about 50 µs) while the GPU is not done: no interrupts,
 *   a microsecond or two of CPU per step, and a wake-up up to one step
 *   late
 *
 * How gcg_stream_synchronize() waits.
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_SYNC_MODE_DRIVER = 0,
  GCG_SYNC_MODE_BLOCKING = 1,
  GCG_SYNC_MODE_POLL = 2,
} GcgSyncMode;

#define GCG_TYPE_STREAM (gcg_stream_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgStream, gcg_stream, GCG, STREAM, GObject)

GCG_API
GcgStream *gcg_stream_new (GcgContext *context, GError **error);

GCG_API
GcgStream *gcg_stream_new_wrapped (GcgContext *context, gpointer cu_stream);

GCG_API
GcgContext *gcg_stream_get_context (GcgStream *self);

GCG_API
gpointer gcg_stream_get_handle (GcgStream *self);

GCG_API
gboolean gcg_stream_synchronize (GcgStream *self, GError **error);

GCG_API
GcgSyncMode gcg_stream_get_sync_mode (GcgStream *self);

GCG_API
void gcg_stream_set_sync_mode (GcgStream *self, GcgSyncMode mode);

GCG_API
gboolean gcg_stream_query (GcgStream *self, gboolean *idle, GError **error);

GCG_API
gboolean gcg_stream_get_capture_status (GcgStream *self,
    GcgCaptureStatus *status, GError **error);

GCG_API
gboolean gcg_stream_copy_to_device (GcgStream *self, guint64 dst,
    gconstpointer src, gsize size, GError **error);

GCG_API
gboolean gcg_stream_copy_to_host (GcgStream *self, gpointer dst, guint64 src,
    gsize size, GError **error);

G_END_DECLS
