/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GstCudaGraphResultsMeta (issue 35): what is added is read back through
 * the accessors, class names come from the labels or read "class-N",
 * results an engine could write wrongly (NaN or infinite boxes, negative
 * sizes, labels past the range, counts past the maxima) are dropped or
 * bounded, and copies keep the meta while other transforms drop it.
 */
#include <gst/gst.h>
#include <math.h>

#include "gcg-gst-test-util.h"
#include "gstcudagraphresultsmeta.h"

static GcgResult
result (gfloat x, gfloat y, gfloat w, gfloat h, gfloat conf, gint label,
    guint item)
{
  GcgResult r = { x, y, w, h, conf, label, item, 0 };

  return r;
}

static void
labels_init (GQuark labels[3])
{
  labels[0] = g_quark_from_static_string ("person");
  labels[1] = g_quark_from_static_string ("car");
  labels[2] = 0;                /* a blank line of the labels file */
}

/* Detections of two items: each read back with its class name. */
static void
test_add_read (void)
{
  g_autoptr (GstBuffer) buf = gst_buffer_new ();
  GQuark labels[3];
  const GcgResult in[] = {
    result (10, 20, 30, 40, 0.9f, 0, 0),
    result (1.5f, 2.5f, 3, 4, 0.5f, 1, 1),
    result (0, 0, 8, 8, 0.25f, 2, 1),
  };
  const GstCudaGraphResultsItem items[] = {
    { -1, 0, 0, 0, 640, 480 },
    { 7, g_quark_from_static_string ("face"), 100, 50, 64, 64 },
  };
  GstCudaGraphResultsMeta *meta;
  GcgResult *r;

  labels_init (labels);
  g_assert_null (gst_cuda_graph_buffer_get_results_meta (buf));
  meta = gst_cuda_graph_buffer_add_results_meta (buf, GCG_POSTPROCESS_DETECT,
      in, G_N_ELEMENTS (in), labels, 3, items, 2);
  g_assert_nonnull (meta);
  g_assert_true (gst_cuda_graph_buffer_get_results_meta (buf) == meta);
  g_assert_cmpuint (meta->kind, ==, GCG_POSTPROCESS_DETECT);
  g_assert_cmpuint (gst_cuda_graph_results_meta_get_n_results (meta), ==, 3);
  r = gst_cuda_graph_results_meta_get_result (meta, 1);
  g_assert_nonnull (r);
  g_assert_cmpfloat (r->x, ==, 1.5f);
  g_assert_cmpfloat (r->height, ==, 4);
  g_assert_cmpfloat (r->confidence, ==, 0.5f);
  g_assert_cmpint (r->label, ==, 1);
  g_assert_cmpuint (r->item, ==, 1);
  g_assert_cmpstr (gst_cuda_graph_results_meta_get_label_name (meta, 0), ==,
      "person");
  g_assert_cmpstr (gst_cuda_graph_results_meta_get_label_name (meta, 1), ==,
      "car");
  g_assert_cmpstr (gst_cuda_graph_results_meta_get_label_name (meta, 2), ==,
      "class-2");
  g_assert_null (gst_cuda_graph_results_meta_get_result (meta, 3));
  g_assert_cmpuint (gst_cuda_graph_results_meta_get_label (meta, 3), ==, 0);
  g_assert_null (gst_cuda_graph_results_meta_get_label_name (meta, 3));
  g_assert_cmpint (gst_cuda_graph_results_meta_get_item (meta, 1)->roi_id, ==,
      7);
  g_assert_cmpstr (
      g_quark_to_string (
          gst_cuda_graph_results_meta_get_item (meta, 1)->roi_type),
      ==, "face");
  g_assert_null (gst_cuda_graph_results_meta_get_item (meta, 2));
}

/* A frame without results still says it was processed: an empty meta. */
static void
test_empty (void)
{
  g_autoptr (GstBuffer) buf = gst_buffer_new ();
  GstCudaGraphResultsMeta *meta = gst_cuda_graph_buffer_add_results (buf,
      GCG_POSTPROCESS_CLASSIFY, NULL, 0, NULL, 0, NULL, 0);

  g_assert_nonnull (meta);
  g_assert_cmpuint (gst_cuda_graph_results_meta_get_n_results (meta), ==, 0);
  g_assert_null (gst_cuda_graph_results_meta_get_result (meta, 0));
}

/* Boxes that are not finite, negative sizes, coordinates no frame has and
 * confidences that are not numbers are dropped; the rest keep their
 * order.  Items with such rectangles are zeroed there. */
