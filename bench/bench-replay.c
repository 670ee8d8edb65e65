/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Eager launches against graph replay, for chains of 1, 10, 30 and 100
 * small kernels (gcg_test_add_u32 on 256 values, one block each).
 *
 * Per frame, one frame at a time:
 *   eager: launch the N kernels, then wait for the stream;
 *   graph: one stream-ordered H→D copy of a device scalar (the per-frame
 *          parameter), one graph launch, then wait for the stream.
 * "host µs" is the time spent queueing a frame, "wall µs" queueing plus
 * waiting for it to complete; "pipe µs" is the time per frame when frames
 * are queued back to back and waited for once (a streaming pipeline's
 * throughput).  Without a GPU it prints one line and exits
 * 77 (skipped).
 *
 *   bench-replay [--frames=2000] [--warmup=200]
 */
#include <gcg.h>
#include "gcg-bench-util.h"
#include "bench-common.h"
#include "gcg-context-private.h"
#include "gcg-stream-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N_VALUES 256u

typedef struct
{
  GcgContext *ctx;
  GcgStream *stream;
  CUfunction add;
  CUdeviceptr data;
  GcgDeviceScalar *value;
  guint frames, warmup;
} Bench;

typedef struct
{
  gdouble host_us;
  gdouble wall_us;
} Timing;

static void
enqueue_chain (Bench *b, guint kernels)
{
  GError *error = NULL;
  guint32 n = N_VALUES;
  CUdeviceptr value = gcg_device_scalar_get_device_ptr (b->value);
  void *params[] = { &b->data, &n, &value };

  for (guint k = 0; k < kernels; k++) {
    if (!GCG_CU_OK (&error, cuLaunchKernel, b->add, 1, 1, 1, N_VALUES, 1, 1, 0,
            gcg__stream_get_cu (b->stream), params, NULL))
      gcg_bench_die ("cuLaunchKernel", error);
  }
}

static void
wait_stream (Bench *b)
{
  GError *error = NULL;

  if (!gcg_stream_synchronize (b->stream, &error))
    gcg_bench_die ("synchronize", error);
}

static void
graph_frame (Bench *b, GcgGraph *graph, guint frame)
{
  GError *error = NULL;

  if (!gcg_device_scalar_set_uint (b->value, frame & 7, &error)
      || !gcg_device_scalar_update (b->value, b->stream, &error)
      || !gcg_graph_launch (graph, b->stream, &error))
    gcg_bench_die ("graph frame", error);
}

/* Times @frames frames after @warmup untimed ones. */
static Timing
time_frames (Bench *b, guint kernels, GcgGraph *graph)
{
  gint64 host = 0, wall = 0;
  Timing t;

  for (guint f = 0; f < b->warmup + b->frames; f++) {
    gint64 t0 = gcg_bench_now_ns (), t1;

    if (graph)
      graph_frame (b, graph, f);
    else
      enqueue_chain (b, kernels);
    t1 = gcg_bench_now_ns ();
    wait_stream (b);
    if (f >= b->warmup) {
      host += t1 - t0;
      wall += gcg_bench_now_ns () - t0;
    }
  }
  t.host_us = host / 1e3 / b->frames;
  t.wall_us = wall / 1e3 / b->frames;
  return t;
}

/* Queues @frames frames back to back and waits once: what a streaming
 * pipeline sees, where frames are not waited for one by one.  Returns µs
 * per frame. */
static gdouble
time_pipelined (Bench *b, guint kernels, GcgGraph *graph)
{
  gint64 t0;

  for (guint f = 0; f < b->warmup; f++)
    graph ? graph_frame (b, graph, f) : enqueue_chain (b, kernels);
  wait_stream (b);
  t0 = gcg_bench_now_ns ();
  for (guint f = 0; f < b->frames; f++)
    graph ? graph_frame (b, graph, f) : enqueue_chain (b, kernels);
  wait_stream (b);
  return (gcg_bench_now_ns () - t0) / 1e3 / b->frames;
}

