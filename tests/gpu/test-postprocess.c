/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The postprocess stage on a real GPU against its CPU reference
 * (gcg_postprocess_run_cpu()), without PyTorch: the "model" is a graph
 * captured here that copies a synthetic output (uploaded by the test
 * before each frame) into its output tensor.  A frame chain and a batch
 * end in that model and a postprocess; every frame's results area, pinned
 * host memory the replay writes through its mapping, must equal the CPU
 * reference on the same output and items: detection bit for bit (boxes
 * through letterboxed, moving ROIs), classification with the same labels
 * and boxes and confidences within 2e-6 relative
 * (softmax's expf).  One capture for all frames, graph and eager.  The
 * results are there once the frame's completion is observed (an event
 * polled, no synchronisation, no copy).  What cannot work is refused.
 * The user's postprocess kernel (GCG_POSTPROCESS_USER, NVRTC source) that
 * writes the top-1 class gives the built-in classification's top-1,
 * chain and batch, one capture over moving ROIs; a hostile one (counts
 * past max_results, garbage labels, NaN and infinite values, blocks past
 * the items) is clamped and cannot crash anything.  Skips (TAP) without
 * a driver.
 */
#include "gcg-gpu-fixture.h"
#include "common/gcg-test-detect.h"
#include "gcg-graph-private.h"
#include "gcg-rect-private.h"

#include <math.h>

#define W 160
#define H 120
#define PITCH (W * 4)
#define OW 64
#define OH 48
#define ITEMS 4
#define IN_BYTES (ITEMS * 3 * OW * OH * 4)
#define N_CLASSES 5
#define N_CAND 2000
#define CLS_CLASSES 1000
#define FRAMES 12

typedef struct
{
  CUdeviceptr in, out, src;
  gsize out_bytes;
  GcgGraph *graph;
} Model;

static gboolean
model_body (GcgStream *stream, gpointer data, GError **error)
{
  Model *m = data;

  return GCG_CU_OK (error, cuMemcpyDtoDAsync, m->out, m->src, m->out_bytes,
      gcg__stream_get_cu (stream));
}

static void
model_free (gpointer data)
{
  Model *m = data;

  g_clear_object (&m->graph);
  GCG_CU_WARN (cuMemFree, m->in);
  GCG_CU_WARN (cuMemFree, m->out);
  GCG_CU_WARN (cuMemFree, m->src);
  g_free (m);
}

/* A model of @items items of OW × OH whose output (@shape, float32, or
 * @dtype) is whatever the test last wrote at *@src. */
static GcgModelGraph *
make_model (Fixture *f, guint items, const gint64 *shape, guint n_dims,
    GcgModelDtype dtype, CUdeviceptr *src)
{
  g_autoptr (GError) error = NULL;
  Model *m = g_new0 (Model, 1);
  const gint64 in_shape[] = { items, 3, OH, OW };
  gsize in_bytes = (gsize) items * 3 * OW * OH * 4;
  GcgModelGraph *model;

  m->out_bytes = gcg_model_dtype_get_size (dtype);
  for (guint d = 0; d < n_dims; d++)
    m->out_bytes *= (gsize) shape[d];
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &m->in, in_bytes));
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &m->out, m->out_bytes));
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &m->src, m->out_bytes));
  g_assert_true (GCG_CU_OK (NULL, cuMemsetD8Async, m->src, 0, m->out_bytes,
      gcg__stream_get_cu (f->stream)));
  g_assert_true (gcg_stream_synchronize (f->stream, NULL));
  m->graph = gcg_capture_callable (f->stream, GCG_CAPTURE_MODE_DEFAULT,
      model_body, m, &error);
  g_assert_no_error (error);
  model = gcg_model_graph_new (f->ctx,
      (guint64) (guintptr) gcg__graph_get_cu (m->graph), m, model_free, &error);
  g_assert_no_error (error);
  g_assert_true (gcg_model_graph_set_input (model, m->in, in_shape, 4,
      GCG_MODEL_DTYPE_FLOAT32, &error));
  g_assert_cmpint (gcg_model_graph_add_output (model, m->out, shape, n_dims,
                       dtype, &error),
      ==, 0);
  g_assert_no_error (error);
  *src = m->src;
  return model;
}

/* --- synthetic outputs --------------------------------------------------- */

/* Detection: tests/common/gcg-test-detect.h. */
static void
fill_detect (gfloat *out, guint items, GRand *rand)
{
  gcg_test_fill_detect (out, items, N_CLASSES, N_CAND, rand);
}

static void
fill_classify (gfloat *out, guint items, GRand *rand)
{
  for (guint k = 0; k < items * CLS_CLASSES; k++)
    out[k] = (gfloat) g_rand_int_range (rand, -400, 400) / 16.0f;
}

/* Frame @i's ROIs in a @w × @h frame: 1 to ITEMS, moving, one reaching
 * past the edge (clipped). */
