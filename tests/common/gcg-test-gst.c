/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-test-gst.h"

#include <gst/video/video.h>

/* A "GcgParamsMeta" (the custom meta the plugin registers) on @buf with
 * these per-frame values. */
void
gcg_test_add_params_meta (GstBuffer *buf, gdouble brightness, gdouble contrast)
{
  GstCustomMeta *meta = gst_buffer_add_custom_meta (buf, "GcgParamsMeta");

  g_assert_nonnull (meta);
  gst_structure_set (gst_custom_meta_get_structure (meta), "brightness",
      G_TYPE_DOUBLE, brightness, "contrast", G_TYPE_DOUBLE, contrast, NULL);
}

static void
push_segment (GstHarness *h)
{
  GstSegment segment;

  gst_segment_init (&segment, GST_FORMAT_TIME);
  g_assert_true (gst_harness_push_event (h, gst_event_new_segment (&segment)));
}

/* A flush, then a new segment. */
void
gcg_test_flush (GstHarness *h)
{
  g_assert_true (gst_harness_push_event (h, gst_event_new_flush_start ()));
  g_assert_true (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  push_segment (h);
}

typedef void (*BytesFunc) (const guint8 *data, gsize size, gpointer user_data);

/* Hands @func the visible bytes of a video frame row by row (row padding
 * is never written, and strides differ between pools), or the whole
 * buffer when @caps are not video (tensors). */
static void
foreach_visible (GstBuffer *buf, GstCaps *caps, BytesFunc func,
    gpointer user_data)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  GstMapInfo map;

  if (!gst_video_info_from_caps (&info, caps)) {
    g_assert_true (gst_buffer_map (buf, &map, GST_MAP_READ));
    func (map.data, map.size, user_data);
    gst_buffer_unmap (buf, &map);
    return;
  }
  g_assert_true (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ));
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    gsize row = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (&frame, p)
        * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, p);

    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&frame, p); y++)
      func ((const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, p)
              + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p),
          row, user_data);
  }
  gst_video_frame_unmap (&frame);
}

static void
append_bytes (const guint8 *data, gsize size, gpointer user_data)
{
  g_byte_array_append (user_data, data, (guint) size);
}

static void
update_checksum (const guint8 *data, gsize size, gpointer user_data)
{
  g_checksum_update (user_data, data, (gssize) size);
}

/* Appends the visible bytes of @buf, a frame or tensor of @caps. */
void
gcg_test_append_visible (GByteArray *bytes, GstBuffer *buf, GstCaps *caps)
{
  foreach_visible (buf, caps, append_bytes, bytes);
}

/* The SHA-1 of the visible bytes of @buf (a map waits for the frame). */
gchar *
gcg_test_visible_sha1 (GstBuffer *buf, GstCaps *caps)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA1);

  foreach_visible (buf, caps, update_checksum, sum);
  return g_strdup (g_checksum_get_string (sum));
}

/* A counter of a cudagraph-stats structure, which must have it. */
guint64
gcg_test_stats_u64 (const GstStructure *s, const gchar *field)
{
  guint64 v = G_MAXUINT64;

  if (!gst_structure_get_uint64 (s, field, &v)) {
    g_autofree gchar *str = gst_structure_to_string (s);

    g_error ("no %s in %s", field, str);
  }
  return v;
}

/* Pops every error and element message from @bus: an error fails the test
 * ("@what: message"), each cudagraph-stats structure goes to @func. */
void
gcg_test_bus_foreach_stats (GstBus *bus, const gchar *what,
    GcgTestStatsFunc func, gpointer user_data)
{
  GstMessage *msg;

  while ((msg = gst_bus_pop_filtered (bus,
              GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (msg);

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      g_autoptr (GError) err = NULL;

      gst_message_parse_error (msg, &err, NULL);
      g_error ("%s: %s", what, err->message);
    }
    if (gst_structure_has_name (s, "cudagraph-stats"))
      func (s, user_data);
    gst_message_unref (msg);
  }
}

static void
keep_only (const GstStructure *s, gpointer user_data)
{
  GstStructure **stats = user_data;

  g_assert_null (*stats);
  *stats = gst_structure_copy (s);
}

/* Ends a segment: no output is left to pull, EOS reaches the harness after
 * every frame, and the one cudagraph-stats message posted on @bus for it
 * is returned (and logged); an error message fails the test. */
GstStructure *
gcg_test_finish_segment (GstHarness *h, GstBus *bus)
{
  GstStructure *stats = NULL;
  g_autofree gchar *str = NULL;
  GstEvent *event;
  gboolean eos = FALSE;

  g_assert_null (gst_harness_try_pull (h));
  g_assert_true (gst_harness_push_event (h, gst_event_new_eos ()));
  while (!eos && (event = gst_harness_try_pull_event (h))) {
    eos = GST_EVENT_TYPE (event) == GST_EVENT_EOS;
    gst_event_unref (event);
  }
  g_assert_true (eos);
  gcg_test_bus_foreach_stats (bus, "error", keep_only, &stats);
  g_assert_nonnull (stats);
  str = gst_structure_to_string (stats);
  g_test_message ("%s", str);
  return stats;
}
