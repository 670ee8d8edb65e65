/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* A property value an element (or one of its pads) refuses, made visible
 * without debug output: a g_warning naming the object, the property and
 * @why (as GLib warns of a value outside a property's range), and a
 * GST_MESSAGE_WARNING on the bus of the element @object is or belongs to,
 * when it has one.  @why says what was wrong and what value stays.
 *
 * Call it WITHOUT @object's lock (or its parent's) held: posting takes the
 * element's lock to find the bus.  set_property() functions note the
 * refusal under their lock (gst_cuda_graph_refusal_note()) and report it
 * after unlocking (gst_cuda_graph_refusal_report()). */
void gst_cuda_graph_refuse (GObject *object, GParamSpec *pspec,
    const gchar *why);

/* Records, in *@refusal (NULL or a refusal noted before, replaced), why a
 * value was refused, for gst_cuda_graph_refusal_report() to say once the
 * lock is released. */
void gst_cuda_graph_refusal_note (gchar **refusal, const gchar *format, ...)
    G_GNUC_PRINTF (2, 3);

/* Reports and frees *@refusal if one was noted; nothing otherwise. */
void gst_cuda_graph_refusal_report (GObject *object, GParamSpec *pspec,
    gchar **refusal);

/* Sets *@field to @value's double when it is finite; otherwise notes the
 * refusal and keeps *@field (FALSE).  NaN may pass GParamSpecDouble's
 * range check (GLib versions differ: every comparison with it is false),
 * so every double property that ends in a float checks here too. */
gboolean gst_cuda_graph_set_finite (gfloat *field, const GValue *value,
    gchar **refusal);

G_END_DECLS
