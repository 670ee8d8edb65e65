/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-test-gst-gpu.h"
#include "gcg-test-util.h"

/* Whether device 0 opens; when it does not, the test is marked skipped
 * and the caller returns at once.  The device is not kept: the elements
 * open their own. */
gboolean
gcg_test_have_gpu (void)
{
  g_autoptr (GcgContext) ctx = gcg_test_open_gpu ();

  return ctx != NULL;
}
