/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frame layer's vocabulary: the formats, the configuration of what
 * the engine writes, one frame's values, a rectangle, the deepest queue.
 * Every file of lib/frame/ may use these words; this header includes no
 * other header of the layer, so it sits under all of them and the arrows
 * between the layer's files can point one way (tools/check-layers.py).
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-stream.h"

G_BEGIN_DECLS

/**
 * GCG_FRAME_QUEUE_MAX_DEPTH:
 *
 * Most frames a #GcgFrameQueue keeps in flight.
 *
 * Since: 0.1
 */
#define GCG_FRAME_QUEUE_MAX_DEPTH 16

/**
 * GcgPixelFormat:
 * @GCG_PIXEL_FORMAT_NV12: 4:2:0 Y plane + interleaved UV plane
 * @GCG_PIXEL_FORMAT_I420: 4:2:0 Y, U, V planes
 * @GCG_PIXEL_FORMAT_RGBA: packed 8-bit R, G, B, A
 * @GCG_PIXEL_FORMAT_BGRA: packed 8-bit B, G, R, A
 * @GCG_PIXEL_FORMAT_RGB: packed 8-bit R, G, B
 * @GCG_PIXEL_FORMAT_BGR: packed 8-bit B, G, R
 * @GCG_PIXEL_FORMAT_GRAY8: one 8-bit luma plane
 *
 * Pixel formats of video frames (names as in GStreamer's video/x-raw).
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_PIXEL_FORMAT_NV12,
  GCG_PIXEL_FORMAT_I420,
  GCG_PIXEL_FORMAT_RGBA,
  GCG_PIXEL_FORMAT_BGRA,
  GCG_PIXEL_FORMAT_RGB,
  GCG_PIXEL_FORMAT_BGR,
  GCG_PIXEL_FORMAT_GRAY8,
} GcgPixelFormat;

/**
 * GcgColorMatrix:
 * @GCG_COLOR_MATRIX_BT601: ITU-R BT.601 (Kr 0.299, Kb 0.114)
 * @GCG_COLOR_MATRIX_BT709: ITU-R BT.709 (Kr 0.2126, Kb 0.0722)
 *
 * YUV <-> RGB matrix.
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_COLOR_MATRIX_BT601,
  GCG_COLOR_MATRIX_BT709,
} GcgColorMatrix;

/**
 * GcgResizeMethod:
 * @GCG_RESIZE_NEAREST: nearest neighbour
 * @GCG_RESIZE_BILINEAR: bilinear, pixel-centre aligned, no antialiasing
 *
 * Resampling used when the crop and output sizes differ.
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_RESIZE_NEAREST,
  GCG_RESIZE_BILINEAR,
} GcgResizeMethod;

/**
 * GcgLetterbox:
 * @GCG_LETTERBOX_NONE: stretch the crop to the output size
 * @GCG_LETTERBOX_SYMMETRIC: keep the aspect ratio, pad both sides
 *   (the odd pixel goes right/bottom)
 * @GCG_LETTERBOX_TOP_LEFT: keep the aspect ratio, image at the top-left,
 *   pad right/bottom
 *
 * How the crop is fitted into the output.
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_LETTERBOX_NONE,
  GCG_LETTERBOX_SYMMETRIC,
  GCG_LETTERBOX_TOP_LEFT,
} GcgLetterbox;

/**
 * GcgOutputKind:
 * @GCG_OUTPUT_KIND_VIDEO: a video frame of #GcgFrameChainConfig.out_format
 * @GCG_OUTPUT_KIND_TENSOR: an N×C×H×W or N×H×W×C tensor, one item per ROI
 *
 * What a #GcgFrameChain writes.
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_OUTPUT_KIND_VIDEO,
  GCG_OUTPUT_KIND_TENSOR,
} GcgOutputKind;

/**
 * GcgTensorLayout:
 * @GCG_TENSOR_LAYOUT_NCHW: planar channels
 * @GCG_TENSOR_LAYOUT_NHWC: interleaved channels
 *
 * Memory layout of a tensor output.
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_TENSOR_LAYOUT_NCHW,
  GCG_TENSOR_LAYOUT_NHWC,
} GcgTensorLayout;

/**
 * GcgTensorType:
 * @GCG_TENSOR_TYPE_FLOAT32: IEEE float32
 * @GCG_TENSOR_TYPE_FLOAT16: IEEE float16 (round to nearest even)
 * @GCG_TENSOR_TYPE_UINT8: 8-bit, rounded half away from zero, saturated
 *
 * Element type of a tensor output.
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_TENSOR_TYPE_FLOAT32,
  GCG_TENSOR_TYPE_FLOAT16,
  GCG_TENSOR_TYPE_UINT8,
} GcgTensorType;

/**
 * GcgTensorChannels:
 * @GCG_TENSOR_CHANNELS_RGB: 3 channels, R first
 * @GCG_TENSOR_CHANNELS_BGR: 3 channels, B first
 * @GCG_TENSOR_CHANNELS_GRAY: 1 channel, luma
 *
 * Channel order of a tensor output.
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_TENSOR_CHANNELS_RGB,
  GCG_TENSOR_CHANNELS_BGR,
  GCG_TENSOR_CHANNELS_GRAY,
} GcgTensorChannels;

/**
 * GcgBackend:
 * @GCG_BACKEND_AUTO: CUDA when a device is usable, the CPU otherwise
 * @GCG_BACKEND_CUDA: CUDA kernels, captured into a graph (or eager)
 * @GCG_BACKEND_CPU: the CPU reference (same arithmetic; the test oracle)
 *
 * Where a #GcgFrameChain runs.
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_BACKEND_AUTO,
  GCG_BACKEND_CUDA,
  GCG_BACKEND_CPU,
} GcgBackend;

/**
 * GCG_FRAME_CHAIN_MAX_ROIS:
 *
 * Largest batch of a tensor output (#GcgFrameChainConfig.max_rois), and so
 * the size of #GcgFrameParams.rois.
 *
 * Since: 0.1
 */
