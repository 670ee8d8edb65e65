/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgFrameBatch:
 *
 * The frame engine: turns one frame from each of up to
 * #GcgFrameBatchConfig.max_sources sources (cameras, streams) into one
 * output.  A frame is a batch of one: gcg_frame_batch_new_for_frame()
 * makes a batch of one source whose description and output (a video
 * frame, or a tensor of up to #GcgFrameChainConfig.max_rois items) a
 * #GcgFrameChainConfig fixes, run with gcg_frame_batch_process_frame();
 * gcg_frame_batch_new() makes one of several sources, any of which may
 * change format, size, crop and ROIs from batch to batch, run with
 * gcg_frame_batch_process(), whose output is one tensor: each source adds
 * its ROIs, or its whole frame (or crop) as one item, each preprocessed
 * exactly as the same source would be alone, bit for bit, with the
 * arithmetic of docs/frame-chain.md (crop, resize, letterbox, colour
 * conversion and adjustment, output mapping, fused into one kernel).
 *
 * The CUDA backend captures the work into a #GcgGraph on a stream's first
 * frame or batch and only replays it afterwards.  A batch of one frame
 * runs a kernel specialised on its source's format that takes its struct
 * by value, set on the executable graph's kernel node before each replay
 * (cuGraphExecKernelNodeSetParams); a batch of several sources is
 * captured for the largest batch (max_sources × max_rois items), and how
 * many sources and items it fills and every source's format, size,
 * planes, crop and ROIs reach its kernel through one host-to-device copy
 * of a parameter struct, so partial batches, sources joining or leaving,
 * resolution changes and changing ROI counts never capture again.
 * Stages added to the engine (user kernels, the model, the postprocess)
 * run in the same replay; each stream gets its own graph, and an engine
 * serves up to 16 streams and keeps a reference to each.
 *
 * The CPU backend runs each source through the reference loops,
 * synchronously: the oracle of the GPU tests and the fallback where no
 * device is usable.
 *
 * An engine is driven from one thread at a time (the streaming thread):
 * processing takes no locks and, once a stream has been seen, allocates
 * nothing and never waits for the GPU.
 *
 * Since: 0.1
 */
#include "gcg-frame-batch-private.h"
#include "gcg-error.h"
#include "gcg-frame-engine-private.h"
#include "gcg-frame-private.h"
#include "gcg-frame-scratch-private.h"
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
  /* Backend, replay, stages, model and postprocess (gcg-frame-engine.c). */
  GcgFrameEngine engine;
  gsize item_size;

  /* A batch of one frame (gcg_frame_batch_new_for_frame()): chains[0] is
   * its source and output, fixed; its kernel takes *kp by value, of
   * which kp_used bytes are read (the items past max_rois never are: 304
   * bytes instead of 3328 for one item), static fields filled once. */
  gboolean one_frame;
  gsize kp_used;
  /* The input's scratch copy, with stages before the built-in op. */
  GcgFrameScratch *scratch;
  /* No built-in op (gcg__frame_batch_new_stages_only()): the stages
   * alone, the first reading the frame's input planes. */
  gboolean stages_only;

  /* Several sources: the device struct staged for the batch being
   * processed, a GcgFrameBatchHeader, then one cut GcgFrameKernelParams
   * per source. */
  guint8 *staging;
  gsize staging_size;
  gsize stride;
  /* One source's whole struct, prepared before it is cut into staging. */
  GcgFrameKernelParams *kp;
  /* Each source of the batch being processed as one frame of it sees it:
   * made once by the checks, used again by the preparation. */
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

  /* With stages after the op: their view of a batch. */
  GcgFrameBatchView *view;
};

G_DEFINE_FINAL_TYPE (GcgFrameBatch, gcg_frame_batch, G_TYPE_OBJECT)

static const GcgFrameStageIo *view_io (GcgFrameBatch *self, guint64 tensor,
    guint64 dst, guint n_items, guint64 results);

static void
gcg_frame_batch_finalize (GObject *object)
{
  GcgFrameBatch *self = GCG_FRAME_BATCH (object);

  gcg__frame_engine_clear (&self->engine);
  g_clear_pointer (&self->scratch, gcg__frame_scratch_free);
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
  self->engine.use_graph = TRUE;
  self->kp = g_new0 (GcgFrameKernelParams, 1);
}

/* One or several output pixels per thread (gcg__frame_kernel_launch(): a
 * full batch takes several); grid.z is source × max_rois + item.  The
 * kernels are instantiated per resize method and element type; each
 * block runs the code specialised on its source's input format (see
 * gcg-frame-kernels.cu). */
static void
pick_batch_kernel (const GcgFrameBatchConfig *c, const guint block[2],
    guint grid[3], gchar *name, gsize size)
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
  self->item_size = gcg_frame_batch_config_get_item_size (config);
  self->engine.out_size = gcg_frame_batch_config_get_output_size (config);
  self->engine.tensor = (GcgModelStageTensor) { self->engine.out_size,
    config->max_sources * config->max_rois, config->out_width,
    config->out_height, config->tensor_type };
  /* Bounded by the config check: at most 64 KiB. */
  self->stride = gcg__frame_batch_params_stride (config);
  self->staging_size = gcg__frame_batch_params_size (config);
  self->staging = g_malloc0 (self->staging_size);
  self->statics = g_malloc0 ((gsize) config->max_sources * KP_HEAD);
  header = (GcgFrameBatchHeader *) self->staging;
  header->stride = (gint32) self->stride;
  header->max_items = (gint32) config->max_rois;
  pick_batch_kernel (config, block, grid, name, sizeof (name));
  /* A batch's struct (up to 64 KiB) is too large for kernel arguments:
   * the batch kernels read it from the parameter block. */
  if (!gcg__frame_engine_open (&self->engine, backend, context, name, grid,
          block, self->staging_size, 0, error))
    return NULL;
  return g_steal_pointer (&self);
}

