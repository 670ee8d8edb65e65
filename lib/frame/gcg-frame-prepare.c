/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Host-side preparation of GcgFrameKernelParams, shared by both backends:
 * the checks of a frame's values, the clipped crops, the letterbox fits,
 * the float32 ratios and the colour coefficients.  Built with
 * -ffp-contract=off like the CPU reference: these floats feed every pixel
 * of both backends, so they must be computed once, one way.
 */
#include "gcg-frame-private.h"
#include "gcg-rect-private.h"
#include "gcg-error.h"

#include <math.h>
#include <string.h>

G_STATIC_ASSERT ((gint) GCG_PIXEL_FORMAT_NV12 == GCG_FKP_NV12);
G_STATIC_ASSERT ((gint) GCG_PIXEL_FORMAT_I420 == GCG_FKP_I420);
G_STATIC_ASSERT ((gint) GCG_PIXEL_FORMAT_RGBA == GCG_FKP_RGBA);
G_STATIC_ASSERT ((gint) GCG_PIXEL_FORMAT_BGRA == GCG_FKP_BGRA);
G_STATIC_ASSERT ((gint) GCG_PIXEL_FORMAT_RGB == GCG_FKP_RGB);
G_STATIC_ASSERT ((gint) GCG_PIXEL_FORMAT_BGR == GCG_FKP_BGR);
G_STATIC_ASSERT ((gint) GCG_PIXEL_FORMAT_GRAY8 == GCG_FKP_GRAY8);
G_STATIC_ASSERT ((gint) GCG_RESIZE_NEAREST == GCG_FKP_NEAREST);
G_STATIC_ASSERT ((gint) GCG_RESIZE_BILINEAR == GCG_FKP_BILINEAR);
G_STATIC_ASSERT ((gint) GCG_TENSOR_LAYOUT_NCHW == GCG_FKP_NCHW);
G_STATIC_ASSERT ((gint) GCG_TENSOR_LAYOUT_NHWC == GCG_FKP_NHWC);
G_STATIC_ASSERT ((gint) GCG_TENSOR_TYPE_FLOAT32 == GCG_FKP_FLOAT32);
G_STATIC_ASSERT ((gint) GCG_TENSOR_TYPE_FLOAT16 == GCG_FKP_FLOAT16);
G_STATIC_ASSERT ((gint) GCG_TENSOR_TYPE_UINT8 == GCG_FKP_UINT8);
G_STATIC_ASSERT ((gint) GCG_TENSOR_CHANNELS_RGB == GCG_FKP_CH_RGB);
G_STATIC_ASSERT ((gint) GCG_TENSOR_CHANNELS_BGR == GCG_FKP_CH_BGR);
G_STATIC_ASSERT ((gint) GCG_TENSOR_CHANNELS_GRAY == GCG_FKP_CH_GRAY);
G_STATIC_ASSERT (GCG_FRAME_CHAIN_MAX_ROIS == GCG_FRAME_KP_MAX_ITEMS);

/* Coefficients are worked out in double and rounded to float32 once, so
 * both backends read the very same constants. */
static void
prepare_colour (const GcgFrameChainConfig *config, GcgFrameKernelParams *kp)
{
  gdouble kr = config->matrix == GCG_COLOR_MATRIX_BT709 ? 0.2126 : 0.299;
  gdouble kb = config->matrix == GCG_COLOR_MATRIX_BT709 ? 0.0722 : 0.114;
  gdouble kg = 1.0 - kr - kb;
  gdouble y_range = config->full_range ? 1.0 : 219.0 / 255.0;
  gdouble c_range = config->full_range ? 1.0 : 224.0 / 255.0;

  kp->in_y_off = config->full_range ? 0.0f : 16.0f;
  kp->in_y_scale = (gfloat) (1.0 / y_range);
  kp->in_c_scale = (gfloat) (1.0 / c_range);
  kp->crv = (gfloat) (2.0 * (1.0 - kr));
  kp->cgu = (gfloat) (2.0 * kb * (1.0 - kb) / kg);
  kp->cgv = (gfloat) (2.0 * kr * (1.0 - kr) / kg);
  kp->cbu = (gfloat) (2.0 * (1.0 - kb));
  kp->kr = (gfloat) kr;
  kp->kg = (gfloat) kg;
  kp->kb = (gfloat) kb;
  kp->out_y_scale = (gfloat) y_range;
  kp->out_y_off = kp->in_y_off;
  kp->out_u_scale = (gfloat) (c_range / (2.0 * (1.0 - kb)));
  kp->out_v_scale = (gfloat) (c_range / (2.0 * (1.0 - kr)));
}

