/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What getting one frame's values to the GPU costs, per way of doing it,
 * around the same kernel (gcg_test_affine_f32 over 2 Mi floats, about as
 * long as the 640² tensor op), in one run:
 *
 *   fixed      the graph alone, its values never changed: the bound;
 *   copy       a GcgParamBlock's update (a copy from a pinned slot) that
 *              the graph's kernel reads, then the graph: what the frame
 *              chains did before 0.2;
 *   by-value   the kernel takes its values by value (a 3.3 KB struct, as
 *              large as a frame kernel's), set on the executable graph each
 *              frame (cuGraphExecKernelNodeSetParams), one launch: what
 *              they do now;
 *   eager      that kernel launched on the stream each frame.
 *
 * GPU µs/frame: frames queued back to back, timed by events; host µs/frame:
 * queueing one frame with the GPU idle.  Each row first checks that three
 * frames' values reached the kernel.  Without a GPU it prints one line and
 * exits 77 (skipped).
 *
 *   bench-param-delivery [--frames=2000] [--warmup=200]
 */
#include <gcg.h>
#include "gcg-bench-util.h"
#include "bench-common.h"
#include "gcg-context-private.h"
#include "gcg-stream-private.h"

#include <stdio.h>
#include <string.h>

/* Dies unless @expr, with the error it set (through &error). */
#define CHECK(what, expr) \
  G_STMT_START { \
    GError *error = NULL; \
    gboolean ok_ = (expr); \
    gcg_bench_check (ok_, what, error); \
  } \
  G_STMT_END

#define N_VALUES (2u << 20)
#define BLOCK 256
#define BYVAL_BYTES (8 + 3320)

typedef struct Bench Bench;
typedef void (*FrameFunc) (Bench *b, gfloat offset);

struct Bench
{
  GcgContext *ctx;
  GcgStream *stream;
  CUstream cu;
  CUfunction affine, byval;
  CUdeviceptr data, values;
  guint frames, warmup;
  GcgParamBlock *block;
  CUgraphExec fixed, by_copy, by_value;
  CUgraphNode byval_node;
  guint8 byval_args[BYVAL_BYTES];
  GError *failed;               /* set_node's, while trying a way */
  gboolean timing;
};

static void
launch_affine (Bench *b, CUdeviceptr scale, CUdeviceptr offset)
{
  guint32 n = N_VALUES;
  void *params[] = { &b->data, &n, &scale, &offset };

  CHECK ("affine",
      GCG_CU_OK (&error, cuLaunchKernel, b->affine, N_VALUES / BLOCK, 1, 1,
          BLOCK, 1, 1, 0, b->cu, params, NULL));
}

static void
launch_byval (Bench *b)
{
  guint32 n = N_VALUES;
  void *params[] = { &b->data, &n, b->byval_args };

  CHECK ("by value",
      GCG_CU_OK (&error, cuLaunchKernel, b->byval, N_VALUES / BLOCK, 1, 1,
          BLOCK, 1, 1, 0, b->cu, params, NULL));
}

/* The kernel node of @fn in @graph. */
static CUgraphNode
find_node (CUgraph graph, CUfunction fn)
{
  CUgraphNode nodes[8];
  size_t count = G_N_ELEMENTS (nodes);
  CUDA_KERNEL_NODE_PARAMS p;
  CUgraphNodeType type;

  CHECK ("nodes", GCG_CU_OK (NULL, cuGraphGetNodes, graph, nodes, &count));
  for (size_t i = 0; i < count; i++) {
    if (GCG_CU (cuGraphNodeGetType, nodes[i], &type) == CUDA_SUCCESS
        && type == CU_GRAPH_NODE_TYPE_KERNEL
        && GCG_CU (cuGraphKernelNodeGetParams, nodes[i], &p) == CUDA_SUCCESS
        && p.func == fn)
      return nodes[i];
  }
  gcg_bench_die ("no such kernel node", NULL);
  return NULL;
}

typedef enum
{
  CAPTURE_FIXED,
  CAPTURE_COPY,
  CAPTURE_BY_VALUE,
} CaptureKind;

static CUgraphExec
capture (Bench *b, CaptureKind kind, CUgraphNode *node)
{
  CUgraph graph = NULL;
  CUgraphExec exec = NULL;

  CHECK ("capture",
      GCG_CU_OK (&error, cuStreamBeginCapture, b->cu,
          CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
  if (kind == CAPTURE_BY_VALUE)
    launch_byval (b);
  else if (kind == CAPTURE_COPY)
    launch_affine (b, gcg_param_block_get_field_device_ptr (b->block, 0),
        gcg_param_block_get_field_device_ptr (b->block, 1));
  else
    launch_affine (b, b->values, b->values + 4);
  CHECK ("capture",
      GCG_CU_OK (&error, cuStreamEndCapture, b->cu, &graph)
          && GCG_CU_OK (&error, cuGraphInstantiateWithFlags, &exec, graph, 0)
          && GCG_CU_OK (&error, cuGraphUpload, exec, b->cu));
  /* A node handle is valid while its graph lives: the graph stays. */
  if (node)
    *node = find_node (graph, b->byval);
  else
    GCG_CU_WARN (cuGraphDestroy, graph);
  return exec;
}

static void
graph_launch (Bench *b, CUgraphExec exec)
{

  CHECK ("launch", GCG_CU_OK (&error, cuGraphLaunch, exec, b->cu));
}

static void
stage_block (Bench *b, GcgParamBlock *block, gfloat offset)
{

  CHECK ("update",
      gcg_param_block_set_double (block, 0, 1.0, &error)
          && gcg_param_block_set_double (block, 1, offset, &error)
          && gcg_param_block_update (block, b->stream, &error));
}

/* While a row is tried, a failure is the row's result, not the end. */
static void
set_node (Bench *b, CUgraphExec exec, CUgraphNode node,
    const CUDA_KERNEL_NODE_PARAMS *p)
{
  GError *error = NULL;

  if (!GCG_CU_OK (&error, cuGraphExecKernelNodeSetParams, exec, node, p)) {
    if (b->failed == NULL && error && !b->timing) {
      b->failed = error;
      return;
    }
    gcg_bench_die ("set node", error);
  }
}

static void
frame_fixed (Bench *b, gfloat offset)
{
  graph_launch (b, b->fixed);
}

static void
frame_copy (Bench *b, gfloat offset)
{
  stage_block (b, b->block, offset);
  graph_launch (b, b->by_copy);
}

static void
frame_by_value (Bench *b, gfloat offset)
{
  guint32 n = N_VALUES;
  void *params[] = { &b->data, &n, b->byval_args };
  CUDA_KERNEL_NODE_PARAMS p = { b->byval, N_VALUES / BLOCK, 1, 1, BLOCK, 1, 1,
    0, params, NULL, NULL, NULL };

  memcpy (b->byval_args + 4, &offset, 4);
  set_node (b, b->by_value, b->byval_node, &p);
  graph_launch (b, b->by_value);
}

static void
frame_eager (Bench *b, gfloat offset)
{
  memcpy (b->byval_args + 4, &offset, 4);
  launch_byval (b);
}

static void
sync_stream (Bench *b)
{

  CHECK ("synchronize", gcg_stream_synchronize (b->stream, &error));
}

/* Three frames adding 1, 2 and 3 to zeros leave 6 everywhere sampled.
 * FALSE, with the row's line, when the way cannot be used at all. */
static gboolean
try_values (Bench *b, FrameFunc frame, const gchar *name)
{
  gfloat got[2];

  CHECK ("memset",
      GCG_CU_OK (NULL, cuMemsetD32Async, b->data, 0, N_VALUES, b->cu));
  b->failed = NULL;
  for (gint i = 1; i <= 3 && !b->failed; i++)
    frame (b, i);
  if (b->failed) {
    printf ("%-10s | failed: %s\n", name, b->failed->message);
    g_clear_error (&b->failed);
    return FALSE;
  }
  sync_stream (b);
  CHECK ("read back",
      GCG_CU_OK (NULL, cuMemcpyDtoH, &got[0], b->data, 4)
          && GCG_CU_OK (NULL, cuMemcpyDtoH, &got[1],
              b->data + (N_VALUES - 1) * 4, 4));
  if (got[0] != 6.0f || got[1] != 6.0f) {
    fprintf (stderr,
        "bench-param-delivery: %s delivered wrong values "
        "(%g, %g instead of 6)\n",
        name, got[0], got[1]);
    exit (1);
  }
  return TRUE;
}

static void
run_row (Bench *b, const gchar *name, FrameFunc frame, gdouble bound)
{
  CUevent start, end;
  gint64 host = 0;
  gfloat ms = 0;

  b->timing = FALSE;
  if (frame != frame_fixed && !try_values (b, frame, name))
    return;
  b->timing = TRUE;
  CHECK ("event",
      GCG_CU_OK (NULL, cuEventCreate, &start, CU_EVENT_DEFAULT)
          && GCG_CU_OK (NULL, cuEventCreate, &end, CU_EVENT_DEFAULT));
  for (guint f = 0; f < b->warmup; f++)
    frame (b, 0);
  sync_stream (b);
  CHECK ("record", GCG_CU_OK (NULL, cuEventRecord, start, b->cu));
  for (guint f = 0; f < b->frames; f++)
    frame (b, 0);
  CHECK ("record", GCG_CU_OK (NULL, cuEventRecord, end, b->cu));
  sync_stream (b);
  CHECK ("elapsed", GCG_CU_OK (NULL, cuEventElapsedTime, &ms, start, end));
  for (guint f = 0; f < b->frames; f++) {
    gint64 t0 = gcg_bench_now_ns ();

    frame (b, 0);
    host += gcg_bench_now_ns () - t0;
    sync_stream (b);
  }
  printf ("%-10s | %8.2f | %6.2f× | %8.2f\n", name, ms * 1e3 / b->frames,
      bound > 0 ? ms * 1e3 / b->frames / bound : 1.0, host / 1e3 / b->frames);
  fflush (stdout);
  GCG_CU_WARN (cuEventDestroy, start);
  GCG_CU_WARN (cuEventDestroy, end);
}

static GcgParamBlock *
new_block (Bench *b)
{
  GcgParamBlock *block = gcg_param_block_new ();

  gcg_param_block_add_field (block, "scale", GCG_SCALAR_TYPE_FLOAT, NULL);
  gcg_param_block_add_field (block, "offset", GCG_SCALAR_TYPE_FLOAT, NULL);
  CHECK ("block", gcg_param_block_allocate (block, b->ctx, 0, &error));
  return block;
}

static void
setup (Bench *b)
{
  const gfloat one = 1.0f;
  GError *error = NULL;
  gboolean ok;

  b->ctx = gcg_bench_open_gpu ("bench-param-delivery");
  ok = (b->stream = gcg_stream_new (b->ctx, &error))
      && gcg_context_push (b->ctx, &error)
      && (b->affine =
              gcg__context_get_function (b->ctx, "gcg_test_affine_f32", &error))
      && (b->byval = gcg__context_get_function (b->ctx,
              "gcg_test_affine_f32_byval", &error))
      && GCG_CU_OK (&error, cuMemAlloc, &b->data, N_VALUES * 4)
      && GCG_CU_OK (&error, cuMemAlloc, &b->values, 3328);
  gcg_bench_check (ok, "setup", error);
  g_clear_error (&error);
  b->cu = gcg__stream_get_cu (b->stream);
  b->block = new_block (b);
  memcpy (b->byval_args, &one, 4);
  ok = GCG_CU_OK (&error, cuMemcpyHtoD, b->values, b->byval_args, 8);
  gcg_bench_check (ok, "values", error);
  b->fixed = capture (b, CAPTURE_FIXED, NULL);
  b->by_copy = capture (b, CAPTURE_COPY, NULL);
  b->by_value = capture (b, CAPTURE_BY_VALUE, &b->byval_node);
  sync_stream (b);
}

int
main (int argc, char **argv)
{
  Bench b = { 0 };
  gint frames = 2000, warmup = 200;
  GOptionEntry entries[] = { { "frames", 0, 0, G_OPTION_ARG_INT, &frames,
                                 "Timed frames", "N" },
    { "warmup", 0, 0, G_OPTION_ARG_INT, &warmup, "Untimed frames", "N" },
    { NULL } };
  g_autoptr (GOptionContext) options = g_option_context_new (NULL);
  g_autoptr (GError) parse_error = NULL;
  gdouble bound;

  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &parse_error)
      || frames < 1 || warmup < 0)
    gcg_bench_die ("arguments", parse_error);
  b.frames = frames;
  b.warmup = warmup;
  setup (&b);
  printf ("bench-param-delivery: %s, %u frames per row after %u warm-up; "
          "kernel over %u floats\n",
      gcg_context_get_name (b.ctx), b.frames, b.warmup, N_VALUES);
  printf ("row        | GPU µs/f | vs fixed | host µs/f, GPU idle\n");
  run_row (&b, "fixed", frame_fixed, 0);
  {
    /* The bound: the same row again, timed the same way. */
    CUevent s, e;
    gfloat ms = 0;

    CHECK ("event",
        GCG_CU_OK (NULL, cuEventCreate, &s, CU_EVENT_DEFAULT)
            && GCG_CU_OK (NULL, cuEventCreate, &e, CU_EVENT_DEFAULT)
            && GCG_CU_OK (NULL, cuEventRecord, s, b.cu));
    for (guint f = 0; f < b.frames; f++)
      frame_fixed (&b, 0);
    CHECK ("record", GCG_CU_OK (NULL, cuEventRecord, e, b.cu));
    sync_stream (&b);
    CHECK ("elapsed", GCG_CU_OK (NULL, cuEventElapsedTime, &ms, s, e));
    bound = ms * 1e3 / b.frames;
    GCG_CU_WARN (cuEventDestroy, s);
    GCG_CU_WARN (cuEventDestroy, e);
  }
  run_row (&b, "copy", frame_copy, bound);
  run_row (&b, "by-value", frame_by_value, bound);
  run_row (&b, "eager", frame_eager, bound);
  return 0;
}
