/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gcg_frame_queue_submit_batch() without a GPU: a CPU-backend queue runs
 * whole batches (host planes, one per source) and each output equals the
 * reference of one frame chain per source; done callbacks run once per
 * batch, in order; with a
 * fake completion source batches stay queued, a slot is reused only after
 * its batch is done, and drain and cancel retire them; refused batches
 * (too many sources, none, NULL arrays, planes with no memory or too small
 * for their source, an output too small, device memory on the CPU) set a
 * GError and queue nothing.
 */
#include <gcg.h>
#include "gcg-frame-queue-private.h"
#include "common/gcg-test-frame-batch.h"

#include <string.h>

#define SENTINEL 0xab
#define N_SOURCES 5

/* --- a fake completion source: slots pending until the test says ------- */

typedef struct
{
  GcgCompletion state[GCG_FRAME_QUEUE_MAX_DEPTH];
  guint records;
  guint waits;
} Fake;

static gboolean
fake_record (gpointer data, guint slot, GError **error)
{
  Fake *fake = data;

  fake->state[slot] = GCG_COMPLETION_PENDING;
  fake->records++;
  return TRUE;
}

static GcgCompletion
fake_query (gpointer data, guint slot, GError **error)
{
  Fake *fake = data;

  return fake->state[slot];
}

/* A wait completes the slot, as a GPU eventually would. */
static gboolean
fake_wait (gpointer data, guint slot, GError **error)
{
  Fake *fake = data;

  fake->waits++;
  fake->state[slot] = GCG_COMPLETION_DONE;
  return TRUE;
}

static const GcgCompletionOps fake_ops = { fake_record, fake_query, fake_wait };

/* --- the fixture --------------------------------------------------------- */

/* One submitted batch: its output, reference and what its callback saw. */
typedef struct
{
  guint8 *out;
  guint8 *ref;
  guint64 seq;
  guint n_items;
  guint ref_items;
  guint calls;
  guint64 done_seq;
  GError *error;
  GPtrArray *log;
} Job;

typedef struct
{
  GcgFrameBatchConfig config;
  GcgTestFrameBatch b;
  GcgFrameBatch *batch;
  GcgFrameQueue *queue;
  gsize out_size;
  Fake fake;
  GPtrArray *jobs;
  GPtrArray *retired;
} Test;

static void
job_free (Job *job)
{
  g_free (job->out);
  g_free (job->ref);
  g_clear_error (&job->error);
  g_free (job);
}

static void
on_done (GcgFrameQueue *queue, guint64 seq, const GError *error,
    gpointer user_data)
{
  Job *job = user_data;

  job->calls++;
  job->done_seq = seq;
  if (error)
    job->error = g_error_copy (error);
  g_ptr_array_add (job->log, job);
}

