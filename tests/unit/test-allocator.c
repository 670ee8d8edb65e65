/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GcgAllocator object over the host segment source: its properties,
 * boxed statistics and snapshot, misuse reported as criticals, and
 * threads allocating and freeing at once.
 */
#include <gcg.h>
#include "gcg-test-util.h"
#include "gcg-allocator-private.h"
#include "host-segment-source.h"

#define MiB ((gsize) 1 << 20)

typedef struct
{
  HostSource *src;
  GcgAllocator *allocator;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->src = host_source_new (G_GUINT64_CONSTANT (64) << 30);
  f->allocator = gcg__allocator_new_for_source (&host_segment_source, f->src,
      "host test source");
}

static void
check (Fixture *f)
{
  g_autoptr (GPtrArray) snapshot = gcg_allocator_snapshot (f->allocator);
  g_autoptr (GcgAllocatorStats) stats = gcg_allocator_get_stats (f->allocator);

  host_source_check (f->src, snapshot, stats);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  check (f);
  g_clear_object (&f->allocator);
  host_source_free (f->src);
}

static guint64
alloc_ok (Fixture *f, gsize size)
{
  g_autoptr (GError) error = NULL;
  guint64 ptr = 0;

  g_assert_true (gcg_allocator_alloc (f->allocator, size, NULL, &ptr, &error));
  g_assert_no_error (error);
  return ptr;
}

static void
test_stats_property (Fixture *f, gconstpointer data)
{
  guint64 a = alloc_ok (f, 1000);
  g_autoptr (GcgAllocatorStats) stats = NULL;
  g_autoptr (GcgAllocatorStats) copy = NULL;

  g_object_get (f->allocator, "stats", &stats, NULL);
  g_assert_cmpuint (stats->allocated_bytes, ==, 1024);
  g_assert_cmpuint (stats->requested_bytes, ==, 1000);
  g_assert_cmpuint (stats->reserved_bytes, ==, 2 * MiB);
  g_assert_cmpuint (stats->cache_misses, ==, 1);
  copy = g_boxed_copy (GCG_TYPE_ALLOCATOR_STATS, stats);
  g_assert_cmpmem (copy, sizeof (*copy), stats, sizeof (*stats));

  gcg_allocator_free (f->allocator, a);
  gcg_allocator_reset_peak_stats (f->allocator);
  g_clear_pointer (&stats, gcg_allocator_stats_free);
  stats = gcg_allocator_get_stats (f->allocator);
  g_assert_cmpuint (stats->allocated_bytes_peak, ==, 0);
  gcg_allocator_empty_cache (f->allocator);
  g_clear_pointer (&stats, gcg_allocator_stats_free);
  stats = gcg_allocator_get_stats (f->allocator);
  g_assert_cmpuint (stats->reserved_bytes, ==, 0);
  g_assert_cmpuint (stats->device_frees, ==, 1);
}

static void
count_notify (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  (*(guint *) user_data)++;
}

static void
test_max_split_size (Fixture *f, gconstpointer data)
{
  guint64 value = 0;
  guint notified = 0;

  g_object_get (f->allocator, "max-split-size", &value, NULL);
  g_assert_cmpuint (value, ==, G_MAXUINT64);
  g_signal_connect (f->allocator, "notify::max-split-size",
      G_CALLBACK (count_notify), &notified);
  g_object_set (f->allocator, "max-split-size", (guint64) 64 * MiB, NULL);
  g_object_set (f->allocator, "max-split-size", (guint64) 64 * MiB, NULL);
  g_assert_cmpuint (notified, ==, 1);
  g_assert_cmpuint (gcg_allocator_get_max_split_size (f->allocator), ==,
      64 * MiB);

  /* Below 20 MiB is a programming error. */
  g_test_expect_message ("Gcg", G_LOG_LEVEL_CRITICAL, "*max_split_size*");
  gcg_allocator_set_max_split_size (f->allocator, MiB);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (gcg_allocator_get_max_split_size (f->allocator), ==,
      64 * MiB);
}

static void
test_snapshot (Fixture *f, gconstpointer data)
{
  guint64 a = alloc_ok (f, 3 * MiB);
  g_autoptr (GPtrArray) snapshot = gcg_allocator_snapshot (f->allocator);
  GcgMemorySegment *seg;
  GcgMemoryBlock *block;

  g_assert_cmpuint (snapshot->len, ==, 1);
  seg = snapshot->pdata[0];
  g_assert_cmpuint (seg->stream, ==, 0);
  g_assert_cmpuint (seg->size, ==, 20 * MiB);
  block = g_ptr_array_index (gcg_memory_segment_get_blocks (seg), 0);
  g_assert_cmpuint (block->address, ==, a);
  g_assert_cmpint (block->state, ==, GCG_MEMORY_BLOCK_ALLOCATED);
  g_assert_true (G_TYPE_IS_ENUM (GCG_TYPE_MEMORY_BLOCK_STATE));
  gcg_allocator_free (f->allocator, a);
}

static void
test_misuse (Fixture *f, gconstpointer data)
{
  guint64 ptr = 1;

  /* Zero bytes and 0 pointers are fine. */
  g_assert_true (gcg_allocator_alloc (f->allocator, 0, NULL, &ptr, NULL));
  g_assert_cmpuint (ptr, ==, 0);
  gcg_allocator_free (f->allocator, 0);
  g_assert_cmpuint (f->src->alloc_calls, ==, 0);

  g_test_expect_message ("Gcg", G_LOG_LEVEL_CRITICAL, "*not allocated*");
  gcg_allocator_free (f->allocator, 0x1234);
  g_test_assert_expected_messages ();
  ptr = alloc_ok (f, 100);
  gcg_allocator_free (f->allocator, ptr);
  g_test_expect_message ("Gcg", G_LOG_LEVEL_CRITICAL, "*freed already*");
  gcg_allocator_free (f->allocator, ptr);
  g_test_assert_expected_messages ();
}

static gpointer
hammer (gpointer data)
{
  Fixture *f = data;
  g_autoptr (GRand) rand = g_rand_new_with_seed (gcg_test_seed (0x67636701));
  guint64 live[16] = { 0 };

  for (guint i = 0; i < 50000; i++) {
    guint slot = g_rand_int_range (rand, 0, G_N_ELEMENTS (live));

    if (live[slot]) {
      gcg_allocator_free (f->allocator, live[slot]);
      live[slot] = 0;
    } else {
      live[slot] = alloc_ok (f, g_rand_int_range (rand, 1, 4 * MiB));
    }
  }
  for (guint i = 0; i < G_N_ELEMENTS (live); i++)
    gcg_allocator_free (f->allocator, live[i]);
  return NULL;
}

static void
test_threads (Fixture *f, gconstpointer data)
{
  GThread *threads[6];
  g_autoptr (GcgAllocatorStats) stats = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("hammer", hammer, f);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  stats = gcg_allocator_get_stats (f->allocator);
  g_assert_cmpuint (stats->allocated_bytes, ==, 0);
  g_assert_cmpuint (stats->active_bytes, ==, 0);
  g_assert_cmpuint (stats->cache_hits + stats->cache_misses, >, 100000);
}

#define ADD(path, fn) \
  g_test_add ("/allocator/" path, Fixture, NULL, fixture_set_up, fn, \
      fixture_tear_down)

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  ADD ("stats-property", test_stats_property);
  ADD ("max-split-size", test_max_split_size);
  ADD ("snapshot", test_snapshot);
  ADD ("misuse", test_misuse);
  ADD ("threads", test_threads);

  return g_test_run ();
}
