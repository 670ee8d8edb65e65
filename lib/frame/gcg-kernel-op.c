/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/**
 * GcgKernelOp:
 *
 * The user's own CUDA kernel, as a step a #GcgFrameChain runs before or
 * after its built-in op, in the same captured graph
 * (gcg_frame_chain_add_kernel()).  Its code is CUDA C++ source, compiled
 * with NVRTC for the device, or PTX, cubin or fatbin; its entry point
 * takes one argument, a pointer to the struct of the declared parameters
 * (docs/user-kernels.md: `extern "C" __global__ void NAME (const
 * gcg_params *p)`).
 *
 * Everything that can fail is tried when the op is made: the parameter
 * declaration is parsed, source is compiled (the NVRTC log, line numbers
 * intact, becomes the error) and, given a #GcgContext, the code is loaded
 * and its entry point looked up.  Without a context, source is compiled
 * for sm_75 as a check (and again for the device, from the cache, when
 * the op joins a chain); a binary's entry point is then only checked
 * when it joins one.
 *
 * An op is immutable once made, except its launch geometry, which is
 * read when it joins a chain; one op may join several chains.
 *
 * Since: 0.2
 */
#include "gcg-kernel-op-private.h"
#include "gcg-error.h"
#include "gcg-kernel-code-private.h"
#include "gcg-kernel-decl-private.h"
#include "gcg-kernel-stage-private.h"
#include "gcg-nvrtc-private.h"

#include <string.h>

struct _GcgKernelOp
{
  GObject parent_instance;

  gchar *name;
  gchar *entry;
  gchar *params;
  gboolean is_source;
  GBytes *code;
  gchar *cache_dir;
  guint block[2];
  gboolean block_set;           /* by gcg_kernel_op_set_block() */
  guint grid[3];
};

G_DEFINE_FINAL_TYPE (GcgKernelOp, gcg_kernel_op, G_TYPE_OBJECT)

static void
gcg_kernel_op_finalize (GObject *object)
{
  GcgKernelOp *self = GCG_KERNEL_OP (object);

  g_free (self->name);
  g_free (self->entry);
  g_free (self->params);
  g_clear_pointer (&self->code, g_bytes_unref);
  g_free (self->cache_dir);
  G_OBJECT_CLASS (gcg_kernel_op_parent_class)->finalize (object);
}

static void
gcg_kernel_op_class_init (GcgKernelOpClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = gcg_kernel_op_finalize;
}

static void
gcg_kernel_op_init (GcgKernelOp *self)
{
  self->block[0] = self->block[1] = GCG_KERNEL_OP_DEFAULT_BLOCK;
}

/* The stage's description of this op's code, for an output of
 * @width × @height × @depth (the grid's default). */
static void
fill_spec (GcgKernelOp *self, guint width, guint height, guint depth,
    GcgKernelStageSpec *spec)
{
  memset (spec, 0, sizeof (*spec));
  spec->kind = self->is_source ? GCG_KERNEL_CODE_SOURCE
                               : GCG_KERNEL_CODE_BINARY;
  spec->name = self->name;
  spec->code = self->code;
  spec->entry = self->entry;
  spec->decl = self->params;
  memcpy (spec->block, self->block, sizeof (spec->block));
  memcpy (spec->grid, self->grid, sizeof (spec->grid));
  if (spec->grid[2] == 0)
    spec->grid[2] = MAX (depth, 1);
  spec->width = width;
  spec->height = height;
  spec->cache_dir = self->cache_dir;
}

/* Compiled code names each kernel in its ELF string table, between
 * NULs: a missing entry point is known without a device. */
static gboolean
image_has_entry (GBytes *image, const gchar *entry)
{
  gsize size = 0, len = strlen (entry);
  const guint8 *data = g_bytes_get_data (image, &size);

  for (gsize i = 0; i + len + 1 < size; i++) {
    if (data[i] == '\0' && data[i + 1 + len] == '\0'
        && memcmp (data + i + 1, entry, len) == 0)
      return TRUE;
  }
  return FALSE;
}

/* Without a device: compile the source for the oldest architecture
 * NVRTC knows and look for the entry point in what it made. */
static gboolean
check_source (GcgKernelOp *self, GError **error)
{
  g_autoptr (GcgKernelDecl) decl = gcg__kernel_decl_parse (self->params, error);
  g_autoptr (GBytes) image = NULL;

  if (decl == NULL) {
    g_prefix_error (error, "Kernel '%s': ", self->name);
    return FALSE;
  }
  image = gcg__kernel_code_compile (decl, self->code, self->name, self->entry,
      GCG_KERNEL_OP_CHECK_SM, NULL, self->cache_dir, error);
  if (image == NULL)
    return FALSE;
  if (!image_has_entry (image, self->entry)) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Kernel '%s': no entry point '%s' in the compiled code (declare "
        "it extern \"C\" __global__)",
        self->name, self->entry);
    return FALSE;
  }
  return TRUE;
}

