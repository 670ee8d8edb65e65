/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GcgAllocator and GcgHostPool on a real GPU: kernels write and read
 * through allocated blocks; record_stream keeps a freed block from reuse
 * while a kernel on another stream still runs; empty_cache gives memory
 * back to the device; running out of device memory is a detailed error
 * after which the allocator still works.  Skips (TAP) without a driver.
 */
#include "gcg-test-util.h"
#include "gcg-context-private.h"
#include "gcg-stream-private.h"

#define MiB ((gsize) 1 << 20)

typedef struct
{
  GcgContext *ctx;
  GcgStream *stream;
  GcgAllocator *allocator;
} Gpu;

static gboolean
gpu_open (Gpu *g)
{
  g_autoptr (GError) error = NULL;

  g->ctx = gcg_test_open_gpu ();
  if (g->ctx == NULL)
    return FALSE;
  g->stream = gcg_stream_new (g->ctx, &error);
  g_assert_no_error (error);
  g->allocator = gcg_allocator_new (g->ctx, &error);
  g_assert_no_error (error);
  g_assert_true (gcg_context_push (g->ctx, &error));
  return TRUE;
}

static void
gpu_close (Gpu *g)
{
  if (g->ctx == NULL)
    return;
  g_clear_object (&g->allocator);
  g_clear_object (&g->stream);
  g_assert_true (gcg_context_pop (g->ctx, NULL));
  g_clear_object (&g->ctx);
}

static guint64
alloc_ok (GcgAllocator *allocator, gsize size, GcgStream *stream)
{
  g_autoptr (GError) error = NULL;
  guint64 ptr = 0;

  g_assert_true (gcg_allocator_alloc (allocator, size, stream, &ptr, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ptr, !=, 0);
  g_assert_cmpuint (ptr % 512, ==, 0);
  return ptr;
}

static GcgAllocatorStats
stats_of (GcgAllocator *allocator)
{
  g_autoptr (GcgAllocatorStats) stats = gcg_allocator_get_stats (allocator);

  return *stats;
}

/* out[i] = i * step + *base on @stream */
static void
launch_iota (Gpu *g, GcgStream *stream, guint64 out, guint32 n, guint32 step,
    guint64 base)
{
  g_autoptr (GError) error = NULL;
  CUfunction fn =
      gcg__context_get_function (g->ctx, "gcg_test_iota_u32", &error);
  void *params[] = { &out, &n, &step, &base };

  g_assert_no_error (error);
  g_assert_true (GCG_CU_OK (&error, cuLaunchKernel, fn, (n + 255) / 256, 1, 1,
      256, 1, 1, 0, gcg__stream_get_cu (stream), params, NULL));
  g_assert_no_error (error);
}

/* Keeps @stream busy for about @ms milliseconds, then sets *flag = 1. */
static void
launch_spin (Gpu *g, GcgStream *stream, guint ms, guint64 flag)
{
  g_autoptr (GError) error = NULL;
  CUfunction fn = gcg__context_get_function (g->ctx, "gcg_test_spin", &error);
  gint khz = 0;
  unsigned long long cycles;
  void *params[] = { &cycles, &flag };

  g_assert_no_error (error);
  g_assert_true (GCG_CU_OK (&error, cuDeviceGetAttribute, &khz,
      CU_DEVICE_ATTRIBUTE_CLOCK_RATE, gcg__context_get_cu_device (g->ctx)));
  /* A driver that does not report the clock gets 2 GHz: spinning longer
   * than asked is harmless. */
  if (khz <= 0)
    khz = 2000000;
  cycles = (unsigned long long) khz * ms;
  g_assert_true (GCG_CU_OK (&error, cuLaunchKernel, fn, 1, 1, 1, 1, 1, 1, 0,
      gcg__stream_get_cu (stream), params, NULL));
  g_assert_no_error (error);
}

static void
test_write_read (void)
{
  static const gsize sizes[] = { 4, 1000, MiB, 5 * MiB, 30 * MiB };
  g_autoptr (GError) error = NULL;
  Gpu g = { 0 };
  guint64 ptrs[G_N_ELEMENTS (sizes)], base;
  const guint32 base_value = 17, step = 3;
  GcgAllocatorStats stats;

  if (!gpu_open (&g))
    return;
  base = alloc_ok (g.allocator, sizeof (guint32), NULL);
  g_assert_true (GCG_CU_OK (&error, cuMemcpyHtoD, base, &base_value,
      sizeof (base_value)));
  for (guint round = 0; round < 2; round++) {
    for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++) {
      ptrs[i] = alloc_ok (g.allocator, sizes[i], g.stream);
      launch_iota (&g, g.stream, ptrs[i], sizes[i] / 4, step, base);
    }
    g_assert_true (gcg_stream_synchronize (g.stream, &error));
    for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++) {
      guint32 n = sizes[i] / 4;
      g_autofree guint32 *host = g_new0 (guint32, n);

      g_assert_true (GCG_CU_OK (&error, cuMemcpyDtoH, host, ptrs[i],
          n * sizeof (guint32)));
      for (guint32 j = 0; j < n; j++)
        g_assert_cmpuint (host[j], ==, j * step + base_value);
      /* Blocks never overlap. */
      for (gsize k = 0; k < i; k++)
        g_assert_true (ptrs[k] + sizes[k] <= ptrs[i]
            || ptrs[i] + sizes[i] <= ptrs[k]);
    }
    for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
      gcg_allocator_free (g.allocator, ptrs[i]);
  }
  /* The second round came from the cache. */
  stats = stats_of (g.allocator);
  g_assert_cmpuint (stats.cache_hits, >=, G_N_ELEMENTS (sizes));
  g_assert_cmpuint (stats.device_allocs, ==, stats.segments);
  g_assert_cmpuint (stats.allocated_bytes, ==, 512);
  gcg_allocator_free (g.allocator, base);
  gpu_close (&g);
}

