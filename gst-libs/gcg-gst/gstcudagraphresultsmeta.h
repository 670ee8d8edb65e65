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
 * GST_CUDA_GRAPH_RESULTS_META_MAX_RESULTS:
 *
 * Most results one #GstCudaGraphResultsMeta holds: results past it are
 * dropped when the meta is added (a frame's items times
 * %GCG_RESULT_MAX_PER_ITEM fit many times over).
 *
 * Since: 0.3
 */
#define GST_CUDA_GRAPH_RESULTS_META_MAX_RESULTS 65536

/**
 * GST_CUDA_GRAPH_RESULTS_META_MAX_ITEMS:
 *
 * Most items one #GstCudaGraphResultsMeta describes.
 *
 * Since: 0.3
 */
#define GST_CUDA_GRAPH_RESULTS_META_MAX_ITEMS 4096

/**
 * GST_CUDA_GRAPH_RESULTS_META_MAX_LABELS:
 *
 * Most class labels the meta functions take (as #GcgPostprocessConfig's
 * class count).
 *
 * Since: 0.3
 */
#define GST_CUDA_GRAPH_RESULTS_META_MAX_LABELS 65536

/**
 * GstCudaGraphResultsItem:
 * @roi_id: the id of the #GstVideoRegionOfInterestMeta the item was cut
 *   from, or -1 for the whole frame
 * @roi_type: that ROI's type (a #GQuark), 0 for none
 * @x: left edge of the item's region in source-frame pixels
 * @y: top edge of that region
 * @width: its width
 * @height: its height
 *
 * One item (a ROI of the frame, or the whole frame) the results came
 * from; #GcgResult.item indexes these.
 *
 * Since: 0.3
 */
typedef struct
{
  gint roi_id;
  GQuark roi_type;
  gfloat x;
  gfloat y;
  gfloat width;
  gfloat height;
} GstCudaGraphResultsItem;

/**
 * GstCudaGraphResultsMeta:
 * @meta: the parent #GstMeta
 * @kind: the #GcgPostprocessKind that gave the results
 * @n_results: number of @results and @labels
 * @results: (array length=n_results): the results; every box is finite,
 *   with a width and height not below 0
 * @labels: (array length=n_results): each result's class name as a
 *   #GQuark: the labels file's line for its class, or "class-N" for a
 *   class it does not name
 * @n_items: number of @items
 * @items: (array length=n_items): the items the results came from
 *
 * The postprocess's answers for the frame the buffer carries (issue 35):
 * detections (boxes in source-frame pixels, confidence, class) or each
 * item's top-k classes.  Attached by `cudagraphpreprocess` (and
 * `cudagraphbatch`) with `postprocess=` set and a model attached, on
 * every GStreamer version; built against GStreamer 1.24 or newer with
 * its analytics library, the same results also ride in a
 * `GstAnalyticsRelationMeta` (gst_cuda_graph_buffer_add_results()).
 * Read it with gst_cuda_graph_buffer_get_results_meta() and the
 * accessors, which check indices against the counts.  Copied with the
 * buffer; dropped by transforms other than copies.
 *
 * Since: 0.3
 */
typedef struct
{
  GstMeta meta;

  guint kind;
  guint n_results;
  GcgResult *results;
  GQuark *labels;
  guint n_items;
  GstCudaGraphResultsItem *items;

  /*< private >*/
  guint n_results_allocated;
  guint n_items_allocated;
} GstCudaGraphResultsMeta;

/**
 * GST_CUDA_GRAPH_RESULTS_META_API_NAME:
 *
 * The name the #GstCudaGraphResultsMeta API type is registered under.
 *
 * Since: 0.3
 */
#define GST_CUDA_GRAPH_RESULTS_META_API_NAME "GstCudaGraphResultsMetaAPI"

GCG_GST_API
GType gst_cuda_graph_results_meta_api_get_type (void);
GCG_GST_API
const GstMetaInfo *gst_cuda_graph_results_meta_get_info (void);

/**
 * GST_CUDA_GRAPH_RESULTS_META_API_TYPE:
 *
 * The #GstCudaGraphResultsMeta API type
 * (gst_cuda_graph_results_meta_api_get_type()).
 *
 * Since: 0.3
 */
#define GST_CUDA_GRAPH_RESULTS_META_API_TYPE \
  (gst_cuda_graph_results_meta_api_get_type ())

/**
 * GST_CUDA_GRAPH_RESULTS_META_INFO:
 *
 * The #GstMetaInfo of #GstCudaGraphResultsMeta
 * (gst_cuda_graph_results_meta_get_info()).
 *
 * Since: 0.3
 */
#define GST_CUDA_GRAPH_RESULTS_META_INFO \
  (gst_cuda_graph_results_meta_get_info ())

GCG_GST_API
GstCudaGraphResultsMeta *gst_cuda_graph_buffer_add_results_meta (
    GstBuffer *buffer, GcgPostprocessKind kind, const GcgResult *results,
    guint n_results, const GQuark *labels, guint n_labels,
    const GstCudaGraphResultsItem *items, guint n_items);
GCG_GST_API
GstCudaGraphResultsMeta *gst_cuda_graph_buffer_add_results (GstBuffer *buffer,
    GcgPostprocessKind kind, const GcgResult *results, guint n_results,
    const GQuark *labels, guint n_labels, const GstCudaGraphResultsItem *items,
    guint n_items);
GCG_GST_API
GstCudaGraphResultsMeta *gst_cuda_graph_buffer_get_results_meta (
    GstBuffer *buffer);
GCG_GST_API
guint gst_cuda_graph_results_meta_get_n_results (GstCudaGraphResultsMeta *meta);
GCG_GST_API
GcgResult *gst_cuda_graph_results_meta_get_result (
    GstCudaGraphResultsMeta *meta, guint index);
GCG_GST_API
GQuark gst_cuda_graph_results_meta_get_label (GstCudaGraphResultsMeta *meta,
    guint index);
GCG_GST_API
const gchar *gst_cuda_graph_results_meta_get_label_name (
    GstCudaGraphResultsMeta *meta, guint index);
GCG_GST_API
GstCudaGraphResultsItem *gst_cuda_graph_results_meta_get_item (
    GstCudaGraphResultsMeta *meta, guint index);
GCG_GST_API
GQuark gst_cuda_graph_results_label_quark (const GQuark *labels, guint n_labels,
    gint label);
GCG_GST_API
gboolean gst_cuda_graph_results_have_analytics (void);

G_END_DECLS