/* What can be checked now: with a context everything (a probe stage is
 * made and freed), without one the declaration and, for source, the
 * compile. */
static gboolean
check_op (GcgKernelOp *self, GcgContext *context, GError **error)
{
  g_autoptr (GcgKernelDecl) decl = NULL;
  GcgFrameStage *probe;

  decl = gcg__kernel_decl_parse (self->params, error);
  if (decl == NULL) {
    g_prefix_error (error, "Kernel '%s': ", self->name);
    return FALSE;
  }
  if (context != NULL) {
    /* Its role is known only when it joins a chain or batch: the probe
     * takes the one its declaration asks for (a declaration naming both
     * roles' fields fails either way). */
    static const GcgKernelPpValues no_values = { 0 };

    probe = gcg__kernel_decl_reads_output (decl)
        ? gcg__kernel_op_make_postprocess_stage (self, context, 1, &no_values,
              error)
        : gcg__kernel_op_make_stage (self, context, 1, 1, 1, error);
    gcg__frame_stage_free (probe);
    return probe != NULL;
  }
  return !self->is_source || check_source (self, error);
}

/* The constructor behind the public ones; @cache_dir (nullable) keeps
 * compiled source on disk across processes. */
GcgKernelOp *
gcg__kernel_op_new_full (GcgContext *context, gboolean is_source, GBytes *code,
    const gchar *name, const gchar *entry, const gchar *params,
    const gchar *cache_dir, GError **error)
{
  g_autoptr (GcgKernelOp) self = NULL;
  gsize size = code ? g_bytes_get_size (code) : 0;

  if (entry == NULL || *entry == '\0') {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Kernel '%s': needs an entry point, the name of its extern \"C\" "
        "__global__ function",
        name ? name : "(unnamed)");
    return NULL;
  }
  if (!gcg__kernel_code_check_entry (name ? name : "(unnamed)", entry,
          is_source, error))
    return NULL;
  if (size == 0 || size > GCG_KERNEL_STAGE_MAX_CODE) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Kernel '%s': its code is %" G_GSIZE_FORMAT " bytes (1 to %d "
        "allowed)",
        name ? name : entry, size, GCG_KERNEL_STAGE_MAX_CODE);
    return NULL;
  }
  if (!is_source
      && !gcg__kernel_code_check_binary (name ? name : entry, code, error))
    return NULL;
  self = g_object_new (GCG_TYPE_KERNEL_OP, NULL);
  self->name = g_strdup (name ? name : entry);
  self->entry = g_strdup (entry);
  self->params = g_strdup (params ? params : "");
  self->is_source = is_source;
  self->code = g_bytes_ref (code);
  self->cache_dir = g_strdup (cache_dir);
  if (!check_op (self, context, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * gcg_kernel_op_new_from_source:
 * @context: (nullable): the #GcgContext whose device the code is compiled
 *   for, or %NULL to check the source now and compile it for the device
 *   when the op joins a chain
 * @source: CUDA C++ source; the parameters' struct is declared before it
 *   as `gcg_params`
 * @entry: the name of its `extern "C" __global__` entry point
 * @params: (nullable): the parameter declaration, e.g.
 *   `"img=dst0,pitch=dst_pitch0,gain=f32:1.5,level=meta:level"` (see
 *   docs/user-kernels.md); %NULL for none
 * @error: return location for a #GError, or %NULL
 *
 * Makes an op of CUDA source, compiled with NVRTC (loaded at run time;
 * compiled code is cached in memory for the process).  A compile error
 * carries NVRTC's log, line numbers as in @source.
 *
 * Returns: (transfer full) (nullable): the op, or %NULL with @error set
 *   (%GCG_ERROR_INVALID_ARGUMENT for a bad declaration, entry point or
 *   source; NVRTC's absence is an error naming what was looked for)
 *
 * Since: 0.2
 */
GcgKernelOp *
gcg_kernel_op_new_from_source (GcgContext *context, const gchar *source,
    const gchar *entry, const gchar *params, GError **error)
{
  g_autoptr (GBytes) code = NULL;

  g_return_val_if_fail (context == NULL || GCG_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (source != NULL, NULL);

  code = g_bytes_new (source, strlen (source));
  return gcg__kernel_op_new_full (context, TRUE, code, NULL, entry, params,
      NULL, error);
}

/**
 * gcg_kernel_op_new_from_binary:
 * @context: (nullable): a #GcgContext to load the code in now, checking
 *   its entry point, or %NULL to check it when the op joins a chain
 * @code: PTX text, a cubin or a fatbin
 * @entry: the name of its entry point
 * @params: (nullable): the parameter declaration; %NULL for none
 * @error: return location for a #GError, or %NULL
 *
 * Makes an op of compiled code, loaded by the driver as it is.
 *
 * Returns: (transfer full) (nullable): the op, or %NULL with @error set
 *
 * Since: 0.2
 */
GcgKernelOp *
gcg_kernel_op_new_from_binary (GcgContext *context, GBytes *code,
    const gchar *entry, const gchar *params, GError **error)
{
  g_return_val_if_fail (context == NULL || GCG_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (code != NULL, NULL);

  return gcg__kernel_op_new_full (context, FALSE, code, NULL, entry, params,
      NULL, error);
}

/**
 * gcg_kernel_op_new_from_file:
 * @context: (nullable): as for gcg_kernel_op_new_from_source()
 * @path: (type filename): a `.cu` or `.cuh` file (source), or a `.ptx`,
 *   `.cubin` or `.fatbin` file
 * @entry: the name of its entry point
 * @params: (nullable): the parameter declaration; %NULL for none
 * @error: return location for a #GError, or %NULL
 *
 * Makes an op of the code in a file, named after the file in errors.  A
 * file that is not a regular one, is empty or is larger than 256 MiB is
 * refused before it is read.
 *
 * Returns: (transfer full) (nullable): the op, or %NULL with @error set (a
 *   #G_FILE_ERROR when the file cannot be read)
 *
 * Since: 0.2
 */
GcgKernelOp *
gcg_kernel_op_new_from_file (GcgContext *context, const gchar *path,
    const gchar *entry, const gchar *params, GError **error)
{
  g_autofree gchar *name = NULL;
  g_autoptr (GBytes) code = NULL;

  g_return_val_if_fail (context == NULL || GCG_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  code = gcg__kernel_code_read_file (path, GCG_KERNEL_STAGE_MAX_CODE, error);
  if (code == NULL)
    return NULL;
  name = g_filename_display_basename (path);
  return gcg__kernel_op_new_full (context,
      g_str_has_suffix (path, ".cu") || g_str_has_suffix (path, ".cuh"), code,
      name, entry, params, NULL, error);
}

/* A stage of this op's code for a chain or batch, loaded in @context,
 * whose grid covers @width × @height and is @depth deep unless one was
 * set. */
GcgFrameStage *
gcg__kernel_op_make_stage (GcgKernelOp *self, GcgContext *context, guint width,
    guint height, guint depth, GError **error)
{
  GcgKernelStageSpec spec;

  fill_spec (self, width, height, depth, &spec);
  return gcg__kernel_stage_new (context, &spec, error);
}

GcgFrameStage *
gcg__kernel_op_make_postprocess_stage (GcgKernelOp *self, GcgContext *context,
    guint max_items, const GcgKernelPpValues *pp, GError **error)
{
  GcgKernelStageSpec spec;

  fill_spec (self, 1, 1, 1, &spec);
  if (!self->block_set) {
    spec.block[0] = GCG_KERNEL_OP_POSTPROCESS_BLOCK;
    spec.block[1] = 1;
  }
  spec.grid[0] = self->grid[0] ? self->grid[0] : MAX (max_items, 1);
  spec.grid[1] = self->grid[1] ? self->grid[1] : 1;
  spec.grid[2] = self->grid[2] ? self->grid[2] : 1;
  spec.postprocess = pp;
  return gcg__kernel_stage_new (context, &spec, error);
}

/**
 * gcg_kernel_op_get_name:
 * @self: a #GcgKernelOp
 *
 * Gets the name errors give the op: its file's name, or its entry point.
 *
 * Returns: (transfer none): the name
 *
 * Since: 0.2
 */
const gchar *
gcg_kernel_op_get_name (GcgKernelOp *self)
{
  g_return_val_if_fail (GCG_IS_KERNEL_OP (self), NULL);
  return self->name;
}

/**
 * gcg_kernel_op_get_entry:
 * @self: a #GcgKernelOp
 *
 * Gets the op's entry point.
 *
 * Returns: (transfer none): the entry point's name
 *
 * Since: 0.2
 */
const gchar *
gcg_kernel_op_get_entry (GcgKernelOp *self)
{
  g_return_val_if_fail (GCG_IS_KERNEL_OP (self), NULL);
  return self->entry;
}

/**
 * gcg_kernel_op_get_params:
 * @self: a #GcgKernelOp
 *
 * Gets the op's parameter declaration.
 *
 * Returns: (transfer none): the declaration ("" for none)
 *
 * Since: 0.2
 */
const gchar *
gcg_kernel_op_get_params (GcgKernelOp *self)
{
  g_return_val_if_fail (GCG_IS_KERNEL_OP (self), NULL);
  return self->params;
}

/**
 * gcg_kernel_op_is_source:
 * @self: a #GcgKernelOp
 *
 * Tells whether the op's code is source compiled with NVRTC.
 *
 * Returns: %TRUE for source, %FALSE for PTX, cubin or fatbin
 *
 * Since: 0.2
 */
gboolean
gcg_kernel_op_is_source (GcgKernelOp *self)
{
  g_return_val_if_fail (GCG_IS_KERNEL_OP (self), FALSE);
  return self->is_source;
}

/**
 * gcg_kernel_op_set_block:
 * @self: a #GcgKernelOp
 * @x: threads per block in x (1 to 1024)
 * @y: threads per block in y (1 to 1024)
 * @error: return location for a #GError, or %NULL
 *
 * Sets the block size of the launches made after this call (default
 * %GCG_KERNEL_OP_DEFAULT_BLOCK × %GCG_KERNEL_OP_DEFAULT_BLOCK; 256 × 1
 * for a postprocess kernel, gcg_frame_batch_set_postprocess_kernel(),
 * unless this was called).
 *
 * Returns: %TRUE, or %FALSE with %GCG_ERROR_INVALID_ARGUMENT when a size
 *   is 0 or @x × @y exceeds 1024; nothing changes then
 *
 * Since: 0.2
 */
gboolean
gcg_kernel_op_set_block (GcgKernelOp *self, guint x, guint y, GError **error)
{
  g_return_val_if_fail (GCG_IS_KERNEL_OP (self), FALSE);

  if (x == 0 || y == 0 || x > 1024 || y > 1024 || x * y > 1024) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Kernel '%s': a block of %u × %u threads (1 to 1024 in all)",
        self->name, x, y);
    return FALSE;
  }
  self->block[0] = x;
  self->block[1] = y;
  self->block_set = TRUE;
  return TRUE;
}

/**
 * gcg_kernel_op_get_block:
 * @self: a #GcgKernelOp
 * @x: (out) (optional): threads per block in x
 * @y: (out) (optional): threads per block in y
 *
 * Gets the block size.
 *
 * Since: 0.2
 */
void
gcg_kernel_op_get_block (GcgKernelOp *self, guint *x, guint *y)
{
  g_return_if_fail (GCG_IS_KERNEL_OP (self));
  if (x != NULL)
    *x = self->block[0];
  if (y != NULL)
    *y = self->block[1];
}

/**
 * gcg_kernel_op_set_grid:
 * @self: a #GcgKernelOp
 * @x: blocks in x, or 0 for enough blocks to cover the frame's width
 * @y: blocks in y, or 0 for enough blocks to cover its height
 * @z: blocks in z, or 0 for 1 (in a #GcgFrameBatch: one per tensor
 *   item, so `blockIdx.z` is the item)
 *
 * Sets the grid of the launches.  By default (all 0) it covers the frame
 * the kernel writes: the input's size before the built-in op, the
 * output's after it; a postprocess kernel's
 * (gcg_frame_batch_set_postprocess_kernel()) is one block per item of
 * the largest frame or batch in x, 1 in y and z.  Bounds are the
 * kernel's job: it gets the exact sizes through its parameters.
 *
 * Since: 0.2
 */
void
gcg_kernel_op_set_grid (GcgKernelOp *self, guint x, guint y, guint z)
{
  g_return_if_fail (GCG_IS_KERNEL_OP (self));
  self->grid[0] = x;
  self->grid[1] = y;
  self->grid[2] = z;
}

/**
 * gcg_kernel_op_get_grid:
 * @self: a #GcgKernelOp
 * @x: (out) (optional): blocks in x, 0 when derived
 * @y: (out) (optional): blocks in y, 0 when derived
 * @z: (out) (optional): blocks in z, 0 when derived
 *
 * Gets the grid as set.
 *
 * Since: 0.2
 */
void
gcg_kernel_op_get_grid (GcgKernelOp *self, guint *x, guint *y, guint *z)
{
  g_return_if_fail (GCG_IS_KERNEL_OP (self));
  if (x != NULL)
    *x = self->grid[0];
  if (y != NULL)
    *y = self->grid[1];
  if (z != NULL)
    *z = self->grid[2];
}
