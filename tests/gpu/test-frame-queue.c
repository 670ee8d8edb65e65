/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GcgFrameQueue on a real stream against the CPU backend: NV12 320x240 to
 * RGBA video and to a float32 tensor batch, 200 frames with crop, gain,
 * contrast, brightness (and for tensors the ROI count) changing every
 * frame, input and output each in pageable, pinned and device memory (and
 * all of them mixed), every output compared bit for bit with the CPU
 * reference: pageable outputs once the frame's callback ran, pinned and
 * device ones after gcg_frame_queue_wait_ready() or the callback.  A host
 * function holds the stream now and then (a "gate"), so that frames pile
 * up to the queue's depth and submits wait for slots, deterministically.
 * Also: wait_ready from a second thread returns only once the frame is
 * done; a full queue blocks a submit until the oldest frame is done; depth
 * 1 and depth 4 give the same bytes; staging stops growing after the first
 * run; caps changes (video and tensor frames) with frames in flight;
 * cancel and dispose with frames held on the GPU (CANCELLED, pageable
 * outputs untouched, staging given back); a driver call failing once with
 * frames in flight fails that submit only (no callback) and the frames
 * before and after it are right.  Completion marks (/frame-queue/marks/):
 * a chain's frames with device output are seen done through the stream's
 * mark, in graph and eager runs, without an event, and their bytes are
 * right; host outputs, blocking waits, a tensor's zeroed items and
 * GCG_COMPLETION=event (the queue told so) record events instead;
 * wait_ready from a thread waits on the mark; a device-side wait on a
 * marked frame waits on the host once, then the frames record their
 * events and the wait is queued on the device.  Skips (TAP) without a
 * driver.
 */
#include "gcg-gpu-fixture.h"
#include "gcg-test-gate.h"
#include "gcg-frame-queue-private.h"
#include "common/gcg-test-layout.h"

#include <string.h>

#define N_FRAMES 200
#define IN_W 320
#define IN_H 240
#define VIDEO_FILL 0xab
#define TENSOR_FILL 0xff

/* --- fixture: the queue's staging sources and the test's own memory ----- */

typedef struct
{
  Fixture base;
  GcgAllocator *alloc;          /* the queue's device staging */
  GcgHostPool *pool;            /* the queue's pinned staging */
  GcgAllocator *buf_alloc;      /* the test's device buffers */
  GcgHostPool *buf_pool;        /* the test's pinned buffers */
} QFixture;

static void
qfixture_setup (QFixture *q, gconstpointer data)
{
  g_autoptr (GError) error = NULL;

  fixture_setup (&q->base, data);
  if (!q->base.ctx)
    return;
  q->alloc = gcg_allocator_new (q->base.ctx, &error);
  g_assert_no_error (error);
  q->buf_alloc = gcg_allocator_new (q->base.ctx, &error);
  g_assert_no_error (error);
  q->pool = gcg_host_pool_new (q->base.ctx);
  q->buf_pool = gcg_host_pool_new (q->base.ctx);
}

static void
qfixture_teardown (QFixture *q, gconstpointer data)
{
  if (q->base.ctx)
    g_assert_true (gcg_stream_synchronize (q->base.stream, NULL));
  g_clear_object (&q->alloc);
  g_clear_object (&q->buf_alloc);
  g_clear_object (&q->pool);
  g_clear_object (&q->buf_pool);
  fixture_teardown (&q->base, data);
}

/* --- the frames: inputs, values and CPU references, made once ------------ */

static void
video_config (GcgFrameChainConfig *c)
{
  gcg_frame_chain_config_init (c);
  c->in_format = GCG_PIXEL_FORMAT_NV12;
  c->in_width = IN_W;
  c->in_height = IN_H;
  c->matrix = GCG_COLOR_MATRIX_BT709;
  c->out_format = GCG_PIXEL_FORMAT_RGBA;
  c->out_width = 160;
  c->out_height = 120;
}

static void
tensor_config (GcgFrameChainConfig *c)
{
  video_config (c);
  c->output = GCG_OUTPUT_KIND_TENSOR;
  c->out_width = 64;
  c->out_height = 64;
  c->letterbox = GCG_LETTERBOX_SYMMETRIC;
  c->max_rois = 2;
}

/* Frame @n's values: everything per-frame changes (gamma stays 1, so the
 * CPU and CUDA results are the same bits). */
static void
frame_params (GcgFrameParams *p, const GcgFrameChainConfig *c, guint n)
{
  static const gfloat mean[3] = { 0.485f, 0.456f, 0.406f };
  static const gfloat std[3] = { 0.229f, 0.224f, 0.225f };

  gcg_frame_params_init (p);
  p->gain = 1.0f + 0.01f * (n % 7);
  p->contrast = 0.9f + 0.02f * (n % 6);
  p->brightness = 0.01f * ((gint) (n % 11) - 5);
  p->rois[0] = (GcgRect) { (gint) ((n * 7) % 40), (gint) ((n * 5) % 30),
    240 + (gint) (n % 9) * 4, 180 + (gint) (n % 7) * 4 };
  p->n_rois = 1;
  p->pad[0] = 114;
  p->pad[1] = 20.5f;
  p->pad[2] = 250;
  p->pad[3] = 128;
  p->frame_number = n;
  p->pts = (guint64) n * 33333333;
  if (c->output == GCG_OUTPUT_KIND_TENSOR) {
    gcg_frame_params_set_mean_std (p, mean, std);
    /* Every other frame one item of two: the second is zeroed. */
    p->n_rois = 1 + n % 2;
    p->rois[1] = (GcgRect) { (gint) ((n * 3) % 100), (gint) ((n * 11) % 80),
      120 + (gint) (n % 5) * 8, 100 + (gint) (n % 4) * 10 };
  }
}

typedef struct
{
  GcgFrameChainConfig config;
  GcgTestLayout in_layout, out_layout;
  guint8 *in[N_FRAMES];
  guint8 *want[N_FRAMES];
} Reference;

static Reference *references[2];

static void
fill_random (guint8 *data, gsize size, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  gsize i = 0;

  for (; i + 4 <= size; i += 4) {
    guint32 v = g_rand_int (rand);

    memcpy (data + i, &v, 4);
  }
  for (; i < size; i++)
    data[i] = (guint8) g_rand_int_range (rand, 0, 256);
  g_rand_free (rand);
}

/* The inputs and CPU outputs of every frame, made on first use so that
 * each test compares against the same bytes. */
