/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GcgFrameQueue's slot logic without a GPU: a CPU-backend queue whose
 * completion source is a fake that finishes frames only when the test says
 * (record, wait and done callbacks go to a log).  Real frames in host
 * memory, each output checked against a direct gcg_frame_chain_process()
 * run: callbacks once per frame in submission order; a slot reused only
 * after its frame is done; poll without waiting; drain; cancel and failed
 * frames; a caps change with frames in flight; a chain kept alive by its
 * frames in flight; wait_ready (also from a
 * second thread); refused arguments; zeroed tensor items past the ROI
 * count; a failing record; dispose with frames in flight.
 */
#include <gcg.h>
#include "gcg-frame-queue-private.h"
#include "common/gcg-test-layout.h"

#include <math.h>
#include <string.h>

#define SENTINEL 0xab

/* --- the fake completion source ---------------------------------------- */

/* Frames are pending from record until the test completes or fails them;
 * wait completes a pending frame, as a GPU eventually would (or, when
 * @blocking, sleeps until the test does).  Slots are mapped to frames by
 * their records, so the fake does not assume the queue's slot order. */
typedef struct
{
  GMutex lock;
  GCond cond;
  GcgCompletion state[GCG_FRAME_QUEUE_MAX_DEPTH];
  guint64 seq_of[GCG_FRAME_QUEUE_MAX_DEPTH];
  gchar *failure[GCG_FRAME_QUEUE_MAX_DEPTH];
  guint64 recorded;
  guint queries;
  guint waits;
  /* How many times a waiter went (back) to sleep on a pending frame:
   * a handshake for the tests (fake_await_sleeps), not a timing. */
  guint sleeps;
  gboolean blocking;
  gboolean fail_record;
  GString *log;
} Fake;

static void
fake_init (Fake *fake)
{
  memset (fake, 0, sizeof (*fake));
  g_mutex_init (&fake->lock);
  g_cond_init (&fake->cond);
  fake->log = g_string_new (NULL);
  for (guint i = 0; i < GCG_FRAME_QUEUE_MAX_DEPTH; i++)
    fake->state[i] = GCG_COMPLETION_DONE;
}

static void
fake_clear (Fake *fake)
{
  for (guint i = 0; i < GCG_FRAME_QUEUE_MAX_DEPTH; i++)
    g_free (fake->failure[i]);
  g_string_free (fake->log, TRUE);
  g_mutex_clear (&fake->lock);
  g_cond_clear (&fake->cond);
}

/* Appends one event ("record 3", "wait 1", "done 1") to the log. */
static void
fake_log_locked (Fake *fake, const gchar *what, guint64 seq)
{
  if (fake->log->len > 0)
    g_string_append_c (fake->log, ' ');
  g_string_append_printf (fake->log, "%s %" G_GUINT64_FORMAT, what, seq);
}

static void
fake_log (Fake *fake, const gchar *what, guint64 seq)
{
  g_mutex_lock (&fake->lock);
  fake_log_locked (fake, what, seq);
  g_mutex_unlock (&fake->lock);
}

/* The log since the last call, emptied. */
static gchar *
fake_take_log (Fake *fake)
{
  gchar *log;

  g_mutex_lock (&fake->lock);
  log = g_strdup (fake->log->str);
  g_string_truncate (fake->log, 0);
  g_mutex_unlock (&fake->lock);
  return log;
}

static void
fake_assert_log (Fake *fake, const gchar *want)
{
  g_autofree gchar *log = fake_take_log (fake);

  g_assert_cmpstr (log, ==, want);
}

static gboolean
fake_record (gpointer data, guint slot, GError **error)
{
  Fake *fake = data;

  g_assert_cmpuint (slot, <, GCG_FRAME_QUEUE_MAX_DEPTH);
  g_mutex_lock (&fake->lock);
  if (fake->fail_record) {
    fake->fail_record = FALSE;
    g_mutex_unlock (&fake->lock);
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_DRIVER,
        "fake: record failed on demand");
    return FALSE;
  }
  /* The slot must be free: its last frame done (and retired). */
  g_assert_cmpint (fake->state[slot], !=, GCG_COMPLETION_PENDING);
  fake->seq_of[slot] = ++fake->recorded;
  fake->state[slot] = GCG_COMPLETION_PENDING;
  g_clear_pointer (&fake->failure[slot], g_free);
  fake_log_locked (fake, "record", fake->seq_of[slot]);
  g_mutex_unlock (&fake->lock);
  return TRUE;
}

static GcgCompletion
fake_query (gpointer data, guint slot, GError **error)
{
  Fake *fake = data;
  GcgCompletion state;

  g_mutex_lock (&fake->lock);
  fake->queries++;
  state = fake->state[slot];
  if (state == GCG_COMPLETION_FAILED)
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_DRIVER,
        fake->failure[slot]);
  g_mutex_unlock (&fake->lock);
  return state;
}

static gboolean
fake_wait (gpointer data, guint slot, GError **error)
{
  Fake *fake = data;
  gboolean ok;

  g_mutex_lock (&fake->lock);
  fake->waits++;
  fake_log_locked (fake, "wait", fake->seq_of[slot]);
  while (fake->blocking && fake->state[slot] == GCG_COMPLETION_PENDING) {
    fake->sleeps++;
    g_cond_broadcast (&fake->cond);
    g_cond_wait (&fake->cond, &fake->lock);
  }
  if (fake->state[slot] == GCG_COMPLETION_PENDING)
    fake->state[slot] = GCG_COMPLETION_DONE;
  ok = fake->state[slot] == GCG_COMPLETION_DONE;
  if (!ok)
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_DRIVER,
        fake->failure[slot]);
  g_mutex_unlock (&fake->lock);
  return ok;
}

