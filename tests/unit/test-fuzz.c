/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A deterministic fuzz test of the three elements on the CPU backend (a
 * quarter of the cases cudagraphbatch with 1 to 3 streams): random
 * caps (every format, odd and tiny sizes), GstVideoMeta layouts (valid
 * with padding, and garbage: offsets and strides past the buffer), crop
 * and region-of-interest metas (out of frame, huge), "GcgParamsMeta"
 * values (NaN, inf, wrong types) and property strings.  What is checked:
 * nothing crashes, GLib logs nothing (property strings outside a
 * property's declared range are GLib's to refuse and are skipped, see
 * set_prop()), and every output buffer is as large as its negotiated caps
 * say (a passthrough output: the bytes of the frame pushed; a one-colour
 * frame's output without letterbox: of one colour).  Refused caps
 * and dropped frames
 * are fine.  Under the sanitizer build (tests/meson.build's `asan` setup)
 * any out-of-bounds access is a report and fails the test.
 *
 * Each case draws from its own GRand seeded with (seed, case number), so a
 * failing case can be run alone.  Every case asked for runs (no time
 * cap: the test fails if fewer ran) and a batch case ends with EOS on
 * every stream and waits for the batches before it, so what is checked
 * does not depend on the machine's speed; a case that never ends fails
 * after a watchdog (DRAIN_WATCHDOG_S) with its number.
 *
 *   GCG_FUZZ_SEED=N      seed (default: fixed, printed)
 *   GCG_FUZZ_CASES=N     number of cases (default 4000)
 *   GCG_FUZZ_FIRST=N     first case to run (default 0)
 *   GCG_FUZZ_VERBOSE=1   describe every case before it runs
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/base/gstbasetransform.h>

#include "gcg-gst-test-util.h"
#include "common/gcg-test-fuzz.h"
#include "common/gcg-test-watchdog.h"

#define DEFAULT_SEED 20261123u
/* Wide enough to reach the batch cases that once hung (1845, 2019: three
 * streams, batch-size 1, the third stream never taken); about 15 s here,
 * three times that under ASan. */
#define DEFAULT_CASES 4000

static const gchar *formats[] = { "NV12", "I420", "RGBA", "BGRA", "RGB", "BGR",
  "GRAY8" };

/* What the current case is, for the failure message. */
static GString *case_desc;
static guint case_no;
static guint32 fuzz_seed;
static guint out_of_range;
static guint batch_cases, batch_outputs, passthrough_outputs, uniform_outputs;

/* gcg-test-fuzz.h's check, naming this case's description. */
#define FUZZ_CHECK(cond, ...) \
  GCG_FUZZ_CHECK (case_desc->str, fuzz_seed, case_no, cond, __VA_ARGS__)

/* Any GLib-GObject warning while a property string is set fails the test:
 * set_prop() hands GLib only values inside the property's declared range,
 * so a warning is something our element did. */
static void
property_warning (const gchar *domain, GLogLevelFlags level,
    const gchar *message, gpointer user_data)
{
  g_printerr ("fuzz case %u (GCG_FUZZ_SEED=%u GCG_FUZZ_FIRST=%u "
              "GCG_FUZZ_CASES=1): %s\n  unexpected: %s\n",
      case_no, fuzz_seed, case_no, case_desc->str, message);
  g_error ("unexpected %s warning", domain);
}

static gboolean
chance (GRand *r, gdouble p)
{
  return g_rand_double (r) < p;
}

static const gchar *
pick (GRand *r, const gchar *const *v, guint n)
{
  return v[g_rand_int_range (r, 0, n)];
}

#define PICK(r, v) pick ((r), (v), G_N_ELEMENTS (v))

/* Sizes: mostly tiny or odd, up to 300. */
static gint
rand_dim (GRand *r)
{
  switch (g_rand_int_range (r, 0, 4)) {
    case 0:
      return g_rand_int_range (r, 1, 5);
    case 1:
      return g_rand_int_range (r, 1, 33) | 1;
    default:
      return g_rand_int_range (r, 1, 301);
  }
}

static gchar *
rand_double_str (GRand *r)
{
  static const gchar *special[] = { "nan", "-nan", "inf", "-inf", "1e309",
    "-1e309", "1e39", "-1e39", "1e-45", "0", "-0", "abc", "", "0x10", "1,2",
    "3.4e38", "100.0001", "-1.0001" };

  if (chance (r, 0.4))
    return g_strdup (PICK (r, special));
  return g_strdup_printf ("%g",
      g_rand_double_range (r, -3.0, 3.0) * (chance (r, 0.2) ? 100.0 : 1.0));
}

static gchar *
rand_uint_str (GRand *r, guint max)
{
  static const gchar *special[] = { "0", "-1", "4294967296", "2147483647",
    "2147483648", "abc", "", "1e3", "0x20", "1.5" };

  if (chance (r, 0.25))
    return g_strdup (PICK (r, special));
  return g_strdup_printf ("%u", (guint) (g_rand_int (r) % ((guint64) max + 1)));
}

/* A mean/std string: 0 to 5 numbers, some of them not numbers. */
static gchar *
rand_list_str (GRand *r)
{
  static const gchar *odd[] = { "nan", "inf", "-inf", "", "1e-45", "0", "-0",
    "x", "1e39", " ", "0.5 ", "-0.25", "1e-300" };
  guint n = g_rand_int_range (r, 0, 6);
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n; i++) {
    if (i)
      g_string_append_c (s, chance (r, 0.95) ? ',' : ';');
    if (chance (r, 0.2))
      g_string_append (s, PICK (r, odd));
    else
      g_string_append_printf (s, "%g", g_rand_double_range (r, 0.01, 1.0));
  }
  return g_string_free (s, FALSE);
}

static gchar *
rand_enum_str (GRand *r, const gchar *const *nicks, guint n)
{
  static const gchar *bad[] = { "", "7", "-1", "0", "1", "2", "NCHW", "bogus" };

  if (chance (r, 0.2))
    return g_strdup (PICK (r, bad));
  return g_strdup (pick (r, nicks, n));
}

/* An element refusing a value inside the pspec's range that it cannot
 * use (a mean/std string that does not parse: gst/props/gstcudagraphrefuse.c)
 * is expected; any other warning of ours while a property is set is not. */
static void
refusal_warning (const gchar *domain, GLogLevelFlags level,
    const gchar *message, gpointer user_data)
{
  if (strstr (message, ": refusing property '") != NULL)
    return;
  property_warning (domain, level, message, user_data);
}

/* Sets @value as gst-launch would parse it.  A string that does not parse,
 * or parses to a value outside the property's declared range (NaN, inf,
 * -1.6 for gain), never reaches the element: GLib refuses it before
 * set_property (a warning on GLib 2.74, a critical on 2.84), which is
 * GLib's behaviour, not ours, so it is counted and skipped here.  What
 * reaches the element is inside the range and must be handled. */
static void
set_prop (GstElement *e, const gchar *name, const gchar *value)
{
  GParamSpec *pspec =
      g_object_class_find_property (G_OBJECT_GET_CLASS (e), name);
  g_auto (GValue) v = G_VALUE_INIT;
  GLogLevelFlags fatal;
  guint id, own;

  g_string_append_printf (case_desc, " %s=\"%s\"", name, value);
  if (pspec == NULL)
    return;
  g_value_init (&v, pspec->value_type);
  if (!gst_value_deserialize_with_pspec (&v, value, pspec)
      || !g_param_value_is_valid (pspec, &v)) {
    out_of_range++;
    g_string_append (case_desc, " (refused by its pspec)");
    return;
  }
  fatal = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);
  id = g_log_set_handler ("GLib-GObject", G_LOG_LEVEL_WARNING, property_warning,
      NULL);
  own = g_log_set_handler ("GstCudaGraph", G_LOG_LEVEL_WARNING, refusal_warning,
      NULL);
  g_object_set_property (G_OBJECT (e), name, &v);
  g_log_remove_handler ("GstCudaGraph", own);
  g_log_remove_handler ("GLib-GObject", id);
  g_log_set_always_fatal (fatal);
}

