/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * soak: a long run of each element (cudagraphconvert, cudagraphpreprocess,
 * cudagraphbatch on one request pad, then cudagraphbatch with a model
 * and its streams coming and going: soak-batch.c) that fails if memory
 * grows.  Every frame carries other values (a GcgParamsMeta; crop metas
 * for the converter, 0 to 4 ROI metas for the preprocessor); the input
 * caps change every --caps-every frames, going back to one set of caps
 * every other time (taken from the chain cache) and through three others
 * in turn (built anew, evicting others: chain-cache-size=2); a flush
 * comes every --flush-every frames.  Every --sample-every frames it
 * samples the process's resident memory (/proc/self/statm), the
 * element's own figures (its cudagraph-stats message, asked for with a
 * cudagraph-stats-request event: device memory allocated and reserved by
 * its allocator, pinned memory in use) and the device's used memory
 * (cuMemGetInfo), and prints them as a table.  Samples after the warm-up
 * may not exceed the largest of the warm-up by more than the tolerances;
 * every frame must come out.
 *
 *   GST_PLUGIN_PATH=build/gst soak [--frames=N] [--backend=cpu|cuda|auto]
 *       [--element=convert|preprocess|batch|batch-model|both|all]
 *
 * Exit status: 0 flat, 1 growth or lost frames, 2 bad options, 77 no GPU
 * for --backend=cuda.  The unit suite runs a short CPU soak; the GPU host
 * runs the full one (tools/gpu-host-run.sh BUILD soak).
 */
#include "soak.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The figures that may not grow, by name, offset and tolerance. */
typedef struct
{
  const gchar *name;
  gsize offset;
  gboolean device;
} Metric;

static const Metric metrics[] = {
  { "resident memory", G_STRUCT_OFFSET (Sample, rss), FALSE },
  { "device memory used", G_STRUCT_OFFSET (Sample, device_used), TRUE },
  { "allocator bytes allocated", G_STRUCT_OFFSET (Sample, allocated), TRUE },
  { "allocator bytes reserved", G_STRUCT_OFFSET (Sample, reserved), TRUE },
  { "pinned bytes in use", G_STRUCT_OFFSET (Sample, pinned), TRUE },
};

#define METRIC(sample, m) \
  (*(const gint64 *) ((const guint8 *) (sample) + (m)->offset))

typedef struct
{
  /* What --element names it. */
  const gchar *mode;
  const gchar *name;
  const gchar *props;
  const gchar *out_caps;
  gboolean rois;
  /* An aggregator: fed through a request pad, its output made on its own
   * thread (pulled one per frame, waiting). */
  const gchar *request_pad;
} ElementCase;

static const ElementCase elements[] = {
  { "convert", "cudagraphconvert", "chain-cache-size=2",
      "video/x-raw,format=RGBA,width=64,height=40,framerate=1000/1", FALSE,
      NULL },
  { "preprocess", "cudagraphpreprocess",
      "chain-cache-size=2 width=32 height=32 max-rois=4", NULL, TRUE, NULL },
  { "batch", "cudagraphbatch", "width=32 height=32 batch-size=1", NULL, FALSE,
      "sink_%u" },
  /* Made and run by soak-batch.c. */
  { "batch-model", "cudagraphbatch", NULL, NULL, TRUE, NULL },
};

/* Caps 0 every other change, 1 to 3 in turn in between.  Small frames:
 * what is measured is the memory the elements keep, not their speed. */
static const gchar *input_caps[] = {
  "video/x-raw,format=NV12,width=96,height=72,framerate=1000/1",
  "video/x-raw,format=I420,width=80,height=48,framerate=1000/1",
  "video/x-raw,format=RGBA,width=64,height=48,framerate=1000/1",
  "video/x-raw,format=BGR,width=72,height=40,framerate=1000/1",
};

const gchar *
soak_caps_for_period (guint64 period)
{
  return input_caps[period % 2 == 0 ? 0 : 1 + (period / 2) % 3];
}