/* The kernel and launch grid of a batch of one frame of @c: one or several
 * output pixels per thread (gcg__frame_kernel_launch()), one thread per
 * 2x2 block for 4:2:0 outputs; grid.z is the tensor item.  The kernels
 * are instantiated per input format and resize method (tensors also per
 * element type) and named after those values (the GCG_FKP_* enums, equal
 * to the config's; see gcg-frame-kernels.cu). */
static void
pick_frame_kernel (const GcgFrameChainConfig *c, const guint block[2],
    guint grid[3], gchar *name, gsize size)
{
  gchar suffix[32];

  grid[2] = 1;
  if (c->output == GCG_OUTPUT_KIND_TENSOR) {
    grid[2] = c->max_rois;
    g_snprintf (suffix, sizeof (suffix), "%d_%d_%d", (gint) c->in_format,
        (gint) c->resize, (gint) c->tensor_type);
    gcg__frame_kernel_launch ("tensor", suffix, c->out_width, c->out_height,
        c->max_rois, GCG_FK_TENSOR_ROWS, block, grid, name, size);
  } else if (gcg__pixel_format_is_yuv420 (c->out_format)) {
    grid[0] = ((c->out_width + 1) / 2 + block[0] - 1) / block[0];
    grid[1] = ((c->out_height + 1) / 2 + block[1] - 1) / block[1];
    g_snprintf (name, size, "gcg_frame_yuv420_%d_%d", (gint) c->in_format,
        (gint) c->resize);
  } else {
    g_snprintf (suffix, sizeof (suffix), "%d_%d", (gint) c->in_format,
        (gint) c->resize);
    gcg__frame_kernel_launch ("video", suffix, c->out_width, c->out_height, 1,
        GCG_FK_VIDEO_ROWS, block, grid, name, size);
  }
}

/* A batch of one frame of @config (valid): its one source and its output
 * fixed, the engine told what it writes (a video frame, or a tensor of
 * max_rois items), the struct's static fields made once. */
static GcgFrameBatch *
new_one_frame (const GcgFrameChainConfig *config)
{
  GcgFrameBatch *self = g_object_new (GCG_TYPE_FRAME_BATCH, NULL);
  gsize out_size = gcg_frame_chain_config_get_output_size (config);

  self->one_frame = TRUE;
  self->chains[0] = *config;
  self->described[0] = (GcgFrameBatchSource) { config->in_format,
    config->in_width, config->in_height, config->matrix, config->full_range };
  self->validated[0] = TRUE;
  self->config = (GcgFrameBatchConfig) { config->out_width, config->out_height,
    config->resize, config->letterbox, config->tensor_layout,
    config->tensor_type, config->tensor_channels, 1, config->max_rois };
  self->engine.out_size = out_size;
  if (config->output == GCG_OUTPUT_KIND_TENSOR) {
    self->item_size = out_size / config->max_rois;
    self->engine.tensor = (GcgModelStageTensor) { out_size, config->max_rois,
      config->out_width, config->out_height, config->tensor_type };
  }
  self->kp_used = KP_HEAD + (gsize) config->max_rois * sizeof (GcgFrameItem);
  gcg__frame_prepare_static (config, self->kp);
  return self;
}

/**
 * gcg_frame_batch_new_for_frame:
 * @config: the frame's description and the output (copied)
 * @backend: where to run
 * @context: (nullable): the #GcgContext of the CUDA backend; %NULL makes
 *   %GCG_BACKEND_AUTO pick the CPU
 * @error: return location for a #GError, or %NULL
 *
 * Makes a batch of one frame: one source, described by @config's input
 * fields, turned into a video frame or a tensor of up to
 * @config->max_rois items (its ROIs).  Changing any field of @config
 * means a new batch (a new capture); everything per frame lives in
 * #GcgFrameParams, given to gcg_frame_batch_process_frame().  The CUDA
 * backend looks up its kernel now, specialised on the input format;
 * %GCG_BACKEND_AUTO falls back to the CPU when @context is %NULL or CUDA
 * is unusable, and never fails for that.  The CPU backend ignores
 * @context.
 *
 * Returns: (transfer full) (nullable): the batch, or %NULL with @error set
 *   (%GCG_ERROR_INVALID_ARGUMENT for a bad @config)
 *
 * Since: 0.3
 */
GcgFrameBatch *
gcg_frame_batch_new_for_frame (const GcgFrameChainConfig *config,
    GcgBackend backend, GcgContext *context, GError **error)
{
  g_autoptr (GcgFrameBatch) self = NULL;
  const guint block[2] = { BLOCK_W, BLOCK_H };
  guint grid[3];
  gchar name[64];

  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (backend <= GCG_BACKEND_CPU, NULL);
  g_return_val_if_fail (context == NULL || GCG_IS_CONTEXT (context), NULL);

  if (!gcg_frame_chain_config_validate (config, error))
    return NULL;
  self = new_one_frame (config);
  pick_frame_kernel (config, block, grid, name, sizeof (name));
  /* The frame kernels take the whole struct by value; self->kp is one. */
  if (!gcg__frame_engine_open (&self->engine, backend, context, name, grid,
          block, self->kp_used, sizeof (GcgFrameKernelParams), error))
    return NULL;
  return g_steal_pointer (&self);
}

/* A batch of one frame whose graph holds only the stages added to it (no
 * built-in kernel, no struct of its own): what cudagraphkernel runs.
 * @config still describes the frames (sizes, formats: checked per frame
 * as for any); CUDA only, since stages never run on the CPU. */
