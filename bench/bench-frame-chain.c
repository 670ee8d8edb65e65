/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GcgFrameBatch throughput on the two workloads it exists for:
 *   tensor: 1080p NV12 -> 640x640 letterboxed NCHW float32 RGB (mean/std)
 *   video:  1080p NV12 -> 1280x720 RGBA (bilinear)
 * For each, graph replay and eager launches: GPU µs/frame (CUDA events
 * around --frames back-to-back frames, pipelined, no host wait between
 * them), host µs/frame (time to queue one frame), and the bytes a frame
 * must move (input frame read once + output written once) as effective
 * GB/s against a measured device-to-device copy.  "kernel" is the same
 * frame's kernel alone: KERNELS_PER_GRAPH eager frames captured into one
 * graph, so what a replay costs per frame (the launch, the gap between
 * two graphs) is spread over them; graph − kernel is the per-frame
 * launch cost, kernel against the bytes is the kernel's own bandwidth.  The CPU reference's
 * ms/frame is printed for scale.  Then the cost of a user kernel fused
 * after the op (examples/kernels/vignette.cu on the video output, its
 * strength a per-frame named value): the op alone, op + kernel in one
 * graph, and the kernel alone, graph replay; the fused row's extra GPU
 * and host time against the kernel's own.  Without a GPU it prints one
 * line and exits 77 (skipped).
 *
 *   bench-frame-chain [--frames=1000] [--warmup=100] [--cpu-frames=3]
 */
#include <gcg.h>
#include "gcg-bench-util.h"
#include "bench-common.h"
#include "gcg-context-private.h"
#include "gcg-frame-batch-private.h"
#include "gcg-stream-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define IN_W 1920
#define IN_H 1080
#define COPY_BYTES (256u << 20)
#define KERNELS_PER_GRAPH 32

typedef struct
{
  GcgContext *ctx;
  GcgStream *stream;
  CUevent start, stop;
  CUdeviceptr in, out;
  guint8 *host_in, *host_out;
  guint frames, warmup, cpu_frames;
  gdouble copy_gbs;
} Bench;

typedef struct
{
  gdouble gpu_us;
  gdouble host_us;
} Timing;

/* GPU milliseconds between the two events, after waiting for the stop. */
static gdouble
elapsed_ms (Bench *b)
{
  GError *error = NULL;
  gfloat ms = 0;

  gcg_bench_check (GCG_CU_OK (&error, cuEventSynchronize, b->stop)
          && GCG_CU_OK (&error, cuEventElapsedTime, &ms, b->start, b->stop),
      "events", error);
  return ms;
}

/* Device-to-device copy bandwidth, counting the bytes read and written. */
static void
measure_copy (Bench *b)
{
  GError *error = NULL;
  CUdeviceptr src = 0, dst = 0;
  const guint reps = 20;

  gcg_bench_check (GCG_CU_OK (&error, cuMemAlloc, &src, COPY_BYTES)
          && GCG_CU_OK (&error, cuMemAlloc, &dst, COPY_BYTES),
      "copy buffers", error);
  for (guint i = 0; i < reps + 2; i++) {
    if (i == 2)
      gcg_bench_record (b->stream, b->start);
    gcg_bench_check (GCG_CU_OK (&error, cuMemcpyDtoDAsync, dst, src, COPY_BYTES,
                         gcg__stream_get_cu (b->stream)),
        "cuMemcpyDtoDAsync", error);
  }
  gcg_bench_record (b->stream, b->stop);
  b->copy_gbs = 2.0 * COPY_BYTES * reps / (elapsed_ms (b) * 1e6);
  GCG_CU_WARN (cuMemFree, src);
  GCG_CU_WARN (cuMemFree, dst);
}

