/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GcgModelGraph without a GPU: argument checks, the owner's destroy
 * notify (once, on every path), refusal of graphs holding memory
 * allocation or free nodes at any depth, and of tensors from another
 * context.  The driver is tests/unit/fake-cuda.c, loaded for real; the
 * entry points this test needs are then replaced in the driver table by
 * the small models below (graphs are FakeGraph structs, contexts are
 * tags).
 */
#include <gcg.h>
#include "gcg-context-private.h"
#include "gcg-fault-private.h"
#include "gcg-testing.h"
#include "gcg-child-graph-private.h"
#include "gcg-dtype-private.h"

#define FAKE_CTX ((CUcontext) (guintptr) 0xc0)
#define OTHER_CTX ((CUcontext) (guintptr) 0xc1)
/* Addresses at or above this one belong to OTHER_CTX; below, to FAKE_CTX,
 * except POOL_ADDR which has no context (pool memory), on device 0. */
#define OTHER_BASE 0x100000000ull
#define POOL_ADDR 0x5000ull

typedef struct FakeGraph FakeGraph;
typedef struct
{
  CUgraphNodeType type;
  FakeGraph *child;
} FakeNode;

struct FakeGraph
{
  guint n;
  FakeNode nodes[3];
};

static CUresult
fake_ok_ctx (CUcontext ctx)
{
  (void) ctx;
  return CUDA_SUCCESS;
}

static CUresult
fake_pop (CUcontext *ctx)
{
  *ctx = FAKE_CTX;
  return CUDA_SUCCESS;
}

static CUresult
fake_get_device (CUdevice *dev)
{
  *dev = 0;
  return CUDA_SUCCESS;
}

static CUresult
fake_string (char *s, int len, CUdevice dev)
{
  (void) dev;
  g_strlcpy (s, "fake", len);
  return CUDA_SUCCESS;
}

static CUresult
fake_total_mem (size_t *bytes, CUdevice dev)
{
  (void) dev;
  *bytes = 1 << 30;
  return CUDA_SUCCESS;
}

static CUresult
fake_attribute (int *value, CUdevice_attribute attr, CUdevice dev)
{
  (void) attr;
  (void) dev;
  *value = 9;
  return CUDA_SUCCESS;
}

