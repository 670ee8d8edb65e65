/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgFrameBatch:
 *
 * Turns one frame from each of up to #GcgFrameBatchConfig.max_sources
 * sources (cameras, streams) into one tensor: each source adds its ROIs,
 * or its whole frame (or crop) as one item, preprocessed exactly as a
 * #GcgFrameChain with the same output configuration would, bit for bit.
 *
 * The CUDA backend runs the whole batch as one kernel, captured into a
 * #GcgGraph on a stream's first batch for the largest batch
 * (max_sources × max_rois items) and replayed for every batch after it:
 * how many sources and items a batch fills and every source's format,
 * size, planes, crop and ROIs reach the kernel through one host-to-device
 * copy of a parameter struct, so partial batches, sources joining or
 * leaving, resolution changes and changing ROI counts never capture
 * again.
 *
 * The CPU backend runs each source through the frame chain's reference
 * loops, synchronously.
 *
 * A batch is driven from one thread at a time; like a chain it serves up
 * to 16 streams.
 *
 * Since: 0.1
 */
#include "gcg-frame-batch-private.h"
#include "gcg-model-stage-private.h"
#include "gcg-error.h"
#include "gcg-frame-private.h"
#include "gcg-kernel-replay-private.h"
#include "gcg-stream-private.h"

#include <string.h>

#define BLOCK_W 32
#define BLOCK_H 8
/* The kernel struct's static and per-frame fields, before its items. */
#define KP_HEAD G_STRUCT_OFFSET (GcgFrameKernelParams, items)

struct _GcgFrameBatch
{
  GObject parent_instance;

  GcgFrameBatchConfig config;
  GcgBackend backend;
  gboolean use_graph;
  gsize item_size;

  /* The device struct staged for the batch being processed: a
   * GcgFrameBatchHeader, then one cut GcgFrameKernelParams per source. */
  guint8 *staging;
  gsize staging_size;
  gsize stride;
  /* One source's whole struct, prepared before it is cut into staging. */
  GcgFrameKernelParams *kp;
  /* Each source of the batch being processed as a chain sees it: made
   * once by the checks, used again by the preparation. */
  GcgFrameChainConfig chains[GCG_FRAME_BATCH_MAX_SOURCES];
  /* The description each chains[i] was made from and validated for: a
   * slot whose source is unchanged since is not validated again (the
   * enum look-ups were most of a batch's checks).  validated[i] is FALSE
   * until then, and again once chains[i] holds a refused source. */
  GcgFrameBatchSource described[GCG_FRAME_BATCH_MAX_SOURCES];
  gboolean validated[GCG_FRAME_BATCH_MAX_SOURCES];
  /* Each validated slot's kernel struct before its items, as
   * gcg__frame_prepare_static() makes it from chains[i]: copied per batch
   * instead of made again (a memset of the whole struct, all its items,
   * and the colour set-up, per source).  max_sources × KP_HEAD bytes. */
  guint8 *statics;

  GcgKernelReplay *replay;      /* CUDA backend */
  guint64 cpu_batches;

  /* With user kernels after the op: their view of a batch, and where
   * they find its named values. */
  GcgFrameBatchView *view;
  GcgFrameValueLookup lookup;
  gpointer lookup_data;

  /* The model the batch ends in (gcg_frame_batch_attach_model()): the
   * kernel writes its input, the model stage the output buffer. */
  GcgModelGraph *model;
  GcgFrameStage *model_stage;   /* owned by the replay */
  guint64 model_input;

  /* The postprocess after the model (gcg_frame_batch_set_postprocess()),
   * and each batch's item rectangles, in slot order. */
  GcgFrameStage *pp_stage;      /* owned by the replay */
  GcgPostprocessConfig pp_config;
  GcgRect pp_rects[GCG_POSTPROCESS_MAX_ITEMS];
};

G_DEFINE_FINAL_TYPE (GcgFrameBatch, gcg_frame_batch, G_TYPE_OBJECT)

static void
gcg_frame_batch_finalize (GObject *object)
{
  GcgFrameBatch *self = GCG_FRAME_BATCH (object);

  g_clear_pointer (&self->replay, gcg__kernel_replay_free);
  g_clear_object (&self->model);
  g_free (self->view);
  g_free (self->staging);
  g_free (self->statics);
  g_free (self->kp);

  G_OBJECT_CLASS (gcg_frame_batch_parent_class)->finalize (object);
}

static void
gcg_frame_batch_class_init (GcgFrameBatchClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gcg_frame_batch_finalize;
}

