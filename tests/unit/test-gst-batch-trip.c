/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphbatch's batches go through lib's frame queue
 * (gcg_frame_queue_submit_batch()): on the CPU backend with
 * GCG_CPU_COMPLETION_DELAY=2 a batch stays queued until two later batches
 * were submitted, as on a GPU two batches behind, and its input buffers
 * are released by the queue's done callback only then; every input is
 * released by the end; outputs stay byte for byte those of
 * cudagraphpreprocess run on each stream alone while batches are queued.
 */
#include "gcg-gst-test-util.h"
#include "common/gcg-test-gst-batch.h"

#include <gcg.h>

#define FRAMES 8
#define STREAMS 2
#define DELAY 2

static void
released (gpointer data, GstMiniObject *obj)
{
  gboolean *flag = data;

  *flag = TRUE;
}

/* Frame @fr of every stream pushed (each watched until released), and
 * the batch pulled. */
static void
push_batch (GcgTestBatch *f, guint fr, gboolean freed[FRAMES][STREAMS])
{
  GstClockTime pts = fr * (GST_SECOND / 30);
  GstBuffer *out;

  for (guint s = 0; s < STREAMS; s++) {
    GstBuffer *buf =
        gcg_test_batch_frame (f->streams[s].caps, f->streams[s].seed + fr, pts);

    gst_mini_object_weak_ref (GST_MINI_OBJECT (buf), released, &freed[fr][s]);
    gcg_test_batch_push (&f->streams[s], buf);
  }
  out = gst_harness_pull (f->out);
  g_assert_nonnull (out);
  g_assert_cmpuint (GST_BUFFER_PTS (out), ==, pts);
  gst_buffer_unref (out);
}

/* Once batch @fr is out, the batch before it has left too (its push
 * and retire are over): the inputs of the batches the queue retired are
 * released, those of the DELAY batches still queued are not. */
static void
test_inputs_held (void)
{
  gboolean freed[FRAMES][STREAMS] = { { FALSE } };
  GcgTestBatch f;

  g_setenv ("GCG_CPU_COMPLETION_DELAY", G_STRINGIFY (DELAY), TRUE);
  gcg_test_batch_init (&f, "cpu", "cpu", "in-flight=4", 1);
  f.check = FALSE;
  for (guint s = 0; s < STREAMS; s++)
    gcg_test_batch_add_stream (&f, gcg_test_batch_caps[s], 3 * s);
  for (guint fr = 0; fr < FRAMES; fr++) {
    push_batch (&f, fr, freed);
    if (fr < 1)
      continue;
    /* Batch fr - 1 (sequence fr) is retired when sequence fr + DELAY is
     * submitted. */
    for (guint k = 0; k < fr; k++) {
      for (guint s = 0; s < STREAMS; s++)
        g_assert_cmpint (freed[k][s], ==, k + 1 + DELAY <= fr + 1);
    }
  }
  g_assert_cmpuint (gcg_test_get_u64 (f.out, "cudagraphbatch", "batches"), ==,
      FRAMES);
  gcg_test_batch_clear (&f);
  for (guint k = 0; k < FRAMES; k++) {
    for (guint s = 0; s < STREAMS; s++)
      g_assert_true (freed[k][s]);
  }
  g_unsetenv ("GCG_CPU_COMPLETION_DELAY");
}

/* The outputs do not change while their batches stay queued. */
static void
test_outputs_queued (void)
{
  GcgTestBatch f;

  g_setenv ("GCG_CPU_COMPLETION_DELAY", G_STRINGIFY (DELAY), TRUE);
  gcg_test_batch_init (&f, "cpu", "cpu", "in-flight=3", 3);
  for (guint s = 0; s < 3; s++)
    gcg_test_batch_add_stream (&f, gcg_test_batch_caps[s + 1], 5 * s);
  for (guint fr = 0; fr < FRAMES; fr++)
    gst_buffer_unref (gcg_test_batch_run (&f, NULL, f.n, fr,
        gcg_test_batch_vary_rois));
  gcg_test_batch_clear (&f);
  g_unsetenv ("GCG_CPU_COMPLETION_DELAY");
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/batch-trip/inputs-held", test_inputs_held);
  g_test_add_func ("/batch-trip/outputs-queued", test_outputs_queued);
  return g_test_run ();
}