/* @depth slots; completion by the fake when @data is non-NULL. */
static void
test_setup (Test *t, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  guint depth = data ? 2 : 3;

  memset (t, 0, sizeof (*t));
  gcg_frame_batch_config_init (&t->config);
  t->config.out_width = 12;
  t->config.out_height = 10;
  t->config.max_sources = N_SOURCES;
  t->config.max_rois = 3;
  gcg_test_frame_batch_init (&t->b, &t->config, N_SOURCES, 7);
  t->batch = gcg_frame_batch_new (&t->config, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  t->queue = gcg_frame_queue_new (NULL, NULL, NULL, depth, &error);
  g_assert_no_error (error);
  if (data)
    gcg__frame_queue_set_completion (t->queue, &fake_ops, &t->fake);
  t->out_size = gcg_frame_batch_get_output_size (t->batch);
  t->jobs = g_ptr_array_new_with_free_func ((GDestroyNotify) job_free);
  t->retired = g_ptr_array_new ();
}

static void
test_teardown (Test *t, gconstpointer data)
{
  g_clear_object (&t->queue);
  for (guint i = 0; i < t->jobs->len; i++)
    g_assert_cmpuint (((Job *) g_ptr_array_index (t->jobs, i))->calls, <=, 1);
  g_clear_object (&t->batch);
  g_ptr_array_unref (t->retired);
  g_ptr_array_unref (t->jobs);
  gcg_test_frame_batch_clear (&t->b);
}

/* Source @i's planes in host memory. */
static void
source_planes (Test *t, guint i, GcgFramePlanes *planes)
{
  gcg_test_planes_init (planes, &t->b.frames[i].layout, GCG_MEMORY_KIND_HOST,
      (guint64) (guintptr) t->b.frames[i].data);
}

static void
output_planes (Job *job, gsize size, GcgFramePlanes *planes)
{
  memset (planes, 0, sizeof (*planes));
  planes->kind = GCG_MEMORY_KIND_HOST;
  planes->n_planes = 1;
  planes->data[0] = (guint64) (guintptr) job->out;
  planes->size[0] = size;
}

/* Batch @k of @n sources, in reverse order from source @n - 1, submitted;
 * its reference worked out.  The output is preset to the sentinel. */
static Job *
submit_batch (Test *t, guint n, guint k)
{
  GcgFrameBatchSource sources[N_SOURCES];
  GcgFrameParams params[N_SOURCES];
  GcgFramePlanes in[N_SOURCES], out;
  guint order[N_SOURCES];
  g_autoptr (GError) error = NULL;
  Job *job = g_new0 (Job, 1);

  job->out = g_malloc (t->out_size);
  job->ref = g_malloc (t->out_size);
  job->log = t->retired;
  memset (job->out, SENTINEL, t->out_size);
  memset (job->ref, SENTINEL, t->out_size);
  for (guint j = 0; j < n; j++) {
    order[j] = n - 1 - j;
    sources[j] = t->b.frames[order[j]].source;
    gcg_test_frame_batch_params (&t->b, order[j], k, 0, &params[j]);
    /* The queue fills the addresses in. */
    memset (params[j].src, 0, sizeof (params[j].src));
    source_planes (t, order[j], &in[j]);
  }
  output_planes (job, t->out_size, &out);
  job->ref_items =
      gcg_test_frame_batch_reference (&t->b, order, n, k, job->ref);
  g_assert_true (gcg_frame_queue_submit_batch (t->queue, t->batch, n, sources,
      params, in, &out, on_done, job, &job->n_items, &job->seq, &error));
  g_assert_no_error (error);
  g_ptr_array_add (t->jobs, job);
  return job;
}

static void
assert_job_ok (Test *t, Job *job)
{
  g_assert_cmpuint (job->calls, ==, 1);
  g_assert_cmpuint (job->done_seq, ==, job->seq);
  g_assert_no_error (job->error);
  g_assert_cmpuint (job->n_items, ==, job->ref_items);
  gcg_test_frame_batch_assert_equal (&t->b, job->out, job->ref, t->out_size);
}

static void
assert_retired_in_order (Test *t, guint n)
{
  g_assert_cmpuint (t->retired->len, ==, n);
  for (guint i = 0; i < n; i++) {
    Job *job = g_ptr_array_index (t->retired, i);

    g_assert_cmpuint (job->done_seq, ==, i + 1);
  }
}

/* --- tests --------------------------------------------------------------- */

/* The CPU backend: each batch is written and retired inside its submit,
 * equal to one chain per source, whatever the batch's size and values. */
static void
test_cpu (Test *t, gconstpointer data)
{
  for (guint k = 0; k < 8; k++) {
    Job *job = submit_batch (t, 1 + k % N_SOURCES, k);

    assert_job_ok (t, job);
    g_assert_cmpuint (job->seq, ==, k + 1);
    g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 0);
  }
  assert_retired_in_order (t, 8);
  g_assert_cmpuint (gcg_frame_queue_get_slot_waits (t->queue), ==, 0);
  g_assert_cmpuint (gcg_frame_batch_get_eager_count (t->batch), ==, 8);
}

/* Batches stay queued until done: callbacks in order, a slot reused only
 * once its batch is retired (depth 2: the third batch waits for the
 * first), poll without waiting, wait for one. */