static const GcgCompletionOps fake_ops = { fake_record, fake_query, fake_wait };

/* The slot of frame @seq, which must be the last frame recorded there. */
static guint
fake_slot_locked (Fake *fake, guint64 seq)
{
  for (guint i = 0; i < GCG_FRAME_QUEUE_MAX_DEPTH; i++) {
    if (fake->seq_of[i] == seq)
      return i;
  }
  g_error ("frame %" G_GUINT64_FORMAT " was never recorded", seq);
  return 0;
}

/* The "device" finishes frame @seq. */
static void
fake_complete (Fake *fake, guint64 seq)
{
  g_mutex_lock (&fake->lock);
  fake->state[fake_slot_locked (fake, seq)] = GCG_COMPLETION_DONE;
  g_cond_broadcast (&fake->cond);
  g_mutex_unlock (&fake->lock);
}

static void
fake_fail (Fake *fake, guint64 seq, const gchar *message)
{
  guint slot;

  g_mutex_lock (&fake->lock);
  slot = fake_slot_locked (fake, seq);
  fake->state[slot] = GCG_COMPLETION_FAILED;
  g_free (fake->failure[slot]);
  fake->failure[slot] = g_strdup (message);
  g_cond_broadcast (&fake->cond);
  g_mutex_unlock (&fake->lock);
}

/* Returns once waiters went to sleep on a pending frame @n times in all:
 * a waiter counted there has seen its frame pending, whatever the
 * scheduler did. */
static void
fake_await_sleeps (Fake *fake, guint n)
{
  g_mutex_lock (&fake->lock);
  while (fake->sleeps < n)
    g_cond_wait (&fake->cond, &fake->lock);
  g_mutex_unlock (&fake->lock);
}

static guint
fake_waits (Fake *fake)
{
  guint n;

  g_mutex_lock (&fake->lock);
  n = fake->waits;
  g_mutex_unlock (&fake->lock);
  return n;
}

/* --- frames -------------------------------------------------------------- */

/* Host memory: the frame's planes in place at @base. */
static void
planes_init (GcgFramePlanes *p, const GcgTestLayout *l, guint8 *base)
{
  gcg_test_planes_init (p, l, GCG_MEMORY_KIND_HOST, (guint64) (guintptr) base);
}

/* --- jobs: one frame, its memory and its expected output ----------------- */

typedef struct _Test Test;

typedef struct
{
  Test *t;
  guint64 seq;                  /* the sequence number it must get */
  GcgFrameChainConfig config;
  GcgFrameParams params;
  GcgTestLayout in_layout, out_layout;
  guint8 *in, *out, *want;
  GcgFramePlanes in_planes, out_planes;
  guint calls;
  guint64 done_seq;
  GError *error;
} Job;

struct _Test
{
  Fake fake;
  GcgFrameQueue *queue;
  GcgFrameChainConfig config;   /* of the frames job_new() makes */
  GcgFrameChain *chain;         /* a CPU chain of config */
  GPtrArray *jobs;              /* owned */
  GPtrArray *retired;           /* Job, in callback order */
};

static void
job_free (Job *job)
{
  g_free (job->in);
  g_free (job->out);
  g_free (job->want);
  g_clear_error (&job->error);
  g_free (job);
}

static GcgFrameChain *
cpu_chain (const GcgFrameChainConfig *c)
{
  g_autoptr (GError) error = NULL;
  GcgFrameChain *chain = gcg_frame_chain_new (c, GCG_BACKEND_CPU, NULL, &error);

  g_assert_no_error (error);
  return chain;
}

/* Values that change from frame to frame: crop, gain, brightness. */
static void
frame_params (GcgFrameParams *p, const GcgFrameChainConfig *c, guint64 n)
{
  gcg_frame_params_init (p);
  p->gain = 1.0f + 0.05f * (n % 3);
  p->brightness = 0.02f * (n % 5) - 0.04f;
  p->contrast = 1.0f - 0.03f * (n % 2);
  p->rois[0] = (GcgRect) { (gint) (n % 3), (gint) (n % 2),
    (gint) c->in_width - 3, (gint) c->in_height - 2 };
  p->n_rois = 1;
  p->pad[0] = 10;
  p->pad[1] = 20;
  p->pad[2] = 30;
  p->pad[3] = 255;
  p->frame_number = n;
  if (c->output == GCG_OUTPUT_KIND_TENSOR) {
    static const gfloat mean[3] = { 0.485f, 0.456f, 0.406f };
    static const gfloat std[3] = { 0.229f, 0.224f, 0.225f };

    gcg_frame_params_set_mean_std (p, mean, std);
  }
}

/* Zero the tensor items the frame's ROIs do not cover, as the queue does. */
static void
zero_unused_items (const GcgFrameChainConfig *c, const GcgFrameParams *p,
    guint8 *out)
{
  gsize total, item;
  guint used = MAX (p->n_rois, 1);

  if (c->output != GCG_OUTPUT_KIND_TENSOR || used >= c->max_rois)
    return;
  total = gcg_frame_chain_config_get_output_size (c);
  item = total / c->max_rois;
  memset (out + item * used, 0, total - item * used);
}

/* The expected output: a direct run of a second CPU chain on the same
 * input and values, into memory filled like the job's output. */