/* Shared by every buffer of those caps (the elements only read it). */
GstMemory *
soak_input_memory (const GstVideoInfo *info)
{
  GstMemory *mem = gst_allocator_alloc (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
  GstMapInfo map;

  gst_memory_map (mem, &map, GST_MAP_WRITE);
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = (guint8) (i * 7 + i / 251);
  gst_memory_unmap (mem, &map);
  return mem;
}

void
soak_set_caps (GstHarness *h, guint64 period, GstVideoInfo *info,
    GstMemory **mem)
{
  g_autoptr (GstCaps)
      caps = gst_caps_from_string (soak_caps_for_period (period));

  gst_video_info_from_caps (info, caps);
  gst_harness_set_src_caps (h, g_steal_pointer (&caps));
  g_clear_pointer (mem, gst_memory_unref);
  *mem = soak_input_memory (info);
}

static void
add_params_meta (GstBuffer *buf, guint64 i)
{
  GstCustomMeta *meta = gst_buffer_add_custom_meta (buf, "GcgParamsMeta");

  gst_structure_set (gst_custom_meta_get_structure (meta), "brightness",
      G_TYPE_DOUBLE, ((gint) (i % 21) - 10) / 100.0, "contrast", G_TYPE_DOUBLE,
      0.8 + (i % 9) / 20.0, "gain", G_TYPE_DOUBLE, 0.9 + (i % 5) / 25.0, NULL);
}

/* Rectangles that move with @i and stay inside the frame. */
static void
add_region_metas (GstBuffer *buf, const GstVideoInfo *info, guint64 i,
    gboolean rois)
{
  guint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  guint n = rois ? i % 5 : i % 3 == 0;

  for (guint r = 0; r < n; r++) {
    guint x = (guint) ((i + 13 * r) % (w / 2)), y = (guint) ((i + r) % (h / 2));

    if (rois) {
      gst_buffer_add_video_region_of_interest_meta (buf, "soak", x, y, w / 2,
          h / 2);
    } else {
      GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (buf);

      crop->x = x;
      crop->y = y;
      crop->width = w / 2;
      crop->height = h / 2;
    }
  }
}

GstBuffer *
soak_input_buffer (GstMemory *mem, const GstVideoInfo *info, guint64 pts_ms,
    guint64 offset, guint64 values, gboolean rois)
{
  GstBuffer *buf = gst_buffer_new ();

  gst_buffer_append_memory (buf, gst_memory_ref (mem));
  GST_BUFFER_PTS (buf) = pts_ms * GST_MSECOND;
  GST_BUFFER_DURATION (buf) = GST_MSECOND;
  GST_BUFFER_OFFSET (buf) = offset;
  add_params_meta (buf, values);
  add_region_metas (buf, info, values, rois);
  return buf;
}

void
soak_push_segment (GstHarness *h)
{
  GstSegment segment;

  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&segment));
}

static void
flush (GstHarness *h)
{
  gst_harness_push_event (h, gst_event_new_flush_start ());
  gst_harness_push_event (h, gst_event_new_flush_stop (TRUE));
  soak_push_segment (h);
}

gint64
soak_resident_bytes (void)
{
  g_autofree gchar *text = NULL;
  unsigned long size = 0, resident = 0;

  if (!g_file_get_contents ("/proc/self/statm", &text, NULL, NULL)
      || sscanf (text, "%lu %lu", &size, &resident) != 2)
    return -1;
  return (gint64) resident * sysconf (_SC_PAGESIZE);
}

gint64
soak_device_used_bytes (GcgContext *context)
{
  guint64 free_bytes = 0, total = 0;

  if (context == NULL
      || !gcg_context_get_memory_info (context, &free_bytes, &total, NULL))
    return -1;
  return (gint64) (total - free_bytes);
}

static gint64
stats_field (const GstStructure *s, const gchar *field)
{
  guint64 v;

  return gst_structure_get_uint64 (s, field, &v) ? (gint64) v : -1;
}

