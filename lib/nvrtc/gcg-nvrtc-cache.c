/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Compiled user kernels, cached by a SHA-256 of everything that shapes
 * the binary (prelude, source, name, options, architecture, NVRTC's
 * version and the size and time of its files, which tell one patch
 * release from another: gcg__nvrtc_get_identity()): in memory for the
 * process, and optionally on disk so a restarted pipeline does not
 * recompile (not when NVRTC's files cannot be told apart).  Source that may read other
 * files is never cached: their contents are not in the key
 * (gcg-nvrtc-scan.c says which source may).
 *
 * The disk cache trusts nothing it reads: the directory must be the
 * caller's own, a real directory of mode 0700 (made so when created) on
 * a path that only root and the caller control (gcg-file.c's rule, each
 * component checked from /; anything else and the disk is not used),
 * opened once and used through its descriptor; an entry is opened without
 * following links or waiting on a FIFO, must be a regular file of the
 * caller's with the size its header says, and carries its key and a
 * SHA-256 of its payload, both checked.  A corrupt, truncated or
 * foreign entry is compiled again and replaced (written to a temporary
 * file, then renamed).  The directory keeps the GCG_NVRTC_DISK_MAX_ENTRIES
 * most recently written entries.
 */
#include "gcg-nvrtc-private.h"
#include "gcg-error.h"
#include "gcg-file-private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "GCGKBIN1"
#define MAGIC_LEN 8
#define HEX_LEN 64
#define HEADER_LEN (MAGIC_LEN + HEX_LEN + 16 + HEX_LEN)
#define MAX_MEMORY_ENTRIES 64

static GMutex cache_lock;
static GHashTable *memory;      /* key → GBytes */
static guint compile_count;

static void
checksum_add (GChecksum *sum, const gchar *s)
{
  /* Each part with its length, so no two lists of parts hash alike. */
  gsize len = s ? strlen (s) : 0;

  g_checksum_update (sum, (const guchar *) &len, sizeof (len));
  if (len)
    g_checksum_update (sum, (const guchar *) s, len);
}

static gchar *
cache_key (const gchar *prelude, const gchar *source, const gchar *name,
    gint sm, const gchar *const *options)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree gchar *arch = NULL;
  gint major = 0, minor = 0;

  gcg__nvrtc_get_version (&major, &minor);
  arch = g_strdup_printf ("sm_%d nvrtc %d.%d", sm, major, minor);
  checksum_add (sum, arch);
  checksum_add (sum, gcg__nvrtc_get_identity ());
  checksum_add (sum, prelude);
  checksum_add (sum, source);
  checksum_add (sum, name);
  for (guint i = 0; options != NULL && options[i] != NULL; i++)
    checksum_add (sum, options[i]);
  return g_strdup (g_checksum_get_string (sum));
}

static gchar *
payload_sum (GBytes *payload)
{
  gsize size;
  gconstpointer data = g_bytes_get_data (payload, &size);

  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, data, size);
}

/* The disk cache's directory @dir, opened once (and made when missing)
 * through gcg__file_open_private_dir(): every component from / down is
 * root's or this user's and writable by nobody else (a sticky root
 * directory such as /tmp aside), the last one this user's, mode 0700, no
 * link anywhere.  Everything afterwards is relative to the descriptor
 * returned, so nothing can move the directory between the checks and the
 * writes and deletes.  -1 when it is not to be used. */
static gint
disk_open (const gchar *dir)
{
  g_autoptr (GError) error = NULL;
  gint fd = gcg__file_open_private_dir (dir, &error);

  if (fd < 0)
    g_debug ("Kernel cache not used: %s", error->message);
  return fd;
}

/* The entry of @key in @dir_fd, or NULL when absent or not to be trusted
 * (gcg__file_read(): no link followed, no FIFO waited on, a regular file
 * of this user of a bounded size; then its header and checksum). */