static const Reference *
reference_get (gboolean tensor)
{
  g_autoptr (GcgFrameChain) cpu = NULL;
  g_autoptr (GError) error = NULL;
  Reference *ref = references[tensor];

  if (ref)
    return ref;
  ref = references[tensor] = g_new0 (Reference, 1);
  if (tensor)
    tensor_config (&ref->config);
  else
    video_config (&ref->config);
  gcg_test_layout_video (&ref->in_layout, GCG_PIXEL_FORMAT_NV12, IN_W, IN_H,
      64);
  /* Video outputs are RGBA: one plane, as the checks read them. */
  if (ref->config.output != GCG_OUTPUT_KIND_TENSOR)
    g_assert_cmpint (ref->config.out_format, ==, GCG_PIXEL_FORMAT_RGBA);
  gcg_test_layout_output (&ref->out_layout, &ref->config, 32);
  cpu = gcg_frame_chain_new (&ref->config, GCG_BACKEND_CPU, NULL, &error);
  g_assert_no_error (error);
  for (guint n = 0; n < N_FRAMES; n++) {
    GcgFrameParams p;

    ref->in[n] = g_malloc (ref->in_layout.size);
    fill_random (ref->in[n], ref->in_layout.size, 1000 + n);
    /* Items the frame does not use are zero, as the queue leaves them. */
    ref->want[n] = g_malloc0 (ref->out_layout.size);
    frame_params (&p, &ref->config, n);
    for (guint i = 0; i < 3; i++) {
      p.src[i] = i < 2
          ? (guint64) (guintptr) (ref->in[n] + ref->in_layout.offset[i])
          : 0;
      p.src_stride[i] = ref->in_layout.stride[i];
    }
    p.dst[0] = (guint64) (guintptr) ref->want[n];
    p.dst_stride[0] = ref->out_layout.stride[0];
    g_assert_true (gcg_frame_chain_process (cpu, &p, NULL, &error));
    g_assert_no_error (error);
  }
  return ref;
}

static void
references_free (void)
{
  for (guint t = 0; t < 2; t++) {
    if (!references[t])
      continue;
    for (guint n = 0; n < N_FRAMES; n++) {
      g_free (references[t]->in[n]);
      g_free (references[t]->want[n]);
    }
    g_clear_pointer (&references[t], g_free);
  }
}

/* --- memory of each kind ------------------------------------------------- */

typedef struct
{
  GcgMemoryKind kind;
  gsize size;
  guint8 *host;                 /* pageable or pinned */
  guint64 dev;                  /* device */
} Mem;

static const gchar *
kind_name (GcgMemoryKind kind)
{
  static const gchar *names[] = { "pageable", "pinned", "device" };

  return names[kind];
}

static void
mem_free (QFixture *q, Mem *m)
{
  if (m->size == 0)
    return;
  if (m->kind == GCG_MEMORY_KIND_HOST)
    g_free (m->host);
  else if (m->kind == GCG_MEMORY_KIND_HOST_PINNED)
    g_assert_true (gcg_host_pool_release (q->buf_pool, m->host, m->size, NULL));
  else
    gcg_allocator_free (q->buf_alloc, m->dev);
  memset (m, 0, sizeof (*m));
}

/* Makes @m @size bytes of @kind, keeping what it has when it fits. */
static void
mem_ensure (QFixture *q, Mem *m, GcgMemoryKind kind, gsize size)
{
  g_autoptr (GError) error = NULL;

  if (m->size == size && m->kind == kind)
    return;
  mem_free (q, m);
  m->kind = kind;
  m->size = size;
  if (kind == GCG_MEMORY_KIND_HOST) {
    m->host = g_malloc (size);
  } else if (kind == GCG_MEMORY_KIND_HOST_PINNED) {
    m->host = gcg_host_pool_alloc (q->buf_pool, size, &error);
    g_assert_no_error (error);
  } else {
    g_assert_true (gcg_allocator_alloc (q->buf_alloc, size, q->base.stream,
        &m->dev, &error));
    g_assert_no_error (error);
  }
}

static guint64
mem_address (const Mem *m)
{
  return m->kind == GCG_MEMORY_KIND_DEVICE ? m->dev
                                           : (guint64) (guintptr) m->host;
}

static void
planes_init (GcgFramePlanes *p, const Mem *m, const GcgTestLayout *l)
{
  gcg_test_planes_init (p, l, m->kind, mem_address (m));
}

/* --- a run: one queue, its frames, their checks -------------------------- */

/* Opens the gate after 30 ms, whatever the test thread is doing. */
static gpointer
opener_thread (gpointer data)
{
  g_usleep (30 * 1000);
  gate_open (data);
  return NULL;
}

typedef struct _Run Run;

/* The memory of one frame in flight, reused once that frame is retired. */
typedef struct
{
  Run *run;
  const Reference *ref;         /* the frame's chain and expected bytes */
  GcgFrameChain *gpu;
  Mem in, out;
  Mem upload;                   /* pinned: the bytes of a device input */
  GcgFramePlanes in_planes, out_planes;
  guint frame;                  /* index into the reference */
  guint64 seq;                  /* 0 when free */
  gboolean checked;             /* output checked before the callback */
} Set;

struct _Run
{
  QFixture *q;
  const Reference *refs[2];     /* video, tensor */
  GcgFrameChain *gpus[2];
  const Reference *ref;         /* the chain the next frames use */
  GcgFrameChain *gpu;
  GcgFrameQueue *queue;
  guint n_sets;
  Set sets[GCG_FRAME_QUEUE_MAX_DEPTH + 2];
  guint next_frame;
  guint prepared;
  guint64 submitted;            /* successful submits */
  guint64 retired;              /* callbacks */
  guint checked_early;          /* outputs checked after wait_ready */
  guint64 padding_written;      /* row padding bytes not left as filled */
  guint max_in_flight;
  guint8 *scratch;              /* device outputs, downloaded */
  GPtrArray *outputs;           /* when set: each frame's output bytes */
  gboolean bursts;              /* hold the stream now and then */
  gboolean cancelling;          /* callbacks must say CANCELLED */
  guint cancelled;
  Gate gate;
  GThread *opener;
  guint64 burst_waits;          /* slot waits when the burst began */
};

/* The next frames use the video or the tensor chain: a caps change. */
static void
run_use (Run *r, gboolean tensor)
{
  g_autoptr (GError) error = NULL;

  if (!r->gpus[tensor]) {
    r->gpus[tensor] = gcg_frame_chain_new (&r->refs[tensor]->config,
        GCG_BACKEND_CUDA, r->q->base.ctx, &error);
    g_assert_no_error (error);
  }
  r->ref = r->refs[tensor];
  r->gpu = r->gpus[tensor];
}

