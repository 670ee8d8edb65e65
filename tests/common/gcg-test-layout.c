/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-test-layout.h"

#include <string.h>

/* A @format frame of @width x @height, each row @row_pad bytes longer than
 * its pixels.  Formats without a case here are one byte per pixel. */
void
gcg_test_layout_video (GcgTestLayout *l, GcgPixelFormat format, guint width,
    guint height, guint row_pad)
{
  guint cw = (width + 1) / 2, ch = (height + 1) / 2;
  guint rows[3] = { height, ch, ch };
  gsize bytes[3] = { width, 2 * cw, 0 };

  memset (l, 0, sizeof (*l));
  switch (format) {
    case GCG_PIXEL_FORMAT_NV12:
      l->n_planes = 2;
      break;
    case GCG_PIXEL_FORMAT_I420:
      bytes[1] = bytes[2] = cw;
      l->n_planes = 3;
      break;
    case GCG_PIXEL_FORMAT_RGBA:
    case GCG_PIXEL_FORMAT_BGRA:
      bytes[0] = 4 * (gsize) width;
      l->n_planes = 1;
      break;
    case GCG_PIXEL_FORMAT_RGB:
    case GCG_PIXEL_FORMAT_BGR:
      bytes[0] = 3 * (gsize) width;
      l->n_planes = 1;
      break;
    default:
      l->n_planes = 1;
      break;
  }
  for (guint i = 0; i < l->n_planes; i++) {
    l->row_bytes[i] = bytes[i];
    l->rows[i] = rows[i];
    l->stride[i] = (gint) (bytes[i] + row_pad);
    l->offset[i] = l->size;
    l->plane_size[i] = (gsize) l->stride[i] * rows[i];
    l->size += l->plane_size[i];
  }
}

/* What @config's chain writes: its tensor, or a video frame whose rows are
 * padded by @row_pad. */
void
gcg_test_layout_output (GcgTestLayout *l, const GcgFrameChainConfig *config,
    guint row_pad)
{
  if (config->output != GCG_OUTPUT_KIND_TENSOR) {
    gcg_test_layout_video (l, config->out_format, config->out_width,
        config->out_height, row_pad);
    return;
  }
  memset (l, 0, sizeof (*l));
  l->n_planes = 1;
  l->size = l->plane_size[0] = l->row_bytes[0] =
      gcg_frame_chain_config_get_output_size (config);
  l->rows[0] = 1;
}

/* The planes of @l in memory of @kind at @base. */
void
gcg_test_planes_init (GcgFramePlanes *p, const GcgTestLayout *l,
    GcgMemoryKind kind, guint64 base)
{
  memset (p, 0, sizeof (*p));
  p->kind = kind;
  p->n_planes = l->n_planes;
  for (guint i = 0; i < l->n_planes; i++) {
    p->data[i] = base + l->offset[i];
    p->stride[i] = l->stride[i];
    p->size[i] = l->plane_size[i];
  }
}
