/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The in-flight data path on a GPU (backend=cuda): buffers leave the
 * element while the GPU still works on them and their readers wait on a
 * fence.  10 000 frames whose values change with every frame (a
 * "GcgParamsMeta" brightness and contrast, crop metas, a different set of
 * ROI metas) give, frame for frame, the same SHA-1 of their output with
 * in-flight=4 as with in-flight=1, read in an order that is not always the
 * push order; the first few hundred equal backend=cpu's bit for bit.  A
 * tensor negotiated as other/tensors(memory:CUDAMemory) behind cudaupload
 * is GstCudaMemory whose GstCudaGraphTensorMeta points where a GST_MAP_CUDA map
 * does, and holds the bytes of the system-memory path.  A flush and a caps
 * change in the middle of a run lose no frame, and a second identical
 * segment ends holding the device and pinned memory the first one held.
 * Skipped (TAP skip) without a CUDA driver and device.
 */
#include <dlfcn.h>

#include "gcg-gst-test-util.h"
#include "common/gcg-test-gst.h"
#include "common/gcg-test-gst-gpu.h"
#include "gcg-test-util.h"

#include "gstcudagraphtensormeta.h"

#define LONG_FRAMES 10000
#define CPU_FRAMES 300
/* Outputs are pulled and read BATCH at a time, every other batch newest
 * first, and every 13th frame as soon as it is pushed: a reader maps
 * buffers whose frames may still be running, in any order. */
#define BATCH 8
#define FRAME_DURATION (GST_SECOND / 30)
/* Base pictures the inputs are made from (each frame then gets a stamp of
 * its own). */
#define N_BASE 7

/* gstreamer-cuda's flag for a device map (gst/cuda/gstcudamemory.h, which
 * needs cuda.h: not on the tests' include path). */
#ifndef GST_MAP_CUDA
#define GST_MAP_CUDA (GST_MAP_FLAG_LAST << 1)
#endif

/* --- inputs -------------------------------------------------------------- */

static void
base_luma (guint x, guint y, guint8 *px, gpointer user_data)
{
  guint b = GPOINTER_TO_UINT (user_data);

  px[0] = (guint8) (16 + ((x * (3 + b) + y * (5 + 2 * b) + b * 31) % 220));
}

/* Frames of one input caps: a few base pictures, each frame a copy of one
 * with a block stamped where and as only that frame has it. */
typedef struct
{
  GstVideoInfo info;
  GstBuffer *base[N_BASE];
} Inputs;

static Inputs *
inputs_new (const gchar *caps)
{
  Inputs *in = g_new0 (Inputs, 1);

  in->info = gcg_test_info (caps);
  for (guint b = 0; b < N_BASE; b++)
    in->base[b] = gcg_test_frame_new (caps, base_luma, GUINT_TO_POINTER (b),
        (guint8) (70 + 20 * b));
  return in;
}

static void
inputs_free (Inputs *in)
{
  for (guint b = 0; b < N_BASE; b++)
    gst_buffer_unref (in->base[b]);
  g_free (in);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Inputs, inputs_free);

static GstBuffer *
inputs_frame (Inputs *in, guint i)
{
  GstBuffer *buf = gst_buffer_copy_deep (in->base[i % N_BASE]);
  GstVideoFrame f;
  guint w = GST_VIDEO_INFO_WIDTH (&in->info);
  guint h = GST_VIDEO_INFO_HEIGHT (&in->info);
  guint bx = (i * 7) % (w - 32), by = (i * 3) % (h - 8);
  guint8 *y_plane, *uv_plane;
  gint ys, uvs;

  g_assert_true (gst_video_frame_map (&f, &in->info, buf, GST_MAP_WRITE));
  y_plane = GST_VIDEO_FRAME_PLANE_DATA (&f, 0);
  uv_plane = GST_VIDEO_FRAME_PLANE_DATA (&f, 1);
  ys = GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
  uvs = GST_VIDEO_FRAME_PLANE_STRIDE (&f, 1);
  for (guint y = 0; y < 8; y++)
    for (guint x = 0; x < 32; x++)
      y_plane[(by + y) * ys + bx + x] = (guint8) (i * 37 + x * 5 + y * 11);
  for (guint y = 0; y < 4; y++)
    for (guint x = 0; x < 32; x++)
      uv_plane[(by / 2 + y) * uvs + (bx & ~1u) + x] = (guint8) (i * 13 + x);
  gst_video_frame_unmap (&f);
  GST_BUFFER_PTS (buf) = i * FRAME_DURATION;
  GST_BUFFER_DURATION (buf) = FRAME_DURATION;
  GST_BUFFER_OFFSET (buf) = i;
  return buf;
}

