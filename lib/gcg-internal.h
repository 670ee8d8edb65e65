/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The library's private API that the project's own GStreamer layer uses:
 * #include <gcg/gcg-internal.h> in gst/ (the plugin) and gst-libs/
 * (libgcg-gst-1.0), and nowhere else.  It declares libgcg-1.0's internal
 * gcg__ functions (GCG_PRIVATE_API: exported by the shared library, but in
 * no installed header nor the GIR) that those layers call, with the
 * internal types they take.  No stability promise: the plugin and
 * libgcg-gst-1.0 are built from the same tree as the library, and these
 * change with it.  Not installed; the build makes it reachable as
 * <gcg/gcg-internal.h> through gcg_internal_api_dep (lib/meson.build).
 *
 * Outside lib/, no file names one of lib/'s headers by its bare name or
 * any of its *-private.h: this header and <gcg/gcg.h> are the only doors
 * (tools/check/check-layers.py checks gst/ and gst-libs/).  A function
 * the GStreamer layer needs joins this list through its private header.
 */
#pragma once

#include "gcg.h"

/* driver/: quoting a caller's text in an error; reading a file whole. */
#include "gcg-error-private.h"
#include "gcg-file-private.h"
/* memory/: registering an element's host memory with the driver. */
#include "gcg-host-registration-private.h"
/* frame/: tensor types and model dtypes by name and size; clipping a
 * rectangle; a user kernel's declaration, code, stage and op; an engine
 * of stages only and the lookup of their per-frame values. */
#include "gcg-dtype-private.h"
#include "gcg-rect-private.h"
#include "gcg-kernel-decl-private.h"
#include "gcg-kernel-code-private.h"
#include "gcg-kernel-stage-private.h"
#include "gcg-kernel-op-private.h"
#include "gcg-frame-batch-private.h"