static GBytes *
disk_load (gint dir_fd, const gchar *key)
{
  g_autofree gchar *file = g_strconcat (key, ".bin", NULL);
  g_autofree gchar *sum = NULL;
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GBytes) payload = NULL;
  g_autoptr (GError) error = NULL;
  const gchar *data;
  gsize len;
  guint64 size;

  bytes = gcg__file_read (dir_fd, file, HEADER_LEN + GCG_NVRTC_MAX_BINARY,
      GCG_FILE_READ_NO_FOLLOW | GCG_FILE_READ_OWNED, "Kernel cache entry",
      &error);
  if (bytes == NULL) {
    g_debug ("%s", error->message);
    return NULL;
  }
  data = g_bytes_get_data (bytes, &len);
  if (len <= HEADER_LEN)
    return NULL;
  memcpy (&size, data + MAGIC_LEN + HEX_LEN, sizeof (size));
  if (memcmp (data, MAGIC, MAGIC_LEN) != 0
      || memcmp (data + MAGIC_LEN, key, HEX_LEN) != 0
      || size != (guint64) len - HEADER_LEN)
    return NULL;
  payload = g_bytes_new_from_bytes (bytes, HEADER_LEN, size);
  sum = payload_sum (payload);
  if (memcmp (data + MAGIC_LEN + HEX_LEN + 16, sum, HEX_LEN) != 0)
    return NULL;
  return g_steal_pointer (&payload);
}

/* An entry's file name: 64 lowercase hex digits and ".bin". */
static gboolean
is_entry_name (const gchar *name)
{
  if (strlen (name) != HEX_LEN + 4 || strcmp (name + HEX_LEN, ".bin") != 0)
    return FALSE;
  for (guint i = 0; i < HEX_LEN; i++) {
    if (!g_ascii_isxdigit (name[i]) || g_ascii_isupper (name[i]))
      return FALSE;
  }
  return TRUE;
}

typedef struct
{
  gchar *name;
  gint64 mtime;
} Entry;

static gint
older_first (gconstpointer a, gconstpointer b)
{
  gint64 x = ((const Entry *) a)->mtime, y = ((const Entry *) b)->mtime;

  return x < y ? -1 : x > y;
}

static void
entry_clear (gpointer e)
{
  g_free (((Entry *) e)->name);
}

/* Bounds the disk cache: past GCG_NVRTC_DISK_MAX_ENTRIES entries, the
 * least recently written go (only entries: regular files of this user
 * named as entries are, never anything else in the directory), so a
 * process making kernels without end does not fill the disk.  Read and
 * deleted relative to @dir_fd. */
