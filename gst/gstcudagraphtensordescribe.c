/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The metadata that says where a tensor is and how its items were made,
 * written the same way by every tensor element. */
#include "gstcudagraphtensordescribe.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

GcgTensorMeta *
gst_cuda_graph_tensor_meta_add (GstBuffer * outbuf,
    const GstCudaGraphTensorDesc * desc, gsize size, guint64 data,
    gint device_id, GcgStream * stream)
{
  GcgTensorMeta *meta = gcg_buffer_add_tensor_meta (outbuf);
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
  meta->memory = GCG_TENSOR_MEMORY_SYSTEM;
  if (stream == NULL)
    return meta;
  meta->memory = GCG_TENSOR_MEMORY_CUDA;
  meta->data = data;
  meta->device_id = device_id;
  meta->stream = gcg_stream_get_handle (stream);
  meta->stream_owner = G_OBJECT (g_object_ref (stream));
  return meta;
}

void
gst_cuda_graph_tensor_meta_set_item (GcgTensorMeta * meta, guint i,
    const GcgFrameItemMap * map, gint roi_id)
{
  GcgTensorMetaItem *item;

  if (i >= GCG_TENSOR_META_MAX_ITEMS)
    return;
  item = &meta->items[i];
  item->roi_x = map->roi.x;
  item->roi_y = map->roi.y;
  item->roi_width = map->roi.width;
  item->roi_height = map->roi.height;
  item->pad_x = map->pad_x;
  item->pad_y = map->pad_y;
  item->scale_x = (gfloat) map->width / map->roi.width;
  item->scale_y = (gfloat) map->height / map->roi.height;
  item->roi_id = roi_id;
}

#ifdef HAVE_GST_ANALYTICS
/* GStreamer 1.26's own description of the same tensor, for its analytics
 * elements: the data is a buffer sharing @outbuf's memory. */
void
gst_cuda_graph_add_gst_tensor_meta (GstBuffer * outbuf,
    const GcgTensorMeta * meta, const gchar * id)
{
  static const GstTensorDataType types[] = { GST_TENSOR_DATA_TYPE_FLOAT32,
    GST_TENSOR_DATA_TYPE_FLOAT16, GST_TENSOR_DATA_TYPE_UINT8
  };
  gsize dims[4];
  GstBuffer *data;
  GstTensor **tensors;
  GstTensorMeta *tmeta;

  data = gst_buffer_copy_region (outbuf, GST_BUFFER_COPY_MEMORY, 0,
      meta->size);
  if (data == NULL || meta->type >= G_N_ELEMENTS (types))
    return;
  for (guint i = 0; i < 4; i++)
    dims[i] = meta->shape[i];
  tensors = g_new (GstTensor *, 1);
  tensors[0] = gst_tensor_new_simple (g_quark_from_string (id),
      types[meta->type], data, GST_TENSOR_DIM_ORDER_ROW_MAJOR, 4, dims);
  tmeta = gst_buffer_add_tensor_meta (outbuf);
  gst_tensor_meta_set (tmeta, 1, tensors);
}
#else
void
gst_cuda_graph_add_gst_tensor_meta (GstBuffer * outbuf,
    const GcgTensorMeta * meta, const gchar * id)
{
}
#endif
