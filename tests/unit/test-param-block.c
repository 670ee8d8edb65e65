/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Parameter-block layout and host-side staging (no GPU): C-struct layout,
 * range and NaN checks that leave the old value in place, named values
 * through GValue, and allocation reporting the missing driver.
 */
#include <gcg.h>
#include <math.h>

static void
test_layout (void)
{
  g_autoptr (GcgParamBlock) block = gcg_param_block_new ();
  g_autoptr (GError) error = NULL;
  struct
  {
    guint32 a;
    guint64 b;
    gfloat c;
    gint32 d;
    gdouble e;
    gint32 f;
  } ref;

  g_assert_cmpint (gcg_param_block_add_field (block, "a",
                       GCG_SCALAR_TYPE_UINT32, &error),
      ==, 0);
  g_assert_cmpint (gcg_param_block_add_field (block, "b",
                       GCG_SCALAR_TYPE_UINT64, &error),
      ==, 1);
  g_assert_cmpint (gcg_param_block_add_field (block, "c", GCG_SCALAR_TYPE_FLOAT,
                       &error),
      ==, 2);
  g_assert_cmpint (gcg_param_block_add_field (block, "d", GCG_SCALAR_TYPE_INT32,
                       &error),
      ==, 3);
  g_assert_cmpint (gcg_param_block_add_field (block, "e",
                       GCG_SCALAR_TYPE_DOUBLE, &error),
      ==, 4);
  g_assert_cmpint (gcg_param_block_add_field (block, "f", GCG_SCALAR_TYPE_INT32,
                       &error),
      ==, 5);
  g_assert_no_error (error);
  g_assert_cmpuint (gcg_param_block_get_n_fields (block), ==, 6);
  g_assert_cmpuint (gcg_param_block_get_field_offset (block, 0), ==,
      G_STRUCT_OFFSET (__typeof__ (ref), a));
  g_assert_cmpuint (gcg_param_block_get_field_offset (block, 1), ==,
      G_STRUCT_OFFSET (__typeof__ (ref), b));
  g_assert_cmpuint (gcg_param_block_get_field_offset (block, 2), ==,
      G_STRUCT_OFFSET (__typeof__ (ref), c));
  g_assert_cmpuint (gcg_param_block_get_field_offset (block, 3), ==,
      G_STRUCT_OFFSET (__typeof__ (ref), d));
  g_assert_cmpuint (gcg_param_block_get_field_offset (block, 4), ==,
      G_STRUCT_OFFSET (__typeof__ (ref), e));
  g_assert_cmpuint (gcg_param_block_get_field_offset (block, 5), ==,
      G_STRUCT_OFFSET (__typeof__ (ref), f));
  g_assert_cmpuint (gcg_param_block_get_size (block) % 16, ==, 0);
  g_assert_cmpuint (gcg_param_block_get_size (block), >=, sizeof (ref));
  g_assert_cmpint (gcg_param_block_lookup (block, "e"), ==, 4);
  g_assert_cmpint (gcg_param_block_lookup (block, "zz"), ==, -1);
  g_assert_false (gcg_param_block_is_allocated (block));
  g_assert_cmpuint (gcg_param_block_get_device_ptr (block), ==, 0);
  g_assert_cmpuint (gcg_param_block_get_field_device_ptr (block, 1), ==, 0);
}

static void
test_bad_fields (void)
{
  g_autoptr (GcgParamBlock) block = gcg_param_block_new ();
  g_autoptr (GError) error = NULL;
  g_autofree gchar *longname = g_strnfill (65, 'x');

  g_assert_cmpint (gcg_param_block_add_field (block, "gain",
                       GCG_SCALAR_TYPE_FLOAT, &error),
      ==, 0);
  g_assert_cmpint (gcg_param_block_add_field (block, "gain",
                       GCG_SCALAR_TYPE_INT32, &error),
      ==, -1);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "gain"));
  g_clear_error (&error);
  g_assert_cmpint (gcg_param_block_add_field (block, "", GCG_SCALAR_TYPE_INT32,
                       &error),
      ==, -1);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpint (gcg_param_block_add_field (block, longname,
                       GCG_SCALAR_TYPE_INT32, &error),
      ==, -1);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcg_param_block_get_n_fields (block), ==, 1);
}

static void
test_too_big (void)
{
  g_autoptr (GcgParamBlock) block = gcg_param_block_new ();
  g_autoptr (GError) error = NULL;
  gint last = 0;

  for (guint i = 0; last >= 0 && i < 10000; i++) {
    g_autofree gchar *name = g_strdup_printf ("f%u", i);

    last =
        gcg_param_block_add_field (block, name, GCG_SCALAR_TYPE_DOUBLE, &error);
  }
  g_assert_cmpint (last, ==, -1);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcg_param_block_get_size (block), <=, 64 * 1024);
}