/* cudagraphconvert: brightness and contrast (gamma stays 1, so the CPU
 * backend's arithmetic is the same) on four frames of five, a crop of
 * changing place and size on two of three. */
static void
decorate_convert (GstBuffer *buf, guint i)
{
  if (i % 5 != 4)
    gcg_test_add_params_meta (buf,
        (gdouble) ((gint) ((i * 13) % 21) - 10) * 0.02, 0.8 + (i % 9) * 0.05);
  if (i % 3 != 0) {
    GstVideoCropMeta *crop = gst_buffer_add_video_crop_meta (buf);

    crop->x = (i * 6) % 64;
    crop->y = (i * 4) % 48;
    crop->width = 160 + (i * 8) % 96;
    crop->height = 120 + (i * 6) % 72;
  }
}

/* cudagraphpreprocess: i % 5 ROIs (none on every fifth frame, up to the
 * batch of 4), each frame's elsewhere, and a brightness on even frames. */
static void
decorate_preprocess (GstBuffer *buf, guint i)
{
  for (guint j = 0; j < i % 5; j++) {
    GstVideoRegionOfInterestMeta *roi;

    roi = gst_buffer_add_video_region_of_interest_meta (buf, "obj",
        (i * 5 + j * 37) % 200, (i * 3 + j * 29) % 150,
        24 + ((i + j * 3) % 8) * 12, 24 + ((i * 7 + j) % 6) * 14);
    roi->id = (gint) (i * 10 + j);
  }
  if (i % 2 == 0)
    gcg_test_add_params_meta (buf, (gdouble) (i % 9) * 0.03 - 0.12, 1.0);
}

typedef struct
{
  const gchar *launch;          /* backend and in-flight are added */
  const gchar *factory;
  const gchar *in_caps;
  const gchar *in_caps2;        /* the other size, for caps changes */
  const gchar *out_caps;        /* NULL: the tensor the properties say */
  void (*decorate) (GstBuffer *buf, guint i);
} Case;

static const Case convert_case = {
  "cudagraphconvert letterbox=symmetric pad-color=0xff305070",
  "cudagraphconvert",
  "video/x-raw,format=NV12,width=320,height=240,framerate=30/1",
  "video/x-raw,format=NV12,width=192,height=160,framerate=30/1",
  "video/x-raw,format=RGBA,width=256,height=144",
  decorate_convert,
};

static const Case preprocess_case = {
  "cudagraphpreprocess width=48 height=48 max-rois=4 letterbox=symmetric "
  "pad-value=0.5 mean=0.485,0.456,0.406 std=0.229,0.224,0.225",
  "cudagraphpreprocess",
  "video/x-raw,format=NV12,width=320,height=240,framerate=30/1",
  "video/x-raw,format=NV12,width=256,height=200,framerate=30/1",
  NULL,
  decorate_preprocess,
};

/* --- outputs ------------------------------------------------------------- */

/* Hashes of two runs agree frame for frame; the mismatches are counted
 * and the first few named before failing. */
static void
assert_same_hashes (GPtrArray *a, GPtrArray *b, guint n, const gchar *what)
{
  guint bad = 0;

  g_assert_cmpuint (a->len, >=, n);
  g_assert_cmpuint (b->len, >=, n);
  for (guint i = 0; i < n; i++) {
    if (g_strcmp0 (a->pdata[i], b->pdata[i]) == 0)
      continue;
    if (bad++ < 5)
      g_test_message ("%s: frame %u: %s != %s", what, i,
          (const gchar *) a->pdata[i], (const gchar *) b->pdata[i]);
  }
  if (bad)
    g_error ("%s: %u of %u frames differ", what, bad, n);
}

