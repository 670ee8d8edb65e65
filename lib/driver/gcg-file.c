/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Files given by name are untrusted: the name may point at a FIFO (an
 * open for reading waits for a writer), a device, a directory, a huge
 * file, or be swapped for any of these between a check and a read.  So a
 * file is opened once, without waiting (O_NONBLOCK), judged on its
 * descriptor (fstat), and read through that descriptor with a bound that
 * holds whatever fstat said (a /proc file says 0 bytes and has more).
 *
 * A directory the project writes into (the compiled-kernel cache) is
 * opened once too, one component at a time from the root, and used
 * through its descriptor (openat, renameat, unlinkat, fdopendir), so
 * nobody can move it elsewhere afterwards.  The rule for every component
 * is OpenSSH's StrictModes, with the one exception /tmp needs:
 *
 *   - it is a real directory, not a link;
 *   - it belongs to root or to this user;
 *   - nobody else may write to it (no group or other write bit), unless
 *     it belongs to root and has the sticky bit (/tmp, mode 1777): there
 *     others may add names but never remove or rename ours;
 *   - the last one belongs to this user and has no group or other
 *     permission at all (mode 0700; made so when it is created).
 *
 * Any other owner of a component could rename the directory below it
 * and put its own in its place, redirecting what is written and what is
 * deleted.
 */
#include "gcg-file-private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What is read at once when a file's size is unknown. */
#define READ_CHUNK (64 * 1024)

static gboolean G_GNUC_PRINTF (4, 5) file_error (GError **error,
    GFileError code, gint fd, const gchar *format, ...)
{
  va_list args;

  if (fd >= 0)
    close (fd);
  va_start (args, format);
  g_propagate_error (error,
      g_error_new_valist (G_FILE_ERROR, code, format, args));
  va_end (args);
  return FALSE;
}

/* Reads @fd to its end into @buf, but never more than @max + 1 bytes (one
 * more says it is too long).  FALSE on a read error. */
static gboolean
read_bounded (gint fd, GByteArray *buf, gsize max)
{
  for (;;) {
    gsize room = MIN ((gsize) READ_CHUNK, max + 1 - buf->len);
    gsize old = buf->len;
    gssize n;

    if (room == 0)
      return TRUE;
    g_byte_array_set_size (buf, old + room);
    n = read (fd, buf->data + old, room);
    g_byte_array_set_size (buf, old + MAX (n, 0));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return n == 0;
  }
}

/* The regular file @path (relative to @dir_fd, or AT_FDCWD), read whole
 * through one descriptor: opened without waiting (a FIFO or a device is
 * refused, never waited on), checked by fstat() on that descriptor (a
 * regular file of at most @max_size bytes, and whatever @flags add), and
 * read with @max_size bounding the read itself: a file larger than it is
 * refused before anything is read, one that says less and has more (a
 * /proc file, a file growing) when the read passes the bound.
 *
 * Errors are G_FILE_ERROR, their messages naming @path as @what ("Kernel
 * file"): the code of the failed open (G_FILE_ERROR_NOENT: missing), or
 * G_FILE_ERROR_INVAL for a file of the wrong kind, owner or size,
 * G_FILE_ERROR_IO for a failed read.  On error NULL is returned. */
GBytes *
gcg__file_read (gint dir_fd, const gchar *path, gsize max_size,
    GcgFileReadFlags flags, const gchar *what, GError **error)
{
  g_autofree gchar *shown = g_filename_display_name (path);
  g_autoptr (GByteArray) buf = NULL;
  struct stat st;
  gint saved;
  gint fd = openat (dir_fd, path,
      O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
          | ((flags & GCG_FILE_READ_NO_FOLLOW) ? O_NOFOLLOW : 0));

  g_return_val_if_fail (path != NULL && what != NULL, NULL);
  if (fd < 0) {
    saved = errno;
    file_error (error, g_file_error_from_errno (saved), -1,
        "%s \"%s\" cannot be opened (%s)", what, shown, g_strerror (saved));
    return NULL;
  }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)) {
    file_error (error, G_FILE_ERROR_INVAL, fd,
        "%s \"%s\" is not a regular file", what, shown);
    return NULL;
  }
  if ((flags & GCG_FILE_READ_OWNED) && st.st_uid != getuid ()) {
    file_error (error, G_FILE_ERROR_INVAL, fd,
        "%s \"%s\" belongs to another user", what, shown);
    return NULL;
  }
  /* Refused unread when its size already says so. */
  if (st.st_size < 0 || (guint64) st.st_size > max_size) {
    file_error (error, G_FILE_ERROR_INVAL, fd,
        "%s \"%s\" is larger than %" G_GSIZE_FORMAT " bytes (%" G_GINT64_FORMAT
        ")",
        what, shown, max_size, (gint64) st.st_size);
    return NULL;
  }
  buf = g_byte_array_sized_new (MIN ((guint64) st.st_size, max_size) + 1);
  if (!read_bounded (fd, buf, max_size)) {
    saved = errno;
    file_error (error, G_FILE_ERROR_IO, fd, "%s \"%s\" could not be read (%s)",
        what, shown, g_strerror (saved));
    return NULL;
  }
  close (fd);
  if (buf->len > max_size)
    file_error (error, G_FILE_ERROR_INVAL, -1,
        "%s \"%s\" is larger than %" G_GSIZE_FORMAT " bytes", what, shown,
        max_size);
  else if (buf->len == 0 && (flags & GCG_FILE_READ_NON_EMPTY))
    file_error (error, G_FILE_ERROR_INVAL, -1, "%s \"%s\" is empty", what,
        shown);
  else
    return g_byte_array_free_to_bytes (g_steal_pointer (&buf));
  return NULL;
}

