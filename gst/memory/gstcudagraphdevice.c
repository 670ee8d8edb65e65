/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* The backend an element runs on, opened and closed the same way by every
 * element, and the output memory it writes. */
#include "gstcudagraphdevice.h"
#include "gstcudagraphdebug.h"
#include "gstcudagraphcudainterop.h"
#include "gstcudagraphcudapool.h"
#include "gstcudagraphfence.h"
#include "gstcudagraphpinnedallocator.h"
#include "gstcudagraphsystemallocator.h"

static GstDebugCategory *device_debug;
#define GST_CAT_DEFAULT \
  gst_cuda_graph_debug_category (&device_debug, "cudagraphdevice", \
      "cudagraph backends")

void
gst_cuda_graph_device_close (GstCudaGraphDevice *device)
{
  gst_clear_object (&device->pinned);
  g_clear_object (&device->host_pool);
  g_clear_object (&device->allocator);
  g_clear_object (&device->stream);
  g_clear_object (&device->context);
  /* Only now: the GcgContext above may have wrapped its CUcontext. */
  gst_clear_object (&device->cuda_context);
  device->active = GCG_BACKEND_CPU;
}

/* Upstream's CUDA memory is another context's: said once, as each frame
 * then crosses the host (the usual cause: a decoder on another GPU, e.g.
 * nvcodec's nvh264dec is GPU 0's, nvh264device1dec GPU 1's). */
static void
warn_foreign (GstCudaGraphDevice *device, GstBuffer *buffer)
{
  if (device->warned_foreign || device->element == NULL
      || !gst_cuda_graph_cuda_is_foreign (buffer, device->cuda_context))
    return;
  device->warned_foreign = TRUE;
  GST_ELEMENT_WARNING (device->element, STREAM, FORMAT,
      ("The input is CUDA memory of another device or CUDA context: every "
       "frame is copied through the host"),
      ("run upstream on this element's device (cuda-device-id; nvcodec's "
       "decoder for GPU N is nvh264deviceNdec), or set cuda-device-id to "
       "upstream's"));
}

GstMapFlags
gst_cuda_graph_device_map_flags (GstCudaGraphDevice *device, GstBuffer *buffer)
{
  GstMapFlags flags;

  if (device->active != GCG_BACKEND_CUDA)
    return 0;
  flags = gst_cuda_graph_cuda_map_flags (buffer, device->cuda_context);
  if (flags == 0)
    warn_foreign (device, buffer);
  return flags;
}

GstMapFlags
gst_cuda_graph_device_write_flags (GstCudaGraphDevice *device,
    GstMapFlags in_place)
{
  return GST_MAP_WRITE | in_place
      | (device->active == GCG_BACKEND_CUDA ? GST_CUDA_GRAPH_MAP_NO_FENCE : 0);
}

#ifdef HAVE_GST_CUDA
/* The GstCudaContext to run in: one offered already, else one a neighbour
 * or the application has, else the primary context, shared from now on.
 * Returns a reference, or NULL with @error set. */
static GstObject *
get_shared_context (GstElement *element, GstObject **shared, gint device_id,
    GError **error)
{
  GstObject *gst_ctx;

  if (!gst_cuda_graph_cuda_load (error))
    return NULL;
  gst_cuda_graph_cuda_find_context (element);
  GST_OBJECT_LOCK (element);
  gst_ctx = *shared ? gst_object_ref (*shared) : NULL;
  GST_OBJECT_UNLOCK (element);
  if (gst_ctx)
    return gst_ctx;

  gst_ctx = gst_cuda_graph_cuda_share_primary (element, device_id, error);
  if (gst_ctx == NULL)
    return NULL;
  GST_OBJECT_LOCK (element);
  if (*shared == NULL)
    *shared = gst_object_ref (gst_ctx);
  GST_OBJECT_UNLOCK (element);
  return gst_ctx;
}
#endif

/* A context for the chain: the one shared with nvcodec's elements (so
 * GstCudaMemory is used in place) when gstreamer-cuda can give one, the
 * device's primary context otherwise. */
static GcgContext *
open_context (GstCudaGraphDevice *device, GstElement *element,
    GstObject **shared, gint device_id, GError **error)
{
#ifdef HAVE_GST_CUDA
  g_autoptr (GError) shared_error = NULL;
  GstObject *gst_ctx =
      get_shared_context (element, shared, device_id, &shared_error);
  GcgContext *context = NULL;

  if (gst_ctx)
    context = gst_cuda_graph_cuda_wrap (gst_ctx, &shared_error);
  if (context) {
    device->cuda_context = gst_ctx;
    return context;
  }
  gst_clear_object (&gst_ctx);
  GST_WARNING_OBJECT (element,
      "no GstCudaContext to share (%s): CUDA "
      "memory will be copied through the host",
      shared_error->message);
#endif
  return gcg_context_new (MAX (device_id, 0), error);
}

