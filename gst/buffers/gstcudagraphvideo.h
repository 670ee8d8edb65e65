/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gcg/gcg.h>

G_BEGIN_DECLS

/* Video frames as the frame chain sees them: formats and colorimetry,
 * where a buffer's memory is, a mapped frame's planes and whether
 * upstream's video meta can be mapped at all.  Shared by the base
 * transform and cudagraphbatch. */

/* Maps GStreamer's format names to the chain's; FALSE when unsupported. */
gboolean gst_cuda_graph_pixel_format_from_video (GstVideoFormat format,
    GcgPixelFormat *out);

/* The chain's description of @info: format, YUV matrix and range (a
 * matrix other than BT.601/709 is read as BT.601, with a warning against
 * @object); FALSE for a format the chain does not read. */
gboolean gst_cuda_graph_describe_video (GstObject *object,
    const GstVideoInfo *info, GcgPixelFormat *format, GcgColorMatrix *matrix,
    gboolean *full_range);

/* Where @buffer's memory is for the frame queue: device memory when mapped
 * with GST_MAP_CUDA (@device), pinned host memory when it is ours,
 * pageable host memory otherwise. */
GcgMemoryKind gst_cuda_graph_memory_kind (GstBuffer *buffer,
    GstMapFlags device);

/* The same for an input read on @context (NULL: the CPU backend):
 * pageable host memory from an upstream pool is registered with the
 * driver on first sight and read by DMA from then on, as pinned memory
 * is (gstcudagraphhostregister.c). */
GcgMemoryKind gst_cuda_graph_input_memory_kind (GstBuffer *buffer,
    GstMapFlags device, GcgContext *context);

/* The planes of a mapped frame, each with the bytes the chain may touch
 * (stride × rows, cut to what the mapping holds). */
void gst_cuda_graph_planes_from_frame (GcgFramePlanes *planes,
    GstVideoFrame *frame, GcgMemoryKind kind);

/* gst_video_frame_map() takes a GstVideoMeta of another format or smaller
 * than the caps for a programming error (a critical): it is upstream's
 * word only, so such a frame is refused (FALSE, @error set). */
gboolean gst_cuda_graph_video_meta_fits (GstBuffer *inbuf,
    const GstVideoInfo *info, GError **error);

G_END_DECLS
