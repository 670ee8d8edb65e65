/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphbatch on a GPU (tests/common/gcg-test-gst-batch.c): batches of
 * mixed streams and ROI counts with backend=cuda, byte for byte equal to
 * the CPU backend's cudagraphpreprocess and to the CUDA backend's, per
 * stream; and one capture over 10 000 batches while streams join, leave,
 * change caps and change ROI counts; a user kernel after the batch op
 * (kernel-*), equal per stream to cudagraphpreprocess with the same
 * kernel after its op.  Skipped (TAP skip) without a CUDA driver and
 * device.
 */
#include "gcg-gst-test-util.h"
#include "common/gcg-test-gst-batch.h"
#include "common/gcg-test-gst-gpu.h"

#include <gcg.h>

#define CAPS(i) gcg_test_batch_caps[(i) % G_N_ELEMENTS (gcg_test_batch_caps)]
#define LONG_RUN 10000

static void
run (GcgTestBatch *f, const guint *which, guint n, guint frame)
{
  gst_buffer_unref (gcg_test_batch_run (f, which, n, frame,
      gcg_test_batch_vary_rois));
}

/* @ref_backend's cudagraphpreprocess per stream is the oracle. */
static void
check_against (const gchar *ref_backend)
{
  guint all[] = { 0, 1, 2, 3, 4 };
  GcgTestBatch f;

  if (!gcg_test_have_gpu ())
    return;
  gcg_test_batch_init (&f, "cuda", ref_backend, "batch-size=5", 3);
  for (guint i = 0; i < 5; i++)
    gcg_test_batch_add_stream (&f, CAPS (i), i * 5);
  for (guint fr = 0; fr < 8; fr++)
    run (&f, all, 5, fr);
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "captures"), ==,
      1);
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "replays"), ==,
      7);
  gcg_test_batch_clear (&f);
}

static void
test_equals_cpu (void)
{
  check_against ("cpu");
}

static void
test_equals_preprocess_cuda (void)
{
  check_against ("cuda");
}

/* Which streams batch @i holds: all four, then three, two, one, and
 * changing sets, so every partial batch shape comes back many times. */
static guint
streams_of (guint i, guint *which)
{
  guint mask = 1 + i % 15, n = 0;

  for (guint s = 0; s < 4; s++) {
    if (mask & (1u << s))
      which[n++] = s;
  }
  return n;
}

/* One capture while streams join, leave, change caps and ROI counts over
 * LONG_RUN batches; every 1000th batch is checked against the CPU. */
static void
test_one_capture (void)
{
  guint which[4];
  GcgTestBatch f;

  if (!gcg_test_have_gpu ())
    return;
  gcg_test_batch_init (&f, "cuda", "cpu", "batch-size=4", 3);
  gcg_test_batch_add_stream (&f, CAPS (0), 1);
  gcg_test_batch_add_stream (&f, CAPS (1), 2);
  for (guint i = 0; i < 2; i++)
    run (&f, (guint[]) { 0, 1 }, 2, i);
  gcg_test_batch_add_stream (&f, CAPS (2), 3);
  gcg_test_batch_add_stream (&f, CAPS (3), 4);
  for (guint i = 2; i < LONG_RUN; i++) {
    guint n = streams_of (i, which);

    f.check = i % 1000 == 0;
    if (i % 997 == 0)
      gcg_test_batch_set_caps (&f.streams[i % 4], CAPS (i / 997));
    run (&f, which, n, i);
  }
  gcg_test_batch_remove_stream (&f.streams[3]);
  run (&f, (guint[]) { 0, 1, 2 }, 3, LONG_RUN);
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "captures"), ==,
      1);
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "replays"), ==,
      LONG_RUN);
  gcg_test_batch_clear (&f);
}

/* Flips every float of each written item around a constant: one z slice
 * per item in a batch, all items in the z slice of a single chain. */
#define FLIP_KERNEL \
  "kernel-entry=flip kernel-params=\"t=dst0,w=out_width," \
  "h=out_height,n=items,a=f32:1.5\" kernel-source=\"" \
  "extern \\\"C\\\" __global__ void flip (const gcg_params *p) {" \
  " int x = blockIdx.x * blockDim.x + threadIdx.x;" \
  " int y = blockIdx.y * blockDim.y + threadIdx.y;" \
  " if (x >= p->w || y >= p->h) return;" \
  " size_t plane = (size_t) p->w * p->h;" \
  " for (int i = blockIdx.z; i < p->n; i += gridDim.z) {" \
  " float *t = (float *) p->t + i * 3 * plane + (size_t) y * p->w + x;" \
  " for (int c = 0; c < 3; c++) t[c * plane] = p->a - t[c * plane]; } }\""

static void
test_user_kernel (void)
{
  guint all[] = { 0, 1, 2 };
  GcgTestBatch f;

  if (!gcg_test_have_gpu ())
    return;
  gcg_test_batch_init (&f, "cuda", "cuda", "batch-size=3 " FLIP_KERNEL, 3);
  f.ref_props = g_strdup (FLIP_KERNEL);
  for (guint i = 0; i < 3; i++)
    gcg_test_batch_add_stream (&f, CAPS (i), i * 7);
  /* Every stream delivers first (as test_one_capture does: a stream's
   * first frame does not join a window already open), then partial
   * batches of 1 to 3 streams. */
  for (guint fr = 0; fr < 12; fr++)
    gst_buffer_unref (gcg_test_batch_run (&f, all, fr < 2 ? 3 : 1 + fr % 3, fr,
        gcg_test_batch_vary_rois));
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "captures"), ==,
      1);
  gcg_test_batch_clear (&f);
}

int
main (int argc, char **argv)
{
  gcg_test_add_bundle_plugins ();
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/batch-gpu/equals-cpu", test_equals_cpu);
  g_test_add_func ("/batch-gpu/equals-preprocess-cuda",
      test_equals_preprocess_cuda);
  g_test_add_func ("/batch-gpu/one-capture", test_one_capture);
  g_test_add_func ("/batch-gpu/user-kernel", test_user_kernel);
  return g_test_run ();
}