static guint
make_rois (GcgRect *rois, guint i, gint w, gint h, GRand *rand)
{
  guint n = 1 + i % ITEMS;

  for (guint k = 0; k < n; k++) {
    rois[k].x = g_rand_int_range (rand, 0, w - 8);
    rois[k].y = g_rand_int_range (rand, 0, h - 8);
    rois[k].width = g_rand_int_range (rand, 8, w);
    rois[k].height = g_rand_int_range (rand, 8, h);
  }
  return n;
}

/* The items' maps, as the engine fits them: each ROI clipped to its
 * frame, the whole frame without ROIs. */
static guint
add_maps (GcgFrameItemMap *maps, const GcgRect *rois, guint n_rois, gint w,
    gint h, GcgLetterbox letterbox)
{
  GcgRect whole = { 0, 0, w, h };

  if (n_rois == 0) {
    gcg_frame_item_map_init (maps, &whole, OW, OH, letterbox);
    return 1;
  }
  for (guint k = 0; k < n_rois; k++) {
    GcgRect r = rois[k];

    g_assert_true (gcg__rect_clip_to_frame (&r, w, h));
    gcg_frame_item_map_init (&maps[k], &r, OW, OH, letterbox);
  }
  return n_rois;
}

/* The GPU's area against the CPU's: the header and every record, bit for
 * bit, but a softmax confidence, which may differ by expf's rounding. */
static guint
compare_areas (const guint8 *gpu, const guint8 *cpu, gsize size,
    gboolean softmax)
{
  const GcgResultsHeader *hg = (const GcgResultsHeader *) gpu;
  const GcgResultsHeader *hc = (const GcgResultsHeader *) cpu;
  const GcgResult *rg, *rc;
  guint n, nc, bad = 0;

  rg = gcg_frame_results_get (gpu, size, &n);
  rc = gcg_frame_results_get (cpu, size, &nc);
  g_assert_nonnull (rg);
  g_assert_nonnull (rc);
  if (memcmp (hg, hc, sizeof (*hg)) != 0 || n != nc) {
    g_test_message ("headers differ: %u results on the GPU, %u on the CPU", n,
        nc);
    return 1;
  }
  for (guint k = 0; k < n; k++) {
    GcgResult a = rg[k], b = rc[k];

    if (softmax) {
      bad += fabsf (a.confidence - b.confidence)
          > 2e-6f * fabsf (b.confidence) + 1e-30f;
      a.confidence = b.confidence = 0.0f;
    } else if (isnan (a.confidence) && isnan (b.confidence)) {
      a.confidence = b.confidence = 0.0f;
    }
    if (memcmp (&a, &b, sizeof (a)) != 0) {
      if (bad < 5)
        g_test_message ("result %u: GPU %g %g %g %g %g %d %u, CPU %g %g %g "
                        "%g %g %d %u",
            k, a.x, a.y, a.width, a.height, a.confidence, a.label, a.item, b.x,
            b.y, b.width, b.height, b.confidence, b.label, b.item);
      bad++;
    }
  }
  return bad;
}

/* The user's postprocess kernel: the top-1 class of each item, raw
 * score, ties to the lower class and NaN below every number, as the
 * built-in classification ranks; its box the whole item in its tensor
 * pixels; item and reserved written wrong on purpose (the gather sets
 * them). */
static const gchar top1_source[] =
    "extern \"C\" __global__ void top1 (const gcg_params *p)\n"
    "{\n"
    "  __shared__ float sk[256];\n"
    "  __shared__ unsigned si[256];\n"
    "  const unsigned item = blockIdx.x, t = threadIdx.x;\n"
    "  const float *in;\n"
    "  float bk = __int_as_float (0xff800000);\n"
    "  unsigned bi = 0xffffffffu;\n"
    "  if (item >= (unsigned) p->n)\n"
    "    return;\n"
    "  in = (const float *) p->in + (size_t) item * p->nc;\n"
    "  for (unsigned c = t; c < (unsigned) p->nc; c += blockDim.x) {\n"
    "    float k = in[c] != in[c] ? __int_as_float (0xff800000) : in[c];\n"
    "    if (k > bk || (k == bk && c < bi)) {\n"
    "      bk = k;\n"
    "      bi = c;\n"
    "    }\n"
    "  }\n"
    "  sk[t] = bk;\n"
    "  si[t] = bi;\n"
    "  __syncthreads ();\n"
    "  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {\n"
    "    if (t < s && (sk[t + s] > sk[t]\n"
    "            || (sk[t + s] == sk[t] && si[t + s] < si[t]))) {\n"
    "      sk[t] = sk[t + s];\n"
    "      si[t] = si[t + s];\n"
    "    }\n"
    "    __syncthreads ();\n"
    "  }\n"
    "  if (t == 0) {\n"
    "    gcg_result *r = (gcg_result *) p->recs + (size_t) item * p->per;\n"
    "    r->x = 0.0f;\n"
    "    r->y = 0.0f;\n"
    "    r->width = (float) p->w;\n"
    "    r->height = (float) p->h;\n"
    "    r->confidence = in[si[0]];\n"
    "    r->label = (int) si[0];\n"
    "    r->item = 12345u;\n"
    "    r->reserved = 7u;\n"
    "    ((unsigned *) p->cnt)[item] = 1u;\n"
    "  }\n"
    "}\n";

