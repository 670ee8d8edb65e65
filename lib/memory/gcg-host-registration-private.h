/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-context.h"
#include "gcg-version.h"

G_BEGIN_DECLS

/* Page-locks memory someone else allocated (cuMemHostRegister), so that
 * copies from it are DMA like copies from pinned memory: for pageable
 * frames that come back again and again (an upstream buffer pool that
 * ignored ours), one registration replaces a CPU copy per frame.
 *
 * Registering pins physical pages for as long as the registration lives,
 * so all registrations of the process together are bounded: at most
 * GCG_HOST_REGISTRATION_MAX_COUNT of them and GCG_HOST_REGISTRATION_MAX_BYTES
 * bytes; past that, new ones fail (GCG_ERROR_OUT_OF_MEMORY) and the caller
 * copies as before.  The caller must keep the memory allocated, and not
 * register overlapping ranges, until it frees the registration. */

#define GCG_HOST_REGISTRATION_MAX_COUNT 256
#define GCG_HOST_REGISTRATION_MAX_BYTES ((guint64) 2 << 30)

typedef struct _GcgHostRegistration GcgHostRegistration;

GCG_PRIVATE_API GcgHostRegistration *gcg__host_registration_new (
    GcgContext *context, gpointer address, gsize size, GError **error);
GCG_PRIVATE_API void gcg__host_registration_free (GcgHostRegistration *self);

/* Registrations alive in the process, and their bytes. */
GCG_PRIVATE_API void gcg__host_registration_get_totals (guint *count,
    guint64 *bytes);

G_END_DECLS
