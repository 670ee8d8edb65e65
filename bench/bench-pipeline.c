/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * cudagraphpreprocess end to end, as an application sees it:
 *
 *   appsrc (1080p NV12) ! cudagraphpreprocess (1x3x640x640 float32,
 *   letterboxed, mean/std) ! queue ! appsink (maps every tensor)
 *
 * for each memory path (system memory in, pinned or pageable, or
 * GstCudaMemory in; system or CUDA memory out), with graph replay and
 * eager launches, and 1, 2, 4 and 8 frames in flight.  The appsrc feeds a
 * few preallocated buffers round and round: pinned ones come from the pool
 * the element proposes upstream, pageable ones from a plain video pool,
 * CUDA ones from a GstCudaBufferPool in the context shared with the
 * element.  Each row gives frames per second, process CPU time per frame,
 * and the p50 and p99 latency from the push to the moment the appsink's
 * map returned (the data is ready then: the map waits for that frame).
 *
 * Two bounds from the same run set the figures in context: the copies
 * alone (the frame's bytes H2D, and H2D + D2H, pinned, back to back on one
 * stream, through the library) and videoconvertscale making the nearest
 * CPU equivalent (640x640 RGB, letterboxed).  Without a GPU it prints one
 * line and exits 77 (skipped).
 *
 *   bench-pipeline [--frames=3000] [--warmup=200] [--cpu-frames=500]
 *                  [--input=pinned|pageable|CUDA] [--in-flight=N]
 *                  [--sync-mode=blocking|poll|driver] [--kernels-only]
 *
 * A second table (run_kernel_rows()) sets user kernels against built-in
 * ops: cudagraphconvert copying NV12 vs cudagraphkernel doing the same,
 * a kernel fused into cudagraphconvert / cudagraphpreprocess vs none and
 * vs a cudagraphkernel after it (the cost of a second element).
 *
 * The plugin comes from GST_PLUGIN_PATH; when that has no
 * cudagraphpreprocess, from this build's gst/ folder.
 */
#include <gcg.h>
#include "gcg-bench-util.h"
#include "bench-common.h"

#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define IN_W 1920
#define IN_H 1080
#define OUT_SIDE 640
#define IN_BYTES (IN_W * IN_H * 3 / 2)
#define OUT_BYTES (3 * OUT_SIDE * OUT_SIDE * 4)
/* The PTS carries the frame index to the appsink: index * FRAME_NS. */
#define FRAME_NS (GST_SECOND / 30)
/* Frames of each copy-bound run: the bus is steady long before. */
#define COPY_FRAMES 3000
/* Any wait longer than this means the pipeline is stuck. */
#define WAIT_S 30
/* How long a warm-up frame may take before the next one is pushed: the
 * first frame loads kernels and captures the graph. */
#define PRIMER_WAIT_MS 500

#define IN_CAPS \
  "format=NV12, width=1920, height=1080, framerate=30/1, " \
  "pixel-aspect-ratio=1/1"
#define PREPROCESS \
  "cudagraphpreprocess name=pre backend=cuda width=640 " \
  "height=640 letterbox=symmetric mean=\"0.485,0.456,0.406\" " \
  "std=\"0.229,0.224,0.225\""
/* pixel-aspect-ratio keeps the peer from stretching 16:9 into a square
 * with non-square pixels instead of adding borders. */
#define PEER_CAPS \
  "video/x-raw, format=RGB, width=640, height=640, " \
  "pixel-aspect-ratio=1/1"

typedef enum
{
  INPUT_PINNED,
  INPUT_PAGEABLE,
  INPUT_CUDA,
} InputKind;

static const gchar *const input_names[] = { "pinned", "pageable", "CUDA" };

/* One memory path through the element. */
typedef struct
{
  InputKind input;
  gboolean cuda_out;
  gboolean use_graph;
} Path;

/* One pipeline to measure: what sits between appsrc and queue. */
typedef struct
{
  InputKind input;
  gchar *middle;
  const gchar *out_caps;
  GstMapFlags map_flags;
  guint buffers;                /* input buffers going round */
  guint frames;                 /* timed frames */
} Job;

typedef struct
{
  GcgContext *ctx;
#ifdef HAVE_GST_CUDA
  GstCudaContext *cuda;         /* wraps ctx's primary context */
#endif
  GstContext *shared;           /* "gst.cuda.context" set on each pipeline */
  guint frames, warmup, cpu_frames;
  gdouble h2d_fps, round_trip_fps, peer_fps;
  gchar *only_input;            /* --input: rows of this input only */
  guint only_in_flight;         /* --in-flight: rows of this depth only */
  gchar *sync_mode;             /* --sync-mode: the element's, if given */
  gboolean kernels_only;         /* --kernels-only */
  gboolean no_kernels;           /* --no-kernels */
  gboolean any_failed;
} Bench;

/* One pipeline's run.  The appsink's thread writes received_ns and the
 * two usages; the main thread reads them after EOS, which the bus hands
 * over under its lock. */
typedef struct
{
  GstElement *pipeline;
  GstAppSrc *src;
  GstBus *bus;
  GstBufferPool *pool;          /* under lock: the bus handler flushes it */
  GstMapFlags map_flags;
  guint n_frames;               /* warm-up + timed */
  guint first_timed;
  gint64 *pushed_ns;            /* by frame index */
  gint64 *received_ns;
  struct rusage usage_start;    /* when frame first_timed - 1 was read */
  struct rusage usage_end;      /* when the last frame was read */
  GstStructure *stats;          /* the element's cudagraph-stats */
  gboolean not_pinned;
  GMutex lock;
  GCond cond;
  guint received;
  gboolean failed;
} Run;

typedef struct
{
  gdouble fps, cpu_us, p50_us, p99_us;
  gchar note[64];
} Result;

/* --- the copy-only bound ------------------------------------------------ */

typedef struct
{
  GcgStream *stream;
  guint64 dev_in, dev_out;
  guint8 *host_in, *host_out;
} Copies;

