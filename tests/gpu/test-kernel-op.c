/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GcgKernelOp in a GPU frame chain through the public API
 * (gcg_frame_batch_add_kernel_at()): a kernel BEFORE the built-in op (it
 * writes the input's scratch copy that the op reads), AFTER it (in place
 * on the output) and both, graph and eager, with a per-frame value and
 * per-frame adjustments, one capture per stream.  The reference is the
 * CPU backend's chain (bit-exact with the GPU's, docs/frame-chain.md)
 * run on the input as the kernel changes it, and the kernel's change
 * applied to its output.  After a batch's op: a kernel over the whole
 * tensor, one z slice per item, against the CPU batch and the same
 * change, the items past the batch's count zeroed.
 */
#include "gcg-gpu-fixture.h"
#include "gcg-frame-batch-private.h"
#include "common/gcg-test-elf.h"

#include <string.h>

#define IN_W 317
#define IN_H 181
#define IN_PITCH (IN_W * 4 + 60)
#define OUT_W 160
#define OUT_H 90
#define OUT_PITCH (OUT_W * 4)
#define FRAMES 200

/* Flips bits of R, G and B by a per-frame mask; alpha kept. */
static const gchar *const xor_source =
    "extern \"C\" __global__ void xor_rgb (const gcg_params *p)\n"
    "{\n"
    "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  if (x >= p->w || y >= p->h)\n"
    "    return;\n"
    "  const uchar4 *s = (const uchar4 *) ((const char *) p->src\n"
    "      + (size_t) y * p->sp) + x;\n"
    "  uchar4 *d = (uchar4 *) ((char *) p->dst + (size_t) y * p->dp) + x;\n"
    "  uchar4 v = *s;\n"
    "  v.x ^= p->mask & 255;\n"
    "  v.y ^= (p->mask >> 8) & 255;\n"
    "  v.z ^= (p->mask >> 16) & 255;\n"
    "  *d = v;\n"
    "}\n";

/* Before the op: input -> scratch.  After: the output, in place. */
#define BEFORE_DECL \
  "src=src0,dst=dst0,sp=src_pitch0,dp=dst_pitch0," \
  "w=in_width,h=in_height,mask=meta:mask_in:u32:0"
#define AFTER_DECL \
  "src=dst0,dst=dst0,sp=dst_pitch0,dp=dst_pitch0," \
  "w=out_width,h=out_height,mask=meta:mask_out:u32:0"

typedef struct
{
  guint32 mask_in;
  guint32 mask_out;
} Masks;

static gboolean
lookup (const gchar *name, GcgFrameValue *value, gpointer user_data)
{
  const Masks *m = user_data;

  value->type = GCG_FRAME_VALUE_UINT;
  if (strcmp (name, "mask_in") == 0)
    value->v.u = m->mask_in;
  else if (strcmp (name, "mask_out") == 0)
    value->v.u = m->mask_out;
  else
    return FALSE;
  return TRUE;
}

static void
xor_rgb (guint8 *data, gsize pitch, guint w, guint h, guint32 mask)
{
  for (guint y = 0; y < h; y++) {
    for (guint x = 0; x < w; x++) {
      guint8 *p = data + y * pitch + 4 * x;

      for (guint c = 0; c < 3; c++)
        p[c] ^= (mask >> (8 * c)) & 255;
    }
  }
}

static void
make_config (GcgFrameChainConfig *config)
{
  gcg_frame_chain_config_init (config);
  config->in_format = config->out_format = GCG_PIXEL_FORMAT_RGBA;
  config->in_width = IN_W;
  config->in_height = IN_H;
  config->out_width = OUT_W;
  config->out_height = OUT_H;
  config->resize = GCG_RESIZE_BILINEAR;
  config->letterbox = GCG_LETTERBOX_SYMMETRIC;
}

/* The frame's values: adjustments and masks change every frame. */
static void
frame_values (guint i, GcgFrameParams *params, Masks *m)
{
  params->gain = 1.0f + (i % 5) * 0.1f;
  params->brightness = (i % 3) * 0.02f;
  params->frame_number = i;
  m->mask_in = 0x00010203u * (i % 7) + (i & 0x30);
  m->mask_out = 0x00302010u ^ (i * 0x00050301u);
}

