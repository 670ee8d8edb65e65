/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef void (*GstCudaGraphIdleFunc) (gpointer user_data);

/* A thread that calls a function once the streaming thread has been idle
 * for a while after arming it (gstcudagraphidlewatch.c). */
typedef struct
{
  GMutex lock;
  GCond cond;
  GThread *thread;
  gboolean stop;
  gint64 due;                   /* monotonic µs; 0: not armed */
  gint64 delay;                 /* µs */
  GstCudaGraphIdleFunc func;
  gpointer user_data;
} GstCudaGraphIdleWatch;

void gst_cuda_graph_idle_watch_init (GstCudaGraphIdleWatch *watch);
void gst_cuda_graph_idle_watch_clear (GstCudaGraphIdleWatch *watch);
gboolean gst_cuda_graph_idle_watch_start (GstCudaGraphIdleWatch *watch,
    const gchar *name, gint64 delay_us, GstCudaGraphIdleFunc func,
    gpointer user_data, GError **error);
void gst_cuda_graph_idle_watch_stop (GstCudaGraphIdleWatch *watch);
void gst_cuda_graph_idle_watch_arm (GstCudaGraphIdleWatch *watch);

G_END_DECLS
