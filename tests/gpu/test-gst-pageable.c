/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pageable input from an upstream buffer pool that ignored ours (appsrc,
 * a decoder's own pool): each buffer's memory is registered with the
 * driver on first sight and read by DMA after that.  The tensors equal
 * the CPU backend's byte for byte while the same three buffers go round
 * with new pixels every frame; registrations are bounded by the pool's
 * buffers, made once each, and undone when the pool frees its memory; a
 * buffer from no pool is copied as before, never registered.  Skipped
 * (TAP skip) without a CUDA driver and device.
 */
#include <gcg.h>
#include <gst/video/video.h>
#include "gcg-gst-test-util.h"
#include "gcg-host-registration-private.h"
#include "common/gcg-test-gst-gpu.h"

#include <string.h>

#define IN_CAPS "video/x-raw,format=NV12,width=320,height=240"
#define OUT_CAPS "other/tensors"
#define LAUNCH(backend) \
  "cudagraphpreprocess backend=" backend \
  " width=64 height=48 letterbox=symmetric"
#define N_BUFFERS 3
#define N_FRAMES 12

static GstBufferPool *
new_pool (void)
{
  g_autoptr (GstCaps) caps = gst_caps_from_string (IN_CAPS);
  GstBufferPool *pool = gst_video_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstVideoInfo info = gcg_test_info (IN_CAPS);

  gst_buffer_pool_config_set_params (config, caps, info.size, N_BUFFERS,
      N_BUFFERS);
  g_assert_true (gst_buffer_pool_set_config (pool, config));
  g_assert_true (gst_buffer_pool_set_active (pool, TRUE));
  return pool;
}

/* Writes frame @t's pixels into @buf through a frame made by the tests'
 * own helper (the same pixels the CPU reference gets). */
static GstBuffer *
fill (GstBuffer *buf, guint t)
{
  g_autoptr (GstBuffer) src = gcg_test_frame_new (IN_CAPS, gcg_test_moving_px,
      GUINT_TO_POINTER (t), 60 + 11 * t);
  GstMapInfo from, to;

  g_assert_true (gst_buffer_map (src, &from, GST_MAP_READ));
  g_assert_true (gst_buffer_map (buf, &to, GST_MAP_WRITE));
  g_assert_cmpuint (to.size, ==, from.size);
  memcpy (to.data, from.data, from.size);
  gst_buffer_unmap (buf, &to);
  gst_buffer_unmap (src, &from);
  GST_BUFFER_PTS (buf) = t * (GST_SECOND / 30);
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  return buf;
}

static guint
registrations (void)
{
  guint count = 0;

  gcg__host_registration_get_totals (&count, NULL);
  return count;
}

static void
test_pooled_input (void)
{
  GstHarness *cuda, *cpu;
  GstBufferPool *pool;
  guint before;

  if (!gcg_test_have_gpu ())
    return;
  before = registrations ();
  pool = new_pool ();
  cuda = gcg_test_harness_new (LAUNCH ("cuda"), IN_CAPS, OUT_CAPS);
  cpu = gcg_test_harness_new (LAUNCH ("cpu"), IN_CAPS, OUT_CAPS);
  for (guint t = 0; t < N_FRAMES; t++) {
    GstBuffer *buf = NULL, *got, *want;

    g_assert_cmpint (gst_buffer_pool_acquire_buffer (pool, &buf, NULL), ==,
        GST_FLOW_OK);
    fill (buf, t);
    want = gcg_test_push_pull (cpu, gst_buffer_copy_deep (buf));
    got = gcg_test_push_pull (cuda, buf);
    gcg_test_assert_same_bytes (got, want);
    gst_buffer_unref (got);
    gst_buffer_unref (want);
    /* One registration per buffer of the pool, made on first sight. */
    g_assert_cmpuint (registrations () - before, ==, MIN (t + 1, N_BUFFERS));
  }
  gst_harness_teardown (cuda);
  gst_harness_teardown (cpu);
  g_assert_true (gst_buffer_pool_set_active (pool, FALSE));
  gst_object_unref (pool);
  /* The pool freed its memory: the registrations went with it. */
  g_assert_cmpuint (registrations (), ==, before);
}

static void
test_unpooled_input (void)
{
  GstHarness *cuda;
  guint before;

  if (!gcg_test_have_gpu ())
    return;
  before = registrations ();
  cuda = gcg_test_harness_new (LAUNCH ("cuda"), IN_CAPS, OUT_CAPS);
  for (guint t = 0; t < 3; t++) {
    GstBuffer *in = gcg_test_frame_new (IN_CAPS, gcg_test_moving_px,
        GUINT_TO_POINTER (t), 0);

    gst_buffer_unref (gcg_test_push_pull (cuda, in));
    g_assert_cmpuint (registrations (), ==, before);
  }
  gst_harness_teardown (cuda);
}

int
main (int argc, char **argv)
{
  gcg_test_add_bundle_plugins ();
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/pageable/pooled", test_pooled_input);
  g_test_add_func ("/gst/pageable/unpooled", test_unpooled_input);
  return g_test_run ();
}
