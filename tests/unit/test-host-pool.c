/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GcgHostPool over a plain-memory backend: power-of-two buckets, reuse,
 * the bound on cached bytes, zero-byte requests, the checks on release,
 * checked byte accounting, properties and concurrent use.
 */
#include <gcg.h>
#include "gcg-test-util.h"
#include "gcg-checked-private.h"
#include "gcg-host-pool-private.h"

#define KiB ((gsize) 1 << 10)
#define MiB ((gsize) 1 << 20)

typedef struct
{
  gint allocs;
  gint frees;
  gboolean fail_next;
} Backend;

static gpointer
backend_alloc (gpointer user_data, gsize size, GError **error)
{
  Backend *b = user_data;

  if (b->fail_next) {
    b->fail_next = FALSE;
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_OUT_OF_MEMORY,
        "test backend: out of memory on demand");
    return NULL;
  }
  g_atomic_int_inc (&b->allocs);
  return g_malloc (size);
}

static void
backend_free (gpointer user_data, gpointer ptr)
{
  Backend *b = user_data;

  g_atomic_int_inc (&b->frees);
  g_free (ptr);
}

static const GcgHostBackend test_backend = {
  .alloc = backend_alloc,
  .free = backend_free,
};

typedef struct
{
  Backend backend;
  GcgHostPool *pool;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->pool = gcg__host_pool_new_with_backend (&test_backend, &f->backend);
}

/* Everything pinned is given back by the end. */
static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_assert_cmpuint (gcg_host_pool_get_in_use_bytes (f->pool), ==, 0);
  g_clear_object (&f->pool);
  g_assert_cmpint (f->backend.allocs, ==, f->backend.frees);
}

static gpointer
alloc_ok (Fixture *f, gsize size)
{
  g_autoptr (GError) error = NULL;
  gpointer ptr = gcg_host_pool_alloc (f->pool, size, &error);

  g_assert_no_error (error);
  g_assert_nonnull (ptr);
  /* The whole bucket is the caller's. */
  memset (ptr, 0xa5, gcg_host_pool_bucket_size (size));
  return ptr;
}

static void
release_ok (Fixture *f, gpointer ptr, gsize size)
{
  g_autoptr (GError) error = NULL;

  g_assert_true (gcg_host_pool_release (f->pool, ptr, size, &error));
  g_assert_no_error (error);
}

static void
test_buckets (void)
{
  static const gsize table[][2] = {
    { 0, 0 },
    { 1, 4096 },
    { 4096, 4096 },
    { 4097, 8192 },
    { 8192, 8192 },
    { MiB - 1, MiB },
    { MiB, MiB },
    { MiB + 1, 2 * MiB },
    { (G_MAXSIZE >> 1) + 1, (G_MAXSIZE >> 1) + 1 },
    { (G_MAXSIZE >> 1) + 2, 0 },
    { G_MAXSIZE, 0 },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (table); i++)
    g_assert_cmpuint (gcg_host_pool_bucket_size (table[i][0]), ==, table[i][1]);
}

