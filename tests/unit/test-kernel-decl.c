/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A user kernel's parameter declaration (no GPU): parsing, the layout
 * against the C compiler's, the generated typedef, every refused
 * declaration naming its item, and the per-frame fill from frame fields
 * and named values with their range checks.
 */
#include <gcg.h>
#include "gcg-kernel-decl-private.h"

#include <math.h>
#include <string.h>

static void
test_layout (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelDecl) decl = gcg__kernel_decl_parse (
      "gain=f32:1.5, offset=i32:3,ts=pts,w=out_width,mask=meta:mask_level,"
      "k=f64:-2e3,n=u32:0x10,src=src0",
      &error);
  struct
  {
    gfloat gain;
    gint32 offset;
    guint64 ts;
    gint32 w;
    gfloat mask;
    gdouble k;
    guint32 n;
    guint64 src;
  } ref;

  g_assert_no_error (error);
  g_assert_cmpuint (decl->n_params, ==, 8);
#define OFF(i, f) \
  g_assert_cmpuint (decl->params[i].offset, ==, \
      G_STRUCT_OFFSET (__typeof__ (ref), f))
  OFF (0, gain);
  OFF (1, offset);
  OFF (2, ts);
  OFF (3, w);
  OFF (4, mask);
  OFF (5, k);
  OFF (6, n);
  OFF (7, src);
#undef OFF
  g_assert_cmpuint (decl->size, ==, sizeof (ref));
  g_assert_cmpint (decl->params[4].source, ==, GCG_KERNEL_SOURCE_META);
  g_assert_cmpstr (decl->params[4].key, ==, "mask_level");
  g_assert_cmpint (decl->params[4].type, ==, GCG_KERNEL_PARAM_F32);
  g_assert_cmpint (decl->params[7].type, ==, GCG_KERNEL_PARAM_U64);
  g_assert_cmpint (decl->params[3].type, ==, GCG_KERNEL_PARAM_I32);
}

static void
test_to_c (void)
{
  g_autoptr (GcgKernelDecl)
      decl = gcg__kernel_decl_parse ("a=f32:1,b=u64:2,c=meta:x:f64", NULL);
  g_autoptr (GcgKernelDecl) empty = gcg__kernel_decl_parse ("", NULL);
  g_autofree gchar *c = gcg__kernel_decl_to_c (decl, "gcg_params");
  g_autofree gchar *e = gcg__kernel_decl_to_c (empty, "gcg_params");

  /* After the record a postprocess kernel writes (guarded: several
   * preludes may share one translation unit). */
  g_assert_true (g_str_has_prefix (c, "#ifndef GCG_RESULT_TYPEDEF\n"));
  g_assert_nonnull (strstr (c, "} gcg_result;\n#endif\n"));
  g_assert_true (g_str_has_suffix (c,
      "#endif\ntypedef struct {\n  float a;\n"
      "  unsigned long long b;\n  double c;\n} gcg_params;\n"));
  g_assert_cmpuint (empty->n_params, ==, 0);
  g_assert_cmpuint (empty->size, ==, 8);
  g_assert_nonnull (strstr (e, "} gcg_params;"));
}