/* --- harness runs -------------------------------------------------------- */

typedef struct
{
  const gchar *backend;
  guint in_flight;
  guint n;                      /* frames per segment */
  guint flush_at;               /* 0, or flush after this many frames, their
                                 * outputs not pulled yet */
  guint caps_at;                /* 0, or in_caps2 from this frame on */
  guint segments;               /* each ends with EOS; 1 or 2 */
} Plan;

typedef struct
{
  GPtrArray *hashes[2];         /* per frame, per segment */
  GstStructure *stats[2];
  gboolean pinned;              /* outputs were the element's pinned memory */
} Result;

static void
result_clear (Result *r)
{
  for (guint s = 0; s < 2; s++) {
    g_clear_pointer (&r->hashes[s], g_ptr_array_unref);
    g_clear_pointer (&r->stats[s], gst_structure_free);
  }
}

typedef struct
{
  GstHarness *h;
  GPtrArray *hashes;
  guint pulled;
  guint batches;
  gboolean pinned;
} Reader;

/* Pulls the outputs of every frame pushed up to @upto and hashes them,
 * newest first when @newest_first or on every other batch.  Each comes in
 * push order with its frame's timestamps. */
static void
read_outputs (Reader *r, guint upto, gboolean newest_first)
{
  g_autoptr (GstCaps) caps = gst_pad_get_current_caps (r->h->sinkpad);
  GstBuffer *bufs[64];
  guint n = upto - r->pulled;
  gboolean reverse = newest_first || r->batches % 2;

  r->batches++;

  g_assert_cmpuint (n, <=, G_N_ELEMENTS (bufs));
  for (guint k = 0; k < n; k++) {
    bufs[k] = gst_harness_try_pull (r->h);
    g_assert_nonnull (bufs[k]);
    g_assert_cmpuint (GST_BUFFER_PTS (bufs[k]), ==,
        (r->pulled + k) * FRAME_DURATION);
    r->pinned = r->pinned
        || gst_memory_is_type (gst_buffer_peek_memory (bufs[k], 0),
            "CudaGraphPinnedMemory");
  }
  for (guint m = 0; m < n; m++) {
    guint k = reverse ? n - 1 - m : m;

    g_ptr_array_index (r->hashes, r->pulled + k) =
        gcg_test_visible_sha1 (bufs[k], caps);
    gst_buffer_unref (bufs[k]);
  }
  r->pulled = upto;
}

/* Every frame counted, none dropped or failed, the queue as deep as
 * asked; the CUDA backend also says what memory it holds. */
static void
check_stats (const GstStructure *s, const Plan *plan, guint64 frames)
{
  gboolean cuda = g_str_equal (plan->backend, "cuda");
  guint depth = 0;

  g_assert_cmpstr (gst_structure_get_string (s, "backend"), ==, plan->backend);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "frames"), ==, frames);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "dropped-frames"), ==, 0);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "failed-frames"), ==, 0);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "in-place-inputs"), ==, 0);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "in-place-outputs"), ==, 0);
  (void) gcg_test_stats_u64 (s, "slot-waits");
  (void) gcg_test_stats_u64 (s, "replays");
  (void) gcg_test_stats_u64 (s, "eager-frames");
  g_assert_true (gst_structure_get_uint (s, "in-flight", &depth));
  g_assert_cmpuint (depth, ==, plan->in_flight);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "captures"), >=, cuda ? 1 : 0);
  g_assert_cmpint (gst_structure_has_field (s, "device-bytes-allocated"), ==,
      cuda);
  if (cuda) {
    (void) gcg_test_stats_u64 (s, "device-bytes-allocated");
    (void) gcg_test_stats_u64 (s, "device-bytes-reserved");
    (void) gcg_test_stats_u64 (s, "pinned-bytes-in-use");
  }
}

