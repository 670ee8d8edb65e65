/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgParamBlock:
 *
 * Many named per-frame values packed into one struct in device memory.
 * A captured graph records the struct's address (or a field's) once; before
 * each replay gcg_param_block_update() refreshes the whole struct with one
 * small stream-ordered host-to-device copy, so the graph never needs to be
 * captured again for new values.
 *
 * The copy reads from a ring of pinned host slots.  A slot is written only
 * after the event recorded behind its previous copy has completed (or
 * that of a later copy on the same stream: one query in about half a ring
 * of updates proves the slots before it free), so a value still in flight
 * is never overwritten, however far the host runs ahead of the GPU.  When every slot is in flight, update() waits for the
 * oldest one (counted by #GcgParamBlock:slot-wait-count).
 *
 * Fields are added first, then the block is allocated on a context; the
 * layout is frozen from then on.  Each scalar field is aligned to its size
 * and the struct size is a multiple of 16 bytes, the layout a C struct with
 * the same members in the same order has.  A bytes field
 * (gcg_param_block_add_bytes()) holds a whole C struct, aligned as asked,
 * for kernels that take one pointer to all their values.  Setting values is host-only and
 * cheap; a block is meant to be driven from one thread (the streaming
 * thread), and takes no locks.  Keep the block alive as long as any graph
 * that recorded its addresses.
 *
 * Since: 0.1
 */
#include "gcg-param-block.h"
#include "gcg-enum-types.h"
#include "gcg-stream-private.h"

#include <math.h>
#include <string.h>

#define DEFAULT_RING_DEPTH 8
#define MAX_RING_DEPTH 1024
#define MAX_BLOCK_SIZE (64 * 1024)
#define SLOT_ALIGN 64

/* One pinned staging slot: the event recorded behind its copy, and which
 * update (the update count after it) of which run wrote it last. */
typedef struct
{
  CUevent event;
  gboolean pending;
  guint64 seq;
  guint64 run;
} RingSlot;

typedef struct
{
  gchar *name;
  GcgScalarType type;           /* meaningless for a bytes field */
  gsize offset;
  gsize size;                   /* bytes of a bytes field, else 0 */
} Field;

struct _GcgParamBlock
{
  GObject parent_instance;

  GArray *fields;
  guint8 *staging;
  gsize size;

  GcgContext *context;
  CUdeviceptr device;
  guint8 *ring;
  gsize slot_stride;
  RingSlot *slots;
  guint ring_depth;
  guint next_slot;
  /* A run: updates queued back to back on one stream.  An event found
   * complete proves every earlier update of its run complete, so claims
   * up to that update need no query of their own (known_run/known_seq). */
  GcgStream *run_stream;        /* held: its handle cannot be reused */
  guint64 run;
  guint64 known_run;
  guint64 known_seq;

  guint64 update_count;
  guint64 slot_wait_count;
};

enum
{
  PROP_0,
  PROP_SIZE,
  PROP_RING_DEPTH,
  PROP_UPDATE_COUNT,
  PROP_SLOT_WAIT_COUNT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (GcgParamBlock, gcg_param_block, G_TYPE_OBJECT);

static gsize
scalar_size (GcgScalarType type)
{
  switch (type) {
    case GCG_SCALAR_TYPE_INT32:
    case GCG_SCALAR_TYPE_UINT32:
    case GCG_SCALAR_TYPE_FLOAT:
      return 4;
    default:
      return 8;
  }
}

static void
gcg_param_block_get_property (GObject *object, guint prop_id, GValue *value,
    GParamSpec *pspec)
{
  GcgParamBlock *self = GCG_PARAM_BLOCK (object);

  switch (prop_id) {
    case PROP_SIZE:
      g_value_set_uint64 (value, self->size);
      break;
    case PROP_RING_DEPTH:
      g_value_set_uint (value, self->ring_depth);
      break;
    case PROP_UPDATE_COUNT:
      g_value_set_uint64 (value, self->update_count);
      break;
    case PROP_SLOT_WAIT_COUNT:
      g_value_set_uint64 (value, self->slot_wait_count);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
clear_field (gpointer data)
{
  g_free (((Field *) data)->name);
}

/* Waits for copies still reading the ring, then frees every resource. */
static void
release_device (GcgParamBlock *self)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  if (self->context == NULL
      || !gcg__context_guard_enter (&guard, self->context, NULL))
    return;
  for (guint i = 0; self->slots && i < self->ring_depth; i++) {
    if (self->slots[i].event == NULL)
      continue;
    if (self->slots[i].pending)
      GCG_CU_WARN (cuEventSynchronize, self->slots[i].event);
    GCG_CU_WARN (cuEventDestroy, self->slots[i].event);
  }
  if (self->ring)
    GCG_CU_WARN (cuMemFreeHost, self->ring);
  if (self->device)
    GCG_CU_WARN (cuMemFree, self->device);
  self->ring = NULL;
  self->device = 0;
}

static void
gcg_param_block_finalize (GObject *object)
{
  GcgParamBlock *self = GCG_PARAM_BLOCK (object);

  release_device (self);
  g_clear_object (&self->run_stream);
  g_clear_object (&self->context);
  g_free (self->slots);
  g_free (self->staging);
  g_array_unref (self->fields);

  G_OBJECT_CLASS (gcg_param_block_parent_class)->finalize (object);
}

static void
gcg_param_block_class_init (GcgParamBlockClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = gcg_param_block_get_property;
  object_class->finalize = gcg_param_block_finalize;

  /**
   * GcgParamBlock:size:
   *
   * The size of the device struct in bytes, a multiple of 16; it grows as
   * fields are added.
   *
   * Since: 0.1
   */
  properties[PROP_SIZE] = g_param_spec_uint64 ("size", "Size",
      "Size of the device struct in bytes", 0, G_MAXUINT64, 0,
      G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgParamBlock:ring-depth:
   *
   * The number of pinned staging slots an update is copied from (0 until
   * allocated).
   *
   * Since: 0.1
   */
  properties[PROP_RING_DEPTH] = g_param_spec_uint ("ring-depth", "Ring depth",
      "Number of pinned staging slots (0 until allocated)", 0, MAX_RING_DEPTH,
      0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgParamBlock:update-count:
   *
   * The number of host-to-device refreshes issued.
   *
   * Since: 0.1
   */
  properties[PROP_UPDATE_COUNT] = g_param_spec_uint64 ("update-count",
      "Update count", "Number of host-to-device refreshes issued", 0,
      G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * GcgParamBlock:slot-wait-count:
   *
   * The number of updates that waited for a staging slot still being copied
   * from: the host ran a whole ring ahead of the GPU.
   *
   * Since: 0.1
   */
  properties[PROP_SLOT_WAIT_COUNT] = g_param_spec_uint64 ("slot-wait-count",
      "Slot wait count",
      "Updates that waited for a slot still being "
      "copied from (the host ran a whole ring ahead of the GPU)",
      0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
gcg_param_block_init (GcgParamBlock *self)
{
  self->fields = g_array_new (FALSE, TRUE, sizeof (Field));
  g_array_set_clear_func (self->fields, clear_field);
}

/**
 * gcg_param_block_new:
 *
 * Makes an empty parameter block; add its fields, then allocate it.
 *
 * Returns: (transfer full): a new, empty parameter block
 *
 * Since: 0.1
 */
GcgParamBlock *
gcg_param_block_new (void)
{
  return g_object_new (GCG_TYPE_PARAM_BLOCK, NULL);
}

static gboolean
check_field_name (GcgParamBlock *self, const gchar *name, GError **error)
{
  if (*name == '\0' || strlen (name) > 64) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Parameter block field name \"%s\" must have 1 to 64 characters", name);
    return FALSE;
  }
  if (gcg_param_block_lookup (self, name) >= 0) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Parameter block already has a field \"%s\"", name);
    return FALSE;
  }
  return TRUE;
}

/* Appends a field of @size bytes aligned to @align; @bytes is the size of
 * a bytes field, 0 for a scalar. */
static gint
append_field (GcgParamBlock *self, const gchar *name, GcgScalarType type,
    gsize size, gsize align, gsize bytes, GError **error)
{
  Field field = { NULL, type, 0, bytes };
  gsize new_size;

  if (self->device) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Cannot add field \"%s\": the parameter block is already allocated "
        "and its layout is frozen",
        name);
    return -1;
  }
  if (!check_field_name (self, name, error))
    return -1;
  field.offset = (self->size + align - 1) & ~(align - 1);
  /* catch gsize overflow before the bound */
  if (field.offset > MAX_BLOCK_SIZE || size > MAX_BLOCK_SIZE
      || field.offset + size > MAX_BLOCK_SIZE) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Parameter block would exceed %d bytes", MAX_BLOCK_SIZE);
    return -1;
  }
  new_size = (field.offset + size + 15) & ~(gsize) 15;
  field.name = g_strdup (name);
  g_array_append_val (self->fields, field);
  self->staging = g_realloc (self->staging, new_size);
  memset (self->staging + self->size, 0, new_size - self->size);
  /* Keep the unpadded end so the next field packs right after this one. */
  self->size = field.offset + size;
  return (gint) self->fields->len - 1;
}

/**
 * gcg_param_block_add_field:
 * @self: a #GcgParamBlock
 * @name: a unique field name
 * @type: the field's type
 * @error: return location for a #GError, or %NULL
 *
 * Appends a field, initialised to zero.  Fields can only be added before
 * gcg_param_block_allocate().
 *
 * Returns: the index of the new field, or -1 with @error set
 *
 * Since: 0.1
 */
gint
gcg_param_block_add_field (GcgParamBlock *self, const gchar *name,
    GcgScalarType type, GError **error)
{
  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), -1);
  g_return_val_if_fail (name != NULL, -1);
  g_return_val_if_fail (type <= GCG_SCALAR_TYPE_DOUBLE, -1);

  return append_field (self, name, type, scalar_size (type), scalar_size (type),
      0, error);
}

