/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tree's one rectangle clipping (gcg-rect.c) and one element-type
 * table (gcg-dtype.c), which the chain, the metas and the elements all
 * read: edge cases a caller's own copy used to decide for itself.
 */
#include <gcg.h>

#include "gcg-dtype-private.h"
#include "gcg-rect-private.h"

static void
assert_rect (const GcgRect *r, gint x, gint y, gint w, gint h)
{
  g_assert_cmpint (r->x, ==, x);
  g_assert_cmpint (r->y, ==, y);
  g_assert_cmpint (r->width, ==, w);
  g_assert_cmpint (r->height, ==, h);
}

static void
test_clip (void)
{
  const GcgRect region = { 10, 20, 100, 50 };
  GcgRect r = { 0, 0, 50, 40 };

  g_assert_true (gcg__rect_clip (&r, &region));
  assert_rect (&r, 10, 20, 40, 20);
  r = (GcgRect) { 30, 30, 10, 10 };
  g_assert_true (gcg__rect_clip (&r, &region));
  assert_rect (&r, 30, 30, 10, 10);
  r = (GcgRect) { 100, 60, 1000, 1000 };
  g_assert_true (gcg__rect_clip (&r, &region));
  assert_rect (&r, 100, 60, 10, 10);
}

/* Nothing left: FALSE, and the rectangle as it was. */
static void
test_clip_empty (void)
{
  const GcgRect region = { 10, 20, 100, 50 };
  const GcgRect cases[] = {
    { 110, 20, 5, 5 },          /* touching the right edge */
    { 0, 0, 10, 100 },          /* touching the left edge */
    { 20, 30, 0, 5 },           /* no width */
    { 20, 30, 5, -1 },          /* negative height */
    { G_MININT, 0, 5, 5 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GcgRect r = cases[i];

    g_assert_false (gcg__rect_clip (&r, &region));
    assert_rect (&r, cases[i].x, cases[i].y, cases[i].width,
        cases[i].height);
  }
}

/* x + width beyond G_MAXINT does not wrap around. */
static void
test_clip_overflow (void)
{
  GcgRect r = { G_MAXINT - 5, 0, G_MAXINT, G_MAXINT };

  g_assert_false (gcg__rect_clip_to_frame (&r, 640, 480));
  r = (GcgRect) { 600, 400, G_MAXINT, G_MAXINT };
  g_assert_true (gcg__rect_clip_to_frame (&r, 640, 480));
  assert_rect (&r, 600, 400, 40, 80);
  r = (GcgRect) { G_MININT, G_MININT, G_MAXINT, G_MAXINT };
  g_assert_false (gcg__rect_clip_to_frame (&r, 640, 480));
}

static void
test_tensor_types (void)
{
  static const struct
  {
    GcgTensorType type;
    const gchar *name;
    gsize size;
    GcgModelDtype dtype;
  } rows[] = {
    { GCG_TENSOR_TYPE_FLOAT32, "float32", 4, GCG_MODEL_DTYPE_FLOAT32 },
    { GCG_TENSOR_TYPE_FLOAT16, "float16", 2, GCG_MODEL_DTYPE_FLOAT16 },
    { GCG_TENSOR_TYPE_UINT8, "uint8", 1, GCG_MODEL_DTYPE_UINT8 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++) {
    GcgTensorType type = (GcgTensorType) 99;
    GcgModelDtype dtype = (GcgModelDtype) 99;

    g_assert_cmpstr (gcg__tensor_type_get_name (rows[i].type), ==,
        rows[i].name);
    g_assert_cmpuint (gcg__tensor_type_get_size (rows[i].type), ==,
        rows[i].size);
    g_assert_cmpint (gcg__tensor_type_get_dtype (rows[i].type), ==,
        rows[i].dtype);
    g_assert_true (gcg__tensor_type_from_name (rows[i].name, &type));
    g_assert_cmpint (type, ==, rows[i].type);
    g_assert_true (gcg__model_dtype_from_name (rows[i].name, &dtype));
    g_assert_cmpint (dtype, ==, rows[i].dtype);
  }
  /* Out of range: float32, as the chain's default. */
  g_assert_cmpstr (gcg__tensor_type_get_name ((GcgTensorType) 42), ==,
      "float32");
  g_assert_cmpuint (gcg__tensor_type_get_size ((GcgTensorType) 42), ==, 4);
}

static void
test_names_refused (void)
{
  GcgTensorType type = GCG_TENSOR_TYPE_UINT8;
  GcgModelDtype dtype = GCG_MODEL_DTYPE_INT8;

  /* A model's dtype the chain does not write. */
  g_assert_false (gcg__tensor_type_from_name ("bfloat16", &type));
  g_assert_false (gcg__model_dtype_get_tensor_type (GCG_MODEL_DTYPE_INT64,
          &type));
  g_assert_false (gcg__model_dtype_get_tensor_type ((GcgModelDtype) 42,
          &type));
  g_assert_cmpint (type, ==, GCG_TENSOR_TYPE_UINT8);
  g_assert_true (gcg__model_dtype_from_name ("int64", &dtype));
  g_assert_cmpint (dtype, ==, GCG_MODEL_DTYPE_INT64);
  g_assert_false (gcg__model_dtype_from_name ("Float32", &dtype));
  g_assert_false (gcg__model_dtype_from_name ("", &dtype));
  g_assert_false (gcg__model_dtype_from_name (NULL, &dtype));
  g_assert_cmpint (dtype, ==, GCG_MODEL_DTYPE_INT64);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/rect/clip", test_clip);
  g_test_add_func ("/rect/clip-empty", test_clip_empty);
  g_test_add_func ("/rect/clip-overflow", test_clip_overflow);
  g_test_add_func ("/dtype/tensor-types", test_tensor_types);
  g_test_add_func ("/dtype/names-refused", test_names_refused);
  return g_test_run ();
}
