/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An NVRTC in front of the real one, for GStreamer's nvcodec on CUDA 13
 * (tools/peers/gpu-bundle-126.sh builds it into the 1.26 bundle; its env.sh
 * points GST_CUDA_NVRTC_LIBNAME here and GCG_NVRTC_REAL at the real
 * libnvrtc).
 *
 * nvcodec registers cudaconvert, cudascale and cudaconvertscale only when
 * a test kernel compiles through gst_cuda_nvrtc_compile(), which asks for
 * --gpu-architecture=compute_52 (1.22 and 1.26 alike); NVRTC 13 supports
 * compute_75 and newer and rejects it, so the elements never register.
 * This shim raises a virtual architecture (compute_XY) older than the
 * oldest NVRTC supports to that oldest one and passes every other option
 * and call through unchanged: the test compile passes, and 1.26's
 * converter still builds its kernels as a cubin for the device's own
 * sm_XY (gst_cuda_nvrtc_compile_cubin()), which the shim does not touch.
 *
 * No GLib: it is loaded by whatever GLib the bundle has.  Built with
 *   cc -shared -fPIC -O2 -o libgcg-nvrtc-shim.so nvrtc-arch-shim.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvrtcResult;        /* NVRTC_SUCCESS is 0 */
typedef struct _nvrtcProgram *nvrtcProgram;

#define SHIM_INTERNAL_ERROR 11  /* NVRTC_ERROR_INTERNAL_ERROR */
#define ARCH_OPTION "--gpu-architecture=compute_"
#define MAX_OPTIONS 256

typedef struct
{
  nvrtcResult (*compile) (nvrtcProgram, int, const char *const *);
  nvrtcResult (*create) (nvrtcProgram *, const char *, const char *, int,
      const char *const *, const char *const *);
  nvrtcResult (*destroy) (nvrtcProgram *);
  nvrtcResult (*get_ptx) (nvrtcProgram, char *);
  nvrtcResult (*get_ptx_size) (nvrtcProgram, size_t *);
  nvrtcResult (*get_log) (nvrtcProgram, char *);
  nvrtcResult (*get_log_size) (nvrtcProgram, size_t *);
  nvrtcResult (*get_cubin) (nvrtcProgram, char *);
  nvrtcResult (*get_cubin_size) (nvrtcProgram, size_t *);
  nvrtcResult (*num_archs) (int *);
  nvrtcResult (*archs) (int *);
  int oldest;                   /* the oldest supported arch, e.g. 75 */
} Real;

static Real real;
static int real_ok;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/* The oldest architecture the real NVRTC compiles for (0: unknown). */
static int
oldest_arch (void)
{
  int n = 0, archs[128];

  if (!real.num_archs || !real.archs || real.num_archs (&n) != 0 || n < 1
      || n > 128 || real.archs (archs) != 0)
    return 0;
  int oldest = archs[0];

  for (int i = 1; i < n; i++)
    oldest = archs[i] < oldest ? archs[i] : oldest;
  return oldest;
}

static void
load_real (void)
{
  const char *path = getenv ("GCG_NVRTC_REAL");
  void *lib = dlopen (path && *path ? path : "libnvrtc.so.13", RTLD_NOW);

  if (lib == NULL) {
    fprintf (stderr, "gcg-nvrtc-shim: %s\n", dlerror ());
    return;
  }
  *(void **) &real.compile = dlsym (lib, "nvrtcCompileProgram");
  *(void **) &real.create = dlsym (lib, "nvrtcCreateProgram");
  *(void **) &real.destroy = dlsym (lib, "nvrtcDestroyProgram");
  *(void **) &real.get_ptx = dlsym (lib, "nvrtcGetPTX");
  *(void **) &real.get_ptx_size = dlsym (lib, "nvrtcGetPTXSize");
  *(void **) &real.get_log = dlsym (lib, "nvrtcGetProgramLog");
  *(void **) &real.get_log_size = dlsym (lib, "nvrtcGetProgramLogSize");
  *(void **) &real.get_cubin = dlsym (lib, "nvrtcGetCUBIN");
  *(void **) &real.get_cubin_size = dlsym (lib, "nvrtcGetCUBINSize");
  *(void **) &real.num_archs = dlsym (lib, "nvrtcGetNumSupportedArchs");
  *(void **) &real.archs = dlsym (lib, "nvrtcGetSupportedArchs");
  real_ok = real.compile && real.create && real.destroy && real.get_ptx
      && real.get_ptx_size && real.get_log && real.get_log_size;
  real.oldest = oldest_arch ();
}

static int
ready (void)
{
  pthread_once (&real_once, load_real);
  return real_ok;
}

nvrtcResult
nvrtcCompileProgram (nvrtcProgram prog, int n, const char *const *options)
{
  const char *opts[MAX_OPTIONS];
  char raised[64];

  if (!ready () || n < 0 || n > MAX_OPTIONS)
    return SHIM_INTERNAL_ERROR;
  for (int i = 0; i < n; i++) {
    const char *o = options[i];

    opts[i] = o;
    if (o && real.oldest > 0
        && strncmp (o, ARCH_OPTION, strlen (ARCH_OPTION)) == 0
        && atoi (o + strlen (ARCH_OPTION)) < real.oldest) {
      snprintf (raised, sizeof (raised), ARCH_OPTION "%d", real.oldest);
      opts[i] = raised;
    }
  }
  return real.compile (prog, n, opts);
}

/* The other entry points nvcodec uses, passed through as they are. */
#define FORWARD(name, field, params, args) \
  nvrtcResult name params \
  { \
    return ready () && real.field ? real.field args : SHIM_INTERNAL_ERROR; \
  }

FORWARD (nvrtcCreateProgram, create,
    (nvrtcProgram * prog, const char *src, const char *name, int n,
        const char *const *headers, const char *const *names),
    (prog, src, name, n, headers, names))
FORWARD (nvrtcDestroyProgram, destroy, (nvrtcProgram * prog), (prog))
FORWARD (nvrtcGetPTX, get_ptx, (nvrtcProgram prog, char *ptx), (prog, ptx))
FORWARD (nvrtcGetPTXSize, get_ptx_size, (nvrtcProgram prog, size_t *size),
    (prog, size))
FORWARD (nvrtcGetProgramLog, get_log, (nvrtcProgram prog, char *log),
    (prog, log))
FORWARD (nvrtcGetProgramLogSize, get_log_size,
    (nvrtcProgram prog, size_t *size), (prog, size))
FORWARD (nvrtcGetCUBIN, get_cubin, (nvrtcProgram prog, char *cubin),
    (prog, cubin))
FORWARD (nvrtcGetCUBINSize, get_cubin_size, (nvrtcProgram prog, size_t *size),
    (prog, size))