static void
run_init (Run *r, QFixture *q, gboolean tensor, guint depth)
{
  g_autoptr (GError) error = NULL;

  memset (r, 0, sizeof (*r));
  r->q = q;
  r->refs[0] = reference_get (FALSE);
  r->refs[1] = reference_get (TRUE);
  r->queue =
      gcg_frame_queue_new (q->base.stream, q->alloc, q->pool, depth, &error);
  g_assert_no_error (error);
  g_assert_true (gcg_frame_queue_get_stream (r->queue) == q->base.stream);
  g_assert_cmpuint (gcg_frame_queue_get_depth (r->queue), ==, depth);
  run_use (r, tensor);
  /* Sets are used in turn: at most depth frames are in flight, and one
   * submit may fail, so the set used depth + 2 frames ago is free. */
  r->n_sets = depth + 2;
  for (guint i = 0; i < r->n_sets; i++)
    r->sets[i].run = r;
  r->scratch =
      g_malloc (MAX (r->refs[0]->out_layout.size, r->refs[1]->out_layout.size));
  gate_init (&r->gate);
}

/* The burst is over: the frames held may go (its opener may still wait
 * for a queue that never filled). */
static void
run_burst_end (Run *r)
{
  if (r->opener) {
    gate_open (&r->gate);
    g_thread_join (r->opener);
  }
  r->opener = NULL;
}

/* Holds the stream for 30 ms, for a test whose thread then waits for the
 * frames held itself (a failed submit synchronises the streams). */
static void
run_burst_start (Run *r)
{
  run_burst_end (r);
  gate_close (&r->gate, r->q->base.stream);
  r->opener = g_thread_new ("opener", opener_thread, &r->gate);
}

/* Opens the gate once a submit has waited for a slot (the queue is full
 * behind the gate: what a burst is for) or the test thread opened it,
 * and after 10 s at the latest, should the test thread block on anything
 * else.  No timer decides whether the queue fills: under
 * compute-sanitizer the host is slowed down enough to miss one. */
static gpointer
full_queue_opener_thread (gpointer data)
{
  Run *r = data;
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (!gate_is_open (&r->gate)
      && gcg_frame_queue_get_slot_waits (r->queue) == r->burst_waits
      && g_get_monotonic_time () < end)
    g_usleep (100);
  gate_open (&r->gate);
  return NULL;
}

/* Holds the stream until the next frames fill the queue and a submit has
 * to wait for a slot. */
static void
run_burst_until_full (Run *r)
{
  run_burst_end (r);
  gate_close (&r->gate, r->q->base.stream);
  r->burst_waits = gcg_frame_queue_get_slot_waits (r->queue);
  r->opener = g_thread_new ("opener", full_queue_opener_thread, r);
}

/* Holds the stream until run_release_later(): frames queued meanwhile
 * cannot be done, however slowly the host submits them (under
 * compute-sanitizer a 30 ms burst may end before they are queued). */
static void
run_hold (Run *r)
{
  run_burst_end (r);
  gate_close (&r->gate, r->q->base.stream);
}

/* Opens the gate from another thread while this one goes on to wait for
 * the frames held (a drain, a cancel, a dispose). */
static void
run_release_later (Run *r)
{
  r->opener = g_thread_new ("opener", opener_thread, &r->gate);
}

static void
run_clear (Run *r)
{
  run_burst_end (r);
  if (r->queue)
    gcg_frame_queue_drain (r->queue);
  g_assert_cmpuint (r->retired, ==, r->submitted);
  g_clear_object (&r->queue);
  g_clear_object (&r->gpus[0]);
  g_clear_object (&r->gpus[1]);
  for (guint i = 0; i < r->n_sets; i++) {
    g_assert_cmpuint (r->sets[i].seq, ==, 0);
    mem_free (r->q, &r->sets[i].in);
    mem_free (r->q, &r->sets[i].out);
    mem_free (r->q, &r->sets[i].upload);
  }
  g_free (r->scratch);
  if (r->outputs)
    g_ptr_array_unref (r->outputs);
  gate_clear (&r->gate);
}

/* The output bytes of @s (downloaded when on the device). */
static const guint8 *
set_output (Set *s)
{
  if (s->out.kind != GCG_MEMORY_KIND_DEVICE)
    return s->out.host;
  /* The frame is done, so the legacy stream may read its result now. */
  g_assert_true (GCG_CU_OK (NULL, cuMemcpyDtoH, s->run->scratch, s->out.dev,
      s->out.size));
  return s->run->scratch;
}

/* Compares the written bytes of @s's output with the CPU reference; for
 * video the row padding is not compared (staging may fill it). */
static void
set_check (Set *s, const gchar *when)
{
  const GcgTestLayout *l = &s->ref->out_layout;
  const guint8 *got = set_output (s), *want = s->ref->want[s->frame];

  for (guint i = 0; i < l->n_planes; i++) {
    for (guint y = 0; y < l->rows[i]; y++) {
      gsize at = l->offset[i] + (gsize) y * l->stride[i];

      /* Not part of the contract: counted, for the test's message. */
      for (gsize x = l->row_bytes[i]; x < (gsize) l->stride[i]; x++)
        s->run->padding_written += got[at + x] != VIDEO_FILL;
      if (memcmp (got + at, want + at, l->row_bytes[i]) == 0)
        continue;
      for (gsize x = 0; x < l->row_bytes[i]; x++) {
        if (got[at + x] != want[at + x])
          g_error ("frame %u (seq %" G_GUINT64_FORMAT ", %s in, %s out, %s): "
                   "plane %u row %u byte %" G_GSIZE_FORMAT ": cuda 0x%02x, cpu "
                   "0x%02x",
              s->frame, s->seq, kind_name (s->in.kind), kind_name (s->out.kind),
              when, i, y, x, got[at + x], want[at + x]);
      }
    }
  }
}

static void
on_done (GcgFrameQueue *queue, guint64 seq, const GError *error,
    gpointer user_data)
{
  Set *s = user_data;
  Run *r = s->run;

  g_assert_true (queue == r->queue);
  g_assert_cmpuint (seq, ==, s->seq);
  g_assert_cmpuint (seq, ==, r->retired + 1);
  r->retired = seq;
  if (r->cancelling) {
    guint8 fill = s->ref->config.output == GCG_OUTPUT_KIND_TENSOR ? TENSOR_FILL
                                                                  : VIDEO_FILL;

    g_assert_error (error, GCG_ERROR, GCG_ERROR_CANCELLED);
    /* A cancelled frame's pageable output is not filled in. */
    if (s->out.kind == GCG_MEMORY_KIND_HOST) {
      for (gsize i = 0; i < s->out.size; i++)
        g_assert_cmphex (s->out.host[i], ==, fill);
    }
    r->cancelled++;
    s->seq = 0;
    return;
  }
  g_assert_no_error (error);
  set_check (s, "in the callback");
  if (r->outputs)
    g_ptr_array_add (r->outputs, g_memdup2 (set_output (s), s->out.size));
  s->seq = 0;
  s->checked = FALSE;
}