#define GCG_FRAME_CHAIN_MAX_ROIS 64

/**
 * GCG_FRAME_CHAIN_MAX_SIZE:
 *
 * Largest width or height of an input or output frame.
 *
 * Since: 0.1
 */
#define GCG_FRAME_CHAIN_MAX_SIZE 16384

/**
 * GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES:
 *
 * Largest output of a chain, in bytes (2 GiB): a whole tensor batch, or a
 * video frame.  Every video size up to %GCG_FRAME_CHAIN_MAX_SIZE fits (a
 * 16384×16384 RGBA frame is 1 GiB); tensors may not, since their size
 * grows with the batch: 64 float32 RGB items of 1024×1024 are 768 MiB,
 * but one item of 16384×16384 is 3 GiB (use float16 or uint8) and 64 of
 * them 192 GiB.  gcg_frame_chain_config_validate() refuses a larger
 * configuration, so it fails where it is set (caps negotiation in the
 * elements) instead of at allocation.
 *
 * Since: 0.1
 */
#define GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES G_GUINT64_CONSTANT (0x80000000)

/**
 * GcgRect:
 * @x: left column
 * @y: top row
 * @width: width in pixels
 * @height: height in pixels
 *
 * A rectangle in input pixels.
 *
 * Since: 0.1
 */
typedef struct
{
  gint x;
  gint y;
  gint width;
  gint height;
} GcgRect;

/**
 * GcgFrameChainConfig:
 * @in_format: input pixel format
 * @in_width: input width
 * @in_height: input height
 * @matrix: YUV matrix of YUV inputs or outputs
 * @full_range: %TRUE for full-range YUV (0–255), %FALSE for limited range
 *   (Y 16–235, UV 16–240)
 * @output: video or tensor
 * @out_format: output pixel format (video output)
 * @out_width: output width (per item for tensors)
 * @out_height: output height (per item for tensors)
 * @resize: resampling method
 * @letterbox: how the crop fits the output
 * @tensor_layout: tensor layout
 * @tensor_type: tensor element type
 * @tensor_channels: tensor channel order
 * @max_rois: tensor batch size N (1 for video); a frame's ROI count may
 *   be lower, the missing items are left untouched
 *
 * Everything that shapes the captured work.  Changing any of it means a
 * new #GcgFrameChain (a new capture); everything per-frame lives in
 * #GcgFrameParams instead.
 *
 * Since: 0.1
 */
typedef struct
{
  GcgPixelFormat in_format;
  guint in_width;
  guint in_height;
  GcgColorMatrix matrix;
  gboolean full_range;
  GcgOutputKind output;
  GcgPixelFormat out_format;
  guint out_width;
  guint out_height;
  GcgResizeMethod resize;
  GcgLetterbox letterbox;
  GcgTensorLayout tensor_layout;
  GcgTensorType tensor_type;
  GcgTensorChannels tensor_channels;
  guint max_rois;
} GcgFrameChainConfig;

