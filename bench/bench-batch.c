/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One batch of 16 cameras against 16 separate frame chains, on the GPU:
 *
 *   letterbox: 16 × 1080p NV12 → 16×3×640×640 float32 (symmetric, mean/std)
 *   rois:      16 × 1080p NV12 × 4 ROIs → 64×3×224×224 float32
 *
 * Each row queues --batches batches back to back on one stream between
 * two events: GPU µs per batch (events) and frames per second per stream
 * (batches over wall time, host and GPU overlapping); then host µs per
 * batch, the time inside the process calls with the GPU kept ahead of the
 * host (no waiting counted).  Rows: GcgFrameBatch replaying its graph, the same
 * launched eagerly, and 16 GcgFrameChains replaying one graph each per
 * frame (what 16 cudagraphpreprocess elements do).  The single-frame row
 * is one chain on one frame: the batch's GPU time is compared with 16× it.
 * bench/peer-torch.py --batch is the PyTorch peer of both workloads.
 */
#include <gcg.h>
#include "gcg-bench-util.h"
#include "bench-common.h"
#include "gcg-context-private.h"
#include "gcg-stream-private.h"

#include <stdio.h>
#include <string.h>

#define IN_W 1920
#define IN_H 1080
#define SOURCES 16
#define ROIS 4

typedef struct
{
  GcgContext *ctx;
  GcgStream *stream;
  CUevent start, stop;
  CUdeviceptr in[SOURCES];
  CUdeviceptr out;
  guint batches, warmup;
} Bench;

typedef struct
{
  gdouble gpu_us;
  gdouble host_us;
  gdouble fps;                  /* per stream */
} Timing;

typedef struct
{
  const gchar *name;
  guint out_size;
  guint rois;                   /* 0: whole frame, letterboxed */
} Workload;

/* The values of source @i: four ROIs spread over the frame, each a
 * different size, moving with @k so no two batches are alike. */
static void
fill_params (Bench *b, const Workload *w, guint i, guint k, guint64 dst,
    GcgFrameParams *p)
{
  static const gfloat mean[3] = { 0.485f, 0.456f, 0.406f };
  static const gfloat std[3] = { 0.229f, 0.224f, 0.225f };

  gcg_frame_params_init (p);
  p->src[0] = b->in[i];
  p->src[1] = b->in[i] + IN_W * IN_H;
  p->src_stride[0] = p->src_stride[1] = IN_W;
  p->dst[0] = dst;
  gcg_frame_params_set_mean_std (p, mean, std);
  p->pad[0] = p->pad[1] = p->pad[2] = 0.5f;
  p->n_rois = w->rois;
  for (guint r = 0; r < w->rois; r++) {
    p->rois[r].x = (gint) ((r * 460 + i * 7 + k % 64) % 1400);
    p->rois[r].y = (gint) ((r * 230 + i * 5) % 700);
    p->rois[r].width = 200 + (gint) (r * 60 + i * 4);
    p->rois[r].height = 240 + (gint) (r * 40 + i * 3);
  }
  p->frame_number = k;
}

static void
chain_config (const Workload *w, GcgFrameChainConfig *c)
{
  gcg_frame_chain_config_init (c);
  c->in_format = GCG_PIXEL_FORMAT_NV12;
  c->in_width = IN_W;
  c->in_height = IN_H;
  c->matrix = GCG_COLOR_MATRIX_BT709;
  c->output = GCG_OUTPUT_KIND_TENSOR;
  c->out_width = c->out_height = w->out_size;
  c->letterbox = GCG_LETTERBOX_SYMMETRIC;
  c->max_rois = MAX (w->rois, 1);
}

/* Times @run over warm-up + timed batches; @run queues batch @k. */
typedef void (*RunFunc) (Bench *b, const Workload *w, gpointer data, guint k);

/* Host µs inside the calls, with the stream drained every few batches so
 * the parameter ring never fills: the work of a batch, not a wait for the
 * GPU (the pipelined loop of time_runs waits once it runs a ring ahead). */
static gdouble
time_host (Bench *b, const Workload *w, RunFunc run, gpointer data)
{
  GError *error = NULL;
  gint64 host = 0;

  for (guint k = 0; k < b->batches; k++) {
    gint64 t0;

    if (k % 8 == 0)
      gcg_bench_check (gcg_stream_synchronize (b->stream, &error), "sync",
          error);
    t0 = gcg_bench_now_ns ();
    run (b, w, data, k);
    host += gcg_bench_now_ns () - t0;
  }
  gcg_bench_check (gcg_stream_synchronize (b->stream, &error), "sync", error);
  return host / 1e3 / b->batches;
}