/* One segment of @plan: inputs from @in (@in2 after caps_at). */
static void
run_segment (GstHarness *h, const Case *c, const Plan *plan, Inputs *in,
    Inputs *in2, Reader *r)
{
  for (guint i = 0; i < plan->n; i++) {
    Inputs *src = plan->caps_at && i >= plan->caps_at ? in2 : in;
    GstBuffer *buf;

    if (plan->caps_at && i == plan->caps_at)
      gst_harness_set_src_caps_str (h, c->in_caps2);
    buf = inputs_frame (src, i);
    c->decorate (buf, i);
    g_assert_cmpint (gst_harness_push (h, buf), ==, GST_FLOW_OK);
    /* Frames pushed before a flush are read only after it. */
    if (plan->flush_at && i + 1 == plan->flush_at)
      gcg_test_flush (h);
    if (plan->flush_at && i + 1 <= plan->flush_at)
      continue;
    /* Now and then the frame just pushed is read at once: its map must
     * wait for the GPU. */
    if (i % 13 == 0)
      read_outputs (r, i + 1, TRUE);
    else if ((i + 1) % BATCH == 0 || r->pulled + 64 == i + 1)
      read_outputs (r, i + 1, FALSE);
  }
  read_outputs (r, plan->n, FALSE);
}

/* Runs @plan through @c: each segment's hashes and stats. */
static void
run_plan (const Case *c, const Plan *plan, Result *res)
{
  g_autofree gchar *launch = g_strdup_printf ("%s backend=%s in-flight=%u",
      c->launch, plan->backend, plan->in_flight);
  GstHarness *h = gcg_test_harness_new (launch, c->in_caps, c->out_caps);
  g_autoptr (GstBus) bus = gst_bus_new ();
  g_autoptr (Inputs) in = inputs_new (c->in_caps);
  g_autoptr (Inputs) in2 = plan->caps_at ? inputs_new (c->in_caps2) : NULL;

  memset (res, 0, sizeof (*res));
  gst_element_set_bus (h->element, bus);
  for (guint s = 0; s < plan->segments; s++) {
    Reader r = { h, g_ptr_array_new_with_free_func (g_free), 0, 0, FALSE };

    g_ptr_array_set_size (r.hashes, plan->n);
    if (s > 0) {
      /* Out of EOS, back to the first caps. */
      gcg_test_flush (h);
      if (plan->caps_at)
        gst_harness_set_src_caps_str (h, c->in_caps);
    }
    run_segment (h, c, plan, in, in2, &r);
    g_assert_cmpuint (r.pulled, ==, plan->n);
    res->hashes[s] = r.hashes;
    res->pinned = r.pinned;
    res->stats[s] = gcg_test_finish_segment (h, bus);
    check_stats (res->stats[s], plan, (guint64) plan->n * (s + 1));
  }
  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
}

/* --- long runs ----------------------------------------------------------- */

/* 10 000 frames with in-flight=1 and with in-flight=4: the same bytes
 * frame for frame, a graph captured once; backend=cpu gives them too. */
