/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-cuda-private.h"

G_BEGIN_DECLS

/* One rule of a fault-injection spec: the @nth call (1-based) of @func
 * fails, or every call when @nth is 0, returning @result. */
typedef struct
{
  GcgCudaId func;
  guint nth;
  CUresult result;
} GcgFaultRule;

GArray *gcg__fault_parse (const gchar *spec, GError **error);
gboolean gcg__fault_arm_from_env (GError **error);

G_END_DECLS
