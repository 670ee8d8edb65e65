/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GcgFrameChainConfig and GcgFrameParams: defaults, validation, sizes and
 * the boxed types that let bindings hold them.  A batch's configuration
 * (GcgFrameBatchConfig, GcgFrameBatchSource) is checked through the same
 * rules: each source with the batch's output makes one
 * GcgFrameChainConfig, so a source a chain refuses, a batch refuses too,
 * with the same message (the last section).
 */
#include "gcg-frame-private.h"
#include "gcg-frame-batch-private.h"
#include "gcg-dtype-private.h"
#include "gcg-enum-types.h"
#include "gcg-error.h"

#include <string.h>

#define MAX_SIZE GCG_FRAME_CHAIN_MAX_SIZE

G_DEFINE_BOXED_TYPE (GcgRect, gcg_rect, gcg_rect_copy, gcg_rect_free)
G_DEFINE_BOXED_TYPE (GcgFrameChainConfig, gcg_frame_chain_config,
    gcg_frame_chain_config_copy, gcg_frame_chain_config_free)
G_DEFINE_BOXED_TYPE (GcgFrameParams, gcg_frame_params, gcg_frame_params_copy,
    gcg_frame_params_free)

/* --- pixel formats ---------------------------------------------------- */

gboolean
gcg__pixel_format_is_yuv420 (GcgPixelFormat format)
{
  return format == GCG_PIXEL_FORMAT_NV12 || format == GCG_PIXEL_FORMAT_I420;
}

guint
gcg__pixel_format_n_planes (GcgPixelFormat format)
{
  switch (format) {
    case GCG_PIXEL_FORMAT_NV12:
      return 2;
    case GCG_PIXEL_FORMAT_I420:
      return 3;
    default:
      return 1;
  }
}

/* Bytes of one row of @plane, tightly packed; 4:2:0 chroma rounds up. */
gsize
gcg__pixel_format_row_bytes (GcgPixelFormat format, guint plane, guint width)
{
  gsize chroma = ((gsize) width + 1) / 2;

  switch (format) {
    case GCG_PIXEL_FORMAT_NV12:
      return plane == 0 ? width : 2 * chroma;
    case GCG_PIXEL_FORMAT_I420:
      return plane == 0 ? width : chroma;
    case GCG_PIXEL_FORMAT_RGBA:
    case GCG_PIXEL_FORMAT_BGRA:
      return 4 * (gsize) width;
    case GCG_PIXEL_FORMAT_RGB:
    case GCG_PIXEL_FORMAT_BGR:
      return 3 * (gsize) width;
    default:
      return width;
  }
}

guint
gcg__pixel_format_plane_height (GcgPixelFormat format, guint plane,
    guint height)
{
  return plane > 0 && gcg__pixel_format_is_yuv420 (format) ? (height + 1) / 2
                                                           : height;
}

/* --- GcgRect ---------------------------------------------------------- */

/**
 * gcg_rect_copy:
 * @rect: a #GcgRect
 *
 * Copies a #GcgRect.
 *
 * Returns: (transfer full): a newly allocated copy of @rect
 *
 * Since: 0.1
 */
GcgRect *
gcg_rect_copy (const GcgRect *rect)
{
  g_return_val_if_fail (rect != NULL, NULL);
  return g_memdup2 (rect, sizeof (*rect));
}

/**
 * gcg_rect_free:
 * @rect: (nullable): a #GcgRect from gcg_rect_copy()
 *
 * Frees @rect.
 *
 * Since: 0.1
 */
void
gcg_rect_free (GcgRect *rect)
{
  g_free (rect);
}

/* --- GcgFrameChainConfig ---------------------------------------------- */

/**
 * gcg_frame_chain_config_init:
 * @config: (out caller-allocates): the configuration to fill
 *
 * Sets the defaults: RGBA 640×480 in, BT.601 limited range, video RGBA
 * out of the same size, bilinear, no letterbox, NCHW float32 RGB tensor
 * settings, one ROI.
 *
 * Since: 0.1
 */
