/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Loads the CUDA driver at run time.  The library never links libcuda: it
 * opens libcuda.so.1 (or $GCG_CUDA_LIBRARY) once, resolves every entry
 * point of GCG_CUDA_FUNCS through cuGetProcAddress_v2 at CUDA 12.0
 * semantics and calls cuInit.  The outcome, success or the error, is kept
 * for the life of the process so a machine without a driver pays once.
 *
 * The loader is the bottom of the library: fault injection sits above it
 * and reaches the driver calls through the hooks kept here.
 */
#include "gcg-cuda-private.h"
#include "gcg-error-private.h"

#include <gmodule.h>
#include <string.h>

#define GCG_CUDA_MIN_VERSION 12000
#define GCG_CUDA_DEFAULT_LIBRARY "libcuda.so.1"

typedef CUresult (*GetProcAddressFunc) (const char *symbol, void **pfn,
    int cuda_version, cuuint64_t flags, CUdriverProcAddressQueryResult *status);

GcgCudaTable gcg__cuda;
gpointer gcg__cuda_call_hook;

static GError *load_error;
static gint driver_version;
static GPrivate last_fault;

#define GCG_CUDA_NAME(name, params) #name,
#define GCG_NVRTC_NAME(name) #name,
/* clang-format off */
static const gchar *const func_names[] = {
  GCG_CUDA_FUNCS (GCG_CUDA_NAME)
  GCG_NVRTC_FAULT_FUNCS (GCG_NVRTC_NAME)
};
/* clang-format on */
#undef GCG_NVRTC_NAME
#undef GCG_CUDA_NAME
G_STATIC_ASSERT (G_N_ELEMENTS (func_names) == GCG_FAULT_N_FUNCS);

const gchar *
gcg__cuda_func_name (GcgCudaId id)
{
  g_return_val_if_fail (id < GCG_FAULT_N_FUNCS, "(invalid)");
  return func_names[id];
}

/* Returns the GcgCudaId of @name, or -1 if the project does not use it. */
gint
gcg__cuda_lookup_func (const gchar *name)
{
  for (guint i = 0; i < GCG_FAULT_N_FUNCS; i++) {
    if (g_strcmp0 (func_names[i], name) == 0)
      return (gint) i;
  }
  return -1;
}

static GError *
resolve_table (GetProcAddressFunc get_proc, const gchar *library)
{
  void **slots = (void **) &gcg__cuda;

  for (guint i = 0; i < GCG_CUDA_N_FUNCS; i++) {
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    void *pfn = NULL;
    CUresult res = get_proc (func_names[i], &pfn, GCG_CUDA_MIN_VERSION,
        CU_GET_PROC_ADDRESS_DEFAULT, &status);

    if (res != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS || !pfn) {
      return g_error_new (GCG_ERROR, GCG_ERROR_DRIVER_TOO_OLD,
          "The CUDA driver %s does not provide %s (result %d, status %d); "
          "update the NVIDIA driver",
          library, func_names[i], res, status);
    }
    slots[i] = pfn;
  }
  return NULL;
}

static GError *
check_version (GetProcAddressFunc get_proc, const gchar *library)
{
  CUresult (*get_version) (int *) = NULL;
  CUdriverProcAddressQueryResult status;

  if (get_proc ("cuDriverGetVersion", (void **) &get_version,
          GCG_CUDA_MIN_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status)
          != CUDA_SUCCESS
      || !get_version || get_version (&driver_version) != CUDA_SUCCESS) {
    return g_error_new (GCG_ERROR, GCG_ERROR_NO_DRIVER,
        "The CUDA driver %s did not report its version; reinstall the "
        "NVIDIA driver",
        library);
  }
  if (driver_version < GCG_CUDA_MIN_VERSION) {
    return g_error_new (GCG_ERROR, GCG_ERROR_DRIVER_TOO_OLD,
        "The CUDA driver %s is version %d.%d; gst-cudagraph needs 12.0 or "
        "newer: update the NVIDIA driver",
        library, driver_version / 1000, (driver_version % 1000) / 10);
  }
  return NULL;
}

static GError *
init_driver (GcgCudaInitHook init_hook)
{
  GError *error = NULL;

  if (init_hook && !init_hook (&error))
    return error;
  if (!GCG_CU_OK (&error, cuInit, 0))
    g_prefix_error (&error, "CUDA is unusable on this machine: ");
  return error;
}

static GError *
load_driver (GcgCudaInitHook init_hook)
{
  const gchar *library = g_getenv ("GCG_CUDA_LIBRARY");
  GetProcAddressFunc get_proc = NULL;
  GModule *module;
  GError *error;

  if (library == NULL || *library == '\0')
    library = GCG_CUDA_DEFAULT_LIBRARY;

  /* Kept open for the life of the process: the table points into it. */
  module = g_module_open (library, G_MODULE_BIND_LOCAL);
  if (module == NULL) {
    return g_error_new (GCG_ERROR, GCG_ERROR_NO_DRIVER,
        "No CUDA driver: %s could not be loaded (%s); install the NVIDIA "
        "driver, or set GCG_CUDA_LIBRARY to its libcuda.so.1",
        library, g_module_error ());
  }
  if (!g_module_symbol (module, "cuGetProcAddress_v2", (gpointer *) &get_proc)
      || get_proc == NULL) {
    return g_error_new (GCG_ERROR, GCG_ERROR_DRIVER_TOO_OLD,
        "The CUDA driver %s has no cuGetProcAddress_v2, so it is older than "
        "12.0; update the NVIDIA driver",
        library);
  }
  if ((error = check_version (get_proc, library)))
    return error;
  if ((error = resolve_table (get_proc, library))) {
    memset (&gcg__cuda, 0, sizeof (gcg__cuda));
    return error;
  }
  return init_driver (init_hook);
}

gboolean
gcg__cuda_load (GcgCudaInitHook init_hook, GError **error)
{
  static gsize loaded = 0;

  if (g_once_init_enter (&loaded)) {
    load_error = load_driver (init_hook);
    g_once_init_leave (&loaded, 1);
  }
  if (load_error) {
    g_propagate_error (error, g_error_copy (load_error));
    return FALSE;
  }
  return TRUE;
}

/* The driver's CUDA version; valid after a successful gcg__cuda_load(). */
gint
gcg__cuda_get_driver_version (void)
{
  return driver_version;
}

void
gcg__cuda_set_call_hook (GcgCudaCallHook hook)
{
  g_atomic_pointer_set (&gcg__cuda_call_hook, (gpointer) hook);
}

/* Asks the call hook about @id and remembers its answer for this thread,
 * for GCG_CU to return once it has made a release anyway. */
CUresult
gcg__cuda_fault_slow (GcgCudaId id)
{
  GcgCudaCallHook hook =
      (GcgCudaCallHook) g_atomic_pointer_get (&gcg__cuda_call_hook);
  CUresult result = hook ? hook (id) : CUDA_SUCCESS;

  g_private_set (&last_fault, GINT_TO_POINTER (result));
  return result;
}

/* The result of the fault the calling thread just hit. */
CUresult
gcg__cuda_fault_last (void)
{
  return GPOINTER_TO_INT (g_private_get (&last_fault));
}
