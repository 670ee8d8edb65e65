/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The compiled-kernel cache without a GPU: a memory hit and a disk hit
 * compile nothing; the directory is made 0700 and entries 0600; a
 * truncated, lengthened, corrupted or linked entry, a FIFO in its place,
 * an entry or a directory of another user (run as root), a linked
 * directory or one others may write, a directory below a parent others
 * may write (not root's sticky /tmp), a linked or foreign parent, is
 * never trusted (the kernel is compiled again); the directory or its
 * parent swapped while NVRTC compiles changes nothing (the directory
 * opened is the one written); source that may read a file in any form
 * the preprocessor takes, or options that may, are never cached (the
 * scan is tested without NVRTC too).  Skips only when NVRTC is absent, and says
 * so; the tests that need root skip without it.
 */
#include <gcg.h>
#include "gcg-file-private.h"
#include "gcg-nvrtc-private.h"

#include <fcntl.h>
#include <stdlib.h>

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#define SM 90

static const gchar *source =
    "extern \"C\" __global__ void k (int *p) { p[threadIdx.x] = 7; }\n";

typedef struct
{
  gchar *dir;
  gchar *entry;
} Tmp;

static gboolean
setup (Tmp *t)
{
  g_autoptr (GError) error = NULL;

  if (!gcg__nvrtc_load (&error)) {
    g_test_skip_printf ("NVRTC is absent on this machine: %s", error->message);
    return FALSE;
  }
  t->dir = g_dir_make_tmp ("gcg-kcache-XXXXXX", NULL);
  g_assert_nonnull (t->dir);
  gcg__nvrtc_cache_clear_memory ();
  return TRUE;
}

static void
teardown (Tmp *t)
{
  g_autoptr (GDir) dir = NULL;
  const gchar *name;
  g_autofree gchar *sub = g_build_filename (t->dir, "kernels", NULL);

  if ((dir = g_dir_open (sub, 0, NULL)) != NULL) {
    while ((name = g_dir_read_name (dir)) != NULL) {
      g_autofree gchar *p = g_build_filename (sub, name, NULL);
      g_unlink (p);
    }
  }
  g_rmdir (sub);
  g_rmdir (t->dir);
  g_free (t->dir);
  g_free (t->entry);
}

/* Removes @t->dir and all below it, whatever the test made there. */
static void
remove_tree (Tmp *t)
{
  g_autofree gchar *q = g_shell_quote (t->dir);
  g_autofree gchar *cmd = g_strdup_printf ("rm -rf %s", q);

  g_assert_cmpint (system (cmd), ==, 0);
  g_clear_pointer (&t->dir, g_free);
}

/* Compiles @src with @options through the cache in @t->dir/kernels; the
 * number of NVRTC compiles it took (0 or 1). */
static guint
compile_with (Tmp *t, const gchar *src, const gchar *const *options,
    GBytes **out)
{
  g_autofree gchar *sub = g_build_filename (t->dir, "kernels", NULL);
  g_autoptr (GError) error = NULL;
  guint before = gcg__nvrtc_cache_get_compile_count ();

  *out =
      gcg__nvrtc_compile_cached (NULL, src, "k.cu", SM, options, sub, &error);
  g_assert_no_error (error);
  g_assert_nonnull (*out);
  return gcg__nvrtc_cache_get_compile_count () - before;
}

/* compile_with() without options. */
static guint
compile (Tmp *t, const gchar *src, GBytes **out)
{
  return compile_with (t, src, NULL, out);
}

/* The one entry in the cache directory. */
static gchar *
only_entry (Tmp *t)
{
  g_autofree gchar *sub = g_build_filename (t->dir, "kernels", NULL);
  g_autoptr (GDir) dir = g_dir_open (sub, 0, NULL);
  const gchar *name;
  gchar *found = NULL;
  guint n = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL) {
    g_free (found);
    found = g_build_filename (sub, name, NULL);
    n++;
  }
  g_assert_cmpuint (n, ==, 1);
  return found;
}

