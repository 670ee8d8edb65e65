/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Compiled user kernels, cached by a SHA-256 of everything that shapes
 * the binary (prelude, source, name, options, architecture, NVRTC's
 * version): in memory for the process, and optionally on disk so a
 * restarted pipeline does not recompile.  Source that includes other
 * files is never cached: their contents are not in the key.
 *
 * The disk cache trusts nothing it reads: the directory must be the
 * caller's own, a real directory of mode 0700 (made so when created;
 * anything else and the disk is not used); an entry is opened without
 * following links or waiting on a FIFO, must be a regular file of the
 * caller's with the size its header says, and carries its key and a
 * SHA-256 of its payload, both checked.  A corrupt, truncated or
 * foreign entry is compiled again and replaced (written to a temporary
 * file, then renamed).  The directory keeps the GCG_NVRTC_DISK_MAX_ENTRIES
 * most recently written entries.
 */
#include "gcg-nvrtc-private.h"
#include "gcg-error.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
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

/* @dir is usable: the caller's own real directory, mode 0700. */
static gboolean
private_dir (const gchar *dir)
{
  GStatBuf st;

  if (g_mkdir_with_parents (dir, 0700) != 0 || g_lstat (dir, &st) != 0)
    return FALSE;
  if (!S_ISDIR (st.st_mode) || st.st_uid != getuid ()
      || (st.st_mode & 0077) != 0) {
    g_debug ("Kernel cache %s is not a private directory of this user "
             "(mode 0700): not used",
        dir);
    return FALSE;
  }
  return TRUE;
}

/* The entry of @key under @dir, or NULL when absent or not to be trusted. */
static GBytes *
disk_load (const gchar *dir, const gchar *key)
{
  g_autofree gchar *file = g_strconcat (key, ".bin", NULL);
  g_autofree gchar *path = g_build_filename (dir, file, NULL);
  g_autofree gchar *data = NULL;
  g_autofree gchar *sum = NULL;
  g_autoptr (GBytes) payload = NULL;
  struct stat st;
  guint64 size;
  /* No link followed; O_NONBLOCK: a FIFO put there never blocks the
   * open (it is then refused as not a regular file). */
  gint fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

  if (fd < 0)
    return NULL;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_uid != getuid ()
      || st.st_size < HEADER_LEN
      || st.st_size > HEADER_LEN + (off_t) GCG_NVRTC_MAX_BINARY) {
    close (fd);
    return NULL;
  }
  data = g_malloc (st.st_size);
  if (read (fd, data, st.st_size) != st.st_size) {
    close (fd);
    return NULL;
  }
  close (fd);
  memcpy (&size, data + MAGIC_LEN + HEX_LEN, sizeof (size));
  if (memcmp (data, MAGIC, MAGIC_LEN) != 0
      || memcmp (data + MAGIC_LEN, key, HEX_LEN) != 0
      || size != (guint64) st.st_size - HEADER_LEN || size == 0)
    return NULL;
  payload = g_bytes_new (data + HEADER_LEN, size);
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
  gchar *path;
  gint64 mtime;
} Entry;

static gint
older_first (gconstpointer a, gconstpointer b)
{
  gint64 x = ((const Entry *) a)->mtime, y = ((const Entry *) b)->mtime;

  return x < y ? -1 : x > y;
}

/* Bounds the disk cache: past GCG_NVRTC_DISK_MAX_ENTRIES entries, the
 * least recently written go (only entries: regular files of this user
 * named as entries are, never anything else in the directory), so a
 * process making kernels without end does not fill the disk. */
static void
disk_prune (const gchar *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr (GArray) entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  const gchar *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL) {
    Entry e = { g_build_filename (dir, name, NULL), 0 };
    GStatBuf st;

    if (is_entry_name (name) && g_lstat (e.path, &st) == 0
        && S_ISREG (st.st_mode) && st.st_uid == getuid ()) {
      e.mtime = st.st_mtime;
      g_array_append_val (entries, e);
    } else {
      g_free (e.path);
    }
  }
  if (entries->len > GCG_NVRTC_DISK_MAX_ENTRIES) {
    g_array_sort (entries, older_first);
    for (guint i = 0; i < entries->len - GCG_NVRTC_DISK_MAX_ENTRIES; i++)
      g_unlink (g_array_index (entries, Entry, i).path);
  }
  for (guint i = 0; i < entries->len; i++)
    g_free (g_array_index (entries, Entry, i).path);
}

static void
disk_store (const gchar *dir, const gchar *key, GBytes *payload)
{
  g_autofree gchar *file = g_strconcat (key, ".bin", NULL);
  g_autofree gchar *path = g_build_filename (dir, file, NULL);
  g_autofree gchar *sum = payload_sum (payload);
  g_autoptr (GError) error = NULL;
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
  /* A temporary file renamed over the entry: never half an entry. */
  if (!g_file_set_contents_full (path, (const gchar *) out->data, out->len,
          G_FILE_SET_CONTENTS_CONSISTENT, 0600, &error))
    g_debug ("Kernel cache: %s not written: %s", path, error->message);
  disk_prune (dir);
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

/* @text includes another file (`#include`, spaces allowed after the
 * '#'): what it reads is not in the key, so its binary is not cached. */
static gboolean
includes_files (const gchar *text)
{
  for (const gchar *p = text ? strchr (text, '#') : NULL; p != NULL;
      p = strchr (p + 1, '#')) {
    const gchar *q = p + 1;

    while (*q == ' ' || *q == '\t')
      q++;
    if (g_str_has_prefix (q, "include"))
      return TRUE;
  }
  return FALSE;
}

/* gcg__nvrtc_compile() through the caches; @disk_dir %NULL keeps to the
 * memory cache.  Source that includes files is compiled every time: the
 * files may change, and only the text given is in the key. */
GBytes *
gcg__nvrtc_compile_cached (const gchar *prelude, const gchar *source,
    const gchar *name, gint sm, const gchar *const *options,
    const gchar *disk_dir, GError **error)
{
  g_autofree gchar *key = NULL;
  gboolean use_disk;
  GBytes *binary;

  if (!gcg__nvrtc_load (error))
    return NULL;
  if (includes_files (source) || includes_files (prelude)) {
    binary = gcg__nvrtc_compile (prelude, source, name, sm, options, error);
    if (binary != NULL)
      g_atomic_int_inc (&compile_count);
    return binary;
  }
  key = cache_key (prelude, source, name, sm, options);
  if ((binary = memory_lookup (key)) != NULL)
    return binary;
  use_disk = disk_dir != NULL && private_dir (disk_dir);
  if (use_disk && (binary = disk_load (disk_dir, key)) == NULL)
    g_debug ("Kernel cache: no valid entry for '%s' in %s", name, disk_dir);
  if (binary == NULL) {
    binary = gcg__nvrtc_compile (prelude, source, name, sm, options, error);
    if (binary == NULL)
      return NULL;
    g_atomic_int_inc (&compile_count);
    if (use_disk)
      disk_store (disk_dir, key, binary);
  }
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