static void
read_stats (const GstStructure *s, Sample *sample, guint64 *dropped,
    guint64 *failed)
{
  sample->allocated = stats_field (s, "device-bytes-allocated");
  sample->reserved = stats_field (s, "device-bytes-reserved");
  sample->pinned = stats_field (s, "pinned-bytes-in-use");
  sample->chains = (guint64) MAX (stats_field (s, "chains-built"), 0);
  sample->captures = (guint64) MAX (stats_field (s, "captures"), 0);
  *dropped = (guint64) MAX (stats_field (s, "dropped-frames"), 0);
  *failed = (guint64) MAX (stats_field (s, "failed-frames"), 0);
}

gboolean
soak_wait_stats (GstBus *bus, guint want, Sample *sample, guint64 *dropped,
    guint64 *failed)
{
  gboolean error = FALSE;
  guint have = 0;
  GstMessage *msg;

  /* An aggregator answers from its own thread: wait for the figures. */
  while ((msg = gst_bus_timed_pop (bus,
              have >= want || error ? 0 : 10 * GST_SECOND))) {
    const GstStructure *s = gst_message_get_structure (msg);
    g_autoptr (GError) err = NULL;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
        && gst_structure_has_name (s, "cudagraph-stats")) {
      read_stats (s, sample, dropped, failed);
      have++;
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (msg, &err, NULL);
      g_print ("warning: %s\n", err->message);
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, NULL);
      g_print ("FAIL error: %s\n", err->message);
      error = TRUE;
    }
    gst_message_unref (msg);
  }
  return have >= want && !error;
}

/* Asks the element for its cudagraph-stats and reads them into @sample
 * (soak_wait_stats()). */
static gboolean
element_stats (GstHarness *h, GstBus *bus, Sample *sample, guint64 *dropped,
    guint64 *failed)
{
  gst_harness_push_event (h,
      gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
          gst_structure_new_empty ("cudagraph-stats-request")));
  return soak_wait_stats (bus, 1, sample, dropped, failed);
}

static void
print_figure (gint64 v, gint64 unit)
{
  if (v < 0)
    g_print (" %12s", "-");
  else
    g_print (" %12" G_GINT64_FORMAT, v / unit);
}

static void
print_header (void)
{
  g_print ("%-20s %10s %12s %12s %12s %12s %12s %7s %8s\n", "element", "frame",
      "rss KiB", "device KiB", "alloc KiB", "reserved KiB", "pinned KiB",
      "chains", "captures");
}

void
soak_print_sample (const gchar *label, const Sample *s)
{
  g_print ("%-20s %10" G_GUINT64_FORMAT, label, s->frame);
  print_figure (s->rss, 1024);
  print_figure (s->device_used, 1024);
  print_figure (s->allocated, 1024);
  print_figure (s->reserved, 1024);
  print_figure (s->pinned, 1024);
  g_print (" %7" G_GUINT64_FORMAT " %8" G_GUINT64_FORMAT "\n", s->chains,
      s->captures);
}

guint
soak_count_growth (const Options *o, const gchar *label, GArray *samples)
{
  gboolean check_rss = soak_rss_is_meaningful ();
  guint problems = 0;

  for (guint m = 0; m < G_N_ELEMENTS (metrics); m++) {
    const Metric *metric = &metrics[m];
    gint64 tolerance = 1024
        * (metric->device ? o->device_tolerance_kib : o->rss_tolerance_kib);
    gint64 base = -1;

    if (!check_rss && !metric->device)
      continue;
    for (guint i = 0; i < samples->len; i++) {
      const Sample *s = &g_array_index (samples, Sample, i);
      gint64 v = METRIC (s, metric);

      if (s->frame <= (guint64) o->warmup) {
        base = MAX (base, v);
      } else if (v >= 0 && base >= 0 && v > base + tolerance) {
        g_print ("FAIL %s: %s grew from %" G_GINT64_FORMAT " KiB (warm-up) "
                 "to %" G_GINT64_FORMAT " KiB at frame %" G_GUINT64_FORMAT
                 " (tolerance %" G_GINT64_FORMAT " KiB)\n",
            label, metric->name, base / 1024, v / 1024, s->frame,
            tolerance / 1024);
        problems++;
        break;
      }
    }
  }
  return problems;
}

