/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A chain of kernels for the capture tests, with its CPU reference:
 *   iota (base) → add → mad → add → mad → add [→ add × extra]
 * on CHAIN_N uint32 values.  Every per-frame value is a device scalar the
 * kernels read through a pointer, so one captured graph serves every
 * frame; the mads make the result depend on the order of the nodes.
 */
#pragma once

#include "gcg-test-util.h"
#include "gcg-capture-private.h"

#define CHAIN_N 4096u
#define CHAIN_KERNELS 6u
#define CHAIN_N_SCALARS 8

typedef struct
{
  GcgContext *ctx;
  GcgStream *stream;
  GcgContextGuard guard;
  CUfunction iota, add, mad;
  GcgDeviceScalar *scalars[CHAIN_N_SCALARS];
  CUdeviceptr out[2];
  CUdeviceptr s[CHAIN_N_SCALARS];       /* the scalars' device addresses */
} Chain;

/* Opens the GPU and makes the chain's buffers; FALSE when the test is
 * skipped (no GPU). */
static inline gboolean
chain_setup (Chain *c)
{
  g_autoptr (GError) error = NULL;

  memset (c, 0, sizeof (*c));
  c->ctx = gcg_test_open_gpu ();
  if (!c->ctx)
    return FALSE;
  c->stream = gcg_stream_new (c->ctx, &error);
  g_assert_no_error (error);
  g_assert_true (gcg__context_guard_enter (&c->guard, c->ctx, &error));
  c->iota = gcg__context_get_function (c->ctx, "gcg_test_iota_u32", &error);
  c->add = gcg__context_get_function (c->ctx, "gcg_test_add_u32", &error);
  c->mad = gcg__context_get_function (c->ctx, "gcg_test_mad_u32", &error);
  g_assert_no_error (error);
  for (guint i = 0; i < CHAIN_N_SCALARS; i++) {
    c->scalars[i] =
        gcg_device_scalar_new (c->ctx, GCG_SCALAR_TYPE_UINT32, &error);
    g_assert_no_error (error);
    c->s[i] = gcg_device_scalar_get_device_ptr (c->scalars[i]);
  }
  for (guint i = 0; i < G_N_ELEMENTS (c->out); i++)
    g_assert_true (GCG_CU_OK (&error, cuMemAlloc, &c->out[i],
        CHAIN_N * sizeof (guint32)));
  g_assert_no_error (error);
  return TRUE;
}

static inline void
chain_teardown (Chain *c)
{
  if (!c->ctx)
    return;
  g_assert_true (gcg_fault_inject (NULL, NULL));
  g_assert_true (gcg_stream_synchronize (c->stream, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (c->out); i++)
    GCG_CU_WARN (cuMemFree, c->out[i]);
  for (guint i = 0; i < CHAIN_N_SCALARS; i++)
    g_clear_object (&c->scalars[i]);
  gcg__context_guard_leave (&c->guard);
  g_clear_object (&c->stream);
  g_clear_object (&c->ctx);
}

/* Values for frame @frame: all different from frame to frame. */
static inline void
chain_values (guint frame, guint32 v[CHAIN_N_SCALARS])
{
  v[0] = 1000 * frame + 17;
  v[1] = frame + 3;
  v[2] = 2 + frame % 5;
  v[3] = 7 * frame + 1;
  v[4] = 11 + frame;
  v[5] = 3 + frame % 3;
  v[6] = frame * frame;
  v[7] = 5 * frame + 2;
}

/* Stages @v in the device scalars: stream-ordered copies queued now, so
 * they land before whatever is queued next (a replay). */
static inline void
chain_set (Chain *c, const guint32 v[CHAIN_N_SCALARS])
{
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < CHAIN_N_SCALARS; i++) {
    g_assert_true (gcg_device_scalar_set_uint (c->scalars[i], v[i], &error));
    g_assert_true (gcg_device_scalar_update (c->scalars[i], c->stream, &error));
  }
  g_assert_no_error (error);
}

static inline gboolean
chain_launch (Chain *c, CUfunction fn, void **params, GError **error)
{
  return GCG_CU_OK (error, cuLaunchKernel, fn, (CHAIN_N + 255) / 256, 1, 1, 256,
      1, 1, 0, gcg__stream_get_cu (c->stream), params, NULL);
}

static inline gboolean
chain_add (Chain *c, CUdeviceptr out, guint k, GError **error)
{
  guint32 n = CHAIN_N;
  void *params[] = { &out, &n, &c->s[k] };

  return chain_launch (c, c->add, params, error);
}

static inline gboolean
chain_mad (Chain *c, CUdeviceptr out, guint mul, guint add, GError **error)
{
  guint32 n = CHAIN_N;
  void *params[] = { &out, &n, &c->s[mul], &c->s[add] };

  return chain_launch (c, c->mad, params, error);
}

/* Queues the chain on the chain's stream (capturing or not): 6 kernels,
 * plus @extra more adds.  @step is a kernel argument by value, so it is
 * baked into a captured graph. */
