/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fatbin of the kernels in lib/frame/kernels/, generated at build time
 * (see lib/frame/kernels/embed-fatbin.py).  Size 0 when built without
 * nvcc.  The driver layer only loads these bytes (gcg_context_load_kernels());
 * which kernels they hold is the frame layer's business.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

extern const unsigned char gcg__kernels_fatbin[];
extern const gsize gcg__kernels_fatbin_size;
extern const gchar gcg__kernels_archs[];

G_END_DECLS
