/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What a user sees of the elements' properties: values that read back as
 * they are in effect (scale follows tensor-type until set, and what
 * model-info's mean/std give), and refused values said on the terminal
 * (our g_warning) and on the bus, with the old value kept.
 */
#include <math.h>

#include "gcg-gst-test-util.h"

#define PREPROCESS "cudagraphpreprocess backend=cpu"
#define OWN_DOMAIN "GstCudaGraph"

static GstElement *
make (const gchar *factory)
{
  GstElement *e = gst_element_factory_make (factory, NULL);

  g_assert_nonnull (e);
  return e;
}

static gdouble
get_double (GstElement *e, const gchar *name)
{
  gdouble v = 0.0;

  g_object_get (e, name, &v, NULL);
  return v;
}

/* The scale that applies until one is set follows tensor-type: 1/255 for
 * the float types, 1 for uint8 (pixel values kept); a scale set is kept
 * whatever the type. */
static void
check_scale_follows_type (const gchar *factory)
{
  g_autoptr (GstElement) e = make (factory);

  g_assert_cmpfloat_with_epsilon (get_double (e, "scale"), 1.0 / 255.0, 1e-9);
  gst_util_set_object_arg (G_OBJECT (e), "tensor-type", "uint8");
  g_assert_cmpfloat (get_double (e, "scale"), ==, 1.0);
  gst_util_set_object_arg (G_OBJECT (e), "tensor-type", "float16");
  g_assert_cmpfloat_with_epsilon (get_double (e, "scale"), 1.0 / 255.0, 1e-9);
  g_object_set (e, "scale", 0.5, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "tensor-type", "uint8");
  g_assert_cmpfloat (get_double (e, "scale"), ==, 0.5);
}

static void
test_scale_follows_type (void)
{
  check_scale_follows_type ("cudagraphpreprocess");
  check_scale_follows_type ("cudagraphbatch");
}

/* A uint8 tensor holds the pixel values, not 0 and 1. */
static void
test_uint8_values (void)
{
  const gchar *caps = "video/x-raw,format=RGB,width=8,height=4";
  const guint8 px[3] = { 124, 116, 104 };
  GstHarness *h = gcg_test_harness_new (PREPROCESS
      " width=4 height=2 "
      "layout=nhwc tensor-type=uint8",
      caps, NULL);
  GstBuffer *out = gcg_test_push_pull (h, gcg_test_solid_new (caps, px, 3, 0));
  GstMapInfo map;

  g_assert_true (gst_buffer_map (out, &map, GST_MAP_READ));
  g_assert_cmpuint (map.size, ==, 4 * 2 * 3);
  for (gsize i = 0; i < map.size; i++)
    g_assert_cmpuint (map.data[i], ==, px[i % 3]);
  gst_buffer_unmap (out, &map);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

/* With mean/std (set, or from model-info) scale and offset read back the
 * first channel's values they give, not the unused defaults. */
static void
test_scale_reads_mean_std (void)
{
  g_autoptr (GstElement) e = make ("cudagraphpreprocess");
  g_autofree gchar *path = g_build_filename (GCG_TEST_DATA_DIR, "modelinfo",
      "bgr-batch.modelinfo", NULL);
  g_autofree gchar *u8 = g_build_filename (GCG_TEST_DATA_DIR, "modelinfo",
      "nhwc-u8.modelinfo", NULL);

  g_object_set (e, "mean", "0.5,0.25,0.25", "std", "0.25,0.5,0.5", NULL);
  g_assert_cmpfloat_with_epsilon (get_double (e, "scale"), 1.0 / (255.0 * 0.25),
      1e-6);
  g_assert_cmpfloat_with_epsilon (get_double (e, "offset"), -2.0, 1e-6);

  /* Its ranges are (-1, 1): mean 0.5, std 0.5. */
  g_object_set (e, "mean", NULL, "std", NULL, NULL);
  g_object_set (e, "model-info", path, NULL);
  g_assert_cmpfloat_with_epsilon (get_double (e, "scale"), 1.0 / (255.0 * 0.5),
      1e-6);
  g_assert_cmpfloat_with_epsilon (get_double (e, "offset"), -1.0, 1e-6);

  /* A uint8 model without ranges takes the pixel values. */
  g_object_set (e, "model-info", u8, NULL);
  g_assert_cmpfloat_with_epsilon (get_double (e, "scale"), 1.0, 1e-6);
  g_assert_cmpfloat_with_epsilon (get_double (e, "offset"), 0.0, 1e-6);
}

/* Sets @name to @value on @object as gst-launch-1.0 would; NaN for a
 * double straight through the class's set_property(), as GLib versions
 * differ on whether their own check lets it through (2.74 does not): ours
 * must refuse it either way. */
static void
set_arg (GObject *object, const gchar *name, const gchar *value)
{
  GParamSpec *pspec =
      g_object_class_find_property (G_OBJECT_GET_CLASS (object), name);
  GValue v = G_VALUE_INIT;

  g_assert_nonnull (pspec);
  if (G_PARAM_SPEC_VALUE_TYPE (pspec) != G_TYPE_DOUBLE
      || g_strcmp0 (value, "nan") != 0) {
    gst_util_set_object_arg (object, name, value);
    return;
  }
  g_value_init (&v, G_TYPE_DOUBLE);
  g_value_set_double (&v, NAN);
  G_OBJECT_GET_CLASS (object)->set_property (object, pspec->param_id, &v,
      pspec);
  g_value_unset (&v);
}

/* Sets @name to @value on @object, which must refuse it: our warning
 * naming the property, a warning message from @object on @bus (when
 * given), and @name reading back @kept. */
static void
check_refused (GObject *object, GstBus *bus, const gchar *name,
    const gchar *value, const gchar *kept)
{
  g_autofree gchar *pattern =
      g_strdup_printf ("*refusing property '%s'*", name);
  g_autoptr (GstMessage) msg = NULL;
  g_autoptr (GError) error = NULL;
  GValue now = G_VALUE_INIT;

  g_test_expect_message (OWN_DOMAIN, G_LOG_LEVEL_WARNING, pattern);
  set_arg (object, name, value);
  g_test_assert_expected_messages ();

  g_value_init (&now,
      G_PARAM_SPEC_VALUE_TYPE (
          g_object_class_find_property (G_OBJECT_GET_CLASS (object), name)));
  g_object_get_property (object, name, &now);
  if (G_VALUE_HOLDS_DOUBLE (&now))
    g_assert_cmpfloat (g_value_get_double (&now), ==,
        g_ascii_strtod (kept, NULL));
  else
    g_assert_cmpstr (g_value_get_string (&now), ==, kept);
  g_value_unset (&now);

  if (bus == NULL)
    return;
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  g_assert_nonnull (msg);
  g_assert_true (GST_MESSAGE_SRC (msg) == GST_OBJECT (object));
  gst_message_parse_warning (msg, &error, NULL);
  g_assert_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS);
  g_assert_nonnull (strstr (error->message, name));
  g_assert_null (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING));
}

