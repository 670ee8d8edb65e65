/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The declaration comes from a property or a caller's string: every part
 * is checked (names, types, literals and their ranges, bounds on the
 * count) before anything is laid out, and each error names the item.
 */
#include "gcg-kernel-decl-private.h"
#include "gcg-error-private.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const struct
{
  const gchar *name;
  const gchar *c_name;
  gsize size;
} type_info[] = {
  [GCG_KERNEL_PARAM_I32] = { "i32", "int", 4 },
  [GCG_KERNEL_PARAM_U32] = { "u32", "unsigned int", 4 },
  [GCG_KERNEL_PARAM_F32] = { "f32", "float", 4 },
  [GCG_KERNEL_PARAM_F64] = { "f64", "double", 8 },
  [GCG_KERNEL_PARAM_U64] = { "u64", "unsigned long long", 8 },
};

#define P GCG_KERNEL_PARAM_U64
#define I GCG_KERNEL_PARAM_I32
#define F GCG_KERNEL_PARAM_F32
/* Grouped by kind, as in GcgFrameParams: kept by hand. */
/* clang-format off */
static const struct
{
  const gchar *name;
  GcgKernelParamType type;
} field_info[GCG_KERNEL_N_FIELDS] = {
  { "src0", P }, { "src1", P }, { "src2", P },
  { "dst0", P }, { "dst1", P }, { "dst2", P },
  { "src_pitch0", I }, { "src_pitch1", I }, { "src_pitch2", I },
  { "dst_pitch0", I }, { "dst_pitch1", I }, { "dst_pitch2", I },
  { "in_width", I }, { "in_height", I },
  { "out_width", I }, { "out_height", I },
  { "frame", P }, { "pts", P },
  { "items", I },
  { "output", P }, { "output_bytes", P }, { "records", P }, { "counts", P },
  { "max_results", I }, { "classes", I },
  { "score_threshold", F }, { "iou_threshold", F },
};
/* clang-format on */
#undef P
#undef I
#undef F

void
gcg__kernel_decl_free (GcgKernelDecl *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->n_params; i++) {
    g_free (self->params[i].name);
    g_free (self->params[i].key);
  }
  g_free (self);
}

static gboolean
parse_type (const gchar *s, GcgKernelParamType *type)
{
  for (guint i = 0; i < G_N_ELEMENTS (type_info); i++) {
    if (strcmp (s, type_info[i].name) == 0) {
      *type = i;
      return TRUE;
    }
  }
  return FALSE;
}

/* C++17's keywords (and C++20's, and the alternative operator names),
 * and NULL and warpSize, macros of NVRTC's headers (warpSize is 32 on
 * some of their paths): a member so named would make the generated
 * struct fail to compile (tests/unit/test-fuzz-kernel-decl.c compiles
 * every layout it takes).  Filled lines, kept by hand. */
/* clang-format off */
static const gchar *const keywords[] = {
  "NULL", "warpSize",
  "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
  "bool", "break", "case", "catch", "char", "char8_t", "char16_t",
  "char32_t", "class", "co_await", "co_return", "co_yield", "compl",
  "concept", "const", "const_cast", "consteval", "constexpr", "constinit",
  "continue", "decltype", "default", "delete", "do", "double",
  "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
  "float", "for", "friend", "goto", "if", "inline", "int", "long",
  "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
  "operator", "or", "or_eq", "private", "protected", "public", "register",
  "reinterpret_cast", "requires", "return", "short", "signed", "sizeof",
  "static", "static_assert", "static_cast", "struct", "switch", "template",
  "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
  "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
  "wchar_t", "while", "xor", "xor_eq",
};
/* clang-format on */

static gboolean
is_identifier (const gchar *s)
{
  if (!g_ascii_isalpha (s[0]) && s[0] != '_')
    return FALSE;
  for (const gchar *p = s; *p; p++) {
    if (!g_ascii_isalnum (*p) && *p != '_')
      return FALSE;
  }
  return strlen (s) <= GCG_KERNEL_DECL_MAX_NAME;
}