static void
gcg_frame_batch_init (GcgFrameBatch *self)
{
  self->use_graph = TRUE;
  self->kp = g_new0 (GcgFrameKernelParams, 1);
}

/* One or several output pixels per thread (gcg__frame_kernel_launch(): a
 * full batch takes several); grid.z is source × max_rois + item.  The
 * kernels are instantiated per resize method and element type; each
 * block runs the code specialised on its source's input format (see
 * gcg-frame-kernels.cu). */
static void
pick_kernel (const GcgFrameBatchConfig *c, const guint block[2], guint grid[3],
    gchar *name, gsize size)
{
  gchar suffix[32];

  grid[2] = c->max_sources * c->max_rois;
  g_snprintf (suffix, sizeof (suffix), "%d_%d", (gint) c->resize,
      (gint) c->tensor_type);
  gcg__frame_kernel_launch ("batch", suffix, c->out_width, c->out_height,
      grid[2], GCG_FK_TENSOR_ROWS, block, grid, name, size);
}

/**
 * gcg_frame_batch_new:
 * @config: the batch's configuration (copied)
 * @backend: where to run
 * @context: (nullable): the #GcgContext of the CUDA backend; %NULL makes
 *   %GCG_BACKEND_AUTO pick the CPU
 * @error: return location for a #GError, or %NULL
 *
 * Makes a batch.  The CUDA backend looks up its kernel and allocates the
 * parameter block of its first stream now; %GCG_BACKEND_AUTO falls back to
 * the CPU when @context is %NULL or CUDA is unusable, and never fails for
 * that.  The CPU backend ignores @context.
 *
 * Returns: (transfer full) (nullable): the batch, or %NULL with @error set
 *   (%GCG_ERROR_INVALID_ARGUMENT for a bad @config)
 *
 * Since: 0.1
 */
GcgFrameBatch *
gcg_frame_batch_new (const GcgFrameBatchConfig *config, GcgBackend backend,
    GcgContext *context, GError **error)
{
  g_autoptr (GcgFrameBatch) self = NULL;
  const guint block[2] = { BLOCK_W, BLOCK_H };
  GcgFrameBatchHeader *header;
  guint grid[3];
  gchar name[64];

  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (backend <= GCG_BACKEND_CPU, NULL);
  g_return_val_if_fail (context == NULL || GCG_IS_CONTEXT (context), NULL);

  if (!gcg_frame_batch_config_validate (config, error))
    return NULL;
  self = g_object_new (GCG_TYPE_FRAME_BATCH, NULL);
  self->config = *config;
  self->backend = backend;
  self->item_size = gcg_frame_batch_config_get_item_size (config);
  /* Bounded by the config check: at most 64 KiB. */
  self->stride = gcg__frame_batch_params_stride (config);
  self->staging_size = gcg__frame_batch_params_size (config);
  self->staging = g_malloc0 (self->staging_size);
  self->statics = g_malloc0 ((gsize) config->max_sources * KP_HEAD);
  header = (GcgFrameBatchHeader *) self->staging;
  header->stride = (gint32) self->stride;
  header->max_items = (gint32) config->max_rois;
  pick_kernel (config, block, grid, name, sizeof (name));
  /* A batch's struct (up to 64 KiB) is too large for kernel arguments:
   * the batch kernels read it from the parameter block. */
  if (!gcg__kernel_replay_open (&self->backend, context, name, grid, block,
          self->staging_size, 0, &self->replay, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * gcg_frame_batch_get_backend:
 * @self: a #GcgFrameBatch
 *
 * Gets the backend the batch runs on, as chosen when it was made.
 *
 * Returns: the backend in use: %GCG_BACKEND_CUDA or %GCG_BACKEND_CPU,
 *   never %GCG_BACKEND_AUTO
 *
 * Since: 0.1
 */
GcgBackend
gcg_frame_batch_get_backend (GcgFrameBatch *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), GCG_BACKEND_CPU);
  return self->backend;
}

/**
 * gcg_frame_batch_get_config:
 * @self: a #GcgFrameBatch
 * @config: (out caller-allocates): where to copy the configuration
 *
 * Copies the batch's configuration into @config.
 *
 * Since: 0.1
 */
void
gcg_frame_batch_get_config (GcgFrameBatch *self, GcgFrameBatchConfig *config)
{
  g_return_if_fail (GCG_IS_FRAME_BATCH (self));
  g_return_if_fail (config != NULL);
  *config = self->config;
}

/**
 * gcg_frame_batch_set_use_graph:
 * @self: a #GcgFrameBatch
 * @use_graph: %TRUE to capture and replay (the default), %FALSE to launch
 *   the kernel eagerly for every batch
 *
 * Eager launches exist for comparison and debugging; the CPU backend
 * ignores this.
 *
 * Since: 0.1
 */
void
gcg_frame_batch_set_use_graph (GcgFrameBatch *self, gboolean use_graph)
{
  g_return_if_fail (GCG_IS_FRAME_BATCH (self));
  self->use_graph = !!use_graph;
}

/**
 * gcg_frame_batch_get_use_graph:
 * @self: a #GcgFrameBatch
 *
 * Tells whether the CUDA backend replays a captured graph or launches
 * eagerly.
 *
 * Returns: whether the CUDA backend replays a graph
 *
 * Since: 0.1
 */
gboolean
gcg_frame_batch_get_use_graph (GcgFrameBatch *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), FALSE);
  return self->use_graph;
}

