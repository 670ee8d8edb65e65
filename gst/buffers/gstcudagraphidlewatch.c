/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An output held for its frame's results used to leave only when a later
 * input found its frame done: a request-response pipeline (appsrc pushing
 * one frame and waiting for its answer) never got it, and a live camera
 * got it a frame interval late.  The watch is the other way out: armed by
 * the streaming thread each time it leaves outputs held, it calls its
 * function once no new arming has come for @delay µs, i.e. once input
 * has paused.  While frames keep coming faster than that the function is
 * never called and the streaming thread keeps the GPU's frames in flight
 * undisturbed; arming is a mutex and a clock read, a signal only when the
 * watch was idle.
 */
#include "gstcudagraphidlewatch.h"

#include <string.h>

void
gst_cuda_graph_idle_watch_init (GstCudaGraphIdleWatch *watch)
{
  memset (watch, 0, sizeof (*watch));
  g_mutex_init (&watch->lock);
  g_cond_init (&watch->cond);
}

void
gst_cuda_graph_idle_watch_clear (GstCudaGraphIdleWatch *watch)
{
  gst_cuda_graph_idle_watch_stop (watch);
  g_mutex_clear (&watch->lock);
  g_cond_clear (&watch->cond);
}

static gpointer
watch_thread (gpointer data)
{
  GstCudaGraphIdleWatch *watch = data;

  g_mutex_lock (&watch->lock);
  while (!watch->stop) {
    gint64 due = watch->due;

    if (due == 0) {
      g_cond_wait (&watch->cond, &watch->lock);
    } else if (g_get_monotonic_time () < due) {
      /* A later arming moves @due on: we come back and wait again. */
      g_cond_wait_until (&watch->cond, &watch->lock, due);
    } else {
      watch->due = 0;
      g_mutex_unlock (&watch->lock);
      watch->func (watch->user_data);
      g_mutex_lock (&watch->lock);
    }
  }
  g_mutex_unlock (&watch->lock);
  return NULL;
}

gboolean
gst_cuda_graph_idle_watch_start (GstCudaGraphIdleWatch *watch,
    const gchar *name, gint64 delay_us, GstCudaGraphIdleFunc func,
    gpointer user_data, GError **error)
{
  g_return_val_if_fail (watch->thread == NULL, FALSE);

  watch->stop = FALSE;
  watch->due = 0;
  watch->delay = MAX (delay_us, 1);
  watch->func = func;
  watch->user_data = user_data;
  watch->thread = g_thread_try_new (name, watch_thread, watch, error);
  return watch->thread != NULL;
}

/* Returns once the function is no longer running and will not be called
 * again; the caller must not hold what the function takes. */
void
gst_cuda_graph_idle_watch_stop (GstCudaGraphIdleWatch *watch)
{
  if (watch->thread == NULL)
    return;
  g_mutex_lock (&watch->lock);
  watch->stop = TRUE;
  g_cond_signal (&watch->cond);
  g_mutex_unlock (&watch->lock);
  g_thread_join (watch->thread);
  watch->thread = NULL;
}

void
gst_cuda_graph_idle_watch_arm (GstCudaGraphIdleWatch *watch)
{
  gboolean idle;

  if (watch->thread == NULL)
    return;
  g_mutex_lock (&watch->lock);
  idle = watch->due == 0;
  watch->due = g_get_monotonic_time () + watch->delay;
  if (idle)
    g_cond_signal (&watch->cond);
  g_mutex_unlock (&watch->lock);
}
