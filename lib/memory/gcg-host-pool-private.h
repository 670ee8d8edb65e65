/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-host-pool.h"

G_BEGIN_DECLS

/* Smallest bucket: the driver pins whole pages anyway. */
#define GCG_HOST_POOL_MIN_BUCKET ((gsize) 4096)

/* Where a host pool's memory comes from: pinned memory from the driver,
 * or plain memory in unit tests. */
typedef struct
{
  gpointer (*alloc) (gpointer user_data, gsize size, GError **error);
  void (*free) (gpointer user_data, gpointer ptr);
} GcgHostBackend;

GcgHostPool *gcg__host_pool_new_with_backend (const GcgHostBackend *backend,
    gpointer user_data);

G_END_DECLS
