/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * SECTION:gstcudagraphbatchpad
 * @title: GstCudaGraphBatchPad
 * @short_description: a sink pad of cudagraphbatch
 *
 * One stream of a `cudagraphbatch`, with what that stream needs of its
 * own: a crop (#GstCudaGraphBatchPad:crop-x, crop-y, crop-width,
 * crop-height) that is the item of a frame without ROIs and clips the
 * ROIs of the others, and a
 * #GstCudaGraphBatchPad:roi-type that overrides the element's, and
 * (since 0.2) a #GstCudaGraphBatchPad:batch-strategy: which of its frames
 * in a batch's window of running time the batch takes.
 *
 * The crop means what cudagraphconvert's crop-* properties mean
 * (gstcudagraphcrop.h): a rectangle of the visible frame (the buffer's
 * #GstVideoCropMeta region, or the whole frame without one), crop-x and
 * crop-y from its top left corner, a 0 width or height reaching to its
 * edge, clipped to it.  A crop that selects nothing of it is refused for
 * that frame, which is batched with its whole visible frame: a warning
 * message naming the pad and the values is posted once per change, and
 * no frame is lost.
 *
 * Since: 0.1
 */
#include "gstcudagraphbatchpad.h"
#include "batch/gstcudagraphbatch-enumtypes.h"
#include "buffers/gstcudagraphvideo.h"
#include "buffers/gstcudagraphcrop.h"
#include "props/gstcudagraphcropprops.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_graph_batch_pad_debug);
#define GST_CAT_DEFAULT gst_cuda_graph_batch_pad_debug

enum
{
  PROP_0,
  PROP_ROI_TYPE,
  PROP_BATCH_STRATEGY,
  PROP_CROP_FIRST,
};

#define DEFAULT_BATCH_STRATEGY GST_CUDA_GRAPH_BATCH_STRATEGY_ALL

struct _GstCudaGraphBatchPad
{
  GstPad parent;

  /* Properties, under the object lock. */
  GcgRect crop;
  gchar *roi_type;              /* a GRefString, as the element's */
  GstCudaGraphBatchStrategy strategy;

  /* Between upstream's thread and the collector (attached: set up). */
  GstCudaGraphBatchQueue queue;
  gboolean attached;
  gint flushed;                 /* atomic: a flush came, not yet taken */

  /* The collector thread only. */
  GstCudaGraphCropReport crop_report;
  GstSegment segment;
  gboolean eos;
  gboolean have_info;
  GstVideoInfo info;
  GcgFrameBatchSource source;
  /* The id of the last stream-start handled, in order with the buffers:
   * each batch's meta copies it, without looking up the sticky event. */
  gchar *stream_id;
  GstCudaGraphBatchPadWindow window;
  /* Its branch out (src_N), when one is paired. */
  GstCudaGraphBatchCamera camera;
  /* A buffer came (atomic: set in the upstream thread); a deadline passed
   * while none had (atomic: the collector's). */
  gint delivered;
  gint waited;
};

G_DEFINE_TYPE (GstCudaGraphBatchPad, gst_cuda_graph_batch_pad, GST_TYPE_PAD);

static void gst_cuda_graph_batch_pad_set_property (GObject *object,
    guint prop_id, const GValue *value, GParamSpec *pspec);
static void gst_cuda_graph_batch_pad_get_property (GObject *object,
    guint prop_id, GValue *value, GParamSpec *pspec);
static void gst_cuda_graph_batch_pad_finalize (GObject *object);

#define PLAYING_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)

static void
gst_cuda_graph_batch_pad_class_init (GstCudaGraphBatchPadClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->set_property = gst_cuda_graph_batch_pad_set_property;
  gobject_class->get_property = gst_cuda_graph_batch_pad_get_property;
  gobject_class->finalize = gst_cuda_graph_batch_pad_finalize;

  /* "crop-x", "crop-y", "crop-width", "crop-height": the elements' own
   * definition (gstcudagraphcropprops.c), named here for readers of this
   * file and tools/check/check-docs.py, which finds a pad's properties by
   * name in its source. */
  gst_cuda_graph_crop_props_install (gobject_class, PROP_CROP_FIRST);
  g_object_class_install_property (gobject_class, PROP_ROI_TYPE,
      g_param_spec_string ("roi-type", "ROI type",
          "Only region-of-interest metas of this type (NULL = the element's "
          "roi-type)",
          NULL, PLAYING_FLAGS));
  /**
   * GstCudaGraphBatchPad:batch-strategy:
   *
   * Which of the stream's frames in a batch's window of running time the
   * batch takes: all of them, the first or the last.
   *
   * Since: 0.2
   */
  g_object_class_install_property (gobject_class, PROP_BATCH_STRATEGY,
      g_param_spec_enum ("batch-strategy", "Batch strategy",
          "Which of the stream's frames in a batch's window the batch "
          "takes: all, the first (with-overlap: the one closest to the "
          "window's start, up to half a window before or after it) or the "
          "last",
          GST_TYPE_CUDA_GRAPH_BATCH_STRATEGY, DEFAULT_BATCH_STRATEGY,
          PLAYING_FLAGS));

  GST_DEBUG_CATEGORY_INIT (gst_cuda_graph_batch_pad_debug, "cudagraphbatchpad",
      0, "cudagraphbatch sink pad");
}

static void
gst_cuda_graph_batch_pad_init (GstCudaGraphBatchPad *self)
{
  self->strategy = DEFAULT_BATCH_STRATEGY;
  g_queue_init (&self->window.held);
  self->window.taken_until = GST_CLOCK_TIME_NONE;
  self->window.strategy = DEFAULT_BATCH_STRATEGY;
  gst_segment_init (&self->segment, GST_FORMAT_TIME);
  gst_cuda_graph_batch_camera_init (&self->camera);
}

static void
gst_cuda_graph_batch_pad_set_property (GObject *object, guint prop_id,
    const GValue *value, GParamSpec *pspec)
{
  GstCudaGraphBatchPad *self = GST_CUDA_GRAPH_BATCH_PAD (object);

  GST_OBJECT_LOCK (self);
  if (prop_id == PROP_ROI_TYPE) {
    g_clear_pointer (&self->roi_type, g_ref_string_release);
    if (g_value_get_string (value) != NULL)
      self->roi_type = g_ref_string_new (g_value_get_string (value));
  } else if (prop_id == PROP_BATCH_STRATEGY) {
    self->strategy = g_value_get_enum (value);
  } else if (!gst_cuda_graph_crop_props_set (&self->crop, PROP_CROP_FIRST,
                 prop_id, value)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_graph_batch_pad_finalize (GObject *object)
{
  GstCudaGraphBatchPad *self = GST_CUDA_GRAPH_BATCH_PAD (object);

  g_clear_pointer (&self->roi_type, g_ref_string_release);
  g_clear_pointer (&self->stream_id, g_free);
  gst_cuda_graph_batch_pad_clear_held (self);
  gst_cuda_graph_batch_camera_clear (&self->camera);
  if (self->attached)
    gst_cuda_graph_batch_queue_clear (&self->queue);

  G_OBJECT_CLASS (gst_cuda_graph_batch_pad_parent_class)->finalize (object);
}

static void
gst_cuda_graph_batch_pad_get_property (GObject *object, guint prop_id,
    GValue *value, GParamSpec *pspec)
{
  GstCudaGraphBatchPad *self = GST_CUDA_GRAPH_BATCH_PAD (object);

  GST_OBJECT_LOCK (self);
  if (prop_id == PROP_ROI_TYPE)
    g_value_set_string (value, self->roi_type);
  else if (prop_id == PROP_BATCH_STRATEGY)
    g_value_set_enum (value, self->strategy);
  else if (!gst_cuda_graph_crop_props_get (&self->crop, PROP_CROP_FIRST,
               prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
}

/* The stream's video info and description from @caps; FALSE (with a
 * warning) for caps the frame chain cannot read. */
static gboolean
describe_caps (GstCudaGraphBatchPad *self, GstCaps *caps, GstVideoInfo *info,
    GcgFrameBatchSource *source)
{
  memset (source, 0, sizeof (*source));
  if (gst_video_info_from_caps (info, caps)
      && gst_cuda_graph_describe_video (GST_OBJECT (self), info,
          &source->format, &source->matrix, &source->full_range))
    return TRUE;
  GST_WARNING_OBJECT (self, "unsupported caps %" GST_PTR_FORMAT, caps);
  return FALSE;
}

gboolean
gst_cuda_graph_batch_pad_check_caps (GstCudaGraphBatchPad *self, GstCaps *caps)
{
  GstVideoInfo info;
  GcgFrameBatchSource source;

  return describe_caps (self, caps, &info, &source);
}

gboolean
gst_cuda_graph_batch_pad_set_caps (GstCudaGraphBatchPad *self, GstCaps *caps)
{
  GstVideoInfo info;
  GcgFrameBatchSource source;

  if (!describe_caps (self, caps, &info, &source))
    return FALSE;
  source.width = GST_VIDEO_INFO_WIDTH (&info);
  source.height = GST_VIDEO_INFO_HEIGHT (&info);
  GST_DEBUG_OBJECT (self, "%s %ux%u", GST_VIDEO_INFO_NAME (&info), source.width,
      source.height);
  self->info = info;
  self->source = source;
  self->have_info = TRUE;
  return TRUE;
}

void
gst_cuda_graph_batch_pad_set_stream_start (GstCudaGraphBatchPad *self,
    GstEvent *event)
{
  const gchar *id = NULL;

  gst_event_parse_stream_start (event, &id);
  g_free (self->stream_id);
  self->stream_id = g_strdup (id);
}

const gchar *
gst_cuda_graph_batch_pad_get_stream_id (GstCudaGraphBatchPad *self)
{
  return self->stream_id;
}

const GstVideoInfo *
gst_cuda_graph_batch_pad_get_info (GstCudaGraphBatchPad *self)
{
  return self->have_info ? &self->info : NULL;
}

gboolean
gst_cuda_graph_batch_pad_get_source (GstCudaGraphBatchPad *self,
    GcgFrameBatchSource *source)
{
  if (!self->have_info)
    return FALSE;
  *source = self->source;
  return TRUE;
}

void
gst_cuda_graph_batch_pad_get_region (GstCudaGraphBatchPad *self,
    GstElement *element, GstBuffer *buffer, gint width, gint height,
    GcgRect *region)
{
  GcgRect crop;

  GST_OBJECT_LOCK (self);
  crop = self->crop;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_graph_crop_region (&self->crop_report, element, GST_PAD (self),
      buffer, width, height, &crop, region);
}

gchar *
gst_cuda_graph_batch_pad_ref_roi_type (GstCudaGraphBatchPad *self,
    gchar *fallback)
{
  gchar *roi_type;

  GST_OBJECT_LOCK (self);
  roi_type = self->roi_type ? self->roi_type : fallback;
  if (roi_type != NULL)
    g_ref_string_acquire (roi_type);
  GST_OBJECT_UNLOCK (self);
  return roi_type;
}

gboolean
gst_cuda_graph_batch_pad_has_delivered (GstCudaGraphBatchPad *self)
{
  return g_atomic_int_get (&self->delivered);
}

void
gst_cuda_graph_batch_pad_set_delivered (GstCudaGraphBatchPad *self,
    gboolean delivered)
{
  g_atomic_int_set (&self->delivered, delivered);
  if (!delivered)
    g_atomic_int_set (&self->waited, FALSE);
}

gboolean
gst_cuda_graph_batch_pad_is_inactive (GstCudaGraphBatchPad *self)
{
  return !g_atomic_int_get (&self->delivered)
      && g_atomic_int_get (&self->waited);
}

void
gst_cuda_graph_batch_pad_note_deadline (GstCudaGraphBatchPad *self)
{
  if (!g_atomic_int_get (&self->delivered))
    g_atomic_int_set (&self->waited, TRUE);
}

void
gst_cuda_graph_batch_pad_attach (GstCudaGraphBatchPad *self,
    GstCudaGraphBatchCollector *collector, guint depth)
{
  g_return_if_fail (!self->attached);
  gst_cuda_graph_batch_queue_init (&self->queue, collector, depth);
  self->attached = TRUE;
}

GstCudaGraphBatchQueue *
gst_cuda_graph_batch_pad_get_queue (GstCudaGraphBatchPad *self)
{
  return &self->queue;
}

GstSegment *
gst_cuda_graph_batch_pad_get_segment (GstCudaGraphBatchPad *self)
{
  return &self->segment;
}

gboolean
gst_cuda_graph_batch_pad_is_eos (GstCudaGraphBatchPad *self)
{
  return self->eos;
}

void
gst_cuda_graph_batch_pad_set_eos (GstCudaGraphBatchPad *self, gboolean eos)
{
  self->eos = eos;
}

void
gst_cuda_graph_batch_pad_mark_flushed (GstCudaGraphBatchPad *self)
{
  g_atomic_int_set (&self->flushed, TRUE);
}

void
gst_cuda_graph_batch_pad_take_flush (GstCudaGraphBatchPad *self)
{
  if (!g_atomic_int_compare_and_exchange (&self->flushed, TRUE, FALSE))
    return;
  gst_segment_init (&self->segment, GST_FORMAT_TIME);
  self->eos = FALSE;
  gst_cuda_graph_batch_pad_clear_held (self);
}

GstCudaGraphBatchStrategy
gst_cuda_graph_batch_pad_get_strategy (GstCudaGraphBatchPad *self)
{
  GstCudaGraphBatchStrategy strategy;

  GST_OBJECT_LOCK (self);
  strategy = self->strategy;
  GST_OBJECT_UNLOCK (self);
  return strategy;
}

GstCudaGraphBatchPadWindow *
gst_cuda_graph_batch_pad_get_window (GstCudaGraphBatchPad *self)
{
  return &self->window;
}

GstCudaGraphBatchCamera *
gst_cuda_graph_batch_pad_get_camera (GstCudaGraphBatchPad *self)
{
  return &self->camera;
}

void
gst_cuda_graph_batch_pad_drop_frame (GstCudaGraphBatchPad *self, GstBuffer *buf)
{
  gst_cuda_graph_batch_camera_pass (&self->camera, buf);
  gst_buffer_unref (buf);
}

void
gst_cuda_graph_batch_pad_drop_held (GstCudaGraphBatchPad *self, GQueue *held)
{
  GstBuffer *buf;

  while ((buf = g_queue_pop_head (held)) != NULL)
    gst_cuda_graph_batch_pad_drop_frame (self, buf);
}

void
gst_cuda_graph_batch_pad_clear_held (GstCudaGraphBatchPad *self)
{
  g_queue_clear_full (&self->window.held, (GDestroyNotify) gst_buffer_unref);
  gst_clear_buffer (&self->window.spare);
  self->window.taken_until = GST_CLOCK_TIME_NONE;
  self->window.warned_full = FALSE;
}
