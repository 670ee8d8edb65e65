/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The elements' side of bench-batch: 16 streams of 1080p NV12 in
 * GStreamer's CUDA memory (each one frame uploaded once and repeated by
 * imagefreeze, so the sources cost next to nothing) into 1×3×640×640
 * float32 letterboxed tensors, in one process:
 *
 *   alone      16 × (source ! fakesink): what GStreamer itself costs
 *   separate   16 × (source ! cudagraphpreprocess ! fakesink)
 *   batch      16 sources ! cudagraphbatch ! fakesink (16×3×640×640)
 *   batch eager  the same with use-graph=false
 *
 * Each row runs --frames frames per stream to EOS (sinks not synced) and
 * prints fps per stream, process CPU µs per batch of 16 frames (user +
 * system, from getrusage around the run), the same less the `alone` row's
 * (what the preprocessing adds), the ratio of that to `separate`'s, and
 * the context switches per batch of 16 frames (voluntary and not, all
 * threads): what handing frames from thread to thread costs, a count that
 * the machine's load hardly moves, unlike the times.
 * --only=ROW runs one row (to profile it; no comparison is printed).
 * --backend=cpu runs the same on the CPU reference (a smoke run: small
 * frames advised, --width/--height); without a GPU and with the default
 * backend it exits 77.  --side sets the tensor's side (default 640, 64
 * on the CPU backend): with a tiny side on the CPU backend the kernel
 * work is next to nothing and what is left is the elements' own cost
 * (how cudagraphbatch's hand-off from its pads is profiled without a
 * GPU).
 */
#include <gcg.h>
#include "gcg-bench-util.h"
#include "bench-common.h"

#include <gst/gst.h>
#include <stdio.h>
#include <sys/resource.h>

#define STREAMS 16

typedef struct
{
  const gchar *backend;
  guint frames, width, height, side;
  gboolean cuda_memory;
  const gchar *batch_props;     /* more properties of cudagraphbatch */
} Options;

typedef struct
{
  gdouble fps;                  /* per stream */
  gdouble cpu_us;               /* per batch of STREAMS frames */
  gdouble switches;             /* context switches, per batch */
} Result;

