/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What soak.c's element modes and soak-batch.c's batch-model mode share:
 * the options, a row of the table, the input frames and their metas,
 * the figures read and the growth check.
 */
#pragma once

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gcg.h>

typedef struct
{
  gint64 frames;
  gint64 caps_every;
  gint64 flush_every;
  gint64 sample_every;
  gint64 pads_every;
  gint64 warmup;
  gint64 rss_tolerance_kib;
  gint64 device_tolerance_kib;
  gchar *backend;
  gchar *element;
} Options;

/* One row of the table; -1 where a figure is not known (the CPU backend
 * holds no device memory). */
typedef struct
{
  guint64 frame;
  gint64 rss;
  gint64 device_used;
  gint64 allocated;
  gint64 reserved;
  gint64 pinned;
  guint64 chains;
  guint64 captures;
} Sample;

/* The input caps of period @period of a stream's caps changes. */
const gchar *soak_caps_for_period (guint64 period);

/* The whole input frame of @info, a fixed pattern (transfer full). */
GstMemory *soak_input_memory (const GstVideoInfo *info);

/* Sets the caps of @period on @h's src pad (a new segment follows), its
 * video info in @info and a frame of them in *@mem (replacing it). */
void soak_set_caps (GstHarness *h, guint64 period, GstVideoInfo *info,
    GstMemory **mem);

/* A frame of @mem stamped @pts_ms milliseconds, one long, offset
 * @offset, whose metas (a GcgParamsMeta, crop metas or 0 to 4 ROI metas
 * with @rois) vary with @values. */
GstBuffer *soak_input_buffer (GstMemory *mem, const GstVideoInfo *info,
    guint64 pts_ms, guint64 offset, guint64 values, gboolean rois);

/* A new time segment from 0 (after caps, or a flush). */
void soak_push_segment (GstHarness *h);

gint64 soak_resident_bytes (void);
gint64 soak_device_used_bytes (GcgContext *context);

/* Waits up to 10 s each for @want cudagraph-stats messages on @bus,
 * reading the last into @sample (and its lost frames into @dropped and
 * @failed), then empties the bus (messages left there would grow the
 * process); warnings are printed, an error fails.  FALSE on an error or
 * a message that did not come. */
gboolean soak_wait_stats (GstBus *bus, guint want, Sample *sample,
    guint64 *dropped, guint64 *failed);

void soak_print_sample (const gchar *label, const Sample *s);

/* The figures of @samples after the warm-up that exceed the largest
 * warm-up value by more than the tolerance, each said. */
guint soak_count_growth (const Options *o, const gchar *label, GArray *samples);

/* Whether resident memory means anything here (not under ASan or
 * valgrind). */
gboolean soak_rss_is_meaningful (void);

/* --element=batch-model: cudagraphbatch with a model attached (where
 * @context is a device) and its streams coming and going; the problems
 * found (soak-batch.c). */
guint soak_batch_model (const Options *o, GcgContext *context);
