/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Capture and replay on a real GPU: a chain of kernels replayed as a
 * graph gives what it gives eagerly, frame after frame, with device
 * scalars changing between replays; eager allocations between replays;
 * invalidated and abandoned captures leave the stream usable and leak no
 * graph; upload, Graphviz dump, node count, capture of a callback, and
 * injected driver faults.  Skips (TAP) without a driver.
 */
#include "gcg-test-chain.h"

static GcgGraph *
capture_chain (Chain *c, GcgCaptureMode mode, CUdeviceptr out, guint32 step,
    guint extra)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgCapture) capture = gcg_capture_begin (c->stream, mode, &error);
  GcgCaptureStatus status = GCG_CAPTURE_STATUS_NONE;
  GcgGraph *graph;

  g_assert_no_error (error);
  g_assert_true (gcg_capture_is_active (capture));
  g_assert_true (gcg_capture_get_stream (capture) == c->stream);
  g_assert_cmpint (gcg_capture_get_mode (capture), ==, mode);
  g_assert_true (gcg_capture_get_status (capture, &status, &error));
  g_assert_cmpint (status, ==, GCG_CAPTURE_STATUS_ACTIVE);
  g_assert_true (chain_enqueue (c, out, step, extra, &error));
  g_assert_no_error (error);
  graph = gcg_capture_finish (capture, &error);
  g_assert_no_error (error);
  g_assert_nonnull (graph);
  g_assert_false (gcg_capture_is_active (capture));
  return graph;
}

/* Done-when 1: ≥ 5 kernels, graph == eager over several replays, device
 * scalars changed between replays with no new capture. */