/**
 * gcg__frame_prepare_static:
 * @config: a valid configuration
 * @kp: the struct to fill
 *
 * Fills everything that depends on the configuration only; per-frame
 * values are zeroed until gcg__frame_prepare_frame().
 */
void
gcg__frame_prepare_static (const GcgFrameChainConfig *config,
    GcgFrameKernelParams *kp)
{
  memset (kp, 0, sizeof (*kp));
  kp->in_format = config->in_format;
  kp->in_width = (gint32) config->in_width;
  kp->in_height = (gint32) config->in_height;
  kp->out_format = config->out_format;
  kp->out_width = (gint32) config->out_width;
  kp->out_height = (gint32) config->out_height;
  kp->resize = config->resize;
  kp->tensor_layout = config->tensor_layout;
  kp->tensor_type = config->tensor_type;
  kp->tensor_channels = config->tensor_channels;
  kp->n_items = 1;
  prepare_colour (config, kp);
}

/* Clips @roi (or the whole frame for NULL) to the frame (the sizes are
 * validated: at most GCG_FRAME_CHAIN_MAX_SIZE); FALSE when nothing is
 * left. */
static gboolean
clip_roi (const GcgFrameChainConfig *config, const GcgRect *roi,
    GcgFrameItem *item)
{
  GcgRect r = { 0, 0, (gint) config->in_width, (gint) config->in_height };

  if (roi != NULL) {
    r = *roi;
    if (!gcg__rect_clip_to_frame (&r, (gint) config->in_width,
            (gint) config->in_height))
      return FALSE;
  }
  item->cx = r.x;
  item->cy = r.y;
  item->cw = r.width;
  item->ch = r.height;
  return TRUE;
}

/* The rounding of a scaled size: nearest, at least 1, at most the
 * output's size. */
static gint32
fit_size (gfloat v, gint32 max)
{
  gint32 n = (gint32) floorf (v + 0.5f);

  return CLAMP (n, 1, max);
}

/* Where a @cw × @ch crop lands in a @ow × @oh output: its offset and
 * size.  One function for the chain and for mapping items back
 * (gcg-frame-item-map.c), so both see the same pixels. */
void
gcg__frame_fit (GcgLetterbox letterbox, gint32 cw, gint32 ch, gint32 ow,
    gint32 oh, gint32 *px, gint32 *py, gint32 *sw, gint32 *sh)
{
  *px = *py = 0;
  *sw = ow;
  *sh = oh;
  if (letterbox != GCG_LETTERBOX_NONE) {
    gfloat s = fminf ((gfloat) ow / (gfloat) cw, (gfloat) oh / (gfloat) ch);

    *sw = fit_size ((gfloat) cw * s, ow);
    *sh = fit_size ((gfloat) ch * s, oh);
    if (letterbox == GCG_LETTERBOX_SYMMETRIC) {
      *px = (ow - *sw) / 2;
      *py = (oh - *sh) / 2;
    }
  }
}

/* Step 2 of frame-chain.md: where the crop lands in the output. */
static void
fit_item (const GcgFrameChainConfig *config, GcgFrameItem *item)
{
  gint32 ow = (gint32) config->out_width;
  gint32 oh = (gint32) config->out_height;

  gcg__frame_fit (config->letterbox, item->cw, item->ch, ow, oh, &item->px,
      &item->py, &item->sw, &item->sh);
  item->rx = (gfloat) item->cw / (gfloat) item->sw;
  item->ry = (gfloat) item->ch / (gfloat) item->sh;
}

static gboolean
check_finite (const gchar *name, const gfloat *v, guint n, GError **error)
{
  for (guint i = 0; i < n; i++) {
    if (isfinite (v[i]))
      continue;
    if (n > 1)
      g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "Frame parameter %s[%u] is not finite (%g)", name, i, (gdouble) v[i]);
    else
      g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "Frame parameter %s is not finite (%g)", name, (gdouble) v[i]);
    return FALSE;
  }
  return TRUE;
}

static gboolean
check_values (const GcgFrameParams *params, GError **error)
{
  if (!check_finite ("gain", &params->gain, 1, error)
      || !check_finite ("contrast", &params->contrast, 1, error)
      || !check_finite ("brightness", &params->brightness, 1, error)
      || !check_finite ("gamma", &params->gamma, 1, error)
      || !check_finite ("pad", params->pad, 4, error)
      || !check_finite ("scale", params->scale, 3, error)
      || !check_finite ("offset", params->offset, 3, error))
    return FALSE;
  if (!(params->gamma > 0.0f)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Frame parameter gamma must be positive, not %g",
        (gdouble) params->gamma);
    return FALSE;
  }
  return TRUE;
}

