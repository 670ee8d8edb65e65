/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A program as an application writes it against an installed
 * libgcg-gst-1.0 (`pkg-config --cflags --libs gcg-gst-1.0`): only
 * <gcg/gcg-gst.h>, only public API.  It attaches a tensor meta, a batch
 * meta and a params meta to a buffer, reads each back through the
 * library (also from a copy of the buffer, which the metas' transforms
 * make), checks every value, and prints the file the library was loaded
 * from, so the caller can tell the installed copy from the build tree's.
 *
 * Exit status: 0 when every value is right, 1 otherwise.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* dladdr () */
#endif
#include <dlfcn.h>
#include <stdio.h>

#include <gcg/gcg-gst.h>

#define CHECK(cond) \
  G_STMT_START { \
    if (!(cond)) { \
      g_printerr ("check failed, line %d: %s\n", __LINE__, #cond); \
      return FALSE; \
    } \
  } \
  G_STMT_END

static void
fill_tensor_meta (GstCudaGraphTensorMeta *t)
{
  t->n_dims = 4;
  t->shape[0] = 2;
  t->shape[1] = 3;
  t->shape[2] = 32;
  t->shape[3] = 64;
  t->width = 64;
  t->height = 32;
  t->batch = 2;
  t->n_items = 1;
  t->items[0].roi_x = 5;
  t->items[0].roi_width = 40;
  t->items[0].scale_x = 0.5f;
  t->items[0].roi_id = 7;
}

static gboolean
check_tensor_meta (GstBuffer *buffer)
{
  GstCudaGraphTensorMeta *t = gst_cuda_graph_buffer_get_tensor_meta (buffer);

  CHECK (t != NULL);
  CHECK (t->meta.info == gst_cuda_graph_tensor_meta_get_info ());
  CHECK (t->meta.info->api == GST_CUDA_GRAPH_TENSOR_META_API_TYPE);
  CHECK (t->memory == GST_CUDA_GRAPH_TENSOR_MEMORY_SYSTEM
      && t->device_id == -1);
  CHECK (t->n_dims == 4 && t->shape[0] == 2 && t->shape[3] == 64);
  CHECK (t->width == 64 && t->height == 32 && t->batch == 2);
  CHECK (t->n_items == 1 && t->items[0].roi_x == 5);
  CHECK (t->items[0].roi_width == 40 && t->items[0].scale_x == 0.5f);
  CHECK (t->items[0].roi_id == 7 && t->n_tensors == 0);
  CHECK (gst_cuda_graph_tensor_meta_get_item (t, 0) == &t->items[0]);
  CHECK (gst_cuda_graph_tensor_meta_get_item (t, 1) == NULL);
  CHECK (gst_cuda_graph_tensor_meta_get_tensor (t, 0) == NULL);
  return TRUE;
}

static gboolean
add_batch_meta (GstBuffer *buffer)
{
  GstCudaGraphBatchMeta *b = gst_cuda_graph_buffer_add_batch_meta (buffer, 2);

  CHECK (b != NULL && b->n_items == 2 && b->n_allocated == 2);
  /* Past the documented limit: refused, nothing attached. */
  CHECK (gst_cuda_graph_buffer_add_batch_meta (buffer,
             GST_CUDA_GRAPH_BATCH_META_MAX_SOURCES
                     * GST_CUDA_GRAPH_BATCH_META_MAX_ITEMS_PER_SOURCE
                 + 1)
      == NULL);
  b->n_sources = 1;
  b->sources[0].pad_name = g_strdup ("sink_0");
  b->sources[0].pts = 40 * GST_MSECOND;
  b->sources[0].n_items = 2;
  b->items[1].source = 0;
  b->items[1].roi_id = 3;
  b->items[1].scale_x = 2.0;
  b->items[1].offset_y = 16.0;
  return TRUE;
}

static gboolean
check_batch_meta (GstBuffer *buffer)
{
  GstCudaGraphBatchMeta *b = gst_cuda_graph_buffer_get_batch_meta (buffer);

  CHECK (b != NULL);
  CHECK (b->meta.info == gst_cuda_graph_batch_meta_get_info ());
  CHECK (b->meta.info->api == GST_CUDA_GRAPH_BATCH_META_API_TYPE);
  CHECK (b->n_sources == 1 && b->n_items == 2 && b->n_allocated == 2);
  CHECK (g_strcmp0 (b->sources[0].pad_name, "sink_0") == 0);
  CHECK (b->sources[0].stream_id == NULL);
  CHECK (b->sources[0].pts == 40 * GST_MSECOND && b->sources[0].n_items == 2);
  CHECK (b->items[1].roi_id == 3 && b->items[1].scale_x == 2.0);
  CHECK (b->items[1].offset_y == 16.0 && b->items[0].roi_id == 0);
  CHECK (gst_cuda_graph_batch_meta_get_item (b, 1)->roi_id == 3);
  CHECK (gst_cuda_graph_batch_meta_get_item (b, 2) == NULL);
  CHECK (gst_cuda_graph_batch_meta_get_source (b, 0)->pts == 40 * GST_MSECOND);
  CHECK (gst_cuda_graph_batch_meta_get_source (b, 1) == NULL);
  return TRUE;
}

/* The params meta: gamma and gain replaced, brightness and contrast kept;
 * then a meta with a gamma of 0, ignored whole. */
static gboolean
check_params_meta (void)
{
  g_autoptr (GstBuffer) buffer = gst_buffer_new ();
  g_autoptr (GstBuffer) bad = gst_buffer_new ();
  GcgFrameParams params = { 0 };
  GstCustomMeta *m;

  gst_cuda_graph_params_meta_register ();
  m = gst_buffer_add_custom_meta (buffer, GST_CUDA_GRAPH_PARAMS_META_NAME);
  CHECK (m != NULL);
  gst_structure_set (gst_custom_meta_get_structure (m), "gamma", G_TYPE_DOUBLE,
      2.0, "gain", G_TYPE_DOUBLE, 0.5, NULL);
  params.brightness = 0.25f;
  params.contrast = 1.5f;
  params.gamma = 1.0f;
  params.gain = 1.0f;
  gst_cuda_graph_apply_params_meta (NULL, buffer, &params);
  CHECK (params.brightness == 0.25f && params.contrast == 1.5f);
  CHECK (params.gamma == 2.0f && params.gain == 0.5f);

  m = gst_buffer_add_custom_meta (bad, GST_CUDA_GRAPH_PARAMS_META_NAME);
  gst_structure_set (gst_custom_meta_get_structure (m), "gamma", G_TYPE_DOUBLE,
      0.0, "gain", G_TYPE_DOUBLE, 3.0, NULL);
  gst_cuda_graph_apply_params_meta (NULL, bad, &params);
  CHECK (params.gamma == 2.0f && params.gain == 0.5f);
  return TRUE;
}

/* The tensor caps helpers: written, then read back. */
static gboolean
check_tensor_caps (void)
{
  GstCudaGraphTensorDesc desc = { GCG_TENSOR_LAYOUT_NCHW,
    GCG_TENSOR_TYPE_FLOAT16, GCG_TENSOR_CHANNELS_RGB, 64, 32, 2 };
  g_autoptr (GstCaps) caps = gst_caps_new_empty ();
  GcgTensorType type;
  guint w, h, n;
  gsize size;

  gst_caps_append_structure (caps,
      gst_cuda_graph_tensor_structure_new (&desc, NULL));
  CHECK (gst_cuda_graph_tensor_caps_get_shape (caps, GCG_TENSOR_LAYOUT_NCHW,
      &type, &w, &h, &n));
  CHECK (type == GCG_TENSOR_TYPE_FLOAT16 && w == 64 && h == 32 && n == 2);
  CHECK (gst_cuda_graph_tensor_caps_get_size (caps, &size));
  CHECK (size == 2u * 3 * 32 * 64 * 2);
  return TRUE;
}

static gboolean
check_metas (void)
{
  g_autoptr (GstBuffer) buffer = gst_buffer_new_allocate (NULL, 64, NULL);
  g_autoptr (GstBuffer) copy = NULL;
  GstCudaGraphTensorMeta *t;

  CHECK (gst_cuda_graph_buffer_get_tensor_meta (buffer) == NULL);
  CHECK (gst_cuda_graph_buffer_get_batch_meta (buffer) == NULL);
  t = gst_cuda_graph_buffer_add_tensor_meta (buffer);
  CHECK (t != NULL);
  fill_tensor_meta (t);
  if (!add_batch_meta (buffer))
    return FALSE;
  if (!check_tensor_meta (buffer) || !check_batch_meta (buffer))
    return FALSE;
  /* A whole copy carries both metas through their transforms. */
  copy = gst_buffer_copy (buffer);
  return check_tensor_meta (copy) && check_batch_meta (copy);
}

int
main (int argc, char **argv)
{
  Dl_info info;

  gst_init (&argc, &argv);
  if (!check_metas () || !check_params_meta () || !check_tensor_caps ())
    return 1;
  if (!dladdr ((void *) gst_cuda_graph_buffer_add_tensor_meta, &info)
      || info.dli_fname == NULL) {
    g_printerr ("dladdr found no library\n");
    return 1;
  }
  printf ("tensor, batch and params metas and tensor caps: ok, "
          "libgcg-gst-1.0 from %s: gst_cuda_graph_buffer_add_tensor_meta\n",
      info.dli_fname);
  return 0;
}
