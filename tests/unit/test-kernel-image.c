/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Compiled user kernels whose headers lie, refused before the driver
 * (which reads them by their own offsets, with no length) sees them, and
 * without a GPU: the test kernels' fatbin, the cubin inside it and the
 * library's own (compressed) fatbin pass;
 * every truncation of either, headers pointing past the end, sizes that
 * overflow, a fatbin wrapper (pointers), a damaged cubin inside a fatbin
 * are refused naming the kernel; a seeded sweep of damaged headers never
 * reads out of bounds (the sanitizer and valgrind runs check that).
 * Skips when the library was built without nvcc (no fatbin to start
 * from: $GCG_TEST_FATBIN), and says so.
 *
 *   GCG_FUZZ_SEED=N, GCG_FUZZ_CASES=N (default 3000)
 */
#include <gcg.h>
#include "gcg-kernel-code-private.h"
#include "common/gcg-test-elf.h"
#include "common/gcg-test-fuzz.h"

#include <glib/gstdio.h>
#include <string.h>

#define DEFAULT_SEED 20261126u
#define DEFAULT_CASES 3000

static void
put_le (guint8 *p, guint64 v, guint bytes)
{
  for (guint i = 0; i < bytes; i++)
    p[i] = (guint8) (v >> (8 * i));
}

static guint64
get_le (const guint8 *p, guint bytes)
{
  guint64 v = 0;

  for (guint i = 0; i < bytes; i++)
    v |= (guint64) p[i] << (8 * i);
  return v;
}

/* The fatbin in $@var (tests/meson.build: GCG_TEST_FATBIN, the test
 * kernels', uncompressed; GCG_TEST_FATBIN_COMPRESSED, the library's), or
 * NULL (skipped) when built without nvcc. */
static GBytes *
fatbin_from_or_skip (const gchar *var)
{
  const gchar *path = g_getenv (var);
  gchar *data = NULL;
  gsize size = 0;

  if (path == NULL || *path == '\0') {
    g_test_skip ("built without nvcc: no fatbin to damage");
    return NULL;
  }
  g_assert_true (g_file_get_contents (path, &data, &size, NULL));
  return g_bytes_new_take (data, size);
}

static GBytes *
fatbin_or_skip (void)
{
  return fatbin_from_or_skip ("GCG_TEST_FATBIN");
}

/* The first cubin (ELF entry) inside the test kernels' fatbin. */
static GBytes *
cubin_or_skip (void)
{
  g_autoptr (GBytes) fat = fatbin_or_skip ();
  const guint8 *d;
  guint64 off, end;

  if (fat == NULL)
    return NULL;
  d = g_bytes_get_data (fat, NULL);
  off = get_le (d + 6, 2);
  end = off + get_le (d + 8, 8);
  while (off < end) {
    guint64 hs = get_le (d + off + 4, 4), size = get_le (d + off + 8, 8);

    if (get_le (d + off, 2) == 2 && memcmp (d + off + hs, "\177ELF", 4) == 0)
      return g_bytes_new (d + off + hs, size);
    off += hs + size;
  }
  g_test_skip ("the fatbin holds no uncompressed cubin");
  return NULL;
}

static gboolean
check (const guint8 *data, gsize size, GError **error)
{
  g_autoptr (GBytes) b = g_bytes_new (data, size);

  return gcg__kernel_code_check_binary ("k", b, error);
}

static void
assert_refused (const guint8 *data, gsize size, const gchar *what)
{
  g_autoptr (GError) error = NULL;

  if (check (data, size, &error))
    g_error ("%s: accepted", what);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "Kernel 'k'"));
  g_assert_nonnull (strstr (error->message, "damaged or truncated"));
}

static void
test_valid (void)
{
  g_autoptr (GBytes) fat = fatbin_or_skip ();
  g_autoptr (GBytes) compressed = NULL;
  g_autoptr (GBytes) cubin = NULL;
  g_autoptr (GBytes) ptx = g_bytes_new_static ("not ptx", 7);
  g_autoptr (GError) error = NULL;

  if (fat == NULL)
    return;
  compressed = fatbin_from_or_skip ("GCG_TEST_FATBIN_COMPRESSED");
  if (compressed == NULL)
    return;
  cubin = cubin_or_skip ();
  g_assert_true (gcg__kernel_code_check_binary ("k", fat, &error));
  g_assert_no_error (error);
  /* Compressed entries are the driver's to unpack: their sizes bound. */
  g_assert_true (gcg__kernel_code_check_binary ("k", compressed, &error));
  g_assert_no_error (error);
  if (cubin)
    g_assert_true (gcg__kernel_code_check_binary ("k", cubin, &error));
  /* Text is PTX: the driver reads it up to the NUL the stage adds. */
  g_assert_true (gcg__kernel_code_check_binary ("k", ptx, &error));
}