/**
 * gcg_param_block_add_bytes:
 * @self: a #GcgParamBlock
 * @name: a unique field name
 * @size: the field's size in bytes, at least 1
 * @align: the field's alignment in the device struct: a power of two up to
 *   256 (device allocations are 256-byte aligned)
 * @error: return location for a #GError, or %NULL
 *
 * Appends an opaque field of @size bytes, initialised to zero: a whole C
 * struct that a kernel reads through one pointer (see
 * gcg_param_block_get_field_device_ptr()).  Set it with
 * gcg_param_block_set_bytes(); the scalar setters and getters refuse it.
 * Fields can only be added before gcg_param_block_allocate().
 *
 * Returns: the index of the new field, or -1 with @error set
 *
 * Since: 0.1
 */
gint
gcg_param_block_add_bytes (GcgParamBlock *self, const gchar *name, gsize size,
    gsize align, GError **error)
{
  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), -1);
  g_return_val_if_fail (name != NULL, -1);

  if (align == 0 || align > 256 || (align & (align - 1)) != 0) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Bytes field \"%s\": alignment %" G_GSIZE_FORMAT " is not a power "
        "of two from 1 to 256",
        name, align);
    return -1;
  }
  if (size == 0 || size > MAX_BLOCK_SIZE) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Bytes field \"%s\": size %" G_GSIZE_FORMAT " is not from 1 to %d",
        name, size, MAX_BLOCK_SIZE);
    return -1;
  }
  return append_field (self, name, GCG_SCALAR_TYPE_UINT64, size, align, size,
      error);
}