/* Loads the kernels and makes the stream and allocators in @context; on
 * success they and @context (transfer full) are @device's, on failure
 * nothing was kept and @context is still the caller's. */
static gboolean
open_in_context (GstCudaGraphDevice *device, GcgContext *context,
    GError **error)
{
  g_autoptr (GcgStream) stream = NULL;
  g_autoptr (GcgAllocator) allocator = NULL;
  g_autoptr (GcgHostPool) host_pool = NULL;

  /* Report a build without kernels, or a GPU they do not cover, now rather
   * than at the first frame. */
  if (!gcg_context_load_kernels (context, error))
    return FALSE;
  stream = gcg_stream_new (context, error);
  if (stream == NULL)
    return FALSE;
  allocator = gcg_allocator_new (context, error);
  if (allocator == NULL)
    return FALSE;
  host_pool = gcg_host_pool_new (context);

  device->context = context;
  device->stream = g_steal_pointer (&stream);
  device->allocator = g_steal_pointer (&allocator);
  device->pinned = gst_cuda_graph_pinned_allocator_new (host_pool);
  device->host_pool = g_steal_pointer (&host_pool);
  return TRUE;
}

/* Opens everything the CUDA backend needs; on failure nothing is kept. */
static gboolean
open_cuda (GstCudaGraphDevice *device, GstElement *element, GstObject **shared,
    gint device_id, GError **error)
{
  GcgContext *context;

  if (!gcg_driver_init (error))
    return FALSE;
  context = open_context (device, element, shared, device_id, error);
  if (context == NULL)
    return FALSE;
  if (!open_in_context (device, context, error)) {
    /* The GcgContext may wrap the GstCudaContext's CUcontext: it goes
     * first. */
    g_object_unref (context);
    gst_clear_object (&device->cuda_context);
    return FALSE;
  }
  device->active = GCG_BACKEND_CUDA;
  GST_INFO_OBJECT (element, "CUDA backend on device %d (%s)%s",
      gcg_context_get_device_id (device->context),
      gcg_context_get_name (device->context),
      device->cuda_context ? ", context shared with GStreamer's CUDA elements"
                           : "");
  return TRUE;
}

/* Shares device @device_id's primary context with the pipeline now,
 * unless @shared holds a context already: called at NULL->READY, before
 * the elements upstream (a decoder) open and would make their own. */
void
gst_cuda_graph_device_offer_primary (GstElement *element, gint device_id,
    GstObject **shared)
{
#ifdef HAVE_GST_CUDA
  g_autoptr (GError) error = NULL;
  GstObject *gst_ctx;
  gboolean held;

  GST_OBJECT_LOCK (element);
  held = *shared != NULL;
  GST_OBJECT_UNLOCK (element);
  if (held || !gst_cuda_graph_cuda_load (&error))
    return;
  gst_ctx = gst_cuda_graph_cuda_share_primary (element, device_id, &error);
  if (gst_ctx == NULL) {
    GST_WARNING_OBJECT (element,
        "cannot offer device %d's primary context: "
        "%s",
        device_id, error->message);
    return;
  }
  GST_OBJECT_LOCK (element);
  if (*shared == NULL)
    *shared = g_steal_pointer (&gst_ctx);
  GST_OBJECT_UNLOCK (element);
  gst_clear_object (&gst_ctx);
#endif
}

gboolean
gst_cuda_graph_device_open (GstCudaGraphDevice *device, GstElement *element,
    const GstCudaGraphRunProps *run, GstObject **shared)
{
  g_autoptr (GError) error = NULL;
  GcgBackend backend;
  gint device_id;

  GST_OBJECT_LOCK (element);
  backend = run->backend;
  device_id = run->device_id;
  GST_OBJECT_UNLOCK (element);
  device->active = GCG_BACKEND_CPU;
  device->element = element;
  device->warned_foreign = FALSE;
  if (backend == GCG_BACKEND_CPU) {
    GST_INFO_OBJECT (element,
        "backend=cpu: running the CPU reference "
        "backend");
    return TRUE;
  }
  if (open_cuda (device, element, shared, device_id, &error))
    return TRUE;

  if (backend == GCG_BACKEND_CUDA) {
    GST_ELEMENT_ERROR (element, RESOURCE, OPEN_READ_WRITE,
        ("backend=cuda needs a usable CUDA GPU: %s", error->message),
        ("Set backend=auto (or backend=cpu) to run the CPU reference backend "
         "instead"));
    return FALSE;
  }
  /* backend=auto: say loudly that this is not the GPU path. */
  GST_WARNING_OBJECT (element,
      "no usable GPU (%s): running the CPU reference backend", error->message);
  GST_ELEMENT_WARNING (element, RESOURCE, NOT_FOUND,
      ("no usable GPU (%s): running the CPU reference backend", error->message),
      (NULL));
  return TRUE;
}

