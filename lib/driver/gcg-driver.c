/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The driver's public entry points, above the loader.  The first load
 * runs the init hook a test program set (lib/testing's fault injection
 * arms GCG_FAULT_INJECT there, before cuInit, so that even cuInit can be
 * made to fail).  Everything in the library that needs the driver comes
 * through gcg_driver_init(), never to the loader directly, so that the
 * first load runs that hook whoever asks for it.
 */
#include "gcg-driver.h"
#include "gcg-cuda-private.h"
#include "gcg-driver-private.h"

/* A GcgCudaInitHook, or NULL (atomic). */
static gpointer init_hook;

void
gcg__driver_set_init_hook (GcgCudaInitHook hook)
{
  g_atomic_pointer_set (&init_hook, (gpointer) hook);
}

/**
 * gcg_driver_init:
 * @error: return location for a #GError, or %NULL
 *
 * Loads the CUDA driver and initialises it, once per process.  Every other
 * function that needs the driver calls this; call it yourself to find out
 * early whether CUDA is usable.  The outcome is cached: a machine without
 * a driver gets the same error every time at no cost.
 *
 * Returns: %TRUE when the driver is loaded and initialised
 *
 * Since: 0.1
 */
gboolean
gcg_driver_init (GError **error)
{
  return gcg__cuda_load ((GcgCudaInitHook) g_atomic_pointer_get (&init_hook),
      error);
}

/**
 * gcg_driver_get_version:
 * @version: (out): the driver's CUDA version, e.g. 13000 for 13.0
 * @error: return location for a #GError, or %NULL
 *
 * Gets the CUDA version of the installed driver, loading it if needed.
 *
 * Returns: %TRUE on success; on failure @version is left unchanged
 *
 * Since: 0.1
 */
gboolean
gcg_driver_get_version (gint *version, GError **error)
{
  g_return_val_if_fail (version != NULL, FALSE);

  if (!gcg_driver_init (error))
    return FALSE;
  *version = gcg__cuda_get_driver_version ();
  return TRUE;
}
