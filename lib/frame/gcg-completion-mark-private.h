/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A stream's completion mark: a one-thread kernel, the last node of every
 * replay (and the last launch of every eager run) on the stream, counts
 * the runs the device has finished and writes the count into a word of
 * pinned host memory.  The host counts the runs it queued with a mark;
 * a run is done once the word has reached its count, which the host reads
 * without a driver call.  Runs on one stream finish in order, so one word
 * serves every run in flight.  The mark takes no per-frame values: the
 * captured node's arguments never change, and nothing is set on the graph
 * for it per frame.
 */
#pragma once

#include "gcg-stream.h"

G_BEGIN_DECLS

typedef struct _GcgCompletionMark GcgCompletionMark;

GCG_PRIVATE_API GcgCompletionMark *gcg__completion_mark_ensure (
    GcgStream *stream, GError **error);

GCG_PRIVATE_API GcgCompletionMark *gcg__completion_mark_peek (
    GcgStream *stream);

gboolean gcg__completion_mark_launch (GcgCompletionMark *self,
    GcgStream *stream, GError **error);

void gcg__completion_mark_issued (GcgCompletionMark *self);

GCG_PRIVATE_API guint32
gcg__completion_mark_get_issued (const GcgCompletionMark *self);

GCG_PRIVATE_API gboolean
gcg__completion_mark_reached (const GcgCompletionMark *self, guint32 count);

GCG_PRIVATE_API gboolean gcg__completion_mark_wait (GcgCompletionMark *self,
    guint32 count, GcgSyncMode mode, GError **error);

G_END_DECLS
