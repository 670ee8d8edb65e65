/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The postprocess's configuration, its CPU reference and the reading of a
 * frame's results area.  The reference is the oracle of the GPU kernels
 * (kernels/gcg-postprocess-kernels.cu): it shares their arithmetic
 * (kernels/gcg-postprocess-math.h) and is compiled, as they are, with
 * contraction off, but reaches the same answers by the textbook route
 * (sort the candidates, then keep greedily), not the kernels' one.
 */
#include "gcg-result.h"
#include "gcg-error.h"
#include "kernels/gcg-postprocess-math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

G_STATIC_ASSERT (sizeof (GcgResult) == 32);
G_STATIC_ASSERT (sizeof (GcgResultsHeader) % sizeof (GcgResult) == 0);
G_STATIC_ASSERT (sizeof (GcgPpResult) == sizeof (GcgResult));
G_STATIC_ASSERT (sizeof (GcgPpHeader) == sizeof (GcgResultsHeader));
G_STATIC_ASSERT (GCG_PP_MAX_ITEMS == GCG_POSTPROCESS_MAX_ITEMS);
G_STATIC_ASSERT (GCG_PP_MAX_PER_ITEM == GCG_RESULT_MAX_PER_ITEM);
G_STATIC_ASSERT (GCG_PP_CLASSIFY == GCG_POSTPROCESS_CLASSIFY);
G_STATIC_ASSERT (GCG_PP_DETECT == GCG_POSTPROCESS_DETECT);
G_STATIC_ASSERT (GCG_PP_USER == GCG_POSTPROCESS_USER);

static GcgResult *
result_copy (const GcgResult *result)
{
  return g_memdup2 (result, sizeof (*result));
}

G_DEFINE_BOXED_TYPE (GcgResult, gcg_result, result_copy, g_free)
G_DEFINE_BOXED_TYPE (GcgPostprocessConfig, gcg_postprocess_config,
    gcg_postprocess_config_copy, gcg_postprocess_config_free)

/**
 * gcg_result_copy:
 * @result: a #GcgResult
 *
 * Copies a #GcgResult.
 *
 * Returns: (transfer full): a newly allocated copy of @result
 *
 * Since: 0.3
 */
GcgResult *
gcg_result_copy (const GcgResult *result)
{
  g_return_val_if_fail (result != NULL, NULL);
  return result_copy (result);
}

/**
 * gcg_result_free:
 * @result: (nullable): a #GcgResult
 *
 * Frees @result.
 *
 * Since: 0.3
 */
void
gcg_result_free (GcgResult *result)
{
  g_free (result);
}

/**
 * gcg_postprocess_config_init:
 * @config: (out caller-allocates): the configuration to fill
 *
 * Fills the defaults: no postprocess (%GCG_POSTPROCESS_NONE), output 0,
 * one class, top-1 with softmax, score threshold 0.25, IoU threshold
 * 0.45, at most 100 detections per item.
 *
 * Since: 0.3
 */
void
gcg_postprocess_config_init (GcgPostprocessConfig *config)
{
  g_return_if_fail (config != NULL);

  *config = (GcgPostprocessConfig) { .kind = GCG_POSTPROCESS_NONE,
    .output_index = 0,
    .n_classes = 1,
    .top_k = 1,
    .softmax = TRUE,
    .score_threshold = 0.25f,
    .iou_threshold = 0.45f,
    .max_per_item = 100 };
}

/**
 * gcg_postprocess_config_new:
 *
 * Allocates a configuration, for bindings.
 *
 * Returns: (transfer full): a new configuration with the defaults of
 *   gcg_postprocess_config_init()
 *
 * Since: 0.3
 */
GcgPostprocessConfig *
gcg_postprocess_config_new (void)
{
  GcgPostprocessConfig *config = g_new (GcgPostprocessConfig, 1);

  gcg_postprocess_config_init (config);
  return config;
}

