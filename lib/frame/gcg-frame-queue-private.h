/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gcg-frame-queue.h"

G_BEGIN_DECLS

/* How a slot's completion is recorded and observed.  The queue uses CUDA
 * events on a GPU and "done at once" on the CPU backend; unit tests plug
 * in a fake that completes frames when the test says, to check the slot
 * logic without a GPU. */
typedef enum
{
  GCG_COMPLETION_PENDING,
  GCG_COMPLETION_DONE,
  GCG_COMPLETION_FAILED,
} GcgCompletion;

typedef struct
{
  /* Marks the end of the work just queued for @slot. */
  gboolean (*record) (gpointer data, guint slot, GError **error);
  /* Whether @slot's work is done; FAILED sets @error. */
  GcgCompletion (*query) (gpointer data, guint slot, GError **error);
  /* Blocks until @slot's work is done; FALSE (error set) when it failed.
   * Called from any thread. */
  gboolean (*wait) (gpointer data, guint slot, GError **error);
} GcgCompletionOps;

GCG_PRIVATE_API void gcg__frame_queue_set_completion (GcgFrameQueue *self,
    const GcgCompletionOps *ops, gpointer data);

/* Whether a CUDA queue's frames and batches are seen done through their
 * stream's completion mark (default: GCG_COMPLETION, graph unless it says
 * event), set before the first frame; and how many frames were. */
GCG_PRIVATE_API void gcg__frame_queue_set_marks (GcgFrameQueue *self,
    gboolean use);

GCG_PRIVATE_API guint64 gcg__frame_queue_get_marked (GcgFrameQueue *self);

/* How many later frames a CPU-backend frame of a new queue reads as
 * pending.  None in the library (0: done at once); lib/testing, linked by
 * tests only, sets one that reads GCG_CPU_COMPLETION_DELAY, so that the
 * in-flight depth is tested without a GPU. */
typedef guint64 (*GcgCpuDelayHook) (void);

GCG_PRIVATE_API void gcg__frame_queue_set_cpu_delay_hook (GcgCpuDelayHook hook);

G_END_DECLS
