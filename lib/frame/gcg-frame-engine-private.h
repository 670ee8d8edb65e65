/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame engine's core, shared by #GcgFrameChain (a batch of one
 * source) and #GcgFrameBatch (N sources): backend, graph or eager, the
 * kernel replay and its counters, the stages (user kernels, the model,
 * the postprocess) and the named per-frame values they read.  Each
 * front-end embeds one and keeps only what differs: its configuration
 * and how it fills the kernel's struct (gcg-frame-engine.c says why).
 */
#pragma once

#include "gcg-frame-types.h"
#include "gcg-frame-stage-private.h"
#include "gcg-kernel-op.h"
#include "gcg-kernel-replay-private.h"
#include "gcg-model-stage-private.h"
#include "gcg-result.h"
#include "kernels/gcg-frame-kernel-params.h"

G_BEGIN_DECLS

typedef struct
{
  GcgBackend backend;
  gboolean use_graph;
  GcgKernelReplay *replay;      /* CUDA backend */
  guint64 cpu_runs;
  guint n_stages;

  /* What the engine writes: its bytes (a video frame or the tensor), and
   * the tensor's shape (n_items 0 for video) a model's input must match
   * and a user kernel after the op covers. */
  gsize out_size;
  GcgModelStageTensor tensor;

  /* The stages' named per-frame values. */
  GcgFrameValueLookup lookup;
  gpointer lookup_data;

  /* The model it ends in: the op writes its input, the model stage the
   * output buffer. */
  GcgModelGraph *model;
  GcgFrameStage *model_stage;   /* owned by the replay */
  guint64 model_input;

  /* The postprocess after the model, and each run's item rectangles (in
   * slot order) it maps results through. */
  GcgFrameStage *pp_stage;      /* owned by the replay */
  GcgPostprocessConfig pp_config;
  GcgRect item_rects[GCG_POSTPROCESS_MAX_ITEMS];
} GcgFrameEngine;

gboolean gcg__frame_engine_open (GcgFrameEngine *self, GcgBackend backend,
    GcgContext *context, const gchar *kernel_name, const guint grid[3],
    const guint block[2], gsize arg_bytes, gsize value_bytes, GError **error);

void gcg__frame_engine_clear (GcgFrameEngine *self);

GcgContext *gcg__frame_engine_get_context (const GcgFrameEngine *self);

gboolean gcg__frame_engine_add_stage (GcgFrameEngine *self,
    GcgFrameStage *stage, gboolean before, GError **error);

gboolean gcg__frame_engine_add_kernel (GcgFrameEngine *self, GcgKernelOp *op,
    guint width, guint height, guint n_items, gboolean before, GError **error);

gboolean gcg__frame_engine_attach_model (GcgFrameEngine *self,
    GcgModelGraph *model, gboolean keep_input, GError **error);

gsize gcg__frame_engine_get_output_size (const GcgFrameEngine *self);

gboolean gcg__frame_engine_get_output_tensor (const GcgFrameEngine *self,
    guint index, gsize *offset, gsize *n_bytes);

gboolean gcg__frame_engine_set_postprocess (GcgFrameEngine *self,
    const GcgPostprocessConfig *config, GError **error);

gboolean gcg__frame_engine_set_postprocess_kernel (GcgFrameEngine *self,
    const GcgPostprocessConfig *config, GcgKernelOp *op, GError **error);

gboolean gcg__frame_engine_get_postprocess (const GcgFrameEngine *self,
    GcgPostprocessConfig *config);

gsize gcg__frame_engine_get_results_size (const GcgFrameEngine *self);

void gcg__frame_engine_keep_rects (GcgFrameEngine *self, guint first,
    const GcgFrameItem *items, guint n_items);

gboolean gcg__frame_engine_run (GcgFrameEngine *self, const void *arg,
    const GcgFrameStageIo *io, GcgStream *stream, GError **error);

guint64 gcg__frame_engine_get_captures (const GcgFrameEngine *self);
guint64 gcg__frame_engine_get_replays (const GcgFrameEngine *self);
guint64 gcg__frame_engine_get_eager (const GcgFrameEngine *self);

G_END_DECLS
