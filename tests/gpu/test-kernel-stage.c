/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * User kernels as frame stages on a GPU: each example kernel of
 * examples/kernels/ (NVRTC source, and a cubin given as bytes) against a
 * reference computed here, graph and eager, over 1000 frames whose named
 * values change every frame with one capture; a missing entry point and
 * bad source refused when the stage is made; a faulting kernel reported
 * (in a child process: it poisons the context).
 */
#include "gcg-gpu-fixture.h"
#include "gcg-frame-batch-private.h"
#include "gcg-kernel-decl-private.h"
#include "gcg-kernel-replay-private.h"
#include "gcg-kernel-stage-private.h"
#include "gcg-nvrtc-private.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#define W 317
#define H 181
#define PITCH (W * 4 + 60)
#define FRAMES 1000

typedef struct
{
  const gchar *file;
  const gchar *entry;
} Example;

typedef struct
{
  gdouble strength;
  guint32 map;
  gint32 roi[4];
  gdouble level;
} Values;

static const gchar *const fmad_off[] = { "--fmad=false", NULL };

static gchar *
read_example (const gchar *file, gchar **decl)
{
  g_autofree gchar *path =
      g_build_filename (g_getenv ("GCG_EXAMPLES_DIR"), "kernels", file, NULL);
  gchar *source = NULL;
  const gchar *tag;

  g_assert_true (g_file_get_contents (path, &source, NULL, NULL));
  tag = strstr (source, "// gcg-params: ");
  g_assert_nonnull (tag);
  tag += strlen ("// gcg-params: ");
  *decl = g_strndup (tag, strcspn (tag, "\n"));
  return source;
}

static void
values_for_frame (guint i, Values *v)
{
  static const guint32 maps[] = { 0x03000102, 0x03020100, 0x00010203,
    0x02030001 };

  v->strength = (i % 11) / 10.0;
  v->map = maps[i % 4];
  v->roi[0] = (i * 7) % W - 20;
  v->roi[1] = (i * 3) % H;
  v->roi[2] = 40 + i % 100;
  v->roi[3] = 30 + i % 60;
  v->level = (i % 5) / 4.0;
}

static gboolean
lookup (const gchar *name, GcgFrameValue *value, gpointer user_data)
{
  const Values *v = user_data;
  static const gchar *const roi_keys[] = { "roi_x", "roi_y", "roi_w", "roi_h" };

  value->type = GCG_FRAME_VALUE_DOUBLE;
  if (strcmp (name, "strength") == 0)
    value->v.d = v->strength;
  else if (strcmp (name, "mask_level") == 0)
    value->v.d = v->level;
  else if (strcmp (name, "map") == 0) {
    value->type = GCG_FRAME_VALUE_UINT;
    value->v.u = v->map;
  } else {
    for (guint k = 0; k < 4; k++) {
      if (strcmp (name, roi_keys[k]) == 0) {
        value->type = GCG_FRAME_VALUE_INT;
        value->v.i = v->roi[k];
        return TRUE;
      }
    }
    return FALSE;
  }
  return TRUE;
}

static guint8
scale (guint8 s, gfloat f)
{
  return (guint8) fmaf ((gfloat) s, f, 0.5f);
}

/* The reference of @entry for one pixel. */
static void
reference (const gchar *entry, const Values *v, gint x, gint y, const guint8 *s,
    guint8 *d)
{
  gfloat f = 1.0f;

  if (strcmp (entry, "swizzle") == 0) {
    for (gint c = 0; c < 4; c++)
      d[c] = s[(v->map >> (8 * c)) & 3];
    return;
  }
  if (strcmp (entry, "vignette") == 0) {
    gfloat cx = (x + 0.5f) / W - 0.5f;
    gfloat cy = (y + 0.5f) / H - 0.5f;

    f = 1.0f - (gfloat) v->strength * 2.0f * (cx * cx + cy * cy);
    f = fminf (fmaxf (f, 0.0f), 1.0f);
  } else if (!(x >= v->roi[0] && y >= v->roi[1]
                 && x < (gint64) v->roi[0] + v->roi[2]
                 && y < (gint64) v->roi[1] + v->roi[3])) {
    f = fminf (fmaxf ((gfloat) v->level, 0.0f), 1.0f);
  }
  for (gint c = 0; c < 3; c++)
    d[c] = scale (s[c], f);
  d[3] = s[3];
}

/* Compares the device output with the reference; returns the largest
 * difference of a byte. */