GcgFrameBatch *
gcg__frame_batch_new_stages_only (const GcgFrameChainConfig *config,
    GcgContext *context, GError **error)
{
  g_autoptr (GcgFrameBatch) self = NULL;
  const guint none[3] = { 0, 0, 0 };

  g_return_val_if_fail (config != NULL, NULL);
  g_return_val_if_fail (context == NULL || GCG_IS_CONTEXT (context), NULL);

  if (context == NULL) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "An engine without a built-in op runs stages, which need the "
        "CUDA backend and a GcgContext");
    return NULL;
  }
  if (!gcg_frame_chain_config_validate (config, error))
    return NULL;
  self = new_one_frame (config);
  self->engine.backend = GCG_BACKEND_CUDA;
  self->stages_only = TRUE;
  self->engine.replay =
      gcg__kernel_replay_new (context, NULL, none, none, 0, 0, error);
  if (self->engine.replay == NULL)
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * gcg_frame_batch_get_frame_config:
 * @self: a #GcgFrameBatch
 * @config: (out caller-allocates): where to copy the frame's configuration
 *
 * Copies the configuration a batch of one frame was made with
 * (gcg_frame_batch_new_for_frame()).
 *
 * Returns: %TRUE, or %FALSE (@config untouched) for a batch of several
 *   sources, which has none
 *
 * Since: 0.3
 */
gboolean
gcg_frame_batch_get_frame_config (GcgFrameBatch *self,
    GcgFrameChainConfig *config)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);

  if (!self->one_frame)
    return FALSE;
  *config = self->chains[0];
  return TRUE;
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
  return self->engine.backend;
}

/**
 * gcg_frame_batch_get_config:
 * @self: a #GcgFrameBatch
 * @config: (out caller-allocates): where to copy the configuration
 *
 * Copies the batch's configuration into @config.  A batch of one frame
 * has the one its #GcgFrameChainConfig amounts to (one source, its
 * max_rois items); gcg_frame_batch_get_frame_config() gives that whole
 * configuration.
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
 * @use_graph: %TRUE (the default) to capture once and replay, %FALSE to
 *   launch the kernel eagerly for every frame or batch
 *
 * Eager launches run the very same kernel with the same values (and the
 * stages on the same parameter block), for comparison, debugging and
 * benchmarks.  No effect on the CPU backend.
 *
 * Since: 0.1
 */
void
gcg_frame_batch_set_use_graph (GcgFrameBatch *self, gboolean use_graph)
{
  g_return_if_fail (GCG_IS_FRAME_BATCH (self));
  self->engine.use_graph = !!use_graph;
}

/**
 * gcg_frame_batch_get_use_graph:
 * @self: a #GcgFrameBatch
 *
 * Tells whether the CUDA backend replays a captured graph (the default)
 * or launches its kernels eagerly.
 *
 * Returns: whether the CUDA backend replays a graph
 *
 * Since: 0.1
 */
gboolean
gcg_frame_batch_get_use_graph (GcgFrameBatch *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), FALSE);
  return self->engine.use_graph;
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
 * destination moves (and the kernel is told its first item, for the
 * unused slots). */
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
  self->kp->first_item = (gint32) first_item;
  if (self->engine.backend == GCG_BACKEND_CPU)
    gcg__frame_cpu_run (chain, self->kp);
}

/* The CPU backend zeroes the items past the @items written: a reused
 * output buffer must not show an earlier batch's items (nor a fresh one
 * leftover memory).  On the CUDA backend the kernel's unused slots write
 * them, in the same replay (gcg_fk_batch_zero()). */
static void
clear_tail (GcgFrameBatch *self, guint64 dst, guint items)
{
  guint total = self->config.max_sources * self->config.max_rois;
  gsize offset = (gsize) items * self->item_size;

  if (items < total)
    memset ((guint8 *) (guintptr) dst + offset, 0,
        (gsize) (total - items) * self->item_size);
}

/* A frame's replay: the stages after the op work in place on its output
 * (or a model's input), those before it on the input's scratch copy. */
static gboolean
run_frame (GcgFrameBatch *self, const GcgFrameParams *params, GcgStream *stream,
    GError **error)
{
  GcgFrameEngine *engine = &self->engine;
  GcgFrameStageIo io = { 0 };
  GcgFrameStageIo before;

  io.config = &self->chains[0];
  io.params = params;
  io.out = params->dst[0];
  io.out_size = engine->out_size;
  /* Without a built-in op nothing was written before the first stage. */
  io.chain_out = self->stages_only ? 0 : io.out;
  io.chain_out_size = self->stages_only ? 0 : io.out_size;
  if (engine->model != NULL) {
    /* The kernel writes the model's input; stages after it work there
     * too; the model stage copies out into the frame's buffer. */
    self->kp->dst[0] = io.chain_out = engine->model_input;
    io.out_size = gcg__frame_engine_get_output_size (engine);
  }
  io.lookup = engine->lookup;
  io.lookup_data = engine->lookup_data;
  io.n_items = (guint) self->kp->n_items;
  if (engine->pp_stage != NULL) {
    gcg__frame_engine_keep_rects (engine, 0, self->kp->items, io.n_items);
    io.item_rects = engine->item_rects;
    io.results = params->results;
  }
  if (self->scratch != NULL) {
    if (!gcg__frame_scratch_redirect (self->scratch, stream, params, self->kp,
            &io, &before, error))
      return FALSE;
    io.before = &before;
  }
  return gcg__frame_engine_run (engine, self->kp, &io, stream, error);
}