/* Frames per second of a frame's copies alone, queued back to back. */
static gdouble
copies_fps (const Copies *c, gboolean round_trip, guint warmup, guint frames)
{
  GError *error = NULL;
  gint64 t0 = 0;

  for (guint f = 0; f < warmup + frames; f++) {
    if (f == warmup) {
      gcg_bench_check (gcg_stream_synchronize (c->stream, &error), "sync",
          error);
      t0 = gcg_bench_now_ns ();
    }
    gcg_bench_check (gcg_stream_copy_to_device (c->stream, c->dev_in,
                         c->host_in, IN_BYTES, &error),
        "H2D copy", error);
    if (round_trip)
      gcg_bench_check (gcg_stream_copy_to_host (c->stream, c->host_out,
                           c->dev_out, OUT_BYTES, &error),
          "D2H copy", error);
  }
  gcg_bench_check (gcg_stream_synchronize (c->stream, &error), "sync", error);
  return frames / ((gcg_bench_now_ns () - t0) / 1e9);
}

/* What the bus allows whatever the kernels do: a system-memory frame must
 * at least cross it, and a system-memory tensor cross it back. */
static void
measure_copy_bound (Bench *b)
{
  GError *error = NULL;
  g_autoptr (GcgAllocator) allocator = gcg_allocator_new (b->ctx, &error);
  g_autoptr (GcgHostPool) host_pool = gcg_host_pool_new (b->ctx);
  Copies c = { 0 };

  gcg_bench_check (allocator != NULL, "allocator", error);
  c.stream = gcg_stream_new (b->ctx, &error);
  gcg_bench_check (c.stream != NULL, "stream", error);
  gcg_bench_check (gcg_allocator_alloc (allocator, IN_BYTES, c.stream,
                       &c.dev_in, &error),
      "device input", error);
  gcg_bench_check (gcg_allocator_alloc (allocator, OUT_BYTES, c.stream,
                       &c.dev_out, &error),
      "device output", error);
  c.host_in = gcg_host_pool_alloc (host_pool, IN_BYTES, &error);
  gcg_bench_check (c.host_in != NULL, "pinned input", error);
  c.host_out = gcg_host_pool_alloc (host_pool, OUT_BYTES, &error);
  gcg_bench_check (c.host_out != NULL, "pinned output", error);
  memset (c.host_in, 0x80, IN_BYTES);

  /* The best of three: a bound is what the bus can do, and one run may
   * meet another process's traffic. */
  for (guint i = 0; i < 3; i++) {
    gdouble h2d = copies_fps (&c, FALSE, b->warmup, COPY_FRAMES);
    gdouble round_trip = copies_fps (&c, TRUE, b->warmup, COPY_FRAMES);

    b->h2d_fps = MAX (b->h2d_fps, h2d);
    b->round_trip_fps = MAX (b->round_trip_fps, round_trip);
  }

  gcg_allocator_free (allocator, c.dev_in);
  gcg_allocator_free (allocator, c.dev_out);
  gcg_host_pool_release (host_pool, c.host_in, IN_BYTES, NULL);
  gcg_host_pool_release (host_pool, c.host_out, OUT_BYTES, NULL);
  g_object_unref (c.stream);
}

/* --- input frames ------------------------------------------------------- */

/* A gradient, so that the GPU reads real values; through the buffer's
 * video meta, since CUDA memory rows are pitched. */
static gboolean
fill_nv12 (GstBuffer *buf, const GstVideoInfo *info)
{
  GstVideoFrame frame;

  if (!gst_video_frame_map (&frame, info, buf, GST_MAP_WRITE))
    return FALSE;
  for (guint p = 0; p < 2; p++) {
    guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
    guint rows = p == 0 ? IN_H : IN_H / 2;

    for (guint y = 0; y < rows; y++) {
      guint8 *row = data + (gsize) y * stride;

      for (guint x = 0; x < IN_W; x++)
        row[x] = p == 0 ? 16 + (x + y) % 220 : 96 + (x ^ y) % 64;
    }
  }
  gst_video_frame_unmap (&frame);
  return TRUE;
}

/* Sizes @pool for @n buffers of @caps (no more, so that acquiring blocks
 * while all are in the pipeline, as a camera's would) and activates it. */
static gboolean
pool_start (GstBufferPool *pool, GstCaps *caps, guint n, GError **error)
{
  GstVideoInfo info;
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_video_info_from_caps (&info, caps);
  gst_buffer_pool_config_set_params (config, caps, info.size, n, n);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  /* A pool may amend the config (the CUDA pool pitches its rows): accept
   * its version when it still gives what was asked. */
  if (!gst_buffer_pool_set_config (pool, config)) {
    config = gst_buffer_pool_get_config (pool);
    if (!gst_buffer_pool_config_validate_params (config, caps, info.size, n, n)
        || !gst_buffer_pool_set_config (pool, config)) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
          "%s refused %u buffers of the input caps", G_OBJECT_TYPE_NAME (pool),
          n);
      return FALSE;
    }
  }
  if (!gst_buffer_pool_set_active (pool, TRUE)) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "%s did not activate", G_OBJECT_TYPE_NAME (pool));
    return FALSE;
  }
  return TRUE;
}

/* Takes each of the pool's @n buffers once and fills it: the frames stay
 * in their memory as the buffers go round.  Reports whether that memory
 * is plain system memory. */
static gboolean
pool_fill (GstBufferPool *pool, GstCaps *caps, guint n, gboolean *sysmem,
    GError **error)
{
  g_autoptr (GPtrArray)
      held = g_ptr_array_new_with_free_func ((GDestroyNotify) gst_buffer_unref);
  GstVideoInfo info;

  gst_video_info_from_caps (&info, caps);
  for (guint i = 0; i < n; i++) {
    GstBuffer *buf = NULL;

    if (gst_buffer_pool_acquire_buffer (pool, &buf, NULL) != GST_FLOW_OK
        || !fill_nv12 (buf, &info)) {
      gst_clear_buffer (&buf);
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
          "could not fill input buffer %u", i);
      return FALSE;
    }
    *sysmem = gst_memory_is_type (gst_buffer_peek_memory (buf, 0),
        GST_ALLOCATOR_SYSMEM);
    g_ptr_array_add (held, buf);
  }
  return TRUE;
}

