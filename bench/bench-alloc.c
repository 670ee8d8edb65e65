/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * bench-alloc: host time per allocation + free pair over one mixed-size
 * trace, for GcgAllocator, cuMemAlloc/cuMemFree and
 * cuMemAllocAsync/cuMemFreeAsync on the device's default pool; then the
 * memory overhead of GcgAllocator (peak reserved / peak allocated) on a
 * video-like trace.  Needs a GPU; exits 77 (skip) without one.
 */
#include <gcg.h>
#include "gcg-bench-util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "gcg-context-private.h"
#include "gcg-stream-private.h"

#define MiB ((gsize) 1 << 20)
#define TRACE_LEN 4096
#define LIVE_SLOTS 16

/* The trace: at step i, slot slots[i] is freed if live, then gets a block
 * of sizes[i] bytes.  Every method replays the same one. */
typedef struct
{
  gsize sizes[TRACE_LEN];
  guint8 slots[TRACE_LEN];
} Trace;

typedef struct
{
  const gchar *name;
  gboolean (*alloc) (gpointer data, gsize size, guint64 *ptr);
  void (*free) (gpointer data, guint64 ptr);
  gpointer data;
  guint pairs;
} Method;

typedef struct
{
  GcgAllocator *allocator;
  GcgStream *stream;
} Env;

/* 70% up to 1 MiB, 25% up to 10 MiB, 5% up to 64 MiB, log-uniform within
 * each range: many small tensors, some frames, a few big buffers. */
static gsize
trace_size (GRand *rand)
{
  gint kind = g_rand_int_range (rand, 0, 100);
  gdouble lo = kind < 70 ? 512 : kind < 95 ? MiB : 10 * MiB;
  gdouble hi = kind < 70 ? MiB : kind < 95 ? 10 * MiB : 64 * MiB;

  return (gsize) exp (g_rand_double_range (rand, log (lo), log (hi)));
}

static void
trace_init (Trace *trace)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (42);

  for (guint i = 0; i < TRACE_LEN; i++) {
    trace->sizes[i] = trace_size (rand);
    trace->slots[i] = g_rand_int_range (rand, 0, LIVE_SLOTS);
  }
}

/* Replays @pairs steps of the trace and frees what is left. */
static void
replay (const Trace *trace, const Method *m, guint pairs)
{
  guint64 live[LIVE_SLOTS] = { 0 };

  for (guint i = 0; i < pairs; i++) {
    guint slot = trace->slots[i % TRACE_LEN];

    if (live[slot])
      m->free (m->data, live[slot]);
    if (!m->alloc (m->data, trace->sizes[i % TRACE_LEN], &live[slot])) {
      g_printerr ("%s: allocating %" G_GSIZE_FORMAT " bytes failed\n", m->name,
          trace->sizes[i % TRACE_LEN]);
      exit (1);
    }
  }
  for (guint slot = 0; slot < LIVE_SLOTS; slot++)
    if (live[slot])
      m->free (m->data, live[slot]);
}

/* ns per alloc + free pair, after a warm-up pass over the trace. */
static gdouble
measure (const Trace *trace, const Method *m)
{
  gdouble start;

  replay (trace, m, MIN (m->pairs, TRACE_LEN));
  start = gcg_bench_now_ns ();
  replay (trace, m, m->pairs);
  return (gcg_bench_now_ns () - start) / m->pairs;
}

static gboolean
ours_alloc (gpointer data, gsize size, guint64 *ptr)
{
  Env *env = data;

  return gcg_allocator_alloc (env->allocator, size, env->stream, ptr, NULL);
}

static void
ours_free (gpointer data, guint64 ptr)
{
  gcg_allocator_free (((Env *) data)->allocator, ptr);
}

static gboolean
sync_alloc (gpointer data, gsize size, guint64 *ptr)
{
  return GCG_CU (cuMemAlloc, ptr, size) == CUDA_SUCCESS;
}

static void
sync_free (gpointer data, guint64 ptr)
{
  GCG_CU (cuMemFree, ptr);
}

static gboolean
async_alloc (gpointer data, gsize size, guint64 *ptr)
{
  return GCG_CU (cuMemAllocAsync, ptr, size,
             gcg__stream_get_cu (((Env *) data)->stream))
      == CUDA_SUCCESS;
}

static void
async_free (gpointer data, guint64 ptr)
{
  GCG_CU (cuMemFreeAsync, ptr, gcg__stream_get_cu (((Env *) data)->stream));
}

/* One frame of a detector pipeline at @w x @h: the NV12 input and the
 * tensor live while the frame is in flight, scratch only inside it. */
typedef struct
{
  guint64 nv12, tensor, boxes;
} Frame;

