/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgModelGraph:
 *
 * A user's CUDA graph (a model captured by PyTorch, say) to replay inside
 * a frame chain's graph, with the device tensors it reads and writes.
 *
 * The graph and every tensor it references are raw device handles the
 * caller owns.  The model graph holds the caller's @owner (a Python
 * object, a #GObject, anything with a destroy notify) from
 * gcg_model_graph_new() until the model graph is finalized, so whoever
 * holds the model graph (a chain, an element) keeps the user's graph and
 * its memory alive for every replay.  The notify runs on the host at
 * finalization: synchronize the streams that replayed the graph first.
 *
 * The graph is checked once: the driver clones a child graph and refuses
 * one holding memory allocation or free nodes, so such a graph is refused
 * here with %GCG_ERROR_NOT_SUPPORTED.  Every tensor address must belong to
 * the model graph's context (or, for context-less pool memory, to its
 * device): a graph made in one context cannot run in another.
 *
 * Addresses are plain integers so that bindings pass them as they get
 * them (torch.Tensor.data_ptr(), CUDAGraph.raw_cuda_graph()).  Through
 * ctypes, @owner_destroy can be a C callback that drops the Python
 * objects; through PyGObject, which cannot pass a Python object as a
 * gpointer, give %NULL for both and keep the PyTorch objects in an
 * attribute of the returned wrapper (PyGObject keeps a wrapper that has
 * attributes alive as long as the C object).
 *
 * A model graph is not thread-safe: use it from one thread at a time.
 *
 * Since: 0.2
 */
#include "gcg-model-graph.h"
#include "gcg-child-graph-private.h"
#include "gcg-error.h"
#include "gcg-graph-private.h"

#define GCG_ROUND_UP(x, a) (((x) + (a) - 1) / (a) * (a))

typedef struct
{
  guint64 address;
  gint64 shape[GCG_MODEL_GRAPH_MAX_DIMS];
  guint n_dims;
  GcgModelDtype dtype;
  gsize n_bytes;
} ModelTensor;

struct _GcgModelGraph
{
  GObject parent;

  GcgContext *context;
  CUgraph graph;
  gpointer owner;
  GDestroyNotify owner_destroy;
  gboolean has_input;
  ModelTensor input;
  ModelTensor outputs[GCG_MODEL_GRAPH_MAX_OUTPUTS];
  guint n_outputs;
  CUgraphExec exec;             /* eager launches only, made on first use */
};

G_DEFINE_FINAL_TYPE (GcgModelGraph, gcg_model_graph, G_TYPE_OBJECT);

static void
gcg_model_graph_finalize (GObject *object)
{
  GcgModelGraph *self = GCG_MODEL_GRAPH (object);

  if (self->exec)
    gcg__graph_destroy_exec (self->exec);
  /* The owner goes after the exec: the exec may reference its memory. */
  if (self->owner_destroy)
    self->owner_destroy (self->owner);
  g_clear_object (&self->context);
  G_OBJECT_CLASS (gcg_model_graph_parent_class)->finalize (object);
}

static void
gcg_model_graph_class_init (GcgModelGraphClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gcg_model_graph_finalize;
}

static void
gcg_model_graph_init (GcgModelGraph *self)
{
}

/**
 * gcg_model_graph_new:
 * @context: the context the graph was made in
 * @graph: the CUgraph, as an integer (not instantiated; the model graph
 *   never modifies or destroys it)
 * @owner: (nullable): what keeps @graph and its memory alive
 * @owner_destroy: (nullable): called on @owner when the model graph is
 *   finalized, or at once when this call fails
 * @error: return location for a #GError, or %NULL
 *
 * Wraps a user's graph.  @owner is taken in every case, so a caller never
 * releases it itself.
 *
 * Returns: (transfer full) (nullable): the model graph, or %NULL with
 *   @error set: %GCG_ERROR_INVALID_ARGUMENT for a null graph,
 *   %GCG_ERROR_NOT_SUPPORTED for a graph CUDA cannot nest
 *
 * Since: 0.2
 */
