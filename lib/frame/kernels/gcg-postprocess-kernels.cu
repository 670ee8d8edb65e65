/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The postprocess after a model (gcg-postprocess-stage.c): one block of
 * GCG_PP_BLOCK threads per item writes the item's results into the
 * stage's device scratch (gcg_pp_classify, gcg_pp_detect), then one block
 * packs every item's into the frame's results area (gcg_pp_gather), host
 * memory the device writes through its mapping.  Blocks past the frame's
 * item count return at once: the graph is captured for the most items.
 *
 * Simple and exact first: every choice is a block-wide argmax over the
 * candidates still in the running, ranked by (score descending, index
 * ascending), so the order never depends on thread timing.  Top-k takes
 * k such passes over the classes; detection's greedy non-maximum
 * suppression takes one pass per box kept (at most max_per_item), each
 * pass suppressing the candidates of the box just kept and finding the
 * next: the boxes torchvision's batched_nms keeps, in its order, without
 * sorting every candidate first.
 */
#include "gcg-postprocess-math.h"

#define GCG_PP_NONE 0xffffffffu

/* The block's best (key, index) by gcg_pp_before(); every thread gets it.
 * Ties between threads go to the lower index, so the result is the same
 * whatever the reduction's shape. */
static __device__ void
pp_block_best (float *sk, uint32_t *si, float k, uint32_t i, float *ok,
    uint32_t *oi)
{
  const unsigned t = threadIdx.x;

  sk[t] = k;
  si[t] = i;
  __syncthreads ();
  for (unsigned s = GCG_PP_BLOCK / 2; s > 0; s >>= 1) {
    if (t < s && gcg_pp_before (sk[t + s], si[t + s], sk[t], si[t])) {
      sk[t] = sk[t + s];
      si[t] = si[t + s];
    }
    __syncthreads ();
  }
  *ok = sk[0];
  *oi = si[0];
  __syncthreads ();
}

/* The block's sum of each thread's @v, in a fixed tree order (the CPU
 * reference adds in the same order: gcg-postprocess.c). */
static __device__ float
pp_block_sum (float *sk, float v)
{
  const unsigned t = threadIdx.x;
  float r;

  sk[t] = v;
  __syncthreads ();
  for (unsigned s = GCG_PP_BLOCK / 2; s > 0; s >>= 1) {
    if (t < s)
      sk[t] = sk[t] + sk[t + s];
    __syncthreads ();
  }
  r = sk[0];
  __syncthreads ();
  return r;
}

static __device__ GcgPpResult *
pp_records (const GcgPpParams *p, uint32_t item)
{
  return (GcgPpResult *) (p->scratch + GCG_PP_SCRATCH_RECORDS)
      + (size_t) item * p->per_item;
}

/* Top-k classes of one item, best first; with softmax the confidence is
 * exp(s − max) / Σ exp(s − max). */
