/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A deterministic fuzz test of user kernel parameter declarations (the
 * kernel-params property, GcgKernelOp's params): declarations put
 * together from hostile names and specs are parsed; a refused one gives
 * an error, a taken one a layout within bounds (offsets aligned, in
 * order, with no gap past alignment, inside the size).  Every taken one
 * then goes, as its generated struct, into one NVRTC program with
 * static_asserts of its size, its alignment and each member's size (NVRTC
 * has no offsetof; sizes in order under natural alignment fix the
 * offsets the host checked): the host and the kernel must agree on every
 * byte (a declaration whose struct does not compile, or lays out
 * otherwise, fails).  The NVRTC half skips when
 * NVRTC is absent, and says so.
 *
 *   GCG_FUZZ_SEED=N, GCG_FUZZ_CASES=N (default 2000), GCG_FUZZ_FIRST=N
 */
#include <gcg.h>
#include "gcg-kernel-decl-private.h"
#include "gcg-nvrtc-private.h"
#include "common/gcg-test-fuzz.h"

#include <string.h>

#define DEFAULT_SEED 20261126u
#define DEFAULT_CASES 2000

static const gchar *names[] = {
  "a",
  "gain",
  "x1",
  "_k",
  "src",
  "dst",
  "p",
  "gcg_params",
  "threadIdx",
  "NULL",
  "INFINITY",
  "linux",
  "unix",
  "main",
  "printf",
  "max",
  "min",
  "int",
  "float",
  "class",
  "__x",
  "__CUDA_ARCH__",
  "_Gain",
  "9a",
  "a b",
  "a;b",
  "a-b",
  "",
  "a\tb",
  "\xc3\xa9",
  "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk",
  "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl",
};

static const gchar *specs[] = {
  "src0",
  "dst2",
  "src_pitch1",
  "dst_pitch0",
  "in_width",
  "out_height",
  "frame",
  "pts",
  "items",
  "src3",
  "f32:1.5",
  "i32:-3",
  "u32:7",
  "f64:2.5",
  "u64:9",
  "f32:nan",
  "f32:1e40",
  "i32:99999999999",
  "u32:-1",
  "meta:level",
  "meta:level:f32:0.5",
  "meta:k:i32:2",
  "meta:k:u64:1",
  "meta:",
  "meta::f32:1",
  "meta:a-b",
  "f99:1",
  "i32:abc",
  "",
  ":",
  "=",
  "i32:1:2",
  "f64:-0",
  "f32:0x10",
};

/* A declaration of 0 to 70 items from the lists, with junk now and then. */
static gchar *
rand_decl (GRand *r)
{
  GString *s = g_string_new (NULL);
  gint n = g_rand_int_range (r, 0, 8) == 0 ? g_rand_int_range (r, 60, 71)
                                           : g_rand_int_range (r, 0, 8);

  for (gint i = 0; i < n; i++) {
    if (i > 0)
      g_string_append (s, g_rand_int_range (r, 0, 40) ? "," : ",,");
    if (g_rand_int_range (r, 0, 4) == 0 || n > 8)
      g_string_append_printf (s, "n%d", i);     /* distinct names */
    else
      g_string_append (s, names[g_rand_int_range (r, 0, G_N_ELEMENTS (names))]);
    if (g_rand_int_range (r, 0, 30))
      g_string_append_c (s, '=');
    g_string_append (s, specs[g_rand_int_range (r, 0, G_N_ELEMENTS (specs))]);
  }
  return g_string_free (s, FALSE);
}

static gsize
type_size (GcgKernelParamType t)
{
  return t == GCG_KERNEL_PARAM_F64 || t == GCG_KERNEL_PARAM_U64 ? 8 : 4;
}

/* The layout's own bounds; appends the static_asserts of @decl, as the
 * struct gcg_params_@i, to @checks. */
