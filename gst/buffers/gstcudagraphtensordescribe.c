/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The metadata that says where a tensor is and how its items were made,
 * written the same way by every tensor element. */
#include "gstcudagraphtensordescribe.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>

#include <gcg/gcg-internal.h>
#endif

GstCudaGraphTensorMeta *
gst_cuda_graph_tensor_meta_add (GstBuffer *outbuf,
    const GstCudaGraphTensorDesc *desc, gsize size, guint64 data,
    gint device_id, GcgStream *stream)
{
  GstCudaGraphTensorMeta *meta = gst_cuda_graph_buffer_add_tensor_meta (outbuf);
  guint64 c = desc->channels == GCG_TENSOR_CHANNELS_GRAY ? 1 : 3;
  gboolean nchw = desc->layout == GCG_TENSOR_LAYOUT_NCHW;

  meta->n_dims = 4;
  meta->shape[0] = desc->batch;
  meta->shape[1] = nchw ? c : desc->height;
  meta->shape[2] = nchw ? desc->height : desc->width;
  meta->shape[3] = nchw ? desc->width : c;
  meta->size = size;
  meta->layout = desc->layout;
  meta->type = desc->type;
  meta->channels = desc->channels;
  meta->width = desc->width;
  meta->height = desc->height;
  meta->batch = desc->batch;
  meta->memory = GST_CUDA_GRAPH_TENSOR_MEMORY_SYSTEM;
  if (stream == NULL)
    return meta;
  meta->memory = GST_CUDA_GRAPH_TENSOR_MEMORY_CUDA;
  meta->data = data;
  meta->device_id = device_id;
  meta->stream = gcg_stream_get_handle (stream);
  meta->stream_owner = G_OBJECT (g_object_ref (stream));
  return meta;
}

void
gst_cuda_graph_tensor_meta_set_item (GstCudaGraphTensorMeta *meta, guint i,
    const GcgFrameItemMap *map, gint roi_id)
{
  GstCudaGraphTensorMetaItem *item;

  if (i >= GST_CUDA_GRAPH_TENSOR_META_MAX_ITEMS)
    return;
  item = &meta->items[i];
  item->roi_x = map->roi.x;
  item->roi_y = map->roi.y;
  item->roi_width = map->roi.width;
  item->roi_height = map->roi.height;
  item->pad_x = map->pad_x;
  item->pad_y = map->pad_y;
  item->scale_x = (gfloat) map->scale_x;
  item->scale_y = (gfloat) map->scale_y;
  item->roi_id = roi_id;
}

void
gst_cuda_graph_batch_meta_item_set (GstCudaGraphBatchMetaItem *item,
    guint source, const GcgFrameItemMap *map, gint roi_id)
{
  *item = (GstCudaGraphBatchMetaItem) { source, roi_id, map->roi.x, map->roi.y,
    map->roi.width, map->roi.height, map->pad_x, map->pad_y, map->scale_x,
    map->scale_y, map->offset_x, map->offset_y };
}

#ifdef HAVE_GST_ANALYTICS
/* GStreamer 1.26's own description of the same tensor, for its analytics
 * elements: the data is a buffer sharing @outbuf's memory. */

/* GStreamer's name of each element type of the engine (#GcgModelDtype,
 * whose one table, names and sizes, is lib/frame/gcg-dtype.c): a dtype
 * added there needs its entry here, or it would read as 0 (INT4). */
static const GstTensorDataType gst_data_types[] = {
  [GCG_MODEL_DTYPE_FLOAT32] = GST_TENSOR_DATA_TYPE_FLOAT32,
  [GCG_MODEL_DTYPE_FLOAT16] = GST_TENSOR_DATA_TYPE_FLOAT16,
  [GCG_MODEL_DTYPE_BFLOAT16] = GST_TENSOR_DATA_TYPE_BFLOAT16,
  [GCG_MODEL_DTYPE_UINT8] = GST_TENSOR_DATA_TYPE_UINT8,
  [GCG_MODEL_DTYPE_INT8] = GST_TENSOR_DATA_TYPE_INT8,
  [GCG_MODEL_DTYPE_INT32] = GST_TENSOR_DATA_TYPE_INT32,
  [GCG_MODEL_DTYPE_INT64] = GST_TENSOR_DATA_TYPE_INT64,
};

/* The GstTensorDataType of @dtype (a #GcgModelDtype: a meta's, so
 * unchecked); FALSE for a value that is none. */
static gboolean
gst_data_type (guint dtype, GstTensorDataType *type)
{
  if (dtype >= G_N_ELEMENTS (gst_data_types))
    return FALSE;
  *type = gst_data_types[dtype];
  return TRUE;
}