static void
check_tensor_refusals (GstElement *e, GstBus *bus)
{
  g_object_set (e, "mean", "0.5", "std", "0.25", NULL);
  check_refused (G_OBJECT (e), bus, "mean", "0.1,0.2", "0.5");
  check_refused (G_OBJECT (e), bus, "mean", "abc", "0.5");
  check_refused (G_OBJECT (e), bus, "std", "0", "0.25");
  check_refused (G_OBJECT (e), bus, "std", "0.1,x,0.2", "0.25");
  g_object_set (e, "mean", NULL, "std", NULL, "offset", 0.25, NULL);
  check_refused (G_OBJECT (e), bus, "offset", "nan", "0.25");
  check_refused (G_OBJECT (e), bus, "pad-value", "nan", "0");
  g_object_set (e, "scale", 2.0, NULL);
  check_refused (G_OBJECT (e), bus, "scale", "nan", "2");
}

/* Out of a pipeline: the warning only (no bus to post on). */
static void
test_refused_without_bus (void)
{
  g_autoptr (GstElement) pre = make ("cudagraphpreprocess");
  g_autoptr (GstElement) batch = make ("cudagraphbatch");
  g_autoptr (GstElement) convert = make ("cudagraphconvert");

  check_tensor_refusals (pre, NULL);
  check_tensor_refusals (batch, NULL);
  g_object_set (convert, "gamma", 1.5, NULL);
  check_refused (G_OBJECT (convert), NULL, "gamma", "nan", "1.5");
}

