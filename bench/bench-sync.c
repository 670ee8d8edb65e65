/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What waiting for each frame costs the CPU: the elements' system-memory
 * path, one frame at a time (upload a 1080p NV12 frame from pinned memory,
 * replay the frame chain, download the output into pinned memory, wait),
 * with each of the stream's sync modes.  For each: wall µs/frame (latency of
 * a frame alone) and CPU µs/frame (process CPU time, all threads, so the
 * driver's own threads count too), and their ratios in one run.  Without
 * a GPU it prints one line and exits 77 (skipped).
 *
 *   bench-sync [--frames=2000] [--warmup=200]
 */
#include <gcg.h>
#include "gcg-bench-util.h"

#include <stdio.h>
#include <stdlib.h>

#define IN_W 1920
#define IN_H 1080

typedef struct
{
  GcgContext *ctx;
  GcgStream *stream;
  GcgAllocator *allocator;
  GcgHostPool *host_pool;
  guint64 in, out;
  guint8 *host_in, *host_out;
  gsize in_size, out_size;
  guint frames, warmup;
} Bench;

typedef struct
{
  gdouble wall_us, cpu_us;
} Cost;

static void
check (gboolean ok, const gchar *what, GError *error)
{
  if (ok)
    return;
  fprintf (stderr, "bench-sync: %s: %s\n", what,
      error ? error->message : "failed");
  exit (1);
}

static gint64
cpu_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

static void
setup (Bench *b, const GcgFrameChainConfig *c)
{
  GError *error = NULL;

  b->ctx = gcg_bench_open_gpu ("bench-sync");
  b->stream = gcg_stream_new (b->ctx, &error);
  check (b->stream != NULL, "stream", error);
  b->allocator = gcg_allocator_new (b->ctx, &error);
  check (b->allocator != NULL, "allocator", error);
  b->host_pool = gcg_host_pool_new (b->ctx);
  b->in_size = IN_W * IN_H * 3 / 2;
  b->out_size = gcg_frame_chain_config_get_output_size (c);
  check (gcg_allocator_alloc (b->allocator, b->in_size, b->stream, &b->in,
             &error),
      "alloc in", error);
  check (gcg_allocator_alloc (b->allocator, b->out_size, b->stream, &b->out,
             &error),
      "alloc out", error);
  b->host_in = gcg_host_pool_alloc (b->host_pool, b->in_size, &error);
  check (b->host_in != NULL, "pin in", error);
  b->host_out = gcg_host_pool_alloc (b->host_pool, b->out_size, &error);
  check (b->host_out != NULL, "pin out", error);
  for (gsize i = 0; i < b->in_size; i++)
    b->host_in[i] = (guint8) (i * 7);
}

static void
teardown (Bench *b)
{
  check (gcg_stream_synchronize (b->stream, NULL), "final sync", NULL);
  gcg_allocator_free (b->allocator, b->in);
  gcg_allocator_free (b->allocator, b->out);
  gcg_host_pool_release (b->host_pool, b->host_in, b->in_size, NULL);
  gcg_host_pool_release (b->host_pool, b->host_out, b->out_size, NULL);
  g_object_unref (b->host_pool);
  g_object_unref (b->allocator);
  g_object_unref (b->stream);
  g_object_unref (b->ctx);
}

/* One frame as the elements run it on system memory. */
static void
frame (Bench *b, GcgFrameChain *chain, GcgFrameParams *p)
{
  GError *error = NULL;

  check (gcg_stream_copy_to_device (b->stream, b->in, b->host_in, b->in_size,
             &error),
      "upload", error);
  check (gcg_frame_chain_process (chain, p, b->stream, &error), "process",
      error);
  check (gcg_stream_copy_to_host (b->stream, b->host_out, b->out, b->out_size,
             &error),
      "download", error);
  check (gcg_stream_synchronize (b->stream, &error), "synchronize", error);
}

static Cost
run_mode (Bench *b, const GcgFrameChainConfig *c, GcgSyncMode mode)
{
  static const gfloat mean[3] = { 0.485f, 0.456f, 0.406f };
  static const gfloat std[3] = { 0.229f, 0.224f, 0.225f };
  GError *error = NULL;
  g_autoptr (GcgFrameChain)
      chain = gcg_frame_chain_new (c, GCG_BACKEND_CUDA, b->ctx, &error);
  GcgFrameParams p;
  gint64 wall0 = 0, cpu0 = 0;
  Cost cost;

  check (chain != NULL, "chain", error);
  gcg_stream_set_sync_mode (b->stream, mode);
  gcg_frame_params_init (&p);
  p.src[0] = b->in;
  p.src[1] = b->in + IN_W * IN_H;
  p.src_stride[0] = p.src_stride[1] = IN_W;
  p.dst[0] = b->out;
  gcg_frame_params_set_mean_std (&p, mean, std);
  p.pad[0] = p.pad[1] = p.pad[2] = 0.5f;
  for (guint f = 0; f < b->warmup + b->frames; f++) {
    if (f == b->warmup) {
      wall0 = gcg_bench_now_ns ();
      cpu0 = cpu_now_ns ();
    }
    p.frame_number = f;
    frame (b, chain, &p);
  }
  cost.wall_us = (gcg_bench_now_ns () - wall0) / 1e3 / b->frames;
  cost.cpu_us = (cpu_now_ns () - cpu0) / 1e3 / b->frames;
  return cost;
}

static void
print_mode (const gchar *name, const Cost *c)
{
  printf ("%-9s | %13.1f | %12.1f | %8.0f%%\n", name, c->wall_us, c->cpu_us,
      100.0 * c->cpu_us / c->wall_us);
}

int
main (int argc, char **argv)
{
  guint frames = 2000, warmup = 200;
  GcgFrameChainConfig c;
  Bench b = { 0 };
  Cost spin, block, poll;

  for (int i = 1; i < argc; i++) {
    if (sscanf (argv[i], "--frames=%u", &frames) == 1
        || sscanf (argv[i], "--warmup=%u", &warmup) == 1)
      continue;
    fprintf (stderr, "usage: bench-sync [--frames=N] [--warmup=N]\n");
    return 2;
  }
  gcg_frame_chain_config_init (&c);
  c.in_format = GCG_PIXEL_FORMAT_NV12;
  c.in_width = IN_W;
  c.in_height = IN_H;
  c.output = GCG_OUTPUT_KIND_TENSOR;
  c.out_width = c.out_height = 640;
  c.letterbox = GCG_LETTERBOX_SYMMETRIC;
  b.frames = MAX (frames, 1);
  b.warmup = warmup;
  setup (&b, &c);

  printf ("bench-sync: %s, %u frames per mode after %u warm-up, one at a "
          "time: upload 1080p NV12 (%.1f MB, pinned), replay, download "
          "1x3x640x640 float32 (%.1f MB, pinned), wait\n",
      gcg_context_get_name (b.ctx), b.frames, b.warmup, b.in_size / 1e6,
      b.out_size / 1e6);
  /* Alternated twice so no mode gets the warmer GPU. */
  for (guint round = 0; round < 2; round++) {
    spin = run_mode (&b, &c, GCG_SYNC_MODE_DRIVER);
    block = run_mode (&b, &c, GCG_SYNC_MODE_BLOCKING);
    poll = run_mode (&b, &c, GCG_SYNC_MODE_POLL);
  }
  printf ("sync mode | wall µs/frame | CPU µs/frame | CPU share\n");
  print_mode ("driver", &spin);
  print_mode ("blocking", &block);
  print_mode ("poll", &poll);
  printf ("blocking / driver: wall %.2fx, CPU %.2fx; poll / driver: wall "
          "%.2fx, CPU %.2fx\n",
      block.wall_us / spin.wall_us, block.cpu_us / spin.cpu_us,
      poll.wall_us / spin.wall_us, poll.cpu_us / spin.cpu_us);
  teardown (&b);
  return 0;
}
