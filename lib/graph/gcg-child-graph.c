/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Inserting a foreign CUgraph into a stream capture, and the check that
 * the driver will accept it as a child graph node.
 */
#include "gcg-child-graph-private.h"
#include "gcg-error.h"

CUgraphNode *
gcg__graph_get_nodes (CUgraph graph, size_t *n, GError **error)
{
  g_autofree CUgraphNode *nodes = NULL;
  size_t count = 0;

  if (!GCG_CU_OK (error, cuGraphGetNodes, graph, NULL, &count))
    return NULL;
  nodes = g_new0 (CUgraphNode, MAX (count, 1));
  /* The graph may not change between the calls (it is ours to read
   * now), but the driver writes no more than count either way. */
  if (!GCG_CU_OK (error, cuGraphGetNodes, graph, nodes, &count))
    return NULL;
  *n = count;
  return g_steal_pointer (&nodes);
}

static gboolean check_depth (CUgraph graph, guint depth, GError **error);

/* Checks one node: alloc/free nodes are refused, child graphs walked. */
static gboolean
check_node (CUgraphNode node, guint depth, GError **error)
{
  CUgraphNodeType type;
  CUgraph child = NULL;

  if (!GCG_CU_OK (error, cuGraphNodeGetType, node, &type))
    return FALSE;
  if (type == CU_GRAPH_NODE_TYPE_MEM_ALLOC
      || type == CU_GRAPH_NODE_TYPE_MEM_FREE) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "The model's graph holds a memory %s node (it allocates or frees "
        "memory during replay, as PyTorch's cudaMallocAsync allocator "
        "backend records); CUDA cannot nest such a graph in another. "
        "Capture the model with PyTorch's native allocator "
        "(PYTORCH_CUDA_ALLOC_CONF without backend:cudaMallocAsync)",
        type == CU_GRAPH_NODE_TYPE_MEM_ALLOC ? "allocation" : "free");
    return FALSE;
  }
  if (type != CU_GRAPH_NODE_TYPE_GRAPH)
    return TRUE;
  if (!GCG_CU_OK (error, cuGraphChildGraphNodeGetGraph, node, &child))
    return FALSE;
  return check_depth (child, depth + 1, error);
}

static gboolean
check_depth (CUgraph graph, guint depth, GError **error)
{
  g_autofree CUgraphNode *nodes = NULL;
  size_t n = 0;

  if (depth > GCG_CHILD_GRAPH_MAX_DEPTH) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "The model's graph nests child graphs more than %d deep",
        GCG_CHILD_GRAPH_MAX_DEPTH);
    return FALSE;
  }
  nodes = gcg__graph_get_nodes (graph, &n, error);
  if (nodes == NULL)
    return FALSE;
  for (size_t i = 0; i < n; i++) {
    if (!check_node (nodes[i], depth, error))
      return FALSE;
  }
  return TRUE;
}

gboolean
gcg__child_graph_check (CUgraph graph, GError **error)
{
  g_return_val_if_fail (graph != NULL, FALSE);
  return check_depth (graph, 0, error);
}

gboolean
gcg__child_graph_add_to_capture (GcgStream *stream, CUgraph graph,
    GError **error)
{
  CUstream cu = gcg__stream_get_cu (stream);
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  CUgraph capturing = NULL;
  const CUgraphNode *deps = NULL;
  size_t n_deps = 0;
  CUgraphNode node = NULL;

  g_return_val_if_fail (graph != NULL, FALSE);
  if (!GCG_CU_OK (error, cuStreamGetCaptureInfo, cu, &status, NULL, &capturing,
          &deps, &n_deps))
    return FALSE;
  if (status != CU_STREAM_CAPTURE_STATUS_ACTIVE || capturing == NULL) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_CAPTURE_STATE,
        "A graph can only be added to a stream that is capturing");
    return FALSE;
  }
  /* The driver's deps array stays valid until the next call on the
   * stream; the node is added before that call. */
  if (!GCG_CU_OK (error, cuGraphAddChildGraphNode, &node, capturing, deps,
          n_deps, graph))
    return FALSE;
  return GCG_CU_OK (error, cuStreamUpdateCaptureDependencies, cu, &node, 1,
      CU_STREAM_SET_CAPTURE_DEPENDENCIES);
}