static void
set_prop_take (GstElement *e, const gchar *name, gchar *value)
{
  set_prop (e, name, value);
  g_free (value);
}

/* Random properties of cudagraphconvert. */
static void
fuzz_convert_props (GRand *r, GstElement *e)
{
  static const gchar *crop[] = { "crop-x", "crop-y", "crop-width",
    "crop-height" };
  static const gchar *colour[] = { "brightness", "contrast", "gamma", "gain" };
  static const gchar *letterbox[] = { "none", "symmetric", "top-left" };
  static const gchar *method[] = { "nearest", "bilinear" };
  guint n = g_rand_int_range (r, 0, 6);

  for (guint i = 0; i < n; i++) {
    switch (g_rand_int_range (r, 0, 6)) {
      case 0:
      case 1:
        set_prop_take (e, PICK (r, crop), rand_uint_str (r, 320));
        break;
      case 2:
        set_prop_take (e, PICK (r, colour), rand_double_str (r));
        break;
      case 3:
        set_prop_take (e, "letterbox",
            rand_enum_str (r, letterbox, G_N_ELEMENTS (letterbox)));
        break;
      case 4:
        set_prop_take (e, "method",
            rand_enum_str (r, method, G_N_ELEMENTS (method)));
        break;
      default:
        set_prop_take (e, "pad-color", rand_uint_str (r, G_MAXINT));
        break;
    }
  }
}

/* Random properties of cudagraphpreprocess.  The tensor size (width x
 * height x max-rois) is kept within a few MiB, except for a rare request
 * far over the element's limit, which it must refuse before allocating. */
