/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For the element tests of the gpu suite (they link the library).
 */
#pragma once

#include <glib.h>

gboolean gcg_test_have_gpu (void);
