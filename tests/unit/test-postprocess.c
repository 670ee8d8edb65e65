/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The postprocess's CPU reference (gcg_postprocess_run_cpu()) on
 * synthetic model outputs, no GPU: configuration checks; classification
 * (top-k, ties to the lower class, NaN last, a numerically stable
 * softmax); detection (threshold, class-aware NMS edge cases: identical,
 * empty and NaN boxes, NaN scores, nothing above the threshold, more
 * boxes than the maximum), boxes mapped through letterboxed items; the
 * results area's reading, torn headers refused; random outputs checked
 * against the GPU kernels' route (repeated argmax, no sort), written
 * again here; and the chain's API on the CPU backend, which has no model
 * (the user's postprocess kernel included: refused there, and refused for
 * a kind other than USER anywhere).
 */
#include <gcg.h>
#include <math.h>
#include <string.h>

#define AREA_MAX \
  (sizeof (GcgResultsHeader) \
      + GCG_POSTPROCESS_MAX_ITEMS * GCG_RESULT_MAX_PER_ITEM \
          * sizeof (GcgResult))

static guint8 area[AREA_MAX];

static void
init_detect (GcgPostprocessConfig *c, guint n_classes)
{
  gcg_postprocess_config_init (c);
  c->kind = GCG_POSTPROCESS_DETECT;
  c->n_classes = n_classes;
  c->score_threshold = 0.25f;
  c->iou_threshold = 0.5f;
  c->max_per_item = 10;
}

static void
init_classify (GcgPostprocessConfig *c, guint n_classes, guint k)
{
  gcg_postprocess_config_init (c);
  c->kind = GCG_POSTPROCESS_CLASSIFY;
  c->n_classes = n_classes;
  c->top_k = k;
  c->softmax = FALSE;
}

/* An identity item: source = item pixels, ROI the whole 640×640. */
static void
identity_map (GcgFrameItemMap *m)
{
  GcgRect r = { 0, 0, 640, 640 };

  g_assert_true (gcg_frame_item_map_init (m, &r, 640, 640, GCG_LETTERBOX_NONE));
}