static void
test_chain_graph_matches_eager (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GcgGraph) graph = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree guint32 *eager = g_new0 (guint32, CHAIN_N);
  g_autofree guint32 *replayed = g_new0 (guint32, CHAIN_N);

  if (!c->ctx)
    return;
  graph = capture_chain (c, GCG_CAPTURE_MODE_DEFAULT, c->out[0], 3, 0);
  g_assert_cmpuint (gcg_graph_get_node_count (graph), ==, CHAIN_KERNELS);
  g_assert_cmpuint (gcg_graph_get_alloc_node_count (graph), ==, 0);
  g_assert_cmpuint (gcg_graph_get_replay_count (graph), ==, 0);
  g_assert_null (gcg_graph_get_pool (graph));
  g_assert_true (gcg_graph_get_context (graph) == c->ctx);
  assert_stream_idle (c);

  for (guint frame = 0; frame < 5; frame++) {
    guint32 v[CHAIN_N_SCALARS];

    chain_values (frame, v);
    chain_set (c, v);
    g_assert_true (gcg_graph_launch (graph, c->stream, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (gcg_graph_get_replay_count (graph), ==, frame + 1);
    chain_check (c, c->out[0], 3, v, 0);

    g_assert_true (chain_enqueue (c, c->out[1], 3, 0, &error));
    chain_check (c, c->out[1], 3, v, 0);
    g_assert_true (GCG_CU_OK (&error, cuMemcpyDtoH, eager, c->out[1],
        CHAIN_N * sizeof (guint32)));
    g_assert_true (GCG_CU_OK (&error, cuMemcpyDtoH, replayed, c->out[0],
        CHAIN_N * sizeof (guint32)));
    g_assert_cmpmem (eager, CHAIN_N * 4, replayed, CHAIN_N * 4);
  }
}

/* Done-when 2: eager allocations and frees, stream-ordered from the
 * device's default pool and synchronous, between replays. */
static void
test_eager_allocations_between_replays (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  CUstream cu;
  g_autoptr (GcgGraph) graph = NULL;
  g_autoptr (GError) error = NULL;
  const gsize bytes = CHAIN_N * sizeof (guint32);

  if (!c->ctx)
    return;
  cu = gcg__stream_get_cu (c->stream);
  graph = capture_chain (c, GCG_CAPTURE_MODE_DEFAULT, c->out[0], 5, 0);
  for (guint frame = 0; frame < 4; frame++) {
    CUdeviceptr async_buf = 0, sync_buf = 0, late_buf = 0;
    guint32 v[CHAIN_N_SCALARS];

    /* Scribble over freshly allocated memory before and after the
     * replay: if it aliased a buffer of the graph, the check fails. */
    g_assert_true (GCG_CU_OK (&error, cuMemAllocAsync, &async_buf, bytes, cu));
    g_assert_true (GCG_CU_OK (&error, cuMemsetD32Async, async_buf, 0xdeadbeef,
        CHAIN_N, cu));
    g_assert_true (GCG_CU_OK (&error, cuMemAlloc, &sync_buf, bytes));
    g_assert_true (GCG_CU_OK (&error, cuMemsetD32Async, sync_buf, 0xfeedface,
        CHAIN_N, cu));
    chain_values (frame + 10, v);
    chain_set (c, v);
    g_assert_true (gcg_graph_launch (graph, c->stream, &error));
    g_assert_true (GCG_CU_OK (&error, cuMemFreeAsync, async_buf, cu));
    g_assert_true (GCG_CU_OK (&error, cuMemAllocAsync, &late_buf, bytes, cu));
    g_assert_true (GCG_CU_OK (&error, cuMemsetD32Async, late_buf, 0x5a5a5a5a,
        CHAIN_N, cu));
    g_assert_true (GCG_CU_OK (&error, cuMemFreeAsync, late_buf, cu));
    g_assert_no_error (error);
    chain_check (c, c->out[0], 5, v, 0);
    g_assert_true (GCG_CU_OK (&error, cuMemFree, sync_buf));
  }
  g_assert_cmpuint (gcg_graph_get_replay_count (graph), ==, 4);
}

/* Done-when 3: a forbidden call during capture invalidates it; finish
 * fails with CAPTURE_INVALIDATED; the stream works afterwards. */
static void
test_invalidated_capture (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GcgCapture) capture = NULL;
  g_autoptr (GcgGraph) graph = NULL;
  g_autoptr (GError) error = NULL;
  GcgCaptureStatus status = GCG_CAPTURE_STATUS_NONE;

  if (!c->ctx)
    return;
  /* Every sync mode: the blocking and poll ones must not slip an event
   * record into the capture instead of failing. */
  gcg_stream_set_sync_mode (c->stream, GPOINTER_TO_INT (data));
  capture = gcg_capture_begin (c->stream, GCG_CAPTURE_MODE_DEFAULT, &error);
  g_assert_no_error (error);
  g_assert_true (chain_enqueue (c, c->out[0], 3, 0, &error));
  g_assert_false (gcg_stream_synchronize (c->stream, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_CAPTURE_INVALIDATED);
  g_test_message ("synchronize during capture: %s", error->message);
  g_clear_error (&error);

  g_assert_true (gcg_capture_get_status (capture, &status, &error));
  g_assert_cmpint (status, ==, GCG_CAPTURE_STATUS_INVALIDATED);
  g_assert_true (gcg_capture_is_active (capture));
  graph = gcg_capture_finish (capture, &error);
  g_assert_null (graph);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_CAPTURE_INVALIDATED);
  g_assert_nonnull (strstr (error->message, "cuStreamEndCapture"));
  g_clear_error (&error);
  g_assert_false (gcg_capture_is_active (capture));
  g_assert_cmpint (gcg__graph_debug_live_handles (), ==, f->live_handles);

  /* A second finish is a state error, not a crash. */
  g_assert_null (gcg_capture_finish (capture, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_CAPTURE_STATE);
  g_clear_error (&error);
  g_assert_true (gcg_capture_abort (capture, &error));

  assert_stream_idle (c);
  chain_check_eager (c, 3);
}

/* Done-when 4 (first part): an abandoned guard, active or invalidated,
 * ends the capture silently and leaves the stream usable. */
static void
test_abandoned_guard (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GError) error = NULL;
  GcgCapture *capture;

  if (!c->ctx)
    return;
  capture = gcg_capture_begin (c->stream, GCG_CAPTURE_MODE_DEFAULT, &error);
  g_assert_no_error (error);
  g_assert_true (chain_enqueue (c, c->out[0], 3, 0, &error));
  g_object_unref (capture);
  assert_stream_idle (c);
  chain_check_eager (c, 1);

  capture = gcg_capture_begin (c->stream, GCG_CAPTURE_MODE_GLOBAL, &error);
  g_assert_true (chain_enqueue (c, c->out[0], 3, 0, &error));
  g_assert_false (gcg_stream_synchronize (c->stream, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_CAPTURE_INVALIDATED);
  g_clear_error (&error);
  g_object_unref (capture);     /* invalidated: discarded without warning */
  assert_stream_idle (c);
  chain_check_eager (c, 2);

  /* Explicit abort, then unref. */
  capture = gcg_capture_begin (c->stream, GCG_CAPTURE_MODE_RELAXED, &error);
  g_assert_true (chain_enqueue (c, c->out[0], 3, 0, &error));
  g_assert_true (gcg_capture_abort (capture, &error));
  g_assert_true (gcg_capture_abort (capture, &error));
  g_assert_no_error (error);
  assert_stream_idle (c);
  g_object_unref (capture);
  chain_check_eager (c, 4);
  g_assert_cmpint (gcg__graph_debug_live_handles (), ==, f->live_handles);
}

static gpointer
finish_elsewhere (gpointer data)
{
  GError *error = NULL;
  GcgGraph *graph = gcg_capture_finish (GCG_CAPTURE (data), &error);

  g_assert_null (graph);
  return error;
}

/* A thread-local capture ended from another thread is refused with
 * CAPTURE_STATE.  The driver also ends the capture sequence then
 * (measured on an H200, driver 580): the guard must say it is over, the
 * stream must no longer capture and run eager work right, and the first
 * thread can capture again into a working graph. */
static void
test_finish_from_other_thread (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GcgCapture) capture = NULL;
  g_autoptr (GcgCapture) again = NULL;
  g_autoptr (GcgGraph) graph = NULL;
  g_autoptr (GError) error = NULL;
  GError *thread_error;
  guint32 v[CHAIN_N_SCALARS];

  if (!c->ctx)
    return;
  chain_values (5, v);
  chain_set (c, v);
  capture =
      gcg_capture_begin (c->stream, GCG_CAPTURE_MODE_THREAD_LOCAL, &error);
  g_assert_true (chain_enqueue (c, c->out[0], 3, 0, &error));
  thread_error =
      g_thread_join (g_thread_new ("finisher", finish_elsewhere, capture));
  g_assert_error (thread_error, GCG_ERROR, GCG_ERROR_CAPTURE_STATE);
  g_test_message ("finish from another thread: %s", thread_error->message);
  g_error_free (thread_error);
  g_assert_false (gcg_capture_is_active (capture));
  assert_stream_idle (c);
  chain_check_eager (c, 6);
  g_assert_cmpint (gcg__graph_debug_live_handles (), ==, f->live_handles);

  again = gcg_capture_begin (c->stream, GCG_CAPTURE_MODE_THREAD_LOCAL, &error);
  g_assert_true (chain_enqueue (c, c->out[0], 3, 0, &error));
  graph = gcg_capture_finish (again, &error);
  g_assert_no_error (error);
  chain_set (c, v);
  g_assert_true (gcg_graph_launch (graph, c->stream, &error));
  chain_check (c, c->out[0], 3, v, 0);
}

