/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GTest fixture of the GPU tests that queue raw driver work: device 0,
 * a stream, and the context current for the whole test.  When there is no
 * GPU, setup marks the test skipped and leaves ctx NULL: tests return at
 * once on that.  Teardown disarms fault injection and waits for the stream.
 */
#pragma once

#include "gcg-test-util.h"
#include "gcg-context-private.h"
#include "gcg-stream-private.h"

typedef struct
{
  GcgContext *ctx;
  GcgStream *stream;
  GcgContextGuard guard;
} Fixture;

static void
fixture_setup (Fixture *f, gconstpointer data)
{
  f->ctx = gcg_test_open_gpu ();
  if (!f->ctx)
    return;
  f->stream = gcg_stream_new (f->ctx, NULL);
  g_assert_nonnull (f->stream);
  g_assert_true (gcg__context_guard_enter (&f->guard, f->ctx, NULL));
}

static void
fixture_teardown (Fixture *f, gconstpointer data)
{
  g_assert_true (gcg_fault_inject (NULL, NULL));
  if (f->ctx)
    g_assert_true (gcg_stream_synchronize (f->stream, NULL));
  gcg__context_guard_leave (&f->guard);
  g_clear_object (&f->stream);
  g_clear_object (&f->ctx);
}
