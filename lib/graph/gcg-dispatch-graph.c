/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgDispatchGraph:
 *
 * A cached dispatch: uploads of every input from pinned host buffers, the
 * caller's kernels and downloads of every output into pinned host buffers,
 * recorded once as one graph on a dedicated non-blocking stream and then
 * replayed for each dispatch with fresh input bytes.  A second,
 * resident-input graph without the uploads is recorded too and used when
 * the caller declares the inputs unchanged since the last dispatch.
 *
 * Every buffer is allocated when the object is made, before any capture,
 * so the graphs hold no allocation nodes: device buffers from a
 * #GcgAllocator, pinned host buffers from a #GcgHostPool, shared with the
 * rest of the application through gcg_dispatch_graph_new_full().  The shape (number and sizes of
 * inputs) is fixed: a dispatch with other sizes is refused with
 * %GCG_ERROR_SHAPE_MISMATCH, telling the caller to record a new graph.
 * Recordings are serialised process-wide, cooperative launches are
 * refused (stream capture records plain launches only), and dispatch is
 * synchronous: outputs are readable when it returns.
 *
 * For work that is not a video frame (a lookup table refreshed from the
 * host, a small model's pre-computation, features computed over a batch of
 * host records) where host bytes go in and host bytes come out each time:
 *
 * ```c
 * // Queues the application's kernels on @stream, reading input 0 and
 * // writing output 0 (gcg_dispatch_graph_get_input_ptr (d, 0) and
 * // gcg_dispatch_graph_get_output_ptr (d, 0): fixed for the graph's life).
 * static gboolean queue_kernels (GcgDispatchGraph *d, GcgStream *stream,
 *     gpointer user_data, GError **error);
 *
 * const gsize in_size = 4096, out_size = 256;
 * g_autoptr (GcgDispatchGraph) d =
 *     gcg_dispatch_graph_new (context, &in_size, 1, &out_size, 1, &error);
 * gcg_dispatch_graph_record (d, GCG_DISPATCH_FLAGS_NONE, queue_kernels, NULL,
 *     &error);
 * for (;;) {
 *   g_autoptr (GBytes) in = next_record ();       // in_size bytes
 *   g_autoptr (GBytes) out = NULL;
 *
 *   // One replay: upload, the kernels, download; synchronous.
 *   if (!gcg_dispatch_graph_dispatch (d, &in, 1, FALSE, &error))
 *     break;
 *   out = gcg_dispatch_graph_get_output (d, 0);   // out_size bytes
 * }
 * ```
 *
 * Since: 0.1
 */
#include "gcg-dispatch-graph.h"
#include "gcg-allocator.h"
#include "gcg-capture.h"
#include "gcg-host-pool.h"
#include "gcg-stream-private.h"

#include <string.h>

typedef struct
{
  gsize size;
  guint64 device;
  guint8 *host;
} Buffer;

struct _GcgDispatchGraph
{
  GObject parent_instance;

  GcgContext *context;
  GcgAllocator *allocator;
  GcgHostPool *host_pool;
  GcgStream *stream;
  GArray *inputs;
  GArray *outputs;

  GcgDispatchFlags flags;
  GcgGraph *full;
  GcgGraph *resident;
  gboolean inputs_resident;

  guint64 full_replays;
  guint64 resident_replays;
};

G_DEFINE_FINAL_TYPE (GcgDispatchGraph, gcg_dispatch_graph, G_TYPE_OBJECT);

/* Recording is rare and captures in thread-local mode can still interfere
 * through the shared graph pools: one at a time per process. */
static GMutex record_lock;

static void
free_buffers (GcgDispatchGraph *self, GArray *buffers)
{
  for (guint i = 0; buffers && i < buffers->len; i++) {
    Buffer *b = &g_array_index (buffers, Buffer, i);
    g_autoptr (GError) error = NULL;

    if (b->device)
      gcg_allocator_free (self->allocator, b->device);
    if (b->host
        && !gcg_host_pool_release (self->host_pool, b->host, b->size, &error))
      g_warning ("Releasing a dispatch buffer: %s", error->message);
    b->device = 0;
    b->host = NULL;
  }
}

