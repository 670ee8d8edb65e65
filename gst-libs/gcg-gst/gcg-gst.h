/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one header of libgcg-gst-1.0, the GStreamer side of gst-cudagraph
 * that applications link (pkg-config gcg-gst-1.0, GIR GcgGst-1.0): the
 * metas the cudagraph elements attach and read, and their tensor caps.
 * #include <gcg/gcg-gst.h>
 */
#pragma once

#include "gcg-gst-api.h"
#include "gstcudagraphtensormeta.h"
#include "gstcudagraphbatchmeta.h"
#include "gstcudagraphparamsmeta.h"
#include "gstcudagraphresultsmeta.h"
#include "gstcudagraphtensorcaps.h"