/* In a pipeline: the warning message reaches the pipeline's bus too, and
 * setting from a thread that holds no lock of ours never deadlocks. */
static void
test_refused_on_bus (void)
{
  g_autoptr (GstElement) pipeline = gst_pipeline_new (NULL);
  g_autoptr (GstBus) bus = gst_element_get_bus (pipeline);
  GstElement *pre = make ("cudagraphpreprocess");
  GstElement *batch = make ("cudagraphbatch");
  GstElement *convert = make ("cudagraphconvert");
  const gchar *adjust[] = { "brightness", "contrast", "gamma", "gain" };

  gst_bin_add_many (GST_BIN (pipeline), pre, batch, convert, NULL);
  check_tensor_refusals (pre, bus);
  check_tensor_refusals (batch, bus);
  for (guint i = 0; i < G_N_ELEMENTS (adjust); i++) {
    g_object_set (convert, adjust[i], 0.5, NULL);
    check_refused (G_OBJECT (convert), bus, adjust[i], "nan", "0.5");
  }
}

/* A model-info file that cannot be used says so when set, on the bus too
 * (the element also fails at start: test-modelinfo.c). */
static void
test_model_info_refused (void)
{
  g_autoptr (GstElement) pipeline = gst_pipeline_new (NULL);
  g_autoptr (GstBus) bus = gst_element_get_bus (pipeline);
  GstElement *pre = make ("cudagraphpreprocess");
  g_autofree gchar *path = g_build_filename (GCG_TEST_DATA_DIR, "modelinfo",
      "dynamic-size.modelinfo", NULL);
  g_autoptr (GstMessage) msg = NULL;

  gst_bin_add (GST_BIN (pipeline), pre);
  g_test_expect_message (OWN_DOMAIN, G_LOG_LEVEL_WARNING,
      "*refusing property 'model-info'*dynamic height*");
  g_object_set (pre, "model-info", path, NULL);
  g_test_assert_expected_messages ();
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  g_assert_nonnull (msg);
  g_assert_true (GST_MESSAGE_SRC (msg) == GST_OBJECT (pre));
}

/* A good value says nothing. */
static void
test_accepted_is_silent (void)
{
  g_autoptr (GstElement) pipeline = gst_pipeline_new (NULL);
  g_autoptr (GstBus) bus = gst_element_get_bus (pipeline);
  GstElement *pre = make ("cudagraphpreprocess");

  gst_bin_add (GST_BIN (pipeline), pre);
  g_object_set (pre, "mean", "0.1,0.2,0.3", "std", "0.5", "scale", 0.5, NULL);
  g_assert_null (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  gcg_test_gst_init (&argc, &argv);

  g_test_add_func ("/gst/props/scale-follows-type", test_scale_follows_type);
  g_test_add_func ("/gst/props/uint8-values", test_uint8_values);
  g_test_add_func ("/gst/props/scale-reads-mean-std",
      test_scale_reads_mean_std);
  g_test_add_func ("/gst/props/refused-without-bus", test_refused_without_bus);
  g_test_add_func ("/gst/props/refused-on-bus", test_refused_on_bus);
  g_test_add_func ("/gst/props/model-info-refused", test_model_info_refused);
  g_test_add_func ("/gst/props/accepted-is-silent", test_accepted_is_silent);
  return g_test_run ();
}
