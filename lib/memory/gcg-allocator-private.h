/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-allocator.h"
#include "gcg-block-allocator-private.h"

G_BEGIN_DECLS

/* An allocator over another segment source (unit tests use a host one).
 * It has no context; streams cannot be passed to it, only NULL. */
GcgAllocator *gcg__allocator_new_for_source (const GcgSegmentSource *source,
    gpointer user_data, const gchar *device_desc);

G_END_DECLS
