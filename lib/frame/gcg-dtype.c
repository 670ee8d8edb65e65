/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one table of element types (gcg-dtype-private.h): every name,
 * size and GcgTensorType <-> GcgModelDtype mapping in the tree reads it.
 */
#include "gcg-dtype-private.h"

/* No GcgTensorType for the dtype: the frame chain does not write it. */
#define NO_TENSOR_TYPE (-1)

static const struct
{
  const gchar *name;
  gsize size;
  gint tensor_type;
} dtypes[] = {
  [GCG_MODEL_DTYPE_FLOAT32] = { "float32", 4, GCG_TENSOR_TYPE_FLOAT32 },
  [GCG_MODEL_DTYPE_FLOAT16] = { "float16", 2, GCG_TENSOR_TYPE_FLOAT16 },
  [GCG_MODEL_DTYPE_BFLOAT16] = { "bfloat16", 2, NO_TENSOR_TYPE },
  [GCG_MODEL_DTYPE_UINT8] = { "uint8", 1, GCG_TENSOR_TYPE_UINT8 },
  [GCG_MODEL_DTYPE_INT8] = { "int8", 1, NO_TENSOR_TYPE },
  [GCG_MODEL_DTYPE_INT32] = { "int32", 4, NO_TENSOR_TYPE },
  [GCG_MODEL_DTYPE_INT64] = { "int64", 8, NO_TENSOR_TYPE },
};

static gboolean
dtype_valid (GcgModelDtype dtype)
{
  return (guint) dtype < G_N_ELEMENTS (dtypes);
}

/**
 * gcg_model_dtype_get_size:
 * @dtype: a #GcgModelDtype
 *
 * The size of one element, for sizing a tensor.
 *
 * Returns: the size of one element of @dtype in bytes, 0 for an unknown
 *   value
 *
 * Since: 0.2
 */
gsize
gcg_model_dtype_get_size (GcgModelDtype dtype)
{
  return dtype_valid (dtype) ? dtypes[dtype].size : 0;
}

/**
 * gcg_model_dtype_get_name:
 * @dtype: a #GcgModelDtype
 *
 * The name NNStreamer's tensor caps and PyTorch give the type.
 *
 * Returns: "float32", "float16", "bfloat16", "uint8", "int8", "int32",
 *   "int64", or "unknown"
 *
 * Since: 0.2
 */
const gchar *
gcg_model_dtype_get_name (GcgModelDtype dtype)
{
  return dtype_valid (dtype) ? dtypes[dtype].name : "unknown";
}

/* The dtype named @name; FALSE (and @dtype untouched) for no known name. */
gboolean
gcg__model_dtype_from_name (const gchar *name, GcgModelDtype *dtype)
{
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (dtypes); i++) {
    if (g_str_equal (name, dtypes[i].name)) {
      *dtype = (GcgModelDtype) i;
      return TRUE;
    }
  }
  return FALSE;
}

/* The dtype of the elements the frame chain writes as @type; float32 for
 * a value out of range (as the chain's default). */
GcgModelDtype
gcg__tensor_type_get_dtype (GcgTensorType type)
{
  for (guint i = 0; i < G_N_ELEMENTS (dtypes); i++) {
    if (dtypes[i].tensor_type != NO_TENSOR_TYPE
        && dtypes[i].tensor_type == (gint) type)
      return (GcgModelDtype) i;
  }
  return GCG_MODEL_DTYPE_FLOAT32;
}

/* The tensor type the frame chain writes as @dtype; FALSE (and @type
 * untouched) for a dtype it does not write. */
gboolean
gcg__model_dtype_get_tensor_type (GcgModelDtype dtype, GcgTensorType *type)
{
  if (!dtype_valid (dtype) || dtypes[dtype].tensor_type == NO_TENSOR_TYPE)
    return FALSE;
  *type = (GcgTensorType) dtypes[dtype].tensor_type;
  return TRUE;
}

/* Bytes of one element of @type (that of float32 out of range). */
gsize
gcg__tensor_type_get_size (GcgTensorType type)
{
  return gcg_model_dtype_get_size (gcg__tensor_type_get_dtype (type));
}

/* @type's name in NNStreamer's caps ("float32" out of range). */
const gchar *
gcg__tensor_type_get_name (GcgTensorType type)
{
  return gcg_model_dtype_get_name (gcg__tensor_type_get_dtype (type));
}

/* The tensor type named @name; FALSE (and @type untouched) for a name
 * that is no type the frame chain writes. */
gboolean
gcg__tensor_type_from_name (const gchar *name, GcgTensorType *type)
{
  GcgModelDtype dtype;

  return gcg__model_dtype_from_name (name, &dtype)
      && gcg__model_dtype_get_tensor_type (dtype, type);
}