static void
job_compute_want (Job *job, guint8 fill)
{
  g_autoptr (GcgFrameChain) ref = cpu_chain (&job->config);
  g_autoptr (GError) error = NULL;
  GcgFrameParams p = job->params;

  memset (job->want, fill, job->out_layout.size + 64);
  for (guint i = 0; i < 3; i++) {
    p.src[i] = i < job->in_planes.n_planes ? job->in_planes.data[i] : 0;
    p.src_stride[i] = job->in_layout.stride[i];
    p.dst[i] = i < job->out_planes.n_planes
        ? (guint64) (guintptr) (job->want + job->out_layout.offset[i])
        : 0;
    p.dst_stride[i] = job->out_layout.stride[i];
  }
  g_assert_true (gcg_frame_chain_process (ref, &p, NULL, &error));
  g_assert_no_error (error);
  zero_unused_items (&job->config, &job->params, job->want);
}

/* A frame of @config with random input, frame values for @seq (unless
 * @params), output filled with @fill. */
static Job *
job_new_full (Test *t, const GcgFrameChainConfig *config, guint64 seq,
    const GcgFrameParams *params, guint8 fill)
{
  Job *job = g_new0 (Job, 1);
  GRand *rand = g_rand_new_with_seed ((guint32) (seq * 7919 + 13));

  job->t = t;
  job->seq = seq;
  job->config = *config;
  if (params)
    job->params = *params;
  else
    frame_params (&job->params, config, seq);
  gcg_test_layout_video (&job->in_layout, config->in_format, config->in_width,
      config->in_height, 4);
  gcg_test_layout_output (&job->out_layout, config, 8);
  job->in = g_malloc (job->in_layout.size);
  for (gsize i = 0; i < job->in_layout.size; i++)
    job->in[i] = (guint8) g_rand_int_range (rand, 0, 256);
  g_rand_free (rand);
  /* 64 guard bytes after the output catch writes past it. */
  job->out = g_malloc (job->out_layout.size + 64);
  memset (job->out, fill, job->out_layout.size + 64);
  job->want = g_malloc (job->out_layout.size + 64);
  planes_init (&job->in_planes, &job->in_layout, job->in);
  planes_init (&job->out_planes, &job->out_layout, job->out);
  job_compute_want (job, fill);
  g_ptr_array_add (t->jobs, job);
  return job;
}

/* Frame @seq of the test's configuration. */
static Job *
job_new (Test *t, guint64 seq)
{
  return job_new_full (t, &t->config, seq, NULL, SENTINEL);
}

static void
on_done (GcgFrameQueue *queue, guint64 seq, const GError *error,
    gpointer user_data)
{
  Job *job = user_data;

  g_assert_true (queue == job->t->queue);
  job->calls++;
  job->done_seq = seq;
  g_clear_error (&job->error);
  if (error)
    job->error = g_error_copy (error);
  g_ptr_array_add (job->t->retired, job);
  fake_log (&job->t->fake, "done", seq);
}

