/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-capture.h"
#include "gcg-graph-private.h"

G_BEGIN_DECLS

CUgraph gcg__capture_end (GcgCapture *self, GError **error);

G_END_DECLS