static void
disk_prune (gint dir_fd)
{
  g_autoptr (GArray) entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  gint fd = dup (dir_fd);
  DIR *d = fd >= 0 ? fdopendir (fd) : NULL;
  struct dirent *de;

  if (d == NULL) {
    if (fd >= 0)
      close (fd);
    return;
  }
  g_array_set_clear_func (entries, entry_clear);
  rewinddir (d);
  while ((de = readdir (d)) != NULL) {
    struct stat st;

    if (is_entry_name (de->d_name)
        && fstatat (dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0
        && S_ISREG (st.st_mode) && st.st_uid == getuid ()) {
      Entry e = { g_strdup (de->d_name), st.st_mtime };

      g_array_append_val (entries, e);
    }
  }
  closedir (d);
  if (entries->len > GCG_NVRTC_DISK_MAX_ENTRIES) {
    g_array_sort (entries, older_first);
    for (guint i = 0; i < entries->len - GCG_NVRTC_DISK_MAX_ENTRIES; i++)
      unlinkat (dir_fd, g_array_index (entries, Entry, i).name, 0);
  }
}

/* Writes all of @data to @fd; FALSE on error. */
static gboolean
write_all (gint fd, const guint8 *data, gsize len)
{
  while (len > 0) {
    gssize n = write (fd, data, len);

    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}

/* Writes @out as the entry @file of @dir_fd: a temporary file of this
 * user (0600, made anew: O_EXCL) renamed over the entry, so a reader
 * never sees half an entry. */
static gboolean
disk_write (gint dir_fd, const gchar *file, GByteArray *out)
{
  g_autofree gchar *tmp = g_strdup_printf (".%s.%08x", file, g_random_int ());
  gint fd = openat (dir_fd, tmp,
      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  ok = write_all (fd, out->data, out->len) && fsync (fd) == 0;
  ok = close (fd) == 0 && ok;
  ok = ok && renameat (dir_fd, tmp, dir_fd, file) == 0;
  if (!ok)
    unlinkat (dir_fd, tmp, 0);
  return ok;
}

static void
disk_store (gint dir_fd, const gchar *key, GBytes *payload)
{
  g_autofree gchar *file = g_strconcat (key, ".bin", NULL);
  g_autofree gchar *sum = payload_sum (payload);
  gsize size;
  gconstpointer data = g_bytes_get_data (payload, &size);
  guint64 size64 = size;
  guint64 zero = 0;
  g_autoptr (GByteArray) out = g_byte_array_sized_new (HEADER_LEN + size);

  g_byte_array_append (out, (const guint8 *) MAGIC, MAGIC_LEN);
  g_byte_array_append (out, (const guint8 *) key, HEX_LEN);
  g_byte_array_append (out, (const guint8 *) &size64, sizeof (size64));
  g_byte_array_append (out, (const guint8 *) &zero, sizeof (zero));
  g_byte_array_append (out, (const guint8 *) sum, HEX_LEN);
  g_byte_array_append (out, data, size);
  if (!disk_write (dir_fd, file, out))
    g_debug ("Kernel cache: %s not written: %s", file, g_strerror (errno));
  disk_prune (dir_fd);
}

static GBytes *
memory_lookup (const gchar *key)
{
  GBytes *hit;

  g_mutex_lock (&cache_lock);
  hit = memory ? g_hash_table_lookup (memory, key) : NULL;
  if (hit)
    g_bytes_ref (hit);
  g_mutex_unlock (&cache_lock);
  return hit;
}

static void
memory_store (const gchar *key, GBytes *payload)
{
  g_mutex_lock (&cache_lock);
  if (memory == NULL)
    memory = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
        (GDestroyNotify) g_bytes_unref);
  /* Bounded: a process making kernels without end starts over. */
  if (g_hash_table_size (memory) >= MAX_MEMORY_ENTRIES)
    g_hash_table_remove_all (memory);
  g_hash_table_replace (memory, g_strdup (key), g_bytes_ref (payload));
  g_mutex_unlock (&cache_lock);
}

/* gcg__nvrtc_compile() through the caches; @disk_dir %NULL keeps to the
 * memory cache.  A program that may read files (an #include in any form
 * the preprocessor takes, an option that names a file, or one the scan is
 * not sure of: gcg-nvrtc-scan.c) is compiled every time: the files may
 * change, and only the text given is in the key.  The scan is preferred
 * to keying on what NVRTC read: NVRTC 13 reports no list of the files it
 * opened (no dependency output in its API), and such a list would still
 * miss a __has_include of a file that does not exist yet. */
GBytes *
gcg__nvrtc_compile_cached (const gchar *prelude, const gchar *source,
    const gchar *name, gint sm, const gchar *const *options,
    const gchar *disk_dir, GError **error)
{
  g_autofree gchar *key = NULL;
  g_autofree gchar *text = NULL;
  gint dir_fd;
  GBytes *binary;

  if (!gcg__nvrtc_load (error))
    return NULL;
  /* The text scanned is the one NVRTC reads, prelude and source joined as
   * it gets them: scanned apart, the end of one could change how the
   * other reads (a comment or splice left open). */
  text = gcg__nvrtc_program_text (prelude, source, name);
  if (gcg__nvrtc_text_may_read_files (text)
      || gcg__nvrtc_options_may_read_files (options)) {
    binary = gcg__nvrtc_compile (prelude, source, name, sm, options, error);
    if (binary != NULL)
      g_atomic_int_inc (&compile_count);
    return binary;
  }
  key = cache_key (prelude, source, name, sm, options);
  if ((binary = memory_lookup (key)) != NULL)
    return binary;
  /* Opened once, before the compile: the writes after it go where the
   * checks were made. */
  dir_fd = disk_dir != NULL && gcg__nvrtc_get_identity () != NULL
      ? disk_open (disk_dir)
      : -1;
  if (dir_fd >= 0 && (binary = disk_load (dir_fd, key)) == NULL)
    g_debug ("Kernel cache: no valid entry for '%s' in %s", name, disk_dir);
  if (binary == NULL) {
    binary = gcg__nvrtc_compile (prelude, source, name, sm, options, error);
    if (binary != NULL) {
      g_atomic_int_inc (&compile_count);
      if (dir_fd >= 0)
        disk_store (dir_fd, key, binary);
    }
  }
  if (dir_fd >= 0)
    close (dir_fd);
  if (binary != NULL)
    memory_store (key, binary);
  return binary;
}

/* For tests: forget the memory cache; how many compiles it saved none of. */
void
gcg__nvrtc_cache_clear_memory (void)
{
  g_mutex_lock (&cache_lock);
  g_clear_pointer (&memory, g_hash_table_unref);
  g_mutex_unlock (&cache_lock);
}

guint
gcg__nvrtc_cache_get_compile_count (void)
{
  return g_atomic_int_get (&compile_count);
}
