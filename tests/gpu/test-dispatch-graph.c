/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The cached dispatch graph: correct outputs for fresh inputs, the
 * resident-input graph used when inputs are declared unchanged (and never
 * when the work mutates its inputs), shape mismatches refused with the
 * re-record hint, cooperative work refused, buffers borrowed from a shared
 * allocator and host pool and given back, also when making one fails.
 */
#include "gcg-test-util.h"
#include "gcg-context-private.h"
#include "gcg-stream-private.h"

#define N 1000

/* out = x * p[0] + p[1], reading x and p from inputs 0 and 1. */
static gboolean
enqueue_affine (GcgDispatchGraph *d, GcgStream *stream, gpointer user_data,
    GError **error)
{
  GcgContext *ctx = user_data;
  CUfunction fn = gcg__context_get_function (ctx, "gcg_test_affine_f32", error);
  CUdeviceptr out = gcg_dispatch_graph_get_output_ptr (d, 0);
  CUdeviceptr in = gcg_dispatch_graph_get_input_ptr (d, 0);
  CUdeviceptr scale = gcg_dispatch_graph_get_input_ptr (d, 1);
  CUdeviceptr offset = scale + sizeof (gfloat);
  guint32 n = N;
  void *params[] = { &out, &n, &scale, &offset };
  CUstream s = gcg__stream_get_cu (stream);

  return fn
      && GCG_CU_OK (error, cuMemcpyDtoDAsync, out, in, N * sizeof (gfloat), s)
      && GCG_CU_OK (error, cuLaunchKernel, fn, (N + 255) / 256, 1, 1, 256, 1, 1,
          0, s, params, NULL);
}

static GBytes *
make_x (gfloat base)
{
  gfloat *x = g_new (gfloat, N);

  for (guint i = 0; i < N; i++)
    x[i] = base + i;
  return g_bytes_new_take (x, N * sizeof (gfloat));
}

static GBytes *
make_p (gfloat scale, gfloat offset)
{
  gfloat p[2] = { scale, offset };

  return g_bytes_new (p, sizeof (p));
}

static void
check_output (GcgDispatchGraph *d, gfloat base, gfloat scale, gfloat offset)
{
  g_autoptr (GBytes) out = gcg_dispatch_graph_get_output (d, 0);
  const gfloat *y = g_bytes_get_data (out, NULL);

  g_assert_cmpuint (g_bytes_get_size (out), ==, N * sizeof (gfloat));
  for (guint i = 0; i < N; i++)
    g_assert_cmpfloat (y[i], ==, (base + i) * scale + offset);
}

static GcgDispatchGraph *
make_dispatch (GcgContext *ctx)
{
  const gsize in_sizes[] = { N * sizeof (gfloat), 2 * sizeof (gfloat) };
  const gsize out_sizes[] = { N * sizeof (gfloat) };
  g_autoptr (GError) error = NULL;
  GcgDispatchGraph *d =
      gcg_dispatch_graph_new (ctx, in_sizes, 2, out_sizes, 1, &error);

  g_assert_no_error (error);
  return d;
}

