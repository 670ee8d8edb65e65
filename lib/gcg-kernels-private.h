/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The fatbin of the kernels in lib/kernels/, generated at build time (see
 * lib/kernels/embed-fatbin.py).  Size 0 when built without nvcc.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

extern const unsigned char gcg__kernels_fatbin[];
extern const gsize gcg__kernels_fatbin_size;
extern const gchar gcg__kernels_archs[];

G_END_DECLS
