/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* cudagraphbatch's negotiation: the tensor caps it offers (batch-size
 * streams × max-rois items), the engine for the caps downstream took, and
 * the allocation queries on both sides. */
#include "gstcudagraphbatch-private.h"
#include "memory/gstcudagraphcudainterop.h"
#include "buffers/gstcudagraphtensordescribe.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_cuda_graph_batch_debug

/* --- negotiation --------------------------------------------------------- */

guint
gst_cuda_graph_batch_count_sink_pads (GstCudaGraphBatch *self)
{
  guint n;

  GST_OBJECT_LOCK (self);
  n = GST_ELEMENT (self)->numsinkpads;
  GST_OBJECT_UNLOCK (self);
  return n;
}

/* Streams in the largest batch: the property, else the sink pads now. */
static guint
wanted_sources (GstCudaGraphBatch *self)
{
  guint n;

  GST_OBJECT_LOCK (self);
  n = self->batch_size;
  GST_OBJECT_UNLOCK (self);
  if (n == 0)
    n = CLAMP (gst_cuda_graph_batch_count_sink_pads (self), 1,
        GCG_FRAME_BATCH_MAX_SOURCES);
  return n;
}

/* The framerate of the first stream that has caps, for the tensor caps. */
static void
first_framerate (GstCudaGraphBatch *self, GValue *fr)
{
  gint n = 0, d = 1;
  GList *l;

  GST_OBJECT_LOCK (self);
  for (l = GST_ELEMENT (self)->sinkpads; l; l = l->next) {
    const GstVideoInfo *info =
        gst_cuda_graph_batch_pad_get_info (GST_CUDA_GRAPH_BATCH_PAD (l->data));

    if (info) {
      n = GST_VIDEO_INFO_FPS_N (info);
      d = GST_VIDEO_INFO_FPS_D (info);
      break;
    }
  }
  GST_OBJECT_UNLOCK (self);
  g_value_init (fr, GST_TYPE_FRACTION);
  gst_value_set_fraction (fr, n, d);
}

/* Our tensor caps (both memory kinds, CUDA only where we can write it),
 * within @caps (downstream's). */
