/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * soak --element=batch-model (issue 37): cudagraphbatch, batch-size 4,
 * with a model attached where there is a device (the detector of
 * tests/common/gcg-test-detect-model.c: a graph copying a synthetic
 * YOLO-style output into its output tensor) and postprocess=detect, so
 * that each frame comes back on its stream's src_N with its results; on
 * the CPU backend, which runs no model, the same without the postprocess.
 * Its streams come and go: every --pads-every frames a new one joins and
 * the oldest leaves (with an EOS, its pads released once its branch has
 * ended; or, every other time, its sink pad released at once with frames
 * still in flight, as an application that unlinks a camera does), from
 * one to four live streams and back.  Each stream has caps of its own
 * (changing every --caps-every frames), 0 to 4 ROI metas and per-frame
 * values; every --flush-every frames every stream flushes, as a flushing
 * seek makes them.
 *
 * One GstHarness per stream (sink_N in, src_N out: it requests both pads
 * and releases them) and one on the tensor's src pad.  The streams are
 * fed in lock step, a frame each per millisecond of running time (a
 * "tick"), so each window is one batch, pulled before the next tick is
 * fed.  The harnesses answer LATENCY as live and their test clock stands
 * still, so no window closes on a deadline: a batch waits for every live
 * stream.  Nothing waits on time but the harness's bounded pulls.
 *
 * Checked: every frame pushed comes out of its src_N in order (by
 * offset), with a results meta where the model ran and none where it did
 * not, except the frames a flush or an abrupt release found still in
 * flight (never more than in-flight + 2 per stream, the bound that holds
 * after every tick); a stream that ends with EOS gives all of its frames,
 * then its EOS, within a few batches; the element counts no dropped or
 * failed frame; memory (resident, the element's device and pinned
 * bytes, the device's used bytes) is flat after the warm-up.
 */
#include "soak.h"

#include <stdarg.h>

#include "common/gcg-test-detect.h"
#include "common/gcg-test-detect-model.h"
#include "gstcudagraphresultsmeta.h"

#define LABEL "batch-model"
/* The most live streams too: every tick is one batch. */
#define BATCH_SIZE 4
#define MAX_ROIS 4
/* Small items: what is measured is the memory kept, and on the CPU
 * backend 16 rows run in one band, on the caller's thread (32 were split
 * across the CPU pool, a hand-off per item that took 5x the time on a
 * loaded 2-core machine). */
#define ITEM_SIZE 16
#define N_CLASSES 5
#define N_CAND 256

static const GcgTestDetector detector = { BATCH_SIZE * MAX_ROIS, N_CLASSES,
  N_CAND, ITEM_SIZE, ITEM_SIZE };

/* Live streams after each pad change in turn: up to four and back. */
static const guint live_after_change[] = { 2, 3, 4, 3, 2, 1 };

typedef struct
{
  GstHarness *h;                /* its sink_N in, its src_N out */
  guint index;                  /* N */
  guint64 serial;               /* streams made before it */
  GstVideoInfo info;
  GstMemory *mem;
  guint64 pushed;               /* frames pushed: the next one's offset */
  guint64 next_out;             /* the offset its branch gives next */
  guint64 out;
  guint64 results;              /* frames out with a results meta */
  guint64 taken;                /* frames a flush took in flight */
  gboolean leaving;             /* its EOS pushed */
  guint64 left_at;              /* the tick it was pushed at */
} Stream;

typedef struct
{
  const Options *o;
  GcgContext *context;
  gboolean model;
  GstElement *element;
  GstHarness *tensor;           /* on the element's src pad */
  GstBus *bus;
  GArray *samples;
  GPtrArray *streams;           /* Stream *, oldest first */
  GType results_api;
  guint in_flight;
  guint64 tick;
  guint64 frames;               /* pushed, all streams */
  guint64 serial;               /* streams made */
  guint64 changes;              /* pad changes */
  guint64 flushes;
  guint64 out, results, taken;  /* of the streams gone */
  guint stats_asked;            /* cudagraph-stats requests not answered */
  guint64 stats_frame;
  gboolean flush_due;
  gint64 started;               /* monotonic µs */
  guint problems;
} BatchRun;

static void fail (BatchRun *r, const gchar *format, ...) G_GNUC_PRINTF (2, 3);

static void
fail (BatchRun *r, const gchar *format, ...)
{
  g_autofree gchar *msg = NULL;
  va_list args;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_print ("FAIL %s: %s\n", LABEL, msg);
  r->problems++;
}

static guint
n_live (BatchRun *r)
{
  guint n = 0;

  for (guint i = 0; i < r->streams->len; i++)
    n += !((Stream *) g_ptr_array_index (r->streams, i))->leaving;
  return n;
}

/* The lowest N no stream of ours holds (sink_N and src_N both free: they
 * are requested and released together). */
static guint
free_index (BatchRun *r)
{
  for (guint n = 0;; n++) {
    gboolean taken = FALSE;

    for (guint i = 0; i < r->streams->len && !taken; i++)
      taken = ((Stream *) g_ptr_array_index (r->streams, i))->index == n;
    if (!taken)
      return n;
  }
}

/* --- a stream ------------------------------------------------------------ */

static void
stream_join (BatchRun *r)
{
  Stream *s = g_new0 (Stream, 1);
  g_autofree gchar *sink = NULL, *src = NULL;

  s->index = free_index (r);
  s->serial = r->serial++;
  sink = g_strdup_printf ("sink_%u", s->index);
  src = g_strdup_printf ("src_%u", s->index);
  /* The element already has the first harness's test clock: kept. */
  s->h = gst_harness_new_with_element (r->element, sink, src);
  soak_set_caps (s->h, s->serial + r->frames / (guint64) r->o->caps_every,
      &s->info, &s->mem);
  g_ptr_array_add (r->streams, s);
}

static void
stream_push (BatchRun *r, Stream *s)
{
  GstFlowReturn ret = gst_harness_push (s->h,
      soak_input_buffer (s->mem, &s->info, r->tick, s->pushed,
          r->tick + 7 * s->serial, TRUE));

  if (ret != GST_FLOW_OK)
    fail (r, "sink_%u: frame %" G_GUINT64_FORMAT " refused: %s", s->index,
        s->pushed, gst_flow_get_name (ret));
  s->pushed++;
  r->frames++;
}

static void
stream_take_frame (BatchRun *r, Stream *s, GstBuffer *buf)
{
  GstMeta *meta = NULL;

  if (r->results_api == 0)
    r->results_api = g_type_from_name (GST_CUDA_GRAPH_RESULTS_META_API_NAME);
  if (r->results_api != 0)
    meta = gst_buffer_get_meta (buf, r->results_api);
  if (GST_BUFFER_OFFSET (buf) != s->next_out)
    fail (r,
        "src_%u: frame %" G_GUINT64_FORMAT
        " came out where frame %" G_GUINT64_FORMAT " was due",
        s->index, GST_BUFFER_OFFSET (buf), s->next_out);
  else if ((meta != NULL) != r->model)
    fail (r,
        "src_%u: frame %" G_GUINT64_FORMAT " came out %s a results "
        "meta",
        s->index, s->next_out, meta ? "with" : "without");
  s->next_out = GST_BUFFER_OFFSET (buf) + 1;
  s->out++;
  s->results += meta != NULL;
  gst_buffer_unref (buf);
}

/* Takes what @s's branch gave so far; TRUE once it gave its EOS (every
 * frame before it is queued by then: one thread pushed both). */
static gboolean
stream_drain (BatchRun *r, Stream *s)
{
  gboolean eos = FALSE;
  GstBuffer *buf;
  GstEvent *ev;

  while ((ev = gst_harness_try_pull_event (s->h)) != NULL) {
    eos |= GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
  }
  /* What the element sent upstream (latency, reconfigure): not kept. */
  while ((ev = gst_harness_try_pull_upstream_event (s->h)) != NULL)
    gst_event_unref (ev);
  while ((buf = gst_harness_try_pull (s->h)) != NULL)
    stream_take_frame (r, s, buf);
  return eos;
}

/* Its pads released (those the harness still holds), @s is freed. */
static void
stream_free (BatchRun *r, Stream *s)
{
  gst_harness_teardown (s->h);
  g_clear_pointer (&s->mem, gst_memory_unref);
  g_ptr_array_remove (r->streams, s);
  g_free (s);
}

/* @s is gone (its branch ended): its counts go to the run's. */
static void
stream_end (BatchRun *r, Stream *s, gboolean released)
{
  guint64 missing = s->pushed - s->next_out;

  /* After an EOS every frame is out; a release takes those in flight. */
  if (!released && missing > 0)
    fail (r,
        "src_%u ended with %" G_GUINT64_FORMAT " of its %" G_GUINT64_FORMAT
        " frames missing",
        s->index, missing, s->pushed);
  else if (missing > r->in_flight + 2)
    fail (r,
        "sink_%u released with %" G_GUINT64_FORMAT " frames not out "
        "(in-flight %u)",
        s->index, missing, r->in_flight);
  r->out += s->out;
  r->results += s->results;
  r->taken += s->taken + missing;
  stream_free (r, s);
}

/* @s leaves: with an EOS (its branch then gives every frame and ends; its
 * pads are released once it has), or, every other time, by its sink pad
 * released now, its frames in flight dropped.  Both ways its branch ends
 * with EOS. */
static void
stream_leave (BatchRun *r, Stream *s)
{
  GstPad *sink;

  if (s->serial % 2 == 0) {
    if (!gst_harness_push_event (s->h, gst_event_new_eos ()))
      fail (r, "sink_%u refused its EOS", s->index);
    s->leaving = TRUE;
    s->left_at = r->tick;
    return;
  }
  sink = gst_pad_get_peer (s->h->srcpad);
  gst_element_release_request_pad (r->element, sink);
  gst_object_unref (sink);
  /* The release pushed the EOS, after the frames that were ready. */
  if (!stream_drain (r, s))
    fail (r, "sink_%u released: no EOS on src_%u", s->index, s->index);
  stream_end (r, s, TRUE);
}

/* --- the run ------------------------------------------------------------- */

static Stream *
oldest_live (BatchRun *r)
{
  for (guint i = 0; i < r->streams->len; i++) {
    Stream *s = g_ptr_array_index (r->streams, i);

    if (!s->leaving)
      return s;
  }
  g_assert_not_reached ();
}

/* A stream joins first (the element must never see every pad at EOS: it
 * would end), then the oldest leave down to the next count. */
static void
change_pads (BatchRun *r)
{
  guint target =
      live_after_change[r->changes++ % G_N_ELEMENTS (live_after_change)];

  stream_join (r);
  do
    stream_leave (r, oldest_live (r));
  while (n_live (r) > target);
  while (n_live (r) < target)
    stream_join (r);
}

static void
drop_events (GstHarness *h)
{
  GstEvent *ev;

  while ((ev = gst_harness_try_pull_event (h)) != NULL)
    gst_event_unref (ev);
}

/* Every stream flushes, as a flushing seek makes them (one seqnum; the
 * element forwards the flush once every pad is flushing).  Only with no
 * stream leaving: a flush would take its EOS away.  What the branches
 * gave before is taken; the frames still in flight were the flush's. */
static void
flush_all (BatchRun *r)
{
  guint32 seqnum = gst_util_seqnum_next ();

  for (guint i = 0; i < r->streams->len; i++) {
    Stream *s = g_ptr_array_index (r->streams, i);
    GstEvent *ev = gst_event_new_flush_start ();

    gst_event_set_seqnum (ev, seqnum);
    gst_harness_push_event (s->h, ev);
  }
  for (guint i = 0; i < r->streams->len; i++) {
    Stream *s = g_ptr_array_index (r->streams, i);
    GstEvent *ev = gst_event_new_flush_stop (TRUE);

    gst_event_set_seqnum (ev, seqnum);
    gst_harness_push_event (s->h, ev);
    soak_push_segment (s->h);
  }
  for (guint i = 0; i < r->streams->len; i++) {
    Stream *s = g_ptr_array_index (r->streams, i);
    guint64 missing;

    stream_drain (r, s);
    missing = s->pushed - s->next_out;
    if (missing > r->in_flight + 2)
      fail (r,
          "sink_%u flushed with %" G_GUINT64_FORMAT " frames not out "
          "(in-flight %u)",
          s->index, missing, r->in_flight);
    s->taken += missing;
    s->next_out = s->pushed;
  }
  drop_events (r->tensor);
  r->flushes++;
}

/* Asks for the element's figures before the next tick's frames, on
 * every live stream: each answers when the collector takes that tick's
 * frame, so no answer waits for a later frame. */
static void
ask_stats (BatchRun *r)
{
  r->stats_asked = 0;
  r->stats_frame = r->frames;
  for (guint i = 0; i < r->streams->len; i++) {
    Stream *s = g_ptr_array_index (r->streams, i);

    if (!s->leaving
        && gst_harness_push_event (s->h,
            gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
                gst_structure_new_empty ("cudagraph-stats-request"))))
      r->stats_asked++;
  }
}