#define TOP1_PARAMS \
  "in=output,n_bytes=output_bytes,n=items,nc=classes,recs=records," \
  "cnt=counts,per=max_results,w=out_width,h=out_height"

/* A kernel that lies: every block (64, past the items too) claims
 * 2^32 - 1 records, and writes max_results of garbage (labels past any
 * class and negative, NaN and infinite values). */
static const gchar hostile_source[] =
    "extern \"C\" __global__ void hostile (const gcg_params *p)\n"
    "{\n"
    "  const unsigned item = blockIdx.x, r = threadIdx.x;\n"
    "  gcg_result *rec = (gcg_result *) p->recs + (size_t) item * p->per;\n"
    "  if (item >= 64u)\n"
    "    return;\n"
    "  if (r == 0)\n"
    "    ((unsigned *) p->cnt)[item] = 0xffffffffu;\n"
    "  if (r >= (unsigned) p->per)\n"
    "    return;\n"
    "  rec[r].x = r % 3 ? __int_as_float (0x7fc00000) : 1e30f;\n"
    "  rec[r].y = __int_as_float (0x7f800000);\n"
    "  rec[r].width = -5.0f;\n"
    "  rec[r].height = 3.0f;\n"
    "  rec[r].confidence = __int_as_float (0x7fc00000);\n"
    "  rec[r].label = r % 2 ? -7 : 0x7fffffff - (int) r;\n"
    "  rec[r].item = 0xdeadbeefu;\n"
    "  rec[r].reserved = 0xffffffffu;\n"
    "}\n";

static GcgKernelOp *
new_user_op (Fixture *f, const gchar *source, const gchar *entry)
{
  g_autoptr (GError) error = NULL;
  GcgKernelOp *op = gcg_kernel_op_new_from_source (f->ctx, source, entry,
      TOP1_PARAMS, &error);

  g_assert_no_error (error);
  return op;
}

/* The reference of @pp on @out: the CPU's, or for the user's top-1
 * kernel the CPU's top-1 classification (raw scores) with each box the
 * item's whole tensor mapped to the source as the gather maps it. */
static void
reference (const GcgPostprocessConfig *pp, const gfloat *out, gsize floats,
    const GcgFrameItemMap *maps, guint n_items, guint64 frame_number,
    guint8 *ref, gsize size)
{
  g_autoptr (GError) error = NULL;
  GcgPostprocessConfig c = *pp;
  GcgResult *r = (GcgResult *) (ref + sizeof (GcgResultsHeader));

  if (pp->kind == GCG_POSTPROCESS_USER) {
    c.kind = GCG_POSTPROCESS_CLASSIFY;
    c.top_k = 1;
    c.softmax = FALSE;
  }
  g_assert_true (gcg_postprocess_run_cpu (&c, out, floats, N_CAND, maps,
      n_items, frame_number, ref, size, &error));
  g_assert_no_error (error);
  if (pp->kind != GCG_POSTPROCESS_USER)
    return;
  for (guint k = 0; k < n_items; k++) {
    gdouble x1, y1, x2, y2;

    g_assert_cmpuint (r[k].item, ==, k);
    gcg_frame_item_map_to_source (&maps[k], 0.0, 0.0, &x1, &y1);
    gcg_frame_item_map_to_source (&maps[k], OW, OH, &x2, &y2);
    r[k].x = (gfloat) x1;
    r[k].y = (gfloat) y1;
    r[k].width = (gfloat) (x2 - x1);
    r[k].height = (gfloat) (y2 - y1);
  }
}

static const gchar *
kind_name (GcgPostprocessKind kind)
{
  return kind == GCG_POSTPROCESS_DETECT ? "detect"
      : kind == GCG_POSTPROCESS_USER    ? "user top-1"
                                        : "classify";
}

static void
init_chain_config (GcgFrameChainConfig *config)
{
  gcg_frame_chain_config_init (config);
  config->in_format = GCG_PIXEL_FORMAT_RGBA;
  config->in_width = W;
  config->in_height = H;
  config->output = GCG_OUTPUT_KIND_TENSOR;
  config->out_width = OW;
  config->out_height = OH;
  config->letterbox = GCG_LETTERBOX_SYMMETRIC;
  config->max_rois = ITEMS;
}

static void
init_pp (GcgPostprocessConfig *pp, GcgPostprocessKind kind, gboolean softmax)
{
  gcg_postprocess_config_init (pp);
  pp->kind = kind;
  if (kind == GCG_POSTPROCESS_DETECT) {
    pp->n_classes = N_CLASSES;
    pp->score_threshold = 0.3f;
    pp->iou_threshold = 0.45f;
    pp->max_per_item = 60;
  } else if (kind == GCG_POSTPROCESS_USER) {
    /* Room for 3 a item; the top-1 kernel writes 1. */
    pp->n_classes = CLS_CLASSES;
    pp->max_per_item = 3;
  } else {
    pp->n_classes = CLS_CLASSES;
    pp->top_k = 5;
    pp->softmax = softmax;
  }
}

