/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-addr-map-private.h"

#define INITIAL_CAPACITY 64

/* Addresses are multiples of 512: drop those bits, then spread the rest
 * with a Fibonacci multiply. */
static inline gsize
slot_of (const GcgAddrMap *map, guint64 addr)
{
  return (gsize) (((addr >> 9) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> 32)
      & map->mask;
}

static void
allocate (GcgAddrMap *map, gsize capacity)
{
  map->keys = g_new0 (guint64, capacity);
  map->values = g_new0 (gpointer, capacity);
  map->mask = capacity - 1;
}

void
gcg__addr_map_init (GcgAddrMap *map)
{
  allocate (map, INITIAL_CAPACITY);
  map->count = 0;
}

void
gcg__addr_map_clear (GcgAddrMap *map)
{
  g_clear_pointer (&map->keys, g_free);
  g_clear_pointer (&map->values, g_free);
  map->count = 0;
}

static void
put (GcgAddrMap *map, guint64 addr, gpointer value)
{
  gsize i = slot_of (map, addr);

  while (map->keys[i] != 0 && map->keys[i] != addr)
    i = (i + 1) & map->mask;
  if (map->keys[i] == 0)
    map->count++;
  map->keys[i] = addr;
  map->values[i] = value;
}

static void
grow (GcgAddrMap *map)
{
  guint64 *keys = map->keys;
  gpointer *values = map->values;
  gsize capacity = map->mask + 1;

  allocate (map, capacity * 2);
  map->count = 0;
  for (gsize i = 0; i < capacity; i++)
    if (keys[i] != 0)
      put (map, keys[i], values[i]);
  g_free (keys);
  g_free (values);
}

void
gcg__addr_map_insert (GcgAddrMap *map, guint64 addr, gpointer value)
{
  g_assert (addr != 0);
  if ((map->count + 1) * 2 > map->mask + 1)
    grow (map);
  put (map, addr, value);
}

static gsize
find (const GcgAddrMap *map, guint64 addr)
{
  gsize i = slot_of (map, addr);

  while (map->keys[i] != 0) {
    if (map->keys[i] == addr)
      return i;
    i = (i + 1) & map->mask;
  }
  return G_MAXSIZE;
}

gpointer
gcg__addr_map_lookup (const GcgAddrMap *map, guint64 addr)
{
  gsize i = addr ? find (map, addr) : G_MAXSIZE;

  return i == G_MAXSIZE ? NULL : map->values[i];
}

/* TRUE when the entry at @j, whose home slot is @home, may move back to
 * the hole at @hole without becoming unreachable from its home. */
static inline gboolean
may_fill (gsize hole, gsize j, gsize home)
{
  if (hole <= j)
    return home <= hole || home > j;
  return home <= hole && home > j;
}

/* Removes @addr and returns its value (NULL when absent).  Later entries
 * of the probe run move back into the hole, so lookups never need
 * tombstones. */
gpointer
gcg__addr_map_steal (GcgAddrMap *map, guint64 addr)
{
  gsize hole = addr ? find (map, addr) : G_MAXSIZE;
  gpointer value;

  if (hole == G_MAXSIZE)
    return NULL;
  value = map->values[hole];
  for (gsize j = (hole + 1) & map->mask; map->keys[j] != 0;
      j = (j + 1) & map->mask) {
    if (may_fill (hole, j, slot_of (map, map->keys[j]))) {
      map->keys[hole] = map->keys[j];
      map->values[hole] = map->values[j];
      hole = j;
    }
  }
  map->keys[hole] = 0;
  map->values[hole] = NULL;
  map->count--;
  return value;
}