/* Prefixes of names that belong to someone else: the CUDA headers'
 * macros (CUDA_VERSION, CUDART_INF, CU_LAUNCH_PARAM_END, and NV_ with a
 * lowercase letter: NV_HAS_FEATURE_SM_90a) and the generated source's
 * own names (gcg_params, gcg_unused).  Matched case-sensitively. */
static const gchar *const reserved_prefixes[] = {
  "CUDA",
  "CU_",
  "NV_",
  "gcg_",
};

/* Why @s cannot be a member of the generated struct, or NULL.  The
 * struct comes first in the compiled source, after only NVRTC's own
 * headers, whose macros would replace a member so named (CUDART_VERSION
 * became a number, and the compile failed at a line the user never
 * wrote).  Refused, so that no macro of any CUDA version can match:
 *   - what is not a C identifier, or longer than GCG_KERNEL_DECL_MAX_NAME;
 *   - C++ keywords;
 *   - names reserved to the implementation, where the compiler's macros
 *     live: "_" and an uppercase letter first, or "__" anywhere
 *     (__CUDA_ARCH__ would expand to a number);
 *   - names without a lowercase letter, the form of macros (CUDART_VERSION,
 *     NULL, INT_MAX, NV_IF_TARGET; a parameter name "N" goes too);
 *   - reserved_prefixes[];
 *   - "cuda" and an uppercase letter first, the CUDA runtime's prefix,
 *     whose flags are macros (cudaStreamDefault, cudaEventRecord...).
 * Of the macros CUDA 13's NVRTC headers define, those with a lowercase
 * letter and none of these forms are function-like (assert, alloca,
 * va_start), which a member's name never calls, or warpSize (in
 * keywords[]). */
static const gchar *
name_refusal (const gchar *s)
{
  gboolean lower = FALSE;

  if (!is_identifier (s))
    return "is not a C identifier of at most " G_STRINGIFY (
        GCG_KERNEL_DECL_MAX_NAME) " characters (letters, digits "
                                  "and '_', not a digit first)";
  for (guint i = 0; i < G_N_ELEMENTS (keywords); i++) {
    if (strcmp (s, keywords[i]) == 0)
      return "is a C++ keyword or a CUDA macro";
  }
  if ((s[0] == '_' && g_ascii_isupper (s[1])) || strstr (s, "__") != NULL)
    return "is reserved to the compiler ('_' and an uppercase letter "
           "first, or '__' in it)";
  for (const gchar *p = s; *p; p++)
    lower |= g_ascii_islower (*p);
  if (!lower)
    return "has no lowercase letter, as macros are (CUDART_VERSION, NULL): "
           "the CUDA headers' macros would replace it";
  for (guint i = 0; i < G_N_ELEMENTS (reserved_prefixes); i++) {
    if (g_str_has_prefix (s, reserved_prefixes[i]))
      return "begins with CUDA, CU_ or NV_ (the CUDA headers' macros) or "
             "gcg_ (the generated source's own names)";
  }
  if (g_str_has_prefix (s, "cuda") && g_ascii_isupper (s[4]))
    return "begins with 'cuda' and an uppercase letter, as the CUDA "
           "runtime's macros do (cudaStreamDefault)";
  return NULL;
}

/* @s as a value of @type, range-checked: a literal that does not fit is
 * refused rather than wrapped or rounded to infinity. */
static gboolean
parse_literal (const gchar *s, GcgKernelParamType type, GcgFrameValue *value)
{
  gchar *end = NULL;

  if (*s == '\0' || g_ascii_isspace (*s))
    return FALSE;
  errno = 0;
  if (type == GCG_KERNEL_PARAM_F32 || type == GCG_KERNEL_PARAM_F64) {
    value->type = GCG_FRAME_VALUE_DOUBLE;
    value->v.d = g_ascii_strtod (s, &end);
    if (!isfinite (value->v.d)
        || (type == GCG_KERNEL_PARAM_F32 && fabs (value->v.d) > G_MAXFLOAT))
      return FALSE;
  } else if (type == GCG_KERNEL_PARAM_I32) {
    value->type = GCG_FRAME_VALUE_INT;
    value->v.i = g_ascii_strtoll (s, &end, 0);
    if (value->v.i < G_MININT32 || value->v.i > G_MAXINT32)
      return FALSE;
  } else {
    if (*s == '-')
      return FALSE;
    value->type = GCG_FRAME_VALUE_UINT;
    value->v.u = g_ascii_strtoull (s, &end, 0);
    if (type == GCG_KERNEL_PARAM_U32 && value->v.u > G_MAXUINT32)
      return FALSE;
  }
  return errno == 0 && end != NULL && *end == '\0';
}