/* Every cut of either (from 4 bytes, where the magic is whole), at 64
 * lengths spread over the file and the first 80 bytes one by one. */
static void
assert_truncations_refused (GBytes *code, const gchar *what)
{
  gsize size;
  const guint8 *d = g_bytes_get_data (code, &size);

  for (gsize len = 4; len < MIN (size, 80); len++)
    assert_refused (d, len, what);
  for (guint i = 1; i < 64; i++)
    assert_refused (d, size * i / 64, what);
  assert_refused (d, size - 1, what);
}

static void
test_truncated (void)
{
  g_autoptr (GBytes) fat = fatbin_or_skip ();
  g_autoptr (GBytes) cubin = NULL;

  if (fat == NULL)
    return;
  assert_truncations_refused (fat, "truncated fatbin");
  if ((cubin = cubin_or_skip ()) != NULL)
    assert_truncations_refused (cubin, "truncated cubin");
}

/* A copy of @code with @bytes bytes at @off set to @value. */
static guint8 *
lie (GBytes *code, gsize off, guint bytes, guint64 value, gsize *size)
{
  guint8 *d =
      g_memdup2 (g_bytes_get_data (code, size), g_bytes_get_size (code));

  put_le (d + off, value, bytes);
  return d;
}

/* One header field set to a lie: @bytes bytes at @off become @value. */
typedef struct
{
  gsize off;
  guint bytes;
  guint64 value;
  const gchar *what;
} Lie;

/* Each lie told alone in a copy of @code is refused.  @progbits_at, when
 * not 0, is a section header whose type is made PROGBITS first (a NOBITS
 * section's size is not in the file). */
static void
assert_lies_refused (GBytes *code, const Lie *lies, guint n, gsize progbits_at)
{
  for (guint i = 0; i < n; i++) {
    gsize size;
    g_autofree guint8 *bad =
        lie (code, lies[i].off, lies[i].bytes, lies[i].value, &size);

    if (progbits_at != 0)
      put_le (bad + progbits_at + 4, 1, 4);
    assert_refused (bad, size, lies[i].what);
  }
}

static void
test_elf_lies (void)
{
  g_autoptr (GBytes) cubin = cubin_or_skip ();
  const guint8 *d;
  gsize size;
  guint64 sec;

  if (cubin == NULL)
    return;
  d = g_bytes_get_data (cubin, &size);
  /* The second section header (the first is the null one). */
  sec = get_le (d + 40, 8) + get_le (d + 58, 2);
  {
    const Lie lies[] = {
      { 40, 8, size, "section table at the end" },
      { 60, 2, 0xffff, "65535 sections" },
      { 62, 2, 0xffff, "string table index past the sections" },
      { sec + 32, 8, G_MAXUINT64, "section size that overflows" },
      { sec + 24, 8, (guint64) size + 1, "section past the end" },
      { 18, 2, 62, "x86-64 ELF" },
      { 4, 1, 1, "32-bit ELF" },
    };

    assert_lies_refused (cubin, lies, G_N_ELEMENTS (lies), sec);
  }
}

/* One change (@off: @v, @bytes wide) to a hand-made cubin of
 * @n_segments segments: accepted or not as @ok says. */
typedef struct
{
  const gchar *what;
  guint n_segments;
  struct
  {
    guint64 off, v;
    guint bytes;
  } set[4];
  gboolean ok;
} ElfCase;

#define E_SHNUM(v) { GCG_TEST_ELF_E_SHNUM, (v), 2 }
#define E_SHOFF(v) { GCG_TEST_ELF_E_SHOFF, (v), 8 }
#define E_PHNUM(v) { GCG_TEST_ELF_E_PHNUM, (v), 2 }
#define E_SHSTRNDX(v) { GCG_TEST_ELF_E_SHSTRNDX, (v), 2 }
#define SH0_SIZE(v) { GCG_TEST_ELF_SH0_SIZE, (v), 8 }
#define SH0_LINK(v) { GCG_TEST_ELF_SH0_LINK, (v), 4 }
#define SH0_INFO(v) { GCG_TEST_ELF_SH0_INFO, (v), 4 }

/* @elf as the one ELF entry of a fatbin made by hand (a 16-byte header,
 * a 16-byte entry header): judged as it is alone, @ok or refused. */
static void
assert_in_fatbin (const GByteArray *elf, gboolean ok, const gchar *what)
{
  g_autoptr (GByteArray) fat = g_byte_array_new ();
  g_autoptr (GError) error = NULL;

  g_byte_array_set_size (fat, 32 + elf->len);
  memset (fat->data, 0, 32);
  put_le (fat->data, 0xBA55ED50u, 4);   /* magic */
  put_le (fat->data + 6, 16, 2);        /* header size */
  put_le (fat->data + 8, 16 + elf->len, 8);
  put_le (fat->data + 16, 2, 2);        /* an ELF entry */
  put_le (fat->data + 20, 16, 4);
  put_le (fat->data + 24, elf->len, 8);
  memcpy (fat->data + 32, elf->data, elf->len);
  if (ok) {
    g_assert_true (check (fat->data, fat->len, &error));
    g_assert_no_error (error);
  } else {
    assert_refused (fat->data, fat->len, what);
  }
}