static gboolean
same_source (const GcgFrameBatchSource *a, const GcgFrameBatchSource *b)
{
  /* Field by field: the caller's struct may carry padding. */
  return a->format == b->format && a->width == b->width
      && a->height == b->height && a->matrix == b->matrix
      && a->full_range == b->full_range;
}

/* Makes slot @i's chain config from @source and validates it, unless the
 * slot's last validated description is the same. */
static gboolean
describe_slot (GcgFrameBatch *self, guint i, const GcgFrameBatchSource *source,
    GError **error)
{
  if (self->validated[i] && same_source (&self->described[i], source))
    return TRUE;
  self->validated[i] = FALSE;
  gcg__frame_batch_chain_config (&self->config, source, &self->chains[i]);
  if (!gcg_frame_chain_config_validate (&self->chains[i], error))
    return FALSE;
  gcg__frame_prepare_static (&self->chains[i], self->kp);
  memcpy (self->statics + (gsize) i * KP_HEAD, self->kp, KP_HEAD);
  self->described[i] = *source;
  self->validated[i] = TRUE;
  return TRUE;
}

/* Every source and its values, checked before anything is staged, so a
 * refused batch changes nothing. */
static gboolean
check_batch (GcgFrameBatch *self, guint n_sources,
    const GcgFrameBatchSource *sources, const GcgFrameParams *params,
    guint64 dst, GError **error)
{
  GcgFrameParams checked;
  g_autoptr (GError) source_error = NULL;

  if (dst == 0) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A batch needs a destination");
    return FALSE;
  }
  if (n_sources < 1 || n_sources > self->config.max_sources) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A batch of %u sources; this one holds 1 to %u", n_sources,
        self->config.max_sources);
    return FALSE;
  }
  for (guint i = 0; i < n_sources; i++) {
    /* The source's own destination is ignored: check it with the batch's. */
    checked = params[i];
    checked.dst[0] = dst;
    if (!describe_slot (self, i, &sources[i], &source_error)
        || !gcg__frame_check_params (&self->chains[i], &checked,
            &source_error)) {
      g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "Batch source %u: %s", i, source_error->message);
      return FALSE;
    }
  }
  return TRUE;
}

/* Prepares source @i (checked by check_batch()) into self->kp, its items
 * written from @first_item on: the same preparation as a chain's, only the
 * destination moves. */
static void
prepare_source (GcgFrameBatch *self, guint i, const GcgFrameParams *params,
    guint64 dst, guint first_item)
{
  const GcgFrameChainConfig *chain = &self->chains[i];
  guint n_items;

  /* What gcg__frame_prepare_static() would make: the slot's fields, and
   * zeroed items past those written up to max_rois, all that is staged
   * (the items past max_rois stay as g_new0() left them: never written). */
  memcpy (self->kp, self->statics + (gsize) i * KP_HEAD, KP_HEAD);
  gcg__frame_prepare_frame (chain, params, self->kp);
  n_items = (guint) self->kp->n_items; /* 1 to max_rois: check_batch() */
  memset (&self->kp->items[n_items], 0,
      (self->config.max_rois - n_items) * sizeof (GcgFrameItem));
  self->kp->dst[0] = dst + (guint64) first_item * self->item_size;
  if (self->backend == GCG_BACKEND_CPU)
    gcg__frame_cpu_run (chain, self->kp);
}