static void
submit (Test *t, GcgFrameChain *chain, Job *job)
{
  g_autoptr (GError) error = NULL;
  GcgFrameParams p = job->params;
  guint64 seq = 0;

  g_assert_true (gcg_frame_queue_submit (t->queue, chain, &p, &job->in_planes,
      &job->out_planes, on_done, job, &seq, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (seq, ==, job->seq);
  g_assert_cmpuint (gcg_frame_queue_get_submitted (t->queue), ==, seq);
  /* The queue filled in the plane addresses (host memory in place). */
  for (guint i = 0; i < job->in_planes.n_planes; i++) {
    g_assert_cmphex (p.src[i], ==, job->in_planes.data[i]);
    g_assert_cmpint (p.src_stride[i], ==, job->in_planes.stride[i]);
  }
  g_assert_cmphex (p.dst[0], ==, job->out_planes.data[0]);
}

/* Frame @seq of @config, made and submitted through @chain. */
static Job *
submit_new_with (Test *t, GcgFrameChain *chain,
    const GcgFrameChainConfig *config, guint64 seq)
{
  Job *job = job_new_full (t, config, seq, NULL, SENTINEL);

  submit (t, chain, job);
  return job;
}

/* Frame @seq of the test's configuration, made and submitted. */
static Job *
submit_new (Test *t, guint64 seq)
{
  return submit_new_with (t, t->chain, &t->config, seq);
}

/* Frames @from + 1 to @to, made and submitted one after the other, into
 * @j[@from] to @j[@to - 1]. */
static void
submit_range (Test *t, Job **j, guint from, guint to)
{
  for (guint i = from; i < to; i++)
    j[i] = submit_new (t, i + 1);
}

/* Retired once, without error, with the right output. */
static void
assert_job_ok (Job *job)
{
  g_assert_cmpuint (job->calls, ==, 1);
  g_assert_cmpuint (job->done_seq, ==, job->seq);
  g_assert_no_error (job->error);
  g_assert_cmpmem (job->out, job->out_layout.size + 64, job->want,
      job->out_layout.size + 64);
}

static void
assert_job_error (Job *job, gint code)
{
  g_assert_cmpuint (job->calls, ==, 1);
  g_assert_cmpuint (job->done_seq, ==, job->seq);
  g_assert_error (job->error, GCG_ERROR, code);
}

/* The jobs retired so far, in callback order, are @jobs (NULL-ended). */
static void
assert_retired (Test *t, Job *first, ...)
{
  va_list ap;
  guint i = 0;

  va_start (ap, first);
  for (Job *job = first; job; job = va_arg (ap, Job *), i++) {
    g_assert_cmpuint (i, <, t->retired->len);
    g_assert_true (g_ptr_array_index (t->retired, i) == job);
  }
  va_end (ap);
  g_assert_cmpuint (t->retired->len, ==, i);
}

/* What a test's fixture is made of: a queue of @depth, whose frames the
 * fake completes (when @fake) or the CPU backend itself, and a CPU chain of
 * the configuration @config makes. */
typedef struct
{
  guint depth;
  gboolean fake;
  void (*config) (GcgFrameChainConfig *c);
} Setup;

static void
test_setup (Test *t, gconstpointer data)
{
  const Setup *setup = data;
  guint depth = setup->depth;
  g_autoptr (GError) error = NULL;

  memset (t, 0, sizeof (*t));
  fake_init (&t->fake);
  t->jobs = g_ptr_array_new_with_free_func ((GDestroyNotify) job_free);
  t->retired = g_ptr_array_new ();
  t->queue = gcg_frame_queue_new (NULL, NULL, NULL, depth, &error);
  g_assert_no_error (error);
  g_assert_nonnull (t->queue);
  g_assert_null (gcg_frame_queue_get_stream (t->queue));
  g_assert_cmpuint (gcg_frame_queue_get_depth (t->queue), ==, depth);
  if (setup->fake)
    gcg__frame_queue_set_completion (t->queue, &fake_ops, &t->fake);
  setup->config (&t->config);
  t->chain = cpu_chain (&t->config);
}

static void
test_teardown (Test *t, gconstpointer data)
{
  /* Dispose cancels what is left; every job has been retired by then. */
  g_clear_object (&t->queue);
  g_clear_object (&t->chain);
  for (guint i = 0; i < t->jobs->len; i++)
    g_assert_cmpuint (((Job *) g_ptr_array_index (t->jobs, i))->calls, <=, 1);
  g_ptr_array_unref (t->retired);
  g_ptr_array_unref (t->jobs);
  fake_clear (&t->fake);
}

/* --- configurations ------------------------------------------------------ */

/* A: NV12 16x12 -> RGBA 8x6, bilinear. */
static void
config_a (GcgFrameChainConfig *c)
{
  gcg_frame_chain_config_init (c);
  c->in_format = GCG_PIXEL_FORMAT_NV12;
  c->in_width = 16;
  c->in_height = 12;
  c->out_format = GCG_PIXEL_FORMAT_RGBA;
  c->out_width = 8;
  c->out_height = 6;
}

/* B: RGBA 22x14 -> I420 12x9, letterboxed, another size everywhere. */
static void
config_b (GcgFrameChainConfig *c)
{
  gcg_frame_chain_config_init (c);
  c->in_format = GCG_PIXEL_FORMAT_RGBA;
  c->in_width = 22;
  c->in_height = 14;
  c->out_format = GCG_PIXEL_FORMAT_I420;
  c->out_width = 12;
  c->out_height = 9;
  c->letterbox = GCG_LETTERBOX_SYMMETRIC;
}

/* T: NV12 16x12 -> float32 NCHW RGB 4x4, a batch of 3. */
static void
config_tensor (GcgFrameChainConfig *c)
{
  config_a (c);
  c->output = GCG_OUTPUT_KIND_TENSOR;
  c->out_width = 4;
  c->out_height = 4;
  c->max_rois = 3;
}

/* --- tests --------------------------------------------------------------- */

/* The CPU backend's own completion: each frame retires inside its submit;
 * asked for completion marks, it has no stream to mark and uses none. */
static void
test_cpu_completion (Test *t, gconstpointer data)
{
  gcg__frame_queue_set_marks (t->queue, TRUE);
  for (guint64 seq = 1; seq <= 7; seq++) {
    Job *job = submit_new (t, seq);

    assert_job_ok (job);
    g_assert_cmpuint (t->retired->len, ==, seq);
    g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 0);
  }
  g_assert_cmpuint (gcg_frame_queue_get_slot_waits (t->queue), ==, 0);
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 0);
  g_assert_true (gcg_frame_queue_wait (t->queue, 7, NULL));
  g_assert_true (gcg_frame_queue_wait_ready (t->queue, 7, NULL));
  g_assert_cmpuint (gcg__frame_queue_get_marked (t->queue), ==, 0);
}

/* Callbacks run once per frame, in submission order, with the frame's seq
 * and user_data, even when the device finishes them out of order. */
static void
test_order (Test *t, gconstpointer data)
{
  Job *j[6];

  submit_range (t, j, 0, 3);
  fake_assert_log (&t->fake, "record 1 record 2 record 3");
  g_assert_cmpuint (t->retired->len, ==, 0);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 3);
  g_assert_cmpuint (gcg_frame_queue_get_submitted (t->queue), ==, 3);
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 0);

  /* Frame 2 done before frame 1: it waits for frame 1. */
  fake_complete (&t->fake, 2);
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 0);
  g_assert_cmpuint (t->retired->len, ==, 0);
  fake_complete (&t->fake, 1);
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 2);
  assert_retired (t, j[0], j[1], NULL);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 1);

  /* More frames while 3 is pending, then all done at once. */
  submit_range (t, j, 3, 6);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 4);
  for (guint64 seq = 6; seq >= 3; seq--)
    fake_complete (&t->fake, seq);
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 4);
  assert_retired (t, j[0], j[1], j[2], j[3], j[4], j[5], NULL);
  for (guint i = 0; i < 6; i++)
    assert_job_ok (j[i]);
  fake_assert_log (&t->fake,
      "done 1 done 2 record 4 record 5 record 6 "
      "done 3 done 4 done 5 done 6");
  g_assert_cmpuint (fake_waits (&t->fake), ==, 0);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 0);
  g_assert_cmpuint (gcg_frame_queue_get_slot_waits (t->queue), ==, 0);
}

