/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg.h>

G_BEGIN_DECLS

/* NNStreamer's tensor caps as the tensor elements (cudagraphpreprocess,
 * cudagraphbatch) write and read them: `other/tensors, format=static,
 * num_tensors=1, dimensions=d0:d1:d2:d3, types=…`, innermost dimension
 * first (NCHW is W:H:C:N, NHWC C:W:H:N). */

#define GST_CUDA_GRAPH_TENSOR_CAPS_BODY "format = (string) static, " \
  "num_tensors = (int) 1, types = (string) { float32, float16, uint8 }, " \
  "framerate = (fraction) [ 0/1, MAX ]"
#define GST_CUDA_GRAPH_TENSOR_CAPS "other/tensors, " \
  GST_CUDA_GRAPH_TENSOR_CAPS_BODY

/* The tensor caps a src pad template offers: system memory and, built with
 * gstreamer-cuda, CUDA memory. */
#ifdef HAVE_GST_CUDA
#define GST_CUDA_GRAPH_TENSOR_SRC_CAPS GST_CUDA_GRAPH_TENSOR_CAPS \
  "; other/tensors(memory:CUDAMemory), " GST_CUDA_GRAPH_TENSOR_CAPS_BODY
#else
#define GST_CUDA_GRAPH_TENSOR_SRC_CAPS GST_CUDA_GRAPH_TENSOR_CAPS
#endif

/* What an element with a model attached (gstcudagraphmodel.h) outputs:
 * the model's outputs, any number, rank and type NNStreamer can say. */
#define GST_CUDA_GRAPH_MODEL_CAPS_BODY "format = (string) static, " \
  "num_tensors = (int) [ 1, 17 ], framerate = (fraction) [ 0/1, MAX ]"
#ifdef HAVE_GST_CUDA
#define GST_CUDA_GRAPH_MODEL_SRC_CAPS "other/tensors, " \
  GST_CUDA_GRAPH_MODEL_CAPS_BODY "; other/tensors(memory:CUDAMemory), " \
  GST_CUDA_GRAPH_MODEL_CAPS_BODY
#else
#define GST_CUDA_GRAPH_MODEL_SRC_CAPS "other/tensors, " \
  GST_CUDA_GRAPH_MODEL_CAPS_BODY
#endif

/* One tensor description, as caps say it. */
typedef struct
{
  GcgTensorLayout layout;
  GcgTensorType type;
  GcgTensorChannels channels;
  guint width;
  guint height;
  guint batch;
} GstCudaGraphTensorDesc;

const gchar *gst_cuda_graph_tensor_type_name (GcgTensorType type);

/* The caps structure of @desc with @framerate (NULL: any). */
GstStructure *gst_cuda_graph_tensor_structure_new
    (const GstCudaGraphTensorDesc * desc, const GValue * framerate);

/* Reads the first structure of @caps: dims[] innermost first, the type and
 * its size in bytes.  FALSE for anything that is not fixed tensor caps
 * with four dimensions of 1 to G_MAXINT. */
gboolean gst_cuda_graph_tensor_caps_parse (GstCaps * caps, guint dims[4],
    GcgTensorType * type, gsize * type_size);

/* Width, height and batch of @caps read in @layout's order; FALSE as
 * above. */
gboolean gst_cuda_graph_tensor_caps_get_shape (GstCaps * caps,
    GcgTensorLayout layout, GcgTensorType * type, guint * width,
    guint * height, guint * batch);

/* Bytes of one buffer of @caps; FALSE when the caps do not say or the
 * product overflows a gsize (caps from downstream may say anything). */
gboolean gst_cuda_graph_tensor_caps_get_size (GstCaps * caps, gsize * size);

G_END_DECLS
