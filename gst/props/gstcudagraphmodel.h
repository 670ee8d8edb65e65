/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

#include <gcg/gcg-gst.h>
#include "gstcudagraphtensorprops.h"

G_BEGIN_DECLS

/* The user's model attached to a tensor element (issue 21): its graph
 * replayed after the element's kernel in the same graph, the output
 * buffer carrying the model's outputs (and the element's tensor first
 * when keep_input).  Properties `model` and `model-keep-input`. */
typedef struct
{
  /* Properties, under the element's object lock. */
  GcgModelGraph *model;
  gboolean keep_input;
  /* The model's batch dimension sets max-rois (a per-frame element);
   * FALSE for cudagraphbatch, whose batch is streams × max-rois. */
  gboolean sets_batch;
  /* Why the model cannot be used, reported at start. */
  GError *error;
} GstCudaGraphModel;

#define GST_CUDA_GRAPH_MODEL_N_PROPS 2

void gst_cuda_graph_model_install (GObjectClass *klass, guint first);
/* Under the object lock; a model sets the tensor @props its input
 * implies.  FALSE when @prop_id is not ours. */
gboolean gst_cuda_graph_model_set (GstCudaGraphModel *m, guint first,
    guint prop_id, const GValue *value, GstCudaGraphTensorProps *props,
    gchar **refusal);
gboolean gst_cuda_graph_model_get (GstCudaGraphModel *m, guint first,
    guint prop_id, GValue *value);
void gst_cuda_graph_model_clear (GstCudaGraphModel *m);
guint gst_cuda_graph_model_get_batch (GcgModelGraph *model);

/* At start, after the backend is open: an element error and FALSE when
 * the model cannot be used (why it was refused, or a backend other than
 * CUDA). */
gboolean gst_cuda_graph_model_check_start (GstCudaGraphModel *m,
    GstElement *element, GcgBackend active);

/* The model (a reference, or NULL) and model-keep-input, read under
 * @element's object lock. */
GcgModelGraph *gst_cuda_graph_model_ref (GstCudaGraphModel *m,
    GstElement *element, gboolean *keep_input);

/* At NULL->READY: the device whose primary context to offer the pipeline
 * (the model's), -1 without a usable model. */
gint gst_cuda_graph_model_get_device (GstCudaGraphModel *m,
    GstElement *element);

/* %TRUE when the chain of @config writes exactly the model's input
 * (bytes and element type); otherwise an error naming both. */
gboolean gst_cuda_graph_model_check_input (GcgModelGraph *model,
    const GcgFrameChainConfig *config, GError **error);

/* The caps structure of the output buffer: every packed tensor.  @input
 * describes the element's tensor (the model's input). */
GstStructure *gst_cuda_graph_model_structure_new (GcgModelGraph *model,
    gboolean keep_input, const GValue *framerate);

/* The packed tensors of a model's output buffer as the GstCudaGraphTensorMeta
 * lists them, worked out once per chain (or batch engine) on the
 * streaming thread, so each frame copies them instead of taking the
 * object lock and walking the model. */
typedef struct
{
  gsize size;
  guint n_tensors;              /* 0: no model */
  GstCudaGraphTensorMetaTensor tensors[GST_CUDA_GRAPH_TENSOR_META_MAX_TENSORS];
} GstCudaGraphModelLayout;

/* @model may be NULL (an empty layout). */
void gst_cuda_graph_model_layout_init (GstCudaGraphModelLayout *layout,
    GcgModelGraph *model, gboolean keep_input);
/* Sets @meta's size (the whole buffer), n_tensors and tensors[]. */
void gst_cuda_graph_model_layout_apply (const GstCudaGraphModelLayout *layout,
    GstCudaGraphTensorMeta *meta);

G_END_DECLS