/* Puts the next frame's input into a free set's memory of @in_kind and
 * fills its @out_kind output with a pattern the frame must overwrite. */
static Set *
run_prepare (Run *r, GcgMemoryKind in_kind, GcgMemoryKind out_kind)
{
  const Reference *ref = r->ref;
  guint frame = r->next_frame++ % N_FRAMES;
  Set *s = &r->sets[r->prepared++ % r->n_sets];
  guint8 fill = ref->config.output == GCG_OUTPUT_KIND_TENSOR ? TENSOR_FILL
                                                             : VIDEO_FILL;

  /* The frame that used this memory before is retired. */
  g_assert_cmpuint (s->seq, ==, 0);
  s->frame = frame;
  s->ref = ref;
  s->gpu = r->gpu;
  mem_ensure (r->q, &s->in, in_kind, ref->in_layout.size);
  mem_ensure (r->q, &s->out, out_kind, ref->out_layout.size);
  if (in_kind == GCG_MEMORY_KIND_DEVICE) {
    /* From pinned memory: a copy from pageable memory may wait for the
     * stream, which would keep frames from piling up. */
    mem_ensure (r->q, &s->upload, GCG_MEMORY_KIND_HOST_PINNED, s->in.size);
    memcpy (s->upload.host, ref->in[frame], s->in.size);
    g_assert_true (gcg_stream_copy_to_device (r->q->base.stream, s->in.dev,
        s->upload.host, s->in.size, NULL));
  } else
    memcpy (s->in.host, ref->in[frame], s->in.size);
  if (out_kind == GCG_MEMORY_KIND_DEVICE)
    g_assert_true (GCG_CU_OK (NULL, cuMemsetD8Async, s->out.dev, fill,
        s->out.size, gcg__stream_get_cu (r->q->base.stream)));
  else
    memset (s->out.host, fill, s->out.size);
  planes_init (&s->in_planes, &s->in, &ref->in_layout);
  planes_init (&s->out_planes, &s->out, &ref->out_layout);
  return s;
}

static gboolean
run_submit (Run *r, Set *s, GError **error)
{
  GcgFrameParams p;
  guint64 seq = 0;
  guint in_flight;

  frame_params (&p, &s->ref->config, s->frame);
  if (!gcg_frame_queue_submit (r->queue, s->gpu, &p, &s->in_planes,
          &s->out_planes, on_done, s, &seq, error))
    return FALSE;
  g_assert_cmpuint (seq, ==, ++r->submitted);
  s->seq = seq;
  /* A pageable output is written when its frame is retired, not before. */
  if (s->out.kind == GCG_MEMORY_KIND_HOST)
    g_assert_cmphex (s->out.host[0], ==,
        s->ref->config.output == GCG_OUTPUT_KIND_TENSOR ? TENSOR_FILL
                                                        : VIDEO_FILL);
  in_flight = gcg_frame_queue_get_in_flight (r->queue);
  g_assert_cmpuint (in_flight, >=, 1);
  g_assert_cmpuint (in_flight, <=, gcg_frame_queue_get_depth (r->queue));
  r->max_in_flight = MAX (r->max_in_flight, in_flight);
  return TRUE;
}

static Set *
run_one (Run *r, GcgMemoryKind in_kind, GcgMemoryKind out_kind)
{
  g_autoptr (GError) error = NULL;
  Set *s = run_prepare (r, in_kind, out_kind);

  g_assert_true (run_submit (r, s, &error));
  g_assert_no_error (error);
  return s;
}

/* Every 10th frame: pinned and device outputs are right once wait_ready
 * returns, before the frame is retired; and a wait retires a frame with
 * its callback. */
