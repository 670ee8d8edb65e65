/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The model's static tensors are one set of buffers: two frames may not
 * use them at once.  Frames of one stream run in order, so the stage
 * refuses a second stream instead of letting two race on the model's
 * input.  Freeing the stage waits for that stream first: the model's
 * owner (PyTorch's graph and memory pool) is released only once no
 * replay can read its memory.
 */
#include "gcg-model-stage-private.h"
#include "gcg-dtype-private.h"
#include "gcg-context-private.h"
#include "gcg-error.h"
#include "gcg-stream-private.h"
#include "kernels/gcg-copy-list.h"

#include <string.h>

/* Blocks per copy entry: a grid-stride loop, enough to fill the GPU for
 * the largest entry without launching idle blocks for small ones. */
#define MAX_BLOCKS_X 512

typedef struct
{
  GcgFrameStage parent;
  GcgContext *context;
  GcgModelGraph *model;
  GcgStream *stream;            /* the one stream frames run on */
  CUfunction copy;
  guint grid_x;
  gsize item_bytes;
  guint64 input;
  gsize input_bytes;
  /* The output buffer's tensors: offsets and sources; dst per frame. */
  guint n_tensors;
  GcgCopyEntry tensors[GCG_COPY_LIST_MAX];
  gsize output_size;
} GcgModelStage;

/* The struct: one zero-fill list (the input's unused items, unless the
 * built-in op wrote them as zeros: a batch's kernel does), then the
 * copy-out list. */
#define PRE_SIZE GCG_COPY_LIST_SIZE (1)

static gboolean
model_prepare (GcgFrameStage *stage, const GcgFrameStageIo *io, void *dst,
    GError **error)
{
  GcgModelStage *self = (GcgModelStage *) stage;
  GcgCopyList *pre = dst;
  GcgCopyList *post = (GcgCopyList *) ((guint8 *) dst + PRE_SIZE);
  gsize used = (gsize) io->n_items * self->item_bytes;

  pre->n = used < self->input_bytes && !io->unused_zeroed ? 1 : 0;
  pre->reserved = 0;
  pre->e[0].src = 0;
  pre->e[0].dst = self->input + MIN (used, self->input_bytes);
  pre->e[0].bytes = self->input_bytes - MIN (used, self->input_bytes);
  post->n = self->n_tensors;
  post->reserved = 0;
  for (guint i = 0; i < self->n_tensors; i++) {
    post->e[i] = self->tensors[i];
    post->e[i].dst += io->out;
  }
  return TRUE;
}

static gboolean
launch_copies (GcgModelStage *self, GcgStream *stream, guint64 list, guint n,
    GError **error)
{
  CUdeviceptr ptr = list;
  void *args[] = { &ptr };

  return n == 0
      || GCG_CU_OK (error, cuLaunchKernel, self->copy, self->grid_x, n, 1,
          GCG_COPY_LIST_BLOCK, 1, 1, 0, gcg__stream_get_cu (stream), args,
          NULL);
}

/* The model's graph: a child node of the capture under way, or its own
 * exec launched eagerly. */
static gboolean
run_model (GcgModelStage *self, GcgStream *stream, GError **error)
{
  GcgCaptureStatus status;

  if (!gcg_stream_get_capture_status (stream, &status, error))
    return FALSE;
  if (status == GCG_CAPTURE_STATUS_ACTIVE)
    return gcg_model_graph_add_to_capture (self->model, stream, error);
  return gcg_model_graph_launch (self->model, stream, error);
}

static gboolean
model_launch (GcgFrameStage *stage, GcgStream *stream, guint64 arg,
    GError **error)
{
  GcgModelStage *self = (GcgModelStage *) stage;

  if (self->stream == NULL) {
    self->stream = g_object_ref (stream);
  } else if (self->stream != stream) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Model: a chain with a model runs its frames on one stream (the "
        "model's static tensors serve one frame at a time)");
    return FALSE;
  }
  if (launch_copies (self, stream, arg, 1, error)
      && run_model (self, stream, error)
      && launch_copies (self, stream, arg + PRE_SIZE, self->n_tensors, error))
    return TRUE;
  g_prefix_error (error, "Model: ");
  return FALSE;
}

static void
model_free (GcgFrameStage *stage)
{
  GcgModelStage *self = (GcgModelStage *) stage;

  /* No replay may still read the model's memory when its owner goes. */
  if (self->stream != NULL)
    (void) gcg_stream_synchronize (self->stream, NULL);
  g_clear_object (&self->stream);
  g_clear_object (&self->model);
  g_clear_object (&self->context);
  g_free (self);
}