/**
 * gcg_postprocess_config_copy:
 * @config: a #GcgPostprocessConfig
 *
 * Copies a #GcgPostprocessConfig.
 *
 * Returns: (transfer full): a newly allocated copy of @config
 *
 * Since: 0.3
 */
GcgPostprocessConfig *
gcg_postprocess_config_copy (const GcgPostprocessConfig *config)
{
  g_return_val_if_fail (config != NULL, NULL);
  return g_memdup2 (config, sizeof (*config));
}

/**
 * gcg_postprocess_config_free:
 * @config: (nullable): a #GcgPostprocessConfig
 *
 * Frees @config.
 *
 * Since: 0.3
 */
void
gcg_postprocess_config_free (GcgPostprocessConfig *config)
{
  g_free (config);
}

static gboolean
check_unit (const gchar *name, gfloat v, GError **error)
{
  if (isfinite (v) && v >= 0.0f && v <= 1.0f)
    return TRUE;
  g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "Postprocess: %s %g is not a number from 0 to 1", name, (gdouble) v);
  return FALSE;
}

static gboolean
check_range (const gchar *name, guint v, guint max, GError **error)
{
  if (v >= 1 && v <= max)
    return TRUE;
  g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "Postprocess: %s %u is not from 1 to %u", name, v, max);
  return FALSE;
}

/**
 * gcg_postprocess_config_validate:
 * @config: a #GcgPostprocessConfig
 * @error: return location for a #GError, or %NULL
 *
 * Checks the values of @config on their own (its fit to a model's output
 * is checked where it is set: gcg_frame_batch_set_postprocess()): a known
 * kind; for classification and detection 1 to
 * %GCG_POSTPROCESS_MAX_CLASSES classes; for classification a top-k from
 * 1 to the class count (and to %GCG_RESULT_MAX_PER_ITEM); for detection
 * thresholds that are numbers from 0 to 1 and a maximum per item from 1
 * to %GCG_RESULT_MAX_PER_ITEM.  %GCG_POSTPROCESS_NONE is always valid.
 *
 * Returns: %TRUE, or %FALSE with @error set (%GCG_ERROR_INVALID_ARGUMENT,
 *   naming the value)
 *
 * Since: 0.3
 */
gboolean
gcg_postprocess_config_validate (const GcgPostprocessConfig *config,
    GError **error)
{
  g_return_val_if_fail (config != NULL, FALSE);

  switch (config->kind) {
    case GCG_POSTPROCESS_NONE:
      return TRUE;
    case GCG_POSTPROCESS_CLASSIFY:
      return check_range ("class count", config->n_classes,
                 GCG_POSTPROCESS_MAX_CLASSES, error)
          && check_range ("top-k", config->top_k,
              MIN (config->n_classes, GCG_RESULT_MAX_PER_ITEM), error);
    case GCG_POSTPROCESS_DETECT:
    case GCG_POSTPROCESS_USER:
      return check_range ("class count", config->n_classes,
                 GCG_POSTPROCESS_MAX_CLASSES, error)
          && check_unit ("score threshold", config->score_threshold, error)
          && check_unit ("IoU threshold", config->iou_threshold, error)
          && check_range ("maximum per item", config->max_per_item,
              GCG_RESULT_MAX_PER_ITEM, error);
    default:
      g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "Postprocess: unknown kind %d", (gint) config->kind);
      return FALSE;
  }
}

/**
 * gcg_postprocess_config_get_max_results:
 * @config: a valid #GcgPostprocessConfig
 *
 * The most results one item gives: @top_k for classification,
 * @max_per_item otherwise, 0 for %GCG_POSTPROCESS_NONE.
 *
 * Returns: the most results per item
 *
 * Since: 0.3
 */