static void
test_bad_results (void)
{
  g_autoptr (GstBuffer) buf = gst_buffer_new ();
  const GcgResult in[] = {
    result (NAN, 0, 1, 1, 0.5f, 0, 0),
    result (0, 0, INFINITY, 1, 0.5f, 0, 0),
    result (0, -INFINITY, 1, 1, 0.5f, 0, 0),
    result (0, 0, 1, -1, 0.5f, 0, 0),
    result (0, 0, 1, 1, NAN, 0, 0),
    result (3e9f, 0, 1, 1, 0.5f, 0, 0),
    result (1, 2, 3, 4, 0.75f, 0, 0),
    result (0, 0, 0, 0, 0.125f, 0, 9),
  };
  const GstCudaGraphResultsItem items[] = {
    { -5, 0, NAN, 1, -4, INFINITY },
  };
  GstCudaGraphResultsMeta *meta;
  GstCudaGraphResultsItem *it;

  meta = gst_cuda_graph_buffer_add_results_meta (buf, GCG_POSTPROCESS_DETECT,
      in, G_N_ELEMENTS (in), NULL, 0, items, 1);
  g_assert_cmpuint (gst_cuda_graph_results_meta_get_n_results (meta), ==, 2);
  g_assert_cmpfloat (
      gst_cuda_graph_results_meta_get_result (meta, 0)->confidence, ==, 0.75f);
  /* An item index past the items is kept: the box is still true. */
  g_assert_cmpuint (gst_cuda_graph_results_meta_get_result (meta, 1)->item, ==,
      9);
  it = gst_cuda_graph_results_meta_get_item (meta, 0);
  g_assert_cmpint (it->roi_id, ==, -1);
  g_assert_cmpfloat (it->x, ==, 0);
  g_assert_cmpfloat (it->y, ==, 1);
  g_assert_cmpfloat (it->width, ==, 0);
  g_assert_cmpfloat (it->height, ==, 0);
}

/* Class indices the labels do not cover read "class-N"; outside 0 to
 * 65535, "class-invalid" (a bounded number of quarks). */
static void
test_labels_out_of_range (void)
{
  g_autoptr (GstBuffer) buf = gst_buffer_new ();
  GQuark labels[3];
  const GcgResult in[] = {
    result (0, 0, 1, 1, 1, 17, 0),
    result (0, 0, 1, 1, 1, -1, 0),
    result (0, 0, 1, 1, 1, 65536, 0),
    result (0, 0, 1, 1, 1, G_MININT32, 0),
    result (0, 0, 1, 1, 1, 65535, 0),
  };
  GstCudaGraphResultsMeta *meta;

  labels_init (labels);
  meta = gst_cuda_graph_buffer_add_results_meta (buf, GCG_POSTPROCESS_CLASSIFY,
      in, G_N_ELEMENTS (in), labels, 3, NULL, 0);
  g_assert_cmpstr (gst_cuda_graph_results_meta_get_label_name (meta, 0), ==,
      "class-17");
  g_assert_cmpstr (gst_cuda_graph_results_meta_get_label_name (meta, 1), ==,
      "class-invalid");
  g_assert_cmpstr (gst_cuda_graph_results_meta_get_label_name (meta, 2), ==,
      "class-invalid");
  g_assert_cmpstr (gst_cuda_graph_results_meta_get_label_name (meta, 3), ==,
      "class-invalid");
  g_assert_cmpstr (gst_cuda_graph_results_meta_get_label_name (meta, 4), ==,
      "class-65535");
  g_assert_cmpuint (gst_cuda_graph_results_label_quark (labels, 3, 1), ==,
      labels[1]);
  g_assert_cmpuint (gst_cuda_graph_results_label_quark (NULL, 0, 1), ==,
      g_quark_from_string ("class-1"));
}

/* Counts past the maxima are cut there; a lying public count is never
 * read past the arrays (accessors, copies). */
static void
test_huge_counts (void)
{
  g_autoptr (GstBuffer) buf = gst_buffer_new ();
  g_autoptr (GstBuffer) copy = NULL;
  guint n = GST_CUDA_GRAPH_RESULTS_META_MAX_RESULTS + 100;
  guint n_items = GST_CUDA_GRAPH_RESULTS_META_MAX_ITEMS + 10;
  g_autofree GcgResult *in = g_new0 (GcgResult, n);
  g_autofree GstCudaGraphResultsItem *items =
      g_new0 (GstCudaGraphResultsItem, n_items);
  GstCudaGraphResultsMeta *meta;

  for (guint i = 0; i < n; i++)
    in[i] = result (i % 100, 0, 1, 1, 0.5f, i % 7, i % 3);
  meta = gst_cuda_graph_buffer_add_results_meta (buf, GCG_POSTPROCESS_DETECT,
      in, n, NULL, 0, items, n_items);
  g_assert_nonnull (meta);
  g_assert_cmpuint (meta->n_results, ==,
      GST_CUDA_GRAPH_RESULTS_META_MAX_RESULTS);
  g_assert_cmpuint (meta->n_items, ==, GST_CUDA_GRAPH_RESULTS_META_MAX_ITEMS);

  meta->n_results = G_MAXUINT;
  meta->n_items = G_MAXUINT;
  g_assert_cmpuint (gst_cuda_graph_results_meta_get_n_results (meta), ==,
      GST_CUDA_GRAPH_RESULTS_META_MAX_RESULTS);
  g_assert_null (gst_cuda_graph_results_meta_get_result (meta,
      GST_CUDA_GRAPH_RESULTS_META_MAX_RESULTS));
  g_assert_null (gst_cuda_graph_results_meta_get_item (meta,
      GST_CUDA_GRAPH_RESULTS_META_MAX_ITEMS));
  copy = gst_buffer_copy (buf);
  meta = gst_cuda_graph_buffer_get_results_meta (copy);
  g_assert_cmpuint (meta->n_results, ==,
      GST_CUDA_GRAPH_RESULTS_META_MAX_RESULTS);
}

