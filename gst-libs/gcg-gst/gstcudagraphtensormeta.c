/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gstcudagraphtensormeta
 * @title: GstCudaGraphTensorMeta
 * @short_description: how each tensor item was cut from the frame
 *
 * See #GstCudaGraphTensorMeta.  Copied with the buffer; dropped by transforms that
 * change the tensor (it carries the "tensor" tag).
 *
 * Since: 0.2
 */

#include "gstcudagraphtensormeta.h"
#include "gstcudagraphmetacopy.h"

#include <string.h>

/**
 * gst_cuda_graph_tensor_meta_api_get_type:
 *
 * The API type of #GstCudaGraphTensorMeta, for gst_buffer_get_meta() and
 * gst_meta_api_type_has_tag().
 *
 * Returns: the #GstCudaGraphTensorMeta API type, registered on first use
 *
 * Since: 0.2
 */
GType
gst_cuda_graph_tensor_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { "tensor", NULL };

  if (g_once_init_enter (&type)) {
    GType t =
        gst_meta_api_type_register (GST_CUDA_GRAPH_TENSOR_META_API_NAME, tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
tensor_meta_init (GstMeta *meta, gpointer params, GstBuffer *buffer)
{
  GstCudaGraphTensorMeta *tmeta = (GstCudaGraphTensorMeta *) meta;

  memset ((guint8 *) tmeta + sizeof (GstMeta), 0,
      sizeof (*tmeta) - sizeof (GstMeta));
  tmeta->device_id = -1;
  return TRUE;
}

static void
tensor_meta_free (GstMeta *meta, GstBuffer *buffer)
{
  g_clear_object (&((GstCudaGraphTensorMeta *) meta)->stream_owner);
}

static gboolean
tensor_meta_transform (GstBuffer *dest, GstMeta *meta, GstBuffer *buffer,
    GQuark type, gpointer data)
{
  GstCudaGraphTensorMeta *src = (GstCudaGraphTensorMeta *) meta;
  GstCudaGraphTensorMeta *dst;

  /* Only copies of the whole buffer keep the geometry true. */
  if (!gst_cuda_graph_meta_copies_whole (buffer, type, data))
    return FALSE;
  dst = gst_cuda_graph_buffer_add_tensor_meta (dest);
  if (dst == NULL)
    return FALSE;
  memcpy ((guint8 *) dst + sizeof (GstMeta), (guint8 *) src + sizeof (GstMeta),
      sizeof (*dst) - sizeof (GstMeta));
  if (dst->stream_owner)
    g_object_ref (dst->stream_owner);
  return TRUE;
}

/**
 * gst_cuda_graph_tensor_meta_get_info:
 *
 * The meta's implementation, for gst_buffer_add_meta(); most callers
 * want gst_cuda_graph_buffer_add_tensor_meta().
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstCudaGraphTensorMeta,
 *   registered on first use
 *
 * Since: 0.2
 */
const GstMetaInfo *
gst_cuda_graph_tensor_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) &info)) {
    const GstMetaInfo *mi =
        gst_meta_register (gst_cuda_graph_tensor_meta_api_get_type (),
            "GstCudaGraphTensorMeta", sizeof (GstCudaGraphTensorMeta),
            tensor_meta_init, tensor_meta_free, tensor_meta_transform);
    g_once_init_leave ((GstMetaInfo **) &info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_cuda_graph_buffer_add_tensor_meta:
 * @buffer: a writable #GstBuffer
 *
 * Attaches a tensor meta, as the tensor elements do: all fields zero
 * except #GstCudaGraphTensorMeta.device_id, -1 (system memory).
 *
 * Returns: (transfer none): the #GstCudaGraphTensorMeta attached to @buffer
 *
 * Since: 0.2
 */
GstCudaGraphTensorMeta *
gst_cuda_graph_buffer_add_tensor_meta (GstBuffer *buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstCudaGraphTensorMeta *) gst_buffer_add_meta (buffer,
      gst_cuda_graph_tensor_meta_get_info (), NULL);
}

/**
 * gst_cuda_graph_buffer_get_tensor_meta:
 * @buffer: a tensor buffer, e.g. from `cudagraphpreprocess`
 *
 * The fields come from whoever attached the meta: check counts against
 * the arrays' sizes (%GST_CUDA_GRAPH_TENSOR_META_MAX_ITEMS, ...) before indexing.
 *
 * Returns: (transfer none) (nullable): the buffer's #GstCudaGraphTensorMeta, or
 *   %NULL when it has none
 *
 * Since: 0.2
 */
GstCudaGraphTensorMeta *
gst_cuda_graph_buffer_get_tensor_meta (GstBuffer *buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstCudaGraphTensorMeta *) gst_buffer_get_meta (buffer,
      gst_cuda_graph_tensor_meta_api_get_type ());
}

/**
 * gst_cuda_graph_tensor_meta_get_item:
 * @meta: a #GstCudaGraphTensorMeta
 * @index: which item, from 0
 *
 * The item at @index, checked against #GstCudaGraphTensorMeta.n_items and the
 * array's size (the meta's counts may lie); for bindings, which cannot
 * index #GstCudaGraphTensorMeta.items.
 *
 * Returns: (transfer none) (nullable): the item, or %NULL past the last
 *
 * Since: 0.2
 */
GstCudaGraphTensorMetaItem *
gst_cuda_graph_tensor_meta_get_item (GstCudaGraphTensorMeta *meta, guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  if (index >= MIN (meta->n_items, GST_CUDA_GRAPH_TENSOR_META_MAX_ITEMS))
    return NULL;
  return &meta->items[index];
}

/**
 * gst_cuda_graph_tensor_meta_get_tensor:
 * @meta: a #GstCudaGraphTensorMeta
 * @index: which tensor, from 0
 *
 * The tensor at @index, checked against #GstCudaGraphTensorMeta.n_tensors and the
 * array's size; for bindings, which cannot index #GstCudaGraphTensorMeta.tensors.
 *
 * Returns: (transfer none) (nullable): the tensor, or %NULL past the last
 *
 * Since: 0.2
 */
GstCudaGraphTensorMetaTensor *
gst_cuda_graph_tensor_meta_get_tensor (GstCudaGraphTensorMeta *meta,
    guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  if (index >= MIN (meta->n_tensors, GST_CUDA_GRAPH_TENSOR_META_MAX_TENSORS))
    return NULL;
  return &meta->tensors[index];
}
