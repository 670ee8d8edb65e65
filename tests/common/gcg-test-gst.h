/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers shared by the element tests of both suites (unit and gpu): the
 * per-frame params meta, segment, flush and EOS through a GstHarness, the
 * visible bytes of an output, and the cudagraph-stats messages on a bus.
 */
#pragma once

#include <gst/gst.h>
#include <gst/check/gstharness.h>

typedef void (*GcgTestStatsFunc) (const GstStructure *stats,
    gpointer user_data);

void gcg_test_add_params_meta (GstBuffer *buf, gdouble brightness,
    gdouble contrast);

void gcg_test_flush (GstHarness *h);
GstStructure *gcg_test_finish_segment (GstHarness *h, GstBus *bus);

void gcg_test_append_visible (GByteArray *bytes, GstBuffer *buf, GstCaps *caps);
gchar *gcg_test_visible_sha1 (GstBuffer *buf, GstCaps *caps);

guint64 gcg_test_stats_u64 (const GstStructure *s, const gchar *field);
void gcg_test_bus_foreach_stats (GstBus *bus, const gchar *what,
    GcgTestStatsFunc func, gpointer user_data);
