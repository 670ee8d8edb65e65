/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* GstCudaGraphBaseTransform's negotiation: the chain's configuration from
 * the caps (the subclass fills the output side), buffer sizes, and the
 * allocation queries on both sides. */
#include "gstcudagraphbasetransform-private.h"
#include "memory/gstcudagraphcudainterop.h"
#include "buffers/gstcudagraphvideo.h"

#include <string.h>

#define GST_CAT_DEFAULT gst_cuda_graph_base_transform_debug

/* --- negotiation --------------------------------------------------------- */

/* The input side of the configuration. */
static gboolean
configure_input (GstCudaGraphBaseTransform *self, const GstVideoInfo *info,
    GcgFrameChainConfig *config)
{
  config->in_width = GST_VIDEO_INFO_WIDTH (info);
  config->in_height = GST_VIDEO_INFO_HEIGHT (info);
  return gst_cuda_graph_describe_video (GST_OBJECT (self), info,
      &config->in_format, &config->matrix, &config->full_range);
}

/* Takes @incaps -> @outcaps as the negotiated caps; FALSE (an error
 * posted where the cause is ours to say) when they cannot be made. */
static gboolean
configure_caps (GstCudaGraphBaseTransform *self, GstCaps *incaps,
    GstCaps *outcaps)
{
  GstCudaGraphBaseTransformClass *klass =
      GST_CUDA_GRAPH_BASE_TRANSFORM_GET_CLASS (self);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  g_autoptr (GError) error = NULL;
  GcgFrameChainConfig config;
  GstVideoInfo in_info;

  GST_DEBUG_OBJECT (self, "in %" GST_PTR_FORMAT " out %" GST_PTR_FORMAT, incaps,
      outcaps);
  /* Zeroed first: configurations are compared with memcmp. */
  memset (&config, 0, sizeof (config));
  gcg_frame_chain_config_init (&config);
  if (!gst_video_info_from_caps (&in_info, incaps)
      || !configure_input (self, &in_info, &config)) {
    GST_ERROR_OBJECT (self, "unsupported input caps %" GST_PTR_FORMAT, incaps);
    return FALSE;
  }
  if (!klass->configure (self, &in_info, outcaps, &config))
    return FALSE;
  /* Before anything is sized from the caps: this refuses sizes and
   * batches whose output would be too large to allocate. */
  if (!gcg_frame_chain_config_validate (&config, &error)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Unsupported conversion: %s", error->message),
        ("input %" GST_PTR_FORMAT ", output %" GST_PTR_FORMAT "; check the "
         "size properties (width, height, max-rois, tensor-type) and the "
         "caps downstream asks for",
            incaps, outcaps));
    return FALSE;
  }
  if (!klass->get_caps_size (self, outcaps, &priv->out_size))
    return FALSE;
  if (config.output == GCG_OUTPUT_KIND_VIDEO
      && !gst_video_info_from_caps (&priv->out_info, outcaps))
    return FALSE;
  priv->in_info = in_info;
  gst_caps_replace (&priv->out_caps, outcaps);
  gst_cuda_graph_base_transform_use_config (self, &config);
  return TRUE;
}

/* Whether @incaps -> @outcaps are the caps refused last: upstream sends
 * its CAPS event again before every later sticky event and buffer, and
 * the refusal was said the first time. */
static gboolean
refused_before (GstCudaGraphBaseTransformPrivate *priv, GstCaps *incaps,
    GstCaps *outcaps)
{
  return priv->refused_in != NULL && priv->refused_out != NULL
      && gst_caps_is_equal (priv->refused_in, incaps)
      && gst_caps_is_equal (priv->refused_out, outcaps);
}

void
gst_cuda_graph_base_transform_forget_refusals (GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  gst_clear_caps (&priv->refused_in);
  gst_clear_caps (&priv->refused_out);
  GST_OBJECT_LOCK (self);
  priv->explained = 0;
  GST_OBJECT_UNLOCK (self);
}