guint
gcg_postprocess_config_get_max_results (const GcgPostprocessConfig *config)
{
  g_return_val_if_fail (config != NULL, 0);

  switch (config->kind) {
    case GCG_POSTPROCESS_CLASSIFY:
      return MIN (config->top_k, GCG_RESULT_MAX_PER_ITEM);
    case GCG_POSTPROCESS_DETECT:
    case GCG_POSTPROCESS_USER:
      return MIN (config->max_per_item, GCG_RESULT_MAX_PER_ITEM);
    default:
      return 0;
  }
}

/**
 * gcg_postprocess_config_get_results_size:
 * @config: a valid #GcgPostprocessConfig
 * @n_items: the most items of a frame (at most
 *   %GCG_POSTPROCESS_MAX_ITEMS)
 *
 * The bytes of one frame's results area: a #GcgResultsHeader, then room
 * for @n_items × gcg_postprocess_config_get_max_results() #GcgResult
 * records.
 *
 * Returns: the size in bytes, 0 for %GCG_POSTPROCESS_NONE
 *
 * Since: 0.3
 */
gsize
gcg_postprocess_config_get_results_size (const GcgPostprocessConfig *config,
    guint n_items)
{
  guint per_item;

  g_return_val_if_fail (config != NULL, 0);
  per_item = gcg_postprocess_config_get_max_results (config);
  if (per_item == 0)
    return 0;
  return sizeof (GcgResultsHeader)
      + (gsize) MIN (n_items, GCG_POSTPROCESS_MAX_ITEMS) * per_item
      * sizeof (GcgResult);
}

/* --- the CPU reference --------------------------------------------------- */

typedef struct
{
  gfloat key;
  guint32 index;
  gint32 label;
} Ranked;

static gint
compare_ranked (const void *a, const void *b)
{
  const Ranked *x = a, *y = b;

  if (gcg_pp_before (x->key, x->index, y->key, y->index))
    return -1;
  return gcg_pp_before (y->key, y->index, x->key, x->index) ? 1 : 0;
}

/* Softmax's max and sum as the kernel computes them: the sum adds each
 * GCG_PP_BLOCK-strided column in order, then the columns pairwise in the
 * kernel's tree order, so only expf itself may differ. */
static void
softmax_terms (const gfloat *in, guint n_classes, gfloat *m, gfloat *sum)
{
  gfloat part[GCG_PP_BLOCK];

  *m = GCG_PP_NEG_INF;
  for (guint c = 0; c < n_classes; c++)
    *m = fmaxf (*m, gcg_pp_key (in[c]));
  for (guint t = 0; t < GCG_PP_BLOCK; t++) {
    part[t] = 0.0f;
    for (guint c = t; c < n_classes; c += GCG_PP_BLOCK)
      part[t] = part[t] + expf (in[c] - *m);
  }
  for (guint s = GCG_PP_BLOCK / 2; s > 0; s >>= 1)
    for (guint t = 0; t < s; t++)
      part[t] = part[t] + part[t + s];
  *sum = part[0];
}

static void
set_roi_box (GcgResult *r, const GcgFrameItemMap *map)
{
  r->x = (gfloat) map->roi.x;
  r->y = (gfloat) map->roi.y;
  r->width = (gfloat) map->roi.width;
  r->height = (gfloat) map->roi.height;
}

/* One item's top-k into @out; returns the count. */
static guint
classify_item (const GcgPostprocessConfig *config, const gfloat *in,
    const GcgFrameItemMap *map, guint item, Ranked *ranked, GcgResult *out)
{
  gfloat m = 0.0f, sum = 1.0f;

  if (config->softmax)
    softmax_terms (in, config->n_classes, &m, &sum);
  for (guint c = 0; c < config->n_classes; c++)
    ranked[c] = (Ranked) { gcg_pp_key (in[c]), c, (gint32) c };
  qsort (ranked, config->n_classes, sizeof (Ranked), compare_ranked);
  for (guint r = 0; r < config->top_k; r++) {
    guint c = ranked[r].index;

    set_roi_box (&out[r], map);
    out[r].confidence = config->softmax ? expf (in[c] - m) / sum : in[c];
    out[r].label = (gint32) c;
    out[r].item = item;
    out[r].reserved = 0;
  }
  return config->top_k;
}

