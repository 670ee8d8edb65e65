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

#define GCG_TYPE_HOST_POOL (gcg_host_pool_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgHostPool, gcg_host_pool, GCG, HOST_POOL, GObject)

GCG_API
GcgHostPool *gcg_host_pool_new (GcgContext *context);

GCG_API
gpointer gcg_host_pool_alloc (GcgHostPool *self, gsize size, GError **error);

GCG_API
gboolean gcg_host_pool_release (GcgHostPool *self, gpointer ptr, gsize size,
    GError **error);

GCG_API
void gcg_host_pool_clear (GcgHostPool *self);

GCG_API
guint64 gcg_host_pool_get_max_cached_bytes (GcgHostPool *self);

GCG_API
void gcg_host_pool_set_max_cached_bytes (GcgHostPool *self,
    guint64 max_cached_bytes);

GCG_API
guint64 gcg_host_pool_get_cached_bytes (GcgHostPool *self);

GCG_API
guint64 gcg_host_pool_get_in_use_bytes (GcgHostPool *self);

GCG_API
gsize gcg_host_pool_bucket_size (gsize size);

G_END_DECLS