/* Why the directory @st (named @shown) may not be on the way to a private
 * directory (@last: it is that directory), or NULL. */
static const gchar *
untrusted_dir (const struct stat *st, gboolean last)
{
  uid_t me = getuid ();

  if (!S_ISDIR (st->st_mode))
    return "is not a directory";
  if (last)
    return st->st_uid != me         ? "belongs to another user"
        : (st->st_mode & 0077) != 0 ? "is open to others (mode 0700 needed)"
                                    : NULL;
  if (st->st_uid != 0 && st->st_uid != me)
    return "belongs to another user than root or this one";
  if ((st->st_mode & 0022) != 0
      && !(st->st_uid == 0 && (st->st_mode & S_ISVTX) != 0))
    return "may be written by others (and is not root's with the sticky "
           "bit, as /tmp is)";
  return NULL;
}

/* Opens the component @name under @parent (made 0700 when missing; the
 * last one for reading, the others for searching only), refusing a link
 * and a directory that untrusted_dir() refuses.  -1 on error. */
static gint
open_component (gint parent, const gchar *name, gboolean last,
    const gchar *shown, GError **error)
{
  gint flags = O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
      | (last ? O_RDONLY : O_PATH);
  gint fd = openat (parent, name, flags);
  struct stat st;
  const gchar *why;

  if (fd < 0 && errno == ENOENT && mkdirat (parent, name, 0700) == 0)
    fd = openat (parent, name, flags);
  if (fd < 0) {
    gint saved = errno;

    file_error (error, g_file_error_from_errno (saved), -1,
        "Directory \"%s\": \"%s\" cannot be opened as a directory (%s)", shown,
        name, saved == ELOOP ? "a link" : g_strerror (saved));
    return -1;
  }
  if (fstat (fd, &st) != 0)
    why = "cannot be examined";
  else
    why = untrusted_dir (&st, last);
  if (why != NULL) {
    file_error (error, G_FILE_ERROR_PERM, fd, "Directory \"%s\": \"%s\" %s",
        shown, name, why);
    return -1;
  }
  return fd;
}

/* The directory @path (made, with its missing parents, mode 0700),
 * opened for reading once every component from / down has passed the
 * rule at the top of this file.  A relative @path is taken from the
 * current directory; "." and ".." are resolved by name first.  Returns
 * its descriptor (the caller closes it), or -1 with G_FILE_ERROR (PERM:
 * a component is not to be trusted). */
gint
gcg__file_open_private_dir (const gchar *path, GError **error)
{
  g_autofree gchar *abs = NULL;
  g_autofree gchar *shown = NULL;
  g_auto (GStrv) parts = NULL;
  gint fd;
  guint n;

  g_return_val_if_fail (path != NULL, -1);
  abs = g_canonicalize_filename (path, NULL);
  shown = g_filename_display_name (abs);
  parts = g_strsplit (abs + 1, "/", -1);
  n = g_strv_length (parts);
  if (n == 0) {
    file_error (error, G_FILE_ERROR_PERM, -1,
        "Directory \"%s\" cannot be a private directory", shown);
    return -1;
  }
  /* The root first: a component like any other. */
  fd = open_component (AT_FDCWD, "/", FALSE, shown, error);
  for (guint i = 0; i < n && fd >= 0; i++) {
    gint next = open_component (fd, parts[i], i + 1 == n, shown, error);

    close (fd);
    fd = next;
  }
  return fd;
}
