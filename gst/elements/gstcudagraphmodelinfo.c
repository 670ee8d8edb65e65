/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* A `.modelinfo` file (GStreamer 1.28's format, see the header) read into
 * the few values cudagraphpreprocess needs.  Every failure says which
 * tensor and key is at fault and what the element can do instead. */

#include <errno.h>
#include <fcntl.h>
#include <math.h>

#include "gstcudagraphmodelinfo.h"
#include <gcg/gcg-internal.h>

#define SECTION "modelinfo"
/* A model description is a few hundred bytes; anything past this is not
 * one, and is not read into memory. */
#define MAX_FILE_SIZE (1024 * 1024)

static gboolean G_GNUC_PRINTF (2, 3)
    settings_error (GError **error, const gchar *format, ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error,
      g_error_new_valist (GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          format, args));
  va_end (args);
  return FALSE;
}

/* 1.x files, or files from before the [modelinfo] group existed (1.28
 * refuses those; we read what they describe the same way). */
static gboolean
check_version (GKeyFile *kf, GError **error)
{
  g_autofree gchar *version = NULL;
  gchar *end;
  guint64 major;

  if (!g_key_file_has_group (kf, SECTION))
    return TRUE;
  version = g_key_file_get_string (kf, SECTION, "version", NULL);
  if (version == NULL)
    return settings_error (error,
        "[modelinfo] has no version (1.0 "
        "expected)");
  major = g_ascii_strtoull (version, &end, 10);
  if (end == version || *end != '.' || major != 1)
    return settings_error (error,
        "modelinfo version \"%s\" is not "
        "supported (1.x expected)",
        version);
  return TRUE;
}

/* The first group with dir=input; failing that, the first tensor group
 * without a dir (GStreamer matches those in either direction). */
static gchar *
find_input_tensor (GKeyFile *kf)
{
  g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);
  const gchar *undirected = NULL;

  for (guint i = 0; groups[i] != NULL; i++) {
    g_autofree gchar *dir = NULL;

    if (g_str_equal (groups[i], SECTION))
      continue;
    dir = g_key_file_get_string (kf, groups[i], "dir", NULL);
    if (g_strcmp0 (dir, "input") == 0)
      return g_strdup (groups[i]);
    if (dir == NULL && undirected == NULL)
      undirected = groups[i];
  }
  return g_strdup (undirected);
}

static gboolean
parse_type (GKeyFile *kf, const gchar *tensor, GstCudaGraphModelInfo *info,
    GError **error)
{
  g_autofree gchar *type = g_key_file_get_string (kf, tensor, "type", NULL);

  if (gcg__tensor_type_from_name (type, &info->type))
    return TRUE;
  return settings_error (error,
      "tensor [%s]: type \"%s\" is not one "
      "cudagraphpreprocess makes (float32, float16, uint8)",
      tensor, type ? type : "(missing)");
}

/* C at index @c of the row-major dims (N first): 1 or 3 channels. */
static gboolean
channels_at (const gint *dims, guint c)
{
  return dims[c] == 1 || dims[c] == 3;
}

/* Which of NCHW and NHWC @dims (4 of them, row-major) are; planar when
 * both could be (a 3x3 image with 3 channels). */
static gboolean
guess_layout (const gint *dims, GcgTensorLayout *layout)
{
  if (channels_at (dims, 1)) {
    *layout = GCG_TENSOR_LAYOUT_NCHW;
    return TRUE;
  }
  if (channels_at (dims, 3)) {
    *layout = GCG_TENSOR_LAYOUT_NHWC;
    return TRUE;
  }
  return FALSE;
}

/* dims as N, C, H, W or N, H, W, C (a 3-dimensional image has N = 1),
 * listed outermost first or, with dims-order=col-major, innermost first. */