/* The GstTensorDataType of the elements' own tensor of @tensor_type (a
 * #GcgTensorType); FALSE for a value that is none (the engine's look-up
 * answers float32 for those, so the answer is checked back). */
static gboolean
tensor_type_data_type (guint tensor_type, GstTensorDataType *type)
{
  GcgModelDtype dtype = gcg__tensor_type_get_dtype (tensor_type);
  GcgTensorType back;

  return gcg__model_dtype_get_tensor_type (dtype, &back)
      && (guint) back == tensor_type && gst_data_type (dtype, type);
}

/* One GstTensor of @nbytes at @offset of @outbuf's memory. */
static GstTensor *
new_gst_tensor (GstBuffer *outbuf, const gchar *id, GstTensorDataType type,
    gsize offset, gsize nbytes, gsize n_dims, gsize *dims)
{
  GstBuffer *data =
      gst_buffer_copy_region (outbuf, GST_BUFFER_COPY_MEMORY, offset, nbytes);

  if (data == NULL)
    return NULL;
  return gst_tensor_new_simple (g_quark_from_string (id), type, data,
      GST_TENSOR_DIM_ORDER_ROW_MAJOR, n_dims, dims);
}

/* Whether every tensor of @meta has a GStreamer element type and lies
 * inside @outbuf: checked before the GstTensorMeta is added, so that a bad
 * description adds none rather than an empty one. */
static gboolean
packed_tensors_fit (GstBuffer *outbuf, const GstCudaGraphTensorMeta *meta,
    guint n, GstTensorDataType *types)
{
  gsize size = gst_buffer_get_size (outbuf);

  for (guint i = 0; i < n; i++) {
    const GstCudaGraphTensorMetaTensor *t = &meta->tensors[i];

    if (!gst_data_type (t->dtype, &types[i]) || t->offset > size
        || t->size > size - t->offset)
      return FALSE;
  }
  return TRUE;
}

/* A model's outputs (and kept input): one GstTensor each. */
static void
add_packed_tensors (GstBuffer *outbuf, const GstCudaGraphTensorMeta *meta,
    const gchar *id)
{
  guint n = MIN (meta->n_tensors, GST_CUDA_GRAPH_TENSOR_META_MAX_TENSORS);
  GstTensorDataType types[GST_CUDA_GRAPH_TENSOR_META_MAX_TENSORS];
  GstTensorMeta *tmeta;
  GstTensor **tensors;

  if (!packed_tensors_fit (outbuf, meta, n, types))
    return;
  /* Added before the tensors' buffers share @outbuf's memory: from then on
   * @outbuf may no longer read as writable. */
  tmeta = gst_buffer_add_tensor_meta (outbuf);
  tensors = g_new0 (GstTensor *, n);
  for (guint i = 0; i < n; i++) {
    const GstCudaGraphTensorMetaTensor *t = &meta->tensors[i];
    gsize dims[GST_CUDA_GRAPH_TENSOR_META_MAX_DIMS];

    for (guint d = 0; d < t->n_dims && d < GST_CUDA_GRAPH_TENSOR_META_MAX_DIMS;
        d++)
      dims[d] = (gsize) t->shape[d];
    tensors[i] = new_gst_tensor (outbuf, id, types[i], t->offset, t->size,
        MIN (t->n_dims, GST_CUDA_GRAPH_TENSOR_META_MAX_DIMS), dims);
    if (tensors[i] == NULL) {
      for (guint j = 0; j < i; j++)
        gst_tensor_free (tensors[j]);
      g_free (tensors);
      return;
    }
  }
  gst_tensor_meta_set (tmeta, n, tensors);
}

void
gst_cuda_graph_add_gst_tensor_meta (GstBuffer *outbuf,
    const GstCudaGraphTensorMeta *meta, const gchar *id)
{
  GstTensorDataType type;
  gsize dims[4];
  GstTensor **tensors;
  GstTensorMeta *tmeta;

  if (meta->n_tensors > 0) {
    add_packed_tensors (outbuf, meta, id);
    return;
  }
  if (!tensor_type_data_type (meta->type, &type))
    return;
  for (guint i = 0; i < 4; i++)
    dims[i] = meta->shape[i];
  /* As in add_packed_tensors(): before any buffer shares the memory. */
  tmeta = gst_buffer_add_tensor_meta (outbuf);
  tensors = g_new (GstTensor *, 1);
  tensors[0] = new_gst_tensor (outbuf, id, type, 0, meta->size, 4, dims);
  if (tensors[0] == NULL) {
    g_free (tensors);
    return;
  }
  gst_tensor_meta_set (tmeta, 1, tensors);
}
#else
void
gst_cuda_graph_add_gst_tensor_meta (GstBuffer *outbuf,
    const GstCudaGraphTensorMeta *meta, const gchar *id)
{
}
#endif
