/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A program as a user writes it against an installed libgcg-1.0
 * (`pkg-config --cflags --libs gcg-1.0`) or against this project as a
 * meson subproject: only <gcg/gcg.h>, only public API.  It runs one
 * frame through a GcgFrameChain on the CPU backend, checks every output
 * value and prints the file the library was loaded from, so the caller can
 * tell the installed copy from the build tree's.
 *
 * Exit status: 0 when the output is right, 1 otherwise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* dladdr () */
#endif
#include <dlfcn.h>
#include <stdio.h>

#include <gcg/gcg.h>

#define W 4
#define H 2

/* An RGBA frame whose every byte differs: R = 10 + i, G = 100 + i,
 * B = 200 - i, A = 255 for pixel i. */
static void
fill_frame (guint8 *rgba)
{
  for (guint i = 0; i < W * H; i++) {
    rgba[4 * i + 0] = 10 + i;
    rgba[4 * i + 1] = 100 + i;
    rgba[4 * i + 2] = 200 - i;
    rgba[4 * i + 3] = 255;
  }
}

/* Same size, no letterbox, scale 1 and offset 0: the NCHW float tensor
 * holds the frame's R, G and B planes exactly. */
static gboolean
check_tensor (const guint8 *rgba, const gfloat *tensor)
{
  for (guint c = 0; c < 3; c++) {
    for (guint i = 0; i < W * H; i++) {
      gfloat want = rgba[4 * i + c];
      gfloat got = tensor[c * W * H + i];

      if (got != want) {
        fprintf (stderr, "channel %u pixel %u: %g, expected %g\n", c, i, got,
            want);
        return FALSE;
      }
    }
  }
  return TRUE;
}

static GcgFrameChain *
new_chain (GError **error)
{
  GcgFrameChainConfig config;

  gcg_frame_chain_config_init (&config);
  config.in_format = GCG_PIXEL_FORMAT_RGBA;
  config.in_width = config.out_width = W;
  config.in_height = config.out_height = H;
  config.output = GCG_OUTPUT_KIND_TENSOR;
  config.letterbox = GCG_LETTERBOX_NONE;
  return gcg_frame_chain_new (&config, GCG_BACKEND_CPU, NULL, error);
}

int
main (void)
{
  guint8 rgba[W * H * 4];
  gfloat tensor[3 * W * H] = { 0 };
  GcgFrameParams params;
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameChain) chain = new_chain (&error);
  Dl_info info;

  if (chain == NULL) {
    fprintf (stderr, "gcg_frame_chain_new: %s\n", error->message);
    return 1;
  }
  fill_frame (rgba);
  gcg_frame_params_init (&params);
  params.src[0] = (guint64) (guintptr) rgba;
  params.src_stride[0] = W * 4;
  params.dst[0] = (guint64) (guintptr) tensor;
  if (!gcg_frame_chain_process (chain, &params, NULL, &error)) {
    fprintf (stderr, "gcg_frame_chain_process: %s\n", error->message);
    return 1;
  }
  if (!check_tensor (rgba, tensor))
    return 1;
  if (dladdr ((void *) gcg_frame_chain_new, &info) == 0)
    return 1;
  printf ("libgcg %d.%d.%d from %s: CPU backend, %" G_GUINT64_FORMAT
          " eager frame, output as expected\n",
      GCG_MAJOR_VERSION, GCG_MINOR_VERSION, GCG_MICRO_VERSION, info.dli_fname,
      gcg_frame_chain_get_eager_count (chain));
  return 0;
}
