/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one way the project reads a file it is given by name (a user
 * kernel, a model description, a compiled-kernel cache entry), and opens
 * a directory it writes into (the compiled-kernel cache): by descriptor,
 * never by name twice (gcg-file.c).  Every layer and gst/ may call it:
 * it is at the bottom of lib/ and needs nothing but GLib.
 */
#pragma once

#include <glib.h>
#include "gcg-version.h"

G_BEGIN_DECLS

typedef enum
{
  GCG_FILE_READ_DEFAULT = 0,
  /* A link as the last component is refused (O_NOFOLLOW). */
  GCG_FILE_READ_NO_FOLLOW = 1 << 0,
  /* The file must belong to this user. */
  GCG_FILE_READ_OWNED = 1 << 1,
  /* An empty file is refused. */
  GCG_FILE_READ_NON_EMPTY = 1 << 2,
} GcgFileReadFlags;

GCG_PRIVATE_API GBytes *gcg__file_read (gint dir_fd, const gchar *path,
    gsize max_size, GcgFileReadFlags flags, const gchar *what, GError **error);

GCG_PRIVATE_API gint gcg__file_open_private_dir (const gchar *path,
    GError **error);

G_END_DECLS