static void
test_refused (void)
{
  const struct
  {
    const gchar *decl;
    const gchar *named;
  } cases[] = {
    { "gain", "gain" },
    { "=f32:1", "=f32:1" },
    { "1x=f32:1", "1x" },
    { "a-b=f32:1", "a-b" },
    /* Names the generated struct could not hold (failed before: taken,
     * then the struct did not compile, or __CUDA_ARCH__ became 900). */
    /* An empty spec (failed before: a NULL dereference, from any
     * element's kernel-params="a="). */
    { "o=", "'o'" },
    { "a=f32:1,o=", "'o'" },
    { "int=i32:1", "int" },
    { "class=f32:1", "class" },
    { "NULL=u64:0", "NULL" },
    { "__CUDA_ARCH__=i32:1", "__CUDA_ARCH__" },
    { "_Gain=f32:1", "_Gain" },
    /* Names of the CUDA headers' macros, which come before the generated
     * struct (failed before: CUDART_VERSION was taken, then the struct
     * did not compile, the error blamed on the user's line 2). */
    { "CUDART_VERSION=i32:1", "no lowercase letter" },
    { "NV_IF_TARGET=i32:1", "no lowercase letter" },
    { "N=i32:1", "no lowercase letter" },
    { "cudaStreamDefault=u64:0", "'cuda' and an uppercase letter" },
    { "a__b=f32:1", "reserved" },
    /* The CUDA headers' prefixes with a lowercase letter, NVRTC's
     * warpSize and the generated source's names (failed before: taken;
     * NV_HAS_FEATURE_SM_90a is a macro of <nv/target>, warpSize one of
     * 32 on some paths). */
    { "CUDA_scale=f32:1", "begins with CUDA" },
    { "CUDARTgain=f32:1", "begins with CUDA" },
    { "CU_gain=f32:1", "begins with CUDA" },
    { "NV_HAS_FEATURE_SM_90a=i32:1", "begins with CUDA" },
    { "gcg_params=u64:0", "gcg_" },
    { "gcg_unused=u64:0", "gcg_" },
    { "warpSize=i32:32", "CUDA macro" },
    { "gain=f33:1", "gain" },
    { "gain=f32:", "gain" },
    { "gain=f32:abc", "gain" },
    { "gain=f32:1.5x", "gain" },
    { "gain=f32:1e39", "gain" },
    { "gain=f64:nan", "gain" },
    { "gain=f64:inf", "gain" },
    { "o=i32:2147483648", "'o'" },
    { "o=i32:-2147483649", "'o'" },
    { "o=u32:4294967296", "'o'" },
    { "o=u32:-1", "'o'" },
    { "o=u64:-1", "'o'" },
    { "o=u64:18446744073709551616", "'o'" },
    { "o=i32:1:2", "'o'" },
    { "o=src3", "'o'" },
    { "o=meta:", "'o'" },
    { "o=meta:bad-key", "'o'" },
    { "o=meta:k:i33", "'o'" },
    { "o=meta:k:i32:1.5", "'o'" },
    { "o=meta:k:i32:1:2", "'o'" },
    { "a=f32:1,a=i32:2", "twice" },
    { "a=f32:1,,b=f32:2", "expected NAME=SPEC" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GcgKernelDecl)
        decl = gcg__kernel_decl_parse (cases[i].decl, &error);

    g_test_message ("%s", cases[i].decl);
    g_assert_null (decl);
    g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, cases[i].named));
  }
}

/* Names next to the refused forms are taken: the rules are prefixes and
 * forms, not substrings. */
static void
test_names_taken (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelDecl) decl = gcg__kernel_decl_parse (
      "cuda=i32:1,cudagain=f32:1,nv_gain=f32:1,Nv_x=i32:1,gcgx=f32:1,"
      "CUgain=f32:1,_k=i32:1,my_CUDA_x=i32:1,warpsize=i32:1",
      &error);

  g_assert_no_error (error);
  g_assert_cmpuint (decl->n_params, ==, 9);
}

/* A hostile item is quoted in the error, never echoed whole: at most
 * GCG_ERROR_QUOTE_MAX characters and "..." (failed before: a 1 MiB item
 * made a 1 MiB message), and the message stays UTF-8. */
static void
test_error_bounded (void)
{
  const gsize big = 1024 * 1024;
  g_autofree gchar *name = g_strnfill (big, 'x');
  g_autofree gchar *spec = g_strnfill (big, '9');
  g_autofree gchar *bad_spec = g_strconcat ("a=i32:", spec, NULL);
  g_autofree gchar *bad_utf8 = g_strconcat ("a=f32:\xc3", spec, NULL);
  const gchar *decls[] = { name, bad_spec, bad_utf8 };

  name[big - 1] = '=';
  for (guint i = 0; i < G_N_ELEMENTS (decls); i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GcgKernelDecl) decl = gcg__kernel_decl_parse (decls[i], &error);

    g_assert_null (decl);
    g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
    g_test_message ("%s", error->message);
    g_assert_cmpuint (strlen (error->message), <, 1024);
    g_assert_nonnull (strstr (error->message, "..."));
    g_assert_true (g_utf8_validate (error->message, -1, NULL));
  }
}

static void
test_bounds (void)
{
  g_autoptr (GString) s = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelDecl) ok = NULL;
  g_autoptr (GcgKernelDecl) bad = NULL;
  g_autofree gchar *long_name = g_strnfill (GCG_KERNEL_DECL_MAX_NAME + 1, 'x');
  g_autofree gchar *long_decl = g_strdup_printf ("%s=f32:1", long_name);
  g_autoptr (GcgKernelDecl) too_long = NULL;

  for (guint i = 0; i < GCG_KERNEL_DECL_MAX_PARAMS; i++)
    g_string_append_printf (s, "%sp%u=i32:%u", i ? "," : "", i, i);
  ok = gcg__kernel_decl_parse (s->str, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ok->n_params, ==, GCG_KERNEL_DECL_MAX_PARAMS);
  g_assert_cmpuint (ok->size, ==, 4 * GCG_KERNEL_DECL_MAX_PARAMS);
  g_string_append (s, ",extra=i32:1");
  bad = gcg__kernel_decl_parse (s->str, &error);
  g_assert_null (bad);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "More than"));
  g_clear_error (&error);
  too_long = gcg__kernel_decl_parse (long_decl, &error);
  g_assert_null (too_long);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
}

