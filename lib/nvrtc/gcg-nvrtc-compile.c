/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One CUDA C++ source compiled by NVRTC into a cubin for one device
 * architecture.  A generated prelude (the parameter struct's typedef) may
 * go before the user's source; a #line directive after it keeps the line
 * numbers of NVRTC's log those of the user's file.
 */
#include "gcg-nvrtc-private.h"
#include "gcg-error.h"

#include <string.h>

#define NVRTC_OK(error, what, name, call) \
  nvrtc_ok ((call), (what), (name), (error))

static gboolean
nvrtc_ok (nvrtcResult result, const gchar *what, const gchar *name,
    GError **error)
{
  if (result == NVRTC_SUCCESS)
    return TRUE;
  g_set_error (error, GCG_ERROR, GCG_ERROR_FAILED,
      "NVRTC %s failed for '%s': %s", what, name,
      gcg__nvrtc.GetErrorString (result));
  return FALSE;
}

static gint live_programs;

/* Destroys @prog whatever happens: an injected failure of the release
 * still releases (GCG_NVRTC_CALL), so it is only logged. */
static void
destroy_program (nvrtcProgram *prog)
{
  nvrtcResult res = GCG_NVRTC_CALL (DestroyProgram, prog);

  if (res != NVRTC_SUCCESS)
    g_debug ("nvrtcDestroyProgram failed: %s", gcg__nvrtc.GetErrorString (res));
  g_atomic_int_add (&live_programs, -1);
}

/* The program's log, its first GCG_NVRTC_MAX_LOG bytes (the first errors,
 * with their line numbers, are the ones to read) cut at a line's end, and
 * how much was left out.  A log larger than GCG_NVRTC_MAX_LOG_READ is not
 * fetched at all. */
static gchar *
program_log (nvrtcProgram prog)
{
  gsize size = 0;
  g_autofree gchar *log = NULL;
  gchar *cut;

  if (GCG_NVRTC_CALL (GetProgramLogSize, prog, &size) != NVRTC_SUCCESS
      || size == 0)
    return g_strdup ("(no log)");
  if (size > GCG_NVRTC_MAX_LOG_READ)
    return g_strdup_printf ("(a log of %" G_GSIZE_FORMAT " bytes, too long "
                            "to show)",
        size);
  log = g_malloc0 (size + 1);
  if (GCG_NVRTC_CALL (GetProgramLog, prog, log) != NVRTC_SUCCESS)
    return g_strdup ("(no log)");
  if (strlen (log) <= GCG_NVRTC_MAX_LOG)
    return g_strchomp (g_steal_pointer (&log));
  log[GCG_NVRTC_MAX_LOG] = '\0';
  if ((cut = strrchr (log, '\n')) != NULL)
    *cut = '\0';
  return g_strdup_printf ("%s\n(the log goes on for %" G_GSIZE_FORMAT
                          " more bytes)",
      log, size - strlen (log));
}

static GBytes *
get_cubin (nvrtcProgram prog, const gchar *name, GError **error)
{
  gsize size = 0;
  g_autofree gchar *cubin = NULL;

  if (!NVRTC_OK (error, "nvrtcGetCUBINSize", name,
          GCG_NVRTC_CALL (GetCUBINSize, prog, &size)))
    return NULL;
  if (size == 0 || size > GCG_NVRTC_MAX_BINARY) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_FAILED,
        "NVRTC made a binary of %" G_GSIZE_FORMAT " bytes for '%s'", size,
        name);
    return NULL;
  }
  cubin = g_malloc (size);
  if (!NVRTC_OK (error, "nvrtcGetCUBIN", name,
          GCG_NVRTC_CALL (GetCUBIN, prog, cubin)))
    return NULL;
  return g_bytes_new_take (g_steal_pointer (&cubin), size);
}

/* The text NVRTC is given: @prelude (may be %NULL), a #line directive
 * naming @name, @source.  What the cache scans (gcg-nvrtc-scan.c). */
gchar *
gcg__nvrtc_program_text (const gchar *prelude, const gchar *source,
    const gchar *name)
{
  return g_strdup_printf ("%s\n#line 1 \"%s\"\n%s", prelude ? prelude : "",
      name, source);
}

/* Compiles @prelude (may be %NULL) then @source, named @name in the log,
 * for sm_@sm with @options (may be %NULL) added.  A compile error is
 * GCG_ERROR_INVALID_ARGUMENT with NVRTC's log, lines as in @source. */
GBytes *
gcg__nvrtc_compile (const gchar *prelude, const gchar *source,
    const gchar *name, gint sm, const gchar *const *options, GError **error)
{
  g_autofree gchar *arch = g_strdup_printf ("-arch=sm_%d", sm);
  g_autofree gchar *text = NULL;
  g_autofree gchar *log = NULL;
  g_autoptr (GPtrArray) opts = g_ptr_array_new ();
  nvrtcProgram prog = NULL;
  nvrtcResult res;
  GBytes *cubin;

  if (!gcg__nvrtc_load (error))
    return NULL;
  /* A quoted file name may not hold a quote or a backslash. */
  if (strpbrk (name, "\"\\\n") != NULL) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Kernel source name '%s' holds a quote, backslash or newline", name);
    return NULL;
  }
  text = gcg__nvrtc_program_text (prelude, source, name);
  g_ptr_array_add (opts, arch);
  for (guint i = 0; options != NULL && options[i] != NULL; i++)
    g_ptr_array_add (opts, (gpointer) options[i]);
  if (!NVRTC_OK (error, "nvrtcCreateProgram", name,
          GCG_NVRTC_CALL (CreateProgram, &prog, text, name, 0, NULL, NULL)))
    return NULL;
  g_atomic_int_inc (&live_programs);
  res = GCG_NVRTC_CALL (CompileProgram, prog, opts->len,
      (const char *const *) opts->pdata);
  if (res == NVRTC_ERROR_COMPILATION) {
    log = program_log (prog);
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Kernel source '%s' does not compile for sm_%d (%s):\n%s", name, sm,
        gcg__nvrtc.GetErrorString (res), log);
  } else if (res != NVRTC_SUCCESS) {
    /* Not the source's fault: the options (the caller's), or NVRTC
     * itself (memory, an internal error). */
    log = program_log (prog);
    g_set_error (error, GCG_ERROR,
        res == NVRTC_ERROR_INVALID_OPTION ? GCG_ERROR_INVALID_ARGUMENT
                                          : GCG_ERROR_FAILED,
        "NVRTC "
        "nvrtcCompileProgram failed for '%s' (sm_%d): %s:\n%s",
        name, sm, gcg__nvrtc.GetErrorString (res), log);
  }
  cubin = res == NVRTC_SUCCESS ? get_cubin (prog, name, error) : NULL;
  destroy_program (&prog);
  return cubin;
}

/* For tests: programs created and not yet destroyed (0 between
 * compiles: no error path leaks one). */
guint
gcg__nvrtc_get_live_programs (void)
{
  return (guint) g_atomic_int_get (&live_programs);
}
