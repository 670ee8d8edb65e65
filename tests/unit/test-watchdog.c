/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The test watchdog (tests/common/gcg-test-watchdog.c): a test that hangs
 * past it fails with its name and every thread's backtrace; one that
 * disarms it in time does not.
 */
#include "common/gcg-test-watchdog.h"

/* A second thread, blocked as a hung streaming thread would be, so the
 * backtraces show more than one. */
static gpointer
block (gpointer data)
{
  for (;;)
    g_usleep (G_USEC_PER_SEC);
  return NULL;
}

/* Under AddressSanitizer gdb may take longer to attach than it is given
 * (its shadow memory is terabytes of mappings): the abort still comes,
 * the other threads' stacks may not. */
static gboolean
sanitized (void)
{
#if defined(__SANITIZE_ADDRESS__)
  return TRUE;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return TRUE;
#endif
#endif
  return FALSE;
}

static void
test_fires (void)
{
  g_autofree gchar *gdb = g_find_program_in_path ("gdb");

  if (g_test_subprocess ()) {
    g_thread_new ("blocked", block, NULL);
    gcg_test_watchdog_arm (1, "the sleeper");
    block (NULL);
    return;
  }
  g_test_trap_subprocess (NULL, 100 * G_USEC_PER_SEC,
      G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*watchdog: the sleeper hangs (test "
                             "/watchdog/fires)*aborting*");
  /* With gdb, the blocked thread's stack is printed. */
  if (gdb != NULL && !sanitized ())
    g_test_trap_assert_stderr ("*Thread*block*");
}

static void
test_disarmed (void)
{
  if (g_test_subprocess ()) {
    gcg_test_watchdog_arm (1, "the quick one");
    gcg_test_watchdog_disarm ();
    g_usleep (1500 * G_USEC_PER_SEC / 1000);
    /* Re-armed later, it counts from then. */
    gcg_test_watchdog_arm (30, "the second");
    gcg_test_watchdog_disarm ();
    return;
  }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/watchdog/fires", test_fires);
  g_test_add_func ("/watchdog/disarmed", test_disarmed);
  return g_test_run ();
}