GstFlowReturn
gst_cuda_graph_batch_update_src_caps (GstCudaGraphBatch *self, GstCaps *caps,
    GstCaps **ret)
{
  GstCudaGraphTensorDesc desc;
  GValue fr = G_VALUE_INIT;
  GstCaps *ours;
  guint n = wanted_sources (self);
  gboolean cuda;
  GcgBackend asked;
  g_autoptr (GcgModelGraph) model = NULL;
  gboolean keep_input = FALSE;

  first_framerate (self, &fr);
  GST_OBJECT_LOCK (self);
  gst_cuda_graph_tensor_props_get_desc (&self->props, n * self->props.max_rois,
      &desc);
  asked = self->run.backend;
  if (self->model.model != NULL && self->model.error == NULL)
    model = g_object_ref (self->model.model);
  keep_input = self->model.keep_input;
  GST_OBJECT_UNLOCK (self);
  /* With a model the buffer holds its outputs, for its batch. */
  ours = gst_caps_new_full (model
          ? gst_cuda_graph_model_structure_new (model, keep_input, &fr)
          : gst_cuda_graph_tensor_structure_new (&desc, &fr),
      NULL);
  g_value_unset (&fr);
  ours = gst_cuda_graph_caps_add_memory_kinds (ours);
  cuda = self->dev.active == GCG_BACKEND_CUDA && self->dev.cuda_context;
  if (!cuda)
    ours = gst_cuda_graph_caps_remove_cuda_memory (ours);
  else
    ours = gst_cuda_graph_caps_cuda_memory_first (ours);
  *ret = gst_caps_intersect_full (caps, ours, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (ours);
  GST_DEBUG_OBJECT (self, "src caps %" GST_PTR_FORMAT, *ret);
  if (!gst_caps_is_empty (*ret))
    return GST_FLOW_OK;
  if (!cuda
      && gst_cuda_graph_explain_cuda_memory_refused (GST_ELEMENT (self), caps,
          asked))
    self->negotiation_said = TRUE;
  return GST_FLOW_NOT_NEGOTIATED;
}

/* The engine's configuration for negotiated @caps; FALSE for caps we did
 * not offer. */
static gboolean
config_from_caps (GstCudaGraphBatch *self, GstCaps *caps,
    GcgFrameBatchConfig *config)
{
  guint batch;

  memset (config, 0, sizeof (*config));
  gcg_frame_batch_config_init (config);
  GST_OBJECT_LOCK (self);
  config->tensor_layout = self->props.layout;
  config->tensor_channels = self->props.channels;
  config->resize = self->props.method;
  config->letterbox = self->props.letterbox;
  config->max_rois = self->props.max_rois;
  if (self->model.model != NULL) {
    /* The caps list the model's outputs; the tensor is its input, its
     * batch streams × max-rois items. */
    config->tensor_type = self->props.tensor_type;
    config->out_width = self->props.width;
    config->out_height = self->props.height;
    batch = gst_cuda_graph_model_get_batch (self->model.model);
    GST_OBJECT_UNLOCK (self);
    config->max_sources = batch / config->max_rois;
    return batch % config->max_rois == 0 && config->max_sources > 0;
  }
  GST_OBJECT_UNLOCK (self);
  if (!gst_cuda_graph_tensor_caps_get_shape (caps, config->tensor_layout,
          &config->tensor_type, &config->out_width, &config->out_height, &batch)
      || batch % config->max_rois != 0)
    return FALSE;
  config->max_sources = batch / config->max_rois;
  return TRUE;
}

/* The engine's counts move to the retired totals, so the counters go on
 * across renegotiations. */
void
gst_cuda_graph_batch_retire_engine (GstCudaGraphBatch *self)
{
  GstCudaGraphRunCounts now;

  if (self->engine == NULL)
    return;
  gst_cuda_graph_batch_retire_all (self);
  gst_cuda_graph_batch_engine_counts (self, &now);
  GST_OBJECT_LOCK (self);
  self->retired.captures += now.captures;
  self->retired.replays += now.replays;
  self->retired.eager += now.eager;
  GST_OBJECT_UNLOCK (self);
  g_clear_object (&self->engine);
}

/* After the model, the postprocess when one is asked for (its kind in
 * @kind): its results leave with each stream's frames on the stream's
 * own src pad (gstcudagraphbatchcamerasrc.c). */
static gboolean
attach_postprocess (GstCudaGraphBatch *self, GcgFrameBatch *engine,
    GcgModelGraph *model, GcgPostprocessKind *kind, GError **error)
{
  GcgPostprocessConfig config;

  if (!gst_cuda_graph_postprocess_get_config (&self->postprocess,
          GST_ELEMENT (self), model, &config, error))
    return FALSE;
  /* USER runs the kernel made at start; the engine refuses outputs not
   * shaped for the kind and more than GCG_POSTPROCESS_MAX_ITEMS slots
   * (batch-size x max-rois). */
  if (config.kind != GCG_POSTPROCESS_NONE
      && !gst_cuda_graph_postprocess_attach (&self->postprocess, engine,
          &config, error))
    return FALSE;
  *kind = config.kind;
  return TRUE;
}

/* The model, when one is set, after the batch's kernel (CUDA only: the
 * start refused a model on the CPU backend), and its postprocess. */
static gboolean
attach_model (GstCudaGraphBatch *self, GcgFrameBatch *engine,
    GcgPostprocessKind *kind, GError **error)
{
  gboolean keep_input = FALSE;
  g_autoptr (GcgModelGraph) model =
      gst_cuda_graph_model_ref (&self->model, GST_ELEMENT (self), &keep_input);

  *kind = GCG_POSTPROCESS_NONE;
  gst_cuda_graph_model_layout_init (&self->layout, model, keep_input);
  return model == NULL
      || (gcg_frame_batch_attach_model (engine, model, keep_input, error)
          && attach_postprocess (self, engine, model, kind, error));
}

/* A new engine for @config unless the current one has it (renegotiating
 * to the same caps keeps the capture). */
static gboolean
ensure_engine (GstCudaGraphBatch *self, const GcgFrameBatchConfig *config)
{
  g_autoptr (GError) error = NULL;
  GcgPostprocessKind kind = GCG_POSTPROCESS_NONE;
  GcgFrameBatch *engine;

  if (self->engine && memcmp (&self->config, config, sizeof (*config)) == 0)
    return TRUE;
  engine =
      gcg_frame_batch_new (config, self->dev.active, self->dev.context, &error);
  if (engine != NULL
      && (!gst_cuda_graph_user_kernel_attach (&self->kernel, engine, &error)
          || !attach_model (self, engine, &kind, &error)))
    g_clear_object (&engine);
  if (engine == NULL) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot batch into this tensor: %s", error->message), (NULL));
    self->negotiation_said = TRUE;
    return FALSE;
  }
  gst_cuda_graph_batch_retire_engine (self);
  self->engine = engine;
  self->results_kind = kind;
  self->config = *config;
  self->out_size = gcg_frame_batch_get_output_size (engine);
  GST_INFO_OBJECT (self,
      "%u streams x %u items of %ux%u, %" G_GSIZE_FORMAT " bytes (%s backend)",
      config->max_sources, config->max_rois, config->out_width,
      config->out_height, self->out_size,
      self->dev.active == GCG_BACKEND_CUDA ? "cuda" : "cpu");
  return TRUE;
}

