/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Frames laid out in one buffer for the frame-queue tests (unit and gpu):
 * planes packed one after the other, rows padded, and the GcgFramePlanes
 * that describe them at a given address.
 */
#pragma once

#include <gcg.h>

/* @row_bytes are the bytes of a row that hold pixels (what a chain
 * writes); a tensor is one plane of one row, with stride 0. */
typedef struct
{
  guint n_planes;
  gint stride[3];
  gsize offset[3];
  gsize plane_size[3];
  gsize row_bytes[3];
  guint rows[3];
  gsize size;
} GcgTestLayout;

void gcg_test_layout_video (GcgTestLayout *l, GcgPixelFormat format,
    guint width, guint height, guint row_pad);
void gcg_test_layout_output (GcgTestLayout *l,
    const GcgFrameChainConfig *config, guint row_pad);
void gcg_test_planes_init (GcgFramePlanes *p, const GcgTestLayout *l,
    GcgMemoryKind kind, guint64 base);
