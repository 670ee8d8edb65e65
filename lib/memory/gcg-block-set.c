/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A treap: a binary search tree on the key that is also a heap on random
 * priorities, which keeps its expected depth logarithmic without any
 * rebalancing bookkeeping.
 */
#include "gcg-block-set-private.h"

/* a < b in (stream, size, addr) order */
static inline gboolean
key_less (gpointer a_stream, gsize a_size, guint64 a_addr, gpointer b_stream,
    gsize b_size, guint64 b_addr)
{
  if (a_stream != b_stream)
    return (guintptr) a_stream < (guintptr) b_stream;
  if (a_size != b_size)
    return a_size < b_size;
  return a_addr < b_addr;
}

static inline gboolean
block_less (const GcgBlock *a, const GcgBlock *b)
{
  return key_less (a->stream, a->size, a->addr, b->stream, b->size, b->addr);
}

void
gcg__block_set_init (GcgBlockSet *set)
{
  set->root = NULL;
  set->seed = 0x9e3779b9;
  set->size = 0;
}

static guint32
next_priority (GcgBlockSet *set)
{
  guint32 x = set->seed;

  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  set->seed = x;
  return x;
}

/* Cuts the treap @t into the keys below @key (into *@lo) and the keys
 * above it (into *@hi). */
static void
split (GcgBlock *t, const GcgBlock *key, GcgBlock **lo, GcgBlock **hi)
{
  while (t) {
    if (block_less (t, key)) {
      *lo = t;
      lo = &t->right;
      t = t->right;
    } else {
      *hi = t;
      hi = &t->left;
      t = t->left;
    }
  }
  *lo = *hi = NULL;
}

/* The block goes where its priority puts it on its key's path; what was
 * there is split around it. */
void
gcg__block_set_insert (GcgBlockSet *set, GcgBlock *block)
{
  GcgBlock **link = &set->root;

  block->priority = next_priority (set);
  while (*link && (*link)->priority > block->priority)
    link = block_less (block, *link) ? &(*link)->left : &(*link)->right;
  split (*link, block, &block->left, &block->right);
  *link = block;
  set->size++;
}

/* Joins two treaps, every key of @a below every key of @b. */
static GcgBlock *
merge (GcgBlock *a, GcgBlock *b)
{
  GcgBlock *root = NULL, **link = &root;

  while (a && b) {
    if (a->priority > b->priority) {
      *link = a;
      link = &a->right;
      a = a->right;
    } else {
      *link = b;
      link = &b->left;
      b = b->left;
    }
  }
  *link = a ? a : b;
  return root;
}

/* @block must be in @set, with the key it was inserted with. */
void
gcg__block_set_remove (GcgBlockSet *set, GcgBlock *block)
{
  GcgBlock **link = &set->root;

  while (*link != block) {
    g_assert (*link != NULL);
    link = block_less (block, *link) ? &(*link)->left : &(*link)->right;
  }
  *link = merge (block->left, block->right);
  block->left = block->right = NULL;
  set->size--;
}

/* The first block not below (stream, size, 0), or NULL. */
GcgBlock *
gcg__block_set_lower_bound (GcgBlockSet *set, gpointer stream, gsize size)
{
  GcgBlock *node = set->root, *best = NULL;

  while (node) {
    if (key_less (node->stream, node->size, node->addr, stream, size, 0)) {
      node = node->right;
    } else {
      best = node;
      node = node->left;
    }
  }
  return best;
}
