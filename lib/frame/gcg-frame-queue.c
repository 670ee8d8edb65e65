/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgFrameQueue:
 *
 * Keeps up to #GcgFrameQueue:depth frames in flight on one #GcgStream.
 * gcg_frame_queue_submit_frame() queues a frame's copy to the device, the
 * run of its #GcgFrameBatch of one frame (graph replay or eager launch)
 * and its copy back, and returns at once; the GPU works through the
 * frames in order while the caller prepares the next ones.
 *
 * Each slot owns what one frame needs while the GPU works on it: device
 * staging from a #GcgAllocator for host inputs and outputs, pinned staging
 * from a #GcgHostPool for pageable host memory, and a completion event.  A
 * slot is reused only once its frame is done, so none of this is ever
 * rewritten while the GPU may still read it; the engine's parameter ring
 * (deeper than the queue) gives each frame its own parameter slot too.
 *
 * gcg_frame_queue_submit_batch() takes a whole #GcgFrameBatch (one frame
 * from each of many sources into one tensor) through the same trip: one
 * slot, whose staging holds every source's host planes back to back, one
 * replay, one completion event; a batch is retired, waited for and
 * cancelled as a frame is, in the same sequence.
 *
 * Completion is observed per frame: gcg_frame_queue_poll() retires the
 * frames that are done without waiting, gcg_frame_queue_wait() waits for
 * one, and each retired frame's #GcgFrameDoneFunc says the caller may
 * release its memory, or why the frame failed.  gcg_frame_queue_wait_ready()
 * may be called from any thread (a consumer mapping an output buffer): it
 * waits for that frame only and retires nothing.
 *
 * A frame or a batch that ends with its replay (device output, nothing
 * queued after the replay: a batch of several sources' kernel zeroes
 * its unused items itself) is seen done through its stream's completion
 * mark: the replay's last node writes a count into pinned memory that
 * polls and waits read, with no event recorded or queried per frame.  The
 * other frames (a host output copied back, a frame tensor's unused items
 * zeroed after its replay, %GCG_SYNC_MODE_BLOCKING, where a wait sleeps
 * on an event) record an event as before; so do marked frames once a
 * consumer has queued a device-side wait (gcg_frame_queue_wait_ready_on())
 * on this queue, which needs an event.  For benchmarks, the environment
 * variable GCG_COMPLETION=event (read once per process) records an event
 * for every frame, as before marks; GCG_COMPLETION=graph is the default.
 *
 * Without a stream the queue runs the CPU backend: each frame is done when
 * submit returns, with the same callbacks in the same order.  For tests,
 * the environment variable GCG_CPU_COMPLETION_DELAY=N (0 to 1000) makes a
 * CPU frame read as pending until N later frames were submitted or it is
 * waited for, so frames really stay queued as on a GPU.
 *
 * The queue is driven from one thread (submit, poll, wait, drain, cancel);
 * only gcg_frame_queue_wait_ready() and the getters are thread-safe.
 *
 * Since: 0.1
 */
#include "gcg-frame-queue-private.h"
#include "gcg-completion-mark-private.h"
#include "gcg-frame-chain-stage-private.h"
#include "gcg-error.h"
#include "gcg-frame-private.h"
#include "gcg-stream-private.h"

#include <string.h>

typedef struct
{
  guint64 seq;                  /* the frame in the slot; 0 when free */
  GcgFrameDoneFunc done;
  gpointer user_data;
  /* The frame's engine (a #GcgFrameChain, or a #GcgFrameBatch for a
   * batch): its graph and parameter slot may still be read by the device,
   * so the caller may drop it meanwhile. */
  GObject *engine;
  /* Two events: recording a blocking-sync one costs the driver an
   * interrupt, so it is only recorded in GCG_SYNC_MODE_BLOCKING. */
  CUevent plain_event;
  CUevent blocking_event;
  CUevent event;                /* the one recorded for the frame, or NULL */
  GcgSyncMode mode;             /* how to wait for it */
  /* The frame's work ended with its stream's completion mark, which
   * reaches @mark once the frame is done: no event needed for the host.
   * @mark_next is what submit found, published by the record. */
  gboolean marked;
  guint32 mark;
  gboolean mark_next;
  /* Copies overlap the kernels: the input's upload (copy-in stream) is
   * waited for by the kernels (stream), whose end is waited for by the
   * download (copy-out stream). */
  CUevent copied_in;
  CUevent computed;
  gboolean out_on_copy_stream;  /* the frame ends on the copy-out stream */

  /* Staging, grown on demand and kept for the slot's next frames.  A
   * batch's inputs share in_dev (and in_host), back to back in source
   * order, so one block per slot serves up to
   * %GCG_FRAME_BATCH_MAX_SOURCES sources. */
  guint64 in_dev;
  gsize in_dev_size;
  guint64 out_dev;
  gsize out_dev_size;
  guint8 *in_host;
  gsize in_host_size;
  guint8 *out_host;
  gsize out_host_size;

  /* Pageable output: filled from out_host when the frame is retired. */
  gboolean copy_out;
  GcgFramePlanes out;
} Slot;

struct _GcgFrameQueue
{
  GObject parent_instance;

  GcgStream *stream;
  GcgStream *in_stream;         /* uploads of host input */
  GcgStream *out_stream;        /* downloads into host output */
  CUevent order_event;          /* new staging: copies wait for the stream */
  GcgContext *context;
  GcgAllocator *allocator;
  GcgHostPool *host_pool;
  guint depth;
  Slot slots[GCG_FRAME_QUEUE_MAX_DEPTH];

  const GcgCompletionOps *ops;
  gpointer ops_data;

  /* Frames and batches are marked (GCG_COMPLETION): the stream's mark,
   * made on the first frame or batch that can use it. */
  gboolean use_marks;
  GcgCompletionMark *mark;
  /* A consumer asked for a device-side wait (atomic): marked frames
   * record their event too from then on. */
  gint device_waiters;

  /* submitted and retired are written by the driving thread under the
   * lock, and read under it by wait_ready's callers. */
  GMutex lock;
  guint64 submitted;
  guint64 retired;
  guint64 slot_waits;
  guint64 marked;               /* frames seen done by their mark */
  /* Frames a CPU frame lags by: see cpu_query(). */
  guint64 cpu_delay;
  gboolean cancelling;
};

G_DEFINE_FINAL_TYPE (GcgFrameQueue, gcg_frame_queue, G_TYPE_OBJECT)

G_DEFINE_BOXED_TYPE (GcgFramePlanes, gcg_frame_planes, gcg_frame_planes_copy,
    gcg_frame_planes_free)

/**
 * gcg_frame_planes_copy:
 * @planes: a #GcgFramePlanes
 *
 * Copies a #GcgFramePlanes.
 *
 * Returns: (transfer full): a copy of @planes
 *
 * Since: 0.1
 */
GcgFramePlanes *
gcg_frame_planes_copy (const GcgFramePlanes *planes)
{
  return g_memdup2 (planes, sizeof (*planes));
}

/**
 * gcg_frame_planes_free:
 * @planes: a #GcgFramePlanes
 *
 * Frees a copy made by gcg_frame_planes_copy().
 *
 * Since: 0.1
 */
void
gcg_frame_planes_free (GcgFramePlanes *planes)
{
  g_free (planes);
}

/* --- completion: CUDA events, or done at once on the CPU ----------------- */

/* A frame whose work ended with the stream's mark needs no event unless
 * its waits sleep (blocking mode) or a consumer waits on the device. */
