/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgDeviceScalar:
 *
 * One typed value in device memory at a fixed address, which a captured
 * graph records instead of the value itself.  Set a new value on the host,
 * call gcg_device_scalar_update() on the replay's stream, then replay: the
 * graph sees the new value without being captured again.
 *
 * It is a one-field #GcgParamBlock, so it shares the block's guarantee: the
 * pinned slot a pending copy reads from is never rewritten.  For several
 * per-frame values use one #GcgParamBlock (one copy per frame instead of
 * one per value).
 *
 * A gain that a kernel of the application's own capture reads from device
 * memory, changed every frame without capturing again:
 *
 * ```c
 * // In the kernel: __global__ void scale (const float *gain, ...)
 * //   { ... out[i] = in[i] * *gain; }
 * g_autoptr (GcgDeviceScalar) gain =
 *     gcg_device_scalar_new (context, GCG_SCALAR_TYPE_FLOAT, &error);
 * guint64 gain_ptr = gcg_device_scalar_get_device_ptr (gain);
 * // Captured once, with gain_ptr as the kernel's argument:
 * g_autoptr (GcgGraph) graph = gcg_capture_callable (stream,
 *     GCG_CAPTURE_MODE_DEFAULT, queue_scale_kernel, &gain_ptr, &error);
 *
 * for (guint frame = 0; frame < n_frames; frame++) {
 *   gcg_device_scalar_set_double (gain, gain_for (frame), &error);
 *   // A stream-ordered copy from a pinned ring slot, then the replay.
 *   gcg_device_scalar_update (gain, stream, &error);
 *   gcg_graph_launch (graph, stream, &error);
 * }
 * ```
 *
 * Since: 0.1
 */
#include "gcg-device-scalar.h"

#define SCALAR_RING_DEPTH 4

struct _GcgDeviceScalar
{
  GObject parent_instance;

  GcgParamBlock *block;
  GcgScalarType type;
};

G_DEFINE_FINAL_TYPE (GcgDeviceScalar, gcg_device_scalar, G_TYPE_OBJECT);

static void
gcg_device_scalar_finalize (GObject *object)
{
  GcgDeviceScalar *self = GCG_DEVICE_SCALAR (object);

  g_clear_object (&self->block);
  G_OBJECT_CLASS (gcg_device_scalar_parent_class)->finalize (object);
}

static void
gcg_device_scalar_class_init (GcgDeviceScalarClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gcg_device_scalar_finalize;
}

static void
gcg_device_scalar_init (GcgDeviceScalar *self)
{
}

/**
 * gcg_device_scalar_new:
 * @context: the #GcgContext the value lives on
 * @type: the value's type
 * @error: return location for a #GError, or %NULL
 *
 * Allocates the scalar, initialised to zero on the device.
 *
 * Returns: (transfer full) (nullable): a new #GcgDeviceScalar, or %NULL
 *   with @error set
 *
 * Since: 0.1
 */
GcgDeviceScalar *
gcg_device_scalar_new (GcgContext *context, GcgScalarType type, GError **error)
{
  g_autoptr (GcgDeviceScalar) self = NULL;

  g_return_val_if_fail (GCG_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (type <= GCG_SCALAR_TYPE_DOUBLE, NULL);

  self = g_object_new (GCG_TYPE_DEVICE_SCALAR, NULL);
  self->type = type;
  self->block = gcg_param_block_new ();
  if (gcg_param_block_add_field (self->block, "value", type, error) < 0
      || !gcg_param_block_allocate (self->block, context, SCALAR_RING_DEPTH,
          error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * gcg_device_scalar_get_scalar_type:
 * @self: a #GcgDeviceScalar
 *
 * Gets the type the scalar was made with.
 *
 * Returns: the value's type
 *
 * Since: 0.1
 */
GcgScalarType
gcg_device_scalar_get_scalar_type (GcgDeviceScalar *self)
{
  g_return_val_if_fail (GCG_IS_DEVICE_SCALAR (self), 0);
  return self->type;
}

/**
 * gcg_device_scalar_get_device_ptr:
 * @self: a #GcgDeviceScalar
 *
 * Gets the device address a kernel (or a captured graph) reads the value
 * from.
 *
 * Returns: the value's device address (a CUdeviceptr), fixed for the
 *   scalar's life
 *
 * Since: 0.1
 */
guint64
gcg_device_scalar_get_device_ptr (GcgDeviceScalar *self)
{
  g_return_val_if_fail (GCG_IS_DEVICE_SCALAR (self), 0);
  return gcg_param_block_get_device_ptr (self->block);
}

/**
 * gcg_device_scalar_set_int:
 * @self: a #GcgDeviceScalar
 * @value: the new value
 * @error: return location for a #GError, or %NULL
 *
 * Stages a value for the next update; see gcg_param_block_set_int().
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_device_scalar_set_int (GcgDeviceScalar *self, gint64 value, GError **error)
{
  g_return_val_if_fail (GCG_IS_DEVICE_SCALAR (self), FALSE);
  return gcg_param_block_set_int (self->block, 0, value, error);
}

/**
 * gcg_device_scalar_set_uint:
 * @self: a #GcgDeviceScalar
 * @value: the new value
 * @error: return location for a #GError, or %NULL
 *
 * Stages a value for the next update; see gcg_param_block_set_uint().
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_device_scalar_set_uint (GcgDeviceScalar *self, guint64 value,
    GError **error)
{
  g_return_val_if_fail (GCG_IS_DEVICE_SCALAR (self), FALSE);
  return gcg_param_block_set_uint (self->block, 0, value, error);
}

/**
 * gcg_device_scalar_set_double:
 * @self: a #GcgDeviceScalar
 * @value: the new value
 * @error: return location for a #GError, or %NULL
 *
 * Stages a value for the next update; see gcg_param_block_set_double().
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_device_scalar_set_double (GcgDeviceScalar *self, gdouble value,
    GError **error)
{
  g_return_val_if_fail (GCG_IS_DEVICE_SCALAR (self), FALSE);
  return gcg_param_block_set_double (self->block, 0, value, error);
}

/**
 * gcg_device_scalar_get_double:
 * @self: a #GcgDeviceScalar
 *
 * Reads back the value last set on the host (staged, whether or not an
 * update copied it to the device yet).
 *
 * Returns: the staged value, converted to double
 *
 * Since: 0.1
 */
gdouble
gcg_device_scalar_get_double (GcgDeviceScalar *self)
{
  g_return_val_if_fail (GCG_IS_DEVICE_SCALAR (self), 0);
  return gcg_param_block_get_double (self->block, 0);
}

/**
 * gcg_device_scalar_update:
 * @self: a #GcgDeviceScalar
 * @stream: the stream the reading work runs on
 * @error: return location for a #GError, or %NULL
 *
 * Queues the host-to-device copy of the staged value on @stream, before
 * the replay that reads it.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_device_scalar_update (GcgDeviceScalar *self, GcgStream *stream,
    GError **error)
{
  g_return_val_if_fail (GCG_IS_DEVICE_SCALAR (self), FALSE);
  return gcg_param_block_update (self->block, stream, error);
}
