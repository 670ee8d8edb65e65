/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A user kernel's parameter declaration ("gain=f32:1.5,src=src0,
 * mask=meta:mask_level"), parsed once into the layout of the one struct
 * the kernel's entry point reads, and filled per frame (a stage's
 * prepare()).  The grammar, one item per comma:
 *
 *   NAME=TYPE:LITERAL             a constant (TYPE: i32 u32 f32 f64 u64)
 *   NAME=meta:KEY[:TYPE[:DEFAULT]] a per-frame named value (f32 and 0 by
 *                                 default), kept at DEFAULT on frames
 *                                 without it
 *   NAME=FIELD                    a frame field: src0..2 dst0..2 (device
 *                                 pointers, u64), src_pitch0..2
 *                                 dst_pitch0..2 in_width in_height
 *                                 out_width out_height (i32), frame pts
 *                                 (u64), items (i32: the tensor items
 *                                 written this frame or batch, 1 for
 *                                 video)
 *   NAME=FIELD                    a postprocess kernel's field (only
 *                                 there; src* and dst* are refused in
 *                                 it): output output_bytes records
 *                                 counts (u64), max_results classes
 *                                 (i32), score_threshold iou_threshold
 *                                 (f32): GcgKernelPpValues
 *
 * Layout: declaration order, natural alignment (4 or 8 bytes): the
 * offsets a C compiler gives the generated typedef
 * (gcg__kernel_decl_to_c()).  The size is rounded up to 8 bytes (at least
 * 8), so it may exceed the C struct's by 4 bytes the kernel never reads.
 */
#pragma once

#include "gcg-frame-stage-private.h"

G_BEGIN_DECLS

/* Bounds on untrusted declarations: a property string may be anything. */
#define GCG_KERNEL_DECL_MAX_PARAMS 64
#define GCG_KERNEL_DECL_MAX_NAME 63

typedef enum
{
  GCG_KERNEL_PARAM_I32,
  GCG_KERNEL_PARAM_U32,
  GCG_KERNEL_PARAM_F32,
  GCG_KERNEL_PARAM_F64,
  GCG_KERNEL_PARAM_U64,
} GcgKernelParamType;

typedef enum
{
  GCG_KERNEL_SOURCE_CONST,
  GCG_KERNEL_SOURCE_META,
  GCG_KERNEL_SOURCE_FIELD,
} GcgKernelParamSource;

typedef enum
{
  GCG_KERNEL_FIELD_SRC0,
  GCG_KERNEL_FIELD_SRC1,
  GCG_KERNEL_FIELD_SRC2,
  GCG_KERNEL_FIELD_DST0,
  GCG_KERNEL_FIELD_DST1,
  GCG_KERNEL_FIELD_DST2,
  GCG_KERNEL_FIELD_SRC_PITCH0,
  GCG_KERNEL_FIELD_SRC_PITCH1,
  GCG_KERNEL_FIELD_SRC_PITCH2,
  GCG_KERNEL_FIELD_DST_PITCH0,
  GCG_KERNEL_FIELD_DST_PITCH1,
  GCG_KERNEL_FIELD_DST_PITCH2,
  GCG_KERNEL_FIELD_IN_WIDTH,
  GCG_KERNEL_FIELD_IN_HEIGHT,
  GCG_KERNEL_FIELD_OUT_WIDTH,
  GCG_KERNEL_FIELD_OUT_HEIGHT,
  GCG_KERNEL_FIELD_FRAME,
  GCG_KERNEL_FIELD_PTS,
  GCG_KERNEL_FIELD_ITEMS,
  /* A postprocess kernel's (GcgKernelPpValues), from here to the end. */
  GCG_KERNEL_FIELD_OUTPUT,
  GCG_KERNEL_FIELD_OUTPUT_BYTES,
  GCG_KERNEL_FIELD_RECORDS,
  GCG_KERNEL_FIELD_COUNTS,
  GCG_KERNEL_FIELD_MAX_RESULTS,
  GCG_KERNEL_FIELD_CLASSES,
  GCG_KERNEL_FIELD_SCORE_THRESHOLD,
  GCG_KERNEL_FIELD_IOU_THRESHOLD,
  GCG_KERNEL_N_FIELDS,
} GcgKernelField;

/* What a postprocess kernel's own fields read, the same every frame (the
 * postprocess stage sets them once: gcg-postprocess-stage.c): the model's
 * output config->output_index (device address and bytes), where item i's
 * records start (records + i × max_results × 32 bytes, GcgResult's
 * layout) and its count (counts + 4 × i, a u32 the kernel writes; zeroed
 * before it runs), the most records per item, and the configuration's
 * class count and thresholds. */
typedef struct
{
  guint64 output;
  guint64 output_bytes;
  guint64 records;
  guint64 counts;
  guint max_results;
  guint classes;
  gfloat score_threshold;
  gfloat iou_threshold;
} GcgKernelPpValues;

typedef struct
{
  gchar *name;
  GcgKernelParamType type;
  GcgKernelParamSource source;
  GcgKernelField field;         /* GCG_KERNEL_SOURCE_FIELD */
  gchar *key;                   /* GCG_KERNEL_SOURCE_META */
  GcgFrameValue value;          /* the constant, or the meta's default */
  gsize offset;
} GcgKernelParam;

typedef struct
{
  GcgKernelParam params[GCG_KERNEL_DECL_MAX_PARAMS];
  guint n_params;
  gsize size;                   /* > 0: an empty declaration is 8 bytes */
  gsize align;
} GcgKernelDecl;

GCG_PRIVATE_API GcgKernelDecl *gcg__kernel_decl_parse (const gchar *decl,
    GError **error);

GCG_PRIVATE_API void gcg__kernel_decl_free (GcgKernelDecl *self);

GCG_PRIVATE_API gchar *gcg__kernel_decl_to_c (const GcgKernelDecl *self,
    const gchar *type_name);

/* Whether @self fits where its kernel runs: a postprocess kernel
 * (@postprocess) reads no src or dst field, any other kernel none of a
 * postprocess kernel's fields.  FALSE with GCG_ERROR_INVALID_ARGUMENT
 * naming the parameter and the field. */
gboolean gcg__kernel_decl_reads_output (const GcgKernelDecl *self);

GCG_PRIVATE_API gboolean gcg__kernel_decl_check_role (const GcgKernelDecl *self,
    gboolean postprocess, GError **error);

/* @pp: a postprocess kernel's values, %NULL for any other kernel (its
 * fields are then 0; gcg__kernel_decl_check_role() refused them). */
gboolean gcg__kernel_decl_fill (const GcgKernelDecl *self,
    const gchar *kernel_name, const GcgFrameStageIo *io,
    const GcgKernelPpValues *pp, void *dst, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GcgKernelDecl, gcg__kernel_decl_free)

G_END_DECLS