/* A kept box's record: its corners through the item's map. */
static void
set_detection (GcgResult *r, const GcgFrameItemMap *map, const gfloat box[4],
    gfloat score, gint32 label, guint item)
{
  gdouble x1, y1, x2, y2;

  gcg_frame_item_map_to_source (map, box[0], box[1], &x1, &y1);
  gcg_frame_item_map_to_source (map, box[2], box[3], &x2, &y2);
  r->x = (gfloat) x1;
  r->y = (gfloat) y1;
  r->width = (gfloat) (x2 - x1);
  r->height = (gfloat) (y2 - y1);
  r->confidence = score;
  r->label = label;
  r->item = item;
  r->reserved = 0;
}

/* One item's detections into @out (threshold, sort, greedy class-aware
 * NMS, the maximum); returns the count. */
static guint
detect_item (const GcgPostprocessConfig *config, const gfloat *in, guint n_cand,
    const GcgFrameItemMap *map, guint item, Ranked *ranked, gfloat *kept,
    GcgResult *out)
{
  guint n_ranked = 0, n = 0;

  for (guint a = 0; a < n_cand; a++) {
    gint32 label;
    gfloat s = gcg_pp_best_class (in, config->n_classes, n_cand, a, &label);

    if (s >= config->score_threshold)
      ranked[n_ranked++] = (Ranked) { s, a, label };
  }
  qsort (ranked, n_ranked, sizeof (Ranked), compare_ranked);
  for (guint i = 0; i < n_ranked && n < config->max_per_item; i++) {
    gfloat box[4];
    gboolean suppressed = FALSE;

    gcg_pp_box (in, n_cand, ranked[i].index, box);
    for (guint j = 0; j < n && !suppressed; j++)
      suppressed = out[j].label == ranked[i].label
          && gcg_pp_iou (kept + 4 * j, box) > config->iou_threshold;
    if (suppressed)
      continue;
    memcpy (kept + 4 * n, box, sizeof (box));
    set_detection (&out[n++], map, box, ranked[i].key, ranked[i].label, item);
  }
  return n;
}

/* What gcg_postprocess_run_cpu() checks before it reads anything. */
static gboolean
check_cpu_run (const GcgPostprocessConfig *config, gsize n_floats,
    guint n_candidates, guint n_items, gsize results_size, GError **error)
{
  gsize per_item;

  if (!gcg_postprocess_config_validate (config, error))
    return FALSE;
  if (config->kind != GCG_POSTPROCESS_CLASSIFY
      && config->kind != GCG_POSTPROCESS_DETECT) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "Postprocess: the CPU reference runs classification and detection "
        "only (a user's postprocess kernel runs on the GPU only)");
    return FALSE;
  }
  if (n_items > GCG_POSTPROCESS_MAX_ITEMS) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Postprocess: %u items, more than the %d a frame may have", n_items,
        GCG_POSTPROCESS_MAX_ITEMS);
    return FALSE;
  }
  if (config->kind == GCG_POSTPROCESS_DETECT
      && !check_range ("candidate count", n_candidates,
          GCG_POSTPROCESS_MAX_CANDIDATES, error))
    return FALSE;
  per_item = config->kind == GCG_POSTPROCESS_CLASSIFY
      ? config->n_classes
      : (gsize) (4 + config->n_classes) * n_candidates;
  if (n_floats / per_item < n_items) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Postprocess: %" G_GSIZE_FORMAT " floats hold fewer than %u items "
        "of %" G_GSIZE_FORMAT,
        n_floats, n_items, per_item);
    return FALSE;
  }
  if (results_size
      < gcg_postprocess_config_get_results_size (config, n_items)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Postprocess: a results area of %" G_GSIZE_FORMAT " bytes is "
        "smaller than the %" G_GSIZE_FORMAT " needed",
        results_size,
        gcg_postprocess_config_get_results_size (config, n_items));
    return FALSE;
  }
  return TRUE;
}