/* ELF extended numbering: e_shnum 0 (the count in section 0's sh_size),
 * e_phnum PN_XNUM (sh_info), e_shstrndx SHN_XINDEX (sh_link).  The real
 * values are read from section 0, within bounds, and checked like the
 * others; an escape without a section 0, or a section 0 whose values no
 * escape asks for, is refused, alone and inside a fatbin (failed before:
 * every refused case but the reserved index was accepted: with e_shnum 0
 * the section table was never checked, so the driver read 2^40 bytes on,
 * and PN_XNUM's real count never read). */
static void
test_elf_extended (void)
{
  const ElfCase cases[] = {
    { "as made", 0, { { 0 } }, TRUE },
    { "e_shnum 0, sh_size 2", 0, { E_SHNUM (0), SH0_SIZE (2) }, TRUE },
    { "e_shnum 0, e_shoff 2^40", 0, { E_SHNUM (0), E_SHOFF (1ull << 40) },
        FALSE },
    { "e_shnum 0, sh_size 2^40", 0, { E_SHNUM (0), SH0_SIZE (1ull << 40) },
        FALSE },
    { "e_shnum 0, sh_size 0", 0, { E_SHNUM (0) }, FALSE },
    { "e_shnum 2, sh_size 3", 0, { SH0_SIZE (3) }, FALSE },
    { "SHN_XINDEX, sh_link 1", 0,
        { E_SHNUM (0), SH0_SIZE (2), E_SHSTRNDX (0xffff), SH0_LINK (1) },
        TRUE },
    { "SHN_XINDEX, sh_link 0", 0,
        { E_SHNUM (0), SH0_SIZE (2), E_SHSTRNDX (0xffff) }, FALSE },
    { "SHN_XINDEX, sh_link 9", 0,
        { E_SHNUM (0), SH0_SIZE (2), E_SHSTRNDX (0xffff), SH0_LINK (9) },
        FALSE },
    { "e_shstrndx 1, sh_link 1", 0, { SH0_LINK (1) }, FALSE },
    { "e_shstrndx reserved", 0, { E_SHSTRNDX (0xff00) }, FALSE },
    { "PN_XNUM, sh_info 0xffff", 0xffff,
        { E_PHNUM (0xffff), SH0_INFO (0xffff) }, TRUE },
    { "PN_XNUM, sh_info 2^20", 0xffff,
        { E_PHNUM (0xffff), SH0_INFO (1u << 20) }, FALSE },
    { "PN_XNUM, no sections", 0xffff,
        { E_PHNUM (0xffff), E_SHNUM (0), E_SHOFF (0) }, FALSE },
    { "e_phnum 1, sh_info 1", 1, { SH0_INFO (1) }, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GByteArray) elf = gcg_test_elf_new (cases[i].n_segments);
    g_autoptr (GError) error = NULL;

    g_test_message ("%s", cases[i].what);
    for (guint k = 0; k < G_N_ELEMENTS (cases[i].set); k++) {
      if (cases[i].set[k].bytes)
        gcg_test_elf_put (elf, cases[i].set[k].off, cases[i].set[k].v,
            cases[i].set[k].bytes);
    }
    if (cases[i].ok) {
      g_assert_true (check (elf->data, elf->len, &error));
      g_assert_no_error (error);
    } else {
      assert_refused (elf->data, elf->len, cases[i].what);
    }
    assert_in_fatbin (elf, cases[i].ok, cases[i].what);
  }
}

static void
test_fatbin_lies (void)
{
  g_autoptr (GBytes) fat = fatbin_or_skip ();
  const guint8 *d;
  gsize size;
  guint64 first;

  if (fat == NULL)
    return;
  d = g_bytes_get_data (fat, &size);
  first = get_le (d + 6, 2);
  {
    const Lie lies[] = {
      { 8, 8, get_le (d + 8, 8) + 1, "entries longer than the fatbin" },
      { first + 8, 8, G_MAXUINT64 - 8, "entry payload that overflows" },
      { first + 4, 4, 8, "entry header of 8 bytes" },
      { 6, 2, 4, "header of 4 bytes" },
    };

    assert_lies_refused (fat, lies, G_N_ELEMENTS (lies), 0);
  }
  {
    guint8 wrapper[24] = { 0 };

    put_le (wrapper, 0x466243B1u, 4);
    put_le (wrapper + 8, 0xdeadbeef, 8);
    assert_refused (wrapper, sizeof (wrapper), "fatbin wrapper");
  }
  /* A cubin inside whose section table points past its own end (though
   * within the fatbin): found too. */
  {
    guint64 off = first, end = first + get_le (d + 8, 8);

    while (off < end) {
      guint64 hs = get_le (d + off + 4, 4), n = get_le (d + off + 8, 8);

      if (get_le (d + off, 2) == 2
          && memcmp (d + off + hs, "\177ELF", 4) == 0) {
        g_autofree guint8 *bad = lie (fat, off + hs + 40, 8, n, &size);

        assert_refused (bad, size, "damaged cubin in a fatbin");
        break;
      }
      off += hs + n;
    }
  }
}