static GcgModelGraph *
make_pp_model (Fixture *f, GcgPostprocessKind kind, CUdeviceptr *src,
    gsize *floats)
{
  const gint64 det[] = { ITEMS, 4 + N_CLASSES, N_CAND };
  const gint64 cls[] = { ITEMS, CLS_CLASSES };
  gboolean d = kind == GCG_POSTPROCESS_DETECT;

  *floats = d ? (gsize) ITEMS * (4 + N_CLASSES) * N_CAND
              : (gsize) ITEMS * CLS_CLASSES;
  return make_model (f, ITEMS, d ? det : cls, d ? 3 : 2,
      GCG_MODEL_DTYPE_FLOAT32, src);
}

/* FRAMES frames of a chain ending in the model and @kind, against the
 * CPU reference. */
static void
run_chain (Fixture *f, GcgPostprocessKind kind, gboolean softmax,
    gboolean use_graph)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameChain) chain = NULL;
  g_autoptr (GcgModelGraph) model = NULL;
  g_autofree gfloat *out = NULL;
  g_autofree guint8 *ref = NULL;
  GcgFrameChainConfig config;
  GcgPostprocessConfig pp, got;
  GcgFrameParams p;
  GcgFrameItemMap maps[ITEMS];
  GcgRect rois[ITEMS];
  CUdeviceptr src, in, dst;
  gsize floats, size;
  guint8 *area = NULL;
  GRand *rand = g_rand_new_with_seed (35 + kind);
  guint bad = 0, total = 0;

  init_chain_config (&config);
  chain = gcg_frame_chain_new (&config, GCG_BACKEND_CUDA, f->ctx, &error);
  g_assert_no_error (error);
  gcg_frame_chain_set_use_graph (chain, use_graph);
  model = make_pp_model (f, kind, &src, &floats);
  g_assert_true (gcg_frame_chain_attach_model (chain, model, FALSE, &error));
  init_pp (&pp, kind, softmax);
  if (kind == GCG_POSTPROCESS_USER) {
    g_autoptr (GcgKernelOp) op = new_user_op (f, top1_source, "top1");

    g_assert_true (gcg_frame_chain_set_postprocess_kernel (chain, &pp, op,
        &error));
  } else {
    g_assert_true (gcg_frame_chain_set_postprocess (chain, &pp, &error));
  }
  g_assert_no_error (error);
  g_assert_true (gcg_frame_chain_get_postprocess (chain, &got));
  g_assert_cmpmem (&got, sizeof (got), &pp, sizeof (pp));
  size = gcg_frame_chain_get_results_size (chain);
  g_assert_cmpuint (size, ==,
      gcg_postprocess_config_get_results_size (&pp, ITEMS));
  out = g_new (gfloat, floats);
  ref = g_malloc (size);
  g_assert_true (GCG_CU_OK (NULL, cuMemHostAlloc, (void **) &area, size, 0));
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &in, PITCH * H));
  g_assert_true (GCG_CU_OK (NULL, cuMemsetD8Async, in, 0x40, PITCH * H,
      gcg__stream_get_cu (f->stream)));
  g_assert_true (gcg_stream_synchronize (f->stream, NULL));
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &dst,
      gcg_frame_chain_get_output_size (chain)));
  gcg_frame_params_init (&p);
  p.src[0] = in;
  p.src_stride[0] = PITCH;
  p.dst[0] = dst;
  /* Unified addressing: the pinned block's host pointer is its device
   * address. */
  p.results = (guint64) (guintptr) area;
  for (guint i = 0; i < FRAMES; i++) {
    guint n_rois = make_rois (rois, i, W, H, rand), n_items;

    if (kind == GCG_POSTPROCESS_DETECT)
      fill_detect (out, ITEMS, rand);
    else
      fill_classify (out, ITEMS, rand);
    g_assert_true (GCG_CU_OK (NULL, cuMemcpyHtoD, src, out, floats * 4));
    g_assert_true (gcg_frame_params_set_rois (&p, rois, n_rois));
    p.frame_number = 1000 + i;
    memset (area, 0xa5, size);
    g_assert_true (gcg_frame_chain_process (chain, &p, f->stream, &error));
    g_assert_no_error (error);
    g_assert_true (gcg_stream_synchronize (f->stream, NULL));
    n_items = add_maps (maps, rois, n_rois, W, H, config.letterbox);
    reference (&pp, out, floats, maps, n_items, p.frame_number, ref, size);
    bad += compare_areas (area, ref, size, softmax);
    total += ((GcgResultsHeader *) ref)->n_results;
  }
  g_test_message (
      "%s %s: %u of %u results differ over %d frames, %" G_GUINT64_FORMAT
      " capture(s)",
      kind_name (kind), use_graph ? "graph" : "eager", bad, total, FRAMES,
      gcg_frame_chain_get_capture_count (chain));
  g_assert_cmpuint (bad, ==, 0);
  g_assert_cmpuint (total, >, FRAMES);
  g_assert_cmpuint (gcg_frame_chain_get_capture_count (chain), ==,
      use_graph ? 1 : 0);
  g_clear_object (&chain);
  g_rand_free (rand);
  g_assert_true (GCG_CU_OK (NULL, cuMemFreeHost, area));
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, in));
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, dst));
}