/**
 * gcg_param_block_lookup:
 * @self: a #GcgParamBlock
 * @name: a field name
 *
 * Finds a field by name.
 *
 * Returns: the index of the field named @name, or -1
 *
 * Since: 0.1
 */
gint
gcg_param_block_lookup (GcgParamBlock *self, const gchar *name)
{
  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), -1);
  g_return_val_if_fail (name != NULL, -1);

  for (guint i = 0; i < self->fields->len; i++) {
    if (strcmp (g_array_index (self->fields, Field, i).name, name) == 0)
      return (gint) i;
  }
  return -1;
}

/**
 * gcg_param_block_get_n_fields:
 * @self: a #GcgParamBlock
 *
 * Counts the block's fields.
 *
 * Returns: the number of fields
 *
 * Since: 0.1
 */
guint
gcg_param_block_get_n_fields (GcgParamBlock *self)
{
  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), 0);
  return self->fields->len;
}

/**
 * gcg_param_block_get_size:
 * @self: a #GcgParamBlock
 *
 * Gets the size of the device struct.
 *
 * Returns: the size of the device struct in bytes, a multiple of 16
 *
 * Since: 0.1
 */
gsize
gcg_param_block_get_size (GcgParamBlock *self)
{
  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), 0);
  return (self->size + 15) & ~(gsize) 15;
}