static void
fuzz_preprocess_props (GRand *r, GstElement *e)
{
  static const gchar *letterbox[] = { "none", "symmetric", "top-left" };
  static const gchar *method[] = { "nearest", "bilinear" };
  static const gchar *ttype[] = { "float32", "float16", "uint8" };
  static const gchar *layout[] = { "nchw", "nhwc" };
  static const gchar *channels[] = { "rgb", "bgr", "gray" };
  static const gchar *roi_type[] = { "car", "person", "",
    "gcg-fuzz-unused-roi-type" };
  static const gchar *dims_bad[] = { "0", "-1", "16385", "abc", "", "1e3" };
  guint n = g_rand_int_range (r, 0, 7);

  /* Size first: width, height and batch together. */
  if (chance (r, 0.02)) {
    set_prop (e, "width", "16384");
    set_prop (e, "height", "16384");
    set_prop (e, "max-rois", "64");
  } else {
    guint w = g_rand_int_range (r, 1, 129), h = g_rand_int_range (r, 1, 129);
    guint rois = chance (r, 0.7) ? g_rand_int_range (r, 1, 5)
                                 : g_rand_int_range (r, 0, 66);

    if (chance (r, 0.05)) {
      w = 16384;
      h = g_rand_int_range (r, 1, 3);
    }
    while ((guint64) w * h * MAX (rois, 1) > (1 << 18))
      rois = rois / 2;
    if (chance (r, 0.1))
      set_prop (e, "width", PICK (r, dims_bad));
    else
      set_prop_take (e, "width", g_strdup_printf ("%u", w));
    if (chance (r, 0.1))
      set_prop (e, "height", PICK (r, dims_bad));
    else
      set_prop_take (e, "height", g_strdup_printf ("%u", h));
    set_prop_take (e, "max-rois", g_strdup_printf ("%u", rois));
  }

  for (guint i = 0; i < n; i++) {
    switch (g_rand_int_range (r, 0, 11)) {
      case 0:
      case 1:
        /* mean and std often come together (neither alone is used). */
        set_prop_take (e, "mean", rand_list_str (r));
        if (chance (r, 0.7))
          set_prop_take (e, "std", rand_list_str (r));
        break;
      case 2:
        set_prop_take (e, "std", rand_list_str (r));
        break;
      case 3:
        set_prop_take (e,
            PICK (r, ((const gchar *[]) { "scale", "offset", "pad-value" })),
            rand_double_str (r));
        break;
      case 4:
        set_prop_take (e, "tensor-type",
            rand_enum_str (r, ttype, G_N_ELEMENTS (ttype)));
        break;
      case 5:
        set_prop_take (e, "layout",
            rand_enum_str (r, layout, G_N_ELEMENTS (layout)));
        break;
      case 6:
        set_prop_take (e, "channels",
            rand_enum_str (r, channels, G_N_ELEMENTS (channels)));
        break;
      case 7:
        set_prop_take (e, "letterbox",
            rand_enum_str (r, letterbox, G_N_ELEMENTS (letterbox)));
        break;
      case 8:
        set_prop_take (e, "method",
            rand_enum_str (r, method, G_N_ELEMENTS (method)));
        break;
      case 9:
        if (chance (r, 0.2)) {
          g_string_append (case_desc, " roi-type=NULL");
          g_object_set (e, "roi-type", NULL, NULL);
        } else {
          set_prop (e, "roi-type", PICK (r, roi_type));
        }
        break;
      default:
        set_prop_take (e, "in-flight", rand_uint_str (r, 17));
        break;
    }
  }
}

/* Fills @data with bytes from a xorshift seeded by @r (g_rand per byte is
 * too slow under the sanitizer). */
static void
fill_random (GRand *r, guint8 *data, gsize size)
{
  guint32 x = g_rand_int (r) | 1;

  for (gsize i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    data[i] = (guint8) x;
  }
}