static void
run_sync_points (Run *r, Set *s)
{
  g_autoptr (GError) error = NULL;
  guint64 seq = s->seq;

  /* The frames waited for may be held: a burst ends here. */
  if (seq % 10 == 0 || seq % 10 == 5)
    gate_open (&r->gate);
  if (seq % 10 == 0 && s->out.kind != GCG_MEMORY_KIND_HOST) {
    g_assert_true (gcg_frame_queue_wait_ready (r->queue, seq, &error));
    g_assert_no_error (error);
    if (s->seq == seq) {
      set_check (s, "after wait_ready");
      s->checked = TRUE;
      r->checked_early++;
    }
  }
  if (seq % 10 == 5 && seq > 1) {
    g_assert_true (gcg_frame_queue_wait (r->queue, seq - 1, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (r->retired, >=, seq - 1);
  }
}

/* @n frames; with bursts, the stream is held at every 40th frame from the
 * 20th, so that the queue fills up and slots are waited for. */
static void
run_frames (Run *r, guint n, GcgMemoryKind in_kind, GcgMemoryKind out_kind)
{
  for (guint i = 0; i < n; i++) {
    if (r->bursts && i % 40 == 20)
      run_burst_until_full (r);
    run_sync_points (r, run_one (r, in_kind, out_kind));
  }
  run_burst_end (r);
}

/* --- tests --------------------------------------------------------------- */

typedef struct
{
  gboolean tensor;
  GcgMemoryKind in, out;
} KindCase;

static void
test_kinds (QFixture *q, gconstpointer data)
{
  const KindCase *k = data;
  Run r;

  if (!q->base.ctx)
    return;
  run_init (&r, q, k->tensor, 4);
  r.bursts = TRUE;
  run_frames (&r, N_FRAMES, k->in, k->out);
  gcg_frame_queue_drain (r.queue);
  g_assert_cmpuint (r.retired, ==, N_FRAMES);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (r.queue), ==, 0);
  /* The bursts filled the queue: frames were checked after slot waits. */
  g_assert_cmpuint (r.max_in_flight, ==, 4);
  g_assert_cmpuint (gcg_frame_queue_get_slot_waits (r.queue), >=, 1);
  g_test_message (
      "%s in, %s out, %s: %d frames identical to the CPU, "
      "%u checked after wait_ready, at most %u in flight, %" G_GUINT64_FORMAT
      " slot waits, %" G_GUINT64_FORMAT " row padding "
      "bytes changed",
      kind_name (k->in), kind_name (k->out), k->tensor ? "tensor" : "video",
      N_FRAMES, r.checked_early, r.max_in_flight,
      gcg_frame_queue_get_slot_waits (r.queue), r.padding_written);
  run_clear (&r);
}

/* Input and output kinds changing from frame to frame on one queue: each
 * slot's staging comes and goes with them. */
static void
test_mixed_kinds (QFixture *q, gconstpointer data)
{
  if (!q->base.ctx)
    return;
  for (guint t = 0; t < 2; t++) {
    Run r;

    run_init (&r, q, t == 1, 4);
    for (guint n = 0; n < N_FRAMES; n++) {
      if (n % 40 == 20)
        run_burst_until_full (&r);
      run_sync_points (&r,
          run_one (&r, (GcgMemoryKind) (n % 3),
              (GcgMemoryKind) ((n / 3 + n / 9) % 3)));
    }
    run_burst_end (&r);
    gcg_frame_queue_drain (r.queue);
    g_assert_cmpuint (r.retired, ==, N_FRAMES);
    g_assert_cmpuint (r.max_in_flight, ==, 4);
    run_clear (&r);
  }
}

typedef struct
{
  Set *set;
  guint64 seq;
  gint started;
  gint returned;
  gboolean ok;
  gboolean right;
} Waiter;

static gpointer
waiter_thread (gpointer data)
{
  Waiter *w = data;
  const GcgTestLayout *l = &w->set->ref->out_layout;
  const guint8 *want = w->set->ref->want[w->set->frame];

  g_atomic_int_set (&w->started, 1);
  w->ok = gcg_frame_queue_wait_ready (w->set->run->queue, w->seq, NULL);
  g_atomic_int_set (&w->returned, 1);
  /* Pinned output: readable here, no context needed (a device output is
   * checked by the test's thread). */
  w->right = TRUE;
  for (guint y = 0;
      w->set->out.kind != GCG_MEMORY_KIND_DEVICE && y < l->rows[0]; y++) {
    gsize at = (gsize) y * l->stride[0];

    w->right &= memcmp (w->set->out.host + at, want + at, l->row_bytes[0]) == 0;
  }
  return NULL;
}

/* wait_ready from another thread returns once the frame is done, and its
 * pinned output is right then.  Device in and out (@data): the frame is
 * waited for through its completion mark. */
static void
test_wait_ready_thread (QFixture *q, gconstpointer data)
{
  GcgMemoryKind kind = data ? GCG_MEMORY_KIND_DEVICE
                            : GCG_MEMORY_KIND_HOST_PINNED;
  GcgMemoryKind in = data ? GCG_MEMORY_KIND_DEVICE : GCG_MEMORY_KIND_HOST;
  Waiter w = { 0 };
  GThread *thread;
  Set *s;
  Run r;

  if (!q->base.ctx)
    return;
  run_init (&r, q, FALSE, 4);
  gcg__frame_queue_set_marks (r.queue, TRUE);
  /* A first frame allocates the staging and captures the graph. */
  run_one (&r, in, kind);
  gcg_frame_queue_drain (r.queue);
  gate_close (&r.gate, q->base.stream);
  s = run_one (&r, in, kind);
  g_assert_cmpuint (gcg__frame_queue_get_marked (r.queue), ==, data ? 2 : 0);
  w.set = s;
  w.seq = s->seq;
  thread = g_thread_new ("waiter", waiter_thread, &w);
  /* The waiter runs before the gate opens (a handshake: a waiter that
   * never ran before it cannot pass), then has time to block in
   * wait_ready; behind the closed gate it cannot return meanwhile. */
  while (!g_atomic_int_get (&w.started))
    g_thread_yield ();
  g_usleep (100 * 1000);
  g_assert_cmpint (g_atomic_int_get (&w.returned), ==, 0);
  g_assert_cmpuint (gcg_frame_queue_poll (r.queue), ==, 0);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (r.queue), ==, 1);
  for (gsize i = 0; kind != GCG_MEMORY_KIND_DEVICE && i < s->out.size; i++)
    g_assert_cmphex (s->out.host[i], ==, VIDEO_FILL);
  gate_open (&r.gate);
  g_thread_join (thread);
  g_assert_true (w.ok);
  g_assert_true (w.right);
  if (kind == GCG_MEMORY_KIND_DEVICE)
    set_check (s, "after wait_ready on its mark");
  /* wait_ready retired nothing: the driving thread does. */
  g_assert_cmpuint (r.retired, ==, 1);
  gcg_frame_queue_drain (r.queue);
  g_assert_cmpuint (r.retired, ==, 2);
  run_clear (&r);
}

/* Depth 2, two frames held on the GPU: a third submit waits until the
 * first frame is done, retires it, then queues. */
static void
test_full_queue_waits (QFixture *q, gconstpointer data)
{
  Set *s;
  Run r;

  if (!q->base.ctx)
    return;
  run_init (&r, q, TRUE, 2);
  run_one (&r, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST);
  run_one (&r, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST);
  gcg_frame_queue_drain (r.queue);
  g_assert_cmpuint (gcg_frame_queue_get_slot_waits (r.queue), ==, 0);

  run_burst_until_full (&r);
  run_one (&r, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST);
  run_one (&r, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (r.queue), ==, 2);
  g_assert_cmpuint (gcg_frame_queue_poll (r.queue), ==, 0);
  g_assert_cmpuint (r.retired, ==, 2);
  g_assert_false (gate_is_open (&r.gate));
  s = run_one (&r, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST);
  /* The submit returned only once the GPU was past frame 3, which it
   * retired (frame 4 may be done too, but is not retired yet). */
  g_assert_true (gate_is_open (&r.gate));
  g_assert_cmpuint (r.retired, ==, 3);
  g_assert_cmpuint (s->seq, ==, 5);
  g_assert_cmpuint (gcg_frame_queue_get_slot_waits (r.queue), ==, 1);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (r.queue), ==, 2);
  run_burst_end (&r);
  gcg_frame_queue_drain (r.queue);
  g_assert_cmpuint (r.retired, ==, 5);
  run_clear (&r);
}

