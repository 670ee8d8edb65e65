/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-param-block.h"

G_BEGIN_DECLS

#define GCG_TYPE_DEVICE_SCALAR (gcg_device_scalar_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgDeviceScalar, gcg_device_scalar, GCG, DEVICE_SCALAR,
    GObject)

GCG_API
GcgDeviceScalar *gcg_device_scalar_new (GcgContext *context, GcgScalarType type,
    GError **error);

GCG_API
GcgScalarType gcg_device_scalar_get_scalar_type (GcgDeviceScalar *self);

GCG_API
guint64 gcg_device_scalar_get_device_ptr (GcgDeviceScalar *self);

GCG_API
gboolean gcg_device_scalar_set_int (GcgDeviceScalar *self, gint64 value,
    GError **error);

GCG_API
gboolean gcg_device_scalar_set_uint (GcgDeviceScalar *self, guint64 value,
    GError **error);

GCG_API
gboolean gcg_device_scalar_set_double (GcgDeviceScalar *self, gdouble value,
    GError **error);

GCG_API
gdouble gcg_device_scalar_get_double (GcgDeviceScalar *self);

GCG_API
gboolean gcg_device_scalar_update (GcgDeviceScalar *self, GcgStream *stream,
    GError **error);

G_END_DECLS
