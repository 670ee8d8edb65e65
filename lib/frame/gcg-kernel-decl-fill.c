/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Per frame: a user kernel's struct filled from the frame's fields and
 * named values (the kernel stage's prepare()).  Named values come from
 * an application's metadata, so each is converted with a range check and
 * a value that does not fit fails the frame, naming the kernel and the
 * parameter, instead of reaching the kernel wrapped or as NaN.
 */
#include "gcg-kernel-decl-private.h"
#include "gcg-error.h"

#include <math.h>
#include <string.h>

static gboolean
to_double (const GcgFrameValue *value, gdouble *d)
{
  switch (value->type) {
    case GCG_FRAME_VALUE_INT:
      *d = (gdouble) value->v.i;
      return TRUE;
    case GCG_FRAME_VALUE_UINT:
      *d = (gdouble) value->v.u;
      return TRUE;
    case GCG_FRAME_VALUE_DOUBLE:
      *d = value->v.d;
      return isfinite (*d);
    default:
      return FALSE;
  }
}

/* An integer value, or a double that is a whole number in range. */
static gboolean
to_int_range (const GcgFrameValue *value, gint64 min, guint64 max, guint64 *out)
{
  gdouble d;

  switch (value->type) {
    case GCG_FRAME_VALUE_INT:
      if (value->v.i < min || (value->v.i >= 0 && (guint64) value->v.i > max))
        return FALSE;
      *out = (guint64) value->v.i;
      return TRUE;
    case GCG_FRAME_VALUE_UINT:
      if (value->v.u > max)
        return FALSE;
      *out = value->v.u;
      return TRUE;
    case GCG_FRAME_VALUE_DOUBLE:
      d = value->v.d;
      /* 2^64 and 2^63 are exact doubles: compare against them, not
       * against max. */
      if (!isfinite (d) || d != floor (d) || d < (gdouble) min
          || d >= (max == G_MAXUINT64 ? 18446744073709551616.0
                                      : (gdouble) max + 1.0))
        return FALSE;
      *out = d < 0 ? (guint64) (gint64) d : (guint64) d;
      return TRUE;
    default:
      return FALSE;
  }
}

/* Writes @value as @type at @dst; FALSE when it does not fit. */
static gboolean
store (GcgKernelParamType type, const GcgFrameValue *value, guint8 *dst)
{
  gdouble d;
  guint64 u;

  switch (type) {
    case GCG_KERNEL_PARAM_F32: {
      gfloat f;

      if (!to_double (value, &d) || fabs (d) > G_MAXFLOAT)
        return FALSE;
      f = (gfloat) d;
      memcpy (dst, &f, sizeof (f));
      return TRUE;
    }
    case GCG_KERNEL_PARAM_F64:
      if (!to_double (value, &d))
        return FALSE;
      memcpy (dst, &d, sizeof (d));
      return TRUE;
    case GCG_KERNEL_PARAM_I32: {
      gint32 i;

      if (!to_int_range (value, G_MININT32, G_MAXINT32, &u))
        return FALSE;
      i = (gint32) (gint64) u;
      memcpy (dst, &i, sizeof (i));
      return TRUE;
    }
    case GCG_KERNEL_PARAM_U32: {
      guint32 v;

      if (!to_int_range (value, 0, G_MAXUINT32, &u))
        return FALSE;
      v = (guint32) u;
      memcpy (dst, &v, sizeof (v));
      return TRUE;
    }
    case GCG_KERNEL_PARAM_U64:
      if (!to_int_range (value, 0, G_MAXUINT64, &u))
        return FALSE;
      memcpy (dst, &u, sizeof (u));
      return TRUE;
    default:
      return FALSE;
  }
}

/* A postprocess kernel's field, from @pp (0 without). */
static GcgFrameValue
pp_field_value (GcgKernelField field, const GcgKernelPpValues *pp)
{
  GcgFrameValue v = { GCG_FRAME_VALUE_UINT, { .u = 0 } };

  if (pp == NULL)
    return v;
  switch (field) {
    case GCG_KERNEL_FIELD_OUTPUT:
      v.v.u = pp->output;
      break;
    case GCG_KERNEL_FIELD_OUTPUT_BYTES:
      v.v.u = pp->output_bytes;
      break;
    case GCG_KERNEL_FIELD_RECORDS:
      v.v.u = pp->records;
      break;
    case GCG_KERNEL_FIELD_COUNTS:
      v.v.u = pp->counts;
      break;
    case GCG_KERNEL_FIELD_MAX_RESULTS:
      v.v.u = pp->max_results;
      break;
    case GCG_KERNEL_FIELD_CLASSES:
      v.v.u = pp->classes;
      break;
    case GCG_KERNEL_FIELD_SCORE_THRESHOLD:
      v = (GcgFrameValue) { GCG_FRAME_VALUE_DOUBLE,
        { .d = pp->score_threshold } };
      break;
    default:
      v = (GcgFrameValue) { GCG_FRAME_VALUE_DOUBLE,
        { .d = pp->iou_threshold } };
      break;
  }
  return v;
}

static GcgFrameValue
field_value (GcgKernelField field, const GcgFrameStageIo *io,
    const GcgKernelPpValues *pp)
{
  const GcgFrameParams *p = io->params;
  const GcgFrameChainConfig *c = io->config;
  GcgFrameValue v = { GCG_FRAME_VALUE_UINT, { .u = 0 } };

  if (field >= GCG_KERNEL_FIELD_OUTPUT)
    return pp_field_value (field, pp);
  if (field <= GCG_KERNEL_FIELD_SRC2)
    v.v.u = p->src[field - GCG_KERNEL_FIELD_SRC0];
  else if (field == GCG_KERNEL_FIELD_DST0 && io->chain_out != 0)
    v.v.u = io->chain_out;      /* what the chain wrote: a model's input */
  else if (field <= GCG_KERNEL_FIELD_DST2)
    v.v.u = p->dst[field - GCG_KERNEL_FIELD_DST0];
  else if (field == GCG_KERNEL_FIELD_FRAME)
    v.v.u = p->frame_number;
  else if (field == GCG_KERNEL_FIELD_PTS)
    v.v.u = p->pts;
  else {
    v.type = GCG_FRAME_VALUE_INT;
    if (field == GCG_KERNEL_FIELD_ITEMS)
      v.v.i = io->n_items;
    else if (field <= GCG_KERNEL_FIELD_SRC_PITCH2)
      v.v.i = p->src_stride[field - GCG_KERNEL_FIELD_SRC_PITCH0];
    else if (field <= GCG_KERNEL_FIELD_DST_PITCH2)
      v.v.i = p->dst_stride[field - GCG_KERNEL_FIELD_DST_PITCH0];
    else if (field == GCG_KERNEL_FIELD_IN_WIDTH)
      v.v.i = c->in_width;
    else if (field == GCG_KERNEL_FIELD_IN_HEIGHT)
      v.v.i = c->in_height;
    else if (field == GCG_KERNEL_FIELD_OUT_WIDTH)
      v.v.i = c->out_width;
    else
      v.v.i = c->out_height;
  }
  return v;
}

/* The value of @param for this frame: its constant, the frame's field,
 * or the frame's named value (its default when the frame has none). */
static GcgFrameValue
param_value (const GcgKernelParam *param, const GcgFrameStageIo *io,
    const GcgKernelPpValues *pp)
{
  GcgFrameValue v;

  if (param->source == GCG_KERNEL_SOURCE_FIELD)
    return field_value (param->field, io, pp);
  if (param->source == GCG_KERNEL_SOURCE_META && io->lookup != NULL
      && io->lookup (param->key, &v, io->lookup_data))
    return v;
  return param->value;
}

/* Fills @dst (self->size bytes) for one frame; @io->params and
 * @io->config must be set when a parameter reads a frame field, @pp
 * (nullable) when it reads a postprocess kernel's. */
gboolean
gcg__kernel_decl_fill (const GcgKernelDecl *self, const gchar *kernel_name,
    const GcgFrameStageIo *io, const GcgKernelPpValues *pp, void *dst,
    GError **error)
{
  memset (dst, 0, self->size);
  for (guint i = 0; i < self->n_params; i++) {
    const GcgKernelParam *param = &self->params[i];
    GcgFrameValue v = param_value (param, io, pp);

    if (!store (param->type, &v, (guint8 *) dst + param->offset)) {
      g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "Kernel '%s': this frame's value of parameter '%s'%s%s%s does not "
          "fit its type",
          kernel_name, param->name, param->key ? " (meta key '" : "",
          param->key ? param->key : "", param->key ? "')" : "");
      return FALSE;
    }
  }
  return TRUE;
}
