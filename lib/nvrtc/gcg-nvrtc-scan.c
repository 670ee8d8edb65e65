/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Whether a compile may read a file besides the text given: then its
 * binary is not cached, since only the text is in the key (a changed
 * header would bring the old binary back).  Source is scanned as the
 * preprocessor reads it: line splices (backslash-newline) joined,
 * comments taken for a space, string and character literals skipped,
 * "%:" for '#'.  It may read a file when it holds
 *   - a '#' (or "%:") followed, after spaces and comments, by include,
 *     include_next, import or embed: anywhere, not only at the start of
 *     a line (`#define X <file>` then `#include X` is caught at its
 *     #include; a directive's name is never the result of a macro);
 *   - a #pragma other than the few known to read nothing (unroll, once,
 *     the diagnostic ones, pack, message...);
 *   - an identifier containing has_include or has_embed (whether a
 *     file exists is a file read too), or token pasting ("##", "%:%:"),
 *     which could make one;
 * and, because the scan would then not be sure to read it as the
 * compiler does, when it holds a raw string literal, a trigraph, a lone
 * carriage return, a backslash outside a literal that is no line splice
 * (a universal character name, or a backslash and spaces before a
 * newline), or a comment never closed.  _Pragma cannot include.
 * Options that name a file to read (--pre-include, -include, --use-pch,
 * the other PCH options) count too.  A false alarm only costs a compile.
 */
#include "gcg-nvrtc-private.h"

#include <string.h>

/* Pragmas that read no file (NVRTC's and the common compilers'); after
 * GCC, clang or STDC the next word is the one looked up. */
static const gchar *const safe_pragmas[] = {
  "unroll",
  "nounroll",
  "once",
  "pack",
  "message",
  "diagnostic",
  "nv_abi",
  "nv_diag_suppress",
  "nv_diag_warning",
  "nv_diag_error",
  "nv_diag_default",
  "nv_diag_once",
  "nv_diagnostic",
  "diag_suppress",
  "diag_warning",
  "diag_error",
  "diag_default",
  "diag_once",
  "nv_exec_check_disable",
  "hd_warning_disable",
  "FP_CONTRACT",
  "FENV_ACCESS",
  "CX_LIMITED_RANGE",
};

/* Directive names that read a file. */
static const gchar *const reading_directives[] = {
  "include",
  "include_next",
  "import",
  "embed",
};

/* At @p: something the compiler may read otherwise than the scan does
 * (a lone carriage return, a trigraph, a backslash and spaces before a
 * newline). */
static gboolean
ambiguous_at (const gchar *p)
{
  const gchar *q = p + 1;

  if (p[0] == '\r')
    return p[1] != '\n';
  if (p[0] == '?')
    return p[1] == '?' && p[2] != '\0' && strchr ("=/'()!<>-", p[2]) != NULL;
  if (p[0] != '\\')
    return FALSE;
  while (*q == ' ' || *q == '\t' || *q == '\f' || *q == '\v')
    q++;
  return q > p + 1 && (*q == '\n' || *q == '\r');
}

/* @text with its line splices joined (translation phase 2), or NULL
 * when ambiguous_at() finds something on the way. */
