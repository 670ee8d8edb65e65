/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers shared by the test programs.
 */
#pragma once

#include <gcg.h>

/* Opens device 0 for a GPU test, or marks the test skipped (with the
 * driver's reason) and returns NULL: callers return at once on NULL.
 * A skipped GPU test is reported as a TAP skip, never as a pass. */
static inline GcgContext *
gcg_test_open_gpu (void)
{
  g_autoptr (GError) error = NULL;
  GcgContext *ctx;
  gint count;

  if (!gcg_driver_init (&error)) {
    g_test_skip_printf ("no CUDA driver: %s", error->message);
    return NULL;
  }
  count = gcg_context_get_device_count (&error);
  if (count <= 0) {
    g_test_skip_printf ("no CUDA device: %s",
        error ? error->message : "device count is 0");
    return NULL;
  }
  ctx = gcg_context_new (0, &error);
  g_assert_no_error (error);
  return ctx;
}