static void
fill_params (Bench *b, const GcgFrameChainConfig *c, gboolean device,
    GcgFrameParams *p)
{
  static const gfloat mean[3] = { 0.485f, 0.456f, 0.406f };
  static const gfloat std[3] = { 0.229f, 0.224f, 0.225f };
  guint64 in = device ? b->in : (guint64) (guintptr) b->host_in;
  guint64 out = device ? b->out : (guint64) (guintptr) b->host_out;

  gcg_frame_params_init (p);
  p->src[0] = in;
  p->src[1] = in + IN_W * IN_H;
  p->src_stride[0] = p->src_stride[1] = IN_W;
  p->dst[0] = out;
  if (c->output == GCG_OUTPUT_KIND_TENSOR) {
    gcg_frame_params_set_mean_std (p, mean, std);
    p->pad[0] = p->pad[1] = p->pad[2] = 0.5f;
  } else {
    p->dst_stride[0] = (gint) c->out_width * 4;
  }
}

/* Pipelined: --frames frames of @chain queued back to back between two
 * events (the host time includes waits for the parameter ring when the
 * host runs ahead of the GPU). */
static Timing
time_chain (Bench *b, GcgFrameBatch *chain, const GcgFrameParams *p0,
    gboolean use_graph)
{
  GError *error = NULL;
  GcgFrameParams p = *p0;
  gint64 host = 0;
  Timing t;

  gcg_frame_batch_set_use_graph (chain, use_graph);
  for (guint f = 0; f < b->warmup + b->frames; f++) {
    gint64 t0;

    if (f == b->warmup)
      gcg_bench_record (b->stream, b->start);
    p.frame_number = f;
    p.brightness = (f & 1) ? 0.01f : 0.0f;
    t0 = gcg_bench_now_ns ();
    gcg_bench_check (gcg_frame_batch_process_frame (chain, &p, b->stream,
                         &error),
        "process", error);
    if (f >= b->warmup)
      host += gcg_bench_now_ns () - t0;
  }
  gcg_bench_record (b->stream, b->stop);
  t.gpu_us = elapsed_ms (b) * 1e3 / b->frames;
  t.host_us = host / 1e3 / b->frames;
  return t;
}

/* The host's own cost of queuing one frame of @chain, graph replay: the
 * GPU is idle at each call (a wait after it, not timed), so no ring
 * wait is counted. */
static gdouble
time_host (Bench *b, GcgFrameBatch *chain, const GcgFrameParams *p0)
{
  GError *error = NULL;
  GcgFrameParams p = *p0;
  gint64 host = 0;

  for (guint f = 0; f < b->warmup + b->frames; f++) {
    gint64 t0 = gcg_bench_now_ns ();

    p.frame_number = f;
    gcg_bench_check (gcg_frame_batch_process_frame (chain, &p, b->stream,
                         &error),
        "process", error);
    if (f >= b->warmup)
      host += gcg_bench_now_ns () - t0;
    gcg_bench_check (GCG_CU_OK (&error, cuStreamSynchronize,
                         gcg__stream_get_cu (b->stream)),
        "cuStreamSynchronize", error);
  }
  return host / 1e3 / b->frames;
}

/* GPU µs of the frame's kernel alone: KERNELS_PER_GRAPH eager frames
 * captured into one graph, replayed back to back. */
static gdouble
time_kernel_alone (Bench *b, const GcgFrameChainConfig *c)
{
  GError *error = NULL;
  g_autoptr (GcgFrameBatch) chain =
      gcg_frame_batch_new_for_frame (c, GCG_BACKEND_CUDA, b->ctx, &error);
  g_autoptr (GcgCapture) capture = NULL;
  g_autoptr (GcgGraph) graph = NULL;
  guint replays = MAX (b->frames / KERNELS_PER_GRAPH, 1);
  GcgFrameParams p;

  gcg_bench_check (chain != NULL, "chain", error);
  fill_params (b, c, TRUE, &p);
  gcg_frame_batch_set_use_graph (chain, FALSE);
  /* The first frame sets up what capture must not (the kernel's module). */
  gcg_bench_check (gcg_frame_batch_process_frame (chain, &p, b->stream, &error)
          && gcg_stream_synchronize (b->stream, &error),
      "first frame", error);
  capture =
      gcg_capture_begin (b->stream, GCG_CAPTURE_MODE_THREAD_LOCAL, &error);
  gcg_bench_check (capture != NULL, "capture", error);
  for (guint k = 0; k < KERNELS_PER_GRAPH; k++) {
    p.frame_number = k;
    gcg_bench_check (gcg_frame_batch_process_frame (chain, &p, b->stream,
                         &error),
        "captured frame", error);
  }
  graph = gcg_capture_finish (capture, &error);
  gcg_bench_check (graph != NULL, "end capture", error);
  for (guint r = 0; r < replays + 1; r++) {
    if (r == 1)
      gcg_bench_record (b->stream, b->start);
    gcg_bench_check (gcg_graph_launch (graph, b->stream, &error), "replay",
        error);
  }
  gcg_bench_record (b->stream, b->stop);
  return elapsed_ms (b) * 1e3 / ((gdouble) replays * KERNELS_PER_GRAPH);
}

