/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GCG_ERROR and the translation of CUresult codes into errors a user can
 * act on: the message names the call, the driver's error name and string,
 * where it happened and what to do about it.
 */
#include "gcg-error-private.h"
#include "gcg-cuda-private.h"

#include <string.h>

/**
 * gcg_error_quark:
 *
 * The error domain of the library, %GCG_ERROR: every #GError it reports is
 * in it, with a #GcgError code.
 *
 * Returns: the domain's #GQuark
 *
 * Since: 0.1
 */
G_DEFINE_QUARK (gcg-error-quark, gcg_error);

typedef struct
{
  CUresult result;
  const gchar *name;
  GcgError code;
  const gchar *hint;
} GcgCudaResultInfo;

/* Names are built in so that messages stay useful when the driver's own
 * cuGetErrorName is unavailable (failed load, fault injection in tests). */
static const GcgCudaResultInfo result_table[] = {
  { CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE",
      GCG_ERROR_INVALID_ARGUMENT,
      "a value passed to the driver is out of range" },
  { CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY",
      GCG_ERROR_OUT_OF_MEMORY,
      "free device memory (empty caches, fewer buffers, smaller frames) or use another device" },
  { CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", GCG_ERROR_DRIVER,
      "the driver was not initialised; this is a bug, please report it" },
  { CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", GCG_ERROR_DRIVER,
      "the driver is shutting down; stop using CUDA objects at process exit" },
  { CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", GCG_ERROR_NO_DRIVER,
      "the toolkit's stub libcuda was loaded; install the NVIDIA driver or set GCG_CUDA_LIBRARY" },
  { CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER,
      "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", GCG_ERROR_DRIVER_TOO_OLD,
      "update the NVIDIA driver" },
  { CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE",
      GCG_ERROR_NO_DEVICE,
      "the device is busy or in exclusive mode; check nvidia-smi" },
  { CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", GCG_ERROR_NO_DEVICE,
      "no CUDA device is visible; check nvidia-smi and CUDA_VISIBLE_DEVICES" },
  { CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", GCG_ERROR_NO_DEVICE,
      "choose a device ordinal below the device count (gcg-info lists them)" },
  { CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", GCG_ERROR_NO_KERNELS,
      "the embedded kernels are damaged; rebuild the library" },
  { CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", GCG_ERROR_DRIVER,
      "no valid context is current; this is a bug, please report it" },
  { CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
      GCG_ERROR_NO_KERNELS,
      "the embedded kernels do not cover this GPU; rebuild with its architecture in -Dcuda-archs" },
  { CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", GCG_ERROR_NO_KERNELS,
      "the embedded PTX could not be compiled; update the driver" },
  { CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
      GCG_ERROR_NO_KERNELS,
      "the driver is older than the nvcc that built the kernels; update the driver" },
  { CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", GCG_ERROR_DRIVER,
      "a handle was used after it was destroyed; this is a bug, please report it" },
  { CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE", GCG_ERROR_DRIVER,
      "the driver refused the call in its present state" },
  { CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", GCG_ERROR_DRIVER,
      "a named symbol or kernel was not found" },
  { CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", GCG_ERROR_DRIVER,
      "work is still pending" },
  { CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", GCG_ERROR_DRIVER,
      "a kernel touched memory it does not own; the context is unusable, restart the process" },
  { CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
      GCG_ERROR_DRIVER,
      "a kernel asked for more registers or shared memory than the device has" },
  { CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", GCG_ERROR_DRIVER,
      "a kernel ran past the display watchdog; use a compute-only GPU" },
  { CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", GCG_ERROR_DRIVER,
      "a kernel failed; the context is unusable, restart the process" },
  { CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
      "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", GCG_ERROR_NOT_SUPPORTED,
      "use fewer blocks for cooperative launches" },
  { CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", GCG_ERROR_DRIVER,
      "the operation is not permitted in this state" },
  { CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED",
      GCG_ERROR_NOT_SUPPORTED,
      "the device or driver does not support this operation" },
  { CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
      GCG_ERROR_NO_DRIVER,
      "the user-space driver does not match the kernel module; reinstall the NVIDIA driver or reboot" },
  { CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
      "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", GCG_ERROR_CAPTURE_INVALIDATED,
      "the call is not allowed while a stream is capturing; move it before the capture" },
  { CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
      "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", GCG_ERROR_CAPTURE_INVALIDATED,
      "an operation not allowed during capture ran (synchronize, query, legacy-stream work); the capture is discarded, capture again without it" },
  { CUDA_ERROR_STREAM_CAPTURE_MERGE, "CUDA_ERROR_STREAM_CAPTURE_MERGE",
      GCG_ERROR_CAPTURE_INVALIDATED,
      "two independent captures were merged; capture on one stream" },
  { CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
      GCG_ERROR_CAPTURE_STATE, "the capture was not begun on this stream" },
  { CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED",
      GCG_ERROR_CAPTURE_INVALIDATED,
      "a forked stream was not joined back before the capture ended" },
  { CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
      GCG_ERROR_CAPTURE_INVALIDATED,
      "work crossed from a capturing stream to one that is not" },
  { CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
      GCG_ERROR_CAPTURE_INVALIDATED,
      "the legacy default stream was used during capture; use a non-blocking stream" },
  { CUDA_ERROR_CAPTURED_EVENT, "CUDA_ERROR_CAPTURED_EVENT",
      GCG_ERROR_CAPTURE_INVALIDATED,
      "an event recorded during capture was queried or synchronised" },
  { CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
      "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", GCG_ERROR_CAPTURE_STATE,
      "a thread-local capture was ended from another thread; end it where it began" },
  { CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
      "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", GCG_ERROR_DRIVER,
      "the graph's topology changed; instantiate it again" },
  { CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", GCG_ERROR_DRIVER,
      "the driver failed without a reason; check dmesg and nvidia-smi" },
};