/**
 * gcg_frame_batch_process_frame:
 * @self: a batch of one frame (gcg_frame_batch_new_for_frame())
 * @params: this frame's values: plane addresses are device pointers for
 *   the CUDA backend, host pointers for the CPU backend
 * @stream: (nullable): the stream to run on (CUDA backend, required);
 *   ignored by the CPU backend
 * @error: return location for a #GError, or %NULL
 *
 * Writes the output of one frame.  @params is checked first (non-finite
 * values, gamma ≤ 0, missing planes, strides shorter than a row, too many
 * ROIs, an empty video crop): on %GCG_ERROR_INVALID_ARGUMENT nothing runs
 * and nothing changes.  The CUDA backend then sets the frame's values on
 * the graph's kernel node (with stages, also queues one copy of their
 * structs) and queues the replay (the capture too, on a stream's first
 * frame) and returns without waiting; the CPU backend has written the
 * output when it returns.  Tensor items past the frame's ROIs are left
 * as they were (gcg_frame_queue_submit_frame() zeroes them; with a model
 * they are zeroed in its input).  A batch of several sources runs with
 * gcg_frame_batch_process() and is refused here with
 * %GCG_ERROR_INVALID_ARGUMENT.
 *
 * Returns: %TRUE on success, or %FALSE with @error set
 *
 * Since: 0.3
 */
gboolean
gcg_frame_batch_process_frame (GcgFrameBatch *self,
    const GcgFrameParams *params, GcgStream *stream, GError **error)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), FALSE);
  g_return_val_if_fail (params != NULL, FALSE);
  g_return_val_if_fail (self->engine.backend == GCG_BACKEND_CPU
          || GCG_IS_STREAM (stream),
      FALSE);

  if (!self->one_frame) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A batch of several sources runs with gcg_frame_batch_process()");
    return FALSE;
  }
  if (!gcg__frame_check_params (&self->chains[0], params, error))
    return FALSE;
  if (self->stages_only) {
    if (self->engine.n_stages == 0) {
      g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "An engine without a built-in op needs a stage before its "
          "first frame");
      return FALSE;
    }
    return run_frame (self, params, stream, error);
  }
  gcg__frame_prepare_frame (&self->chains[0], params, self->kp);
  if (self->engine.backend == GCG_BACKEND_CUDA)
    return run_frame (self, params, stream, error);
  gcg__frame_cpu_run (&self->chains[0], self->kp);
  self->engine.cpu_runs++;
  return TRUE;
}

/* gcg_frame_batch_process() on a batch of one frame: its one source
 * unchanged, the items at @dst, the tail zeroed as for any batch (after
 * the replay: the frame kernels write a frame's items only). */
static gboolean
process_one (GcgFrameBatch *self, guint n_sources,
    const GcgFrameBatchSource *sources, const GcgFrameParams *params,
    guint64 dst, GcgStream *stream, guint *n_items, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  GcgFrameParams frame;
  guint items;
  gsize used;

  if (n_sources != 1 || !same_source (&sources[0], &self->described[0])
      || self->chains[0].output != GCG_OUTPUT_KIND_TENSOR) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A batch of one frame takes one source, the one it was made for, "
        "into a tensor");
    return FALSE;
  }
  frame = params[0];
  frame.dst[0] = dst;
  if (!gcg_frame_batch_process_frame (self, &frame, stream, error))
    return FALSE;
  items = (guint) self->kp->n_items;
  if (n_items != NULL)
    *n_items = items;
  /* A model's unused input items are zeroed by its stage. */
  if (self->engine.model != NULL || items >= self->config.max_rois)
    return TRUE;
  if (self->engine.backend == GCG_BACKEND_CPU) {
    clear_tail (self, dst, items);
    return TRUE;
  }
  used = (gsize) items * self->item_size;
  return gcg__context_guard_enter (&guard, gcg_stream_get_context (stream),
             error)
      && GCG_CU_OK (error, cuMemsetD8Async, dst + used, 0,
          self->engine.out_size - used, gcg__stream_get_cu (stream));
}