/* --- one pipeline ------------------------------------------------------- */

/* Reads each output as a consumer would: mapping waits for that frame's
 * GPU work only; the time the map returns is when the data was ready. */
static GstFlowReturn
on_new_sample (GstAppSink *sink, gpointer user_data)
{
  Run *run = user_data;
  g_autoptr (GstSample) sample = gst_app_sink_pull_sample (sink);
  GstBuffer *buf = sample ? gst_sample_get_buffer (sample) : NULL;
  GstMapInfo map;
  gint64 now;
  guint64 idx;

  if (buf == NULL || !gst_buffer_map (buf, &map, run->map_flags)) {
    GST_ELEMENT_ERROR (sink, RESOURCE, READ, (NULL),
        ("could not map an output buffer"));
    return GST_FLOW_ERROR;
  }
  now = gcg_bench_now_ns ();
  gst_buffer_unmap (buf, &map);
  idx = GST_BUFFER_PTS_IS_VALID (buf) ? GST_BUFFER_PTS (buf) / FRAME_NS
                                      : G_MAXUINT64;
  if (idx >= run->n_frames) {
    GST_ELEMENT_ERROR (sink, STREAM, FAILED, (NULL),
        ("output PTS %" GST_TIME_FORMAT " is no frame of ours",
            GST_TIME_ARGS (GST_BUFFER_PTS (buf))));
    return GST_FLOW_ERROR;
  }
  run->received_ns[idx] = now;
  if (idx + 1 == run->first_timed)
    getrusage (RUSAGE_SELF, &run->usage_start);
  else if (idx + 1 == run->n_frames)
    getrusage (RUSAGE_SELF, &run->usage_end);

  g_mutex_lock (&run->lock);
  run->received++;
  g_cond_broadcast (&run->cond);
  g_mutex_unlock (&run->lock);
  return GST_FLOW_OK;
}

/* On an error, wakes the main thread wherever it waits: for a frame, or
 * for an input buffer that a stopped pipeline will never give back. */
static GstBusSyncReply
on_bus_message (GstBus *bus, GstMessage *msg, gpointer user_data)
{
  Run *run = user_data;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ERROR)
    return GST_BUS_PASS;
  g_mutex_lock (&run->lock);
  run->failed = TRUE;
  if (run->pool)
    gst_buffer_pool_set_flushing (run->pool, TRUE);
  g_cond_broadcast (&run->cond);
  g_mutex_unlock (&run->lock);
  return GST_BUS_PASS;
}

static void
run_init (Run *run, guint warmup, guint frames, GstMapFlags map_flags)
{
  memset (run, 0, sizeof (*run));
  g_mutex_init (&run->lock);
  g_cond_init (&run->cond);
  run->n_frames = warmup + frames;
  run->first_timed = warmup;
  run->map_flags = map_flags;
  run->pushed_ns = g_new0 (gint64, run->n_frames);
  run->received_ns = g_new0 (gint64, run->n_frames);
}

/* Safe on a run that failed anywhere after run_init(). */
static void
run_clear (Run *run)
{
  if (run->pipeline)
    gst_element_set_state (run->pipeline, GST_STATE_NULL);
  if (run->pool)
    gst_buffer_pool_set_active (run->pool, FALSE);
  if (run->bus)
    gst_bus_set_sync_handler (run->bus, NULL, NULL, NULL);
  gst_clear_object (&run->pool);
  gst_clear_object (&run->bus);
  gst_clear_object (&run->src);
  gst_clear_object (&run->pipeline);
  g_clear_pointer (&run->stats, gst_structure_free);
  g_clear_pointer (&run->pushed_ns, g_free);
  g_clear_pointer (&run->received_ns, g_free);
  g_mutex_clear (&run->lock);
  g_cond_clear (&run->cond);
}

static GstCaps *
input_caps (InputKind input)
{
  return gst_caps_from_string (input == INPUT_CUDA
          ? "video/x-raw(memory:CUDAMemory), " IN_CAPS
          : "video/x-raw, " IN_CAPS);
}

/* Builds appsrc ! @job->middle ! queue ! appsink.  The queue lets the
 * element go on with the next frames while the appsink waits on a map, as
 * an application's inference thread would; it holds as many frames as go
 * round, so it never throttles the element. */
static gboolean
run_open (Run *run, const Bench *b, const Job *job, GError **error)
{
  g_autofree gchar *desc = g_strdup_printf (
      "appsrc name=src format=time "
      "! %s ! queue max-size-buffers=%u max-size-bytes=0 max-size-time=0 "
      "! appsink name=sink sync=false enable-last-sample=false",
      job->middle, job->buffers);
  GstAppSinkCallbacks callbacks = { .new_sample = on_new_sample };
  g_autoptr (GstCaps) in_caps = input_caps (job->input);
  g_autoptr (GstCaps) out_caps = gst_caps_from_string (job->out_caps);
  g_autoptr (GstElement) sink = NULL;

  run->pipeline =
      gst_parse_launch_full (desc, NULL, GST_PARSE_FLAG_FATAL_ERRORS, error);
  if (run->pipeline == NULL)
    return FALSE;
  run->src = GST_APP_SRC (gst_bin_get_by_name (GST_BIN (run->pipeline), "src"));
  sink = gst_bin_get_by_name (GST_BIN (run->pipeline), "sink");
  gst_app_src_set_caps (run->src, in_caps);
  gst_app_sink_set_caps (GST_APP_SINK (sink), out_caps);
  gst_app_sink_set_callbacks (GST_APP_SINK (sink), &callbacks, run, NULL);
  run->bus = gst_element_get_bus (run->pipeline);
  gst_bus_set_sync_handler (run->bus, on_bus_message, run, NULL);
  /* Every element then works in one CUcontext: CUDA memory is read in
   * place, and no run pays for making a context. */
  if (b->shared)
    gst_element_set_context (run->pipeline, b->shared);
  return TRUE;
}