extern "C" __global__ void __launch_bounds__ (GCG_PP_BLOCK)
gcg_pp_classify (const GcgPpParams *__restrict__ p)
{
  __shared__ float sk[GCG_PP_BLOCK];
  __shared__ uint32_t si[GCG_PP_BLOCK];
  const uint32_t item = blockIdx.x;
  const unsigned t = threadIdx.x;
  const float *in;
  uint32_t n_classes, pi = 0;
  float m = 0.0f, sum = 1.0f, pk = 0.0f;

  if (item >= p->n_items)
    return;
  n_classes = p->n_classes;
  in = (const float *) p->input + (size_t) item * n_classes;
  if (p->softmax) {
    float lm = GCG_PP_NEG_INF, ls = 0.0f;
    uint32_t unused;

    for (uint32_t c = t; c < n_classes; c += GCG_PP_BLOCK)
      lm = fmaxf (lm, gcg_pp_key (in[c]));
    pp_block_best (sk, si, lm, 0, &m, &unused);
    for (uint32_t c = t; c < n_classes; c += GCG_PP_BLOCK)
      ls = ls + expf (in[c] - m);
    sum = pp_block_sum (sk, ls);
  }
  for (uint32_t r = 0; r < p->per_item; r++) {
    float bk = GCG_PP_NEG_INF;
    uint32_t bi = GCG_PP_NONE;

    for (uint32_t c = t; c < n_classes; c += GCG_PP_BLOCK) {
      float k = gcg_pp_key (in[c]);

      if ((r == 0 || gcg_pp_before (pk, pi, k, c))
          && gcg_pp_before (k, c, bk, bi)) {
        bk = k;
        bi = c;
      }
    }
    pp_block_best (sk, si, bk, bi, &pk, &pi);
    if (t == 0) {
      const GcgPpItem *it = &p->items[item];
      GcgPpResult *rec = &pp_records (p, item)[r];

      rec->x = (float) it->roi[0];
      rec->y = (float) it->roi[1];
      rec->width = (float) it->roi[2];
      rec->height = (float) it->roi[3];
      rec->confidence = p->softmax ? expf (in[pi] - m) / sum : in[pi];
      rec->label = (int32_t) pi;
      rec->item = item;
      rec->reserved = 0;
    }
  }
  if (t == 0)
    ((uint32_t *) p->scratch)[item] = p->per_item;
}

/* A record of @item: the box of corners @box (the item's pixels) mapped
 * to the source frame through the item's fit (GcgFrameItemMap: x = u ×
 * scale + offset, in double), the rest as given. */
static __device__ void
pp_write_record (const GcgPpParams *p, uint32_t item, const float box[4],
    float score, int32_t label, GcgPpResult *rec)
{
  const GcgPpItem *it = &p->items[item];
  double x1 = (double) box[0] * it->scale_x + it->offset_x;
  double y1 = (double) box[1] * it->scale_y + it->offset_y;
  double x2 = (double) box[2] * it->scale_x + it->offset_x;
  double y2 = (double) box[3] * it->scale_y + it->offset_y;

  rec->x = (float) x1;
  rec->y = (float) y1;
  rec->width = (float) (x2 - x1);
  rec->height = (float) (y2 - y1);
  rec->confidence = score;
  rec->label = label;
  rec->item = item;
  rec->reserved = 0;
}

/* The record of a kept box. */
static __device__ void
pp_write_detection (const GcgPpParams *p, uint32_t item, uint32_t n,
    const float box[4], float score, int32_t label)
{
  pp_write_record (p, item, box, score, label, &pp_records (p, item)[n]);
}

/* A user kernel's record as it goes out: its box (left, top, width,
 * height in the item's pixels) mapped as a detection's, its item and
 * reserved field set whatever it wrote, a NaN confidence 0 (nothing
 * downstream ranks or draws NaN); its label as written (the adapter names
 * one past the labels by its number). */
static __device__ GcgPpResult
pp_user_record (const GcgPpParams *p, uint32_t item, GcgPpResult in)
{
  const float box[4] = { in.x, in.y, in.x + in.width, in.y + in.height };
  GcgPpResult out;

  pp_write_record (p, item, box,
      GCG_PP_ISNAN (in.confidence) ? 0.0f : in.confidence, in.label, &out);
  return out;
}