/* Depth 1 and depth 4 give the same bytes, frame for frame. */
static void
test_depths (QFixture *q, gconstpointer data)
{
  if (!q->base.ctx)
    return;
  for (guint t = 0; t < 2; t++) {
    Run a, b;

    run_init (&a, q, t == 1, 1);
    run_init (&b, q, t == 1, 4);
    a.outputs = g_ptr_array_new_with_free_func (g_free);
    b.outputs = g_ptr_array_new_with_free_func (g_free);
    run_frames (&a, 60, GCG_MEMORY_KIND_HOST_PINNED, GCG_MEMORY_KIND_HOST);
    run_frames (&b, 60, GCG_MEMORY_KIND_HOST_PINNED, GCG_MEMORY_KIND_HOST);
    gcg_frame_queue_drain (a.queue);
    gcg_frame_queue_drain (b.queue);
    g_assert_cmpuint (a.outputs->len, ==, 60);
    g_assert_cmpuint (b.outputs->len, ==, 60);
    for (guint n = 0; n < 60; n++) {
      const GcgTestLayout *l = &a.ref->out_layout;
      const guint8 *x = g_ptr_array_index (a.outputs, n);
      const guint8 *y = g_ptr_array_index (b.outputs, n);

      for (guint row = 0; row < l->rows[0]; row++) {
        gsize at = (gsize) row * l->stride[0];

        g_assert_cmpmem (x + at, l->row_bytes[0], y + at, l->row_bytes[0]);
      }
    }
    run_clear (&a);
    run_clear (&b);
  }
}

static void
assert_same_stats (const GcgAllocatorStats *a, const GcgAllocatorStats *b)
{
  g_assert_cmpuint (a->allocated_bytes, ==, b->allocated_bytes);
  g_assert_cmpuint (a->allocated_bytes_peak, ==, b->allocated_bytes_peak);
  g_assert_cmpuint (a->reserved_bytes, ==, b->reserved_bytes);
  g_assert_cmpuint (a->reserved_bytes_peak, ==, b->reserved_bytes_peak);
  g_assert_cmpuint (a->segments, ==, b->segments);
  g_assert_cmpuint (a->device_allocs, ==, b->device_allocs);
  g_assert_cmpuint (a->device_frees, ==, b->device_frees);
  g_assert_cmpuint (a->cache_misses, ==, b->cache_misses);
  g_assert_cmpuint (a->oom_count, ==, b->oom_count);
}

/* Staging is allocated by the first frames and then reused: a second run
 * on the same queue allocates nothing; a new queue on the same allocator
 * and pool takes back the same memory. */
static void
test_no_growth (QFixture *q, gconstpointer data)
{
  g_autoptr (GcgAllocatorStats) s1 = NULL;
  g_autoptr (GcgAllocatorStats) s2 = NULL;
  g_autoptr (GcgAllocatorStats) s3 = NULL;
  guint64 pinned1, cached1;
  Run r;

  if (!q->base.ctx)
    return;
  run_init (&r, q, FALSE, 4);
  run_frames (&r, 40, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST);
  gcg_frame_queue_drain (r.queue);
  s1 = gcg_allocator_get_stats (q->alloc);
  pinned1 = gcg_host_pool_get_in_use_bytes (q->pool);
  cached1 = gcg_host_pool_get_cached_bytes (q->pool);
  g_assert_cmpuint (s1->allocated_bytes, >, 0);
  g_assert_cmpuint (pinned1, >, 0);

  run_frames (&r, 40, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST);
  gcg_frame_queue_drain (r.queue);
  s2 = gcg_allocator_get_stats (q->alloc);
  assert_same_stats (s1, s2);
  g_assert_cmpuint (s2->cache_hits, ==, s1->cache_hits);
  g_assert_cmpuint (gcg_host_pool_get_in_use_bytes (q->pool), ==, pinned1);
  g_assert_cmpuint (gcg_host_pool_get_cached_bytes (q->pool), ==, cached1);
  run_clear (&r);

  run_init (&r, q, FALSE, 4);
  run_frames (&r, 40, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST);
  gcg_frame_queue_drain (r.queue);
  s3 = gcg_allocator_get_stats (q->alloc);
  g_assert_cmpuint (s3->allocated_bytes, ==, s1->allocated_bytes);
  g_assert_cmpuint (s3->reserved_bytes, ==, s1->reserved_bytes);
  g_assert_cmpuint (s3->segments, ==, s1->segments);
  g_assert_cmpuint (s3->device_allocs, ==, s1->device_allocs);
  g_assert_cmpuint (s3->oom_count, ==, 0);
  g_assert_cmpuint (gcg_host_pool_get_in_use_bytes (q->pool), ==, pinned1);
  run_clear (&r);
}

/* Caps changes with frames in flight: video and tensor frames (other
 * output sizes, so staging grows) on one queue, with and without a drain
 * between them. */
static void
test_caps_change (QFixture *q, gconstpointer data)
{
  Run r;

  if (!q->base.ctx)
    return;
  run_init (&r, q, FALSE, 4);
  r.bursts = TRUE;
  run_frames (&r, 30, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST);
  /* Held: video frames in flight when the tensor ones come. */
  run_burst_until_full (&r);
  for (guint i = 0; i < 12; i++) {
    run_use (&r, (i / 3) % 2 == 1);
    run_one (&r, GCG_MEMORY_KIND_HOST,
        i % 2 ? GCG_MEMORY_KIND_HOST : GCG_MEMORY_KIND_HOST_PINNED);
  }
  run_burst_end (&r);
  g_assert_cmpuint (r.max_in_flight, ==, 4);
  /* As the elements do it: drain, then the new chain. */
  gcg_frame_queue_drain (r.queue);
  run_use (&r, TRUE);
  run_frames (&r, 30, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST);
  gcg_frame_queue_drain (r.queue);
  run_use (&r, FALSE);
  run_frames (&r, 30, GCG_MEMORY_KIND_DEVICE, GCG_MEMORY_KIND_HOST);
  gcg_frame_queue_drain (r.queue);
  g_assert_cmpuint (r.retired, ==, 102);
  run_clear (&r);
}

/* Flush: cancel with frames held on the GPU waits for them and retires
 * each with CANCELLED, in order; the frames after are right. */
static void
test_cancel (QFixture *q, gconstpointer data)
{
  Run r;

  if (!q->base.ctx)
    return;
  run_init (&r, q, FALSE, 4);
  run_frames (&r, 10, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST);
  gcg_frame_queue_drain (r.queue);
  run_hold (&r);
  for (guint i = 0; i < 4; i++)
    run_one (&r, GCG_MEMORY_KIND_HOST,
        i % 2 ? GCG_MEMORY_KIND_HOST : GCG_MEMORY_KIND_DEVICE);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (r.queue), ==, 4);
  r.cancelling = TRUE;
  run_release_later (&r);
  gcg_frame_queue_cancel (r.queue);
  r.cancelling = FALSE;
  g_assert_cmpuint (r.cancelled, ==, 4);
  g_assert_cmpuint (r.retired, ==, 14);
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (r.queue), ==, 0);
  run_burst_end (&r);
  run_frames (&r, 20, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST);
  gcg_frame_queue_drain (r.queue);
  g_assert_cmpuint (r.retired, ==, 34);
  run_clear (&r);
}