gboolean
gst_cuda_graph_batch_negotiated_src_caps (GstCudaGraphBatch *self,
    GstCaps *caps)
{
  g_autoptr (GError) error = NULL;
  GcgFrameBatchConfig config;

  if (!config_from_caps (self, caps, &config)) {
    GST_ERROR_OBJECT (self, "unsupported output caps %" GST_PTR_FORMAT, caps);
    return FALSE;
  }
  /* Before anything is sized from the caps. */
  if (!gcg_frame_batch_config_validate (&config, &error)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Unsupported batch: %s", error->message),
        ("output %" GST_PTR_FORMAT "; check width, height, max-rois, "
         "tensor-type and batch-size, and the tensor downstream asks for",
            caps));
    self->negotiation_said = TRUE;
    return FALSE;
  }
  return ensure_engine (self, &config);
}

/* --- allocation ---------------------------------------------------------- */

/* A pool downstream offered for system memory is configured for our
 * tensor; CUDA memory and pinned pools come configured. */
static void
configure_offered_pool (GstQuery *query, GstCaps *caps, gsize size)
{
  GstBufferPool *pool = NULL;
  GstStructure *config;
  guint min = 0, max = 0;

  if (gst_query_get_n_allocation_pools (query) == 0)
    return;
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, &min, &max);
  if (pool == NULL)
    return;
  if (!gst_buffer_pool_is_active (pool)) {
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, size, min, max);
    if (!gst_buffer_pool_set_config (pool, config)) {
      /* Allocate ourselves rather than from a pool that will not fit. */
      gst_query_remove_nth_allocation_pool (query, 0);
      gst_object_unref (pool);
      return;
    }
  }
  gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  gst_object_unref (pool);
}

gboolean
gst_cuda_graph_batch_decide_allocation (GstCudaGraphBatch *self,
    GstQuery *query)
{
  GstCaps *caps;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL)
    return FALSE;
  if (!gst_cuda_graph_device_decide_allocation (&self->dev, GST_ELEMENT (self),
          query, caps, FALSE, self->out_size))
    return FALSE;
  if (!gst_cuda_graph_caps_is_cuda_memory (caps))
    configure_offered_pool (query, caps, self->out_size);
  return TRUE;
}

/* Upstream may keep the metas we read on the buffers instead of applying
 * them, and gets pinned or CUDA memory with the CUDA backend (each stream
 * may have a frame in every batch in flight, and one queued). */
gboolean
gst_cuda_graph_batch_propose_allocation (GstCudaGraphBatch *self,
    GstQuery *query)
{
  GstCaps *caps;
  guint in_flight;

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_add_allocation_meta (query,
      GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE, NULL);
  GST_OBJECT_LOCK (self);
  in_flight = self->run.in_flight;
  GST_OBJECT_UNLOCK (self);
  gst_query_parse_allocation (query, &caps, NULL);
  gst_cuda_graph_device_propose_input_pool (&self->dev, GST_ELEMENT (self),
      query, caps, in_flight + 2);
  return TRUE;
}
