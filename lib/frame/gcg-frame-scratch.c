/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-frame-scratch-private.h"
#include "gcg-context-private.h"
#include "gcg-error.h"
#include "gcg-frame-private.h"

#include <string.h>

#define PITCH_ALIGN 256
#define MAX_STREAMS 16          /* as a chain's replay */

typedef struct
{
  GcgStream *stream;
  CUdeviceptr base;
} ScratchSlot;

struct _GcgFrameScratch
{
  GcgContext *context;
  guint n_planes;
  gint pitch[3];
  gsize offset[3];
  gsize size;
  GArray *slots;                /* ScratchSlot */
  /* The frame as the stages before the op see it: only the fields a
   * stage reads are refreshed per frame (no 1 KiB copy of the ROIs). */
  GcgFrameParams view;
};

static gsize
round_up (gsize value, gsize align)
{
  return (value + align - 1) / align * align;
}

/* Lays the planes of @config's input out one after the other; fails when
 * the whole exceeds the bound. */
static gboolean
lay_out (GcgFrameScratch *self, const GcgFrameChainConfig *config,
    GError **error)
{
  self->n_planes = gcg__pixel_format_n_planes (config->in_format);
  for (guint i = 0; i < self->n_planes; i++) {
    gsize pitch = round_up (gcg__pixel_format_row_bytes (config->in_format, i,
                                config->in_width),
        PITCH_ALIGN);

    self->pitch[i] = (gint) pitch;
    self->offset[i] = self->size;
    self->size += pitch
        * gcg__pixel_format_plane_height (config->in_format, i,
            config->in_height);
  }
  if (self->size > GCG_FRAME_SCRATCH_MAX_BYTES) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A kernel before the built-in op needs a scratch copy of the input "
        "of %" G_GSIZE_FORMAT " bytes, more than the %" G_GSIZE_FORMAT
        " allowed",
        self->size, GCG_FRAME_SCRATCH_MAX_BYTES);
    return FALSE;
  }
  return TRUE;
}

void
gcg__frame_scratch_free (GcgFrameScratch *self)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  gboolean current;

  if (self == NULL)
    return;
  current = self->slots->len > 0
      && gcg__context_guard_enter (&guard, self->context, NULL);
  for (guint i = 0; i < self->slots->len; i++) {
    ScratchSlot *slot = &g_array_index (self->slots, ScratchSlot, i);

    if (current)
      GCG_CU_WARN (cuMemFree, slot->base);
    g_object_unref (slot->stream);
  }
  g_array_unref (self->slots);
  g_object_unref (self->context);
  g_free (self);
}

/* Nothing is allocated here: each stream's copy comes with its first
 * frame (the chain may never run). */
GcgFrameScratch *
gcg__frame_scratch_new (GcgContext *context, const GcgFrameChainConfig *config,
    GError **error)
{
  g_autoptr (GcgFrameScratch) self = g_new0 (GcgFrameScratch, 1);

  self->context = g_object_ref (context);
  self->slots = g_array_new (FALSE, TRUE, sizeof (ScratchSlot));
  if (!lay_out (self, config, error))
    return NULL;
  return g_steal_pointer (&self);
}

/* @stream's copy, allocated on its first frame. */
static CUdeviceptr
get_base (GcgFrameScratch *self, GcgStream *stream, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  ScratchSlot slot = { 0 };

  for (guint i = 0; i < self->slots->len; i++) {
    if (g_array_index (self->slots, ScratchSlot, i).stream == stream)
      return g_array_index (self->slots, ScratchSlot, i).base;
  }
  if (self->slots->len >= MAX_STREAMS) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "One frame chain serves at most %d streams", MAX_STREAMS);
    return 0;
  }
  if (!gcg__context_guard_enter (&guard, self->context, error)
      || !GCG_CU_OK (error, cuMemAlloc, &slot.base, self->size)) {
    g_prefix_error (error,
        "The scratch copy of the input (%" G_GSIZE_FORMAT
        " bytes) for a kernel before the built-in op: ",
        self->size);
    return 0;
  }
  slot.stream = g_object_ref (stream);
  g_array_append_val (self->slots, slot);
  return slot.base;
}

/* Points the built-in op's source planes (@kp, prepared for this frame)
 * at @stream's scratch copy and fills @before, the view of the stages
 * before the op: they read the input (@params->src) and write the
 * scratch (their dst planes).  @io is the chain's view of the frame.
 * Allocates only on a stream's first frame. */
gboolean
gcg__frame_scratch_redirect (GcgFrameScratch *self, GcgStream *stream,
    const GcgFrameParams *params, GcgFrameKernelParams *kp,
    const GcgFrameStageIo *io, GcgFrameStageIo *before, GError **error)
{
  CUdeviceptr base = get_base (self, stream, error);
  GcgFrameParams *view = &self->view;

  if (base == 0)
    return FALSE;
  for (guint i = 0; i < 3; i++) {
    gboolean used = i < self->n_planes;

    view->src[i] = params->src[i];
    view->src_stride[i] = params->src_stride[i];
    view->dst[i] = used ? base + self->offset[i] : 0;
    view->dst_stride[i] = used ? self->pitch[i] : 0;
    kp->src[i] = view->dst[i];
    kp->src_stride[i] = view->dst_stride[i];
  }
  view->frame_number = params->frame_number;
  view->pts = params->pts;
  *before = *io;
  before->params = view;
  before->chain_out = 0;
  before->chain_out_size = 0;
  before->out = base;
  before->out_size = self->size;
  before->before = NULL;
  return TRUE;
}