static void
test_chain_detect (Fixture *f, gconstpointer data)
{
  if (f->ctx) {
    run_chain (f, GCG_POSTPROCESS_DETECT, FALSE, TRUE);
    run_chain (f, GCG_POSTPROCESS_DETECT, FALSE, FALSE);
  }
}

/* The user's top-1 kernel gives the built-in's top-1, graph and eager. */
static void
test_chain_user (Fixture *f, gconstpointer data)
{
  if (f->ctx) {
    run_chain (f, GCG_POSTPROCESS_USER, FALSE, TRUE);
    run_chain (f, GCG_POSTPROCESS_USER, FALSE, FALSE);
  }
}

static void
test_chain_classify (Fixture *f, gconstpointer data)
{
  if (f->ctx) {
    run_chain (f, GCG_POSTPROCESS_CLASSIFY, TRUE, TRUE);
    run_chain (f, GCG_POSTPROCESS_CLASSIFY, FALSE, TRUE);
    run_chain (f, GCG_POSTPROCESS_CLASSIFY, TRUE, FALSE);
  }
}

/* One frame's area of the hostile kernel: every item clamped to
 * max_results, each record's item and reserved set by the gather, NaN
 * confidences 0, labels as written (the adapter names them). */
static void
check_hostile_area (const guint8 *area, gsize size, guint n_items, guint per)
{
  const GcgResultsHeader *h = (const GcgResultsHeader *) area;
  const GcgResult *r;
  guint n = 0;

  g_assert_cmpuint (h->n_items, ==, n_items);
  g_assert_cmpuint (h->n_results, ==, n_items * per);
  for (guint k = 0; k < GCG_POSTPROCESS_MAX_ITEMS; k++)
    g_assert_cmpuint (h->item_counts[k], ==, k < n_items ? per : 0);
  r = gcg_frame_results_get (area, size, &n);
  g_assert_nonnull (r);
  g_assert_cmpuint (n, ==, n_items * per);
  for (guint k = 0; k < n; k++) {
    guint j = k % per;

    g_assert_cmpuint (r[k].item, ==, k / per);
    g_assert_cmpuint (r[k].reserved, ==, 0);
    g_assert_cmpfloat (r[k].confidence, ==, 0.0f);
    g_assert_cmpint (r[k].label, ==, j % 2 ? -7 : G_MAXINT32 - (gint) j);
  }
}

/* A user kernel that lies about its counts and writes garbage cannot
 * overflow the results area nor crash: counts are clamped, fields set. */
static void
test_hostile_user (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameChain) chain = NULL;
  g_autoptr (GcgModelGraph) model = NULL;
  g_autoptr (GcgKernelOp) op = NULL;
  GcgFrameChainConfig config;
  GcgPostprocessConfig pp;
  GcgFrameParams p;
  GcgRect rois[ITEMS];
  CUdeviceptr src, in, dst;
  gsize floats, size;
  guint8 *area = NULL;
  GRand *rand;

  if (!f->ctx)
    return;
  rand = g_rand_new_with_seed (66);
  init_chain_config (&config);
  chain = gcg_frame_chain_new (&config, GCG_BACKEND_CUDA, f->ctx, &error);
  g_assert_no_error (error);
  model = make_pp_model (f, GCG_POSTPROCESS_USER, &src, &floats);
  g_assert_true (gcg_frame_chain_attach_model (chain, model, FALSE, &error));
  init_pp (&pp, GCG_POSTPROCESS_USER, FALSE);
  pp.max_per_item = 4;
  op = new_user_op (f, hostile_source, "hostile");
  /* Blocks past the frame's items too. */
  gcg_kernel_op_set_grid (op, GCG_POSTPROCESS_MAX_ITEMS, 1, 1);
  g_assert_true (gcg_frame_chain_set_postprocess_kernel (chain, &pp, op,
      &error));
  g_assert_no_error (error);
  size = gcg_frame_chain_get_results_size (chain);
  g_assert_cmpuint (size, ==,
      sizeof (GcgResultsHeader) + ITEMS * 4 * sizeof (GcgResult));
  g_assert_true (GCG_CU_OK (NULL, cuMemHostAlloc, (void **) &area, size, 0));
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &in, PITCH * H));
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &dst,
      gcg_frame_chain_get_output_size (chain)));
  gcg_frame_params_init (&p);
  p.src[0] = in;
  p.src_stride[0] = PITCH;
  p.dst[0] = dst;
  p.results = (guint64) (guintptr) area;
  for (guint i = 0; i < FRAMES; i++) {
    guint n_rois = make_rois (rois, i, W, H, rand);

    g_assert_true (gcg_frame_params_set_rois (&p, rois, n_rois));
    memset (area, 0xa5, size);
    g_assert_true (gcg_frame_chain_process (chain, &p, f->stream, &error));
    g_assert_no_error (error);
    g_assert_true (gcg_stream_synchronize (f->stream, NULL));
    check_hostile_area (area, size, n_rois, 4);
  }
  g_assert_cmpuint (gcg_frame_chain_get_capture_count (chain), ==, 1);
  g_clear_object (&chain);
  g_rand_free (rand);
  g_assert_true (GCG_CU_OK (NULL, cuMemFreeHost, area));
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, in));
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, dst));
}