static void
gcg_dispatch_graph_finalize (GObject *object)
{
  GcgDispatchGraph *self = GCG_DISPATCH_GRAPH (object);

  if (self->context) {
    g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

    if (gcg__context_guard_enter (&guard, self->context, NULL)) {
      if (self->stream)
        GCG_CU_WARN (cuStreamSynchronize, gcg__stream_get_cu (self->stream));
      g_clear_object (&self->full);
      g_clear_object (&self->resident);
      free_buffers (self, self->inputs);
      free_buffers (self, self->outputs);
    }
  }
  g_clear_object (&self->allocator);
  g_clear_object (&self->host_pool);
  g_clear_pointer (&self->inputs, g_array_unref);
  g_clear_pointer (&self->outputs, g_array_unref);
  g_clear_object (&self->stream);
  g_clear_object (&self->context);

  G_OBJECT_CLASS (gcg_dispatch_graph_parent_class)->finalize (object);
}

static void
gcg_dispatch_graph_class_init (GcgDispatchGraphClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gcg_dispatch_graph_finalize;
}

static void
gcg_dispatch_graph_init (GcgDispatchGraph *self)
{
  self->inputs = g_array_new (FALSE, TRUE, sizeof (Buffer));
  self->outputs = g_array_new (FALSE, TRUE, sizeof (Buffer));
}

/* Zero-byte buffers never touch the driver.  Appended before allocating,
 * so a failure leaves what was allocated to free_buffers(). */
static gboolean
alloc_buffers (GcgDispatchGraph *self, GArray *buffers, const gsize *sizes,
    guint n, GError **error)
{
  for (guint i = 0; i < n; i++) {
    Buffer *b;

    g_array_append_val (buffers, ((Buffer) { sizes[i], 0, NULL }));
    b = &g_array_index (buffers, Buffer, buffers->len - 1);
    if (sizes[i] == 0)
      continue;
    /* Keyed on the default stream, not our own: finalize waits for our
     * stream before freeing, so the blocks are idle then and the next
     * dispatch graph (on another stream) can reuse them.  The other way
     * round, see wait_for_default_stream(). */
    if (!gcg_allocator_alloc (self->allocator, sizes[i], NULL, &b->device,
            error))
      return FALSE;
    b->host = gcg_host_pool_alloc (self->host_pool, sizes[i], error);
    if (b->host == NULL)
      return FALSE;
    memset (b->host, 0, sizes[i]);
  }
  return TRUE;
}

/* Blocks keyed on the legacy default stream come back to the allocator in
 * that stream's order: work queued there may still use them.  Our
 * non-blocking stream does not wait for it by itself, so it does once. */
static gboolean
wait_for_default_stream (GcgDispatchGraph *self, GError **error)
{
  CUevent event = NULL;
  gboolean ok;

  ok = GCG_CU_OK (error, cuEventCreate, &event, CU_EVENT_DISABLE_TIMING)
      && GCG_CU_OK (error, cuEventRecord, event, NULL)
      && GCG_CU_OK (error, cuStreamWaitEvent, gcg__stream_get_cu (self->stream),
          event, 0);
  if (event)
    GCG_CU_WARN (cuEventDestroy, event);
  return ok;
}

/**
 * gcg_dispatch_graph_new:
 * @context: a #GcgContext
 * @input_sizes: (array length=n_inputs): byte size of each input
 * @n_inputs: number of inputs
 * @output_sizes: (array length=n_outputs): byte size of each output
 * @n_outputs: number of outputs
 * @error: return location for a #GError, or %NULL
 *
 * Like gcg_dispatch_graph_new_full() with an allocator and a host pool of
 * its own.
 *
 * Returns: (transfer full) (nullable): a new #GcgDispatchGraph, or %NULL
 *   with @error set; nothing stays allocated on error
 *
 * Since: 0.1
 */
GcgDispatchGraph *
gcg_dispatch_graph_new (GcgContext *context, const gsize *input_sizes,
    guint n_inputs, const gsize *output_sizes, guint n_outputs, GError **error)
{
  g_autoptr (GcgAllocator) allocator = NULL;
  g_autoptr (GcgHostPool) host_pool = NULL;

  g_return_val_if_fail (GCG_IS_CONTEXT (context), NULL);

  allocator = gcg_allocator_new (context, error);
  if (allocator == NULL)
    return NULL;
  host_pool = gcg_host_pool_new (context);
  return gcg_dispatch_graph_new_full (allocator, host_pool, input_sizes,
      n_inputs, output_sizes, n_outputs, error);
}

