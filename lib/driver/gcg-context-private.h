/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-context.h"
#include "gcg-cuda-private.h"

G_BEGIN_DECLS

/* Makes a context current for a scope and restores the previous one:
 *   g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
 *   if (!gcg__context_guard_enter (&guard, ctx, error))
 *     return FALSE;
 * Nothing is pushed when the context is already current, so nested guards
 * and hot paths cost one cuCtxGetCurrent. */
typedef struct
{
  gboolean pushed;
} GcgContextGuard;

#define GCG_CONTEXT_GUARD_INIT { FALSE }

GCG_PRIVATE_API gboolean gcg__context_guard_enter (GcgContextGuard *guard,
    GcgContext *ctx, GError **error);
GCG_PRIVATE_API void gcg__context_guard_leave (GcgContextGuard *guard);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (GcgContextGuard, gcg__context_guard_leave)

CUcontext gcg__context_get_cu (GcgContext *self);
GCG_PRIVATE_API CUdevice gcg__context_get_cu_device (GcgContext *self);
GCG_PRIVATE_API CUfunction gcg__context_get_function (GcgContext *self,
    const gchar *name, GError **error);

/* A second kernel image for every context, whose functions
 * gcg__context_get_function() finds when the library's own module lacks
 * the name: none in the library; lib/testing (linked by tests only) sets
 * the test kernels' fatbin, kept out of the library's.  Set it before the
 * first lookup. */
GCG_PRIVATE_API void gcg__context_set_extra_kernels (gconstpointer image);

G_END_DECLS
