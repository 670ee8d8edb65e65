/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A batch is checked through the frame chain's own rules: each source
 * with the batch's output makes one GcgFrameChainConfig, so a source a
 * chain refuses, a batch refuses too, with the same message.
 */
#include "gcg-frame-batch-private.h"
#include "gcg-error.h"

#include <string.h>

G_DEFINE_BOXED_TYPE (GcgFrameBatchConfig, gcg_frame_batch_config,
    gcg_frame_batch_config_copy, gcg_frame_batch_config_free)
G_DEFINE_BOXED_TYPE (GcgFrameBatchSource, gcg_frame_batch_source,
    gcg_frame_batch_source_copy, gcg_frame_batch_source_free)

/**
 * gcg_frame_batch_config_init:
 * @config: (out caller-allocates): the configuration to fill
 *
 * Sets the defaults: 640×640 float32 NCHW RGB items, bilinear, symmetric
 * letterbox, one source of one item.
 *
 * Since: 0.1
 */
void
gcg_frame_batch_config_init (GcgFrameBatchConfig *config)
{
  g_return_if_fail (config != NULL);

  memset (config, 0, sizeof (*config));
  config->out_width = 640;
  config->out_height = 640;
  config->resize = GCG_RESIZE_BILINEAR;
  config->letterbox = GCG_LETTERBOX_SYMMETRIC;
  config->tensor_layout = GCG_TENSOR_LAYOUT_NCHW;
  config->tensor_type = GCG_TENSOR_TYPE_FLOAT32;
  config->tensor_channels = GCG_TENSOR_CHANNELS_RGB;
  config->max_sources = 1;
  config->max_rois = 1;
}

/**
 * gcg_frame_batch_config_new:
 *
 * Allocates a configuration with the defaults.
 *
 * Returns: (transfer full): a configuration with the defaults of
 *   gcg_frame_batch_config_init()
 *
 * Since: 0.1
 */
GcgFrameBatchConfig *
gcg_frame_batch_config_new (void)
{
  GcgFrameBatchConfig *config = g_new (GcgFrameBatchConfig, 1);

  gcg_frame_batch_config_init (config);
  return config;
}

/**
 * gcg_frame_batch_config_copy:
 * @config: a #GcgFrameBatchConfig
 *
 * Copies a #GcgFrameBatchConfig.
 *
 * Returns: (transfer full): a newly allocated copy of @config
 *
 * Since: 0.1
 */
GcgFrameBatchConfig *
gcg_frame_batch_config_copy (const GcgFrameBatchConfig *config)
{
  g_return_val_if_fail (config != NULL, NULL);
  return g_memdup2 (config, sizeof (*config));
}

/**
 * gcg_frame_batch_config_free:
 * @config: (nullable): a #GcgFrameBatchConfig from
 *   gcg_frame_batch_config_new() or gcg_frame_batch_config_copy()
 *
 * Frees @config.
 *
 * Since: 0.1
 */
void
gcg_frame_batch_config_free (GcgFrameBatchConfig *config)
{
  g_free (config);
}

/**
 * gcg_frame_batch_source_copy:
 * @source: a #GcgFrameBatchSource
 *
 * Copies a #GcgFrameBatchSource.
 *
 * Returns: (transfer full): a newly allocated copy of @source
 *
 * Since: 0.1
 */
GcgFrameBatchSource *
gcg_frame_batch_source_copy (const GcgFrameBatchSource *source)
{
  g_return_val_if_fail (source != NULL, NULL);
  return g_memdup2 (source, sizeof (*source));
}

/**
 * gcg_frame_batch_source_free:
 * @source: (nullable): a #GcgFrameBatchSource from
 *   gcg_frame_batch_source_copy()
 *
 * Frees @source.
 *
 * Since: 0.1
 */
void
gcg_frame_batch_source_free (GcgFrameBatchSource *source)
{
  g_free (source);
}

/* The chain configuration that one source of the batch runs as. */
void
gcg__frame_batch_chain_config (const GcgFrameBatchConfig *config,
    const GcgFrameBatchSource *source, GcgFrameChainConfig *chain)
{
  gcg_frame_chain_config_init (chain);
  chain->in_format = source->format;
  chain->in_width = source->width;
  chain->in_height = source->height;
  chain->matrix = source->matrix;
  chain->full_range = source->full_range;
  chain->output = GCG_OUTPUT_KIND_TENSOR;
  chain->out_width = config->out_width;
  chain->out_height = config->out_height;
  chain->resize = config->resize;
  chain->letterbox = config->letterbox;
  chain->tensor_layout = config->tensor_layout;
  chain->tensor_type = config->tensor_type;
  chain->tensor_channels = config->tensor_channels;
  chain->max_rois = config->max_rois;
}

/* Any valid source, to check the output half of a batch configuration. */
/* What one GcgParamBlock field holds (gcg-param-block.c). */
#define GCG_FRAME_BATCH_MAX_PARAMS_SIZE (64 * 1024)

static const GcgFrameBatchSource probe_source = { GCG_PIXEL_FORMAT_RGBA, 16, 16,
  GCG_COLOR_MATRIX_BT601, FALSE };