/* One refusal, one error: caps refused once are refused again without a
 * word; caps taken start a new negotiation, whose failures are said
 * again. */
gboolean
gst_cuda_graph_base_transform_set_caps (GstBaseTransform *trans,
    GstCaps *incaps, GstCaps *outcaps)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  if (refused_before (priv, incaps, outcaps)) {
    GST_DEBUG_OBJECT (self, "caps refused before, refused again");
    return FALSE;
  }
  if (!configure_caps (self, incaps, outcaps)) {
    gst_caps_replace (&priv->refused_in, incaps);
    gst_caps_replace (&priv->refused_out, outcaps);
    return FALSE;
  }
  gst_cuda_graph_base_transform_forget_refusals (self);
  return TRUE;
}

static gboolean
caps_are_video (GstCaps *caps)
{
  return caps != NULL && gst_caps_get_size (caps) > 0
      && gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "video/x-raw");
}

gboolean
gst_cuda_graph_base_transform_get_unit_size (GstBaseTransform *trans,
    GstCaps *caps, gsize *size)
{
  GstVideoInfo info;

  /* Tensor caps go to the subclass without gst_video_info_from_caps(),
   * which logs an error for every caps that are not video. */
  if (!caps_are_video (caps))
    return GST_CUDA_GRAPH_BASE_TRANSFORM_GET_CLASS (trans)->get_caps_size (
        GST_CUDA_GRAPH_BASE_TRANSFORM (trans), caps, size);
  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  *size = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

/* The output size depends only on the output caps: an input buffer may be
 * larger than its caps say (padded strides from a video meta). */
gboolean
gst_cuda_graph_base_transform_transform_size (GstBaseTransform *trans,
    GstPadDirection direction, GstCaps *caps, gsize size, GstCaps *othercaps,
    gsize *othersize)
{
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (trans));

  /* Every output buffer asks this of the negotiated caps: known since
   * set_caps (the same object while we hold it, so a pointer compare). */
  if (othercaps != NULL && othercaps == priv->out_caps && priv->have_config) {
    *othersize = priv->out_size;
    return TRUE;
  }
  return gst_cuda_graph_base_transform_get_unit_size (trans, othercaps,
      othersize);
}

/* --- allocation ---------------------------------------------------------- */

/* Input buffers stay with us until their frame is done: upstream needs
 * that many more than it would otherwise. */
static guint
proposed_min_buffers (GstCudaGraphBaseTransformPrivate *priv)
{
  return priv->queue ? gcg_frame_queue_get_depth (priv->queue) + 1 : 2;
}

/* Offers upstream a pool of pinned host memory when the CUDA backend runs,
 * so that its frames are copied to the device asynchronously at full bus
 * speed; and says which metas we read instead of having them applied. */
gboolean
gst_cuda_graph_base_transform_propose_allocation (GstBaseTransform *trans,
    GstQuery *decide_query, GstQuery *query)
{
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (trans));
  GstCaps *caps;

  if (!PARENT_CLASS->propose_allocation (trans, decide_query, query))
    return FALSE;
  /* In passthrough the query went downstream: their answer stands. */
  if (decide_query == NULL)
    return TRUE;

  /* Crop meta is not offered: an upstream that then stops cropping sends
   * caps of the cropped size with full-size frames, which the caps-sized
   * mapping cannot read.  A crop meta on a frame of the caps' size (an
   * application's) is still honoured by cudagraphconvert. */
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_add_allocation_meta (query,
      GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE, NULL);

  gst_query_parse_allocation (query, &caps, NULL);
  gst_cuda_graph_device_propose_input_pool (&priv->dev, GST_ELEMENT (trans),
      query, caps, proposed_min_buffers (priv));
  return TRUE;
}

