/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-stream.h"
#include "gcg-context-private.h"

G_BEGIN_DECLS

GCG_PRIVATE_API CUstream gcg__stream_get_cu (GcgStream *self);
GCG_PRIVATE_API gboolean gcg__event_wait (CUevent event, GcgSyncMode mode,
    GError **error);

G_END_DECLS
