/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* GcgBatchMeta: where each item of a batch tensor came from. */
#include "gstcudagraphbatchmeta.h"
#include "gstcudagraphmetacopy.h"

#include <string.h>

#define MAX_ITEMS \
  (GCG_BATCH_META_MAX_SOURCES * GCG_BATCH_META_MAX_ITEMS_PER_SOURCE)

GType
gcg_batch_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { "tensor", NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register (GCG_BATCH_META_API_NAME, tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
batch_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GcgBatchMeta *bmeta = (GcgBatchMeta *) meta;
  guint n_items = GPOINTER_TO_UINT (params);

  memset ((guint8 *) bmeta + sizeof (GstMeta), 0,
      sizeof (*bmeta) - sizeof (GstMeta));
  if (n_items > MAX_ITEMS)
    return FALSE;
  bmeta->n_items = n_items;
  bmeta->n_allocated = n_items;
  bmeta->window_start = bmeta->window_duration = GST_CLOCK_TIME_NONE;
  bmeta->items = g_new0 (GcgBatchMetaItem, MAX (n_items, 1));
  return TRUE;
}

/* The sources the array can hold, whatever n_sources says. */
static guint
n_sources (const GcgBatchMeta * bmeta)
{
  return MIN (bmeta->n_sources, GCG_BATCH_META_MAX_SOURCES);
}

static void
batch_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GcgBatchMeta *bmeta = (GcgBatchMeta *) meta;

  /* n_sources is public and may lie: only the array's strings are ours. */
  for (guint i = 0; i < n_sources (bmeta); i++) {
    g_free (bmeta->sources[i].pad_name);
    g_free (bmeta->sources[i].stream_id);
  }
  g_free (bmeta->items);
}

static gboolean
batch_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GcgBatchMeta *src = (GcgBatchMeta *) meta;
  GcgBatchMeta *dst;

  /* Only copies of the whole buffer keep the items where they were. */
  if (!gst_cuda_graph_meta_copies_whole (buffer, type, data))
    return FALSE;
  /* A count past the items allocated cannot be copied truthfully. */
  if (src->n_items > src->n_allocated)
    return FALSE;
  dst = gcg_buffer_add_batch_meta (dest, src->n_items);
  if (dst == NULL)
    return FALSE;
  memcpy (dst->items, src->items, src->n_items * sizeof (GcgBatchMetaItem));
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

const GstMetaInfo *
gcg_batch_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (gcg_batch_meta_api_get_type (),
        "GcgBatchMeta", sizeof (GcgBatchMeta), batch_meta_init,
        batch_meta_free, batch_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

GcgBatchMeta *
gcg_buffer_add_batch_meta (GstBuffer * buffer, guint n_items)
{
  if (n_items > MAX_ITEMS)
    return NULL;
  return (GcgBatchMeta *) gst_buffer_add_meta (buffer,
      gcg_batch_meta_get_info (), GUINT_TO_POINTER (n_items));
}