/* Under valgrind (it preloads its vgpreload libraries) a frame costs a
 * hundred times more, and resident memory is valgrind's too. */
static gboolean
under_valgrind (void)
{
  const gchar *preload = g_getenv ("LD_PRELOAD");

  return preload != NULL && strstr (preload, "vgpreload") != NULL;
}

/* AddressSanitizer and valgrind keep freed memory in quarantine: resident
 * memory grows by design there (LeakSanitizer and valgrind check leaks
 * instead). */
gboolean
soak_rss_is_meaningful (void)
{
#if defined(__SANITIZE_ADDRESS__)
  return FALSE;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return FALSE;
#endif
#endif
  return !under_valgrind ();
}

typedef struct
{
  const Options *o;
  const ElementCase *e;
  GstHarness *h;
  GstBus *bus;
  GcgContext *context;
  GArray *samples;
  GstMemory *mem;
  GstVideoInfo info;
  guint64 pushed;
  guint64 pulled;
} Run;

static void
run_pull_all (Run *r)
{
  GstBuffer *out;

  /* An aggregator's output of the frame just pushed (the harness waits up
   * to a minute for it). */
  if (r->e->request_pad != NULL && r->pulled < r->pushed
      && (out = gst_harness_pull (r->h)) != NULL) {
    r->pulled++;
    gst_buffer_unref (out);
  }
  while ((out = gst_harness_try_pull (r->h))) {
    r->pulled++;
    gst_buffer_unref (out);
  }
}

/* Takes a sample after @frames frames; FALSE when the element had lost
 * frames (dropped or failed). */
static gboolean
run_sample (Run *r, guint64 frames)
{
  Sample s = {
    0,
  };
  guint64 dropped = 0, failed = 0;

  s.frame = frames;
  if (!element_stats (r->h, r->bus, &s, &dropped, &failed)) {
    g_print ("FAIL %s: no cudagraph-stats message, or an error\n", r->e->name);
    return FALSE;
  }
  s.rss = soak_resident_bytes ();
  s.device_used = soak_device_used_bytes (r->context);
  g_array_append_val (r->samples, s);
  soak_print_sample (r->e->name, &s);
  if (dropped || failed || r->pulled != frames) {
    g_print ("FAIL %s: %" G_GUINT64_FORMAT " frames in, %" G_GUINT64_FORMAT
             " out, %" G_GUINT64_FORMAT " dropped, %" G_GUINT64_FORMAT
             " failed\n",
        r->e->name, frames, r->pulled, dropped, failed);
    return FALSE;
  }
  return TRUE;
}

/* A harness around the element of @launch whose request pad from
 * @template it feeds. */
static GstHarness *
new_request_pad_harness (const gchar *launch, const gchar *template)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) element = gst_parse_launch (launch, &error);

  if (element == NULL)
    g_error ("soak: %s: %s", launch, error->message);
  return gst_harness_new_with_element (element, template, "src");
}

/* Runs every frame through one element; returns the problems found. */
static guint
soak_element (const Options *o, const ElementCase *e, GcgContext *context)
{
  g_autofree gchar *launch =
      g_strdup_printf ("%s backend=%s %s", e->name, o->backend, e->props);
  g_autoptr (GstBus) bus = gst_bus_new ();
  Run r = { o, e, NULL, bus, context, NULL, NULL };
  gint64 started = g_get_monotonic_time ();
  guint problems = 0;

  r.samples = g_array_new (FALSE, TRUE, sizeof (Sample));
  r.h = e->request_pad ? new_request_pad_harness (launch, e->request_pad)
                       : gst_harness_new_parse (launch);
  gst_element_set_bus (r.h->element, bus);
  if (e->out_caps)
    gst_harness_set_sink_caps_str (r.h, e->out_caps);
  for (guint64 i = 0; i < (guint64) o->frames && problems == 0; i++) {
    if (i % (guint64) o->caps_every == 0)
      soak_set_caps (r.h, i / (guint64) o->caps_every, &r.info, &r.mem);
    if (i > 0 && i % (guint64) o->flush_every == 0)
      flush (r.h);
    r.pushed++;
    if (gst_harness_push (r.h,
            soak_input_buffer (r.mem, &r.info, i, i, i, e->rois))
        != GST_FLOW_OK) {
      g_print ("FAIL %s: frame %" G_GUINT64_FORMAT " was refused\n", e->name,
          i);
      problems++;
    }
    run_pull_all (&r);
    if ((i + 1) % (guint64) o->sample_every == 0 && !run_sample (&r, i + 1))
      problems++;
  }
  g_print ("%s: %" G_GUINT64_FORMAT " frames in %.1f s\n", e->name, r.pushed,
      (g_get_monotonic_time () - started) / 1e6);
  if (problems == 0)
    problems += soak_count_growth (o, e->name, r.samples);
  gst_bus_set_flushing (bus, TRUE);
  gst_element_set_bus (r.h->element, NULL);
  gst_harness_teardown (r.h);
  g_clear_pointer (&r.mem, gst_memory_unref);
  g_array_unref (r.samples);
  return problems;
}