/* The source rectangles of the items just prepared (self->kp), from slot
 * @first on, for the postprocess (at most GCG_POSTPROCESS_MAX_ITEMS
 * items: gcg_frame_batch_set_postprocess()). */
static void
keep_rects (GcgFrameBatch *self, guint first)
{
  for (guint j = 0;
      j < (guint) self->kp->n_items && first + j < GCG_POSTPROCESS_MAX_ITEMS;
      j++) {
    const GcgFrameItem *it = &self->kp->items[j];

    self->pp_rects[first + j] = (GcgRect) { it->cx, it->cy, it->cw, it->ch };
  }
}

/* Zeroes the items past the @items written: a model reads the whole
 * tensor, and a reused output buffer must not show an earlier batch's
 * items (nor a fresh one leftover memory). */
static gboolean
clear_tail (GcgFrameBatch *self, guint64 dst, guint items, GcgStream *stream,
    GError **error)
{
  guint total = self->config.max_sources * self->config.max_rois;
  gsize offset = (gsize) items * self->item_size;
  gsize bytes;

  if (items >= total)
    return TRUE;
  bytes = (gsize) (total - items) * self->item_size;
  if (self->backend == GCG_BACKEND_CPU) {
    memset ((guint8 *) (guintptr) dst + offset, 0, bytes);
    return TRUE;
  }
  return GCG_CU_OK (error, cuMemsetD8Async, dst + offset, 0, bytes,
      gcg__stream_get_cu (stream));
}

/**
 * gcg_frame_batch_process:
 * @self: a #GcgFrameBatch
 * @n_sources: how many sources this batch holds (1 to max_sources)
 * @sources: (array length=n_sources): each source's video description
 * @params: (array length=n_sources): each source's frame values, as for
 *   gcg_frame_chain_process(): plane addresses are device pointers for the
 *   CUDA backend, host pointers for the CPU backend; no ROIs means one item
 *   for the whole frame; the destination fields are ignored
 * @dst: where the tensor goes (device address for the CUDA backend, host
 *   address for the CPU backend), at least
 *   gcg_frame_batch_config_get_output_size() bytes
 * @stream: (nullable): the stream to run on (CUDA backend, required);
 *   ignored by the CPU backend
 * @n_items: (out) (optional): the number of items written
 * @error: return location for a #GError, or %NULL
 *
 * Writes one batch: source 0's items (its ROIs in order, or one), then
 * source 1's, and so on, each item equal to what a #GcgFrameChain with
 * the same configuration writes for that frame.  Items past the last one
 * written are zeroed (bytes of value 0), so the whole tensor is written.  Every source and its values are checked
 * first; on %GCG_ERROR_INVALID_ARGUMENT (the message names the source)
 * nothing runs and nothing changes.  The CUDA backend then queues one
 * copy of the batch's values and the replay (the capture too, on a
 * stream's first batch) and returns without waiting; the CPU backend has
 * written the tensor when it returns.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_frame_batch_process (GcgFrameBatch *self, guint n_sources,
    const GcgFrameBatchSource *sources, const GcgFrameParams *params,
    guint64 dst, GcgStream *stream, guint *n_items, GError **error)
{
  GcgFrameBatchHeader *header;
  guint items = 0;
  /* Where the items go: the output, or a model's input. */
  guint64 tensor;

  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), FALSE);
  g_return_val_if_fail (n_sources == 0 || sources != NULL, FALSE);
  g_return_val_if_fail (n_sources == 0 || params != NULL, FALSE);
  g_return_val_if_fail (self->backend == GCG_BACKEND_CPU
          || GCG_IS_STREAM (stream),
      FALSE);

  if (!check_batch (self, n_sources, sources, params, dst, error))
    return FALSE;
  tensor = self->model ? self->model_input : dst;
  header = (GcgFrameBatchHeader *) self->staging;
  header->n_sources = (gint32) n_sources;
  for (guint i = 0; i < n_sources; i++) {
    prepare_source (self, i, &params[i], tensor, items);
    memcpy (self->staging + sizeof (*header) + i * self->stride, self->kp,
        self->stride);
    if (self->pp_stage != NULL)
      keep_rects (self, items);
    items += (guint) self->kp->n_items;
  }
  if (n_items != NULL)
    *n_items = items;
  if (self->backend == GCG_BACKEND_CUDA) {
    g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

    const GcgFrameStageIo *io = self->view == NULL
        ? NULL
        : gcg__frame_batch_view_io (self->view, tensor, items, self->lookup,
              self->lookup_data);

    if (self->model != NULL)
      gcg__frame_batch_view_set_output (self->view, dst,
          gcg__model_stage_get_output_size (self->model_stage));
    if (self->pp_stage != NULL)
      gcg__frame_batch_view_set_results (self->view, self->pp_rects,
          n_sources > 0 ? params[0].results : 0);
    /* A model's unused input items are zeroed by its stage, before it
     * runs. */
    return gcg__kernel_replay_run_io (self->replay, self->staging, io, stream,
               self->use_graph, error)
        && (self->model != NULL
            || (gcg__context_guard_enter (&guard,
                    gcg_stream_get_context (stream), error)
                && clear_tail (self, dst, items, stream, error)));
  }
  self->cpu_batches++;
  return clear_tail (self, dst, items, NULL, error);
}