/**
 * gcg_frame_batch_process:
 * @self: a #GcgFrameBatch
 * @n_sources: how many sources this batch holds (1 to max_sources)
 * @sources: (array length=n_sources): each source's video description
 * @params: (array length=n_sources): each source's frame values, as for
 *   gcg_frame_batch_process_frame(): plane addresses are device pointers
 *   for the CUDA backend, host pointers for the CPU backend; no ROIs means
 *   one item for the whole frame; the destination fields are ignored
 * @dst: where the tensor goes (device address for the CUDA backend, host
 *   address for the CPU backend), at least
 *   gcg_frame_batch_get_output_size() bytes (with a model, its outputs go
 *   there instead)
 * @stream: (nullable): the stream to run on (CUDA backend, required);
 *   ignored by the CPU backend
 * @n_items: (out) (optional): the number of items written
 * @error: return location for a #GError, or %NULL
 *
 * Writes one batch: source 0's items (its ROIs in order, or one), then
 * source 1's, and so on, each item equal to what a batch of one frame
 * (gcg_frame_batch_new_for_frame()) with the same configuration writes
 * for that frame.  Items past the last one written are zeroed (bytes of
 * value 0), so the whole tensor is written: on the CUDA backend by the
 * batch's kernel itself, in the same replay, so the batch is done when
 * its replay is.  Every source and its values are checked first; on
 * %GCG_ERROR_INVALID_ARGUMENT (the message names the source) nothing
 * runs and nothing changes.  The CUDA backend then queues one copy of the
 * batch's values and the replay (the capture too, on a stream's first
 * batch) and returns without waiting; the CPU backend has written the
 * tensor when it returns.
 *
 * A batch of one frame runs here too when its output is a tensor: one
 * source, the one it was made for (any other is refused with
 * %GCG_ERROR_INVALID_ARGUMENT), run as gcg_frame_batch_process_frame()
 * with its tensor at @dst; its items past the frame's are zeroed after
 * the replay (with a model, in the model's input).
 *
 * Returns: %TRUE on success, or %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
gcg_frame_batch_process (GcgFrameBatch *self, guint n_sources,
    const GcgFrameBatchSource *sources, const GcgFrameParams *params,
    guint64 dst, GcgStream *stream, guint *n_items, GError **error)
{
  GcgFrameEngine *engine = &self->engine;
  GcgFrameBatchHeader *header;
  guint items = 0;
  /* Where the items go: the output, or a model's input. */
  guint64 tensor;

  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), FALSE);
  g_return_val_if_fail (n_sources == 0 || sources != NULL, FALSE);
  g_return_val_if_fail (n_sources == 0 || params != NULL, FALSE);
  g_return_val_if_fail (engine->backend == GCG_BACKEND_CPU
          || GCG_IS_STREAM (stream),
      FALSE);

  if (self->one_frame)
    return process_one (self, n_sources, sources, params, dst, stream, n_items,
        error);
  if (!check_batch (self, n_sources, sources, params, dst, error))
    return FALSE;
  tensor = engine->model ? engine->model_input : dst;
  header = (GcgFrameBatchHeader *) self->staging;
  header->n_sources = (gint32) n_sources;
  for (guint i = 0; i < n_sources; i++) {
    prepare_source (self, i, &params[i], tensor, items);
    memcpy (self->staging + sizeof (*header) + i * self->stride, self->kp,
        self->stride);
    gcg__frame_engine_keep_rects (engine, items, self->kp->items,
        (guint) self->kp->n_items);
    items += (guint) self->kp->n_items;
  }
  if (n_items != NULL)
    *n_items = items;
  if (engine->backend == GCG_BACKEND_CUDA) {
    const GcgFrameStageIo *io = self->view == NULL
        ? NULL
        : view_io (self, tensor, dst, items,
              n_sources > 0 ? params[0].results : 0);

    /* The kernel writes the items past @items as zeros (into a model's
     * input too): nothing runs after the replay. */
    header->items = (gint32) items;
    return gcg__frame_engine_run (engine, self->staging, io, stream, error);
  }
  engine->cpu_runs++;
  clear_tail (self, dst, items);
  return TRUE;
}

/* The tensor as one chain's output: what the stages after the op (user
 * kernels' out_width, out_height and tensor fields) see of a batch. */
static GcgFrameBatchView *
view_new (const GcgFrameBatchConfig *config)
{
  GcgFrameBatchView *view = g_new0 (GcgFrameBatchView, 1);
  GcgFrameChainConfig *c = &view->config;
  GcgFrameBatchSource none;

  /* N sources: no one input size; the rest a chain's defaults. */
  gcg_frame_chain_config_init (c);
  none = (GcgFrameBatchSource) { c->in_format, 0, 0, c->matrix, c->full_range };
  gcg__frame_batch_chain_config (config, &none, c);
  c->max_rois = config->max_sources * config->max_rois;
  gcg_frame_params_init (&view->params);
  view->io.config = c;
  view->io.params = &view->params;
  view->io.out_size = gcg_frame_batch_config_get_output_size (config);
  view->io.chain_out_size = view->io.out_size;
  view->io.unused_zeroed = TRUE;
  return view;
}

/* One batch's view: the tensor at @tensor, @n_items written, numbered
 * from 0 in the order the batches run; with a model the stages' output
 * is the batch's buffer @dst, with a postprocess the items' rectangles
 * and @results. */
static const GcgFrameStageIo *
view_io (GcgFrameBatch *self, guint64 tensor, guint64 dst, guint n_items,
    guint64 results)
{
  GcgFrameBatchView *view = self->view;
  GcgFrameEngine *engine = &self->engine;

  view->params.dst[0] = tensor;
  view->params.frame_number = view->batches++;
  view->io.chain_out = view->io.out = tensor;
  view->io.n_items = n_items;
  view->io.lookup = engine->lookup;
  view->io.lookup_data = engine->lookup_data;
  if (engine->model != NULL) {
    view->io.out = dst;
    view->io.out_size = gcg__frame_engine_get_output_size (engine);
  }
  if (engine->pp_stage != NULL) {
    view->io.item_rects = engine->item_rects;
    view->io.results = results;
  }
  return &view->io;
}

/* The engine's stages see a batch through its view. */
static void
ensure_view (GcgFrameBatch *self)
{
  if (self->view == NULL && !self->one_frame)
    self->view = view_new (&self->config);
}

/* Where the stages find a batch's named values: called on the streaming
 * thread during gcg_frame_batch_process(); %NULL for none. */
void
gcg__frame_batch_set_value_lookup (GcgFrameBatch *self,
    GcgFrameValueLookup lookup, gpointer user_data)
{
  self->engine.lookup = lookup;
  self->engine.lookup_data = user_data;
}