void
gst_cuda_graph_device_set_context (GstElement *element, GstContext *context,
    const GstCudaGraphRunProps *run, GstObject **shared)
{
  GstObject *found = NULL;
  gint device_id;

  GST_OBJECT_LOCK (element);
  device_id = run->device_id;
  GST_OBJECT_UNLOCK (element);
  gst_cuda_graph_cuda_set_context (element, context, device_id, &found);
  GST_OBJECT_LOCK (element);
  if (*shared == NULL)
    *shared = g_steal_pointer (&found);
  GST_OBJECT_UNLOCK (element);
  gst_clear_object (&found);
}

gboolean
gst_cuda_graph_device_context_query (GstElement *element, GstQuery *query,
    GstObject **shared)
{
  GstObject *ctx;
  gboolean answered;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return FALSE;
  GST_OBJECT_LOCK (element);
  ctx = *shared ? gst_object_ref (*shared) : NULL;
  GST_OBJECT_UNLOCK (element);
  answered = gst_cuda_graph_cuda_context_query (element, query, ctx);
  gst_clear_object (&ctx);
  return answered;
}

/* Device and pinned memory the element holds now: a run that neither
 * leaks nor grows shows the same figures at every EOS. */
void
gst_cuda_graph_device_add_memory_stats (GstCudaGraphDevice *device,
    GstStructure *s)
{
  g_autoptr (GcgAllocatorStats) stats = NULL;

  if (device->allocator == NULL)
    return;
  stats = gcg_allocator_get_stats (device->allocator);
  gst_structure_set (s, "device-bytes-allocated", G_TYPE_UINT64,
      stats->allocated_bytes, "device-bytes-reserved", G_TYPE_UINT64,
      stats->reserved_bytes, "pinned-bytes-in-use", G_TYPE_UINT64,
      gcg_host_pool_get_in_use_bytes (device->host_pool), NULL);
}

/* --- input allocation ---------------------------------------------------- */

/* CUDA memory in our context lets upstream write where the chain reads. */
static void
propose_cuda_pool (GstCudaGraphDevice *device, GstQuery *query, GstCaps *caps,
    guint min_buffers)
{
  GstBufferPool *pool;
  gsize size = 0;

  if (device->active != GCG_BACKEND_CUDA || device->cuda_context == NULL)
    return;
  pool = gst_cuda_graph_cuda_pool_new (device->cuda_context, caps, &size);
  if (pool == NULL)
    return;
  gst_query_add_allocation_pool (query, pool, size, min_buffers, 0);
  gst_object_unref (pool);
}

/* Pinned host memory when the CUDA backend runs: upstream's frames are
 * then copied to the device asynchronously at full bus speed. */
static void
propose_pinned_pool (GstCudaGraphDevice *device, GstElement *element,
    GstQuery *query, GstCaps *caps, guint min_buffers)
{
  g_autoptr (GstBufferPool) pool = NULL;
  GstStructure *config;
  GstVideoInfo info;

  if (device->pinned == NULL || caps == NULL
      || !gst_structure_has_name (gst_caps_get_structure (caps, 0),
          "video/x-raw")
      || !gst_video_info_from_caps (&info, caps))
    return;
  pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, info.size, min_buffers, 0);
  gst_buffer_pool_config_set_allocator (config, device->pinned, NULL);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_WARNING_OBJECT (element, "pinned pool refused its config");
    return;
  }
  gst_query_add_allocation_pool (query, pool, info.size, min_buffers, 0);
  gst_query_add_allocation_param (query, device->pinned, NULL);
}