static gchar *
join_splices (const gchar *text)
{
  g_autoptr (GString) out = g_string_sized_new (strlen (text));
  const gchar *p = text;

  while (*p) {
    if (ambiguous_at (p))
      return NULL;
    if (p[0] == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n')))
      p += p[1] == '\n' ? 2 : 3;
    else
      g_string_append_c (out, *p++);
  }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static gboolean
is_ident_char (gchar c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '$' || (guchar) c >= 0x80;
}

static gboolean
in_list (const gchar *word, gsize len, const gchar *const *list, guint n)
{
  for (guint i = 0; i < n; i++) {
    if (strlen (list[i]) == len && strncmp (word, list[i], len) == 0)
      return TRUE;
  }
  return FALSE;
}

/* Past the string or character literal opening at @p (at its newline
 * when it is not closed on its line, as the compiler reads it). */
static const gchar *
skip_literal (const gchar *p)
{
  gchar quote = *p++;

  while (*p && *p != quote && *p != '\n')
    p += (p[0] == '\\' && p[1] != '\0') ? 2 : 1;
  return *p == quote ? p + 1 : p;
}

/* Past the preprocessing number at @p: digit separators (1'000) and
 * exponents' signs included, so that a quote in it opens no literal. */
static const gchar *
skip_number (const gchar *p)
{
  for (;;) {
    if (*p && strchr ("eEpP", *p) && (p[1] == '+' || p[1] == '-'))
      p += 2;
    else if (p[0] == '\'' && is_ident_char (p[1]))
      p += 2;
    else if (is_ident_char (*p) || *p == '.')
      p++;
    else
      return p;
  }
}

/* Past spaces and comments on the line at @p; NULL at a comment never
 * closed. */
static const gchar *
skip_blanks (const gchar *p)
{
  for (;;) {
    if (*p == ' ' || *p == '\t' || *p == '\f' || *p == '\v')
      p++;
    else if (p[0] == '/' && p[1] == '*') {
      const gchar *end = strstr (p + 2, "*/");

      if (end == NULL)
        return NULL;
      p = end + 2;
    } else
      return p;
  }
}

/* The identifier at *@p (@len bytes, 0 when none), *@p moved past it. */
static const gchar *
take_word (const gchar **p, gsize *len)
{
  const gchar *word = *p;

  while (is_ident_char (**p))
    (*p)++;
  *len = *p - word;
  return word;
}

/* After a '#' at *@p: TRUE when the directive may read a file. */
static gboolean
directive_reads (const gchar **p)
{
  const gchar *word;
  gsize len;

  if ((*p = skip_blanks (*p)) == NULL)
    return TRUE;
  word = take_word (p, &len);
  if (in_list (word, len, reading_directives,
          G_N_ELEMENTS (reading_directives)))
    return TRUE;
  if (len != 6 || strncmp (word, "pragma", 6) != 0)
    return FALSE;
  if ((*p = skip_blanks (*p)) == NULL)
    return TRUE;
  word = take_word (p, &len);
  if ((len == 3 && strncmp (word, "GCC", 3) == 0)
      || (len == 5 && strncmp (word, "clang", 5) == 0)
      || (len == 4 && strncmp (word, "STDC", 4) == 0)) {
    if ((*p = skip_blanks (*p)) == NULL)
      return TRUE;
    word = take_word (p, &len);
  }
  return !in_list (word, len, safe_pragmas, G_N_ELEMENTS (safe_pragmas));
}

/* The identifier @word (@len bytes) before @next may read a file:
 * __has_include and kin, or the prefix of a raw string literal. */
static gboolean
word_reads (const gchar *word, gsize len, const gchar *next)
{
  return g_strstr_len (word, len, "has_include") != NULL
      || g_strstr_len (word, len, "has_embed") != NULL
      || (*next == '"' && word[len - 1] == 'R');
}

/* The joined text @t may read a file (see the top of this file). */
static gboolean
scan_reads (const gchar *t)
{
  const gchar *p = t;

  while (*p) {
    if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n')
        p++;
    } else if (p[0] == '/' && p[1] == '*') {
      if ((p = skip_blanks (p)) == NULL)
        return TRUE;
    } else if (*p == '"' || *p == '\'') {
      p = skip_literal (p);
    } else if (*p == '\\') {
      return TRUE;
    } else if (g_ascii_isdigit (*p) || (*p == '.' && g_ascii_isdigit (p[1]))) {
      p = skip_number (p);
    } else if (is_ident_char (*p)) {
      gsize len;
      const gchar *word = take_word (&p, &len);

      if (word_reads (word, len, p))
        return TRUE;
    } else if (*p == '#' || (p[0] == '%' && p[1] == ':')) {
      p += *p == '#' ? 1 : 2;
      if (*p == '#' || (p[0] == '%' && p[1] == ':'))
        return TRUE;            /* token pasting */
      if (directive_reads (&p))
        return TRUE;
    } else {
      p++;
    }
  }
  return FALSE;
}

/* Whether compiling @text (source or prelude; %NULL is none) may read a
 * file besides it: TRUE unless the scan at the top of this file is sure
 * it does not. */
gboolean
gcg__nvrtc_text_may_read_files (const gchar *text)
{
  g_autofree gchar *joined = NULL;

  if (text == NULL)
    return FALSE;
  joined = join_splices (text);
  return joined == NULL || scan_reads (joined);
}

/* Whether @options make NVRTC read a file: a pre-included header or a
 * precompiled one (and the include paths, which matter only to source
 * that includes, already not cached). */
gboolean
gcg__nvrtc_options_may_read_files (const gchar *const *options)
{
  for (guint i = 0; options != NULL && options[i] != NULL; i++) {
    if (strstr (options[i], "include") != NULL
        || strstr (options[i], "pch") != NULL)
      return TRUE;
  }
  return FALSE;
}