/* Through GcgKernelOp, from bytes and from a file: refused when made, no
 * device needed. */
static void
test_op (void)
{
  g_autoptr (GBytes) cubin = cubin_or_skip ();
  g_autofree gchar *dir = NULL;
  g_autofree gchar *path = NULL;
  g_autoptr (GBytes) cut = NULL;
  g_autoptr (GcgKernelOp) op = NULL;
  g_autoptr (GError) error = NULL;

  if (cubin == NULL)
    return;
  cut = g_bytes_new_from_bytes (cubin, 0, g_bytes_get_size (cubin) / 2);
  op = gcg_kernel_op_new_from_binary (NULL, cut, "k", NULL, &error);
  g_assert_null (op);
  g_assert_nonnull (strstr (error->message, "damaged or truncated"));
  g_clear_error (&error);
  dir = g_dir_make_tmp ("gcg-kimage-XXXXXX", NULL);
  path = g_build_filename (dir, "cut.cubin", NULL);
  g_assert_true (g_file_set_contents (path, g_bytes_get_data (cut, NULL),
      g_bytes_get_size (cut), NULL));
  op = gcg_kernel_op_new_from_file (NULL, path, "k", NULL, &error);
  g_assert_null (op);
  g_assert_nonnull (strstr (error->message, "cut.cubin"));
  g_assert_nonnull (strstr (error->message, "damaged or truncated"));
  g_clear_error (&error);
  g_unlink (path);
  g_rmdir (dir);
  /* The whole one is taken (its entry point waits for a device). */
  op = gcg_kernel_op_new_from_binary (NULL, cubin, "k", NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (op);
}

/* Random header bytes of the cubin and the fatbin: each refused or
 * taken, never read out of bounds. */
static void
test_fuzz (void)
{
  g_autoptr (GBytes) fat = fatbin_or_skip ();
  g_autoptr (GBytes) cubin = NULL;
  guint32 seed;
  guint first, n, ran = 0, taken = 0;

  if (fat == NULL || (cubin = cubin_or_skip ()) == NULL)
    return;
  gcg_test_fuzz_sweep (&seed, &first, &n, DEFAULT_SEED, DEFAULT_CASES);
  for (guint i = first; i < first + n; i++) {
    guint32 s[2] = { seed, i };
    g_autoptr (GRand) r = g_rand_new_with_seed_array (s, 2);
    GBytes *code = g_rand_boolean (r) ? cubin : fat;
    gsize size = g_bytes_get_size (code);
    g_autofree guint8 *d = g_memdup2 (g_bytes_get_data (code, NULL), size);
    const guint8 *orig = g_bytes_get_data (code, NULL);
    gboolean elf = code == cubin;
    guint64 shoff = elf ? get_le (orig + 40, 8) : 0;

    for (gint k = g_rand_int_range (r, 1, 5); k > 0; k--) {
      /* The ELF header and section table, or the fatbin's headers. */
      gsize at = elf && g_rand_boolean (r)
          ? shoff + g_rand_int_range (r, 0, (gint32) MIN (size - shoff, 4096))
          : (gsize) g_rand_int_range (r, 0, elf ? 64 : 256);

      if (at < size)
        d[at] = (guint8) g_rand_int (r);
    }
    taken += check (d,
        g_rand_int_range (r, 0, 8) == 0
            ? (gsize) g_rand_int_range (r, 4, (gint32) size)
            : size,
        NULL);
    ran++;
  }
  g_test_message ("%u of %u damaged images taken", taken, ran);
  gcg_test_fuzz_ran ("kernel-image", ran, n);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernel-image/valid", test_valid);
  g_test_add_func ("/kernel-image/truncated", test_truncated);
  g_test_add_func ("/kernel-image/elf-lies", test_elf_lies);
  g_test_add_func ("/kernel-image/elf-extended", test_elf_extended);
  g_test_add_func ("/kernel-image/fatbin-lies", test_fatbin_lies);
  g_test_add_func ("/kernel-image/op", test_op);
  g_test_add_func ("/kernel-image/fuzz", test_fuzz);
  return g_test_run ();
}
