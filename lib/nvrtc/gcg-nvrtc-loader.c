/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Loads NVRTC at run time, once per process: $GCG_NVRTC_LIBRARY alone
 * when set, otherwise the names of GCG_NVRTC_SEARCH in turn.  The outcome,
 * the table or the error naming every library tried, is kept, so a
 * machine without NVRTC pays once and the built-in kernels never need it.
 */
#include "gcg-nvrtc-private.h"
#include "gcg-error.h"

#include <dlfcn.h>
#include <gmodule.h>
#include <string.h>

GcgNvrtcTable gcg__nvrtc;

static GError *load_error;
static gint version_major;
static gint version_minor;

static const struct
{
  const gchar *symbol;
  gsize offset;
} entry_points[] = {
#define ENTRY(name) { "nvrtc" #name, G_STRUCT_OFFSET (GcgNvrtcTable, name) }
  ENTRY (GetErrorString),
  ENTRY (Version),
  ENTRY (CreateProgram),
  ENTRY (DestroyProgram),
  ENTRY (CompileProgram),
  ENTRY (GetProgramLogSize),
  ENTRY (GetProgramLog),
  ENTRY (GetCUBINSize),
  ENTRY (GetCUBIN),
#undef ENTRY
};

static GError *
resolve_table (GModule *module, const gchar *library)
{
  GcgNvrtcTable table = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (entry_points); i++) {
    gpointer *slot = G_STRUCT_MEMBER_P (&table, entry_points[i].offset);

    if (!g_module_symbol (module, entry_points[i].symbol, slot)
        || *slot == NULL) {
      return g_error_new (GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
          "NVRTC %s has no %s; install NVRTC of CUDA 12 or newer", library,
          entry_points[i].symbol);
    }
  }
  /* The table is not filled yet: fault injection asked by hand. */
  if (gcg__cuda_fault (GCG_CUDA_ID_nvrtcVersion) != CUDA_SUCCESS
      || table.Version (&version_major, &version_minor) != NVRTC_SUCCESS) {
    return g_error_new (GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "NVRTC %s did not report its version (nvrtcVersion failed)", library);
  }
  gcg__nvrtc = table;
  return NULL;
}

/* NVRTC opens its builtins library (libnvrtc-builtins.so.X.Y) by name
 * when it compiles, so it is found only where the loader looks: a toolkit
 * in /usr/local/cuda without an ld.so.conf entry (a fresh machine, a
 * container) has NVRTC load and every compile fail.  Loading the builtins
 * next to the NVRTC we opened first makes that lookup find them (the
 * loader matches already loaded objects by soname). */
static void
preload_builtins (gpointer nvrtc_symbol)
{
  g_autofree gchar *dir = NULL;
  g_autoptr (GDir) d = NULL;
  const gchar *name;
  Dl_info info;

  if (dladdr (nvrtc_symbol, &info) == 0 || info.dli_fname == NULL
      || strchr (info.dli_fname, '/') == NULL)
    return;
  dir = g_path_get_dirname (info.dli_fname);
  if ((d = g_dir_open (dir, 0, NULL)) == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL) {
    g_autofree gchar *path = NULL;
    GModule *m;

    if (!g_str_has_prefix (name, "libnvrtc-builtins.so.")
        || strstr (name, ".alt.") != NULL)
      continue;
    path = g_build_filename (dir, name, NULL);
    m = g_module_open (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
    if (m != NULL)
      g_module_make_resident (m);
  }
}

static GError *
load_nvrtc (void)
{
  static const gchar *const search[] = { GCG_NVRTC_SEARCH, NULL };
  const gchar *env = g_getenv ("GCG_NVRTC_LIBRARY");
  const gchar *const one[] = { env, NULL };
  const gchar *const *names = env && *env ? one : search;
  g_autoptr (GString) tried = g_string_new (NULL);

  for (guint i = 0; names[i] != NULL; i++) {
    /* Kept open for the life of the process: the table points into it. */
    GModule *module = g_module_open (names[i], G_MODULE_BIND_LOCAL);

    if (module != NULL) {
      GError *error = resolve_table (module, names[i]);

      if (error == NULL)
        preload_builtins ((gpointer) gcg__nvrtc.Version);
      return error;
    }
    g_string_append_printf (tried, "%s%s (%s)", i ? ", " : "", names[i],
        g_module_error ());
  }
  return g_error_new (GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
      "NVRTC, the CUDA run-time compiler that user kernels given as source "
      "need, could not be loaded; tried %s.  Install the CUDA toolkit's "
      "NVRTC, set GCG_NVRTC_LIBRARY to its libnvrtc.so, or give the kernel "
      "as PTX, cubin or fatbin",
      tried->str);
}

/* The nvrtcResult of a fault injected into an NVRTC call: the spec's
 * RESULT when NVRTC has such an error, NVRTC_ERROR_INTERNAL_ERROR
 * otherwise (the default spec result is a CUresult, 999). */
nvrtcResult
gcg__nvrtc_injected (void)
{
  CUresult r = gcg__cuda_fault_last ();

  return r >= 1 && r <= NVRTC_ERROR_INTERNAL_ERROR ? (nvrtcResult) r
                                                   : NVRTC_ERROR_INTERNAL_ERROR;
}

/* Loads NVRTC once; every later call returns the first outcome. */
gboolean
gcg__nvrtc_load (GError **error)
{
  static gsize loaded = 0;

  if (g_once_init_enter (&loaded)) {
    load_error = load_nvrtc ();
    g_once_init_leave (&loaded, 1);
  }
  if (load_error) {
    g_propagate_error (error, g_error_copy (load_error));
    return FALSE;
  }
  return TRUE;
}

/* NVRTC's version; valid after a successful gcg__nvrtc_load(). */
void
gcg__nvrtc_get_version (gint *major, gint *minor)
{
  *major = version_major;
  *minor = version_minor;
}
