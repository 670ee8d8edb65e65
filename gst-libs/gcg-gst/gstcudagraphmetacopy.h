/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* Whether a meta transform of @type from @buffer is a copy of all of it:
 * the tensor and batch metas describe the whole buffer (its size, its
 * items' places), so a copy of a region (gst_buffer_copy_region() of part
 * of the buffer) must not carry them, or a reader would trust a size the
 * copy does not have. */
static inline gboolean
gst_cuda_graph_meta_copies_whole (GstBuffer *buffer, GQuark type, gpointer data)
{
  GstMetaTransformCopy *copy = data;

  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  return copy == NULL || !copy->region
      || (copy->offset == 0
          && (copy->size == (gsize) -1
              || copy->size == gst_buffer_get_size (buffer)));
}

G_END_DECLS