static void
take_sample (BatchRun *r)
{
  Sample s = {
    0,
  };
  guint64 dropped = 0, failed = 0;
  guint want = r->stats_asked;

  r->stats_asked = 0;
  s.frame = r->stats_frame;
  if (!soak_wait_stats (r->bus, want, &s, &dropped, &failed)) {
    fail (r, "no cudagraph-stats message, or an error");
    return;
  }
  s.rss = soak_resident_bytes ();
  s.device_used = soak_device_used_bytes (r->context);
  g_array_append_val (r->samples, s);
  soak_print_sample (LABEL, &s);
  if (dropped > 0 || failed > 0)
    fail (r,
        "the element dropped %" G_GUINT64_FORMAT
        " and failed %" G_GUINT64_FORMAT " frames",
        dropped, failed);
}

/* Takes every branch's frames; a stream whose EOS came out ends; frames
 * that stay in longer than in-flight allows are lost or held. */
static void
drain_streams (BatchRun *r)
{
  for (guint i = 0; i < r->streams->len && r->problems == 0;) {
    Stream *s = g_ptr_array_index (r->streams, i);
    gboolean eos = stream_drain (r, s);

    if (eos && s->leaving) {
      stream_end (r, s, FALSE);
      continue;
    }
    if (eos)
      fail (r, "src_%u ended, sink_%u did not", s->index, s->index);
    else if (s->leaving && r->tick - s->left_at > 2 * r->in_flight + 4)
      fail (r, "src_%u: no EOS %" G_GUINT64_FORMAT " batches after sink_%u's",
          s->index, r->tick - s->left_at, s->index);
    else if (s->pushed - s->next_out > r->in_flight + 2)
      fail (r,
          "src_%u: %" G_GUINT64_FORMAT " frames pushed, %" G_GUINT64_FORMAT
          " out (in-flight %u)",
          s->index, s->pushed, s->next_out, r->in_flight);
    i++;
  }
}