/* The CPU chain's output for @in as a kernel before (@before) changes
 * it, then changed by a kernel after (@after). */
static void
reference (GcgFrameBatch *cpu, const guint8 *in, const GcgFrameParams *p,
    const Masks *m, gboolean before, gboolean after, guint8 *out)
{
  g_autofree guint8 *copy = g_memdup2 (in, IN_PITCH * IN_H);
  GcgFrameParams params = *p;

  if (before)
    xor_rgb (copy, IN_PITCH, IN_W, IN_H, m->mask_in);
  params.src[0] = (guint64) (guintptr) copy;
  params.src_stride[0] = IN_PITCH;
  params.dst[0] = (guint64) (guintptr) out;
  params.dst_stride[0] = OUT_PITCH;
  g_assert_true (gcg_frame_batch_process_frame (cpu, &params, NULL, NULL));
  if (after)
    xor_rgb (out, OUT_PITCH, OUT_W, OUT_H, m->mask_out);
}

static GcgFrameBatch *
gpu_chain (Fixture *f, gboolean before, gboolean after, gboolean use_graph)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgKernelOp) op_in = NULL;
  g_autoptr (GcgKernelOp) op_out = NULL;
  GcgFrameChainConfig config;
  GcgFrameBatch *chain;

  make_config (&config);
  chain =
      gcg_frame_batch_new_for_frame (&config, GCG_BACKEND_CUDA, f->ctx, &error);
  g_assert_no_error (error);
  gcg_frame_batch_set_use_graph (chain, use_graph);
  op_in = gcg_kernel_op_new_from_source (f->ctx, xor_source, "xor_rgb",
      BEFORE_DECL, &error);
  g_assert_no_error (error);
  op_out = gcg_kernel_op_new_from_source (NULL, xor_source, "xor_rgb",
      AFTER_DECL, &error);
  g_assert_no_error (error);
  /* Added after first, to show the position, not the order, decides. */
  if (after)
    g_assert_true (gcg_frame_batch_add_kernel_at (chain, op_out,
        GCG_KERNEL_POSITION_AFTER, &error));
  if (before)
    g_assert_true (gcg_frame_batch_add_kernel_at (chain, op_in,
        GCG_KERNEL_POSITION_BEFORE, &error));
  g_assert_no_error (error);
  return chain;
}

/* FRAMES frames on @n_streams streams in turn; every 17th checked. */
static void
run_case (Fixture *f, gboolean before, gboolean after, gboolean use_graph,
    guint n_streams)
{
  g_autoptr (GcgFrameBatch) chain = gpu_chain (f, before, after, use_graph);
  g_autoptr (GcgFrameBatch) cpu = NULL;
  g_autofree guint8 *in = g_malloc (IN_PITCH * IN_H);
  g_autofree guint8 *out = g_malloc (OUT_PITCH * OUT_H);
  g_autofree guint8 *ref = g_malloc (OUT_PITCH * OUT_H);
  GcgStream *streams[2] = { f->stream, NULL };
  GcgFrameChainConfig config;
  GcgFrameParams params;
  CUdeviceptr src, dst[2];
  Masks m;
  guint checked = 0;

  make_config (&config);
  cpu = gcg_frame_batch_new_for_frame (&config, GCG_BACKEND_CPU, NULL, NULL);
  if (n_streams > 1)
    streams[1] = gcg_stream_new (f->ctx, NULL);
  for (gsize i = 0; i < IN_PITCH * IN_H; i++)
    in[i] = (guint8) g_test_rand_int ();
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &src, IN_PITCH * IN_H));
  g_assert_true (GCG_CU_OK (NULL, cuMemcpyHtoD, src, in, IN_PITCH * IN_H));
  for (guint s = 0; s < 2; s++)
    g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &dst[s], OUT_PITCH * OUT_H));
  gcg__frame_batch_set_value_lookup (chain, lookup, &m);
  gcg_frame_params_init (&params);
  params.src[0] = src;
  params.src_stride[0] = IN_PITCH;
  params.dst_stride[0] = OUT_PITCH;
  for (guint i = 0; i < FRAMES; i++) {
    guint s = i % n_streams;

    frame_values (i, &params, &m);
    params.dst[0] = dst[s];
    g_assert_true (gcg_frame_batch_process_frame (chain, &params, streams[s],
        NULL));
    if (i % 17 != 0 && i != FRAMES - 1)
      continue;
    g_assert_true (gcg_stream_synchronize (streams[s], NULL));
    g_assert_true (GCG_CU_OK (NULL, cuMemcpyDtoH, out, dst[s],
        OUT_PITCH * OUT_H));
    reference (cpu, in, &params, &m, before, after, ref);
    g_assert_cmpmem (out, OUT_PITCH * OUT_H, ref, OUT_PITCH * OUT_H);
    checked++;
  }
  g_test_message ("before %d after %d %s, %u stream(s): %u frames equal "
                  "the reference",
      before, after, use_graph ? "graph" : "eager", n_streams, checked);
  g_assert_cmpuint (gcg_frame_batch_get_capture_count (chain), ==,
      use_graph ? n_streams : 0);
  g_assert_cmpuint (use_graph ? gcg_frame_batch_get_replay_count (chain)
                              : gcg_frame_batch_get_eager_count (chain),
      ==, FRAMES);
  for (guint s = 0; s < n_streams; s++)
    g_assert_true (gcg_stream_synchronize (streams[s], NULL));
  g_clear_object (&chain);
  g_clear_object (&streams[1]);
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, src));
  for (guint s = 0; s < 2; s++)
    g_assert_true (GCG_CU_OK (NULL, cuMemFree, dst[s]));
}

