/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gcg.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_GRAPH_BASE_TRANSFORM \
  (gst_cuda_graph_base_transform_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCudaGraphBaseTransform,
    gst_cuda_graph_base_transform, GST, CUDA_GRAPH_BASE_TRANSFORM,
    GstBaseTransform)

/**
 * GstCudaGraphBaseTransformClass:
 * @parent_class: the parent class
 * @configure: fills the output side of @config (output kind, format or
 *   tensor shape, resize, letterbox, batch) from the negotiated @outcaps;
 *   the input side is already filled.  Returns %FALSE (after posting an
 *   error) when @outcaps cannot be produced.
 * @get_caps_size: stores in @size the bytes of one buffer of @caps (caps of
 *   the element's source side); %FALSE when @caps do not say
 * @fill_params: fills the per-frame values of @params (crop/ROIs,
 *   adjustments, pad, tensor scale) from the properties and @inbuf's
 *   metadata.  Plane addresses, PTS and frame number are the base's job.
 *   Invalid values are refused here (with a warning) and replaced by the
 *   last good ones, so processing never fails on them.
 * @decorate: called after a frame was queued, to attach metadata to
 *   @outbuf that describes how it was made (the GPU may still be writing
 *   @outbuf: never map it here)
 *
 * The shared base of the cudagraph elements: it owns the CUDA context,
 * stream, device allocator and the #GcgFrameChain built for the current
 * caps, maps buffers and hands each frame to a #GcgFrameQueue, which
 * stages, runs and tracks it while the buffer moves on.
 */
struct _GstCudaGraphBaseTransformClass
{
  GstBaseTransformClass parent_class;

  gboolean (*configure) (GstCudaGraphBaseTransform *self,
      const GstVideoInfo *in_info, GstCaps *outcaps,
      GcgFrameChainConfig *config);
  gboolean (*get_caps_size) (GstCudaGraphBaseTransform *self,
      GstCaps *caps, gsize *size);
  void (*fill_params) (GstCudaGraphBaseTransform *self, GstBuffer *inbuf,
      GcgFrameParams *params);
  void (*decorate) (GstCudaGraphBaseTransform *self, GstBuffer *outbuf,
      const GcgFrameParams *params);

  /*< private >*/
  gpointer padding[GST_PADDING];
};

/* What the subclasses may read about the current negotiation. */
const GstVideoInfo *gst_cuda_graph_base_transform_get_in_info
    (GstCudaGraphBaseTransform *self);
const GcgFrameChainConfig *gst_cuda_graph_base_transform_get_config
    (GstCudaGraphBaseTransform *self);
gboolean gst_cuda_graph_base_transform_can_output_cuda_memory
    (GstCudaGraphBaseTransform * self);

GstCaps *gst_cuda_graph_base_transform_order_input_caps
    (GstCudaGraphBaseTransform * self, GstCaps * caps);

GcgBackend gst_cuda_graph_base_transform_get_active_backend
    (GstCudaGraphBaseTransform *self);

gboolean gst_cuda_graph_base_transform_get_output_location
    (GstCudaGraphBaseTransform *self, guint64 *device_ptr, gint *device_id,
    GcgStream **stream);

/* Overrides @params' colour adjustment with the fields of a "GcgParamsMeta"
 * custom meta on @buffer, if there is one. */
void gst_cuda_graph_apply_params_meta (GstObject *self,
    GstBuffer *buffer, GcgFrameParams *params);

/* TRUE when every value is finite (NaN and infinities are refused). */
gboolean gst_cuda_graph_values_finite (const gfloat *values, guint n);

/* Maps GStreamer's format names to the chain's; FALSE when unsupported. */
gboolean gst_cuda_graph_pixel_format_from_video (GstVideoFormat format,
    GcgPixelFormat *out);

/* The chain's description of @info: format, YUV matrix and range (a
 * matrix other than BT.601/709 is read as BT.601, with a warning against
 * @object); FALSE for a format the chain does not read. */
gboolean gst_cuda_graph_describe_video (GstObject * object,
    const GstVideoInfo * info, GcgPixelFormat * format,
    GcgColorMatrix * matrix, gboolean * full_range);

/* Intersects @rect with a frame_w x frame_h frame; FALSE when nothing is
 * left. */
gboolean gst_cuda_graph_clip_rect (GcgRect * rect, gint frame_w,
    gint frame_h);

/* Where @buffer's memory is for the frame queue: device memory when mapped
 * with GST_MAP_CUDA (@device), pinned host memory when it is ours,
 * pageable host memory otherwise. */
GcgMemoryKind gst_cuda_graph_memory_kind (GstBuffer * buffer,
    GstMapFlags device);

/* The planes of a mapped frame, each with the bytes the chain may touch
 * (stride × rows, cut to what the mapping holds). */
void gst_cuda_graph_planes_from_frame (GcgFramePlanes * planes,
    GstVideoFrame * frame, GcgMemoryKind kind);

/* gst_video_frame_map() takes a GstVideoMeta of another format or smaller
 * than the caps for a programming error (a critical): it is upstream's
 * word only, so such a frame is refused (FALSE, @error set). */
gboolean gst_cuda_graph_video_meta_fits (GstBuffer * inbuf,
    const GstVideoInfo * info, GError ** error);

void gst_cuda_graph_params_meta_register (void);

/**
 * GST_CUDA_GRAPH_PARAMS_META_NAME:
 *
 * Name of the custom meta (gst_meta_register_custom()) an application
 * attaches to a buffer to override the elements' colour adjustment for that
 * buffer only: its structure's double fields `brightness`, `contrast`,
 * `gamma` and `gain` replace the properties' values.  Registered when the
 * plugin loads; add it with
 * `gst_buffer_add_custom_meta (buf, "GcgParamsMeta")`.
 */
#define GST_CUDA_GRAPH_PARAMS_META_NAME "GcgParamsMeta"

/**
 * GST_CUDA_GRAPH_STATS_REQUEST_NAME:
 *
 * Name of a custom downstream event (GST_EVENT_CUSTOM_DOWNSTREAM, an empty
 * structure of this name) that makes the element post its
 * `cudagraph-stats` element message now, in stream order, as it does at
 * EOS: counters, frames in flight and the memory it holds.
 */
#define GST_CUDA_GRAPH_STATS_REQUEST_NAME "cudagraph-stats-request"

G_END_DECLS