static void
test_dispatch (void)
{
  g_autoptr (GcgContext) ctx = gcg_test_open_gpu ();
  g_autoptr (GcgDispatchGraph) d = NULL;
  g_autoptr (GError) error = NULL;

  if (!ctx)
    return;
  d = make_dispatch (ctx);
  g_assert_false (gcg_dispatch_graph_dispatch (d, NULL, 0, TRUE, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_CAPTURE_STATE);
  g_clear_error (&error);
  g_assert_true (gcg_dispatch_graph_record (d, 0, enqueue_affine, ctx, &error));
  g_assert_no_error (error);

  for (gint round = 0; round < 3; round++) {
    g_autoptr (GBytes) x = make_x (round * 10.0f);
    g_autoptr (GBytes) p = make_p (2.0f + round, -1.0f * round);
    GBytes *inputs[] = { x, p };

    g_assert_true (gcg_dispatch_graph_dispatch (d, inputs, 2, FALSE, &error));
    g_assert_no_error (error);
    check_output (d, round * 10.0f, 2.0f + round, -1.0f * round);
  }
  g_assert_cmpuint (gcg_dispatch_graph_get_full_replays (d), ==, 3);

  /* Declared unchanged: the resident graph runs without uploads, so bytes
   * passed anyway are not uploaded and the output is the last one. */
  {
    g_autoptr (GBytes) x = make_x (500.0f);
    g_autoptr (GBytes) p = make_p (9.0f, 9.0f);
    GBytes *inputs[] = { x, p };

    g_assert_true (gcg_dispatch_graph_dispatch (d, NULL, 0, TRUE, &error));
    check_output (d, 20.0f, 4.0f, -2.0f);
    g_assert_true (gcg_dispatch_graph_dispatch (d, inputs, 2, TRUE, &error));
    check_output (d, 20.0f, 4.0f, -2.0f);
    g_assert_cmpuint (gcg_dispatch_graph_get_resident_replays (d), ==, 2);
    g_assert_true (gcg_dispatch_graph_dispatch (d, inputs, 2, FALSE, &error));
    check_output (d, 500.0f, 9.0f, 9.0f);
    g_assert_no_error (error);
  }
}

static void
test_shape_mismatch (void)
{
  g_autoptr (GcgContext) ctx = gcg_test_open_gpu ();
  g_autoptr (GcgDispatchGraph) d = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) x = NULL;
  g_autoptr (GBytes) p = NULL;
  g_autoptr (GBytes) small = NULL;

  if (!ctx)
    return;
  d = make_dispatch (ctx);
  g_assert_true (gcg_dispatch_graph_record (d, 0, enqueue_affine, ctx, &error));
  x = make_x (1.0f);
  p = make_p (1.0f, 0.0f);
  small = g_bytes_new_static ("abc", 3);
  {
    GBytes *wrong_size[] = { x, small };
    GBytes *wrong_count[] = { x };
    GBytes *right[] = { x, p };

    g_assert_false (gcg_dispatch_graph_dispatch (d, wrong_size, 2, FALSE,
        &error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_SHAPE_MISMATCH);
    g_assert_nonnull (strstr (error->message, "record it again"));
    g_assert_nonnull (strstr (error->message, "input 1 has 3 bytes"));
    g_clear_error (&error);
    g_assert_false (gcg_dispatch_graph_dispatch (d, wrong_count, 1, FALSE,
        &error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_SHAPE_MISMATCH);
    g_clear_error (&error);
    /* A refused dispatch leaves the graph usable. */
    g_assert_true (gcg_dispatch_graph_dispatch (d, right, 2, FALSE, &error));
    check_output (d, 1.0f, 1.0f, 0.0f);
  }
}

static void
test_flags (void)
{
  g_autoptr (GcgContext) ctx = gcg_test_open_gpu ();
  g_autoptr (GcgDispatchGraph) d = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) x = NULL;
  g_autoptr (GBytes) p = NULL;

  if (!ctx)
    return;
  d = make_dispatch (ctx);
  g_assert_false (gcg_dispatch_graph_record (d, GCG_DISPATCH_FLAGS_COOPERATIVE,
      enqueue_affine, ctx, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);
  g_assert_true (gcg_dispatch_graph_record (d,
      GCG_DISPATCH_FLAGS_MUTATES_INPUTS, enqueue_affine, ctx, &error));
  x = make_x (3.0f);
  p = make_p (2.0f, 1.0f);
  {
    GBytes *inputs[] = { x, p };

    g_assert_true (gcg_dispatch_graph_dispatch (d, inputs, 2, FALSE, &error));
    g_assert_true (gcg_dispatch_graph_dispatch (d, inputs, 2, TRUE, &error));
    check_output (d, 3.0f, 2.0f, 1.0f);
  }
  g_assert_cmpuint (gcg_dispatch_graph_get_resident_replays (d), ==, 0);
  g_assert_cmpuint (gcg_dispatch_graph_get_full_replays (d), ==, 2);
  g_assert_no_error (error);
}

static guint64
allocated_bytes (GcgAllocator *allocator)
{
  g_autoptr (GcgAllocatorStats) stats = gcg_allocator_get_stats (allocator);

  return stats->allocated_bytes;
}

static GcgDispatchGraph *
make_shared (GcgAllocator *allocator, GcgHostPool *host_pool, GError **error)
{
  const gsize in_sizes[] = { N * sizeof (gfloat), 2 * sizeof (gfloat) };
  const gsize out_sizes[] = { N * sizeof (gfloat) };

  return gcg_dispatch_graph_new_full (allocator, host_pool, in_sizes, 2,
      out_sizes, 1, error);
}

static void
test_shared_pools (void)
{
  g_autoptr (GcgContext) ctx = gcg_test_open_gpu ();
  g_autoptr (GcgAllocator) allocator = NULL;
  g_autoptr (GcgHostPool) host_pool = NULL;
  g_autoptr (GcgAllocatorStats) before = NULL;
  g_autoptr (GcgAllocatorStats) after = NULL;
  g_autoptr (GError) error = NULL;
  GcgDispatchGraph *d;

  if (!ctx)
    return;
  allocator = gcg_allocator_new (ctx, &error);
  g_assert_no_error (error);
  host_pool = gcg_host_pool_new (ctx);

  d = make_shared (allocator, host_pool, &error);
  g_assert_no_error (error);
  /* Two 4000-byte buffers and an 8-byte one, in 512-byte units. */
  g_assert_cmpuint (allocated_bytes (allocator), ==, 4096 + 4096 + 512);
  g_assert_true (gcg_dispatch_graph_record (d, 0, enqueue_affine, ctx, &error));
  {
    g_autoptr (GBytes) x = make_x (7.0f);
    g_autoptr (GBytes) p = make_p (3.0f, 0.5f);
    GBytes *inputs[] = { x, p };

    g_assert_true (gcg_dispatch_graph_dispatch (d, inputs, 2, FALSE, &error));
    check_output (d, 7.0f, 3.0f, 0.5f);
  }
  g_object_unref (d);
  g_assert_cmpuint (allocated_bytes (allocator), ==, 0);
  g_assert_cmpuint (gcg_host_pool_get_cached_bytes (host_pool), >, 0);
  g_assert_cmpuint (gcg_host_pool_get_in_use_bytes (host_pool), ==, 0);

  /* The next one is served from both caches. */
  before = gcg_allocator_get_stats (allocator);
  d = make_shared (allocator, host_pool, &error);
  g_assert_no_error (error);
  after = gcg_allocator_get_stats (allocator);
  g_assert_cmpuint (after->device_allocs, ==, before->device_allocs);
  g_assert_cmpuint (after->cache_hits, ==, before->cache_hits + 3);
  g_object_unref (d);

  /* A failing pinned allocation half way: nothing stays allocated. */
  gcg_host_pool_clear (host_pool);
  g_assert_true (gcg_fault_inject ("cuMemHostAlloc:2", &error));
  d = make_shared (allocator, host_pool, &error);
  g_assert_true (gcg_fault_inject (NULL, NULL));
  g_assert_null (d);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
  g_test_message ("%s", error->message);
  g_assert_cmpuint (allocated_bytes (allocator), ==, 0);
  g_assert_cmpuint (gcg_host_pool_get_in_use_bytes (host_pool), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/gpu/dispatch-graph/dispatch", test_dispatch);
  g_test_add_func ("/gpu/dispatch-graph/shape-mismatch", test_shape_mismatch);
  g_test_add_func ("/gpu/dispatch-graph/flags", test_flags);
  g_test_add_func ("/gpu/dispatch-graph/shared-pools", test_shared_pools);

  return g_test_run ();
}