/**
 * gcg_frame_batch_add_kernel_at:
 * @batch: a #GcgFrameBatch on the CUDA backend, before its first frame
 * @op: the user kernel
 * @position: before or after the built-in op; before only in a batch of
 *   one frame
 * @error: return location for a #GError, or %NULL
 *
 * Adds @op to @batch, captured into the same graph as the built-in op, so
 * a frame or batch stays one replay; several kernels on one side run in
 * the order they were added (at most 8 in all).  The code is loaded in
 * the batch's context now (source compiled for its device, from the
 * cache when it was compiled before).
 *
 * In a batch of one frame, after the op the kernel's `dst` planes are the
 * output (it works in place on what the op wrote) and its `src` planes
 * the input.  Before the op, its `src` planes are the input and its `dst`
 * planes a scratch copy of it (same format and size, its own pitches)
 * that the built-in op then reads instead of the input: the kernel must
 * write every pixel of it.  The grid covers the frame the kernel writes
 * (the input before, the output after) unless gcg_kernel_op_set_grid()
 * set one.
 *
 * In a batch of several sources the kernel runs over the whole batch
 * tensor: its `dst0` is the tensor (N items of out_width × out_height,
 * laid out as configured), `items` the number of items this batch wrote
 * (the rest are zeros when it runs: the batch's kernel writes them; what
 * it writes there stays), `frame` the batch's number;
 * there is no single input, so `src` fields are 0.  Unless
 * gcg_kernel_op_set_grid() set one, the grid covers one item in x and y
 * and has one z slice per item of the largest batch, so `blockIdx.z` is
 * the item: per item or over the whole tensor is the kernel's choice.
 *
 * Returns: %TRUE, or %FALSE with @error set: %GCG_ERROR_NOT_SUPPORTED on
 *   the CPU backend or before the op of a batch of several sources,
 *   %GCG_ERROR_INVALID_ARGUMENT after the first frame or past the bound,
 *   or the code's error (load, entry point)
 *
 * Since: 0.3
 */
gboolean
gcg_frame_batch_add_kernel_at (GcgFrameBatch *batch, GcgKernelOp *op,
    GcgKernelPosition position, GError **error)
{
  const GcgFrameChainConfig *frame = &batch->chains[0];
  const GcgFrameBatchConfig *c = &batch->config;
  gboolean before = position == GCG_KERNEL_POSITION_BEFORE;

  g_return_val_if_fail (GCG_IS_FRAME_BATCH (batch), FALSE);
  g_return_val_if_fail (GCG_IS_KERNEL_OP (op), FALSE);
  g_return_val_if_fail (position <= GCG_KERNEL_POSITION_AFTER, FALSE);

  if (!batch->one_frame) {
    if (before) {
      g_set_error_literal (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
          "A batch of several sources has no one input for a kernel "
          "before its op");
      return FALSE;
    }
    ensure_view (batch);
    return gcg__frame_engine_add_kernel (&batch->engine, op, c->out_width,
        c->out_height, c->max_sources * c->max_rois, FALSE, error);
  }
  /* Without a built-in op there is no before: the stages read the
   * input. */
  if (before && !batch->stages_only && batch->engine.backend == GCG_BACKEND_CUDA
      && batch->scratch == NULL
      && (batch->scratch = gcg__frame_scratch_new (
              gcg__frame_engine_get_context (&batch->engine), frame, error))
          == NULL)
    return FALSE;
  return gcg__frame_engine_add_kernel (&batch->engine, op,
      before ? frame->in_width : frame->out_width,
      before ? frame->in_height : frame->out_height, 1,
      before && !batch->stages_only, error);
}

/**
 * gcg_frame_batch_add_kernel:
 * @batch: a #GcgFrameBatch on the CUDA backend, before its first frame or
 *   batch
 * @op: the user kernel
 * @error: return location for a #GError, or %NULL
 *
 * Adds @op after the batch's op, as gcg_frame_batch_add_kernel_at() with
 * %GCG_KERNEL_POSITION_AFTER.
 *
 * Returns: %TRUE, or %FALSE with @error set, as
 *   gcg_frame_batch_add_kernel_at()
 *
 * Since: 0.2
 */
gboolean
gcg_frame_batch_add_kernel (GcgFrameBatch *batch, GcgKernelOp *op,
    GError **error)
{
  return gcg_frame_batch_add_kernel_at (batch, op, GCG_KERNEL_POSITION_AFTER,
      error);
}

/* Appends @stage (owned, freed on failure) after the built-in op, in the
 * same graph; before the first frame, CUDA backend only. */
gboolean
gcg__frame_batch_add_stage (GcgFrameBatch *self, GcgFrameStage *stage,
    GError **error)
{
  return gcg__frame_engine_add_stage (&self->engine, stage, FALSE, error);
}

/**
 * gcg_frame_batch_attach_model:
 * @self: a #GcgFrameBatch with a tensor output, on the CUDA backend,
 *   before its first frame or batch
 * @model: the model to run after the batch's kernel, its input and
 *   outputs set: its input is the whole tensor (a batch of one frame's
 *   max_rois items, or max_sources × max_rois items)
 * @keep_input: %TRUE to copy the preprocessed tensor into the output
 *   buffer too, before the model's outputs
 * @error: return location for a #GError, or %NULL
 *
 * Ends the batch in @model, in the same graph: the batch's kernel writes
 * the model's input in place (no copy), the model's graph runs as a child
 * graph node, and a copy kernel moves its outputs into the output buffer
 * (a frame's output, or the @dst of gcg_frame_batch_process()), one
 * replay per frame or batch in all.  The output buffer then holds the
 * input when @keep_input, then each output in order, each at a multiple
 * of %GCG_MODEL_GRAPH_PACK_ALIGN bytes (as
 * gcg_model_graph_get_packed_tensor() lays them out),
 * gcg_frame_batch_get_output_size() bytes in all:
 * gcg_frame_batch_get_output_tensor() says where each lies.  Items a
 * frame or batch leaves unused are zeroed in the model's input.  User
 * kernels added after the op (gcg_frame_batch_add_kernel_at()) before
 * the model is attached work on the model's input.
 *
 * The model's tensors serve one frame or batch at a time, so the batch
 * then runs on one stream only, and the model serves this batch only.
 * The batch keeps a reference to @model and, when it is freed, waits for
 * its last frame or batch before dropping it.  Call before the first
 * frame or batch.
 *
 * Returns: %TRUE, or %FALSE with @error set: %GCG_ERROR_NOT_SUPPORTED on
 *   the CPU backend or for a video output (a batch of one frame),
 *   %GCG_ERROR_INVALID_ARGUMENT for a model in another CUDA context or
 *   whose input is not the batch's tensor (size and element type), or a
 *   second model
 *
 * Since: 0.2
 */