/**
 * gcg_postprocess_run_cpu:
 * @config: a classification or detection #GcgPostprocessConfig
 * @output: (array length=n_floats): the model's output tensor, float32,
 *   item after item: @config's n_classes scores per item
 *   (classification), or per item (4 + n_classes) rows of @n_candidates
 *   (detection: rows cx, cy, w, h in the item's pixels, then one score
 *   row per class, YOLOv8's export layout)
 * @n_floats: floats at @output (at least what @n_items items take)
 * @n_candidates: detection: candidates per item (1 to
 *   %GCG_POSTPROCESS_MAX_CANDIDATES); ignored for classification
 * @maps: (array length=n_items): each item's geometry: where it came from
 *   in its source frame (gcg_frame_item_map_init())
 * @n_items: items in @output (0 to %GCG_POSTPROCESS_MAX_ITEMS)
 * @frame_number: written into the header
 * @results: (array length=results_size): the results area to fill
 * @results_size: its size, at least
 *   gcg_postprocess_config_get_results_size() for @n_items
 * @error: return location for a #GError, or %NULL
 *
 * The CPU reference of the built-in postprocesses, for tests and for
 * applications that run their model elsewhere: it fills @results exactly
 * as the GPU stage does (#GcgResultsHeader, then the records).
 *
 * Classification: per item the @top_k classes of highest score, best
 * first, ties to the lower class index, a NaN score ranking below every
 * number; with @softmax the confidence is exp(s − max) / Σ exp(s − max)
 * (the sum added in the GPU's order, so the two differ only by their
 * expf: a few units in the last place), else the raw score.  Each
 * result's box is the item's source rectangle (@maps' roi).
 *
 * Detection: per candidate the class of highest score (ties to the lower
 * class; NaN never wins, and a candidate with no number is dropped),
 * dropped below @score_threshold; the rest sorted by score (ties to the
 * lower candidate index) and kept greedily, each suppressing the later
 * boxes of its class whose intersection over union with it exceeds
 * @iou_threshold (torchvision.ops.batched_nms; two empty boxes have an
 * IoU of 0/0, NaN, and do not suppress each other), until @max_per_item
 * are kept.  Boxes go from centre and size in the item's pixels to
 * corners, mapped to source-frame pixels by the item's map
 * (gcg_frame_item_map_to_source(), in double; width and height are the
 * mapped corners' difference); they are not clipped to the frame.  The
 * GPU keeps the same boxes with the same bits.
 *
 * Returns: %TRUE, or %FALSE with @error set (nothing written):
 *   %GCG_ERROR_INVALID_ARGUMENT for an invalid @config, too few floats,
 *   too many items or candidates or a small area,
 *   %GCG_ERROR_NOT_SUPPORTED for a kind other than classification or
 *   detection (%GCG_POSTPROCESS_USER included: a user's postprocess
 *   kernel, gcg_frame_batch_set_postprocess_kernel(), runs on the GPU
 *   only, there is no user code on the CPU)
 *
 * Since: 0.3
 */
