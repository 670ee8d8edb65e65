/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Which instantiation of a fused kernel runs, and its grid: the *4
 * kernels, each thread making GCG_FK_PX pixels of a row (and rows4
 * rows), or the one-pixel-per-thread ones.  Both write the same bytes.
 *
 * Measured on an H100 (bench/README.md, bench-frame-chain and
 * bench-batch): the *4 kernels do less work per pixel (a row's and a
 * column's taps once per thread, shared input samples converted once) but
 * have a quarter of the threads, so they win where the grid fills the
 * GPU several times over (a batch of 16 frames: 97.7 -> 77.8 µs) and
 * where neighbouring pixels share taps (1080p -> 720p video: 15.07 ->
 * 14.79 µs), and lose on one small tensor (one 640² frame: 8.3 -> 8.6 µs;
 * four 224² ROIs: 7.1 -> 8.0).  So tensors take them from
 * WIDE_PIXELS output pixels up, video always.  GCG_FRAME_KERNELS=1 or =4
 * in the environment forces one or the other (A/B measurements).
 */
#include "gcg-frame-private.h"

#include <string.h>

/* About five waves of the one-pixel kernel's blocks on an H100. */
#define WIDE_PIXELS (1u << 21)

static gboolean
use_wide (gboolean video, guint64 pixels)
{
  const gchar *v = g_getenv ("GCG_FRAME_KERNELS");

  if (v != NULL && strcmp (v, "1") == 0)
    return FALSE;
  if (v != NULL && strcmp (v, "4") == 0)
    return TRUE;
  return video || pixels >= WIDE_PIXELS;
}

void
gcg__frame_kernel_launch (const gchar *family, const gchar *suffix, guint width,
    guint height, guint items, guint rows4, const guint block[2], guint grid[2],
    gchar *name, gsize size)
{
  gboolean wide = use_wide (strcmp (family, "video") == 0,
      (guint64) width * height * items);
  guint w = wide ? (width + GCG_FK_PX - 1) / GCG_FK_PX : width;
  guint h = wide ? (height + rows4 - 1) / rows4 : height;

  grid[0] = (w + block[0] - 1) / block[0];
  grid[1] = (h + block[1] - 1) / block[1];
  g_snprintf (name, size, "gcg_frame_%s%s_%s", family, wide ? "4" : "", suffix);
}