static gboolean
crossed (guint64 before, guint64 after, gint64 every)
{
  return before / (guint64) every != after / (guint64) every;
}

/* What happens between two ticks, by the frames pushed. */
static void
between_ticks (BatchRun *r, guint64 before)
{
  const Options *o = r->o;
  guint64 after = r->frames;

  if (crossed (before, after, o->caps_every)) {
    for (guint i = 0; i < r->streams->len; i++) {
      Stream *s = g_ptr_array_index (r->streams, i);

      if (!s->leaving)
        soak_set_caps (s->h, s->serial + after / (guint64) o->caps_every,
            &s->info, &s->mem);
    }
  }
  r->flush_due |= crossed (before, after, o->flush_every);
  if (r->flush_due && n_live (r) == r->streams->len) {
    flush_all (r);
    r->flush_due = FALSE;
  }
  if (crossed (before, after, o->pads_every))
    change_pads (r);
  if (crossed (before, after, o->sample_every))
    ask_stats (r);
}

/* One frame on every live stream, their batch, what their branches give. */
static void
tick (BatchRun *r)
{
  guint64 before = r->frames;
  GstBuffer *batch;

  for (guint i = 0; i < r->streams->len && r->problems == 0; i++) {
    Stream *s = g_ptr_array_index (r->streams, i);

    if (!s->leaving)
      stream_push (r, s);
  }
  if (r->problems > 0)
    return;
  batch = gst_harness_pull (r->tensor);
  if (batch == NULL) {
    fail (r, "no batch for %" G_GUINT64_FORMAT " ms within 60 s", r->tick);
    return;
  }
  gst_buffer_unref (batch);
  drop_events (r->tensor);
  if (r->stats_asked > 0)
    take_sample (r);
  drain_streams (r);
  r->tick++;
  if (r->problems == 0)
    between_ticks (r, before);
}

