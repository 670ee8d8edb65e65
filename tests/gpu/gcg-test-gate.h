/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A stream gate for the GPU tests: work queued behind gate_close() cannot
 * start before gate_open(), so "not done yet" is a fact the test made,
 * not a race against the GPU.
 */
#pragma once

#include "gcg-stream-private.h"
#include "gcg-cuda-private.h"

/* A stream gate: a host function that holds the stream until opened, so
 * that frames pile up on the GPU as they would behind slow work. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean open;
} Gate;

static inline void
gate_init (Gate *g)
{
  g_mutex_init (&g->lock);
  g_cond_init (&g->cond);
  g->open = TRUE;
}

static inline void
gate_clear (Gate *g)
{
  g_mutex_clear (&g->lock);
  g_cond_clear (&g->cond);
}

static inline void
gate_hold (void *data)
{
  Gate *g = data;

  g_mutex_lock (&g->lock);
  while (!g->open)
    g_cond_wait (&g->cond, &g->lock);
  g_mutex_unlock (&g->lock);
}

/* Everything queued on @stream from now on waits for gate_open(). */
static inline void
gate_close (Gate *g, GcgStream *stream)
{
  g_mutex_lock (&g->lock);
  g->open = FALSE;
  g_mutex_unlock (&g->lock);
  g_assert_true (GCG_CU_OK (NULL, cuLaunchHostFunc, gcg__stream_get_cu (stream),
      gate_hold, g));
}

static inline void
gate_open (Gate *g)
{
  g_mutex_lock (&g->lock);
  g->open = TRUE;
  g_cond_broadcast (&g->cond);
  g_mutex_unlock (&g->lock);
}

static inline gboolean
gate_is_open (Gate *g)
{
  gboolean open;

  g_mutex_lock (&g->lock);
  open = g->open;
  g_mutex_unlock (&g->lock);
  return open;
}
