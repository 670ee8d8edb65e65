/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gcg/gcg.h>

G_BEGIN_DECLS

/* crop-x, crop-y, crop-width, crop-height: one definition for every
 * element and pad that has them (cudagraphconvert, cudagraphpreprocess,
 * each cudagraphbatch sink pad), the same type, range, flags and words.
 * What they select is gstcudagraphcrop.h's one rule: a rectangle of the
 * visible frame.  Held in a GcgRect under the owner's object lock. */
#define GST_CUDA_GRAPH_CROP_N_PROPS 4

/* Installs the four from property id @first on. */
void gst_cuda_graph_crop_props_install (GObjectClass *klass, guint first);

/* Sets or reads @crop's field for @prop_id; FALSE when @prop_id is not
 * one of the four. */
gboolean gst_cuda_graph_crop_props_set (GcgRect *crop, guint first,
    guint prop_id, const GValue *value);
gboolean gst_cuda_graph_crop_props_get (const GcgRect *crop, guint first,
    guint prop_id, GValue *value);

/* Whether a crop is set at all (any of the four not 0). */
gboolean gst_cuda_graph_crop_props_is_set (const GcgRect *crop);

G_END_DECLS