/* A batch of up to 2 sources × 2 ROIs of different sizes: the items are
 * its slots, each box in its own source's pixels. */
static void
run_batch (Fixture *f, GcgPostprocessKind kind)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameBatch) batch = NULL;
  g_autoptr (GcgModelGraph) model = NULL;
  g_autofree gfloat *out = NULL;
  g_autofree guint8 *ref = NULL;
  GcgFrameBatchConfig config;
  GcgFrameBatchSource sources[2];
  GcgPostprocessConfig pp;
  GcgFrameParams p[2];
  GcgFrameItemMap maps[ITEMS];
  GcgRect rois[ITEMS];
  CUdeviceptr src, in, dst;
  gsize floats, size;
  guint8 *area = NULL;
  GRand *rand = g_rand_new_with_seed (350 + kind);
  guint bad = 0, total = 0;

  gcg_frame_batch_config_init (&config);
  config.out_width = OW;
  config.out_height = OH;
  config.letterbox = GCG_LETTERBOX_SYMMETRIC;
  config.max_sources = 2;
  config.max_rois = 2;
  batch = gcg_frame_batch_new (&config, GCG_BACKEND_CUDA, f->ctx, &error);
  g_assert_no_error (error);
  model = make_pp_model (f, kind, &src, &floats);
  g_assert_true (gcg_frame_batch_attach_model (batch, model, FALSE, &error));
  init_pp (&pp, kind, TRUE);
  if (kind == GCG_POSTPROCESS_USER) {
    g_autoptr (GcgKernelOp) op = new_user_op (f, top1_source, "top1");

    g_assert_true (gcg_frame_batch_set_postprocess_kernel (batch, &pp, op,
        &error));
  } else {
    g_assert_true (gcg_frame_batch_set_postprocess (batch, &pp, &error));
  }
  g_assert_no_error (error);
  size = gcg_frame_batch_get_results_size (batch);
  out = g_new (gfloat, floats);
  ref = g_malloc (size);
  g_assert_true (GCG_CU_OK (NULL, cuMemHostAlloc, (void **) &area, size, 0));
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &in, PITCH * H));
  g_assert_true (GCG_CU_OK (NULL, cuMemsetD8Async, in, 0x40, PITCH * H,
      gcg__stream_get_cu (f->stream)));
  g_assert_true (gcg_stream_synchronize (f->stream, NULL));
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &dst,
      gcg_frame_batch_get_output_size (batch)));
  for (guint s = 0; s < 2; s++) {
    /* Source 1 is a smaller frame in the same buffer. */
    sources[s] = (GcgFrameBatchSource) { GCG_PIXEL_FORMAT_RGBA, s ? W / 2 : W,
      s ? H / 2 : H, GCG_COLOR_MATRIX_BT601, FALSE };
    gcg_frame_params_init (&p[s]);
    p[s].src[0] = in;
    p[s].src_stride[0] = PITCH;
  }
  p[0].results = (guint64) (guintptr) area;
  for (guint b = 0; b < FRAMES; b++) {
    guint n_sources = 1 + b % 2, n_items = 0, n_out = 0;

    if (kind == GCG_POSTPROCESS_DETECT)
      fill_detect (out, ITEMS, rand);
    else
      fill_classify (out, ITEMS, rand);
    g_assert_true (GCG_CU_OK (NULL, cuMemcpyHtoD, src, out, floats * 4));
    for (guint s = 0; s < n_sources; s++) {
      gint w = (gint) sources[s].width, h = (gint) sources[s].height;
      /* 0 (the whole frame), 1 or 2 ROIs. */
      guint n_rois = (b + s) % 3;

      for (guint k = 0; k < n_rois; k++) {
        rois[k].x = g_rand_int_range (rand, 0, w - 8);
        rois[k].y = g_rand_int_range (rand, 0, h - 8);
        rois[k].width = g_rand_int_range (rand, 8, w);
        rois[k].height = g_rand_int_range (rand, 8, h);
      }
      g_assert_true (gcg_frame_params_set_rois (&p[s], rois, n_rois));
      n_items +=
          add_maps (&maps[n_items], rois, n_rois, w, h, config.letterbox);
    }
    memset (area, 0xa5, size);
    g_assert_true (gcg_frame_batch_process (batch, n_sources, sources, p, dst,
        f->stream, &n_out, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (n_out, ==, n_items);
    g_assert_true (gcg_stream_synchronize (f->stream, NULL));
    /* A batch's header carries its own number, counted from 0. */
    reference (&pp, out, floats, maps, n_items, b, ref, size);
    bad += compare_areas (area, ref, size, kind == GCG_POSTPROCESS_CLASSIFY);
    total += ((GcgResultsHeader *) ref)->n_results;
  }
  g_test_message (
      "batch %s: %u of %u results differ over %d batches, %" G_GUINT64_FORMAT
      " capture(s)",
      kind_name (kind), bad, total, FRAMES,
      gcg_frame_batch_get_capture_count (batch));
  g_assert_cmpuint (bad, ==, 0);
  g_assert_cmpuint (gcg_frame_batch_get_capture_count (batch), ==, 1);
  g_clear_object (&batch);
  g_rand_free (rand);
  g_assert_true (GCG_CU_OK (NULL, cuMemFreeHost, area));
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, in));
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, dst));
}

