/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Installs the testing hooks into the library when a test program starts:
 * GCG_FAULT_INJECT armed before cuInit (gcg-fault.c),
 * GCG_CPU_COMPLETION_DELAY read by every new frame queue, and the test
 * kernels (gcg-test-kernels.cu) found by name next to the library's own.
 * The library itself reads neither variable nor holds those kernels.
 */
#include "gcg-testing.h"
#include "gcg-context-private.h"
#include "gcg-driver-private.h"
#include "gcg-fault-private.h"
#include "gcg-frame-queue-private.h"

/* lib/testing/meson.build embeds gcg-test-kernels.cu's fatbin here (empty
 * in a build without nvcc). */
extern const unsigned char gcg__test_kernels_fatbin[];
extern const gsize gcg__test_kernels_fatbin_size;

/* GCG_CPU_COMPLETION_DELAY as a number of frames, read when a queue is
 * made (a test may set it after start-up): unset, empty or not a number
 * in 0..1000 is 0 (done at once). */
static guint64
cpu_completion_delay (void)
{
  const gchar *v = g_getenv ("GCG_CPU_COMPLETION_DELAY");
  guint64 n = 0;

  if (v == NULL || !g_ascii_string_to_unsigned (v, 10, 0, 1000, &n, NULL))
    return 0;
  return n;
}

/* Runs before main(): the program must be linked with the archive whole
 * (link_whole), or this object would be left out. */
__attribute__ ((constructor)) static void
install_hooks (void)
{
  gcg__driver_set_init_hook (gcg__fault_arm_from_env);
  gcg__frame_queue_set_cpu_delay_hook (cpu_completion_delay);
  if (gcg__test_kernels_fatbin_size > 0)
    gcg__context_set_extra_kernels (gcg__test_kernels_fatbin);
}
