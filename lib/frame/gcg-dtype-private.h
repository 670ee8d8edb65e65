/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The element types, in one table (gcg-dtype.c): each #GcgModelDtype's
 * name (NNStreamer's caps and PyTorch spell it the same) and size, and
 * the #GcgTensorType the frame chain writes for it, where there is one.
 * The engine, the metas (gst-libs) and the plugin all ask here, so a name
 * or a size is written once.
 */
#pragma once

#include "gcg-frame-types.h"
#include "gcg-model-graph.h"

G_BEGIN_DECLS

GCG_PRIVATE_API gboolean gcg__model_dtype_from_name (const gchar *name,
    GcgModelDtype *dtype);

GCG_PRIVATE_API GcgModelDtype gcg__tensor_type_get_dtype (GcgTensorType type);

GCG_PRIVATE_API gboolean gcg__model_dtype_get_tensor_type (GcgModelDtype dtype,
    GcgTensorType *type);

GCG_PRIVATE_API gsize gcg__tensor_type_get_size (GcgTensorType type);

GCG_PRIVATE_API const gchar *gcg__tensor_type_get_name (GcgTensorType type);

GCG_PRIVATE_API gboolean gcg__tensor_type_from_name (const gchar *name,
    GcgTensorType *type);

G_END_DECLS