static inline gboolean
chain_enqueue (Chain *c, CUdeviceptr out, guint32 step, guint extra,
    GError **error)
{
  guint32 n = CHAIN_N;
  void *iota_params[] = { &out, &n, &step, &c->s[0] };
  gboolean ok = chain_launch (c, c->iota, iota_params, error)
      && chain_add (c, out, 1, error) && chain_mad (c, out, 2, 3, error)
      && chain_add (c, out, 4, error) && chain_mad (c, out, 5, 6, error)
      && chain_add (c, out, 7, error);

  for (guint i = 0; ok && i < extra; i++)
    ok = chain_add (c, out, 1, error);
  return ok;
}

static inline guint32
chain_expected (guint32 i, guint32 step, const guint32 v[CHAIN_N_SCALARS],
    guint extra)
{
  guint32 x = i * step + v[0];

  x += v[1];
  x = x * v[2] + v[3];
  x += v[4];
  x = x * v[5] + v[6];
  x += v[7];
  return x + extra * v[1];
}

/* Waits for the stream and checks @out against the CPU reference. */
static inline void
chain_check (Chain *c, CUdeviceptr out, guint32 step,
    const guint32 v[CHAIN_N_SCALARS], guint extra)
{
  g_autofree guint32 *host = g_new0 (guint32, CHAIN_N);
  g_autoptr (GError) error = NULL;

  g_assert_true (gcg_stream_synchronize (c->stream, &error));
  g_assert_true (GCG_CU_OK (&error, cuMemcpyDtoH, host, out,
      CHAIN_N * sizeof (guint32)));
  g_assert_no_error (error);
  for (guint32 i = 0; i < CHAIN_N; i++) {
    if (host[i] != chain_expected (i, step, v, extra))
      g_error ("element %u: got %u, expected %u", i, host[i],
          chain_expected (i, step, v, extra));
  }
}

/* Runs the chain eagerly on the stream and checks it: the stream works. */
static inline void
chain_check_eager (Chain *c, guint frame)
{
  g_autoptr (GError) error = NULL;
  guint32 v[CHAIN_N_SCALARS];

  chain_values (frame, v);
  chain_set (c, v);
  g_assert_true (chain_enqueue (c, c->out[1], 3, 0, &error));
  g_assert_no_error (error);
  chain_check (c, c->out[1], 3, v, 0);
}

/* A GcgCaptureFunc queueing the chain. */
typedef struct
{
  Chain *chain;
  CUdeviceptr out;
  guint32 step;
  guint extra;
} ChainJob;

static inline gboolean
chain_job_run (GcgStream *stream, gpointer data, GError **error)
{
  ChainJob *job = data;

  g_assert_true (stream == job->chain->stream);
  return chain_enqueue (job->chain, job->out, job->step, job->extra, error);
}

static inline void
assert_stream_idle (Chain *c)
{
  g_autoptr (GError) error = NULL;
  GcgCaptureStatus status = GCG_CAPTURE_STATUS_ACTIVE;

  g_assert_true (gcg_stream_get_capture_status (c->stream, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, GCG_CAPTURE_STATUS_NONE);
}

/* Queues one replay with frame @frame's values and checks its output. */
static inline void
chain_replay_and_check (Chain *c, GcgGraph *graph, CUdeviceptr out,
    guint32 step, guint extra, guint frame)
{
  g_autoptr (GError) error = NULL;
  guint32 v[CHAIN_N_SCALARS];

  chain_values (frame, v);
  chain_set (c, v);
  g_assert_true (gcg_graph_launch (graph, c->stream, &error));
  g_assert_no_error (error);
  chain_check (c, out, step, v, extra);
}

static inline CUmemoryPool
chain_current_mem_pool (Chain *c)
{
  g_autoptr (GError) error = NULL;
  CUmemoryPool pool = NULL;

  g_assert_true (GCG_CU_OK (&error, cuDeviceGetMemPool, &pool,
      gcg__context_get_cu_device (c->ctx)));
  return pool;
}

/* The fixture of the capture tests.  Whatever a test did, at its end no
 * graph handle is left and the device's memory pool is the one it had. */
typedef struct
{
  Chain chain;
  gint live_handles;
  CUmemoryPool original;
} ChainFixture;

static inline void
chain_fixture_setup (ChainFixture *f, gconstpointer data)
{
  f->live_handles = gcg__graph_debug_live_handles ();
  if (chain_setup (&f->chain))
    f->original = chain_current_mem_pool (&f->chain);
}

static inline void
chain_fixture_teardown (ChainFixture *f, gconstpointer data)
{
  if (f->chain.ctx)
    g_assert_true (chain_current_mem_pool (&f->chain) == f->original);
  chain_teardown (&f->chain);
  g_assert_cmpint (gcg__graph_debug_live_handles (), ==, f->live_handles);
}

#define CHAIN_TEST_ADD(path, fn) \
  g_test_add (path, ChainFixture, NULL, chain_fixture_setup, fn, \
      chain_fixture_teardown)
