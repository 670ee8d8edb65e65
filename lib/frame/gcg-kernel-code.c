/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A user kernel's code is untrusted input: a file may be huge or not a
 * file at all, an entry point's name ends up in generated source, source
 * may hold NUL bytes or bytes that are not UTF-8, and a kernel declared
 * with other parameters than the one pointer the stage passes would read
 * garbage on the device.  Each of these is refused here, before a device
 * is involved, with an error naming the kernel.
 */
#include "gcg-kernel-code-private.h"
#include "gcg-error.h"
#include "gcg-error-private.h"
#include "gcg-file-private.h"
#include "gcg-nvrtc-private.h"

#include <fcntl.h>
#include <string.h>

/* The contents of the regular file @path, refused unless 1 to @max_size
 * bytes long, read through gcg__file_read() (the size is checked before
 * anything is read, so a huge file costs nothing; a FIFO is never waited
 * on).  Errors are G_FILE_ERROR naming @path; on error NULL is
 * returned. */
GBytes *
gcg__kernel_code_read_file (const gchar *path, gsize max_size, GError **error)
{
  return gcg__file_read (AT_FDCWD, path, max_size, GCG_FILE_READ_NON_EMPTY,
      "Kernel file", error);
}

/* A C identifier (source: it is written into the entry point check) or
 * a PTX one ('$' and '%' too: a binary's names are the driver's to look
 * up), of a bounded length. */
gboolean
gcg__kernel_code_check_entry (const gchar *name, const gchar *entry,
    gboolean is_source, GError **error)
{
  const gchar *extra = is_source ? "_" : "_$%";
  gsize len = entry ? strlen (entry) : 0;
  gboolean ok = len > 0 && len <= GCG_KERNEL_CODE_MAX_ENTRY
      && !g_ascii_isdigit (entry[0]);

  for (gsize i = 0; ok && i < len; i++)
    ok = g_ascii_isalnum (entry[i]) || strchr (extra, entry[i]) != NULL;
  if (!ok) {
    g_autofree gchar *quoted = gcg__error_quote (entry);

    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Kernel '%s': its entry point must be the name of its extern "
        "\"C\" __global__ function (letters, digits and '_', at most %d), "
        "not \"%s\"",
        name, GCG_KERNEL_CODE_MAX_ENTRY, quoted);
  }
  return ok;
}

/* The user's source as NVRTC gets it: refused when it holds a NUL or a
 * byte 0xFF (the compiler would see only the part before), followed by a
 * redeclaration of the entry point as the stage launches it.  A kernel
 * declared with other parameters, or not extern "C" __global__, then
 * fails to compile at a line of GCG_KERNEL_CODE_ENTRY_CHECK; a missing
 * one compiles and is looked for afterwards. */
static gchar *
source_text (GBytes *source, const gchar *name, const gchar *entry,
    GError **error)
{
  /* NVRTC would see only the part before either: it stops at a NUL, and
   * takes 0xFF for the end of the source (EOF as a char). */
  static const struct
  {
    guint8 byte;
    const gchar *what;
  } forbidden[] = { { 0x00, "a NUL byte" }, { 0xff, "a byte 0xFF" } };
  gsize size = 0;
  const gchar *data = g_bytes_get_data (source, &size);

  for (guint i = 0; i < G_N_ELEMENTS (forbidden); i++) {
    const gchar *at = memchr (data, forbidden[i].byte, size);

    if (at != NULL) {
      g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "Kernel '%s': its source holds %s at offset %" G_GSIZE_FORMAT
          ", where the compiler would stop reading it",
          name, forbidden[i].what, (gsize) (at - data));
      return NULL;
    }
  }
  return g_strdup_printf (
      "%.*s\n#line 1 \"" GCG_KERNEL_CODE_ENTRY_CHECK
      "\"\nextern \"C\" __global__ void %s (const gcg_params *);\n",
      (int) size, data, entry);
}

/* Compiles @source (CUDA C++) of the kernel @name for sm_@sm with the
 * parameter struct of @decl before it and the entry point check after it,
 * through the compiled-kernel cache (@cache_dir may be %NULL).  A
 * declaration that does not match says how the entry point must be
 * declared; NVRTC's log is made valid UTF-8 (bytes of the user's source
 * are quoted in it). */
GBytes *
gcg__kernel_code_compile (const GcgKernelDecl *decl, GBytes *source,
    const gchar *name, const gchar *entry, gint sm, const gchar *const *options,
    const gchar *cache_dir, GError **error)
{
  g_autofree gchar *prelude = NULL;
  g_autofree gchar *text = NULL;
  GError *local = NULL;
  GBytes *image;

  if (!gcg__kernel_code_check_entry (name, entry, TRUE, error))
    return NULL;
  if ((text = source_text (source, name, entry, error)) == NULL)
    return NULL;
  prelude = gcg__kernel_decl_to_c (decl, "gcg_params");
  image = gcg__nvrtc_compile_cached (prelude, text, name, sm, options,
      cache_dir, &local);
  if (image != NULL)
    return image;
  if (!g_utf8_validate (local->message, -1, NULL)) {
    gchar *valid = g_utf8_make_valid (local->message, -1);

    g_free (local->message);
    local->message = valid;
  }
  if (strstr (local->message, GCG_KERNEL_CODE_ENTRY_CHECK "(") != NULL) {
    g_prefix_error (&local,
        "Kernel '%s': its entry point must be declared "
        "extern \"C\" __global__ void %s (const gcg_params *p), the one "
        "argument it is launched with: ",
        name, entry);
  }
  g_propagate_error (error, local);
  return NULL;
}
