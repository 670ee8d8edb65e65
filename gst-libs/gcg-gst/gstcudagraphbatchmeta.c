/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gstcudagraphbatchmeta
 * @title: GstCudaGraphBatchMeta
 * @short_description: where each item of a batch tensor came from
 *
 * See #GstCudaGraphBatchMeta.  Copied with the whole buffer (not with a region of
 * it); dropped by transforms that change the tensor (it carries the
 * "tensor" tag).
 *
 * Since: 0.2
 */
#include "gstcudagraphbatchmeta.h"
#include "gstcudagraphmetacopy.h"

#include <string.h>

#define MAX_ITEMS \
  (GST_CUDA_GRAPH_BATCH_META_MAX_SOURCES \
      * GST_CUDA_GRAPH_BATCH_META_MAX_ITEMS_PER_SOURCE)

/**
 * gst_cuda_graph_batch_meta_api_get_type:
 *
 * The API type of #GstCudaGraphBatchMeta, for gst_buffer_get_meta() and
 * gst_meta_api_type_has_tag().
 *
 * Returns: the #GstCudaGraphBatchMeta API type, registered on first use
 *
 * Since: 0.2
 */
GType
gst_cuda_graph_batch_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { "tensor", NULL };

  if (g_once_init_enter (&type)) {
    GType t =
        gst_meta_api_type_register (GST_CUDA_GRAPH_BATCH_META_API_NAME, tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
batch_meta_init (GstMeta *meta, gpointer params, GstBuffer *buffer)
{
  GstCudaGraphBatchMeta *bmeta = (GstCudaGraphBatchMeta *) meta;
  guint n_items = GPOINTER_TO_UINT (params);

  memset ((guint8 *) bmeta + sizeof (GstMeta), 0,
      sizeof (*bmeta) - sizeof (GstMeta));
  if (n_items > MAX_ITEMS)
    return FALSE;
  bmeta->n_items = n_items;
  bmeta->n_allocated = n_items;
  bmeta->window_start = bmeta->window_duration = GST_CLOCK_TIME_NONE;
  bmeta->items = g_new0 (GstCudaGraphBatchMetaItem, MAX (n_items, 1));
  return TRUE;
}

/* The sources the array can hold, whatever n_sources says. */
static guint
n_sources (const GstCudaGraphBatchMeta *bmeta)
{
  return MIN (bmeta->n_sources, GST_CUDA_GRAPH_BATCH_META_MAX_SOURCES);
}

static void
batch_meta_free (GstMeta *meta, GstBuffer *buffer)
{
  GstCudaGraphBatchMeta *bmeta = (GstCudaGraphBatchMeta *) meta;

  /* n_sources is public and may lie: only the array's strings are ours. */
  for (guint i = 0; i < n_sources (bmeta); i++) {
    g_free (bmeta->sources[i].pad_name);
    g_free (bmeta->sources[i].stream_id);
  }
  g_free (bmeta->items);
}

static gboolean
batch_meta_transform (GstBuffer *dest, GstMeta *meta, GstBuffer *buffer,
    GQuark type, gpointer data)
{
  GstCudaGraphBatchMeta *src = (GstCudaGraphBatchMeta *) meta;
  GstCudaGraphBatchMeta *dst;

  /* Only copies of the whole buffer keep the items where they were. */
  if (!gst_cuda_graph_meta_copies_whole (buffer, type, data))
    return FALSE;
  /* A count past the items allocated cannot be copied truthfully. */
  if (src->n_items > src->n_allocated)
    return FALSE;
  dst = gst_cuda_graph_buffer_add_batch_meta (dest, src->n_items);
  if (dst == NULL)
    return FALSE;
  memcpy (dst->items, src->items,
      src->n_items * sizeof (GstCudaGraphBatchMetaItem));
  dst->n_sources = n_sources (src);
  for (guint i = 0; i < dst->n_sources; i++) {
    dst->sources[i] = src->sources[i];
    dst->sources[i].pad_name = g_strdup (src->sources[i].pad_name);
    dst->sources[i].stream_id = g_strdup (src->sources[i].stream_id);
  }
  /* n_frames is public too: never past the sources copied. */
  dst->n_frames = MIN (src->n_frames, dst->n_sources);
  dst->window_start = src->window_start;
  dst->window_duration = src->window_duration;
  return TRUE;
}

/**
 * gst_cuda_graph_batch_meta_get_info:
 *
 * The meta's implementation, for gst_buffer_add_meta(); most callers
 * want gst_cuda_graph_buffer_add_batch_meta().
 *
 * Returns: (transfer none): the #GstMetaInfo of #GstCudaGraphBatchMeta,
 *   registered on first use
 *
 * Since: 0.2
 */
const GstMetaInfo *
gst_cuda_graph_batch_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) &info)) {
    const GstMetaInfo *mi =
        gst_meta_register (gst_cuda_graph_batch_meta_api_get_type (),
            "GstCudaGraphBatchMeta", sizeof (GstCudaGraphBatchMeta),
            batch_meta_init, batch_meta_free, batch_meta_transform);
    g_once_init_leave ((GstMetaInfo **) &info, (GstMetaInfo *) mi);
  }
  return info;
}

