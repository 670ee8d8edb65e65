/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

#include "gcg-gst-api.h"

G_BEGIN_DECLS

/**
 * GST_CUDA_GRAPH_TENSOR_META_MAX_ITEMS:
 *
 * How many items #GstCudaGraphTensorMeta.items holds.
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_TENSOR_META_MAX_ITEMS 64
/**
 * GST_CUDA_GRAPH_TENSOR_META_MAX_TENSORS:
 *
 * How many tensors #GstCudaGraphTensorMeta.tensors holds.
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_TENSOR_META_MAX_TENSORS 24
/**
 * GST_CUDA_GRAPH_TENSOR_META_MAX_DIMS:
 *
 * How many dimensions #GstCudaGraphTensorMetaTensor.shape holds.
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_TENSOR_META_MAX_DIMS 8

/**
 * GstCudaGraphTensorMetaItem:
 * @roi_x: left column of the region (input pixels, clipped to the frame)
 * @roi_y: top row of the region
 * @roi_width: width of the region
 * @roi_height: height of the region
 * @scale_x: input pixels per output pixel, horizontally (as
 *   #GcgFrameItemMap's and #GstCudaGraphBatchMetaItem's @scale_x), in float
 * @scale_y: input pixels per output pixel, vertically
 * @pad_x: columns of padding left of the image in the item
 * @pad_y: rows of padding above the image in the item
 * @roi_id: the id of the #GstVideoRegionOfInterestMeta the item came from,
 *   or -1 for the whole frame
 *
 * How one batch item was made, derived from the item's #GcgFrameItemMap
 * (the one definition of an item's geometry).  A point (u, v) of the
 * item's output maps back to the input frame at
 * `x = roi_x + (u − pad_x) × scale_x`, `y = roi_y + (v − pad_y) × scale_y`.
 *
 * Since: 0.2
 */
typedef struct
{
  gint roi_x;
  gint roi_y;
  gint roi_width;
  gint roi_height;
  gfloat scale_x;
  gfloat scale_y;
  gint pad_x;
  gint pad_y;
  gint roi_id;
} GstCudaGraphTensorMetaItem;

/**
 * GstCudaGraphTensorMetaTensor:
 * @offset: where the tensor starts in the buffer's memory, in bytes (for
 *   CUDA memory its address is #GstCudaGraphTensorMeta.data + @offset)
 * @size: its size in bytes
 * @dtype: its element type, a #GcgModelDtype (0 float32, 1 float16,
 *   2 bfloat16, 3 uint8, 4 int8, 5 int32, 6 int64)
 * @n_dims: number of @shape entries
 * @shape: dimensions, outermost first; the tensor is contiguous (C order)
 *
 * One tensor of a buffer that holds several: a model's outputs.
 *
 * Since: 0.2
 */
typedef struct
{
  guint64 offset;
  guint64 size;
  guint dtype;
  guint n_dims;
  gint64 shape[GST_CUDA_GRAPH_TENSOR_META_MAX_DIMS];
} GstCudaGraphTensorMetaTensor;

/**
 * GstCudaGraphTensorMemory:
 * @GST_CUDA_GRAPH_TENSOR_MEMORY_SYSTEM: host memory: map the buffer to read it
 * @GST_CUDA_GRAPH_TENSOR_MEMORY_CUDA: device memory (GstCudaMemory) at
 *   #GstCudaGraphTensorMeta.data
 *
 * Where a tensor lives.
 *
 * Since: 0.2
 */
typedef enum
{
  GST_CUDA_GRAPH_TENSOR_MEMORY_SYSTEM = 0,
  GST_CUDA_GRAPH_TENSOR_MEMORY_CUDA = 1,
} GstCudaGraphTensorMemory;