static void
assert_same (GstCudaGraphResultsMeta *a, GstCudaGraphResultsMeta *b)
{
  g_assert_true (a != b);
  g_assert_cmpuint (a->kind, ==, b->kind);
  g_assert_cmpuint (a->n_results, ==, b->n_results);
  g_assert_cmpuint (a->n_items, ==, b->n_items);
  g_assert_cmpmem (a->results, a->n_results * sizeof (GcgResult), b->results,
      b->n_results * sizeof (GcgResult));
  g_assert_cmpmem (a->labels, a->n_results * sizeof (GQuark), b->labels,
      b->n_results * sizeof (GQuark));
  g_assert_cmpmem (a->items, a->n_items * sizeof (GstCudaGraphResultsItem),
      b->items, b->n_items * sizeof (GstCudaGraphResultsItem));
}

/* Copies keep the meta (a region too: the boxes are in the source
 * frame's pixels, not the buffer's bytes); other transforms drop it. */
static void
test_copy_transform (void)
{
  g_autoptr (GstBuffer) buf = gst_buffer_new_allocate (NULL, 64, NULL);
  g_autoptr (GstBuffer) copy = NULL;
  g_autoptr (GstBuffer) region = NULL;
  g_autoptr (GstBuffer) scaled = gst_buffer_new ();
  GQuark labels[3];
  const GcgResult in[] = { result (1, 2, 3, 4, 0.5f, 1, 0) };
  const GstCudaGraphResultsItem items[] = { { 3, 0, 0, 0, 10, 10 } };
  GstCudaGraphResultsMeta *meta;
  const GstMetaInfo *info = gst_cuda_graph_results_meta_get_info ();

  labels_init (labels);
  meta = gst_cuda_graph_buffer_add_results (buf, GCG_POSTPROCESS_DETECT, in, 1,
      labels, 3, items, 1);
  copy = gst_buffer_copy (buf);
  assert_same (meta, gst_cuda_graph_buffer_get_results_meta (copy));
  region = gst_buffer_copy_region (buf, GST_BUFFER_COPY_ALL, 8, 16);
  assert_same (meta, gst_cuda_graph_buffer_get_results_meta (region));
  g_assert_false (info->transform_func (scaled, (GstMeta *) meta, buf,
      g_quark_from_static_string ("gst-video-scale"), NULL));
  g_assert_null (gst_cuda_graph_buffer_get_results_meta (scaled));
}

/* Programmer errors are refused, not acted on. */
static void
test_bad_calls (void)
{
  g_autoptr (GstBuffer) buf = gst_buffer_new ();

  g_test_expect_message ("GcgGst", G_LOG_LEVEL_CRITICAL, "*kind*");
  g_assert_null (gst_cuda_graph_buffer_add_results_meta (buf,
      GCG_POSTPROCESS_NONE, NULL, 0, NULL, 0, NULL, 0));
  g_test_assert_expected_messages ();
  g_test_expect_message ("GcgGst", G_LOG_LEVEL_CRITICAL, "*results*");
  g_assert_null (gst_cuda_graph_buffer_add_results_meta (buf,
      GCG_POSTPROCESS_DETECT, NULL, 3, NULL, 0, NULL, 0));
  g_test_assert_expected_messages ();
  g_assert_null (gst_cuda_graph_buffer_get_results_meta (buf));
}

int
main (int argc, char **argv)
{
  /* A registry of its own, as every GStreamer test here: the default
   * one's path is built once and kept (a leak to LeakSanitizer). */
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/results-meta/add-read", test_add_read);
  g_test_add_func ("/results-meta/empty", test_empty);
  g_test_add_func ("/results-meta/bad-results", test_bad_results);
  g_test_add_func ("/results-meta/labels-out-of-range",
      test_labels_out_of_range);
  g_test_add_func ("/results-meta/huge-counts", test_huge_counts);
  g_test_add_func ("/results-meta/copy-transform", test_copy_transform);
  g_test_add_func ("/results-meta/bad-calls", test_bad_calls);
  return g_test_run ();
}
