/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Prints the C layout of the metas gcg.tensor mirrors with ctypes, one
 * line a field ("STRUCT FIELD OFFSET SIZE") and one a struct ("STRUCT
 * - 0 SIZEOF"), as the compiler lays them out: tests/python/
 * test_meta_layout.py holds python/gcg/tensor.py's mirrors against it.
 * GstMeta's two fields are named as the mirrors name them.  Then the
 * element types (lib/frame/gcg-dtype.c): "dtype INDEX NAME SIZE" for each
 * GcgModelDtype, "tensor-type INDEX NAME 0" for each GcgTensorType.
 */
#include <stddef.h>
#include <stdio.h>

#include "gcg-gst.h"

#define FIELD(T, f, name) \
  printf ("%s %s %zu %zu\n", #T, name, offsetof (T, f), sizeof (((T *) 0)->f))
#define F(T, f) FIELD (T, f, #f)
#define SIZE(T) printf ("%s - 0 %zu\n", #T, sizeof (T))

static void
tensor_meta (void)
{
  F (GstCudaGraphTensorMetaItem, roi_x);
  F (GstCudaGraphTensorMetaItem, roi_y);
  F (GstCudaGraphTensorMetaItem, roi_width);
  F (GstCudaGraphTensorMetaItem, roi_height);
  F (GstCudaGraphTensorMetaItem, scale_x);
  F (GstCudaGraphTensorMetaItem, scale_y);
  F (GstCudaGraphTensorMetaItem, pad_x);
  F (GstCudaGraphTensorMetaItem, pad_y);
  F (GstCudaGraphTensorMetaItem, roi_id);
  SIZE (GstCudaGraphTensorMetaItem);
  F (GstCudaGraphTensorMetaTensor, offset);
  F (GstCudaGraphTensorMetaTensor, size);
  F (GstCudaGraphTensorMetaTensor, dtype);
  F (GstCudaGraphTensorMetaTensor, n_dims);
  F (GstCudaGraphTensorMetaTensor, shape);
  SIZE (GstCudaGraphTensorMetaTensor);
  FIELD (GstCudaGraphTensorMeta, meta.flags, "meta_flags");
  FIELD (GstCudaGraphTensorMeta, meta.info, "meta_info");
  F (GstCudaGraphTensorMeta, memory);
  F (GstCudaGraphTensorMeta, device_id);
  F (GstCudaGraphTensorMeta, data);
  F (GstCudaGraphTensorMeta, size);
  F (GstCudaGraphTensorMeta, n_dims);
  F (GstCudaGraphTensorMeta, shape);
  F (GstCudaGraphTensorMeta, stream);
  F (GstCudaGraphTensorMeta, stream_owner);
  F (GstCudaGraphTensorMeta, layout);
  F (GstCudaGraphTensorMeta, type);
  F (GstCudaGraphTensorMeta, channels);
  F (GstCudaGraphTensorMeta, width);
  F (GstCudaGraphTensorMeta, height);
  F (GstCudaGraphTensorMeta, batch);
  F (GstCudaGraphTensorMeta, n_items);
  F (GstCudaGraphTensorMeta, items);
  F (GstCudaGraphTensorMeta, n_tensors);
  F (GstCudaGraphTensorMeta, tensors);
  SIZE (GstCudaGraphTensorMeta);
}

static void
batch_meta (void)
{
  F (GstCudaGraphBatchMetaSource, pad_name);
  F (GstCudaGraphBatchMetaSource, stream_id);
  F (GstCudaGraphBatchMetaSource, pts);
  F (GstCudaGraphBatchMetaSource, running_time);
  F (GstCudaGraphBatchMetaSource, width);
  F (GstCudaGraphBatchMetaSource, height);
  F (GstCudaGraphBatchMetaSource, first_item);
  F (GstCudaGraphBatchMetaSource, n_items);
  SIZE (GstCudaGraphBatchMetaSource);
  F (GstCudaGraphBatchMetaItem, source);
  F (GstCudaGraphBatchMetaItem, roi_id);
  F (GstCudaGraphBatchMetaItem, roi_x);
  F (GstCudaGraphBatchMetaItem, roi_y);
  F (GstCudaGraphBatchMetaItem, roi_width);
  F (GstCudaGraphBatchMetaItem, roi_height);
  F (GstCudaGraphBatchMetaItem, pad_x);
  F (GstCudaGraphBatchMetaItem, pad_y);
  F (GstCudaGraphBatchMetaItem, scale_x);
  F (GstCudaGraphBatchMetaItem, scale_y);
  F (GstCudaGraphBatchMetaItem, offset_x);
  F (GstCudaGraphBatchMetaItem, offset_y);
  SIZE (GstCudaGraphBatchMetaItem);
  FIELD (GstCudaGraphBatchMeta, meta.flags, "meta_flags");
  FIELD (GstCudaGraphBatchMeta, meta.info, "meta_info");
  F (GstCudaGraphBatchMeta, n_sources);
  F (GstCudaGraphBatchMeta, sources);
  F (GstCudaGraphBatchMeta, n_items);
  F (GstCudaGraphBatchMeta, items);
  F (GstCudaGraphBatchMeta, n_allocated);
  F (GstCudaGraphBatchMeta, n_frames);
  F (GstCudaGraphBatchMeta, window_start);
  F (GstCudaGraphBatchMeta, window_duration);
  SIZE (GstCudaGraphBatchMeta);
}

static void
dtypes (void)
{
  GEnumClass *types = g_type_class_ref (GCG_TYPE_TENSOR_TYPE);

  for (guint i = 0; gcg_model_dtype_get_size ((GcgModelDtype) i) > 0; i++)
    printf ("dtype %u %s %zu\n", i, gcg_model_dtype_get_name (i),
        gcg_model_dtype_get_size (i));
  for (guint i = 0; i < types->n_values; i++)
    printf ("tensor-type %d %s 0\n", types->values[i].value,
        gst_cuda_graph_tensor_type_name (types->values[i].value));
  g_type_class_unref (types);
}

int
main (void)
{
  tensor_meta ();
  batch_meta ();
  dtypes ();
  return 0;
}
