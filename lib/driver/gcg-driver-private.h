/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-cuda-private.h"

G_BEGIN_DECLS

/* The hook gcg_driver_init() hands the loader to run right before cuInit:
 * none in the library itself.  Fault injection (lib/testing, linked by
 * tests only) sets one that arms GCG_FAULT_INJECT, so that even cuInit
 * can be made to fail.  Takes effect at the first gcg_driver_init(). */
GCG_PRIVATE_API void gcg__driver_set_init_hook (GcgCudaInitHook hook);

G_END_DECLS
