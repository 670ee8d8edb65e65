/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One kernel whose single argument is the device address of a struct in a
 * parameter block (or none: @kernel_name %NULL), followed by the stages
 * added before the first run (gcg-frame-stage-private.h), each before
 * or after the kernel, each reading
 * its own part of the same struct, run on up to 16 streams: eagerly, or captured into a
 * graph on a stream's first run and replayed afterwards.  What the frame
 * chain and the frame batch share; they differ only in the kernel, its
 * grid and the struct.
 */
#pragma once

#include "gcg-context.h"
#include "gcg-frame-chain.h"
#include "gcg-frame-stage-private.h"
#include "gcg-stream.h"

G_BEGIN_DECLS

typedef struct _GcgKernelReplay GcgKernelReplay;

GCG_PRIVATE_API GcgKernelReplay *gcg__kernel_replay_new (GcgContext *context,
    const gchar *kernel_name, const guint grid[3], const guint block[2],
    gsize arg_bytes, GError **error);

gboolean gcg__kernel_replay_open (GcgBackend *backend, GcgContext *context,
    const gchar *kernel_name, const guint grid[3], const guint block[2],
    gsize arg_bytes, GcgKernelReplay **replay, GError **error);

GCG_PRIVATE_API void gcg__kernel_replay_free (GcgKernelReplay *self);

gboolean gcg__kernel_replay_run (GcgKernelReplay *self, const void *arg,
    GcgStream *stream, gboolean use_graph, GError **error);

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
