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