gboolean
gst_cuda_graph_base_transform_decide_allocation (GstBaseTransform *trans,
    GstQuery *query)
{
  GstCudaGraphBaseTransform *self = GST_CUDA_GRAPH_BASE_TRANSFORM (trans);
  GstCaps *caps;

  gsize size = 0;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps == NULL
      || !gst_cuda_graph_base_transform_get_unit_size (trans, caps, &size))
    size = 0;
  if (!gst_cuda_graph_device_decide_allocation (&GET_PRIV (self)->dev,
          GST_ELEMENT (self), query, caps, caps_are_video (caps), size))
    return FALSE;
  return PARENT_CLASS->decide_allocation (trans, query);
}

/* An output buffer that cannot be allocated (the pool's or the base
 * class's allocation failed: out of memory) is an error the user sees,
 * with its size. */
GstFlowReturn
gst_cuda_graph_base_transform_prepare_output_buffer (GstBaseTransform *trans,
    GstBuffer *input, GstBuffer **outbuf)
{
  GstCudaGraphBaseTransformPrivate *priv =
      GET_PRIV (GST_CUDA_GRAPH_BASE_TRANSFORM (trans));
  GstFlowReturn ret;

  ret = PARENT_CLASS->prepare_output_buffer (trans, input, outbuf);
  if (ret == GST_FLOW_ERROR) {
    g_autofree gchar *size =
        g_format_size_full (priv->out_size, G_FORMAT_SIZE_IEC_UNITS);

    GST_ELEMENT_ERROR (trans, RESOURCE, NO_SPACE_LEFT,
        ("Cannot allocate an output buffer of %" G_GSIZE_FORMAT " bytes "
         "(%s)",
            priv->out_size, size),
        (NULL));
  }
  return ret;
}

/* --- for the subclasses' transform_caps ---------------------------------- */

/* CUDA memory output needs the CUDA backend on a context shared with
 * GStreamer's CUDA elements; before start that is not known yet, and the
 * caps may offer it. */
static gboolean
can_output_cuda_memory (GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);

  if (!priv->started)
    return TRUE;
  return priv->dev.active == GCG_BACKEND_CUDA && priv->dev.cuda_context != NULL;
}

/* Downstream's caps (transfer full), NULL when it takes any: what it could
 * take of ours is then not the question. */
static GstCaps *
downstream_caps (GstCudaGraphBaseTransform *self)
{
  GstCaps *peer =
      gst_pad_peer_query_caps (GST_BASE_TRANSFORM_SRC_PAD (self), NULL);

  if (peer != NULL && gst_caps_is_any (peer))
    g_clear_pointer (&peer, gst_caps_unref);
  return peer;
}

/* The causes of a failed negotiation that are said, each once per
 * negotiation (GstCudaGraphBaseTransformPrivate.explained). */
enum
{
  CAUSE_CUDA_MEMORY = 1 << 0,   /* downstream takes only CUDA memory */
  CAUSE_SUBCLASS = 1 << 1,      /* the subclass's explain_caps_failure() */
};

/* Whether @cause is to be said now: not yet said in this negotiation (it
 * counts as said from now on).  Every caps query and every retried CAPS
 * event meets the same failure again. */
static gboolean
first_time (GstCudaGraphBaseTransform *self, guint cause)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  gboolean first;

  GST_OBJECT_LOCK (self);
  first = !(priv->explained & cause);
  priv->explained |= cause;
  GST_OBJECT_UNLOCK (self);
  return first;
}

