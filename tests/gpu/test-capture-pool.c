/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Capture pools on a real GPU: kept buffers live exactly as long as the
 * last graph and the pool; a sealed pool refuses; capture-into-pool puts
 * the device's memory pool back on every exit path; allocation from the
 * private pool; and the measurement of what cuMemAllocAsync does during a
 * capture (a graph-owned MEM_ALLOC node, whatever pool is current).
 * Skips (TAP) without a driver.
 */
#include "gcg-test-chain.h"

static GcgGraph *
capture_with_pool (Chain *c, GcgCapturePool *pool, CUdeviceptr out,
    guint32 step)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgCapture) capture = NULL;
  GcgGraph *graph;

  capture = gcg_capture_begin_with_pool (c->stream, GCG_CAPTURE_MODE_DEFAULT,
      pool, &error);
  g_assert_no_error (error);
  g_assert_true (gcg_capture_get_pool (capture) == pool);
  g_assert_true (chain_enqueue (c, out, step, 0, &error));
  graph = gcg_capture_finish (capture, &error);
  g_assert_no_error (error);
  g_assert_true (gcg_graph_get_pool (graph) == pool);
  return graph;
}

typedef struct
{
  guint *released;
  CUdeviceptr ptr;
} KeptBuffer;

/* Destroy notify of a kept device buffer; the test thread has the
 * context current (the fixture's guard). */
static void
kept_buffer_free (gpointer data)
{
  KeptBuffer *kept = data;

  if (kept->ptr)
    GCG_CU_WARN (cuMemFree, kept->ptr);
  (*kept->released)++;
  g_free (kept);
}

static CUdeviceptr
keep_new_buffer (GcgCapturePool *pool, guint *released)
{
  g_autoptr (GError) error = NULL;
  KeptBuffer *kept = g_new0 (KeptBuffer, 1);

  kept->released = released;
  g_assert_true (GCG_CU_OK (&error, cuMemAlloc, &kept->ptr,
      CHAIN_N * sizeof (guint32)));
  gcg_capture_pool_keep (pool, kept, kept_buffer_free);
  return kept->ptr;
}

static void
keep_counter (GcgCapturePool *pool, guint *released)
{
  KeptBuffer *kept = g_new0 (KeptBuffer, 1);

  kept->released = released;
  gcg_capture_pool_keep (pool, kept, kept_buffer_free);
}

/* Done-when 4 (last part): kept buffers are released exactly when the
 * last graph holding the pool and the pool itself are gone. */
static void
test_keeps_buffers_until_last_holder (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  GcgCapturePool *pool;
  GcgGraph *first, *second;
  guint released = 0;
  CUdeviceptr buf;

  if (!c->ctx)
    return;
  pool = gcg_capture_pool_new ();
  buf = keep_new_buffer (pool, &released);
  keep_counter (pool, &released);
  keep_counter (pool, &released);
  g_assert_cmpuint (gcg_capture_pool_get_kept_count (pool), ==, 3);
  first = capture_with_pool (c, pool, buf, 3);
  second = capture_with_pool (c, pool, buf, 5);

  g_object_unref (pool);
  g_assert_cmpuint (released, ==, 0);
  chain_replay_and_check (c, first, buf, 3, 0, 1);
  g_object_unref (first);
  g_assert_cmpuint (released, ==, 0);
  chain_replay_and_check (c, second, buf, 5, 0, 2);
  g_object_unref (second);
  g_assert_cmpuint (released, ==, 3);

  /* The other order: graph first, then the pool. */
  released = 0;
  pool = gcg_capture_pool_new ();
  buf = keep_new_buffer (pool, &released);
  first = capture_with_pool (c, pool, buf, 7);
  chain_replay_and_check (c, first, buf, 7, 0, 3);
  g_object_unref (first);
  g_assert_cmpuint (released, ==, 0);
  g_object_unref (pool);
  g_assert_cmpuint (released, ==, 1);
}

static gboolean
mark_ran (GcgStream *stream, gpointer data, GError **error)
{
  *(gboolean *) data = TRUE;
  return TRUE;
}