/* Stamps @buf (transfer full) as frame @idx and pushes it. */
static gboolean
push_frame (Run *run, GstBuffer *buf, guint idx)
{
  GST_BUFFER_PTS (buf) = idx * FRAME_NS;
  GST_BUFFER_DURATION (buf) = FRAME_NS;
  run->pushed_ns[idx] = gcg_bench_now_ns ();
  return gst_app_src_push_buffer (run->src, buf) == GST_FLOW_OK;
}

/* Until a frame has been read, an error, or @ms milliseconds. */
static gboolean
wait_first (Run *run, guint ms)
{
  gint64 deadline = g_get_monotonic_time () + ms * G_TIME_SPAN_MILLISECOND;
  gboolean done;

  g_mutex_lock (&run->lock);
  while (run->received == 0 && !run->failed
      && g_cond_wait_until (&run->cond, &run->lock, deadline))
    ;
  done = run->received > 0;
  g_mutex_unlock (&run->lock);
  return done;
}

/* Warm-up frames in buffers of plain system memory, one at a time, until
 * one has come through: the pipeline has then negotiated and the element
 * decided its own allocation, and only then does it propose a pool.  A
 * frame the element drops (a failed frame) is followed by the next one, so
 * that max-errors rather than a timeout ends a failing run.  Returns the
 * next frame's index, or 0 when no warm-up frame came through. */
static guint
push_primers (Run *run)
{
  g_autoptr (GstCaps) caps = input_caps (INPUT_PINNED);
  GstVideoInfo info;

  gst_video_info_from_caps (&info, caps);
  for (guint idx = 0; idx < run->first_timed; idx++) {
    GstBuffer *buf = gst_buffer_new_allocate (NULL, info.size, NULL);

    if (!fill_nv12 (buf, &info)) {
      gst_buffer_unref (buf);
      return 0;
    }
    if (!push_frame (run, buf, idx))
      return 0;
    if (wait_first (run, PRIMER_WAIT_MS))
      return idx + 1;
    if (run->failed)
      return 0;
  }
  return 0;
}

/* The pool cudagraphpreprocess proposes upstream, asked for the way a
 * source asks: an ALLOCATION query to appsrc's peer. */
static GstBufferPool *
query_proposed_pool (Run *run, GstCaps *caps, GError **error)
{
  g_autoptr (GstPad)
      pad = gst_element_get_static_pad (GST_ELEMENT (run->src), "src");
  g_autoptr (GstQuery) query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;

  if (gst_pad_peer_query (pad, query)
      && gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  if (pool == NULL)
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
        "cudagraphpreprocess proposed no buffer pool");
  return pool;
}

static GstBufferPool *
input_pool_new (const Bench *b, Run *run, InputKind input, GstCaps *caps,
    GError **error)
{
  switch (input) {
    case INPUT_PINNED:
      return query_proposed_pool (run, caps, error);
    case INPUT_PAGEABLE:
      return gst_video_buffer_pool_new ();
    case INPUT_CUDA:
#ifdef HAVE_GST_CUDA
      if (b->cuda)
        return gst_cuda_buffer_pool_new (b->cuda);
#endif
      break;
  }
  g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NOT_IMPLEMENTED,
      "no shared CUDA context for CUDA memory input");
  return NULL;
}

/* Makes, fills and hands the run its input pool. */
static gboolean
input_pool_start (const Bench *b, Run *run, const Job *job, GError **error)
{
  g_autoptr (GstCaps) caps = input_caps (job->input);
  g_autoptr (GstBufferPool)
      pool = input_pool_new (b, run, job->input, caps, error);
  gboolean sysmem = FALSE;

  if (pool == NULL || !pool_start (pool, caps, job->buffers, error)
      || !pool_fill (pool, caps, job->buffers, &sysmem, error)) {
    if (pool)
      gst_buffer_pool_set_active (pool, FALSE);
    return FALSE;
  }
  run->not_pinned = job->input == INPUT_PINNED && sysmem;
  g_mutex_lock (&run->lock);
  run->pool = g_steal_pointer (&pool);
  if (run->failed)
    gst_buffer_pool_set_flushing (run->pool, TRUE);
  g_mutex_unlock (&run->lock);
  return TRUE;
}

/* Pushes frames @from onwards, each in the next free input buffer, then
 * EOS.  Acquiring blocks while every buffer is in the pipeline. */
static gboolean
push_frames (Run *run, guint from)
{
  for (guint idx = from; idx < run->n_frames; idx++) {
    GstBuffer *buf = NULL;

    if (gst_buffer_pool_acquire_buffer (run->pool, &buf, NULL) != GST_FLOW_OK
        || !push_frame (run, buf, idx))
      return FALSE;
  }
  return gst_app_src_end_of_stream (run->src) == GST_FLOW_OK;
}

/* Waits for EOS, keeping the element's cudagraph-stats met on the way;
 * FALSE with the pipeline's error, or after WAIT_S without EOS. */
static gboolean
wait_eos (Run *run, GError **error)
{
  for (;;) {
    g_autoptr (GstMessage)
        msg = gst_bus_timed_pop_filtered (run->bus, WAIT_S * GST_SECOND,
            GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT);
    const GstStructure *s;

    if (msg == NULL) {
      g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
          "the pipeline stalled (no EOS within %d s)", WAIT_S);
      return FALSE;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS)
      return TRUE;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, error, NULL);
      return FALSE;
    }
    s = gst_message_get_structure (msg);
    if (s && gst_structure_has_name (s, "cudagraph-stats")) {
      g_clear_pointer (&run->stats, gst_structure_free);
      run->stats = gst_structure_copy (s);
    }
  }
}

/* FALSE, with the error the pipeline posted, or @what when it posted none
 * (the bus handler may wake us just before the message is queued). */
static gboolean
fail (Run *run, const gchar *what, GError **error)
{
  g_autoptr (GstMessage) msg =
      gst_bus_timed_pop_filtered (run->bus, GST_SECOND, GST_MESSAGE_ERROR);

  if (msg)
    gst_message_parse_error (msg, error, NULL);
  else
    g_set_error_literal (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED, what);
  return FALSE;
}

