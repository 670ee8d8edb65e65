/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one NVRTC check of the tests that compile user kernels.
 */
#pragma once

#include <glib.h>
#include "gcg-nvrtc-private.h"

/* TRUE when NVRTC loads; otherwise marks the test skipped, saying why
 * (CI machines have the toolkit, so a skip there is a finding). */
static inline gboolean
gcg_test_nvrtc_or_skip (void)
{
  g_autoptr (GError) error = NULL;

  if (gcg__nvrtc_load (&error))
    return TRUE;
  g_test_skip_printf ("NVRTC is absent on this machine: %s", error->message);
  return FALSE;
}