/**
 * gcg_frame_batch_config_validate:
 * @config: the configuration to check
 * @error: return location for a #GError, or %NULL
 *
 * Checks the output item as gcg_frame_chain_config_validate() does, the
 * source and ROI counts, that the largest batch's tensor stays within
 * %GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES, and that its per-batch values fit in
 * one 64 KiB parameter struct (16 sources of 64 ROIs, or 64 sources of 15
 * ROIs, do; 64 of 64 do not).
 *
 * Returns: %TRUE when @config is usable, otherwise %FALSE with @error set
 *   (%GCG_ERROR_INVALID_ARGUMENT)
 *
 * Since: 0.1
 */
gboolean
gcg_frame_batch_config_validate (const GcgFrameBatchConfig *config,
    GError **error)
{
  GcgFrameChainConfig chain;
  guint64 bytes;

  g_return_val_if_fail (config != NULL, FALSE);

  if (config->max_sources < 1
      || config->max_sources > GCG_FRAME_BATCH_MAX_SOURCES) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Frame batch config: max_sources = %u is not within 1 to %d",
        config->max_sources, GCG_FRAME_BATCH_MAX_SOURCES);
    return FALSE;
  }
  gcg__frame_batch_chain_config (config, &probe_source, &chain);
  if (!gcg_frame_chain_config_validate (&chain, error))
    return FALSE;
  bytes = (guint64) gcg_frame_chain_config_get_output_size (&chain)
      * config->max_sources;
  if (bytes > GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Frame batch config: %u sources × %u items of %u×%u make a %" G_GUINT64_FORMAT
        "-byte tensor, more than the %" G_GUINT64_FORMAT " bytes allowed",
        config->max_sources, config->max_rois, config->out_width,
        config->out_height, bytes, GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES);
    return FALSE;
  }
  if (gcg__frame_batch_params_size (config) > GCG_FRAME_BATCH_MAX_PARAMS_SIZE) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Frame batch config: %u sources × %u ROIs need more per-batch "
        "values than one batch carries (%d bytes); use fewer sources or "
        "ROIs per source",
        config->max_sources, config->max_rois, GCG_FRAME_BATCH_MAX_PARAMS_SIZE);
    return FALSE;
  }
  return TRUE;
}

/* The bytes of a batch's device struct: the header, then each source's
 * kernel struct cut after its max_rois items. */
gsize
gcg__frame_batch_params_size (const GcgFrameBatchConfig *config)
{
  return sizeof (GcgFrameBatchHeader)
      + (gsize) config->max_sources * gcg__frame_batch_params_stride (config);
}

gsize
gcg__frame_batch_params_stride (const GcgFrameBatchConfig *config)
{
  return G_STRUCT_OFFSET (GcgFrameKernelParams, items)
      + (gsize) config->max_rois * sizeof (GcgFrameItem);
}

/**
 * gcg_frame_batch_config_get_item_size:
 * @config: a valid #GcgFrameBatchConfig
 *
 * Computes the size of one tensor item.
 *
 * Returns: the bytes of one tensor item (C×H×W elements), 0 for an
 *   invalid @config
 *
 * Since: 0.1
 */
gsize
gcg_frame_batch_config_get_item_size (const GcgFrameBatchConfig *config)
{
  GcgFrameChainConfig chain;

  g_return_val_if_fail (config != NULL, 0);

  if (!gcg_frame_batch_config_validate (config, NULL))
    return 0;
  gcg__frame_batch_chain_config (config, &probe_source, &chain);
  return gcg_frame_chain_config_get_output_size (&chain) / config->max_rois;
}

/**
 * gcg_frame_batch_config_get_output_size:
 * @config: a valid #GcgFrameBatchConfig
 *
 * Computes the size of the largest batch's tensor.
 *
 * Returns: the bytes of the largest batch's tensor: max_sources ×
 *   max_rois items; 0 for an invalid @config
 *
 * Since: 0.1
 */
gsize
gcg_frame_batch_config_get_output_size (const GcgFrameBatchConfig *config)
{
  g_return_val_if_fail (config != NULL, 0);
  return gcg_frame_batch_config_get_item_size (config) * config->max_sources
      * config->max_rois;
}

/**
 * gcg_frame_batch_source_validate:
 * @source: the source to check
 * @error: return location for a #GError, or %NULL
 *
 * Checks the format, size and matrix as gcg_frame_chain_config_validate()
 * checks a chain's input.
 *
 * Returns: %TRUE when @source is usable, otherwise %FALSE with @error set
 *   (%GCG_ERROR_INVALID_ARGUMENT)
 *
 * Since: 0.1
 */
gboolean
gcg_frame_batch_source_validate (const GcgFrameBatchSource *source,
    GError **error)
{
  GcgFrameBatchConfig config;
  GcgFrameChainConfig chain;

  g_return_val_if_fail (source != NULL, FALSE);

  gcg_frame_batch_config_init (&config);
  config.out_width = config.out_height = 16;
  gcg__frame_batch_chain_config (&config, source, &chain);
  return gcg_frame_chain_config_validate (&chain, error);
}
