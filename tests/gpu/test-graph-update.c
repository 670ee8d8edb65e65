/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Refreshing an instantiated graph from a new capture: in place
 * (cuGraphExecUpdate) when only kernel arguments and addresses changed,
 * by instantiating anew when the topology changed; outputs right after
 * both, no handle leaked, failures leave the old graph working.  Skips
 * (TAP) without a driver.
 */
#include "gcg-test-chain.h"

static GcgCapture *
capture_chain (Chain *c, GcgCapturePool *pool, CUdeviceptr out, guint32 step,
    guint extra)
{
  g_autoptr (GError) error = NULL;
  GcgCapture *capture = gcg_capture_begin_with_pool (c->stream,
      GCG_CAPTURE_MODE_DEFAULT, pool, &error);

  g_assert_no_error (error);
  g_assert_true (chain_enqueue (c, out, step, extra, &error));
  g_assert_no_error (error);
  return capture;
}

/* Done-when 8. */
static void
test_update_then_reinstantiate (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GcgGraph) graph = NULL;
  g_autoptr (GcgCapture) capture = NULL;
  g_autoptr (GcgCapturePool) pool = gcg_capture_pool_new ();
  g_autoptr (GError) error = NULL;
  gboolean reinstantiated = TRUE;
  gpointer exec;
  guint32 v[CHAIN_N_SCALARS];

  if (!c->ctx)
    return;
  capture = capture_chain (c, NULL, c->out[0], 3, 0);
  graph = gcg_capture_finish (capture, &error);
  g_assert_no_error (error);
  g_clear_object (&capture);
  chain_replay_and_check (c, graph, c->out[0], 3, 0, 1);
  g_assert_true (gcg_graph_upload (graph, c->stream, &error));
  exec = gcg_graph_get_handle (graph);

  /* Same topology, new argument value (step) and new output address. */
  capture = capture_chain (c, pool, c->out[1], 5, 0);
  g_assert_true (gcg_graph_update_from_capture (graph, capture, &reinstantiated,
      &error));
  g_assert_no_error (error);
  g_assert_false (reinstantiated);
  g_assert_false (gcg_capture_is_active (capture));
  g_assert_true (gcg_graph_get_handle (graph) == exec);
  g_assert_true (gcg_graph_get_pool (graph) == pool);
  g_assert_false (gcg_graph_is_uploaded (graph));
  g_assert_cmpuint (gcg_graph_get_node_count (graph), ==, CHAIN_KERNELS);
  g_clear_object (&capture);
  /* out[0] keeps frame 1's result: the updated graph writes out[1] only. */
  chain_replay_and_check (c, graph, c->out[1], 5, 0, 2);
  chain_values (1, v);
  chain_check (c, c->out[0], 3, v, 0);

  /* Three more kernels: the topology changed, instantiate anew. */
  capture = capture_chain (c, NULL, c->out[0], 7, 3);
  g_assert_true (gcg_graph_update_from_capture (graph, capture, &reinstantiated,
      &error));
  g_assert_no_error (error);
  g_assert_true (reinstantiated);
  g_assert_null (gcg_graph_get_pool (graph));
  g_assert_cmpuint (gcg_graph_get_node_count (graph), ==, CHAIN_KERNELS + 3);
  g_clear_object (&capture);
  chain_replay_and_check (c, graph, c->out[0], 7, 3, 3);
  chain_replay_and_check (c, graph, c->out[0], 7, 3, 4);

  /* And back to the short chain, in place of the long one. */
  capture = capture_chain (c, NULL, c->out[1], 2, 0);
  g_assert_true (gcg_graph_update_from_capture (graph, capture, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&capture);
  chain_replay_and_check (c, graph, c->out[1], 2, 0, 5);
  g_assert_cmpuint (gcg_graph_get_replay_count (graph), ==, 5);
}

/* A refresh that fails leaves the graph replaying the old work. */
static void
test_failed_update_keeps_old_graph (ChainFixture *f, gconstpointer data)
{
  Chain *c = &f->chain;
  g_autoptr (GcgGraph) graph = NULL;
  g_autoptr (GcgCapture) capture = NULL;
  g_autoptr (GError) error = NULL;
  gboolean reinstantiated = FALSE;

  if (!c->ctx)
    return;
  capture = capture_chain (c, NULL, c->out[0], 3, 0);
  graph = gcg_capture_finish (capture, &error);
  g_clear_object (&capture);

  /* Topology changed and instantiation fails. */
  capture = capture_chain (c, NULL, c->out[1], 5, 1);
  g_assert_true (gcg_fault_inject ("cuGraphInstantiateWithFlags:1", &error));
  g_assert_false (gcg_graph_update_from_capture (graph, capture,
      &reinstantiated, &error));
  g_assert_true (gcg_fault_inject (NULL, NULL));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
  g_clear_error (&error);
  g_assert_false (gcg_capture_is_active (capture));
  g_clear_object (&capture);
  assert_stream_idle (c);
  g_assert_cmpuint (gcg_graph_get_node_count (graph), ==, CHAIN_KERNELS);
  chain_replay_and_check (c, graph, c->out[0], 3, 0, 6);

  /* An invalidated capture cannot refresh anything. */
  capture = capture_chain (c, NULL, c->out[1], 5, 0);
  g_assert_false (gcg_stream_synchronize (c->stream, &error));
  g_clear_error (&error);
  g_assert_false (gcg_graph_update_from_capture (graph, capture, NULL, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_CAPTURE_INVALIDATED);
  g_clear_error (&error);
  g_clear_object (&capture);
  chain_replay_and_check (c, graph, c->out[0], 3, 0, 7);

  /* A refused in-place update falls back to a new instantiation. */
  capture = capture_chain (c, NULL, c->out[1], 5, 0);
  g_assert_true (gcg_fault_inject ("cuGraphExecUpdate:1", &error));
  g_assert_true (gcg_graph_update_from_capture (graph, capture, &reinstantiated,
      &error));
  g_assert_true (gcg_fault_inject (NULL, NULL));
  g_assert_no_error (error);
  g_assert_true (reinstantiated);
  g_clear_object (&capture);
  chain_replay_and_check (c, graph, c->out[1], 5, 0, 8);
}

#define ADD CHAIN_TEST_ADD

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  ADD ("/gpu/graph-update/update-then-reinstantiate",
      test_update_then_reinstantiate);
  ADD ("/gpu/graph-update/failed-update-keeps-old-graph",
      test_failed_update_keeps_old_graph);

  return g_test_run ();
}
