/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-checked-private.h"
#include "gcg-error.h"

/* On overflow *counter is unchanged and @error names @what. */
gboolean
gcg__checked_add (guint64 *counter, guint64 n, const gchar *what,
    GError **error)
{
  guint64 sum;

  if (!g_uint64_checked_add (&sum, *counter, n)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_FAILED,
        "Byte accounting overflow: %s is %" G_GUINT64_FORMAT " and cannot "
        "grow by %" G_GUINT64_FORMAT "; this is a bug, please report it",
        what, *counter, n);
    return FALSE;
  }
  *counter = sum;
  return TRUE;
}

/* On underflow *counter is unchanged and @error names @what. */
gboolean
gcg__checked_sub (guint64 *counter, guint64 n, const gchar *what,
    GError **error)
{
  if (n > *counter) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_FAILED,
        "Byte accounting underflow: %s is %" G_GUINT64_FORMAT " and cannot "
        "shrink by %" G_GUINT64_FORMAT "; the books are corrupt (memory "
        "released twice?), this is a bug, please report it",
        what, *counter, n);
    return FALSE;
  }
  *counter -= n;
  return TRUE;
}
