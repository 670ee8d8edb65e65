/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An ordered set of blocks by (stream, size, address): a treap whose nodes
 * are the blocks themselves, so that inserting and removing allocate
 * nothing, and the order is compared inline.  The allocation fast path
 * does a few of these operations per call, which is why GTree (a node
 * allocation each, an indirect compare per step) is not used.
 */
#pragma once

#include "gcg-block-private.h"

G_BEGIN_DECLS

typedef struct
{
  GcgBlock *root;
  guint32 seed;                 /* xorshift state for priorities */
  guint size;
} GcgBlockSet;

void gcg__block_set_init (GcgBlockSet *set);
void gcg__block_set_insert (GcgBlockSet *set, GcgBlock *block);
void gcg__block_set_remove (GcgBlockSet *set, GcgBlock *block);
GcgBlock *gcg__block_set_lower_bound (GcgBlockSet *set, gpointer stream,
    gsize size);

G_END_DECLS
