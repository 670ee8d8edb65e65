/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gcg-host-registration-private.h"
#include "gcg-context-private.h"
#include "gcg-cuda-private.h"
#include "gcg-error.h"

struct _GcgHostRegistration
{
  GcgContext *context;
  gpointer address;
  gsize size;
};

/* The process-wide budget, under its lock (a registration is made once per
 * pooled buffer, never per frame). */
static GMutex budget_lock;
static guint budget_count;
static guint64 budget_bytes;

static gboolean
budget_take (gsize size, GError **error)
{
  gboolean ok;

  g_mutex_lock (&budget_lock);
  ok = budget_count < GCG_HOST_REGISTRATION_MAX_COUNT
      && size <= GCG_HOST_REGISTRATION_MAX_BYTES - budget_bytes;
  if (ok) {
    budget_count++;
    budget_bytes += size;
  }
  g_mutex_unlock (&budget_lock);
  if (!ok)
    g_set_error (error, GCG_ERROR, GCG_ERROR_OUT_OF_MEMORY,
        "Registering %" G_GSIZE_FORMAT " more bytes of host memory would "
        "pass the process's bound (%u registrations, %" G_GUINT64_FORMAT
        " bytes): copying instead",
        size, GCG_HOST_REGISTRATION_MAX_COUNT, GCG_HOST_REGISTRATION_MAX_BYTES);
  return ok;
}

static void
budget_give (gsize size)
{
  g_mutex_lock (&budget_lock);
  budget_count--;
  budget_bytes -= size;
  g_mutex_unlock (&budget_lock);
}

/* Page-locks [@address, @address + @size) for every context (PORTABLE),
 * within the process's budget.  On error nothing is registered. */
GcgHostRegistration *
gcg__host_registration_new (GcgContext *context, gpointer address, gsize size,
    GError **error)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  GcgHostRegistration *self;

  g_return_val_if_fail (GCG_IS_CONTEXT (context), NULL);
  g_return_val_if_fail (address != NULL && size > 0, NULL);

  if (!budget_take (size, error))
    return NULL;
  if (!gcg__context_guard_enter (&guard, context, error)
      || !GCG_CU_OK (error, cuMemHostRegister, address, size,
          CU_MEMHOSTREGISTER_PORTABLE)) {
    budget_give (size);
    return NULL;
  }
  self = g_new0 (GcgHostRegistration, 1);
  self->context = g_object_ref (context);
  self->address = address;
  self->size = size;
  return self;
}

/* Unlocks the pages; the caller's copies from them must be done. */
void
gcg__host_registration_free (GcgHostRegistration *self)
{
  g_auto (GcgContextGuard) guard = GCG_CONTEXT_GUARD_INIT;
  g_autoptr (GError) error = NULL;

  if (self == NULL)
    return;
  if (!gcg__context_guard_enter (&guard, self->context, &error)
      || !GCG_CU_OK (&error, cuMemHostUnregister, self->address))
    g_warning ("%s", error->message);
  gcg__context_guard_leave (&guard);
  budget_give (self->size);
  g_object_unref (self->context);
  g_free (self);
}

void
gcg__host_registration_get_totals (guint *count, guint64 *bytes)
{
  g_mutex_lock (&budget_lock);
  if (count)
    *count = budget_count;
  if (bytes)
    *bytes = budget_bytes;
  g_mutex_unlock (&budget_lock);
}
