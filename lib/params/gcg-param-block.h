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

/**
 * GcgScalarType:
 * @GCG_SCALAR_TYPE_INT32: 32-bit signed integer
 * @GCG_SCALAR_TYPE_UINT32: 32-bit unsigned integer
 * @GCG_SCALAR_TYPE_INT64: 64-bit signed integer
 * @GCG_SCALAR_TYPE_UINT64: 64-bit unsigned integer, also used for device
 *   pointers
 * @GCG_SCALAR_TYPE_FLOAT: 32-bit IEEE float
 * @GCG_SCALAR_TYPE_DOUBLE: 64-bit IEEE float
 *
 * Type of a device-resident scalar or parameter-block field.
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_SCALAR_TYPE_INT32,
  GCG_SCALAR_TYPE_UINT32,
  GCG_SCALAR_TYPE_INT64,
  GCG_SCALAR_TYPE_UINT64,
  GCG_SCALAR_TYPE_FLOAT,
  GCG_SCALAR_TYPE_DOUBLE,
} GcgScalarType;

#define GCG_TYPE_PARAM_BLOCK (gcg_param_block_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgParamBlock, gcg_param_block, GCG, PARAM_BLOCK, GObject)

GCG_API
GcgParamBlock *gcg_param_block_new (void);

GCG_API
gint gcg_param_block_add_field (GcgParamBlock *self, const gchar *name,
    GcgScalarType type, GError **error);

GCG_API
gint gcg_param_block_add_bytes (GcgParamBlock *self, const gchar *name,
    gsize size, gsize align, GError **error);

GCG_API
gint gcg_param_block_lookup (GcgParamBlock *self, const gchar *name);

GCG_API
guint gcg_param_block_get_n_fields (GcgParamBlock *self);

GCG_API
gsize gcg_param_block_get_size (GcgParamBlock *self);

GCG_API
gsize gcg_param_block_get_field_offset (GcgParamBlock *self, guint index);

GCG_API
gsize gcg_param_block_get_field_size (GcgParamBlock *self, guint index);

GCG_API
gboolean gcg_param_block_set_int (GcgParamBlock *self, guint index,
    gint64 value, GError **error);

GCG_API
gboolean gcg_param_block_set_uint (GcgParamBlock *self, guint index,
    guint64 value, GError **error);

GCG_API
gboolean gcg_param_block_set_double (GcgParamBlock *self, guint index,
    gdouble value, GError **error);

GCG_API
gboolean gcg_param_block_set_value (GcgParamBlock *self, const gchar *name,
    const GValue *value, GError **error);

GCG_API
gboolean gcg_param_block_set_bytes (GcgParamBlock *self, guint index,
    gconstpointer data, gsize size, GError **error);

GCG_API
gdouble gcg_param_block_get_double (GcgParamBlock *self, guint index);

GCG_API
gboolean gcg_param_block_allocate (GcgParamBlock *self, GcgContext *context,
    guint ring_depth, GError **error);

GCG_API
gboolean gcg_param_block_is_allocated (GcgParamBlock *self);

GCG_API
guint64 gcg_param_block_get_device_ptr (GcgParamBlock *self);

GCG_API
guint64 gcg_param_block_get_field_device_ptr (GcgParamBlock *self, guint index);

GCG_API
gboolean gcg_param_block_update (GcgParamBlock *self, GcgStream *stream,
    GError **error);

GCG_API
guint64 gcg_param_block_get_update_count (GcgParamBlock *self);

GCG_API
guint64 gcg_param_block_get_slot_wait_count (GcgParamBlock *self);

G_END_DECLS
