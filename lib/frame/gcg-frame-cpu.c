/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CPU reference of the frame chain: the loops around the per-pixel
 * functions of kernels/gcg-frame-math.h, the very code the CUDA kernels
 * run.  Built with -ffp-contract=off (see lib/meson.build) so gcc keeps
 * every multiply and add separate, as nvcc does with -fmad=false.
 *
 * Where there is no GPU this is the backend that runs, so a frame is cut
 * into bands of rows processed on every core.  Every output pixel depends
 * only on the input and the struct, so the result does not depend on the
 * split: bands change the speed, never a byte.
 */
#include "gcg-frame-private.h"
#include "kernels/gcg-frame-math.h"

/* Fewer rows than this per band cost more in hand-offs than they gain. */
#define MIN_ROWS_PER_BAND 16
#define MAX_BANDS 64

typedef struct
{
  GMutex lock;
  GCond done;
  guint pending;
} Latch;

typedef struct
{
  const GcgFrameChainConfig *config;
  const GcgFrameKernelParams *kp;
  gint32 row0, row1;            /* rows (block rows for 4:2:0 output) */
  Latch *latch;
} Band;

static void
run_rows (const GcgFrameChainConfig *config, const GcgFrameKernelParams *kp,
    gint32 row0, gint32 row1)
{
  gint32 w = kp->out_width;
  GcgFmShape s = gcg_fm_shape (kp);

  if (config->output == GCG_OUTPUT_KIND_TENSOR) {
    for (gint32 n = 0; n < kp->n_items; n++)
      for (gint32 y = row0; y < row1; y++)
        for (gint32 x = 0; x < w; x++)
          gcg_fm_tensor_pixel (kp, s, n, x, y);
  } else if (gcg__pixel_format_is_yuv420 (config->out_format)) {
    for (gint32 by = row0; by < row1; by++)
      for (gint32 bx = 0; bx < (w + 1) / 2; bx++)
        gcg_fm_yuv420_block (kp, s, bx, by);
  } else {
    for (gint32 y = row0; y < row1; y++)
      for (gint32 x = 0; x < w; x++)
        gcg_fm_video_pixel (kp, s, x, y);
  }
}

static void
run_band (gpointer data, gpointer user_data)
{
  Band *band = data;

  run_rows (band->config, band->kp, band->row0, band->row1);
  g_mutex_lock (&band->latch->lock);
  if (--band->latch->pending == 0)
    g_cond_signal (&band->latch->done);
  g_mutex_unlock (&band->latch->lock);
}

/* One pool for the process, as wide as the machine (its width in
 * @n_threads: g_get_num_processors() reads a sysfs file each call, too
 * dear once per frame); NULL when threads cannot be made (then
 * everything runs on the caller's thread). */
static GThreadPool *
get_pool (guint *n_threads)
{
  static GThreadPool *pool;
  static guint width = 1;
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    width = MIN (g_get_num_processors (), MAX_BANDS);
    if (width > 1)
      pool = g_thread_pool_new (run_band, NULL, (gint) width, FALSE, NULL);
    g_once_init_leave (&once, 1);
  }
  *n_threads = width;
  return pool;
}

/* Splits [0, rows) into bands, runs all but the first on the pool and the
 * first on this thread, then waits for the rest. */
static void
run_banded (const GcgFrameChainConfig *config, const GcgFrameKernelParams *kp,
    gint32 rows)
{
  guint width;
  GThreadPool *pool = get_pool (&width);
  Band bands[MAX_BANDS];
  Latch latch;
  guint n = pool ? MIN ((guint) (rows / MIN_ROWS_PER_BAND), width) : 1;

  n = CLAMP (n, 1, MAX_BANDS);
  if (n == 1) {
    run_rows (config, kp, 0, rows);
    return;
  }
  g_mutex_init (&latch.lock);
  g_cond_init (&latch.done);
  latch.pending = n - 1;
  for (guint i = 0; i < n; i++) {
    bands[i] = (Band) { config, kp, (gint32) ((gint64) rows * i / n),
      (gint32) ((gint64) rows * (i + 1) / n), &latch };
    if (i > 0)
      g_thread_pool_push (pool, &bands[i], NULL);
  }
  run_rows (config, kp, bands[0].row0, bands[0].row1);
  g_mutex_lock (&latch.lock);
  while (latch.pending > 0)
    g_cond_wait (&latch.done, &latch.lock);
  g_mutex_unlock (&latch.lock);
  g_mutex_clear (&latch.lock);
  g_cond_clear (&latch.done);
}

/**
 * gcg__frame_cpu_run:
 * @config: the chain's configuration
 * @kp: a prepared struct whose plane addresses are host pointers
 *
 * Writes the whole output, synchronously, on every core.
 */
void
gcg__frame_cpu_run (const GcgFrameChainConfig *config,
    const GcgFrameKernelParams *kp)
{
  gint32 h = kp->out_height;

  if (config->output != GCG_OUTPUT_KIND_TENSOR
      && gcg__pixel_format_is_yuv420 (config->out_format))
    h = (h + 1) / 2;
  run_banded (config, kp, h);
}