GcgModelGraph *
gcg_model_graph_new (GcgContext *context, guint64 graph, gpointer owner,
    GDestroyNotify owner_destroy, GError **error)
{
  GcgModelGraph *self;

  if (!GCG_IS_CONTEXT (context) || graph == 0) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A model graph needs a context and a non-null CUgraph");
  } else if (gcg__child_graph_check ((CUgraph) (guintptr) graph, error)) {
    self = g_object_new (GCG_TYPE_MODEL_GRAPH, NULL);
    self->context = g_object_ref (context);
    self->graph = (CUgraph) (guintptr) graph;
    self->owner = owner;
    self->owner_destroy = owner_destroy;
    return self;
  }
  if (owner_destroy)
    owner_destroy (owner);
  return NULL;
}

/* Fills @t from a caller's description; the size is bounded by the
 * address space so a shape cannot overflow it. */
static gboolean
tensor_init (ModelTensor *t, guint64 address, const gint64 *shape, guint n_dims,
    GcgModelDtype dtype, GError **error)
{
  gsize size = gcg_model_dtype_get_size (dtype);

  if (address == 0 || shape == NULL || n_dims == 0
      || n_dims > GCG_MODEL_GRAPH_MAX_DIMS || size == 0) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A model tensor needs an address, 1 to %d dimensions and a known "
        "dtype",
        GCG_MODEL_GRAPH_MAX_DIMS);
    return FALSE;
  }
  for (guint i = 0; i < n_dims; i++) {
    if (shape[i] <= 0 || (guint64) shape[i] > G_MAXSIZE / size) {
      g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "Dimension %u of a model tensor is %" G_GINT64_FORMAT
          " (it must be positive and the tensor must fit in memory)",
          i, shape[i]);
      return FALSE;
    }
    size *= (gsize) shape[i];   /* bounded by the check above */
    t->shape[i] = shape[i];
  }
  t->address = address;
  t->n_dims = n_dims;
  t->dtype = dtype;
  t->n_bytes = size;
  return TRUE;
}

/* A graph only runs in the context it was made in: its tensors must be
 * there.  Pool memory has no context, only a device. */
static gboolean
check_address (GcgModelGraph *self, guint64 address, GError **error)
{
  CUcontext ctx = NULL;
  int ordinal = -1;

  if (!GCG_CU_OK (error, cuPointerGetAttribute, &ctx,
          CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr) address))
    return FALSE;
  if (ctx != NULL && ctx != gcg__context_get_cu (self->context)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The model tensor at 0x%" G_GINT64_MODIFIER "x belongs to CUDA "
        "context %p, the model graph's context is %p: use the device's "
        "primary context (what PyTorch uses) on both sides",
        address, (gpointer) ctx,
        (gpointer) gcg__context_get_cu (self->context));
    return FALSE;
  }
  if (ctx != NULL)
    return TRUE;
  if (!GCG_CU_OK (error, cuPointerGetAttribute, &ordinal,
          CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (CUdeviceptr) address))
    return FALSE;
  if (ordinal != gcg_context_get_device_id (self->context)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The model tensor at 0x%" G_GINT64_MODIFIER "x is on device %d, "
        "the model graph's context on device %d",
        address, ordinal, gcg_context_get_device_id (self->context));
    return FALSE;
  }
  return TRUE;
}

/* The tensor lies inside the device allocation its address is in: a
 * shape larger than the memory behind it would have every replay read or
 * write past it. */
static gboolean
check_extent (guint64 address, gsize n_bytes, GError **error)
{
  CUdeviceptr base = 0;
  size_t size = 0;

  if (!GCG_CU_OK (error, cuMemGetAddressRange, &base, &size,
          (CUdeviceptr) address))
    return FALSE;
  if (address - base > size || n_bytes > size - (address - base)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The model tensor at 0x%" G_GINT64_MODIFIER "x (%" G_GSIZE_FORMAT
        " bytes) does not fit in its allocation (%" G_GSIZE_FORMAT " bytes "
        "from 0x%" G_GINT64_MODIFIER "x): its shape or dtype is wrong",
        address, n_bytes, (gsize) size, (guint64) base);
    return FALSE;
  }
  return TRUE;
}