static gboolean
event_record (gpointer data, guint slot, GError **error)
{
  GcgFrameQueue *self = data;
  Slot *s = &self->slots[slot];
  GcgSyncMode mode = gcg_stream_get_sync_mode (self->stream);
  CUevent event = mode == GCG_SYNC_MODE_BLOCKING ? s->blocking_event
                                                 : s->plain_event;
  gboolean marked = s->mark_next && mode != GCG_SYNC_MODE_BLOCKING;
  gboolean recorded = !marked || g_atomic_int_get (&self->device_waiters);

  /* gcg_frame_queue_wait_ready() reads them from other threads. */
  g_mutex_lock (&self->lock);
  s->mode = mode;
  s->event = recorded ? event : NULL;
  s->marked = marked;
  s->mark = marked ? gcg__completion_mark_get_issued (self->mark) : 0;
  self->marked += marked ? 1 : 0;
  g_mutex_unlock (&self->lock);
  return !recorded
      || GCG_CU_OK (error, cuEventRecord, event,
          gcg__stream_get_cu (s->out_on_copy_stream ? self->out_stream
                                                    : self->stream));
}

static GcgCompletion
event_query (gpointer data, guint slot, GError **error)
{
  GcgFrameQueue *self = data;
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUresult res;

  /* The driving thread wrote these: no lock.  A failed marked frame
   * reads as pending; its wait reports the failure. */
  if (self->slots[slot].marked)
    return gcg__completion_mark_reached (self->mark, self->slots[slot].mark)
        ? GCG_COMPLETION_DONE
        : GCG_COMPLETION_PENDING;
  if (!gcg__context_guard_enter (&guard, self->context, error))
    return GCG_COMPLETION_FAILED;
  res = GCG_CU (cuEventQuery, self->slots[slot].event);
  if (res == CUDA_ERROR_NOT_READY)
    return GCG_COMPLETION_PENDING;
  if (!gcg__cuda_result (res, "cuEventQuery", error, __FILE__, __LINE__,
          G_STRFUNC))
    return GCG_COMPLETION_FAILED;
  return GCG_COMPLETION_DONE;
}

/* Waits as the stream's sync mode said when the frame was recorded
 * (gcg__event_wait()), on its mark when it has one. */
static gboolean
event_wait (gpointer data, guint slot, GError **error)
{
  GcgFrameQueue *self = data;
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  GcgSyncMode mode;
  CUevent event;
  gboolean marked;
  guint32 mark;

  g_mutex_lock (&self->lock);
  mode = self->slots[slot].mode;
  event = self->slots[slot].event;
  marked = self->slots[slot].marked;
  mark = self->slots[slot].mark;
  g_mutex_unlock (&self->lock);
  if (marked)
    return gcg__completion_mark_wait (self->mark, mark, mode, error);
  if (!gcg__context_guard_enter (&guard, self->context, error))
    return FALSE;
  return gcg__event_wait (event, mode, error);
}

static const GcgCompletionOps event_ops = { event_record, event_query,
  event_wait };

static gboolean
cpu_record (gpointer data, guint slot, GError **error)
{
  return TRUE;
}

/* A CPU frame is done when submit returns; in a test program that sets
 * a delay hook (lib/testing: GCG_CPU_COMPLETION_DELAY=N) it reads as
 * pending until N later frames were submitted or it is waited for, as on
 * a GPU N frames behind, so that the queue's depth, order and slot reuse
 * are exercised without one.  Called from the driving thread only. */
static GcgCompletion
cpu_query (gpointer data, guint slot, GError **error)
{
  GcgFrameQueue *self = data;

  return self->submitted >= self->slots[slot].seq + self->cpu_delay
      ? GCG_COMPLETION_DONE
      : GCG_COMPLETION_PENDING;
}

static gboolean
cpu_wait (gpointer data, guint slot, GError **error)
{
  return TRUE;
}

static const GcgCompletionOps cpu_ops = { cpu_record, cpu_query, cpu_wait };

/* A GcgCpuDelayHook, or NULL (atomic). */
static gpointer cpu_delay_hook;

void
gcg__frame_queue_set_cpu_delay_hook (GcgCpuDelayHook hook)
{
  g_atomic_pointer_set (&cpu_delay_hook, (gpointer) hook);
}

/* Whether frames and batches are marked: GCG_COMPLETION=graph (the
 * default) or event, read once per process (a benchmarking switch). */
static gboolean
marks_wanted (void)
{
  static gsize wanted = 0;

  if (g_once_init_enter (&wanted)) {
    const gchar *env = g_getenv ("GCG_COMPLETION");
    gboolean events = g_strcmp0 (env, "event") == 0;

    if (env != NULL && !events && g_strcmp0 (env, "graph") != 0)
      g_warning ("GCG_COMPLETION=%s: expected event or graph; using graph",
          env);
    g_once_init_leave (&wanted, events ? 1 : 2);
  }
  return wanted == 2;
}

/* The delay a new queue's CPU frames lag by: 0 (done at once) without a
 * hook, and at most 1000 frames whatever the hook says. */
static guint64
cpu_completion_delay (void)
{
  GcgCpuDelayHook hook =
      (GcgCpuDelayHook) g_atomic_pointer_get (&cpu_delay_hook);

  return hook ? MIN (hook (), 1000) : 0;
}

/* --- life cycle ---------------------------------------------------------- */

static void
free_slot_staging (GcgFrameQueue *self, Slot *slot)
{
  if (slot->in_dev)
    gcg_allocator_free (self->allocator, slot->in_dev);
  if (slot->out_dev)
    gcg_allocator_free (self->allocator, slot->out_dev);
  if (slot->in_host)
    gcg_host_pool_release (self->host_pool, slot->in_host, slot->in_host_size,
        NULL);
  if (slot->out_host)
    gcg_host_pool_release (self->host_pool, slot->out_host, slot->out_host_size,
        NULL);
  slot->in_dev = slot->out_dev = 0;
  slot->in_host = slot->out_host = NULL;
  slot->in_dev_size = slot->out_dev_size = 0;
  slot->in_host_size = slot->out_host_size = 0;
}

static void
gcg_frame_queue_dispose (GObject *object)
{
  GcgFrameQueue *self = GCG_FRAME_QUEUE (object);

  /* Frames still queued are given up, but their callbacks still run: that
   * is where their owners release the memory the GPU was using. */
  if (self->ops != NULL)
    gcg_frame_queue_cancel (self);

  G_OBJECT_CLASS (gcg_frame_queue_parent_class)->dispose (object);
}

static void
gcg_frame_queue_finalize (GObject *object)
{
  GcgFrameQueue *self = GCG_FRAME_QUEUE (object);
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  gboolean current = self->context != NULL
      && gcg__context_guard_enter (&guard, self->context, NULL);

  for (guint i = 0; i < self->depth; i++) {
    free_slot_staging (self, &self->slots[i]);
    if (current && self->slots[i].plain_event)
      GCG_CU_WARN (cuEventDestroy, self->slots[i].plain_event);
    if (current && self->slots[i].blocking_event)
      GCG_CU_WARN (cuEventDestroy, self->slots[i].blocking_event);
    if (current && self->slots[i].copied_in)
      GCG_CU_WARN (cuEventDestroy, self->slots[i].copied_in);
    if (current && self->slots[i].computed)
      GCG_CU_WARN (cuEventDestroy, self->slots[i].computed);
  }
  if (current && self->order_event)
    GCG_CU_WARN (cuEventDestroy, self->order_event);
  gcg__context_guard_leave (&guard);
  g_clear_object (&self->in_stream);
  g_clear_object (&self->out_stream);
  g_clear_object (&self->allocator);
  g_clear_object (&self->host_pool);
  g_clear_object (&self->stream);
  g_clear_object (&self->context);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (gcg_frame_queue_parent_class)->finalize (object);
}

static void
gcg_frame_queue_class_init (GcgFrameQueueClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = gcg_frame_queue_dispose;
  G_OBJECT_CLASS (klass)->finalize = gcg_frame_queue_finalize;
}

static void
gcg_frame_queue_init (GcgFrameQueue *self)
{
  g_mutex_init (&self->lock);
}

