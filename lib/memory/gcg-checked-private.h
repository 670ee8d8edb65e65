/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Byte counters that refuse to wrap.  A counter that would go below zero
 * or past 2^64 - 1 is left as it was and the caller gets an error naming
 * it: books that no longer add up are a bug to report, and silently
 * clamping them to zero would hide it.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean gcg__checked_add (guint64 *counter, guint64 n, const gchar *what,
    GError **error);
gboolean gcg__checked_sub (guint64 *counter, guint64 n, const gchar *what,
    GError **error);

G_END_DECLS