static void
test_batch (Fixture *f, gconstpointer data)
{
  if (f->ctx) {
    run_batch (f, GCG_POSTPROCESS_DETECT);
    run_batch (f, GCG_POSTPROCESS_CLASSIFY);
    run_batch (f, GCG_POSTPROCESS_USER);
  }
}

/* The results are in pinned host memory as soon as the frame's
 * completion is observed (an event recorded after it, polled): nothing
 * synchronises, nothing copies.  Two areas in turn, two frames in
 * flight. */
static void
test_completion (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameChain) chain = NULL;
  g_autoptr (GcgModelGraph) model = NULL;
  g_autofree gfloat *out = NULL;
  g_autofree guint8 *ref = NULL;
  GcgFrameChainConfig config;
  GcgPostprocessConfig pp;
  GcgFrameParams p;
  GcgFrameItemMap map;
  CUdeviceptr src, in, dst;
  CUevent done[2];
  gsize floats, size;
  guint8 *area[2];
  GRand *rand;

  if (!f->ctx)
    return;
  rand = g_rand_new_with_seed (7);
  init_chain_config (&config);
  chain = gcg_frame_chain_new (&config, GCG_BACKEND_CUDA, f->ctx, &error);
  model = make_pp_model (f, GCG_POSTPROCESS_DETECT, &src, &floats);
  g_assert_true (gcg_frame_chain_attach_model (chain, model, FALSE, &error));
  init_pp (&pp, GCG_POSTPROCESS_DETECT, FALSE);
  g_assert_true (gcg_frame_chain_set_postprocess (chain, &pp, &error));
  g_assert_no_error (error);
  size = gcg_frame_chain_get_results_size (chain);
  out = g_new (gfloat, floats);
  ref = g_malloc (size);
  fill_detect (out, ITEMS, rand);
  g_assert_true (GCG_CU_OK (NULL, cuMemcpyHtoD, src, out, floats * 4));
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &in, PITCH * H));
  g_assert_true (GCG_CU_OK (NULL, cuMemsetD8Async, in, 0, PITCH * H,
      gcg__stream_get_cu (f->stream)));
  g_assert_true (gcg_stream_synchronize (f->stream, NULL));
  g_assert_true (GCG_CU_OK (NULL, cuMemAlloc, &dst,
      gcg_frame_chain_get_output_size (chain)));
  gcg_frame_params_init (&p);
  p.src[0] = in;
  p.src_stride[0] = PITCH;
  p.dst[0] = dst;
  for (guint k = 0; k < 2; k++) {
    g_assert_true (GCG_CU_OK (NULL, cuMemHostAlloc, (void **) &area[k], size,
        0));
    memset (area[k], 0xa5, size);
    g_assert_true (GCG_CU_OK (NULL, cuEventCreate, &done[k],
        CU_EVENT_DISABLE_TIMING));
    p.results = (guint64) (guintptr) area[k];
    p.frame_number = 40 + k;
    g_assert_true (gcg_frame_chain_process (chain, &p, f->stream, &error));
    g_assert_no_error (error);
    g_assert_true (GCG_CU_OK (NULL, cuEventRecord, done[k],
        gcg__stream_get_cu (f->stream)));
  }
  gcg_frame_item_map_init (&map, &(GcgRect) { 0, 0, W, H }, OW, OH,
      config.letterbox);
  g_assert_true (gcg_postprocess_run_cpu (&pp, out, floats, N_CAND, &map, 1, 40,
      ref, size, &error));
  for (guint k = 0; k < 2; k++) {
    CUresult r;

    while ((r = GCG_CU (cuEventQuery, done[k])) == CUDA_ERROR_NOT_READY)
      g_usleep (50);
    g_assert_cmpint (r, ==, CUDA_SUCCESS);
    ((GcgResultsHeader *) ref)->frame_number = 40 + k;
    g_assert_cmpuint (compare_areas (area[k], ref, size, FALSE), ==, 0);
    g_assert_true (GCG_CU_OK (NULL, cuEventDestroy, done[k]));
  }
  g_clear_object (&chain);
  g_rand_free (rand);
  for (guint k = 0; k < 2; k++)
    g_assert_true (GCG_CU_OK (NULL, cuMemFreeHost, area[k]));
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, in));
  g_assert_true (GCG_CU_OK (NULL, cuMemFree, dst));
}