static gboolean
read_dims (GKeyFile *kf, const gchar *tensor, gint dims[4], GError **error)
{
  g_autofree gchar *order =
      g_key_file_get_string (kf, tensor, "dims-order", NULL);
  g_autofree gint *list = NULL;
  gsize n = 0;
  gboolean col_major = g_strcmp0 (order, "col-major") == 0;

  if (order && !col_major && !g_str_equal (order, "row-major"))
    return settings_error (error,
        "tensor [%s]: dims-order \"%s\" is neither "
        "row-major nor col-major",
        tensor, order);
  list = g_key_file_get_integer_list (kf, tensor, "dims", &n, NULL);
  if (list == NULL || (n != 3 && n != 4))
    return settings_error (error,
        "tensor [%s]: dims must be 3 or 4 integers "
        "(N,C,H,W or N,H,W,C; -1 for a dynamic batch)%s",
        tensor, list ? "" : ", and are missing or not integers");
  dims[0] = 1;
  for (gsize i = 0; i < n; i++)
    dims[4 - n + i] = list[col_major ? n - 1 - i : i];
  return TRUE;
}

/* A fixed size in 1..max, named @what in the error. */
static gboolean
check_size (const gchar *tensor, const gchar *what, gint v, guint max,
    GError **error)
{
  if (v == -1)
    return settings_error (error,
        "tensor [%s]: a dynamic %s (-1) is not "
        "supported: the element makes one fixed size; write the size the "
        "model is run with",
        tensor, what);
  if (v < 1 || (guint) v > max)
    return settings_error (error, "tensor [%s]: %s %d is outside 1..%u", tensor,
        what, v, max);
  return TRUE;
}

static gboolean
parse_dims (GKeyFile *kf, const gchar *tensor, GstCudaGraphModelInfo *info,
    GError **error)
{
  gboolean nchw;
  gint dims[4];

  if (!read_dims (kf, tensor, dims, error))
    return FALSE;
  if (!guess_layout (dims, &info->layout))
    return settings_error (error,
        "tensor [%s]: dims %d,%d,%d,%d have no "
        "channel dimension of 1 or 3 next to the batch (NCHW) or last (NHWC)",
        tensor, dims[0], dims[1], dims[2], dims[3]);
  nchw = info->layout == GCG_TENSOR_LAYOUT_NCHW;
  info->channels = dims[nchw ? 1 : 3] == 1 ? GCG_TENSOR_CHANNELS_GRAY
                                           : GCG_TENSOR_CHANNELS_RGB;
  if (!check_size (tensor, "height", dims[nchw ? 2 : 1],
          GCG_FRAME_CHAIN_MAX_SIZE, error)
      || !check_size (tensor, "width", dims[nchw ? 3 : 2],
          GCG_FRAME_CHAIN_MAX_SIZE, error))
    return FALSE;
  info->height = dims[nchw ? 2 : 1];
  info->width = dims[nchw ? 3 : 2];
  /* A dynamic batch is the usual export: the element's own max-rois. */
  info->batch = 0;
  if (dims[0] != -1) {
    if (!check_size (tensor, "batch", dims[0], GCG_FRAME_CHAIN_MAX_ROIS, error))
      return FALSE;
    info->batch = dims[0];
  }
  return TRUE;
}

/* The format of the first structure of a caps string, as a new string, or
 * NULL when the string is not caps with a plain format field.  Read here
 * rather than by gst_caps_from_string(): GStreamer's parser meets some
 * malformed strings (a media type starting with a digit, unknown caps
 * features) with criticals and warnings before it refuses them, and a
 * model file is untrusted input that should get one clear error. */
static gchar *
caps_format (const gchar *str)
{
  static GRegex *caps_re;
  static gsize once = 0;
  g_autoptr (GMatchInfo) match = NULL;

  if (g_once_init_enter (&once)) {
    /* media type, optional (features), then fields up to ';' or the end;
     * format=(string)"NAME", format=NAME, quotes optional. */
    GRegex *re =
        g_regex_new ("^\\s*[A-Za-z][A-Za-z0-9/_.:+-]*"
                     "(\\([A-Za-z0-9:_, ]*\\))?\\s*"
                     "(,[^;]*?)?,\\s*format\\s*=\\s*(\\(string\\)\\s*)?\"?"
                     "([A-Za-z0-9_]+)\"?\\s*(,[^;]*)?(;.*)?$",
            G_REGEX_DOTALL, 0, NULL);

    g_assert (re != NULL);
    caps_re = re;
    g_once_init_leave (&once, 1);
  }
  if (!g_regex_match (caps_re, str, 0, &match))
    return NULL;
  return g_match_info_fetch (match, 4);
}

