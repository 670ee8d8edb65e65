/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A stage: one step of a frame's work after (or before) the built-in
 * chain kernel, captured into the SAME graph as the rest of the chain.
 *
 * The model is the one of gcg-kernel-replay.c, generalised from one
 * kernel to an ordered list of stages: every stage owns a struct of
 * struct_size bytes packed into the chain's one GcgParamBlock, so a frame
 * costs one host-to-device copy from the pinned ring whatever the number
 * of stages.  Per frame, the host calls each stage's prepare() to fill its
 * struct (in pinned host memory) from the frame's values; the copy then
 * moves every struct at once.  The work itself is queued by launch(),
 * once inside a capture (graph mode) or once per frame (eager mode), and
 * always reads its struct at the SAME device address: per-frame values,
 * device pointers included, live in the struct, never in the launch, so
 * a value changing between frames never re-captures.
 *
 * What implements a stage today or soon: the user kernel (gcg-kernel-op.c,
 * issue 20) and the user's model graph as a child graph plus a copy-out
 * (issue 21).  Keep this interface small: new needs become new fields of
 * GcgFrameStageIo, appended at the end.
 */
#pragma once

#include "gcg-frame-types.h"
#include "gcg-stream.h"

G_BEGIN_DECLS

typedef struct _GcgFrameStage GcgFrameStage;

/**
 * GcgFrameValueType: (skip)
 *
 * The type of a named per-frame value.
 */
typedef enum
{
  GCG_FRAME_VALUE_NONE,
  GCG_FRAME_VALUE_INT,
  GCG_FRAME_VALUE_UINT,
  GCG_FRAME_VALUE_DOUBLE,
} GcgFrameValueType;

/* One named per-frame value as its source holds it; the stage converts
 * it to the type it declared (and refuses what does not fit). */
typedef struct
{
  GcgFrameValueType type;
  union
  {
    gint64 i;
    guint64 u;
    gdouble d;
  } v;
} GcgFrameValue;

/* Looks @name up among this frame's named values (a GcgParamsMeta key, a
 * GstStructure field: the caller decides, the engine never sees
 * GStreamer).  Fills @value and returns %TRUE when the frame has it,
 * returns %FALSE when it has not (the stage then keeps its default).
 * Called on the streaming thread: no blocking, no allocation needed. */
typedef gboolean (*GcgFrameValueLookup) (const gchar *name,
    GcgFrameValue *value, gpointer user_data);

/**
 * GcgFrameStageIo: (skip)
 * @config: the chain's configuration (sizes, formats, layout): constant
 *   for the life of the stage, given again for convenience
 * @params: this frame's values: input planes (@params->src), output
 *   planes or tensor (@params->dst), frame number, PTS, adjustments
 * @chain_out: device address of what the built-in chain wrote for this
 *   frame (its output plane 0 or tensor), 0 when the stage runs first
 *   (before the built-in op, or with no built-in op)
 * @chain_out_size: bytes at @chain_out
 * @out: device address of the buffer the stage itself writes this frame
 *   (the element's output buffer, or @chain_out when in place)
 * @out_size: bytes at @out
 * @lookup: named per-frame values, or %NULL when the frame has none
 * @lookup_data: passed to @lookup
 * @before: what the stages BEFORE the built-in op see of the same frame
 *   (their @params->dst planes are the scratch copy of the input that
 *   the built-in op reads, @out its first plane), %NULL when the chain
 *   has none; %NULL in that view itself
 * @n_items: tensor items written this frame (a chain's ROIs, a batch's
 *   items), 1 for video
 * @item_rects: the source rectangle of each of the @n_items items,
 *   clipped as the built-in op used it (a batch's in slot order), or
 *   %NULL when the engine does not give them (only the postprocess
 *   stage needs them: gcg-postprocess-stage-private.h)
 * @results: device address of this frame's results area
 *   (#GcgFrameParams.results; a batch's: its first source's), 0 for none
 * @unused_zeroed: the built-in op wrote the tensor's items past @n_items
 *   as zeros (a batch's kernel does; a chain's leaves them untouched), so
 *   the stages after it find zeros there unless one of them writes some
 *
 * What prepare() knows about one frame.  Addresses are device addresses
 * (CUDA backend only: stages never run on the CPU backend).
 */
typedef struct _GcgFrameStageIo
{
  const GcgFrameChainConfig *config;
  const GcgFrameParams *params;
  guint64 chain_out;
  gsize chain_out_size;
  guint64 out;
  gsize out_size;
  GcgFrameValueLookup lookup;
  gpointer lookup_data;
  const struct _GcgFrameStageIo *before;
  guint n_items;
  const GcgRect *item_rects;
  guint64 results;
  gboolean unused_zeroed;
} GcgFrameStageIo;

/**
 * GcgFrameStageClass: (skip)
 * @name: for errors and logs ("kernel", "model"); static string
 * @prepare: host side, once per frame, before the copy.  Fills the
 *   stage's struct at @dst (@stage->struct_size bytes, aligned to
 *   @stage->struct_align, in pinned host memory that the GPU may read
 *   later: write it, never keep the pointer) from @io.  May fail with a
 *   GError naming the stage and the value (the frame is then dropped, the
 *   graph stays valid).  Must not touch the GPU, block, or allocate per
 *   frame beyond what a GError needs.
 * @launch: queues the stage's work on @stream, reading its struct at
 *   @arg, a device address that stays the same for the life of the
 *   stream.  Called once inside a stream capture (graph mode: it must
 *   only queue capturable work — kernel launches, async copies, child
 *   graphs — and must not allocate device memory, synchronise, query the
 *   stream, or use any value that changes per frame: such values belong
 *   in the struct) or once per frame (eager mode, same code).  Module
 *   loading and function lookup happen before, in the stage's
 *   constructor, never here.
 * @free: frees the stage (after every graph that captured it is gone)
 *
 * The vtable of a stage.  Every hook is called with the stage's
 * #GcgContext current, from one thread at a time.
 */
typedef struct
{
  const gchar *name;
  gboolean (*prepare) (GcgFrameStage *stage, const GcgFrameStageIo *io,
      void *dst, GError **error);
  gboolean (*launch) (GcgFrameStage *stage, GcgStream *stream, guint64 arg,
      GError **error);
  void (*free) (GcgFrameStage *stage);
} GcgFrameStageClass;

/**
 * GcgFrameStage: (skip)
 * @klass: the stage's vtable
 * @struct_size: bytes of the stage's per-frame struct (> 0, fixed at
 *   construction)
 * @struct_align: its alignment, a power of two up to 16
 *
 * The head every stage embeds first.
 */
struct _GcgFrameStage
{
  const GcgFrameStageClass *klass;
  gsize struct_size;
  gsize struct_align;
};

/* The upper bound of one stage's struct: it is copied every frame. */
#define GCG_FRAME_STAGE_MAX_STRUCT 4096

static inline void
gcg__frame_stage_free (GcgFrameStage *stage)
{
  if (stage != NULL)
    stage->klass->free (stage);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgFrameStage, gcg__frame_stage_free)

G_END_DECLS
