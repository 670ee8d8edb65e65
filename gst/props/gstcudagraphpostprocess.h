/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

#include "gstcudagraphuserkernel.h"

G_BEGIN_DECLS

/* The postprocess after a model (issue 35): what turns the model's output
 * into results on each frame (postprocess, score-threshold,
 * iou-threshold, max-detections, top-k, softmax, num-classes,
 * labels-location, and for postprocess=user the kernel's
 * postprocess-kernel-location, -source, -entry and -params).  One
 * definition, installed on cudagraphpreprocess and
 * cudagraphbatch alike; the element keeps a GstCudaGraphPostprocess in
 * its instance, under its object lock, and hands the property ids from
 * @first on to these functions. */
typedef struct
{
  /* Properties, under the element's object lock. */
  GcgPostprocessConfig config;
  gchar *labels_location;
  /* postprocess=user: the kernel's code, entry point and declaration
   * (its source, location, entry and params; the rest unused), and from
   * start its op (kernel.op), compiled and checked
   * (gst_cuda_graph_user_kernel_start()). */
  GstCudaGraphUserKernel kernel;

  /* Set at start (gst_cuda_graph_postprocess_start()), read by the
   * streaming thread: the labels file's lines as quarks. */
  GQuark *labels;
  guint n_labels;
} GstCudaGraphPostprocess;

/* Properties it installs, from @first on. */
#define GST_CUDA_GRAPH_POSTPROCESS_N_PROPS 12

/* A labels file's limits: larger files are refused before being read. */
#define GST_CUDA_GRAPH_POSTPROCESS_MAX_LABELS_BYTES (1024 * 1024)
#define GST_CUDA_GRAPH_POSTPROCESS_MAX_LABELS 65536

void gst_cuda_graph_postprocess_install (GObjectClass *klass, guint first);
void gst_cuda_graph_postprocess_init (GstCudaGraphPostprocess *p);
/* Under the object lock.  FALSE when @prop_id is not ours; a refused
 * value is noted in *@refusal (gst_cuda_graph_refusal_report() says it
 * after unlocking) and the previous one stays. */
gboolean gst_cuda_graph_postprocess_set (GstCudaGraphPostprocess *p,
    guint first, guint prop_id, const GValue *value, gchar **refusal);
gboolean gst_cuda_graph_postprocess_get (GstCudaGraphPostprocess *p,
    guint first, guint prop_id, GValue *value);
void gst_cuda_graph_postprocess_clear (GstCudaGraphPostprocess *p);

/* The labels file's lines as quarks (*@labels freed with g_free), one per
 * line without its line end; a final line end adds no label.  Refused
 * with a G_FILE_ERROR naming @path: not a regular file, empty, larger
 * than GST_CUDA_GRAPH_POSTPROCESS_MAX_LABELS_BYTES, more than
 * GST_CUDA_GRAPH_POSTPROCESS_MAX_LABELS lines, NUL bytes or text that is
 * not UTF-8.  An empty line is a class without a name ("class-N"). */
gboolean gst_cuda_graph_postprocess_read_labels (const gchar *path,
    GQuark **labels, guint *n_labels, GError **error);

/* At start (READY -> PAUSED, without the object lock): reads the labels
 * file and checks it against num-classes, and for postprocess=user reads
 * and compiles the kernel (its entry point, declaration and code checked;
 * a model and a backend other than cpu asked for); FALSE, after posting
 * an element error naming the file or the kernel, the counts and the
 * properties, when it cannot be used. */
gboolean gst_cuda_graph_postprocess_start (GstCudaGraphPostprocess *p,
    GstElement *element);
void gst_cuda_graph_postprocess_stop (GstCudaGraphPostprocess *p);

/* Whether results are asked for (postprocess is not none), under the
 * object lock. */
gboolean gst_cuda_graph_postprocess_enabled (GstCudaGraphPostprocess *p);

/* postprocess= set while @element has no model (@has_model, under its
 * object lock): nothing to postprocess, said once at start as a warning
 * (the tensor goes out as without it). */
void gst_cuda_graph_postprocess_check_model (GstCudaGraphPostprocess *p,
    GstElement *element, gboolean (*has_model) (GstElement *element));

/* The engine's configuration, read under @element's object lock (kind
 * NONE when no postprocess is asked for; else logged): the
 * class count from num-classes, else the labels file, else @model's
 * output @config.output_index (its last dimension for classify, its
 * second less the 4 box rows for detect).  FALSE with @error when no
 * class count can be found or top-k exceeds it. */
gboolean gst_cuda_graph_postprocess_get_config (GstCudaGraphPostprocess *p,
    GstElement *element, GcgModelGraph *model, GcgPostprocessConfig *config,
    GError **error);

/* After the model is attached to a new chain or batch engine: the
 * postprocess of @config (from gst_cuda_graph_postprocess_get_config(),
 * kind not NONE), the user's kernel made at start for postprocess=user,
 * else a built-in one.  FALSE with the engine's error. */
gboolean gst_cuda_graph_postprocess_attach (GstCudaGraphPostprocess *p,
    GcgFrameBatch *engine, const GcgPostprocessConfig *config, GError **error);

G_END_DECLS
