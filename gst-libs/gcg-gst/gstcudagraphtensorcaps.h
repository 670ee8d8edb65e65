/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

#include "gcg-gst-api.h"

G_BEGIN_DECLS

/**
 * GST_CUDA_GRAPH_TENSOR_CAPS_BODY:
 *
 * The fields of NNStreamer's tensor caps as the tensor elements
 * (cudagraphpreprocess, cudagraphbatch) write and read them:
 * `other/tensors, format=static, num_tensors=1, dimensions=d0:d1:d2:d3,
 * types=…`, innermost dimension first (NCHW is W:H:C:N, NHWC C:W:H:N).
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_TENSOR_CAPS_BODY \
  "format = (string) static, " \
  "num_tensors = (int) 1, types = (string) { float32, float16, uint8 }, " \
  "framerate = (fraction) [ 0/1, MAX ]"
/**
 * GST_CUDA_GRAPH_TENSOR_CAPS:
 *
 * The tensor caps of the tensor elements, in system memory.
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_TENSOR_CAPS \
  "other/tensors, " GST_CUDA_GRAPH_TENSOR_CAPS_BODY

/**
 * GST_CUDA_GRAPH_TENSOR_SRC_CAPS:
 *
 * The tensor caps a src pad template offers: system memory and, where the
 * includer defines HAVE_GST_CUDA (the plugin built with gstreamer-cuda),
 * CUDA memory.
 *
 * Since: 0.2
 */
#ifdef HAVE_GST_CUDA
#define GST_CUDA_GRAPH_TENSOR_SRC_CAPS \
  GST_CUDA_GRAPH_TENSOR_CAPS \
  "; other/tensors(memory:CUDAMemory), " GST_CUDA_GRAPH_TENSOR_CAPS_BODY
#else
#define GST_CUDA_GRAPH_TENSOR_SRC_CAPS GST_CUDA_GRAPH_TENSOR_CAPS
#endif

/**
 * GST_CUDA_GRAPH_MODEL_CAPS_BODY:
 *
 * What an element with a model attached outputs: the model's outputs,
 * any number, rank and type NNStreamer can say.
 *
 * Since: 0.2
 */
#define GST_CUDA_GRAPH_MODEL_CAPS_BODY \
  "format = (string) static, " \
  "num_tensors = (int) [ 1, 17 ], framerate = (fraction) [ 0/1, MAX ]"
/**
 * GST_CUDA_GRAPH_MODEL_SRC_CAPS:
 *
 * The src pad template caps of an element with a model attached, in
 * system memory and (with HAVE_GST_CUDA, as #GST_CUDA_GRAPH_TENSOR_SRC_CAPS)
 * CUDA memory.
 *
 * Since: 0.2
 */
#ifdef HAVE_GST_CUDA
#define GST_CUDA_GRAPH_MODEL_SRC_CAPS \
  "other/tensors, " GST_CUDA_GRAPH_MODEL_CAPS_BODY \
  "; other/tensors(memory:CUDAMemory), " GST_CUDA_GRAPH_MODEL_CAPS_BODY
#else
#define GST_CUDA_GRAPH_MODEL_SRC_CAPS \
  "other/tensors, " GST_CUDA_GRAPH_MODEL_CAPS_BODY
#endif

/**
 * GstCudaGraphTensorDesc:
 * @layout: NCHW or NHWC
 * @type: the element type
 * @channels: RGB, BGR or GRAY (one channel)
 * @width: width of each item
 * @height: height of each item
 * @batch: items in the tensor (N)
 *
 * One tensor description, as caps say it.
 *
 * Since: 0.2
 */
typedef struct
{
  GcgTensorLayout layout;
  GcgTensorType type;
  GcgTensorChannels channels;
  guint width;
  guint height;
  guint batch;
} GstCudaGraphTensorDesc;

GCG_GST_API
const gchar *gst_cuda_graph_tensor_type_name (GcgTensorType type);

GCG_GST_API
GstStructure *gst_cuda_graph_tensor_structure_new (
    const GstCudaGraphTensorDesc *desc, const GValue *framerate);

GCG_GST_API
gboolean gst_cuda_graph_tensor_caps_parse (GstCaps *caps, guint dims[4],
    GcgTensorType *type, gsize *type_size);

GCG_GST_API
gboolean gst_cuda_graph_tensor_caps_get_shape (GstCaps *caps,
    GcgTensorLayout layout, GcgTensorType *type, guint *width, guint *height,
    guint *batch);

GCG_GST_API
gboolean gst_cuda_graph_tensor_caps_get_size (GstCaps *caps, gsize *size);

G_END_DECLS