typedef struct
{
  const gchar *key;
  GcgFrameValue value;
} Named;

static gboolean
lookup (const gchar *name, GcgFrameValue *value, gpointer user_data)
{
  const Named *named = user_data;

  for (; named->key != NULL; named++) {
    if (strcmp (named->key, name) == 0) {
      *value = named->value;
      return TRUE;
    }
  }
  return FALSE;
}

typedef struct
{
  gfloat gain;
  gint32 lvl;
  guint64 src;
  guint64 dst;
  gint32 pitch;
  gint32 w;
  gint32 h;
  guint32 count;
  guint64 frame;
  guint64 pts;
  gdouble strength;
} Filled;

static const gchar *fill_decl =
    "gain=f32:1.5,lvl=meta:level:i32:7,src=src0,"
    "dst=dst1,pitch=dst_pitch1,w=in_width,h=out_height,"
    "count=meta:count:u32,frame=frame,pts=pts,strength=meta:strength:f64:0.25";

static void
frame_io (GcgFrameChainConfig *config, GcgFrameParams *params,
    GcgFrameStageIo *io)
{
  gcg_frame_chain_config_init (config);
  gcg_frame_params_init (params);
  config->in_width = 1920;
  config->in_height = 1080;
  config->out_width = 640;
  config->out_height = 360;
  params->src[0] = 0x7f0000001000;
  params->dst[1] = 0x7f0000002000;
  params->dst_stride[1] = 768;
  params->frame_number = 41;
  params->pts = 1234567890123;
  memset (io, 0, sizeof (*io));
  io->config = config;
  io->params = params;
}

/* "items": how many tensor items the frame (or batch) wrote. */
static void
test_items (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelDecl)
      decl = gcg__kernel_decl_parse ("n=items,f=frame", &error);
  GcgFrameChainConfig config;
  GcgFrameParams params;
  GcgFrameStageIo io;
  struct
  {
    gint32 n;
    guint64 f;
  } v;

  g_assert_no_error (error);
  g_assert_cmpuint (decl->size, ==, sizeof (v));
  frame_io (&config, &params, &io);
  io.n_items = 13;
  g_assert_true (gcg__kernel_decl_fill (decl, "k", &io, NULL, &v, &error));
  g_assert_cmpint (v.n, ==, 13);
  g_assert_cmpuint (v.f, ==, 41);
}