static guint
check_output (const gchar *entry, const Values *v, const guint8 *in,
    CUdeviceptr dst)
{
  g_autofree guint8 *out = g_malloc (PITCH * H);
  guint worst = 0;

  g_assert_true (GCG_CU_OK (NULL, cuMemcpyDtoH, out, dst, PITCH * H));
  for (gint y = 0; y < H; y++) {
    for (gint x = 0; x < W; x++) {
      guint8 ref[4];
      const guint8 *o = out + y * PITCH + 4 * x;

      reference (entry, v, x, y, in + y * PITCH + 4 * x, ref);
      for (gint c = 0; c < 4; c++)
        worst = MAX (worst, (guint) ABS ((gint) o[c] - (gint) ref[c]));
    }
  }
  return worst;
}

static GcgFrameStage *
make_stage (Fixture *f, const Example *ex, gboolean as_cubin, GError **error)
{
  g_autofree gchar *decl = NULL;
  g_autofree gchar *source = read_example (ex->file, &decl);
  g_autoptr (GBytes) code = NULL;
  GcgKernelStageSpec spec = { 0 };
  gint major, minor;

  spec.kind = GCG_KERNEL_CODE_SOURCE;
  spec.name = ex->file;
  spec.entry = ex->entry;
  spec.decl = decl;
  spec.options = fmad_off;
  spec.width = W;
  spec.height = H;
  if (as_cubin) {
    g_autofree gchar *prelude = NULL;
    g_autoptr (GcgKernelDecl) d = gcg__kernel_decl_parse (decl, NULL);

    prelude = gcg__kernel_decl_to_c (d, "gcg_params");
    gcg_context_get_compute_capability (f->ctx, &major, &minor);
    code = gcg__nvrtc_compile (prelude, source, ex->file, major * 10 + minor,
        fmad_off, error);
    g_assert_nonnull (code);
    spec.kind = GCG_KERNEL_CODE_BINARY;
  } else {
    code = g_bytes_new (source, strlen (source));
  }
  spec.code = code;
  return gcg__kernel_stage_new (f->ctx, &spec, error);
}

static void
run_example (Fixture *f, const Example *ex, gboolean use_graph,
    gboolean as_cubin)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelReplay) replay = NULL;
  g_autofree guint8 *in = g_malloc (PITCH * H);
  const guint grid[3] = { 1, 1, 1 };
  const guint block[2] = { 1, 1 };
  GcgFrameStage *stage;
  GcgFrameChainConfig config;
  GcgFrameParams params;
  GcgFrameStageIo io = { 0 };
  CUdeviceptr src, dst;
  guint worst = 0, checked = 0;

  for (gsize i = 0; i < PITCH * H; i++)
    in[i] = (guint8) g_test_rand_int ();
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &src, PITCH * H));
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &dst, PITCH * H));
  g_assert_true (GCG_CU_OK (NULL, cuMemcpyHtoD, src, in, PITCH * H));
  stage = make_stage (f, ex, as_cubin, &error);
  g_assert_no_error (error);
  replay = gcg__kernel_replay_new (f->ctx, NULL, grid, block, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_true (gcg__kernel_replay_add_stage (replay, stage, &error));

  gcg_frame_chain_config_init (&config);
  gcg_frame_params_init (&params);
  config.in_width = config.out_width = W;
  config.in_height = config.out_height = H;
  params.src[0] = src;
  params.dst[0] = dst;
  params.src_stride[0] = params.dst_stride[0] = PITCH;
  io.config = &config;
  io.params = &params;
  io.lookup = lookup;
  for (guint i = 0; i < FRAMES; i++) {
    Values v;

    values_for_frame (i, &v);
    io.lookup_data = &v;
    params.frame_number = i;
    g_assert_true (gcg__kernel_replay_run_io (replay, NULL, &io, f->stream,
        use_graph, &error));
    g_assert_no_error (error);
    if (i % 97 == 0 || i == FRAMES - 1) {
      g_assert_true (gcg_stream_synchronize (f->stream, NULL));
      worst = MAX (worst, check_output (ex->entry, &v, in, dst));
      checked++;
    }
  }
  g_test_message ("%s %s%s: %u frames checked, largest byte difference %u",
      ex->entry, use_graph ? "graph" : "eager", as_cubin ? " (cubin)" : "",
      checked, worst);
  g_assert_cmpuint (worst, ==, 0);
  g_assert_cmpuint (gcg__kernel_replay_get_captures (replay), ==,
      use_graph ? 1 : 0);
  g_assert_cmpuint (use_graph ? gcg__kernel_replay_get_replays (replay)
                              : gcg__kernel_replay_get_eager (replay),
      ==, FRAMES);
  g_assert_true (gcg_stream_synchronize (f->stream, NULL));
  g_clear_pointer (&replay, gcg__kernel_replay_free);
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, src));
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, dst));
}