static gboolean
create_events (GcgFrameQueue *self, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  if (!gcg__context_guard_enter (&guard, self->context, error))
    return FALSE;
  for (guint i = 0; i < self->depth; i++) {
    Slot *s = &self->slots[i];

    if (!GCG_CU_OK (error, cuEventCreate, &s->plain_event,
            CU_EVENT_DISABLE_TIMING)) {
      s->plain_event = NULL;
      return FALSE;
    }
    if (!GCG_CU_OK (error, cuEventCreate, &s->blocking_event,
            CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING)) {
      s->blocking_event = NULL;
      return FALSE;
    }
    if (!GCG_CU_OK (error, cuEventCreate, &s->copied_in,
            CU_EVENT_DISABLE_TIMING)) {
      s->copied_in = NULL;
      return FALSE;
    }
    if (!GCG_CU_OK (error, cuEventCreate, &s->computed,
            CU_EVENT_DISABLE_TIMING)) {
      s->computed = NULL;
      return FALSE;
    }
    s->event = s->plain_event;
    s->mode = GCG_SYNC_MODE_POLL;
  }
  if (!GCG_CU_OK (error, cuEventCreate, &self->order_event,
          CU_EVENT_DISABLE_TIMING)) {
    self->order_event = NULL;
    return FALSE;
  }
  return TRUE;
}

/* The stream's allocator and pinned pool, the caller's or new ones. */
static gboolean
init_cuda (GcgFrameQueue *self, GcgStream *stream, GcgAllocator *allocator,
    GcgHostPool *host_pool, GError **error)
{
  self->stream = g_object_ref (stream);
  self->context = g_object_ref (gcg_stream_get_context (stream));
  if (allocator)
    self->allocator = g_object_ref (allocator);
  else if ((self->allocator = gcg_allocator_new (self->context, error)) == NULL)
    return FALSE;
  self->host_pool = host_pool ? g_object_ref (host_pool)
                              : gcg_host_pool_new (self->context);
  if ((self->in_stream = gcg_stream_new (self->context, error)) == NULL
      || (self->out_stream = gcg_stream_new (self->context, error)) == NULL
      || !create_events (self, error))
    return FALSE;
  self->ops = &event_ops;
  self->ops_data = self;
  self->use_marks = marks_wanted ();
  return TRUE;
}

/**
 * gcg_frame_queue_new:
 * @stream: (nullable): the stream the frames run on; %NULL for the CPU
 *   backend (frames are done when submitted)
 * @allocator: (nullable): device staging comes from it (a new one on
 *   @stream's context when %NULL)
 * @host_pool: (nullable): pinned staging comes from it (a new one when
 *   %NULL)
 * @depth: frames in flight at most, 1 to %GCG_FRAME_QUEUE_MAX_DEPTH
 * @error: return location for a #GError, or %NULL
 *
 * Makes a queue.  @allocator and @host_pool must belong to @stream's
 * context.  Staging is allocated on first use, as frames need it.
 *
 * Returns: (transfer full) (nullable): the queue, or %NULL with @error set
 *
 * Since: 0.1
 */
GcgFrameQueue *
gcg_frame_queue_new (GcgStream *stream, GcgAllocator *allocator,
    GcgHostPool *host_pool, guint depth, GError **error)
{
  g_autoptr (GcgFrameQueue) self = NULL;

  g_return_val_if_fail (stream == NULL || GCG_IS_STREAM (stream), NULL);
  g_return_val_if_fail (allocator == NULL || GCG_IS_ALLOCATOR (allocator),
      NULL);
  g_return_val_if_fail (host_pool == NULL || GCG_IS_HOST_POOL (host_pool),
      NULL);

  if (depth < 1 || depth > GCG_FRAME_QUEUE_MAX_DEPTH) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A frame queue holds 1 to %d frames, not %u", GCG_FRAME_QUEUE_MAX_DEPTH,
        depth);
    return NULL;
  }
  self = g_object_new (GCG_TYPE_FRAME_QUEUE, NULL);
  self->depth = depth;
  if (stream == NULL) {
    self->ops = &cpu_ops;
    self->ops_data = self;
    self->cpu_delay = cpu_completion_delay ();
    return g_steal_pointer (&self);
  }
  if (!init_cuda (self, stream, allocator, host_pool, error))
    return NULL;
  return g_steal_pointer (&self);
}

void
gcg__frame_queue_set_completion (GcgFrameQueue *self,
    const GcgCompletionOps *ops, gpointer data)
{
  g_return_if_fail (GCG_IS_FRAME_QUEUE (self));
  g_return_if_fail (self->submitted == self->retired);
  self->ops = ops;
  self->ops_data = data;
}

void
gcg__frame_queue_set_marks (GcgFrameQueue *self, gboolean use)
{
  g_return_if_fail (GCG_IS_FRAME_QUEUE (self));
  self->use_marks = use && self->stream != NULL;
}

guint64
gcg__frame_queue_get_marked (GcgFrameQueue *self)
{
  guint64 n;

  g_return_val_if_fail (GCG_IS_FRAME_QUEUE (self), 0);
  g_mutex_lock (&self->lock);
  n = self->marked;
  g_mutex_unlock (&self->lock);
  return n;
}

/**
 * gcg_frame_queue_get_depth:
 * @self: a #GcgFrameQueue
 *
 * Gets the number of slots: the most frames the queue keeps in flight.
 *
 * Returns: the most frames the queue keeps in flight
 *
 * Since: 0.1
 */
guint
gcg_frame_queue_get_depth (GcgFrameQueue *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_QUEUE (self), 0);
  return self->depth;
}

/**
 * gcg_frame_queue_get_stream:
 * @self: a #GcgFrameQueue
 *
 * Gets the stream the queue's kernels run on.
 *
 * Returns: (transfer none) (nullable): the stream the frames run on, %NULL
 *   for the CPU backend
 *
 * Since: 0.1
 */
GcgStream *
gcg_frame_queue_get_stream (GcgFrameQueue *self)
{
  g_return_val_if_fail (GCG_IS_FRAME_QUEUE (self), NULL);
  return self->stream;
}

/* --- retiring frames ----------------------------------------------------- */

static Slot *
slot_of (GcgFrameQueue *self, guint64 seq)
{
  return &self->slots[seq % self->depth];
}

static void
copy_out_of_staging (Slot *slot)
{
  const guint8 *src = slot->out_host;

  for (guint i = 0; i < slot->out.n_planes; i++) {
    memcpy ((gpointer) (guintptr) slot->out.data[i], src, slot->out.size[i]);
    src += slot->out.size[i];
  }
}

/* Frees the oldest frame's slot and tells its owner; takes @error. */
static void
retire_oldest (GcgFrameQueue *self, GError *error)
{
  guint64 seq = self->retired + 1;
  Slot *slot = slot_of (self, seq);
  GcgFrameDoneFunc done = slot->done;
  gpointer user_data = slot->user_data;
  g_autoptr (GObject) engine = NULL;

  if (error == NULL && self->cancelling)
    error = g_error_new_literal (GCG_ERROR, GCG_ERROR_CANCELLED,
        "The frame was cancelled");
  if (error == NULL && slot->copy_out)
    copy_out_of_staging (slot);
  g_mutex_lock (&self->lock);
  slot->seq = 0;
  slot->done = NULL;
  slot->user_data = NULL;
  engine = g_steal_pointer (&slot->engine);
  slot->copy_out = FALSE;
  self->retired = seq;
  g_mutex_unlock (&self->lock);
  if (done)
    done (self, seq, error, user_data);
  g_clear_error (&error);
}

/* Observes the oldest frame, waiting for it when @block; FALSE when it is
 * still pending.  Its error (if any) goes to @error. */
static gboolean
oldest_complete (GcgFrameQueue *self, gboolean block, GError **error)
{
  guint index = (guint) ((self->retired + 1) % self->depth);

  switch (self->ops->query (self->ops_data, index, error)) {
    case GCG_COMPLETION_DONE:
    case GCG_COMPLETION_FAILED:
      return TRUE;
    case GCG_COMPLETION_PENDING:
    default:
      if (!block)
        return FALSE;
      (void) self->ops->wait (self->ops_data, index, error);
      return TRUE;
  }
}

