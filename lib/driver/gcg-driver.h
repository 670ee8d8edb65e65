/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-error.h"

G_BEGIN_DECLS

GCG_API
gboolean gcg_driver_init (GError **error);

GCG_API
gboolean gcg_driver_get_version (gint *version, GError **error);

G_END_DECLS