/* Done-when 4 (middle part): a sealed pool refuses to begin a capture. */
static void
test_sealed_pool_refuses (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GcgCapturePool) pool = gcg_capture_pool_new ();
  g_autoptr (GcgCapture) capture = NULL;
  g_autoptr (GcgGraph) graph = NULL;
  g_autoptr (GError) error = NULL;
  gboolean prologue_ran = FALSE, body_ran = FALSE;

  if (!c->ctx)
    return;
  gcg_capture_pool_seal (pool);
  capture = gcg_capture_begin_with_pool (c->stream, GCG_CAPTURE_MODE_DEFAULT,
      pool, &error);
  g_assert_null (capture);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_POOL_SEALED);
  g_test_message ("sealed: %s", error->message);
  g_clear_error (&error);
  assert_stream_idle (c);

  g_assert_null (gcg_capture_into_pool (c->stream, pool,
      GCG_CAPTURE_MODE_DEFAULT, mark_ran, &prologue_ran, mark_ran, &body_ran,
      &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_POOL_SEALED);
  g_clear_error (&error);
  g_assert_false (prologue_ran);
  g_assert_false (body_ran);

  /* Unsealed it captures; sealing again does not stop existing graphs. */
  gcg_capture_pool_unseal (pool);
  graph = capture_with_pool (c, pool, c->out[0], 3);
  gcg_capture_pool_seal (pool);
  chain_replay_and_check (c, graph, c->out[0], 3, 0, 4);
}

typedef struct
{
  Chain *chain;
  CUmemoryPool private_pool;
  CUmemoryPool seen_in_prologue;
  CUmemoryPool buffer_pool;
  CUdeviceptr buf;
  gboolean fail_prologue;
  gboolean fail_body;
  gboolean invalidate_body;
} IntoPool;

/* Eager: allocates the buffer the body will use, stream-ordered from
 * whatever pool is current, and notes which pool that was. */
static gboolean
into_pool_prologue (GcgStream *stream, gpointer data, GError **error)
{
  IntoPool *job = data;

  if (job->fail_prologue) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "prologue failed on purpose");
    return FALSE;
  }
  job->seen_in_prologue = chain_current_mem_pool (job->chain);
  return GCG_CU_OK (error, cuMemAllocAsync, &job->buf,
             CHAIN_N * sizeof (guint32), gcg__stream_get_cu (stream))
      && gcg_stream_synchronize (stream, error)
      && GCG_CU_OK (error, cuPointerGetAttribute, &job->buffer_pool,
          CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, job->buf);
}

static gboolean
into_pool_body (GcgStream *stream, gpointer data, GError **error)
{
  IntoPool *job = data;
  g_autoptr (GError) sync_error = NULL;

  if (!chain_enqueue (job->chain, job->buf, 3, 0, error))
    return FALSE;
  if (job->invalidate_body)
    g_assert_false (gcg_stream_synchronize (stream, &sync_error));
  if (job->fail_body) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "body failed on purpose");
    return FALSE;
  }
  return TRUE;
}

static GcgGraph *
run_into_pool (ChainFixture *f, GcgCapturePool *pool, IntoPool *job,
    GError **error)
{
  GcgGraph *graph;

  job->chain = &f->chain;
  job->private_pool = gcg_capture_pool_get_mem_pool_handle (pool);
  graph = gcg_capture_into_pool (f->chain.stream, pool,
      GCG_CAPTURE_MODE_DEFAULT, into_pool_prologue, job, into_pool_body, job,
      error);
  /* Done-when 6: whatever happened, the device's pool is the original. */
  g_assert_true (chain_current_mem_pool (&f->chain) == f->original);
  assert_stream_idle (&f->chain);
  g_assert_true (gcg_stream_synchronize (f->chain.stream, NULL));
  if (job->buf) {
    g_assert_true (gcg_capture_pool_free (pool, f->chain.stream, job->buf,
        NULL));
    job->buf = 0;
  }
  return graph;
}

