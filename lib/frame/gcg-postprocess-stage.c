/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Where the results go, and why there: the device writes them straight
 * into the frame's results area, pinned host memory reached through its
 * device mapping (under unified addressing the host pointer of
 * cuMemAllocHost / GcgHostPool memory is that mapping), by the last
 * kernel of the replay.  A memcpy node into pinned memory would record
 * one destination at capture, while each frame in flight needs its own
 * area; a kernel reads the frame's address from the stage's struct, as
 * the model stage's copy-out does.  Only the header and the records kept
 * cross the bus, never the model's output.  The frame's completion
 * (its GcgFrameQueue event) orders those writes before the host reads
 * them: no other wait.
 *
 * The device scratch (per-item records and, for detection, each
 * candidate's score and class) serves one frame at a time; the stage
 * comes after a model, whose stage already holds a chain to one stream.
 *
 * The user's postprocess (GCG_POSTPROCESS_USER) is the same stage with
 * the user's kernel (a GcgKernelOp's stage, owned here) in the built-in
 * kernel's place: the counts are zeroed by a memset node, the kernel
 * writes records and counts into the same scratch (its fields records
 * and counts: GcgKernelPpValues), and the gather packs them as it packs
 * the built-ins', clamping each count and mapping each box.  Its struct
 * follows the stage's own in the stage's struct, so one copy still
 * carries both per frame.
 */
#include "gcg-postprocess-stage-private.h"
#include "gcg-context-private.h"
#include "gcg-error.h"
#include "gcg-frame-item-map.h"
#include "gcg-kernel-op-private.h"
#include "gcg-stream-private.h"
#include "kernels/gcg-postprocess-math.h"

#include <string.h>

typedef struct
{
  GcgFrameStage parent;
  GcgContext *context;
  GcgStream *stream;            /* the one stream frames run on */
  CUfunction run;
  CUfunction gather;
  GcgPostprocessConfig config;
  guint max_items;
  guint64 input;
  guint n_candidates;
  guint per_item;
  CUdeviceptr scratch;
  gsize results_size;
  /* GCG_POSTPROCESS_USER: the user's kernel, and where its struct starts
   * in the stage's. */
  GcgFrameStage *user;
  gsize user_offset;
  gsize output_bytes;
} GcgPostprocessStage;

static gboolean
pp_prepare (GcgFrameStage *stage, const GcgFrameStageIo *io, void *dst,
    GError **error)
{
  GcgPostprocessStage *self = (GcgPostprocessStage *) stage;
  const GcgFrameChainConfig *c = io->config;
  GcgPpParams *p = dst;

  if (io->n_items > self->max_items
      || (io->n_items > 0 && io->item_rects == NULL)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Postprocess: %u items for a model of %u, or no item geometry",
        io->n_items, self->max_items);
    return FALSE;
  }
  if (io->results % 8 != 0) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Postprocess: the results area at 0x%" G_GINT64_MODIFIER "x is not "
        "8-byte aligned",
        io->results);
    return FALSE;
  }
  p->input = self->input;
  p->scratch = self->scratch;
  p->results = io->results;
  p->frame_number = io->params->frame_number;
  p->kind = self->config.kind;
  p->n_items = io->n_items;
  p->n_classes = self->config.n_classes;
  p->n_candidates = self->n_candidates;
  p->per_item = self->per_item;
  p->softmax = self->config.softmax ? 1 : 0;
  p->score_threshold = self->config.score_threshold;
  p->iou_threshold = self->config.iou_threshold;
  for (guint i = 0; i < io->n_items; i++) {
    GcgFrameItemMap map;

    /* An empty item (nothing of it left in the frame) maps to 0. */
    gcg_frame_item_map_init (&map, &io->item_rects[i], c->out_width,
        c->out_height, c->letterbox);
    p->items[i] = (GcgPpItem) { map.scale_x, map.scale_y, map.offset_x,
      map.offset_y, { map.roi.x, map.roi.y, map.roi.width, map.roi.height } };
  }
  return self->user == NULL
      || self->user->klass->prepare (self->user, io,
          (guint8 *) dst + self->user_offset, error);
}

/* The user's kernel after its counts are zeroed (each frame: a kernel
 * that writes no count for an item gives it none). */
static gboolean
pp_launch_user (GcgPostprocessStage *self, GcgStream *stream, guint64 arg,
    GError **error)
{
  if (!GCG_CU_OK (error, cuMemsetD32Async, self->scratch, 0, GCG_PP_MAX_ITEMS,
          gcg__stream_get_cu (stream))) {
    g_prefix_error (error, "Postprocess: ");
    return FALSE;
  }
  return self->user->klass->launch (self->user, stream, arg + self->user_offset,
      error);
}

