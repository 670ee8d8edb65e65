/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/check/gstharness.h>

#include "gstcudagraphbatchmeta.h"

/* cudagraphbatch under test: one GstHarness per sink pad (the first also
 * holds the src pad, on a test clock), and per stream a
 * cudagraphpreprocess harness that every batch is checked against, byte
 * for byte, along with each item's back-map.  Items are float32 RGB
 * GCG_TEST_BATCH_W x GCG_TEST_BATCH_H, letterboxed, normalised. */

#define GCG_TEST_BATCH_W 24
#define GCG_TEST_BATCH_H 20
#define GCG_TEST_BATCH_PROPS \
  "width=24 height=20 letterbox=symmetric " \
  "mean=0.5,0.4,0.3 std=0.2,0.25,0.3 pad-value=-2"

/* How long one batch test may take, from gcg_test_batch_init() to
 * gcg_test_batch_clear(), before the watchdog fails it with every
 * thread's backtrace (tests/common/gcg-test-watchdog.h): well within
 * meson's timeout (120 s for the unit suite). */
#define GCG_TEST_BATCH_WATCHDOG_S 60

typedef struct
{
  GstHarness *h;
  GstPad *pad;                  /* the element's sink pad */
  gchar *caps;
  GstHarness *ref;
  guint seed;
  gboolean eos;
} GcgTestStream;

typedef struct
{
  GstElement *batch;
  GstHarness *out;              /* the first stream's harness: src pad */
  GcgTestStream streams[16];
  guint n;
  guint max_rois;
  gchar *ref_backend;
  /* Appended to each reference cudagraphpreprocess's description (set
   * before adding streams; owned). */
  gchar *ref_props;
  /* FALSE: batches are only counted, not checked (long runs). */
  gboolean check;
} GcgTestBatch;

/* Adds ROI metas to a frame (@stream's frame number @frame). */
typedef void (*GcgTestDecorateFunc) (guint stream, guint frame, GstBuffer *buf);

extern const gchar *const gcg_test_batch_caps[7];

void gcg_test_batch_init (GcgTestBatch *f, const gchar *backend,
    const gchar *ref_backend, const gchar *props, guint max_rois);
void gcg_test_batch_clear (GcgTestBatch *f);
GcgTestStream *gcg_test_batch_add_stream (GcgTestBatch *f, const gchar *caps,
    guint seed);
void gcg_test_batch_set_caps (GcgTestStream *s, const gchar *caps);
/* Tears down @s's harness (which releases its pad). */
void gcg_test_batch_remove_stream (GcgTestStream *s);

/* EOS on @s's pad. */
void gcg_test_batch_eos (GcgTestStream *s);

GstBuffer *gcg_test_batch_frame (const gchar *caps, guint seed,
    GstClockTime pts);
void gcg_test_batch_push (GcgTestStream *s, GstBuffer *buf);

/* One batch of frame @frame of the streams in @which (NULL: the first
 * @n_which): pushed, pulled and checked.  When other streams are playing
 * (not at EOS), the test clock is moved to the deadline so that the batch
 * leaves without them.  Returns the batch. */
GstBuffer *gcg_test_batch_run (GcgTestBatch *f, const guint *which,
    guint n_which, guint frame, GcgTestDecorateFunc decorate);

/* 0 to 3 ROIs of types "car" and "face", changing with @stream and
 * @frame. */
void gcg_test_batch_vary_rois (guint stream, guint frame, GstBuffer *buf);

void gcg_test_batch_check_dims (GcgTestBatch *f, const gchar *dims);

/* @bm lists @n_absent streams with no frame after its frames: empty
 * slots (no item, no time, no size), and no item names one. */
void gcg_test_batch_check_absent (const GstCudaGraphBatchMeta *bm,
    guint n_absent);
