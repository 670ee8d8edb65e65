/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Capture and replay without a GPU: the enums, capture pools (seal,
 * keep-alive, clear), the pool-handle registry across threads, and the
 * capture/graph/pool entry points refusing programmer errors while the
 * driver is missing.
 */
#include <gcg.h>
#include "gcg-capture-private.h"

static void
test_mode_enum (void)
{
  g_autoptr (GEnumClass) klass = g_type_class_ref (GCG_TYPE_CAPTURE_MODE);
  const struct
  {
    GcgCaptureMode mode;
    CUstreamCaptureMode cu;
    const gchar *nick;
  } modes[] = {
    { GCG_CAPTURE_MODE_GLOBAL, CU_STREAM_CAPTURE_MODE_GLOBAL, "global" },
    { GCG_CAPTURE_MODE_THREAD_LOCAL, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
        "thread-local" },
    { GCG_CAPTURE_MODE_RELAXED, CU_STREAM_CAPTURE_MODE_RELAXED, "relaxed" },
  };

  g_assert_cmpuint (klass->n_values, ==, G_N_ELEMENTS (modes));
  for (gsize i = 0; i < G_N_ELEMENTS (modes); i++) {
    GEnumValue *value = g_enum_get_value (klass, modes[i].mode);

    g_assert_nonnull (value);
    g_assert_cmpint (value->value, ==, (gint) modes[i].cu);
    g_assert_cmpstr (value->value_nick, ==, modes[i].nick);
    g_assert_true (g_enum_get_value_by_nick (klass, modes[i].nick) == value);
  }
  g_assert_cmpint (GCG_CAPTURE_MODE_DEFAULT, ==, GCG_CAPTURE_MODE_THREAD_LOCAL);
}

static void
test_status_enum (void)
{
  g_autoptr (GEnumClass) klass = g_type_class_ref (GCG_TYPE_CAPTURE_STATUS);
  const struct
  {
    GcgCaptureStatus status;
    CUstreamCaptureStatus cu;
    const gchar *nick;
  } statuses[] = {
    { GCG_CAPTURE_STATUS_NONE, CU_STREAM_CAPTURE_STATUS_NONE, "none" },
    { GCG_CAPTURE_STATUS_ACTIVE, CU_STREAM_CAPTURE_STATUS_ACTIVE, "active" },
    { GCG_CAPTURE_STATUS_INVALIDATED, CU_STREAM_CAPTURE_STATUS_INVALIDATED,
        "invalidated" },
  };

  g_assert_cmpuint (klass->n_values, ==, G_N_ELEMENTS (statuses));
  for (gsize i = 0; i < G_N_ELEMENTS (statuses); i++) {
    GEnumValue *value = g_enum_get_value (klass, statuses[i].status);

    g_assert_nonnull (value);
    g_assert_cmpint (value->value, ==, (gint) statuses[i].cu);
    g_assert_cmpstr (value->value_nick, ==, statuses[i].nick);
  }
}

static void
count_notify (GObject *object, GParamSpec *pspec, gpointer data)
{
  (*(guint *) data)++;
}