/* Depth 2, frames 1 and 2 pending: submitting frame 3 waits for frame 1's
 * slot and retires frame 1 before frame 3 is recorded there. */
static void
test_reuse_after_completion (Test *t, gconstpointer data)
{
  Job *j[4];

  submit_range (t, j, 0, 2);
  fake_assert_log (&t->fake, "record 1 record 2");
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 2);
  g_assert_cmpuint (gcg_frame_queue_get_slot_waits (t->queue), ==, 0);

  j[2] = submit_new (t, 3);
  fake_assert_log (&t->fake, "wait 1 done 1 record 3");
  assert_retired (t, j[0], NULL);
  assert_job_ok (j[0]);
  g_assert_cmpuint (j[1]->calls, ==, 0);
  g_assert_cmpuint (fake_waits (&t->fake), ==, 1);
  g_assert_cmpuint (gcg_frame_queue_get_slot_waits (t->queue), ==, 1);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 2);

  /* Frame 2 done on the device: poll retires it without waiting. */
  fake_complete (&t->fake, 2);
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 1);
  fake_assert_log (&t->fake, "done 2");
  g_assert_cmpuint (fake_waits (&t->fake), ==, 1);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 1);

  /* A free slot: frame 4 needs no wait although frame 3 is pending. */
  j[3] = submit_new (t, 4);
  fake_assert_log (&t->fake, "record 4");
  g_assert_cmpuint (gcg_frame_queue_get_slot_waits (t->queue), ==, 1);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 2);

  /* Frame 3 done, then a submit: the submit retires it first (poll), and
   * its slot is free again. */
  fake_complete (&t->fake, 3);
  {
    Job *j5 = submit_new (t, 5);

    fake_assert_log (&t->fake, "done 3 record 5");
    g_assert_cmpuint (gcg_frame_queue_get_slot_waits (t->queue), ==, 1);
    gcg_frame_queue_drain (t->queue);
    assert_retired (t, j[0], j[1], j[2], j[3], j5, NULL);
    assert_job_ok (j5);
  }
  for (guint i = 0; i < 4; i++)
    assert_job_ok (j[i]);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 0);
}

/* EOS: drain waits for every frame and retires them all, in order. */
static void
test_drain (Test *t, gconstpointer data)
{
  Job *j[4];

  submit_range (t, j, 0, 4);
  fake_complete (&t->fake, 3);
  g_free (fake_take_log (&t->fake));
  gcg_frame_queue_drain (t->queue);
  /* Frame 3 was done already: no wait for it. */
  fake_assert_log (&t->fake,
      "wait 1 done 1 wait 2 done 2 done 3 wait 4 "
      "done 4");
  assert_retired (t, j[0], j[1], j[2], j[3], NULL);
  for (guint i = 0; i < 4; i++)
    assert_job_ok (j[i]);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 0);
  /* Draining an empty queue does nothing. */
  gcg_frame_queue_drain (t->queue);
  g_assert_cmpuint (t->retired->len, ==, 4);

  /* Waiting past the last frame submitted waits for that one. */
  {
    Job *j5 = submit_new (t, 5), *j6 = submit_new (t, 6);

    g_assert_true (gcg_frame_queue_wait (t->queue, 9, NULL));
    assert_retired (t, j[0], j[1], j[2], j[3], j5, j6, NULL);
    g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 0);
    g_assert_cmpuint (gcg_frame_queue_get_submitted (t->queue), ==, 6);
    assert_job_ok (j5);
    assert_job_ok (j6);
    g_assert_true (gcg_frame_queue_wait (t->queue, 0, NULL));
  }
}

/* Flush or error: cancel gives up every frame (CANCELLED, or the frame's
 * own error), in order, and the queue goes on afterwards. */
static void
test_cancel (Test *t, gconstpointer data)
{
  Job *j[5];

  submit_range (t, j, 0, 4);
  fake_fail (&t->fake, 2, "fake: frame 2 failed");
  fake_complete (&t->fake, 3);
  gcg_frame_queue_cancel (t->queue);
  assert_retired (t, j[0], j[1], j[2], j[3], NULL);
  assert_job_error (j[0], GCG_ERROR_CANCELLED);
  assert_job_error (j[1], GCG_ERROR_DRIVER);
  g_assert_cmpstr (j[1]->error->message, ==, "fake: frame 2 failed");
  assert_job_error (j[2], GCG_ERROR_CANCELLED);
  assert_job_error (j[3], GCG_ERROR_CANCELLED);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 0);

  /* Cancelling is over: the next frame retires normally. */
  j[4] = submit_new (t, 5);
  fake_complete (&t->fake, 5);
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 1);
  assert_job_ok (j[4]);
}

/* A frame whose completion fails gets that error; wait on it says so;
 * the frames after it still retire. */