static gboolean
parse_options (int argc, char **argv, Options *o)
{
  gchar *backend = NULL, *element = NULL;
  GOptionEntry entries[] = { { "frames", 'n', 0, G_OPTION_ARG_INT64, &o->frames,
                                 "Frames through each element (1000000)", "N" },
    { "caps-every", 0, 0, G_OPTION_ARG_INT64, &o->caps_every,
        "Frames between caps changes (10000)", "N" },
    { "flush-every", 0, 0, G_OPTION_ARG_INT64, &o->flush_every,
        "Frames between flushes (50000)", "N" },
    { "sample-every", 0, 0, G_OPTION_ARG_INT64, &o->sample_every,
        "Frames between samples (as --caps-every)", "N" },
    { "pads-every", 0, 0, G_OPTION_ARG_INT64, &o->pads_every,
        "batch-model: frames between a stream leaving and another joining "
        "(1000)",
        "N" },
    { "warmup", 0, 0, G_OPTION_ARG_INT64, &o->warmup,
        "Frames before the baseline is taken (six caps changes, and at "
        "least one flush)",
        "N" },
    { "rss-tolerance", 0, 0, G_OPTION_ARG_INT64, &o->rss_tolerance_kib,
        "Resident memory growth allowed after the warm-up, KiB (8192)", "KIB" },
    { "device-tolerance", 0, 0, G_OPTION_ARG_INT64, &o->device_tolerance_kib,
        "Device and pinned memory growth allowed, KiB (2048)", "KIB" },
    { "backend", 'b', 0, G_OPTION_ARG_STRING, &backend,
        "cpu, cuda or auto (auto)", "NAME" },
    { "element", 'e', 0, G_OPTION_ARG_STRING, &element,
        "convert, preprocess, batch, batch-model or all (all; both: convert "
        "and preprocess)",
        "NAME" },
    { NULL } };
  g_autoptr (GOptionContext) ctx = g_option_context_new (
      "- memory soak of "
      "cudagraphconvert, cudagraphpreprocess and cudagraphbatch "
      "(GST_PLUGIN_PATH must hold "
      "the plugin: build/gst in a build tree)");
  g_autoptr (GError) error = NULL;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    g_printerr ("soak: %s\n", error->message);
    return FALSE;
  }
  o->backend = backend ? backend : g_strdup ("auto");
  o->element = element ? element : g_strdup ("all");
  if (o->sample_every <= 0)
    o->sample_every = o->caps_every;
  if (o->warmup < 0)
    o->warmup = MAX (6 * o->caps_every, o->flush_every);
  if (o->frames <= 0 || o->caps_every <= 0 || o->flush_every <= 0
      || o->sample_every <= 0 || o->pads_every <= 0 || o->rss_tolerance_kib < 0
      || o->device_tolerance_kib < 0
      || !g_strv_contains ((const gchar *[]) { "cpu", "cuda", "auto", NULL },
          o->backend)
      || !g_strv_contains ((const gchar *[]) { "convert", "preprocess", "batch",
                               "batch-model", "both", "all", NULL },
          o->element)) {
    g_printerr ("soak: counts must be positive, --backend cpu, cuda or "
                "auto, --element convert, preprocess, batch, batch-model, "
                "both or all\n");
    return FALSE;
  }
  if (o->frames <= o->warmup)
    g_printerr ("soak: warning: %" G_GINT64_FORMAT " frames end within the "
                "warm-up (%" G_GINT64_FORMAT "): nothing is checked\n",
        o->frames, o->warmup);
  return TRUE;
}