/**
 * gcg_dispatch_graph_new_full:
 * @allocator: the #GcgAllocator device buffers come from; its context is
 *   the dispatch graph's
 * @host_pool: the #GcgHostPool pinned host buffers come from
 * @input_sizes: (array length=n_inputs): byte size of each input
 * @n_inputs: number of inputs
 * @output_sizes: (array length=n_outputs): byte size of each output
 * @n_outputs: number of outputs
 * @error: return location for a #GError, or %NULL
 *
 * Allocates every device and pinned host buffer and the dedicated stream.
 * The buffers go back to @allocator and @host_pool when the dispatch graph
 * is finalized, after its last dispatch has completed.
 *
 * Returns: (transfer full) (nullable): a new #GcgDispatchGraph, or %NULL
 *   with @error set; nothing stays allocated on error
 *
 * Since: 0.1
 */
GcgDispatchGraph *
gcg_dispatch_graph_new_full (GcgAllocator *allocator, GcgHostPool *host_pool,
    const gsize *input_sizes, guint n_inputs, const gsize *output_sizes,
    guint n_outputs, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  g_autoptr (GcgDispatchGraph) self = NULL;
  GcgContext *context;

  g_return_val_if_fail (GCG_IS_ALLOCATOR (allocator), NULL);
  g_return_val_if_fail (GCG_IS_HOST_POOL (host_pool), NULL);
  g_return_val_if_fail (n_inputs == 0 || input_sizes != NULL, NULL);
  g_return_val_if_fail (n_outputs == 0 || output_sizes != NULL, NULL);

  context = gcg_allocator_get_context (allocator);
  g_return_val_if_fail (GCG_IS_CONTEXT (context), NULL);
  if (!gcg__context_guard_enter (&guard, context, error))
    return NULL;
  self = g_object_new (GCG_TYPE_DISPATCH_GRAPH, NULL);
  self->context = g_object_ref (context);
  self->allocator = g_object_ref (allocator);
  self->host_pool = g_object_ref (host_pool);
  self->stream = gcg_stream_new (context, error);
  if (self->stream == NULL
      || !alloc_buffers (self, self->inputs, input_sizes, n_inputs, error)
      || !alloc_buffers (self, self->outputs, output_sizes, n_outputs, error)
      || !wait_for_default_stream (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

typedef struct
{
  GcgDispatchGraph *self;
  GcgDispatchFunc func;
  gpointer user_data;
  gboolean uploads;
} RecordData;

static gboolean
record_body (GcgStream *stream, gpointer data, GError **error)
{
  RecordData *rd = data;
  CUstream s = gcg__stream_get_cu (stream);

  for (guint i = 0; rd->uploads && i < rd->self->inputs->len; i++) {
    Buffer *b = &g_array_index (rd->self->inputs, Buffer, i);

    if (b->size
        && !GCG_CU_OK (error, cuMemcpyHtoDAsync, b->device, b->host, b->size,
            s))
      return FALSE;
  }
  if (!rd->func (rd->self, stream, rd->user_data, error))
    return FALSE;
  for (guint i = 0; i < rd->self->outputs->len; i++) {
    Buffer *b = &g_array_index (rd->self->outputs, Buffer, i);

    if (b->size
        && !GCG_CU_OK (error, cuMemcpyDtoHAsync, b->host, b->device, b->size,
            s))
      return FALSE;
  }
  return TRUE;
}

static GcgGraph *
record_one (GcgDispatchGraph *self, GcgDispatchFunc func, gpointer user_data,
    gboolean uploads, GError **error)
{
  RecordData rd = { self, func, user_data, uploads };

  return gcg_capture_callable (self->stream, GCG_CAPTURE_MODE_THREAD_LOCAL,
      record_body, &rd, error);
}

/**
 * gcg_dispatch_graph_record:
 * @self: a #GcgDispatchGraph
 * @flags: #GcgDispatchFlags
 * @func: (scope call) (closure user_data): enqueues the dispatch's kernels
 * @user_data: data for @func
 * @error: return location for a #GError, or %NULL
 *
 * Records the full graph (uploads, @func's kernels, downloads) and, unless
 * %GCG_DISPATCH_FLAGS_MUTATES_INPUTS is set, the resident-input graph.
 * Recording again replaces both graphs.
 *
 * Returns: %TRUE on success; on error the previous graphs are kept
 *
 * Since: 0.1
 */
gboolean
gcg_dispatch_graph_record (GcgDispatchGraph *self, GcgDispatchFlags flags,
    GcgDispatchFunc func, gpointer user_data, GError **error)
{
  g_autoptr (GMutexLocker) locker = NULL;
  g_autoptr (GcgGraph) full = NULL;
  g_autoptr (GcgGraph) resident = NULL;

  g_return_val_if_fail (GCG_IS_DISPATCH_GRAPH (self), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  if (flags & GCG_DISPATCH_FLAGS_COOPERATIVE) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_NOT_SUPPORTED,
        "Cooperative launches cannot be recorded in a dispatch graph: "
        "stream capture records plain kernel launches only; dispatch "
        "cooperative kernels eagerly");
    return FALSE;
  }
  locker = g_mutex_locker_new (&record_lock);
  full = record_one (self, func, user_data, TRUE, error);
  if (full == NULL)
    return FALSE;
  if (!(flags & GCG_DISPATCH_FLAGS_MUTATES_INPUTS)) {
    resident = record_one (self, func, user_data, FALSE, error);
    if (resident == NULL)
      return FALSE;
  }
  g_set_object (&self->full, full);
  g_set_object (&self->resident, resident);
  self->flags = flags;
  self->inputs_resident = FALSE;
  return TRUE;
}

static gboolean
check_shape (GcgDispatchGraph *self, GBytes **inputs, guint n_inputs,
    GError **error)
{
  if (n_inputs != self->inputs->len) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_SHAPE_MISMATCH,
        "Dispatch got %u inputs but the graph was recorded for %u; make a "
        "new dispatch graph for this shape and record it again",
        n_inputs, self->inputs->len);
    return FALSE;
  }
  for (guint i = 0; i < n_inputs; i++) {
    gsize want = g_array_index (self->inputs, Buffer, i).size;
    gsize got = inputs[i] ? g_bytes_get_size (inputs[i]) : 0;

    if (got != want) {
      g_set_error (error, GCG_ERROR, GCG_ERROR_SHAPE_MISMATCH,
          "Dispatch input %u has %" G_GSIZE_FORMAT " bytes but the graph "
          "was recorded for %" G_GSIZE_FORMAT "; make a new dispatch graph "
          "for this shape and record it again",
          i, got, want);
      return FALSE;
    }
  }
  return TRUE;
}

