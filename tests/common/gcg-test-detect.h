/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A synthetic detector output for the postprocess's tests: the YOLOv8
 * layout the engine reads, per item (4 + @n_classes) rows × @n_cand
 * candidates (centre x, centre y, width, height in the item's pixels,
 * then one score per class).
 */
#pragma once

#include <glib.h>
#include <math.h>

/* Clusters of overlapping boxes (NMS has work), coarse scores (ties),
 * some NaN scores, a few empty boxes. */
static inline void
gcg_test_fill_detect (gfloat *out, guint items, guint n_classes, guint n_cand,
    GRand *rand)
{
  for (guint i = 0; i < items; i++) {
    gfloat *in = out + (gsize) i * (4 + n_classes) * n_cand;

    for (guint a = 0; a < n_cand; a++) {
      guint cluster = g_rand_int_range (rand, 0, 24);

      in[a] = (gfloat) (cluster % 6) * 10.0f + 5.0f
          + (gfloat) g_rand_int_range (rand, -8, 9) * 0.25f;
      in[n_cand + a] = (gfloat) (cluster / 6) * 11.0f + 6.0f
          + (gfloat) g_rand_int_range (rand, -8, 9) * 0.25f;
      in[2 * n_cand + a] =
          a % 97 == 0 ? 0.0f : (gfloat) g_rand_int_range (rand, 4, 30);
      in[3 * n_cand + a] = (gfloat) g_rand_int_range (rand, 4, 30);
      for (guint c = 0; c < n_classes; c++)
        in[(4 + c) * n_cand + a] = g_rand_int_range (rand, 0, 50) == 0
            ? NAN
            : (gfloat) g_rand_int_range (rand, 0, 64) / 64.0f;
    }
  }
}
