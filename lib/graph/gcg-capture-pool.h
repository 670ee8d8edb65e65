/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-stream.h"

G_BEGIN_DECLS

#define GCG_TYPE_CAPTURE_POOL (gcg_capture_pool_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgCapturePool, gcg_capture_pool, GCG, CAPTURE_POOL,
    GObject)

GCG_API
GcgCapturePool *gcg_capture_pool_new (void);

GCG_API
GcgCapturePool *gcg_capture_pool_new_private (GcgContext *context,
    GError **error);

GCG_API
void gcg_capture_pool_seal (GcgCapturePool *self);

GCG_API
void gcg_capture_pool_unseal (GcgCapturePool *self);

GCG_API
gboolean gcg_capture_pool_is_sealed (GcgCapturePool *self);

GCG_API
guint gcg_capture_pool_keep (GcgCapturePool *self, gpointer data,
    GDestroyNotify notify);

GCG_API
guint gcg_capture_pool_keep_object (GcgCapturePool *self, GObject *object);

GCG_API
guint gcg_capture_pool_get_kept_count (GcgCapturePool *self);

GCG_API
void gcg_capture_pool_clear (GcgCapturePool *self);

GCG_API
gboolean gcg_capture_pool_has_private_pool (GcgCapturePool *self);

GCG_API
gpointer gcg_capture_pool_get_mem_pool_handle (GcgCapturePool *self);

GCG_API
gboolean gcg_capture_pool_alloc (GcgCapturePool *self, GcgStream *stream,
    gsize bytes, guint64 *device_ptr, GError **error);

GCG_API
gboolean gcg_capture_pool_free (GcgCapturePool *self, GcgStream *stream,
    guint64 device_ptr, GError **error);

GCG_API
guint64 gcg_capture_pool_handle_new (void);

GCG_API
GcgCapturePool *gcg_capture_pool_handle_lookup (guint64 handle);

GCG_API
void gcg_capture_pool_handle_release (guint64 handle);

G_END_DECLS