/**
 * GstCudaGraphTensorMeta:
 * @meta: the parent #GstMeta
 * @memory: a #GstCudaGraphTensorMemory
 * @device_id: the CUDA device ordinal of CUDA memory, -1 for system memory
 * @data: device address of the buffer's memory (CUDA memory), 0 for
 *   system memory: the tensor's, or with @n_tensors where the offsets
 *   of @tensors count from
 * @size: bytes of the buffer: the tensor's (batch × item bytes), or with
 *   @n_tensors all of @tensors
 * @n_dims: number of @shape entries (4)
 * @shape: dimensions, outermost first: N, C, H, W (NCHW) or N, H, W, C
 *   (NHWC); the tensor is contiguous (C order)
 * @stream: the CUstream the tensor is written on (CUDA memory), or %NULL.
 *   The buffer may leave the element before the GPU is done: read @data
 *   only after mapping the buffer with `GST_MAP_CUDA` (the map waits for
 *   this frame only) or after making your stream wait on @stream
 *   (cuEventRecord on @stream, cuStreamWaitEvent on yours).  The handle
 *   stays valid as long as the meta does.
 * @stream_owner: (nullable): private, keeps @stream alive
 * @layout: 0 NCHW, 1 NHWC (#GcgTensorLayout)
 * @type: 0 float32, 1 float16, 2 uint8 (#GcgTensorType)
 * @channels: 0 RGB, 1 BGR, 2 GRAY (#GcgTensorChannels)
 * @width: width of each item
 * @height: height of each item
 * @batch: N, items in the tensor
 * @n_items: items holding data (at most @batch); the rest are zero
 * @items: how each of the first @n_items items was made
 * @n_tensors: 0 when the buffer holds the one tensor the fields above
 *   describe; with a model attached (`cudagraphpreprocess model=`), the
 *   number of @tensors the buffer holds: the preprocessed tensor first
 *   when kept, then the model's outputs.  The fields above then still
 *   describe the preprocessed tensor (its items map detections back to
 *   the frame), and @data and @size the whole buffer.
 * @tensors: the buffer's tensors, when @n_tensors is not 0
 *
 * Attached by `cudagraphpreprocess` and `cudagraphbatch` (next to its
 * #GstCudaGraphBatchMeta) to every tensor buffer they output, so an application
 * can map detections back to the input frames.  Its API type is
 * registered by libgcg-gst-1.0 (name "GstCudaGraphTensorMetaAPI"), which the plugin
 * and applications link (pkg-config gcg-gst-1.0): read it with
 * gst_cuda_graph_buffer_get_tensor_meta().
 *
 * Since: 0.2
 */
typedef struct
{
  GstMeta meta;

  guint memory;
  gint device_id;
  guint64 data;
  guint64 size;
  guint n_dims;
  guint64 shape[4];
  gpointer stream;
  GObject *stream_owner;

  guint layout;
  guint type;
  guint channels;
  guint width;
  guint height;
  guint batch;
  guint n_items;
  GstCudaGraphTensorMetaItem items[GST_CUDA_GRAPH_TENSOR_META_MAX_ITEMS];

  /* Since 0.2: appended, so readers of the fields above are unchanged. */
  guint n_tensors;
  GstCudaGraphTensorMetaTensor tensors[GST_CUDA_GRAPH_TENSOR_META_MAX_TENSORS];
} GstCudaGraphTensorMeta;

/**
 * GST_CUDA_GRAPH_TENSOR_META_API_NAME:
 *
 * The name the #GstCudaGraphTensorMeta API type is registered under.
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_TENSOR_META_API_NAME "GstCudaGraphTensorMetaAPI"

GCG_GST_API
GType gst_cuda_graph_tensor_meta_api_get_type (void);
GCG_GST_API
const GstMetaInfo *gst_cuda_graph_tensor_meta_get_info (void);

/**
 * GST_CUDA_GRAPH_TENSOR_META_API_TYPE:
 *
 * The #GstCudaGraphTensorMeta API type, for gst_buffer_get_meta() and
 * the ALLOCATION query (gst_cuda_graph_tensor_meta_api_get_type()).
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_TENSOR_META_API_TYPE \
  (gst_cuda_graph_tensor_meta_api_get_type ())

/**
 * GST_CUDA_GRAPH_TENSOR_META_INFO:
 *
 * The #GstMetaInfo of #GstCudaGraphTensorMeta
 * (gst_cuda_graph_tensor_meta_get_info()).
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_TENSOR_META_INFO (gst_cuda_graph_tensor_meta_get_info ())
GCG_GST_API
GstCudaGraphTensorMeta *gst_cuda_graph_buffer_add_tensor_meta (
    GstBuffer *buffer);
GCG_GST_API
GstCudaGraphTensorMeta *gst_cuda_graph_buffer_get_tensor_meta (
    GstBuffer *buffer);
GCG_GST_API
GstCudaGraphTensorMetaItem *gst_cuda_graph_tensor_meta_get_item (
    GstCudaGraphTensorMeta *meta, guint index);
GCG_GST_API
GstCudaGraphTensorMetaTensor *gst_cuda_graph_tensor_meta_get_tensor (
    GstCudaGraphTensorMeta *meta, guint index);

G_END_DECLS