static void
test_fill (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelDecl) decl = gcg__kernel_decl_parse (fill_decl, &error);
  GcgFrameChainConfig config;
  GcgFrameParams params;
  GcgFrameStageIo io;
  Filled f;
  Named named[] = {
    { "level", { GCG_FRAME_VALUE_DOUBLE, { .d = -3.0 } } },
    { "count", { GCG_FRAME_VALUE_INT, { .i = 5 } } },
    { "strength", { GCG_FRAME_VALUE_UINT, { .u = 2 } } },
    { NULL },
  };

  g_assert_no_error (error);
  g_assert_cmpuint (decl->size, ==, sizeof (Filled));
  frame_io (&config, &params, &io);

  /* No named values: the defaults. */
  memset (&f, 0xab, sizeof (f));
  g_assert_true (gcg__kernel_decl_fill (decl, "k", &io, NULL, &f, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (f.gain, ==, 1.5f);
  g_assert_cmpint (f.lvl, ==, 7);
  g_assert_cmpuint (f.src, ==, 0x7f0000001000);
  g_assert_cmpuint (f.dst, ==, 0x7f0000002000);
  g_assert_cmpint (f.pitch, ==, 768);
  g_assert_cmpint (f.w, ==, 1920);
  g_assert_cmpint (f.h, ==, 360);
  g_assert_cmpuint (f.count, ==, 0);
  g_assert_cmpuint (f.frame, ==, 41);
  g_assert_cmpuint (f.pts, ==, 1234567890123);
  g_assert_cmpfloat (f.strength, ==, 0.25);

  /* The frame's named values, converted to each declared type. */
  io.lookup = lookup;
  io.lookup_data = named;
  g_assert_true (gcg__kernel_decl_fill (decl, "k", &io, NULL, &f, &error));
  g_assert_cmpint (f.lvl, ==, -3);
  g_assert_cmpuint (f.count, ==, 5);
  g_assert_cmpfloat (f.strength, ==, 2.0);
}

static void
test_fill_refused (void)
{
  g_autoptr (GcgKernelDecl) decl = gcg__kernel_decl_parse (fill_decl, NULL);
  const Named bad[] = {
    { "level", { GCG_FRAME_VALUE_DOUBLE, { .d = 1.5 } } },
    { "level", { GCG_FRAME_VALUE_DOUBLE, { .d = 3e9 } } },
    { "level", { GCG_FRAME_VALUE_UINT, { .u = 1u << 31 } } },
    { "count", { GCG_FRAME_VALUE_INT, { .i = -1 } } },
    { "count", { GCG_FRAME_VALUE_DOUBLE, { .d = 4294967296.0 } } },
    { "strength", { GCG_FRAME_VALUE_DOUBLE, { .d = NAN } } },
    { "strength", { GCG_FRAME_VALUE_DOUBLE, { .d = INFINITY } } },
    { "count", { GCG_FRAME_VALUE_NONE, { .u = 0 } } },
  };
  GcgFrameChainConfig config;
  GcgFrameParams params;
  GcgFrameStageIo io;
  Filled f;

  frame_io (&config, &params, &io);
  io.lookup = lookup;
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autoptr (GError) error = NULL;
    Named one[] = { bad[i], { NULL } };

    io.lookup_data = one;
    g_assert_false (gcg__kernel_decl_fill (decl, "vignette", &io, NULL, &f,
        &error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "vignette"));
    g_assert_nonnull (strstr (error->message, bad[i].key));
  }
}

static void
test_f32_meta (void)
{
  g_autoptr (GcgKernelDecl)
      decl = gcg__kernel_decl_parse ("m=meta:mask_level", NULL);
  Named big[] = { { "mask_level", { GCG_FRAME_VALUE_DOUBLE, { .d = 1e39 } } },
    { NULL } };
  Named ok[] = { { "mask_level", { GCG_FRAME_VALUE_DOUBLE, { .d = 0.5 } } },
    { NULL } };
  GcgFrameStageIo io = { 0 };
  gfloat f[2];

  io.lookup = lookup;
  io.lookup_data = ok;
  g_assert_true (gcg__kernel_decl_fill (decl, "k", &io, NULL, f, NULL));
  g_assert_cmpfloat (f[0], ==, 0.5f);
  io.lookup_data = big;
  g_assert_false (gcg__kernel_decl_fill (decl, "k", &io, NULL, f, NULL));
}

/* A postprocess kernel's fields: their types and layout, and each frame
 * their values from the stage's GcgKernelPpValues beside the frame's. */