/**
 * gcg_param_block_get_field_offset:
 * @self: a #GcgParamBlock
 * @index: a field index
 *
 * Gets where a field lies in the device struct.
 *
 * Returns: the byte offset of the field in the device struct
 *
 * Since: 0.1
 */
gsize
gcg_param_block_get_field_offset (GcgParamBlock *self, guint index)
{
  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), 0);
  g_return_val_if_fail (index < self->fields->len, 0);
  return g_array_index (self->fields, Field, index).offset;
}

static gboolean
out_of_range (const Field *field, const gchar *what, GError **error)
{
  g_autofree gchar *type = g_enum_to_string (GCG_TYPE_SCALAR_TYPE, field->type);

  g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "Value %s does not fit parameter \"%s\" (%s)", what, field->name, type);
  return FALSE;
}

static Field *
get_field (GcgParamBlock *self, guint index)
{
  return &g_array_index (self->fields, Field, index);
}

/* Scalar setters refuse a bytes field: a number cannot say which of its
 * bytes it would fill. */
static gboolean
check_scalar (const Field *field, GError **error)
{
  if (field->size == 0)
    return TRUE;
  g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
      "Parameter \"%s\" is a bytes field: set it with "
      "gcg_param_block_set_bytes()",
      field->name);
  return FALSE;
}

static void
store_int (GcgParamBlock *self, const Field *field, gint64 value)
{
  guint8 *dst = self->staging + field->offset;
  gint32 i32 = (gint32) value;
  guint32 u32 = (guint32) value;
  gfloat f = (gfloat) value;
  gdouble d = (gdouble) value;

  switch (field->type) {
    case GCG_SCALAR_TYPE_INT32:
      memcpy (dst, &i32, 4);
      break;
    case GCG_SCALAR_TYPE_UINT32:
      memcpy (dst, &u32, 4);
      break;
    case GCG_SCALAR_TYPE_FLOAT:
      memcpy (dst, &f, 4);
      break;
    case GCG_SCALAR_TYPE_DOUBLE:
      memcpy (dst, &d, 8);
      break;
    default:
      memcpy (dst, &value, 8);
      break;
  }
}

/**
 * gcg_param_block_set_int:
 * @self: a #GcgParamBlock
 * @index: a field index
 * @value: the new value
 * @error: return location for a #GError, or %NULL
 *
 * Stages a value for the next gcg_param_block_update().  Integer fields
 * refuse values outside their range; float fields take the nearest value.
 *
 * Returns: %TRUE on success; on error the field keeps its value
 *
 * Since: 0.1
 */
gboolean
gcg_param_block_set_int (GcgParamBlock *self, guint index, gint64 value,
    GError **error)
{
  const Field *field;
  gchar text[32];

  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), FALSE);
  g_return_val_if_fail (index < self->fields->len, FALSE);

  field = get_field (self, index);
  if (!check_scalar (field, error))
    return FALSE;
  g_snprintf (text, sizeof (text), "%" G_GINT64_FORMAT, value);
  if ((field->type == GCG_SCALAR_TYPE_INT32
          && (value < G_MININT32 || value > G_MAXINT32))
      || (field->type == GCG_SCALAR_TYPE_UINT32
          && (value < 0 || value > G_MAXUINT32))
      || (field->type == GCG_SCALAR_TYPE_UINT64 && value < 0))
    return out_of_range (field, text, error);
  store_int (self, field, value);
  return TRUE;
}

/**
 * gcg_param_block_set_uint:
 * @self: a #GcgParamBlock
 * @index: a field index
 * @value: the new value (a device pointer for pointer fields)
 * @error: return location for a #GError, or %NULL
 *
 * Like gcg_param_block_set_int() for unsigned values.
 *
 * Returns: %TRUE on success; on error the field keeps its value
 *
 * Since: 0.1
 */