static void
check_into_pool_fails (ChainFixture *f, GcgCapturePool *pool, IntoPool *job,
    gint code, const gchar *message)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgGraph) graph = run_into_pool (f, pool, job, &error);

  g_assert_null (graph);
  g_assert_error (error, GCG_ERROR, code);
  if (message)
    g_assert_cmpstr (error->message, ==, message);
  g_assert_cmpint (gcg__graph_debug_live_handles (), ==, f->live_handles);
  chain_check_eager (&f->chain, 9);
}

/* Done-when 6: capture-into-pool serves the prologue from the private
 * pool and restores the device's pool on success and on every failure. */
static void
test_into_pool_restores_mem_pool (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GcgCapturePool) pool = NULL;
  g_autoptr (GError) error = NULL;
  IntoPool job = { 0 };
  GcgGraph *graph;

  if (!c->ctx)
    return;
  pool = gcg_capture_pool_new_private (c->ctx, &error);
  g_assert_no_error (error);
  g_assert_true (gcg_capture_pool_has_private_pool (pool));
  g_assert_true (gcg_capture_pool_get_mem_pool_handle (pool) != f->original);

  /* Success: keep the buffer until the graph has been checked. */
  job.chain = c;
  job.private_pool = gcg_capture_pool_get_mem_pool_handle (pool);
  graph = gcg_capture_into_pool (c->stream, pool, GCG_CAPTURE_MODE_DEFAULT,
      into_pool_prologue, &job, into_pool_body, &job, &error);
  g_assert_no_error (error);
  g_assert_true (chain_current_mem_pool (c) == f->original);
  g_assert_true (job.seen_in_prologue == job.private_pool);
  g_assert_true (job.buffer_pool == job.private_pool);
  g_assert_true (gcg_graph_get_pool (graph) == pool);
  g_assert_cmpuint (gcg_graph_get_node_count (graph), ==, CHAIN_KERNELS);
  for (guint frame = 0; frame < 3; frame++)
    chain_replay_and_check (c, graph, job.buf, 3, 0, frame);
  g_object_unref (graph);
  g_assert_true (gcg_capture_pool_free (pool, c->stream, job.buf, &error));
  job.buf = 0;

  job = (IntoPool) { .fail_body = TRUE };
  check_into_pool_fails (f, pool, &job, GCG_ERROR_INVALID_ARGUMENT,
      "body failed on purpose");
  job = (IntoPool) { .fail_prologue = TRUE };
  check_into_pool_fails (f, pool, &job, GCG_ERROR_INVALID_ARGUMENT,
      "prologue failed on purpose");
  job = (IntoPool) { .invalidate_body = TRUE };
  check_into_pool_fails (f, pool, &job, GCG_ERROR_CAPTURE_INVALIDATED, NULL);
  g_assert_true (gcg_fault_inject ("cuStreamBeginCapture:1", &error));
  job = (IntoPool) { 0 };
  check_into_pool_fails (f, pool, &job, GCG_ERROR_DRIVER, NULL);
  g_assert_true (gcg_fault_inject ("cuGraphInstantiateWithFlags:1", &error));
  job = (IntoPool) { 0 };
  check_into_pool_fails (f, pool, &job, GCG_ERROR_DRIVER, NULL);
  g_assert_true (gcg_fault_inject (NULL, &error));
}

/* The guard alone swaps the device's pool for the capture window only,
 * and its disposal puts the original back. */
static void
test_guard_swaps_mem_pool (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GcgCapturePool) pool = NULL;
  g_autoptr (GError) error = NULL;
  GcgCapture *capture;

  if (!c->ctx)
    return;
  pool = gcg_capture_pool_new_private (c->ctx, &error);
  g_assert_no_error (error);
  capture = gcg_capture_begin_with_pool (c->stream, GCG_CAPTURE_MODE_RELAXED,
      pool, &error);
  g_assert_no_error (error);
  g_assert_true (chain_current_mem_pool (c)
      == gcg_capture_pool_get_mem_pool_handle (pool));
  g_assert_true (chain_enqueue (c, c->out[0], 3, 0, &error));
  g_object_unref (capture);
  g_assert_true (chain_current_mem_pool (c) == f->original);
  assert_stream_idle (c);

  /* A begin that fails in the driver restores it too. */
  g_assert_true (gcg_fault_inject ("cuStreamBeginCapture:1", &error));
  capture = gcg_capture_begin_with_pool (c->stream, GCG_CAPTURE_MODE_DEFAULT,
      pool, &error);
  g_assert_true (gcg_fault_inject (NULL, NULL));
  g_assert_null (capture);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
  g_assert_true (chain_current_mem_pool (c) == f->original);
  chain_check_eager (c, 2);
}

