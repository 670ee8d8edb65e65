/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

G_BEGIN_DECLS

/* The user's kernel of an element (kernel-source or kernel-location,
 * kernel-entry, kernel-params, kernel-position): run before or after the
 * element's own kernel in the same captured graph. */
typedef struct
{
  /* Properties, under the element's object lock. */
  gchar *source;
  gchar *location;
  gchar *entry;
  gchar *params;
  GcgKernelPosition position;
  /* Threads per block (x, y), 0 for the engine's default; set by
   * cudagraphkernel's block-size before start. */
  guint block[2];

  /* Streaming state: the op made at start (its code compiled and
   * checked), where it goes, and this frame's named values (a
   * GcgParamsMeta's structure) while it is processed. */
  GcgKernelOp *op;
  GcgKernelPosition at;
  const GstStructure *values;
} GstCudaGraphUserKernel;

void gst_cuda_graph_user_kernel_install (GObjectClass *klass, guint first,
    gboolean with_position);
void gst_cuda_graph_user_kernel_init (GstCudaGraphUserKernel *k);
gboolean gst_cuda_graph_user_kernel_set (GstCudaGraphUserKernel *k, guint first,
    guint prop_id, const GValue *value);
gboolean gst_cuda_graph_user_kernel_get (GstCudaGraphUserKernel *k, guint first,
    guint prop_id, GValue *value);
void gst_cuda_graph_user_kernel_clear (GstCudaGraphUserKernel *k);

gboolean gst_cuda_graph_user_kernel_check (const GstCudaGraphUserKernel *k,
    GError **error);
gboolean gst_cuda_graph_user_kernel_start (GstCudaGraphUserKernel *k,
    GstElement *element, GcgBackend backend, GcgContext *context);
void gst_cuda_graph_user_kernel_stop (GstCudaGraphUserKernel *k);
gboolean gst_cuda_graph_user_kernel_attach (GstCudaGraphUserKernel *k,
    GcgFrameBatch *engine, GError **error);
void gst_cuda_graph_user_kernel_set_frame (GstCudaGraphUserKernel *k,
    GstBuffer *buffer);

/* Properties it installs, from @first on. */
#define GST_CUDA_GRAPH_USER_KERNEL_N_PROPS 5

G_END_DECLS