/**
 * gcg_frame_queue_poll:
 * @self: a #GcgFrameQueue
 *
 * Retires every frame that is done, oldest first, without waiting; their
 * #GcgFrameDoneFunc run now.
 *
 * Returns: the number of frames retired
 *
 * Since: 0.1
 */
guint
gcg_frame_queue_poll (GcgFrameQueue *self)
{
  guint n = 0;

  g_return_val_if_fail (GCG_IS_FRAME_QUEUE (self), 0);

  while (self->retired < self->submitted) {
    GError *error = NULL;

    if (!oldest_complete (self, FALSE, &error))
      break;
    retire_oldest (self, error);
    n++;
  }
  return n;
}

/**
 * gcg_frame_queue_wait:
 * @self: a #GcgFrameQueue
 * @seq: a frame's sequence number
 * @error: return location for a #GError, or %NULL
 *
 * Waits for frame @seq and retires it and every frame before it (their
 * #GcgFrameDoneFunc run, in order).  A frame retired already returns at
 * once.
 *
 * Returns: %FALSE with @error set when frame @seq itself failed
 *
 * Since: 0.1
 */
gboolean
gcg_frame_queue_wait (GcgFrameQueue *self, guint64 seq, GError **error)
{
  gboolean ok = TRUE;

  g_return_val_if_fail (GCG_IS_FRAME_QUEUE (self), FALSE);

  seq = MIN (seq, self->submitted);
  while (self->retired < seq) {
    GError *frame_error = NULL;
    gboolean last = self->retired + 1 == seq;

    (void) oldest_complete (self, TRUE, &frame_error);
    if (last && frame_error != NULL) {
      g_propagate_error (error, g_error_copy (frame_error));
      ok = FALSE;
    }
    retire_oldest (self, frame_error);
  }
  return ok;
}

/**
 * gcg_frame_queue_drain:
 * @self: a #GcgFrameQueue
 *
 * Waits for every frame in flight and retires them all: at EOS, before a
 * caps change, or before the memory they use goes away.
 *
 * Since: 0.1
 */
void
gcg_frame_queue_drain (GcgFrameQueue *self)
{
  g_return_if_fail (GCG_IS_FRAME_QUEUE (self));
  (void) gcg_frame_queue_wait (self, self->submitted, NULL);
}

/**
 * gcg_frame_queue_cancel:
 * @self: a #GcgFrameQueue
 *
 * Gives up every frame in flight: each is retired with
 * %GCG_ERROR_CANCELLED (or its own error) once the device no longer uses
 * its memory.  Work already queued on the GPU cannot be stopped, so this
 * still waits for it; what is saved is the use of its results (a pageable
 * output is not filled in).
 *
 * Since: 0.1
 */
void
gcg_frame_queue_cancel (GcgFrameQueue *self)
{
  g_return_if_fail (GCG_IS_FRAME_QUEUE (self));
  self->cancelling = TRUE;
  gcg_frame_queue_drain (self);
  self->cancelling = FALSE;
}

/**
 * gcg_frame_queue_wait_ready:
 * @self: a #GcgFrameQueue
 * @seq: a frame's sequence number
 * @error: return location for a #GError, or %NULL
 *
 * Waits until frame @seq is done on the device, from any thread, without
 * retiring anything: for a consumer about to read an output buffer that
 * left before its frame was done.  Frames retired already return at once.
 *
 * Returns: %FALSE with @error set when waiting failed (the frame, or a
 *   frame before it on the stream, failed)
 *
 * Since: 0.1
 */
gboolean
gcg_frame_queue_wait_ready (GcgFrameQueue *self, guint64 seq, GError **error)
{
  gboolean pending;

  g_return_val_if_fail (GCG_IS_FRAME_QUEUE (self), FALSE);

  g_mutex_lock (&self->lock);
  pending = seq > self->retired && seq <= self->submitted;
  g_mutex_unlock (&self->lock);
  /* A slot reused meanwhile holds a later frame: waiting for it waits a
   * little longer, never too little. */
  if (!pending)
    return TRUE;
  return self->ops->wait (self->ops_data, (guint) (seq % self->depth), error);
}

/**
 * gcg_frame_queue_wait_ready_on:
 * @self: a #GcgFrameQueue
 * @seq: a frame's sequence number
 * @waiter: the stream whose next work must come after that frame
 * @error: return location for a #GError, or %NULL
 *
 * Like gcg_frame_queue_wait_ready(), but the wait is queued on @waiter,
 * on the device (cuStreamWaitEvent on the frame's event), and the host
 * goes on at once: for a consumer on another stream that reads an output
 * buffer in stream order, such as the next element of a pipeline.  The
 * CPU backend's frames are done already.  A frame seen done through its
 * stream's completion mark had no event: the first such call waits on
 * the host, and from then on the queue's frames record their event.  A failed frame is not reported
 * here (its element reported it).
 *
 * Returns: %FALSE with @error set when the wait could not be queued
 *
 * Since: 0.2
 */
gboolean
gcg_frame_queue_wait_ready_on (GcgFrameQueue *self, guint64 seq,
    GcgStream *waiter, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  gboolean pending, marked;
  guint32 mark;
  CUevent event;

  g_return_val_if_fail (GCG_IS_FRAME_QUEUE (self), FALSE);
  g_return_val_if_fail (GCG_IS_STREAM (waiter), FALSE);

  g_mutex_lock (&self->lock);
  pending = seq > self->retired && seq <= self->submitted;
  /* A slot reused meanwhile holds a later frame's event: waiting for it
   * waits a little longer, never too little. */
  event = self->slots[seq % self->depth].event;
  marked = self->slots[seq % self->depth].marked;
  mark = self->slots[seq % self->depth].mark;
  g_mutex_unlock (&self->lock);
  if (!pending || (marked && gcg__completion_mark_reached (self->mark, mark)))
    return TRUE;
  /* A frame marked without an event: this one is waited for here, and
   * the next frames record their event for waits like this. */
  if (self->ops == &event_ops && event == NULL)
    g_atomic_int_set (&self->device_waiters, TRUE);
  if (self->ops != &event_ops || event == NULL)
    return self->ops->wait (self->ops_data, (guint) (seq % self->depth), error);
  return gcg__context_guard_enter (&guard, gcg_stream_get_context (waiter),
             error)
      && GCG_CU_OK (error, cuStreamWaitEvent, gcg__stream_get_cu (waiter),
          event, 0);
}

/**
 * gcg_frame_queue_get_in_flight:
 * @self: a #GcgFrameQueue
 *
 * Counts the frames submitted and not yet retired.
 *
 * Returns: frames submitted and not yet retired
 *
 * Since: 0.1
 */
guint
gcg_frame_queue_get_in_flight (GcgFrameQueue *self)
{
  guint n;

  g_return_val_if_fail (GCG_IS_FRAME_QUEUE (self), 0);
  g_mutex_lock (&self->lock);
  n = (guint) (self->submitted - self->retired);
  g_mutex_unlock (&self->lock);
  return n;
}

/**
 * gcg_frame_queue_get_submitted:
 * @self: a #GcgFrameQueue
 *
 * Gets the sequence number of the last frame submitted.
 *
 * Returns: the sequence number of the last frame submitted (0 before the
 *   first)
 *
 * Since: 0.1
 */
guint64
gcg_frame_queue_get_submitted (GcgFrameQueue *self)
{
  guint64 n;

  g_return_val_if_fail (GCG_IS_FRAME_QUEUE (self), 0);
  g_mutex_lock (&self->lock);
  n = self->submitted;
  g_mutex_unlock (&self->lock);
  return n;
}

/**
 * gcg_frame_queue_get_slot_waits:
 * @self: a #GcgFrameQueue
 *
 * Counts the submits that waited for a free slot.
 *
 * Returns: how often a submit had to wait for a slot (the GPU was
 *   #GcgFrameQueue:depth frames behind)
 *
 * Since: 0.1
 */
guint64
gcg_frame_queue_get_slot_waits (GcgFrameQueue *self)
{
  guint64 n;

  g_return_val_if_fail (GCG_IS_FRAME_QUEUE (self), 0);
  g_mutex_lock (&self->lock);
  n = self->slot_waits;
  g_mutex_unlock (&self->lock);
  return n;
}