/* Appends @stage (owned, freed on failure) after the batch's op, in the
 * same graph; before the first batch, CUDA backend only. */
gboolean
gcg__frame_batch_add_stage (GcgFrameBatch *self, GcgFrameStage *stage,
    GError **error)
{
  if (self->backend != GCG_BACKEND_CUDA) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "A %s stage needs the CUDA backend", stage->klass->name);
    gcg__frame_stage_free (stage);
    return FALSE;
  }
  if (self->view == NULL)
    self->view = gcg__frame_batch_view_new (&self->config);
  return gcg__kernel_replay_add_stage (self->replay, stage, error);
}

/* Ends the batch in @model (referenced) whose @stage (added already)
 * copies its outputs out. */
void
gcg__frame_batch_set_model (GcgFrameBatch *self, GcgModelGraph *model,
    GcgFrameStage *stage)
{
  g_set_object (&self->model, model);
  self->model_stage = stage;
  gcg_model_graph_get_input (model, &self->model_input, NULL, NULL);
}

/* Ends the batch in the postprocess @stage (added already). */
void
gcg__frame_batch_set_postprocess (GcgFrameBatch *self, GcgFrameStage *stage,
    const GcgPostprocessConfig *config)
{
  self->pp_stage = stage;
  self->pp_config = *config;
}

GcgFrameStage *
gcg__frame_batch_peek_postprocess (GcgFrameBatch *self,
    GcgPostprocessConfig *config)
{
  if (config != NULL && self->pp_stage != NULL)
    *config = self->pp_config;
  return self->pp_stage;
}

GcgModelGraph *
gcg__frame_batch_peek_model (GcgFrameBatch *self, GcgFrameStage **stage)
{
  if (stage)
    *stage = self->model_stage;
  return self->model;
}

/* The batch's context: %NULL on the CPU backend. */
GcgContext *
gcg__frame_batch_get_context (GcgFrameBatch *self)
{
  return self->replay ? gcg__kernel_replay_get_context (self->replay) : NULL;
}

/* Where the stages find a batch's named values: called on the streaming
 * thread during gcg_frame_batch_process(); %NULL for none. */
void
gcg__frame_batch_set_value_lookup (GcgFrameBatch *self,
    GcgFrameValueLookup lookup, gpointer user_data)
{
  self->lookup = lookup;
  self->lookup_data = user_data;
}

/**
 * gcg_frame_batch_get_capture_count:
 * @self: a #GcgFrameBatch
 *
 * Counts the graphs the batch captured.
 *
 * Returns: the number of graphs captured (one per stream, unless a capture
 *   failed and was tried again)
 *
 * Since: 0.1
 */
guint64
gcg_frame_batch_get_capture_count (GcgFrameBatch *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), 0);
  return gcg__kernel_replay_get_captures (self->replay);
}

/**
 * gcg_frame_batch_get_replay_count:
 * @self: a #GcgFrameBatch
 *
 * Counts the batches run by replaying a graph.
 *
 * Returns: the number of batches run by launching a graph
 *
 * Since: 0.1
 */
guint64
gcg_frame_batch_get_replay_count (GcgFrameBatch *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), 0);
  return gcg__kernel_replay_get_replays (self->replay);
}

/**
 * gcg_frame_batch_get_eager_count:
 * @self: a #GcgFrameBatch
 *
 * Counts the batches run without a graph.
 *
 * Returns: the number of batches run without a graph: eager kernel
 *   launches, and every batch of the CPU backend
 *
 * Since: 0.1
 */
guint64
gcg_frame_batch_get_eager_count (GcgFrameBatch *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), 0);
  return gcg__kernel_replay_get_eager (self->replay) + self->cpu_batches;
}