static void
expect_invalid (const GcgPostprocessConfig *c)
{
  g_autoptr (GError) error = NULL;

  g_assert_false (gcg_postprocess_config_validate (c, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
}

static void
test_config (void)
{
  GcgPostprocessConfig c;
  g_autoptr (GcgPostprocessConfig) copy = NULL;

  gcg_postprocess_config_init (&c);
  g_assert_cmpint (c.kind, ==, GCG_POSTPROCESS_NONE);
  g_assert_true (gcg_postprocess_config_validate (&c, NULL));
  g_assert_cmpuint (gcg_postprocess_config_get_results_size (&c, 4), ==, 0);
  init_classify (&c, 1000, 5);
  g_assert_true (gcg_postprocess_config_validate (&c, NULL));
  g_assert_cmpuint (gcg_postprocess_config_get_results_size (&c, 4), ==,
      sizeof (GcgResultsHeader) + 4 * 5 * 32);
  copy = gcg_postprocess_config_copy (&c);
  g_assert_cmpmem (copy, sizeof (c), &c, sizeof (c));
  c.n_classes = 0;
  expect_invalid (&c);
  c.n_classes = GCG_POSTPROCESS_MAX_CLASSES + 1;
  expect_invalid (&c);
  init_classify (&c, 3, 4);     /* top-k past the classes */
  expect_invalid (&c);
  init_classify (&c, 1000, GCG_RESULT_MAX_PER_ITEM + 1);
  expect_invalid (&c);
  init_detect (&c, 80);
  g_assert_true (gcg_postprocess_config_validate (&c, NULL));
  c.score_threshold = NAN;
  expect_invalid (&c);
  init_detect (&c, 80);
  c.iou_threshold = 1.5f;
  expect_invalid (&c);
  init_detect (&c, 80);
  c.iou_threshold = -INFINITY;
  expect_invalid (&c);
  init_detect (&c, 80);
  c.max_per_item = 0;
  expect_invalid (&c);
  c.max_per_item = GCG_RESULT_MAX_PER_ITEM + 1;
  expect_invalid (&c);
  c.max_per_item = 1;
  c.kind = (GcgPostprocessKind) 42;
  expect_invalid (&c);
  g_assert_true (g_type_is_a (GCG_TYPE_POSTPROCESS_KIND, G_TYPE_ENUM));
  g_assert_true (G_TYPE_IS_BOXED (GCG_TYPE_POSTPROCESS_CONFIG));
  g_assert_true (G_TYPE_IS_BOXED (GCG_TYPE_RESULT));
}

static const GcgResult *
run (const GcgPostprocessConfig *c, const gfloat *out, gsize n_floats,
    guint n_cand, const GcgFrameItemMap *maps, guint n_items, guint *n)
{
  g_autoptr (GError) error = NULL;

  memset (area, 0xa5, sizeof (area));
  g_assert_true (gcg_postprocess_run_cpu (c, out, n_floats, n_cand, maps,
      n_items, 77, area, sizeof (area), &error));
  g_assert_no_error (error);
  g_assert_cmpuint (((GcgResultsHeader *) area)->frame_number, ==, 77);
  return gcg_frame_results_get (area, sizeof (area), n);
}

static void
test_classify_raw (void)
{
  GcgPostprocessConfig c;
  GcgFrameItemMap maps[2];
  GcgRect roi = { 10, 20, 30, 40 };
  /* Item 0: a tie at 0.7 (classes 1 and 3), NaN at 0; item 1: -inf. */
  const gfloat out[] = { NAN, 0.7f, 0.1f, 0.7f, 0.2f, -INFINITY, -1.0f, -2.0f,
    5.0f, -1.0f };
  const GcgResult *r;
  guint n, n1;

  init_classify (&c, 5, 5);
  gcg_frame_item_map_init (&maps[0], &roi, 64, 64, GCG_LETTERBOX_SYMMETRIC);
  identity_map (&maps[1]);
  r = run (&c, out, G_N_ELEMENTS (out), 0, maps, 2, &n);
  g_assert_cmpuint (n, ==, 10);
  /* Ties to the lower class, NaN last. */
  g_assert_cmpint (r[0].label, ==, 1);
  g_assert_cmpint (r[1].label, ==, 3);
  g_assert_cmpint (r[2].label, ==, 4);
  g_assert_cmpint (r[3].label, ==, 2);
  g_assert_cmpint (r[4].label, ==, 0);
  g_assert_true (isnan (r[4].confidence));
  g_assert_cmpfloat (r[0].confidence, ==, 0.7f);
  /* The box is the item's source rectangle. */
  g_assert_cmpfloat (r[0].x, ==, 10.0f);
  g_assert_cmpfloat (r[0].y, ==, 20.0f);
  g_assert_cmpfloat (r[0].width, ==, 30.0f);
  g_assert_cmpfloat (r[0].height, ==, 40.0f);
  g_assert_cmpuint (r[0].item, ==, 0);
  g_assert_cmpuint (r[0].reserved, ==, 0);
  /* Item 1: 5, then the tie at -1 (1 before 4), -2, -inf. */
  r = gcg_frame_results_get_item (area, sizeof (area), 1, &n1);
  g_assert_cmpuint (n1, ==, 5);
  g_assert_cmpint (r[0].label, ==, 3);
  g_assert_cmpint (r[1].label, ==, 1);
  g_assert_cmpint (r[2].label, ==, 4);
  g_assert_cmpint (r[3].label, ==, 2);
  g_assert_cmpint (r[4].label, ==, 0);
  g_assert_cmpuint (r[4].item, ==, 1);
  g_assert_cmpfloat (r[0].width, ==, 640.0f);
  g_assert_null (gcg_frame_results_get_item (area, sizeof (area), 2, &n1));
  g_assert_cmpuint (n1, ==, 0);
}

static void
test_classify_softmax (void)
{
  GcgPostprocessConfig c;
  GcgFrameItemMap map;
  gfloat out[300];
  const GcgResult *r;
  gdouble sum = 0.0, max = -G_MAXDOUBLE;
  guint n;

  /* Large logits: a naive softmax overflows expf. */
  for (guint i = 0; i < G_N_ELEMENTS (out); i++) {
    out[i] = 1000.0f + (gfloat) ((i * 37) % 101) * 0.05f;
    max = MAX (max, out[i]);
  }
  for (guint i = 0; i < G_N_ELEMENTS (out); i++)
    sum += exp (out[i] - max);
  init_classify (&c, G_N_ELEMENTS (out), 3);
  c.softmax = TRUE;
  identity_map (&map);
  r = run (&c, out, G_N_ELEMENTS (out), 0, &map, 1, &n);
  g_assert_cmpuint (n, ==, 3);
  for (guint k = 0; k < n; k++) {
    gdouble want = exp (out[r[k].label] - max) / sum;

    g_assert_true (isfinite (r[k].confidence));
    g_assert_cmpfloat_with_epsilon (r[k].confidence, want, 1e-6);
    if (k > 0)
      g_assert_cmpfloat (r[k].confidence, <=, r[k - 1].confidence);
  }
  /* Ranked on the scores: the top one has the highest. */
  g_assert_cmpfloat (out[r[0].label], ==, max);
}

/* One detection candidate of an item laid out as (4 + C) × A. */
static void
put (gfloat *item, guint n_classes, guint n_cand, guint a, gfloat cx, gfloat cy,
    gfloat w, gfloat h, guint label, gfloat score)
{
  item[a] = cx;
  item[n_cand + a] = cy;
  item[2 * n_cand + a] = w;
  item[3 * n_cand + a] = h;
  for (guint c = 0; c < n_classes; c++)
    item[(4 + c) * n_cand + a] = c == label ? score : 0.0f;
}

#define C 3
#define A 12

static void
test_detect_nms (void)
{
  GcgPostprocessConfig c;
  GcgFrameItemMap map;
  gfloat out[(4 + C) * A] = { 0 };
  const GcgResult *r;
  guint n;

  /* 0, 1: identical boxes, class 0, same score: 0 is kept.
   * 2: the same box, class 1: kept (another class).
   * 3, 4: identical empty boxes, class 2: IoU 0/0 suppresses nothing.
   * 5: NaN score: never kept.  6: below the threshold.
   * 7: overlaps 0 by exactly IoU 0.5: not above, kept.
   * 8: overlaps 0 by more: suppressed.  9: a NaN box, class 2, kept.
   * 10, 11: +inf and a score of 1 elsewhere. */
  put (out, C, A, 0, 100, 100, 20, 20, 0, 0.9f);
  put (out, C, A, 1, 100, 100, 20, 20, 0, 0.9f);
  put (out, C, A, 2, 100, 100, 20, 20, 1, 0.8f);
  put (out, C, A, 3, 300, 300, 0, 0, 2, 0.7f);
  put (out, C, A, 4, 300, 300, 0, 0, 2, 0.7f);
  put (out, C, A, 5, 400, 400, 10, 10, 0, NAN);
  put (out, C, A, 6, 500, 500, 10, 10, 0, 0.2f);
  /* [90,110]² against [96.6667,..]: make IoU exactly 1/2 with halves:
   * box 0 is [90,110]×[90,110] (400); box 7 [90,110]×[100,120]: inter
   * 200, union 600: 1/3.  Shifted by 10 in x only: [100,120]×[90,110]
   * inter 200, union 600 too; so use 20 × 40 against 20 × 20 inside:
   * inter 400, union 800 = 0.5. */
  put (out, C, A, 7, 100, 110, 20, 40, 0, 0.6f);
  put (out, C, A, 8, 101, 100, 20, 20, 0, 0.5f);
  put (out, C, A, 9, NAN, 50, 10, 10, 2, 0.4f);
  put (out, C, A, 10, 600, 600, 10, 10, 1, INFINITY);
  put (out, C, A, 11, 620, 620, 10, 10, 2, 1.0f);
  init_detect (&c, C);
  identity_map (&map);
  r = run (&c, out, G_N_ELEMENTS (out), A, &map, 1, &n);
  {
    const guint want[] = { 10, 11, 0, 2, 3, 4, 7, 9 };

    g_assert_cmpuint (n, ==, G_N_ELEMENTS (want));
    for (guint i = 0; i < n; i++) {
      /* Which candidate: by its box's centre and class. */
      guint a = want[i];
      gfloat cx = out[a], score = out[(4 + r[i].label) * A + a];

      g_assert_cmpint (r[i].label, ==,
          a == 2 || a == 10                           ? 1
              : a == 3 || a == 4 || a == 9 || a == 11 ? 2
                                                      : 0);
      g_assert_cmpfloat (r[i].confidence, ==, score);
      if (!isnan (cx))
        g_assert_cmpfloat (r[i].x, ==, cx - out[2 * A + a] * 0.5f);
      else
        g_assert_true (isnan (r[i].x));
    }
  }
  g_assert_cmpfloat (r[0].confidence, ==, INFINITY);
  g_assert_cmpfloat (r[4].width, ==, 0.0f);
  g_assert_cmpfloat (r[6].y, ==, 90.0f);
  g_assert_cmpfloat (r[6].height, ==, 40.0f);
  /* The maximum keeps the best. */
  c.max_per_item = 3;
  r = run (&c, out, G_N_ELEMENTS (out), A, &map, 1, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpfloat (r[2].confidence, ==, 0.9f);
  /* Nothing above the threshold. */
  c.score_threshold = 1.0f;
  c.max_per_item = 10;
  for (guint a = 0; a < A; a++)
    for (guint k = 0; k < C; k++)
      out[(4 + k) * A + a] = MIN (out[(4 + k) * A + a], 0.99f);
  r = run (&c, out, G_N_ELEMENTS (out), A, &map, 1, &n);
  g_assert_nonnull (r);
  g_assert_cmpuint (n, ==, 0);
  g_assert_cmpuint (((GcgResultsHeader *) area)->n_items, ==, 1);
  g_assert_cmpuint (((GcgResultsHeader *) area)->item_counts[0], ==, 0);
}

/* Boxes through a letterboxed ROI: 200 × 100 at (40, 60) into 64 × 64
 * (scale 3.125, 16 rows of padding on top). */
static void
test_detect_map (void)
{
  GcgPostprocessConfig c;
  GcgFrameItemMap maps[2];
  GcgRect roi = { 40, 60, 200, 100 };
  gfloat out[2 * (4 + 1) * 2] = { 0 };
  const GcgResult *r;
  guint n;
  gdouble x, y;

  init_detect (&c, 1);
  g_assert_true (gcg_frame_item_map_init (&maps[0], &roi, 64, 64,
      GCG_LETTERBOX_SYMMETRIC));
  identity_map (&maps[1]);
  put (out, 1, 2, 0, 32, 32, 16, 8, 0, 0.9f);
  put (out + 10, 1, 2, 1, 10, 10, 4, 4, 0, 0.8f);
  r = run (&c, out, G_N_ELEMENTS (out), 2, maps, 2, &n);
  g_assert_cmpuint (n, ==, 2);
  gcg_frame_item_map_to_source (&maps[0], 24, 28, &x, &y);
  g_assert_cmpfloat (r[0].x, ==, (gfloat) x);
  g_assert_cmpfloat (r[0].y, ==, (gfloat) y);
  g_assert_cmpfloat_with_epsilon (r[0].x, 40.0 + 24 * 3.125, 1e-4);
  g_assert_cmpfloat_with_epsilon (r[0].width, 16 * 3.125, 1e-4);
  g_assert_cmpfloat_with_epsilon (r[0].height, 8 * 3.125, 1e-4);
  g_assert_cmpuint (r[0].item, ==, 0);
  g_assert_cmpuint (r[1].item, ==, 1);
  g_assert_cmpfloat (r[1].x, ==, 8.0f);
}

static void
test_errors (void)
{
  GcgPostprocessConfig c;
  GcgFrameItemMap maps[GCG_POSTPROCESS_MAX_ITEMS + 1];
  static gfloat out[(GCG_POSTPROCESS_MAX_ITEMS + 1) * 10];
  g_autoptr (GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (maps); i++)
    identity_map (&maps[i]);
  init_classify (&c, 10, 2);
  g_assert_false (gcg_postprocess_run_cpu (&c, out, G_N_ELEMENTS (out), 0, maps,
      GCG_POSTPROCESS_MAX_ITEMS + 1, 0, area, sizeof (area), &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (gcg_postprocess_run_cpu (&c, out, 19, 0, maps, 2, 0, area,
      sizeof (area), &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (gcg_postprocess_run_cpu (&c, out, 20, 0, maps, 2, 0, area,
      sizeof (GcgResultsHeader) + 3 * 32, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  init_detect (&c, 1);
  g_assert_false (gcg_postprocess_run_cpu (&c, out, G_N_ELEMENTS (out), 0, maps,
      1, 0, area, sizeof (area), &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  c.kind = GCG_POSTPROCESS_USER;
  g_assert_false (gcg_postprocess_run_cpu (&c, out, G_N_ELEMENTS (out), 1, maps,
      1, 0, area, sizeof (area), &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED);
}

static void
test_read_area (void)
{
  GcgResultsHeader *h = (GcgResultsHeader *) area;
  guint n = 99;

  memset (area, 0, sizeof (area));
  g_assert_nonnull (gcg_frame_results_get (area, sizeof (area), &n));
  g_assert_cmpuint (n, ==, 0);
  g_assert_null (gcg_frame_results_get (area, sizeof (*h) - 1, &n));
  g_assert_null (gcg_frame_results_get (NULL, 0, &n));
  h->n_items = 2;
  h->item_counts[0] = 1;
  h->item_counts[1] = 2;
  h->n_results = 3;
  g_assert_nonnull (gcg_frame_results_get (area, sizeof (*h) + 3 * 32, &n));
  g_assert_cmpuint (n, ==, 3);
  g_assert_true (gcg_frame_results_get_item (area, sizeof (area), 1, &n)
      == (const GcgResult *) (h + 1) + 1);
  g_assert_cmpuint (n, ==, 2);
  /* Torn or foreign headers. */
  g_assert_null (gcg_frame_results_get (area, sizeof (*h) + 2 * 32, &n));
  g_assert_cmpuint (n, ==, 0);
  h->n_results = 4;
  g_assert_null (gcg_frame_results_get (area, sizeof (area), &n));
  h->n_results = 3;
  h->n_items = GCG_POSTPROCESS_MAX_ITEMS + 1;
  g_assert_null (gcg_frame_results_get (area, sizeof (area), &n));
}

/* --- the GPU kernels' route, again: repeated block-wide argmax ---------- */

static gboolean
ranks_before (gfloat ka, guint ia, gfloat kb, guint ib)
{
  return ka > kb || (ka == kb && ia < ib);
}

static void
box_of (const gfloat *in, guint n_cand, guint a, gfloat b[4])
{
  gfloat hw = in[2 * n_cand + a] * 0.5f, hh = in[3 * n_cand + a] * 0.5f;

  b[0] = in[a] - hw;
  b[1] = in[n_cand + a] - hh;
  b[2] = in[a] + hw;
  b[3] = in[n_cand + a] + hh;
}

static gfloat
iou_of (const gfloat a[4], const gfloat b[4])
{
  gfloat w = fmaxf (fminf (a[2], b[2]) - fmaxf (a[0], b[0]), 0.0f);
  gfloat h = fmaxf (fminf (a[3], b[3]) - fmaxf (a[1], b[1]), 0.0f);
  gfloat inter = w * h;
  gfloat sa = (a[2] - a[0]) * (a[3] - a[1]);
  gfloat sb = (b[2] - b[0]) * (b[3] - b[1]);

  return inter / (sa + sb - inter);
}

/* The candidates the argmax route keeps, in order, into @kept. */
static guint
argmax_nms (const GcgPostprocessConfig *c, const gfloat *in, guint n_cand,
    guint *kept)
{
  g_autofree gfloat *key = g_new (gfloat, n_cand);
  g_autofree gint *label = g_new (gint, n_cand);
  guint n = 0;

  for (guint a = 0; a < n_cand; a++) {
    gfloat best = -INFINITY;

    label[a] = 0;
    for (guint k = 0; k < c->n_classes; k++) {
      gfloat s = in[(4 + k) * n_cand + a];

      if (s > best) {
        best = s;
        label[a] = (gint) k;
      }
    }
    key[a] = best >= c->score_threshold ? best : -INFINITY;
  }
  while (n < c->max_per_item) {
    guint bi = G_MAXUINT;
    gfloat bk = -INFINITY, kb[4];

    for (guint a = 0; a < n_cand; a++)
      if (key[a] != -INFINITY && ranks_before (key[a], a, bk, bi)) {
        bk = key[a];
        bi = a;
      }
    if (bi == G_MAXUINT)
      break;
    kept[n++] = bi;
    key[bi] = -INFINITY;
    box_of (in, n_cand, bi, kb);
    for (guint a = 0; a < n_cand; a++) {
      gfloat b[4];

      box_of (in, n_cand, a, b);
      if (key[a] != -INFINITY && label[a] == label[bi]
          && iou_of (kb, b) > c->iou_threshold)
        key[a] = -INFINITY;
    }
  }
  return n;
}

static void
test_detect_random (void)
{
  const guint n_cand = 500, n_classes = 4;
  g_autofree gfloat *out = g_new (gfloat, (4 + n_classes) * n_cand);
  g_autofree guint *kept = g_new (guint, GCG_RESULT_MAX_PER_ITEM);
  GRand *rand = g_rand_new_with_seed (35);
  GcgPostprocessConfig c;
  GcgFrameItemMap map;

  identity_map (&map);
  init_detect (&c, n_classes);
  c.max_per_item = GCG_RESULT_MAX_PER_ITEM;
  for (guint round = 0; round < 20; round++) {
    const GcgResult *r;
    guint n, want;

    c.iou_threshold = (gfloat) g_rand_double_range (rand, 0.1, 0.9);
    c.score_threshold = (gfloat) g_rand_double_range (rand, 0.0, 0.5);
    for (guint a = 0; a < n_cand; a++) {
      out[a] = (gfloat) g_rand_int_range (rand, 0, 64) * 2;
      out[n_cand + a] = (gfloat) g_rand_int_range (rand, 0, 64) * 2;
      out[2 * n_cand + a] = (gfloat) g_rand_int_range (rand, 0, 40);
      out[3 * n_cand + a] = (gfloat) g_rand_int_range (rand, 0, 40);
      for (guint k = 0; k < n_classes; k++)
        /* Coarse scores: many ties. */
        out[(4 + k) * n_cand + a] = g_rand_int_range (rand, 0, 20) == 0
            ? NAN
            : (gfloat) g_rand_int_range (rand, 0, 16) / 16.0f;
    }
    r = run (&c, out, (4 + n_classes) * n_cand, n_cand, &map, 1, &n);
    want = argmax_nms (&c, out, n_cand, kept);
    g_assert_cmpuint (n, ==, want);
    g_assert_cmpuint (n, >, 0);
    for (guint i = 0; i < n; i++) {
      gfloat b[4];

      box_of (out, n_cand, kept[i], b);
      g_assert_cmpfloat (r[i].x, ==, b[0]);
      g_assert_cmpfloat (r[i].y, ==, b[1]);
      g_assert_cmpfloat (r[i].confidence, ==,
          out[(4 + r[i].label) * n_cand + kept[i]]);
      g_assert_false (isnan (r[i].confidence));
    }
  }
  g_rand_free (rand);
}

/* The CPU backend runs no model: a postprocess is refused there. */
static void
test_chain_cpu (void)
{
  GcgFrameChainConfig cc;
  GcgPostprocessConfig c;
  g_autoptr (GcgFrameChain) chain = NULL;
  g_autoptr (GError) error = NULL;

  gcg_frame_chain_config_init (&cc);
  cc.output = GCG_OUTPUT_KIND_TENSOR;
  chain = gcg_frame_chain_new (&cc, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  gcg_postprocess_config_init (&c);
  g_assert_true (gcg_frame_chain_set_postprocess (chain, &c, &error));
  g_assert_no_error (error);
  g_assert_false (gcg_frame_chain_get_postprocess (chain, &c));
  g_assert_cmpuint (gcg_frame_chain_get_results_size (chain), ==, 0);
  init_detect (&c, 80);
  g_assert_false (gcg_frame_chain_set_postprocess (chain, &c, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);
  c.iou_threshold = NAN;
  g_assert_false (gcg_frame_chain_set_postprocess (chain, &c, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
}

/* A kernel whose code is never loaded here (PTX, taken without a
 * context): its declaration reads a postprocess kernel's fields. */
static GcgKernelOp *
new_pp_op (void)
{
  static const gchar ptx[] = ".version 7.0\n.target sm_75\n"
                             ".address_size 64\n"
                             ".visible .entry top1 (.param .u64 p)\n{\n"
                             "  ret;\n}\n";
  g_autoptr (GBytes) code = g_bytes_new_static (ptx, sizeof (ptx) - 1);
  g_autoptr (GError) error = NULL;
  GcgKernelOp *op = gcg_kernel_op_new_from_binary (NULL, code, "top1",
      "in=output,recs=records,cnt=counts,per=max_results,n=items", &error);

  g_assert_no_error (error);
  return op;
}

static void
expect_kernel_refused (gboolean batch, gpointer engine,
    const GcgPostprocessConfig *c, GcgKernelOp *op, gint code,
    const gchar *says)
{
  g_autoptr (GError) error = NULL;

  if (batch)
    g_assert_false (gcg_frame_batch_set_postprocess_kernel (engine, c, op,
        &error));
  else
    g_assert_false (gcg_frame_chain_set_postprocess_kernel (engine, c, op,
        &error));
  g_assert_error (error, GCG_ERROR, code);
  g_assert_nonnull (strstr (error->message, says));
}

/* The user's postprocess: set_postprocess() refuses USER pointing to
 * set_postprocess_kernel(), which refuses another kind anywhere and USER
 * on the CPU backend (no model there); nothing is set. */
static void
test_kernel_cpu (void)
{
  GcgFrameChainConfig cc;
  GcgFrameBatchConfig bc;
  GcgPostprocessConfig c;
  g_autoptr (GcgFrameChain) chain = NULL;
  g_autoptr (GcgFrameBatch) batch = NULL;
  g_autoptr (GcgKernelOp) op = new_pp_op ();
  g_autoptr (GError) error = NULL;

  gcg_frame_chain_config_init (&cc);
  cc.output = GCG_OUTPUT_KIND_TENSOR;
  chain = gcg_frame_chain_new (&cc, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  gcg_frame_batch_config_init (&bc);
  batch = gcg_frame_batch_new (&bc, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  for (guint b = 0; b < 2; b++) {
    gpointer engine = b ? (gpointer) batch : (gpointer) chain;

    init_detect (&c, 80);
    c.kind = GCG_POSTPROCESS_USER;
    if (b)
      g_assert_false (gcg_frame_batch_set_postprocess (batch, &c, &error));
    else
      g_assert_false (gcg_frame_chain_set_postprocess (chain, &c, &error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED);
    g_assert_nonnull (strstr (error->message,
        "gcg_frame_batch_set_postprocess_kernel()"));
    g_clear_error (&error);
    expect_kernel_refused (b, engine, &c, op, GCG_ERROR_NOT_SUPPORTED,
        "attach a model first");
    c.kind = GCG_POSTPROCESS_DETECT;
    expect_kernel_refused (b, engine, &c, op, GCG_ERROR_INVALID_ARGUMENT,
        "GCG_POSTPROCESS_USER");
    c.kind = GCG_POSTPROCESS_NONE;
    expect_kernel_refused (b, engine, &c, op, GCG_ERROR_INVALID_ARGUMENT,
        "GCG_POSTPROCESS_USER");
    init_detect (&c, 0);
    c.kind = GCG_POSTPROCESS_USER;
    expect_kernel_refused (b, engine, &c, op, GCG_ERROR_INVALID_ARGUMENT,
        "class count");
  }
  g_assert_false (gcg_frame_chain_get_postprocess (chain, &c));
  g_assert_cmpuint (gcg_frame_chain_get_results_size (chain), ==, 0);
  g_assert_false (gcg_frame_batch_get_postprocess (batch, &c));
  g_assert_cmpuint (gcg_frame_batch_get_results_size (batch), ==, 0);
}

static void
test_batch_cpu (void)
{
  GcgFrameBatchConfig bc;
  GcgPostprocessConfig c;
  g_autoptr (GcgFrameBatch) batch = NULL;
  g_autoptr (GError) error = NULL;

  gcg_frame_batch_config_init (&bc);
  batch = gcg_frame_batch_new (&bc, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  init_classify (&c, 10, 3);
  g_assert_false (gcg_frame_batch_set_postprocess (batch, &c, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED);
  g_assert_false (gcg_frame_batch_get_postprocess (batch, &c));
  g_assert_cmpint (c.kind, ==, GCG_POSTPROCESS_NONE);
  g_assert_cmpuint (gcg_frame_batch_get_results_size (batch), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/postprocess/config", test_config);
  g_test_add_func ("/postprocess/classify/raw", test_classify_raw);
  g_test_add_func ("/postprocess/classify/softmax", test_classify_softmax);
  g_test_add_func ("/postprocess/detect/nms", test_detect_nms);
  g_test_add_func ("/postprocess/detect/map", test_detect_map);
  g_test_add_func ("/postprocess/detect/random", test_detect_random);
  g_test_add_func ("/postprocess/errors", test_errors);
  g_test_add_func ("/postprocess/read-area", test_read_area);
  g_test_add_func ("/postprocess/chain-cpu", test_chain_cpu);
  g_test_add_func ("/postprocess/batch-cpu", test_batch_cpu);
  g_test_add_func ("/postprocess/kernel-cpu", test_kernel_cpu);
  return g_test_run ();
}
