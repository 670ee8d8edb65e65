/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The postprocess after a model (issue 35): its per-frame struct, read by
 * the kernels of gcg-postprocess-kernels.cu from the chain's parameter
 * block, and the arithmetic both those kernels and the CPU reference
 * (lib/frame/gcg-postprocess.c) run: the ranking of scores, a candidate's
 * best class, its box, the intersection over union of two boxes.  One
 * piece of code for both, compiled with contraction off on both sides
 * (-ffp-contract=off, -fmad=false), so detections agree bit for bit;
 * softmax's expf and its sum's order are the one difference (docs:
 * gcg_postprocess_run_cpu()).
 *
 * Plain C with fixed-width types: gcc and nvcc lay the structs out alike.
 */
#ifndef GCG_POSTPROCESS_MATH_H
#define GCG_POSTPROCESS_MATH_H

#include <stdint.h>

#ifdef __CUDACC__
#define GCG_PP_FN static __host__ __device__ __forceinline__
#define GCG_PP_NEG_INF (-INFINITY)
#define GCG_PP_ISNAN(f) isnan (f)
#else
#include <math.h>
#define GCG_PP_FN static inline
#define GCG_PP_NEG_INF (-INFINITY)
#define GCG_PP_ISNAN(f) isnan (f)
#endif

/* The bounds (gcg-result.h says the same numbers publicly). */
#define GCG_PP_MAX_ITEMS 64
#define GCG_PP_MAX_PER_ITEM 256
/* Threads of one block: one block per item. */
#define GCG_PP_BLOCK 256

#define GCG_PP_CLASSIFY 1
#define GCG_PP_DETECT 2
/* The user's kernel wrote the records (in its item's pixels) and
 * counts: gcg_pp_gather() clamps and maps them. */
#define GCG_PP_USER 3

/* One item's geometry: GcgFrameItemMap's fit (source = item × scale +
 * offset) and the item's source rectangle. */
typedef struct
{
  double scale_x;
  double scale_y;
  double offset_x;
  double offset_y;
  int32_t roi[4];
} GcgPpItem;

/* The stage's part of a frame's struct.  Only the first n_items of
 * items are filled. */
typedef struct
{
  uint64_t input;               /* the model's output tensor (static) */
  uint64_t scratch;             /* counts, records, candidates: see below */
  uint64_t results;             /* this frame's results area, 0: none */
  uint64_t frame_number;
  uint32_t kind;
  uint32_t n_items;
  uint32_t n_classes;
  uint32_t n_candidates;
  uint32_t per_item;            /* records per item: top_k or max_per_item */
  uint32_t softmax;
  float score_threshold;
  float iou_threshold;
  GcgPpItem items[GCG_PP_MAX_ITEMS];
} GcgPpParams;

/* The results area's header (GcgResultsHeader) and record (GcgResult),
 * as the device writes them. */
typedef struct
{
  float x, y, width, height, confidence;
  int32_t label;
  uint32_t item;
  uint32_t reserved;
} GcgPpResult;

typedef struct
{
  uint64_t frame_number;
  uint32_t n_results;
  uint32_t n_items;
  uint32_t item_counts[GCG_PP_MAX_ITEMS];
  uint32_t reserved[4];
} GcgPpHeader;

/* Scratch on the device, per stage: counts[GCG_PP_MAX_ITEMS], then
 * records[GCG_PP_MAX_ITEMS × per_item] (a user kernel's: zeroed counts,
 * then what it wrote), then (detection) each item's
 * candidates: key[n_candidates] (score, or -inf once dropped or
 * suppressed) and label[n_candidates]. */
#define GCG_PP_SCRATCH_RECORDS (GCG_PP_MAX_ITEMS * sizeof (uint32_t))
#define GCG_PP_SCRATCH_CANDIDATES(per_item) \
  (GCG_PP_SCRATCH_RECORDS \
      + (size_t) GCG_PP_MAX_ITEMS * (per_item) * sizeof (GcgPpResult))
#define GCG_PP_SCRATCH_SIZE(per_item, n_cand) \
  (GCG_PP_SCRATCH_CANDIDATES (per_item) \
      + (size_t) GCG_PP_MAX_ITEMS * (n_cand) * 8)

/* A score as it ranks: NaN ranks as -inf (below every number), so it is
 * never kept by a threshold and comes last in a top-k. */
GCG_PP_FN float
gcg_pp_key (float s)
{
  return GCG_PP_ISNAN (s) ? GCG_PP_NEG_INF : s;
}

/* Whether (ka, ia) ranks before (kb, ib): higher key first, ties by the
 * lower index. */
GCG_PP_FN int
gcg_pp_before (float ka, uint32_t ia, float kb, uint32_t ib)
{
  return ka > kb || (ka == kb && ia < ib);
}

/* The best class of candidate @a of an item's (4 + C) × A block: the
 * highest score, ties by the lower class, NaN never; -inf and class 0
 * when every score is NaN. */
GCG_PP_FN float
gcg_pp_best_class (const float *in, uint32_t n_classes, uint32_t n_cand,
    uint32_t a, int32_t *label)
{
  float best = GCG_PP_NEG_INF;

  *label = 0;
  for (uint32_t c = 0; c < n_classes; c++) {
    float s = in[(size_t) (4 + c) * n_cand + a];

    if (s > best) {
      best = s;
      *label = (int32_t) c;
    }
  }
  return best;
}

/* Candidate @a's box, corners in the item's pixels: x1 y1 x2 y2 from the
 * centre and size rows. */
GCG_PP_FN void
gcg_pp_box (const float *in, uint32_t n_cand, uint32_t a, float box[4])
{
  float cx = in[a];
  float cy = in[(size_t) n_cand + a];
  float hw = in[(size_t) 2 * n_cand + a] * 0.5f;
  float hh = in[(size_t) 3 * n_cand + a] * 0.5f;

  box[0] = cx - hw;
  box[1] = cy - hh;
  box[2] = cx + hw;
  box[3] = cy + hh;
}

/* Intersection over union as torchvision's nms computes it: 0/0 (two
 * empty boxes) is NaN, which suppresses nothing. */
GCG_PP_FN float
gcg_pp_iou (const float a[4], const float b[4])
{
  float w = fmaxf (fminf (a[2], b[2]) - fmaxf (a[0], b[0]), 0.0f);
  float h = fmaxf (fminf (a[3], b[3]) - fmaxf (a[1], b[1]), 0.0f);
  float inter = w * h;
  float sa = (a[2] - a[0]) * (a[3] - a[1]);
  float sb = (b[2] - b[0]) * (b[3] - b[1]);

  return inter / (sa + sb - inter);
}

#endif
