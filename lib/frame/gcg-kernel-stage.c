/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Everything that can fail is done when the stage is made (declaration,
 * compile, module load, entry lookup), so an element knows it at
 * READY→PAUSED; per frame only the struct is filled and, eagerly, the
 * kernel launched.
 */
#include "gcg-kernel-stage-private.h"
#include "gcg-context-private.h"
#include "gcg-error.h"
#include "gcg-kernel-code-private.h"
#include "gcg-kernel-decl-private.h"
#include "gcg-stream-private.h"

#include <string.h>

#define DEFAULT_BLOCK 16

typedef struct
{
  GcgFrameStage parent;
  GcgContext *context;
  GcgKernelDecl *decl;
  gchar *name;
  CUmodule module;
  CUfunction function;
  guint block[2];
  guint grid[3];
  gboolean is_postprocess;
  GcgKernelPpValues pp;
} GcgKernelStage;

static gboolean
kernel_prepare (GcgFrameStage *stage, const GcgFrameStageIo *io, void *dst,
    GError **error)
{
  GcgKernelStage *self = (GcgKernelStage *) stage;

  return gcg__kernel_decl_fill (self->decl, self->name, io,
      self->is_postprocess ? &self->pp : NULL, dst, error);
}

static gboolean
kernel_launch (GcgFrameStage *stage, GcgStream *stream, guint64 arg,
    GError **error)
{
  GcgKernelStage *self = (GcgKernelStage *) stage;
  CUdeviceptr ptr = arg;
  void *args[] = { &ptr };

  if (GCG_CU_OK (error, cuLaunchKernel, self->function, self->grid[0],
          self->grid[1], self->grid[2], self->block[0], self->block[1], 1, 0,
          gcg__stream_get_cu (stream), args, NULL))
    return TRUE;
  g_prefix_error (error, "Kernel '%s': ", self->name);
  return FALSE;
}

static void
kernel_free (GcgFrameStage *stage)
{
  GcgKernelStage *self = (GcgKernelStage *) stage;

  if (self->module != NULL) {
    g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

    if (gcg__context_guard_enter (&guard, self->context, NULL))
      GCG_CU_WARN (cuModuleUnload, self->module);
  }
  g_clear_pointer (&self->decl, gcg__kernel_decl_free);
  g_clear_object (&self->context);
  g_free (self->name);
  g_free (self);
}

static const GcgFrameStageClass kernel_stage_class = {
  "kernel",
  kernel_prepare,
  kernel_launch,
  kernel_free,
};

/* The image cuModuleLoadData reads: the cubin NVRTC made of source, or
 * the caller's bytes followed by a NUL (PTX is text the driver reads up
 * to its NUL; cubin and fatbin carry their own sizes). */
static GBytes *
module_image (GcgKernelStage *self, const GcgKernelStageSpec *spec,
    GError **error)
{
  gsize size = 0;
  const gchar *data = g_bytes_get_data (spec->code, &size);
  gchar *copy;
  gint major = 0, minor = 0;

  if (size == 0 || size > GCG_KERNEL_STAGE_MAX_CODE) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Kernel '%s': its code is %" G_GSIZE_FORMAT " bytes (1 to %d "
        "allowed)",
        self->name, size, GCG_KERNEL_STAGE_MAX_CODE);
    return NULL;
  }
  if (spec->kind == GCG_KERNEL_CODE_SOURCE) {
    gcg_context_get_compute_capability (self->context, &major, &minor);
    return gcg__kernel_code_compile (self->decl, spec->code, self->name,
        spec->entry, major * 10 + minor, spec->options, spec->cache_dir, error);
  }
  if (!gcg__kernel_code_check_binary (self->name, spec->code, error))
    return NULL;
  copy = g_malloc (size + 1);
  memcpy (copy, data, size);
  copy[size] = '\0';
  return g_bytes_new_take (copy, size + 1);
}

static gboolean
load_module (GcgKernelStage *self, GBytes *image, const gchar *entry,
    GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;

  if (!gcg__context_guard_enter (&guard, self->context, error))
    return FALSE;
  if (!GCG_CU_OK (error, cuModuleLoadData, &self->module,
          g_bytes_get_data (image, NULL))) {
    self->module = NULL;
    g_prefix_error (error,
        "Kernel '%s': the driver refused its code: ", self->name);
    return FALSE;
  }
  if (!GCG_CU_OK (error, cuModuleGetFunction, &self->function, self->module,
          entry)) {
    g_prefix_error (error,
        "Kernel '%s': no entry point '%s' (declare it "
        "extern \"C\" __global__): ",
        self->name, entry);
    return FALSE;
  }
  return TRUE;
}

static void
set_geometry (GcgKernelStage *self, const GcgKernelStageSpec *spec)
{
  for (guint i = 0; i < 2; i++)
    self->block[i] = spec->block[i] ? spec->block[i] : DEFAULT_BLOCK;
  self->grid[0] = spec->grid[0]
      ? spec->grid[0]
      : (MAX (spec->width, 1) + self->block[0] - 1) / self->block[0];
  self->grid[1] = spec->grid[1]
      ? spec->grid[1]
      : (MAX (spec->height, 1) + self->block[1] - 1) / self->block[1];
  self->grid[2] = spec->grid[2] ? spec->grid[2] : 1;
}

/* Makes the stage: parses the declaration, compiles or takes the code,
 * loads it and finds the entry point; each error names the kernel. */
GcgFrameStage *
gcg__kernel_stage_new (GcgContext *context, const GcgKernelStageSpec *spec,
    GError **error)
{
  g_autoptr (GcgFrameStage) stage = NULL;
  g_autoptr (GBytes) image = NULL;
  GcgKernelStage *self;

  if (spec->entry == NULL || *spec->entry == '\0' || spec->code == NULL
      || spec->block[0] > 1024 || spec->block[1] > 1024
      || MAX (spec->block[0], 1) * MAX (spec->block[1], 1) > 1024) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Kernel '%s': needs code, an entry point and at most 1024 threads "
        "per block",
        spec->name ? spec->name : "(unnamed)");
    return NULL;
  }
  self = g_new0 (GcgKernelStage, 1);
  stage = &self->parent;
  stage->klass = &kernel_stage_class;
  self->context = g_object_ref (context);
  self->name = g_strdup (spec->name ? spec->name : spec->entry);
  self->is_postprocess = spec->postprocess != NULL;
  if (self->is_postprocess)
    self->pp = *spec->postprocess;
  self->decl = gcg__kernel_decl_parse (spec->decl, error);
  if (self->decl == NULL
      || !gcg__kernel_decl_check_role (self->decl, self->is_postprocess,
          error)) {
    g_prefix_error (error, "Kernel '%s': ", self->name);
    return NULL;
  }
  stage->struct_size = self->decl->size;
  stage->struct_align = self->decl->align;
  set_geometry (self, spec);
  image = module_image (self, spec, error);
  if (image == NULL || !load_module (self, image, spec->entry, error))
    return NULL;
  return g_steal_pointer (&stage);
}
