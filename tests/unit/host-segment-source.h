/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A segment source for unit tests: segments are address ranges in an
 * imaginary address space (nothing is allocated, nothing may be touched),
 * never adjacent to each other, with a capacity and failures on demand.
 * Events complete only when the test says so.
 */
#pragma once

#include "gcg-block-allocator-private.h"

G_BEGIN_DECLS

typedef struct
{
  guint64 capacity;             /* bytes it may hold at once */
  guint64 reserved;
  guint fail_next;              /* that many alloc calls fail with OOM */
  gboolean fail_hard;           /* the next alloc call fails otherwise */
  guint fail_events;            /* that many event create/record calls fail */
  gboolean fail_stream_sync;    /* stream synchronize fails */
  guint stream_syncs;
  guint alloc_calls;
  guint64 free_memory;          /* reported in OOM messages */

  guint64 next_addr;
  GHashTable *segments;         /* addr -> size, both as guint64 keys */
  GPtrArray *events;            /* every HostEvent alive */
  guint events_created;
} HostSource;

typedef struct
{
  gpointer stream;
  gboolean recorded;
  gboolean complete;
} HostEvent;

extern const GcgSegmentSource host_segment_source;

HostSource *host_source_new (guint64 capacity);
void host_source_free (HostSource *src);
void host_source_complete_stream (HostSource *src, gpointer stream);
guint host_source_pending_events (HostSource *src);
void host_source_check (HostSource *src, GPtrArray *snapshot,
    const GcgAllocatorStats *stats);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HostSource, host_source_free)

G_END_DECLS