static void
test_positions (Fixture *f, gconstpointer data)
{
  if (f->ctx == NULL)
    return;
  for (guint g = 0; g < 2; g++) {
    run_case (f, TRUE, FALSE, g == 0, 1);
    run_case (f, FALSE, TRUE, g == 0, 1);
    run_case (f, TRUE, TRUE, g == 0, 1);
  }
}

/* Two streams in flight: each has its own scratch copy and graph. */
static void
test_two_streams (Fixture *f, gconstpointer data)
{
  if (f->ctx == NULL)
    return;
  run_case (f, TRUE, TRUE, TRUE, 2);
}

/* A chain refuses a kernel once it has run, and a binary whose entry
 * point is missing when it joins (no context at construction). */
static void
test_refused (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameBatch) chain = NULL;
  g_autoptr (GcgKernelOp) op = NULL;
  g_autoptr (GcgKernelOp) ptx = NULL;
  g_autoptr (GBytes) junk = g_bytes_new_static ("not ptx", 7);

  if (f->ctx == NULL)
    return;
  chain = gpu_chain (f, FALSE, FALSE, TRUE);
  ptx = gcg_kernel_op_new_from_binary (NULL, junk, "k", NULL, &error);
  g_assert_no_error (error);
  g_assert_false (gcg_frame_batch_add_kernel_at (chain, ptx,
      GCG_KERNEL_POSITION_BEFORE, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "Kernel 'k'"));
  g_clear_error (&error);
  g_assert_null (gcg_kernel_op_new_from_binary (f->ctx, junk, "k", NULL,
      &error));
  g_assert_nonnull (strstr (error->message, "Kernel 'k'"));
  g_clear_error (&error);
  op = gcg_kernel_op_new_from_source (f->ctx, xor_source, "xor_rgb", AFTER_DECL,
      &error);
  g_assert_no_error (error);
  g_assert_null (gcg_kernel_op_new_from_source (f->ctx, xor_source, "xor_rgbx",
      AFTER_DECL, &error));
  g_assert_nonnull (strstr (error->message, "xor_rgbx"));
  g_clear_error (&error);
  {
    GcgFrameParams params;
    CUdeviceptr buf;

    g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &buf, IN_PITCH * IN_H));
    gcg_frame_params_init (&params);
    params.src[0] = params.dst[0] = buf;
    params.src_stride[0] = IN_PITCH;
    params.dst_stride[0] = OUT_PITCH;
    g_assert_true (gcg_frame_batch_process_frame (chain, &params, f->stream,
        NULL));
    g_assert_true (gcg_stream_synchronize (f->stream, NULL));
    g_assert_false (gcg_frame_batch_add_kernel_at (chain, op,
        GCG_KERNEL_POSITION_AFTER, &error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
    g_assert_true (GCG_CU_OK (NULL, cuMemFree, buf));
  }
}