/* Warm-up, then batches queued back to back between two events. */
static Timing
time_runs (Bench *b, const Workload *w, RunFunc run, gpointer data)
{
  GError *error = NULL;
  gint64 wall0 = 0;
  gfloat ms = 0;
  Timing t;

  for (guint k = 0; k < b->warmup + b->batches; k++) {
    if (k == b->warmup) {
      gcg_bench_check (gcg_stream_synchronize (b->stream, &error), "sync",
          error);
      gcg_bench_record (b->stream, b->start);
      wall0 = gcg_bench_now_ns ();
    }
    run (b, w, data, k);
  }
  gcg_bench_record (b->stream, b->stop);
  gcg_bench_check (GCG_CU_OK (&error, cuEventSynchronize, b->stop)
          && GCG_CU_OK (&error, cuEventElapsedTime, &ms, b->start, b->stop),
      "events", error);
  t.gpu_us = ms * 1e3 / b->batches;
  t.fps = b->batches / ((gcg_bench_now_ns () - wall0) / 1e9);
  t.host_us = time_host (b, w, run, data);
  return t;
}

static void
run_batch (Bench *b, const Workload *w, gpointer data, guint k)
{
  GcgFrameBatchSource sources[SOURCES];
  GcgFrameParams params[SOURCES];
  GError *error = NULL;

  for (guint i = 0; i < SOURCES; i++) {
    sources[i] = (GcgFrameBatchSource) { GCG_PIXEL_FORMAT_NV12, IN_W, IN_H,
      GCG_COLOR_MATRIX_BT709, FALSE };
    fill_params (b, w, i, k, 0, &params[i]);
  }
  gcg_bench_check (gcg_frame_batch_process (data, SOURCES, sources, params,
                       b->out, b->stream, NULL, &error),
      "batch", error);
}

static Timing
time_batch (Bench *b, const Workload *w, gboolean use_graph)
{
  GError *error = NULL;
  GcgFrameBatchConfig c;
  g_autoptr (GcgFrameBatch) batch = NULL;

  gcg_frame_batch_config_init (&c);
  c.out_width = c.out_height = w->out_size;
  c.max_sources = SOURCES;
  c.max_rois = MAX (w->rois, 1);
  batch = gcg_frame_batch_new (&c, GCG_BACKEND_CUDA, b->ctx, &error);
  gcg_bench_check (batch != NULL, "batch", error);
  gcg_frame_batch_set_use_graph (batch, use_graph);
  return time_runs (b, w, run_batch, batch);
}

typedef struct
{
  GcgFrameChain *chains[SOURCES];
  guint n;
  gsize item_size;
} Chains;

static void
run_chains (Bench *b, const Workload *w, gpointer data, guint k)
{
  Chains *c = data;
  GError *error = NULL;
  guint64 dst = b->out;

  for (guint i = 0; i < c->n; i++) {
    GcgFrameParams p;

    fill_params (b, w, i, k, dst, &p);
    gcg_bench_check (gcg_frame_chain_process (c->chains[i], &p, b->stream,
                         &error),
        "chain", error);
    dst += c->item_size * MAX (w->rois, 1);
  }
}

static Timing
time_chains (Bench *b, const Workload *w, guint n)
{
  GError *error = NULL;
  GcgFrameChainConfig config;
  Chains c = { { NULL }, n, 0 };
  Timing t;

  chain_config (w, &config);
  config.max_rois = MAX (w->rois, 1);
  c.item_size =
      gcg_frame_chain_config_get_output_size (&config) / config.max_rois;
  for (guint i = 0; i < n; i++) {
    c.chains[i] =
        gcg_frame_chain_new (&config, GCG_BACKEND_CUDA, b->ctx, &error);
    gcg_bench_check (c.chains[i] != NULL, "chain", error);
  }
  t = time_runs (b, w, run_chains, &c);
  for (guint i = 0; i < n; i++)
    g_object_unref (c.chains[i]);
  return t;
}