static void
upload_inputs (GcgDispatchGraph *self, GBytes **inputs)
{
  for (guint i = 0; i < self->inputs->len; i++) {
    Buffer *b = &g_array_index (self->inputs, Buffer, i);

    if (b->size)
      memcpy (b->host, g_bytes_get_data (inputs[i], NULL), b->size);
  }
}

/**
 * gcg_dispatch_graph_dispatch:
 * @self: a recorded #GcgDispatchGraph
 * @inputs: (array length=n_inputs) (nullable): one #GBytes per input, of
 *   the recorded sizes; may be %NULL when @inputs_unchanged is %TRUE
 * @n_inputs: number of @inputs
 * @inputs_unchanged: %TRUE when the inputs equal those of the last
 *   dispatch, so the resident-input graph can skip the uploads
 * @error: return location for a #GError, or %NULL
 *
 * Replays the recorded work and waits for it.  Outputs are then read with
 * gcg_dispatch_graph_get_output().
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_dispatch_graph_dispatch (GcgDispatchGraph *self, GBytes **inputs,
    guint n_inputs, gboolean inputs_unchanged, GError **error)
{
  gboolean resident;
  GcgGraph *graph;

  g_return_val_if_fail (GCG_IS_DISPATCH_GRAPH (self), FALSE);
  g_return_val_if_fail (inputs != NULL || n_inputs == 0 || inputs_unchanged,
      FALSE);

  if (self->full == NULL) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_CAPTURE_STATE,
        "Dispatch graph not recorded yet; call gcg_dispatch_graph_record()");
    return FALSE;
  }
  if (inputs && !check_shape (self, inputs, n_inputs, error))
    return FALSE;
  resident = inputs_unchanged && self->resident && self->inputs_resident;
  if (!resident && inputs == NULL && self->inputs->len > 0) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Dispatch without inputs needs inputs already on the device; pass "
        "the inputs");
    return FALSE;
  }
  if (!resident && inputs)
    upload_inputs (self, inputs);
  graph = resident ? self->resident : self->full;
  self->inputs_resident = FALSE;
  if (!gcg_graph_launch (graph, self->stream, error)
      || !gcg_stream_synchronize (self->stream, error))
    return FALSE;
  self->inputs_resident = TRUE;
  if (resident)
    self->resident_replays++;
  else
    self->full_replays++;
  return TRUE;
}

/**
 * gcg_dispatch_graph_get_output:
 * @self: a #GcgDispatchGraph
 * @index: an output index
 *
 * Copies one output of the last dispatch out of its pinned host buffer.
 *
 * Returns: (transfer full): a copy of output @index from the last dispatch
 *
 * Since: 0.1
 */
