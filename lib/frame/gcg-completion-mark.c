/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The mark rides on its stream as qdata: graphs captured on the stream
 * hold the mark's addresses, and the stream outlives them (each replay
 * keeps a reference on its streams and drops its graphs first), so the
 * memory is freed with the stream, never under a graph still replayed.
 *
 * The word is read with an atomic load; the kernel fences (system scope)
 * before writing it, so what the run wrote before it (the output in
 * device memory, a postprocess's results in pinned memory) is visible to
 * whoever sees the word.  A run that fails never writes the word: waits
 * ask the driver for the context's error now and then (a query of an
 * event recorded at creation reports the context's sticky error), so a
 * failed frame fails its wait instead of hanging it.
 */
#include "gcg-completion-mark-private.h"
#include "gcg-stream-private.h"

/* How long a wait spins on the word before it sleeps (poll mode). */
#define SPIN_US 10
/* Poll mode's sleep between looks, as gcg__event_wait()'s. */
#define POLL_STEP_US 20
/* Driver mode spins only: the context's error is asked for every so many
 * looks. */
#define DRIVER_LOOKS 4096

struct _GcgCompletionMark
{
  GcgContext *context;
  CUfunction kernel;
  CUdeviceptr counter;          /* device: runs finished */
  guint32 *word;                /* pinned: the last count written */
  CUevent probe;
  /* Runs queued with the mark, counted by the thread that drives the
   * stream (the device's counter started from 0 before the first). */
  guint32 issued;
};

static GQuark
mark_quark (void)
{
  static gsize quark = 0;

  if (g_once_init_enter (&quark))
    g_once_init_leave (&quark,
        g_quark_from_static_string ("gcg-completion-mark"));
  return (GQuark) quark;
}

static void
mark_free (gpointer data)
{
  GcgCompletionMark *self = data;
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  if (gcg__context_guard_enter (&guard, self->context, NULL)) {
    if (self->probe)
      GCG_CU_WARN (cuEventDestroy, self->probe);
    if (self->counter)
      GCG_CU_WARN (cuMemFree, self->counter);
    if (self->word)
      GCG_CU_WARN (cuMemFreeHost, self->word);
  }
  gcg__context_guard_leave (&guard);
  g_clear_object (&self->context);
  g_free (self);
}

/* The counter zeroed in @stream's order, before any mark on it. */
static GcgCompletionMark *
mark_new (GcgStream *stream, GError **error)
{
  GcgCompletionMark *self = g_new0 (GcgCompletionMark, 1);
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUstream cu = gcg__stream_get_cu (stream);
  gboolean ok;

  self->context = g_object_ref (gcg_stream_get_context (stream));
  ok = gcg__context_guard_enter (&guard, self->context, error)
      && (self->kernel = gcg__context_get_function (self->context,
              "gcg_completion_mark", error))
          != NULL
      && GCG_CU_OK (error, cuMemAlloc, &self->counter, sizeof (guint32))
      && GCG_CU_OK (error, cuMemHostAlloc, (void **) &self->word, 64,
          CU_MEMHOSTALLOC_PORTABLE)
      && GCG_CU_OK (error, cuMemsetD32Async, self->counter, 0, 1, cu)
      && GCG_CU_OK (error, cuEventCreate, &self->probe, CU_EVENT_DISABLE_TIMING)
      && GCG_CU_OK (error, cuEventRecord, self->probe, cu);
  gcg__context_guard_leave (&guard);
  if (!ok) {
    mark_free (self);
    return NULL;
  }
  g_atomic_int_set ((gint *) self->word, 0);
  return self;
}

/* Serialises the first use on a stream (two queues may share one). */
static GMutex attach_lock;

/* The mark of @stream, made on first use.  Only graphs captured on the
 * stream from then on carry it. */
GcgCompletionMark *
gcg__completion_mark_ensure (GcgStream *stream, GError **error)
{
  GcgCompletionMark *self;

  g_mutex_lock (&attach_lock);
  self = g_object_get_qdata (G_OBJECT (stream), mark_quark ());
  if (self == NULL && (self = mark_new (stream, error)) != NULL)
    g_object_set_qdata_full (G_OBJECT (stream), mark_quark (), self, mark_free);
  g_mutex_unlock (&attach_lock);
  return self;
}

/* @stream's mark, or NULL when nothing asked for one. */
GcgCompletionMark *
gcg__completion_mark_peek (GcgStream *stream)
{
  return g_object_get_qdata (G_OBJECT (stream), mark_quark ());
}

/* Queues the mark on @stream (its own; during a capture, a node).  The
 * caller counts it with gcg__completion_mark_issued() once the run that
 * holds it was queued. */
gboolean
gcg__completion_mark_launch (GcgCompletionMark *self, GcgStream *stream,
    GError **error)
{
  CUdeviceptr word = (CUdeviceptr) (guintptr) self->word;
  void *args[] = { &self->counter, &word };

  /* Under unified addressing (every 64-bit platform) the pinned block's
   * host pointer is its device address. */
  return GCG_CU_OK (error, cuLaunchKernel, self->kernel, 1, 1, 1, 1, 1, 1, 0,
      gcg__stream_get_cu (stream), args, NULL);
}

void
gcg__completion_mark_issued (GcgCompletionMark *self)
{
  self->issued++;
}

/* The count the word reaches once every run queued so far is done. */
guint32
gcg__completion_mark_get_issued (const GcgCompletionMark *self)
{
  return self->issued;
}

/* Whether the word reached @count (cyclic: counts wrap). */
gboolean
gcg__completion_mark_reached (const GcgCompletionMark *self, guint32 count)
{
  guint32 now = (guint32) g_atomic_int_get ((gint *) self->word);

  return (gint32) (now - count) >= 0;
}

/* FALSE (error set) when the context has failed. */
static gboolean
context_healthy (GcgCompletionMark *self, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUresult res;

  if (!gcg__context_guard_enter (&guard, self->context, error))
    return FALSE;
  res = GCG_CU (cuEventQuery, self->probe);
  return res == CUDA_ERROR_NOT_READY
      || gcg__cuda_result (res, "cuEventQuery", error, __FILE__, __LINE__,
          G_STRFUNC);
}

/* Spins on the word (driver mode: only spins; poll mode: for SPIN_US),
 * then sleeps between looks; FALSE (error set) when the context failed. */
gboolean
gcg__completion_mark_wait (GcgCompletionMark *self, guint32 count,
    GcgSyncMode mode, GError **error)
{
  gint64 spin_end = g_get_monotonic_time () + SPIN_US;

  for (guint looks = 1;; looks++) {
    if (gcg__completion_mark_reached (self, count))
      return TRUE;
    if (looks % DRIVER_LOOKS == 0 && !context_healthy (self, error))
      return FALSE;
    if (mode != GCG_SYNC_MODE_DRIVER && looks % 64 == 0
        && g_get_monotonic_time () >= spin_end)
      break;
  }
  for (;;) {
    if (gcg__completion_mark_reached (self, count))
      return TRUE;
    if (!context_healthy (self, error))
      return FALSE;
    g_usleep (POLL_STEP_US);
  }
}