static void
test_long (gconstpointer data)
{
  const Case *c = data;
  const Plan one = { "cuda", 1, LONG_FRAMES, 0, 0, 1 };
  const Plan four = { "cuda", 4, LONG_FRAMES, 0, 0, 1 };
  const Plan cpu = { "cpu", 1, CPU_FRAMES, 0, 0, 1 };
  Result r1, r4, rc;
  guint same_as_previous = 0;
  gint64 t0;

  if (!gcg_test_have_gpu ())
    return;
  t0 = g_get_monotonic_time ();
  run_plan (c, &one, &r1);
  g_test_message ("in-flight=1: %.1f s, slot-waits %" G_GUINT64_FORMAT,
      (g_get_monotonic_time () - t0) / 1e6,
      gcg_test_stats_u64 (r1.stats[0], "slot-waits"));
  t0 = g_get_monotonic_time ();
  run_plan (c, &four, &r4);
  g_test_message ("in-flight=4: %.1f s, slot-waits %" G_GUINT64_FORMAT,
      (g_get_monotonic_time () - t0) / 1e6,
      gcg_test_stats_u64 (r4.stats[0], "slot-waits"));
  /* Pinned output: the path where buffers leave before the GPU is done. */
  g_assert_true (r4.pinned);
  g_assert_cmpuint (gcg_test_stats_u64 (r1.stats[0], "captures"), ==, 1);
  g_assert_cmpuint (gcg_test_stats_u64 (r4.stats[0], "captures"), ==, 1);
  g_assert_cmpuint (gcg_test_stats_u64 (r4.stats[0], "replays"), ==,
      LONG_FRAMES - 1);
  assert_same_hashes (r4.hashes[0], r1.hashes[0], LONG_FRAMES,
      "in-flight=4 vs in-flight=1");
  /* Every frame's values are its own. */
  for (guint i = 1; i < LONG_FRAMES; i++)
    same_as_previous +=
        g_str_equal (r1.hashes[0]->pdata[i], r1.hashes[0]->pdata[i - 1]);
  g_assert_cmpuint (same_as_previous, ==, 0);

  run_plan (c, &cpu, &rc);
  assert_same_hashes (r1.hashes[0], rc.hashes[0], CPU_FRAMES,
      "backend=cuda vs backend=cpu");
  result_clear (&r1);
  result_clear (&r4);
  result_clear (&rc);
}

/* --- flush and caps change ----------------------------------------------- */

#define CYCLE_FRAMES 96

/* A flush after 20 frames (their outputs still unread) and a caps change
 * at frame 50, in-flight=4, twice: every frame of both segments comes out
 * with the bytes an in-flight=1 run without flush gives, and the second
 * EOS finds the element holding the device and pinned memory the first
 * one did. */
static void
test_flush_caps (gconstpointer data)
{
  const Case *c = data;
  const Plan ref_plan = { "cuda", 1, CYCLE_FRAMES, 0, 50, 1 };
  const Plan plan = { "cuda", 4, CYCLE_FRAMES, 20, 50, 2 };
  Result ref, res;

  if (!gcg_test_have_gpu ())
    return;
  run_plan (c, &ref_plan, &ref);
  run_plan (c, &plan, &res);
  assert_same_hashes (res.hashes[0], ref.hashes[0], CYCLE_FRAMES,
      "segment 1 vs in-flight=1");
  assert_same_hashes (res.hashes[1], ref.hashes[0], CYCLE_FRAMES,
      "segment 2 vs in-flight=1");
  /* One chain per input size, both kept by the graph cache: the second
   * segment, going back to the first caps and on to the second, replays
   * what the first captured. */
  g_assert_cmpuint (gcg_test_stats_u64 (res.stats[1], "captures"), ==, 2);
  g_assert_cmpuint (gcg_test_stats_u64 (res.stats[1], "chains-built"), ==, 2);
  g_assert_cmpuint (gcg_test_stats_u64 (res.stats[1], "device-bytes-allocated"),
      ==, gcg_test_stats_u64 (res.stats[0], "device-bytes-allocated"));
  g_assert_cmpuint (gcg_test_stats_u64 (res.stats[1], "pinned-bytes-in-use"),
      ==, gcg_test_stats_u64 (res.stats[0], "pinned-bytes-in-use"));
  result_clear (&ref);
  result_clear (&res);
}

/* --- tensors in CUDA memory ---------------------------------------------- */

#ifdef HAVE_GST_CUDA
#define TENSOR_FRAMES 60
#define TENSOR_SRC \
  "videotestsrc num-buffers=60 pattern=ball ! " \
  "video/x-raw,format=NV12,width=320,height=240,framerate=30/1"
#define TENSOR_PRE \
  "cudagraphpreprocess name=pre backend=cuda in-flight=4 " \
  "width=48 height=48 max-rois=4 letterbox=symmetric pad-value=0.5"

typedef gboolean (*IsCudaMemoryFunc) (GstMemory *mem);

/* gst_is_cuda_memory() from the gstreamer-cuda library nvcodec loaded
 * (the tests do not link it; dlopen() of a loaded library finds that
 * one). */