GBytes *
gcg_dispatch_graph_get_output (GcgDispatchGraph *self, guint index)
{
  Buffer *b;

  g_return_val_if_fail (GCG_IS_DISPATCH_GRAPH (self), NULL);
  g_return_val_if_fail (index < self->outputs->len, NULL);

  b = &g_array_index (self->outputs, Buffer, index);
  return g_bytes_new (b->host, b->size);
}

/**
 * gcg_dispatch_graph_get_input_ptr:
 * @self: a #GcgDispatchGraph
 * @index: an input index
 *
 * Gets the device address of one input buffer, fixed for the graph's life.
 *
 * Returns: the device address of input @index (0 for an empty input)
 *
 * Since: 0.1
 */
guint64
gcg_dispatch_graph_get_input_ptr (GcgDispatchGraph *self, guint index)
{
  g_return_val_if_fail (GCG_IS_DISPATCH_GRAPH (self), 0);
  g_return_val_if_fail (index < self->inputs->len, 0);
  return g_array_index (self->inputs, Buffer, index).device;
}

/**
 * gcg_dispatch_graph_get_output_ptr:
 * @self: a #GcgDispatchGraph
 * @index: an output index
 *
 * Gets the device address of one output buffer, fixed for the graph's life.
 *
 * Returns: the device address of output @index (0 for an empty output)
 *
 * Since: 0.1
 */
guint64
gcg_dispatch_graph_get_output_ptr (GcgDispatchGraph *self, guint index)
{
  g_return_val_if_fail (GCG_IS_DISPATCH_GRAPH (self), 0);
  g_return_val_if_fail (index < self->outputs->len, 0);
  return g_array_index (self->outputs, Buffer, index).device;
}

/**
 * gcg_dispatch_graph_get_stream:
 * @self: a #GcgDispatchGraph
 *
 * Gets the dedicated non-blocking stream both graphs run on.
 *
 * Returns: (transfer none): the dedicated stream the graphs run on
 *
 * Since: 0.1
 */
GcgStream *
gcg_dispatch_graph_get_stream (GcgDispatchGraph *self)
{
  g_return_val_if_fail (GCG_IS_DISPATCH_GRAPH (self), NULL);
  return self->stream;
}

/**
 * gcg_dispatch_graph_get_full_replays:
 * @self: a #GcgDispatchGraph
 *
 * Counts the dispatches that ran the full graph, input uploads included.
 *
 * Returns: dispatches that ran the full graph (with uploads)
 *
 * Since: 0.1
 */
guint64
gcg_dispatch_graph_get_full_replays (GcgDispatchGraph *self)
{
  g_return_val_if_fail (GCG_IS_DISPATCH_GRAPH (self), 0);
  return self->full_replays;
}

/**
 * gcg_dispatch_graph_get_resident_replays:
 * @self: a #GcgDispatchGraph
 *
 * Counts the dispatches that ran the resident-input graph, which skips the
 * input uploads.
 *
 * Returns: dispatches that ran the resident-input graph
 *
 * Since: 0.1
 */
guint64
gcg_dispatch_graph_get_resident_replays (GcgDispatchGraph *self)
{
  g_return_val_if_fail (GCG_IS_DISPATCH_GRAPH (self), 0);
  return self->resident_replays;
}