void
gst_cuda_graph_base_transform_explain_caps_failure (
    GstCudaGraphBaseTransform *self)
{
  GstCudaGraphBaseTransformClass *klass =
      GST_CUDA_GRAPH_BASE_TRANSFORM_GET_CLASS (self);
  g_autoptr (GstCaps) peer = downstream_caps (self);
  GcgBackend asked;

  if (peer == NULL)
    return;
  GST_OBJECT_LOCK (self);
  asked = GET_PRIV (self)->run.backend;
  GST_OBJECT_UNLOCK (self);
  if (!can_output_cuda_memory (self)
      && gst_cuda_graph_caps_only_cuda_memory (peer)) {
    if (first_time (self, CAUSE_CUDA_MEMORY))
      gst_cuda_graph_explain_cuda_memory_refused (GST_ELEMENT (self), peer,
          asked);
    return;
  }
  if (klass->explain_caps_failure != NULL && !gst_caps_is_empty (peer)
      && first_time (self, CAUSE_SUBCLASS))
    klass->explain_caps_failure (self, peer);
}

/* What the sink pad answered: no caps at all, or the caps refused. */
static gboolean
caps_query_failed (GstQuery *query)
{
  GstCaps *caps = NULL;
  gboolean accepted = TRUE;

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:
      gst_query_parse_caps_result (query, &caps);
      return caps != NULL && gst_caps_is_empty (caps);
    case GST_QUERY_ACCEPT_CAPS:
      gst_query_parse_accept_caps_result (query, &accepted);
      return !accepted;
    default:
      return FALSE;
  }
}

void
gst_cuda_graph_base_transform_check_caps_query (GstCudaGraphBaseTransform *self,
    GstPadDirection direction, GstQuery *query)
{
  /* Before start the backend is not known (the caps then offer CUDA
   * memory), and a query while the pads are linked is no negotiation. */
  if (direction != GST_PAD_SINK || !GET_PRIV (self)->started
      || !caps_query_failed (query))
    return;
  gst_cuda_graph_base_transform_explain_caps_failure (self);
}

/* Puts CUDA memory first in @caps (sink caps offered upstream; transfer
 * full) while the element can read it in place (the CUDA backend, or not
 * started yet): an upstream that can give either (cudaupload, NVDEC) then
 * hands over device memory rather than downloading a frame for us to
 * upload again. */
static GstCaps *
order_input_caps (GstCudaGraphBaseTransform *self, GstCaps *caps)
{
  GstCudaGraphBaseTransformPrivate *priv = GET_PRIV (self);
  gboolean cuda;

  GST_OBJECT_LOCK (self);
  cuda = priv->run.backend != GCG_BACKEND_CPU;
  GST_OBJECT_UNLOCK (self);
  if (!cuda || !can_output_cuda_memory (self))
    return caps;
  return gst_cuda_graph_caps_cuda_memory_first (caps);
}

/**
 * gst_cuda_graph_base_transform_restrict_caps:
 * @self: a #GstCudaGraphBaseTransform
 * @direction: the direction transform_caps() was called for
 * @caps: (transfer full): the caps it made for the other pad, in every
 *   memory kind the subclass takes
 * @filter: (nullable): its filter
 *
 * The memory kinds the element can really use on the other pad, in the
 * order it prefers: on the src pad CUDA memory only where the backend can
 * write it (in, it is always readable: mapped through the host on the CPU
 * backend); on the sink pad CUDA memory first while it is read in place.
 * Then within @filter.
 *
 * Returns: (transfer full): the caps for transform_caps() to return
 */
GstCaps *
gst_cuda_graph_base_transform_restrict_caps (GstCudaGraphBaseTransform *self,
    GstPadDirection direction, GstCaps *caps, GstCaps *filter)
{
  GstCaps *result;

  if (direction == GST_PAD_SINK && !can_output_cuda_memory (self))
    caps = gst_cuda_graph_caps_remove_cuda_memory (caps);
  else if (direction == GST_PAD_SRC)
    caps = order_input_caps (self, caps);
  if (filter == NULL)
    return caps;
  result = gst_cuda_graph_caps_filter (caps, filter, direction);
  gst_caps_unref (caps);
  return result;
}

gboolean
gst_cuda_graph_video_caps_size (GstCudaGraphBaseTransform *base, GstCaps *caps,
    gsize *size)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  *size = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}