gboolean
gcg_param_block_set_uint (GcgParamBlock *self, guint index, guint64 value,
    GError **error)
{
  const Field *field;
  gchar text[32];

  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), FALSE);
  g_return_val_if_fail (index < self->fields->len, FALSE);

  field = get_field (self, index);
  if (!check_scalar (field, error))
    return FALSE;
  if (field->type == GCG_SCALAR_TYPE_UINT64) {
    memcpy (self->staging + field->offset, &value, 8);
    return TRUE;
  }
  if (value > G_MAXINT64) {
    if (field->type == GCG_SCALAR_TYPE_FLOAT
        || field->type == GCG_SCALAR_TYPE_DOUBLE)
      return gcg_param_block_set_double (self, index, (gdouble) value, error);
    g_snprintf (text, sizeof (text), "%" G_GUINT64_FORMAT, value);
    return out_of_range (field, text, error);
  }
  return gcg_param_block_set_int (self, index, (gint64) value, error);
}

/**
 * gcg_param_block_set_double:
 * @self: a #GcgParamBlock
 * @index: a field index
 * @value: the new value
 * @error: return location for a #GError, or %NULL
 *
 * Stages a value.  NaN is refused for every field (a NaN gain or offset
 * would silently spoil every pixel); integer fields take only integral
 * values within their range; float fields refuse finite values beyond
 * FLT_MAX.
 *
 * Returns: %TRUE on success; on error the field keeps its value
 *
 * Since: 0.1
 */
gboolean
gcg_param_block_set_double (GcgParamBlock *self, guint index, gdouble value,
    GError **error)
{
  const Field *field;
  gchar text[G_ASCII_DTOSTR_BUF_SIZE];
  gfloat f = (gfloat) value;

  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), FALSE);
  g_return_val_if_fail (index < self->fields->len, FALSE);

  field = get_field (self, index);
  if (!check_scalar (field, error))
    return FALSE;
  g_ascii_dtostr (text, sizeof (text), value);
  if (isnan (value))
    return out_of_range (field, text, error);
  switch (field->type) {
    case GCG_SCALAR_TYPE_DOUBLE:
      memcpy (self->staging + field->offset, &value, 8);
      return TRUE;
    case GCG_SCALAR_TYPE_FLOAT:
      if (isinf (f) && !isinf (value))
        return out_of_range (field, text, error);
      memcpy (self->staging + field->offset, &f, 4);
      return TRUE;
    case GCG_SCALAR_TYPE_UINT64:
      if (value != floor (value) || value < 0
          || value >= 18446744073709551616.0)
        return out_of_range (field, text, error);
      return gcg_param_block_set_uint (self, index, (guint64) value, error);
    default:
      if (value != floor (value) || value < -9223372036854775808.0
          || value >= 9223372036854775808.0)
        return out_of_range (field, text, error);
      return gcg_param_block_set_int (self, index, (gint64) value, error);
  }
}

/**
 * gcg_param_block_set_value:
 * @self: a #GcgParamBlock
 * @name: a field name
 * @value: a #GValue holding a number (any integer type, float, double or
 *   boolean)
 * @error: return location for a #GError, or %NULL
 *
 * Stages a value by field name, for bindings and for named values taken
 * from metadata.  Same checks as the typed setters.
 *
 * Returns: %TRUE on success
 *
 * Since: 0.1
 */
gboolean
gcg_param_block_set_value (GcgParamBlock *self, const gchar *name,
    const GValue *value, GError **error)
{
  gint index;
  GValue as_double = G_VALUE_INIT;
  gdouble d;

  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), FALSE);
  g_return_val_if_fail (name != NULL && G_IS_VALUE (value), FALSE);

  index = gcg_param_block_lookup (self, name);
  if (index < 0) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Parameter block has no field \"%s\"", name);
    return FALSE;
  }
  if (G_VALUE_HOLDS_UINT64 (value))
    return gcg_param_block_set_uint (self, index, g_value_get_uint64 (value),
        error);
  if (G_VALUE_HOLDS_INT64 (value))
    return gcg_param_block_set_int (self, index, g_value_get_int64 (value),
        error);
  g_value_init (&as_double, G_TYPE_DOUBLE);
  if (!g_value_type_transformable (G_VALUE_TYPE (value), G_TYPE_DOUBLE)
      || !g_value_transform (value, &as_double)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Parameter \"%s\": a %s is not a number", name,
        G_VALUE_TYPE_NAME (value));
    return FALSE;
  }
  d = g_value_get_double (&as_double);
  return gcg_param_block_set_double (self, index, d, error);
}