static gboolean
pp_launch (GcgFrameStage *stage, GcgStream *stream, guint64 arg, GError **error)
{
  GcgPostprocessStage *self = (GcgPostprocessStage *) stage;
  CUdeviceptr ptr = arg;
  void *args[] = { &ptr };
  CUstream cu = gcg__stream_get_cu (stream);

  if (self->stream == NULL) {
    self->stream = g_object_ref (stream);
  } else if (self->stream != stream) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Postprocess: its scratch serves one stream");
    return FALSE;
  }
  if (self->user != NULL) {
    if (!pp_launch_user (self, stream, arg, error))
      return FALSE;
  } else if (!GCG_CU_OK (error, cuLaunchKernel, self->run, self->max_items, 1,
                 1, GCG_PP_BLOCK, 1, 1, 0, cu, args, NULL)) {
    g_prefix_error (error, "Postprocess: ");
    return FALSE;
  }
  if (GCG_CU_OK (error, cuLaunchKernel, self->gather, 1, 1, 1, GCG_PP_BLOCK, 1,
          1, 0, cu, args, NULL))
    return TRUE;
  g_prefix_error (error, "Postprocess: ");
  return FALSE;
}

static void
pp_free (GcgFrameStage *stage)
{
  GcgPostprocessStage *self = (GcgPostprocessStage *) stage;
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  /* No replay may still use the scratch when it goes. */
  if (self->stream != NULL)
    (void) gcg_stream_synchronize (self->stream, NULL);
  gcg__frame_stage_free (self->user);
  if (self->scratch != 0
      && gcg__context_guard_enter (&guard, self->context, NULL))
    GCG_CU_WARN (cuMemFree, self->scratch);
  g_clear_object (&self->stream);
  g_clear_object (&self->context);
  g_free (self);
}

static const GcgFrameStageClass pp_stage_class = {
  "postprocess",
  pp_prepare,
  pp_launch,
  pp_free,
};

static gboolean
shape_error (const GcgPostprocessConfig *config, const gint64 *shape,
    guint n_dims, guint max_items, GError **error)
{
  g_autoptr (GString) s = g_string_new (NULL);

  for (guint d = 0; d < n_dims; d++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, d ? " × " : "", shape[d]);
  g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "Postprocess: the model's output %u is %s; %s of %u classes over %u "
      "items needs %s",
      config->output_index, s->str,
      config->kind == GCG_POSTPROCESS_DETECT ? "detection" : "classification",
      config->n_classes, max_items,
      config->kind == GCG_POSTPROCESS_DETECT
          ? "items × (4 + classes) × candidates (at most 65536)"
          : "items × classes");
  return FALSE;
}

/* The output's shape fits the kind: sets the candidate count. */
static gboolean
check_shape (GcgPostprocessStage *self, GcgModelGraph *model, GError **error)
{
  const GcgPostprocessConfig *c = &self->config;
  guint n_dims = 0;
  const gint64 *shape =
      gcg_model_graph_get_output_shape (model, c->output_index, &n_dims);
  gint64 rest = 1;

  if (shape == NULL || n_dims < 2 || shape[0] != (gint64) self->max_items)
    return shape_error (c, shape, shape ? n_dims : 0, self->max_items, error);
  if (c->kind == GCG_POSTPROCESS_DETECT) {
    if (n_dims != 3 || shape[1] != 4 + (gint64) c->n_classes || shape[2] < 1
        || shape[2] > GCG_POSTPROCESS_MAX_CANDIDATES)
      return shape_error (c, shape, n_dims, self->max_items, error);
    self->n_candidates = (guint) shape[2];
    return TRUE;
  }
  for (guint d = 1; d < n_dims; d++)
    rest *= shape[d];
  if (rest != (gint64) c->n_classes)
    return shape_error (c, shape, n_dims, self->max_items, error);
  return TRUE;
}

/* The model's output @config->output_index, as the kernels read it. */
static gboolean
check_output (GcgPostprocessStage *self, GcgModelGraph *model, GError **error)
{
  const GcgPostprocessConfig *c = &self->config;
  GcgModelDtype dtype = GCG_MODEL_DTYPE_FLOAT32;
  guint n = gcg_model_graph_get_n_outputs (model);

  if (c->output_index >= n) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Postprocess: output %u asked, the model has %u", c->output_index, n);
    return FALSE;
  }
  gcg_model_graph_get_output (model, c->output_index, &self->input,
      &self->output_bytes, &dtype);
  /* A user kernel reads the output as it is (output, output_bytes). */
  if (dtype != GCG_MODEL_DTYPE_FLOAT32 && c->kind != GCG_POSTPROCESS_USER) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "Postprocess: the model's output %u is %s; the built-in "
        "postprocesses read float32",
        c->output_index, gcg_model_dtype_get_name (dtype));
    return FALSE;
  }
  if (self->max_items < 1 || self->max_items > GCG_POSTPROCESS_MAX_ITEMS) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Postprocess: a frame of up to %u items; at most %d are supported",
        self->max_items, GCG_POSTPROCESS_MAX_ITEMS);
    return FALSE;
  }
  return c->kind == GCG_POSTPROCESS_USER || check_shape (self, model, error);
}

/* @config's kind runs with @op: the user's postprocess with a kernel,
 * the built-ins without. */