static GcgMemoryBlockState
block_state (GcgAllocator *allocator, guint64 ptr)
{
  g_autoptr (GPtrArray) snapshot = gcg_allocator_snapshot (allocator);

  for (guint i = 0; i < snapshot->len; i++) {
    GPtrArray *blocks = gcg_memory_segment_get_blocks (snapshot->pdata[i]);

    for (guint j = 0; j < blocks->len; j++) {
      GcgMemoryBlock *b = blocks->pdata[j];

      if (b->address == ptr)
        return b->state;
    }
  }
  g_assert_not_reached ();
}

static void
test_record_stream (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgStream) other = NULL;
  Gpu g = { 0 };
  guint64 p, q, r;
  guint32 flag = 0;
  gboolean idle = TRUE;

  if (!gpu_open (&g))
    return;
  other = gcg_stream_new (g.ctx, &error);
  g_assert_no_error (error);
  /* Load the kernel before timing anything. */
  g_assert_nonnull (gcg__context_get_function (g.ctx, "gcg_test_spin", &error));

  p = alloc_ok (g.allocator, MiB, g.stream);
  launch_spin (&g, other, 200, p);
  g_assert_true (gcg_allocator_record_stream (g.allocator, p, other, &error));
  gcg_allocator_free (g.allocator, p);
  q = alloc_ok (g.allocator, MiB, g.stream);
  g_assert_true (gcg_stream_query (other, &idle, &error));
  /* The kernel ran all along, so the block could not be handed out. */
  g_assert_false (idle);
  g_assert_cmpuint (q, !=, p);
  g_assert_cmpint (block_state (g.allocator, p), ==, GCG_MEMORY_BLOCK_PENDING);
  g_assert_cmpuint (stats_of (g.allocator).active_bytes, ==, 2 * MiB);
  g_assert_cmpuint (stats_of (g.allocator).allocated_bytes, ==, MiB);

  /* Once it has completed the block is reused. */
  g_assert_true (gcg_stream_synchronize (other, &error));
  r = alloc_ok (g.allocator, MiB, g.stream);
  g_assert_cmpuint (r, ==, p);
  g_assert_true (GCG_CU_OK (&error, cuMemcpyDtoH, &flag, r, sizeof (flag)));
  g_assert_cmpuint (flag, ==, 1);
  gcg_allocator_free (g.allocator, q);
  gcg_allocator_free (g.allocator, r);

  /* An allocator going away waits for pending stream uses. */
  p = alloc_ok (g.allocator, MiB, g.stream);
  launch_spin (&g, other, 20, p);
  g_assert_true (gcg_allocator_record_stream (g.allocator, p, other, &error));
  gcg_allocator_free (g.allocator, p);
  g_clear_object (&g.allocator);
  g_assert_true (gcg_stream_query (other, &idle, &error));
  g_assert_true (idle);
  g_assert_no_error (error);
  gpu_close (&g);
}

