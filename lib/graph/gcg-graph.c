/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgGraph:
 *
 * A captured and instantiated CUDA graph: the kernels, copies and memsets
 * of one frame, replayed with one gcg_graph_launch() per frame.
 *
 * The graph records device addresses and kernel arguments as they were
 * during the capture.  A value that changes per frame either lives in
 * device memory the kernels read (a #GcgParamBlock, refreshed by a
 * stream-ordered copy before each launch) or is set as a kernel node's
 * argument on the executable graph before the launch (what the frame
 * engine does for its own kernels).  When the work itself changes (new
 * buffers, new sizes), capture again and call
 * gcg_graph_update_from_capture(): the executable graph is updated in
 * place when the topology is the same, and instantiated anew otherwise.
 *
 * A graph holds a reference on the #GcgCapturePool of its capture, which
 * keeps the buffers the graph touches alive.  Before it lets go of that
 * pool (finalize, or an update that brings another pool) it waits for the
 * streams it was launched on, so no launch still in flight reads buffers
 * the pool then releases.  Graphs whose capture
 * allocated memory (graph memory-allocation nodes, see #GcgCapturePool)
 * are instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH.
 *
 * Launches may come from several threads; gcg_graph_update_from_capture()
 * must not run concurrently with anything else on the same graph.
 *
 * Since: 0.1
 */
#include "gcg-graph-private.h"
#include "gcg-child-graph-private.h"

#include <stdatomic.h>

struct _GcgGraph
{
  GObject parent_instance;

  GcgContext *context;
  GcgCapturePool *pool;
  CUgraph graph;
  CUgraphExec exec;
  guint n_nodes;
  guint n_alloc_nodes;

  atomic_uint_fast64_t replays;
  gint uploaded;                /* atomic */

  /* Streams launched on while holding a pool, to wait for before the pool
   * goes; last_stream (atomic) keeps the per-frame check to one compare. */
  GMutex streams_lock;
  GPtrArray *streams;
  gpointer last_stream;
};

enum
{
  PROP_0,
  PROP_CONTEXT,
  PROP_POOL,
  PROP_NODE_COUNT,
  PROP_ALLOC_NODE_COUNT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];
static gint live_handles;       /* atomic: CUgraph + CUgraphExec held */

G_DEFINE_FINAL_TYPE (GcgGraph, gcg_graph, G_TYPE_OBJECT);

void
gcg__graph_handle_acquired (void)
{
  g_atomic_int_inc (&live_handles);
}

void
gcg__graph_destroy_cu (CUgraph graph)
{
  GCG_CU_WARN (cuGraphDestroy, graph);
  g_atomic_int_add (&live_handles, -1);
}

void
gcg__graph_destroy_exec (CUgraphExec exec)
{
  GCG_CU_WARN (cuGraphExecDestroy, exec);
  g_atomic_int_add (&live_handles, -1);
}

gint
gcg__graph_debug_live_handles (void)
{
  return g_atomic_int_get (&live_handles);
}

static void
gcg_graph_get_property (GObject *object, guint prop_id, GValue *value,
    GParamSpec *pspec)
{
  GcgGraph *self = GCG_GRAPH (object);

  switch (prop_id) {
    case PROP_CONTEXT:
      g_value_set_object (value, self->context);
      break;
    case PROP_POOL:
      g_value_set_object (value, self->pool);
      break;
    case PROP_NODE_COUNT:
      g_value_set_uint (value, self->n_nodes);
      break;
    case PROP_ALLOC_NODE_COUNT:
      g_value_set_uint (value, self->n_alloc_nodes);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

/* Waits for every launch of the graph so far; a stream that is capturing
 * cannot be waited for (that would end its capture) and is skipped with a
 * warning.  The context must be current. */
static void
wait_for_launches (GcgGraph *self)
{
  g_mutex_lock (&self->streams_lock);
  for (guint i = 0; self->streams && i < self->streams->len; i++) {
    CUstream s = gcg__stream_get_cu (self->streams->pdata[i]);
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;

    if (GCG_CU (cuStreamIsCapturing, s, &status) == CUDA_SUCCESS
        && status != CU_STREAM_CAPTURE_STATUS_NONE) {
      g_warning ("A graph's capture pool is released while a stream it ran "
                 "on is capturing; synchronize before dropping the graph");
      continue;
    }
    GCG_CU_WARN (cuStreamSynchronize, s);
  }
  g_clear_pointer (&self->streams, g_ptr_array_unref);
  g_atomic_pointer_set (&self->last_stream, NULL);
  g_mutex_unlock (&self->streams_lock);
}

static void
note_stream (GcgGraph *self, GcgStream *stream)
{
  if (g_atomic_pointer_get (&self->last_stream) == stream)
    return;
  g_mutex_lock (&self->streams_lock);
  if (self->streams == NULL)
    self->streams = g_ptr_array_new_with_free_func (g_object_unref);
  if (!g_ptr_array_find (self->streams, stream, NULL))
    g_ptr_array_add (self->streams, g_object_ref (stream));
  g_atomic_pointer_set (&self->last_stream, stream);
  g_mutex_unlock (&self->streams_lock);
}

/* Its own scope, so the context is popped before it may be released.  The
 * destroy calls take their handle, not the current context: without a
 * push they are still tried rather than leaked. */
static void
release_handles (GcgGraph *self)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  gboolean current;

  if (!self->exec && !self->graph && !self->streams)
    return;
  current = gcg__context_guard_enter (&guard, self->context, NULL);
  if (current && self->pool)
    wait_for_launches (self);
  /* An executable graph still in flight is freed once it completes. */
  if (self->exec)
    gcg__graph_destroy_exec (self->exec);
  if (self->graph)
    gcg__graph_destroy_cu (self->graph);
}

static void
gcg_graph_finalize (GObject *object)
{
  GcgGraph *self = GCG_GRAPH (object);

  release_handles (self);
  /* Last: the pool's buffers may still be read by the graph until here. */
  g_clear_object (&self->pool);
  g_clear_object (&self->context);
  g_clear_pointer (&self->streams, g_ptr_array_unref);
  g_mutex_clear (&self->streams_lock);

  G_OBJECT_CLASS (gcg_graph_parent_class)->finalize (object);
}

static void
gcg_graph_class_init (GcgGraphClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = gcg_graph_get_property;
  object_class->finalize = gcg_graph_finalize;

  /**
   * GcgGraph:context:
   *
   * The context the graph runs in.
   *
   * Since: 0.1
   */
  properties[PROP_CONTEXT] = g_param_spec_object ("context", "Context",
      "The context the graph runs in", GCG_TYPE_CONTEXT,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgGraph:pool:
   *
   * The capture pool whose buffers the graph keeps alive, or %NULL.
   *
   * Since: 0.1
   */
  properties[PROP_POOL] = g_param_spec_object ("pool", "Pool",
      "The capture pool the graph keeps alive", GCG_TYPE_CAPTURE_POOL,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgGraph:node-count:
   *
   * The number of nodes of the captured graph (kernels, copies, memsets,
   * allocations...).
   *
   * Since: 0.1
   */
  properties[PROP_NODE_COUNT] = g_param_spec_uint ("node-count", "Node count",
      "Number of nodes in the graph", 0, G_MAXUINT, 0,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgGraph:alloc-node-count:
   *
   * The number of memory-allocation nodes: allocations made during the
   * capture, which the graph owns.
   *
   * Since: 0.1
   */
  properties[PROP_ALLOC_NODE_COUNT] = g_param_spec_uint ("alloc-node-count",
      "Allocation node count",
      "Number of memory-allocation nodes (allocations made during capture)", 0,
      G_MAXUINT, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcg_graph_init (GcgGraph *self)
{
  atomic_init (&self->replays, 0);
  g_mutex_init (&self->streams_lock);
}

/* Counts the nodes of @graph, and among them the memory-allocation nodes
 * that allocations made during capture turn into. */
static gboolean
count_nodes (CUgraph graph, guint *n_nodes, guint *n_alloc, GError **error)
{
  size_t n = 0;
  g_autofree CUgraphNode *nodes = gcg__graph_get_nodes (graph, &n, error);

  if (nodes == NULL)
    return FALSE;
  *n_alloc = 0;
  for (size_t i = 0; i < n; i++) {
    CUgraphNodeType type;

    if (!GCG_CU_OK (error, cuGraphNodeGetType, nodes[i], &type))
      return FALSE;
    if (type == CU_GRAPH_NODE_TYPE_MEM_ALLOC)
      (*n_alloc)++;
  }
  *n_nodes = n;
  return TRUE;
}

/* Without AUTO_FREE_ON_LAUNCH a graph holding an allocation it does not
 * free could not be launched twice. */
static gboolean
instantiate (CUgraph graph, guint n_alloc, CUgraphExec *exec, GError **error)
{
  unsigned long long flags =
      n_alloc > 0 ? CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH : 0;

  *exec = NULL;
  if (!GCG_CU_OK (error, cuGraphInstantiateWithFlags, exec, graph, flags)) {
    *exec = NULL;
    return FALSE;
  }
  gcg__graph_handle_acquired ();
  return TRUE;
}

/* Makes a graph of a captured CUgraph, which it takes in every case: on
 * error it is destroyed. */
GcgGraph *
gcg__graph_new_take (GcgContext *context, CUgraph graph, GcgCapturePool *pool,
    GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  g_autoptr (GcgGraph) self = g_object_new (GCG_TYPE_GRAPH, NULL);

  self->context = g_object_ref (context);
  self->graph = graph;
  self->pool = pool ? g_object_ref (pool) : NULL;
  if (!gcg__context_guard_enter (&guard, context, error)
      || !count_nodes (graph, &self->n_nodes, &self->n_alloc_nodes, error)
      || !instantiate (graph, self->n_alloc_nodes, &self->exec, error))
    return NULL;
  return g_steal_pointer (&self);
}

CUgraph
gcg__graph_get_cu (GcgGraph *self)
{
  return self->graph;
}

/* Whether @node is a kernel node launching @fn. */
static gboolean
is_kernel_of (CUgraphNode node, CUfunction fn)
{
  CUgraphNodeType type;
  CUDA_KERNEL_NODE_PARAMS p;

  return GCG_CU (cuGraphNodeGetType, node, &type) == CUDA_SUCCESS
      && type == CU_GRAPH_NODE_TYPE_KERNEL
      && GCG_CU (cuGraphKernelNodeGetParams, node, &p) == CUDA_SUCCESS
      && p.func == fn;
}

/* The node of the graph's one launch of @fn (a captured launch sits at the
 * graph's top level), for gcg__graph_set_kernel_params().  Valid while
 * the graph lives and is not updated from another capture. */
gboolean
gcg__graph_find_kernel_node (GcgGraph *self, CUfunction fn, CUgraphNode *node,
    GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  g_autofree CUgraphNode *nodes = NULL;
  size_t count = 0;

  if (!gcg__context_guard_enter (&guard, self->context, error)
      || !GCG_CU_OK (error, cuGraphGetNodes, self->graph, NULL, &count))
    return FALSE;
  nodes = g_new (CUgraphNode, MAX (count, 1));
  if (!GCG_CU_OK (error, cuGraphGetNodes, self->graph, nodes, &count))
    return FALSE;
  for (size_t i = 0; i < count; i++) {
    if (is_kernel_of (nodes[i], fn)) {
      *node = nodes[i];
      return TRUE;
    }
  }
  g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "The captured graph has no launch of the kernel whose arguments "
      "change per run");
  return FALSE;
}

/* New arguments for a kernel node of the executable graph, for the
 * launches queued from now on (those already queued keep theirs): the
 * values travel with the launch, no copy runs between two replays.  The
 * caller's context is current. */
gboolean
gcg__graph_set_kernel_params (GcgGraph *self, CUgraphNode node,
    const CUDA_KERNEL_NODE_PARAMS *params, GError **error)
{
  return GCG_CU_OK (error, cuGraphExecKernelNodeSetParams, self->exec, node,
      params);
}

gboolean
gcg__graph_same_context (GcgGraph *self, GcgStream *stream)
{
  return gcg__context_get_cu (gcg_stream_get_context (stream))
      == gcg__context_get_cu (self->context);
}

/**
 * gcg_graph_launch:
 * @self: a #GcgGraph
 * @stream: a stream of the graph's context
 * @error: return location for a #GError, or %NULL
 *
 * Queues one replay of the graph on @stream and counts it.
 *
 * Returns: %TRUE when the replay was queued
 *
 * Since: 0.1
 */
gboolean
gcg_graph_launch (GcgGraph *self, GcgStream *stream, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  g_return_val_if_fail (GCG_IS_GRAPH (self), FALSE);
  g_return_val_if_fail (GCG_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (gcg__graph_same_context (self, stream), FALSE);

  if (!gcg__context_guard_enter (&guard, self->context, error)
      || !GCG_CU_OK (error, cuGraphLaunch, self->exec,
          gcg__stream_get_cu (stream)))
    return FALSE;
  atomic_fetch_add_explicit (&self->replays, 1, memory_order_relaxed);
  if (self->pool)
    note_stream (self, stream);
  return TRUE;
}

/**
 * gcg_graph_upload:
 * @self: a #GcgGraph
 * @stream: a stream of the graph's context
 * @error: return location for a #GError, or %NULL
 *
 * Prepares the graph's device resources ahead of the first launch, so the
 * first frame costs no more than the others.  Does nothing when already
 * uploaded (and since the last gcg_graph_update_from_capture()).
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_graph_upload (GcgGraph *self, GcgStream *stream, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  g_return_val_if_fail (GCG_IS_GRAPH (self), FALSE);
  g_return_val_if_fail (GCG_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (gcg__graph_same_context (self, stream), FALSE);

  if (g_atomic_int_get (&self->uploaded))
    return TRUE;
  if (!gcg__context_guard_enter (&guard, self->context, error)
      || !GCG_CU_OK (error, cuGraphUpload, self->exec,
          gcg__stream_get_cu (stream)))
    return FALSE;
  g_atomic_int_set (&self->uploaded, TRUE);
  return TRUE;
}

/**
 * gcg_graph_get_replay_count:
 * @self: a #GcgGraph
 *
 * Counts the graph's launches.
 *
 * Returns: the number of successful gcg_graph_launch() calls
 *
 * Since: 0.1
 */
guint64
gcg_graph_get_replay_count (GcgGraph *self)
{
  g_return_val_if_fail (GCG_IS_GRAPH (self), 0);

  return atomic_load_explicit (&self->replays, memory_order_relaxed);
}

/**
 * gcg_graph_is_uploaded:
 * @self: a #GcgGraph
 *
 * Tells whether the graph was uploaded to the device ahead of its first
 * launch.
 *
 * Returns: %TRUE after a successful gcg_graph_upload()
 *
 * Since: 0.1
 */
gboolean
gcg_graph_is_uploaded (GcgGraph *self)
{
  g_return_val_if_fail (GCG_IS_GRAPH (self), FALSE);

  return g_atomic_int_get (&self->uploaded);
}

/**
 * gcg_graph_get_node_count:
 * @self: a #GcgGraph
 *
 * Counts the nodes of the captured graph.
 *
 * Returns: the number of nodes (kernels, copies, memsets, allocations...)
 *
 * Since: 0.1
 */
guint
gcg_graph_get_node_count (GcgGraph *self)
{
  g_return_val_if_fail (GCG_IS_GRAPH (self), 0);

  return self->n_nodes;
}

/**
 * gcg_graph_get_alloc_node_count:
 * @self: a #GcgGraph
 *
 * Allocations made during the capture (cuMemAllocAsync) became graph
 * memory-allocation nodes; when there are any, the graph was instantiated
 * with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH.
 *
 * Returns: the number of memory-allocation nodes
 *
 * Since: 0.1
 */
guint
gcg_graph_get_alloc_node_count (GcgGraph *self)
{
  g_return_val_if_fail (GCG_IS_GRAPH (self), 0);

  return self->n_alloc_nodes;
}

/**
 * gcg_graph_get_pool:
 * @self: a #GcgGraph
 *
 * Gets the capture pool whose buffers the graph keeps alive.
 *
 * Returns: (transfer none) (nullable): the capture pool the graph keeps
 *   alive, if its capture had one
 *
 * Since: 0.1
 */
GcgCapturePool *
gcg_graph_get_pool (GcgGraph *self)
{
  g_return_val_if_fail (GCG_IS_GRAPH (self), NULL);

  return self->pool;
}

/**
 * gcg_graph_get_context:
 * @self: a #GcgGraph
 *
 * Gets the context the graph runs in.
 *
 * Returns: (transfer none): the context the graph runs in
 *
 * Since: 0.1
 */
GcgContext *
gcg_graph_get_context (GcgGraph *self)
{
  g_return_val_if_fail (GCG_IS_GRAPH (self), NULL);

  return self->context;
}

/**
 * gcg_graph_get_handle:
 * @self: a #GcgGraph
 *
 * Gets the driver's executable graph, to launch or inspect it from other
 * CUDA code.
 *
 * Returns: (transfer none): the CUgraphExec, for interoperation; it
 *   changes when gcg_graph_update_from_capture() instantiates anew
 *
 * Since: 0.1
 */
gpointer
gcg_graph_get_handle (GcgGraph *self)
{
  g_return_val_if_fail (GCG_IS_GRAPH (self), NULL);

  return self->exec;
}

/**
 * gcg_graph_get_graph_handle:
 * @self: a #GcgGraph
 *
 * Gets the driver's graph the executable was made from: to nest it in
 * another graph (as a child graph node, or as a #GcgModelGraph of a
 * frame chain), which clones it.
 *
 * Returns: (transfer none): the CUgraph, for interoperation; valid as
 *   long as @self
 *
 * Since: 0.2
 */
gpointer
gcg_graph_get_graph_handle (GcgGraph *self)
{
  g_return_val_if_fail (GCG_IS_GRAPH (self), NULL);

  return self->graph;
}

/**
 * gcg_graph_dump_dot:
 * @self: a #GcgGraph
 * @path: (type filename): the Graphviz file to write
 * @verbose: include every node's parameters
 * @error: return location for a #GError, or %NULL
 *
 * Writes the graph as Graphviz (cuGraphDebugDotPrint), for debugging.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_graph_dump_dot (GcgGraph *self, const gchar *path, gboolean verbose,
    GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  g_return_val_if_fail (GCG_IS_GRAPH (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (!gcg__context_guard_enter (&guard, self->context, error)
      || !GCG_CU_OK (error, cuGraphDebugDotPrint, self->graph, path,
          verbose ? CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE : 0)) {
    g_prefix_error (error, "Writing %s: ", path);
    return FALSE;
  }
  return TRUE;
}

/* Tries to update the executable graph in place.  Any refusal (topology,
 * node types, unsupported parameters) means: instantiate anew. */
static gboolean
try_exec_update (GcgGraph *self, CUgraph graph)
{
  CUgraphExecUpdateResultInfo info = { 0 };
  CUresult res = GCG_CU (cuGraphExecUpdate, self->exec, graph, &info);

  if (res != CUDA_SUCCESS)
    g_debug ("cuGraphExecUpdate refused (CUresult %d, update result %d); "
             "instantiating anew",
        res, info.result);
  return res == CUDA_SUCCESS;
}

static gboolean
reinstantiate (GcgGraph *self, CUgraph graph, guint n_alloc, GError **error)
{
  CUgraphExec exec;

  if (!instantiate (graph, n_alloc, &exec, error))
    return FALSE;
  gcg__graph_destroy_exec (self->exec);
  self->exec = exec;
  return TRUE;
}

/* Makes @graph (owned) the graph of @self, with what the capture had. */
static void
adopt (GcgGraph *self, CUgraph graph, guint n_nodes, guint n_alloc,
    GcgCapturePool *pool)
{
  gboolean nodes_changed = n_nodes != self->n_nodes;

  gcg__graph_destroy_cu (self->graph);
  self->graph = graph;
  self->n_nodes = n_nodes;
  self->n_alloc_nodes = n_alloc;
  /* Parameters changed on the host: the next upload must push them. */
  g_atomic_int_set (&self->uploaded, FALSE);
  if (self->pool != pool) {
    if (self->pool)
      wait_for_launches (self);
    g_set_object (&self->pool, pool);
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_POOL]);
  }
  if (nodes_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NODE_COUNT]);
}

/* Makes @self replay @graph, just captured with @pool, which it takes in
 * every case: in place when the topology is the same (only kernel
 * arguments, addresses and copy sizes changed), by instantiating anew
 * otherwise.  The capture calls this (gcg_graph_update_from_capture() is
 * in gcg-capture.c): the graph knows nothing of captures.  On error
 * @graph is destroyed and @self still replays the old work. */
gboolean
gcg__graph_update_take (GcgGraph *self, CUgraph graph, GcgCapturePool *pool,
    gboolean *reinstantiated, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  guint n_nodes = 0, n_alloc = 0;
  gboolean updated;

  if (!gcg__context_guard_enter (&guard, self->context, error)
      || !count_nodes (graph, &n_nodes, &n_alloc, error)) {
    gcg__graph_destroy_cu (graph);
    return FALSE;
  }
  updated = try_exec_update (self, graph);
  if (!updated && !reinstantiate (self, graph, n_alloc, error)) {
    gcg__graph_destroy_cu (graph);
    return FALSE;
  }
  adopt (self, graph, n_nodes, n_alloc, pool);
  if (reinstantiated)
    *reinstantiated = !updated;
  return TRUE;
}

/**
 * gcg_graph_get_device_graph_memory:
 * @self: a #GcgGraph
 * @used: (out) (optional): bytes of graph memory in use on the device
 * @reserved: (out) (optional): bytes of graph memory reserved on the device
 * @error: return location for a #GError, or %NULL
 *
 * Reports the memory that graph allocation nodes use on the graph's device
 * (cuDeviceGetGraphMemAttribute), across every graph of the process.  It
 * is 0 unless some graph allocated during its capture.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_graph_get_device_graph_memory (GcgGraph *self, guint64 *used,
    guint64 *reserved, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUdevice dev;
  cuuint64_t used_b = 0, reserved_b = 0;

  g_return_val_if_fail (GCG_IS_GRAPH (self), FALSE);

  dev = gcg__context_get_cu_device (self->context);
  if (!gcg__context_guard_enter (&guard, self->context, error)
      || !GCG_CU_OK (error, cuDeviceGetGraphMemAttribute, dev,
          CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &used_b)
      || !GCG_CU_OK (error, cuDeviceGetGraphMemAttribute, dev,
          CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, &reserved_b))
    return FALSE;
  if (used)
    *used = used_b;
  if (reserved)
    *reserved = reserved_b;
  return TRUE;
}
