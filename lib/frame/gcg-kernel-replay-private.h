/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One kernel whose single argument is a struct, by value (@value_bytes,
 * its size, not 0) or as the device address of its copy in a parameter
 * block (@value_bytes 0), or no kernel (@kernel_name %NULL), with the stages
 * added before the first run (gcg-frame-stage-private.h), each before
 * or after the kernel, each reading
 * its own part of the same struct, run on up to 16 streams: eagerly, or captured into a
 * graph on a stream's first run and replayed afterwards.  What the frame
 * chain and the frame batch share; they differ only in the kernel, its
 * grid and the struct.  A run's @arg is the kernel's struct: @arg_bytes
 * of it reach the device in a block, or @value_bytes are read from it
 * when the kernel takes it by value.
 */
#pragma once

#include "gcg-context.h"
#include "gcg-frame-types.h"
#include "gcg-frame-stage-private.h"
#include "gcg-stream.h"

G_BEGIN_DECLS

typedef struct _GcgKernelReplay GcgKernelReplay;

GCG_PRIVATE_API GcgKernelReplay *gcg__kernel_replay_new (GcgContext *context,
    const gchar *kernel_name, const guint grid[3], const guint block[2],
    gsize arg_bytes, gsize value_bytes, GError **error);

gboolean gcg__kernel_replay_open (GcgBackend *backend, GcgContext *context,
    const gchar *kernel_name, const guint grid[3], const guint block[2],
    gsize arg_bytes, gsize value_bytes, GcgKernelReplay **replay,
    GError **error);

GCG_PRIVATE_API void gcg__kernel_replay_free (GcgKernelReplay *self);

GCG_PRIVATE_API gboolean gcg__kernel_replay_add_stage (GcgKernelReplay *self,
    GcgFrameStage *stage, GError **error);

GCG_PRIVATE_API gboolean gcg__kernel_replay_add_stage_at (GcgKernelReplay *self,
    GcgFrameStage *stage, gboolean before, GError **error);

GCG_PRIVATE_API GcgContext *gcg__kernel_replay_get_context (
    const GcgKernelReplay *self);

GCG_PRIVATE_API gboolean gcg__kernel_replay_run_io (GcgKernelReplay *self,
    const void *arg, const GcgFrameStageIo *io, GcgStream *stream,
    gboolean use_graph, GError **error);

GCG_PRIVATE_API GcgContext *gcg__kernel_replay_get_context (
    const GcgKernelReplay *self);
GCG_PRIVATE_API guint64
gcg__kernel_replay_get_captures (const GcgKernelReplay *self);
GCG_PRIVATE_API guint64
gcg__kernel_replay_get_replays (const GcgKernelReplay *self);
GCG_PRIVATE_API guint64
gcg__kernel_replay_get_eager (const GcgKernelReplay *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgKernelReplay, gcg__kernel_replay_free)

G_END_DECLS