static void
video_frame (Env *env, GRand *rand, guint w, guint h, Frame *frame)
{
  guint64 scratch_rgb, scratch_resize, params;

  ours_alloc (env, (gsize) w * h * 3 / 2, &frame->nv12);
  ours_alloc (env, (gsize) w * h * 3, &scratch_rgb);
  ours_alloc (env, 640 * 640 * 3, &scratch_resize);
  ours_alloc (env, 3 * 640 * 640 * sizeof (gfloat), &frame->tensor);
  ours_alloc (env, 256, &params);
  ours_alloc (env, 32 * g_rand_int_range (rand, 1, 300), &frame->boxes);
  ours_free (env, scratch_rgb);
  ours_free (env, scratch_resize);
  ours_free (env, params);
}

/* 2000 frames, 4 in flight, switching resolution (1080p, 720p, 4K,
 * 1080p) as streams are reconfigured. */
static gdouble
video_trace (Env *env, GcgAllocatorStats *out)
{
  static const guint res[][2] = {
    { 1920, 1080 },
    { 1280, 720 },
    { 3840, 2160 },
    { 1920, 1080 },
  };
  g_autoptr (GRand) rand = g_rand_new_with_seed (7);
  g_autoptr (GcgAllocatorStats) stats = NULL;
  Frame frames[4] = { 0 };

  gcg_allocator_empty_cache (env->allocator);
  gcg_allocator_reset_peak_stats (env->allocator);
  for (guint i = 0; i < 2000; i++) {
    Frame *f = &frames[i % 4];

    ours_free (env, f->nv12);
    ours_free (env, f->tensor);
    ours_free (env, f->boxes);
    video_frame (env, rand, res[i / 500][0], res[i / 500][1], f);
  }
  for (guint i = 0; i < 4; i++) {
    ours_free (env, frames[i].nv12);
    ours_free (env, frames[i].tensor);
    ours_free (env, frames[i].boxes);
  }
  stats = gcg_allocator_get_stats (env->allocator);
  *out = *stats;
  return (gdouble) stats->reserved_bytes_peak / stats->allocated_bytes_peak;
}

int
main (int argc, char **argv)
{
  g_autoptr (GcgContext) ctx = gcg_bench_open_gpu ("bench-alloc");
  g_autoptr (GError) error = NULL;
  g_autofree Trace *trace = g_new0 (Trace, 1);
  Env env = { 0 };
  Method methods[] = {
    { "GcgAllocator", ours_alloc, ours_free, &env, 200000 },
    { "cuMemAllocAsync/FreeAsync", async_alloc, async_free, &env, 200000 },
    { "cuMemAlloc/cuMemFree", sync_alloc, sync_free, &env, 2000 },
  };
  gdouble ns[G_N_ELEMENTS (methods)], ratio;
  GcgAllocatorStats video;

  if (!gcg_context_push (ctx, &error)
      || !(env.stream = gcg_stream_new (ctx, &error))
      || !(env.allocator = gcg_allocator_new (ctx, &error))) {
    printf ("bench-alloc: %s\n", error->message);
    return 1;
  }
  trace_init (trace);
  printf ("bench-alloc on %s (device %d)\n", gcg_context_get_name (ctx),
      gcg_context_get_device_id (ctx));
  printf ("mixed-size trace: %d sizes, 512 B to 64 MiB, %d live at once\n",
      TRACE_LEN, LIVE_SLOTS);
  printf ("%-28s %8s %12s %16s\n", "method", "pairs", "ns/pair",
      "vs GcgAllocator");
  for (guint i = 0; i < G_N_ELEMENTS (methods); i++) {
    ns[i] = measure (trace, &methods[i]);
    gcg_stream_synchronize (env.stream, NULL);
    printf ("%-28s %8u %12.1f %15.2fx\n", methods[i].name, methods[i].pairs,
        ns[i], ns[i] / ns[0]);
  }
  ratio = video_trace (&env, &video);
  printf ("video-like trace (2000 frames, 1080p/720p/4K, 4 in flight): peak "
          "reserved %.1f MiB / peak allocated %.1f MiB = %.3f\n",
      video.reserved_bytes_peak / (gdouble) MiB,
      video.allocated_bytes_peak / (gdouble) MiB, ratio);
  printf ("goals: faster than cuMemAllocAsync: %s; >= 50x faster than "
          "cuMemAlloc: %s\n",
      ns[0] < ns[1] ? "yes" : "NO", ns[2] / ns[0] >= 50 ? "yes" : "NO");

  g_clear_object (&env.allocator);
  g_clear_object (&env.stream);
  gcg_context_pop (ctx, NULL);
  return 0;
}
