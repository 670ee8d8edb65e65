/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

#include <gcg/gcg-gst.h>

G_BEGIN_DECLS

/* The properties that say what tensor the tensor elements make (size,
 * layout, type, channels, mean/std or scale/offset, ROI batch and filter,
 * letterbox, pad value, resampling): one definition, installed on
 * cudagraphpreprocess and cudagraphbatch alike.  The element keeps a
 * GstCudaGraphTensorProps in its instance, under its object lock, and
 * hands the property ids from @first_id on to these functions. */

enum
{
  GST_CUDA_GRAPH_TENSOR_PROP_WIDTH,
  GST_CUDA_GRAPH_TENSOR_PROP_HEIGHT,
  GST_CUDA_GRAPH_TENSOR_PROP_LAYOUT,
  GST_CUDA_GRAPH_TENSOR_PROP_TENSOR_TYPE,
  GST_CUDA_GRAPH_TENSOR_PROP_CHANNELS,
  GST_CUDA_GRAPH_TENSOR_PROP_MEAN,
  GST_CUDA_GRAPH_TENSOR_PROP_STD,
  GST_CUDA_GRAPH_TENSOR_PROP_SCALE,
  GST_CUDA_GRAPH_TENSOR_PROP_OFFSET,
  GST_CUDA_GRAPH_TENSOR_PROP_MAX_ROIS,
  GST_CUDA_GRAPH_TENSOR_PROP_ROI_TYPE,
  GST_CUDA_GRAPH_TENSOR_PROP_LETTERBOX,
  GST_CUDA_GRAPH_TENSOR_PROP_PAD_VALUE,
  GST_CUDA_GRAPH_TENSOR_PROP_METHOD,
  GST_CUDA_GRAPH_TENSOR_N_PROPS
};

/* The tensor fields no property (nor model-info) has set: downstream's
 * caps may choose them (cudagraphpreprocess), the property's value being
 * the default; the negotiated value is then stored back, so that the
 * property reads the value in effect. */
typedef enum
{
  GST_CUDA_GRAPH_TENSOR_OPEN_WIDTH = 1 << 0,
  GST_CUDA_GRAPH_TENSOR_OPEN_HEIGHT = 1 << 1,
  GST_CUDA_GRAPH_TENSOR_OPEN_TYPE = 1 << 2,
  GST_CUDA_GRAPH_TENSOR_OPEN_BATCH = 1 << 3,
  GST_CUDA_GRAPH_TENSOR_OPEN_ALL = 0xf
} GstCudaGraphTensorOpen;

typedef struct
{
  /* GstCudaGraphTensorOpen flags. */
  guint open;
  guint width;
  guint height;
  GcgTensorLayout layout;
  GcgTensorType tensor_type;
  GcgTensorChannels channels;
  gchar *mean_str;
  gchar *std_str;
  gfloat mean[3];
  gfloat std[3];
  gboolean use_mean_std;
  gfloat scale;
  /* FALSE until scale is set: the default follows tensor_type. */
  gboolean scale_set;
  gfloat offset;
  guint max_rois;
  /* A GRefString: the streaming thread takes a reference under the object
   * lock (no copy per frame) and drops it once the ROIs are collected. */
  gchar *roi_type;
  GcgLetterbox letterbox;
  gfloat pad_value;
  GcgResizeMethod method;
} GstCudaGraphTensorProps;

void gst_cuda_graph_tensor_props_install (GObjectClass *klass, guint first_id);
void gst_cuda_graph_tensor_props_init (GstCudaGraphTensorProps *props);
void gst_cuda_graph_tensor_props_clear (GstCudaGraphTensorProps *props);

/* FALSE when @prop_id is not one of ours.  Called with the element's lock
 * held: a refused value keeps the old one and is noted in *@refusal, for
 * gst_cuda_graph_refusal_report() once the lock is released. */
gboolean gst_cuda_graph_tensor_props_set (GstCudaGraphTensorProps *props,
    guint first_id, guint prop_id, const GValue *value, gchar **refusal);
gboolean gst_cuda_graph_tensor_props_get (const GstCudaGraphTensorProps *props,
    guint first_id, guint prop_id, GValue *value);

/* The tensor the properties describe, @batch items. */
void gst_cuda_graph_tensor_props_get_desc (const GstCudaGraphTensorProps *props,
    guint batch, GstCudaGraphTensorDesc *desc);

/* The per-frame values the properties give: scale and offset (from
 * mean/std when set) and the pad value. */
void gst_cuda_graph_tensor_props_fill_params (
    const GstCudaGraphTensorProps *props, GcgFrameParams *params);

G_END_DECLS