/* The colour order from `caps` (our addition; RGB without it). */
static gboolean
parse_colour (GKeyFile *kf, const gchar *tensor, GstCudaGraphModelInfo *info,
    GError **error)
{
  static const struct
  {
    const gchar *format;
    GcgTensorChannels channels;
  } formats[] = {
    { "RGB", GCG_TENSOR_CHANNELS_RGB },
    { "RGBA", GCG_TENSOR_CHANNELS_RGB },
    { "RGBx", GCG_TENSOR_CHANNELS_RGB },
    { "BGR", GCG_TENSOR_CHANNELS_BGR },
    { "BGRA", GCG_TENSOR_CHANNELS_BGR },
    { "BGRx", GCG_TENSOR_CHANNELS_BGR },
    { "GRAY8", GCG_TENSOR_CHANNELS_GRAY },
  };
  g_autofree gchar *str = g_key_file_get_value (kf, tensor, "caps", NULL);
  g_autofree gchar *format = NULL;
  guint i;

  if (str == NULL)
    return TRUE;
  format = caps_format (str);
  for (i = 0; format && i < G_N_ELEMENTS (formats); i++) {
    if (g_str_equal (format, formats[i].format))
      break;
  }
  if (format == NULL || i == G_N_ELEMENTS (formats))
    return settings_error (error,
        "tensor [%s]: caps \"%s\" do not give a "
        "format of RGB, BGR or GRAY8 (e.g. video/x-raw,format=RGB)",
        tensor, str);
  if ((formats[i].channels == GCG_TENSOR_CHANNELS_GRAY)
      != (info->channels == GCG_TENSOR_CHANNELS_GRAY))
    return settings_error (error,
        "tensor [%s]: caps format %s does not "
        "match the %s channel(s) of dims",
        tensor, format, info->channels == GCG_TENSOR_CHANNELS_GRAY ? "1" : "3");
  info->channels = formats[i].channels;
  return TRUE;
}

/* One double and nothing else but blanks around it. */
static gboolean
parse_double (const gchar *str, gdouble *out)
{
  gchar *end;

  errno = 0;
  *out = g_ascii_strtod (str, &end);
  while (g_ascii_isspace (*end))
    end++;
  return end != str && *end == '\0' && errno == 0 && isfinite (*out);
}

/* The values the kernels apply, computed as gcg_frame_params_set_mean_std()
 * does in float32: finite for every pixel value, or every frame would be
 * refused. */
static gboolean
mapping_is_finite (gfloat mean, gfloat std)
{
  gfloat scale = 1.0f / (255.0f * std);
  gfloat offset = -mean / std;

  return isfinite (scale) && isfinite (offset)
      && isfinite (scale * 255.0f + offset);
}

/* "min,max" into the element's mean/std: pixel p in 0-255 becomes
 * min + p (max - min) / 255 = (p / 255 - mean) / std with
 * std = 1 / (max - min), mean = -min / (max - min). */
static gboolean
parse_range (const gchar *tensor, const gchar *str, gfloat *mean, gfloat *std,
    GError **error)
{
  g_auto (GStrv) pair = g_strsplit (str, ",", 3);
  gdouble lo, hi;

  if (g_strv_length (pair) != 2 || !parse_double (pair[0], &lo)
      || !parse_double (pair[1], &hi))
    return settings_error (error,
        "tensor [%s]: range \"%s\" is not "
        "\"min,max\"",
        tensor, str);
  *std = (gfloat) (1.0 / (hi - lo));
  *mean = (gfloat) (-lo / (hi - lo));
  /* Catch float overflow of either (max - min tiny or huge). */
  if (!(hi > lo) || !isfinite (*std) || !isfinite (*mean) || *std == 0.0f)
    return settings_error (error,
        "tensor [%s]: range \"%s\" needs min below "
        "max, both finite and far enough apart",
        tensor, str);
  if (!mapping_is_finite (*mean, *std))
    return settings_error (error,
        "tensor [%s]: range \"%s\" spans too much: "
        "the per-pixel scale 1/(255 std) or offset -mean/std it gives is not "
        "a finite float32 (keep max - min below about 1e36)",
        tensor, str);
  return TRUE;
}