gboolean
gcg_postprocess_run_cpu (const GcgPostprocessConfig *config,
    const gfloat *output, gsize n_floats, guint n_candidates,
    const GcgFrameItemMap *maps, guint n_items, guint64 frame_number,
    guint8 *results, gsize results_size, GError **error)
{
  GcgResultsHeader *h = (GcgResultsHeader *) results;
  GcgResult *out = (GcgResult *) (h + 1);
  gboolean detect;
  gsize item_floats;
  g_autofree Ranked *ranked = NULL;
  g_autofree gfloat *kept = NULL;

  g_return_val_if_fail (config != NULL, FALSE);
  g_return_val_if_fail (output != NULL || n_items == 0, FALSE);
  g_return_val_if_fail (maps != NULL || n_items == 0, FALSE);
  g_return_val_if_fail (results != NULL, FALSE);

  if (!check_cpu_run (config, n_floats, n_candidates, n_items, results_size,
          error))
    return FALSE;
  detect = config->kind == GCG_POSTPROCESS_DETECT;
  item_floats = detect ? (gsize) (4 + config->n_classes) * n_candidates
                       : config->n_classes;
  ranked = g_new (Ranked, detect ? n_candidates : config->n_classes);
  kept = g_new (gfloat, 4 * GCG_RESULT_MAX_PER_ITEM);
  memset (h, 0, sizeof (*h));
  h->frame_number = frame_number;
  h->n_items = n_items;
  for (guint i = 0; i < n_items; i++) {
    const gfloat *in = output + i * item_floats;
    guint n = detect
        ? detect_item (config, in, n_candidates, &maps[i], i, ranked, kept,
              out + h->n_results)
        : classify_item (config, in, &maps[i], i, ranked, out + h->n_results);

    h->item_counts[i] = n;
    h->n_results += n;
  }
  return TRUE;
}

/* --- reading a results area ---------------------------------------------- */

/* The header of @area when it is whole and consistent, else NULL. */
static const GcgResultsHeader *
check_area (gconstpointer area, gsize size)
{
  const GcgResultsHeader *h = area;
  guint64 total = 0;

  if (area == NULL || size < sizeof (*h)
      || h->n_items > GCG_POSTPROCESS_MAX_ITEMS
      || h->n_results > (size - sizeof (*h)) / sizeof (GcgResult))
    return NULL;
  for (guint i = 0; i < h->n_items; i++)
    total += h->item_counts[i];
  return total == h->n_results ? h : NULL;
}

/**
 * gcg_frame_results_get:
 * @area: (array length=size) (element-type guint8): a frame's results
 *   area, once the frame is done (its #GcgFrameQueue callback ran, or
 *   its stream was synchronised)
 * @size: the area's size in bytes
 * @n_results: (out): the number of results
 *
 * Every result of the frame, item 0's first, each item's best first
 * (the layout of #GcgResultsHeader).  The records are read in place:
 * the pointer is into @area.
 *
 * Returns: (array length=n_results) (transfer none) (nullable): the
 *   results, or %NULL (and 0) when @area is too small or its header is
 *   not consistent (never written, or torn)
 *
 * Since: 0.3
 */
const GcgResult *
gcg_frame_results_get (gconstpointer area, gsize size, guint *n_results)
{
  const GcgResultsHeader *h = check_area (area, size);

  g_return_val_if_fail (n_results != NULL, NULL);

  *n_results = h != NULL ? h->n_results : 0;
  return h != NULL ? (const GcgResult *) (h + 1) : NULL;
}

/**
 * gcg_frame_results_get_item:
 * @area: (array length=size) (element-type guint8): a frame's results
 *   area, once the frame is done
 * @size: the area's size in bytes
 * @item: the item (a ROI of the frame, a slot of a batch)
 * @n_results: (out): the number of the item's results
 *
 * The results of one item, best first.
 *
 * Returns: (array length=n_results) (transfer none) (nullable): the
 *   item's results, or %NULL (and 0) for an item past the frame's or an
 *   area gcg_frame_results_get() refuses
 *
 * Since: 0.3
 */
const GcgResult *
gcg_frame_results_get_item (gconstpointer area, gsize size, guint item,
    guint *n_results)
{
  const GcgResultsHeader *h = check_area (area, size);
  guint first = 0;

  g_return_val_if_fail (n_results != NULL, NULL);

  *n_results = 0;
  if (h == NULL || item >= h->n_items)
    return NULL;
  for (guint i = 0; i < item; i++)
    first += h->item_counts[i];
  *n_results = h->item_counts[item];
  return (const GcgResult *) (h + 1) + first;
}
