/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gcg/gcg.h>

#include <gcg/gcg-gst.h>

G_BEGIN_DECLS

#define GST_TYPE_CUDA_GRAPH_BASE_TRANSFORM \
  (gst_cuda_graph_base_transform_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCudaGraphBaseTransform,
    gst_cuda_graph_base_transform, GST, CUDA_GRAPH_BASE_TRANSFORM,
    GstBaseTransform)

/**
 * GstCudaGraphOutputLocation:
 * @device_ptr: device address of the output buffer's first plane, as the
 *   base transform mapped it
 * @device_id: its CUDA device
 * @stream: (transfer none): the stream writing it
 *
 * Where a frame's output lies in device memory.  The base transform maps
 * the output buffer, so it alone knows the address; the engine only
 * writes there.
 */
typedef struct
{
  guint64 device_ptr;
  gint device_id;
  GcgStream *stream;
} GstCudaGraphOutputLocation;

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
 *   Invalid values are refused here (with a warning) and replaced (a
 *   crop that selects nothing by the whole visible frame,
 *   gstcudagraphcrop.h), so processing never fails on them.
 * @decorate: called after a frame was queued, to attach metadata to
 *   @outbuf that describes how it was made (the GPU may still be writing
 *   @outbuf: never map it here); its location is where the base mapped
 *   it in device memory, %NULL for host memory
 *
 * The shared base of the cudagraph elements: it owns the CUDA context,
 * stream, device allocator and the #GcgFrameBatch built for the current
 * caps, maps buffers and hands each frame to a #GcgFrameQueue, which
 * stages, runs and tracks it while the buffer moves on.
 */
struct _GstCudaGraphBaseTransformClass
{
  GstBaseTransformClass parent_class;

  gboolean (*configure) (GstCudaGraphBaseTransform *self,
      const GstVideoInfo *in_info, GstCaps *outcaps,
      GcgFrameChainConfig *config);
  gboolean (*get_caps_size) (GstCudaGraphBaseTransform *self, GstCaps *caps,
      gsize *size);
  void (*fill_params) (GstCudaGraphBaseTransform *self, GstBuffer *inbuf,
      GcgFrameParams *params);
  void (*decorate) (GstCudaGraphBaseTransform *self, GstBuffer *outbuf,
      const GcgFrameParams *params, const GstCudaGraphOutputLocation *location);
  /* Optional: the input caps failed to negotiate and @downstream (the
   * caps downstream takes, not ANY) is not CUDA-only; post an error that
   * says why when the subclass knows. */
  void (*explain_caps_failure) (GstCudaGraphBaseTransform *self,
      GstCaps *downstream);
  /* Optional: a new chain (CUDA backend), after the user's kernel was
   * added: add what ends it (a model), before its first frame. */
  gboolean (*attach) (GstCudaGraphBaseTransform *self, GcgFrameBatch *chain,
      GError **error);
  /* Optional, for a chain that ends in a postprocess (its results area
   * not empty): the output is held until its frame is done.
   * @describe_items: after fill_params(), where the frame's items came
   * from (its ROIs), into @items (GCG_FRAME_CHAIN_MAX_ROIS of them);
   * returns their count; kept with the frame.  @add_results: the frame
   * of @outbuf is done and its results area (@size bytes, read with
   * gcg_frame_results_get()) is complete: attach them, before @outbuf
   * leaves, in order. */
  guint (*describe_items) (GstCudaGraphBaseTransform *self,
      const GcgFrameParams *params, GstCudaGraphResultsItem *items);
  void (*add_results) (GstCudaGraphBaseTransform *self, GstBuffer *outbuf,
      gconstpointer area, gsize size, const GstCudaGraphResultsItem *items,
      guint n_items);

  /*< private >*/
  gpointer padding[GST_PADDING - 4];
};

/* What the subclasses may read about the current negotiation. */
const GstVideoInfo *gst_cuda_graph_base_transform_get_in_info (
    GstCudaGraphBaseTransform *self);
const GcgFrameChainConfig *gst_cuda_graph_base_transform_get_config (
    GstCudaGraphBaseTransform *self);

/* transform_caps()'s last step, for both subclasses: the memory kinds the
 * element can use on the other pad, in its order, within @filter. */
GstCaps *gst_cuda_graph_base_transform_restrict_caps (
    GstCudaGraphBaseTransform *self, GstPadDirection direction, GstCaps *caps,
    GstCaps *filter);

/* Bytes of one buffer of video @caps: a video element's
 * GstCudaGraphBaseTransformClass.get_caps_size; FALSE when @caps do not
 * say. */
gboolean gst_cuda_graph_video_caps_size (GstCudaGraphBaseTransform *base,
    GstCaps *caps, gsize *size);

GcgBackend gst_cuda_graph_base_transform_get_active_backend (
    GstCudaGraphBaseTransform *self);

void gst_cuda_graph_base_transform_offer_primary_context (
    GstCudaGraphBaseTransform *self, gint device_id);

/* Whether a user kernel is set (kernel-source or kernel-location); call
 * with the object lock held.  Such an element never passes through. */
gboolean gst_cuda_graph_base_transform_has_user_kernel_locked (
    GstCudaGraphBaseTransform *self);

G_END_DECLS