/* Runs @job's pipeline through warm-up and timed frames. */
static gboolean
run_job (const Bench *b, const Job *job, Run *run, GError **error)
{
  guint first = 0;

  if (!run_open (run, b, job, error))
    return FALSE;
  if (gst_element_set_state (run->pipeline, GST_STATE_PLAYING)
      == GST_STATE_CHANGE_FAILURE)
    return fail (run, "the pipeline did not start", error);
  if (job->input == INPUT_PINNED) {
    first = push_primers (run);
    if (first == 0)
      return fail (run, "no warm-up frame reached the appsink", error);
  }
  if (!input_pool_start (b, run, job, error))
    return FALSE;
  if (!push_frames (run, first))
    return fail (run, "appsrc took no more frames", error);
  return wait_eos (run, error);
}

/* --- figures ------------------------------------------------------------ */

static gint
compare_i64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* The @pct-th percentile of sorted @v (nearest rank). */
static gint64
percentile (const gint64 *v, guint n, guint pct)
{
  guint64 rank = ((guint64) n * pct + 99) / 100;

  return v[CLAMP (rank, 1, n) - 1];
}

static gint64
cpu_ns (const struct rusage *u)
{
  return (u->ru_utime.tv_sec + u->ru_stime.tv_sec)
      * G_GINT64_CONSTANT (1000000000)
      + (u->ru_utime.tv_usec + u->ru_stime.tv_usec) * 1000;
}

/* Throughput and CPU between the reads of the last warm-up frame and the
 * last frame; latency of each timed frame that arrived. */
static gboolean
summarize (const Run *run, Result *r)
{
  guint n = run->n_frames - run->first_timed, got = 0;
  gint64 start = run->received_ns[run->first_timed - 1];
  gint64 end = run->received_ns[run->n_frames - 1];
  g_autofree gint64 *latency = g_new (gint64, n);

  for (guint i = run->first_timed; i < run->n_frames; i++)
    if (run->received_ns[i] != 0)
      latency[got++] = run->received_ns[i] - run->pushed_ns[i];
  if (start == 0 || end <= start || got == 0)
    return FALSE;
  qsort (latency, got, sizeof (gint64), compare_i64);
  r->fps = got / ((end - start) / 1e9);
  r->cpu_us =
      (cpu_ns (&run->usage_end) - cpu_ns (&run->usage_start)) / 1e3 / got;
  r->p50_us = percentile (latency, got, 50) / 1e3;
  r->p99_us = percentile (latency, got, 99) / 1e3;
  return TRUE;
}

static guint64
stat_u64 (const GstStructure *s, const gchar *field)
{
  guint64 v = 0;

  gst_structure_get_uint64 (s, field, &v);
  return v;
}

/* Says where the run was not what its row claims, from the element's own
 * counters: a row is only worth its label if they agree. */
static void
describe (const Run *run, const Path *path, Result *r)
{
  const GstStructure *s = run->stats;

  r->note[0] = '\0';
  if (run->not_pinned)
    g_strlcpy (r->note, "input not pinned", sizeof (r->note));
  else if (s == NULL)
    g_strlcpy (r->note, "no cudagraph-stats", sizeof (r->note));
  else if (stat_u64 (s, "failed-frames") > 0)
    g_snprintf (r->note, sizeof (r->note),
        "%" G_GUINT64_FORMAT " frames failed", stat_u64 (s, "failed-frames"));
  else if (path->input == INPUT_CUDA
      && stat_u64 (s, "in-place-inputs") < run->n_frames)
    g_strlcpy (r->note, "input copied", sizeof (r->note));
  else if (path->cuda_out && stat_u64 (s, "in-place-outputs") < run->n_frames)
    g_strlcpy (r->note, "output copied", sizeof (r->note));
  else if (path->use_graph && stat_u64 (s, "replays") == 0)
    g_strlcpy (r->note, "no graph replays", sizeof (r->note));
  else if (!path->use_graph && stat_u64 (s, "eager-frames") == 0)
    g_strlcpy (r->note, "no eager frames", sizeof (r->note));
}

/* Runs @job; FALSE with the reason in @r->note. */
static gboolean
measure (const Bench *b, const Job *job, const Path *path, Result *r)
{
  g_autoptr (GError) error = NULL;
  gboolean ok;
  Run run;

  run_init (&run, b->warmup, job->frames, job->map_flags);
  ok = run_job (b, job, &run, &error) && summarize (&run, r);
  if (!ok)
    g_snprintf (r->note, sizeof (r->note), "failed: %s",
        error ? error->message : "frames went missing");
  else if (path)
    describe (&run, path, r);
  run_clear (&run);
  return ok;
}

/* --- the CPU peer ------------------------------------------------------- */

/* videoconvertscale with @threads threads; fps, or 0 when it failed. */
static gdouble
measure_peer (const Bench *b, guint threads, Result *r)
{
  Job job = { INPUT_PAGEABLE, NULL, PEER_CAPS, GST_MAP_READ, 3, b->cpu_frames };
  gboolean ok;

  job.middle = g_strdup_printf ("videoconvertscale n-threads=%u "
                                "add-borders=true",
      threads);
  ok = measure (b, &job, NULL, r);
  g_free (job.middle);
  if (!ok) {
    printf ("CPU peer (%u threads): %s\n", threads, r->note);
    return 0;
  }
  printf ("CPU peer: videoconvertscale n-threads=%-2u %8.1f fps, %8.1f CPU "
          "µs/frame, p50 %.0f µs, p99 %.0f µs\n",
      threads, r->fps, r->cpu_us, r->p50_us, r->p99_us);
  return r->fps;
}

/* The better of one thread (its default) and every core. */
static void
measure_peers (Bench *b)
{
  Result r;
  gdouble one, all;

  if (b->cpu_frames == 0) {
    printf ("CPU peer: skipped (--cpu-frames=0)\n");
    return;
  }
  one = measure_peer (b, 1, &r);
  all = measure_peer (b, g_get_num_processors (), &r);
  b->peer_fps = MAX (one, all);
}