/* --- submitting a frame -------------------------------------------------- */

static gboolean
planes_valid (const GcgFramePlanes *p, gsize *total, GError **error)
{
  gsize sum = 0;

  if (p->n_planes < 1 || p->n_planes > 3 || p->kind > GCG_MEMORY_KIND_DEVICE) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A frame has 1 to 3 planes of a known memory kind (got %u, kind %d)",
        p->n_planes, (gint) p->kind);
    return FALSE;
  }
  for (guint i = 0; i < p->n_planes; i++) {
    /* catch size_t overflow */
    if (p->data[i] == 0 || !g_size_checked_add (&sum, sum, p->size[i])) {
      g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "Plane %u has no memory or an impossible size", i);
      return FALSE;
    }
  }
  *total = sum;
  return TRUE;
}

/* Bytes plane @i of a @format frame @height rows high reaches with
 * @stride: the kernels and the staging copies touch no more. */
static gsize
plane_extent (GcgPixelFormat format, guint i, guint width, guint height,
    gint stride)
{
  guint rows = gcg__pixel_format_plane_height (format, i, height);

  if (stride <= 0)
    return G_MAXSIZE;
  if (rows == 0)
    return 0;
  return (gsize) (rows - 1) * (gsize) stride
      + gcg__pixel_format_row_bytes (format, i, width);
}

static gboolean
planes_cover (const gchar *what, const GcgFramePlanes *p, GcgPixelFormat format,
    guint width, guint height, GError **error)
{
  guint n = gcg__pixel_format_n_planes (format);

  if (p->n_planes < n) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The %s frame has %u planes, its format %u", what, p->n_planes, n);
    return FALSE;
  }
  for (guint i = 0; i < n; i++) {
    gsize need = plane_extent (format, i, width, height, p->stride[i]);

    if (p->size[i] < need) {
      g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "The %s frame's plane %u holds %" G_GSIZE_FORMAT " bytes, its "
          "rows reach %" G_GSIZE_FORMAT,
          what, i, p->size[i], need);
      return FALSE;
    }
  }
  return TRUE;
}

/* What one frame of a batch of one frame touches, read once per frame. */
typedef struct
{
  GcgFrameChainConfig config;
  gsize tensor_bytes;           /* the whole tensor; 0 for video */
  gboolean model;               /* the output holds a model's outputs */
} ChainShape;

static void
chain_shape (GcgFrameBatch *frame, ChainShape *shape)
{
  (void) gcg_frame_batch_get_frame_config (frame, &shape->config);
  shape->tensor_bytes = shape->config.output == GCG_OUTPUT_KIND_TENSOR
      ? gcg_frame_batch_get_output_size (frame)
      : 0;
  shape->model = gcg_frame_batch_get_model (frame) != NULL;
}

/* Points @ptr/@stride at @p's planes, or at @p's layout packed back to
 * back from @base when @base is not 0 (staging). */
static void
set_addresses (guint64 *ptr, gint *stride, const GcgFramePlanes *p,
    guint64 base)
{
  for (guint i = 0; i < p->n_planes; i++) {
    ptr[i] = base ? base : p->data[i];
    stride[i] = p->stride[i];
    base += base ? p->size[i] : 0;
  }
  for (guint i = p->n_planes; i < 3; i++) {
    ptr[i] = 0;
    stride[i] = 0;
  }
}

static gboolean
grow_device (GcgFrameQueue *self, guint64 *ptr, gsize *have, gsize need,
    gboolean *fresh, GError **error)
{
  if (*have >= need)
    return TRUE;
  if (*ptr)
    gcg_allocator_free (self->allocator, *ptr);
  *ptr = 0;
  *have = 0;
  if (!gcg_allocator_alloc (self->allocator, need, self->stream, ptr, error))
    return FALSE;
  *have = need;
  *fresh = TRUE;
  /* Bytes no kernel writes (a video row's padding past its pixels) are
   * copied out with the rest: zeros, not leftover device memory.  Once
   * per allocation, ordered before the copies by the caller's event. */
  return GCG_CU_OK (error, cuMemsetD8Async, *ptr, 0, need,
      gcg__stream_get_cu (self->stream));
}

static gboolean
grow_host (GcgFrameQueue *self, guint8 **ptr, gsize *have, gsize need,
    GError **error)
{
  if (*have >= need)
    return TRUE;
  if (*ptr)
    gcg_host_pool_release (self->host_pool, *ptr, *have, NULL);
  *ptr = NULL;
  *have = 0;
  if ((*ptr = gcg_host_pool_alloc (self->host_pool, need, error)) == NULL)
    return FALSE;
  *have = need;
  return TRUE;
}

/* What input staging a frame (or a batch's sources) needs: device
 * staging for every plane not on the device, pinned staging for pageable
 * ones; FALSE when the sum overflows. */
static gboolean
add_input_need (const GcgFramePlanes *in, gsize total, gsize *dev, gsize *host)
{
  if (in->kind != GCG_MEMORY_KIND_DEVICE
      && !g_size_checked_add (dev, *dev, total))
    return FALSE;
  return in->kind != GCG_MEMORY_KIND_HOST
      || g_size_checked_add (host, *host, total);
}

/* --- submitting: a frame is a batch of one ------------------------------- */

/* One submission, checked before anything is queued: @n_sources sources
 * (a frame is one), each with its values and input planes, into one
 * output.  Frames and batches take the same trip from here on (upload
 * every source's host planes, run the engine, copy a host output back,
 * complete); only the engine call at its heart differs: a frame's
 * (one source, a video frame or a tensor of its ROIs) or a batch's (a
 * tensor of every source's items). */
typedef struct
{
  GcgFrameBatch *batch;
  gboolean frame;               /* a batch of one frame, its source fixed */
  gboolean tail_after;          /* the engine zeroes a tail after its run */
  guint n_sources;
  const GcgFrameBatchSource *sources;   /* a batch's descriptions */
  GcgFrameParams *params;
  const GcgFramePlanes *in;
  const GcgFramePlanes *out;
  guint *n_items;

  /* Worked out by the checks, once per submission. */
  ChainShape chain_shape;       /* a frame's */
  gsize in_total[GCG_FRAME_BATCH_MAX_SOURCES];
  gsize in_dev;                 /* device staging the inputs need */
  gsize in_host;                /* pinned staging the inputs need */
  gsize out_total;
  gboolean device;              /* some plane is device memory */
} Submission;

/* Source @i's input planes: valid, and holding its rows (a chain's
 * input is its config's, a batch source's its description). */
static gboolean
input_fits (const Submission *sub, guint i, gsize *total, GError **error)
{
  const GcgFrameChainConfig *c = &sub->chain_shape.config;
  const GcgFrameBatchSource *s = sub->frame ? NULL : &sub->sources[i];

  return planes_valid (&sub->in[i], total, error)
      && planes_cover ("input", &sub->in[i], s ? s->format : c->in_format,
          s ? s->width : c->in_width, s ? s->height : c->in_height, error);
}

/* The output holds what the engine writes: a video frame's planes, or
 * one tensor (a batch's in exactly one plane). */
static gboolean
output_fits (const Submission *sub, GError **error)
{
  const GcgFramePlanes *out = sub->out;
  const GcgFrameChainConfig *c = &sub->chain_shape.config;
  gsize need;

  if (!sub->frame) {
    need = gcg_frame_batch_get_output_size (sub->batch);
    if (out->n_planes == 1 && out->size[0] >= need)
      return TRUE;
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A batch's output is one tensor of %" G_GSIZE_FORMAT " bytes (got %u "
        "planes, %" G_GSIZE_FORMAT " bytes)",
        need, out->n_planes, out->size[0]);
    return FALSE;
  }
  if (c->output == GCG_OUTPUT_KIND_VIDEO)
    return planes_cover ("output", out, c->out_format, c->out_width,
        c->out_height, error);
  need = sub->chain_shape.tensor_bytes;
  if (out->size[0] >= need)
    return TRUE;
  g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "The output tensor holds %" G_GSIZE_FORMAT " bytes, the chain "
      "writes %" G_GSIZE_FORMAT,
      out->size[0], need);
  return FALSE;
}