static gchar last_message[1024];

static void
expect_refused (GcgFrameChain *chain, const GcgPostprocessConfig *pp, gint code)
{
  g_autoptr (GError) error = NULL;

  g_assert_false (gcg_frame_chain_set_postprocess (chain, pp, &error));
  g_assert_error (error, GCG_ERROR, code);
  g_test_message ("%s", error->message);
  g_strlcpy (last_message, error->message, sizeof (last_message));
}

/* What cannot work is refused, with the reason. */
static void
test_refused (Fixture *f, gconstpointer data)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GcgFrameChain) chain = NULL;
  g_autoptr (GcgModelGraph) model = NULL;
  g_autoptr (GcgModelGraph) half = NULL;
  g_autoptr (GcgFrameChain) other = NULL;
  GcgFrameChainConfig config;
  GcgPostprocessConfig pp;
  const gint64 shape[] = { ITEMS, 4 + N_CLASSES, N_CAND };
  CUdeviceptr src;
  gsize floats;

  if (!f->ctx)
    return;
  init_chain_config (&config);
  chain = gcg_frame_chain_new (&config, GCG_BACKEND_CUDA, f->ctx, &error);
  g_assert_no_error (error);
  init_pp (&pp, GCG_POSTPROCESS_DETECT, FALSE);
  /* No model yet. */
  expect_refused (chain, &pp, GCG_ERROR_NOT_SUPPORTED);
  model = make_pp_model (f, GCG_POSTPROCESS_DETECT, &src, &floats);
  g_assert_true (gcg_frame_chain_attach_model (chain, model, FALSE, &error));
  pp.output_index = 1;
  expect_refused (chain, &pp, GCG_ERROR_INVALID_ARGUMENT);
  pp.output_index = 0;
  pp.n_classes = N_CLASSES + 1;
  expect_refused (chain, &pp, GCG_ERROR_INVALID_ARGUMENT);
  init_pp (&pp, GCG_POSTPROCESS_CLASSIFY, TRUE);
  expect_refused (chain, &pp, GCG_ERROR_INVALID_ARGUMENT);
  pp.top_k = CLS_CLASSES + 1;
  expect_refused (chain, &pp, GCG_ERROR_INVALID_ARGUMENT);
  init_pp (&pp, GCG_POSTPROCESS_DETECT, FALSE);
  pp.score_threshold = NAN;
  expect_refused (chain, &pp, GCG_ERROR_INVALID_ARGUMENT);
  /* USER is the user's kernel: set_postprocess_kernel(), which refuses
   * a declaration reading frame planes. */
  init_pp (&pp, GCG_POSTPROCESS_USER, FALSE);
  pp.n_classes = N_CLASSES;
  expect_refused (chain, &pp, GCG_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (last_message, "set_postprocess_kernel"));
  {
    g_autoptr (GcgKernelOp) planes = gcg_kernel_op_new_from_source (f->ctx,
        "extern \"C\" __global__ void k (const gcg_params *p) {}\n", "k",
        "img=dst0", &error);

    g_assert_no_error (error);
    g_assert_false (gcg_frame_chain_set_postprocess_kernel (chain, &pp, planes,
        &error));
    g_assert_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT);
    g_test_message ("%s", error->message);
    g_clear_error (&error);
  }
  init_pp (&pp, GCG_POSTPROCESS_DETECT, FALSE);
  g_assert_true (gcg_frame_chain_set_postprocess (chain, &pp, &error));
  g_assert_no_error (error);
  expect_refused (chain, &pp, GCG_ERROR_INVALID_ARGUMENT);

  /* A float16 output. */
  other = gcg_frame_chain_new (&config, GCG_BACKEND_CUDA, f->ctx, &error);
  half = make_model (f, ITEMS, shape, 3, GCG_MODEL_DTYPE_FLOAT16, &src);
  g_assert_true (gcg_frame_chain_attach_model (other, half, FALSE, &error));
  expect_refused (other, &pp, GCG_ERROR_NOT_SUPPORTED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add ("/postprocess/chain-detect", Fixture, NULL, fixture_setup,
      test_chain_detect, fixture_teardown);
  g_test_add ("/postprocess/chain-user", Fixture, NULL, fixture_setup,
      test_chain_user, fixture_teardown);
  g_test_add ("/postprocess/hostile-user", Fixture, NULL, fixture_setup,
      test_hostile_user, fixture_teardown);
  g_test_add ("/postprocess/chain-classify", Fixture, NULL, fixture_setup,
      test_chain_classify, fixture_teardown);
  g_test_add ("/postprocess/batch", Fixture, NULL, fixture_setup, test_batch,
      fixture_teardown);
  g_test_add ("/postprocess/completion", Fixture, NULL, fixture_setup,
      test_completion, fixture_teardown);
  g_test_add ("/postprocess/refused", Fixture, NULL, fixture_setup,
      test_refused, fixture_teardown);
  return g_test_run ();
}
