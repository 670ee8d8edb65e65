/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What the fuzz tests share: their GCG_FUZZ_* settings and a check that
 * names the failing case so that it can be run alone.
 */
#pragma once

#include <glib.h>

/* An unsigned setting from the environment, @dflt when unset or empty. */
static inline guint
gcg_test_fuzz_env_uint (const gchar *name, guint dflt)
{
  const gchar *v = g_getenv (name);

  return v && *v ? (guint) g_ascii_strtoull (v, NULL, 0) : dflt;
}

/* Fails case @case_no of seed @seed of the test @what unless @cond. */
#define GCG_FUZZ_CHECK(what, seed, case_no, cond, ...) \
  G_STMT_START { \
    if (G_UNLIKELY (!(cond))) { \
      g_printerr ("%s fuzz case %u (GCG_FUZZ_SEED=%u GCG_FUZZ_FIRST=%u " \
                  "GCG_FUZZ_CASES=1) failed: %s: ", \
          (what), (case_no), (seed), (case_no), #cond); \
      g_printerr (__VA_ARGS__); \
      g_printerr ("\n"); \
      g_assert_not_reached (); \
    } \
  } \
  G_STMT_END

/* The sweep asked for: GCG_FUZZ_SEED (else @seed), GCG_FUZZ_FIRST and
 * GCG_FUZZ_CASES (else @cases), reported as a test message. */
static inline void
gcg_test_fuzz_sweep (guint32 *seed, guint *first, guint *n, guint32 dflt_seed,
    guint dflt_cases)
{
  *seed = gcg_test_fuzz_env_uint ("GCG_FUZZ_SEED", dflt_seed);
  *first = gcg_test_fuzz_env_uint ("GCG_FUZZ_FIRST", 0);
  *n = gcg_test_fuzz_env_uint ("GCG_FUZZ_CASES", dflt_cases);
  g_test_message ("GCG_FUZZ_SEED=%u, cases %u..%u", *seed, *first, *first + *n);
}

/* Reports how many of the @asked cases of the sweep @what ran and fails
 * unless all did (and at least one): a sweep that stops early tested less
 * than it says. */
static inline void
gcg_test_fuzz_ran (const gchar *what, guint ran, guint asked)
{
  g_test_message ("%s: %u of %u fuzz cases ran", what, ran, asked);
  g_assert_cmpuint (ran, ==, asked);
  g_assert_cmpuint (ran, >, 0);
}