static void
print_row (const gchar *name, Timing t, const Timing *ref)
{
  printf ("  %-22s | %9.1f | %9.1f | %8.0f", name, t.gpu_us, t.host_us, t.fps);
  if (ref != NULL)
    printf (" | %5.2f× | %5.2f×", ref->gpu_us / t.gpu_us,
        ref->host_us / t.host_us);
  printf ("\n");
  fflush (stdout);
}

static void
run_workload (Bench *b, const Workload *w)
{
  Timing batch = time_batch (b, w, TRUE);
  Timing eager = time_batch (b, w, FALSE);
  Timing separate = time_chains (b, w, SOURCES);
  Timing single = time_chains (b, w, 1);

  printf ("%s: %u × 1080p NV12%s → %u×3×%u×%u float32\n", w->name, SOURCES,
      w->rois ? " × 4 ROIs" : "", SOURCES * MAX (w->rois, 1), w->out_size,
      w->out_size);
  printf ("  %-22s | GPU µs/b  | host µs/b | fps/strm | GPU vs | host vs "
          "16 chains\n",
      "");
  print_row ("batch, graph", batch, &separate);
  print_row ("batch, eager", eager, &separate);
  print_row ("16 chains, graph each", separate, &separate);
  print_row ("1 chain, 1 frame", single, NULL);
  printf ("  batch GPU time = %.2f× one frame's; 16 frames would be 16×\n",
      batch.gpu_us / single.gpu_us);
}

static void
setup (Bench *b)
{
  GError *error = NULL;
  gsize in_size = IN_W * IN_H * 3 / 2;
  g_autofree guint8 *host = g_malloc (in_size);

  b->ctx = gcg_bench_open_gpu ("bench-batch");
  gcg_bench_check ((b->stream = gcg_stream_new (b->ctx, &error)) != NULL
          && gcg_context_push (b->ctx, &error)
          && GCG_CU_OK (&error, cuEventCreate, &b->start, CU_EVENT_DEFAULT)
          && GCG_CU_OK (&error, cuEventCreate, &b->stop, CU_EVENT_DEFAULT)
          && GCG_CU_OK (&error, cuMemAlloc, &b->out,
              (gsize) SOURCES * ROIS * 3 * 640 * 640 * 4),
      "setup", error);
  for (guint i = 0; i < SOURCES; i++) {
    for (gsize j = 0; j < in_size; j++)
      host[j] = (guint8) ((j + i * 977) * 2654435761u >> 24);
    gcg_bench_check (GCG_CU_OK (&error, cuMemAlloc, &b->in[i], in_size)
            && GCG_CU_OK (&error, cuMemcpyHtoD, b->in[i], host, in_size),
        "upload", error);
  }
}

static void
teardown (Bench *b)
{
  for (guint i = 0; i < SOURCES; i++)
    GCG_CU_WARN (cuMemFree, b->in[i]);
  GCG_CU_WARN (cuMemFree, b->out);
  GCG_CU_WARN (cuEventDestroy, b->start);
  GCG_CU_WARN (cuEventDestroy, b->stop);
  gcg_context_pop (b->ctx, NULL);
  g_clear_object (&b->stream);
  g_clear_object (&b->ctx);
}

int
main (int argc, char **argv)
{
  static const Workload workloads[] = {
    { "letterbox", 640, 0 },
    { "rois", 224, ROIS },
  };
  Bench b = { 0 };
  gint batches = 500, warmup = 50;
  GOptionEntry entries[] = { { "batches", 0, 0, G_OPTION_ARG_INT, &batches,
                                 "Timed batches per row", "N" },
    { "warmup", 0, 0, G_OPTION_ARG_INT, &warmup, "Untimed batches first", "N" },
    { NULL } };
  g_autoptr (GOptionContext) options = g_option_context_new ("");
  g_autoptr (GError) error = NULL;

  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error) || batches < 1
      || warmup < 0) {
    fprintf (stderr, "bench-batch: %s\n",
        error ? error->message : "--batches must be ≥ 1, --warmup ≥ 0");
    return 2;
  }
  b.batches = batches;
  b.warmup = warmup;
  setup (&b);
  printf ("bench-batch: %s, %u batches per row after %u warm-up, queued "
          "back to back on one stream\n",
      gcg_context_get_name (b.ctx), b.batches, b.warmup);
  for (guint i = 0; i < G_N_ELEMENTS (workloads); i++)
    run_workload (&b, &workloads[i]);
  teardown (&b);
  return 0;
}
