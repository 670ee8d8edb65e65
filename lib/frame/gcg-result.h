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
#include "gcg-frame-batch.h"

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

G_STATIC_ASSERT (sizeof (GcgResult) == 32);

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

G_END_DECLS
