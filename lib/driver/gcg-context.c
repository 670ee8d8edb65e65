/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgContext:
 *
 * A CUDA device and the context work runs in.  By default this is the
 * device's primary context, shared with every other user of the device in
 * the process (each extra context would cost hundreds of MB).  An
 * application's or an upstream element's context can be wrapped instead;
 * it is then used but never destroyed.  The context also owns the module
 * of embedded kernels, loaded once on first use.
 *
 * Since: 0.1
 */
#include "gcg-context-private.h"
#include "gcg-driver.h"
#include "gcg-error-private.h"
#include "gcg-kernels-private.h"

struct _GcgContext
{
  GObject parent_instance;

  CUcontext cu_context;
  CUdevice cu_device;
  gint device_id;
  gboolean owns_primary;

  gchar *name;
  gchar *pci_bus_id;
  gint cc_major, cc_minor;
  gint sm_count;
  guint64 total_memory;

  GMutex module_lock;
  CUmodule module;
  /* Loaded from extra_image on the first name module lacks. */
  CUmodule extra_module;
  GHashTable *functions;
};

/* gcg__context_set_extra_kernels()'s image, or NULL (atomic). */
static gpointer extra_image;

void
gcg__context_set_extra_kernels (gconstpointer image)
{
  g_atomic_pointer_set (&extra_image, (gpointer) image);
}

