/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-device-segment-source-private.h"
#include "gcg-context-private.h"

static GcgSegmentResult
device_alloc_segment (gpointer user_data, gsize size, guint64 *addr,
    GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUdeviceptr ptr = 0;
  CUresult res;

  if (!gcg__context_guard_enter (&guard, user_data, error))
    return GCG_SEGMENT_FAILED;
  res = GCG_CU (cuMemAlloc, &ptr, size);
  /* Left to the allocator, which frees its cache and tries again. */
  if (res == CUDA_ERROR_OUT_OF_MEMORY)
    return GCG_SEGMENT_OUT_OF_MEMORY;
  if (!gcg__cuda_result (res, "cuMemAlloc", error, __FILE__, __LINE__,
          G_STRFUNC))
    return GCG_SEGMENT_FAILED;
  *addr = ptr;
  return GCG_SEGMENT_OK;
}

static void
device_free_segment (gpointer user_data, guint64 addr, gsize size)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  if (gcg__context_guard_enter (&guard, user_data, NULL))
    GCG_CU_WARN (cuMemFree, addr);
}

static gboolean
device_get_free_memory (gpointer user_data, guint64 *free_bytes)
{
  return gcg_context_get_memory_info (user_data, free_bytes, NULL, NULL);
}

static gpointer
device_event_create (gpointer user_data, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUevent event = NULL;

  if (!gcg__context_guard_enter (&guard, user_data, error)
      || !GCG_CU_OK (error, cuEventCreate, &event, CU_EVENT_DISABLE_TIMING))
    return NULL;
  return event;
}

static gboolean
device_event_record (gpointer user_data, gpointer event, gpointer stream,
    GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  return gcg__context_guard_enter (&guard, user_data, error)
      && GCG_CU_OK (error, cuEventRecord, event, stream);
}

/* A failed query (a sticky error after a crashed kernel) counts as
 * complete: the context is unusable then, so nothing can still run on the
 * block, and keeping it would only leak. */
static gboolean
device_event_query (gpointer user_data, gpointer event)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUresult res;

  if (!gcg__context_guard_enter (&guard, user_data, NULL))
    return FALSE;
  res = GCG_CU (cuEventQuery, event);
  if (res == CUDA_ERROR_NOT_READY)
    return FALSE;
  (void) gcg__cuda_result (res, "cuEventQuery", NULL, __FILE__, __LINE__,
      G_STRFUNC);
  return TRUE;
}

static void
device_event_synchronize (gpointer user_data, gpointer event)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  if (gcg__context_guard_enter (&guard, user_data, NULL))
    GCG_CU_WARN (cuEventSynchronize, event);
}

static void
device_event_destroy (gpointer user_data, gpointer event)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  if (gcg__context_guard_enter (&guard, user_data, NULL))
    GCG_CU_WARN (cuEventDestroy, event);
}

static gboolean
device_stream_synchronize (gpointer user_data, gpointer stream, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  return gcg__context_guard_enter (&guard, user_data, error)
      && GCG_CU_OK (error, cuStreamSynchronize, stream);
}

const GcgSegmentSource gcg__device_segment_source = {
  .alloc_segment = device_alloc_segment,
  .free_segment = device_free_segment,
  .get_free_memory = device_get_free_memory,
  .event_create = device_event_create,
  .event_record = device_event_record,
  .event_query = device_event_query,
  .event_synchronize = device_event_synchronize,
  .event_destroy = device_event_destroy,
  .stream_synchronize = device_stream_synchronize,
};