void
gcg_frame_chain_config_init (GcgFrameChainConfig *config)
{
  g_return_if_fail (config != NULL);

  memset (config, 0, sizeof (*config));
  config->in_format = GCG_PIXEL_FORMAT_RGBA;
  config->in_width = 640;
  config->in_height = 480;
  config->matrix = GCG_COLOR_MATRIX_BT601;
  config->full_range = FALSE;
  config->output = GCG_OUTPUT_KIND_VIDEO;
  config->out_format = GCG_PIXEL_FORMAT_RGBA;
  config->out_width = 640;
  config->out_height = 480;
  config->resize = GCG_RESIZE_BILINEAR;
  config->letterbox = GCG_LETTERBOX_NONE;
  config->tensor_layout = GCG_TENSOR_LAYOUT_NCHW;
  config->tensor_type = GCG_TENSOR_TYPE_FLOAT32;
  config->tensor_channels = GCG_TENSOR_CHANNELS_RGB;
  config->max_rois = 1;
}

/**
 * gcg_frame_chain_config_new:
 *
 * Allocates a configuration, for bindings; C code may use one on the stack
 * with gcg_frame_chain_config_init().
 *
 * Returns: (transfer full): a new configuration with the defaults of
 *   gcg_frame_chain_config_init()
 *
 * Since: 0.1
 */
GcgFrameChainConfig *
gcg_frame_chain_config_new (void)
{
  GcgFrameChainConfig *config = g_new (GcgFrameChainConfig, 1);

  gcg_frame_chain_config_init (config);
  return config;
}

/**
 * gcg_frame_chain_config_copy:
 * @config: a #GcgFrameChainConfig
 *
 * Copies a #GcgFrameChainConfig.
 *
 * Returns: (transfer full): a newly allocated copy of @config
 *
 * Since: 0.1
 */
GcgFrameChainConfig *
gcg_frame_chain_config_copy (const GcgFrameChainConfig *config)
{
  g_return_val_if_fail (config != NULL, NULL);
  return g_memdup2 (config, sizeof (*config));
}

/**
 * gcg_frame_chain_config_free:
 * @config: (nullable): a #GcgFrameChainConfig from
 *   gcg_frame_chain_config_new() or gcg_frame_chain_config_copy()
 *
 * Frees @config.
 *
 * Since: 0.1
 */
void
gcg_frame_chain_config_free (GcgFrameChainConfig *config)
{
  g_free (config);
}

static gboolean
check_enum (GType type, const gchar *field, gint value, GError **error)
{
  /* Checked for every frame: peek, and take a reference only the first
   * time (the enum classes are static types, never unloaded). */
  GEnumClass *klass = g_type_class_peek (type);

  if (klass == NULL)
    klass = g_type_class_ref (type);
  if (g_enum_get_value (klass, value) != NULL)
    return TRUE;
  g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "Frame chain config: %s = %d is not a %s", field, value,
      g_type_name (type));
  return FALSE;
}

static gboolean
check_size (const gchar *what, guint width, guint height, GError **error)
{
  if (width >= 1 && width <= MAX_SIZE && height >= 1 && height <= MAX_SIZE)
    return TRUE;
  g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "Frame chain config: %s size %ux%u is not within 1x1 to %ux%u", what,
      width, height, MAX_SIZE, MAX_SIZE);
  return FALSE;
}

static gboolean
check_enums (const GcgFrameChainConfig *c, GError **error)
{
  return check_enum (GCG_TYPE_PIXEL_FORMAT, "in_format", c->in_format, error)
      && check_enum (GCG_TYPE_COLOR_MATRIX, "matrix", c->matrix, error)
      && check_enum (GCG_TYPE_OUTPUT_KIND, "output", c->output, error)
      && check_enum (GCG_TYPE_PIXEL_FORMAT, "out_format", c->out_format, error)
      && check_enum (GCG_TYPE_RESIZE_METHOD, "resize", c->resize, error)
      && check_enum (GCG_TYPE_LETTERBOX, "letterbox", c->letterbox, error)
      && check_enum (GCG_TYPE_TENSOR_LAYOUT, "tensor_layout", c->tensor_layout,
          error)
      && check_enum (GCG_TYPE_TENSOR_TYPE, "tensor_type", c->tensor_type, error)
      && check_enum (GCG_TYPE_TENSOR_CHANNELS, "tensor_channels",
          c->tensor_channels, error);
}

/* Bytes of the output, in 64 bits: the largest valid sizes give 192 GiB,
 * more than a 32-bit gsize holds. */
static guint64
output_bytes (const GcgFrameChainConfig *config)
{
  guint64 channels = config->tensor_channels == GCG_TENSOR_CHANNELS_GRAY ? 1
                                                                         : 3;
  guint64 elem = gcg__tensor_type_get_size (config->tensor_type);
  guint64 size = 0;

  if (config->output == GCG_OUTPUT_KIND_TENSOR)
    return config->max_rois * channels * config->out_width
        * (guint64) config->out_height * elem;
  for (guint i = 0; i < gcg__pixel_format_n_planes (config->out_format); i++)
    size += (guint64) gcg__pixel_format_row_bytes (config->out_format, i,
                config->out_width)
        * gcg__pixel_format_plane_height (config->out_format, i,
            config->out_height);
  return size;
}