/**
 * gst_cuda_graph_buffer_add_batch_meta:
 * @buffer: a writable #GstBuffer
 * @n_items: items the meta holds, at most %GST_CUDA_GRAPH_BATCH_META_MAX_SOURCES ×
 *   %GST_CUDA_GRAPH_BATCH_META_MAX_ITEMS_PER_SOURCE
 *
 * Attaches a batch meta with room for @n_items items: every field zero
 * but #GstCudaGraphBatchMeta.n_items and #GstCudaGraphBatchMeta.n_allocated, both @n_items.
 * Fill #GstCudaGraphBatchMeta.sources (its strings are the meta's: g_strdup()
 * them) and the items.
 *
 * Returns: (transfer none) (nullable): the meta, or %NULL when @n_items
 *   is out of range
 *
 * Since: 0.2
 */
GstCudaGraphBatchMeta *
gst_cuda_graph_buffer_add_batch_meta (GstBuffer *buffer, guint n_items)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  if (n_items > MAX_ITEMS)
    return NULL;
  return (GstCudaGraphBatchMeta *) gst_buffer_add_meta (buffer,
      gst_cuda_graph_batch_meta_get_info (), GUINT_TO_POINTER (n_items));
}

/**
 * gst_cuda_graph_buffer_get_batch_meta:
 * @buffer: a batch, e.g. from `cudagraphbatch`
 *
 * The fields come from whoever attached the meta: check
 * #GstCudaGraphBatchMeta.n_items against #GstCudaGraphBatchMeta.n_allocated and
 * #GstCudaGraphBatchMeta.n_sources against %GST_CUDA_GRAPH_BATCH_META_MAX_SOURCES before
 * indexing.
 *
 * Returns: (transfer none) (nullable): the buffer's #GstCudaGraphBatchMeta, or
 *   %NULL when it has none
 *
 * Since: 0.2
 */
GstCudaGraphBatchMeta *
gst_cuda_graph_buffer_get_batch_meta (GstBuffer *buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);

  return (GstCudaGraphBatchMeta *) gst_buffer_get_meta (buffer,
      gst_cuda_graph_batch_meta_api_get_type ());
}

/**
 * gst_cuda_graph_batch_meta_get_item:
 * @meta: a #GstCudaGraphBatchMeta
 * @index: which item, from 0
 *
 * The item at @index, checked against #GstCudaGraphBatchMeta.n_items and
 * #GstCudaGraphBatchMeta.n_allocated (the meta's counts may lie); for bindings,
 * which cannot index #GstCudaGraphBatchMeta.items.
 *
 * Returns: (transfer none) (nullable): the item, or %NULL past the last
 *
 * Since: 0.2
 */
GstCudaGraphBatchMetaItem *
gst_cuda_graph_batch_meta_get_item (GstCudaGraphBatchMeta *meta, guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  if (meta->items == NULL || index >= MIN (meta->n_items, meta->n_allocated))
    return NULL;
  return &meta->items[index];
}

/**
 * gst_cuda_graph_batch_meta_get_source:
 * @meta: a #GstCudaGraphBatchMeta
 * @index: which source, from 0
 *
 * The source at @index, checked against #GstCudaGraphBatchMeta.n_sources and the
 * array's size; for bindings, which cannot index #GstCudaGraphBatchMeta.sources.
 *
 * Returns: (transfer none) (nullable): the source, or %NULL past the last
 *
 * Since: 0.2
 */
GstCudaGraphBatchMetaSource *
gst_cuda_graph_batch_meta_get_source (GstCudaGraphBatchMeta *meta, guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);

  if (index >= n_sources (meta))
    return NULL;
  return &meta->sources[index];
}
