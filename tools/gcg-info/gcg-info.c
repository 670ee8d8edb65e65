/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gcg-info: what gst-cudagraph sees on this machine.  Prints the driver
 * version, each device and the architectures embedded in the kernel
 * fatbin.  Without a usable driver it prints one line saying why and exits
 * with status 1.
 */
#include <gcg.h>
#include <stdio.h>

static gboolean
print_device (gint ordinal, GError **error)
{
  g_autoptr (GcgContext) ctx = gcg_context_new (ordinal, error);
  guint64 free_bytes = 0;
  gint major, minor;

  if (ctx == NULL
      || !gcg_context_get_memory_info (ctx, &free_bytes, NULL, error))
    return FALSE;
  gcg_context_get_compute_capability (ctx, &major, &minor);
  printf ("device %d: %s\n", ordinal, gcg_context_get_name (ctx));
  printf ("  compute capability %d.%d, %d SMs, PCI %s\n", major, minor,
      gcg_context_get_sm_count (ctx), gcg_context_get_pci_bus_id (ctx));
  printf ("  memory %.1f GiB, %.1f GiB free\n",
      gcg_context_get_total_memory (ctx) / (1024.0 * 1024 * 1024),
      free_bytes / (1024.0 * 1024 * 1024));
  if (!gcg_context_load_kernels (ctx, error))
    return FALSE;
  printf ("  embedded kernels load: yes\n");
  return TRUE;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  const gchar *archs = gcg_kernels_get_archs ();
  gint version = 0, count;

  printf ("gst-cudagraph %d.%d.%d\n", GCG_MAJOR_VERSION, GCG_MINOR_VERSION,
      GCG_MICRO_VERSION);
  printf ("embedded kernels: %s\n",
      *archs ? archs : "none (built without nvcc)");
  if (!gcg_driver_get_version (&version, &error)
      || (count = gcg_context_get_device_count (&error)) < 0) {
    fprintf (stderr, "gcg-info: %s\n", error->message);
    return 1;
  }
  printf ("CUDA driver: %d.%d\n", version / 1000, (version % 1000) / 10);
  printf ("devices: %d\n", count);
  for (gint i = 0; i < count; i++) {
    if (!print_device (i, &error)) {
      fprintf (stderr, "gcg-info: device %d: %s\n", i, error->message);
      return 1;
    }
  }
  return count > 0 ? 0 : 1;
}
