/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Whether a compile may read a file besides the text given: then its
 * binary is not cached, since only the text is in the key (a changed
 * header would bring the old binary back).  The text scanned is the
 * program NVRTC is given, prelude, #line and source together
 * (gcg__nvrtc_program_text()), read as the preprocessor reads it: line
 * splices (backslash-newline) joined, comments taken for a space, string
 * and character literals skipped, "%:" for '#'.  It may read a file when
 * it holds
 *   - a '#' (or "%:") followed, after spaces and comments, by a word
 *     that begins with include, import or embed (include_next too), or
 *     holds a byte outside ASCII: anywhere, not only at the start of a
 *     line (`#define X <file>` then `#include X` is caught at its
 *     #include; a directive's name is never the result of a macro);
 *   - a #pragma, or a _Pragma ("...") with one string literal, other
 *     than the few known to read nothing (unroll, once, the diagnostic
 *     ones, pack, message...); any other _Pragma (its operand made by a
 *     macro, or the operator itself renamed by one), __pragma;
 *   - an identifier containing has_include or has_embed (whether a
 *     file exists is a file read too), or token pasting ("##", "%:%:"),
 *     which could make one; import before a name, '<', '"' or ':' (a
 *     C++20 module or header unit: NVRTC 13 refuses them, EDG has them);
 *   - __DATE__, __TIME__ or __TIMESTAMP__: the binary holds the time of
 *     its compile, and a cached one would keep an old time;
 * and, because the scan would then not be sure to read it as the
 * compiler does, when it holds a raw string literal, a trigraph, a lone
 * carriage return, a backslash outside a literal that is no line splice
 * (a universal character name, or a backslash and spaces before a
 * newline), or a comment never closed.  A quote inside a number is a
 * digit separator from C++14 on and opens a character literal before
 * (-std=c++11, and no option given may choose the standard), so the text
 * is scanned both ways and may read a file when either finds one.
 *
 * Options are taken only from a list of those known to read nothing;
 * any other (-include, --pre-include, the PCH ones, -Xcudafe and the
 * other tools' pass-through options, --time...) makes the compile one
 * that may read a file.  A macro defined by an option (-DNAME=text) is
 * scanned as text.  A false alarm only costs a compile.
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

/* The beginnings of directive names that read a file (include_next
 * among them). */
static const gchar *const reading_directives[] = {
  "include",
  "import",
  "embed",
};

/* Identifiers whose value is the time of the compile. */
static const gchar *const time_macros[] = {
  "__DATE__",
  "__TIME__",
  "__TIMESTAMP__",
};

/* The options known to read no file: each the whole option, or (ending
 * in '=') the option before its value.  -D and -U are seen to apart. */
static const gchar *const safe_options[] = {
  "-arch=",
  "--gpu-architecture=",
  "-std=",
  "--std=",
  "-default-device",
  "--device-as-default-execution-space",
  "-G",
  "--device-debug",
  "-lineinfo",
  "--generate-line-info",
  "-dopt=",
  "--dopt=",
  "-ftz=",
  "--ftz=",
  "-prec-div=",
  "--prec-div=",
  "-prec-sqrt=",
  "--prec-sqrt=",
  "-fmad=",
  "--fmad=",
  "-use_fast_math",
  "--use_fast_math",
  "-maxrregcount=",
  "--maxrregcount=",
  "-rdc=",
  "--relocatable-device-code=",
  "-ewp",
  "--extensible-whole-program",
  "-w",
  "--disable-warnings",
  "-restrict",
  "--restrict",
  "-diag-suppress=",
  "--diag-suppress=",
  "-diag-error=",
  "--diag-error=",
  "-diag-warn=",
  "--diag-warn=",
  "-err-no",
  "--display-error-number",
  "-no-err-no",
  "--no-display-error-number",
  "-builtin-move-forward=",
  "--builtin-move-forward=",
  "-builtin-initializer-list=",
  "--builtin-initializer-list=",
  "-device-int128",
  "--device-int128",
  "-extra-device-vectorization",
  "--extra-device-vectorization",
  "-dlto",
  "--dlink-time-opt",
  "-minimal",
  "--minimal",
  "-Ofc=",
  "--Ofast-compile=",
  "-device-stack-protector=",
  "--device-stack-protector=",
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

/* Whether the @len bytes at @word begin with a word of @list. */
static gboolean
begins_with_one_of (const gchar *word, gsize len, const gchar *const *list,
    guint n)
{
  for (guint i = 0; i < n; i++) {
    gsize l = strlen (list[i]);

    if (l <= len && strncmp (word, list[i], l) == 0)
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

/* Past the preprocessing number at @p: exponents' signs included, and
 * with @separators digit separators (1'000: C++14 on), so that a quote
 * in it opens no literal; without, the quote is left to open one (as
 * before C++14). */
static const gchar *
skip_number (const gchar *p, gboolean separators)
{
  for (;;) {
    if (*p && strchr ("eEpP", *p) && (p[1] == '+' || p[1] == '-'))
      p += 2;
    else if (separators && p[0] == '\'' && is_ident_char (p[1]))
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

/* Whether the @len bytes at @word hold one outside ASCII. */
static gboolean
has_non_ascii (const gchar *word, gsize len)
{
  for (gsize i = 0; i < len; i++) {
    if ((guchar) word[i] >= 0x80)
      return TRUE;
  }
  return FALSE;
}

/* After the word pragma at @p: TRUE unless the pragma is one known to
 * read nothing. */
static gboolean
pragma_reads (const gchar *p)
{
  const gchar *word;
  gsize len;

  if ((p = skip_blanks (p)) == NULL)
    return TRUE;
  word = take_word (&p, &len);
  if ((len == 3 && strncmp (word, "GCC", 3) == 0)
      || (len == 5 && strncmp (word, "clang", 5) == 0)
      || (len == 4 && strncmp (word, "STDC", 4) == 0)) {
    if ((p = skip_blanks (p)) == NULL)
      return TRUE;
    word = take_word (&p, &len);
  }
  return !in_list (word, len, safe_pragmas, G_N_ELEMENTS (safe_pragmas));
}

/* After a '#' at *@p: TRUE when the directive may read a file.  A name
 * that only begins as one that reads, or holds a byte outside ASCII (a
 * space the compiler might know and this scan does not), is taken as
 * one that may. */
static gboolean
directive_reads (const gchar **p)
{
  const gchar *word;
  gsize len;

  if ((*p = skip_blanks (*p)) == NULL)
    return TRUE;
  word = take_word (p, &len);
  if (has_non_ascii (word, len)
      || begins_with_one_of (word, len, reading_directives,
          G_N_ELEMENTS (reading_directives)))
    return TRUE;
  return len == 6 && strncmp (word, "pragma", 6) == 0 && pragma_reads (*p);
}

/* After the word _Pragma at @p: FALSE only for ("a pragma known to read
 * nothing") on the line, one plain string literal with no escape but \"
 * and \\ (destringized as the compiler does, then read as a #pragma). */
static gboolean
pragma_operator_reads (const gchar *p)
{
  g_autoptr (GString) text = g_string_new (NULL);

  if ((p = skip_blanks (p)) == NULL || *p != '(')
    return TRUE;
  if ((p = skip_blanks (p + 1)) == NULL || *p != '"')
    return TRUE;
  for (p++; *p != '"'; p++) {
    if (*p == '\0' || *p == '\n')
      return TRUE;
    if (*p == '\\' && *++p != '"' && *p != '\\')
      return TRUE;
    g_string_append_c (text, *p);
  }
  if ((p = skip_blanks (p + 1)) == NULL || *p != ')')
    return TRUE;
  return pragma_reads (text->str);
}

/* After the word import at @p: whether it imports (a module's name, a
 * partition's ':', a header's '<' or '"' follows). */
static gboolean
import_reads (const gchar *p)
{
  if ((p = skip_blanks (p)) == NULL)
    return TRUE;
  return *p == '<' || *p == '"' || *p == ':' || is_ident_char (*p);
}

/* The identifier @word (@len bytes) before @next may read a file (or
 * gives the binary the time of the compile): see the top of this file. */
static gboolean
word_reads (const gchar *word, gsize len, const gchar *next)
{
  if (g_strstr_len (word, len, "has_include") != NULL
      || g_strstr_len (word, len, "has_embed") != NULL
      || (*next == '"' && word[len - 1] == 'R')
      || in_list (word, len, time_macros, G_N_ELEMENTS (time_macros)))
    return TRUE;
  if (len == 8 && strncmp (word, "__pragma", 8) == 0)
    return TRUE;
  if (len == 7 && strncmp (word, "_Pragma", 7) == 0)
    return pragma_operator_reads (next);
  if (len == 6 && strncmp (word, "import", 6) == 0)
    return import_reads (next);
  return FALSE;
}

/* The joined text @t may read a file (see the top of this file), a
 * quote in a number taken for a digit separator when @separators. */
static gboolean
scan_reads (const gchar *t, gboolean separators)
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
      p = skip_number (p, separators);
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
  return joined == NULL || scan_reads (joined, TRUE)
      || scan_reads (joined, FALSE);
}

/* Whether @options may make NVRTC read a file: TRUE unless each one is
 * known not to (safe_options), or defines or undefines a macro whose
 * text does not (a macro's text is source text). */
gboolean
gcg__nvrtc_options_may_read_files (const gchar *const *options)
{
  for (guint i = 0; options != NULL && options[i] != NULL; i++) {
    const gchar *o = options[i];
    const gchar *macro = NULL;
    gboolean known = FALSE;

    if (g_str_has_prefix (o, "-D") || g_str_has_prefix (o, "-U"))
      macro = o + 2;
    else if (g_str_has_prefix (o, "--define-macro=")
        || g_str_has_prefix (o, "--undefine-macro="))
      macro = strchr (o, '=') + 1;
    /* A bare -D takes the next option as its value: not followed. */
    if (macro != NULL) {
      if (*macro == '\0' || gcg__nvrtc_text_may_read_files (macro))
        return TRUE;
      continue;
    }
    /* NVRTC does not split an option at a space: what follows is part
     * of its value, which no entry of the list vouches for. */
    for (const gchar *c = o; *c != '\0'; c++) {
      if (g_ascii_isspace (*c) || g_ascii_iscntrl (*c))
        return TRUE;
    }
    for (guint j = 0; j < G_N_ELEMENTS (safe_options) && !known; j++) {
      const gchar *safe = safe_options[j];

      known = g_str_has_suffix (safe, "=") ? g_str_has_prefix (o, safe)
                                           : strcmp (o, safe) == 0;
    }
    if (!known)
      return TRUE;
  }
  return FALSE;
}