static void
test_postprocess_fields (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelDecl) decl = gcg__kernel_decl_parse (
      "in=output,n_bytes=output_bytes,recs=records,cnt=counts,"
      "per=max_results,nc=classes,st=score_threshold,it=iou_threshold,"
      "n=items,w=out_width,h=out_height,f=frame,g=meta:gain:f32:2",
      &error);
  const GcgKernelPpValues pp = { 0x7f0000010000, 4 * 1000 * 8, 0x7f0000020100,
    0x7f0000020000, 17, 1000, 0.25f, 0.5f };
  GcgFrameChainConfig config;
  GcgFrameParams params;
  GcgFrameStageIo io;
  struct
  {
    guint64 in, n_bytes, recs, cnt;
    gint32 per, nc;
    gfloat st, it;
    gint32 n, w, h;
    guint64 f;
    gfloat g;
  } v;

  g_assert_no_error (error);
  g_assert_cmpuint (decl->params[0].type, ==, GCG_KERNEL_PARAM_U64);
  g_assert_cmpuint (decl->params[4].type, ==, GCG_KERNEL_PARAM_I32);
  g_assert_cmpuint (decl->params[6].type, ==, GCG_KERNEL_PARAM_F32);
  g_assert_cmpuint (decl->params[12].offset, ==,
      G_STRUCT_OFFSET (__typeof__ (v), g));
  g_assert_cmpuint (decl->size, ==, sizeof (v));
  g_assert_true (gcg__kernel_decl_check_role (decl, TRUE, &error));
  g_assert_no_error (error);
  frame_io (&config, &params, &io);
  io.n_items = 3;
  memset (&v, 0xa5, sizeof (v));
  g_assert_true (gcg__kernel_decl_fill (decl, "pp", &io, &pp, &v, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (v.in, ==, pp.output);
  g_assert_cmpuint (v.n_bytes, ==, pp.output_bytes);
  g_assert_cmpuint (v.recs, ==, pp.records);
  g_assert_cmpuint (v.cnt, ==, pp.counts);
  g_assert_cmpint (v.per, ==, 17);
  g_assert_cmpint (v.nc, ==, 1000);
  g_assert_cmpfloat (v.st, ==, 0.25f);
  g_assert_cmpfloat (v.it, ==, 0.5f);
  g_assert_cmpint (v.n, ==, 3);
  g_assert_cmpint (v.w, ==, 640);
  g_assert_cmpint (v.h, ==, 360);
  g_assert_cmpuint (v.f, ==, 41);
  g_assert_cmpfloat (v.g, ==, 2.0f);
  /* Without the values (no postprocess stage) they read 0. */
  g_assert_true (gcg__kernel_decl_fill (decl, "pp", &io, NULL, &v, &error));
  g_assert_cmpuint (v.in, ==, 0);
  g_assert_cmpint (v.per, ==, 0);
  g_assert_cmpfloat (v.st, ==, 0.0f);
}

/* A postprocess kernel's fields in another kernel, and frame planes in
 * a postprocess kernel, are refused naming the parameter and field;
 * the rest is taken by both. */
static void
test_postprocess_role (void)
{
  static const struct
  {
    const gchar *decl;
    /* Where it is refused: in a postprocess kernel or in another one. */
    gboolean in_postprocess;
    const gchar *says;
  } cases[] = {
    { "a=output", FALSE, "postprocess kernel only" },
    { "a=output_bytes", FALSE, "postprocess kernel only" },
    { "a=records", FALSE, "postprocess kernel only" },
    { "g=f32:1,a=counts", FALSE, "postprocess kernel only" },
    { "a=max_results", FALSE, "postprocess kernel only" },
    { "a=classes", FALSE, "postprocess kernel only" },
    { "a=score_threshold", FALSE, "postprocess kernel only" },
    { "a=iou_threshold", FALSE, "postprocess kernel only" },
    { "a=src0", TRUE, "no frame planes" },
    { "a=src2", TRUE, "no frame planes" },
    { "a=dst0", TRUE, "no frame planes" },
    { "a=dst1", TRUE, "no frame planes" },
    { "a=src_pitch0", TRUE, "no frame planes" },
    { "n=items,a=dst_pitch2", TRUE, "no frame planes" },
  };
  static const gchar *const both[] = { "",
    "n=items,w=out_width,"
    "h=out_height,f=frame,p=pts,i=in_width,g=meta:gain,c=f32:1" };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) error = NULL;
    g_autoptr (GcgKernelDecl)
        decl = gcg__kernel_decl_parse (cases[i].decl, NULL);

    g_assert_nonnull (decl);
    g_assert_true (gcg__kernel_decl_check_role (decl, !cases[i].in_postprocess,
        NULL));
    g_assert_false (gcg__kernel_decl_check_role (decl, cases[i].in_postprocess,
        &error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "'a'"));
    g_assert_nonnull (strstr (error->message, cases[i].says));
  }
  for (guint i = 0; i < G_N_ELEMENTS (both); i++) {
    g_autoptr (GcgKernelDecl) decl = gcg__kernel_decl_parse (both[i], NULL);

    g_assert_true (gcg__kernel_decl_check_role (decl, FALSE, NULL));
    g_assert_true (gcg__kernel_decl_check_role (decl, TRUE, NULL));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernel-decl/layout", test_layout);
  g_test_add_func ("/kernel-decl/to-c", test_to_c);
  g_test_add_func ("/kernel-decl/refused", test_refused);
  g_test_add_func ("/kernel-decl/names-taken", test_names_taken);
  g_test_add_func ("/kernel-decl/error-bounded", test_error_bounded);
  g_test_add_func ("/kernel-decl/bounds", test_bounds);
  g_test_add_func ("/kernel-decl/fill", test_fill);
  g_test_add_func ("/kernel-decl/items", test_items);
  g_test_add_func ("/kernel-decl/fill-refused", test_fill_refused);
  g_test_add_func ("/kernel-decl/f32-meta", test_f32_meta);
  g_test_add_func ("/kernel-decl/postprocess-fields", test_postprocess_fields);
  g_test_add_func ("/kernel-decl/postprocess-role", test_postprocess_role);
  return g_test_run ();
}
