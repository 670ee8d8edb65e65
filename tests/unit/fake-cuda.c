/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A stand-in libcuda for unit tests on machines without a GPU: it lets the
 * loader's success and failure paths run for real.  Behaviour is set by
 * environment variables:
 *   FAKE_CUDA_VERSION      driver version (default 12080)
 *   FAKE_CUDA_MISSING      an entry point reported as not found
 *   FAKE_CUDA_INIT_RESULT  what cuInit returns (default 0)
 *   FAKE_CUDA_DEVICES      what cuDeviceGetCount reports (default 0)
 * Every other entry point returns CUDA_ERROR_NOT_SUPPORTED.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;

#define EXPORT __attribute__ ((visibility ("default")))

static int
env_int (const char *name, int fallback)
{
  const char *value = getenv (name);

  return value ? atoi (value) : fallback;
}

static CUresult
fake_driver_get_version (int *version)
{
  *version = env_int ("FAKE_CUDA_VERSION", 12080);
  return 0;
}

static CUresult
fake_init (unsigned int flags)
{
  (void) flags;
  return env_int ("FAKE_CUDA_INIT_RESULT", 0);
}

static CUresult
fake_device_get_count (int *count)
{
  *count = env_int ("FAKE_CUDA_DEVICES", 0);
  return 0;
}

static CUresult
fake_not_supported (void)
{
  return 801;
}

EXPORT CUresult cuGetProcAddress_v2 (const char *symbol, void **pfn,
    int version, uint64_t flags, int *status);

EXPORT CUresult
cuGetProcAddress_v2 (const char *symbol, void **pfn, int version,
    uint64_t flags, int *status)
{
  const char *missing = getenv ("FAKE_CUDA_MISSING");

  (void) version;
  (void) flags;
  *pfn = NULL;
  if (missing && strcmp (symbol, missing) == 0) {
    *status = 1;
    return 500;
  }
  *status = 0;
  if (strcmp (symbol, "cuDriverGetVersion") == 0)
    *pfn = (void *) fake_driver_get_version;
  else if (strcmp (symbol, "cuInit") == 0)
    *pfn = (void *) fake_init;
  else if (strcmp (symbol, "cuDeviceGetCount") == 0)
    *pfn = (void *) fake_device_get_count;
  else
    *pfn = (void *) fake_not_supported;
  return 0;
}