static void
test_failed_frame (Test *t, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  Job *j[5];

  submit_range (t, j, 0, 3);
  fake_fail (&t->fake, 2, "fake: frame 2 failed");
  g_assert_false (gcg_frame_queue_wait (t->queue, 2, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
  g_assert_cmpstr (error->message, ==, "fake: frame 2 failed");
  g_clear_error (&error);
  assert_retired (t, j[0], j[1], NULL);
  assert_job_ok (j[0]);
  assert_job_error (j[1], GCG_ERROR_DRIVER);
  g_assert_cmpstr (j[1]->error->message, ==, "fake: frame 2 failed");
  /* Retired already: at once, and its error is not reported twice. */
  g_assert_true (gcg_frame_queue_wait (t->queue, 2, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 1);

  /* A failure seen by poll: frame 4 fails, 3 and 5 are fine. */
  submit_range (t, j, 3, 5);
  fake_complete (&t->fake, 3);
  fake_fail (&t->fake, 4, "fake: frame 4 failed");
  fake_complete (&t->fake, 5);
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 3);
  assert_retired (t, j[0], j[1], j[2], j[3], j[4], NULL);
  assert_job_ok (j[2]);
  assert_job_error (j[3], GCG_ERROR_DRIVER);
  assert_job_ok (j[4]);

  /* Waiting for a later frame past a failed one: TRUE, the failure goes
   * to that frame's callback only. */
  {
    Job *a = submit_new (t, 6), *b = submit_new (t, 7);

    fake_fail (&t->fake, 6, "fake: frame 6 failed");
    g_assert_true (gcg_frame_queue_wait (t->queue, 7, &error));
    g_assert_no_error (error);
    assert_job_error (a, GCG_ERROR_DRIVER);
    assert_job_ok (b);
  }
}

/* Caps change: frames of chain A in flight, drain, then frames of chain B
 * (other sizes and formats); then both mixed without a drain. */
static void
test_caps_change (Test *t, gconstpointer data)
{
  GcgFrameChainConfig cb;
  g_autoptr (GcgFrameChain) b = NULL;
  Job *j[9];

  /* The test's own chain is A. */
  config_b (&cb);
  b = cpu_chain (&cb);
  submit_range (t, j, 0, 3);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 3);
  gcg_frame_queue_drain (t->queue);
  for (guint i = 3; i < 6; i++)
    j[i] = submit_new_with (t, b, &cb, i + 1);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 3);
  for (guint64 seq = 4; seq <= 6; seq++)
    fake_complete (&t->fake, seq);
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 3);
  for (guint i = 6; i < 9; i++)
    j[i] = i == 7 ? submit_new_with (t, b, &cb, i + 1) : submit_new (t, i + 1);
  gcg_frame_queue_drain (t->queue);
  assert_retired (t, j[0], j[1], j[2], j[3], j[4], j[5], j[6], j[7], j[8],
      NULL);
  for (guint i = 0; i < 9; i++)
    assert_job_ok (j[i]);
}

/* A chain dropped by its owner while its frames are in flight lives until
 * the last of them is retired (the device may still read its graph and
 * parameter slots), and not longer. */
static void
test_chain_kept (Test *t, gconstpointer data)
{
  GcgFrameChainConfig cb;
  GcgFrameChain *b;
  Job *j[2];

  config_b (&cb);
  b = cpu_chain (&cb);
  g_object_add_weak_pointer (G_OBJECT (b), (gpointer *) &b);
  j[0] = submit_new_with (t, b, &cb, 1);
  j[1] = submit_new_with (t, b, &cb, 2);
  g_object_unref (b);
  g_assert_nonnull (b);
  fake_complete (&t->fake, 1);
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 1);
  g_assert_nonnull (b);
  fake_complete (&t->fake, 2);
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 1);
  g_assert_null (b);
  assert_job_ok (j[0]);
  assert_job_ok (j[1]);
}

/* wait_ready: a retired frame and a frame not submitted yet return at
 * once; a pending one waits for its slot but retires nothing. */
static void
test_wait_ready (Test *t, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  Job *j[3];

  submit_range (t, j, 0, 3);
  fake_complete (&t->fake, 1);
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 1);
  g_free (fake_take_log (&t->fake));

  g_assert_true (gcg_frame_queue_wait_ready (t->queue, 1, &error));
  g_assert_no_error (error);
  fake_assert_log (&t->fake, "");

  g_assert_true (gcg_frame_queue_wait_ready (t->queue, 2, &error));
  g_assert_no_error (error);
  fake_assert_log (&t->fake, "wait 2");
  g_assert_cmpuint (j[1]->calls, ==, 0);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 2);

  /* Not submitted (yet): nothing to wait for. */
  g_assert_true (gcg_frame_queue_wait_ready (t->queue, 4, &error));
  g_assert_no_error (error);
  g_assert_true (gcg_frame_queue_wait_ready (t->queue, G_MAXUINT64, &error));
  g_assert_no_error (error);
  fake_assert_log (&t->fake, "");

  /* Frame 2 is done now: poll retires it without a wait. */
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 1);
  fake_assert_log (&t->fake, "done 2");

  /* A failed frame: wait_ready reports it, and retires nothing. */
  fake_fail (&t->fake, 3, "fake: frame 3 failed");
  g_assert_false (gcg_frame_queue_wait_ready (t->queue, 3, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
  g_clear_error (&error);
  g_assert_cmpuint (j[2]->calls, ==, 0);
  gcg_frame_queue_drain (t->queue);
  assert_retired (t, j[0], j[1], j[2], NULL);
  assert_job_ok (j[0]);
  assert_job_ok (j[1]);
  assert_job_error (j[2], GCG_ERROR_DRIVER);
}

typedef struct
{
  GcgFrameQueue *queue;
  guint64 seq;
  gint returned;
  gboolean ok;
} Waiter;

static gpointer
waiter_thread (gpointer data)
{
  Waiter *w = data;

  w->ok = gcg_frame_queue_wait_ready (w->queue, w->seq, NULL);
  g_atomic_int_set (&w->returned, 1);
  return NULL;
}

/* wait_ready from a second thread returns only once the frame is done. */
static void
test_wait_ready_thread (Test *t, gconstpointer data)
{
  Job *j[2];
  Waiter w = { 0 };
  GThread *thread;

  t->fake.blocking = TRUE;
  submit_range (t, j, 0, 2);
  w.queue = t->queue;
  w.seq = 2;
  thread = g_thread_new ("waiter", waiter_thread, &w);
  /* The waiter is asleep on frame 2 (a handshake, not a sleep: a
   * waiter that never ran cannot pass). */
  fake_await_sleeps (&t->fake, 1);
  g_assert_cmpint (g_atomic_int_get (&w.returned), ==, 0);
  /* Frame 1 done is not enough: the waiter wakes, sees frame 2 still
   * pending and sleeps again. */
  fake_complete (&t->fake, 1);
  fake_await_sleeps (&t->fake, 2);
  g_assert_cmpint (g_atomic_int_get (&w.returned), ==, 0);
  fake_complete (&t->fake, 2);
  g_thread_join (thread);
  g_assert_true (w.ok);
  /* It retired nothing; the driving thread does. */
  g_assert_cmpuint (t->retired->len, ==, 0);
  g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 2);
  assert_job_ok (j[0]);
  assert_job_ok (j[1]);
}