static void
test_begin_twice_refused (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GcgCapture) capture = NULL;
  g_autoptr (GcgCapture) second = NULL;
  g_autoptr (GError) error = NULL;
  GcgCaptureStatus status = GCG_CAPTURE_STATUS_NONE;

  if (!c->ctx)
    return;
  capture = gcg_capture_begin (c->stream, GCG_CAPTURE_MODE_DEFAULT, &error);
  second = gcg_capture_begin (c->stream, GCG_CAPTURE_MODE_DEFAULT, &error);
  g_assert_null (second);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_CAPTURE_STATE);
  g_clear_error (&error);
  /* The refusal did not disturb the first capture. */
  g_assert_true (gcg_capture_get_status (capture, &status, &error));
  g_assert_cmpint (status, ==, GCG_CAPTURE_STATUS_ACTIVE);
  g_assert_true (gcg_capture_abort (capture, &error));
  assert_stream_idle (c);
}

static void
test_every_mode_replays (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  const GcgCaptureMode modes[] = { GCG_CAPTURE_MODE_GLOBAL,
    GCG_CAPTURE_MODE_THREAD_LOCAL, GCG_CAPTURE_MODE_RELAXED };

  if (!c->ctx)
    return;
  for (guint m = 0; m < G_N_ELEMENTS (modes); m++) {
    g_autoptr (GcgGraph) graph = capture_chain (c, modes[m], c->out[0], 9, 2);
    g_autoptr (GError) error = NULL;
    guint32 v[CHAIN_N_SCALARS];

    g_assert_cmpuint (gcg_graph_get_node_count (graph), ==, CHAIN_KERNELS + 2);
    chain_values (m + 20, v);
    chain_set (c, v);
    g_assert_true (gcg_graph_launch (graph, c->stream, &error));
    g_assert_no_error (error);
    chain_check (c, c->out[0], 9, v, 2);
  }
}