static const Example examples[] = {
  { "vignette.cu", "vignette" },
  { "swizzle.cu", "swizzle" },
  { "roi_mask.cu", "roi_mask" },
};

static void
test_examples (Fixture *f, gconstpointer data)
{
  if (f->ctx == NULL)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (examples); i++) {
    run_example (f, &examples[i], TRUE, FALSE);
    run_example (f, &examples[i], FALSE, FALSE);
  }
  run_example (f, &examples[1], TRUE, TRUE);
}

static void
test_refused (Fixture *f, gconstpointer data)
{
  const gchar *bad_source = "extern \"C\" __global__ void k (const "
                            "gcg_params *p)\n{\n  p->nothing = 1;\n}\n";
  Example missing = { "swizzle.cu", "no_such_entry" };
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameStage) stage = NULL;
  g_autoptr (GBytes) bad = NULL;
  GcgKernelStageSpec spec = { 0 };

  if (f->ctx == NULL)
    return;
  stage = make_stage (f, &missing, FALSE, &error);
  g_assert_null (stage);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "no_such_entry"));
  g_clear_error (&error);

  bad = g_bytes_new (bad_source, strlen (bad_source));
  spec.kind = GCG_KERNEL_CODE_SOURCE;
  spec.name = "bad.cu";
  spec.entry = "k";
  spec.decl = "gain=f32:1";
  spec.code = bad;
  spec.width = W;
  spec.height = H;
  stage = gcg__kernel_stage_new (f->ctx, &spec, &error);
  g_assert_null (stage);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "bad.cu(3)"));
  g_clear_error (&error);

  spec.decl = "gain=f33:1";
  stage = gcg__kernel_stage_new (f->ctx, &spec, &error);
  g_assert_null (stage);
  g_assert_nonnull (strstr (error->message, "bad.cu"));
  g_assert_nonnull (strstr (error->message, "gain"));
}

static void
test_fault (Fixture *f, gconstpointer data)
{
  const gchar *src = "extern \"C\" __global__ void boom (const gcg_params "
                     "*p)\n{\n  *(volatile int *) p->where = 1;\n}\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelReplay) replay = NULL;
  g_autoptr (GBytes) code = NULL;
  const guint grid[3] = { 1, 1, 1 };
  const guint block[2] = { 1, 1 };
  GcgKernelStageSpec spec = { 0 };
  GcgFrameStageIo io = { 0 };
  GcgFrameStage *stage;

  if (f->ctx == NULL)
    return;
  if (!g_test_subprocess ()) {
    g_test_trap_subprocess (NULL, 120 * G_USEC_PER_SEC,
        G_TEST_SUBPROCESS_INHERIT_STDOUT | G_TEST_SUBPROCESS_INHERIT_STDERR);
    g_test_trap_assert_passed ();
    return;
  }
  code = g_bytes_new_static (src, strlen (src));
  spec.kind = GCG_KERNEL_CODE_SOURCE;
  spec.name = "boom.cu";
  spec.entry = "boom";
  spec.decl = "where=u64:8";
  spec.code = code;
  spec.width = 1;
  spec.height = 1;
  stage = gcg__kernel_stage_new (f->ctx, &spec, &error);
  g_assert_no_error (error);
  replay = gcg__kernel_replay_new (f->ctx, NULL, grid, block, 0, 0, &error);
  g_assert_true (gcg__kernel_replay_add_stage (replay, stage, &error));
  g_assert_true (gcg__kernel_replay_run_io (replay, NULL, &io, f->stream, TRUE,
      &error));
  g_assert_false (gcg_stream_synchronize (f->stream, &error));
  g_assert_nonnull (error);
  g_test_message ("fault: %s", error->message);
  /* The context is gone for good: the fixture's teardown would fail. */
  _exit (0);
}

#define OW 160
#define OH 90
#define OPITCH (OW * 4 + 32)

static GcgFrameStage *
fused_swizzle (Fixture *f, GError **error)
{
  g_autofree gchar *decl = NULL;
  g_autofree gchar *source = read_example ("swizzle.cu", &decl);
  g_autoptr (GBytes) code = g_bytes_new (source, strlen (source));
  GcgKernelStageSpec spec = { 0 };

  /* In place on the chain's output: it reads and writes dst0. */
  spec.kind = GCG_KERNEL_CODE_SOURCE;
  spec.name = "swizzle.cu";
  spec.entry = "swizzle";
  spec.decl = "src=dst0,dst=dst0,src_pitch=dst_pitch0,dst_pitch=dst_pitch0,"
              "width=out_width,height=out_height,map=meta:map:u32:0x03000102";
  spec.code = code;
  spec.width = OW;
  spec.height = OH;
  return gcg__kernel_stage_new (f->ctx, &spec, error);
}