static gboolean
parse_field (const gchar *s, GcgKernelParam *param)
{
  for (guint i = 0; i < GCG_KERNEL_N_FIELDS; i++) {
    if (strcmp (s, field_info[i].name) == 0) {
      param->source = GCG_KERNEL_SOURCE_FIELD;
      param->field = i;
      param->type = field_info[i].type;
      return TRUE;
    }
  }
  return FALSE;
}

/* "meta:KEY[:TYPE[:DEFAULT]]", @parts after "meta". */
static gboolean
parse_meta (gchar **parts, GcgKernelParam *param)
{
  guint n = g_strv_length (parts);

  if (n < 1 || n > 3 || !is_identifier (parts[0]))
    return FALSE;
  param->source = GCG_KERNEL_SOURCE_META;
  param->key = g_strdup (parts[0]);
  param->type = GCG_KERNEL_PARAM_F32;
  if (n >= 2 && !parse_type (parts[1], &param->type))
    return FALSE;
  return parse_literal (n == 3 ? parts[2] : "0", param->type, &param->value);
}

static gboolean
parse_spec (const gchar *spec, GcgKernelParam *param)
{
  g_auto (GStrv) parts = g_strsplit (spec, ":", 4);
  guint n = g_strv_length (parts);

  /* g_strsplit() of "" is an empty vector: nothing to compare. */
  if (n == 0)
    return FALSE;
  if (n == 1)
    return parse_field (parts[0], param);
  if (strcmp (parts[0], "meta") == 0)
    return parse_meta (parts + 1, param);
  param->source = GCG_KERNEL_SOURCE_CONST;
  return n == 2 && parse_type (parts[0], &param->type)
      && parse_literal (parts[1], param->type, &param->value);
}

/* Sets @error naming the parameter of @item (quoted, bounded). */
static gboolean G_GNUC_PRINTF (3, 4)
    item_error (GError **error, const gchar *item, const gchar *format, ...)
{
  g_autofree gchar *quoted = gcg__error_quote (item);
  g_autofree gchar *why = NULL;
  va_list args;

  va_start (args, format);
  why = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "Kernel parameter '%s': %s", quoted, why);
  return FALSE;
}

static gboolean
parse_item (GcgKernelDecl *self, const gchar *item, GError **error)
{
  const gchar *eq = strchr (item, '=');
  GcgKernelParam *param = &self->params[self->n_params];
  const gchar *why;

  if (self->n_params >= GCG_KERNEL_DECL_MAX_PARAMS) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "More than %d kernel parameters", GCG_KERNEL_DECL_MAX_PARAMS);
    return FALSE;
  }
  memset (param, 0, sizeof (*param));
  self->n_params++;
  param->name = eq ? g_strndup (item, eq - item) : g_strdup (item);
  if (eq == NULL)
    return item_error (error, item, "expected NAME=SPEC");
  if ((why = name_refusal (param->name)) != NULL)
    return item_error (error, item, "the name %s", why);
  for (guint i = 0; i + 1 < self->n_params; i++) {
    if (strcmp (self->params[i].name, param->name) == 0)
      return item_error (error, param->name, "declared twice");
  }
  if (!parse_spec (eq + 1, param)) {
    g_autofree gchar *spec = gcg__error_quote (eq + 1);

    return item_error (error, param->name,
        "cannot read '%s' (expected TYPE:VALUE with TYPE one of i32 u32 f32 "
        "f64 u64 and VALUE in its range, meta:KEY[:TYPE[:DEFAULT]], or a "
        "frame field such as src0, dst0, out_width, frame, pts)",
        spec);
  }
  return TRUE;
}