static void
test_upload_idempotent (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GcgGraph) graph = NULL;
  g_autoptr (GError) error = NULL;
  guint32 v[CHAIN_N_SCALARS];

  if (!c->ctx)
    return;
  graph = capture_chain (c, GCG_CAPTURE_MODE_DEFAULT, c->out[0], 3, 0);
  g_assert_false (gcg_graph_is_uploaded (graph));
  g_assert_true (gcg_graph_upload (graph, c->stream, &error));
  g_assert_no_error (error);
  g_assert_true (gcg_graph_is_uploaded (graph));
  /* A second upload does not reach the driver: make it fail if it did. */
  g_assert_true (gcg_fault_inject ("cuGraphUpload:*", &error));
  g_assert_true (gcg_graph_upload (graph, c->stream, &error));
  g_assert_no_error (error);
  g_assert_true (gcg_fault_inject (NULL, &error));
  g_assert_true (gcg_graph_is_uploaded (graph));
  g_assert_cmpuint (gcg_graph_get_replay_count (graph), ==, 0);

  chain_values (7, v);
  chain_set (c, v);
  g_assert_true (gcg_graph_launch (graph, c->stream, &error));
  chain_check (c, c->out[0], 3, v, 0);
}

static void
test_dump_dot (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GcgGraph) graph = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree gchar *path = NULL;
  g_autofree gchar *text = NULL;
  gsize length = 0;

  if (!c->ctx)
    return;
  graph = capture_chain (c, GCG_CAPTURE_MODE_DEFAULT, c->out[0], 3, 0);
  path = g_build_filename (g_get_tmp_dir (), "chain.dot", NULL);
  g_assert_true (gcg_graph_dump_dot (graph, path, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, &length, &error));
  g_assert_cmpuint (length, >, 0);
  g_assert_nonnull (strstr (text, "digraph"));
  g_test_message ("%s: %" G_GSIZE_FORMAT " bytes, kernel names %s", path,
      length, strstr (text, "gcg_test_mad_u32") ? "present" : "absent");
}

static gboolean
fail_on_purpose (GcgStream *stream, gpointer data, GError **error)
{
  ChainJob *job = data;

  g_assert_true (chain_enqueue (job->chain, job->out, job->step, 0, NULL));
  g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "failed on purpose");
  return FALSE;
}

static gboolean
fail_silently (GcgStream *stream, gpointer data, GError **error)
{
  return FALSE;
}