/* Two captures with two private pools, ended in the order they began:
 * the device keeps the newer open capture's pool, then gets its own back
 * (each guard restoring what it found would leave the first pool). */
static void
test_guard_scopes_end_out_of_order (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GcgCapturePool) p1 = NULL;
  g_autoptr (GcgCapturePool) p2 = NULL;
  g_autoptr (GcgStream) other = NULL;
  g_autoptr (GError) error = NULL;
  GcgCapture *a, *b;

  if (!c->ctx)
    return;
  p1 = gcg_capture_pool_new_private (c->ctx, &error);
  p2 = gcg_capture_pool_new_private (c->ctx, &error);
  other = gcg_stream_new (c->ctx, &error);
  g_assert_no_error (error);
  a = gcg_capture_begin_with_pool (c->stream, GCG_CAPTURE_MODE_RELAXED, p1,
      &error);
  b = gcg_capture_begin_with_pool (other, GCG_CAPTURE_MODE_RELAXED, p2, &error);
  g_assert_no_error (error);
  g_assert_true (chain_current_mem_pool (c)
      == gcg_capture_pool_get_mem_pool_handle (p2));
  g_object_unref (a);
  g_assert_true (chain_current_mem_pool (c)
      == gcg_capture_pool_get_mem_pool_handle (p2));
  g_object_unref (b);
  g_assert_true (chain_current_mem_pool (c) == f->original);

  /* The other order too. */
  a = gcg_capture_begin_with_pool (c->stream, GCG_CAPTURE_MODE_RELAXED, p1,
      &error);
  b = gcg_capture_begin_with_pool (other, GCG_CAPTURE_MODE_RELAXED, p2, &error);
  g_object_unref (b);
  g_assert_true (chain_current_mem_pool (c)
      == gcg_capture_pool_get_mem_pool_handle (p1));
  g_object_unref (a);
  g_assert_true (chain_current_mem_pool (c) == f->original);
  g_assert_no_error (error);
  chain_check_eager (c, 2);
}

/* Allocation from the private pool: served from it eagerly, refused on a
 * capturing stream. */
static void
test_pool_alloc (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GcgCapturePool) pool = NULL;
  g_autoptr (GcgCapture) capture = NULL;
  g_autoptr (GError) error = NULL;
  GcgCaptureStatus status = GCG_CAPTURE_STATUS_NONE;
  CUmemoryPool owner = NULL;
  guint64 ptr = 0, refused = 0;
  guint32 v[CHAIN_N_SCALARS];

  if (!c->ctx)
    return;
  pool = gcg_capture_pool_new_private (c->ctx, &error);
  g_assert_true (gcg_capture_pool_alloc (pool, c->stream,
      CHAIN_N * sizeof (guint32), &ptr, &error));
  g_assert_no_error (error);
  g_assert_true (gcg_stream_synchronize (c->stream, &error));
  g_assert_true (GCG_CU_OK (&error, cuPointerGetAttribute, &owner,
      CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, ptr));
  g_assert_true (owner == gcg_capture_pool_get_mem_pool_handle (pool));
  chain_values (11, v);
  chain_set (c, v);
  g_assert_true (chain_enqueue (c, ptr, 3, 0, &error));
  chain_check (c, ptr, 3, v, 0);

  capture = gcg_capture_begin (c->stream, GCG_CAPTURE_MODE_DEFAULT, &error);
  g_assert_false (gcg_capture_pool_alloc (pool, c->stream, 256, &refused,
      &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_CAPTURE_STATE);
  g_test_message ("alloc in capture: %s", error->message);
  g_clear_error (&error);
  g_assert_cmpuint (refused, ==, 0);
  g_assert_true (gcg_capture_get_status (capture, &status, &error));
  g_assert_cmpint (status, ==, GCG_CAPTURE_STATUS_ACTIVE);
  g_assert_true (gcg_capture_abort (capture, &error));
  g_assert_true (gcg_capture_pool_free (pool, c->stream, ptr, &error));
  g_assert_no_error (error);
}

