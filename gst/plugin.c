/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:plugin-cudagraph
 *
 * Video conversion and inference preprocessing as CUDA graphs captured
 * once per caps and replayed per frame.  The CUDA driver is loaded at run
 * time, never linked: the plugin registers on machines without a GPU or
 * driver, and its elements either fall back to the CPU reference backend
 * (`backend=auto`, with a warning on the bus) or fail at start with the
 * reason (`backend=cuda`).
 *
 * Since: 0.1
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudagraphelements.h"

static gboolean
plugin_init (GstPlugin *plugin)
{
  gboolean ret = FALSE;

  /* Registration touches no driver: nothing here can fail for want of a
   * GPU. */
  ret |= GST_ELEMENT_REGISTER (cudagraphconvert, plugin);
  ret |= GST_ELEMENT_REGISTER (cudagraphpreprocess, plugin);
  ret |= GST_ELEMENT_REGISTER (cudagraphbatch, plugin);
  ret |= GST_ELEMENT_REGISTER (cudagraphkernel, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudagraph,
    "Per-frame CUDA kernel chains captured once and replayed as CUDA graphs",
    plugin_init, PACKAGE_VERSION, "LGPL", PACKAGE_NAME, PACKAGE_ORIGIN)
