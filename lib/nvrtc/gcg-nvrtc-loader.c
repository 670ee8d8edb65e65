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
#include <sys/stat.h>

GcgNvrtcTable gcg__nvrtc;

static GError *load_error;
static gchar *identity;
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

/* Appends to @id what tells the file @path apart from another build of
 * it: its size and modification time (ccache's test of a compiler).
 * FALSE when it cannot be examined. */
static gboolean
add_identity (GString *id, const gchar *path)
{
  struct stat st;

  if (stat (path, &st) != 0)
    return FALSE;
  g_string_append_printf (id,
      "%s %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT ".%09ld\n", path,
      (guint64) st.st_size, (gint64) st.st_mtim.tv_sec,
      (long) st.st_mtim.tv_nsec);
  return TRUE;
}

/* NVRTC opens its builtins library (libnvrtc-builtins.so.X.Y) by name
 * when it compiles, so it is found only where the loader looks: a toolkit
 * in /usr/local/cuda without an ld.so.conf entry (a fresh machine, a
 * container) has NVRTC load and every compile fail.  Loading the builtins
 * next to the NVRTC we opened first makes that lookup find them (the
 * loader matches already loaded objects by soname).
 *
 * Returns the identity of the NVRTC and builtins loaded (add_identity()),
 * or NULL when either cannot be told: nvrtcVersion says 13.0 for every
 * 13.0.x release, and a patch release may compile differently, so the
 * compiled-kernel cache keys on this too and keeps off the disk without
 * it. */
static gchar *
preload_builtins (gpointer nvrtc_symbol)
{
  g_autoptr (GString) id = g_string_new (NULL);
  g_autofree gchar *dir = NULL;
  g_autoptr (GDir) d = NULL;
  const gchar *name;
  gboolean builtins = FALSE;
  Dl_info info;

  if (dladdr (nvrtc_symbol, &info) == 0 || info.dli_fname == NULL
      || strchr (info.dli_fname, '/') == NULL)
    return NULL;
  dir = g_path_get_dirname (info.dli_fname);
  if ((d = g_dir_open (dir, 0, NULL)) == NULL
      || !add_identity (id, info.dli_fname))
    return NULL;
  while ((name = g_dir_read_name (d)) != NULL) {
    g_autofree gchar *path = NULL;
    GModule *m;

    if (!g_str_has_prefix (name, "libnvrtc-builtins.so.")
        || strstr (name, ".alt.") != NULL)
      continue;
    path = g_build_filename (dir, name, NULL);
    m = g_module_open (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
    if (m != NULL) {
      g_module_make_resident (m);
      builtins = add_identity (id, path) || builtins;
    }
  }
  return builtins ? g_string_free (g_steal_pointer (&id), FALSE) : NULL;
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
        identity = preload_builtins ((gpointer) gcg__nvrtc.Version);
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

/* The files of the NVRTC loaded, told apart from other builds of them
 * (preload_builtins()), or %NULL when they cannot be; valid after a
 * successful gcg__nvrtc_load(). */
const gchar *
gcg__nvrtc_get_identity (void)
{
  return identity;
}
