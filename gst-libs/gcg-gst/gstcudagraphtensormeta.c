/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gstcudagraphtensormeta
 * @title: GcgTensorMeta
 * @short_description: how each tensor item was cut from the frame
 *
 * See #GcgTensorMeta.  Copied with the buffer; dropped by transforms that
 * change the tensor (it carries the "tensor" tag).
 *
 * Since: 0.2
 */

#include "gstcudagraphtensormeta.h"
#include "gstcudagraphmetacopy.h"

#include <string.h>

/**
 * gcg_tensor_meta_api_get_type:
 *
 * The API type of #GcgTensorMeta, for gst_buffer_get_meta() and
 * gst_meta_api_type_has_tag().
 *
 * Returns: the #GcgTensorMeta API type, registered on first use
 *
 * Since: 0.2
 */
GType
gcg_tensor_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { "tensor", NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register (GCG_TENSOR_META_API_NAME, tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
tensor_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GcgTensorMeta *tmeta = (GcgTensorMeta *) meta;

  memset ((guint8 *) tmeta + sizeof (GstMeta), 0,
      sizeof (*tmeta) - sizeof (GstMeta));
  tmeta->device_id = -1;
  return TRUE;
}

static void
tensor_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  g_clear_object (&((GcgTensorMeta *) meta)->stream_owner);
}

static gboolean
tensor_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GcgTensorMeta *src = (GcgTensorMeta *) meta;
  GcgTensorMeta *dst;

  /* Only copies of the whole buffer keep the geometry true. */
  if (!gst_cuda_graph_meta_copies_whole (buffer, type, data))
    return FALSE;
  dst = gcg_buffer_add_tensor_meta (dest);
  if (dst == NULL)
    return FALSE;
  memcpy ((guint8 *) dst + sizeof (GstMeta), (guint8 *) src + sizeof (GstMeta),
      sizeof (*dst) - sizeof (GstMeta));
  if (dst->stream_owner)
    g_object_ref (dst->stream_owner);
  return TRUE;
}

/**
 * gcg_tensor_meta_get_info:
 *
 * The meta's implementation, for gst_buffer_add_meta(); most callers
 * want gcg_buffer_add_tensor_meta().
 *
 * Returns: (transfer none): the #GstMetaInfo of #GcgTensorMeta,
 *   registered on first use
 *
 * Since: 0.2
 */
const GstMetaInfo *
gcg_tensor_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (gcg_tensor_meta_api_get_type (),
        "GcgTensorMeta", sizeof (GcgTensorMeta), tensor_meta_init,
        tensor_meta_free,
        tensor_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gcg_buffer_add_tensor_meta:
 * @buffer: a writable #GstBuffer
 *
 * Attaches a tensor meta, as the tensor elements do: all fields zero
 * except #GcgTensorMeta.device_id, -1 (system memory).
 *
 * Returns: (transfer none): the #GcgTensorMeta attached to @buffer
 *
 * Since: 0.2
 */
GcgTensorMeta *
gcg_buffer_add_tensor_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GcgTensorMeta *) gst_buffer_add_meta (buffer,
      gcg_tensor_meta_get_info (), NULL);
}

/**
 * gcg_buffer_get_tensor_meta:
 * @buffer: a tensor buffer, e.g. from `cudagraphpreprocess`
 *
 * The fields come from whoever attached the meta: check counts against
 * the arrays' sizes (%GCG_TENSOR_META_MAX_ITEMS, ...) before indexing.
 *
 * Returns: (transfer none) (nullable): the buffer's #GcgTensorMeta, or
 *   %NULL when it has none
 *
 * Since: 0.2
 */
GcgTensorMeta *
gcg_buffer_get_tensor_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GcgTensorMeta *) gst_buffer_get_meta (buffer,
      gcg_tensor_meta_api_get_type ());
}

/**
 * gcg_tensor_meta_get_item:
 * @meta: a #GcgTensorMeta
 * @index: which item, from 0
 *
 * The item at @index, checked against #GcgTensorMeta.n_items and the
 * array's size (the meta's counts may lie); for bindings, which cannot
 * index #GcgTensorMeta.items.
 *
 * Returns: (transfer none) (nullable): the item, or %NULL past the last
 *
 * Since: 0.2
 */
GcgTensorMetaItem *
gcg_tensor_meta_get_item (GcgTensorMeta * meta, guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  if (index >= MIN (meta->n_items, GCG_TENSOR_META_MAX_ITEMS))
    return NULL;
  return &meta->items[index];
}

/**
 * gcg_tensor_meta_get_tensor:
 * @meta: a #GcgTensorMeta
 * @index: which tensor, from 0
 *
 * The tensor at @index, checked against #GcgTensorMeta.n_tensors and the
 * array's size; for bindings, which cannot index #GcgTensorMeta.tensors.
 *
 * Returns: (transfer none) (nullable): the tensor, or %NULL past the last
 *
 * Since: 0.2
 */
GcgTensorMetaTensor *
gcg_tensor_meta_get_tensor (GcgTensorMeta * meta, guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  if (index >= MIN (meta->n_tensors, GCG_TENSOR_META_MAX_TENSORS))
    return NULL;
  return &meta->tensors[index];
}
