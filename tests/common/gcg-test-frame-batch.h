/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Batches for the frame-batch tests (unit and gpu): host frames of mixed
 * formats and sizes filled with noise, their per-batch values (whole
 * frame, crop or ROIs), and the reference tensor made the independent
 * way: one GcgFrameChain (CPU) per source, outputs concatenated.
 */
#pragma once

#include "gcg-test-layout.h"

#define GCG_TEST_FRAME_BATCH_SOURCES 16

typedef struct
{
  GcgFrameBatchSource source;
  GcgTestLayout layout;
  guint8 *data;                 /* host copy of the frame */
} GcgTestFrameBatchSource;

typedef struct
{
  GcgFrameBatchConfig config;
  guint n_frames;
  GcgTestFrameBatchSource frames[GCG_TEST_FRAME_BATCH_SOURCES];
  gsize item_size;
} GcgTestFrameBatch;

void gcg_test_frame_batch_init (GcgTestFrameBatch *b,
    const GcgFrameBatchConfig *config, guint n_frames, guint32 seed);
void gcg_test_frame_batch_clear (GcgTestFrameBatch *b);

/* Values of batch number @k for source @i: a pattern of ROI counts (0, 1,
 * max), crops and adjustments that changes with @k; planes at @base (the
 * frame's address on the device, or its host copy when 0). */
void gcg_test_frame_batch_params (const GcgTestFrameBatch *b, guint i, guint k,
    guint64 base, GcgFrameParams *params);

/* Fails naming the first item and byte where @out and @ref differ. */
void gcg_test_frame_batch_assert_equal (const GcgTestFrameBatch *b,
    const guint8 *out, const guint8 *ref, gsize size);

/* A random order of sources 0 to @n - 1. */
void gcg_test_frame_batch_shuffle (GRand *rand, guint *order, guint n);

/* The configuration of a batch of one frame of source @i alone
 * (gcg_frame_batch_new_for_frame()): the batch's output, @i's input. */
void gcg_test_frame_batch_frame_config (const GcgTestFrameBatch *b, guint i,
    GcgFrameChainConfig *config);

/* The reference tensor of a batch of @n sources (frames[order[j]] as
 * source j) with the values of batch @k: one CPU chain per source.
 * Returns the number of items; writes them to @out and zeroes the items
 * after them up to the batch's size. */
guint gcg_test_frame_batch_reference (const GcgTestFrameBatch *b,
    const guint *order, guint n, guint k, guint8 *out);
