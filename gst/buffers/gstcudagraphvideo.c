/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Video frames as the frame chain sees them, the same way for every
 * element. */
#include "gstcudagraphvideo.h"
#include "gstcudagraphdebug.h"
#include "memory/gstcudagraphhostregister.h"
#include "memory/gstcudagraphpinnedallocator.h"

static GstDebugCategory *video_debug;
#define GST_CAT_DEFAULT \
  gst_cuda_graph_debug_category (&video_debug, "cudagraphvideo", \
      "cudagraph video frames")

gboolean
gst_cuda_graph_pixel_format_from_video (GstVideoFormat format,
    GcgPixelFormat *out)
{
  switch (format) {
    case GST_VIDEO_FORMAT_NV12:
      *out = GCG_PIXEL_FORMAT_NV12;
      return TRUE;
    case GST_VIDEO_FORMAT_I420:
      *out = GCG_PIXEL_FORMAT_I420;
      return TRUE;
    case GST_VIDEO_FORMAT_RGBA:
      *out = GCG_PIXEL_FORMAT_RGBA;
      return TRUE;
    case GST_VIDEO_FORMAT_BGRA:
      *out = GCG_PIXEL_FORMAT_BGRA;
      return TRUE;
    case GST_VIDEO_FORMAT_RGB:
      *out = GCG_PIXEL_FORMAT_RGB;
      return TRUE;
    case GST_VIDEO_FORMAT_BGR:
      *out = GCG_PIXEL_FORMAT_BGR;
      return TRUE;
    case GST_VIDEO_FORMAT_GRAY8:
      *out = GCG_PIXEL_FORMAT_GRAY8;
      return TRUE;
    default:
      return FALSE;
  }
}

/* Format, size and, for YUV, the matrix and range of the caps'
 * colorimetry (gst_video_info_from_caps() already applied GStreamer's
 * defaults where the caps say nothing). */
gboolean
gst_cuda_graph_describe_video (GstObject *object, const GstVideoInfo *info,
    GcgPixelFormat *format, GcgColorMatrix *matrix, gboolean *full_range)
{
  const GstVideoColorimetry *cinfo = &info->colorimetry;

  if (!gst_cuda_graph_pixel_format_from_video (GST_VIDEO_INFO_FORMAT (info),
          format))
    return FALSE;
  *full_range = cinfo->range == GST_VIDEO_COLOR_RANGE_0_255;
  *matrix = cinfo->matrix == GST_VIDEO_COLOR_MATRIX_BT709
      ? GCG_COLOR_MATRIX_BT709
      : GCG_COLOR_MATRIX_BT601;
  if (GST_VIDEO_INFO_IS_YUV (info)
      && cinfo->matrix != GST_VIDEO_COLOR_MATRIX_BT709
      && cinfo->matrix != GST_VIDEO_COLOR_MATRIX_BT601)
    GST_WARNING_OBJECT (object,
        "colour matrix %d is not BT.601 or BT.709: "
        "using BT.601",
        cinfo->matrix);
  return TRUE;
}

/* Where @buffer's memory is for the frame queue: device memory when mapped
 * with GST_MAP_CUDA, pinned host memory when it is ours (DMA straight from
 * or into it), pageable host memory otherwise (staged). */
GcgMemoryKind
gst_cuda_graph_memory_kind (GstBuffer *buffer, GstMapFlags device)
{
  if (device)
    return GCG_MEMORY_KIND_DEVICE;
  if (gst_buffer_n_memory (buffer) == 1
      && gst_cuda_graph_is_pinned_memory (gst_buffer_peek_memory (buffer, 0)))
    return GCG_MEMORY_KIND_HOST_PINNED;
  return GCG_MEMORY_KIND_HOST;
}

GcgMemoryKind
gst_cuda_graph_input_memory_kind (GstBuffer *buffer, GstMapFlags device,
    GcgContext *context)
{
  GcgMemoryKind kind = gst_cuda_graph_memory_kind (buffer, device);

  if (kind == GCG_MEMORY_KIND_HOST && context != NULL
      && gst_cuda_graph_register_input (buffer, context))
    return GCG_MEMORY_KIND_HOST_PINNED;
  return kind;
}

/* Bytes of plane @i the chain may touch: stride × rows, cut to what the
 * mapping holds from the plane's start.  A GstVideoMeta's offsets and
 * strides are upstream's word only; the frame queue refuses a plane whose
 * rows reach past this. */
static gsize
plane_bytes (GstVideoFrame *frame, guint i)
{
  /* With a video meta each plane is mapped on its own. */
  const GstMapInfo *map = &frame->map[frame->meta ? i : 0];
  const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (frame, i);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, i);
  gsize avail, want;

  if (stride <= 0 || data < map->data || data > map->data + map->size)
    return 0;
  avail = (gsize) (map->data + map->size - data);
  /* Component i lives in plane i for every format we take. */
  if (!g_size_checked_mul (&want, (gsize) stride,
          GST_VIDEO_FRAME_COMP_HEIGHT (frame, i)))
    return avail;
  return MIN (want, avail);
}

void
gst_cuda_graph_planes_from_frame (GcgFramePlanes *planes, GstVideoFrame *frame,
    GcgMemoryKind kind)
{
  guint i;

  planes->kind = kind;
  planes->n_planes = GST_VIDEO_FRAME_N_PLANES (frame);
  for (i = 0; i < planes->n_planes; i++) {
    planes->data[i] =
        (guint64) (guintptr) GST_VIDEO_FRAME_PLANE_DATA (frame, i);
    planes->stride[i] = GST_VIDEO_FRAME_PLANE_STRIDE (frame, i);
    planes->size[i] = plane_bytes (frame, i);
  }
}

/* gst_video_frame_map() takes a GstVideoMeta of another format or
 * smaller than the caps for a programming error (a critical): it is
 * upstream's word only, so such a frame is refused like one whose planes
 * reach past the buffer. */
gboolean
gst_cuda_graph_video_meta_fits (GstBuffer *inbuf, const GstVideoInfo *info,
    GError **error)
{
  GstVideoMeta *vmeta = gst_buffer_get_video_meta (inbuf);

  if (vmeta == NULL
      || (vmeta->format == GST_VIDEO_INFO_FORMAT (info)
          && (gint) vmeta->width >= info->width
          && (gint) vmeta->height >= info->height))
    return TRUE;
  g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "video meta %s %ux%u does not hold the caps' %s %dx%d",
      gst_video_format_to_string (vmeta->format), vmeta->width, vmeta->height,
      GST_VIDEO_INFO_NAME (info), info->width, info->height);
  return FALSE;
}