static void
test_pool_seal (void)
{
  g_autoptr (GcgCapturePool) pool = gcg_capture_pool_new ();
  g_autoptr (GError) error = NULL;
  guint notified = 0;
  gboolean sealed = TRUE;

  g_signal_connect (pool, "notify::sealed", G_CALLBACK (count_notify),
      &notified);
  g_assert_false (gcg_capture_pool_is_sealed (pool));
  g_assert_true (gcg__capture_pool_check_unsealed (pool, &error));
  g_assert_no_error (error);

  gcg_capture_pool_seal (pool);
  gcg_capture_pool_seal (pool);
  g_assert_true (gcg_capture_pool_is_sealed (pool));
  g_assert_cmpuint (notified, ==, 1);
  g_assert_false (gcg__capture_pool_check_unsealed (pool, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_POOL_SEALED);
  g_assert_nonnull (strstr (error->message, "sealed"));
  g_assert_nonnull (strstr (error->message, "gcg_capture_pool_unseal"));
  g_clear_error (&error);

  gcg_capture_pool_unseal (pool);
  g_assert_false (gcg_capture_pool_is_sealed (pool));
  g_assert_cmpuint (notified, ==, 2);
  g_object_set (pool, "sealed", TRUE, NULL);
  g_object_get (pool, "sealed", &sealed, NULL);
  g_assert_true (sealed);
  g_assert_cmpuint (notified, ==, 3);
}

typedef struct
{
  guint released;
  guint order[8];
} Released;

typedef struct
{
  Released *log;
  guint id;
} Kept;

static void
kept_release (gpointer data)
{
  Kept *kept = data;

  kept->log->order[kept->log->released++] = kept->id;
  g_free (kept);
}

static Kept *
kept_new (Released *log, guint id)
{
  Kept *kept = g_new (Kept, 1);

  kept->log = log;
  kept->id = id;
  return kept;
}

static void
test_pool_keep_and_clear (void)
{
  GcgCapturePool *pool = gcg_capture_pool_new ();
  Released log = { 0 };
  guint count = 0;

  g_assert_cmpuint (gcg_capture_pool_get_kept_count (pool), ==, 0);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpuint (gcg_capture_pool_keep (pool, kept_new (&log, i),
                          kept_release),
        ==, i);
  g_assert_cmpuint (gcg_capture_pool_keep (pool, NULL, NULL), ==, 3);
  g_object_get (pool, "kept-count", &count, NULL);
  g_assert_cmpuint (count, ==, 4);

  gcg_capture_pool_clear (pool);
  g_assert_cmpuint (log.released, ==, 3);
  g_assert_cmpuint (gcg_capture_pool_get_kept_count (pool), ==, 0);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpuint (log.order[i], ==, i);

  /* Still usable after a clear; the rest goes when the pool does. */
  g_assert_cmpuint (gcg_capture_pool_keep (pool, kept_new (&log, 7),
                        kept_release),
      ==, 0);
  g_assert_cmpuint (log.released, ==, 3);
  g_object_unref (pool);
  g_assert_cmpuint (log.released, ==, 4);
  g_assert_cmpuint (log.order[3], ==, 7);
}

static void
test_pool_keep_object (void)
{
  GcgCapturePool *pool = gcg_capture_pool_new ();
  GObject *object = g_object_new (G_TYPE_OBJECT, NULL);

  g_object_add_weak_pointer (object, (gpointer *) &object);
  gcg_capture_pool_keep_object (pool, object);
  g_object_unref (object);
  g_assert_nonnull (object);
  g_assert_false (gcg_capture_pool_has_private_pool (pool));
  g_assert_null (gcg_capture_pool_get_mem_pool_handle (pool));
  g_object_unref (pool);
  g_assert_null (object);
}

static void
test_registry (void)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  guint64 handles[64];
  GcgCapturePool *pool, *again;

  for (guint i = 0; i < G_N_ELEMENTS (handles); i++) {
    handles[i] = gcg_capture_pool_handle_new ();
    g_assert_cmpuint (handles[i], !=, 0);
    g_assert_true (g_hash_table_add (seen, &handles[i]));
  }
  pool = gcg_capture_pool_handle_lookup (handles[5]);
  again = gcg_capture_pool_handle_lookup (handles[5]);
  g_assert_true (GCG_IS_CAPTURE_POOL (pool));
  g_assert_true (pool == again);
  g_object_unref (again);
  again = gcg_capture_pool_handle_lookup (handles[6]);
  g_assert_true (again != pool);
  g_object_unref (again);
  g_object_unref (pool);

  g_assert_null (gcg_capture_pool_handle_lookup (0));
  g_assert_null (gcg_capture_pool_handle_lookup (G_MAXUINT64));

  /* Release is idempotent; a pool held elsewhere outlives its handle. */
  pool = gcg_capture_pool_handle_lookup (handles[7]);
  g_object_add_weak_pointer (G_OBJECT (pool), (gpointer *) &pool);
  gcg_capture_pool_handle_release (handles[7]);
  gcg_capture_pool_handle_release (handles[7]);
  gcg_capture_pool_handle_release (G_MAXUINT64);
  g_assert_null (gcg_capture_pool_handle_lookup (handles[7]));
  g_assert_nonnull (pool);
  g_object_unref (pool);
  g_assert_null (pool);

  for (guint i = 0; i < G_N_ELEMENTS (handles); i++)
    gcg_capture_pool_handle_release (handles[i]);
  g_assert_cmpuint (gcg_capture_pool_handle_new (), >, handles[63]);
}

#define N_THREADS 8
#define N_ROUNDS 500

typedef struct
{
  guint64 shared;
  GcgCapturePool *found[N_THREADS];
  guint64 made[N_THREADS][N_ROUNDS];
} RegistryRace;

typedef struct
{
  RegistryRace *race;
  guint me;
} RegistryWorker;

/* Looks the shared handle up and makes new handles, concurrently with the
 * other workers. */