/* Every source's planes, then the output, checked; what staging they
 * need summed.  A batch's errors name the source. */
static gboolean
check_planes (Submission *sub, GError **error)
{
  sub->in_dev = sub->in_host = 0;
  sub->device = FALSE;
  for (guint i = 0; i < sub->n_sources; i++) {
    const GcgFramePlanes *in = &sub->in[i];

    if (!input_fits (sub, i, &sub->in_total[i], error)) {
      if (!sub->frame)
        g_prefix_error (error, "Batch source %u: ", i);
      return FALSE;
    }
    if (!add_input_need (in, sub->in_total[i], &sub->in_dev, &sub->in_host)) {
      g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
          "The batch's inputs have an impossible size");
      return FALSE;
    }
    sub->device |= in->kind == GCG_MEMORY_KIND_DEVICE;
  }
  sub->device |= sub->out->kind == GCG_MEMORY_KIND_DEVICE;
  return planes_valid (sub->out, &sub->out_total, error)
      && output_fits (sub, error);
}

/* The slot's staging: @in_dev/@in_host bytes for the input, and what
 * @out (@out_total bytes) needs.  Device staging is allocated in the
 * order of the kernels' stream: when some was new, the copy streams first
 * wait for that stream (the memory may have been another block's a
 * moment ago). */
static gboolean
ensure_staging (GcgFrameQueue *self, Slot *slot, gsize in_dev, gsize in_host,
    const GcgFramePlanes *out, gsize out_total, GError **error)
{
  gboolean fresh = FALSE;

  if (in_dev > 0
      && !grow_device (self, &slot->in_dev, &slot->in_dev_size, in_dev, &fresh,
          error))
    return FALSE;
  if (out->kind != GCG_MEMORY_KIND_DEVICE
      && !grow_device (self, &slot->out_dev, &slot->out_dev_size, out_total,
          &fresh, error))
    return FALSE;
  if (in_host > 0
      && !grow_host (self, &slot->in_host, &slot->in_host_size, in_host, error))
    return FALSE;
  if (out->kind == GCG_MEMORY_KIND_HOST
      && !grow_host (self, &slot->out_host, &slot->out_host_size, out_total,
          error))
    return FALSE;
  return !fresh
      || (GCG_CU_OK (error, cuEventRecord, self->order_event,
              gcg__stream_get_cu (self->stream))
          && GCG_CU_OK (error, cuStreamWaitEvent,
              gcg__stream_get_cu (self->in_stream), self->order_event, 0)
          && GCG_CU_OK (error, cuStreamWaitEvent,
              gcg__stream_get_cu (self->out_stream), self->order_event, 0));
}

/* Makes @waiter wait for what @first has queued so far. */
static gboolean
stream_after (GcgStream *waiter, GcgStream *first, CUevent event,
    GError **error)
{
  return GCG_CU_OK (error, cuEventRecord, event, gcg__stream_get_cu (first))
      && GCG_CU_OK (error, cuStreamWaitEvent, gcg__stream_get_cu (waiter),
          event, 0);
}

/* Host planes @in (@total bytes) to device staging at @dev, packed back
 * to back, on the copy-in stream: pinned planes by DMA; pageable ones
 * packed into pinned staging at @host first (a CPU copy, but the DMA after
 * it is asynchronous, unlike the driver's own staging of pageable
 * memory). */
static gboolean
upload_planes (GcgFrameQueue *self, const GcgFramePlanes *in, guint64 dev,
    guint8 *host, gsize total, GError **error)
{
  guint8 *dst = host;

  if (in->kind == GCG_MEMORY_KIND_HOST) {
    for (guint i = 0; i < in->n_planes; i++) {
      memcpy (dst, (gconstpointer) (guintptr) in->data[i], in->size[i]);
      dst += in->size[i];
    }
    return gcg_stream_copy_to_device (self->in_stream, dev, host, total, error);
  }
  for (guint i = 0; i < in->n_planes; i++) {
    if (!gcg_stream_copy_to_device (self->in_stream, dev,
            (gconstpointer) (guintptr) in->data[i], in->size[i], error))
      return FALSE;
    dev += in->size[i];
  }
  return TRUE;
}

/* Every source's host planes into the slot's input staging, back to back
 * in source order, each source's input addresses set in its values (the
 * planes themselves for device memory, and on the CPU backend); the
 * kernels' stream waits for the uploads. */
static gboolean
upload_inputs (GcgFrameQueue *self, Slot *slot, const Submission *sub,
    GError **error)
{
  gsize dev = 0, host = 0;

  for (guint i = 0; i < sub->n_sources; i++) {
    const GcgFramePlanes *p = &sub->in[i];
    GcgFrameParams *params = &sub->params[i];

    if (self->stream == NULL || p->kind == GCG_MEMORY_KIND_DEVICE) {
      set_addresses (params->src, params->src_stride, p, 0);
      continue;
    }
    set_addresses (params->src, params->src_stride, p, slot->in_dev + dev);
    /* No pinned staging when no source is pageable. */
    if (!upload_planes (self, p, slot->in_dev + dev,
            slot->in_host ? slot->in_host + host : NULL, sub->in_total[i],
            error))
      return FALSE;
    dev += sub->in_total[i];
    host += p->kind == GCG_MEMORY_KIND_HOST ? sub->in_total[i] : 0;
  }
  return self->stream == NULL || sub->in_dev == 0
      || stream_after (self->stream, self->in_stream, slot->copied_in, error);
}

/* Device staging back to host output on the copy-out stream, once the
 * kernels are done, so that it overlaps the next frame's: pinned planes by
 * DMA, pageable ones into pinned staging, copied out when the frame is
 * retired.  The frame then ends on the copy-out stream. */
static gboolean
download_output (GcgFrameQueue *self, Slot *slot, const guint64 *dst,
    const GcgFramePlanes *out, gsize out_total, GError **error)
{
  slot->out_on_copy_stream = out->kind != GCG_MEMORY_KIND_DEVICE;
  if (!slot->out_on_copy_stream)
    return TRUE;
  slot->mark_next = FALSE;
  if (!stream_after (self->out_stream, self->stream, slot->computed, error))
    return FALSE;
  if (out->kind == GCG_MEMORY_KIND_HOST) {
    slot->copy_out = TRUE;
    slot->out = *out;
    return gcg_stream_copy_to_host (self->out_stream, slot->out_host,
        slot->out_dev, out_total, error);
  }
  for (guint i = 0; i < out->n_planes; i++) {
    if (!gcg_stream_copy_to_host (self->out_stream,
            (gpointer) (guintptr) out->data[i], dst[i], out->size[i], error))
      return FALSE;
  }
  return TRUE;
}

/* Bytes of a tensor's output the frame's items do not cover: a reused
 * output buffer must not show an earlier frame's items.  0 for video. */
static gsize
unused_tail (const ChainShape *shape, const GcgFrameParams *params,
    gsize *offset)
{
  guint used = MAX (params->n_rois, 1);

  /* A model's unused input items are zeroed by the chain itself. */
  if (shape->tensor_bytes == 0 || shape->model
      || used >= shape->config.max_rois)
    return 0;
  *offset = shape->tensor_bytes / shape->config.max_rois * used;
  return shape->tensor_bytes - *offset;
}

/* A chain's tensor items past the frame's ROIs zeroed (a batch's kernel
 * writes its own), on the device or, on the CPU backend, by the host.  The
 * chain's mark is then no longer the frame's last work: @marked cleared. */
