/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * NVRTC, the CUDA run-time compiler, as this project sees it: loaded at
 * run time like the driver (never linked), so the library and the plugin
 * load and run their built-in kernels on machines without it.  Only user
 * kernels given as CUDA source need it.
 */
#pragma once

#include <glib.h>
#include "gcg-version.h"
#include "gcg-cuda-private.h"

G_BEGIN_DECLS

/* The NVRTC API's types and the entry points used (nvrtc.h, ABI-stable
 * since CUDA 11), so nothing here needs the toolkit at build time. */
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;
#define NVRTC_SUCCESS 0
#define NVRTC_ERROR_INVALID_OPTION 5
#define NVRTC_ERROR_COMPILATION 6
#define NVRTC_ERROR_INTERNAL_ERROR 11

typedef struct
{
  const char *(*GetErrorString) (nvrtcResult result);
  nvrtcResult (*Version) (int *major, int *minor);
  nvrtcResult (*CreateProgram) (nvrtcProgram *prog, const char *src,
      const char *name, int n_headers, const char *const *headers,
      const char *const *include_names);
  nvrtcResult (*DestroyProgram) (nvrtcProgram *prog);
  nvrtcResult (*CompileProgram) (nvrtcProgram prog, int n_options,
      const char *const *options);
  nvrtcResult (*GetProgramLogSize) (nvrtcProgram prog, size_t *size);
  nvrtcResult (*GetProgramLog) (nvrtcProgram prog, char *log);
  nvrtcResult (*GetCUBINSize) (nvrtcProgram prog, size_t *size);
  nvrtcResult (*GetCUBIN) (nvrtcProgram prog, char *cubin);
} GcgNvrtcTable;

/* Filled once by a successful gcg__nvrtc_load(), read-only afterwards. */
extern GcgNvrtcTable gcg__nvrtc;

/* Where NVRTC is looked for when $GCG_NVRTC_LIBRARY is unset, in order:
 * the toolkit's major versions this project is built against, through
 * the loader's path, then in the toolkit's usual place. */
#define GCG_NVRTC_SEARCH \
  "libnvrtc.so.13", "libnvrtc.so.12", "/usr/local/cuda/lib64/libnvrtc.so.13", \
      "/usr/local/cuda/lib64/libnvrtc.so.12"

/* Bounds on what NVRTC hands back: a log is cut (and not even fetched
 * past the second bound), a binary refused. */
#define GCG_NVRTC_MAX_LOG (64 * 1024)
#define GCG_NVRTC_MAX_LOG_READ (64 * 1024 * 1024)
#define GCG_NVRTC_MAX_BINARY (256 * 1024 * 1024)

/* The most entries the disk cache keeps (the oldest go first). */
#define GCG_NVRTC_DISK_MAX_ENTRIES 256

/* GCG_NVRTC_CALL (CompileProgram, prog, n, opts): calls NVRTC through the
 * table unless fault injection (gcg_fault_inject(), "nvrtcCompileProgram:1")
 * fails this call; a release (nvrtcDestroyProgram) is made anyway, then
 * reports the failure, as the driver's are (gcg-cuda-private.h). */
#define GCG_NVRTC_CALL(fn, ...) \
  GCG_FAULT_CALL (GCG_CUDA_ID_nvrtc##fn, gcg__nvrtc.fn (__VA_ARGS__), \
      gcg__nvrtc_injected ())

nvrtcResult gcg__nvrtc_injected (void);

gboolean gcg__nvrtc_load (GError **error);

void gcg__nvrtc_get_version (gint *major, gint *minor);
const gchar *gcg__nvrtc_get_identity (void);

GCG_PRIVATE_API GBytes *gcg__nvrtc_compile (const gchar *prelude,
    const gchar *source, const gchar *name, gint sm,
    const gchar *const *options, GError **error);

gchar *gcg__nvrtc_program_text (const gchar *prelude, const gchar *source,
    const gchar *name);

GCG_PRIVATE_API GBytes *gcg__nvrtc_compile_cached (const gchar *prelude,
    const gchar *source, const gchar *name, gint sm,
    const gchar *const *options, const gchar *disk_dir, GError **error);

GCG_PRIVATE_API guint gcg__nvrtc_get_live_programs (void);

/* Whether a compile of this program text (gcg__nvrtc_program_text()),
 * or with these options, may read a file or the clock
 * (gcg-nvrtc-scan.c): its binary is then never cached. */
GCG_PRIVATE_API gboolean gcg__nvrtc_text_may_read_files (const gchar *text);
GCG_PRIVATE_API gboolean
gcg__nvrtc_options_may_read_files (const gchar *const *options);

GCG_PRIVATE_API void gcg__nvrtc_cache_clear_memory (void);
GCG_PRIVATE_API guint gcg__nvrtc_cache_get_compile_count (void);

G_END_DECLS
