/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Which instantiation of a fused kernel runs, and its grid: the *4
 * kernels, each thread making GCG_FK_PX pixels of a row (and rows4
 * rows), or the one-pixel-per-thread ones when GCG_FRAME_KERNELS=1, so a
 * benchmark can compare both in one run.  Both write the same bytes.
 */
#include "gcg-frame-private.h"

#include <string.h>

static gboolean
one_pixel_kernels (void)
{
  const gchar *v = g_getenv ("GCG_FRAME_KERNELS");

  return v != NULL && strcmp (v, "1") == 0;
}

void
gcg__frame_kernel_launch (const gchar *family, const gchar *suffix,
    guint width, guint height, guint rows4, const guint block[2],
    guint grid[2], gchar *name, gsize size)
{
  gboolean one = one_pixel_kernels ();
  guint w = one ? width : (width + GCG_FK_PX - 1) / GCG_FK_PX;
  guint h = one ? height : (height + rows4 - 1) / rows4;

  grid[0] = (w + block[0] - 1) / block[0];
  grid[1] = (h + block[1] - 1) / block[1];
  g_snprintf (name, size, "gcg_frame_%s%s_%s", family, one ? "" : "4",
      suffix);
}
