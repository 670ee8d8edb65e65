/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A hash map from device addresses (never 0) to pointers: open
 * addressing with linear probing and backward-shift deletion, kept at
 * most half full.  The allocator's free() looks its block up here.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  guint64 *keys;                /* 0 marks an empty slot */
  gpointer *values;
  gsize mask;                   /* capacity - 1, capacity a power of two */
  gsize count;
} GcgAddrMap;

void gcg__addr_map_init (GcgAddrMap *map);
void gcg__addr_map_clear (GcgAddrMap *map);
void gcg__addr_map_insert (GcgAddrMap *map, guint64 addr, gpointer value);
gpointer gcg__addr_map_lookup (const GcgAddrMap *map, guint64 addr);
gpointer gcg__addr_map_steal (GcgAddrMap *map, guint64 addr);

G_END_DECLS