static gboolean
describe (GcgModelGraph *self, ModelTensor *t, guint64 address,
    const gint64 *shape, guint n_dims, GcgModelDtype dtype, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  ModelTensor tmp = { 0 };

  if (!tensor_init (&tmp, address, shape, n_dims, dtype, error)
      || !check_address (self, address, error)
      || !gcg__context_guard_enter (&guard, self->context, error)
      || !check_extent (address, tmp.n_bytes, error))
    return FALSE;
  *t = tmp;
  return TRUE;
}

/**
 * gcg_model_graph_set_input:
 * @self: a #GcgModelGraph
 * @address: the device address of the model's static input tensor
 * @shape: (array length=n_dims): its shape, outermost first (contiguous)
 * @n_dims: the number of dimensions, 1 to %GCG_MODEL_GRAPH_MAX_DIMS
 * @dtype: its element type
 * @error: return location for a #GError, or %NULL
 *
 * Says where the graph reads its input: a chain writes its output tensor
 * straight there.  On error nothing changes.
 *
 * Returns: %TRUE, or %FALSE with @error set (%GCG_ERROR_INVALID_ARGUMENT)
 *
 * Since: 0.2
 */
gboolean
gcg_model_graph_set_input (GcgModelGraph *self, guint64 address,
    const gint64 *shape, guint n_dims, GcgModelDtype dtype, GError **error)
{
  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (self), FALSE);
  if (!describe (self, &self->input, address, shape, n_dims, dtype, error))
    return FALSE;
  self->has_input = TRUE;
  return TRUE;
}

/**
 * gcg_model_graph_add_output:
 * @self: a #GcgModelGraph
 * @address: the device address of one of the model's static outputs
 * @shape: (array length=n_dims): its shape, outermost first (contiguous)
 * @n_dims: the number of dimensions, 1 to %GCG_MODEL_GRAPH_MAX_DIMS
 * @dtype: its element type
 * @error: return location for a #GError, or %NULL
 *
 * Declares an output the graph writes on every replay, to be copied out
 * or exposed.  On error nothing changes.
 *
 * Returns: the output's index, or -1 with @error set
 *   (%GCG_ERROR_INVALID_ARGUMENT, also past %GCG_MODEL_GRAPH_MAX_OUTPUTS)
 *
 * Since: 0.2
 */
gint
gcg_model_graph_add_output (GcgModelGraph *self, guint64 address,
    const gint64 *shape, guint n_dims, GcgModelDtype dtype, GError **error)
{
  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (self), -1);
  if (self->n_outputs == GCG_MODEL_GRAPH_MAX_OUTPUTS) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A model graph has at most %d outputs", GCG_MODEL_GRAPH_MAX_OUTPUTS);
    return -1;
  }
  if (!describe (self, &self->outputs[self->n_outputs], address, shape, n_dims,
          dtype, error))
    return -1;
  return (gint) self->n_outputs++;
}

/**
 * gcg_model_graph_get_context:
 * @self: a #GcgModelGraph
 *
 * The context the graph and its tensors belong to.
 *
 * Returns: (transfer none): the context the graph runs in
 *
 * Since: 0.2
 */
GcgContext *
gcg_model_graph_get_context (GcgModelGraph *self)
{
  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (self), NULL);
  return self->context;
}

/**
 * gcg_model_graph_get_graph:
 * @self: a #GcgModelGraph
 *
 * The graph given to gcg_model_graph_new().
 *
 * Returns: the user's CUgraph, as an integer
 *
 * Since: 0.2
 */
guint64
gcg_model_graph_get_graph (GcgModelGraph *self)
{
  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (self), 0);
  return (guint64) (guintptr) self->graph;
}

static void
tensor_get (const ModelTensor *t, guint64 *address, gsize *n_bytes,
    GcgModelDtype *dtype)
{
  if (address)
    *address = t->address;
  if (n_bytes)
    *n_bytes = t->n_bytes;
  if (dtype)
    *dtype = t->dtype;
}

/**
 * gcg_model_graph_get_input:
 * @self: a #GcgModelGraph
 * @address: (out) (optional): the input's device address
 * @n_bytes: (out) (optional): its size in bytes
 * @dtype: (out) (optional): its element type
 *
 * Describes the input set with gcg_model_graph_set_input().
 *
 * Returns: %TRUE once gcg_model_graph_set_input() succeeded
 *
 * Since: 0.2
 */