/* A stream use whose event cannot be recorded is waited for on free: the
 * block is free afterwards, and the kernel's write landed before reuse. */
static void
test_record_stream_event_fails (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgStream) other = NULL;
  Gpu g = { 0 };
  guint64 p, r;
  guint32 flag = 0;
  gboolean idle = FALSE;

  if (!gpu_open (&g))
    return;
  other = gcg_stream_new (g.ctx, &error);
  g_assert_no_error (error);
  g_assert_nonnull (gcg__context_get_function (g.ctx, "gcg_test_spin", &error));
  p = alloc_ok (g.allocator, MiB, g.stream);
  launch_spin (&g, other, 100, p);
  g_assert_true (gcg_allocator_record_stream (g.allocator, p, other, &error));
  g_assert_true (gcg_fault_inject ("cuEventRecord:1", &error));
  g_test_expect_message ("Gcg", G_LOG_LEVEL_WARNING, "*waited for the stream*");
  gcg_allocator_free (g.allocator, p);
  g_test_assert_expected_messages ();
  g_assert_true (gcg_fault_inject (NULL, &error));
  g_assert_true (gcg_stream_query (other, &idle, &error));
  g_assert_true (idle);
  g_assert_cmpint (block_state (g.allocator, p), ==, GCG_MEMORY_BLOCK_FREE);
  r = alloc_ok (g.allocator, MiB, g.stream);
  g_assert_cmpuint (r, ==, p);
  g_assert_true (GCG_CU_OK (&error, cuMemcpyDtoH, &flag, r, sizeof (flag)));
  g_assert_cmpuint (flag, ==, 1);
  gcg_allocator_free (g.allocator, r);
  gpu_close (&g);
}

static void
test_empty_cache (void)
{
  g_autoptr (GError) error = NULL;
  Gpu g = { 0 };
  guint64 before = 0, after = 0, p;

  if (!gpu_open (&g))
    return;
  p = alloc_ok (g.allocator, 256 * MiB, g.stream);
  gcg_allocator_free (g.allocator, p);
  g_assert_cmpuint (stats_of (g.allocator).reserved_bytes, ==, 256 * MiB);
  g_assert_true (gcg_context_get_memory_info (g.ctx, &before, NULL, &error));
  gcg_allocator_empty_cache (g.allocator);
  g_assert_true (gcg_context_get_memory_info (g.ctx, &after, NULL, &error));
  g_test_message ("free before %" G_GUINT64_FORMAT
                  " MiB, after %" G_GUINT64_FORMAT " MiB",
      before >> 20, after >> 20);
  g_assert_cmpuint (after, >=, before + 200 * MiB);
  g_assert_cmpuint (stats_of (g.allocator).reserved_bytes, ==, 0);
  g_assert_cmpuint (stats_of (g.allocator).device_frees, ==, 1);
  gpu_close (&g);
}

static void
test_out_of_memory (void)
{
  g_autoptr (GError) error = NULL;
  Gpu g = { 0 };
  guint64 p = 0, total;
  GcgAllocatorStats stats;
  guint8 byte = 0;

  if (!gpu_open (&g))
    return;
  /* Something cached, which the retry frees. */
  gcg_allocator_free (g.allocator, alloc_ok (g.allocator, 4 * MiB, g.stream));
  total = gcg_context_get_total_memory (g.ctx);
  g_assert_false (gcg_allocator_alloc (g.allocator, total * 2, g.stream, &p,
      &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_OUT_OF_MEMORY);
  g_assert_cmpuint (p, ==, 0);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message,
      "Out of device memory "
      "allocating "));
  g_assert_nonnull (strstr (error->message, gcg_context_get_name (g.ctx)));
  g_assert_nonnull (strstr (error->message, "(device 0)"));
  g_assert_nonnull (strstr (error->message, "allocated by gst-cudagraph"));
  g_assert_nonnull (strstr (error->message, "reserved"));
  g_assert_nonnull (strstr (error->message, "free on the device"));
  g_assert_null (strstr (error->message, "unknown"));
  g_clear_error (&error);
  stats = stats_of (g.allocator);
  g_assert_cmpuint (stats.oom_count, ==, 1);
  g_assert_cmpuint (stats.alloc_retries, ==, 1);
  g_assert_cmpuint (stats.device_frees, ==, 1);

  /* And it keeps working. */
  p = alloc_ok (g.allocator, MiB, g.stream);
  g_assert_true (GCG_CU_OK (&error, cuMemsetD8Async, p, 0x5a, MiB,
      gcg__stream_get_cu (g.stream)));
  g_assert_true (gcg_stream_synchronize (g.stream, &error));
  g_assert_true (GCG_CU_OK (&error, cuMemcpyDtoH, &byte, p + MiB - 1, 1));
  g_assert_cmpuint (byte, ==, 0x5a);
  gcg_allocator_free (g.allocator, p);
  gpu_close (&g);
}