static gboolean
zero_tail (GcgFrameQueue *self, const ChainShape *shape,
    const GcgFrameParams *params, gboolean *marked, GError **error)
{
  gsize offset = 0, n = unused_tail (shape, params, &offset);

  if (n == 0)
    return TRUE;
  if (self->stream == NULL) {
    memset ((guint8 *) (guintptr) params->dst[0] + offset, 0, n);
    return TRUE;
  }
  *marked = FALSE;
  return GCG_CU_OK (error, cuMemsetD8Async, params->dst[0] + offset, 0, n,
      gcg__stream_get_cu (self->stream));
}

/* Whether @sub gets the stream's mark: a chain's frame or a batch into
 * device memory (a host output ends on the copy stream, after the mark),
 * on a queue that marks them.  The mark is made on the first such frame, so
 * that the graphs of queues that never use it carry no mark node (on
 * failure, the queue goes on with events). */
static gboolean
mark_wanted (GcgFrameQueue *self, const Submission *sub)
{
  g_autoptr (GError) error = NULL;

  if (!self->use_marks || sub->tail_after
      || sub->out->kind != GCG_MEMORY_KIND_DEVICE)
    return FALSE;
  if (self->mark == NULL
      && (self->mark = gcg__completion_mark_ensure (self->stream, &error))
          == NULL) {
    g_debug ("No completion mark, events instead: %s", error->message);
    self->use_marks = FALSE;
  }
  return self->mark != NULL;
}

/* The engine writes the output at @dst (the output's planes, or their
 * device staging): a chain takes it in its values, a batch as the
 * tensor's address.  @marked says whether the run ended with the
 * stream's mark and nothing came after it (a batch's replay writes its
 * whole tensor: it is the batch's last work). */
static gboolean
run_engine (GcgFrameQueue *self, Submission *sub, const guint64 *dst,
    const gint *dst_stride, gboolean *marked, GError **error)
{
  GcgFrameParams *params = sub->params;
  gboolean want = self->stream != NULL && mark_wanted (self, sub);
  guint32 before = want ? gcg__completion_mark_get_issued (self->mark) : 0;
  gboolean ok;

  *marked = FALSE;
  if (!sub->frame) {
    ok = gcg_frame_batch_process (sub->batch, sub->n_sources, sub->sources,
        params, dst[0], self->stream, sub->n_items, error);
  } else {
    memcpy (params->dst, dst, sizeof (params->dst));
    memcpy (params->dst_stride, dst_stride, sizeof (params->dst_stride));
    ok =
        gcg_frame_batch_process_frame (sub->batch, params, self->stream, error);
  }
  if (!ok)
    return FALSE;
  /* A graph captured before the stream had its mark carries none. */
  *marked = want && gcg__completion_mark_get_issued (self->mark) == before + 1;
  return !sub->frame
      || zero_tail (self, &sub->chain_shape, params, marked, error);
}

/* A frame failed while being queued.  Copies queued before the failure
 * may still read or write the caller's memory, which is theirs again once
 * we return: wait for them (a sticky error fails this too; there is
 * nothing more to do then).  Returns FALSE. */
static gboolean
abandon_cuda (GcgFrameQueue *self, Slot *slot)
{
  slot->copy_out = FALSE;
  (void) gcg_stream_synchronize (self->in_stream, NULL);
  (void) gcg_stream_synchronize (self->stream, NULL);
  (void) gcg_stream_synchronize (self->out_stream, NULL);
  return FALSE;
}

/* The one trip of a frame or a batch in @slot: inputs uploaded, the engine
 * run, a host output copied back, the completion recorded.  The CPU
 * backend runs on the caller's memory, done when this returns. */
static gboolean
submit_work (GcgFrameQueue *self, Slot *slot, Submission *sub, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  guint index = (guint) (slot - self->slots);
  guint64 dst[3];
  gint dst_stride[3];

  slot->mark_next = FALSE;
  if (self->stream == NULL) {
    set_addresses (dst, dst_stride, sub->out, 0);
    return upload_inputs (self, slot, sub, error)
        && run_engine (self, sub, dst, dst_stride, &slot->mark_next, error)
        && self->ops->record (self->ops_data, index, error);
  }
  if (!gcg__context_guard_enter (&guard, self->context, error)
      || !ensure_staging (self, slot, sub->in_dev, sub->in_host, sub->out,
          sub->out_total, error))
    return FALSE;
  set_addresses (dst, dst_stride, sub->out,
      sub->out->kind == GCG_MEMORY_KIND_DEVICE ? 0 : slot->out_dev);
  if (upload_inputs (self, slot, sub, error)
      && run_engine (self, sub, dst, dst_stride, &slot->mark_next, error)
      && download_output (self, slot, dst, sub->out, sub->out_total, error)
      && self->ops->record (self->ops_data, index, error))
    return TRUE;
  return abandon_cuda (self, slot);
}

/* The slot of the next frame, free: waits for the frame #depth earlier
 * when the GPU is that far behind. */
static Slot *
next_free_slot (GcgFrameQueue *self)
{
  Slot *slot = slot_of (self, self->submitted + 1);

  if (slot->seq != 0) {
    g_mutex_lock (&self->lock);
    self->slot_waits++;
    g_mutex_unlock (&self->lock);
    (void) gcg_frame_queue_wait (self, slot->seq, NULL);
  }
  return slot;
}

/* The work queued for @slot is the next frame: it now waits to be
 * retired.  The CPU backend is done already: retired at once, as a GPU
 * would soon. */
static void
occupy_slot (GcgFrameQueue *self, Slot *slot, GObject *engine,
    GcgFrameDoneFunc done, gpointer user_data, guint64 *seq)
{
  g_mutex_lock (&self->lock);
  slot->seq = ++self->submitted;
  slot->done = done;
  slot->user_data = user_data;
  slot->engine = g_object_ref (engine);
  g_mutex_unlock (&self->lock);
  if (seq)
    *seq = slot->seq;
  if (self->stream == NULL)
    gcg_frame_queue_poll (self);
}

/* The queue runs @backend's engines, and the CPU backend host memory. */
static gboolean
backend_fits (GcgFrameQueue *self, GcgBackend backend, gboolean device,
    GError **error)
{
  if ((self->stream != NULL) != (backend == GCG_BACKEND_CUDA)) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The engine's backend does not match the queue's (CUDA needs a "
        "stream, the CPU none)");
    return FALSE;
  }
  if (self->stream == NULL && device) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "The CPU backend reads and writes host memory only");
    return FALSE;
  }
  return TRUE;
}

/* Checks @sub and queues it in the next free slot; what both public
 * submits come down to. */
static gboolean
submit (GcgFrameQueue *self, GObject *engine, GcgBackend backend,
    Submission *sub, GcgFrameDoneFunc done, gpointer user_data, guint64 *seq,
    GError **error)
{
  Slot *slot;

  if (!check_planes (sub, error)
      || !backend_fits (self, backend, sub->device, error))
    return FALSE;
  gcg_frame_queue_poll (self);
  slot = next_free_slot (self);
  if (!submit_work (self, slot, sub, error))
    return FALSE;
  occupy_slot (self, slot, engine, done, user_data, seq);
  return TRUE;
}

/* Queues one frame of @frame, a batch of one frame; @owner (@frame or the
 * chain around it) is kept until the frame is retired. */
static gboolean
submit_frame (GcgFrameQueue *self, GObject *owner, GcgFrameBatch *frame,
    GcgFrameParams *params, const GcgFramePlanes *in, const GcgFramePlanes *out,
    GcgFrameDoneFunc done, gpointer user_data, guint64 *seq, GError **error)
{
  Submission sub = { 0 };

  sub.batch = frame;
  sub.frame = TRUE;
  sub.n_sources = 1;
  sub.params = params;
  sub.in = in;
  sub.out = out;
  chain_shape (frame, &sub.chain_shape);
  return submit (self, owner, gcg_frame_batch_get_backend (frame), &sub, done,
      user_data, seq, error);
}