/* --- the table ---------------------------------------------------------- */

static const Path paths[] = {
  { INPUT_PINNED, FALSE, TRUE },
  { INPUT_PINNED, FALSE, FALSE },
  { INPUT_PAGEABLE, FALSE, TRUE },
  { INPUT_PINNED, TRUE, TRUE },
  { INPUT_PINNED, TRUE, FALSE },
  { INPUT_PAGEABLE, TRUE, TRUE },
  { INPUT_CUDA, TRUE, TRUE },
  { INPUT_CUDA, TRUE, FALSE },
};

static const guint in_flights[] = { 1, 2, 4, 8 };

/* The bound a path's fps is held against: the copies it cannot avoid. */
static gdouble
path_bound (const Bench *b, const Path *path)
{
  if (path->input == INPUT_CUDA)
    return 0;
  return path->cuda_out ? b->h2d_fps : b->round_trip_fps;
}

static void
print_ratio (gdouble fps, gdouble bound)
{
  if (bound > 0)
    printf (" | %7.2f", fps / bound);
  else
    printf (" |       -");
}

static void
print_row_start (const Path *path)
{
  printf ("%-8s | %-6s | %-6s", input_names[path->input],
      path->cuda_out ? "CUDA" : "system", path->use_graph ? "graph" : "eager");
}

static void
run_row (Bench *b, const Path *path, guint in_flight)
{
  Job job = { path->input, NULL,
    path->cuda_out ? "other/tensors(memory:CUDAMemory)" : "other/tensors",
    GST_MAP_READ, in_flight + 2, b->frames };
  Result r;

#ifdef HAVE_GST_CUDA
  if (path->cuda_out)
    job.map_flags |= GST_MAP_CUDA;
#endif
  job.middle = g_strdup_printf (PREPROCESS " use-graph=%s in-flight=%u%s%s",
      path->use_graph ? "true" : "false", in_flight,
      b->sync_mode ? " sync-mode=" : "", b->sync_mode ? b->sync_mode : "");
  print_row_start (path);
  printf (" | %9u", in_flight);
  if (measure (b, &job, path, &r)) {
    printf (" | %8.1f | %8.1f | %7.0f | %7.0f", r.fps, r.cpu_us, r.p50_us,
        r.p99_us);
    print_ratio (r.fps, path_bound (b, path));
    print_ratio (r.fps, b->peer_fps);
  } else {
    b->any_failed = TRUE;
  }
  printf (" | %s\n", r.note);
  fflush (stdout);
  g_free (job.middle);
}

/* What GStreamer itself costs on the CUDA path: the same appsrc, queue
 * and mapping appsink with identity where the element was.  The element's
 * own CPU per frame is a row's figure less this one. */
static void
measure_framework (Bench *b)
{
#ifdef HAVE_GST_CUDA
  Job job = { INPUT_CUDA, (gchar *) "identity",
    "video/x-raw(memory:CUDAMemory)", GST_MAP_READ | GST_MAP_CUDA, 6,
    b->frames };
  Result r;

  if (measure (b, &job, NULL, &r))
    printf ("GStreamer alone (CUDA buffers, appsrc ! identity ! queue ! "
            "appsink mapping each): %.1f fps, %.1f CPU µs/frame, p50 %.0f µs, "
            "p99 %.0f µs\n",
        r.fps, r.cpu_us, r.p50_us, r.p99_us);
  else
    printf ("GStreamer alone: %s\n", r.note);
#endif
}

static gboolean
row_wanted (const Bench *b, const Path *path, guint in_flight)
{
  return (b->only_input == NULL
             || g_ascii_strcasecmp (b->only_input, input_names[path->input])
                 == 0)
      && (b->only_in_flight == 0 || b->only_in_flight == in_flight);
}

static void
run_table (Bench *b)
{
  printf ("input    | output | launch | in-flight |      fps | CPU µs/f "
          "| p50 µs  | p99 µs  | of copy | vs CPU  | notes\n");
  for (guint p = 0; p < G_N_ELEMENTS (paths); p++) {
#ifndef HAVE_GST_CUDA
    if (paths[p].input == INPUT_CUDA || paths[p].cuda_out) {
      print_row_start (&paths[p]);
      printf (" |         - | not built (no gstreamer-cuda)\n");
      continue;
    }
#endif
    for (guint i = 0; i < G_N_ELEMENTS (in_flights); i++)
      if (row_wanted (b, &paths[p], in_flights[i]))
        run_row (b, &paths[p], in_flights[i]);
  }
  printf ("of copy: fps / the copies' fps (system out: H2D + D2H; CUDA out "
          "from system in: H2D); vs CPU: fps / the faster CPU peer; input "
          "buffers going round: in-flight + 2\n");
}

/* --- user kernels ------------------------------------------------------- */

/* The cost of generality and of a second element, CUDA memory in and
 * out, graph replay, 4 frames in flight: a built-in op against the same
 * work as a user kernel (cudagraphkernel), and a user kernel fused into
 * cudagraphconvert / cudagraphpreprocess against no kernel and against
 * a cudagraphkernel after it.  cudagraphkernel reads video, not tensors:
 * after cudagraphpreprocess only the fused form exists. */

/* NV12 copied, one thread per luma byte (the even ones copy a UV pair). */
#define COPY_KERNEL \
  "cudagraphkernel backend=cuda in-flight=4 entry=copy " \
  "source=\"extern \\\"C\\\" __global__ void copy (const gcg_params *p) {" \
  " int x = blockIdx.x * blockDim.x + threadIdx.x;" \
  " int y = blockIdx.y * blockDim.y + threadIdx.y;" \
  " if (x >= p->w || y >= p->h) return;" \
  " ((unsigned char *) p->d0)[(size_t) y * p->dp0 + x] =" \
  "   ((const unsigned char *) p->s0)[(size_t) y * p->sp0 + x];" \
  " if (x % 2 || y % 2) return;" \
  " const unsigned char *s = (const unsigned char *) p->s1" \
  "   + (size_t) (y / 2) * p->sp1 + x;" \
  " unsigned char *d = (unsigned char *) p->d1 + (size_t) (y / 2) * p->dp1" \
  "   + x;" \
  " d[0] = s[0]; d[1] = s[1]; }\" params=\"s0=src0,s1=src1,d0=dst0," \
  "d1=dst1,sp0=src_pitch0,sp1=src_pitch1,dp0=dst_pitch0,dp1=dst_pitch1," \
  "w=out_width,h=out_height\""