/* A cubin whose extended section count (e_shnum 0, the count in section
 * 0) puts its section table 2^40 bytes on is refused by the public
 * binary path with a GPU present before the driver is asked: every
 * cuModuleLoadData is made to fail, yet the error is the image check's,
 * while text (PTX) does reach the driver and gets the injected failure. */
static void
test_elf_extended_refused (Fixture *f, gconstpointer data)
{
  g_autoptr (GByteArray) elf = gcg_test_elf_new (0);
  g_autoptr (GBytes) image = NULL;
  g_autoptr (GBytes) ptx = g_bytes_new_static ("not ptx", 7);
  g_autoptr (GError) error = NULL;

  if (f->ctx == NULL)
    return;
  gcg_test_elf_put (elf, GCG_TEST_ELF_E_SHNUM, 0, 2);
  gcg_test_elf_put (elf, GCG_TEST_ELF_SH0_SIZE, 1ull << 40, 8);
  image = g_bytes_new (elf->data, elf->len);
  g_assert_true (gcg_fault_inject ("cuModuleLoadData:*", NULL));
  g_assert_null (gcg_kernel_op_new_from_binary (f->ctx, image, "k", NULL,
      &error));
  g_test_message ("%s", error->message);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "damaged or truncated"));
  g_assert_null (strstr (error->message, "cuModuleLoadData"));
  g_clear_error (&error);
  g_assert_null (gcg_kernel_op_new_from_binary (f->ctx, ptx, "k", NULL,
      &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "cuModuleLoadData"));
  g_assert_true (gcg_fault_inject (NULL, NULL));
}

/* Flips the bytes of every written item of a uint8 NCHW RGB batch. */
static const gchar *const batch_source =
    "extern \"C\" __global__ void xor_items (const gcg_params *p)\n"
    "{\n"
    "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  int item = blockIdx.z;\n"
    "  if (x >= p->w || y >= p->h || item >= p->n)\n"
    "    return;\n"
    "  size_t plane = (size_t) p->w * p->h;\n"
    "  unsigned char *t = (unsigned char *) p->t + item * 3 * plane\n"
    "      + (size_t) y * p->w + x;\n"
    "  for (int c = 0; c < 3; c++)\n"
    "    t[c * plane] ^= (unsigned char) p->mask;\n"
    "}\n";

#define B_W 40
#define B_H 24
#define B_SOURCES 3
#define B_ROIS 2
#define B_BATCHES 60

static gboolean
batch_lookup (const gchar *name, GcgFrameValue *value, gpointer user_data)
{
  if (strcmp (name, "mask") != 0)
    return FALSE;
  value->type = GCG_FRAME_VALUE_UINT;
  value->v.u = *(const guint32 *) user_data;
  return TRUE;
}