static void
test_zero_bytes (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  g_assert_null (gcg_host_pool_alloc (f->pool, 0, &error));
  g_assert_no_error (error);
  g_assert_true (gcg_host_pool_release (f->pool, NULL, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpint (f->backend.allocs, ==, 0);
  g_assert_cmpuint (gcg_host_pool_get_in_use_bytes (f->pool), ==, 0);
}

static void
test_reuse (Fixture *f, gconstpointer data)
{
  gpointer a = alloc_ok (f, 5000);
  gpointer b, c;

  g_assert_cmpuint (gcg_host_pool_get_in_use_bytes (f->pool), ==, 8192);
  release_ok (f, a, 5000);
  g_assert_cmpuint (gcg_host_pool_get_in_use_bytes (f->pool), ==, 0);
  g_assert_cmpuint (gcg_host_pool_get_cached_bytes (f->pool), ==, 8192);
  /* Same bucket: the cached block, no new pinning. */
  b = alloc_ok (f, 8000);
  g_assert_true (b == a);
  g_assert_cmpint (f->backend.allocs, ==, 1);
  g_assert_cmpuint (gcg_host_pool_get_cached_bytes (f->pool), ==, 0);
  /* Another bucket: a new block. */
  c = alloc_ok (f, 3000);
  g_assert_true (c != a);
  g_assert_cmpint (f->backend.allocs, ==, 2);
  release_ok (f, b, 8000);
  release_ok (f, c, 3000);
  gcg_host_pool_clear (f->pool);
  g_assert_cmpuint (gcg_host_pool_get_cached_bytes (f->pool), ==, 0);
  g_assert_cmpint (f->backend.frees, ==, 2);
}

static void
test_bounded_cache (Fixture *f, gconstpointer data)
{
  gpointer p[3];

  gcg_host_pool_set_max_cached_bytes (f->pool, 16 * KiB);
  for (guint i = 0; i < 3; i++)
    p[i] = alloc_ok (f, 8 * KiB);
  for (guint i = 0; i < 3; i++)
    release_ok (f, p[i], 8 * KiB);
  /* Two fit in the cache, the third is unpinned. */
  g_assert_cmpuint (gcg_host_pool_get_cached_bytes (f->pool), ==, 16 * KiB);
  g_assert_cmpint (f->backend.frees, ==, 1);
  /* Lowering the bound unpins the excess at once. */
  gcg_host_pool_set_max_cached_bytes (f->pool, 8 * KiB);
  g_assert_cmpuint (gcg_host_pool_get_cached_bytes (f->pool), ==, 8 * KiB);
  g_assert_cmpint (f->backend.frees, ==, 2);
  /* A block larger than the whole cache is never kept. */
  p[0] = alloc_ok (f, 64 * KiB);
  release_ok (f, p[0], 64 * KiB);
  g_assert_cmpuint (gcg_host_pool_get_cached_bytes (f->pool), ==, 8 * KiB);
  g_assert_cmpint (f->backend.frees, ==, 3);
  gcg_host_pool_set_max_cached_bytes (f->pool, 0);
  g_assert_cmpuint (gcg_host_pool_get_cached_bytes (f->pool), ==, 0);
}

static void
assert_release_fails (Fixture *f, gpointer ptr, gsize size)
{
  g_autoptr (GError) error = NULL;
  guint64 in_use = gcg_host_pool_get_in_use_bytes (f->pool);
  guint64 cached = gcg_host_pool_get_cached_bytes (f->pool);

  g_assert_false (gcg_host_pool_release (f->pool, ptr, size, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_test_message ("%s", error->message);
  /* Nothing changed. */
  g_assert_cmpuint (gcg_host_pool_get_in_use_bytes (f->pool), ==, in_use);
  g_assert_cmpuint (gcg_host_pool_get_cached_bytes (f->pool), ==, cached);
}

static void
test_release_checks (Fixture *f, gconstpointer data)
{
  gpointer a = alloc_ok (f, 5000);
  guint8 not_ours[16];

  /* Sizes outside (4096, 8192] are not what it was allocated for. */
  assert_release_fails (f, a, 8193);
  assert_release_fails (f, a, 4096);
  assert_release_fails (f, a, 0);
  assert_release_fails (f, not_ours, sizeof (not_ours));
  assert_release_fails (f, NULL, 5000);
  release_ok (f, a, 8192);
  /* Twice. */
  assert_release_fails (f, a, 8192);
}

static void
test_failures (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  g_assert_null (gcg_host_pool_alloc (f->pool, G_MAXSIZE, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  f->backend.fail_next = TRUE;
  g_assert_null (gcg_host_pool_alloc (f->pool, 100, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_OUT_OF_MEMORY);
  g_assert_cmpuint (gcg_host_pool_get_in_use_bytes (f->pool), ==, 0);
}

static void
test_checked_arithmetic (void)
{
  g_autoptr (GError) error = NULL;
  guint64 counter = 5;

  g_assert_true (gcg__checked_sub (&counter, 5, "test bytes", &error));
  g_assert_cmpuint (counter, ==, 0);
  /* Underflow: reported, the counter left alone (no clamping to 0). */
  counter = 5;
  g_assert_false (gcg__checked_sub (&counter, 6, "test bytes", &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "underflow"));
  g_assert_nonnull (strstr (error->message, "test bytes is 5"));
  g_assert_cmpuint (counter, ==, 5);
  g_clear_error (&error);

  counter = G_MAXUINT64 - 1;
  g_assert_true (gcg__checked_add (&counter, 1, "test bytes", &error));
  g_assert_cmpuint (counter, ==, G_MAXUINT64);
  g_assert_false (gcg__checked_add (&counter, 1, "test bytes", &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "overflow"));
  g_assert_cmpuint (counter, ==, G_MAXUINT64);
}

static void
count_notify (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  (*(guint *) user_data)++;
}

static void
test_properties (Fixture *f, gconstpointer data)
{
  gpointer a = alloc_ok (f, 100);
  guint64 max = 0, cached = 1, in_use = 0;
  guint notified = 0;

  g_signal_connect (f->pool, "notify::max-cached-bytes",
      G_CALLBACK (count_notify), &notified);
  g_object_get (f->pool, "max-cached-bytes", &max, "cached-bytes", &cached,
      "in-use-bytes", &in_use, NULL);
  g_assert_cmpuint (max, ==, 256 * MiB);
  g_assert_cmpuint (cached, ==, 0);
  g_assert_cmpuint (in_use, ==, 4096);
  g_object_set (f->pool, "max-cached-bytes", (guint64) MiB, NULL);
  g_object_set (f->pool, "max-cached-bytes", (guint64) MiB, NULL);
  g_assert_cmpuint (notified, ==, 1);
  g_assert_cmpuint (gcg_host_pool_get_max_cached_bytes (f->pool), ==, MiB);
  release_ok (f, a, 100);
}

static gpointer
hammer (gpointer data)
{
  Fixture *f = data;
  g_autoptr (GRand) rand = g_rand_new_with_seed (gcg_test_seed (0x67636701));

  for (guint i = 0; i < 20000; i++) {
    gsize size = g_rand_int_range (rand, 1, 256 * KiB);
    gpointer p = alloc_ok (f, size);

    release_ok (f, p, size);
  }
  return NULL;
}

static void
test_threads (Fixture *f, gconstpointer data)
{
  GThread *threads[4];

  gcg_host_pool_set_max_cached_bytes (f->pool, MiB);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("hammer", hammer, f);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_thread_join (threads[i]);
  g_assert_cmpuint (gcg_host_pool_get_cached_bytes (f->pool), <=, MiB);
  /* Everything not cached went back to the backend. */
  g_assert_cmpuint ((guint64) (f->backend.allocs - f->backend.frees) * 4096, <=,
      gcg_host_pool_get_cached_bytes (f->pool));
}

#define ADD(path, fn) \
  g_test_add ("/host-pool/" path, Fixture, NULL, fixture_set_up, fn, \
      fixture_tear_down)

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/host-pool/buckets", test_buckets);
  g_test_add_func ("/host-pool/checked-arithmetic", test_checked_arithmetic);
  ADD ("zero-bytes", test_zero_bytes);
  ADD ("reuse", test_reuse);
  ADD ("bounded-cache", test_bounded_cache);
  ADD ("release-checks", test_release_checks);
  ADD ("failures", test_failures);
  ADD ("properties", test_properties);
  ADD ("threads", test_threads);

  return g_test_run ();
}