/* The chain's resize then the swizzle, one graph, against the CPU
 * chain followed by the swizzle's reference. */
static void
test_fused (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameBatch) cpu = NULL;
  g_autoptr (GcgFrameBatch) gpu = NULL;
  g_autofree guint8 *in = g_malloc (PITCH * H);
  g_autofree guint8 *ref = g_malloc0 (OPITCH * OH);
  g_autofree guint8 *out = g_malloc (OPITCH * OH);
  GcgFrameChainConfig config;
  GcgFrameParams gp, cp;
  CUdeviceptr src, dst;
  guint worst = 0;

  if (f->ctx == NULL)
    return;
  for (gsize i = 0; i < PITCH * H; i++)
    in[i] = (guint8) g_test_rand_int ();
  gcg_frame_chain_config_init (&config);
  config.in_width = W;
  config.in_height = H;
  config.out_width = OW;
  config.out_height = OH;
  cpu = gcg_frame_batch_new_for_frame (&config, GCG_BACKEND_CPU, NULL, &error);
  gpu =
      gcg_frame_batch_new_for_frame (&config, GCG_BACKEND_CUDA, f->ctx, &error);
  g_assert_no_error (error);
  g_assert_false (gcg__frame_batch_add_stage (cpu, fused_swizzle (f, NULL),
      &error));
  g_assert_error (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED);
  g_clear_error (&error);
  g_assert_true (gcg__frame_batch_add_stage (gpu, fused_swizzle (f, NULL),
      &error));
  g_assert_no_error (error);

  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &src, PITCH * H));
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &dst, OPITCH * OH));
  g_assert_true (GCG_CU_OK (NULL, cuMemcpyHtoD, src, in, PITCH * H));
  gcg_frame_params_init (&gp);
  gcg_frame_params_init (&cp);
  gp.src[0] = src;
  gp.dst[0] = dst;
  cp.src[0] = (guint64) (guintptr) in;
  cp.dst[0] = (guint64) (guintptr) ref;
  gp.src_stride[0] = cp.src_stride[0] = PITCH;
  gp.dst_stride[0] = cp.dst_stride[0] = OPITCH;
  for (guint i = 0; i < FRAMES; i++) {
    Values v;

    values_for_frame (i, &v);
    gcg__frame_batch_set_value_lookup (gpu, lookup, &v);
    g_assert_true (gcg_frame_batch_process_frame (gpu, &gp, f->stream, &error));
    g_assert_no_error (error);
    if (i % 97 != 0 && i != FRAMES - 1)
      continue;
    g_assert_true (gcg_stream_synchronize (f->stream, NULL));
    g_assert_true (GCG_CU_OK (NULL, cuMemcpyDtoH, out, dst, OPITCH * OH));
    g_assert_true (gcg_frame_batch_process_frame (cpu, &cp, NULL, &error));
    for (gint y = 0; y < OH; y++) {
      for (gint x = 0; x < OW; x++) {
        guint8 want[4];

        reference ("swizzle", &v, x, y, ref + y * OPITCH + 4 * x, want);
        for (gint c = 0; c < 4; c++) {
          gint d = out[y * OPITCH + 4 * x + c] - want[c];
          worst = MAX (worst, (guint) ABS (d));
        }
      }
    }
  }
  g_test_message ("resize then swizzle, one graph: largest byte difference "
                  "%u, %" G_GUINT64_FORMAT " capture(s)",
      worst, gcg_frame_batch_get_capture_count (gpu));
  g_assert_cmpuint (worst, ==, 0);
  g_assert_cmpuint (gcg_frame_batch_get_capture_count (gpu), ==, 1);
  g_assert_cmpuint (gcg_frame_batch_get_replay_count (gpu), ==, FRAMES);
  g_assert_true (gcg_stream_synchronize (f->stream, NULL));
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, src));
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, dst));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/kernel-stage/examples", Fixture, NULL, fixture_setup,
      test_examples, fixture_teardown);
  g_test_add ("/kernel-stage/refused", Fixture, NULL, fixture_setup,
      test_refused, fixture_teardown);
  g_test_add ("/kernel-stage/fused", Fixture, NULL, fixture_setup, test_fused,
      fixture_teardown);
  g_test_add ("/kernel-stage/fault", Fixture, NULL, fixture_setup, test_fault,
      fixture_teardown);
  return g_test_run ();
}
