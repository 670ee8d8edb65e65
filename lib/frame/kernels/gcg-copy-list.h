/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A list of device copies (or zero fills) done by one kernel launch, read
 * from a parameter block like every per-frame struct: the model stage
 * (gcg-model-stage.c) copies a model's outputs into a frame's output
 * buffer with it, whose address changes every frame, which a memcpy node
 * of a captured graph could not follow.
 *
 * Plain C with fixed-width types: gcc and nvcc lay it out alike.
 */
#ifndef GCG_COPY_LIST_H
#define GCG_COPY_LIST_H

#include <stdint.h>

/* The most entries one list holds (a model's 16 outputs and its input). */
#define GCG_COPY_LIST_MAX 17

/* @src 0 fills @bytes zeros at @dst. */
typedef struct
{
  uint64_t src;
  uint64_t dst;
  uint64_t bytes;
} GcgCopyEntry;

/* Only the first @n entries are read, so a list is allocated with room
 * for the entries it uses: GCG_COPY_LIST_SIZE (n) bytes. */
typedef struct
{
  uint32_t n;
  uint32_t reserved;
  GcgCopyEntry e[GCG_COPY_LIST_MAX];
} GcgCopyList;

#define GCG_COPY_LIST_SIZE(n) (8 + 24 * (size_t) (n))

/* Threads per block of gcg_copy_list; grid.y is the entry. */
#define GCG_COPY_LIST_BLOCK 256

#endif
