/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(GCG_INSIDE) && !defined(GCG_COMPILATION)
#error "Only <gcg/gcg.h> can be included directly."
#endif

#include <glib.h>
#include "gcg-version.h"

G_BEGIN_DECLS

/**
 * GCG_ERROR:
 *
 * Error domain of every failure reported by gst-cudagraph.  Errors in this
 * domain use the codes of #GcgError.
 *
 * Since: 0.1
 */
#define GCG_ERROR (gcg_error_quark ())

/**
 * GcgError:
 * @GCG_ERROR_FAILED: a failure that fits no other code
 * @GCG_ERROR_NO_DRIVER: the CUDA driver library could not be loaded
 * @GCG_ERROR_DRIVER_TOO_OLD: the CUDA driver is older than 12.0
 * @GCG_ERROR_NO_DEVICE: no CUDA device, or no device with that ordinal
 * @GCG_ERROR_DRIVER: a CUDA driver call failed (the message names it)
 * @GCG_ERROR_NO_KERNELS: the library was built without CUDA kernels, or
 *   they do not run on this device
 * @GCG_ERROR_CAPTURE_INVALIDATED: a stream capture was invalidated by an
 *   operation that is not allowed while capturing
 * @GCG_ERROR_CAPTURE_STATE: a capture was begun, ended or used in a state
 *   that does not allow it
 * @GCG_ERROR_POOL_SEALED: a sealed capture pool refused a capture
 * @GCG_ERROR_SHAPE_MISMATCH: an input does not have the shape a graph was
 *   recorded with; record again
 * @GCG_ERROR_OUT_OF_MEMORY: device or pinned host memory is exhausted
 * @GCG_ERROR_INVALID_ARGUMENT: a value given by the caller is out of range
 * @GCG_ERROR_NOT_SUPPORTED: the operation is not supported on this device
 *   or build
 * @GCG_ERROR_CANCELLED: queued work was given up (a #GcgFrameQueue
 *   cancelled its frames); nothing went wrong with it
 *
 * Error codes in the #GCG_ERROR domain.
 *
 * Since: 0.1
 */
typedef enum
{
  GCG_ERROR_FAILED,
  GCG_ERROR_NO_DRIVER,
  GCG_ERROR_DRIVER_TOO_OLD,
  GCG_ERROR_NO_DEVICE,
  GCG_ERROR_DRIVER,
  GCG_ERROR_NO_KERNELS,
  GCG_ERROR_CAPTURE_INVALIDATED,
  GCG_ERROR_CAPTURE_STATE,
  GCG_ERROR_POOL_SEALED,
  GCG_ERROR_SHAPE_MISMATCH,
  GCG_ERROR_OUT_OF_MEMORY,
  GCG_ERROR_INVALID_ARGUMENT,
  GCG_ERROR_NOT_SUPPORTED,
  GCG_ERROR_CANCELLED,
} GcgError;

GCG_API
GQuark gcg_error_quark (void);

G_END_DECLS