static void
lay_out (GcgKernelDecl *self)
{
  gsize offset = 0;

  self->align = 8;              /* an empty struct still has a size */
  for (guint i = 0; i < self->n_params; i++) {
    gsize size = type_info[self->params[i].type].size;

    offset = (offset + size - 1) & ~(size - 1);
    self->params[i].offset = offset;
    offset += size;
  }
  self->size = MAX ((offset + 7) & ~(gsize) 7, 8);
}

/* Parses @decl (NULL or "" is no parameter). */
GcgKernelDecl *
gcg__kernel_decl_parse (const gchar *decl, GError **error)
{
  g_autoptr (GcgKernelDecl) self = g_new0 (GcgKernelDecl, 1);
  g_auto (GStrv) items = NULL;

  if (decl != NULL && *decl != '\0') {
    items = g_strsplit (decl, ",", GCG_KERNEL_DECL_MAX_PARAMS + 2);
    for (guint i = 0; items[i] != NULL; i++) {
      if (!parse_item (self, g_strstrip (items[i]), error))
        return NULL;
    }
  }
  lay_out (self);
  return g_steal_pointer (&self);
}

/* A src or dst field: the planes of a frame, which a postprocess kernel
 * has not (it reads the model's output). */
static gboolean
is_plane_field (GcgKernelField field)
{
  return field <= GCG_KERNEL_FIELD_DST_PITCH2;
}

/* Whether the declaration names a field only a postprocess kernel has:
 * the role it asks for. */
gboolean
gcg__kernel_decl_reads_output (const GcgKernelDecl *self)
{
  for (guint i = 0; i < self->n_params; i++)
    if (self->params[i].source == GCG_KERNEL_SOURCE_FIELD
        && self->params[i].field >= GCG_KERNEL_FIELD_OUTPUT)
      return TRUE;
  return FALSE;
}

gboolean
gcg__kernel_decl_check_role (const GcgKernelDecl *self, gboolean postprocess,
    GError **error)
{
  for (guint i = 0; i < self->n_params; i++) {
    const GcgKernelParam *param = &self->params[i];
    const gchar *field = field_info[param->field].name;

    if (param->source != GCG_KERNEL_SOURCE_FIELD)
      continue;
    if (postprocess && is_plane_field (param->field))
      return item_error (error, param->name,
          "a postprocess kernel has no frame planes ('%s'): it reads the "
          "model's output (output, output_bytes) and writes records and "
          "counts",
          field);
    if (!postprocess && param->field >= GCG_KERNEL_FIELD_OUTPUT)
      return item_error (error, param->name,
          "'%s' is a field of a postprocess kernel only "
          "(gcg_frame_batch_set_postprocess_kernel(), postprocess=user)",
          field);
  }
  return TRUE;
}

/* What every compiled source gets before the parameters' struct: the
 * record a postprocess kernel writes, GcgResult's 32 bytes (guarded, so
 * that several preludes may share one translation unit). */
#define RESULT_TYPEDEF \
  "#ifndef GCG_RESULT_TYPEDEF\n" \
  "#define GCG_RESULT_TYPEDEF\n" \
  "typedef struct {\n" \
  "  float x, y, width, height, confidence;\n" \
  "  int label;\n" \
  "  unsigned int item;\n" \
  "  unsigned int reserved;\n" \
  "} gcg_result;\n" \
  "#endif\n"

/* The C typedef of the struct, prepended to CUDA source, after
 * gcg_result's. */
gchar *
gcg__kernel_decl_to_c (const GcgKernelDecl *self, const gchar *type_name)
{
  GString *s = g_string_new (RESULT_TYPEDEF "typedef struct {\n");

  for (guint i = 0; i < self->n_params; i++) {
    g_string_append_printf (s, "  %s %s;\n",
        type_info[self->params[i].type].c_name, self->params[i].name);
  }
  if (self->n_params == 0)
    g_string_append (s, "  unsigned long long gcg_unused;\n");
  g_string_append_printf (s, "} %s;\n", type_name);
  return g_string_free (s, FALSE);
}
