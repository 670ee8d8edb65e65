/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Umbrella of every kernel source: nvcc builds this one translation unit
 * into the single fatbin embedded in libgcg.  Add new kernel files here
 * and to `kernel_sources` in lib/frame/kernels/meson.build.  The test
 * kernels are not here: lib/testing builds them into a fatbin of their
 * own, which only test programs embed.
 */
#include "gcg-frame-kernels.cu"
#include "gcg-copy-kernels.cu"
#include "gcg-postprocess-kernels.cu"

/* gcg_completion_mark: a stream's completion mark (lib/frame/
 * gcg-completion-mark.c), the last node of each replay: one more run
 * finished, its count written to pinned host memory for the host to read
 * without a driver call.  The system-scope fence comes first, so that
 * whoever sees the count also sees what the run wrote before it. */
extern "C" __global__ void
gcg_completion_mark (unsigned int *counter, volatile unsigned int *word)
{
  const unsigned int count = *counter + 1;

  *counter = count;
  __threadfence_system ();
  *word = count;
}