/**
 * gcg_param_block_get_double:
 * @self: a #GcgParamBlock
 * @index: a field index
 *
 * Reads back a field's value as last set on the host.
 *
 * Returns: the staged value of a field, converted to double
 *
 * Since: 0.1
 */
gdouble
gcg_param_block_get_double (GcgParamBlock *self, guint index)
{
  const Field *field;
  const guint8 *src;
  union
  {
    gint32 i32;
    guint32 u32;
    gint64 i64;
    guint64 u64;
    gfloat f;
    gdouble d;
  } v;

  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), 0);
  g_return_val_if_fail (index < self->fields->len, 0);

  field = get_field (self, index);
  g_return_val_if_fail (field->size == 0, 0);
  src = self->staging + field->offset;
  memcpy (&v, src, scalar_size (field->type));
  switch (field->type) {
    case GCG_SCALAR_TYPE_INT32:
      return v.i32;
    case GCG_SCALAR_TYPE_UINT32:
      return v.u32;
    case GCG_SCALAR_TYPE_INT64:
      return (gdouble) v.i64;
    case GCG_SCALAR_TYPE_UINT64:
      return (gdouble) v.u64;
    case GCG_SCALAR_TYPE_FLOAT:
      return v.f;
    default:
      return v.d;
  }
}

/**
 * gcg_param_block_set_bytes:
 * @self: a #GcgParamBlock
 * @index: the index of a field made with gcg_param_block_add_bytes()
 * @data: (array length=size) (element-type guint8): the new contents
 * @size: the number of bytes in @data: the field's size
 * @error: return location for a #GError, or %NULL
 *
 * Stages the whole contents of a bytes field for the next
 * gcg_param_block_update(): one memcpy, no checks of the contents.
 *
 * Returns: %TRUE on success; on error (not a bytes field, wrong size) the
 *   field keeps its contents
 *
 * Since: 0.1
 */
gboolean
gcg_param_block_set_bytes (GcgParamBlock *self, guint index, gconstpointer data,
    gsize size, GError **error)
{
  const Field *field;

  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), FALSE);
  g_return_val_if_fail (index < self->fields->len, FALSE);
  g_return_val_if_fail (data != NULL || size == 0, FALSE);

  field = get_field (self, index);
  if (field->size == 0) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Parameter \"%s\" is a scalar, not a bytes field", field->name);
    return FALSE;
  }
  if (size != field->size) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Bytes field \"%s\" has %" G_GSIZE_FORMAT
        " bytes, not %" G_GSIZE_FORMAT,
        field->name, field->size, size);
    return FALSE;
  }
  memcpy (self->staging + field->offset, data, size);
  return TRUE;
}

/**
 * gcg_param_block_get_field_size:
 * @self: a #GcgParamBlock
 * @index: a field index
 *
 * Gets the size of a field in the device struct.
 *
 * Returns: the size of the field in the device struct, in bytes
 *
 * Since: 0.1
 */
gsize
gcg_param_block_get_field_size (GcgParamBlock *self, guint index)
{
  const Field *field;

  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), 0);
  g_return_val_if_fail (index < self->fields->len, 0);

  field = get_field (self, index);
  return field->size ? field->size : scalar_size (field->type);
}

static gboolean
allocate_device (GcgParamBlock *self, GError **error)
{
  gsize size = gcg_param_block_get_size (self);

  self->slot_stride = (size + SLOT_ALIGN - 1) & ~(gsize) (SLOT_ALIGN - 1);
  if (!GCG_CU_OK (error, cuMemAlloc, &self->device, size)
      || !GCG_CU_OK (error, cuMemHostAlloc, (void **) &self->ring,
          self->slot_stride * self->ring_depth, CU_MEMHOSTALLOC_PORTABLE))
    return FALSE;
  for (guint i = 0; i < self->ring_depth; i++) {
    if (!GCG_CU_OK (error, cuEventCreate, &self->slots[i].event,
            CU_EVENT_DISABLE_TIMING))
      return FALSE;
  }
  /* The device struct starts with the staged values, not garbage. */
  return GCG_CU_OK (error, cuMemcpyHtoD, self->device, self->staging, size);
}

