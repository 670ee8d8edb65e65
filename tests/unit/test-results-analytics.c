/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gst_cuda_graph_buffer_add_results() on GStreamer 1.24 or newer with the
 * analytics library (issue 35): a GstAnalyticsODMtd per detection (whole
 * pixels, confidence, class quark), a GstAnalyticsClsMtd per classified
 * item (its top-k), items cut from ROIs as regions the results relate to.
 * Built without gstreamer-analytics-1.0 (GStreamer 1.22) it exits 77: a
 * skip, counted as one.  CI's Debian 13 lane (GStreamer 1.26) runs it.
 */
#include <gst/gst.h>
#include <math.h>

#include "gstcudagraphresultsmeta.h"

#ifndef HAVE_GST_ANALYTICS_RELATION

int
main (void)
{
  g_print ("built without gstreamer-analytics-1.0 >= 1.24: skipped\n");
  return 77;
}

#else
#include <gst/analytics/analytics.h>

static GcgResult
result (gfloat x, gfloat y, gfloat w, gfloat h, gfloat conf, gint label,
    guint item)
{
  GcgResult r = { x, y, w, h, conf, label, item, 0 };

  return r;
}

static const GstCudaGraphResultsItem items[] = {
  { -1, 0, 0, 0, 640, 480 },
  { 4, 0, 100, 50, 64, 32 },
};

/* The ODMtds of @rmeta in order, at most @max. */
static guint
collect_od (GstAnalyticsRelationMeta *rmeta, GstAnalyticsODMtd *od, guint max)
{
  gpointer state = NULL;
  guint n = 0;

  while (n < max
      && gst_analytics_relation_meta_iterate (rmeta, &state,
          gst_analytics_od_mtd_get_mtd_type (), &od[n]))
    n++;
  return n;
}

static void
assert_od (GstAnalyticsODMtd *od, gint x, gint y, gint w, gint h, gfloat conf,
    const gchar *type)
{
  gint ox, oy, ow, oh;
  gfloat oc;

  g_assert_true (gst_analytics_od_mtd_get_location (od, &ox, &oy, &ow, &oh,
      &oc));
  g_assert_cmpint (ox, ==, x);
  g_assert_cmpint (oy, ==, y);
  g_assert_cmpint (ow, ==, w);
  g_assert_cmpint (oh, ==, h);
  g_assert_cmpfloat_with_epsilon (oc, conf, 1e-6);
  g_assert_cmpstr (g_quark_to_string (gst_analytics_od_mtd_get_obj_type (od)),
      ==, type);
}

/* Detections: the ROI's region first, then each valid detection, the one
 * from the ROI part of it; a NaN box adds nothing. */
static void
test_detections (void)
{
  g_autoptr (GstBuffer) buf = gst_buffer_new ();
  GQuark labels[] = { g_quark_from_static_string ("person") };
  const GcgResult in[] = {
    result (10.4f, 20.6f, 30, 40, 0.9f, 0, 0),
    result (NAN, 0, 1, 1, 0.5f, 0, 1),
    result (110, 60, 8, 9, 0.5f, 3, 1),
  };
  GstAnalyticsRelationMeta *rmeta;
  GstAnalyticsODMtd od[8];

  g_assert_true (gst_cuda_graph_results_have_analytics ());
  gst_cuda_graph_buffer_add_results (buf, GCG_POSTPROCESS_DETECT, in,
      G_N_ELEMENTS (in), labels, 1, items, G_N_ELEMENTS (items));
  rmeta = gst_buffer_get_analytics_relation_meta (buf);
  g_assert_nonnull (rmeta);
  g_assert_cmpuint (collect_od (rmeta, od, 8), ==, 3);
  assert_od (&od[0], 100, 50, 64, 32, 1.0f, "roi");
  assert_od (&od[1], 10, 21, 30, 40, 0.9f, "person");
  assert_od (&od[2], 110, 60, 8, 9, 0.5f, "class-3");
  g_assert_cmpint (gst_analytics_relation_meta_get_relation (rmeta, od[2].id,
                       od[0].id),
      ==, GST_ANALYTICS_REL_TYPE_IS_PART_OF);
  g_assert_cmpint (gst_analytics_relation_meta_get_relation (rmeta, od[0].id,
                       od[2].id),
      ==, GST_ANALYTICS_REL_TYPE_CONTAIN);
  g_assert_cmpint (gst_analytics_relation_meta_get_relation (rmeta, od[1].id,
                       od[0].id),
      ==, GST_ANALYTICS_REL_TYPE_NONE);
}

/* Classification: one ClsMtd per item with its top-k in order; the ROI's
 * region RELATE_TO its classes. */
static void
test_classes (void)
{
  g_autoptr (GstBuffer) buf = gst_buffer_new ();
  GQuark labels[] = { g_quark_from_static_string ("cat"),
    g_quark_from_static_string ("dog") };
  const GcgResult in[] = {
    result (0, 0, 640, 480, 0.7f, 1, 0),
    result (100, 50, 64, 32, 0.6f, 0, 1),
    result (0, 0, 640, 480, 0.2f, 0, 0),
    result (100, 50, 64, 32, 0.3f, 9, 1),
  };
  GstAnalyticsRelationMeta *rmeta;
  GstAnalyticsClsMtd cls[4];
  GstAnalyticsODMtd od[4];
  gpointer state = NULL;
  guint n = 0;

  gst_cuda_graph_buffer_add_results (buf, GCG_POSTPROCESS_CLASSIFY, in,
      G_N_ELEMENTS (in), labels, 2, items, G_N_ELEMENTS (items));
  rmeta = gst_buffer_get_analytics_relation_meta (buf);
  g_assert_nonnull (rmeta);
  while (n < 4
      && gst_analytics_relation_meta_iterate (rmeta, &state,
          gst_analytics_cls_mtd_get_mtd_type (), &cls[n]))
    n++;
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (gst_analytics_cls_mtd_get_length (&cls[0]), ==, 2);
  g_assert_cmpstr (g_quark_to_string (gst_analytics_cls_mtd_get_quark (&cls[0],
                       0)),
      ==, "dog");
  g_assert_cmpfloat_with_epsilon (gst_analytics_cls_mtd_get_level (&cls[0], 0),
      0.7f, 1e-6);
  g_assert_cmpstr (g_quark_to_string (gst_analytics_cls_mtd_get_quark (&cls[0],
                       1)),
      ==, "cat");
  g_assert_cmpstr (g_quark_to_string (gst_analytics_cls_mtd_get_quark (&cls[1],
                       1)),
      ==, "class-9");
  g_assert_cmpuint (collect_od (rmeta, od, 4), ==, 1);
  g_assert_cmpint (gst_analytics_relation_meta_get_relation (rmeta, od[0].id,
                       cls[1].id),
      ==, GST_ANALYTICS_REL_TYPE_RELATE_TO);
  g_assert_cmpint (gst_analytics_relation_meta_get_relation (rmeta, od[0].id,
                       cls[0].id),
      ==, GST_ANALYTICS_REL_TYPE_NONE);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/results-analytics/detections", test_detections);
  g_test_add_func ("/results-analytics/classes", test_classes);
  return g_test_run ();
}
#endif