static void
count_node_types (GcgGraph *graph, guint counts[16])
{
  g_autoptr (GError) error = NULL;
  g_autofree CUgraphNode *nodes = NULL;
  size_t n = 0;

  memset (counts, 0, 16 * sizeof (guint));
  g_assert_true (GCG_CU_OK (&error, cuGraphGetNodes, gcg__graph_get_cu (graph),
      NULL, &n));
  nodes = g_new0 (CUgraphNode, n);
  g_assert_true (GCG_CU_OK (&error, cuGraphGetNodes, gcg__graph_get_cu (graph),
      nodes, &n));
  for (size_t i = 0; i < n; i++) {
    CUgraphNodeType type = 0;

    g_assert_true (GCG_CU_OK (&error, cuGraphNodeGetType, nodes[i], &type));
    g_assert_cmpint (type, <, 16);
    counts[type]++;
  }
  g_assert_cmpuint (n, ==, gcg_graph_get_node_count (graph));
}

static cuuint64_t
pool_used (GcgCapturePool *pool)
{
  g_autoptr (GError) error = NULL;
  cuuint64_t used = 0;

  g_assert_true (GCG_CU_OK (&error, cuMemPoolGetAttribute,
      gcg_capture_pool_get_mem_pool_handle (pool),
      CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
  return used;
}

/* Measurement, part 1: cuMemAllocAsync and cuMemFreeAsync in a capture
 * become MEM_ALLOC / MEM_FREE nodes. */
static void
test_alloc_in_capture_freed (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  CUstream cu;
  const gsize bytes = CHAIN_N * sizeof (guint32);
  g_autoptr (GcgCapture) capture = NULL;
  g_autoptr (GcgGraph) graph = NULL;
  g_autoptr (GError) error = NULL;
  CUdeviceptr tmp = 0;
  guint counts[16];

  if (!c->ctx)
    return;
  cu = gcg__stream_get_cu (c->stream);
  capture = gcg_capture_begin (c->stream, GCG_CAPTURE_MODE_DEFAULT, &error);
  g_assert_true (GCG_CU_OK (&error, cuMemAllocAsync, &tmp, bytes, cu));
  g_assert_cmpuint (tmp, !=, 0);
  g_assert_true (chain_enqueue (c, tmp, 3, 0, &error));
  g_assert_true (GCG_CU_OK (&error, cuMemcpyDtoDAsync, c->out[0], tmp, bytes,
      cu));
  g_assert_true (GCG_CU_OK (&error, cuMemFreeAsync, tmp, cu));
  graph = gcg_capture_finish (capture, &error);
  g_assert_no_error (error);

  count_node_types (graph, counts);
  g_test_message ("alloc+free in capture: %u nodes: %u kernel, %u memcpy, "
                  "%u mem-alloc, %u mem-free",
      gcg_graph_get_node_count (graph), counts[CU_GRAPH_NODE_TYPE_KERNEL],
      counts[CU_GRAPH_NODE_TYPE_MEMCPY], counts[CU_GRAPH_NODE_TYPE_MEM_ALLOC],
      counts[CU_GRAPH_NODE_TYPE_MEM_FREE]);
  g_assert_cmpuint (counts[CU_GRAPH_NODE_TYPE_KERNEL], ==, CHAIN_KERNELS);
  g_assert_cmpuint (counts[CU_GRAPH_NODE_TYPE_MEMCPY], ==, 1);
  g_assert_cmpuint (counts[CU_GRAPH_NODE_TYPE_MEM_ALLOC], ==, 1);
  g_assert_cmpuint (counts[CU_GRAPH_NODE_TYPE_MEM_FREE], ==, 1);
  g_assert_cmpuint (gcg_graph_get_alloc_node_count (graph), ==, 1);
  for (guint frame = 0; frame < 3; frame++)
    chain_replay_and_check (c, graph, c->out[0], 3, 0, frame + 40);
}

/* Measurement, part 2: with a private pool as the device's current pool,
 * an allocation in the capture still becomes a MEM_ALLOC node, never
 * touches the private pool, and (left unfreed) needs AUTO_FREE_ON_LAUNCH
 * to be replayed; its memory shows as device graph memory. */
static void
test_alloc_in_capture_unfreed (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  CUstream cu;
  const gsize bytes = CHAIN_N * sizeof (guint32);
  g_autoptr (GcgCapturePool) pool = NULL;
  g_autoptr (GcgCapture) capture = NULL;
  g_autoptr (GcgGraph) graph = NULL;
  g_autoptr (GError) error = NULL;
  cuuint64_t used_before, used_after;
  guint64 graph_used = 0, graph_reserved = 0;
  CUdeviceptr tmp = 0;
  guint counts[16];

  if (!c->ctx)
    return;
  cu = gcg__stream_get_cu (c->stream);
  pool = gcg_capture_pool_new_private (c->ctx, &error);
  g_assert_no_error (error);
  used_before = pool_used (pool);
  capture = gcg_capture_begin_with_pool (c->stream, GCG_CAPTURE_MODE_DEFAULT,
      pool, &error);
  g_assert_true (GCG_CU_OK (&error, cuMemAllocAsync, &tmp, bytes, cu));
  g_assert_true (chain_enqueue (c, tmp, 3, 0, &error));
  graph = gcg_capture_finish (capture, &error);
  g_assert_no_error (error);
  g_assert_true (chain_current_mem_pool (c) == f->original);

  count_node_types (graph, counts);
  g_assert_cmpuint (counts[CU_GRAPH_NODE_TYPE_MEM_ALLOC], ==, 1);
  g_assert_cmpuint (counts[CU_GRAPH_NODE_TYPE_MEM_FREE], ==, 0);
  g_assert_cmpuint (gcg_graph_get_alloc_node_count (graph), ==, 1);
  /* Replaying an unfreed allocation works only with auto-free. */
  for (guint frame = 0; frame < 3; frame++)
    chain_replay_and_check (c, graph, tmp, 3, 0, frame + 50);

  used_after = pool_used (pool);
  g_assert_true (gcg_graph_get_device_graph_memory (graph, &graph_used,
      &graph_reserved, &error));
  g_test_message ("unfreed alloc in capture, private pool current: private "
                  "pool used %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT
                  " bytes; device "
                  "graph memory used %" G_GUINT64_FORMAT
                  ", reserved %" G_GUINT64_FORMAT,
      (guint64) used_before, (guint64) used_after, graph_used, graph_reserved);
  g_assert_cmpuint (used_after, ==, used_before);
  g_assert_cmpuint (graph_reserved, >=, bytes);

  /* Unfreed graph memory may be freed by stream work after the replay. */
  g_assert_true (GCG_CU_OK (&error, cuMemFreeAsync, tmp, cu));
  g_assert_true (gcg_stream_synchronize (c->stream, &error));
  g_clear_object (&graph);
  g_assert_true (GCG_CU_OK (&error, cuDeviceGraphMemTrim,
      gcg__context_get_cu_device (c->ctx)));
  g_assert_no_error (error);
}

#define ADD CHAIN_TEST_ADD

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  ADD ("/gpu/capture-pool/keeps-buffers-until-last-holder",
      test_keeps_buffers_until_last_holder);
  ADD ("/gpu/capture-pool/sealed-refuses", test_sealed_pool_refuses);
  ADD ("/gpu/capture-pool/into-pool-restores-mem-pool",
      test_into_pool_restores_mem_pool);
  ADD ("/gpu/capture-pool/guard-swaps-mem-pool", test_guard_swaps_mem_pool);
  ADD ("/gpu/capture-pool/guard-scopes-end-out-of-order",
      test_guard_scopes_end_out_of_order);
  ADD ("/gpu/capture-pool/alloc", test_pool_alloc);
  ADD ("/gpu/capture-pool/alloc-in-capture-freed", test_alloc_in_capture_freed);
  ADD ("/gpu/capture-pool/alloc-in-capture-unfreed",
      test_alloc_in_capture_unfreed);

  return g_test_run ();
}