void
gst_cuda_graph_device_propose_input_pool (GstCudaGraphDevice *device,
    GstElement *element, GstQuery *query, GstCaps *caps, guint min_buffers)
{
  if (caps == NULL || gst_caps_is_empty (caps))
    return;
  if (gst_cuda_graph_caps_is_cuda_memory (caps))
    propose_cuda_pool (device, query, caps, min_buffers);
  else
    propose_pinned_pool (device, element, query, caps, min_buffers);
}

/* --- output allocation --------------------------------------------------- */

/* CUDA memory output comes from a pool of our context, whatever downstream
 * offered (a pool of another context would need copies, and only ours
 * makes readers wait for frames still running), keeping its buffer
 * counts.  Video frames are pitched; a tensor is one contiguous block. */
static gboolean
decide_cuda_pool (GstCudaGraphDevice *device, GstElement *element,
    GstQuery *query, GstCaps *caps, gsize tensor_size)
{
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;
  gsize pool_size = 0;

  if (device->active != GCG_BACKEND_CUDA || device->cuda_context == NULL) {
    GST_ELEMENT_ERROR (element, CORE, NEGOTIATION,
        ("memory:CUDAMemory output needs the CUDA backend with a shared "
         "GstCudaContext"),
        ("backend is %s", device->active == GCG_BACKEND_CUDA ? "cuda" : "cpu"));
    return FALSE;
  }
  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    gst_clear_object (&pool);
  }
  pool = gst_cuda_graph_cuda_output_pool_new (device->cuda_context, caps,
      tensor_size, min, &pool_size);
  if (pool == NULL) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("The CUDA buffer pool refused %" GST_PTR_FORMAT, caps), (NULL));
    return FALSE;
  }
  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_set_nth_allocation_pool (query, 0, pool, pool_size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, pool_size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

/* With no pool from downstream, results are written into buffers of a
 * pool of our own, so that no frame allocates one: pinned memory with the
 * CUDA backend (the device-to-host copy then runs at full speed), our
 * system allocator otherwise.  Returns whether the query now holds that
 * pool. */
static gboolean
decide_own_pool (GstQuery *query, GstCaps *caps, gboolean video, gsize size,
    GstAllocator *allocator, guint min)
{
  g_autoptr (GstBufferPool) pool = NULL;
  GstStructure *config;

  if (caps == NULL || size == 0 || gst_query_get_n_allocation_pools (query) > 0)
    return FALSE;
  pool = video ? gst_video_buffer_pool_new () : gst_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, NULL);
  if (!gst_buffer_pool_set_config (pool, config))
    return FALSE;
  gst_query_add_allocation_pool (query, pool, size, min, 0);
  /* The base class configures the pool again with the query's first
   * allocator: it has to be ours, or the pool falls back to plain system
   * memory. */
  if (gst_query_get_n_allocation_params (query) > 0)
    gst_query_set_nth_allocation_param (query, 0, allocator, NULL);
  else
    gst_query_add_allocation_param (query, allocator, NULL);
  return TRUE;
}

/* Output in plain system memory comes from an allocator that fails
 * instead of aborting (GStreamer's own aborts), whether the base class
 * allocates it or a pool does: its size comes from caps and properties,
 * up to GCG_FRAME_CHAIN_MAX_OUTPUT_BYTES.  Any other allocator downstream
 * asked for stays. */
static void
use_system_allocator (GstQuery *query)
{
  g_autoptr (GstAllocator) ours = gst_cuda_graph_system_allocator_get ();
  GstAllocator *allocator = NULL;
  GstAllocationParams params;

  if (gst_query_get_n_allocation_params (query) == 0) {
    gst_query_add_allocation_param (query, ours, NULL);
    return;
  }
  gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
  if (gst_cuda_graph_is_system_allocator (allocator))
    gst_query_set_nth_allocation_param (query, 0, ours, &params);
  gst_clear_object (&allocator);
}

gboolean
gst_cuda_graph_device_decide_allocation (GstCudaGraphDevice *device,
    GstElement *element, GstQuery *query, GstCaps *caps, gboolean video,
    gsize size)
{
  if (gst_cuda_graph_caps_is_cuda_memory (caps))
    return decide_cuda_pool (device, element, query, caps, video ? 0 : size);
  /* The CPU backend takes no pool of its own: on GStreamer 1.26 a region
   * of a pool buffer's memory shared into the GstTensorMeta's tensors
   * keeps that buffer alive (a cycle through its own meta: every output
   * leaked, seen on the Debian 13 lane). */
  if (device->pinned == NULL
      || !decide_own_pool (query, caps, video, size, device->pinned, 2))
    use_system_allocator (query);
  return TRUE;
}
