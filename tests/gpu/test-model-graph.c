/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A user's graph inside ours, on a real GPU, without PyTorch: the "model"
 * is a graph captured here that copies its static input to its static
 * output.  The parent graph writes the input from a per-frame host value,
 * replays the model as a child graph node and copies its output out; the
 * result follows the host value frame after frame with one capture.  The
 * model graph may go (owner released) while the parent still replays,
 * since the driver cloned it; graphs that allocate during replay are
 * refused, and the driver would refuse them too.  Eager launches give the
 * same result.  Skips (TAP) without a driver.
 */
#include "gcg-gpu-fixture.h"
#include "gcg-graph-private.h"

#define N 256                   /* 32-bit words per tensor */

typedef struct
{
  CUdeviceptr in, out, copy;    /* model input, model output, copy-out */
  guint32 *host;                /* pinned: the per-frame value */
} Buffers;

static void
buffers_init (Buffers *b)
{
  g_assert_cmpint (GCG_CU (cuMemAlloc, &b->in, N * 4), ==, 0);
  g_assert_cmpint (GCG_CU (cuMemAlloc, &b->out, N * 4), ==, 0);
  g_assert_cmpint (GCG_CU (cuMemAlloc, &b->copy, N * 4), ==, 0);
  g_assert_cmpint (GCG_CU (cuMemHostAlloc, (void **) &b->host, N * 4, 0), ==,
      0);
}

static void
buffers_clear (Buffers *b)
{
  GCG_CU_WARN (cuMemFree, b->in);
  GCG_CU_WARN (cuMemFree, b->out);
  GCG_CU_WARN (cuMemFree, b->copy);
  GCG_CU_WARN (cuMemFreeHost, b->host);
}

static gboolean
model_body (GcgStream *stream, gpointer data, GError **error)
{
  Buffers *b = data;

  return GCG_CU_OK (error, cuMemcpyDtoDAsync, b->out, b->in, N * 4,
      gcg__stream_get_cu (stream));
}

typedef struct
{
  Buffers *b;
  GcgModelGraph *model;
} Parent;

/* Input from the host value, the model, copy-out. */
static gboolean
parent_body (GcgStream *stream, gpointer data, GError **error)
{
  Parent *p = data;
  CUstream cu = gcg__stream_get_cu (stream);

  return GCG_CU_OK (error, cuMemcpyHtoDAsync, p->b->in, p->b->host, N * 4, cu)
      && gcg_model_graph_add_to_capture (p->model, stream, error)
      && GCG_CU_OK (error, cuMemcpyDtoDAsync, p->b->copy, p->b->out, N * 4, cu);
}

static void
fill_host (Buffers *b, guint32 value)
{
  for (guint i = 0; i < N; i++)
    b->host[i] = value + i;
}

static void
assert_copy (Fixture *f, Buffers *b, guint32 value)
{
  g_autofree guint32 *got = g_new0 (guint32, N);

  g_assert_true (gcg_stream_synchronize (f->stream, NULL));
  g_assert_cmpint (GCG_CU (cuMemcpyDtoH, got, b->copy, N * 4), ==, 0);
  for (guint i = 0; i < N; i++)
    g_assert_cmpuint (got[i], ==, value + i);
}

static GcgModelGraph *
make_model (Fixture *f, Buffers *b)
{
  g_autoptr (GError) error = NULL;
  GcgGraph *user = gcg_capture_callable (f->stream, GCG_CAPTURE_MODE_DEFAULT,
      model_body, b, &error);
  const gint64 shape[] = { N };
  GcgModelGraph *model;

  g_assert_no_error (error);
  /* The user's GcgGraph is the owner: it holds the CUgraph. */
  model = gcg_model_graph_new (f->ctx,
      (guint64) (guintptr) gcg__graph_get_cu (user), user, g_object_unref,
      &error);
  g_assert_no_error (error);
  g_assert_true (gcg_model_graph_set_input (model, b->in, shape, 1,
      GCG_MODEL_DTYPE_INT32, &error));
  g_assert_cmpint (gcg_model_graph_add_output (model, b->out, shape, 1,
                       GCG_MODEL_DTYPE_INT32, &error),
      ==, 0);
  g_assert_no_error (error);
  return model;
}