static Timing
time_gpu (Bench *b, const GcgFrameChainConfig *c, gboolean use_graph)
{
  GError *error = NULL;
  g_autoptr (GcgFrameBatch) chain =
      gcg_frame_batch_new_for_frame (c, GCG_BACKEND_CUDA, b->ctx, &error);
  GcgFrameParams p;

  gcg_bench_check (chain != NULL, "chain", error);
  fill_params (b, c, TRUE, &p);
  return time_chain (b, chain, &p, use_graph);
}

/* A per-frame strength, as an element's GcgParamsMeta would give it. */
static gboolean
lookup_strength (const gchar *name, GcgFrameValue *value, gpointer data)
{
  guint *n = data;

  value->type = GCG_FRAME_VALUE_DOUBLE;
  value->v.d = 0.25 + 0.5 * ((*n)++ & 1);
  return g_str_equal (name, "strength");
}

/* examples/kernels/vignette.cu's gcg-params line. */
#define VIGNETTE_DECL \
  "src=src0,dst=dst0,src_pitch=src_pitch0," \
  "dst_pitch=dst_pitch0,width=out_width,height=out_height," \
  "strength=meta:strength:f32:0.5"

typedef struct
{
  Timing pipelined;
  gdouble host_us;              /* time_host() */
} KernelTiming;

/* @c's op alone, or the vignette after it (@kernel), or the vignette
 * alone (@kernel and @alone: in a chain of its own, in place on an RGBA
 * frame of @c's output size), graph replay. */
static KernelTiming
time_user_kernel (Bench *b, const GcgFrameChainConfig *c, gboolean kernel,
    gboolean alone)
{
  GError *error = NULL;
  g_autoptr (GcgKernelOp) op = NULL;
  g_autoptr (GcgFrameBatch) chain = NULL;
  GcgFrameChainConfig own = *c;
  GcgFrameParams p;
  KernelTiming t;
  guint n = 0;

  fill_params (b, c, TRUE, &p);
  if (alone) {
    own.in_format = c->out_format;
    own.in_width = c->out_width;
    own.in_height = c->out_height;
    chain = gcg__frame_batch_new_stages_only (&own, b->ctx, &error);
    p.src[0] = p.dst[0];
    p.src[1] = 0;
    p.src_stride[0] = p.dst_stride[0];
    p.src_stride[1] = 0;
  } else {
    chain = gcg_frame_batch_new_for_frame (c, GCG_BACKEND_CUDA, b->ctx, &error);
  }
  gcg_bench_check (chain != NULL, "chain", error);
  if (kernel) {
    op = gcg_kernel_op_new_from_file (b->ctx,
        GCG_BENCH_EXAMPLES_DIR "/kernels/vignette.cu", "vignette",
        VIGNETTE_DECL, &error);
    gcg_bench_check (op != NULL
            && gcg_frame_batch_add_kernel_at (chain, op,
                GCG_KERNEL_POSITION_AFTER, &error),
        "vignette.cu", error);
    gcg__frame_batch_set_value_lookup (chain, lookup_strength, &n);
  }
  t.pipelined = time_chain (b, chain, &p, TRUE);
  t.host_us = time_host (b, chain, &p);
  return t;
}

