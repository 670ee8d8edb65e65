/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pageable input at pinned speed: upstreams that ignore the pinned pool
 * we propose (appsrc, decoders with pools of their own) still usually
 * send the same few buffers round and round.  The memory of such a
 * buffer is registered with the driver once (page-locked, so the upload
 * is DMA and needs no CPU copy into staging) and the registration rides
 * on the GstMemory as qdata: it lives exactly as long as that memory, so
 * memory freed and allocated again at the same address is never taken for
 * registered.  Only buffers from a buffer pool are registered (a buffer
 * made per frame would cost a registration per frame, far more than the
 * copy); registering fails past the process's bound (lib's
 * GcgHostRegistration) or when the driver refuses, and then, remembered
 * on the memory, the frame is copied as before.
 */
#include "gstcudagraphhostregister.h"
#include "gstcudagraphdebug.h"

#include <gcg/gcg-internal.h>

static GstDebugCategory *host_register_debug;
#define GST_CAT_DEFAULT \
  gst_cuda_graph_debug_category (&host_register_debug, \
      "cudagraphhostregister", "cudagraph host memory registration")

/* The qdata of a memory we tried: a registration, or REFUSED. */
#define REFUSED ((gpointer) 1)

static G_DEFINE_QUARK (gst-cuda-graph-registration, registration);

static void
registration_free (gpointer data)
{
  if (data != REFUSED)
    gcg__host_registration_free (data);
}

/* Registers all of @mem once (first sight), remembering the outcome on
 * it.  Serialised: two elements must not both register one memory. */
static gboolean
register_memory (GstMemory *mem, GcgContext *context)
{
  static GMutex lock;
  g_autoptr (GError) error = NULL;
  gpointer done, reg = REFUSED;
  GstMapInfo map;

  g_mutex_lock (&lock);
  done =
      gst_mini_object_get_qdata (GST_MINI_OBJECT (mem), registration_quark ());
  if (done == NULL && gst_memory_map (mem, &map, GST_MAP_READ)) {
    /* The whole allocation (system memory keeps its address for its whole
     * life), so that a later resize of the memory stays inside it. */
    reg = gcg__host_registration_new (context, map.data - mem->offset,
        mem->maxsize, &error);
    gst_memory_unmap (mem, &map);
    if (reg == NULL) {
      GST_INFO ("copying frames of memory %p: %s", mem, error->message);
      reg = REFUSED;
    }
    gst_mini_object_set_qdata (GST_MINI_OBJECT (mem), registration_quark (),
        reg, registration_free);
    done = reg;
  }
  g_mutex_unlock (&lock);
  return done != NULL && done != REFUSED;
}

/* Whether @buffer is host memory the GPU may read by DMA: one plain
 * system memory of its own (not a share of another), from a buffer pool,
 * registered with the driver (now, on first sight, or before). */
gboolean
gst_cuda_graph_register_input (GstBuffer *buffer, GcgContext *context)
{
  GstMemory *mem;
  gpointer done;

  if (context == NULL || buffer->pool == NULL
      || gst_buffer_n_memory (buffer) != 1)
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  if (mem->parent != NULL || !gst_memory_is_type (mem, GST_ALLOCATOR_SYSMEM))
    return FALSE;
  done =
      gst_mini_object_get_qdata (GST_MINI_OBJECT (mem), registration_quark ());
  if (done != NULL)
    return done != REFUSED;
  return register_memory (mem, context);
}