/* examples/kernels/vignette.cu, inline (the bench runs from anywhere). */
#define VIGNETTE_SOURCE \
  "extern \\\"C\\\" __global__ void vignette (const gcg_params *p) {" \
  " int x = blockIdx.x * blockDim.x + threadIdx.x;" \
  " int y = blockIdx.y * blockDim.y + threadIdx.y;" \
  " if (x >= p->width || y >= p->height) return;" \
  " const unsigned char *s = (const unsigned char *) p->src" \
  "   + (size_t) y * p->src_pitch + 4 * (size_t) x;" \
  " unsigned char *d = (unsigned char *) p->dst" \
  "   + (size_t) y * p->dst_pitch + 4 * (size_t) x;" \
  " float cx = (x + 0.5f) / p->width - 0.5f;" \
  " float cy = (y + 0.5f) / p->height - 0.5f;" \
  " float f = fminf (fmaxf (1.0f - p->strength * 2.0f" \
  "   * (cx * cx + cy * cy), 0.0f), 1.0f);" \
  " for (int c = 0; c < 3; c++) d[c] = (unsigned char) __fmaf_rn (s[c], f," \
  "   0.5f);" \
  " d[3] = s[3]; }"
#define VIGNETTE_PARAMS \
  "src=src0,dst=dst0,src_pitch=src_pitch0," \
  "dst_pitch=dst_pitch0,width=out_width,height=out_height," \
  "strength=f32:0.5"
/* The tensor scaled in place (1x3x640x640 float32: one thread per pixel,
 * three planes). */
#define TENSOR_SOURCE \
  "extern \\\"C\\\" __global__ void gain (const gcg_params *p) {" \
  " int x = blockIdx.x * blockDim.x + threadIdx.x;" \
  " int y = blockIdx.y * blockDim.y + threadIdx.y;" \
  " if (x >= p->w || y >= p->h) return;" \
  " float *t = (float *) p->t; size_t n = (size_t) p->w * p->h;" \
  " size_t i = (size_t) y * p->w + x;" \
  " for (int c = 0; c < 3; c++) t[c * n + i] *= p->g; }"
#define CONVERT_640 \
  "cudagraphconvert backend=cuda in-flight=4 " \
  "letterbox=symmetric"
#define RGBA_640 \
  "video/x-raw(memory:CUDAMemory), format=RGBA, width=640, " \
  "height=640, pixel-aspect-ratio=1/1"

typedef struct
{
  const gchar *label;
  const gchar *middle;
  const gchar *out_caps;
} KernelRow;

/* Only with GStreamer's CUDA memory (run_kernel_rows()). */
#ifdef HAVE_GST_CUDA
static const KernelRow kernel_rows[] = {
  { "cudagraphconvert NV12 copy (built-in)",
      "cudagraphconvert backend=cuda in-flight=4 method=nearest "
      "crop-width=1920",
      "video/x-raw(memory:CUDAMemory), format=NV12, width=1920, height=1080" },
  { "cudagraphkernel NV12 copy (user kernel)", COPY_KERNEL,
      "video/x-raw(memory:CUDAMemory), format=NV12, width=1920, height=1080" },
  { "cudagraphconvert -> 640x640 RGBA", CONVERT_640, RGBA_640 },
  { "cudagraphconvert + vignette fused",
      CONVERT_640 " kernel-entry=vignette "
                  "kernel-source=\"" VIGNETTE_SOURCE
                  "\" kernel-params=\"" VIGNETTE_PARAMS "\"",
      RGBA_640 },
  { "cudagraphconvert ! cudagraphkernel vignette",
      CONVERT_640 " ! cudagraphkernel backend=cuda in-flight=4 entry=vignette "
                  "source=\"" VIGNETTE_SOURCE "\" params=\"" VIGNETTE_PARAMS
                  "\"",
      RGBA_640 },
  { "cudagraphconvert ! cudagraphkernel vignette in-place",
      CONVERT_640 " ! cudagraphkernel backend=cuda in-flight=4 in-place=true "
                  "entry=vignette source=\"" VIGNETTE_SOURCE
                  "\" params=\"" VIGNETTE_PARAMS "\"",
      RGBA_640 },
  { "... both sync-mode=poll",
      CONVERT_640 " sync-mode=poll ! "
                  "cudagraphkernel backend=cuda in-flight=4 sync-mode=poll "
                  "entry=vignette source=\"" VIGNETTE_SOURCE
                  "\" params=\"" VIGNETTE_PARAMS "\"",
      RGBA_640 },
  { "cudagraphpreprocess", PREPROCESS " in-flight=4",
      "other/tensors(memory:CUDAMemory)" },
  { "cudagraphpreprocess + tensor gain fused",
      PREPROCESS " in-flight=4 "
                 "kernel-entry=gain kernel-source=\"" TENSOR_SOURCE "\" "
                 "kernel-params=\"t=dst0,w=out_width,h=out_height,g=f32:1.5\"",
      "other/tensors(memory:CUDAMemory)" },
};
#endif