static IsCudaMemoryFunc
find_is_cuda_memory (void)
{
  void *lib = dlopen ("libgstcuda-1.0.so.0", RTLD_LAZY | RTLD_LOCAL);
  void *sym = lib ? dlsym (lib, "gst_is_cuda_memory") : NULL;

  if (sym == NULL)
    g_error ("gst_is_cuda_memory not found: %s", dlerror ());
  /* Never closed: nvcodec keeps the library loaded anyway. */
  return (IsCudaMemoryFunc) sym;
}

static GstPadProbeReturn
decorate_probe (GstPad *pad, GstPadProbeInfo *info, gpointer user_data)
{
  guint *count = user_data;
  GstBuffer *buf =
      gst_buffer_make_writable (gst_pad_probe_info_get_buffer (info));

  decorate_preprocess (buf, (*count)++);
  GST_PAD_PROBE_INFO_DATA (info) = buf;
  return GST_PAD_PROBE_OK;
}

/* The CUDA tensor: GstCudaMemory, described as such by its meta, whose
 * device map is where the meta points. */
static void
check_cuda_tensor (GstBuffer *buf, GstCaps *caps, IsCudaMemoryFunc is_cuda)
{
  GstCudaGraphTensorMeta *meta = gst_cuda_graph_buffer_get_tensor_meta (buf);
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  GstMapInfo map;

  g_assert_true (f && gst_caps_features_contains (f, "memory:CUDAMemory"));
  g_assert_cmpuint (gst_buffer_n_memory (buf), ==, 1);
  g_assert_true (is_cuda (mem));
  g_assert_nonnull (meta);
  g_assert_cmpuint (meta->memory, ==, GST_CUDA_GRAPH_TENSOR_MEMORY_CUDA);
  g_assert_cmpint (meta->device_id, >=, 0);
  g_assert_nonnull (meta->stream);
  g_assert_cmpuint (meta->size, ==, 4 * 3 * 48 * 48 * sizeof (gfloat));
  g_assert_cmpuint (gst_buffer_get_size (buf), >=, meta->size);
  g_assert_true (gst_buffer_map (buf, &map, GST_MAP_READ | GST_MAP_CUDA));
  g_assert_cmpuint ((guint64) (guintptr) map.data, ==, meta->data);
  gst_buffer_unmap (buf, &map);
}

typedef struct
{
  gboolean cuda;
  gboolean seen;
} TensorStats;

/* The pipeline's cudagraph-stats: every frame, read and written in place
 * with CUDA memory. */
static void
check_tensor_stats (const GstStructure *s, gpointer user_data)
{
  TensorStats *t = user_data;
  g_autofree gchar *str = gst_structure_to_string (s);

  g_test_message ("%s", str);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "frames"), ==, TENSOR_FRAMES);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "in-place-inputs"), ==,
      t->cuda ? TENSOR_FRAMES : 0);
  g_assert_cmpuint (gcg_test_stats_u64 (s, "in-place-outputs"), ==,
      t->cuda ? TENSOR_FRAMES : 0);
  t->seen = TRUE;
}

/* Runs the tensor pipeline, CUDA memory in and out or system memory
 * throughout; returns each tensor's SHA-1 (a CPU map) and its item
 * count. */