static void
test_order_and_reuse (Test *t, gconstpointer data)
{
  Job *j[4];

  j[0] = submit_batch (t, 2, 0);
  j[1] = submit_batch (t, N_SOURCES, 1);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 2);
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 0);
  g_assert_cmpuint (t->retired->len, ==, 0);

  /* Batch 2 done first: it waits for batch 1. */
  t->fake.state[j[1]->seq % 2] = GCG_COMPLETION_DONE;
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 0);

  /* No free slot: the submit waits for batch 1 and retires both. */
  j[2] = submit_batch (t, 3, 2);
  g_assert_cmpuint (gcg_frame_queue_get_slot_waits (t->queue), ==, 1);
  g_assert_cmpuint (t->fake.waits, ==, 1);
  assert_retired_in_order (t, 2);
  assert_job_ok (t, j[0]);
  assert_job_ok (t, j[1]);
  g_assert_cmpuint (j[2]->calls, ==, 0);

  j[3] = submit_batch (t, 1, 3);
  g_assert_true (gcg_frame_queue_wait (t->queue, j[2]->seq, NULL));
  assert_retired_in_order (t, 3);
  g_assert_cmpuint (j[3]->calls, ==, 0);
  gcg_frame_queue_drain (t->queue);
  assert_retired_in_order (t, 4);
  assert_job_ok (t, j[2]);
  assert_job_ok (t, j[3]);
  g_assert_cmpuint (t->fake.records, ==, 4);
}

/* Cancel retires every batch in flight with CANCELLED, in order; the
 * queue goes on afterwards. */
static void
test_cancel (Test *t, gconstpointer data)
{
  Job *j[3];

  j[0] = submit_batch (t, 2, 0);
  j[1] = submit_batch (t, 4, 1);
  gcg_frame_queue_cancel (t->queue);
  assert_retired_in_order (t, 2);
  for (guint i = 0; i < 2; i++) {
    g_assert_cmpuint (j[i]->calls, ==, 1);
    g_assert_error (j[i]->error, GCG_ERROR, GCG_ERROR_CANCELLED);
  }
  j[2] = submit_batch (t, 3, 2);
  gcg_frame_queue_drain (t->queue);
  assert_retired_in_order (t, 3);
  assert_job_ok (t, j[2]);
}

/* A refused batch sets INVALID_ARGUMENT and queues nothing. */
static void
assert_refused (Test *t, guint n, const GcgFrameBatchSource *sources,
    GcgFrameParams *params, const GcgFramePlanes *in, const GcgFramePlanes *out,
    const gchar *what)
{
  g_autoptr (GError) error = NULL;
  guint64 submitted = gcg_frame_queue_get_submitted (t->queue);
  guint64 seq = 0;
  Job job = { 0 };

  job.log = t->retired;
  g_assert_false (gcg_frame_queue_submit_batch (t->queue, t->batch, n, sources,
      params, in, out, on_done, &job, NULL, &seq, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, what));
  g_assert_cmpuint (seq, ==, 0);
  g_assert_cmpuint (job.calls, ==, 0);
  g_assert_cmpuint (gcg_frame_queue_get_submitted (t->queue), ==, submitted);
}

static void
test_arguments (Test *t, gconstpointer data)
{
  GcgFrameBatchSource sources[N_SOURCES + 1];
  GcgFrameParams params[N_SOURCES + 1];
  GcgFramePlanes in[N_SOURCES + 1], out, bad;
  g_autofree guint8 *buf = g_malloc (t->out_size);
  Job sink = { 0 };

  sink.out = buf;
  for (guint i = 0; i <= N_SOURCES; i++) {
    guint s = i % N_SOURCES;

    sources[i] = t->b.frames[s].source;
    gcg_test_frame_batch_params (&t->b, s, 0, 0, &params[i]);
    source_planes (t, s, &in[i]);
  }
  output_planes (&sink, t->out_size, &out);

  /* Too many sources, or none. */
  assert_refused (t, N_SOURCES + 1, sources, params, in, &out, "sources");
  assert_refused (t, 0, sources, params, in, &out, "sources");
  /* NULL arrays. */
  assert_refused (t, 2, NULL, params, in, &out, "needs");
  assert_refused (t, 2, sources, NULL, in, &out, "needs");
  assert_refused (t, 2, sources, params, NULL, &out, "needs");
  assert_refused (t, 2, sources, params, in, NULL, "needs");
  /* A plane with no memory, named by its source. */
  bad = in[1];
  in[1].data[0] = 0;
  assert_refused (t, 2, sources, params, in, &out, "Batch source 1");
  in[1] = bad;
  /* Planes too small for their source's rows. */
  in[0].size[0] = 1;
  assert_refused (t, 2, sources, params, in, &out, "Batch source 0");
  source_planes (t, 0, &in[0]);
  /* Fewer planes than the source's format has. */
  in[1].n_planes = 0;
  assert_refused (t, 2, sources, params, in, &out, "Batch source 1");
  source_planes (t, 1, &in[1]);
  /* An output smaller than the tensor, or in two planes. */
  out.size[0] = t->out_size - 1;
  assert_refused (t, 2, sources, params, in, &out, "tensor");
  out.size[0] = t->out_size;
  out.n_planes = 2;
  out.data[1] = out.data[0];
  out.size[1] = 1;
  assert_refused (t, 2, sources, params, in, &out, "tensor");
  output_planes (&sink, t->out_size, &out);
  /* Device memory on the CPU backend. */
  in[1].kind = GCG_MEMORY_KIND_DEVICE;
  assert_refused (t, 2, sources, params, in, &out, "host memory");
  source_planes (t, 1, &in[1]);
  /* The engine's own check (an impossible ROI count): nothing queued. */
  params[0].n_rois = t->config.max_rois + 1;
  assert_refused (t, 2, sources, params, in, &out, "Batch source 0");

  g_assert_cmpuint (t->retired->len, ==, 0);
}