static void
run_batch_case (Fixture *f, gboolean use_graph)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameBatchConfig) config = gcg_frame_batch_config_new ();
  g_autoptr (GcgFrameBatch) gpu = NULL;
  g_autoptr (GcgFrameBatch) cpu = NULL;
  g_autoptr (GcgKernelOp) op = NULL;
  g_autofree guint8 *in = g_malloc (IN_PITCH * IN_H);
  g_autofree guint8 *out = NULL;
  g_autofree guint8 *ref = NULL;
  GcgFrameBatchSource sources[B_SOURCES];
  GcgFrameParams dparams[B_SOURCES], hparams[B_SOURCES];
  CUdeviceptr src, dst;
  gsize size;
  guint32 mask = 0;

  config->out_width = B_W;
  config->out_height = B_H;
  config->tensor_type = GCG_TENSOR_TYPE_UINT8;
  config->max_sources = B_SOURCES;
  config->max_rois = B_ROIS;
  size = gcg_frame_batch_config_get_output_size (config);
  out = g_malloc (size);
  ref = g_malloc (size);
  gpu = gcg_frame_batch_new (config, GCG_BACKEND_CUDA, f->ctx, &error);
  g_assert_no_error (error);
  cpu = gcg_frame_batch_new (config, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  gcg_frame_batch_set_use_graph (gpu, use_graph);
  op = gcg_kernel_op_new_from_source (f->ctx, batch_source, "xor_items",
      "t=dst0,w=out_width,h=out_height,n=items,mask=meta:mask:u32:0", &error);
  g_assert_no_error (error);
  g_assert_true (gcg_frame_batch_add_kernel (gpu, op, &error));
  g_assert_no_error (error);
  gcg__frame_batch_set_value_lookup (gpu, batch_lookup, &mask);

  for (gsize i = 0; i < IN_PITCH * IN_H; i++)
    in[i] = (guint8) g_test_rand_int ();
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &src, IN_PITCH * IN_H));
  g_assert_true (GCG_CU_OK (NULL, cuMemcpyHtoD, src, in, IN_PITCH * IN_H));
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &dst, size));
  for (guint i = 0; i < B_SOURCES; i++) {
    sources[i].format = GCG_PIXEL_FORMAT_RGBA;
    sources[i].width = IN_W - 40 * i;
    sources[i].height = IN_H - 20 * i;
    sources[i].matrix = GCG_COLOR_MATRIX_BT601;
    sources[i].full_range = FALSE;
    gcg_frame_params_init (&dparams[i]);
    dparams[i].src[0] = src;
    dparams[i].src_stride[0] = IN_PITCH;
    hparams[i] = dparams[i];
    hparams[i].src[0] = (guint64) (guintptr) in;
  }
  for (guint b = 0; b < B_BATCHES; b++) {
    /* 1 to 3 sources: the items past the count are zeroed after the
     * kernel, which skips them. */
    guint n = 1 + b % B_SOURCES, items = 0, ref_items = 0;

    mask = (b * 37 + 11) & 255;
    for (guint i = 0; i < n; i++)
      hparams[i].gain = dparams[i].gain = 1.0f + 0.05f * ((b + i) % 4);
    g_assert_true (gcg_frame_batch_process (gpu, n, sources, dparams, dst,
        f->stream, &items, &error));
    g_assert_no_error (error);
    g_assert_true (gcg_frame_batch_process (cpu, n, sources, hparams,
        (guint64) (guintptr) ref, NULL, &ref_items, &error));
    g_assert_cmpuint (items, ==, ref_items);
    for (gsize i = 0; i < (gsize) items * 3 * B_W * B_H; i++)
      ref[i] ^= (guint8) mask;
    g_assert_true (gcg_stream_synchronize (f->stream, NULL));
    g_assert_true (GCG_CU_OK (NULL, cuMemcpyDtoH, out, dst, size));
    g_assert_cmpmem (out, size, ref, size);
  }
  g_test_message ("batch %s: %d batches equal the reference",
      use_graph ? "graph" : "eager", B_BATCHES);
  g_assert_cmpuint (gcg_frame_batch_get_capture_count (gpu), ==,
      use_graph ? 1 : 0);
  g_clear_object (&gpu);
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, src));
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, dst));
}

static void
test_batch (Fixture *f, gconstpointer data)
{
  if (f->ctx == NULL)
    return;
  run_batch_case (f, TRUE);
  run_batch_case (f, FALSE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add ("/kernel-op/positions", Fixture, NULL, fixture_setup,
      test_positions, fixture_teardown);
  g_test_add ("/kernel-op/two-streams", Fixture, NULL, fixture_setup,
      test_two_streams, fixture_teardown);
  g_test_add ("/kernel-op/refused", Fixture, NULL, fixture_setup, test_refused,
      fixture_teardown);
  g_test_add ("/kernel-op/batch", Fixture, NULL, fixture_setup, test_batch,
      fixture_teardown);
  g_test_add ("/kernel-op/elf-extended-refused", Fixture, NULL, fixture_setup,
      test_elf_extended_refused, fixture_teardown);
  return g_test_run ();
}