static void
test_ranges (void)
{
  g_autoptr (GcgParamBlock) block = gcg_param_block_new ();
  g_autoptr (GError) error = NULL;
  gint i32 =
      gcg_param_block_add_field (block, "i32", GCG_SCALAR_TYPE_INT32, NULL);
  gint u32 =
      gcg_param_block_add_field (block, "u32", GCG_SCALAR_TYPE_UINT32, NULL);
  gint u64 =
      gcg_param_block_add_field (block, "u64", GCG_SCALAR_TYPE_UINT64, NULL);
  gint f32 =
      gcg_param_block_add_field (block, "f32", GCG_SCALAR_TYPE_FLOAT, NULL);
  gint f64 =
      gcg_param_block_add_field (block, "f64", GCG_SCALAR_TYPE_DOUBLE, NULL);

  g_assert_true (gcg_param_block_set_int (block, i32, G_MININT32, &error));
  g_assert_cmpfloat (gcg_param_block_get_double (block, i32), ==, G_MININT32);
  g_assert_false (gcg_param_block_set_int (block, i32, (gint64) G_MAXINT32 + 1,
      &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "i32"));
  g_clear_error (&error);
  g_assert_cmpfloat (gcg_param_block_get_double (block, i32), ==, G_MININT32);

  g_assert_true (gcg_param_block_set_uint (block, u32, G_MAXUINT32, &error));
  g_assert_false (gcg_param_block_set_int (block, u32, -1, &error));
  g_clear_error (&error);
  g_assert_false (gcg_param_block_set_double (block, u32, 1.5, &error));
  g_clear_error (&error);
  g_assert_cmpfloat (gcg_param_block_get_double (block, u32), ==, G_MAXUINT32);

  g_assert_true (gcg_param_block_set_uint (block, u64, G_MAXUINT64, &error));
  g_assert_false (gcg_param_block_set_int (block, u64, -5, &error));
  g_clear_error (&error);

  g_assert_true (gcg_param_block_set_int (block, f32, 3, &error));
  g_assert_cmpfloat (gcg_param_block_get_double (block, f32), ==, 3.0);
  g_assert_false (gcg_param_block_set_double (block, f32, NAN, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (gcg_param_block_set_double (block, f32, 1e300, &error));
  g_clear_error (&error);
  g_assert_true (gcg_param_block_set_double (block, f32, INFINITY, &error));
  g_assert_true (gcg_param_block_set_double (block, f64, 0.1, &error));
  g_assert_cmpfloat (gcg_param_block_get_double (block, f64), ==, 0.1);
  g_assert_false (gcg_param_block_set_double (block, f64, NAN, &error));
  g_clear_error (&error);
  g_assert_cmpfloat (gcg_param_block_get_double (block, f64), ==, 0.1);
  g_assert_true (gcg_param_block_set_double (block, i32, -7.0, &error));
  g_assert_cmpfloat (gcg_param_block_get_double (block, i32), ==, -7.0);
  g_assert_no_error (error);
}

static void
test_set_value (void)
{
  g_autoptr (GcgParamBlock) block = gcg_param_block_new ();
  g_autoptr (GError) error = NULL;
  GValue v = G_VALUE_INIT;

  gcg_param_block_add_field (block, "frame", GCG_SCALAR_TYPE_UINT64, NULL);
  gcg_param_block_add_field (block, "gain", GCG_SCALAR_TYPE_FLOAT, NULL);
  g_value_init (&v, G_TYPE_UINT64);
  g_value_set_uint64 (&v, G_MAXUINT64 - 1);
  g_assert_true (gcg_param_block_set_value (block, "frame", &v, &error));
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_INT);
  g_value_set_int (&v, 2);
  g_assert_true (gcg_param_block_set_value (block, "gain", &v, &error));
  g_assert_cmpfloat (gcg_param_block_get_double (block, 1), ==, 2.0);
  g_assert_false (gcg_param_block_set_value (block, "nope", &v, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, "1.0");
  g_assert_false (gcg_param_block_set_value (block, "gain", &v, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_value_unset (&v);
  g_assert_cmpfloat (gcg_param_block_get_double (block, 1), ==, 2.0);
}

/* A bytes field holds a whole C struct: aligned as asked, packed like the
 * struct would be, set in one piece, refused by the scalar setters. */
static void
test_bytes (void)
{
  g_autoptr (GcgParamBlock) block = gcg_param_block_new ();
  g_autoptr (GError) error = NULL;
  struct
  {
    guint32 a;
    guint8 blob[40];
    gfloat c;
  } ref;
  guint8 data[40], wrong[39];
  GValue v = G_VALUE_INIT;
  gint a, blob, c;

  for (guint i = 0; i < sizeof (data); i++)
    data[i] = (guint8) (i * 7 + 1);
  a = gcg_param_block_add_field (block, "a", GCG_SCALAR_TYPE_UINT32, &error);
  blob = gcg_param_block_add_bytes (block, "blob", sizeof (data), 16, &error);
  c = gcg_param_block_add_field (block, "c", GCG_SCALAR_TYPE_FLOAT, &error);
  g_assert_no_error (error);
  g_assert_cmpint (blob, ==, 1);
  g_assert_cmpuint (gcg_param_block_get_field_offset (block, a), ==, 0);
  g_assert_cmpuint (gcg_param_block_get_field_offset (block, blob), ==, 16);
  g_assert_cmpuint (gcg_param_block_get_field_offset (block, c), ==, 56);
  g_assert_cmpuint (gcg_param_block_get_field_size (block, blob), ==, 40);
  g_assert_cmpuint (gcg_param_block_get_field_size (block, c), ==, 4);
  g_assert_cmpuint (gcg_param_block_get_size (block), ==, 64);
  g_assert_cmpuint (sizeof (ref), <=, 64);

  g_assert_true (gcg_param_block_set_bytes (block, blob, data, sizeof (data),
      &error));
  g_assert_no_error (error);
  /* The wrong size, or a scalar field, leaves everything as it was. */
  memset (wrong, 0xff, sizeof (wrong));
  g_assert_false (gcg_param_block_set_bytes (block, blob, wrong, sizeof (wrong),
      &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "blob"));
  g_clear_error (&error);
  g_assert_false (gcg_param_block_set_bytes (block, a, wrong, 4, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (gcg_param_block_set_int (block, blob, 1, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (gcg_param_block_set_uint (block, blob, 1, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (gcg_param_block_set_double (block, blob, 1.0, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_value_init (&v, G_TYPE_INT);
  g_value_set_int (&v, 3);
  g_assert_false (gcg_param_block_set_value (block, "blob", &v, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_value_unset (&v);
  g_assert_true (gcg_param_block_set_double (block, c, 2.5, &error));
  g_assert_cmpfloat (gcg_param_block_get_double (block, c), ==, 2.5);

  /* Bad alignment and sizes. */
  g_assert_cmpint (gcg_param_block_add_bytes (block, "odd", 8, 3, &error), ==,
      -1);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpint (gcg_param_block_add_bytes (block, "huge", 512, 512, &error),
      ==, -1);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpint (gcg_param_block_add_bytes (block, "empty", 0, 8, &error), ==,
      -1);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpint (gcg_param_block_add_bytes (block, "big", 64 * 1024, 16,
                       &error),
      ==, -1);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpint (gcg_param_block_add_bytes (block, "blob", 8, 8, &error), ==,
      -1);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_cmpuint (gcg_param_block_get_n_fields (block), ==, 3);
  g_assert_cmpuint (gcg_param_block_get_size (block), ==, 64);
}

/* Scalar getters are for scalars: reading a bytes field as a double is a
 * programmer error. */
static void
test_bytes_get_double (void)
{
  if (g_test_subprocess ()) {
    g_autoptr (GcgParamBlock) block = gcg_param_block_new ();

    gcg_param_block_add_bytes (block, "blob", 8, 8, NULL);
    gcg_param_block_get_double (block, 0);
    return;
  }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*CRITICAL*size == 0*");
}

static void
test_no_driver (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgContext) ctx = gcg_context_new (0, &error);

  /* Without a context nothing can be allocated; the error says why. */
  g_assert_null (ctx);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_NO_DRIVER);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/param-block/layout", test_layout);
  g_test_add_func ("/param-block/bad-fields", test_bad_fields);
  g_test_add_func ("/param-block/too-big", test_too_big);
  g_test_add_func ("/param-block/ranges", test_ranges);
  g_test_add_func ("/param-block/set-value", test_set_value);
  g_test_add_func ("/param-block/bytes", test_bytes);
  g_test_add_func ("/param-block/bytes-get-double", test_bytes_get_double);
  g_test_add_func ("/param-block/no-driver", test_no_driver);

  return g_test_run ();
}