static const GcgCudaResultInfo *
lookup_result (CUresult res)
{
  for (gsize i = 0; i < G_N_ELEMENTS (result_table); i++) {
    if (result_table[i].result == res)
      return &result_table[i];
  }
  return NULL;
}

/**
 * gcg__cuda_result_to_code:
 *
 * The #GcgError code a CUresult maps to (GCG_ERROR_DRIVER when it has no
 * more specific meaning).
 */
GcgError
gcg__cuda_result_to_code (CUresult res)
{
  const GcgCudaResultInfo *info = lookup_result (res);

  return info ? info->code : GCG_ERROR_DRIVER;
}

/* The driver's name for @res, or ours when the driver cannot tell. */
const gchar *
gcg__cuda_result_name (CUresult res)
{
  const GcgCudaResultInfo *info = lookup_result (res);
  const gchar *name = NULL;

  if (info)
    return info->name;
  if (gcg__cuda.cuGetErrorName && gcg__cuda.cuGetErrorName (res, &name) == 0
      && name)
    return name;
  return "CUDA_ERROR_(unnamed)";
}

static const gchar *
result_string (CUresult res)
{
  const gchar *str = NULL;

  if (gcg__cuda.cuGetErrorString && gcg__cuda.cuGetErrorString (res, &str) == 0
      && str)
    return str;
  return "no description available";
}

gboolean
gcg__cuda_result (CUresult res, const gchar *call, GError **error,
    const gchar *file, gint line, const gchar *func)
{
  const GcgCudaResultInfo *info;
  g_autofree gchar *msg = NULL;

  if (G_LIKELY (res == CUDA_SUCCESS))
    return TRUE;

  info = lookup_result (res);
  msg = g_strdup_printf ("%s failed: %s (%d, %s) in %s at %s:%d; %s", call,
      gcg__cuda_result_name (res), res, result_string (res), func, file, line,
      info ? info->hint : "see the CUDA driver API documentation");
  if (error == NULL)
    g_warning ("%s", msg);
  else
    g_set_error_literal (error, GCG_ERROR, gcg__cuda_result_to_code (res), msg);
  return FALSE;
}

/* @text as an error message quotes it: valid UTF-8 (a bad byte becomes
 * U+FFFD) and at most GCG_ERROR_QUOTE_MAX characters, then "..." when it
 * was longer, so a megabyte of hostile input is never echoed whole.
 * %NULL quotes as "".  Free the result with g_free(). */
gchar *
gcg__error_quote (const gchar *text)
{
  g_autofree gchar *valid = NULL;
  glong n;

  if (text == NULL)
    return g_strdup ("");
  /* Made valid over a bounded prefix only: a character is at most 4
   * bytes (a bad byte is one), so the prefix holds more than enough. */
  valid = g_utf8_make_valid (text, strnlen (text, 4 * GCG_ERROR_QUOTE_MAX + 1));
  n = g_utf8_strlen (valid, -1);
  if (n <= GCG_ERROR_QUOTE_MAX)
    return g_steal_pointer (&valid);
  return g_strdup_printf ("%.*s...",
      (gint) (g_utf8_offset_to_pointer (valid, GCG_ERROR_QUOTE_MAX) - valid),
      valid);
}