static gboolean
check_output_bytes (const GcgFrameChainConfig *config, GError **error)
{
  guint64 bytes = output_bytes (config);
  g_autofree gchar *str = NULL;
  g_autofree gchar *max = NULL;

  if (bytes <= GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES)
    return TRUE;
  str = g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
  max = g_format_size_full (GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES,
      G_FORMAT_SIZE_IEC_UNITS);
  g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "Frame chain config: the %s output would be %" G_GUINT64_FORMAT
      " bytes (%s), more than the limit of %s",
      config->output == GCG_OUTPUT_KIND_TENSOR ? "tensor" : "video", bytes, str,
      max);
  return FALSE;
}

/**
 * gcg_frame_chain_config_validate:
 * @config: a #GcgFrameChainConfig
 * @error: return location for a #GError, or %NULL
 *
 * Checks that every enum is in range, sizes are 1 to 16384, max_rois
 * is 1 to %GCG_FRAME_CHAIN_MAX_ROIS (exactly 1 for video output), and
 * the output is at most %GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES.
 *
 * Returns: %TRUE when @config is valid; %FALSE with
 *   %GCG_ERROR_INVALID_ARGUMENT naming the first bad field otherwise
 *
 * Since: 0.1
 */
gboolean
gcg_frame_chain_config_validate (const GcgFrameChainConfig *config,
    GError **error)
{
  g_return_val_if_fail (config != NULL, FALSE);

  if (!check_enums (config, error)
      || !check_size ("input", config->in_width, config->in_height, error)
      || !check_size ("output", config->out_width, config->out_height, error))
    return FALSE;
  if (config->max_rois < 1 || config->max_rois > GCG_FRAME_CHAIN_MAX_ROIS) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Frame chain config: max_rois = %u is not within 1 to %d",
        config->max_rois, GCG_FRAME_CHAIN_MAX_ROIS);
    return FALSE;
  }
  if (config->output == GCG_OUTPUT_KIND_VIDEO && config->max_rois != 1) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Frame chain config: a video output has one ROI, not max_rois = %u",
        config->max_rois);
    return FALSE;
  }
  return check_output_bytes (config, error);
}

/**
 * gcg_frame_chain_config_get_output_size:
 * @config: a valid #GcgFrameChainConfig
 *
 * The bytes a chain writes: the N×C×H×W tensor, or a tightly packed video
 * frame (no row padding; 4:2:0 chroma planes of (w+1)/2 × (h+1)/2).
 *
 * Returns: the output size in bytes (at most
 *   %GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES), 0 for an invalid @config
 *
 * Since: 0.1
 */
gsize
gcg_frame_chain_config_get_output_size (const GcgFrameChainConfig *config)
{
  g_return_val_if_fail (config != NULL, 0);

  if (!gcg_frame_chain_config_validate (config, NULL))
    return 0;
  return (gsize) output_bytes (config);
}

/* --- GcgFrameParams --------------------------------------------------- */

/**
 * gcg_frame_params_init:
 * @params: (out caller-allocates): the values to fill
 *
 * Zeroes every field (no planes, no ROIs: the whole frame, pad 0), then
 * sets the identity adjustment (gain 1, contrast 1, brightness 0,
 * gamma 1) and the identity tensor mapping (scale 1, offset 0).
 *
 * Since: 0.1
 */
void
gcg_frame_params_init (GcgFrameParams *params)
{
  g_return_if_fail (params != NULL);

  memset (params, 0, sizeof (*params));
  params->gain = 1.0f;
  params->contrast = 1.0f;
  params->gamma = 1.0f;
  for (guint c = 0; c < 3; c++)
    params->scale[c] = 1.0f;
}

/**
 * gcg_frame_params_new:
 *
 * Allocates per-frame values, for bindings; C code may use them on the stack
 * with gcg_frame_params_init().
 *
 * Returns: (transfer full): new values with the defaults of
 *   gcg_frame_params_init()
 *
 * Since: 0.1
 */
GcgFrameParams *
gcg_frame_params_new (void)
{
  GcgFrameParams *params = g_new (GcgFrameParams, 1);

  gcg_frame_params_init (params);
  return params;
}