/* The cost of fusing: GPU and host µs a frame over the op alone, against
 * the kernel's own GPU time. */
static void
print_kernel_row (const gchar *name, const KernelTiming *t)
{
  printf ("%-18s | %8.2f | %8.2f | %8.2f\n", name, t->pipelined.gpu_us,
      t->pipelined.host_us, t->host_us);
}

static void
run_user_kernel_rows (Bench *b, const GcgFrameChainConfig *c)
{
  KernelTiming op = time_user_kernel (b, c, FALSE, FALSE);
  KernelTiming fused = time_user_kernel (b, c, TRUE, FALSE);
  KernelTiming alone = time_user_kernel (b, c, TRUE, TRUE);

  printf ("\nuser kernel (examples/kernels/vignette.cu, its strength a "
          "per-frame value) after the video op, graph replay\n");
  printf ("row                | GPU µs/f | host µs/f | host µs/f, GPU idle\n");
  print_kernel_row ("op alone", &op);
  print_kernel_row ("op + kernel fused", &fused);
  print_kernel_row ("kernel alone", &alone);
  printf ("fused - op         | %8.2f | %8.2f | %8.2f   (GPU: %.2f x the "
          "kernel alone)\n",
      fused.pipelined.gpu_us - op.pipelined.gpu_us,
      fused.pipelined.host_us - op.pipelined.host_us,
      fused.host_us - op.host_us,
      (fused.pipelined.gpu_us - op.pipelined.gpu_us) / alone.pipelined.gpu_us);
  fflush (stdout);
}

static gdouble
time_cpu (Bench *b, const GcgFrameChainConfig *c)
{
  GError *error = NULL;
  g_autoptr (GcgFrameBatch)
      chain = gcg_frame_batch_new_for_frame (c, GCG_BACKEND_CPU, NULL, &error);
  GcgFrameParams p;
  gint64 t0;

  gcg_bench_check (chain != NULL, "cpu chain", error);
  fill_params (b, c, FALSE, &p);
  t0 = gcg_bench_now_ns ();
  for (guint f = 0; f < b->cpu_frames; f++)
    gcg_bench_check (gcg_frame_batch_process_frame (chain, &p, NULL, &error),
        "cpu process", error);
  return (gcg_bench_now_ns () - t0) / 1e6 / b->cpu_frames;
}

static void
run_row (Bench *b, const gchar *name, const GcgFrameChainConfig *c)
{
  gsize bytes =
      IN_W * IN_H * 3 / 2 + gcg_frame_chain_config_get_output_size (c);
  Timing graph = time_gpu (b, c, TRUE);
  Timing eager = time_gpu (b, c, FALSE);
  gdouble kernel_us = time_kernel_alone (b, c);
  gdouble gbs = bytes / (graph.gpu_us * 1e3);
  gdouble kernel_gbs = bytes / (kernel_us * 1e3);
  gdouble cpu_ms = b->cpu_frames ? time_cpu (b, c) : 0;

  printf ("%-6s | %8.2f | %8.2f | %8.2f | %8.2f | %7.2f | %6.1f | %5.1f%% | "
          "%8.2f | %5.1f%% | %8.1f\n",
      name, graph.gpu_us, graph.host_us, eager.gpu_us, eager.host_us,
      bytes / 1e6, gbs, 100.0 * gbs / b->copy_gbs, kernel_us,
      100.0 * kernel_gbs / b->copy_gbs, cpu_ms);
  fflush (stdout);
}