/* Every stream ends with EOS; the element, every pad at EOS, lets every
 * batch finish and ends each branch. */
static void
finish (BatchRun *r)
{
  for (guint i = 0; i < r->streams->len; i++) {
    Stream *s = g_ptr_array_index (r->streams, i);

    if (!s->leaving && !gst_harness_push_event (s->h, gst_event_new_eos ()))
      fail (r, "sink_%u refused its EOS", s->index);
    s->leaving = TRUE;
  }
  while (r->streams->len > 0) {
    Stream *s = g_ptr_array_index (r->streams, 0);
    GstEvent *ev;
    gboolean eos = FALSE;

    while (!eos && (ev = gst_harness_pull_event (s->h)) != NULL) {
      eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
      gst_event_unref (ev);
    }
    if (!eos)
      fail (r, "src_%u: no EOS within 60 s of the end", s->index);
    stream_drain (r, s);
    stream_end (r, s, FALSE);
  }
  if (r->stats_asked > 0)
    take_sample (r);
}

/* The detector (it keeps a copy of its output on the device). */
static GcgModelGraph *
make_model (void)
{
  g_autofree gfloat *output =
      g_new (gfloat, gcg_test_detector_floats (&detector));
  GRand *rand = g_rand_new_with_seed (37);

  gcg_test_fill_detect (output, detector.items, N_CLASSES, N_CAND, rand);
  g_rand_free (rand);
  return gcg_test_detector_new (&detector, output);
}

