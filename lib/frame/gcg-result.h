/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The answers a frame's postprocess gives: the fixed-size record the GPU
 * writes per result, the same bytes on host and device, and the
 * postprocess's configuration.  The engine writes them; the GStreamer
 * adapter turns them into analytics metadata on the frame they describe.
 */
#pragma once

#include <glib.h>

#include "gcg-version.h"
#include "gcg-frame-item-map.h"
#include "gcg-frame-types.h"

G_BEGIN_DECLS

/**
 * GcgPostprocessKind:
 * @GCG_POSTPROCESS_NONE: no postprocess: the model's tensors are the output
 * @GCG_POSTPROCESS_CLASSIFY: top-k classes per item, from one score per
 *   class (softmax applied or not, as configured)
 * @GCG_POSTPROCESS_DETECT: the single-head detector layout (per item
 *   `4 + classes` rows × candidates, boxes as centre and size in the
 *   tensor's pixels): score threshold, class-aware non-maximum
 *   suppression, a fixed maximum per item, boxes in source-frame pixels
 * @GCG_POSTPROCESS_USER: the user's own kernel writes #GcgResult records
 *   (gcg_frame_batch_set_postprocess_kernel()); the GPU only
 *
 * What turns a model's output into results.
 *
 * Since: 0.3
 */
typedef enum
{
  GCG_POSTPROCESS_NONE,
  GCG_POSTPROCESS_CLASSIFY,
  GCG_POSTPROCESS_DETECT,
  GCG_POSTPROCESS_USER,
} GcgPostprocessKind;

/**
 * GCG_RESULT_MAX_PER_ITEM:
 *
 * Most results one item can give (top-k, or detections kept after
 * non-maximum suppression).
 *
 * Since: 0.3
 */
#define GCG_RESULT_MAX_PER_ITEM 256

/**
 * GcgResult:
 * @x: left edge in source-frame pixels (detection), or the item's
 *   rectangle in the source frame (classification)
 * @y: top edge, likewise
 * @width: width, likewise
 * @height: height, likewise
 * @confidence: the score (after softmax where asked), 0 to 1 for
 *   probabilities
 * @label: class index, 0 to the class count − 1
 * @item: the item it came from: a ROI of the frame, or a slot of the batch
 * @reserved: zero
 *
 * One result: 32 bytes, the same layout on the GPU and the host.
 *
 * Since: 0.3
 */
typedef struct
{
  gfloat x;
  gfloat y;
  gfloat width;
  gfloat height;
  gfloat confidence;
  gint32 label;
  guint32 item;
  guint32 reserved;
} GcgResult;

/**
 * GcgPostprocessConfig:
 * @kind: which postprocess
 * @output_index: which of the model's outputs it reads
 * @n_classes: classes the model scores (1 to 65536)
 * @top_k: classification: classes kept per item (1 to
 *   %GCG_RESULT_MAX_PER_ITEM)
 * @softmax: classification: softmax over the scores; %FALSE keeps them raw
 * @score_threshold: detection: candidates scoring below are dropped (0 to 1)
 * @iou_threshold: detection: a box overlapping a kept one of the same class
 *   by more than this intersection over union is suppressed (0 to 1)
 * @max_per_item: detection: most detections kept per item (1 to
 *   %GCG_RESULT_MAX_PER_ITEM)
 *
 * The postprocess after the model.  Values outside their range are
 * refused where the configuration is set, with a #GError.
 *
 * Since: 0.3
 */
typedef struct
{
  GcgPostprocessKind kind;
  guint output_index;
  guint n_classes;
  guint top_k;
  gboolean softmax;
  gfloat score_threshold;
  gfloat iou_threshold;
  guint max_per_item;
} GcgPostprocessConfig;

/**
 * GCG_POSTPROCESS_MAX_CLASSES:
 *
 * Most classes a postprocess reads per item (#GcgPostprocessConfig's
 * @n_classes).
 *
 * Since: 0.3
 */
#define GCG_POSTPROCESS_MAX_CLASSES 65536

/**
 * GCG_POSTPROCESS_MAX_ITEMS:
 *
 * Most items one frame (a chain's ROIs) or one batch (its sources × ROIs)
 * may have for a postprocess to run after its model: each item's
 * geometry travels in the frame's parameter struct.
 *
 * Since: 0.3
 */
#define GCG_POSTPROCESS_MAX_ITEMS 64

/**
 * GCG_POSTPROCESS_MAX_CANDIDATES:
 *
 * Most detection candidates per item (the last axis of a
 * %GCG_POSTPROCESS_DETECT output: 8400 for a 640 × 640 YOLOv8).
 *
 * Since: 0.3
 */
#define GCG_POSTPROCESS_MAX_CANDIDATES 65536

/**
 * GcgResultsHeader:
 * @frame_number: the #GcgFrameParams.frame_number of the frame the
 *   results describe (a batch's: its number, counted from 0 by the
 *   #GcgFrameBatch)
 * @n_results: records after the header, every item's, item 0's first
 * @n_items: items of the frame (its ROIs, or a batch's sources × ROIs)
 * @item_counts: results of each item, in item order; 0 past @n_items
 * @reserved: zero
 *
 * The start of one frame's results area: the header, then @n_results
 * #GcgResult records, packed (no gap between items: item i's records
 * follow item i − 1's, each item's ordered by rank, best first).  The
 * area is gcg_frame_batch_get_results_size() bytes:
 * room for every item's most results.  Read it with
 * gcg_frame_results_get() and gcg_frame_results_get_item().
 *
 * Since: 0.3
 */
typedef struct
{
  guint64 frame_number;
  guint32 n_results;
  guint32 n_items;
  guint32 item_counts[GCG_POSTPROCESS_MAX_ITEMS];
  guint32 reserved[4];
} GcgResultsHeader;

#define GCG_TYPE_RESULT (gcg_result_get_type ())
GCG_API
GType gcg_result_get_type (void) G_GNUC_CONST;

GCG_API
GcgResult *gcg_result_copy (const GcgResult *result);

GCG_API
void gcg_result_free (GcgResult *result);

#define GCG_TYPE_POSTPROCESS_CONFIG (gcg_postprocess_config_get_type ())
GCG_API
GType gcg_postprocess_config_get_type (void) G_GNUC_CONST;

GCG_API
GcgPostprocessConfig *gcg_postprocess_config_new (void);

GCG_API
GcgPostprocessConfig *gcg_postprocess_config_copy (
    const GcgPostprocessConfig *config);

GCG_API
void gcg_postprocess_config_free (GcgPostprocessConfig *config);

GCG_API
void gcg_postprocess_config_init (GcgPostprocessConfig *config);

GCG_API
gboolean gcg_postprocess_config_validate (const GcgPostprocessConfig *config,
    GError **error);

GCG_API
guint gcg_postprocess_config_get_max_results (
    const GcgPostprocessConfig *config);

GCG_API
gsize gcg_postprocess_config_get_results_size (
    const GcgPostprocessConfig *config, guint n_items);

GCG_API
gboolean gcg_postprocess_run_cpu (const GcgPostprocessConfig *config,
    const gfloat *output, gsize n_floats, guint n_candidates,
    const GcgFrameItemMap *maps, guint n_items, guint64 frame_number,
    guint8 *results, gsize results_size, GError **error);

GCG_API
const GcgResult *gcg_frame_results_get (gconstpointer area, gsize size,
    guint *n_results);

GCG_API
const GcgResult *gcg_frame_results_get_item (gconstpointer area, gsize size,
    guint item, guint *n_results);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgResult, gcg_result_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgPostprocessConfig,
    gcg_postprocess_config_free)

G_END_DECLS