static GstBuffer *
new_filled_buffer (GRand *r, gsize size)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);
  GstMapInfo map;

  g_assert_nonnull (buf);
  g_assert_true (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  fill_random (r, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  return buf;
}

static gint
rand_stride (GRand *r, gint dflt)
{
  switch (g_rand_int_range (r, 0, 9)) {
    case 0:
      return 0;
    case 1:
      return -dflt;
    case 2:
      return dflt / 2;
    case 3:
      return 1 << 28;
    case 4:
      return G_MAXINT;
    case 5:
      return G_MININT;
    case 6:
      return dflt + g_rand_int_range (r, 1, 64);
    case 7:
      return g_rand_int_range (r, 1, 2048);
    default:
      return dflt;
  }
}

static gsize
rand_offset (GRand *r, gsize dflt, gsize size)
{
  switch (g_rand_int_range (r, 0, 7)) {
    case 0:
      return 0;
    case 1:
      return size;
    case 2:
      return size + g_rand_int_range (r, 1, 4096);
    case 3:
      return G_MAXSIZE - g_rand_int_range (r, 0, 4096);
    case 4:
      return (gsize) G_MAXINT + 1;
    case 5:
      return g_rand_int_range (r, 0, MAX ((gint) size, 1) + 1);
    default:
      return dflt;
  }
}

/* One input frame of @info with a random layout: a plain buffer (of the
 * right size, or short or long), a GstVideoMeta of a valid padded layout,
 * a meta of another size than the caps, or garbage offsets and strides. */
static GstBuffer *
fuzz_frame (GRand *r, const GstVideoInfo *info)
{
  GstVideoFormat fmt = GST_VIDEO_INFO_FORMAT (info);
  guint n_planes = GST_VIDEO_INFO_N_PLANES (info);
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
  GstBuffer *buf;
  guint mode = g_rand_int_range (r, 0, 10);

  switch (mode) {
    case 0:
    case 1:
    case 2: {
      /* Plain, the size the caps say. */
      g_string_append (case_desc, " [plain]");
      return new_filled_buffer (r, info->size);
    }
    case 3: {
      /* Plain, short or long. */
      gsize size = chance (r, 0.6)
          ? (gsize) g_rand_int_range (r, 1, MAX ((gint) info->size, 2))
          : info->size + g_rand_int_range (r, 1, 256);

      g_string_append_printf (case_desc, " [plain %" G_GSIZE_FORMAT "]", size);
      return new_filled_buffer (r, size);
    }
    case 4:
    case 5: {
      /* Valid: padding around the picture, aligned strides. */
      GstVideoInfo padded = *info;
      GstVideoAlignment align;
      guint extra = chance (r, 0.5) ? 0 : g_rand_int_range (r, 1, 128);

      gst_video_alignment_reset (&align);
      align.padding_top = g_rand_int_range (r, 0, 5) * 2;
      align.padding_bottom = g_rand_int_range (r, 0, 5) * 2;
      align.padding_left = g_rand_int_range (r, 0, 9) * 2;
      align.padding_right = g_rand_int_range (r, 0, 9) * 2;
      for (guint p = 0; p < n_planes; p++)
        align.stride_align[p] = (1u << g_rand_int_range (r, 0, 7)) - 1;
      g_assert_true (gst_video_info_align (&padded, &align));
      for (guint p = 0; p < n_planes; p++) {
        offset[p] = padded.offset[p];
        stride[p] = padded.stride[p];
      }
      buf = new_filled_buffer (r, padded.size + extra);
      g_string_append_printf (case_desc, " [padded %" G_GSIZE_FORMAT "]",
          padded.size + extra);
      gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, fmt,
          info->width, info->height, n_planes, offset, stride);
      return buf;
    }
    case 6: {
      /* A meta of another size than the caps, laid out right for
       * itself. */
      GstVideoInfo other;
      gint w = rand_dim (r), h = rand_dim (r);

      g_assert_true (gst_video_info_set_format (&other, fmt, w, h));
      for (guint p = 0; p < n_planes; p++) {
        offset[p] = other.offset[p];
        stride[p] = other.stride[p];
      }
      buf = new_filled_buffer (r,
          chance (r, 0.5) ? other.size : MAX (other.size, info->size));
      g_string_append_printf (case_desc, " [meta %dx%d in %" G_GSIZE_FORMAT "]",
          w, h, gst_buffer_get_size (buf));
      gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, fmt, w, h,
          n_planes, offset, stride);
      return buf;
    }
    default: {
      /* Garbage. */
      gsize size = chance (r, 0.5)
          ? info->size
          : (gsize) g_rand_int_range (r, 1, (gint) info->size * 2 + 2);

      buf = new_filled_buffer (r, size);
      g_string_append_printf (case_desc, " [garbage %" G_GSIZE_FORMAT, size);
      for (guint p = 0; p < n_planes; p++) {
        offset[p] = rand_offset (r, info->offset[p], size);
        stride[p] = rand_stride (r, info->stride[p]);
        g_string_append_printf (case_desc, " %" G_GSIZE_FORMAT "/%d", offset[p],
            stride[p]);
      }
      g_string_append (case_desc, "]");
      gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, fmt,
          info->width, info->height, n_planes, offset, stride);
      return buf;
    }
  }
}

static guint
rand_coord (GRand *r, gint dim)
{
  switch (g_rand_int_range (r, 0, 8)) {
    case 0:
      return 0;
    case 1:
      return dim;
    case 2:
      return (guint) dim + g_rand_int_range (r, 1, 1000);
    case 3:
      return G_MAXUINT - g_rand_int_range (r, 0, 16);   /* "negative" */
    case 4:
      return (guint) G_MAXINT - g_rand_int_range (r, 0, 16);
    default:
      return g_rand_int_range (r, 0, dim + 1);
  }
}

static void
fuzz_metas (GRand *r, GstBuffer *buf, const GstVideoInfo *info,
    gboolean preprocess)
{
  static const gchar *roi_types[] = { "car", "person", "face",
    "gcg-fuzz-unused-roi-type" };

  if (chance (r, 0.3)) {
    GstVideoCropMeta *c = gst_buffer_add_video_crop_meta (buf);

    c->x = rand_coord (r, info->width);
    c->y = rand_coord (r, info->height);
    c->width = rand_coord (r, info->width);
    c->height = rand_coord (r, info->height);
    g_string_append_printf (case_desc, " crop(%u,%u %ux%u)", c->x, c->y,
        c->width, c->height);
  }
  if (preprocess && chance (r, 0.5)) {
    guint n = chance (r, 0.9) ? g_rand_int_range (r, 1, 5)
                              : g_rand_int_range (r, 5, 80);

    g_string_append_printf (case_desc, " rois(%u):", n);
    for (guint i = 0; i < n; i++) {
      guint x = rand_coord (r, info->width), y = rand_coord (r, info->height);
      guint w = rand_coord (r, info->width), h = rand_coord (r, info->height);
      GstVideoRegionOfInterestMeta *m;

      if (chance (r, 0.2))
        m = gst_buffer_add_video_region_of_interest_meta_id (buf, 0, x, y, w,
            h);
      else
        m = gst_buffer_add_video_region_of_interest_meta (buf,
            PICK (r, roi_types), x, y, w, h);
      m->id = g_rand_int (r);
      m->parent_id = chance (r, 0.1) ? (gint) g_rand_int (r) : -1;
      if (i < 6)
        g_string_append_printf (case_desc, " (%u,%u %ux%u)", x, y, w, h);
    }
  }
  if (chance (r, 0.4)) {
    static const gchar *fields[] = { "brightness", "contrast", "gamma", "gain",
      "scale", "offset" };
    static const gdouble special[] = { NAN, INFINITY, -INFINITY, 0.0, -0.0,
      1e300, -1e300, 1e39, 1e-300, 100.0, 0.01 };
    GstCustomMeta *meta = gst_buffer_add_custom_meta (buf, "GcgParamsMeta");
    GstStructure *s;
    guint n = g_rand_int_range (r, 0, 5);

    g_assert_nonnull (meta);
    s = gst_custom_meta_get_structure (meta);
    g_string_append (case_desc, " params(");
    for (guint i = 0; i < n; i++) {
      const gchar *f = PICK (r, fields);

      switch (g_rand_int_range (r, 0, 6)) {
        case 0:
          gst_structure_set (s, f, G_TYPE_STRING, "0.5", NULL);
          g_string_append_printf (case_desc, " %s=\"0.5\"", f);
          break;
        case 1:
          gst_structure_set (s, f, G_TYPE_INT, (gint) g_rand_int (r), NULL);
          g_string_append_printf (case_desc, " %s=(int)", f);
          break;
        case 2:
        case 3: {
          gdouble v = special[g_rand_int_range (r, 0, G_N_ELEMENTS (special))];
          gst_structure_set (s, f, G_TYPE_DOUBLE, v, NULL);
          g_string_append_printf (case_desc, " %s=%g", f, v);
          break;
        }
        default: {
          gdouble v = g_rand_double_range (r, -2.0, 3.0);
          gst_structure_set (s, f, G_TYPE_DOUBLE, v, NULL);
          g_string_append_printf (case_desc, " %s=%g", f, v);
          break;
        }
      }
    }
    g_string_append (case_desc, " )");
  }
}

