/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

GST_ELEMENT_REGISTER_DECLARE (cudagraphconvert);
GST_ELEMENT_REGISTER_DECLARE (cudagraphpreprocess);
GST_ELEMENT_REGISTER_DECLARE (cudagraphbatch);
GST_ELEMENT_REGISTER_DECLARE (cudagraphkernel);

G_END_DECLS