static void
expect_refused (Test *t, Job *job, const GcgFramePlanes *in,
    const GcgFramePlanes *out, const GcgFrameParams *params)
{
  g_autoptr (GError) error = NULL;
  GcgFrameParams p = params ? *params : job->params;
  guint64 submitted = gcg_frame_queue_get_submitted (t->queue);
  guint in_flight = gcg_frame_queue_get_in_flight (t->queue);
  guint retired = t->retired->len;
  guint64 seq = 12345;

  g_assert_false (gcg_frame_queue_submit (t->queue, t->chain, &p, in, out,
      on_done, job, &seq, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcg_frame_queue_get_submitted (t->queue), ==, submitted);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, in_flight);
  g_assert_cmpuint (t->retired->len, ==, retired);
  g_assert_cmpuint (job->calls, ==, 0);
}

/* Refused arguments: GError, nothing queued, the callback never called,
 * the frames in flight untouched, no sequence number used up. */
static void
test_arguments (Test *t, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  GcgFrameQueue *queue;
  GcgFramePlanes in, out;
  GcgFrameParams p;
  Job *first, *bad, *next;

  queue = gcg_frame_queue_new (NULL, NULL, NULL, 0, &error);
  g_assert_null (queue);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  queue = gcg_frame_queue_new (NULL, NULL, NULL, GCG_FRAME_QUEUE_MAX_DEPTH + 1,
      &error);
  g_assert_null (queue);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  queue =
      gcg_frame_queue_new (NULL, NULL, NULL, GCG_FRAME_QUEUE_MAX_DEPTH, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcg_frame_queue_get_depth (queue), ==,
      GCG_FRAME_QUEUE_MAX_DEPTH);
  g_object_unref (queue);

  first = job_new (t, 1);
  bad = job_new (t, 0);
  next = job_new (t, 2);
  /* Twice: on an empty queue, then with a frame in flight. */
  for (guint round = 0; round < 2; round++) {
    if (round == 1)
      submit (t, t->chain, first);

    in = bad->in_planes;
    in.n_planes = 0;
    expect_refused (t, bad, &in, &bad->out_planes, NULL);
    in.n_planes = 4;
    expect_refused (t, bad, &in, &bad->out_planes, NULL);
    out = bad->out_planes;
    out.n_planes = 0;
    expect_refused (t, bad, &bad->in_planes, &out, NULL);
    in = bad->in_planes;
    in.data[1] = 0;
    expect_refused (t, bad, &in, &bad->out_planes, NULL);
    out = bad->out_planes;
    out.data[0] = 0;
    expect_refused (t, bad, &bad->in_planes, &out, NULL);
    /* A plane the chain would not use (RGBA has one) is still checked. */
    out = bad->out_planes;
    out.n_planes = 2;
    out.data[1] = 0;
    expect_refused (t, bad, &bad->in_planes, &out, NULL);
    in = bad->in_planes;
    in.size[0] = G_MAXSIZE;
    expect_refused (t, bad, &in, &bad->out_planes, NULL);
    in = bad->in_planes;
    in.kind = (GcgMemoryKind) 7;
    expect_refused (t, bad, &in, &bad->out_planes, NULL);
    /* The CPU backend cannot read or write device memory. */
    in = bad->in_planes;
    in.kind = GCG_MEMORY_KIND_DEVICE;
    expect_refused (t, bad, &in, &bad->out_planes, NULL);
    out = bad->out_planes;
    out.kind = GCG_MEMORY_KIND_DEVICE;
    expect_refused (t, bad, &bad->in_planes, &out, NULL);
    /* Values the chain refuses. */
    p = bad->params;
    p.gain = NAN;
    expect_refused (t, bad, &bad->in_planes, &bad->out_planes, &p);
    p = bad->params;
    p.n_rois = 2;
    expect_refused (t, bad, &bad->in_planes, &bad->out_planes, &p);
  }
  /* Nothing of the refused frames reached the output. */
  for (gsize i = 0; i < bad->out_layout.size + 64; i++)
    g_assert_cmphex (bad->out[i], ==, SENTINEL);
  /* Pinned host memory is host memory to the CPU backend. */
  next->in_planes.kind = GCG_MEMORY_KIND_HOST_PINNED;
  next->out_planes.kind = GCG_MEMORY_KIND_HOST_PINNED;
  submit (t, t->chain, next);
  gcg_frame_queue_drain (t->queue);
  assert_retired (t, first, next, NULL);
  assert_job_ok (first);
  assert_job_ok (next);
  g_assert_cmpuint (bad->calls, ==, 0);
}