static gboolean
parse_ranges (GKeyFile *kf, const gchar *tensor, GstCudaGraphModelInfo *info,
    GError **error)
{
  /* Read raw: the ',' list separator would split the pairs. */
  g_autofree gchar *str = g_key_file_get_value (kf, tensor, "ranges", NULL);
  g_auto (GStrv) parts = NULL;
  guint n, nc = info->channels == GCG_TENSOR_CHANNELS_GRAY ? 1 : 3;

  parts = g_strsplit (str ? str : "0,255", ";", 4);
  n = g_strv_length (parts);
  /* A trailing ';' is harmless. */
  if (n > 1 && *g_strstrip (parts[n - 1]) == '\0')
    n--;
  if (n != 1 && n != nc)
    return settings_error (error,
        "tensor [%s]: ranges \"%s\" give %u pairs "
        "for %u channels (1 or %u expected)",
        tensor, str, n, nc, nc);
  for (guint c = 0; c < 3; c++) {
    if (!parse_range (tensor, parts[n == 1 ? 0 : c], &info->mean[c],
            &info->std[c], error))
      return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_graph_model_info_parse (GKeyFile *kf, GstCudaGraphModelInfo *info,
    GError **error)
{
  GstCudaGraphModelInfo out = { 0 };

  g_return_val_if_fail (kf != NULL && info != NULL, FALSE);
  if (!check_version (kf, error))
    return FALSE;
  out.tensor_name = find_input_tensor (kf);
  if (out.tensor_name == NULL)
    return settings_error (error,
        "no input tensor (a group with "
        "dir=input)");
  if (!parse_type (kf, out.tensor_name, &out, error)
      || !parse_dims (kf, out.tensor_name, &out, error)
      || !parse_colour (kf, out.tensor_name, &out, error)
      || !parse_ranges (kf, out.tensor_name, &out, error)) {
    gst_cuda_graph_model_info_clear (&out);
    return FALSE;
  }
  gst_cuda_graph_model_info_clear (info);
  *info = out;
  return TRUE;
}

/* The file read through one descriptor (gcg__file_read(): a FIFO or a
 * device never waited on, the size bounded in the read itself) into
 * @kf; errors as gst_cuda_graph_model_info_load() says. */
static gboolean
load_key_file (GKeyFile *kf, const gchar *path, GError **error)
{
  g_autoptr (GError) err = NULL;
  g_autoptr (GBytes) data = gcg__file_read (AT_FDCWD, path, MAX_FILE_SIZE,
      GCG_FILE_READ_DEFAULT, "model-info", &err);
  gsize size;
  const gchar *text;

  if (data == NULL) {
    g_set_error_literal (error, GST_RESOURCE_ERROR,
        g_error_matches (err, G_FILE_ERROR, G_FILE_ERROR_NOENT)
            ? GST_RESOURCE_ERROR_NOT_FOUND
            : GST_RESOURCE_ERROR_OPEN_READ,
        err->message);
    return FALSE;
  }
  text = g_bytes_get_data (data, &size);
  g_key_file_set_list_separator (kf, ',');
  if (!g_key_file_load_from_data (kf, text ? text : "", size, G_KEY_FILE_NONE,
          &err)) {
    g_autofree gchar *shown = g_filename_display_name (path);

    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
        "model-info \"%s\" is not a key file: %s", shown, err->message);
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_cuda_graph_model_info_load (const gchar *path, GstCudaGraphModelInfo *info,
    GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) err = NULL;

  g_return_val_if_fail (path != NULL && info != NULL, FALSE);
  if (!load_key_file (kf, path, error))
    return FALSE;
  if (!gst_cuda_graph_model_info_parse (kf, info, &err)) {
    g_set_error (error, GST_RESOURCE_ERROR, err->code,
        "model-info \"%s\": "
        "%s",
        path, err->message);
    return FALSE;
  }
  return TRUE;
}

void
gst_cuda_graph_model_info_clear (GstCudaGraphModelInfo *info)
{
  g_clear_pointer (&info->tensor_name, g_free);
}