gboolean
gcg_frame_batch_attach_model (GcgFrameBatch *self, GcgModelGraph *model,
    gboolean keep_input, GError **error)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), FALSE);
  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (model), FALSE);

  ensure_view (self);
  return gcg__frame_engine_attach_model (&self->engine, model, keep_input,
      error);
}

/**
 * gcg_frame_batch_get_model:
 * @self: a #GcgFrameBatch
 *
 * The model attached with gcg_frame_batch_attach_model().
 *
 * Returns: (transfer none) (nullable): the model, or %NULL
 *
 * Since: 0.2
 */
GcgModelGraph *
gcg_frame_batch_get_model (GcgFrameBatch *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), NULL);
  return self->engine.model;
}

/**
 * gcg_frame_batch_get_output_size:
 * @self: a #GcgFrameBatch
 *
 * The bytes each output buffer must hold: a batch of one frame's output
 * (gcg_frame_chain_config_get_output_size() of its configuration), a
 * batch of several sources' tensor
 * (gcg_frame_batch_config_get_output_size()), or with a model its outputs
 * (and input when kept) as laid out by gcg_frame_batch_attach_model().
 *
 * Returns: the output size in bytes
 *
 * Since: 0.2
 */
gsize
gcg_frame_batch_get_output_size (GcgFrameBatch *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), 0);
  return gcg__frame_engine_get_output_size (&self->engine);
}

/**
 * gcg_frame_batch_get_output_tensor:
 * @self: a #GcgFrameBatch with a model
 * @index: the tensor: 0 is the kept input when there is one, then the
 *   model's outputs in order
 * @offset: (out): where it starts in the output buffer, in bytes
 * @n_bytes: (out): its size
 *
 * Where a tensor of a model's output lies in each output buffer (a
 * frame's, or a batch's @dst), as laid out by
 * gcg_frame_batch_attach_model().
 *
 * Returns: %FALSE without a model or for an index past the last tensor
 *
 * Since: 0.3
 */
gboolean
gcg_frame_batch_get_output_tensor (GcgFrameBatch *self, guint index,
    gsize *offset, gsize *n_bytes)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), FALSE);
  g_return_val_if_fail (offset != NULL && n_bytes != NULL, FALSE);
  return gcg__frame_engine_get_output_tensor (&self->engine, index, offset,
      n_bytes);
}

/**
 * gcg_frame_batch_set_postprocess:
 * @self: a #GcgFrameBatch ending in a model
 *   (gcg_frame_batch_attach_model()), before its first frame or batch
 * @config: the postprocess (copied)
 * @error: return location for a #GError, or %NULL
 *
 * Ends the batch in a postprocess, in the same graph, after the model:
 * per frame or batch it reads the model's output @config->output_index
 * (float32: classification N × n_classes, detection N × (4 + n_classes)
 * × candidates, N the model's batch: max_rois for a batch of one frame,
 * max_sources × max_rois otherwise) for the items written, and writes
 * their results (gcg_postprocess_run_cpu() says how they are computed:
 * the GPU gives the same) into a results area: a #GcgResultsHeader then
 * the results, packed, gcg_frame_batch_get_results_size() bytes at most.
 *
 * In a batch of one frame the items are the frame's (its ROIs, or one
 * for the whole frame), the area is at the frame's
 * #GcgFrameParams.results, and the header's frame number is the frame's
 * #GcgFrameParams.frame_number.  In a batch of several sources the items
 * are the batch's slots (source 0's, then source 1's…, max_sources ×
 * max_rois at most), #GcgResult.item is the slot, the area is at its
 * first source's #GcgFrameParams.results (@params[0] of
 * gcg_frame_batch_process()), and the header's frame number is the
 * batch's number.  Either way each box is in its own source frame's
 * pixels, through its item's #GcgFrameItemMap.
 *
 * The results are written by the replay itself and are valid once the
 * frame or batch is done (its #GcgFrameQueue done callback, a fence, or
 * a stream synchronisation), with no copy of the model's output to the
 * host.  The model's outputs are still copied into the output buffer as
 * without a postprocess.
 *
 * %GCG_POSTPROCESS_NONE sets nothing.
 *
 * Returns: %TRUE, or %FALSE with @error set: %GCG_ERROR_INVALID_ARGUMENT
 *   for an invalid @config (gcg_postprocess_config_validate()), an output
 *   index past the model's, an output not shaped for the kind, more than
 *   %GCG_POSTPROCESS_MAX_ITEMS items or
 *   %GCG_POSTPROCESS_MAX_CANDIDATES candidates, or a second postprocess;
 *   %GCG_ERROR_NOT_SUPPORTED without a model (the CPU backend has none:
 *   see gcg_postprocess_run_cpu()), for an output other than float32,
 *   or for %GCG_POSTPROCESS_USER (its kernel is set with
 *   gcg_frame_batch_set_postprocess_kernel())
 *
 * Since: 0.3
 */
gboolean
gcg_frame_batch_set_postprocess (GcgFrameBatch *self,
    const GcgPostprocessConfig *config, GError **error)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);

  ensure_view (self);
  return gcg__frame_engine_set_postprocess (&self->engine, config, error);
}