static gboolean
check_kind (const GcgPostprocessConfig *config, GcgKernelOp *op, GError **error)
{
  if (config->kind == GCG_POSTPROCESS_USER && op == NULL) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "Postprocess: GCG_POSTPROCESS_USER runs the user's kernel: set it "
        "with gcg_frame_batch_set_postprocess_kernel() (or "
        "gcg_frame_batch_set_postprocess_kernel()); only classification "
        "and detection are built in");
    return FALSE;
  }
  if (config->kind != GCG_POSTPROCESS_USER && op != NULL) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Postprocess: a kernel is the postprocess of kind "
        "GCG_POSTPROCESS_USER only");
    return FALSE;
  }
  return TRUE;
}

/* The user's kernel @op in the built-in kernel's place, its struct after
 * the stage's own.  After the scratch is allocated: its fields point
 * there. */
static gboolean
add_user (GcgPostprocessStage *self, GcgKernelOp *op, GError **error)
{
  const GcgPostprocessConfig *c = &self->config;
  GcgKernelPpValues pp = { self->input, self->output_bytes,
    self->scratch + GCG_PP_SCRATCH_RECORDS, self->scratch, self->per_item,
    c->n_classes, c->score_threshold, c->iou_threshold };
  gsize align;

  self->user = gcg__kernel_op_make_postprocess_stage (op, self->context,
      self->max_items, &pp, error);
  if (self->user == NULL)
    return FALSE;
  align = MAX (self->user->struct_align, self->parent.struct_align);
  self->user_offset = (self->parent.struct_size + align - 1) & ~(align - 1);
  self->parent.struct_size = self->user_offset + self->user->struct_size;
  self->parent.struct_align = align;
  if (self->parent.struct_size <= GCG_FRAME_STAGE_MAX_STRUCT)
    return TRUE;
  g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "Postprocess kernel '%s': its parameters and %u items take %" G_GSIZE_FORMAT
      " bytes per frame, more than %d",
      gcg_kernel_op_get_name (op), self->max_items, self->parent.struct_size,
      GCG_FRAME_STAGE_MAX_STRUCT);
  return FALSE;
}

GcgFrameStage *
gcg__postprocess_stage_new (GcgContext *context, GcgModelGraph *model,
    const GcgPostprocessConfig *config, GcgKernelOp *op, guint max_items,
    GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  g_autoptr (GcgFrameStage) stage = NULL;
  GcgPostprocessStage *self;
  gsize scratch;

  if (!gcg_postprocess_config_validate (config, error)
      || !check_kind (config, op, error))
    return NULL;
  if (config->kind == GCG_POSTPROCESS_NONE) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Postprocess: GCG_POSTPROCESS_NONE has no stage");
    return NULL;
  }
  self = g_new0 (GcgPostprocessStage, 1);
  self->parent.klass = &pp_stage_class;
  self->context = g_object_ref (context);
  stage = (GcgFrameStage *) self;
  self->config = *config;
  self->max_items = max_items;
  self->per_item = gcg_postprocess_config_get_max_results (config);
  if (!check_output (self, model, error)
      || !gcg__context_guard_enter (&guard, context, error)
      || (op == NULL
          && (self->run = gcg__context_get_function (context,
                  config->kind == GCG_POSTPROCESS_DETECT ? "gcg_pp_detect"
                                                         : "gcg_pp_classify",
                  error))
              == NULL)
      || (self->gather =
                 gcg__context_get_function (context, "gcg_pp_gather", error))
          == NULL)
    return NULL;
  scratch = GCG_PP_SCRATCH_SIZE (self->per_item, self->n_candidates);
  if (!GCG_CU_OK (error, cuMemAlloc, &self->scratch, scratch))
    return NULL;
  self->results_size =
      gcg_postprocess_config_get_results_size (config, max_items);
  self->parent.struct_size = G_STRUCT_OFFSET (GcgPpParams, items)
      + (gsize) max_items * sizeof (GcgPpItem);
  self->parent.struct_align = 8;
  if (op != NULL && !add_user (self, op, error))
    return NULL;
  return g_steal_pointer (&stage);
}

gsize
gcg__postprocess_stage_get_results_size (GcgFrameStage *stage)
{
  return stage ? ((GcgPostprocessStage *) stage)->results_size : 0;
}

gboolean
gcg__postprocess_stage_make (GcgContext *context, GcgModelGraph *model,
    gboolean have_postprocess, const GcgPostprocessConfig *config,
    GcgKernelOp *op, guint max_items, GcgFrameStage **stage, GError **error)
{
  *stage = NULL;
  if (!gcg_postprocess_config_validate (config, error)
      || !check_kind (config, op, error))
    return FALSE;
  if (have_postprocess) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Postprocess: one is set already");
    return FALSE;
  }
  if (config->kind == GCG_POSTPROCESS_NONE)
    return TRUE;
  if (context == NULL || model == NULL) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "Postprocess: it reads a model's output: attach a model first, on "
        "the CUDA backend (%s)",
        op != NULL ? "a user's postprocess kernel runs on the GPU only"
                   : "gcg_postprocess_run_cpu() runs it on the CPU");
    return FALSE;
  }
  *stage =
      gcg__postprocess_stage_new (context, model, config, op, max_items, error);
  return *stage != NULL;
}