/**
 * gcg_frame_queue_submit_frame:
 * @self: a #GcgFrameQueue
 * @frame: a batch of one frame (gcg_frame_batch_new_for_frame()), its
 *   backend the queue's: CUDA with a stream, CPU without
 * @params: (inout): the frame's values; the queue fills in the plane
 *   addresses and strides (@src, @dst and their strides)
 * @in: the input planes
 * @out: the output planes (video) or the tensor (one plane)
 * @done: (scope async) (closure user_data): called once when the frame is
 *   retired
 * @user_data: data for @done
 * @seq: (out) (optional): the frame's sequence number (1, 2, ...)
 * @error: return location for a #GError, or %NULL
 *
 * Queues one frame and returns without waiting for it, unless all slots
 * are busy (then it waits for the oldest frame first).  Frames that are
 * done are retired first, so @done callbacks of earlier frames may run
 * inside this call.  Memory in @in and @out must stay valid until @done
 * runs.  A %GCG_MEMORY_KIND_HOST output is written when the frame is
 * retired; %GCG_MEMORY_KIND_HOST_PINNED and %GCG_MEMORY_KIND_DEVICE
 * outputs are written by the device (gcg_frame_queue_wait_ready() waits
 * for them).  Tensor items past the frame's ROI count are zeroed.
 * The queue keeps a reference to @frame until the frame is retired, so
 * the caller may drop it while the device still runs it.
 *
 * Returns: %TRUE when the frame was queued.  On %FALSE (@error set)
 *   nothing of the frame is still running and @done is never called.
 *
 * Since: 0.3
 */
gboolean
gcg_frame_queue_submit_frame (GcgFrameQueue *self, GcgFrameBatch *frame,
    GcgFrameParams *params, const GcgFramePlanes *in, const GcgFramePlanes *out,
    GcgFrameDoneFunc done, gpointer user_data, guint64 *seq, GError **error)
{
  GcgFrameChainConfig config;

  g_return_val_if_fail (GCG_IS_FRAME_QUEUE (self), FALSE);
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (frame), FALSE);
  g_return_val_if_fail (params != NULL && in != NULL && out != NULL, FALSE);

  if (!gcg_frame_batch_get_frame_config (frame, &config)) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A batch of several sources is queued with "
        "gcg_frame_queue_submit_batch()");
    return FALSE;
  }
  return submit_frame (self, G_OBJECT (frame), frame, params, in, out, done,
      user_data, seq, error);
}

/**
 * gcg_frame_queue_submit:
 * @self: a #GcgFrameQueue
 * @chain: the chain to run (its backend must match the queue's: CUDA with
 *   a stream, CPU without)
 * @params: (inout): the frame's values; the queue fills in the plane
 *   addresses and strides (@src, @dst and their strides)
 * @in: the input planes
 * @out: the output planes (video) or the tensor (one plane)
 * @done: (scope async) (closure user_data): called once when the frame is
 *   retired
 * @user_data: data for @done
 * @seq: (out) (optional): the frame's sequence number (1, 2, ...)
 * @error: return location for a #GError, or %NULL
 *
 * As gcg_frame_queue_submit_frame() with @chain's engine.
 *
 * Returns: %TRUE when the frame was queued.  On %FALSE (@error set)
 *   nothing of the frame is still running and @done is never called.
 *
 * Since: 0.1
 * Deprecated: 0.3: Use gcg_frame_queue_submit_frame() instead.
 */
gboolean
gcg_frame_queue_submit (GcgFrameQueue *self, GcgFrameChain *chain,
    GcgFrameParams *params, const GcgFramePlanes *in, const GcgFramePlanes *out,
    GcgFrameDoneFunc done, gpointer user_data, guint64 *seq, GError **error)
{
  g_return_val_if_fail (GCG_IS_FRAME_QUEUE (self), FALSE);
  g_return_val_if_fail (GCG_IS_FRAME_CHAIN (chain), FALSE);
  g_return_val_if_fail (params != NULL && in != NULL && out != NULL, FALSE);

  return submit_frame (self, G_OBJECT (chain),
      gcg__frame_chain_get_batch (chain), params, in, out, done, user_data, seq,
      error);
}

/* The arguments a caller may get wrong at run time, as a #GError. */
static gboolean
check_batch_args (GcgFrameBatch *batch, guint n_sources,
    const GcgFrameBatchSource *sources, const GcgFrameParams *params,
    const GcgFramePlanes *in, const GcgFramePlanes *out, GError **error)
{
  GcgFrameBatchConfig config;

  gcg_frame_batch_get_config (batch, &config);
  if (n_sources < 1 || n_sources > config.max_sources) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A batch of %u sources; this one holds 1 to %u", n_sources,
        config.max_sources);
    return FALSE;
  }
  if (sources == NULL || params == NULL || in == NULL || out == NULL) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A batch needs its sources, their values and planes, and an output");
    return FALSE;
  }
  return TRUE;
}

/**
 * gcg_frame_queue_submit_batch:
 * @self: a #GcgFrameQueue
 * @batch: the batch engine to run (its backend must match the queue's:
 *   CUDA with a stream, CPU without)
 * @n_sources: how many sources the batch holds (1 to the engine's
 *   max_sources, at most %GCG_FRAME_BATCH_MAX_SOURCES)
 * @sources: (array length=n_sources) (nullable): each source's video
 *   description
 * @params: (array length=n_sources) (inout) (nullable): each source's
 *   values, as for gcg_frame_batch_process(); the queue fills in the
 *   source plane addresses and strides
 * @in: (array length=n_sources) (nullable): each source's input planes,
 *   each of any #GcgMemoryKind
 * @out: (nullable): the output tensor (one plane, at least
 *   gcg_frame_batch_get_output_size() bytes)
 * @done: (scope async) (closure user_data): called once when the batch is
 *   retired
 * @user_data: data for @done
 * @n_items: (out) (optional): the number of items written
 * @seq: (out) (optional): the batch's sequence number, in the same
 *   sequence as the queue's frames
 * @error: return location for a #GError, or %NULL
 *
 * Queues one batch as gcg_frame_queue_submit_frame() queues one frame: host
 * inputs are staged to the device (the slot's staging holds every source,
 * grown on demand and kept for the slot's next batches), the batch is run
 * (one graph replay, see gcg_frame_batch_process()), a host output is
 * copied back, and the batch is complete when its #GcgFrameDoneFunc runs.
 * It takes a slot of the queue like a frame: poll, wait, wait_ready,
 * drain and cancel treat it as one.  Memory in @in and @out must stay
 * valid until @done runs.  The queue keeps a reference to @batch until
 * the batch is retired.
 *
 * Returns: %TRUE when the batch was queued.  On %FALSE (@error set:
 *   %GCG_ERROR_INVALID_ARGUMENT for sources, planes or an output that do
 *   not fit) nothing of the batch is still running and @done is never
 *   called.
 *
 * Since: 0.2
 */
gboolean
gcg_frame_queue_submit_batch (GcgFrameQueue *self, GcgFrameBatch *batch,
    guint n_sources, const GcgFrameBatchSource *sources, GcgFrameParams *params,
    const GcgFramePlanes *in, const GcgFramePlanes *out, GcgFrameDoneFunc done,
    gpointer user_data, guint *n_items, guint64 *seq, GError **error)
{
  Submission sub;
  GcgFrameChainConfig frame_config;

  g_return_val_if_fail (GCG_IS_FRAME_QUEUE (self), FALSE);
  g_return_val_if_fail (GCG_IS_FRAME_BATCH (batch), FALSE);

  if (!check_batch_args (batch, n_sources, sources, params, in, out, error))
    return FALSE;
  sub.batch = batch;
  sub.frame = FALSE;
  /* A batch of one frame queued as a batch zeroes its tail after its
   * replay (gcg_frame_batch_process()): never marked. */
  sub.tail_after = gcg_frame_batch_get_frame_config (batch, &frame_config);
  sub.n_sources = n_sources;
  sub.sources = sources;
  sub.params = params;
  sub.in = in;
  sub.out = out;
  sub.n_items = n_items;
  return submit (self, G_OBJECT (batch), gcg_frame_batch_get_backend (batch),
      &sub, done, user_data, seq, error);
}
