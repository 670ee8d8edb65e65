/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Umbrella of every kernel source: nvcc builds this one translation unit
 * into the single fatbin embedded in libgcg.  Add new kernel files here
 * and to `kernel_sources` in lib/frame/kernels/meson.build.
 */
#include "gcg-test-kernels.cu"
#include "gcg-frame-kernels.cu"
#include "gcg-copy-kernels.cu"