enum
{
  PROP_0,
  PROP_DEVICE_ID,
  PROP_NAME,
  PROP_SM_COUNT,
  PROP_TOTAL_MEMORY,
  PROP_PCI_BUS_ID,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (GcgContext, gcg_context, G_TYPE_OBJECT);

static void
gcg_context_get_property (GObject *object, guint prop_id, GValue *value,
    GParamSpec *pspec)
{
  GcgContext *self = GCG_CONTEXT (object);

  switch (prop_id) {
    case PROP_DEVICE_ID:
      g_value_set_int (value, self->device_id);
      break;
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_SM_COUNT:
      g_value_set_int (value, self->sm_count);
      break;
    case PROP_TOTAL_MEMORY:
      g_value_set_uint64 (value, self->total_memory);
      break;
    case PROP_PCI_BUS_ID:
      g_value_set_string (value, self->pci_bus_id);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gcg_context_finalize (GObject *object)
{
  GcgContext *self = GCG_CONTEXT (object);

  if (self->module || self->extra_module) {
    g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

    if (gcg__context_guard_enter (&guard, self, NULL)) {
      if (self->extra_module)
        GCG_CU_WARN (cuModuleUnload, self->extra_module);
      if (self->module)
        GCG_CU_WARN (cuModuleUnload, self->module);
    }
  }
  if (self->owns_primary)
    GCG_CU_WARN (cuDevicePrimaryCtxRelease, self->cu_device);
  g_clear_pointer (&self->functions, g_hash_table_unref);
  g_mutex_clear (&self->module_lock);
  g_free (self->name);
  g_free (self->pci_bus_id);

  G_OBJECT_CLASS (gcg_context_parent_class)->finalize (object);
}

static void
gcg_context_class_init (GcgContextClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = gcg_context_get_property;
  object_class->finalize = gcg_context_finalize;

  /**
   * GcgContext:device-id:
   *
   * The ordinal of the context's device.
   *
   * Since: 0.1
   */
  properties[PROP_DEVICE_ID] = g_param_spec_int ("device-id", "Device ID",
      "CUDA device ordinal", 0, G_MAXINT, 0,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgContext:name:
   *
   * The device's name as the driver reports it, e.g. "NVIDIA H100 80GB
   * HBM3".
   *
   * Since: 0.1
   */
  properties[PROP_NAME] = g_param_spec_string ("name", "Name",
      "Device name as the driver reports it", NULL,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgContext:sm-count:
   *
   * The device's number of streaming multiprocessors.
   *
   * Since: 0.1
   */
  properties[PROP_SM_COUNT] = g_param_spec_int ("sm-count", "SM count",
      "Number of streaming multiprocessors", 0, G_MAXINT, 0,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgContext:total-memory:
   *
   * The device's memory size in bytes.
   *
   * Since: 0.1
   */
  properties[PROP_TOTAL_MEMORY] = g_param_spec_uint64 ("total-memory",
      "Total memory", "Device memory in bytes", 0, G_MAXUINT64, 0,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgContext:pci-bus-id:
   *
   * The device's PCI bus id (domain:bus:device.function), e.g.
   * "0000:17:00.0".
   *
   * Since: 0.1
   */
  properties[PROP_PCI_BUS_ID] = g_param_spec_string ("pci-bus-id", "PCI bus ID",
      "PCI bus ID of the device (domain:bus:device.function)", NULL,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcg_context_init (GcgContext *self)
{
  g_mutex_init (&self->module_lock);
  self->functions =
      g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

static gboolean
query_attribute (CUdevice dev, CUdevice_attribute attr, gint *value,
    GError **error)
{
  return GCG_CU_OK (error, cuDeviceGetAttribute, value, attr, dev);
}

static gboolean
query_device (GcgContext *self, GError **error)
{
  gchar buf[256] = { 0 };
  size_t total = 0;
  CUdevice dev = self->cu_device;

  if (!GCG_CU_OK (error, cuDeviceGetName, buf, sizeof (buf) - 1, dev))
    return FALSE;
  self->name = g_strdup (buf);
  if (!GCG_CU_OK (error, cuDeviceGetPCIBusId, buf, sizeof (buf) - 1, dev))
    return FALSE;
  self->pci_bus_id = g_strdup (buf);
  if (!GCG_CU_OK (error, cuDeviceTotalMem, &total, dev))
    return FALSE;
  self->total_memory = total;
  return query_attribute (dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
             &self->cc_major, error)
      && query_attribute (dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
          &self->cc_minor, error)
      && query_attribute (dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
          &self->sm_count, error);
}

/**
 * gcg_context_get_device_count:
 * @error: return location for a #GError, or %NULL
 *
 * Counts the CUDA devices, loading the driver if needed.
 *
 * Returns: the number of CUDA devices, or -1 with @error set when the
 *   driver is unusable
 *
 * Since: 0.1
 */
gint
gcg_context_get_device_count (GError **error)
{
  gint count = 0;

  if (!gcg_driver_init (error) || !GCG_CU_OK (error, cuDeviceGetCount, &count))
    return -1;
  return count;
}

static gboolean
check_ordinal (gint device_id, GError **error)
{
  gint count = gcg_context_get_device_count (error);

  if (count < 0)
    return FALSE;
  if (device_id >= count) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_NO_DEVICE,
        "No CUDA device %d: this machine has %d; choose 0 to %d (gcg-info "
        "lists them)",
        device_id, count, count - 1);
    return FALSE;
  }
  return TRUE;
}

/**
 * gcg_context_new:
 * @device_id: a device ordinal, or -1 for the default device (0)
 * @error: return location for a #GError, or %NULL
 *
 * Opens a device on its primary context, which is retained for the life of
 * the returned object.
 *
 * Returns: (transfer full) (nullable): a new #GcgContext, or %NULL with
 *   @error set (no driver, no such device, driver failure)
 *
 * Since: 0.1
 */
GcgContext *
gcg_context_new (gint device_id, GError **error)
{
  g_autoptr (GcgContext) self = NULL;

  g_return_val_if_fail (device_id >= -1, NULL);

  if (device_id < 0)
    device_id = 0;
  if (!check_ordinal (device_id, error))
    return NULL;

  self = g_object_new (GCG_TYPE_CONTEXT, NULL);
  self->device_id = device_id;
  if (!GCG_CU_OK (error, cuDeviceGet, &self->cu_device, device_id)
      || !GCG_CU_OK (error, cuDevicePrimaryCtxRetain, &self->cu_context,
          self->cu_device))
    return NULL;
  self->owns_primary = TRUE;
  if (!query_device (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * gcg_context_new_wrapped:
 * @cu_context: a CUcontext owned by the caller
 * @error: return location for a #GError, or %NULL
 *
 * Wraps a context made by the application or another library (for example
 * the one inside a GstCudaContext).  The context must outlive the returned
 * object; it is never destroyed by it.
 *
 * Returns: (transfer full) (nullable): a new #GcgContext, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
GcgContext *
gcg_context_new_wrapped (gpointer cu_context, GError **error)
{
  g_autoptr (GcgContext) self = NULL;
  CUcontext popped = NULL;
  CUdevice dev = 0;
  gboolean ok;

  g_return_val_if_fail (cu_context != NULL, NULL);

  if (!gcg_driver_init (error)
      || !GCG_CU_OK (error, cuCtxPushCurrent, (CUcontext) cu_context))
    return NULL;
  ok = GCG_CU_OK (error, cuCtxGetDevice, &dev);
  GCG_CU_WARN (cuCtxPopCurrent, &popped);
  if (!ok)
    return NULL;

  self = g_object_new (GCG_TYPE_CONTEXT, NULL);
  self->cu_context = cu_context;
  self->cu_device = dev;
  self->device_id = dev;
  if (!query_device (self, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * gcg_context_push:
 * @self: a #GcgContext
 * @error: return location for a #GError, or %NULL
 *
 * Makes the context current on the calling thread, for callers that issue
 * their own driver calls on it.  Pair with gcg_context_pop().
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_context_push (GcgContext *self, GError **error)
{
  g_return_val_if_fail (GCG_IS_CONTEXT (self), FALSE);

  return GCG_CU_OK (error, cuCtxPushCurrent, self->cu_context);
}

/**
 * gcg_context_pop:
 * @self: a #GcgContext
 * @error: return location for a #GError, or %NULL
 *
 * Undoes gcg_context_push().  Fails when @self is not the current context.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_context_pop (GcgContext *self, GError **error)
{
  CUcontext current = NULL, popped = NULL;

  g_return_val_if_fail (GCG_IS_CONTEXT (self), FALSE);

  /* Checked before popping, so a mismatch leaves the caller's stack as it
   * was. */
  if (!GCG_CU_OK (error, cuCtxGetCurrent, &current))
    return FALSE;
  if (current != self->cu_context) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_FAILED,
        "gcg_context_pop: the current context is not this one; pushes and "
        "pops must pair up");
    return FALSE;
  }
  return GCG_CU_OK (error, cuCtxPopCurrent, &popped);
}

gboolean
gcg__context_guard_enter (GcgContextGuard *guard, GcgContext *ctx,
    GError **error)
{
  CUcontext current = NULL;

  guard->pushed = FALSE;
  if (GCG_CU (cuCtxGetCurrent, &current) == CUDA_SUCCESS
      && current == ctx->cu_context)
    return TRUE;
  if (!GCG_CU_OK (error, cuCtxPushCurrent, ctx->cu_context))
    return FALSE;
  guard->pushed = TRUE;
  return TRUE;
}

void
gcg__context_guard_leave (GcgContextGuard *guard)
{
  CUcontext popped = NULL;

  if (guard->pushed)
    GCG_CU_WARN (cuCtxPopCurrent, &popped);
  guard->pushed = FALSE;
}

/**
 * gcg_context_get_device_id:
 * @self: a #GcgContext
 *
 * Gets the ordinal of the context's device.
 *
 * Returns: the device ordinal
 *
 * Since: 0.1
 */
gint
gcg_context_get_device_id (GcgContext *self)
{
  g_return_val_if_fail (GCG_IS_CONTEXT (self), -1);
  return self->device_id;
}

/**
 * gcg_context_get_name:
 * @self: a #GcgContext
 *
 * Gets the device's name as the driver reports it.
 *
 * Returns: (transfer none): the device name, e.g. "NVIDIA H100 80GB HBM3"
 *
 * Since: 0.1
 */
const gchar *
gcg_context_get_name (GcgContext *self)
{
  g_return_val_if_fail (GCG_IS_CONTEXT (self), NULL);
  return self->name;
}

/**
 * gcg_context_get_compute_capability:
 * @self: a #GcgContext
 * @major: (out) (optional): major compute capability
 * @minor: (out) (optional): minor compute capability
 *
 * Gets the device's compute capability, e.g. 9.0 for an H100.
 *
 * Since: 0.1
 */
void
gcg_context_get_compute_capability (GcgContext *self, gint *major, gint *minor)
{
  g_return_if_fail (GCG_IS_CONTEXT (self));
  if (major)
    *major = self->cc_major;
  if (minor)
    *minor = self->cc_minor;
}

/**
 * gcg_context_get_sm_count:
 * @self: a #GcgContext
 *
 * Gets the device's number of streaming multiprocessors.
 *
 * Returns: the number of streaming multiprocessors
 *
 * Since: 0.1
 */
gint
gcg_context_get_sm_count (GcgContext *self)
{
  g_return_val_if_fail (GCG_IS_CONTEXT (self), 0);
  return self->sm_count;
}

/**
 * gcg_context_get_total_memory:
 * @self: a #GcgContext
 *
 * Gets the device's memory size.
 *
 * Returns: device memory in bytes
 *
 * Since: 0.1
 */
guint64
gcg_context_get_total_memory (GcgContext *self)
{
  g_return_val_if_fail (GCG_IS_CONTEXT (self), 0);
  return self->total_memory;
}

/**
 * gcg_context_get_pci_bus_id:
 * @self: a #GcgContext
 *
 * Gets the device's PCI bus id (domain:bus:device.function).
 *
 * Returns: (transfer none): the PCI bus id, e.g. "0000:17:00.0"
 *
 * Since: 0.1
 */
const gchar *
gcg_context_get_pci_bus_id (GcgContext *self)
{
  g_return_val_if_fail (GCG_IS_CONTEXT (self), NULL);
  return self->pci_bus_id;
}

/**
 * gcg_context_get_handle:
 * @self: a #GcgContext
 *
 * Gets the driver's context handle, to share it with other CUDA code.
 *
 * Returns: (transfer none): the CUcontext, for interoperation
 *
 * Since: 0.1
 */
gpointer
gcg_context_get_handle (GcgContext *self)
{
  g_return_val_if_fail (GCG_IS_CONTEXT (self), NULL);
  return self->cu_context;
}

CUcontext
gcg__context_get_cu (GcgContext *self)
{
  return self->cu_context;
}

CUdevice
gcg__context_get_cu_device (GcgContext *self)
{
  return self->cu_device;
}

/**
 * gcg_context_get_memory_info:
 * @self: a #GcgContext
 * @free_bytes: (out) (optional): device memory free now
 * @total_bytes: (out) (optional): device memory in all
 * @error: return location for a #GError, or %NULL
 *
 * Asks the driver how much device memory is free now and how much there is
 * in all.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_context_get_memory_info (GcgContext *self, guint64 *free_bytes,
    guint64 *total_bytes, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  size_t free_b = 0, total_b = 0;

  g_return_val_if_fail (GCG_IS_CONTEXT (self), FALSE);

  if (!gcg__context_guard_enter (&guard, self, error)
      || !GCG_CU_OK (error, cuMemGetInfo, &free_b, &total_b))
    return FALSE;
  if (free_bytes)
    *free_bytes = free_b;
  if (total_bytes)
    *total_bytes = total_b;
  return TRUE;
}

static gboolean
load_module_locked (GcgContext *self, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  if (self->module)
    return TRUE;
  if (gcg__kernels_fatbin_size == 0) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_NO_KERNELS,
        "gst-cudagraph was built without CUDA kernels (nvcc was not found "
        "at build time); rebuild with the CUDA toolkit installed or "
        "-Dcuda-kernels=enabled, or use the CPU backend");
    return FALSE;
  }
  if (!gcg__context_guard_enter (&guard, self, error))
    return FALSE;
  if (!GCG_CU_OK (error, cuModuleLoadData, &self->module,
          gcg__kernels_fatbin)) {
    g_prefix_error (error,
        "Loading the embedded kernels (%s) on %s (sm_%d%d): ",
        gcg__kernels_archs, self->name, self->cc_major, self->cc_minor);
    self->module = NULL;
    return FALSE;
  }
  return TRUE;
}

/**
 * gcg_context_load_kernels:
 * @self: a #GcgContext
 * @error: return location for a #GError, or %NULL
 *
 * Loads the embedded kernel module into the context.  Done on first use
 * anyway; call it to report a build without kernels, or a GPU the embedded
 * code does not cover, before any work starts.
 *
 * Returns: %TRUE when the kernels are loaded
 *
 * Since: 0.1
 */
gboolean
gcg_context_load_kernels (GcgContext *self, GError **error)
{
  gboolean ok;

  g_return_val_if_fail (GCG_IS_CONTEXT (self), FALSE);

  g_mutex_lock (&self->module_lock);
  ok = load_module_locked (self, error);
  g_mutex_unlock (&self->module_lock);
  return ok;
}

/* @name in the library's module, or where that lacks it and a test
 * program set an extra image (gcg__context_set_extra_kernels()), in that
 * one, loaded on first use.  The context is current and module_lock
 * held. */
static CUfunction
find_function_locked (GcgContext *self, const gchar *name, GError **error)
{
  CUfunction fn = NULL;
  CUresult res = GCG_CU (cuModuleGetFunction, &fn, self->module, name);
  gconstpointer image = g_atomic_pointer_get (&extra_image);

  if (res == CUDA_ERROR_NOT_FOUND && image != NULL) {
    if (self->extra_module == NULL
        && !GCG_CU_OK (error, cuModuleLoadData, &self->extra_module, image)) {
      self->extra_module = NULL;
      return NULL;
    }
    res = GCG_CU (cuModuleGetFunction, &fn, self->extra_module, name);
  }
  if (!gcg__cuda_result (res, "cuModuleGetFunction", error, __FILE__, __LINE__,
          G_STRFUNC))
    return NULL;
  return fn;
}

/* Looks up a kernel by its extern "C" name; callers cache the result, the
 * lookup takes a lock. */
CUfunction
gcg__context_get_function (GcgContext *self, const gchar *name, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUfunction fn = NULL;

  /* cuModuleGetFunction wants the module's context current. */
  if (!gcg__context_guard_enter (&guard, self, error))
    return NULL;
  g_mutex_lock (&self->module_lock);
  if (load_module_locked (self, error)) {
    fn = g_hash_table_lookup (self->functions, name);
    if (fn == NULL && (fn = find_function_locked (self, name, error)))
      g_hash_table_insert (self->functions, g_strdup (name), fn);
    else if (fn == NULL)
      g_prefix_error (error, "Kernel %s: ", name);
  }
  g_mutex_unlock (&self->module_lock);
  return fn;
}

/**
 * gcg_kernels_get_archs:
 *
 * Lists the GPU architectures this build of the library has kernels for.
 *
 * Returns: (transfer none): the architectures embedded in the kernel
 *   fatbin, e.g. "sm_75 sm_80 sm_86 sm_89 sm_90 compute_90", or "" when
 *   built without kernels
 *
 * Since: 0.1
 */
const gchar *
gcg_kernels_get_archs (void)
{
  return gcg__kernels_archs;
}
