/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A small cubin made by hand (an ELF64 file for EM_CUDA, no nvcc needed),
 * for the tests of the kernel image checks (unit: kernel-image; gpu:
 * kernel-op) to lie in: a header, the section name table ".shstrtab",
 * the section table (section 0, then the name table) and a program table
 * of @n_segments empty segments.  The offsets below say where each field
 * is; the image passes the checks as it is made.
 */
#pragma once

#include <glib.h>
#include <string.h>

#define GCG_TEST_ELF_E_PHOFF 32
#define GCG_TEST_ELF_E_SHOFF 40
#define GCG_TEST_ELF_E_PHNUM 56
#define GCG_TEST_ELF_E_SHNUM 60
#define GCG_TEST_ELF_E_SHSTRNDX 62
/* The section table, and section 0's fields that extended numbering
 * uses (the real e_shnum, e_shstrndx and e_phnum). */
#define GCG_TEST_ELF_SHOFF 128
#define GCG_TEST_ELF_SH0_SIZE (GCG_TEST_ELF_SHOFF + 32)
#define GCG_TEST_ELF_SH0_LINK (GCG_TEST_ELF_SHOFF + 40)
#define GCG_TEST_ELF_SH0_INFO (GCG_TEST_ELF_SHOFF + 44)
#define GCG_TEST_ELF_PHOFF (GCG_TEST_ELF_SHOFF + 2 * 64)

static inline void
gcg_test_elf_put (GByteArray *elf, guint64 off, guint64 v, guint bytes)
{
  g_assert_cmpuint (off + bytes, <=, elf->len);
  for (guint i = 0; i < bytes; i++)
    elf->data[off + i] = (guint8) (v >> (8 * i));
}

static inline GByteArray *
gcg_test_elf_new (guint n_segments)
{
  static const gchar names[] = "\0.shstrtab";
  GByteArray *elf = g_byte_array_new ();

  g_byte_array_set_size (elf, GCG_TEST_ELF_PHOFF + (gsize) n_segments * 56);
  memset (elf->data, 0, elf->len);
  memcpy (elf->data, "\177ELF\2\1\1", 7);
  gcg_test_elf_put (elf, 16, 2, 2);     /* ET_EXEC */
  gcg_test_elf_put (elf, 18, 190, 2);   /* EM_CUDA */
  gcg_test_elf_put (elf, 20, 1, 4);
  gcg_test_elf_put (elf, GCG_TEST_ELF_E_PHOFF,
      n_segments ? GCG_TEST_ELF_PHOFF : 0, 8);
  gcg_test_elf_put (elf, GCG_TEST_ELF_E_SHOFF, GCG_TEST_ELF_SHOFF, 8);
  gcg_test_elf_put (elf, 52, 64, 2);    /* e_ehsize */
  gcg_test_elf_put (elf, 54, 56, 2);    /* e_phentsize */
  gcg_test_elf_put (elf, GCG_TEST_ELF_E_PHNUM, n_segments, 2);
  gcg_test_elf_put (elf, 58, 64, 2);    /* e_shentsize */
  gcg_test_elf_put (elf, GCG_TEST_ELF_E_SHNUM, 2, 2);
  gcg_test_elf_put (elf, GCG_TEST_ELF_E_SHSTRNDX, 1, 2);
  memcpy (elf->data + 64, names, sizeof (names));
  /* Section 1: the name table (SHT_STRTAB) at 64. */
  gcg_test_elf_put (elf, GCG_TEST_ELF_SHOFF + 64, 1, 4);
  gcg_test_elf_put (elf, GCG_TEST_ELF_SHOFF + 64 + 4, 3, 4);
  gcg_test_elf_put (elf, GCG_TEST_ELF_SHOFF + 64 + 24, 64, 8);
  gcg_test_elf_put (elf, GCG_TEST_ELF_SHOFF + 64 + 32, sizeof (names), 8);
  return elf;
}