gboolean
gcg_model_graph_get_input (GcgModelGraph *self, guint64 *address,
    gsize *n_bytes, GcgModelDtype *dtype)
{
  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (self), FALSE);
  if (!self->has_input)
    return FALSE;
  tensor_get (&self->input, address, n_bytes, dtype);
  return TRUE;
}

/**
 * gcg_model_graph_get_input_shape:
 * @self: a #GcgModelGraph
 * @n_dims: (out): the number of dimensions (0 while no input is set)
 *
 * The shape of the input set with gcg_model_graph_set_input().
 *
 * Returns: (transfer none) (array length=n_dims) (nullable): the input's
 *   shape, %NULL while no input is set
 *
 * Since: 0.2
 */
const gint64 *
gcg_model_graph_get_input_shape (GcgModelGraph *self, guint *n_dims)
{
  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (self), NULL);
  g_return_val_if_fail (n_dims != NULL, NULL);
  *n_dims = self->has_input ? self->input.n_dims : 0;
  return self->has_input ? self->input.shape : NULL;
}

/**
 * gcg_model_graph_get_n_outputs:
 * @self: a #GcgModelGraph
 *
 * Counts the outputs added with gcg_model_graph_add_output().
 *
 * Returns: how many outputs were added
 *
 * Since: 0.2
 */
guint
gcg_model_graph_get_n_outputs (GcgModelGraph *self)
{
  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (self), 0);
  return self->n_outputs;
}

/**
 * gcg_model_graph_get_output:
 * @self: a #GcgModelGraph
 * @index: an output index
 * @address: (out) (optional): the output's device address
 * @n_bytes: (out) (optional): its size in bytes
 * @dtype: (out) (optional): its element type
 *
 * Describes an output added with gcg_model_graph_add_output().
 *
 * Returns: %TRUE when @index names an output
 *
 * Since: 0.2
 */
gboolean
gcg_model_graph_get_output (GcgModelGraph *self, guint index, guint64 *address,
    gsize *n_bytes, GcgModelDtype *dtype)
{
  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (self), FALSE);
  if (index >= self->n_outputs)
    return FALSE;
  tensor_get (&self->outputs[index], address, n_bytes, dtype);
  return TRUE;
}

/**
 * gcg_model_graph_get_output_shape:
 * @self: a #GcgModelGraph
 * @index: an output index
 * @n_dims: (out): the number of dimensions (0 for an unknown index)
 *
 * The shape of an output added with gcg_model_graph_add_output().
 *
 * Returns: (transfer none) (array length=n_dims) (nullable): the output's
 *   shape, %NULL for an unknown index
 *
 * Since: 0.2
 */
const gint64 *
gcg_model_graph_get_output_shape (GcgModelGraph *self, guint index,
    guint *n_dims)
{
  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (self), NULL);
  g_return_val_if_fail (n_dims != NULL, NULL);
  *n_dims = index < self->n_outputs ? self->outputs[index].n_dims : 0;
  return index < self->n_outputs ? self->outputs[index].shape : NULL;
}

/**
 * gcg_model_graph_get_packed_tensor:
 * @self: a #GcgModelGraph
 * @with_input: whether the packing starts with the input
 * @index: a tensor of the packing: the input first when @with_input, then
 *   the outputs in order
 * @offset: (out) (optional): where it starts, in bytes
 * @n_bytes: (out) (optional): its size in bytes
 * @address: (out) (optional): its device address in the model
 *
 * Where a tensor lies when the model's tensors are packed one after the
 * other, each at a multiple of %GCG_MODEL_GRAPH_PACK_ALIGN bytes: the
 * layout of a frame's output buffer when a frame chain ends in the model
 * (gcg_frame_batch_attach_model()).
 *
 * Returns: %FALSE for an index past the last tensor (or the input
 *   requested and not set)
 *
 * Since: 0.2
 */