/* A completion source that cannot record: submit fails, the callback is
 * never called, and the next frame is fine. */
static void
test_record_failure (Test *t, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  GcgFrameParams p;
  Job *j[3];

  j[0] = job_new (t, 1);
  j[1] = job_new (t, 0);
  j[2] = job_new (t, 2);
  submit (t, t->chain, j[0]);
  t->fake.fail_record = TRUE;
  p = j[1]->params;
  g_assert_false (gcg_frame_queue_submit (t->queue, t->chain, &p,
      &j[1]->in_planes, &j[1]->out_planes, on_done, j[1], NULL, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
  g_assert_cmpuint (gcg_frame_queue_get_submitted (t->queue), ==, 1);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (t->queue), ==, 1);
  submit (t, t->chain, j[2]);
  gcg_frame_queue_drain (t->queue);
  assert_retired (t, j[0], j[2], NULL);
  assert_job_ok (j[0]);
  assert_job_ok (j[2]);
  g_assert_cmpuint (j[1]->calls, ==, 0);
}

/* Tensor items past the frame's ROI count are zeroed, whatever the output
 * held before; the items in use are the chain's. */
static void
test_tensor_tail (Test *t, gconstpointer data)
{
  const GcgFrameChainConfig *c = &t->config;
  gsize item = gcg_frame_chain_config_get_output_size (c) / c->max_rois;

  for (guint n_rois = 0; n_rois <= 3; n_rois++) {
    GcgFrameParams p;
    Job *job;
    guint used = MAX (n_rois, 1);

    frame_params (&p, c, n_rois + 1);
    p.n_rois = n_rois;
    for (guint i = 0; i < 3; i++)
      p.rois[i] = (GcgRect) { 2 * i, i, 8 + i, 6 + i };
    job = job_new_full (t, c, n_rois + 1, &p, 0xff);
    submit (t, t->chain, job);
    fake_complete (&t->fake, job->seq);
    g_assert_cmpuint (gcg_frame_queue_poll (t->queue), ==, 1);
    assert_job_ok (job);
    /* Independently of the expected buffer: zeroes and 0xff where due. */
    for (gsize i = item * used; i < item * c->max_rois; i++)
      g_assert_cmphex (job->out[i], ==, 0);
    for (gsize i = 0; i < 64; i++)
      g_assert_cmphex (job->out[item * c->max_rois + i], ==, 0xff);
    {
      gsize ff = 0;

      for (gsize i = 0; i < item * used; i++)
        ff += job->out[i] == 0xff;
      g_assert_cmpuint (ff, <, item * used / 4);
    }
  }
}

/* Disposing a queue with frames in flight cancels them: each callback runs
 * once, with CANCELLED, in order (their owners free the memory there). */
static void
test_dispose (Test *t, gconstpointer data)
{
  Job *j[3];
  GcgFrameQueue *queue;

  submit_range (t, j, 0, 3);
  fake_complete (&t->fake, 2);
  g_free (fake_take_log (&t->fake));
  queue = t->queue;
  g_object_unref (queue);
  t->queue = NULL;
  fake_assert_log (&t->fake, "wait 1 done 1 done 2 wait 3 done 3");
  for (guint i = 0; i < 3; i++) {
    g_assert_true (g_ptr_array_index (t->retired, i) == j[i]);
    assert_job_error (j[i], GCG_ERROR_CANCELLED);
  }
}

int
main (int argc, char **argv)
{
  static const Setup cpu3 = { 3, FALSE, config_a };
  static const Setup fake2 = { 2, TRUE, config_a };
  static const Setup fake3 = { 3, TRUE, config_a };
  static const Setup fake4 = { 4, TRUE, config_a };
  static const Setup tensor4 = { 4, TRUE, config_tensor };

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

#define ADD(path, setup, fn) \
  g_test_add (path, Test, setup, test_setup, fn, test_teardown)
  ADD ("/frame-queue/cpu-completion", &cpu3, test_cpu_completion);
  ADD ("/frame-queue/order", &fake4, test_order);
  ADD ("/frame-queue/reuse-after-completion", &fake2,
      test_reuse_after_completion);
  ADD ("/frame-queue/drain", &fake4, test_drain);
  ADD ("/frame-queue/cancel", &fake4, test_cancel);
  ADD ("/frame-queue/failed-frame", &fake4, test_failed_frame);
  ADD ("/frame-queue/caps-change", &fake4, test_caps_change);
  ADD ("/frame-queue/chain-kept", &fake4, test_chain_kept);
  ADD ("/frame-queue/wait-ready", &fake4, test_wait_ready);
  ADD ("/frame-queue/wait-ready-thread", &fake4, test_wait_ready_thread);
  ADD ("/frame-queue/arguments", &fake3, test_arguments);
  ADD ("/frame-queue/record-failure", &fake2, test_record_failure);
  ADD ("/frame-queue/tensor-tail", &tensor4, test_tensor_tail);
  ADD ("/frame-queue/dispose", &fake4, test_dispose);
#undef ADD

  return g_test_run ();
}
