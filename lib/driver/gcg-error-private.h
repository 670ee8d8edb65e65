/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-error.h"
#include "gcg-cuda-private.h"

G_BEGIN_DECLS

GcgError gcg__cuda_result_to_code (CUresult res);
GCG_PRIVATE_API const gchar *gcg__cuda_result_name (CUresult res);

/* The most characters of a caller's text an error message quotes. */
#define GCG_ERROR_QUOTE_MAX 64

GCG_PRIVATE_API gchar *gcg__error_quote (const gchar *text);

G_END_DECLS