static gpointer
registry_worker (gpointer data)
{
  RegistryWorker *worker = data;
  RegistryRace *race = worker->race;

  for (guint r = 0; r < N_ROUNDS; r++) {
    GcgCapturePool *pool = gcg_capture_pool_handle_lookup (race->shared);

    race->made[worker->me][r] = gcg_capture_pool_handle_new ();
    if (r == 0)
      race->found[worker->me] = pool;
    else
      g_assert_true (pool == race->found[worker->me]);
    g_object_unref (pool);
  }
  return NULL;
}

static void
test_registry_threads (void)
{
  RegistryRace race = { 0 };
  RegistryWorker workers[N_THREADS];
  GThread *threads[N_THREADS];
  g_autoptr (GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);

  race.shared = gcg_capture_pool_handle_new ();
  for (guint i = 0; i < N_THREADS; i++) {
    workers[i].race = &race;
    workers[i].me = i;
    threads[i] = g_thread_new ("registry", registry_worker, &workers[i]);
  }
  for (guint i = 0; i < N_THREADS; i++)
    g_thread_join (threads[i]);

  for (guint i = 0; i < N_THREADS; i++) {
    g_assert_true (race.found[i] == race.found[0]);
    for (guint r = 0; r < N_ROUNDS; r++) {
      g_assert_true (g_hash_table_add (seen, &race.made[i][r]));
      gcg_capture_pool_handle_release (race.made[i][r]);
    }
  }
  gcg_capture_pool_handle_release (race.shared);
  g_assert_null (gcg_capture_pool_handle_lookup (race.shared));
}

static void
test_no_driver (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgContext) ctx = gcg_context_new (0, &error);
  g_autoptr (GcgCapturePool) pool = gcg_capture_pool_new ();
  guint64 ptr = 0;

  /* Without a driver there is no context, hence no stream, capture or
   * graph: only the pool exists.  What takes one refuses NULL loudly. */
  g_assert_null (ctx);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_NO_DRIVER);

#define EXPECT_CRITICAL(call) \
  G_STMT_START { \
    g_test_expect_message ("Gcg", G_LOG_LEVEL_CRITICAL, "*assertion*failed*"); \
    call; \
    g_test_assert_expected_messages (); \
  } \
  G_STMT_END

  EXPECT_CRITICAL (g_assert_null (gcg_capture_pool_new_private (NULL, NULL)));
  EXPECT_CRITICAL (g_assert_false (gcg_capture_pool_alloc (pool, NULL, 64, &ptr,
      NULL)));
  EXPECT_CRITICAL (g_assert_false (gcg_capture_pool_free (pool, NULL, 0,
      NULL)));
  EXPECT_CRITICAL (g_assert_null (gcg_capture_begin (NULL,
      GCG_CAPTURE_MODE_DEFAULT, NULL)));
  EXPECT_CRITICAL (g_assert_null (gcg_capture_begin_with_pool (NULL,
      GCG_CAPTURE_MODE_GLOBAL, pool, NULL)));
  EXPECT_CRITICAL (g_assert_null (gcg_capture_finish (NULL, NULL)));
  EXPECT_CRITICAL (g_assert_false (gcg_capture_abort (NULL, NULL)));
  EXPECT_CRITICAL (g_assert_null (gcg_capture_callable (NULL,
      GCG_CAPTURE_MODE_DEFAULT, NULL, NULL, NULL)));
  EXPECT_CRITICAL (g_assert_null (gcg_capture_into_pool (NULL, pool,
      GCG_CAPTURE_MODE_DEFAULT, NULL, NULL, NULL, NULL, NULL)));
  EXPECT_CRITICAL (g_assert_false (gcg_graph_launch (NULL, NULL, NULL)));
  EXPECT_CRITICAL (g_assert_false (gcg_graph_upload (NULL, NULL, NULL)));
  EXPECT_CRITICAL (g_assert_false (gcg_graph_update_from_capture (NULL, NULL,
      NULL, NULL)));
  EXPECT_CRITICAL (g_assert_false (gcg_graph_dump_dot (NULL, "x.dot", FALSE,
      NULL)));
  EXPECT_CRITICAL (g_assert_cmpuint (gcg_graph_get_replay_count (NULL), ==, 0));
#undef EXPECT_CRITICAL
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/capture/mode-enum", test_mode_enum);
  g_test_add_func ("/capture/status-enum", test_status_enum);
  g_test_add_func ("/capture/pool-seal", test_pool_seal);
  g_test_add_func ("/capture/pool-keep-and-clear", test_pool_keep_and_clear);
  g_test_add_func ("/capture/pool-keep-object", test_pool_keep_object);
  g_test_add_func ("/capture/registry", test_registry);
  g_test_add_func ("/capture/registry-threads", test_registry_threads);
  g_test_add_func ("/capture/no-driver", test_no_driver);

  return g_test_run ();
}