static guint
tensor_type_size (const gchar *type)
{
  if (g_strcmp0 (type, "float32") == 0)
    return 4;
  if (g_strcmp0 (type, "float16") == 0)
    return 2;
  if (g_strcmp0 (type, "uint8") == 0)
    return 1;
  return 0;
}

/* The output buffer against the caps it was negotiated with. */
static void
check_output (GstBuffer *out, GstCaps *caps)
{
  g_autofree gchar *caps_str = caps ? gst_caps_to_string (caps) : NULL;
  GstStructure *s;
  gsize size = gst_buffer_get_size (out);
  GstMapInfo map;
  guint8 sum = 0;

  FUZZ_CHECK (caps != NULL, "output without caps");
  s = gst_caps_get_structure (caps, 0);
  if (gst_structure_has_name (s, "other/tensors")) {
    const gchar *dims = gst_structure_get_string (s, "dimensions");
    const gchar *types = gst_structure_get_string (s, "types");
    gint n_tensors = 0;
    guint64 expect = 1;
    g_auto (GStrv) d = NULL;

    FUZZ_CHECK (gst_structure_get_int (s, "num_tensors", &n_tensors)
            && n_tensors == 1,
        "%s", caps_str);
    FUZZ_CHECK (dims != NULL && types != NULL, "%s", caps_str);
    d = g_strsplit (dims, ":", -1);
    for (guint i = 0; d[i]; i++)
      expect *= g_ascii_strtoull (d[i], NULL, 10);
    expect *= tensor_type_size (types);
    FUZZ_CHECK (expect != 0, "%s", caps_str);
    FUZZ_CHECK (size == expect,
        "tensor of %" G_GSIZE_FORMAT " bytes, caps "
        "say %" G_GUINT64_FORMAT " (%s)",
        size, expect, caps_str);
  } else {
    GstVideoInfo info;
    GstVideoMeta *vm = gst_buffer_get_video_meta (out);

    FUZZ_CHECK (gst_video_info_from_caps (&info, caps), "%s", caps_str);
    if (vm == NULL) {
      FUZZ_CHECK (size == info.size,
          "frame of %" G_GSIZE_FORMAT " bytes, "
          "caps say %" G_GSIZE_FORMAT " (%s)",
          size, info.size, caps_str);
    } else {
      const GstVideoFormatInfo *finfo = info.finfo;

      FUZZ_CHECK (vm->format == GST_VIDEO_INFO_FORMAT (&info)
              && (gint) vm->width == info.width
              && (gint) vm->height == info.height,
          "video meta %ux%u, caps %s", vm->width, vm->height, caps_str);
      /* Every row of every plane inside the buffer. */
      for (guint p = 0; p < vm->n_planes; p++) {
        gint comp[GST_VIDEO_MAX_COMPONENTS];
        guint64 rows, row_bytes;

        gst_video_format_info_component (finfo, p, comp);
        rows = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comp[0], info.height);
        row_bytes = (guint64) GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, comp[0])
            * GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (finfo, comp[0], info.width);
        FUZZ_CHECK (vm->stride[p] >= 0 && (guint64) vm->stride[p] >= row_bytes
                && vm->offset[p] + (rows - 1) * vm->stride[p] + row_bytes
                    <= size,
            "plane %u: offset %" G_GSIZE_FORMAT " stride %d in %" G_GSIZE_FORMAT
            " bytes (%s)",
            p, vm->offset[p], vm->stride[p], size, caps_str);
      }
    }
  }
  /* Every byte readable (a sanitizer report otherwise). */
  FUZZ_CHECK (gst_buffer_map (out, &map, GST_MAP_READ), "map");
  for (gsize i = 0; i < map.size; i++)
    sum ^= map.data[i];
  gst_buffer_unmap (out, &map);
  (void) sum;
}

