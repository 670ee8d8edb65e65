/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-test-detect-model.h"

#include <dlfcn.h>
#include <math.h>
#include <string.h>

typedef int (*MemcpyDtoDAsync) (guint64, guint64, gsize, gpointer);
typedef int (*MemcpyHtoD) (guint64, gconstpointer, gsize);

typedef struct
{
  GcgContext *ctx;
  GcgStream *stream;
  GcgAllocator *alloc;
  GcgGraph *graph;
  guint64 in, out, src;
  gsize out_bytes;
  MemcpyDtoDAsync copy;
} Model;

gsize
gcg_test_detector_floats (const GcgTestDetector *d)
{
  return (gsize) d->items * (4 + d->n_classes) * d->n_cand;
}

static gboolean
model_body (GcgStream *stream, gpointer data, GError **error)
{
  Model *m = data;

  if (m->copy (m->out, m->src, m->out_bytes, gcg_stream_get_handle (stream))
      == 0)
    return TRUE;
  g_set_error_literal (error, GCG_ERROR, GCG_ERROR_FAILED, "copy failed");
  return FALSE;
}

static void
model_free (gpointer data)
{
  Model *m = data;

  g_clear_object (&m->graph);
  gcg_allocator_free (m->alloc, m->in);
  gcg_allocator_free (m->alloc, m->out);
  gcg_allocator_free (m->alloc, m->src);
  g_clear_object (&m->alloc);
  g_clear_object (&m->stream);
  g_clear_object (&m->ctx);
  g_free (m);
}

GcgModelGraph *
gcg_test_detector_new (const GcgTestDetector *d, const gfloat *output)
{
  g_autoptr (GError) error = NULL;
  Model *m = g_new0 (Model, 1);
  const gint64 in_shape[] = { d->items, 3, d->height, d->width };
  const gint64 out_shape[] = { d->items, 4 + d->n_classes, d->n_cand };
  gsize in_bytes = (gsize) d->items * 3 * d->width * d->height * 4;
  gpointer libcuda = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  MemcpyHtoD upload;
  GcgModelGraph *model;

  g_assert_nonnull (libcuda);
  m->copy = (MemcpyDtoDAsync) dlsym (libcuda, "cuMemcpyDtoDAsync_v2");
  upload = (MemcpyHtoD) dlsym (libcuda, "cuMemcpyHtoD_v2");
  g_assert_nonnull (m->copy);
  g_assert_nonnull (upload);
  m->out_bytes = gcg_test_detector_floats (d) * 4;
  m->ctx = gcg_context_new (0, &error);
  g_assert_no_error (error);
  m->stream = gcg_stream_new (m->ctx, &error);
  m->alloc = gcg_allocator_new (m->ctx, &error);
  g_assert_no_error (error);
  g_assert_true (gcg_allocator_alloc (m->alloc, in_bytes, NULL, &m->in,
      &error));
  g_assert_true (gcg_allocator_alloc (m->alloc, m->out_bytes, NULL, &m->out,
      &error));
  g_assert_true (gcg_allocator_alloc (m->alloc, m->out_bytes, NULL, &m->src,
      &error));
  g_assert_true (gcg_stream_synchronize (m->stream, &error));
  g_assert_true (gcg_context_push (m->ctx, &error));
  g_assert_cmpint (upload (m->src, output, m->out_bytes), ==, 0);
  g_assert_true (gcg_context_pop (m->ctx, &error));
  m->graph = gcg_capture_callable (m->stream, GCG_CAPTURE_MODE_DEFAULT,
      model_body, m, &error);
  g_assert_no_error (error);
  model = gcg_model_graph_new (m->ctx,
      (guint64) (guintptr) gcg_graph_get_graph_handle (m->graph), m, model_free,
      &error);
  g_assert_no_error (error);
  g_assert_true (gcg_model_graph_set_input (model, m->in, in_shape, 4,
      GCG_MODEL_DTYPE_FLOAT32, &error));
  g_assert_cmpint (gcg_model_graph_add_output (model, m->out, out_shape, 3,
                       GCG_MODEL_DTYPE_FLOAT32, &error),
      ==, 0);
  return model;
}

