/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Fault injection for tests (gcg-fault.c): driver calls that fail on
 * purpose.  Tests include it through gcg-testing.h.
 */
#pragma once

#include <gcg.h>

G_BEGIN_DECLS

gboolean gcg_fault_inject (const gchar *spec, GError **error);

G_END_DECLS