/**
 * GcgFrameParams:
 * @src: device (CUDA backend) or host (CPU backend) address of each input
 *   plane; unused planes 0
 * @src_stride: bytes per row of each input plane
 * @dst: address of each output plane (video), or of the tensor in @dst[0]
 * @dst_stride: bytes per row of each output plane (video only)
 * @rois: crop rectangles in input pixels, one per tensor item (video uses
 *   @rois[0]); clipped to the frame
 * @n_rois: number of valid @rois; 0 means the whole frame once
 * @brightness: added after contrast, in units of full scale (0 = none)
 * @contrast: factor around mid-grey (1 = none)
 * @gamma: exponent applied last (1 = none); must be positive
 * @gain: factor applied first (1 = none)
 * @pad: pad value per output channel, in output units: for video an
 *   R, G, B, A colour in 0–255 (GRAY8, NV12 and I420 outputs convert it
 *   like any pixel); for tensors the final value of each channel in tensor
 *   order (@pad[0] for GRAY)
 * @scale: per tensor channel, out = value × scale + offset, value in 0–255
 * @offset: per tensor channel, see @scale
 * @frame_number: the frame's number (for kernels that need it)
 * @pts: the frame's presentation time in ns
 * @results: where this frame's results go when the chain (or batch) ends
 *   in a postprocess (gcg_frame_batch_set_postprocess()): the device
 *   address of an area of gcg_frame_batch_get_results_size() bytes,
 *   8-byte aligned, normally pinned host memory (under unified
 *   addressing, as on every 64-bit platform, the host pointer of
 *   cuMemHostAlloc() or #GcgHostPool memory is its device address;
 *   registered memory's is cuMemHostGetDevicePointer()'s) that the
 *   replay writes directly; read
 *   it with gcg_frame_results_get() once the frame is done.  Each frame
 *   in flight needs its own area.  0 writes no results.  A batch reads
 *   its first source's (@params[0]).  (Since 0.3.)
 *
 * Everything that may change from one frame to the next.  None of it
 * causes a new capture: the CUDA backend sets it on the replayed graph,
 * as the built-in kernel's argument on its node (a #GcgFrameBatch, whose
 * struct is too large for an argument, and a chain's stages read it from
 * a parameter block refreshed by one copy per frame).
 *
 * Since: 0.1
 */
typedef struct
{
  guint64 src[3];
  gint src_stride[3];
  guint64 dst[3];
  gint dst_stride[3];
  GcgRect rois[GCG_FRAME_CHAIN_MAX_ROIS];
  guint n_rois;
  gfloat brightness;
  gfloat contrast;
  gfloat gamma;
  gfloat gain;
  gfloat pad[4];
  gfloat scale[3];
  gfloat offset[3];
  guint64 frame_number;
  guint64 pts;
  guint64 results;
} GcgFrameParams;

#define GCG_TYPE_RECT (gcg_rect_get_type ())
GCG_API
GType gcg_rect_get_type (void) G_GNUC_CONST;

GCG_API
GcgRect *gcg_rect_copy (const GcgRect *rect);

GCG_API
void gcg_rect_free (GcgRect *rect);

#define GCG_TYPE_FRAME_CHAIN_CONFIG (gcg_frame_chain_config_get_type ())
GCG_API
GType gcg_frame_chain_config_get_type (void) G_GNUC_CONST;

GCG_API
GcgFrameChainConfig *gcg_frame_chain_config_new (void);

GCG_API
GcgFrameChainConfig *gcg_frame_chain_config_copy (
    const GcgFrameChainConfig *config);

GCG_API
void gcg_frame_chain_config_free (GcgFrameChainConfig *config);

GCG_API
void gcg_frame_chain_config_init (GcgFrameChainConfig *config);

GCG_API
gboolean gcg_frame_chain_config_validate (const GcgFrameChainConfig *config,
    GError **error);

GCG_API
gsize gcg_frame_chain_config_get_output_size (
    const GcgFrameChainConfig *config);

#define GCG_TYPE_FRAME_PARAMS (gcg_frame_params_get_type ())
GCG_API
GType gcg_frame_params_get_type (void) G_GNUC_CONST;

GCG_API
GcgFrameParams *gcg_frame_params_new (void);

GCG_API
GcgFrameParams *gcg_frame_params_copy (const GcgFrameParams *params);

GCG_API
void gcg_frame_params_free (GcgFrameParams *params);

GCG_API
void gcg_frame_params_init (GcgFrameParams *params);

GCG_API
void gcg_frame_params_set_mean_std (GcgFrameParams *params, const gfloat *mean,
    const gfloat *std);

GCG_API
void gcg_frame_params_set_src_plane (GcgFrameParams *params, guint plane,
    guint64 address, gint stride);

GCG_API
void gcg_frame_params_set_dst_plane (GcgFrameParams *params, guint plane,
    guint64 address, gint stride);

GCG_API
gboolean gcg_frame_params_set_rois (GcgFrameParams *params, const GcgRect *rois,
    guint n_rois);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgRect, gcg_rect_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgFrameChainConfig, gcg_frame_chain_config_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgFrameParams, gcg_frame_params_free)

G_END_DECLS