static CUresult
fake_pointer_attribute (void *data, CUpointer_attribute attr, CUdeviceptr p)
{
  if (attr == CU_POINTER_ATTRIBUTE_CONTEXT) {
    *(CUcontext *) data = p == POOL_ADDR ? NULL
        : p >= OTHER_BASE                ? OTHER_CTX
                                         : FAKE_CTX;
    return CUDA_SUCCESS;
  }
  if (attr == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) {
    *(int *) data = 0;
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

/* Every allocation is the 1 MiB around the address. */
#define FAKE_ALLOCATION (1 << 20)

static CUresult
fake_address_range (CUdeviceptr *base, size_t *size, CUdeviceptr p)
{
  *base = p & ~(CUdeviceptr) (FAKE_ALLOCATION - 1);
  *size = FAKE_ALLOCATION;
  return CUDA_SUCCESS;
}

static CUresult
fake_get_nodes (CUgraph graph, CUgraphNode *nodes, size_t *count)
{
  FakeGraph *g = (FakeGraph *) graph;

  if (nodes == NULL) {
    *count = g->n;
    return CUDA_SUCCESS;
  }
  g_assert_cmpuint (*count, ==, g->n);
  for (guint i = 0; i < g->n; i++)
    nodes[i] = (CUgraphNode) &g->nodes[i];
  return CUDA_SUCCESS;
}

static CUresult
fake_node_type (CUgraphNode node, CUgraphNodeType *type)
{
  *type = ((FakeNode *) node)->type;
  return CUDA_SUCCESS;
}

static CUresult
fake_child_graph (CUgraphNode node, CUgraph *child)
{
  *child = (CUgraph) ((FakeNode *) node)->child;
  return CUDA_SUCCESS;
}

/* The capture the fake stream is in, and what the driver was asked. */
static gboolean capturing;
static CUgraphNode fake_deps[2] = { (CUgraphNode) 0xd1, (CUgraphNode) 0xd2 };
static CUgraph added_child;
static const CUgraphNode *added_deps;
static size_t added_n_deps;
static CUgraphNode updated_node;
static unsigned int updated_flags;
static guint instantiated, launched;
#define CAPTURING_GRAPH ((CUgraph) (guintptr) 0xa0)
#define CHILD_NODE ((CUgraphNode) (guintptr) 0xa1)
#define FAKE_EXEC ((CUgraphExec) (guintptr) 0xe0)

static CUresult
fake_capture_info (CUstream stream, CUstreamCaptureStatus *status,
    cuuint64_t *id, CUgraph *graph, const CUgraphNode **deps, size_t *num_deps)
{
  (void) stream;
  g_assert_null (id);
  *status = capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                      : CU_STREAM_CAPTURE_STATUS_NONE;
  *graph = capturing ? CAPTURING_GRAPH : NULL;
  *deps = capturing ? fake_deps : NULL;
  *num_deps = capturing ? 2 : 0;
  return CUDA_SUCCESS;
}

static CUresult
fake_add_child (CUgraphNode *node, CUgraph graph, const CUgraphNode *deps,
    size_t num_deps, CUgraph child)
{
  g_assert_true (graph == CAPTURING_GRAPH);
  added_child = child;
  added_deps = deps;
  added_n_deps = num_deps;
  *node = CHILD_NODE;
  return CUDA_SUCCESS;
}

static CUresult
fake_update_deps (CUstream stream, CUgraphNode *deps, size_t num_deps,
    unsigned int flags)
{
  (void) stream;
  g_assert_cmpuint (num_deps, ==, 1);
  updated_node = deps[0];
  updated_flags = flags;
  return CUDA_SUCCESS;
}

static CUresult
fake_instantiate (CUgraphExec *exec, CUgraph graph, unsigned long long flags)
{
  (void) graph;
  g_assert_cmpuint (flags, ==, 0);
  instantiated++;
  *exec = FAKE_EXEC;
  return CUDA_SUCCESS;
}

static CUresult
fake_exec_destroy (CUgraphExec exec)
{
  g_assert_true (exec == FAKE_EXEC);
  instantiated--;
  return CUDA_SUCCESS;
}

static CUresult
fake_launch (CUgraphExec exec, CUstream stream)
{
  g_assert_true (exec == FAKE_EXEC);
  (void) stream;
  launched++;
  return CUDA_SUCCESS;
}

static CUresult
fake_get_current (CUcontext *ctx)
{
  *ctx = FAKE_CTX;
  return CUDA_SUCCESS;
}

/* Loads the stand-in driver and puts the models in its table. */
static GcgContext *
fake_context (void)
{
  g_autoptr (GError) error = NULL;
  GcgContext *ctx;

  g_setenv ("GCG_CUDA_LIBRARY", g_getenv ("GCG_TEST_FAKE_CUDA"), TRUE);
  g_setenv ("FAKE_CUDA_DEVICES", "1", TRUE);
  g_assert_true (gcg_driver_init (&error));
  g_assert_no_error (error);
  gcg__cuda.cuCtxPushCurrent = fake_ok_ctx;
  gcg__cuda.cuCtxPopCurrent = fake_pop;
  gcg__cuda.cuCtxGetDevice = fake_get_device;
  gcg__cuda.cuDeviceGetName = fake_string;
  gcg__cuda.cuDeviceGetPCIBusId = fake_string;
  gcg__cuda.cuDeviceTotalMem = fake_total_mem;
  gcg__cuda.cuDeviceGetAttribute = fake_attribute;
  gcg__cuda.cuPointerGetAttribute = fake_pointer_attribute;
  gcg__cuda.cuMemGetAddressRange = fake_address_range;
  gcg__cuda.cuGraphGetNodes = fake_get_nodes;
  gcg__cuda.cuGraphNodeGetType = fake_node_type;
  gcg__cuda.cuGraphChildGraphNodeGetGraph = fake_child_graph;
  gcg__cuda.cuCtxGetCurrent = fake_get_current;
  gcg__cuda.cuStreamGetCaptureInfo = fake_capture_info;
  gcg__cuda.cuGraphAddChildGraphNode = fake_add_child;
  gcg__cuda.cuStreamUpdateCaptureDependencies = fake_update_deps;
  gcg__cuda.cuGraphInstantiateWithFlags = fake_instantiate;
  gcg__cuda.cuGraphExecDestroy = fake_exec_destroy;
  gcg__cuda.cuGraphLaunch = fake_launch;
  ctx = gcg_context_new_wrapped (FAKE_CTX, &error);
  g_assert_no_error (error);
  g_assert_true (gcg__context_get_cu (ctx) == FAKE_CTX);
  return ctx;
}

static guint destroyed;

static void
count_destroy (gpointer data)
{
  g_assert_true (data == &destroyed);
  destroyed++;
}

static guint64
handle (FakeGraph *g)
{
  return (guint64) (guintptr) g;
}

static GcgModelGraph *
new_model (GcgContext *ctx, FakeGraph *g, GError **error)
{
  return gcg_model_graph_new (ctx, handle (g), &destroyed, count_destroy,
      error);
}

/* The owner lives exactly as long as the model graph. */
static void
test_owner_lifetime (void)
{
  g_autoptr (GcgContext) ctx = fake_context ();
  FakeGraph g = { 2,
    { { CU_GRAPH_NODE_TYPE_KERNEL, NULL },
        { CU_GRAPH_NODE_TYPE_MEMCPY, NULL } } };
  g_autoptr (GError) error = NULL;
  GcgModelGraph *model;

  destroyed = 0;
  model = new_model (ctx, &g, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (gcg_model_graph_get_graph (model), ==, handle (&g));
  g_assert_true (gcg_model_graph_get_context (model) == ctx);
  g_object_ref (model);
  g_object_unref (model);
  g_assert_cmpuint (destroyed, ==, 0);
  g_object_unref (model);
  g_assert_cmpuint (destroyed, ==, 1);
}

/* A failed constructor releases the owner itself, once. */
static void
test_invalid_graph (void)
{
  g_autoptr (GcgContext) ctx = fake_context ();
  g_autoptr (GError) error = NULL;

  destroyed = 0;
  g_assert_null (gcg_model_graph_new (ctx, 0, &destroyed, count_destroy,
      &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (destroyed, ==, 1);
  g_clear_error (&error);
  g_assert_null (gcg_model_graph_new (NULL, 0x10, &destroyed, count_destroy,
      &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (destroyed, ==, 2);
}

static void
assert_refused (GcgContext *ctx, FakeGraph *g, const gchar *what)
{
  g_autoptr (GError) error = NULL;

  destroyed = 0;
  g_assert_null (new_model (ctx, g, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, what));
  g_assert_cmpuint (destroyed, ==, 1);
}

/* Memory nodes anywhere in the graph tree make it impossible to nest. */
static void
test_memory_nodes_refused (void)
{
  g_autoptr (GcgContext) ctx = fake_context ();
  FakeGraph inner = { 1, { { CU_GRAPH_NODE_TYPE_MEM_ALLOC, NULL } } };
  FakeGraph middle = { 2,
    { { CU_GRAPH_NODE_TYPE_KERNEL, NULL },
        { CU_GRAPH_NODE_TYPE_GRAPH, &inner } } };
  FakeGraph top = { 2,
    { { CU_GRAPH_NODE_TYPE_EMPTY, NULL },
        { CU_GRAPH_NODE_TYPE_GRAPH, &middle } } };
  FakeGraph freeing = { 2,
    { { CU_GRAPH_NODE_TYPE_KERNEL, NULL },
        { CU_GRAPH_NODE_TYPE_MEM_FREE, NULL } } };

  assert_refused (ctx, &inner, "allocation");
  assert_refused (ctx, &top, "allocation");
  assert_refused (ctx, &freeing, "free");
}

/* Nesting deeper than the bound is refused, not walked. */
static void
test_depth_bound (void)
{
  g_autoptr (GcgContext) ctx = fake_context ();
  FakeGraph chain[GCG_CHILD_GRAPH_MAX_DEPTH + 2];
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgModelGraph) ok = NULL;

  chain[GCG_CHILD_GRAPH_MAX_DEPTH + 1] =
      (FakeGraph) { 1, { { CU_GRAPH_NODE_TYPE_KERNEL, NULL } } };
  for (gint i = GCG_CHILD_GRAPH_MAX_DEPTH; i >= 0; i--)
    chain[i] =
        (FakeGraph) { 1, { { CU_GRAPH_NODE_TYPE_GRAPH, &chain[i + 1] } } };
  /* 8 levels of nesting are fine, 9 are not. */
  ok = new_model (ctx, &chain[1], &error);
  g_assert_no_error (error);
  assert_refused (ctx, &chain[0], "deep");
}

/* A driver failure while walking comes back as a driver error. */
static void
test_driver_failure (void)
{
  g_autoptr (GcgContext) ctx = fake_context ();
  FakeGraph g = { 1, { { CU_GRAPH_NODE_TYPE_KERNEL, NULL } } };
  g_autoptr (GError) error = NULL;

  destroyed = 0;
  g_assert_true (gcg_fault_inject ("cuGraphNodeGetType:1", &error));
  g_assert_null (new_model (ctx, &g, &error));
  g_assert_true (gcg_fault_inject (NULL, NULL));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
  g_assert_cmpuint (destroyed, ==, 1);
}

static const gint64 shape_nchw[] = { 1, 3, 224, 224 };

static void
assert_bad_input (GcgModelGraph *m, guint64 addr, const gint64 *shape, guint n,
    GcgModelDtype dtype)
{
  g_autoptr (GError) error = NULL;

  g_assert_false (gcg_model_graph_set_input (m, addr, shape, n, dtype, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
}

/* Every bad description is refused and leaves the input unset. */
static void
test_input_checks (void)
{
  g_autoptr (GcgContext) ctx = fake_context ();
  FakeGraph g = { 1, { { CU_GRAPH_NODE_TYPE_KERNEL, NULL } } };
  g_autoptr (GcgModelGraph) m = new_model (ctx, &g, NULL);
  const gint64 negative[] = { 1, -3, 4 };
  const gint64 zero[] = { 1, 0 };
  const gint64 huge[] = { G_MAXINT64 / 2, G_MAXINT64 / 2 };
  const gint64 nine[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  g_autoptr (GError) error = NULL;
  guint64 addr = 0;
  gsize bytes = 0;
  GcgModelDtype dtype = GCG_MODEL_DTYPE_INT8;
  guint n_dims = 7;

  assert_bad_input (m, 0, shape_nchw, 4, GCG_MODEL_DTYPE_FLOAT32);
  assert_bad_input (m, 0x1000, NULL, 4, GCG_MODEL_DTYPE_FLOAT32);
  assert_bad_input (m, 0x1000, shape_nchw, 0, GCG_MODEL_DTYPE_FLOAT32);
  assert_bad_input (m, 0x1000, nine, 9, GCG_MODEL_DTYPE_FLOAT32);
  assert_bad_input (m, 0x1000, negative, 3, GCG_MODEL_DTYPE_FLOAT32);
  assert_bad_input (m, 0x1000, zero, 2, GCG_MODEL_DTYPE_FLOAT32);
  assert_bad_input (m, 0x1000, huge, 2, GCG_MODEL_DTYPE_FLOAT32);
  assert_bad_input (m, 0x1000, shape_nchw, 4, (GcgModelDtype) 99);
  /* More bytes than the allocation behind the address holds. */
  assert_bad_input (m, FAKE_ALLOCATION - 1024, shape_nchw, 4,
      GCG_MODEL_DTYPE_FLOAT32);
  g_assert_false (gcg_model_graph_get_input (m, &addr, &bytes, &dtype));
  g_assert_null (gcg_model_graph_get_input_shape (m, &n_dims));
  g_assert_cmpuint (n_dims, ==, 0);

  g_assert_true (gcg_model_graph_set_input (m, 0x1000, shape_nchw, 4,
      GCG_MODEL_DTYPE_FLOAT32, &error));
  g_assert_no_error (error);
  g_assert_true (gcg_model_graph_get_input (m, &addr, &bytes, &dtype));
  g_assert_cmpuint (addr, ==, 0x1000);
  g_assert_cmpuint (bytes, ==, 3 * 224 * 224 * 4);
  g_assert_cmpint (dtype, ==, GCG_MODEL_DTYPE_FLOAT32);
  g_assert_true (gcg_model_graph_get_input_shape (m, &n_dims)[2] == 224);
  g_assert_cmpuint (n_dims, ==, 4);
  /* A failed change keeps the input that was set. */
  assert_bad_input (m, 0x2000, zero, 2, GCG_MODEL_DTYPE_FLOAT32);
  g_assert_true (gcg_model_graph_get_input (m, &addr, NULL, NULL));
  g_assert_cmpuint (addr, ==, 0x1000);
}

/* Tensors must live in the graph's context, or on its device. */
static void
test_context_checked (void)
{
  g_autoptr (GcgContext) ctx = fake_context ();
  FakeGraph g = { 1, { { CU_GRAPH_NODE_TYPE_KERNEL, NULL } } };
  g_autoptr (GcgModelGraph) m = new_model (ctx, &g, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_false (gcg_model_graph_set_input (m, OTHER_BASE, shape_nchw, 4,
      GCG_MODEL_DTYPE_FLOAT16, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "primary context"));
  g_clear_error (&error);
  g_assert_cmpint (gcg_model_graph_add_output (m, OTHER_BASE + 64, shape_nchw,
                       2, GCG_MODEL_DTYPE_FLOAT32, &error),
      ==, -1);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_true (gcg_model_graph_set_input (m, POOL_ADDR, shape_nchw, 4,
      GCG_MODEL_DTYPE_FLOAT16, &error));
  g_assert_no_error (error);
}

/* Outputs are numbered in order, bounded in count, described back. */
static void
test_outputs (void)
{
  g_autoptr (GcgContext) ctx = fake_context ();
  FakeGraph g = { 1, { { CU_GRAPH_NODE_TYPE_KERNEL, NULL } } };
  g_autoptr (GcgModelGraph) m = new_model (ctx, &g, NULL);
  g_autoptr (GError) error = NULL;
  const gint64 logits[] = { 1, 1000 };
  guint64 addr = 0;
  gsize bytes = 0;
  GcgModelDtype dtype = GCG_MODEL_DTYPE_INT8;
  guint n_dims = 0;

  for (gint i = 0; i < GCG_MODEL_GRAPH_MAX_OUTPUTS; i++) {
    g_assert_cmpint (
        gcg_model_graph_add_output (m, 0x1000 + 4096 * i, logits, 2,
            i % 2 ? GCG_MODEL_DTYPE_INT64 : GCG_MODEL_DTYPE_FLOAT32, &error),
        ==, i);
    g_assert_no_error (error);
  }
  g_assert_cmpint (gcg_model_graph_add_output (m, 0x900000, logits, 2,
                       GCG_MODEL_DTYPE_FLOAT32, &error),
      ==, -1);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_cmpuint (gcg_model_graph_get_n_outputs (m), ==,
      GCG_MODEL_GRAPH_MAX_OUTPUTS);
  g_assert_true (gcg_model_graph_get_output (m, 1, &addr, &bytes, &dtype));
  g_assert_cmpuint (addr, ==, 0x1000 + 4096);
  g_assert_cmpuint (bytes, ==, 8000);
  g_assert_cmpint (dtype, ==, GCG_MODEL_DTYPE_INT64);
  g_assert_true (gcg_model_graph_get_output_shape (m, 1, &n_dims)[1] == 1000);
  g_assert_cmpuint (n_dims, ==, 2);
  g_assert_false (gcg_model_graph_get_output (m, 16, NULL, NULL, NULL));
  g_assert_null (gcg_model_graph_get_output_shape (m, 16, &n_dims));
  g_assert_cmpuint (n_dims, ==, 0);
}

/* In a capture the user's graph follows every current dependency of the
 * stream, and becomes the stream's only dependency; outside one, or on
 * another context's stream, it is refused. */
static void
test_add_to_capture (void)
{
  g_autoptr (GcgContext) ctx = fake_context ();
  g_autoptr (GcgContext) other = gcg_context_new_wrapped (OTHER_CTX, NULL);
  g_autoptr (GcgStream) stream = gcg_stream_new_wrapped (ctx, (gpointer) 0x5);
  g_autoptr (GcgStream)
      foreign = gcg_stream_new_wrapped (other, (gpointer) 0x6);
  FakeGraph g = { 1, { { CU_GRAPH_NODE_TYPE_KERNEL, NULL } } };
  g_autoptr (GcgModelGraph) m = new_model (ctx, &g, NULL);
  g_autoptr (GError) error = NULL;

  capturing = FALSE;
  added_child = NULL;
  g_assert_false (gcg_model_graph_add_to_capture (m, stream, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_CAPTURE_STATE);
  g_assert_null (added_child);
  g_clear_error (&error);

  capturing = TRUE;
  g_assert_false (gcg_model_graph_add_to_capture (m, foreign, &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_null (added_child);
  g_clear_error (&error);

  g_assert_true (gcg_model_graph_add_to_capture (m, stream, &error));
  g_assert_no_error (error);
  g_assert_true (added_child == (CUgraph) &g);
  g_assert_true (added_deps == fake_deps);
  g_assert_cmpuint (added_n_deps, ==, 2);
  g_assert_true (updated_node == CHILD_NODE);
  g_assert_cmpuint (updated_flags, ==, CU_STREAM_SET_CAPTURE_DEPENDENCIES);
  capturing = FALSE;
}

/* Eager launches instantiate once; the exec goes with the model graph. */
static void
test_eager_launch (void)
{
  g_autoptr (GcgContext) ctx = fake_context ();
  g_autoptr (GcgStream) stream = gcg_stream_new_wrapped (ctx, (gpointer) 0x5);
  FakeGraph g = { 1, { { CU_GRAPH_NODE_TYPE_KERNEL, NULL } } };
  GcgModelGraph *m = new_model (ctx, &g, NULL);
  g_autoptr (GError) error = NULL;

  instantiated = launched = 0;
  for (guint i = 0; i < 3; i++) {
    g_assert_true (gcg_model_graph_launch (m, stream, &error));
    g_assert_no_error (error);
  }
  g_assert_cmpuint (instantiated, ==, 1);
  g_assert_cmpuint (launched, ==, 3);
  g_object_unref (m);
  g_assert_cmpuint (instantiated, ==, 0);
}

static void
test_dtype_sizes (void)
{
  g_assert_cmpuint (gcg_model_dtype_get_size (GCG_MODEL_DTYPE_FLOAT32), ==, 4);
  g_assert_cmpuint (gcg_model_dtype_get_size (GCG_MODEL_DTYPE_FLOAT16), ==, 2);
  g_assert_cmpuint (gcg_model_dtype_get_size (GCG_MODEL_DTYPE_BFLOAT16), ==, 2);
  g_assert_cmpuint (gcg_model_dtype_get_size (GCG_MODEL_DTYPE_UINT8), ==, 1);
  g_assert_cmpuint (gcg_model_dtype_get_size (GCG_MODEL_DTYPE_INT8), ==, 1);
  g_assert_cmpuint (gcg_model_dtype_get_size (GCG_MODEL_DTYPE_INT32), ==, 4);
  g_assert_cmpuint (gcg_model_dtype_get_size (GCG_MODEL_DTYPE_INT64), ==, 8);
  g_assert_cmpuint (gcg_model_dtype_get_size ((GcgModelDtype) 42), ==, 0);
}

/* The tree's one element-type table (gcg-dtype.c), which the chain, the
 * metas and the elements read. */
static void
test_tensor_types (void)
{
  static const struct
  {
    GcgTensorType type;
    const gchar *name;
    gsize size;
    GcgModelDtype dtype;
  } rows[] = {
    { GCG_TENSOR_TYPE_FLOAT32, "float32", 4, GCG_MODEL_DTYPE_FLOAT32 },
    { GCG_TENSOR_TYPE_FLOAT16, "float16", 2, GCG_MODEL_DTYPE_FLOAT16 },
    { GCG_TENSOR_TYPE_UINT8, "uint8", 1, GCG_MODEL_DTYPE_UINT8 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++) {
    GcgTensorType type = (GcgTensorType) 99;
    GcgModelDtype dtype = (GcgModelDtype) 99;

    g_assert_cmpstr (gcg__tensor_type_get_name (rows[i].type), ==,
        rows[i].name);
    g_assert_cmpuint (gcg__tensor_type_get_size (rows[i].type), ==,
        rows[i].size);
    g_assert_cmpint (gcg__tensor_type_get_dtype (rows[i].type), ==,
        rows[i].dtype);
    g_assert_true (gcg__tensor_type_from_name (rows[i].name, &type));
    g_assert_cmpint (type, ==, rows[i].type);
    g_assert_true (gcg__model_dtype_from_name (rows[i].name, &dtype));
    g_assert_cmpint (dtype, ==, rows[i].dtype);
  }
  /* Out of range: float32, as the chain's default. */
  g_assert_cmpstr (gcg__tensor_type_get_name ((GcgTensorType) 42), ==,
      "float32");
  g_assert_cmpuint (gcg__tensor_type_get_size ((GcgTensorType) 42), ==, 4);
}

static void
test_names_refused (void)
{
  GcgTensorType type = GCG_TENSOR_TYPE_UINT8;
  GcgModelDtype dtype = GCG_MODEL_DTYPE_INT8;

  /* A model's dtype the chain does not write. */
  g_assert_false (gcg__tensor_type_from_name ("bfloat16", &type));
  g_assert_false (gcg__model_dtype_get_tensor_type (GCG_MODEL_DTYPE_INT64,
      &type));
  g_assert_false (gcg__model_dtype_get_tensor_type ((GcgModelDtype) 42, &type));
  g_assert_cmpint (type, ==, GCG_TENSOR_TYPE_UINT8);
  g_assert_true (gcg__model_dtype_from_name ("int64", &dtype));
  g_assert_cmpint (dtype, ==, GCG_MODEL_DTYPE_INT64);
  g_assert_false (gcg__model_dtype_from_name ("Float32", &dtype));
  g_assert_false (gcg__model_dtype_from_name ("", &dtype));
  g_assert_false (gcg__model_dtype_from_name (NULL, &dtype));
  g_assert_cmpint (dtype, ==, GCG_MODEL_DTYPE_INT64);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/model-graph/owner-lifetime", test_owner_lifetime);
  g_test_add_func ("/model-graph/invalid-graph", test_invalid_graph);
  g_test_add_func ("/model-graph/memory-nodes-refused",
      test_memory_nodes_refused);
  g_test_add_func ("/model-graph/depth-bound", test_depth_bound);
  g_test_add_func ("/model-graph/driver-failure", test_driver_failure);
  g_test_add_func ("/model-graph/input-checks", test_input_checks);
  g_test_add_func ("/model-graph/context-checked", test_context_checked);
  g_test_add_func ("/model-graph/outputs", test_outputs);
  g_test_add_func ("/model-graph/dtype-sizes", test_dtype_sizes);
  g_test_add_func ("/model-graph/tensor-types", test_tensor_types);
  g_test_add_func ("/model-graph/dtype-names-refused", test_names_refused);
  g_test_add_func ("/model-graph/add-to-capture", test_add_to_capture);
  g_test_add_func ("/model-graph/eager-launch", test_eager_launch);
  return g_test_run ();
}
