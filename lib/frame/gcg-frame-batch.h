/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-frame-types.h"
#include "gcg-kernel-op.h"
#include "gcg-model-graph.h"
#include "gcg-result.h"

G_BEGIN_DECLS

/**
 * GCG_FRAME_BATCH_MAX_SOURCES:
 *
 * The most sources (streams) one batch can hold.
 *
 * Since: 0.1
 */
#define GCG_FRAME_BATCH_MAX_SOURCES 64

/**
 * GcgFrameBatchConfig:
 * @out_width: width of each tensor item, in pixels
 * @out_height: height of each tensor item, in pixels
 * @resize: resampling method
 * @letterbox: how each crop or ROI is fitted into its item
 * @tensor_layout: NCHW or NHWC
 * @tensor_type: element type of the tensor
 * @tensor_channels: RGB, BGR or one grey channel
 * @max_sources: the most sources in one batch (1 to
 *   %GCG_FRAME_BATCH_MAX_SOURCES)
 * @max_rois: the most items one source adds to a batch (1 to
 *   %GCG_FRAME_CHAIN_MAX_ROIS): its ROIs, or one item for the whole frame
 *
 * What stays the same for every batch: the tensor item and the largest
 * batch.  The graph is captured for the largest batch once; how many
 * sources and items a batch fills, and each source's format, size,
 * planes, crop and ROIs, are per-batch values.
 *
 * Since: 0.1
 */
typedef struct
{
  guint out_width;
  guint out_height;
  GcgResizeMethod resize;
  GcgLetterbox letterbox;
  GcgTensorLayout tensor_layout;
  GcgTensorType tensor_type;
  GcgTensorChannels tensor_channels;
  guint max_sources;
  guint max_rois;
} GcgFrameBatchConfig;

/**
 * GcgFrameBatchSource:
 * @format: pixel format of this source's frames
 * @width: frame width in pixels
 * @height: frame height in pixels
 * @matrix: YUV matrix of a YUV source
 * @full_range: whether a YUV source uses full range
 *
 * The video description of one source of a batch; any source may differ
 * from the others, and from its own previous frame, without a new capture.
 *
 * Since: 0.1
 */
typedef struct
{
  GcgPixelFormat format;
  guint width;
  guint height;
  GcgColorMatrix matrix;
  gboolean full_range;
} GcgFrameBatchSource;

#define GCG_TYPE_FRAME_BATCH_CONFIG (gcg_frame_batch_config_get_type ())
GCG_API
GType gcg_frame_batch_config_get_type (void) G_GNUC_CONST;

GCG_API
GcgFrameBatchConfig *gcg_frame_batch_config_new (void);

GCG_API
GcgFrameBatchConfig *gcg_frame_batch_config_copy (
    const GcgFrameBatchConfig *config);

GCG_API
void gcg_frame_batch_config_free (GcgFrameBatchConfig *config);

GCG_API
void gcg_frame_batch_config_init (GcgFrameBatchConfig *config);

GCG_API
gboolean gcg_frame_batch_config_validate (const GcgFrameBatchConfig *config,
    GError **error);

GCG_API
gsize gcg_frame_batch_config_get_item_size (const GcgFrameBatchConfig *config);

GCG_API
gsize gcg_frame_batch_config_get_output_size (
    const GcgFrameBatchConfig *config);

#define GCG_TYPE_FRAME_BATCH_SOURCE (gcg_frame_batch_source_get_type ())
GCG_API
GType gcg_frame_batch_source_get_type (void) G_GNUC_CONST;

GCG_API
GcgFrameBatchSource *gcg_frame_batch_source_copy (
    const GcgFrameBatchSource *source);

GCG_API
void gcg_frame_batch_source_free (GcgFrameBatchSource *source);

GCG_API
gboolean gcg_frame_batch_source_validate (const GcgFrameBatchSource *source,
    GError **error);

#define GCG_TYPE_FRAME_BATCH (gcg_frame_batch_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgFrameBatch, gcg_frame_batch, GCG, FRAME_BATCH, GObject)

GCG_API
GcgFrameBatch *gcg_frame_batch_new (const GcgFrameBatchConfig *config,
    GcgBackend backend, GcgContext *context, GError **error);

GCG_API
GcgFrameBatch *gcg_frame_batch_new_for_frame (const GcgFrameChainConfig *config,
    GcgBackend backend, GcgContext *context, GError **error);

GCG_API
GcgBackend gcg_frame_batch_get_backend (GcgFrameBatch *self);

GCG_API
gboolean gcg_frame_batch_get_frame_config (GcgFrameBatch *self,
    GcgFrameChainConfig *config);

GCG_API
void gcg_frame_batch_get_config (GcgFrameBatch *self,
    GcgFrameBatchConfig *config);

GCG_API
void gcg_frame_batch_set_use_graph (GcgFrameBatch *self, gboolean use_graph);

GCG_API
gboolean gcg_frame_batch_get_use_graph (GcgFrameBatch *self);

GCG_API
gboolean gcg_frame_batch_process (GcgFrameBatch *self, guint n_sources,
    const GcgFrameBatchSource *sources, const GcgFrameParams *params,
    guint64 dst, GcgStream *stream, guint *n_items, GError **error);

GCG_API
gboolean gcg_frame_batch_process_frame (GcgFrameBatch *self,
    const GcgFrameParams *params, GcgStream *stream, GError **error);

GCG_API
gboolean gcg_frame_batch_attach_model (GcgFrameBatch *self,
    GcgModelGraph *model, gboolean keep_input, GError **error);

GCG_API
GcgModelGraph *gcg_frame_batch_get_model (GcgFrameBatch *self);

GCG_API
gsize gcg_frame_batch_get_output_size (GcgFrameBatch *self);

GCG_API
gboolean gcg_frame_batch_get_output_tensor (GcgFrameBatch *self, guint index,
    gsize *offset, gsize *n_bytes);

GCG_API
gboolean gcg_frame_batch_add_kernel (GcgFrameBatch *batch, GcgKernelOp *op,
    GError **error);

GCG_API
gboolean gcg_frame_batch_add_kernel_at (GcgFrameBatch *batch, GcgKernelOp *op,
    GcgKernelPosition position, GError **error);

GCG_API
gboolean gcg_frame_batch_set_postprocess (GcgFrameBatch *self,
    const GcgPostprocessConfig *config, GError **error);

GCG_API
gboolean gcg_frame_batch_set_postprocess_kernel (GcgFrameBatch *self,
    const GcgPostprocessConfig *config, GcgKernelOp *op, GError **error);

GCG_API
gboolean gcg_frame_batch_get_postprocess (GcgFrameBatch *self,
    GcgPostprocessConfig *config);

GCG_API
gsize gcg_frame_batch_get_results_size (GcgFrameBatch *self);

GCG_API
guint64 gcg_frame_batch_get_capture_count (GcgFrameBatch *self);

GCG_API
guint64 gcg_frame_batch_get_replay_count (GcgFrameBatch *self);

GCG_API
guint64 gcg_frame_batch_get_eager_count (GcgFrameBatch *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgFrameBatchConfig, gcg_frame_batch_config_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgFrameBatchSource, gcg_frame_batch_source_free)

G_END_DECLS
