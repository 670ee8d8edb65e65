/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gcg_copy_list: the copies of a GcgCopyList (gcg-copy-list.h), one entry
 * per grid row, grid-stride over each entry's bytes.  16-byte moves when
 * both ends are 16-byte aligned (PyTorch's tensors are), the tail and
 * unaligned entries byte by byte.
 */
#include "gcg-copy-list.h"

extern "C" __global__ void __launch_bounds__ (GCG_COPY_LIST_BLOCK)
gcg_copy_list (const GcgCopyList *__restrict__ l)
{
  const uint64_t first = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
  const uint64_t step = (uint64_t) gridDim.x * blockDim.x;
  GcgCopyEntry e;
  uint64_t body = 0;

  if (blockIdx.y >= l->n)
    return;
  e = l->e[blockIdx.y];
  if (((e.src | e.dst) & 15) == 0) {
    const uint4 zero = make_uint4 (0, 0, 0, 0);
    uint4 *d = (uint4 *) e.dst;
    const uint4 *s = (const uint4 *) e.src;

    body = e.bytes / 16;
    for (uint64_t i = first; i < body; i += step)
      d[i] = e.src ? s[i] : zero;
    body *= 16;
  }
  for (uint64_t i = body + first; i < e.bytes; i += step)
    ((uint8_t *) e.dst)[i] = e.src ? ((const uint8_t *) e.src)[i] : 0;
}