static gboolean
check_planes (const gchar *what, GcgPixelFormat format, guint width,
    const guint64 *ptr, const gint *stride, GError **error)
{
  for (guint i = 0; i < gcg__pixel_format_n_planes (format); i++) {
    gsize row = gcg__pixel_format_row_bytes (format, i, width);

    if (ptr[i] == 0) {
      g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "Frame parameter %s[%u]: plane address missing", what, i);
      return FALSE;
    }
    if (stride[i] < 0 || (gsize) stride[i] < row) {
      g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "Frame parameter %s_stride[%u] = %d is less than a row (%" G_GSIZE_FORMAT
          " bytes)",
          what, i, stride[i], row);
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean
check_rois (const GcgFrameChainConfig *config, const GcgFrameParams *params,
    GError **error)
{
  GcgFrameItem item;

  if (params->n_rois > config->max_rois) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Frame has %u ROIs, the chain at most %u", params->n_rois,
        config->max_rois);
    return FALSE;
  }
  if (config->output == GCG_OUTPUT_KIND_VIDEO && params->n_rois > 0
      && !clip_roi (config, &params->rois[0], &item)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Crop %d,%d %dx%d has nothing inside the %ux%u frame",
        params->rois[0].x, params->rois[0].y, params->rois[0].width,
        params->rois[0].height, config->in_width, config->in_height);
    return FALSE;
  }
  return TRUE;
}

/**
 * gcg__frame_check_params:
 * @config: a valid configuration
 * @params: one frame's values
 * @error: return location for a #GError, or %NULL
 *
 * Refuses what the kernels must never see (docs/frame-chain.md, "Bad
 * input"): non-finite or non-positive-gamma values, missing planes,
 * strides shorter than a row, more ROIs than the chain has items, an
 * empty video crop.  Reads only.
 *
 * Returns: %TRUE when @params can be run
 */
gboolean
gcg__frame_check_params (const GcgFrameChainConfig *config,
    const GcgFrameParams *params, GError **error)
{
  static const gint no_stride[3] = { G_MAXINT, G_MAXINT, G_MAXINT };

  if (!check_values (params, error) || !check_rois (config, params, error)
      || !check_planes ("src", config->in_format, config->in_width, params->src,
          params->src_stride, error))
    return FALSE;
  if (config->output == GCG_OUTPUT_KIND_VIDEO)
    return check_planes ("dst", config->out_format, config->out_width,
        params->dst, params->dst_stride, error);
  /* A tensor is tightly packed: only its address matters. */
  return check_planes ("dst", GCG_PIXEL_FORMAT_GRAY8, 1, params->dst, no_stride,
      error);
}

/**
 * gcg__frame_prepare_frame:
 * @config: the configuration given to gcg__frame_prepare_static()
 * @params: values that passed gcg__frame_check_params()
 * @kp: the struct to update
 *
 * Copies one frame's values and works out each item's crop and fit.
 */
void
gcg__frame_prepare_frame (const GcgFrameChainConfig *config,
    const GcgFrameParams *params, GcgFrameKernelParams *kp)
{
  guint n_items = MAX (params->n_rois, 1);

  for (guint i = 0; i < 3; i++) {
    kp->src[i] = params->src[i];
    kp->dst[i] = params->dst[i];
    kp->src_stride[i] = params->src_stride[i];
    kp->dst_stride[i] = params->dst_stride[i];
    kp->scale[i] = params->scale[i];
    kp->offset[i] = params->offset[i];
  }
  memcpy (kp->pad, params->pad, sizeof (kp->pad));
  kp->gain = params->gain;
  kp->contrast = params->contrast;
  kp->brightness = params->brightness;
  kp->gamma = params->gamma;
  kp->apply_adjust = params->gain != 1.0f || params->contrast != 1.0f
      || params->brightness != 0.0f || params->gamma != 1.0f;
  kp->n_items = (gint32) n_items;
  for (guint n = 0; n < n_items; n++) {
    GcgFrameItem *item = &kp->items[n];

    memset (item, 0, sizeof (*item));
    if (!clip_roi (config, params->n_rois ? &params->rois[n] : NULL, item))
      item->empty = 1;
    else
      fit_item (config, item);
  }
}
