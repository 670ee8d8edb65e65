/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include <glib-object.h>
#include "gcg-error.h"

G_BEGIN_DECLS

#define GCG_TYPE_CONTEXT (gcg_context_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgContext, gcg_context, GCG, CONTEXT, GObject)

GCG_API
gint gcg_context_get_device_count (GError **error);

GCG_API
GcgContext *gcg_context_new (gint device_id, GError **error);

GCG_API
GcgContext *gcg_context_new_wrapped (gpointer cu_context, GError **error);

GCG_API
gboolean gcg_context_push (GcgContext *self, GError **error);

GCG_API
gboolean gcg_context_pop (GcgContext *self, GError **error);

GCG_API
gint gcg_context_get_device_id (GcgContext *self);

GCG_API
const gchar *gcg_context_get_name (GcgContext *self);

GCG_API
void gcg_context_get_compute_capability (GcgContext *self, gint *major,
    gint *minor);

GCG_API
gint gcg_context_get_sm_count (GcgContext *self);

GCG_API
guint64 gcg_context_get_total_memory (GcgContext *self);

GCG_API
const gchar *gcg_context_get_pci_bus_id (GcgContext *self);

GCG_API
gpointer gcg_context_get_handle (GcgContext *self);

GCG_API
gboolean gcg_context_get_memory_info (GcgContext *self, guint64 *free_bytes,
    guint64 *total_bytes, GError **error);

GCG_API
gboolean gcg_context_load_kernels (GcgContext *self, GError **error);

GCG_API
const gchar *gcg_kernels_get_archs (void);

G_END_DECLS