static void
test_capture_callable (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  ChainJob job = { c, c->out[0], 4, 1 };
  g_autoptr (GcgGraph) graph = NULL;
  g_autoptr (GError) error = NULL;
  guint32 v[CHAIN_N_SCALARS];

  if (!c->ctx)
    return;
  graph = gcg_capture_callable (c->stream, GCG_CAPTURE_MODE_DEFAULT,
      chain_job_run, &job, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcg_graph_get_node_count (graph), ==, CHAIN_KERNELS + 1);
  for (guint frame = 0; frame < 3; frame++) {
    chain_values (frame + 30, v);
    chain_set (c, v);
    g_assert_true (gcg_graph_launch (graph, c->stream, &error));
    chain_check (c, c->out[0], 4, v, 1);
  }

  g_assert_null (gcg_capture_callable (c->stream, GCG_CAPTURE_MODE_DEFAULT,
      fail_on_purpose, &job, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_cmpstr (error->message, ==, "failed on purpose");
  g_clear_error (&error);
  assert_stream_idle (c);
  g_assert_null (gcg_capture_callable (c->stream, GCG_CAPTURE_MODE_DEFAULT,
      fail_silently, &job, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_FAILED);
  g_clear_error (&error);
  assert_stream_idle (c);
  chain_check_eager (c, 5);
}

/* A driver call failing at each step of a capture leaves no capture, no
 * handle and a working stream behind. */
static void
check_fault (ChainFixture *f, const gchar *spec, const gchar *failed_call)
{
  Chain *c = &f->chain;
  g_autoptr (GcgCapture) capture = NULL;
  g_autoptr (GcgGraph) graph = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (gcg_fault_inject (spec, &error));
  capture = gcg_capture_begin (c->stream, GCG_CAPTURE_MODE_DEFAULT, &error);
  if (capture) {
    g_assert_true (chain_enqueue (c, c->out[0], 3, 0, &error));
    graph = gcg_capture_finish (capture, &error);
  }
  g_assert_true (gcg_fault_inject (NULL, NULL));
  g_assert_null (graph);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
  g_assert_nonnull (strstr (error->message, failed_call));
  g_test_message ("%s: %s", spec, error->message);
  g_clear_object (&capture);
  g_assert_cmpint (gcg__graph_debug_live_handles (), ==, f->live_handles);
  assert_stream_idle (c);
  chain_check_eager (c, 6);
}

static void
test_fault_injection (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GcgGraph) graph = NULL;
  g_autoptr (GError) error = NULL;
  guint32 v[CHAIN_N_SCALARS];

  if (!c->ctx)
    return;
  check_fault (f, "cuGraphInstantiateWithFlags:1",
      "cuGraphInstantiateWithFlags failed");
  check_fault (f, "cuStreamBeginCapture:1", "cuStreamBeginCapture failed");
  check_fault (f, "cuStreamEndCapture:1", "cuStreamEndCapture failed");
  check_fault (f, "cuGraphGetNodes:1", "cuGraphGetNodes failed");

  /* A launch that fails is not counted. */
  graph = capture_chain (c, GCG_CAPTURE_MODE_DEFAULT, c->out[0], 3, 0);
  g_assert_true (gcg_fault_inject ("cuGraphLaunch:1", &error));
  g_assert_false (gcg_graph_launch (graph, c->stream, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
  g_clear_error (&error);
  g_assert_true (gcg_fault_inject (NULL, &error));
  g_assert_cmpuint (gcg_graph_get_replay_count (graph), ==, 0);
  chain_values (8, v);
  chain_set (c, v);
  g_assert_true (gcg_graph_launch (graph, c->stream, &error));
  chain_check (c, c->out[0], 3, v, 0);
  g_assert_cmpuint (gcg_graph_get_replay_count (graph), ==, 1);
}

#define ADD CHAIN_TEST_ADD

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  ADD ("/gpu/capture/chain-graph-matches-eager",
      test_chain_graph_matches_eager);
  ADD ("/gpu/capture/eager-allocations-between-replays",
      test_eager_allocations_between_replays);
  ADD ("/gpu/capture/invalidated", test_invalidated_capture);
  g_test_add ("/gpu/capture/invalidated-blocking-sync", ChainFixture,
      GINT_TO_POINTER (GCG_SYNC_MODE_BLOCKING), chain_fixture_setup,
      test_invalidated_capture, chain_fixture_teardown);
  g_test_add ("/gpu/capture/invalidated-poll-sync", ChainFixture,
      GINT_TO_POINTER (GCG_SYNC_MODE_POLL), chain_fixture_setup,
      test_invalidated_capture, chain_fixture_teardown);
  ADD ("/gpu/capture/abandoned-guard", test_abandoned_guard);
  ADD ("/gpu/capture/begin-twice-refused", test_begin_twice_refused);
  ADD ("/gpu/capture/finish-from-other-thread", test_finish_from_other_thread);
  ADD ("/gpu/capture/every-mode-replays", test_every_mode_replays);
  ADD ("/gpu/capture/upload-idempotent", test_upload_idempotent);
  ADD ("/gpu/capture/dump-dot", test_dump_dot);
  ADD ("/gpu/capture/callable", test_capture_callable);
  ADD ("/gpu/capture/fault-injection", test_fault_injection);

  return g_test_run ();
}