/* Dropping the queue with frames held on the GPU: each is cancelled once
 * the GPU is past it, and all its staging goes back. */
static void
test_dispose (QFixture *q, gconstpointer data)
{
  g_autoptr (GcgAllocatorStats) stats = NULL;
  Run r;

  if (!q->base.ctx)
    return;
  run_init (&r, q, TRUE, 4);
  run_frames (&r, 10, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST);
  g_assert_cmpuint (gcg_host_pool_get_in_use_bytes (q->pool), >, 0);
  gcg_frame_queue_drain (r.queue);
  run_hold (&r);
  for (guint i = 0; i < 3; i++)
    run_one (&r, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST);
  /* None of the three can be done yet, so none was retired. */
  g_assert_cmpuint (gcg_frame_queue_get_in_flight (r.queue), ==, 3);
  r.cancelling = TRUE;
  run_release_later (&r);
  g_object_unref (r.queue);
  r.queue = NULL;
  g_assert_true (gate_is_open (&r.gate));
  g_assert_cmpuint (r.cancelled, ==, 3);
  g_assert_cmpuint (r.retired, ==, 13);
  g_assert_cmpuint (gcg_host_pool_get_in_use_bytes (q->pool), ==, 0);
  stats = gcg_allocator_get_stats (q->alloc);
  g_assert_cmpuint (stats->allocated_bytes, ==, 0);
  run_clear (&r);
}

typedef struct
{
  gboolean tensor;
  GcgMemoryKind in, out;
  const gchar *spec;
  const gchar *call;
} FaultCase;

/* One driver call fails once mid-run: that submit fails with the driver's
 * error and its callback never runs; frames before and after are right. */
static void
test_fault (QFixture *q, gconstpointer data)
{
  const FaultCase *k = data;
  g_autoptr (GError) error = NULL;
  Set *s;
  Run r;

  if (!q->base.ctx)
    return;
  run_init (&r, q, k->tensor, 4);
  run_frames (&r, 17, k->in, k->out);
  /* Three frames held on the GPU when the fault comes. */
  run_burst_start (&r);
  for (guint i = 0; i < 3; i++)
    run_one (&r, k->in, k->out);
  g_assert_true (gcg_fault_inject (k->spec, NULL));
  s = run_prepare (&r, k->in, k->out);
  g_assert_false (run_submit (&r, s, &error));
  g_assert_true (gcg_fault_inject (NULL, NULL));
  g_assert_cmpuint (r.retired, <=, 17);
  g_assert_error (error, GCG_ERROR, GCG_ERROR_DRIVER);
  if (strstr (error->message, k->call) == NULL)
    g_error ("\"%s\" does not name %s", error->message, k->call);
  g_assert_cmpuint (s->seq, ==, 0);
  g_assert_cmpuint (gcg_frame_queue_get_submitted (r.queue), ==, 20);
  /* The next frames, in the same memory too, are right. */
  run_frames (&r, 20, k->in, k->out);
  gcg_frame_queue_drain (r.queue);
  g_assert_cmpuint (r.submitted, ==, 40);
  g_assert_cmpuint (r.retired, ==, 40);
  run_clear (&r);
}

/* --- completion marks ---------------------------------------------------- */

typedef struct
{
  gboolean tensor;
  gboolean use_graph;
  gboolean marks;               /* the queue told to use them */
  GcgSyncMode mode;
  GcgMemoryKind out;
  guint expect;                 /* 0 none, 1 all frames, 2 some */
} MarkCase;

static void
run_marks (Run *r, gboolean use)
{
  gcg__frame_queue_set_marks (r->queue, use);
}

/* 100 frames, device in, with bursts: every output right (the callbacks
 * check them), and as many seen done through the mark as the case says. */
static void
test_marks (QFixture *q, gconstpointer data)
{
  const MarkCase *k = data;
  guint64 marked;
  Run r;

  if (!q->base.ctx)
    return;
  gcg_stream_set_sync_mode (q->base.stream, k->mode);
  run_init (&r, q, k->tensor, 4);
  run_marks (&r, k->marks);
  gcg_frame_chain_set_use_graph (r.gpu, k->use_graph);
  r.bursts = TRUE;
  run_frames (&r, 100, GCG_MEMORY_KIND_DEVICE, k->out);
  gcg_frame_queue_drain (r.queue);
  g_assert_cmpuint (r.retired, ==, 100);
  g_assert_cmpuint (r.max_in_flight, ==, 4);
  marked = gcg__frame_queue_get_marked (r.queue);
  g_test_message ("%" G_GUINT64_FORMAT " of 100 frames seen done by their "
                  "mark, %u checked after wait_ready",
      marked, r.checked_early);
  if (k->expect == 0)
    g_assert_cmpuint (marked, ==, 0);
  else if (k->expect == 1)
    g_assert_cmpuint (marked, ==, 100);
  else
    g_assert_cmpuint (marked, >, 0);
  if (k->expect == 2)
    g_assert_cmpuint (marked, <, 100);
  run_clear (&r);
  gcg_stream_set_sync_mode (q->base.stream, GCG_SYNC_MODE_POLL);
}

/* A device-side wait (the next element's stream) on a marked frame: the
 * first waits on the host (the frame had no event), after which frames
 * record their event too and the wait is queued on the device, the host
 * going on behind the closed gate. */