/* A frame of one colour, the size its caps say: every byte @v (YUV:
 * luma @v, neutral chroma). */
static GstBuffer *
uniform_frame (const GstVideoInfo *info, guint8 v)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstMapInfo map;

  g_assert_true (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  memset (map.data, v, map.size);
  if (GST_VIDEO_INFO_IS_YUV (info))
    for (guint p = 1; p < GST_VIDEO_INFO_N_PLANES (info); p++)
      memset (map.data + GST_VIDEO_INFO_PLANE_OFFSET (info, p), 128,
          map.size - GST_VIDEO_INFO_PLANE_OFFSET (info, p));
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* A video output of a one-colour frame without letterbox padding is of
 * one colour too, whatever the crop, scaling, conversion and adjustment:
 * in each plane every pixel has the bytes of the first. */
static void
check_uniform (GstBuffer *out, GstCaps *caps)
{
  GstVideoInfo info;
  GstVideoFrame frame;

  if (!gst_structure_has_name (gst_caps_get_structure (caps, 0), "video/x-raw")
      || !gst_video_info_from_caps (&info, caps)
      || !gst_video_frame_map (&frame, &info, out, GST_MAP_READ))
    return;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
    guint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, p);
    gint w = GST_VIDEO_FRAME_COMP_WIDTH (&frame, p);
    gint h = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, p);

    for (gint y = 0; y < h; y++)
      for (gint x = 0; x < w; x++)
        FUZZ_CHECK (memcmp (data + (gsize) y * stride + (gsize) x * ps, data,
                        ps)
                == 0,
            "plane %u pixel %d,%d differs from pixel 0,0 of a "
            "one-colour frame",
            p, x, y);
  }
  gst_video_frame_unmap (&frame);
  uniform_outputs++;
}

/* A copy of @buf's bytes. */
static GBytes *
buffer_bytes (GstBuffer *buf)
{
  GstMapInfo map;
  GBytes *bytes;

  g_assert_true (gst_buffer_map (buf, &map, GST_MAP_READ));
  bytes = g_bytes_new (map.data, map.size);
  gst_buffer_unmap (buf, &map);
  return bytes;
}

static gchar *
rand_video_caps (GRand *r, const gchar *fmt, gint w, gint h)
{
  return g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
                          "framerate=30/1",
      fmt, w, h);
}

static gboolean
letterboxed (GstElement *e)
{
  gint letterbox = 0;

  g_object_get (e, "letterbox", &letterbox, NULL);
  return letterbox != 0;
}

static void
run_case (GRand *r, guint *outputs)
{
  gboolean preprocess = chance (r, 0.5);
  const gchar *factory = preprocess ? "cudagraphpreprocess"
                                    : "cudagraphconvert";
  GstElement *e = gst_element_factory_make (factory, NULL);
  g_autofree gchar *in_caps = NULL, *out_caps = NULL;
  GstHarness *h;
  GstVideoInfo info;
  guint n_frames;

  g_assert_nonnull (e);
  g_string_append (case_desc, factory);
  gst_util_set_object_arg (G_OBJECT (e), "backend", "cpu");
  if (preprocess)
    fuzz_preprocess_props (r, e);
  else
    fuzz_convert_props (r, e);

  in_caps = rand_video_caps (r, PICK (r, formats), rand_dim (r), rand_dim (r));
  if (!preprocess && chance (r, 0.6))
    out_caps = chance (r, 0.5)
        ? rand_video_caps (r, PICK (r, formats), rand_dim (r), rand_dim (r))
        : g_strdup_printf ("video/x-raw,format=%s", PICK (r, formats));
  g_string_append_printf (case_desc, " | %s -> %s", in_caps,
      out_caps ? out_caps : "ANY");

  h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h, in_caps);
  if (out_caps)
    gst_harness_set_sink_caps_str (h, out_caps);
  info = gcg_test_info (in_caps);

  n_frames = g_rand_int_range (r, 1, 4);
  for (guint f = 0; f < n_frames; f++) {
    GstBuffer *in, *out;
    GBytes *in_bytes;
    GstFlowReturn ret;
    gboolean uniform;

    /* Now and then a new input size mid-stream. */
    if (f > 0 && chance (r, 0.15)) {
      g_free (in_caps);
      in_caps =
          rand_video_caps (r, PICK (r, formats), rand_dim (r), rand_dim (r));
      g_string_append_printf (case_desc, " | caps %s", in_caps);
      gst_harness_set_src_caps_str (h, in_caps);
      info = gcg_test_info (in_caps);
    }
    /* Now and then a frame of one colour, whose output is known to be of
     * one colour too (cudagraphconvert without letterbox). */
    uniform = !preprocess && chance (r, 0.2);
    if (uniform) {
      guint8 v = (guint8) g_rand_int_range (r, 0, 256);

      g_string_append_printf (case_desc, " [uniform %u]", v);
      in = uniform_frame (&info, v);
    } else {
      in = fuzz_frame (r, &info);
    }
    fuzz_metas (r, in, &info, preprocess);
    GST_BUFFER_PTS (in) = f * GST_SECOND / 30;
    GST_BUFFER_DURATION (in) = GST_SECOND / 30;
    if (g_getenv ("GCG_FUZZ_VERBOSE"))
      g_printerr ("case %u frame %u: %s\n", case_no, f, case_desc->str);
    in_bytes = buffer_bytes (in);
    ret = gst_harness_push (h, in);
    /* Refused caps and errors are fine; flushing and EOS never come. */
    FUZZ_CHECK (ret == GST_FLOW_OK || ret == GST_FLOW_NOT_NEGOTIATED
            || ret == GST_FLOW_ERROR,
        "push returned %s", gst_flow_get_name (ret));
    while ((out = gst_harness_try_pull (h)) != NULL) {
      g_autoptr (GstCaps) caps = gst_pad_get_current_caps (h->sinkpad);

      /* In passthrough the input goes on as upstream made it: the very
       * bytes of the frame just pushed (the CPU backend pushes each
       * output from inside the push). */
      if (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM (h->element))) {
        g_autoptr (GBytes) out_bytes = buffer_bytes (out);

        FUZZ_CHECK (g_bytes_equal (out_bytes, in_bytes),
            "passthrough "
            "output of %" G_GSIZE_FORMAT
            " bytes is not the input of %" G_GSIZE_FORMAT,
            g_bytes_get_size (out_bytes), g_bytes_get_size (in_bytes));
        passthrough_outputs++;
      } else {
        check_output (out, caps);
        if (uniform && !letterboxed (h->element))
          check_uniform (out, caps);
      }
      gst_buffer_unref (out);
      (*outputs)++;
    }
    g_bytes_unref (in_bytes);
    if (ret != GST_FLOW_OK)
      break;
  }
  gst_harness_teardown (h);
}