/**
 * gcg_frame_batch_set_postprocess_kernel:
 * @self: a #GcgFrameBatch ending in a model
 *   (gcg_frame_batch_attach_model()), before its first frame or batch
 * @config: the postprocess (copied), of kind %GCG_POSTPROCESS_USER: its
 *   @output_index, @n_classes, @max_per_item and thresholds reach the
 *   kernel
 * @op: the user's kernel that turns the model's output into results
 * @error: return location for a #GError, or %NULL
 *
 * Ends the batch in the user's own postprocess, in the same graph, after
 * the model, as gcg_frame_batch_set_postprocess() does with a built-in
 * one: the same items (a frame's ROIs, or a batch's slots), the results
 * in the same area.  Per frame or batch the replay zeroes a count per
 * item, runs @op, then packs what it wrote into the results area (a
 * #GcgResultsHeader then the records,
 * gcg_frame_batch_get_results_size() bytes at most), valid once the
 * frame or batch is done.
 *
 * @op's parameter declaration (docs/user-kernels.md, "A postprocess
 * kernel") may read `output` (u64: the device address of the model's
 * output @config->output_index, any element type), `output_bytes`
 * (u64), `records` (u64: item i's #GcgResult records start at records +
 * i × max_results × 32 bytes; CUDA source has the `gcg_result` struct
 * declared for them), `counts` (u64: a u32 per item, zeroed before the
 * kernel, which writes how many records item i has), `max_results`
 * (i32: @config->max_per_item), `classes` (i32), `score_threshold` and
 * `iou_threshold` (f32), besides `items` (the items of this frame or
 * batch), `out_width`, `out_height` (an item's tensor size), `frame` (a
 * batch's: its number), `pts` and `meta:KEY`; no `src` or `dst` field.
 * Unless gcg_kernel_op_set_grid() and gcg_kernel_op_set_block() say
 * otherwise it runs one block of 256 threads per item of the largest
 * frame or batch (max_rois blocks for a batch of one frame, max_sources
 * × max_rois otherwise; `blockIdx.x` the item): blocks with
 * `blockIdx.x >= items` must return.
 *
 * The kernel's output is untrusted: each count is clamped to
 * max_results, each record's box, written as left, top, width and
 * height in the item's tensor pixels, is mapped to its own source
 * frame's pixels through the item's geometry (#GcgFrameItemMap, as
 * detections are), #GcgResult.item is set to the item and @reserved to
 * 0, and a NaN confidence becomes 0; the label is kept as written.
 * There is no CPU reference of a user's kernel
 * (gcg_postprocess_run_cpu() refuses it).
 *
 * Returns: %TRUE, or %FALSE with @error set:
 *   %GCG_ERROR_INVALID_ARGUMENT for a kind other than
 *   %GCG_POSTPROCESS_USER, an invalid @config, an output index past the
 *   model's, more than %GCG_POSTPROCESS_MAX_ITEMS items, a declaration
 *   that reads a `src` or `dst` field, or a second postprocess;
 *   %GCG_ERROR_NOT_SUPPORTED without a model (and on the CPU backend);
 *   @op's own errors (loading its code, its entry point)
 *
 * Since: 0.3
 */
gboolean
gcg_frame_batch_set_postprocess_kernel (GcgFrameBatch *self,
    const GcgPostprocessConfig *config, GcgKernelOp *op, GError **error)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (GCG_IS_KERNEL_OP (op), FALSE);

  ensure_view (self);
  return gcg__frame_engine_set_postprocess_kernel (&self->engine, config, op,
      error);
}

/**
 * gcg_frame_batch_get_postprocess:
 * @self: a #GcgFrameBatch
 * @config: (out caller-allocates): the postprocess set
 *
 * The postprocess set with gcg_frame_batch_set_postprocess() or
 * gcg_frame_batch_set_postprocess_kernel().
 *
 * Returns: %TRUE and @config filled, or %FALSE (and @config's kind
 *   %GCG_POSTPROCESS_NONE) when there is none
 *
 * Since: 0.3
 */
gboolean
gcg_frame_batch_get_postprocess (GcgFrameBatch *self,
    GcgPostprocessConfig *config)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), FALSE);
  g_return_val_if_fail (config != NULL, FALSE);
  return gcg__frame_engine_get_postprocess (&self->engine, config);
}

/**
 * gcg_frame_batch_get_results_size:
 * @self: a #GcgFrameBatch
 *
 * The bytes a results area (#GcgFrameParams.results: a frame's, or a
 * batch's first source's) must hold: a #GcgResultsHeader and room for
 * every item's most results (gcg_postprocess_config_get_results_size()
 * for max_rois items in a batch of one frame, max_sources × max_rois
 * otherwise).
 *
 * Returns: the size in bytes, 0 without a postprocess
 *
 * Since: 0.3
 */
gsize
gcg_frame_batch_get_results_size (GcgFrameBatch *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), 0);
  return gcg__frame_engine_get_results_size (&self->engine);
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
  return gcg__frame_engine_get_captures (&self->engine);
}

/**
 * gcg_frame_batch_get_replay_count:
 * @self: a #GcgFrameBatch
 *
 * Counts the frames or batches run by launching a captured graph.
 *
 * Returns: the number of frames or batches run by launching a graph (the
 *   first of a stream included)
 *
 * Since: 0.1
 */
guint64
gcg_frame_batch_get_replay_count (GcgFrameBatch *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), 0);
  return gcg__frame_engine_get_replays (&self->engine);
}

/**
 * gcg_frame_batch_get_eager_count:
 * @self: a #GcgFrameBatch
 *
 * Counts the frames or batches run without a graph.
 *
 * Returns: the number of frames or batches run without a graph: eager
 *   kernel launches, and every one of the CPU backend
 *
 * Since: 0.1
 */
guint64
gcg_frame_batch_get_eager_count (GcgFrameBatch *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (self), 0);
  return gcg__frame_engine_get_eager (&self->engine);
}
