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
 * column's taps once per thread) but have a quarter of the threads, so
 * they win where the grid fills the GPU several times over (a batch of
 * 16 640² frames: 95.5 -> 76.4 µs) and lose or tie below that.  Since
 * bilinear converts once per output pixel (not once per tap), the
 * one-pixel kernels also win on 1080p -> 720p video (graph replay per
 * frame 11.4 -> 10.4 µs, the kernel alone 8.5 against 8.6) and tie on
 * one 640² tensor (3.96 / 3.93 µs alone).  So every output takes them
 * from WIDE_PIXELS output pixels up.  GCG_FRAME_KERNELS=1 or =4 in the
 * environment forces one or the other (A/B measurements).
 */
#include "gcg-frame-private.h"

#include <string.h>

/* About five waves of the one-pixel kernel's blocks on an H100. */
#define WIDE_PIXELS (1u << 21)

static gboolean
use_wide (guint64 pixels)
{
  const gchar *v = g_getenv ("GCG_FRAME_KERNELS");

  if (v != NULL && strcmp (v, "1") == 0)
    return FALSE;
  if (v != NULL && strcmp (v, "4") == 0)
    return TRUE;
  return pixels >= WIDE_PIXELS;
}

void
gcg__frame_kernel_launch (const gchar *family, const gchar *suffix, guint width,
    guint height, guint items, guint rows4, const guint block[2], guint grid[2],
    gchar *name, gsize size)
{
  gboolean wide = use_wide ((guint64) width * height * items);
  guint w = wide ? (width + GCG_FK_PX - 1) / GCG_FK_PX : width;
  guint h = wide ? (height + rows4 - 1) / rows4 : height;

  grid[0] = (w + block[0] - 1) / block[0];
  grid[1] = (h + block[1] - 1) / block[1];
  g_snprintf (name, size, "gcg_frame_%s%s_%s", family, wide ? "4" : "", suffix);
}