/* How long a batch case may take to drain after its EOS before the test
 * fails as hung (a watchdog, not a wait for something that may not come:
 * a healthy case drains in milliseconds, but one with 16384-wide tensors
 * takes seconds of CPU backend under AddressSanitizer, and tens of them
 * on two busy cores: case 2620 of the default seed took past 20 s). */
#define DRAIN_WATCHDOG_S 60

/* Ends a batch case deterministically: EOS on every stream, then waits
 * for the EOS (or the error) that must follow, and checks every batch
 * made before it.  A case that neither ends nor errors within
 * DRAIN_WATCHDOG_S is a hang (issue 22: the collect loop starving a
 * stream) and fails with the case number. */
static void
drain_batch (GstHarness **h, guint n_pads, GstBus *bus, guint *outputs)
{
  gint64 end = g_get_monotonic_time () + DRAIN_WATCHDOG_S * G_USEC_PER_SEC;
  gboolean done = FALSE;
  GstBuffer *out;

  for (guint i = 0; i < n_pads; i++)
    gst_harness_push_event (h[i], gst_event_new_eos ());
  while (!done) {
    GstEvent *ev = gst_harness_try_pull_event (h[0]);
    g_autoptr (GstMessage) msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

    if (ev != NULL) {
      done = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
      gst_event_unref (ev);
    } else if (msg != NULL) {
      done = TRUE;
    } else {
      FUZZ_CHECK (g_get_monotonic_time () < end,
          "no EOS nor error %d s "
          "after EOS on every stream: cudagraphbatch hangs",
          DRAIN_WATCHDOG_S);
      g_usleep (100);
    }
  }
  /* Batches are pushed before the EOS that follows them. */
  while ((out = gst_harness_try_pull (h[0])) != NULL) {
    g_autoptr (GstCaps) c = gst_pad_get_current_caps (h[0]->sinkpad);

    check_output (out, c);
    gst_buffer_unref (out);
    (*outputs)++;
    batch_outputs++;
  }
}

/* cudagraphbatch with 1 to 3 streams, each with its own random caps,
 * frames and metas (caps changing now and then), one frame per stream per
 * round.  Every batch that comes out must match its caps; a stream whose
 * frames are refused must not stall or crash the others. */