/* A frame is a batch of one: a batch made for source 0's frames runs
 * through gcg_frame_queue_submit_frame() and, as a batch of one source,
 * through gcg_frame_queue_submit_batch(), each equal to the reference of
 * that source alone; a batch of several sources is refused as a frame. */
static void
test_one_frame (Test *t, gconstpointer data)
{
  const GcgFrameBatchSource *source = &t->b.frames[0].source;
  g_autoptr (GcgFrameBatch) one = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree guint8 *ref = g_malloc (t->out_size);
  g_autofree guint8 *out = g_malloc (t->out_size);
  GcgFrameChainConfig c;
  GcgFrameParams params;
  GcgFramePlanes in, planes;
  const guint first = 0;
  guint items, n_items = 0;
  gsize used;
  Job job = { 0 };

  gcg_test_frame_batch_frame_config (&t->b, 0, &c);
  one = gcg_frame_batch_new_for_frame (&c, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  /* The reference zeroes a whole batch's tail: compare one frame's. */
  items = gcg_test_frame_batch_reference (&t->b, &first, 1, 1, ref);
  used = gcg_frame_batch_get_output_size (one);
  job.out = out;
  source_planes (t, 0, &in);
  output_planes (&job, used, &planes);

  memset (out, SENTINEL, t->out_size);
  gcg_test_frame_batch_params (&t->b, 0, 1, 0, &params);
  g_assert_true (gcg_frame_queue_submit_frame (t->queue, one, &params, &in,
      &planes, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (out, used, ref, used);

  memset (out, SENTINEL, t->out_size);
  gcg_test_frame_batch_params (&t->b, 0, 1, 0, &params);
  g_assert_true (gcg_frame_queue_submit_batch (t->queue, one, 1, source,
      &params, &in, &planes, NULL, NULL, &n_items, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n_items, ==, items);
  g_assert_cmpmem (out, used, ref, used);

  output_planes (&job, t->out_size, &planes);
  g_assert_false (gcg_frame_queue_submit_frame (t->queue, t->batch, &params,
      &in, &planes, NULL, NULL, NULL, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcg_frame_queue_get_submitted (t->queue), ==, 2);
}

int
main (int argc, char **argv)
{
  static const gboolean fake = TRUE;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

#define ADD(path, setup, fn) \
  g_test_add (path, Test, setup, test_setup, fn, test_teardown)
  ADD ("/frame-queue-batch/cpu", NULL, test_cpu);
  ADD ("/frame-queue-batch/order-and-reuse", &fake, test_order_and_reuse);
  ADD ("/frame-queue-batch/cancel", &fake, test_cancel);
  ADD ("/frame-queue-batch/arguments", NULL, test_arguments);
  ADD ("/frame-queue-batch/one-frame", NULL, test_one_frame);
#undef ADD

  return g_test_run ();
}
