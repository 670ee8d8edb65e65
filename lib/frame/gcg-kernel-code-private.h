/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A user kernel's code before anything runs it: read from a file within
 * bounds, its entry point's name checked, its source compiled with a check
 * of the entry point's declaration (gcg-kernel-code.c), its compiled code
 * checked to lie within its bytes (gcg-kernel-image.c).  Untrusted input, each refusal a
 * GError naming the kernel.
 */
#pragma once

#include <glib.h>
#include "gcg-version.h"
#include "gcg-kernel-decl-private.h"

G_BEGIN_DECLS

/* The longest entry point name taken (the driver's own limit is larger;
 * no real kernel comes near). */
#define GCG_KERNEL_CODE_MAX_ENTRY 1024

/* Where NVRTC's log points when the entry point's declaration does not
 * match the one the stage launches. */
#define GCG_KERNEL_CODE_ENTRY_CHECK "gcg-entry-point-check"

GCG_PRIVATE_API GBytes *gcg__kernel_code_read_file (const gchar *path,
    gsize max_size, GError **error);

GCG_PRIVATE_API gboolean gcg__kernel_code_check_entry (const gchar *name,
    const gchar *entry, gboolean is_source, GError **error);

GCG_PRIVATE_API gboolean gcg__kernel_code_check_binary (const gchar *name,
    GBytes *code, GError **error);

GCG_PRIVATE_API GBytes *gcg__kernel_code_compile (const GcgKernelDecl *decl,
    GBytes *source, const gchar *name, const gchar *entry, gint sm,
    const gchar *const *options, const gchar *cache_dir, GError **error);

G_END_DECLS