void
gcg_test_detector_config (const GcgTestDetector *d, GcgPostprocessConfig *pp)
{
  gcg_postprocess_config_init (pp);
  pp->kind = GCG_POSTPROCESS_DETECT;
  pp->n_classes = d->n_classes;
  pp->score_threshold = 0.3f;
  pp->iou_threshold = 0.45f;
  pp->max_per_item = 60;
}

/* The results area the CPU gives for the @n items at @output. */
static guint8 *
expected_area (const GcgTestDetector *d, const gfloat *output,
    const GcgRect *rects, guint n, gsize *size)
{
  g_autoptr (GError) error = NULL;
  GcgPostprocessConfig pp;
  GcgFrameItemMap maps[GCG_POSTPROCESS_MAX_ITEMS];
  guint8 *area;

  g_assert_cmpuint (n, <=, GCG_POSTPROCESS_MAX_ITEMS);
  gcg_test_detector_config (d, &pp);
  *size = gcg_postprocess_config_get_results_size (&pp, MAX (n, 1));
  area = g_malloc0 (*size);
  for (guint k = 0; k < n; k++)
    gcg_frame_item_map_init (&maps[k], &rects[k], d->width, d->height,
        GCG_LETTERBOX_SYMMETRIC);
  g_assert_true (gcg_postprocess_run_cpu (&pp, output,
      (gsize) n * (4 + d->n_classes) * d->n_cand, d->n_cand, maps, n, 0, area,
      *size, &error));
  g_assert_no_error (error);
  return area;
}

/* What the meta keeps of a result (gstcudagraphresultsmeta.c): finite
 * values, no negative size. */
static gboolean
kept (const GcgResult *r)
{
  return isfinite (r->x) && isfinite (r->y) && isfinite (r->width)
      && isfinite (r->height) && isfinite (r->confidence) && r->width >= 0
      && r->height >= 0;
}

void
gcg_test_detector_check (const GcgTestDetector *d,
    GstCudaGraphResultsMeta *meta, const gfloat *output, const GcgRect *rects,
    const gint *ids, guint n)
{
  GcgRect ordered[GCG_POSTPROCESS_MAX_ITEMS];
  g_autofree guint8 *area = NULL;
  const GcgResult *want;
  guint n_want = 0, got = 0;
  gsize size;

  g_assert_nonnull (meta);
  g_assert_cmpint (meta->kind, ==, GCG_POSTPROCESS_DETECT);
  /* The items in the element's order, each naming the ROI it was cut
   * from. */
  g_assert_cmpuint (meta->n_items, ==, n);
  for (guint k = 0; k < n; k++) {
    guint j = 0;

    while (j < n && ids[j] != meta->items[k].roi_id)
      j++;
    g_assert_cmpuint (j, <, n);
    ordered[k] = rects[j];
  }
  area = expected_area (d, output, ordered, n, &size);
  want = gcg_frame_results_get (area, size, &n_want);
  g_assert_nonnull (want);
  g_assert_cmpuint (n_want, >, 0);
  for (guint k = 0; k < n_want; k++) {
    GcgResult a, b = want[k];

    if (!kept (&b))
      continue;
    g_assert_cmpuint (got, <, meta->n_results);
    a = meta->results[got++];
    if (memcmp (&a, &b, sizeof (a)) != 0)
      g_error ("result %u: GPU %g %g %g %g %g %d %u, CPU %g %g %g %g %g %d %u",
          k, a.x, a.y, a.width, a.height, a.confidence, a.label, a.item, b.x,
          b.y, b.width, b.height, b.confidence, b.label, b.item);
  }
  g_assert_cmpuint (got, ==, meta->n_results);
}