static void
test_hits (void)
{
  Tmp t = { 0 };
  g_autoptr (GBytes) a = NULL;
  g_autoptr (GBytes) b = NULL;
  g_autoptr (GBytes) c = NULL;
  g_autoptr (GBytes) d = NULL;
  g_autofree gchar *sub = NULL;
  g_autofree gchar *entry = NULL;
  GStatBuf st;

  if (!setup (&t))
    return;
  g_assert_cmpuint (compile (&t, source, &a), ==, 1);
  g_assert_cmpuint (compile (&t, source, &b), ==, 0);     /* memory */
  g_assert_true (g_bytes_equal (a, b));
  gcg__nvrtc_cache_clear_memory ();
  g_assert_cmpuint (compile (&t, source, &c), ==, 0);     /* disk */
  g_assert_true (g_bytes_equal (a, c));
  /* Another source is another key. */
  g_assert_cmpuint (compile (&t,
                        "extern \"C\" __global__ void k (int *p) "
                        "{ p[0] = 8; }\n",
                        &d),
      ==, 1);
  g_assert_false (g_bytes_equal (a, d));

  sub = g_build_filename (t.dir, "kernels", NULL);
  g_assert_cmpint (g_lstat (sub, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0700);
  teardown (&t);
  if (!setup (&t))
    return;
  g_clear_pointer (&a, g_bytes_unref);
  g_assert_cmpuint (compile (&t, source, &a), ==, 1);
  entry = only_entry (&t);
  g_assert_cmpint (g_lstat (entry, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  teardown (&t);
}

typedef enum
{
  TRUNCATE,
  FLIP_PAYLOAD,
  FLIP_KEY,
  EMPTY,
  SYMLINK,
  FIFO,
  LONGER,
  FOREIGN
} Damage;

static void
damage (const gchar *entry, Damage how)
{
  g_autofree gchar *data = NULL;
  g_autofree gchar *real = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (entry, &data, &len, NULL));
  switch (how) {
    case TRUNCATE:
      len /= 2;
      break;
    case FLIP_PAYLOAD:
      data[len - 10] ^= 0x40;
      break;
    case FLIP_KEY:
      data[12] = data[12] == 'a' ? 'b' : 'a';
      break;
    case EMPTY:
      len = 0;
      break;
    case LONGER:
      /* Bytes added after the payload: the header's length no longer
       * matches. */
      data = g_realloc (data, len + 4);
      memcpy (data + len, "junk", 4);
      len += 4;
      break;
    case FIFO:
      /* Opening a FIFO for reading waits for a writer: it must not be
       * opened that way (failed before: the compile hung there). */
      g_assert_cmpint (g_unlink (entry), ==, 0);
      g_assert_cmpint (mkfifo (entry, 0600), ==, 0);
      return;
    case FOREIGN:
      /* A valid entry of another user (root can make one). */
      g_assert_cmpint (chown (entry, 65534, 65534), ==, 0);
      return;
    case SYMLINK:
      /* The entry becomes a link to a valid copy: never followed. */
      real = g_strconcat (entry, ".real", NULL);
      g_assert_true (g_file_set_contents (real, data, len, NULL));
      g_assert_cmpint (g_unlink (entry), ==, 0);
      g_assert_cmpint (symlink (real, entry), ==, 0);
      return;
  }
  g_assert_true (g_file_set_contents (entry, data, len, NULL));
}

static void
test_damaged (gconstpointer data)
{
  Damage how = GPOINTER_TO_INT (data);
  Tmp t = { 0 };
  g_autoptr (GBytes) a = NULL;
  g_autoptr (GBytes) b = NULL;
  g_autofree gchar *entry = NULL;

  if (how == FOREIGN && getuid () != 0) {
    g_test_skip ("only root can give an entry to another user");
    return;
  }
  if (!setup (&t))
    return;
  g_assert_cmpuint (compile (&t, source, &a), ==, 1);
  entry = only_entry (&t);
  damage (entry, how);
  gcg__nvrtc_cache_clear_memory ();
  g_assert_cmpuint (compile (&t, source, &b), ==, 1);
  g_assert_true (g_bytes_equal (a, b));
  /* Replaced by a valid entry: the next process gets a disk hit. */
  if (how != SYMLINK) {
    g_autoptr (GBytes) c = NULL;

    gcg__nvrtc_cache_clear_memory ();
    g_assert_cmpuint (compile (&t, source, &c), ==, 0);
  }
  teardown (&t);
}

/* A cache directory that is a link (even to a private directory of this
 * user), or one owned by another user, is not used: nothing is read from
 * it or written to it. */
static void
test_foreign_dir (gconstpointer data)
{
  gboolean link = GPOINTER_TO_INT (data);
  Tmp t = { 0 };
  g_autoptr (GBytes) a = NULL;
  g_autoptr (GBytes) b = NULL;
  g_autofree gchar *sub = NULL;
  g_autofree gchar *real = NULL;
  g_autoptr (GDir) dir = NULL;

  if (!link && getuid () != 0) {
    g_test_skip ("only root can give a directory to another user");
    return;
  }
  if (!setup (&t))
    return;
  sub = g_build_filename (t.dir, "kernels", NULL);
  real = g_build_filename (t.dir, "real", NULL);
  g_assert_cmpint (g_mkdir (real, 0700), ==, 0);
  if (link)
    g_assert_cmpint (symlink (real, sub), ==, 0);
  else {
    g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
    g_assert_cmpint (chown (sub, 65534, 65534), ==, 0);
  }
  g_assert_cmpuint (compile (&t, source, &a), ==, 1);
  dir = g_dir_open (link ? real : sub, 0, NULL);
  g_assert_nonnull (dir);
  g_assert_null (g_dir_read_name (dir));        /* nothing written */
  gcg__nvrtc_cache_clear_memory ();
  g_assert_cmpuint (compile (&t, source, &b), ==, 1);
  if (link)
    g_unlink (sub);
  g_rmdir (real);
  teardown (&t);
}

static void
test_open_dir (void)
{
  Tmp t = { 0 };
  g_autoptr (GBytes) a = NULL;
  g_autoptr (GBytes) b = NULL;
  g_autofree gchar *sub = NULL;
  g_autoptr (GDir) dir = NULL;

  if (!setup (&t))
    return;
  sub = g_build_filename (t.dir, "kernels", NULL);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  g_assert_cmpint (g_chmod (sub, 0777), ==, 0);
  g_assert_cmpuint (compile (&t, source, &a), ==, 1);
  dir = g_dir_open (sub, 0, NULL);
  g_assert_null (g_dir_read_name (dir));        /* nothing written */
  gcg__nvrtc_cache_clear_memory ();
  g_assert_cmpuint (compile (&t, source, &b), ==, 1);
  teardown (&t);
}

typedef enum
{
  PARENT_OPEN,                  /* mode 0777, no sticky bit */
  PARENT_GROUP,                 /* mode 0770 */
  PARENT_LINK,                  /* a link to a directory of this user */
  PARENT_STICKY_MINE,           /* mode 1777 but not root's */
  PARENT_FOREIGN,               /* another user's (root only) */
} Parent;

/* Makes @base/parent as @how says; the cache directory to try is
 * @base/parent/kernels.  FALSE (skipped) where this user cannot make it. */
static gboolean
make_parent (const gchar *base, Parent how)
{
  g_autofree gchar *parent = g_build_filename (base, "parent", NULL);
  g_autofree gchar *real = g_build_filename (base, "real", NULL);
  const guint modes[] = { 0777, 0770, 0700, 01777, 0755 };

  if (how == PARENT_FOREIGN && getuid () != 0) {
    g_test_skip ("only root can give a directory to another user");
    return FALSE;
  }
  if (how == PARENT_STICKY_MINE && getuid () == 0) {
    g_test_skip ("root's sticky directories are trusted, as /tmp is");
    return FALSE;
  }
  if (how == PARENT_LINK) {
    g_assert_cmpint (g_mkdir (real, 0700), ==, 0);
    g_assert_cmpint (symlink (real, parent), ==, 0);
    return TRUE;
  }
  g_assert_cmpint (g_mkdir (parent, 0700), ==, 0);
  /* chmod: the umask would have taken bits from mkdir's mode. */
  g_assert_cmpint (chmod (parent, modes[how]), ==, 0);
  if (how == PARENT_FOREIGN)
    g_assert_cmpint (chown (parent, 65534, 65534), ==, 0);
  return TRUE;
}

static void
remove_parent (const gchar *base)
{
  g_autofree gchar *parent = g_build_filename (base, "parent", NULL);
  g_autofree gchar *real = g_build_filename (base, "real", NULL);
  g_autofree gchar *sub = g_build_filename (parent, "kernels", NULL);

  g_rmdir (sub);
  if (g_unlink (parent) != 0)
    g_rmdir (parent);
  g_rmdir (real);
}

/* The cache directory's every component is checked from / down (no
 * NVRTC needed): a parent others may write to (without being root's
 * sticky /tmp), a linked one, one of another user: refused, naming it,
 * and nothing made under it; a good path is made, mode 0700. */
static void
test_dir_parents (gconstpointer data)
{
  Parent how = GPOINTER_TO_INT (data);
  g_autofree gchar *base = g_dir_make_tmp ("gcg-kdir-XXXXXX", NULL);
  g_autofree gchar *good = g_build_filename (base, "a", "b", "kernels", NULL);
  g_autofree gchar *bad = g_build_filename (base, "parent", "kernels", NULL);
  g_autoptr (GError) error = NULL;
  struct stat st;
  gint fd;

  fd = gcg__file_open_private_dir (good, &error);
  g_assert_no_error (error);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (fstat (fd, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0700);
  close (fd);
  if (make_parent (base, how)) {
    fd = gcg__file_open_private_dir (bad, &error);
    g_assert_cmpint (fd, ==, -1);
    g_assert_nonnull (error);
    g_test_message ("%s", error->message);
    g_assert_nonnull (strstr (error->message, "\"parent\""));
    g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
    remove_parent (base);
  }
  g_rmdir (good);
  *strrchr (good, '/') = '\0';
  g_rmdir (good);
  *strrchr (good, '/') = '\0';
  g_rmdir (good);
  g_rmdir (base);
}

/* A compile whose cache directory has such a parent works and writes
 * nothing: the next one compiles again (failed before: the directory
 * was made through the link or under the open parent and used). */
static void
test_bad_parent_not_used (gconstpointer data)
{
  Parent how = GPOINTER_TO_INT (data);
  Tmp t = { 0 };
  g_autofree gchar *bad = NULL;
  g_autofree gchar *real_sub = NULL;
  g_autoptr (GBytes) a = NULL;
  g_autoptr (GBytes) b = NULL;
  g_autoptr (GError) error = NULL;
  guint before;

  if (!setup (&t))
    return;
  if (make_parent (t.dir, how)) {
    bad = g_build_filename (t.dir, "parent", "kernels", NULL);
    real_sub = g_build_filename (t.dir, "real", "kernels", NULL);
    before = gcg__nvrtc_cache_get_compile_count ();
    a = gcg__nvrtc_compile_cached (NULL, source, "k.cu", SM, NULL, bad, &error);
    g_assert_no_error (error);
    gcg__nvrtc_cache_clear_memory ();
    b = gcg__nvrtc_compile_cached (NULL, source, "k.cu", SM, NULL, bad, &error);
    g_assert_no_error (error);
    g_assert_true (g_bytes_equal (a, b));
    g_assert_cmpuint (gcg__nvrtc_cache_get_compile_count () - before, ==, 2);
    g_assert_false (g_file_test (bad, G_FILE_TEST_EXISTS));
    g_assert_false (g_file_test (real_sub, G_FILE_TEST_EXISTS));
    remove_parent (t.dir);
  }
  teardown (&t);
}

/* Puts @n files named as entries in @dir, junk inside (never read where
 * they are used), written long ago: entry i at second 1000 + i. */
static void
add_old_entries (const gchar *dir, guint n)
{
  for (guint i = 0; i < n; i++) {
    g_autofree gchar *name = g_strdup_printf ("%064x.bin", i);
    g_autofree gchar *p = g_build_filename (dir, name, NULL);
    struct utimbuf old = { 1000 + i, 1000 + i };

    g_assert_true (g_file_set_contents (p, "old", 3, NULL));
    g_assert_cmpint (utime (p, &old), ==, 0);
  }
}

typedef enum
{
  SWAP_DIR, /* the cache directory renamed, a new one made */
  SWAP_DIR_LINK, /* renamed, a link to another directory put there */
  SWAP_PARENT_LINK, /* its parent renamed, a link put there */
} Swap;

static struct
{
  Swap how;
  const gchar *base;
  guint swaps;
} swap_at_compile;

/* Moves @base/parent/kernels aside as swap_at_compile.how says, and puts
 * @base/other/kernels in its way: a directory holding more entries than
 * the cache keeps, all of them old. */
static void
swap_dirs (void)
{
  const gchar *base = swap_at_compile.base;
  g_autofree gchar *parent = g_build_filename (base, "parent", NULL);
  g_autofree gchar *sub = g_build_filename (parent, "kernels", NULL);
  g_autofree gchar *other = g_build_filename (base, "other", NULL);
  g_autofree gchar *other_sub = g_build_filename (other, "kernels", NULL);
  g_autofree gchar *moved = NULL;

  g_assert_cmpint (g_mkdir (other, 0700), ==, 0);
  g_assert_cmpint (g_mkdir (other_sub, 0700), ==, 0);
  add_old_entries (other_sub, GCG_NVRTC_DISK_MAX_ENTRIES + 5);
  switch (swap_at_compile.how) {
    case SWAP_DIR:
      moved = g_strconcat (sub, ".old", NULL);
      g_assert_cmpint (g_rename (sub, moved), ==, 0);
      g_assert_cmpint (g_rename (other_sub, sub), ==, 0);
      break;
    case SWAP_DIR_LINK:
      moved = g_strconcat (sub, ".old", NULL);
      g_assert_cmpint (g_rename (sub, moved), ==, 0);
      g_assert_cmpint (symlink (other_sub, sub), ==, 0);
      break;
    case SWAP_PARENT_LINK:
      moved = g_strconcat (parent, ".old", NULL);
      g_assert_cmpint (g_rename (parent, moved), ==, 0);
      g_assert_cmpint (symlink (other, parent), ==, 0);
      break;
  }
}

/* The call hook (the one fault injection uses): swaps the directories
 * while NVRTC compiles, after the cache has opened its directory and
 * before it stores what was compiled. */
static CUresult
swap_hook (GcgCudaId id)
{
  if (id == GCG_CUDA_ID_nvrtcCompileProgram && swap_at_compile.swaps++ == 0)
    swap_dirs ();
  return CUDA_SUCCESS;
}

/* The number of files in @dir named as entries. */
static guint
count_entries (const gchar *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;

  g_assert_nonnull (d);
  for (const gchar *name; (name = g_dir_read_name (d)) != NULL;)
    n += g_str_has_suffix (name, ".bin");
  return n;
}

/* The cache directory, or a parent of it, swapped for another directory
 * (or a link to one) between the open and the store: the entry goes to
 * the directory opened, and nothing is written to or pruned from the
 * one put in its way (its entries all old, more than the cache keeps:
 * pruning by name would delete them).  Failed before the directory was
 * opened once: the store and the pruning went by name again. */
static void
test_swapped_during_compile (gconstpointer data)
{
  Swap how = GPOINTER_TO_INT (data);
  Tmp t = { 0 };
  g_autofree gchar *sub = NULL;
  g_autofree gchar *other_sub = NULL;
  g_autofree gchar *opened = NULL;
  g_autofree gchar *src = NULL;
  g_autoptr (GBytes) a = NULL;
  g_autoptr (GError) error = NULL;
  guint before;

  if (!setup (&t))
    return;
  sub = g_build_filename (t.dir, "parent", "kernels", NULL);
  other_sub = g_build_filename (t.dir, "other", "kernels", NULL);
  opened = how == SWAP_PARENT_LINK
      ? g_build_filename (t.dir, "parent.old", "kernels", NULL)
      : g_strconcat (sub, ".old", NULL);
  /* A source of its own: no other test's entry is in memory. */
  src = g_strdup_printf ("%s// swapped %d\n", source, how);
  swap_at_compile.how = how;
  swap_at_compile.base = t.dir;
  swap_at_compile.swaps = 0;
  before = gcg__nvrtc_cache_get_compile_count ();
  gcg__cuda_set_call_hook (swap_hook);
  a = gcg__nvrtc_compile_cached (NULL, src, "k.cu", SM, NULL, sub, &error);
  gcg__cuda_set_call_hook (NULL);
  g_assert_no_error (error);
  g_assert_nonnull (a);
  g_assert_cmpuint (swap_at_compile.swaps, ==, 1);
  g_assert_cmpuint (gcg__nvrtc_cache_get_compile_count () - before, ==, 1);
  /* Written where it was opened; the other directory untouched. */
  g_assert_cmpuint (count_entries (opened), ==, 1);
  g_assert_cmpuint (count_entries (how == SWAP_DIR ? sub : other_sub), ==,
      GCG_NVRTC_DISK_MAX_ENTRIES + 5);
  /* Both trees, whatever their shape. */
  remove_tree (&t);
}

/* Source that includes a file is compiled every time: the file is not in
 * the key, so a cached binary would outlive a change to it.  Every form
 * of #include the preprocessor takes is one (translation phases: splices
 * joined, a comment is a space, %: is #), and so is a header an option
 * names: a header changed between two compiles gives another binary, from
 * memory (the same process) and from the disk (the memory forgotten, as
 * in the next process), and nothing is written to the disk (failed
 * before: the second compile was a hit with the old value, first for
 * "#  include", then, only '#', blanks and "include" recognised, for
 * every form after it; then for the forms from the C++11 reading of a
 * quote in a number on, and the options). */
static void
test_include_not_cached (void)
{
  const gchar *const cxx11[] = { "-std=c++11", NULL };
  const gchar *const cudafe[] = { "-Xcudafe", "--preinclude=@", NULL };
  const struct
  {
    const gchar *text;
    const gchar *const *options;
  } forms[] = {
    { "#  include \"@\"\n", NULL },
    { "%:include \"@\"\n", NULL },
    { "#/**/include \"@\"\n", NULL },
    { "# /* c */ include \"@\"\n", NULL },
    { "#\\\ninclude \"@\"\n", NULL },
    { "#inc\\\nlude \"@\"\n", NULL },
    { "/* a */ # /* multi\nline */ include \"@\"\n", NULL },
    { "#define HEADER \"@\"\n#include HEADER\n", NULL },
    /* Before C++14 the quote opens a character literal that hides the
     * comment's start; read with digit separators, a comment hides the
     * #include. */
    { "#if 0\n1'0 /* '\n#endif\n#include \"@\"\n// */\n", cxx11 },
    /* A header that an option passed to the front end includes. */
    { "", cudafe },
  };
  Tmp t = { 0 };
  g_autofree gchar *header = NULL;
  g_autofree gchar *sub = NULL;

  if (!setup (&t))
    return;
  header = g_build_filename (t.dir, "value.cuh", NULL);
  sub = g_build_filename (t.dir, "kernels", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (forms); i++) {
    g_autoptr (GString) line = g_string_new (forms[i].text);
    g_autoptr (GPtrArray) options = g_ptr_array_new_with_free_func (g_free);
    g_autofree gchar *src = NULL;
    g_autoptr (GBytes) a = NULL;
    g_autoptr (GBytes) b = NULL;
    g_autoptr (GBytes) c = NULL;

    g_string_replace (line, "@", header, 0);
    for (guint j = 0; forms[i].options && forms[i].options[j]; j++) {
      g_autoptr (GString) o = g_string_new (forms[i].options[j]);

      g_string_replace (o, "@", header, 0);
      g_ptr_array_add (options, g_string_free (g_steal_pointer (&o), FALSE));
    }
    g_ptr_array_add (options, NULL);
    src = g_strconcat (line->str,
        "extern \"C\" __global__ void k (int *p) { p[0] = VALUE; }\n", NULL);
    g_test_message ("%s", line->str);
    g_assert_true (g_file_set_contents (header, "#define VALUE 1\n", -1, NULL));
    g_assert_cmpuint (compile_with (&t, src,
                          (const gchar *const *) options->pdata, &a),
        ==, 1);
    g_assert_true (g_file_set_contents (header, "#define VALUE 2\n", -1, NULL));
    g_assert_cmpuint (compile_with (&t, src,
                          (const gchar *const *) options->pdata, &b),
        ==, 1);
    g_assert_false (g_bytes_equal (a, b));
    gcg__nvrtc_cache_clear_memory ();
    g_assert_true (g_file_set_contents (header, "#define VALUE 3\n", -1, NULL));
    g_assert_cmpuint (compile_with (&t, src,
                          (const gchar *const *) options->pdata, &c),
        ==, 1);
    g_assert_false (g_bytes_equal (b, c));
    g_assert_false (g_file_test (sub, G_FILE_TEST_EXISTS)
        && count_entries (sub) > 0);
  }
  g_unlink (header);
  teardown (&t);
}

/* In a child process (g_test_trap_subprocess()): a compile of @source
 * through the cache in $GCG_TEST_KCACHE_DIR with the NVRTC the
 * environment names takes $GCG_TEST_KCACHE_COMPILES compiles. */
static void
compile_in_child (void)
{
  const gchar *dir = g_getenv ("GCG_TEST_KCACHE_DIR");
  guint want = atoi (g_getenv ("GCG_TEST_KCACHE_COMPILES"));
  g_autoptr (GBytes) a = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_true (gcg__nvrtc_load (&error));
  g_assert_nonnull (gcg__nvrtc_get_identity ());
  a = gcg__nvrtc_compile_cached (NULL, source, "k.cu", SM, NULL, dir, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcg__nvrtc_cache_get_compile_count (), ==, want);
}

/* Runs compile_in_child() with $GCG_NVRTC_LIBRARY @library (%NULL: as
 * this process has it) and the cache in @dir, expecting @compiles. */
static void
child_compiles (const gchar *library, const gchar *dir, guint compiles)
{
  g_autofree gchar *count = g_strdup_printf ("%u", compiles);
  g_autofree gchar *saved = g_strdup (g_getenv ("GCG_NVRTC_LIBRARY"));

  if (library != NULL)
    g_setenv ("GCG_NVRTC_LIBRARY", library, TRUE);
  g_setenv ("GCG_TEST_KCACHE_DIR", dir, TRUE);
  g_setenv ("GCG_TEST_KCACHE_COMPILES", count, TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  if (saved != NULL)
    g_setenv ("GCG_NVRTC_LIBRARY", saved, TRUE);
  else
    g_unsetenv ("GCG_NVRTC_LIBRARY");
  g_test_trap_assert_passed ();
}

/* Copies each file of NVRTC's identity (one per line, its path first)
 * into @dir: the same bytes, another modification time, as a patch
 * release installed there would have.  The copy of NVRTC itself. */
static gchar *
copy_nvrtc (const gchar *dir)
{
  g_auto (GStrv) lines = g_strsplit (gcg__nvrtc_get_identity (), "\n", -1);
  gchar *nvrtc = NULL;

  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++) {
    g_autofree gchar *path = g_strndup (lines[i], strcspn (lines[i], " "));
    g_autofree gchar *base = g_path_get_basename (path);
    g_autofree gchar *to = g_build_filename (dir, base, NULL);
    g_autofree gchar *qfrom = g_shell_quote (path);
    g_autofree gchar *qto = g_shell_quote (to);
    g_autofree gchar *cmd = g_strdup_printf ("cp %s %s", qfrom, qto);
    struct utimbuf later = { 2000000000, 2000000000 };
    gint status = -1;

    g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL));
    g_assert_cmpint (status, ==, 0);
    g_assert_cmpint (utime (to, &later), ==, 0);
    if (i == 0)
      nvrtc = g_steal_pointer (&to);
  }
  return nvrtc;
}

/* Another build of NVRTC with the same version number (nvrtcVersion
 * says 13.0 for every 13.0.x) is another key: its first compile is not
 * a disk hit on the old one's entry; its second, in a third process, is
 * (failed before: the version alone was in the key, and a patch
 * release's processes were served the old release's binaries). */
static void
test_other_nvrtc_build (void)
{
  Tmp t = { 0 };
  g_autofree gchar *sub = NULL;
  g_autofree gchar *copies = NULL;
  g_autofree gchar *copy = NULL;
  g_autoptr (GBytes) a = NULL;

  if (g_test_subprocess ()) {
    compile_in_child ();
    return;
  }
  if (!setup (&t))
    return;
  g_assert_nonnull (gcg__nvrtc_get_identity ());
  sub = g_build_filename (t.dir, "kernels", NULL);
  copies = g_build_filename (t.dir, "nvrtc", NULL);
  g_assert_cmpint (g_mkdir (copies, 0700), ==, 0);
  g_assert_cmpuint (compile (&t, source, &a), ==, 1);
  copy = copy_nvrtc (copies);
  child_compiles (copy, sub, 1);
  child_compiles (copy, sub, 0);
  child_compiles (NULL, sub, 0);
  remove_tree (&t);
}

/* The scan itself (no NVRTC): what may read a file, and what surely
 * does not. */
static void
test_scan (void)
{
  const gchar *const reads[] = {
    "#include \"a.h\"\n",
    "  #  include <a.h>\n",
    "%:include \"a.h\"\n",
    "#/**/include \"a.h\"\n",
    "#\\\r\ninclude \"a.h\"\n",
    "#inc\\\nlude \"a.h\"\n",
    "int x; #include \"a.h\"\n",
    "#include_next <a.h>\n",
    "#import \"a.h\"\n",
    "#embed \"a.bin\"\n",
    "#if __has_include(<a.h>)\n#endif\n",
    "#if defined(__has_embed)\n#endif\n",
    "#pragma GCC dependency \"a.h\"\n",
    "#pragma include_alias(\"a.h\", \"b.h\")\n",
    "#define CAT(a, b) a##b\n",
    "#define CAT(a, b) a%:%:b\n",
    "#if 0\n#include \"a.h\"\n#endif\n",
    /* What the scan cannot be sure to read as the compiler does. */
    "?\?=include \"a.h\"\n",
    "#\\ \ninclude \"a.h\"\n",
    "#\rinclude \"a.h\"\n",
    "const char *s = R\"(\n/*)\";\n#include \"a.h\"\n// */\n",
    "#incl\\u0075de \"a.h\"\n",
    "/* never closed\n#include \"a.h\"\n",
    /* A digit separator opens no literal that would hide the comment
     * start from the scan. */
    "int x = 1'0 + sizeof \"x' /* \";\n#include \"a.h\"\n/* */\n",
    /* Before C++14 a quote in a number opens a character literal. */
    "#if 0\n1'0 /* '\n#endif\n#include \"a.h\"\n// */\n",
    /* A directive's name with a byte outside ASCII, or that only begins
     * as one that reads. */
    "#include\xc2\xa0\"a.h\"\n",
    "#\xc2\xa0include \"a.h\"\n",
    "#includes \"a.h\"\n",
    /* _Pragma other than one plain literal of a pragma known to read
     * nothing. */
    "_Pragma (\"GCC dependency \\\"a.h\\\"\")\n",
    "_Pragma (L\"once\")\n",
    "#define P _Pragma\nP (\"once\")\n",
    "#define P(x) _Pragma (#x)\n",
    "__pragma (once)\n",
    /* Modules and header units. */
    "import \"a.h\";\n",
    "export import <a.h>;\n",
    "import m;\n",
    /* The time of the compile in the binary. */
    "const char *d = __DATE__;\n",
    "const char *t = __TIME__;\n",
    "const char *s = __TIMESTAMP__;\n",
  };
  const gchar *const plain[] = {
    "extern \"C\" __global__ void k (int *p) { p[0] = 1; }\n",
    "// #include \"a.h\"\nint x;\n",
    "// a comment \\\n#include \"a.h\"\nint x;\n",
    "/* #include \"a.h\" */ int x;\n",
    "const char *s = \"#include \\\"a.h\\\"\";\n",
    "char c = '#'; const char *s = \"include\";\n",
    "int x = 1'000'000;\n",
    "#pragma unroll 4\n#pragma once\n#pragma nv_diag_suppress 177\n",
    "#pragma GCC diagnostic ignored \"-Wall\"\n",
    "_Pragma (\"unroll\") int x;\n",
    "_Pragma(\"nv_diag_suppress 177\") _Pragma ( /* c */ \"once\" )\n",
    "int import = 1; int y = import;\n",
    "int __TIME = 1;\n",
    "#define STR(x) #x\n#define INC include\n",
    "#line 1 \"gcg-entry-point-check\"\r\nint x;\r\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (reads); i++) {
    g_test_message ("reads: %s", reads[i]);
    g_assert_true (gcg__nvrtc_text_may_read_files (reads[i]));
  }
  for (guint i = 0; i < G_N_ELEMENTS (plain); i++) {
    g_test_message ("plain: %s", plain[i]);
    g_assert_false (gcg__nvrtc_text_may_read_files (plain[i]));
  }
  g_assert_false (gcg__nvrtc_text_may_read_files (NULL));
  {
    const gchar *pre[] = { "-default-device", "--pre-include=a.h", NULL };
    const gchar *pch[] = { "--use-pch=a.pch", NULL };
    const gchar *fine[] = { "-default-device", "-std=c++17", "--fmad=false",
      "-DX=1", "--define-macro=Y", "-UZ", NULL };
    /* Options that read a file, or that the list does not know. */
    const gchar *const reading[][3] = {
      { "-Xcudafe", "--modules_directory=/m", NULL },
      { "-Xcudafe=--preinclude=a.h", NULL },
      { "--time=t.csv", NULL },
      { "-std=c++17 --pre-include=a.h", NULL },
      { "-DX=__has_include(<a.h>)", NULL },
      { "-DX=__TIME__", NULL },
      { "-D", "X=1", NULL },
      { "-I/usr/include", NULL },
    };

    g_assert_true (gcg__nvrtc_options_may_read_files (pre));
    g_assert_true (gcg__nvrtc_options_may_read_files (pch));
    g_assert_false (gcg__nvrtc_options_may_read_files (fine));
    for (guint i = 0; i < G_N_ELEMENTS (reading); i++) {
      g_test_message ("option reads: %s", reading[i][0]);
      g_assert_true (gcg__nvrtc_options_may_read_files (reading[i]));
    }
    g_assert_false (gcg__nvrtc_options_may_read_files (NULL));
  }
}

/* The directory is bounded: past GCG_NVRTC_DISK_MAX_ENTRIES the oldest
 * entries go, the new one stays, and files that are not entries are
 * never touched (failed before: the directory grew without end). */
static void
test_bounded (void)
{
  Tmp t = { 0 };
  g_autofree gchar *sub = NULL;
  g_autofree gchar *other = NULL;
  g_autofree gchar *entry = NULL;
  g_autoptr (GBytes) a = NULL;
  g_autoptr (GDir) dir = NULL;
  guint n = 0;

  if (!setup (&t))
    return;
  sub = g_build_filename (t.dir, "kernels", NULL);
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  /* Old entries, and a file of another name. */
  add_old_entries (sub, GCG_NVRTC_DISK_MAX_ENTRIES + 20);
  other = g_build_filename (sub, "notes.txt", NULL);
  g_assert_true (g_file_set_contents (other, "mine", 4, NULL));
  g_assert_cmpuint (compile (&t, source, &a), ==, 1);
  dir = g_dir_open (sub, 0, NULL);
  for (const gchar *name; (name = g_dir_read_name (dir)) != NULL;)
    n += g_str_has_suffix (name, ".bin");
  g_assert_cmpuint (n, ==, GCG_NVRTC_DISK_MAX_ENTRIES);
  g_assert_true (g_file_test (other, G_FILE_TEST_EXISTS));
  /* The oldest went; the new one is a disk hit. */
  entry = g_build_filename (sub,
      "0000000000000000000000000000000000000000"
      "000000000000000000000000.bin",
      NULL);
  g_assert_false (g_file_test (entry, G_FILE_TEST_EXISTS));
  g_clear_pointer (&a, g_bytes_unref);
  gcg__nvrtc_cache_clear_memory ();
  g_assert_cmpuint (compile (&t, source, &a), ==, 0);
  g_unlink (other);
  teardown (&t);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/nvrtc-cache/hits", test_hits);
  g_test_add_data_func ("/nvrtc-cache/truncated", GINT_TO_POINTER (TRUNCATE),
      test_damaged);
  g_test_add_data_func ("/nvrtc-cache/flipped-payload",
      GINT_TO_POINTER (FLIP_PAYLOAD), test_damaged);
  g_test_add_data_func ("/nvrtc-cache/flipped-key", GINT_TO_POINTER (FLIP_KEY),
      test_damaged);
  g_test_add_data_func ("/nvrtc-cache/empty", GINT_TO_POINTER (EMPTY),
      test_damaged);
  g_test_add_data_func ("/nvrtc-cache/symlink", GINT_TO_POINTER (SYMLINK),
      test_damaged);
  g_test_add_data_func ("/nvrtc-cache/fifo", GINT_TO_POINTER (FIFO),
      test_damaged);
  g_test_add_data_func ("/nvrtc-cache/longer", GINT_TO_POINTER (LONGER),
      test_damaged);
  g_test_add_data_func ("/nvrtc-cache/foreign-entry", GINT_TO_POINTER (FOREIGN),
      test_damaged);
  g_test_add_func ("/nvrtc-cache/open-dir", test_open_dir);
  g_test_add_func ("/nvrtc-cache/bounded", test_bounded);
  g_test_add_func ("/nvrtc-cache/include-not-cached", test_include_not_cached);
  g_test_add_func ("/nvrtc-cache/scan", test_scan);
  g_test_add_func ("/nvrtc-cache/other-nvrtc-build", test_other_nvrtc_build);
  {
    const struct
    {
      const gchar *name;
      Parent how;
    } parents[] = {
      { "open", PARENT_OPEN },
      { "group", PARENT_GROUP },
      { "link", PARENT_LINK },
      { "sticky-not-root", PARENT_STICKY_MINE },
      { "foreign", PARENT_FOREIGN },
    };

    for (guint i = 0; i < G_N_ELEMENTS (parents); i++) {
      g_autofree gchar *dir_path =
          g_strdup_printf ("/nvrtc-cache/dir-parent/%s", parents[i].name);
      g_autofree gchar *use_path =
          g_strdup_printf ("/nvrtc-cache/bad-parent-not-used/%s",
              parents[i].name);

      g_test_add_data_func (dir_path, GINT_TO_POINTER (parents[i].how),
          test_dir_parents);
      g_test_add_data_func (use_path, GINT_TO_POINTER (parents[i].how),
          test_bad_parent_not_used);
    }
  }
  g_test_add_data_func ("/nvrtc-cache/swapped/dir", GINT_TO_POINTER (SWAP_DIR),
      test_swapped_during_compile);
  g_test_add_data_func ("/nvrtc-cache/swapped/dir-link",
      GINT_TO_POINTER (SWAP_DIR_LINK), test_swapped_during_compile);
  g_test_add_data_func ("/nvrtc-cache/swapped/parent-link",
      GINT_TO_POINTER (SWAP_PARENT_LINK), test_swapped_during_compile);
  g_test_add_data_func ("/nvrtc-cache/linked-dir", GINT_TO_POINTER (TRUE),
      test_foreign_dir);
  g_test_add_data_func ("/nvrtc-cache/foreign-dir", GINT_TO_POINTER (FALSE),
      test_foreign_dir);
  return g_test_run ();
}
