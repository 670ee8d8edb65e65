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
 * GcgModelDtype:
 * @GCG_MODEL_DTYPE_FLOAT32: 32-bit IEEE float
 * @GCG_MODEL_DTYPE_FLOAT16: 16-bit IEEE float
 * @GCG_MODEL_DTYPE_BFLOAT16: bfloat16
 * @GCG_MODEL_DTYPE_UINT8: unsigned 8-bit integer
 * @GCG_MODEL_DTYPE_INT8: signed 8-bit integer
 * @GCG_MODEL_DTYPE_INT32: signed 32-bit integer
 * @GCG_MODEL_DTYPE_INT64: signed 64-bit integer
 *
 * Element types of a model's input and output tensors.
 *
 * Since: 0.2
 */
typedef enum
{
  GCG_MODEL_DTYPE_FLOAT32,
  GCG_MODEL_DTYPE_FLOAT16,
  GCG_MODEL_DTYPE_BFLOAT16,
  GCG_MODEL_DTYPE_UINT8,
  GCG_MODEL_DTYPE_INT8,
  GCG_MODEL_DTYPE_INT32,
  GCG_MODEL_DTYPE_INT64,
} GcgModelDtype;

/**
 * GCG_MODEL_GRAPH_MAX_DIMS:
 *
 * The most dimensions a model tensor may have.
 *
 * Since: 0.2
 */
#define GCG_MODEL_GRAPH_MAX_DIMS 8

/**
 * GCG_MODEL_GRAPH_MAX_OUTPUTS:
 *
 * The most output tensors a model graph may declare.
 *
 * Since: 0.2
 */
#define GCG_MODEL_GRAPH_MAX_OUTPUTS 16

/**
 * GCG_MODEL_GRAPH_PACK_ALIGN:
 *
 * The alignment of each tensor when a model's tensors are packed into one
 * buffer (gcg_model_graph_get_packed_tensor()).
 *
 * Since: 0.2
 */
#define GCG_MODEL_GRAPH_PACK_ALIGN 256

#define GCG_TYPE_MODEL_GRAPH (gcg_model_graph_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgModelGraph, gcg_model_graph, GCG, MODEL_GRAPH, GObject)

GCG_API
gsize gcg_model_dtype_get_size (GcgModelDtype dtype);

GCG_API
const gchar *gcg_model_dtype_get_name (GcgModelDtype dtype);

GCG_API
GcgModelGraph *gcg_model_graph_new (GcgContext *context, guint64 graph,
    gpointer owner, GDestroyNotify owner_destroy, GError **error);

GCG_API
gboolean gcg_model_graph_set_input (GcgModelGraph *self, guint64 address,
    const gint64 *shape, guint n_dims, GcgModelDtype dtype, GError **error);

GCG_API
gint gcg_model_graph_add_output (GcgModelGraph *self, guint64 address,
    const gint64 *shape, guint n_dims, GcgModelDtype dtype, GError **error);

GCG_API
GcgContext *gcg_model_graph_get_context (GcgModelGraph *self);

GCG_API
guint64 gcg_model_graph_get_graph (GcgModelGraph *self);

GCG_API
gboolean gcg_model_graph_get_input (GcgModelGraph *self, guint64 *address,
    gsize *n_bytes, GcgModelDtype *dtype);

GCG_API
const gint64 *gcg_model_graph_get_input_shape (GcgModelGraph *self,
    guint *n_dims);

GCG_API
guint gcg_model_graph_get_n_outputs (GcgModelGraph *self);

GCG_API
gboolean gcg_model_graph_get_output (GcgModelGraph *self, guint index,
    guint64 *address, gsize *n_bytes, GcgModelDtype *dtype);

GCG_API
const gint64 *gcg_model_graph_get_output_shape (GcgModelGraph *self,
    guint index, guint *n_dims);

GCG_API
gboolean gcg_model_graph_get_packed_tensor (GcgModelGraph *self,
    gboolean with_input, guint index, gsize *offset, gsize *n_bytes,
    guint64 *address);

GCG_API
gsize gcg_model_graph_get_packed_size (GcgModelGraph *self,
    gboolean with_input);

GCG_API
gboolean gcg_model_graph_add_to_capture (GcgModelGraph *self, GcgStream *stream,
    GError **error);

GCG_API
gboolean gcg_model_graph_launch (GcgModelGraph *self, GcgStream *stream,
    GError **error);

G_END_DECLS