gboolean
gcg_model_graph_get_packed_tensor (GcgModelGraph *self, gboolean with_input,
    guint index, gsize *offset, gsize *n_bytes, guint64 *address)
{
  gsize end = 0;
  const ModelTensor *t = NULL;

  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (self), FALSE);
  if ((with_input && !self->has_input)
      || index >= self->n_outputs + (with_input ? 1 : 0))
    return FALSE;
  for (guint i = 0; i <= index; i++) {
    t = with_input ? (i == 0 ? &self->input : &self->outputs[i - 1])
                   : &self->outputs[i];
    end = GCG_ROUND_UP (end, GCG_MODEL_GRAPH_PACK_ALIGN) + t->n_bytes;
  }
  if (offset)
    *offset = end - t->n_bytes;
  if (n_bytes)
    *n_bytes = t->n_bytes;
  if (address)
    *address = t->address;
  return TRUE;
}

/**
 * gcg_model_graph_get_packed_size:
 * @self: a #GcgModelGraph
 * @with_input: whether the packing starts with the input
 *
 * The size of the packing of gcg_model_graph_get_packed_tensor().
 *
 * Returns: the bytes from the first tensor's start to the last one's
 *   end, 0 without outputs
 *
 * Since: 0.2
 */
gsize
gcg_model_graph_get_packed_size (GcgModelGraph *self, gboolean with_input)
{
  guint n;
  gsize offset = 0, n_bytes = 0;

  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (self), 0);
  n = self->n_outputs + (with_input ? 1 : 0);
  if (self->n_outputs == 0
      || !gcg_model_graph_get_packed_tensor (self, with_input, n - 1, &offset,
          &n_bytes, NULL))
    return 0;
  return offset + n_bytes;
}

static gboolean
check_stream (GcgModelGraph *self, GcgStream *stream, GError **error)
{
  /* Two GcgContexts may wrap one CUDA context (an element's wraps the
   * GstCudaContext it shares with the decoder): the handle decides. */
  if (gcg_context_get_handle (gcg_stream_get_context (stream))
      != gcg_context_get_handle (self->context)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The stream belongs to another context than the model graph");
    return FALSE;
  }
  return TRUE;
}

/**
 * gcg_model_graph_add_to_capture:
 * @self: a #GcgModelGraph
 * @stream: a stream of the model graph's context, capturing
 * @error: return location for a #GError, or %NULL
 *
 * Adds the user's graph (the driver clones it) to the capture under way
 * on @stream, after everything queued on @stream so far; what @stream
 * queues next runs after it.  Call it from a capture body.
 *
 * The captured graph holds a clone of the user's graph but reads and
 * writes its memory on every replay: keep @self alive as long as that
 * graph, e.g. with gcg_capture_pool_keep_object() on the capture's pool.
 *
 * Returns: %TRUE, or %FALSE with @error set (%GCG_ERROR_CAPTURE_STATE
 *   when @stream is not capturing)
 *
 * Since: 0.2
 */
gboolean
gcg_model_graph_add_to_capture (GcgModelGraph *self, GcgStream *stream,
    GError **error)
{
  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (self), FALSE);
  g_return_val_if_fail (GCG_IS_STREAM (stream), FALSE);
  if (!check_stream (self, stream, error))
    return FALSE;
  return gcg__child_graph_add_to_capture (stream, self->graph, error);
}

/**
 * gcg_model_graph_launch:
 * @self: a #GcgModelGraph
 * @stream: a stream of the model graph's context, not capturing
 * @error: return location for a #GError, or %NULL
 *
 * Launches the user's graph on @stream eagerly (the path of a chain that
 * does not capture).  The first call instantiates it, which costs
 * milliseconds; later calls cost one cuGraphLaunch.
 *
 * Returns: %TRUE, or %FALSE with @error set
 *
 * Since: 0.2
 */
gboolean
gcg_model_graph_launch (GcgModelGraph *self, GcgStream *stream, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUgraphExec exec = NULL;

  g_return_val_if_fail (GCG_IS_MODEL_GRAPH (self), FALSE);
  g_return_val_if_fail (GCG_IS_STREAM (stream), FALSE);
  if (!check_stream (self, stream, error)
      || !gcg__context_guard_enter (&guard, self->context, error))
    return FALSE;
  if (self->exec == NULL) {
    if (!GCG_CU_OK (error, cuGraphInstantiateWithFlags, &exec, self->graph, 0))
      return FALSE;
    gcg__graph_handle_acquired ();
    self->exec = exec;
  }
  return GCG_CU_OK (error, cuGraphLaunch, self->exec,
      gcg__stream_get_cu (stream));
}
