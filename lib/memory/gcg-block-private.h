/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A block of the caching allocator: a piece of a segment, linked to its
 * neighbours, and (while free) a node of its pool's GcgBlockSet.
 */
#pragma once

#include "gcg-memory-block.h"

G_BEGIN_DECLS

typedef struct _GcgBlock GcgBlock;

struct _GcgBlock
{
  /* Ordering key in a GcgBlockSet: (stream, size, addr), then the set's
   * links, together in the first cache line for the set's walks. */
  gpointer stream;              /* the segment's stream */
  gsize size;
  guint64 addr;
  GcgBlock *left, *right;       /* GcgBlockSet links, while FREE */
  guint32 priority;

  gsize requested;              /* bytes asked for, while allocated */
  gboolean small;               /* pool */
  GcgMemoryBlockState state;
  GcgBlock *prev, *next;        /* neighbours in the segment */
  GPtrArray *stream_uses;       /* other streams using it; NULL if none */
  guint event_count;            /* events to wait for while PENDING */
};

G_END_DECLS