/* Score threshold, class-aware greedy NMS and the maximum, per item. */
extern "C" __global__ void __launch_bounds__ (GCG_PP_BLOCK)
gcg_pp_detect (const GcgPpParams *__restrict__ p)
{
  __shared__ float sk[GCG_PP_BLOCK];
  __shared__ uint32_t si[GCG_PP_BLOCK];
  __shared__ float kept_box[4];
  __shared__ int32_t kept_label;
  const uint32_t item = blockIdx.x;
  const unsigned t = threadIdx.x;
  uint32_t n_cand, n_classes, n = 0;
  const float *in;
  float *key;
  int32_t *label;
  float bk = GCG_PP_NEG_INF;
  uint32_t bi = GCG_PP_NONE;

  if (item >= p->n_items)
    return;
  n_cand = p->n_candidates;
  n_classes = p->n_classes;
  in = (const float *) p->input + (size_t) item * (4 + n_classes) * n_cand;
  key = (float *) (p->scratch + GCG_PP_SCRATCH_CANDIDATES (p->per_item))
      + (size_t) item * n_cand * 2;
  label = (int32_t *) (key + n_cand);
  /* Each candidate's best class; below the threshold (or NaN) it is out. */
  for (uint32_t a = t; a < n_cand; a += GCG_PP_BLOCK) {
    int32_t l;
    float s = gcg_pp_best_class (in, n_classes, n_cand, a, &l);
    float k = s >= p->score_threshold ? s : GCG_PP_NEG_INF;

    key[a] = k;
    label[a] = l;
    if (k != GCG_PP_NEG_INF && gcg_pp_before (k, a, bk, bi)) {
      bk = k;
      bi = a;
    }
  }
  while (n < p->per_item) {
    float pk;
    uint32_t pi;

    pp_block_best (sk, si, bk, bi, &pk, &pi);
    if (pi == GCG_PP_NONE)
      break;
    if (t == 0) {
      gcg_pp_box (in, n_cand, pi, kept_box);
      kept_label = label[pi];
      key[pi] = GCG_PP_NEG_INF;
      pp_write_detection (p, item, n, kept_box, pk, label[pi]);
    }
    __syncthreads ();
    n++;
    /* Out with the kept box's overlapping boxes of its class; the best of
     * those left is the next. */
    bk = GCG_PP_NEG_INF;
    bi = GCG_PP_NONE;
    for (uint32_t a = t; a < n_cand; a += GCG_PP_BLOCK) {
      float k = key[a];

      if (k == GCG_PP_NEG_INF)
        continue;
      if (label[a] == kept_label) {
        float box[4];

        gcg_pp_box (in, n_cand, a, box);
        if (gcg_pp_iou (kept_box, box) > p->iou_threshold) {
          key[a] = GCG_PP_NEG_INF;
          continue;
        }
      }
      if (gcg_pp_before (k, a, bk, bi)) {
        bk = k;
        bi = a;
      }
    }
  }
  if (t == 0)
    ((uint32_t *) p->scratch)[item] = n;
}

/* Packs the items' records into the results area: the header, then
 * every item's records, item 0's first.  One block.  Each item's count
 * is clamped to per_item: a user kernel's are untrusted (and its records
 * go through pp_user_record()). */
extern "C" __global__ void __launch_bounds__ (GCG_PP_BLOCK)
gcg_pp_gather (const GcgPpParams *__restrict__ p)
{
  __shared__ uint32_t first[GCG_PP_MAX_ITEMS + 1];
  const unsigned t = threadIdx.x;
  const uint32_t *counts = (const uint32_t *) p->scratch;
  const GcgPpResult *recs = pp_records (p, 0);
  GcgPpHeader *h = (GcgPpHeader *) p->results;
  GcgPpResult *out = (GcgPpResult *) (h + 1);
  const uint32_t n_items = p->n_items, per_item = p->per_item;

  if (h == NULL)
    return;
  if (t == 0) {
    first[0] = 0;
    for (uint32_t i = 0; i < n_items; i++)
      first[i + 1] = first[i] + min (counts[i], per_item);
    h->frame_number = p->frame_number;
    h->n_results = first[n_items];
    h->n_items = n_items;
  }
  __syncthreads ();
  if (t < GCG_PP_MAX_ITEMS)
    h->item_counts[t] = t < n_items ? first[t + 1] - first[t] : 0;
  if (t < 4)
    h->reserved[t] = 0;
  for (uint32_t j = t; j < n_items * per_item; j += GCG_PP_BLOCK) {
    uint32_t i = j / per_item, r = j % per_item;

    if (r >= first[i + 1] - first[i])
      continue;
    out[first[i] + r] =
        p->kind == GCG_PP_USER ? pp_user_record (p, i, recs[j]) : recs[j];
  }
}