static void
test_child_replay (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgGraph) parent = NULL;
  Buffers b = { 0 };
  Parent p = { &b, NULL };
  gint live;

  if (!f->ctx)
    return;
  buffers_init (&b);
  live = gcg__graph_debug_live_handles ();
  p.model = make_model (f, &b);
  parent = gcg_capture_callable (f->stream, GCG_CAPTURE_MODE_DEFAULT,
      parent_body, &p, &error);
  g_assert_no_error (error);
  /* Host copy, child graph, copy-out. */
  g_assert_cmpuint (gcg_graph_get_node_count (parent), ==, 3);
  for (guint32 frame = 0; frame < 5; frame++) {
    fill_host (&b, 1000 * frame + 7);
    g_assert_true (gcg_graph_launch (parent, f->stream, &error));
    assert_copy (f, &b, 1000 * frame + 7);
  }
  /* The parent holds a clone: the model and its owner may go first, as
   * long as the memory stays. */
  g_clear_object (&p.model);
  fill_host (&b, 424242);
  g_assert_true (gcg_graph_launch (parent, f->stream, &error));
  assert_copy (f, &b, 424242);
  g_assert_cmpuint (gcg_graph_get_replay_count (parent), ==, 6);
  g_clear_object (&parent);
  g_assert_cmpint (gcg__graph_debug_live_handles (), ==, live);
  buffers_clear (&b);
}

/* The eager path launches the user's graph itself. */
static void
test_eager_launch (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgModelGraph) model = NULL;
  CUstream cu;
  Buffers b = { 0 };

  if (!f->ctx)
    return;
  buffers_init (&b);
  model = make_model (f, &b);
  cu = gcg__stream_get_cu (f->stream);
  for (guint32 frame = 0; frame < 3; frame++) {
    fill_host (&b, 77 * frame);
    g_assert_cmpint (GCG_CU (cuMemcpyHtoDAsync, b.in, b.host, N * 4, cu), ==,
        0);
    g_assert_true (gcg_model_graph_launch (model, f->stream, &error));
    g_assert_no_error (error);
    g_assert_cmpint (GCG_CU (cuMemcpyDtoDAsync, b.copy, b.out, N * 4, cu), ==,
        0);
    assert_copy (f, &b, 77 * frame);
  }
  /* Outside a capture the model cannot be nested. */
  g_assert_false (gcg_model_graph_add_to_capture (model, f->stream, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_CAPTURE_STATE);
  g_clear_object (&model);
  buffers_clear (&b);
}

static gboolean
alloc_body (GcgStream *stream, gpointer data, GError **error)
{
  CUstream cu = gcg__stream_get_cu (stream);
  CUdeviceptr tmp = 0;

  return GCG_CU_OK (error, cuMemAllocAsync, &tmp, 4096, cu)
      && GCG_CU_OK (error, cuMemsetD32Async, tmp, 1, 1024, cu)
      && GCG_CU_OK (error, cuMemFreeAsync, tmp, cu);
}

static void
count_destroy (gpointer data)
{
  (*(guint *) data)++;
}

/* A graph that allocates is refused with the reason, and the driver
 * indeed would not nest it. */
static void
test_alloc_nodes_refused (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgGraph) user = NULL;
  CUgraph outer = NULL;
  CUgraphNode node = NULL;
  guint destroyed = 0;

  if (!f->ctx)
    return;
  user = gcg_capture_callable (f->stream, GCG_CAPTURE_MODE_DEFAULT, alloc_body,
      NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcg_graph_get_alloc_node_count (user), ==, 1);
  g_assert_null (gcg_model_graph_new (f->ctx,
      (guint64) (guintptr) gcg__graph_get_cu (user), &destroyed, count_destroy,
      &error));
  g_assert_cmpuint (destroyed, ==, 1);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "allocation"));
  g_assert_cmpint (GCG_CU (cuGraphCreate, &outer, 0), ==, 0);
  g_assert_cmpint (GCG_CU (cuGraphAddChildGraphNode, &node, outer, NULL, 0,
                       gcg__graph_get_cu (user)),
      !=, 0);
  GCG_CU_WARN (cuGraphDestroy, outer);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add ("/model-graph/child-replay", Fixture, NULL, fixture_setup,
      test_child_replay, fixture_teardown);
  g_test_add ("/model-graph/eager-launch", Fixture, NULL, fixture_setup,
      test_eager_launch, fixture_teardown);
  g_test_add ("/model-graph/alloc-nodes-refused", Fixture, NULL, fixture_setup,
      test_alloc_nodes_refused, fixture_teardown);
  return g_test_run ();
}
