/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * GstCudaGraphBatchStrategy:
 * @GST_CUDA_GRAPH_BATCH_STRATEGY_ALL: every frame of the stream that
 *   starts inside the batch's window (with windows one frame long, the
 *   default, that is one frame)
 * @GST_CUDA_GRAPH_BATCH_STRATEGY_FIRST_IN_BATCH: only the first frame
 *   that starts inside the window; the stream's other frames of that
 *   window are dropped
 * @GST_CUDA_GRAPH_BATCH_STRATEGY_FIRST_IN_BATCH_WITH_OVERLAP: one frame,
 *   the one that starts closest to the window's start among: the stream's
 *   last unused frame that started at most half a window earlier, the
 *   first frame that starts inside the window and, when neither is there,
 *   a frame that starts at most half a window after the window's end
 * @GST_CUDA_GRAPH_BATCH_STRATEGY_LAST_IN_BATCH: only the last frame that
 *   starts inside the window (the freshest): the batch waits until the
 *   stream shows a frame past the window, reaches EOS or (live) the
 *   deadline; the earlier frames of that window are dropped
 *
 * Which frames of one stream a batch of `cudagraphbatch` takes from its
 * window of running time (#GstCudaGraphBatchPad:batch-strategy), as
 * GStreamer 1.28's analyticscombiner does.
 *
 * Since: 0.2
 */
typedef enum
{
  GST_CUDA_GRAPH_BATCH_STRATEGY_ALL,
  GST_CUDA_GRAPH_BATCH_STRATEGY_FIRST_IN_BATCH,
  GST_CUDA_GRAPH_BATCH_STRATEGY_FIRST_IN_BATCH_WITH_OVERLAP,
  GST_CUDA_GRAPH_BATCH_STRATEGY_LAST_IN_BATCH,
} GstCudaGraphBatchStrategy;

G_END_DECLS
