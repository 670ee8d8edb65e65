/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A detector for the results tests on a GPU, without PyTorch: a graph
 * captured here that copies a fixed synthetic output (the YOLOv8 layout,
 * items × (4 + classes) × candidates: tests/common/gcg-test-detect.h)
 * into its output tensor, and the check of a frame's results meta
 * against gcg_postprocess_run_cpu() on the same output and items.
 */
#pragma once

#include <gcg.h>

#include "gstcudagraphresultsmeta.h"

G_BEGIN_DECLS

typedef struct
{
  guint items;                  /* the model's batch: items it reads */
  guint n_classes;
  guint n_cand;
  guint width, height;          /* its input's size */
} GcgTestDetector;

/* Floats of the detector's output. */
gsize gcg_test_detector_floats (const GcgTestDetector *d);

/* The detector, in the primary context of device 0, whose output is
 * @output (gcg_test_detector_floats() floats) on every replay. */
GcgModelGraph *gcg_test_detector_new (const GcgTestDetector *d,
    const gfloat *output);

/* The postprocess the tests ask for: detect, score 0.3, IoU 0.45, at
 * most 60 per item. */
void gcg_test_detector_config (const GcgTestDetector *d,
    GcgPostprocessConfig *pp);

/* @meta (a frame's, not NULL) against the CPU's results for its @n items,
 * whose outputs start at @output (the frame's first item's), each cut
 * from @rects[k] (clipped to the frame; @ids[k] the ROI's id, -1 for the
 * whole frame) and letterboxed symmetrically into the model's input:
 * every record bit for bit, NaN confidences equal. */
void gcg_test_detector_check (const GcgTestDetector *d,
    GstCudaGraphResultsMeta *meta, const gfloat *output, const GcgRect *rects,
    const gint *ids, guint n);

G_END_DECLS