static void
test_injected_oom_retry (void)
{
  g_autoptr (GError) error = NULL;
  Gpu g = { 0 };
  GcgAllocatorStats stats;
  guint64 p;

  if (!gpu_open (&g))
    return;
  g_assert_true (gcg_fault_inject ("cuMemAlloc:1=CUDA_ERROR_OUT_OF_MEMORY",
      &error));
  p = alloc_ok (g.allocator, MiB, g.stream);
  g_assert_true (gcg_fault_inject (NULL, &error));
  stats = stats_of (g.allocator);
  g_assert_cmpuint (stats.alloc_retries, ==, 1);
  g_assert_cmpuint (stats.oom_count, ==, 0);
  g_assert_cmpuint (stats.device_allocs, ==, 1);
  gcg_allocator_free (g.allocator, p);
  gpu_close (&g);
}

static void
test_host_pool (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgHostPool) pool = NULL;
  Gpu g = { 0 };
  guint8 *src, *dst;
  guint64 dev;

  if (!gpu_open (&g))
    return;
  pool = gcg_host_pool_new (g.ctx);
  g_assert_null (gcg_host_pool_alloc (pool, 0, &error));
  g_assert_no_error (error);
  src = gcg_host_pool_alloc (pool, MiB, &error);
  dst = gcg_host_pool_alloc (pool, MiB, &error);
  g_assert_no_error (error);
  g_assert_true (src != NULL && dst != NULL && src != dst);
  for (gsize i = 0; i < MiB; i++)
    src[i] = (guint8) (i * 7 + 1);
  memset (dst, 0, MiB);
  dev = alloc_ok (g.allocator, MiB, g.stream);
  g_assert_true (GCG_CU_OK (&error, cuMemcpyHtoDAsync, dev, src, MiB,
      gcg__stream_get_cu (g.stream)));
  g_assert_true (GCG_CU_OK (&error, cuMemcpyDtoHAsync, dst, dev, MiB,
      gcg__stream_get_cu (g.stream)));
  g_assert_true (gcg_stream_synchronize (g.stream, &error));
  g_assert_cmpmem (src, MiB, dst, MiB);
  gcg_allocator_free (g.allocator, dev);

  g_assert_true (gcg_host_pool_release (pool, src, MiB, &error));
  g_assert_cmpuint (gcg_host_pool_get_cached_bytes (pool), ==, MiB);
  /* Reused, not pinned again. */
  g_assert_true (gcg_host_pool_alloc (pool, MiB - 1, &error) == src);
  g_assert_true (gcg_host_pool_release (pool, src, MiB - 1, &error));
  g_assert_true (gcg_host_pool_release (pool, dst, MiB, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (gcg_host_pool_get_in_use_bytes (pool), ==, 0);
  gcg_host_pool_clear (pool);
  g_assert_cmpuint (gcg_host_pool_get_cached_bytes (pool), ==, 0);
  gpu_close (&g);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/gpu/allocator/write-read", test_write_read);
  g_test_add_func ("/gpu/allocator/record-stream", test_record_stream);
  g_test_add_func ("/gpu/allocator/record-stream-event-fails",
      test_record_stream_event_fails);
  g_test_add_func ("/gpu/allocator/empty-cache", test_empty_cache);
  g_test_add_func ("/gpu/allocator/out-of-memory", test_out_of_memory);
  g_test_add_func ("/gpu/allocator/injected-oom-retry",
      test_injected_oom_retry);
  g_test_add_func ("/gpu/allocator/host-pool", test_host_pool);

  return g_test_run ();
}
