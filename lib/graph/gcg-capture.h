/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-graph.h"

G_BEGIN_DECLS

/**
 * GcgCaptureMode:
 * @GCG_CAPTURE_MODE_GLOBAL: while this capture runs, potentially unsafe
 *   calls (cuMemAlloc, cuMemFree, synchronisation, ...) fail on every
 *   thread that has not relaxed its own mode
 * @GCG_CAPTURE_MODE_THREAD_LOCAL: unsafe calls fail only on the thread
 *   that began the capture, which must also be the one to end it (the
 *   default, and what a pipeline with one thread per stream wants)
 * @GCG_CAPTURE_MODE_RELAXED: no call is refused for being unsafe; the
 *   caller answers for what it does
 *
 * How a capture treats calls that may synchronise implicitly; the values
 * are those of the driver's CUstreamCaptureMode.
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_CAPTURE_MODE_GLOBAL = 0,
  GCG_CAPTURE_MODE_THREAD_LOCAL = 1,
  GCG_CAPTURE_MODE_RELAXED = 2,
} GcgCaptureMode;

/**
 * GCG_CAPTURE_MODE_DEFAULT:
 *
 * The capture mode to use when nothing else is called for.
 *
 * Since: 0.1
 */
#define GCG_CAPTURE_MODE_DEFAULT GCG_CAPTURE_MODE_THREAD_LOCAL

/**
 * GcgCaptureFunc:
 * @stream: the stream to queue work on (capturing, for a capture body)
 * @user_data: the data given with the function
 * @error: return location for a #GError
 *
 * Work to run eagerly (a prologue) or to capture (a body).  A body must
 * only queue work on @stream: synchronising it, or allocating with
 * cuMemAlloc, invalidates the capture.
 *
 * Returns: %TRUE on success; %FALSE with @error set to abandon the capture
 *
 * Since: 0.1
 */
typedef gboolean (*GcgCaptureFunc) (GcgStream *stream, gpointer user_data,
    GError **error);

#define GCG_TYPE_CAPTURE (gcg_capture_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgCapture, gcg_capture, GCG, CAPTURE, GObject)

GCG_API
GcgCapture *gcg_capture_begin (GcgStream *stream, GcgCaptureMode mode,
    GError **error);

GCG_API
GcgCapture *gcg_capture_begin_with_pool (GcgStream *stream, GcgCaptureMode mode,
    GcgCapturePool *pool, GError **error);

GCG_API
GcgGraph *gcg_capture_finish (GcgCapture *self, GError **error);

GCG_API
gboolean gcg_capture_abort (GcgCapture *self, GError **error);

GCG_API
gboolean gcg_capture_is_active (GcgCapture *self);

GCG_API
gboolean gcg_capture_get_status (GcgCapture *self, GcgCaptureStatus *status,
    GError **error);

GCG_API
GcgStream *gcg_capture_get_stream (GcgCapture *self);

GCG_API
GcgCaptureMode gcg_capture_get_mode (GcgCapture *self);

GCG_API
GcgCapturePool *gcg_capture_get_pool (GcgCapture *self);

/* A method of GcgGraph, declared here because it needs GcgCapture. */
GCG_API
gboolean gcg_graph_update_from_capture (GcgGraph *self, GcgCapture *capture,
    gboolean *reinstantiated, GError **error);

GCG_API
GcgGraph *gcg_capture_callable (GcgStream *stream, GcgCaptureMode mode,
    GcgCaptureFunc func, gpointer user_data, GError **error);

GCG_API
GcgGraph *gcg_capture_into_pool (GcgStream *stream, GcgCapturePool *pool,
    GcgCaptureMode mode, GcgCaptureFunc prologue, gpointer prologue_data,
    GcgCaptureFunc body, gpointer body_data, GError **error);

G_END_DECLS