static void
run_kernel_rows (Bench *b)
{
#ifdef HAVE_GST_CUDA
  static const Path path = { INPUT_CUDA, TRUE, TRUE };

  printf (
      "user kernels (1080p NV12 CUDA memory in, CUDA memory out, graph, "
      "in-flight 4)                 |      fps | CPU µs/f | p50 µs  | p99 µs  "
      "| notes\n");
  for (guint i = 0; i < G_N_ELEMENTS (kernel_rows); i++) {
    Job job = { INPUT_CUDA, (gchar *) kernel_rows[i].middle,
      kernel_rows[i].out_caps, GST_MAP_READ | GST_MAP_CUDA, 6, b->frames };
    Result r;

    printf ("%-60s", kernel_rows[i].label);
    if (measure (b, &job, &path, &r))
      printf (" | %8.1f | %8.1f | %7.0f | %7.0f", r.fps, r.cpu_us, r.p50_us,
          r.p99_us);
    else
      b->any_failed = TRUE;
    printf (" | %s\n", r.note);
    fflush (stdout);
  }
  printf ("CPU µs/f is the whole process's; two-element rows count both "
          "elements (their stats: the last element's)\n");
#else
  printf ("user kernels: not built (no gstreamer-cuda)\n");
#endif
}

/* --- setup -------------------------------------------------------------- */

/* GST_PLUGIN_PATH decides where the plugin comes from; when it has none,
 * this build's gst/ is scanned, so that a bare run from the build works. */
static void
find_plugin (void)
{
  GstElementFactory *factory = gst_element_factory_find ("cudagraphpreprocess");

  if (factory == NULL) {
    gst_registry_scan_path (gst_registry_get (), GCG_BENCH_PLUGIN_DIR);
    factory = gst_element_factory_find ("cudagraphpreprocess");
  }
  if (factory == NULL) {
    fprintf (stderr,
        "bench-pipeline: no cudagraphpreprocess element; set "
        "GST_PLUGIN_PATH to the build's gst/ folder\n");
    exit (1);
  }
  gst_object_unref (factory);
}

/* One GstCudaContext over the library's (primary) context, for every
 * pipeline: CUDA memory input then lives where the element reads it. */
static void
share_context (Bench *b)
{
#ifdef HAVE_GST_CUDA
  if (!gst_cuda_load_library ()) {
    fprintf (stderr,
        "bench-pipeline: gstreamer-cuda could not load the "
        "driver: CUDA memory rows will fail\n");
    return;
  }
  gst_cuda_memory_init_once ();
  b->cuda = gst_cuda_context_new_wrapped (gcg_context_get_handle (b->ctx),
      gcg_context_get_device_id (b->ctx));
  if (b->cuda)
    b->shared = gst_context_new_cuda_context (b->cuda);
#endif
}

static void
teardown (Bench *b)
{
  g_clear_pointer (&b->shared, gst_context_unref);
#ifdef HAVE_GST_CUDA
  gst_clear_object (&b->cuda);
#endif
  g_clear_object (&b->ctx);
  g_clear_pointer (&b->only_input, g_free);
  g_clear_pointer (&b->sync_mode, g_free);
}

static void
parse_args (Bench *b, int *argc, char ***argv)
{
  gint frames = 3000, warmup = 200, cpu_frames = 500, in_flight = 0;
  gchar *input = NULL;
  gboolean kernels_only = FALSE, no_kernels = FALSE;
  GOptionEntry entries[] = { { "frames", 0, 0, G_OPTION_ARG_INT, &frames,
                                 "Timed frames per row", "N" },
    { "warmup", 0, 0, G_OPTION_ARG_INT, &warmup,
        "Untimed frames first (at least 1)", "N" },
    { "cpu-frames", 0, 0, G_OPTION_ARG_INT, &cpu_frames,
        "Timed frames of the CPU peer (0: skip it)", "N" },
    { "input", 0, 0, G_OPTION_ARG_STRING, &input,
        "Rows of this input only (pinned, pageable, CUDA)", "KIND" },
    { "in-flight", 0, 0, G_OPTION_ARG_INT, &in_flight,
        "Rows of this in-flight depth only", "N" },
    { "sync-mode", 0, 0, G_OPTION_ARG_STRING, &b->sync_mode,
        "The element's sync-mode (its default otherwise)", "MODE" },
    { "kernels-only", 0, 0, G_OPTION_ARG_NONE, &kernels_only,
        "Only the user-kernel rows (after the copy bound)", NULL },
    { "no-kernels", 0, 0, G_OPTION_ARG_NONE, &no_kernels,
        "Without the user-kernel rows", NULL },
    { NULL } };
  g_autoptr (GOptionContext) options = g_option_context_new ("");
  g_autoptr (GError) error = NULL;

  g_option_context_add_main_entries (options, entries, NULL);
  g_option_context_add_group (options, gst_init_get_option_group ());
  if (!g_option_context_parse (options, argc, argv, &error) || frames < 1
      || warmup < 1 || cpu_frames < 0 || in_flight < 0) {
    fprintf (stderr, "bench-pipeline: %s\n",
        error ? error->message
              : "--frames and --warmup must be ≥ 1, --cpu-frames ≥ 0");
    exit (2);
  }
  b->frames = frames;
  b->warmup = warmup;
  b->cpu_frames = cpu_frames;
  b->only_input = input;
  b->only_in_flight = in_flight;
  b->kernels_only = kernels_only;
  b->no_kernels = no_kernels;
}

int
main (int argc, char **argv)
{
  Bench b = { 0 };

  parse_args (&b, &argc, &argv);
  b.ctx = gcg_bench_open_gpu ("bench-pipeline");
  find_plugin ();
  share_context (&b);

  printf ("bench-pipeline: %s; appsrc 1080p NV12 ! cudagraphpreprocess "
          "(1x3x640x640 float32, letterboxed, mean/std) ! queue ! appsink "
          "mapping each output; %u frames per row after %u warm-up\n",
      gcg_context_get_name (b.ctx), b.frames, b.warmup);
  measure_copy_bound (&b);
  printf ("copies alone (pinned, one stream, back to back): H2D of %d B "
          "%.1f fps; H2D + D2H of %d B %.1f fps\n",
      IN_BYTES, b.h2d_fps, OUT_BYTES, b.round_trip_fps);
  if (!b.kernels_only) {
    measure_peers (&b);
    measure_framework (&b);
    run_table (&b);
  }
  if (!b.no_kernels)
    run_kernel_rows (&b);
  teardown (&b);
  return b.any_failed ? 1 : 0;
}