static GcgGraph *
capture_chain (Bench *b, guint kernels)
{
  GError *error = NULL;
  GcgCapture *capture;
  GcgGraph *graph;

  capture = gcg_capture_begin (b->stream, GCG_CAPTURE_MODE_DEFAULT, &error);
  if (!capture)
    gcg_bench_die ("capture", error);
  enqueue_chain (b, kernels);
  graph = gcg_capture_finish (capture, &error);
  g_object_unref (capture);
  if (!graph || !gcg_graph_upload (graph, b->stream, &error))
    gcg_bench_die ("capture", error);
  return graph;
}

static void
run_row (Bench *b, guint kernels)
{
  GcgGraph *graph = capture_chain (b, kernels);
  Timing eager = time_frames (b, kernels, NULL);
  Timing replay = time_frames (b, kernels, graph);
  gdouble eager_pipe = time_pipelined (b, kernels, NULL);
  gdouble graph_pipe = time_pipelined (b, kernels, graph);

  printf ("%7u | %10.2f | %10.2f | %10.2f | %10.2f | %11.2f | %11.2f |"
          " %10.2f | %10.2f | %10.2f\n",
      kernels, eager.host_us, eager.wall_us, replay.host_us, replay.wall_us,
      eager.host_us / replay.host_us, eager.wall_us / replay.wall_us,
      eager_pipe, graph_pipe, eager_pipe / graph_pipe);
  fflush (stdout);
  g_object_unref (graph);
}

static void
setup (Bench *b)
{
  GError *error = NULL;

  b->ctx = gcg_bench_open_gpu ("bench-replay");
  if (!(b->stream = gcg_stream_new (b->ctx, &error))
      || !gcg_context_push (b->ctx, &error)
      || !(b->add =
               gcg__context_get_function (b->ctx, "gcg_test_add_u32", &error))
      || !GCG_CU_OK (&error, cuMemAlloc, &b->data, N_VALUES * 4)
      || !GCG_CU_OK (&error, cuMemsetD32Async, b->data, 0, N_VALUES,
          gcg__stream_get_cu (b->stream))
      || !(b->value =
               gcg_device_scalar_new (b->ctx, GCG_SCALAR_TYPE_UINT32, &error))
      || !gcg_device_scalar_set_uint (b->value, 1, &error)
      || !gcg_device_scalar_update (b->value, b->stream, &error))
    gcg_bench_die ("setup", error);
  wait_stream (b);
}

int
main (int argc, char **argv)
{
  static const guint chains[] = { 1, 10, 30, 100 };
  Bench b = { 0 };
  gint frames = 2000, warmup = 200;
  GOptionEntry entries[] = { { "frames", 0, 0, G_OPTION_ARG_INT, &frames,
                                 "Timed frames per row", "N" },
    { "warmup", 0, 0, G_OPTION_ARG_INT, &warmup, "Untimed frames first", "N" },
    { NULL } };
  g_autoptr (GOptionContext) options = g_option_context_new ("");
  g_autoptr (GError) error = NULL;

  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error) || frames < 1
      || warmup < 0) {
    fprintf (stderr, "bench-replay: %s\n",
        error ? error->message : "--frames must be ≥ 1, --warmup ≥ 0");
    return 2;
  }
  b.frames = frames;
  b.warmup = warmup;
  setup (&b);

  printf ("bench-replay: %s, %u frames per row after %u warm-up; one frame "
          "at a time, then pipelined (no wait between frames)\n",
      gcg_context_get_name (b.ctx), b.frames, b.warmup);
  printf ("kernels | eager host | eager wall | graph host | graph wall | "
          " host ratio |  wall ratio | eager pipe | graph pipe | pipe ratio\n");
  printf (
      "        |   µs/frame |   µs/frame |   µs/frame |   µs/frame | "
      "eager/graph | eager/graph |   µs/frame |   µs/frame | eager/graph\n");
  for (guint i = 0; i < G_N_ELEMENTS (chains); i++)
    run_row (&b, chains[i]);

  GCG_CU_WARN (cuMemFree, b.data);
  g_clear_object (&b.value);
  gcg_context_pop (b.ctx, NULL);
  g_clear_object (&b.stream);
  g_clear_object (&b.ctx);
  return 0;
}
