/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GcgFence on a real GPU: a fence after an asynchronous copy held behind a
 * stream gate (tests/gpu/gcg-test-gate.h) is not passed, is after the gate
 * opens and a wait (in each sync mode), and a fence made
 * after the copy came back says the data is there.  Skips (TAP) without a
 * driver.
 */
#include "gcg-test-util.h"
#include "gcg-test-gate.h"

#include <string.h>

#define SIZE (256u << 20)

typedef struct
{
  GcgContext *ctx;
  GcgStream *stream;
  GcgAllocator *allocator;
  GcgHostPool *host;
  guint8 *pinned;
  guint64 device;
} Fixture;

static gboolean
setup (Fixture *f)
{
  g_autoptr (GError) error = NULL;

  memset (f, 0, sizeof (*f));
  f->ctx = gcg_test_open_gpu ();
  if (f->ctx == NULL)
    return FALSE;
  f->stream = gcg_stream_new (f->ctx, &error);
  g_assert_no_error (error);
  f->allocator = gcg_allocator_new (f->ctx, &error);
  g_assert_no_error (error);
  f->host = gcg_host_pool_new (f->ctx);
  f->pinned = gcg_host_pool_alloc (f->host, SIZE, &error);
  g_assert_no_error (error);
  g_assert_true (gcg_allocator_alloc (f->allocator, SIZE, f->stream, &f->device,
      &error));
  return TRUE;
}

static void
teardown (Fixture *f)
{
  g_assert_true (gcg_stream_synchronize (f->stream, NULL));
  gcg_allocator_free (f->allocator, f->device);
  gcg_host_pool_release (f->host, f->pinned, SIZE, NULL);
  g_clear_object (&f->host);
  g_clear_object (&f->allocator);
  g_clear_object (&f->stream);
  g_clear_object (&f->ctx);
}

/* A round trip of SIZE bytes, then a fence: after the wait the host copy
 * holds the pattern. */
static void
check_mode (GcgSyncMode mode)
{
  g_autoptr (GcgFence) fence = NULL;
  g_autoptr (GError) error = NULL;
  gboolean done = TRUE;
  Gate gate;
  Fixture f;

  if (!setup (&f))
    return;
  gate_init (&gate);
  gcg_stream_set_sync_mode (f.stream, mode);
  memset (f.pinned, 0x5a, SIZE);
  g_assert_true (gcg_stream_copy_to_device (f.stream, f.device, f.pinned, SIZE,
      &error));
  /* Overwritten only by the copy back, queued after the upload. */
  g_assert_true (gcg_stream_synchronize (f.stream, &error));
  memset (f.pinned, 0, SIZE);
  /* The copy back cannot start before gate_open(): "not done" below is
   * certain, however the host thread is scheduled. */
  gate_close (&gate, f.stream);
  g_assert_true (gcg_stream_copy_to_host (f.stream, f.pinned, f.device, SIZE,
      &error));
  fence = gcg_fence_new (f.stream, &error);
  g_assert_no_error (error);
  g_assert_true (gcg_fence_query (fence, &done, &error));
  g_assert_false (done);
  g_assert_cmpint (f.pinned[0], ==, 0);
  gate_open (&gate);
  g_assert_true (gcg_fence_wait (fence, &error));
  g_assert_no_error (error);
  g_assert_true (gcg_fence_query (fence, &done, &error));
  g_assert_true (done);
  g_assert_cmpint (f.pinned[0], ==, 0x5a);
  g_assert_cmpint (f.pinned[SIZE - 1], ==, 0x5a);
  teardown (&f);
  gate_clear (&gate);
}

static void
test_poll (void)
{
  check_mode (GCG_SYNC_MODE_POLL);
}

static void
test_blocking (void)
{
  check_mode (GCG_SYNC_MODE_BLOCKING);
}

static void
test_driver (void)
{
  check_mode (GCG_SYNC_MODE_DRIVER);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/fence/poll", test_poll);
  g_test_add_func ("/fence/blocking", test_blocking);
  g_test_add_func ("/fence/driver", test_driver);
  return g_test_run ();
}