static void
run_batch_case (GRand *r, guint *outputs)
{
  GstElement *e = gst_element_factory_make ("cudagraphbatch", NULL);
  g_autoptr (GstBus) bus = gst_bus_new ();
  GstHarness *h[3] = { NULL };
  GstVideoInfo info[3];
  gchar *caps[3] = { NULL };
  guint n_pads = g_rand_int_range (r, 1, 4);
  guint n_frames = g_rand_int_range (r, 1, 4);

  g_assert_nonnull (e);
  batch_cases++;
  g_string_append_printf (case_desc, "cudagraphbatch, %u streams", n_pads);
  gst_util_set_object_arg (G_OBJECT (e), "backend", "cpu");
  fuzz_preprocess_props (r, e);
  if (chance (r, 0.3))
    set_prop_take (e, "batch-size", rand_uint_str (r, 5));
  for (guint i = 0; i < n_pads; i++) {
    h[i] = gst_harness_new_with_element (e, "sink_%u", i == 0 ? "src" : NULL);
    caps[i] =
        rand_video_caps (r, PICK (r, formats), rand_dim (r), rand_dim (r));
    g_string_append_printf (case_desc, " | sink_%u %s", i, caps[i]);
    gst_harness_set_src_caps_str (h[i], caps[i]);
    info[i] = gcg_test_info (caps[i]);
  }
  gst_object_unref (e);

  /* Its errors, so that a case the element ended with one is known to
   * be over (GstHarness gives the element no bus). */
  gst_element_set_bus (h[0]->element, bus);
  for (guint f = 0; f < n_frames; f++) {
    GstFlowReturn ret = GST_FLOW_OK;

    for (guint i = 0; i < n_pads && ret == GST_FLOW_OK; i++) {
      GstBuffer *in;

      if (f > 0 && chance (r, 0.15)) {
        g_free (caps[i]);
        caps[i] =
            rand_video_caps (r, PICK (r, formats), rand_dim (r), rand_dim (r));
        g_string_append_printf (case_desc, " | sink_%u caps %s", i, caps[i]);
        gst_harness_set_src_caps_str (h[i], caps[i]);
        info[i] = gcg_test_info (caps[i]);
      }
      in = fuzz_frame (r, &info[i]);
      fuzz_metas (r, in, &info[i], TRUE);
      GST_BUFFER_PTS (in) = f * GST_SECOND / 30;
      GST_BUFFER_DURATION (in) = GST_SECOND / 30;
      if (g_getenv ("GCG_FUZZ_VERBOSE"))
        g_printerr ("case %u frame %u: %s\n", case_no, f, case_desc->str);
      ret = gst_harness_push (h[i], in);
      FUZZ_CHECK (ret == GST_FLOW_OK || ret == GST_FLOW_NOT_NEGOTIATED
              || ret == GST_FLOW_ERROR || ret == GST_FLOW_FLUSHING,
          "push returned %s", gst_flow_get_name (ret));
    }
    if (ret != GST_FLOW_OK)
      break;
  }
  drain_batch (h, n_pads, bus, outputs);
  gst_element_set_bus (h[0]->element, NULL);
  for (guint i = n_pads; i > 0; i--) {
    gst_harness_teardown (h[i - 1]);
    g_free (caps[i - 1]);
  }
}

/* How long one case may take, from its first push to its teardown,
 * before the watchdog fails it with every thread's backtrace (a push that
 * blocks for ever, which drain_batch()'s own limit cannot see). */
#define CASE_WATCHDOG_S (DRAIN_WATCHDOG_S + 10)

static void
run_one_case (guint i, guint *outputs)
{
  guint32 seeds[2] = { fuzz_seed, i };
  GRand *r = g_rand_new_with_seed_array (seeds, 2);
  g_autofree gchar *what =
      g_strdup_printf ("fuzz case %u "
                       "(GCG_FUZZ_SEED=%u GCG_FUZZ_FIRST=%u GCG_FUZZ_CASES=1)",
          i, fuzz_seed, i);

  case_no = i;
  g_string_truncate (case_desc, 0);
  gcg_test_watchdog_arm (CASE_WATCHDOG_S, what);
  if (chance (r, 0.25))
    run_batch_case (r, outputs);
  else
    run_case (r, outputs);
  gcg_test_watchdog_disarm ();
  g_rand_free (r);
}

/* Cases of the default seed that once hung, run whatever the sweep's
 * range: batch cases with more streams than batch slots, where the third
 * stream's upstream blocked for good (cudagraphbatch now lets pads take
 * turns). */
static void
test_regressions (void)
{
  static const guint cases[] = { 1845, 2019 };
  guint outputs = 0;

  fuzz_seed = DEFAULT_SEED;
  case_desc = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    run_one_case (cases[i], &outputs);
  g_string_free (case_desc, TRUE);
  case_desc = NULL;
  g_assert_cmpuint (outputs, >, 0);
}

static void
test_fuzz (void)
{
  guint n_cases = gcg_test_fuzz_env_uint ("GCG_FUZZ_CASES", DEFAULT_CASES);
  guint first = gcg_test_fuzz_env_uint ("GCG_FUZZ_FIRST", 0);
  gint64 start = g_get_monotonic_time ();
  guint ran = 0, outputs = 0;

  fuzz_seed = gcg_test_fuzz_env_uint ("GCG_FUZZ_SEED", DEFAULT_SEED);
  g_test_message ("GCG_FUZZ_SEED=%u, cases %u..%u", fuzz_seed, first,
      first + n_cases - 1);
  case_desc = g_string_new (NULL);

  for (guint i = first; i < first + n_cases; i++) {
    run_one_case (i, &outputs);
    ran++;
  }
  g_test_message ("%u cases, %u output buffers checked, %u property "
                  "strings outside their range or unparsable, %.1f s",
      ran, outputs, out_of_range, (g_get_monotonic_time () - start) / 1e6);
  g_test_message ("of which cudagraphbatch: %u cases, %u batches checked; "
                  "%u passthrough outputs equal to their input, %u outputs of "
                  "one-colour frames of one colour",
      batch_cases, batch_outputs, passthrough_outputs, uniform_outputs);
  g_string_free (case_desc, TRUE);
  case_desc = NULL;
  /* Every case asked for ran: a run that stops early tested less than
   * it says. */
  g_assert_cmpuint (ran, ==, n_cases);
  g_assert_cmpuint (ran, >, 0);
  g_assert_cmpuint (batch_outputs, >, 0);
}

int
main (int argc, char **argv)
{
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gst/fuzz/regressions", test_regressions);
  g_test_add_func ("/gst/fuzz/elements", test_fuzz);
  return g_test_run ();
}