/**
 * gcg_frame_params_copy:
 * @params: a #GcgFrameParams
 *
 * Copies a #GcgFrameParams.
 *
 * Returns: (transfer full): a newly allocated copy of @params
 *
 * Since: 0.1
 */
GcgFrameParams *
gcg_frame_params_copy (const GcgFrameParams *params)
{
  g_return_val_if_fail (params != NULL, NULL);
  return g_memdup2 (params, sizeof (*params));
}

/**
 * gcg_frame_params_free:
 * @params: (nullable): a #GcgFrameParams from gcg_frame_params_new() or
 *   gcg_frame_params_copy()
 *
 * Frees @params.
 *
 * Since: 0.1
 */
void
gcg_frame_params_free (GcgFrameParams *params)
{
  g_free (params);
}

/**
 * gcg_frame_params_set_mean_std:
 * @params: a #GcgFrameParams
 * @mean: (array fixed-size=3): per tensor channel mean, in 0–1 units
 * @std: (array fixed-size=3): per tensor channel standard deviation, in
 *   0–1 units, nonzero
 *
 * ImageNet-style normalisation, out = (v / 255 − mean) / std, expressed
 * as the per-channel mapping the kernels apply:
 * scale = 1 / (255 · std), offset = −mean / std (float32).  Channels are
 * in tensor order; a GRAY tensor uses index 0.
 *
 * Since: 0.1
 */
void
gcg_frame_params_set_mean_std (GcgFrameParams *params, const gfloat *mean,
    const gfloat *std)
{
  g_return_if_fail (params != NULL);
  g_return_if_fail (mean != NULL && std != NULL);

  for (guint c = 0; c < 3; c++) {
    params->scale[c] = 1.0f / (255.0f * std[c]);
    params->offset[c] = -mean[c] / std[c];
  }
}

/**
 * gcg_frame_params_set_src_plane:
 * @params: a #GcgFrameParams
 * @plane: the plane index, 0 to 2
 * @address: the plane's first byte (a device address for the CUDA
 *   backend, a host address for the CPU backend)
 * @stride: bytes from one row to the next
 *
 * Sets one input plane.  The same as writing #GcgFrameParams.src and
 * #GcgFrameParams.src_stride, for bindings that cannot write into
 * fixed-size arrays (PyGObject, for one).
 *
 * Since: 0.1
 */
void
gcg_frame_params_set_src_plane (GcgFrameParams *params, guint plane,
    guint64 address, gint stride)
{
  g_return_if_fail (params != NULL);
  g_return_if_fail (plane < 3);

  params->src[plane] = address;
  params->src_stride[plane] = stride;
}

/**
 * gcg_frame_params_set_dst_plane:
 * @params: a #GcgFrameParams
 * @plane: the plane index, 0 to 2
 * @address: the plane's first byte (a device address for the CUDA
 *   backend, a host address for the CPU backend)
 * @stride: bytes from one row to the next (ignored for tensors)
 *
 * Sets one output plane, as gcg_frame_params_set_src_plane() sets an
 * input one.
 *
 * Since: 0.1
 */
void
gcg_frame_params_set_dst_plane (GcgFrameParams *params, guint plane,
    guint64 address, gint stride)
{
  g_return_if_fail (params != NULL);
  g_return_if_fail (plane < 3);

  params->dst[plane] = address;
  params->dst_stride[plane] = stride;
}

/**
 * gcg_frame_params_set_rois:
 * @params: a #GcgFrameParams
 * @rois: (array length=n_rois) (nullable): the regions, in input pixels
 * @n_rois: how many (at most %GCG_FRAME_CHAIN_MAX_ROIS; 0: the whole
 *   frame)
 *
 * Sets the frame's ROIs, for bindings that cannot write into fixed-size
 * arrays.
 *
 * Returns: %TRUE; %FALSE (nothing changed) when @n_rois is over
 *   %GCG_FRAME_CHAIN_MAX_ROIS
 *
 * Since: 0.1
 */
gboolean
gcg_frame_params_set_rois (GcgFrameParams *params, const GcgRect *rois,
    guint n_rois)
{
  g_return_val_if_fail (params != NULL, FALSE);
  g_return_val_if_fail (n_rois == 0 || rois != NULL, FALSE);

  if (n_rois > GCG_FRAME_CHAIN_MAX_ROIS)
    return FALSE;
  memcpy (params->rois, rois, n_rois * sizeof (GcgRect));
  params->n_rois = n_rois;
  return TRUE;
}

/* --- a batch: N sources, each checked as a chain ------------------------ */

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