static void
test_marks_wait_on (QFixture *q, gconstpointer data)
{
  g_autoptr (GcgStream) waiter = NULL;
  g_autoptr (GError) error = NULL;
  Mem copy = { 0 };
  Set *s;
  Run r;

  if (!q->base.ctx)
    return;
  waiter = gcg_stream_new (q->base.ctx, &error);
  g_assert_no_error (error);
  run_init (&r, q, FALSE, 4);
  run_marks (&r, TRUE);
  run_one (&r, GCG_MEMORY_KIND_DEVICE, GCG_MEMORY_KIND_DEVICE);
  gcg_frame_queue_drain (r.queue);
  /* Held for 30 ms: the wait on the host returns once it opens. */
  run_burst_start (&r);
  s = run_one (&r, GCG_MEMORY_KIND_DEVICE, GCG_MEMORY_KIND_DEVICE);
  g_assert_true (gcg_frame_queue_wait_ready_on (r.queue, s->seq, waiter,
      &error));
  g_assert_no_error (error);
  g_assert_true (gate_is_open (&r.gate));
  run_burst_end (&r);
  gcg_frame_queue_drain (r.queue);
  g_assert_cmpuint (r.retired, ==, 2);

  /* Now with an event: queued on the device, the gate still closed. */
  run_hold (&r);
  s = run_one (&r, GCG_MEMORY_KIND_DEVICE, GCG_MEMORY_KIND_DEVICE);
  g_assert_true (gcg_frame_queue_wait_ready_on (r.queue, s->seq, waiter,
      &error));
  g_assert_no_error (error);
  g_assert_false (gate_is_open (&r.gate));
  g_assert_cmpuint (gcg_frame_queue_poll (r.queue), ==, 0);
  /* The frame's output copied on the waiting stream is the frame's (into
   * pinned memory: a copy to pageable memory would hold the host until
   * the gate opens). */
  mem_ensure (q, &copy, GCG_MEMORY_KIND_HOST_PINNED, s->out.size);
  g_assert_true (GCG_CU_OK (NULL, cuMemcpyDtoHAsync, copy.host, s->out.dev,
      s->out.size, gcg__stream_get_cu (waiter)));
  gate_open (&r.gate);
  g_assert_true (gcg_stream_synchronize (waiter, &error));
  g_assert_no_error (error);
  {
    const GcgTestLayout *l = &s->ref->out_layout;
    const guint8 *want = s->ref->want[s->frame];

    for (guint y = 0; y < l->rows[0]; y++) {
      gsize at = (gsize) y * l->stride[0];

      g_assert_cmpmem (copy.host + at, l->row_bytes[0], want + at,
          l->row_bytes[0]);
    }
  }
  mem_free (q, &copy);
  /* All three marked, the last with its event as well. */
  g_assert_cmpuint (gcg__frame_queue_get_marked (r.queue), ==, 3);
  gcg_frame_queue_drain (r.queue);
  g_assert_cmpuint (r.retired, ==, 3);
  run_clear (&r);
}

int
main (int argc, char **argv)
{
  static KindCase kinds[18];
  static const FaultCase faults[] = {
    { FALSE, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST, "cuGraphLaunch:1",
        "cuGraphLaunch" },
    { TRUE, GCG_MEMORY_KIND_DEVICE, GCG_MEMORY_KIND_HOST_PINNED,
        "cuGraphLaunch:1", "cuGraphLaunch" },
    { FALSE, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_HOST, "cuMemcpyHtoDAsync:1",
        "cuMemcpyHtoDAsync" },
    { TRUE, GCG_MEMORY_KIND_HOST_PINNED, GCG_MEMORY_KIND_HOST,
        "cuMemcpyDtoHAsync:1", "cuMemcpyDtoHAsync" },
    { FALSE, GCG_MEMORY_KIND_HOST, GCG_MEMORY_KIND_DEVICE, "cuEventRecord:1",
        "cuEventRecord" },
  };
  static const MarkCase marks[] = {
    { FALSE, TRUE, TRUE, GCG_SYNC_MODE_POLL, GCG_MEMORY_KIND_DEVICE, 1 },
    { FALSE, FALSE, TRUE, GCG_SYNC_MODE_POLL, GCG_MEMORY_KIND_DEVICE, 1 },
    { FALSE, TRUE, TRUE, GCG_SYNC_MODE_DRIVER, GCG_MEMORY_KIND_DEVICE, 1 },
    /* Every other frame has one item of two: zeroed after the chain. */
    { TRUE, TRUE, TRUE, GCG_SYNC_MODE_POLL, GCG_MEMORY_KIND_DEVICE, 2 },
    { FALSE, TRUE, TRUE, GCG_SYNC_MODE_BLOCKING, GCG_MEMORY_KIND_DEVICE, 0 },
    { FALSE, TRUE, TRUE, GCG_SYNC_MODE_POLL, GCG_MEMORY_KIND_HOST_PINNED, 0 },
    { FALSE, TRUE, FALSE, GCG_SYNC_MODE_POLL, GCG_MEMORY_KIND_DEVICE, 0 },
  };
  static const gchar *mark_names[] = { "graph", "eager", "driver-mode",
    "tensor-tail", "blocking", "pinned-out", "events" };
  guint n = 0;
  gint ret;

  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

#define ADD(path, data, fn) \
  g_test_add (path, QFixture, data, qfixture_setup, fn, qfixture_teardown)
  for (guint t = 0; t < 2; t++) {
    for (GcgMemoryKind in = 0; in <= GCG_MEMORY_KIND_DEVICE; in++) {
      for (GcgMemoryKind out = 0; out <= GCG_MEMORY_KIND_DEVICE; out++) {
        g_autofree gchar *path = g_strdup_printf ("/frame-queue/%s/%s-%s",
            t ? "tensor" : "video", kind_name (in), kind_name (out));

        kinds[n] = (KindCase) { t == 1, in, out };
        ADD (path, &kinds[n], test_kinds);
        n++;
      }
    }
  }
  ADD ("/frame-queue/mixed-kinds", NULL, test_mixed_kinds);
  ADD ("/frame-queue/wait-ready-thread", NULL, test_wait_ready_thread);
  ADD ("/frame-queue/full-queue-waits", NULL, test_full_queue_waits);
  ADD ("/frame-queue/depths", NULL, test_depths);
  ADD ("/frame-queue/no-growth", NULL, test_no_growth);
  ADD ("/frame-queue/caps-change", NULL, test_caps_change);
  ADD ("/frame-queue/cancel", NULL, test_cancel);
  ADD ("/frame-queue/dispose", NULL, test_dispose);
  for (guint i = 0; i < G_N_ELEMENTS (faults); i++) {
    g_autofree gchar *path =
        g_strdup_printf ("/frame-queue/fault/%u-%s", i, faults[i].call);

    ADD (path, &faults[i], test_fault);
  }
  for (guint i = 0; i < G_N_ELEMENTS (marks); i++) {
    g_autofree gchar *path =
        g_strdup_printf ("/frame-queue/marks/%s", mark_names[i]);

    ADD (path, &marks[i], test_marks);
  }
  ADD ("/frame-queue/marks/wait-ready-thread", GINT_TO_POINTER (1),
      test_wait_ready_thread);
  ADD ("/frame-queue/marks/wait-on", NULL, test_marks_wait_on);
#undef ADD

  ret = g_test_run ();
  references_free ();
  return ret;
}
