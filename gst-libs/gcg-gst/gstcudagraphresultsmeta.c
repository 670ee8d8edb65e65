/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gstcudagraphresultsmeta
 * @title: GstCudaGraphResultsMeta
 * @short_description: a frame's detections or classes, from the
 *   postprocess after the model
 *
 * See #GstCudaGraphResultsMeta.  gst_cuda_graph_buffer_add_results() adds
 * it, and, where the library was built against GStreamer 1.24 or newer
 * with its analytics library (gst_cuda_graph_results_have_analytics()),
 * the same results as a `GstAnalyticsRelationMeta`: one
 * `GstAnalyticsODMtd` per detection, one `GstAnalyticsClsMtd` per
 * classified item (its top-k), and for each item cut from a
 * #GstVideoRegionOfInterestMeta an `GstAnalyticsODMtd` of that region
 * (its type the ROI's) that a detection IS_PART_OF (and that CONTAINs it)
 * or that a classification is RELATE_TO, as GStreamer's analytics
 * documentation relates a region to its classes.
 *
 * Every input is checked once, here: a box or confidence that is not a
 * finite number, a negative size or a coordinate past ±2^30 pixels drops
 * that result; a class index the labels do not cover is named
 * "class-N" (N from 0 to 65535; "class-invalid" past that, so a lying
 * engine cannot make unbounded quarks); counts past the maxima
 * (%GST_CUDA_GRAPH_RESULTS_META_MAX_RESULTS, ...) are cut there.
 *
 * Since: 0.3
 */
#include "gstcudagraphresultsmeta.h"

#include <math.h>
#include <string.h>

#if defined(GCG_GST_HAVE_ANALYTICS) && GST_CHECK_VERSION(1, 24, 0)
#define WITH_ANALYTICS 1
#include <gst/analytics/analytics.h>
#endif

/* Past this a coordinate is no frame's: it also keeps the integer
 * conversion for the analytics boxes in range. */
#define MAX_COORD 1073741824.0f

typedef struct
{
  guint n_results;
  guint n_items;
} ResultsMetaParams;

/**
 * gst_cuda_graph_results_meta_api_get_type:
 *
 * The API type of #GstCudaGraphResultsMeta, for gst_buffer_get_meta().
 *
 * Returns: the #GstCudaGraphResultsMeta API type, registered on first use
 *
 * Since: 0.3
 */
GType
gst_cuda_graph_results_meta_api_get_type (void)
{
  static GType type = 0;
  /* No tag: the results describe the frame's content, not the bytes of
   * the buffer, so memory and format changes keep them. */
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter (&type)) {
    GType t =
        gst_meta_api_type_register (GST_CUDA_GRAPH_RESULTS_META_API_NAME, tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
results_meta_init (GstMeta *meta, gpointer params, GstBuffer *buffer)
{
  GstCudaGraphResultsMeta *rmeta = (GstCudaGraphResultsMeta *) meta;
  const ResultsMetaParams *p = params;
  guint n_results = p ? p->n_results : 0, n_items = p ? p->n_items : 0;

  memset ((guint8 *) rmeta + sizeof (GstMeta), 0,
      sizeof (*rmeta) - sizeof (GstMeta));
  if (n_results > GST_CUDA_GRAPH_RESULTS_META_MAX_RESULTS
      || n_items > GST_CUDA_GRAPH_RESULTS_META_MAX_ITEMS)
    return FALSE;
  rmeta->results = g_new0 (GcgResult, MAX (n_results, 1));
  rmeta->labels = g_new0 (GQuark, MAX (n_results, 1));
  rmeta->items = g_new0 (GstCudaGraphResultsItem, MAX (n_items, 1));
  rmeta->n_results = rmeta->n_results_allocated = n_results;
  rmeta->n_items = rmeta->n_items_allocated = n_items;
  return TRUE;
}

static void
results_meta_free (GstMeta *meta, GstBuffer *buffer)
{
  GstCudaGraphResultsMeta *rmeta = (GstCudaGraphResultsMeta *) meta;

  g_free (rmeta->results);
  g_free (rmeta->labels);
  g_free (rmeta->items);
}

/* The meta with room for @n_results and @n_items, all zero. */
static GstCudaGraphResultsMeta *
add_empty (GstBuffer *buffer, guint n_results, guint n_items)
{
  ResultsMetaParams p = { n_results, n_items };

  return (GstCudaGraphResultsMeta *) gst_buffer_add_meta (buffer,
      gst_cuda_graph_results_meta_get_info (), &p);
}

static gboolean
results_meta_transform (GstBuffer *dest, GstMeta *meta, GstBuffer *buffer,
    GQuark type, gpointer data)
{
  GstCudaGraphResultsMeta *src = (GstCudaGraphResultsMeta *) meta;
  GstCudaGraphResultsMeta *dst;
  /* The public counts may have been changed: never past the arrays. */
  guint n_results = MIN (src->n_results, src->n_results_allocated);
  guint n_items = MIN (src->n_items, src->n_items_allocated);

  /* Boxes in source-frame pixels stay true through any copy (a region
   * of a tensor buffer included); a scale or other transform would
   * move them, so it drops the meta. */
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  dst = add_empty (dest, n_results, n_items);
  if (dst == NULL)
    return FALSE;
  dst->kind = src->kind;
  memcpy (dst->results, src->results, n_results * sizeof (GcgResult));
  memcpy (dst->labels, src->labels, n_results * sizeof (GQuark));
  memcpy (dst->items, src->items, n_items * sizeof (GstCudaGraphResultsItem));
  return TRUE;
}

/**
 * gst_cuda_graph_results_meta_get_info:
 *
 * The meta's implementation; callers add it with
 * gst_cuda_graph_buffer_add_results_meta().
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstCudaGraphResultsMeta,
 *   registered on first use
 *
 * Since: 0.3
 */
const GstMetaInfo *
gst_cuda_graph_results_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) &info)) {
    const GstMetaInfo *mi =
        gst_meta_register (gst_cuda_graph_results_meta_api_get_type (),
            "GstCudaGraphResultsMeta", sizeof (GstCudaGraphResultsMeta),
            results_meta_init, results_meta_free, results_meta_transform);
    g_once_init_leave ((GstMetaInfo **) &info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_cuda_graph_results_label_quark:
 * @labels: (array length=n_labels) (nullable): a quark per class, 0 for
 *   a class without a name
 * @n_labels: number of @labels
 * @label: a class index
 *
 * The name of class @label: its entry of @labels when there is one
 * (not 0), "class-@label" for an index from 0 to 65535 otherwise,
 * "class-invalid" past that (a bounded number of quarks, whatever the
 * engine writes).
 *
 * Returns: the class's name as a #GQuark
 *
 * Since: 0.3
 */
GQuark
gst_cuda_graph_results_label_quark (const GQuark *labels, guint n_labels,
    gint label)
{
  gchar name[32];

  if (labels != NULL && label >= 0 && (guint) label < n_labels
      && (guint) label < GST_CUDA_GRAPH_RESULTS_META_MAX_LABELS
      && labels[label] != 0)
    return labels[label];
  if (label < 0 || label >= GST_CUDA_GRAPH_RESULTS_META_MAX_LABELS)
    return g_quark_from_static_string ("class-invalid");
  g_snprintf (name, sizeof (name), "class-%d", label);
  return g_quark_from_string (name);
}

/* Whether @r is a result worth keeping: a finite box of a non-negative
 * size within ±2^30 pixels, a finite confidence. */
static gboolean
result_is_valid (const GcgResult *r)
{
  const gfloat v[] = { r->x, r->y, r->width, r->height };

  for (guint i = 0; i < G_N_ELEMENTS (v); i++) {
    if (!isfinite (v[i]) || fabsf (v[i]) > MAX_COORD)
      return FALSE;
  }
  return isfinite (r->confidence) && r->width >= 0 && r->height >= 0;
}

/* @item with a rectangle that is finite, of a non-negative size. */
static void
copy_item (GstCudaGraphResultsItem *dst, const GstCudaGraphResultsItem *src)
{
  gfloat *v[] = { &dst->x, &dst->y, &dst->width, &dst->height };

  *dst = *src;
  dst->roi_id = MAX (src->roi_id, -1);
  for (guint i = 0; i < G_N_ELEMENTS (v); i++) {
    if (!isfinite (*v[i]) || fabsf (*v[i]) > MAX_COORD)
      *v[i] = 0;
  }
  dst->width = MAX (dst->width, 0);
  dst->height = MAX (dst->height, 0);
}

/**
 * gst_cuda_graph_buffer_add_results_meta:
 * @buffer: a writable #GstBuffer
 * @kind: the postprocess that gave @results (not %GCG_POSTPROCESS_NONE)
 * @results: (array length=n_results) (nullable): the frame's results, as
 *   the engine wrote them
 * @n_results: number of @results
 * @labels: (array length=n_labels) (nullable): the class names, a quark
 *   per class index (0 for a class without a name)
 * @n_labels: number of @labels
 * @items: (array length=n_items) (nullable): the items the results came
 *   from, indexed by #GcgResult.item
 * @n_items: number of @items
 *
 * Adds a #GstCudaGraphResultsMeta holding the valid ones of @results
 * (see the section's description for what is dropped), each with its
 * class name, and @items.  Only this meta: the elements call
 * gst_cuda_graph_buffer_add_results(), which adds GStreamer's analytics
 * meta too.
 *
 * Returns: (transfer none) (nullable): the meta added, or %NULL when it
 *   could not be
 *
 * Since: 0.3
 */
GstCudaGraphResultsMeta *
gst_cuda_graph_buffer_add_results_meta (GstBuffer *buffer,
    GcgPostprocessKind kind, const GcgResult *results, guint n_results,
    const GQuark *labels, guint n_labels, const GstCudaGraphResultsItem *items,
    guint n_items)
{
  GstCudaGraphResultsMeta *meta;
  guint kept = 0, k = 0;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (kind > GCG_POSTPROCESS_NONE
          && kind <= GCG_POSTPROCESS_USER,
      NULL);
  g_return_val_if_fail (results != NULL || n_results == 0, NULL);
  g_return_val_if_fail (labels != NULL || n_labels == 0, NULL);
  g_return_val_if_fail (items != NULL || n_items == 0, NULL);

  n_items = MIN (n_items, GST_CUDA_GRAPH_RESULTS_META_MAX_ITEMS);
  for (guint i = 0; i < n_results; i++)
    kept += result_is_valid (&results[i]);
  kept = MIN (kept, GST_CUDA_GRAPH_RESULTS_META_MAX_RESULTS);
  meta = add_empty (buffer, kept, n_items);
  if (meta == NULL)
    return NULL;
  meta->kind = kind;
  for (guint i = 0; i < n_results && k < kept; i++) {
    if (!result_is_valid (&results[i]))
      continue;
    meta->results[k] = results[i];
    meta->results[k].reserved = 0;
    meta->labels[k++] =
        gst_cuda_graph_results_label_quark (labels, n_labels, results[i].label);
  }
  for (guint i = 0; i < n_items; i++)
    copy_item (&meta->items[i], &items[i]);
  return meta;
}

#ifdef WITH_ANALYTICS
/* A box in whole pixels, as GstAnalyticsODMtd holds it (the meta's
 * values lie within ±2^30). */
static gboolean
add_od (GstAnalyticsRelationMeta *rmeta, GQuark type, gfloat x, gfloat y,
    gfloat w, gfloat h, gfloat confidence, guint *id)
{
  GstAnalyticsODMtd od;

  if (!gst_analytics_relation_meta_add_od_mtd (rmeta, type, (gint) lrintf (x),
          (gint) lrintf (y), (gint) lrintf (w), (gint) lrintf (h), confidence,
          &od))
    return FALSE;
  *id = od.id;
  return TRUE;
}

/* An ODMtd for each item cut from a ROI (its id in @roi_od), G_MAXUINT
 * for the others. */
static void
add_roi_regions (GstAnalyticsRelationMeta *rmeta,
    const GstCudaGraphResultsMeta *meta, guint *roi_od)
{
  for (guint i = 0; i < meta->n_items; i++) {
    const GstCudaGraphResultsItem *it = &meta->items[i];

    roi_od[i] = G_MAXUINT;
    if (it->roi_id < 0)
      continue;
    if (!add_od (rmeta,
            it->roi_type ? it->roi_type : g_quark_from_static_string ("roi"),
            it->x, it->y, it->width, it->height, 1.0f, &roi_od[i]))
      roi_od[i] = G_MAXUINT;
  }
}

/* The item a result came from, or G_MAXUINT when none is known. */
static guint
roi_of (const GstCudaGraphResultsMeta *meta, const guint *roi_od, guint r)
{
  guint item = meta->results[r].item;

  return item < meta->n_items ? roi_od[item] : G_MAXUINT;
}

static void
add_detections (GstAnalyticsRelationMeta *rmeta,
    const GstCudaGraphResultsMeta *meta, const guint *roi_od)
{
  for (guint i = 0; i < meta->n_results; i++) {
    const GcgResult *r = &meta->results[i];
    guint id = 0, roi = roi_of (meta, roi_od, i);

    if (!add_od (rmeta, meta->labels[i], r->x, r->y, r->width, r->height,
            r->confidence, &id)
        || roi == G_MAXUINT)
      continue;
    gst_analytics_relation_meta_set_relation (rmeta,
        GST_ANALYTICS_REL_TYPE_IS_PART_OF, id, roi);
    gst_analytics_relation_meta_set_relation (rmeta,
        GST_ANALYTICS_REL_TYPE_CONTAIN, roi, id);
  }
}

/* The results' indices ordered by item (results of no known item last,
 * as one more item), stable; @start[j] is where item j's begin, for j
 * from 0 to n_items + 1.  A counting sort: linear in the counts. */
static guint *
order_by_item (const GstCudaGraphResultsMeta *meta, guint *start)
{
  guint *order = g_new (guint, MAX (meta->n_results, 1));
  g_autofree guint *next = g_new0 (guint, meta->n_items + 1);

  for (guint i = 0; i < meta->n_results; i++)
    start[MIN (meta->results[i].item, meta->n_items) + 1]++;
  for (guint j = 0; j <= meta->n_items; j++) {
    start[j + 1] += start[j];
    next[j] = start[j];
  }
  for (guint i = 0; i < meta->n_results; i++)
    order[next[MIN (meta->results[i].item, meta->n_items)]++] = i;
  return order;
}

/* One ClsMtd per item: its results (top-k, at most
 * GCG_RESULT_MAX_PER_ITEM), in the meta's order; results of no known
 * item form one more.  An item cut from a ROI: its region RELATE_TO the
 * classes. */
static void
add_classes (GstAnalyticsRelationMeta *rmeta,
    const GstCudaGraphResultsMeta *meta, const guint *roi_od)
{
  g_autofree guint *start = g_new0 (guint, meta->n_items + 2);
  g_autofree guint *order = order_by_item (meta, start);
  gfloat levels[GCG_RESULT_MAX_PER_ITEM];
  GQuark quarks[GCG_RESULT_MAX_PER_ITEM];

  for (guint item = 0; item <= meta->n_items; item++) {
    GstAnalyticsClsMtd cls;
    gsize n = MIN (start[item + 1] - start[item], G_N_ELEMENTS (levels));

    for (gsize k = 0; k < n; k++) {
      levels[k] = meta->results[order[start[item] + k]].confidence;
      quarks[k] = meta->labels[order[start[item] + k]];
    }
    if (n == 0
        || !gst_analytics_relation_meta_add_cls_mtd (rmeta, n, levels, quarks,
            &cls))
      continue;
    if (item < meta->n_items && roi_od[item] != G_MAXUINT)
      gst_analytics_relation_meta_set_relation (rmeta,
          GST_ANALYTICS_REL_TYPE_RELATE_TO, roi_od[item], cls.id);
  }
}

static void
add_analytics (GstBuffer *buffer, const GstCudaGraphResultsMeta *meta)
{
  GstAnalyticsRelationMeta *rmeta =
      gst_buffer_get_analytics_relation_meta (buffer);
  g_autofree guint *roi_od = g_new (guint, MAX (meta->n_items, 1));

  if (rmeta == NULL)
    rmeta = gst_buffer_add_analytics_relation_meta (buffer);
  if (rmeta == NULL)
    return;
  add_roi_regions (rmeta, meta, roi_od);
  if (meta->kind == GCG_POSTPROCESS_CLASSIFY)
    add_classes (rmeta, meta, roi_od);
  else
    add_detections (rmeta, meta, roi_od);
}
#endif

/**
 * gst_cuda_graph_buffer_add_results:
 * @buffer: a writable #GstBuffer
 * @kind: the postprocess that gave @results (not %GCG_POSTPROCESS_NONE)
 * @results: (array length=n_results) (nullable): the frame's results
 * @n_results: number of @results
 * @labels: (array length=n_labels) (nullable): the class names, a quark
 *   per class index
 * @n_labels: number of @labels
 * @items: (array length=n_items) (nullable): the items the results came
 *   from
 * @n_items: number of @items
 *
 * What the elements attach to a frame's output: a
 * #GstCudaGraphResultsMeta (gst_cuda_graph_buffer_add_results_meta()),
 * and where gst_cuda_graph_results_have_analytics() says so, the same
 * results in the buffer's `GstAnalyticsRelationMeta` (added when it has
 * none): detections (and %GCG_POSTPROCESS_USER results) as
 * `GstAnalyticsODMtd`, classifications as one `GstAnalyticsClsMtd` per
 * item, the items cut from ROIs as regions related to them.
 *
 * Returns: (transfer none) (nullable): the #GstCudaGraphResultsMeta
 *   added, or %NULL when it could not be
 *
 * Since: 0.3
 */
GstCudaGraphResultsMeta *
gst_cuda_graph_buffer_add_results (GstBuffer *buffer, GcgPostprocessKind kind,
    const GcgResult *results, guint n_results, const GQuark *labels,
    guint n_labels, const GstCudaGraphResultsItem *items, guint n_items)
{
  GstCudaGraphResultsMeta *meta =
      gst_cuda_graph_buffer_add_results_meta (buffer, kind, results, n_results,
          labels, n_labels, items, n_items);

#ifdef WITH_ANALYTICS
  if (meta != NULL)
    add_analytics (buffer, meta);
#endif
  return meta;
}

/**
 * gst_cuda_graph_results_have_analytics:
 *
 * Whether gst_cuda_graph_buffer_add_results() also adds GStreamer's
 * `GstAnalyticsRelationMeta`: this library was built against GStreamer
 * 1.24 or newer with gstreamer-analytics-1.0.
 *
 * Returns: %TRUE where it does
 *
 * Since: 0.3
 */
gboolean
gst_cuda_graph_results_have_analytics (void)
{
#ifdef WITH_ANALYTICS
  return TRUE;
#else
  return FALSE;
#endif
}

/**
 * gst_cuda_graph_buffer_get_results_meta:
 * @buffer: a buffer, e.g. from `cudagraphpreprocess postprocess=detect`
 *
 * The results of the frame @buffer carries.  Its fields come from
 * whoever attached it: read them through the accessors, which check
 * indices against the arrays.
 *
 * Returns: (transfer none) (nullable): the buffer's
 *   #GstCudaGraphResultsMeta, or %NULL when it has none
 *
 * Since: 0.3
 */
GstCudaGraphResultsMeta *
gst_cuda_graph_buffer_get_results_meta (GstBuffer *buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstCudaGraphResultsMeta *) gst_buffer_get_meta (buffer,
      gst_cuda_graph_results_meta_api_get_type ());
}

/**
 * gst_cuda_graph_results_meta_get_n_results:
 * @meta: a #GstCudaGraphResultsMeta
 *
 * The number of results, for bindings and careful C.
 *
 * Returns: how many results gst_cuda_graph_results_meta_get_result()
 *   gives (#GstCudaGraphResultsMeta.n_results, within the array)
 *
 * Since: 0.3
 */
guint
gst_cuda_graph_results_meta_get_n_results (GstCudaGraphResultsMeta *meta)
{
  g_return_val_if_fail (meta != NULL, 0);

  return MIN (meta->n_results, meta->n_results_allocated);
}

/**
 * gst_cuda_graph_results_meta_get_result:
 * @meta: a #GstCudaGraphResultsMeta
 * @index: which result, from 0
 *
 * The result at @index, checked against the count and the array; for
 * bindings, which cannot index #GstCudaGraphResultsMeta.results.
 *
 * Returns: (transfer none) (nullable): the result, or %NULL past the last
 *
 * Since: 0.3
 */
GcgResult *
gst_cuda_graph_results_meta_get_result (GstCudaGraphResultsMeta *meta,
    guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  if (index >= gst_cuda_graph_results_meta_get_n_results (meta))
    return NULL;
  return &meta->results[index];
}

/**
 * gst_cuda_graph_results_meta_get_label:
 * @meta: a #GstCudaGraphResultsMeta
 * @index: which result, from 0
 *
 * The class of the result at @index, as a quark.
 *
 * Returns: the result's class name as a #GQuark, 0 past the last result
 *
 * Since: 0.3
 */
GQuark
gst_cuda_graph_results_meta_get_label (GstCudaGraphResultsMeta *meta,
    guint index)
{
  g_return_val_if_fail (meta != NULL, 0);

  if (index >= gst_cuda_graph_results_meta_get_n_results (meta))
    return 0;
  return meta->labels[index];
}

/**
 * gst_cuda_graph_results_meta_get_label_name:
 * @meta: a #GstCudaGraphResultsMeta
 * @index: which result, from 0
 *
 * The class of the result at @index, as a string: a labels file's line
 * or "class-N".
 *
 * Returns: (transfer none) (nullable): the result's class name, %NULL
 *   past the last result
 *
 * Since: 0.3
 */
const gchar *
gst_cuda_graph_results_meta_get_label_name (GstCudaGraphResultsMeta *meta,
    guint index)
{
  return g_quark_to_string (gst_cuda_graph_results_meta_get_label (meta,
      index));
}

/**
 * gst_cuda_graph_results_meta_get_item:
 * @meta: a #GstCudaGraphResultsMeta
 * @index: which item, from 0 (a #GcgResult.item)
 *
 * The item at @index (a ROI of the frame, or the whole frame), checked
 * against the count and the array.
 *
 * Returns: (transfer none) (nullable): the item, or %NULL past the last
 *
 * Since: 0.3
 */
GstCudaGraphResultsItem *
gst_cuda_graph_results_meta_get_item (GstCudaGraphResultsMeta *meta,
    guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  if (index >= MIN (meta->n_items, meta->n_items_allocated))
    return NULL;
  return &meta->items[index];
}
