/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The bounds of a user kernel's compiled code, checked before the driver
 * sees it.  cuModuleLoadData() takes no length: it reads a cubin (ELF) by
 * the offsets of its headers and a fatbin by the sizes of its entries, so
 * a truncated or doctored file would have the driver read past the
 * buffer.  Every table and section an ELF header names, and every entry
 * of a fatbin (the ELF ones checked the same way inside), must lie within
 * the bytes given.  PTX is text the driver reads up to the NUL the stage
 * adds, so it needs no such check.  A fatbin wrapper
 * (__fatBinC_Wrapper_t) holds pointers, never to be taken from a file.
 */
#include "gcg-kernel-code-private.h"
#include "gcg-error.h"

#include <string.h>

#define ELF_MAGIC "\177ELF"
#define ELF_HEADER 64
#define ELF_SECTION_HEADER 64
#define ELF_PROGRAM_HEADER 56
#define EM_CUDA 190
#define SHT_NOBITS 8
/* Extended numbering: the real value is in section 0. */
#define PN_XNUM 0xffff
#define SHN_LORESERVE 0xff00
#define SHN_XINDEX 0xffff
#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_WRAPPER_MAGIC 0x466243B1u
#define FATBIN_HEADER 16
#define FATBIN_ENTRY_HEADER 16
#define FATBIN_KIND_ELF 2
/* Nesting: a fatbin's ELF entries are checked, nothing deeper. */
#define MAX_DEPTH 2

typedef struct
{
  const guint8 *data;
  guint64 size;
} Span;

static guint64
get_le (const Span *s, guint64 off, guint bytes)
{
  guint64 v = 0;

  for (guint i = 0; i < bytes; i++)
    v |= (guint64) s->data[off + i] << (8 * i);
  return v;
}

/* [@off, @off + @len) lies within @s (no overflow). */
static gboolean
within (const Span *s, guint64 off, guint64 len)
{
  return off <= s->size && len <= s->size - off;
}

/* A table of @n entries of @entsize bytes (at least @min_ent) at @off. */
static gboolean
table_within (const Span *s, guint64 off, guint64 n, guint64 entsize,
    guint64 min_ent)
{
  if (n == 0)
    return TRUE;
  return entsize >= min_ent && n <= G_MAXUINT64 / entsize
      && within (s, off, n * entsize);
}

/* The ELF header's counts, with extended numbering resolved: a file of
 * 0xff00 sections or more says e_shnum = 0 and keeps the real count in
 * section 0's sh_size, likewise e_phnum = PN_XNUM (sh_info) and
 * e_shstrndx = SHN_XINDEX (sh_link).  Section 0 is read only within
 * @s; an escape with no section 0 to resolve it, a section 0 that holds
 * a count no escape asks for, a reserved section index: refused. */
typedef struct
{
  guint64 shoff, shnum, shentsize, shstrndx, phoff, phnum, phentsize;
} ElfCounts;

static const gchar *
elf_counts (const Span *s, ElfCounts *c)
{
  guint64 sh0_size = 0, sh0_link = 0, sh0_info = 0;
  guint64 shnum = get_le (s, 60, 2), phnum = get_le (s, 56, 2);
  guint64 shstrndx = get_le (s, 62, 2);

  c->phoff = get_le (s, 32, 8);
  c->shoff = get_le (s, 40, 8);
  c->phentsize = get_le (s, 54, 2);
  c->shentsize = get_le (s, 58, 2);
  if (shnum != 0 || c->shoff != 0) {
    /* A section table: its first entry, whatever the count says. */
    if (c->shentsize < ELF_SECTION_HEADER
        || !within (s, c->shoff, c->shentsize))
      return "an ELF section table past the end of the code";
    sh0_size = get_le (s, c->shoff + 32, 8);
    sh0_link = get_le (s, c->shoff + 40, 4);
    sh0_info = get_le (s, c->shoff + 44, 4);
  } else if (phnum == PN_XNUM || shstrndx == SHN_XINDEX) {
    return "an ELF header whose extended counts have no section 0";
  }
  if ((shnum == 0) != (sh0_size != 0) && c->shoff != 0)
    return "an ELF section count that section 0 contradicts";
  if ((phnum == PN_XNUM) != (sh0_info != 0)
      || (shstrndx == SHN_XINDEX) != (sh0_link != 0))
    return "an ELF count or index that section 0 contradicts";
  c->shnum = shnum != 0 ? shnum : sh0_size;
  c->phnum = phnum != PN_XNUM ? phnum : sh0_info;
  if (shstrndx >= SHN_LORESERVE && shstrndx != SHN_XINDEX)
    return "an ELF section name table at a reserved index";
  c->shstrndx = shstrndx != SHN_XINDEX ? shstrndx : sh0_link;
  return NULL;
}