static GPtrArray *
run_tensor_pipeline (gboolean cuda, GArray *n_items)
{
  g_autofree gchar *launch = g_strdup_printf ("%s ! %s" TENSOR_PRE
                                              " ! appsink name=sink sync=false",
      TENSOR_SRC, cuda ? "cudaupload ! video/x-raw(memory:CUDAMemory) ! " : "");
  g_autoptr (GError) error = NULL;
  g_autoptr (GstElement) pipeline = gst_parse_launch (launch, &error);
  g_autoptr (GstElement) sink = NULL;
  g_autoptr (GstElement) pre = NULL;
  g_autoptr (GstPad) pad = NULL;
  g_autoptr (GstCaps) sink_caps = gst_caps_from_string (cuda
          ? "other/tensors(memory:CUDAMemory)"
          : "other/tensors");
  g_autoptr (GstBus) bus = NULL;
  GPtrArray *hashes = g_ptr_array_new_with_free_func (g_free);
  IsCudaMemoryFunc is_cuda = cuda ? find_is_cuda_memory () : NULL;
  GstSample *sample = NULL;
  TensorStats stats = { cuda, FALSE };
  gboolean eos = FALSE;
  guint count = 0;

  g_assert_no_error (error);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pre = gst_bin_get_by_name (GST_BIN (pipeline), "pre");
  g_object_set (sink, "caps", sink_caps, NULL);
  pad = gst_element_get_static_pad (pre, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, decorate_probe, &count,
      NULL);
  g_assert_cmpint (gst_element_set_state (pipeline, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  for (;;) {
    GstBuffer *buf;
    GstCudaGraphTensorMeta *meta;

    g_signal_emit_by_name (sink, "try-pull-sample", 20 * GST_SECOND, &sample);
    if (sample == NULL)
      break;
    buf = gst_sample_get_buffer (sample);
    meta = gst_cuda_graph_buffer_get_tensor_meta (buf);
    g_assert_nonnull (meta);
    if (cuda)
      check_cuda_tensor (buf, gst_sample_get_caps (sample), is_cuda);
    else
      g_assert_cmpuint (meta->memory, ==, GST_CUDA_GRAPH_TENSOR_MEMORY_SYSTEM);
    g_array_append_val (n_items, meta->n_items);
    g_ptr_array_add (hashes,
        gcg_test_visible_sha1 (buf, gst_sample_get_caps (sample)));
    gst_sample_unref (sample);
  }
  g_object_get (sink, "eos", &eos, NULL);
  bus = gst_element_get_bus (pipeline);
  gcg_test_bus_foreach_stats (bus, launch, check_tensor_stats, &stats);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  g_assert_true (eos);
  g_assert_true (stats.seen);
  g_assert_cmpuint (hashes->len, ==, TENSOR_FRAMES);
  g_assert_cmpuint (count, ==, TENSOR_FRAMES);
  return hashes;
}
#endif

/* other/tensors(memory:CUDAMemory) for a CUDA consumer, from CUDA memory
 * in: the same tensors, ROI per ROI, as the system-memory path. */
static void
test_tensor_cuda_memory (void)
{
#ifdef HAVE_GST_CUDA
  g_autoptr (GstElementFactory) up = NULL;
  g_autoptr (GArray) items_cuda = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) items_sys = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) cuda = NULL;
  g_autoptr (GPtrArray) sys = NULL;

  if (!gcg_test_have_gpu ())
    return;
  up = gst_element_factory_find ("cudaupload");
  if (up == NULL) {
    gcg_test_skip_or_fail ("nvcodec's cudaupload is not registered");
    return;
  }
  cuda = run_tensor_pipeline (TRUE, items_cuda);
  sys = run_tensor_pipeline (FALSE, items_sys);
  assert_same_hashes (cuda, sys, TENSOR_FRAMES, "CUDA tensor vs system");
  for (guint i = 0; i < TENSOR_FRAMES; i++) {
    g_assert_cmpuint (g_array_index (items_cuda, guint, i), ==,
        g_array_index (items_sys, guint, i));
    g_assert_cmpuint (g_array_index (items_cuda, guint, i), ==, MAX (i % 5, 1));
  }
#else
  gcg_test_no_gst_cuda ();
#endif
}

int
main (int argc, char **argv)
{
  gcg_test_add_bundle_plugins ();
  gcg_test_gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/gst/gpu/inflight/convert-long", &convert_case,
      test_long);
  g_test_add_data_func ("/gst/gpu/inflight/preprocess-long", &preprocess_case,
      test_long);
  g_test_add_func ("/gst/gpu/inflight/tensor-cuda-memory",
      test_tensor_cuda_memory);
  g_test_add_data_func ("/gst/gpu/inflight/convert-flush-caps", &convert_case,
      test_flush_caps);
  g_test_add_data_func ("/gst/gpu/inflight/preprocess-flush-caps",
      &preprocess_case, test_flush_caps);
  return g_test_run ();
}