/**
 * gcg_param_block_allocate:
 * @self: a #GcgParamBlock with at least one field
 * @context: the #GcgContext the device struct lives on
 * @ring_depth: number of pinned staging slots, 0 for the default (8)
 * @error: return location for a #GError, or %NULL
 *
 * Allocates the device struct (initialised with the staged values) and the
 * pinned ring, and freezes the layout.  Device addresses are valid from
 * now on, so this must happen before any capture that records them.
 *
 * Returns: %TRUE on success; on error nothing stays allocated
 *
 * Since: 0.1
 */
gboolean
gcg_param_block_allocate (GcgParamBlock *self, GcgContext *context,
    guint ring_depth, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), FALSE);
  g_return_val_if_fail (GCG_IS_CONTEXT (context), FALSE);
  g_return_val_if_fail (self->context == NULL, FALSE);
  g_return_val_if_fail (ring_depth <= MAX_RING_DEPTH, FALSE);

  if (self->fields->len == 0) {
    g_set_error_literal (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "A parameter block needs at least one field before allocation");
    return FALSE;
  }
  if (!gcg__context_guard_enter (&guard, context, error))
    return FALSE;
  self->context = g_object_ref (context);
  self->ring_depth = ring_depth ? ring_depth : DEFAULT_RING_DEPTH;
  self->slots = g_new0 (RingSlot, self->ring_depth);
  if (!allocate_device (self, error)) {
    release_device (self);
    g_clear_object (&self->context);
    g_clear_pointer (&self->slots, g_free);
    self->ring_depth = 0;
    return FALSE;
  }
  return TRUE;
}

/**
 * gcg_param_block_is_allocated:
 * @self: a #GcgParamBlock
 *
 * Tells whether the block's device and pinned memory are allocated.
 *
 * Returns: %TRUE once gcg_param_block_allocate() succeeded
 *
 * Since: 0.1
 */
gboolean
gcg_param_block_is_allocated (GcgParamBlock *self)
{
  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), FALSE);
  return self->device != 0;
}

/**
 * gcg_param_block_get_device_ptr:
 * @self: an allocated #GcgParamBlock
 *
 * Gets the device address of the whole struct, which kernels take as their
 * parameter pointer.
 *
 * Returns: the device address of the struct (a CUdeviceptr), 0 before
 *   allocation
 *
 * Since: 0.1
 */
guint64
gcg_param_block_get_device_ptr (GcgParamBlock *self)
{
  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), 0);
  return self->device;
}

/**
 * gcg_param_block_get_field_device_ptr:
 * @self: an allocated #GcgParamBlock
 * @index: a field index
 *
 * Gets the device address of one field.
 *
 * Returns: the device address of one field, for kernels that take a
 *   pointer to a single value; 0 before allocation
 *
 * Since: 0.1
 */
guint64
gcg_param_block_get_field_device_ptr (GcgParamBlock *self, guint index)
{
  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), 0);
  g_return_val_if_fail (index < self->fields->len, 0);
  if (self->device == 0)
    return 0;
  return self->device + get_field (self, index)->offset;
}

/* @done's copy is complete, and so every earlier one of its run (runs
 * only grow: knowledge of a later run is kept). */
static void
note_done (GcgParamBlock *self, const RingSlot *done)
{
  if (done->run > self->known_run
      || (done->run == self->known_run && done->seq > self->known_seq)) {
    self->known_run = done->run;
    self->known_seq = done->seq;
  }
}

/* Whether the event of @c, found complete, would prove @slot's copy done:
 * a later update of the same run. */
static gboolean
proves (const RingSlot *c, const RingSlot *slot)
{
  return c->pending && c->run == slot->run && c->seq > slot->seq;
}

/* TRUE when @slot's copy is known done without asking the driver; else
 * asks about a later copy of its run half a ring on (usually done long
 * since when the host is not a ring ahead), so that one query in about
 * ring_depth / 2 updates proves the slots before it done. */