static const gchar *
check_elf (const Span *s)
{
  ElfCounts c;
  const gchar *why;

  if (s->size < ELF_HEADER)
    return "an ELF header cut short";
  if (s->data[4] != 2 || s->data[5] != 1)
    return "an ELF file that is not 64-bit little-endian";
  if (get_le (s, 18, 2) != EM_CUDA)
    return "an ELF file for another machine than a CUDA GPU";
  if ((why = elf_counts (s, &c)) != NULL)
    return why;
  if (!table_within (s, c.shoff, c.shnum, c.shentsize, ELF_SECTION_HEADER)
      || (c.shnum > 0 && c.shstrndx >= c.shnum))
    return "an ELF section table past the end of the code";
  if (!table_within (s, c.phoff, c.phnum, c.phentsize, ELF_PROGRAM_HEADER))
    return "an ELF program table past the end of the code";
  for (guint64 i = 0; i < c.shnum; i++) {
    guint64 h = c.shoff + i * c.shentsize;

    if (get_le (s, h + 4, 4) != SHT_NOBITS
        && !within (s, get_le (s, h + 24, 8), get_le (s, h + 32, 8)))
      return "an ELF section past the end of the code";
  }
  for (guint64 i = 0; i < c.phnum; i++) {
    guint64 h = c.phoff + i * c.phentsize;

    if (!within (s, get_le (s, h + 8, 8), get_le (s, h + 32, 8)))
      return "an ELF segment past the end of the code";
  }
  return NULL;
}

static const gchar *check_span (const Span *s, guint depth);

static const gchar *
check_fatbin (const Span *s, guint depth)
{
  guint64 header, end, off;

  if (s->size < FATBIN_HEADER)
    return "a fatbin header cut short";
  header = get_le (s, 6, 2);
  if (header < FATBIN_HEADER || !within (s, header, get_le (s, 8, 8)))
    return "a fatbin whose entries run past the end of the code";
  end = header + get_le (s, 8, 8);
  for (off = header; off < end;) {
    Span entry = { 0 };
    guint64 entry_header, payload;

    if (!within (s, off, FATBIN_ENTRY_HEADER) || off + 16 > end)
      return "a fatbin entry header cut short";
    entry_header = get_le (s, off + 4, 4);
    payload = get_le (s, off + 8, 8);
    if (entry_header < FATBIN_ENTRY_HEADER || !within (s, off, entry_header)
        || !within (s, off + entry_header, payload)
        || off + entry_header + payload > end)
      return "a fatbin entry past the end of the code";
    entry.data = s->data + off + entry_header;
    entry.size = payload;
    /* Compressed entries are the driver's to unpack; ELF ones are read
     * as they are. */
    if (get_le (s, off, 2) == FATBIN_KIND_ELF && payload >= 4
        && memcmp (entry.data, ELF_MAGIC, 4) == 0) {
      const gchar *why = check_span (&entry, depth + 1);

      if (why != NULL)
        return why;
    }
    off += entry_header + payload;
  }
  return NULL;
}

/* Why the code in @s cannot be handed to the driver, or NULL. */
static const gchar *
check_span (const Span *s, guint depth)
{
  guint32 magic = s->size >= 4 ? (guint32) get_le (s, 0, 4) : 0;

  if (depth > MAX_DEPTH)
    return "fatbins nested too deep";
  if (s->size >= 4 && memcmp (s->data, ELF_MAGIC, 4) == 0)
    return check_elf (s);
  if (magic == FATBIN_MAGIC)
    return check_fatbin (s, depth);
  if (magic == FATBIN_WRAPPER_MAGIC)
    return "a fatbin wrapper, which holds pointers (give the fatbin)";
  return NULL;                  /* PTX text */
}

/* Refuses compiled code (cubin, fatbin) whose headers point past its end,
 * with an error naming the kernel @name; PTX text passes.  Nothing here
 * needs a device. */
gboolean
gcg__kernel_code_check_binary (const gchar *name, GBytes *code, GError **error)
{
  gsize size = 0;
  Span s;
  const gchar *why;

  s.data = g_bytes_get_data (code, &size);
  s.size = size;
  why = check_span (&s, 0);
  if (why != NULL) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Kernel '%s': its code (%" G_GSIZE_FORMAT " bytes) is damaged or "
        "truncated: %s",
        name, size, why);
  }
  return why == NULL;
}
