/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Small kernels used by the gpu test suite and the benchmarks to check the
 * loader, capture and replay.  Built into a fatbin of their own, embedded
 * in libgcg-testing.a only (lib/testing/meson.build), and found through
 * gcg__context_get_function() like the library's own kernels.  Per-replay values are read through device
 * pointers (device scalars), never passed by value, so one captured graph
 * serves every replay.
 */
#include <stdint.h>

/* data[i] = data[i] * (*scale) + (*offset) */
extern "C" __global__ void
gcg_test_affine_f32 (float *data, uint32_t n, const float *scale,
    const float *offset)
{
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    data[i] = data[i] * *scale + *offset;
}

/* out[i] = i * step + *base, with the base from a device scalar. */
extern "C" __global__ void
gcg_test_iota_u32 (uint32_t *out, uint32_t n, uint32_t step,
    const uint32_t *base)
{
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    out[i] = i * step + *base;
}

/* Adds *value to every element: the smallest useful graph node. */
extern "C" __global__ void
gcg_test_add_u32 (uint32_t *data, uint32_t n, const uint32_t *value)
{
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    data[i] += *value;
}

/* Spins for about @cycles clock cycles: keeps a stream busy in tests that
 * check stream-ordered reuse. */
extern "C" __global__ void
gcg_test_spin (unsigned long long cycles, uint32_t *flag)
{
  long long start = clock64 ();

  while ((unsigned long long) (clock64 () - start) < cycles)
    ;
  if (flag && threadIdx.x == 0)
    *flag = 1;
}

/* gcg_test_affine_f32 with its values by value, in a parameter struct as
 * large as a frame kernel's (bench-param-delivery: what carrying them in
 * the launch costs). */
struct GcgTestAffineArgs
{
  float scale;
  float offset;
  uint8_t pad[3320];
};

extern "C" __global__ void
gcg_test_affine_f32_byval (float *data, uint32_t n,
    const __grid_constant__ GcgTestAffineArgs a)
{
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    data[i] = data[i] * a.scale + a.offset;
}

/* data[i] = data[i] * (*mul) + *add: not commutative with
 * gcg_test_add_u32, so a chain of both checks the order of the nodes. */
extern "C" __global__ void
gcg_test_mad_u32 (uint32_t *data, uint32_t n, const uint32_t *mul,
    const uint32_t *add)
{
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n)
    data[i] = data[i] * *mul + *add;
}

/* out[*index] = *value + 1, both read from a parameter block: every replay
 * leaves its own trace, so a stress test can check afterwards that each
 * frame saw its own values. */
extern "C" __global__ void
gcg_test_store_u32 (uint32_t *out, uint32_t n, const uint32_t *index,
    const uint32_t *value)
{
  if (blockIdx.x == 0 && threadIdx.x == 0 && *index < n)
    out[*index] = *value + 1;
}