static gdouble
cpu_s (void)
{
  struct rusage u;

  getrusage (RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec
      + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static gdouble
context_switches (void)
{
  struct rusage u;

  getrusage (RUSAGE_SELF, &u);
  return (gdouble) u.ru_nvcsw + u.ru_nivcsw;
}

/* Source @i, ending in "! " so a sink or a pad name can follow. */
static void
append_source (GString *s, const Options *o, guint i)
{
  g_string_append_printf (s,
      " videotestsrc num-buffers=1 pattern=%u ! "
      "video/x-raw,format=NV12,width=%u,height=%u,framerate=30/1 ! ",
      i % 20, o->width, o->height);
  if (o->cuda_memory)
    g_string_append (s, "cudaupload ! video/x-raw(memory:CUDAMemory) ! ");
  g_string_append_printf (s, "imagefreeze num-buffers=%u ! ", o->frames);
}

static gchar *
describe (const Options *o, const gchar *row)
{
  GString *s = g_string_new (NULL);
  g_autofree gchar *pre =
      g_strdup_printf ("width=%u height=%u "
                       "letterbox=symmetric mean=\"0.485,0.456,0.406\" "
                       "std=\"0.229,0.224,0.225\" backend=%s",
          o->side, o->side, o->backend);
  const gchar *mem = o->cuda_memory ? "(memory:CUDAMemory)" : "";

  if (g_str_has_prefix (row, "batch")) {
    g_string_append_printf (s,
        "cudagraphbatch name=b %s%s %s ! "
        "other/tensors%s ! fakesink sync=false",
        pre, g_str_equal (row, "batch eager") ? " use-graph=false" : "",
        o->batch_props ? o->batch_props : "", mem);
    for (guint i = 0; i < STREAMS; i++) {
      append_source (s, o, i);
      g_string_append_printf (s, "b.sink_%u", i);
    }
    return g_string_free (s, FALSE);
  }
  for (guint i = 0; i < STREAMS; i++) {
    append_source (s, o, i);
    if (g_str_equal (row, "separate"))
      g_string_append_printf (s, "cudagraphpreprocess %s ! other/tensors%s ! ",
          pre, mem);
    g_string_append (s, "fakesink sync=false");
  }
  return g_string_free (s, FALSE);
}

/* Runs the pipeline to EOS; dies on an error message. */
static Result
run_row (const Options *o, const gchar *row)
{
  g_autofree gchar *desc = describe (o, row);
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) pipeline = gst_parse_launch (desc, &error);
  g_autoptr (GstBus) bus = NULL;
  g_autoptr (GstMessage) msg = NULL;
  gint64 t0;
  gdouble c0, s0;
  Result r;

  gcg_bench_check (pipeline != NULL && error == NULL, row, error);
  bus = gst_element_get_bus (pipeline);
  /* Start-up (contexts, negotiation, captures) happens before PAUSED
   * completes and the first frames: it is not in the figures. */
  gcg_bench_check (gst_element_set_state (pipeline, GST_STATE_PAUSED)
          != GST_STATE_CHANGE_FAILURE,
      "PAUSED", NULL);
  gcg_bench_check (gst_element_get_state (pipeline, NULL, NULL, 30 * GST_SECOND)
          == GST_STATE_CHANGE_SUCCESS,
      "preroll", NULL);
  t0 = gcg_bench_now_ns ();
  c0 = cpu_s ();
  s0 = context_switches ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  r.cpu_us = (cpu_s () - c0) * 1e6 / o->frames;
  r.switches = (context_switches () - s0) / o->frames;
  r.fps = o->frames / ((gcg_bench_now_ns () - t0) / 1e9);
  if (msg == NULL || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    g_autofree gchar *dbg = NULL;

    if (msg)
      gst_message_parse_error (msg, &error, &dbg);
    gcg_bench_die (row, error);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  return r;
}

int
main (int argc, char **argv)
{
  Options o = { "cuda", 3000, 1920, 1080, 640, TRUE };
  g_autofree gchar *backend = NULL;
  g_autofree gchar *only = NULL;
  g_autofree gchar *batch_props = NULL;
  gint frames = 3000, width = 1920, height = 1080, side = 0;
  GOptionEntry entries[] = { { "frames", 0, 0, G_OPTION_ARG_INT, &frames,
                                 "Frames per stream", "N" },
    { "backend", 0, 0, G_OPTION_ARG_STRING, &backend,
        "cuda (default) or cpu (a smoke run)", "B" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "Input width", "W" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height, "Input height", "H" },
    { "side", 0, 0, G_OPTION_ARG_INT, &side,
        "Tensor side (default 640, 64 with --backend=cpu)", "S" },
    { "only", 0, 0, G_OPTION_ARG_STRING, &only,
        "Run this row alone, no comparison (to profile it)", "ROW" },
    { "batch-props", 0, 0, G_OPTION_ARG_STRING, &batch_props,
        "More properties of cudagraphbatch (launch-line syntax)", "P" },
    { NULL } };
  g_autoptr (GOptionContext) options = g_option_context_new ("");
  g_autoptr (GError) error = NULL;
  static const gchar *const rows[] = {
    "alone",
    "separate",
    "batch",
    "batch eager",
  };
  Result res[G_N_ELEMENTS (rows)];

  g_option_context_add_main_entries (options, entries, NULL);
  g_option_context_add_group (options, gst_init_get_option_group ());
  if (!g_option_context_parse (options, &argc, &argv, &error) || frames < 2
      || width < 16 || height < 16 || width > 8192 || height > 8192 || side < 0
      || side == 1 || side > 4096
      || (backend && !g_str_equal (backend, "cuda")
          && !g_str_equal (backend, "cpu"))) {
    fprintf (stderr, "bench-batch-pipeline: %s\n",
        error
            ? error->message
            : "--frames ≥ 2, sizes 16 to 8192, side 2 to 4096, --backend cuda "
              "or cpu");
    return 2;
  }
  o.frames = frames;
  o.batch_props = batch_props;
  o.width = width;
  o.height = height;
  if (backend && g_str_equal (backend, "cpu")) {
    o.backend = "cpu";
    o.cuda_memory = FALSE;
    o.side = 64;
  } else {
    g_object_unref (gcg_bench_open_gpu ("bench-batch-pipeline"));
    if (!gst_registry_check_feature_version (gst_registry_get (), "cudaupload",
            1, 0, 0)) {
      printf ("bench-batch-pipeline: skipped, no cudaupload (nvcodec)\n");
      return 77;
    }
  }

  if (side > 0)
    o.side = side;
  printf ("bench-batch-pipeline: %u streams of %ux%u NV12 (%s) → %u×%u "
          "float32 letterboxed, backend %s, %u frames per stream\n",
      STREAMS, o.width, o.height,
      o.cuda_memory ? "CUDA memory" : "system memory", o.side, o.side,
      o.backend, o.frames);
  printf ("%-12s | fps/stream | CPU µs/batch | less alone | vs separate "
          "| switches/batch\n",
      "row");
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++) {
    gdouble net;

    if (only && !g_str_equal (only, rows[i]))
      continue;
    res[i] = run_row (&o, rows[i]);
    net = only ? 0.0 : res[i].cpu_us - res[0].cpu_us;
    printf ("%-12s | %10.0f | %12.1f | %10.1f |", rows[i], res[i].fps,
        res[i].cpu_us, i ? net : 0.0);
    if (i >= 1 && !only)
      printf (" %9.2f×", (res[1].cpu_us - res[0].cpu_us) / MAX (net, 1e-3));
    else
      printf (" %10s", "");
    printf (" | %14.1f\n", res[i].switches);
    fflush (stdout);
  }
  return 0;
}
