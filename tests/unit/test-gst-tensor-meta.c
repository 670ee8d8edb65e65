/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GStreamer's own GstTensorMeta (gstreamer-analytics-1.0, 1.26+) on
 * cudagraphpreprocess's output, CPU backend: one tensor named after the
 * element, whose dims, data type and dims order say what our GstCudaGraphTensorMeta
 * says, and whose data is the output buffer's memory (not a copy), for
 * each layout, type and channel count, with a batch of ROIs too.
 *
 * Where the plugin is built without gstreamer-analytics-1.0 >= 1.26
 * (Debian 12's GStreamer 1.22) it attaches no GstTensorMeta: the test
 * skips, saying so.
 */
#include "gcg-gst-test-util.h"

#include "gstcudagraphtensormeta.h"

#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>

#define PREPROCESS "cudagraphpreprocess backend=cpu"

static const guint8 gray100[4] = { 100, 100, 100, 255 };

typedef struct
{
  const gchar *props;           /* beyond the backend */
  guint n_rois;                 /* ROI metas put on the frame */
  gsize dims[4];
  GstTensorDataType type;
  gsize item_size;              /* bytes per value */
} Case;

static const Case cases[] = {
  { "width=8 height=4", 0, { 1, 3, 4, 8 }, GST_TENSOR_DATA_TYPE_FLOAT32, 4 },
  { "width=8 height=4 layout=nhwc tensor-type=float16 channels=bgr", 0,
      { 1, 4, 8, 3 }, GST_TENSOR_DATA_TYPE_FLOAT16, 2 },
  { "width=6 height=2 tensor-type=uint8 channels=gray", 0, { 1, 1, 2, 6 },
      GST_TENSOR_DATA_TYPE_UINT8, 1 },
  { "width=4 height=4 max-rois=3 tensor-type=uint8", 2, { 3, 3, 4, 4 },
      GST_TENSOR_DATA_TYPE_UINT8, 1 },
};

/* The tensor's data is @out's memory: the same bytes at the same place. */
static void
assert_same_memory (GstBuffer *data, GstBuffer *out)
{
  GstMapInfo a, b;

  g_assert_true (gst_buffer_map (data, &a, GST_MAP_READ));
  g_assert_true (gst_buffer_map (out, &b, GST_MAP_READ));
  g_assert_cmpuint (a.size, ==, b.size);
  g_assert_true (a.data == b.data);
  gst_buffer_unmap (out, &b);
  gst_buffer_unmap (data, &a);
}

static void
check_tensor (GstBuffer *out, const Case *c)
{
  GstCudaGraphTensorMeta *ours = gst_cuda_graph_buffer_get_tensor_meta (out);
  GstTensorMeta *tmeta = gst_buffer_get_tensor_meta (out);
  const GstTensor *t;
  gsize n_dims = 0, *dims, n = 1;

  g_assert_nonnull (ours);
  g_assert_nonnull (tmeta);
  g_assert_cmpuint (tmeta->num_tensors, ==, 1);
  t = gst_tensor_meta_get (tmeta, 0);
  g_assert_nonnull (t);
  g_assert_cmpint (gst_tensor_meta_get_index_from_id (tmeta,
                       g_quark_from_string ("cudagraphpreprocess")),
      ==, 0);
  g_assert_cmpint (t->layout, ==, GST_TENSOR_LAYOUT_CONTIGUOUS);
  g_assert_cmpint (t->data_type, ==, c->type);
  g_assert_cmpint (t->dims_order, ==, GST_TENSOR_DIM_ORDER_ROW_MAJOR);
  dims = gst_tensor_get_dims ((GstTensor *) t, &n_dims);
  g_assert_cmpuint (n_dims, ==, 4);
  g_assert_cmpuint (ours->n_dims, ==, 4);
  for (guint i = 0; i < 4; i++) {
    g_assert_cmpuint (dims[i], ==, c->dims[i]);
    g_assert_cmpuint (dims[i], ==, ours->shape[i]);
    n *= dims[i];
  }
  g_assert_cmpuint (ours->memory, ==, GST_CUDA_GRAPH_TENSOR_MEMORY_SYSTEM);
  g_assert_cmpuint (ours->size, ==, n * c->item_size);
  g_assert_cmpuint (gst_buffer_get_size (t->data), ==, ours->size);
  g_assert_cmpuint (gst_buffer_get_size (out), ==, ours->size);
  assert_same_memory (t->data, out);
}

static void
test_case (gconstpointer data)
{
  const Case *c = data;
  const gchar *caps = "video/x-raw,format=RGBA,width=16,height=8";
  g_autofree gchar *launch = g_strdup_printf ("%s %s", PREPROCESS, c->props);
  GstHarness *h = gcg_test_harness_new (launch, caps, NULL);

  /* Two frames: each has its own meta, not one more tensor per frame. */
  for (guint f = 0; f < 2; f++) {
    GstBuffer *in = gcg_test_solid_new (caps, gray100, 4, 0);
    GstBuffer *out;

    for (guint r = 0; r < c->n_rois; r++)
      gst_buffer_add_video_region_of_interest_meta (in, "roi", r * 8, 0, 8, 8);
    out = gcg_test_push_pull (h, in);
    check_tensor (out, c);
    /* No ROI meta: the whole frame is the one item. */
    g_assert_cmpuint (gst_cuda_graph_buffer_get_tensor_meta (out)->n_items, ==,
        MAX (c->n_rois, 1));
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

static void
add_tests (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autofree gchar *path =
        g_strdup_printf ("/gst/tensor-meta/%s", cases[i].props);

    g_strdelimit (path + strlen ("/gst/tensor-meta/"), " =", '-');
    g_test_add_data_func (path, &cases[i], test_case);
  }
}
#else
static void
test_absent (void)
{
  g_test_skip ("the plugin is built without gstreamer-analytics-1.0 >= 1.26 "
               "(GStreamer 1.22 or 1.24): it attaches no GstTensorMeta");
}

static void
add_tests (void)
{
  g_test_add_func ("/gst/tensor-meta/absent", test_absent);
}
#endif

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  add_tests ();
  return g_test_run ();
}
