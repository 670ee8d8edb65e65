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
  printf ("%s %s %zu %zu\n", #T, name, offsetof (T, f), \
      sizeof (((T *) 0)->f))
#define F(T, f) FIELD (T, f, #f)
#define SIZE(T) printf ("%s - 0 %zu\n", #T, sizeof (T))

static void
tensor_meta (void)
{
  F (GcgTensorMetaItem, roi_x);
  F (GcgTensorMetaItem, roi_y);
  F (GcgTensorMetaItem, roi_width);
  F (GcgTensorMetaItem, roi_height);
  F (GcgTensorMetaItem, scale_x);
  F (GcgTensorMetaItem, scale_y);
  F (GcgTensorMetaItem, pad_x);
  F (GcgTensorMetaItem, pad_y);
  F (GcgTensorMetaItem, roi_id);
  SIZE (GcgTensorMetaItem);
  F (GcgTensorMetaTensor, offset);
  F (GcgTensorMetaTensor, size);
  F (GcgTensorMetaTensor, dtype);
  F (GcgTensorMetaTensor, n_dims);
  F (GcgTensorMetaTensor, shape);
  SIZE (GcgTensorMetaTensor);
  FIELD (GcgTensorMeta, meta.flags, "meta_flags");
  FIELD (GcgTensorMeta, meta.info, "meta_info");
  F (GcgTensorMeta, memory);
  F (GcgTensorMeta, device_id);
  F (GcgTensorMeta, data);
  F (GcgTensorMeta, size);
  F (GcgTensorMeta, n_dims);
  F (GcgTensorMeta, shape);
  F (GcgTensorMeta, stream);
  F (GcgTensorMeta, stream_owner);
  F (GcgTensorMeta, layout);
  F (GcgTensorMeta, type);
  F (GcgTensorMeta, channels);
  F (GcgTensorMeta, width);
  F (GcgTensorMeta, height);
  F (GcgTensorMeta, batch);
  F (GcgTensorMeta, n_items);
  F (GcgTensorMeta, items);
  F (GcgTensorMeta, n_tensors);
  F (GcgTensorMeta, tensors);
  SIZE (GcgTensorMeta);
}

static void
batch_meta (void)
{
  F (GcgBatchMetaSource, pad_name);
  F (GcgBatchMetaSource, stream_id);
  F (GcgBatchMetaSource, pts);
  F (GcgBatchMetaSource, running_time);
  F (GcgBatchMetaSource, width);
  F (GcgBatchMetaSource, height);
  F (GcgBatchMetaSource, first_item);
  F (GcgBatchMetaSource, n_items);
  SIZE (GcgBatchMetaSource);
  F (GcgBatchMetaItem, source);
  F (GcgBatchMetaItem, roi_id);
  F (GcgBatchMetaItem, roi_x);
  F (GcgBatchMetaItem, roi_y);
  F (GcgBatchMetaItem, roi_width);
  F (GcgBatchMetaItem, roi_height);
  F (GcgBatchMetaItem, pad_x);
  F (GcgBatchMetaItem, pad_y);
  F (GcgBatchMetaItem, scale_x);
  F (GcgBatchMetaItem, scale_y);
  F (GcgBatchMetaItem, offset_x);
  F (GcgBatchMetaItem, offset_y);
  SIZE (GcgBatchMetaItem);
  FIELD (GcgBatchMeta, meta.flags, "meta_flags");
  FIELD (GcgBatchMeta, meta.info, "meta_info");
  F (GcgBatchMeta, n_sources);
  F (GcgBatchMeta, sources);
  F (GcgBatchMeta, n_items);
  F (GcgBatchMeta, items);
  F (GcgBatchMeta, n_allocated);
  F (GcgBatchMeta, n_frames);
  F (GcgBatchMeta, window_start);
  F (GcgBatchMeta, window_duration);
  SIZE (GcgBatchMeta);
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