static const GcgFrameStageClass model_stage_class = {
  "model",
  model_prepare,
  model_launch,
  model_free,
};

/* The copy of packed tensor @index into the frame's buffer (at its
 * offset; the buffer's address is added per frame). */
static void
add_tensor (GcgModelStage *self, guint index, gboolean keep_input)
{
  GcgCopyEntry *e = &self->tensors[self->n_tensors++];
  gsize offset, bytes;

  gcg_model_graph_get_packed_tensor (self->model, keep_input, index, &offset,
      &bytes, &e->src);
  e->dst = offset;
  e->bytes = bytes;
  self->grid_x = MAX (self->grid_x,
      MIN (MAX_BLOCKS_X,
          (bytes / 16 + GCG_COPY_LIST_BLOCK - 1) / GCG_COPY_LIST_BLOCK));
}

/* The model can take the items as its input: same CUDA context (two
 * GcgContexts may wrap one), same bytes, same element type. */
static gboolean
check_model (GcgContext *ours, GcgModelGraph *model,
    const GcgModelStageTensor *t, GError **error)
{
  GcgContext *theirs = gcg_model_graph_get_context (model);
  gsize need = t->n_bytes;
  gsize n_bytes = 0;
  GcgModelDtype dtype = GCG_MODEL_DTYPE_FLOAT32;

  if (gcg_context_get_handle (ours) != gcg_context_get_handle (theirs)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The model graph was made in CUDA context %p (device %d), the chain "
        "runs in context %p (device %d): a graph runs only in its own "
        "context; use the device's primary context for both",
        gcg_context_get_handle (theirs), gcg_context_get_device_id (theirs),
        gcg_context_get_handle (ours), gcg_context_get_device_id (ours));
    return FALSE;
  }
  if (!gcg_model_graph_get_input (model, NULL, &n_bytes, &dtype)
      || gcg_model_graph_get_n_outputs (model) == 0) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Set the model graph's input and at least one output first");
    return FALSE;
  }
  if (n_bytes != need || dtype != gcg__tensor_type_get_dtype (t->type)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The model's input (%" G_GSIZE_FORMAT " bytes of %s) is not the "
        "chain's tensor (%" G_GSIZE_FORMAT " bytes of %s, %u×%u, batch %u)",
        n_bytes, gcg_model_dtype_get_name (dtype), need,
        gcg__tensor_type_get_name (t->type), t->width, t->height, t->n_items);
    return FALSE;
  }
  return TRUE;
}

GcgFrameStage *
gcg__model_stage_new (GcgContext *context, GcgModelGraph *model,
    gboolean keep_input, const GcgModelStageTensor *tensor, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  g_autofree GcgModelStage *self = NULL;
  guint n = gcg_model_graph_get_n_outputs (model);

  if (!check_model (context, model, tensor, error))
    return NULL;
  self = g_new0 (GcgModelStage, 1);
  gcg_model_graph_get_input (model, &self->input, &self->input_bytes, NULL);
  if (!gcg__context_guard_enter (&guard, context, error)
      || (self->copy =
                 gcg__context_get_function (context, "gcg_copy_list", error))
          == NULL)
    return NULL;
  self->grid_x = MAX (1,
      MIN (MAX_BLOCKS_X,
          (self->input_bytes / 16 + GCG_COPY_LIST_BLOCK - 1)
              / GCG_COPY_LIST_BLOCK));
  self->model = g_object_ref (model);
  for (guint i = 0; i < n + (keep_input ? 1 : 0); i++)
    add_tensor (self, i, keep_input);
  self->output_size = gcg_model_graph_get_packed_size (model, keep_input);
  self->parent.klass = &model_stage_class;
  self->parent.struct_size = PRE_SIZE + GCG_COPY_LIST_SIZE (self->n_tensors);
  self->parent.struct_align = 8;
  self->context = g_object_ref (context);
  self->item_bytes = self->input_bytes / tensor->n_items;
  return (GcgFrameStage *) g_steal_pointer (&self);
}

gsize
gcg__model_stage_get_output_size (GcgFrameStage *stage)
{
  return ((GcgModelStage *) stage)->output_size;
}

gboolean
gcg__model_stage_get_tensor (GcgFrameStage *stage, guint index, gsize *offset,
    gsize *n_bytes)
{
  GcgModelStage *self = (GcgModelStage *) stage;

  if (index >= self->n_tensors)
    return FALSE;
  *offset = self->tensors[index].dst;
  *n_bytes = self->tensors[index].bytes;
  return TRUE;
}