/* The element (a reference of ours), with @model and its postprocess
 * when there is one. */
static GstElement *
make_element (const Options *o, GcgModelGraph *model)
{
  GstElement *e = gst_element_factory_make ("cudagraphbatch", NULL);
  GcgPostprocessConfig pp;

  gst_object_ref_sink (e);
  gst_util_set_object_arg (G_OBJECT (e), "backend", o->backend);
  g_object_set (e, "batch-size", BATCH_SIZE, "max-rois", MAX_ROIS, "width",
      ITEM_SIZE, "height", ITEM_SIZE, NULL);
  if (model == NULL)
    return e;
  gcg_test_detector_config (&detector, &pp);
  g_object_set (e, "model", model, "num-classes", pp.n_classes,
      "score-threshold", (gdouble) pp.score_threshold, "iou-threshold",
      (gdouble) pp.iou_threshold, "max-detections", pp.max_per_item, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "postprocess", "detect");
  return e;
}

static void
report (BatchRun *r)
{
  guint64 out = r->out, taken = r->taken;
  gdouble s = (g_get_monotonic_time () - r->started) / 1e6;

  g_print ("%s: %" G_GUINT64_FORMAT " frames in %" G_GUINT64_FORMAT
           " batches (%.1f s, %.0f batches/s), %" G_GUINT64_FORMAT
           " streams, %" G_GUINT64_FORMAT " pad changes, %" G_GUINT64_FORMAT
           " flushes; %" G_GUINT64_FORMAT " out (%" G_GUINT64_FORMAT
           " with results%s), %" G_GUINT64_FORMAT
           " in flight at a flush or release\n",
      LABEL, r->frames, r->tick, s, s > 0 ? r->tick / s : 0.0, r->serial,
      r->changes, r->flushes, out, r->results,
      r->model ? "" : ": no model on the CPU backend", taken);
  if (r->problems == 0 && out + taken != r->frames)
    fail (r,
        "%" G_GUINT64_FORMAT " frames in, %" G_GUINT64_FORMAT " out or taken",
        r->frames, out + taken);
}

guint
soak_batch_model (const Options *o, GcgContext *context)
{
  g_autoptr (GcgModelGraph) model = context ? make_model () : NULL;
  BatchRun r = {
    0,
  };

  r.o = o;
  r.started = g_get_monotonic_time ();
  r.context = context;
  r.model = model != NULL;
  r.bus = gst_bus_new ();
  r.samples = g_array_new (FALSE, TRUE, sizeof (Sample));
  r.streams = g_ptr_array_new ();
  r.element = make_element (o, model);
  g_object_get (r.element, "in-flight", &r.in_flight, NULL);
  gst_element_set_bus (r.element, r.bus);
  r.tensor = gst_harness_new_with_element (r.element, NULL, "src");
  stream_join (&r);
  while (r.frames < (guint64) o->frames && r.problems == 0)
    tick (&r);
  if (r.problems == 0)
    finish (&r);
  report (&r);
  if (r.problems == 0)
    r.problems += soak_count_growth (o, LABEL, r.samples);
  /* Left by a failure. */
  while (r.streams->len > 0)
    stream_free (&r, g_ptr_array_index (r.streams, 0));
  gst_bus_set_flushing (r.bus, TRUE);
  gst_element_set_bus (r.element, NULL);
  gst_harness_teardown (r.tensor);
  gst_object_unref (r.element);
  gst_object_unref (r.bus);
  g_array_unref (r.samples);
  g_ptr_array_unref (r.streams);
  return r.problems;
}