static void
setup (Bench *b)
{
  GError *error = NULL;
  gsize in_size = IN_W * IN_H * 3 / 2;
  gsize out_size = 3 * 640 * 640 * 4;

  b->ctx = gcg_bench_open_gpu ("bench-frame-chain");
  gcg_bench_check ((b->stream = gcg_stream_new (b->ctx, &error)) != NULL
          && gcg_context_push (b->ctx, &error)
          && GCG_CU_OK (&error, cuEventCreate, &b->start, CU_EVENT_DEFAULT)
          && GCG_CU_OK (&error, cuEventCreate, &b->stop, CU_EVENT_DEFAULT)
          && GCG_CU_OK (&error, cuMemAlloc, &b->in, in_size)
          && GCG_CU_OK (&error, cuMemAlloc, &b->out, out_size),
      "setup", error);
  b->host_in = g_malloc (in_size);
  b->host_out = g_malloc (out_size);
  for (gsize i = 0; i < in_size; i++)
    b->host_in[i] = (guint8) (i * 2654435761u >> 24);
  gcg_bench_check (GCG_CU_OK (&error, cuMemcpyHtoD, b->in, b->host_in, in_size)
          && GCG_CU_OK (&error, cuCtxSynchronize),
      "upload", error);
}

static void
teardown (Bench *b)
{
  GCG_CU_WARN (cuMemFree, b->in);
  GCG_CU_WARN (cuMemFree, b->out);
  GCG_CU_WARN (cuEventDestroy, b->start);
  GCG_CU_WARN (cuEventDestroy, b->stop);
  g_free (b->host_in);
  g_free (b->host_out);
  gcg_context_pop (b->ctx, NULL);
  g_clear_object (&b->stream);
  g_clear_object (&b->ctx);
}

int
main (int argc, char **argv)
{
  Bench b = { 0 };
  gint frames = 1000, warmup = 100, cpu_frames = 3;
  GOptionEntry entries[] = { { "frames", 0, 0, G_OPTION_ARG_INT, &frames,
                                 "Timed frames per variant", "N" },
    { "warmup", 0, 0, G_OPTION_ARG_INT, &warmup, "Untimed frames first", "N" },
    { "cpu-frames", 0, 0, G_OPTION_ARG_INT, &cpu_frames,
        "CPU reference frames (0: skip)", "N" },
    { NULL } };
  g_autoptr (GOptionContext) options = g_option_context_new ("");
  g_autoptr (GError) error = NULL;
  GcgFrameChainConfig tensor, video;

  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error) || frames < 1
      || warmup < 0 || cpu_frames < 0) {
    fprintf (stderr, "bench-frame-chain: %s\n",
        error ? error->message : "--frames must be ≥ 1, others ≥ 0");
    return 2;
  }
  b.frames = frames;
  b.warmup = warmup;
  b.cpu_frames = cpu_frames;
  setup (&b);
  measure_copy (&b);

  gcg_frame_chain_config_init (&tensor);
  tensor.in_format = GCG_PIXEL_FORMAT_NV12;
  tensor.in_width = IN_W;
  tensor.in_height = IN_H;
  tensor.output = GCG_OUTPUT_KIND_TENSOR;
  tensor.out_width = tensor.out_height = 640;
  tensor.letterbox = GCG_LETTERBOX_SYMMETRIC;
  video = tensor;
  video.output = GCG_OUTPUT_KIND_VIDEO;
  video.out_format = GCG_PIXEL_FORMAT_RGBA;
  video.out_width = 1280;
  video.out_height = 720;
  video.letterbox = GCG_LETTERBOX_NONE;

  printf ("bench-frame-chain: %s, %u frames per variant after %u warm-up, "
          "pipelined; device copy %.0f GB/s (read + write)\n",
      gcg_context_get_name (b.ctx), b.frames, b.warmup, b.copy_gbs);
  printf ("output |  graph   |  graph   |  eager   |  eager   |  bytes  | "
          "graph  | of copy |  kernel  | of copy |   CPU\n");
  printf ("       | GPU µs/f | host µs/f| GPU µs/f | host µs/f|  MB/f   | "
          " GB/s  |   bw    | GPU µs/f |   bw    |  ms/f\n");
  run_row (&b, "tensor", &tensor);
  run_row (&b, "video", &video);
  run_user_kernel_rows (&b, &video);
  teardown (&b);
  return 0;
}
