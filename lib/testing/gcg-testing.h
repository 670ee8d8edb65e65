/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libgcg-testing.a: the hooks the tests drive the library with, kept out
 * of the installed library and its GIR.  Tests link it whole (its
 * constructor installs the hooks); nothing installed includes this.
 */
#pragma once

#include <gcg.h>

#include "gcg-fault.h"
