/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Fault injection: make chosen driver calls fail so that reliability tests
 * can drive every error path on a real GPU.  A spec is a comma-separated
 * list of FUNC:WHEN[=RESULT]: WHEN is N (the Nth call from arming, once) or
 * '*' (every call); RESULT is a CUresult number or name known to
 * gst-cudagraph, CUDA_ERROR_UNKNOWN (999) by default.  Example:
 *   GCG_FAULT_INJECT="cuMemAlloc:3=CUDA_ERROR_OUT_OF_MEMORY,cuGraphLaunch:*"
 * NVRTC's entry points (nvrtcCompileProgram, ...: GCG_NVRTC_FAULT_FUNCS)
 * can be failed the same way; their RESULT is an nvrtcResult number, and
 * the default, or a number NVRTC does not have, is
 * NVRTC_ERROR_INTERNAL_ERROR.
 * When nothing is armed the cost per driver call is one atomic load.
 * A release (cuMemFree, cuEventDestroy, ...: gcg__cuda_is_release()) made
 * to fail still releases, then reports the failure: nothing leaks.
 *
 * Testing only: this file is in libgcg-testing.a, which tests link and
 * the installed library does not contain.  The loader knows nothing of
 * it: arming registers a call hook with it (gcg__cuda_set_call_hook()),
 * and gcg-testing.c gives gcg_driver_init() gcg__fault_arm_from_env() as
 * the hook to run before cuInit.
 */
#include "gcg-fault.h"
#include "gcg-error-private.h"
#include "gcg-fault-private.h"

#include <string.h>

static GMutex fault_lock;
static GArray *fault_rules;
static guint fault_calls[GCG_FAULT_N_FUNCS];

static gboolean
parse_result (const gchar *text, CUresult *result)
{
  gchar *end = NULL;
  gint64 value = g_ascii_strtoll (text, &end, 10);

  if (end != text && *end == '\0' && value > 0 && value < G_MAXINT) {
    *result = (CUresult) value;
    return TRUE;
  }
  for (CUresult r = 1; r < 1000; r++) {
    if (g_strcmp0 (gcg__cuda_result_name (r), text) == 0) {
      *result = r;
      return TRUE;
    }
  }
  return FALSE;
}

static gboolean
parse_when (const gchar *text, guint *nth)
{
  guint64 value;

  if (g_strcmp0 (text, "*") == 0) {
    *nth = 0;
    return TRUE;
  }
  if (!g_ascii_string_to_unsigned (text, 10, 1, G_MAXUINT, &value, NULL))
    return FALSE;
  *nth = (guint) value;
  return TRUE;
}

static gboolean
parse_rule (const gchar *item, GcgFaultRule *rule, GError **error)
{
  g_auto (GStrv) name_rest = g_strsplit (item, ":", 2);
  g_auto (GStrv) when_result = NULL;
  gint func;

  func = gcg__cuda_lookup_func (g_strstrip (name_rest[0]));
  if (func < 0 || name_rest[1] == NULL) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Fault spec item \"%s\": expected FUNC:N or FUNC:* with FUNC a "
        "driver entry point gst-cudagraph uses (e.g. cuMemAlloc)",
        item);
    return FALSE;
  }
  when_result = g_strsplit (name_rest[1], "=", 2);
  rule->func = (GcgCudaId) func;
  rule->result = CUDA_ERROR_UNKNOWN;
  if (!parse_when (g_strstrip (when_result[0]), &rule->nth)
      || (when_result[1]
          && !parse_result (g_strstrip (when_result[1]), &rule->result))) {
    g_set_error (error, GCG_ERROR, GCG_ERROR_INVALID_ARGUMENT,
        "Fault spec item \"%s\": WHEN must be a call number ≥ 1 or '*', "
        "RESULT a positive CUresult number or a CUDA_ERROR_ name",
        item);
    return FALSE;
  }
  return TRUE;
}

/**
 * gcg__fault_parse:
 *
 * Parses a fault spec into an array of #GcgFaultRule.  An empty or %NULL
 * spec gives an empty array.  On error, %NULL is returned.
 */