static gboolean
slot_known_done (GcgParamBlock *self, guint slot)
{
  const RingSlot *s = &self->slots[slot];
  const RingSlot *later =
      &self->slots[(slot + self->ring_depth / 2) % self->ring_depth];

  if (s->run == self->known_run && s->seq <= self->known_seq)
    return TRUE;
  if (self->ring_depth < 4 || !proves (later, s)
      || GCG_CU (cuEventQuery, later->event) != CUDA_SUCCESS)
    return FALSE;
  note_done (self, later);
  return TRUE;
}

/* Makes sure the slot's previous copy is done before it is rewritten. */
static gboolean
claim_slot (GcgParamBlock *self, guint slot, GError **error)
{
  RingSlot *s = &self->slots[slot];
  CUresult res;

  if (!s->pending)
    return TRUE;
  if (slot_known_done (self, slot)) {
    s->pending = FALSE;
    return TRUE;
  }
  res = GCG_CU (cuEventQuery, s->event);
  if (res == CUDA_ERROR_NOT_READY) {
    self->slot_wait_count++;
    res = GCG_CU (cuEventSynchronize, s->event);
  }
  if (!gcg__cuda_result (res, "cuEventSynchronize", error, __FILE__, __LINE__,
          G_STRFUNC))
    return FALSE;
  note_done (self, s);
  s->pending = FALSE;
  return TRUE;
}

/**
 * gcg_param_block_update:
 * @self: an allocated #GcgParamBlock
 * @stream: the stream the reading work (a graph replay) runs on
 * @error: return location for a #GError, or %NULL
 *
 * Queues one host-to-device copy of every staged value on @stream, to be
 * followed by the replay that reads them.  Waits only when the host is a
 * whole ring ahead of the GPU.  Never call this inside a capture: the copy
 * would be recorded with one slot's address.
 *
 * Returns: %TRUE on success; on error the device struct keeps its values
 *
 * Since: 0.1
 */
gboolean
gcg_param_block_update (GcgParamBlock *self, GcgStream *stream, GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  CUstream cu_stream;
  guint slot;
  guint8 *src;

  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), FALSE);
  g_return_val_if_fail (GCG_IS_STREAM (stream), FALSE);
  g_return_val_if_fail (self->device != 0, FALSE);

  slot = self->next_slot;
  if (!gcg__context_guard_enter (&guard, self->context, error)
      || !claim_slot (self, slot, error))
    return FALSE;
  src = self->ring + (gsize) slot * self->slot_stride;
  memcpy (src, self->staging, gcg_param_block_get_size (self));
  cu_stream = gcg__stream_get_cu (stream);
  if (!GCG_CU_OK (error, cuMemcpyHtoDAsync, self->device, src,
          gcg_param_block_get_size (self), cu_stream))
    return FALSE;
  /* If the event cannot be recorded, finish the copy now so the slot is
   * free again and nothing is left pending. */
  if (!GCG_CU_OK (error, cuEventRecord, self->slots[slot].event, cu_stream)) {
    GCG_CU_WARN (cuStreamSynchronize, cu_stream);
    return FALSE;
  }
  if (stream != self->run_stream) {
    g_set_object (&self->run_stream, stream);
    self->run++;
  }
  self->update_count++;
  self->slots[slot] = (RingSlot) { self->slots[slot].event, TRUE,
    self->update_count, self->run };
  self->next_slot = (slot + 1) % self->ring_depth;
  return TRUE;
}

/**
 * gcg_param_block_get_update_count:
 * @self: a #GcgParamBlock
 *
 * Counts the host-to-device refreshes issued.
 *
 * Returns: the number of refreshes issued
 *
 * Since: 0.1
 */
guint64
gcg_param_block_get_update_count (GcgParamBlock *self)
{
  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), 0);
  return self->update_count;
}

/**
 * gcg_param_block_get_slot_wait_count:
 * @self: a #GcgParamBlock
 *
 * Counts the updates that waited for a staging slot still being copied from.
 *
 * Returns: the number of updates that had to wait for a slot
 *
 * Since: 0.1
 */
guint64
gcg_param_block_get_slot_wait_count (GcgParamBlock *self)
{
  g_return_val_if_fail (GCG_IS_PARAM_BLOCK (self), 0);
  return self->slot_wait_count;
}