/* Under valgrind the run is scaled down tenfold, caps changes, flushes,
 * pad changes, samples and warm-up alike, so that the unit suite's leak
 * check of it takes half a minute rather than five. */
static void
scale_for_valgrind (Options *o)
{
  if (!under_valgrind ())
    return;
  o->frames = MAX (o->frames / 10, 1);
  o->caps_every = MAX (o->caps_every / 10, 1);
  o->flush_every = MAX (o->flush_every / 10, 1);
  o->sample_every = MAX (o->sample_every / 10, 1);
  o->pads_every = MAX (o->pads_every / 10, 1);
  o->warmup /= 10;
  g_print ("soak: under valgrind: a tenth of the run\n");
}

/* The device to read used memory from, when the backend may be CUDA;
 * NULL otherwise.  *no_gpu says --backend=cuda cannot run. */
static GcgContext *
open_device (const Options *o, gboolean *no_gpu)
{
  g_autoptr (GError) error = NULL;
  GcgContext *context;

  *no_gpu = FALSE;
  if (g_str_equal (o->backend, "cpu"))
    return NULL;
  context = gcg_context_new (0, &error);
  if (context == NULL) {
    g_print ("soak: no device memory figures: %s\n", error->message);
    *no_gpu = g_str_equal (o->backend, "cuda");
  }
  return context;
}

/* Whether --element=@choice runs mode @mode. */
static gboolean
selected (const gchar *choice, const gchar *mode)
{
  if (g_str_equal (choice, "all"))
    return TRUE;
  if (g_str_equal (choice, "both"))
    return g_str_equal (mode, "convert") || g_str_equal (mode, "preprocess");
  return g_str_equal (choice, mode);
}

int
main (int argc, char **argv)
{
  Options o = { 1000000, 10000, 50000, 0, 1000, -1, 8192, 2048, NULL, NULL };
  g_autoptr (GcgContext) context = NULL;
  guint problems = 0;
  gboolean no_gpu;

  if (!parse_options (argc, argv, &o))
    return 2;
  scale_for_valgrind (&o);
  gst_init (NULL, NULL);
  context = open_device (&o, &no_gpu);
  if (no_gpu)
    return 77;
  g_print ("soak: %" G_GINT64_FORMAT " frames per element, backend %s, caps "
           "change every %" G_GINT64_FORMAT ", flush every %" G_GINT64_FORMAT
           ", warm-up %" G_GINT64_FORMAT " frames%s\n",
      o.frames, o.backend, o.caps_every, o.flush_every, o.warmup,
      soak_rss_is_meaningful () ? ""
                                : " (resident memory not checked: ASan or "
                                  "valgrind)");
  print_header ();
  for (guint i = 0; i < G_N_ELEMENTS (elements); i++) {
    const ElementCase *e = &elements[i];
    g_autoptr (GstElementFactory) factory = NULL;

    if (!selected (o.element, e->mode))
      continue;
    factory = gst_element_factory_find (e->name);
    if (factory == NULL) {
      g_print ("FAIL %s: no such element (GST_PLUGIN_PATH must hold the "
               "cudagraph plugin: build/gst in a build tree)\n",
          e->name);
      problems++;
      continue;
    }
    if (g_str_equal (e->mode, "batch-model"))
      problems += soak_batch_model (&o, context);
    else
      problems += soak_element (&o, e, context);
  }
  g_print ("soak: %s\n", problems ? "FAILED" : "memory flat, every frame out");
  g_free (o.backend);
  g_free (o.element);
  return problems ? 1 : 0;
}