GArray *
gcg__fault_parse (const gchar *spec, GError **error)
{
  g_autoptr (GArray) rules = g_array_new (FALSE, TRUE, sizeof (GcgFaultRule));
  g_auto (GStrv) items = g_strsplit (spec ? spec : "", ",", -1);

  for (gchar **item = items; *item; item++) {
    GcgFaultRule rule;

    if (*g_strstrip (*item) == '\0')
      continue;
    if (!parse_rule (*item, &rule, error))
      return NULL;
    g_array_append_val (rules, rule);
  }
  return g_steal_pointer (&rules);
}

/* The call hook while a spec is armed: counts the call and fails it when
 * a rule says so. */
static CUresult
check_call (GcgCudaId id)
{
  CUresult result = CUDA_SUCCESS;
  guint count;

  g_mutex_lock (&fault_lock);
  count = ++fault_calls[id];
  for (guint i = 0; fault_rules && i < fault_rules->len; i++) {
    const GcgFaultRule *rule = &g_array_index (fault_rules, GcgFaultRule, i);

    if (rule->func == id && (rule->nth == 0 || rule->nth == count)) {
      result = rule->result;
      break;
    }
  }
  g_mutex_unlock (&fault_lock);
  return result;
}

static void
arm (GArray *rules)
{
  g_mutex_lock (&fault_lock);
  g_clear_pointer (&fault_rules, g_array_unref);
  memset (fault_calls, 0, sizeof (fault_calls));
  if (rules->len > 0)
    fault_rules = g_array_ref (rules);
  gcg__cuda_set_call_hook (rules->len > 0 ? check_call : NULL);
  g_mutex_unlock (&fault_lock);
}

/**
 * gcg_fault_inject:
 * @spec: (nullable): a fault spec such as "cuMemAlloc:3,cuGraphLaunch:*",
 *   or %NULL to disarm
 * @error: return location for a #GError, or %NULL
 *
 * A testing hook (libgcg-testing.a, not the installed library): from now on, the chosen CUDA driver calls made by
 * gst-cudagraph fail with the given result, so that error paths can be
 * exercised on a real GPU.  Call counts start from zero at every call of
 * this function.  The environment variable GCG_FAULT_INJECT arms a spec
 * when the driver is loaded.  Format: comma-separated FUNC:N[=RESULT] (the
 * Nth call fails once) or FUNC:*[=RESULT] (every call fails); RESULT is a
 * CUresult number or CUDA_ERROR_ name, CUDA_ERROR_UNKNOWN by default.
 * A call that gives a resource back (cuMemFree, cuMemFreeHost, the
 * destroy calls) still gives it back before it reports the failure, so
 * that a run with injected faults leaks nothing.
 *
 * Since 0.2, FUNC may also be one of NVRTC's entry points that user
 * kernels given as source go through (nvrtcVersion, nvrtcCreateProgram,
 * nvrtcCompileProgram, nvrtcGetProgramLogSize, nvrtcGetProgramLog,
 * nvrtcGetCUBINSize, nvrtcGetCUBIN, nvrtcDestroyProgram); their RESULT is
 * an nvrtcResult number, NVRTC_ERROR_INTERNAL_ERROR (11) by default.
 *
 * Returns: %TRUE if @spec was valid and is now armed; on error the
 *   previous spec stays armed
 */
gboolean
gcg_fault_inject (const gchar *spec, GError **error)
{
  g_autoptr (GArray) rules = gcg__fault_parse (spec, error);

  if (rules == NULL)
    return FALSE;
  arm (rules);
  return TRUE;
}

gboolean
gcg__fault_arm_from_env (GError **error)
{
  const gchar *spec = g_getenv ("GCG_FAULT_INJECT");

  if (spec == NULL)
    return TRUE;
  if (!gcg_fault_inject (spec, error)) {
    g_prefix_error (error, "GCG_FAULT_INJECT: ");
    return FALSE;
  }
  return TRUE;
}
