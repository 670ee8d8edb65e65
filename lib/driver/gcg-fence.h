/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include "gcg-stream.h"

G_BEGIN_DECLS

#define GCG_TYPE_FENCE (gcg_fence_get_type ())
GCG_API
G_DECLARE_FINAL_TYPE (GcgFence, gcg_fence, GCG, FENCE, GObject)

GCG_API
GcgFence *gcg_fence_new (GcgStream *stream, GError **error);

GCG_API
gboolean gcg_fence_query (GcgFence *self, gboolean *done, GError **error);

GCG_API
gboolean gcg_fence_wait (GcgFence *self, GError **error);

G_END_DECLS