static void
check_layout (guint32 seed, guint i, const GcgKernelDecl *decl, GString *checks)
{
  g_autofree gchar *type = g_strdup_printf ("gcg_params_%u", i);
  g_autofree gchar *c = gcg__kernel_decl_to_c (decl, type);
  gsize end = 0;

  GCG_FUZZ_CHECK ("kernel-decl", seed, i,
      decl->n_params <= GCG_KERNEL_DECL_MAX_PARAMS, "%u params",
      decl->n_params);
  GCG_FUZZ_CHECK ("kernel-decl", seed, i,
      decl->size >= 8 && decl->size % 8 == 0, "size %zu", decl->size);
  for (guint k = 0; k < decl->n_params; k++) {
    const GcgKernelParam *p = &decl->params[k];
    gsize sz = type_size (p->type);

    /* Natural alignment, declaration order, no gap larger than it. */
    GCG_FUZZ_CHECK ("kernel-decl", seed, i,
        p->offset % sz == 0 && p->offset >= end && p->offset < end + sz
            && p->offset + sz <= decl->size,
        "param %s at %zu", p->name, p->offset);
    end = p->offset + sz;
  }
  g_string_append_printf (checks, "#line 1 \"case-%u\"\n%s", i, c);
  /* The struct may be 4 bytes shorter than the size (rounded up to 8). */
  g_string_append_printf (checks,
      "static_assert (sizeof (%s) <= %zu && "
      "sizeof (%s) + 4 >= %zu, \"size\");\n",
      type, decl->size, type, decl->size);
  g_string_append_printf (checks,
      "static_assert (alignof (%s) <= %zu, "
      "\"align\");\n",
      type, decl->n_params ? decl->align : 8);
  /* NVRTC has no offsetof: each member's size, in declaration order and
   * naturally aligned, fixes its offset as the host computed it above. */
  for (guint k = 0; k < decl->n_params; k++) {
    g_string_append_printf (checks,
        "static_assert (sizeof (%s::%s) == %zu, "
        "\"size of %s\");\n",
        type, decl->params[k].name, type_size (decl->params[k].type),
        decl->params[k].name);
  }
}

static void
test_fuzz (void)
{
  g_autoptr (GString) checks = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) cubin = NULL;
  guint32 seed;
  guint first, n, ran = 0, taken = 0;

  gcg_test_fuzz_sweep (&seed, &first, &n, DEFAULT_SEED, DEFAULT_CASES);
  for (guint i = first; i < first + n; i++) {
    guint32 s[2] = { seed, i };
    g_autoptr (GRand) r = g_rand_new_with_seed_array (s, 2);
    g_autofree gchar *text = rand_decl (r);
    g_autoptr (GError) e = NULL;
    g_autoptr (GcgKernelDecl) decl = gcg__kernel_decl_parse (text, &e);

    if (decl != NULL) {
      GCG_FUZZ_CHECK ("kernel-decl", seed, i, e == NULL, "error on success");
      check_layout (seed, i, decl, checks);
      taken++;
    } else {
      GCG_FUZZ_CHECK ("kernel-decl", seed, i,
          e != NULL && g_utf8_validate (e->message, -1, NULL), "refused: %s",
          text);
    }
    ran++;
  }
  g_test_message ("%u of %u declarations taken", taken, ran);
  gcg_test_fuzz_ran ("kernel-decl", ran, n);
  if (n >= 500)
    g_assert_cmpuint (taken, >, n / 20);
  if (!gcg__nvrtc_load (&error)) {
    g_test_skip_printf ("NVRTC is absent: layouts not compiled (%s)",
        error->message);
    return;
  }
  /* One program for every struct: a layout the compiler disagrees with,
   * or a struct that does not compile, names its case in the log. */
  cubin = gcg__nvrtc_compile (NULL, checks->str, "decls.cu", 90, NULL, &error);
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernel-decl/fuzz", test_fuzz);
  return g_test_run ();
}
