/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The test watchdog: one thread waiting on a condition with a deadline.
 * Backtraces come from gdb attached to this process (only documented
 * interfaces: gdb's command line and, on Linux, prctl(PR_SET_PTRACER) so
 * that Yama's ptrace_scope=1 lets our own child attach to us).
 */
#include "gcg-test-watchdog.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/prctl.h>
#endif
#ifdef __GLIBC__
#include <execinfo.h>
#endif

/* How long gdb itself may take to attach and print, when `timeout` is
 * there to bound it: well inside the test's own limits (under ASan gdb
 * may not make it). */
#define GDB_LIMIT_S "20"

static GMutex lock;
static GCond cond;
static GThread *thread;
static gint64 deadline;         /* monotonic; 0: disarmed */
static gchar *what;

static void
print_own_stack (void)
{
#ifdef __GLIBC__
  gpointer frames[64];
  gint n = backtrace (frames, G_N_ELEMENTS (frames));

  g_printerr ("watchdog thread's stack only:\n");
  backtrace_symbols_fd (frames, n, STDERR_FILENO);
#endif
}

gboolean
gcg_test_print_backtraces (void)
{
  g_autofree gchar *gdb = g_find_program_in_path ("gdb");
  g_autofree gchar *limit = g_find_program_in_path ("timeout");
  g_autofree gchar *pid = g_strdup_printf ("%d", (int) getpid ());
  g_autofree gchar *out = NULL, *err = NULL;
  g_autoptr (GError) error = NULL;
  GPtrArray *argv;
  gboolean ok;

  if (gdb == NULL) {
    g_printerr ("no gdb on PATH: no backtraces of the other threads\n");
    print_own_stack ();
    return FALSE;
  }
#if defined(__linux__) && defined(PR_SET_PTRACER)
  /* Yama (ptrace_scope 1) lets only ancestors attach; gdb is a child. */
  prctl (PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
#endif
  argv = g_ptr_array_new ();
  if (limit != NULL) {
    g_ptr_array_add (argv, limit);
    g_ptr_array_add (argv, (gpointer) GDB_LIMIT_S);
  }
  g_ptr_array_add (argv, gdb);
  g_ptr_array_add (argv, (gpointer) "-batch");
  g_ptr_array_add (argv, (gpointer) "-nx");
  g_ptr_array_add (argv, (gpointer) "-p");
  g_ptr_array_add (argv, pid);
  g_ptr_array_add (argv, (gpointer) "-ex");
  g_ptr_array_add (argv, (gpointer) "thread apply all bt");
  g_ptr_array_add (argv, NULL);
  /* Captured, then printed on stderr: stdout is the TAP stream. */
  ok = g_spawn_sync (NULL, (gchar **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL,
      NULL, &out, &err, NULL, &error);
  g_ptr_array_free (argv, TRUE);
  if (!ok) {
    g_printerr ("cannot run gdb: %s\n", error->message);
    print_own_stack ();
    return FALSE;
  }
  g_printerr ("%s%s", out ? out : "", err ? err : "");
  return out != NULL && strstr (out, "Thread") != NULL;
}

static G_NORETURN void
fire (const gchar *name)
{
  const gchar *path = g_test_get_path ();

  g_printerr ("\nwatchdog: %s hangs (test %s): every thread's backtrace "
              "follows\n",
      name, path && *path ? path : "(none)");
  gcg_test_print_backtraces ();
  g_printerr ("watchdog: aborting %s\n", name);
  abort ();
}

static gpointer
watch (gpointer data)
{
  g_mutex_lock (&lock);
  for (;;) {
    if (deadline == 0)
      g_cond_wait (&cond, &lock);
    else if (!g_cond_wait_until (&cond, &lock, deadline) && deadline != 0
        && g_get_monotonic_time () >= deadline)
      fire (what);
  }
  return NULL;
}

/* Under valgrind, which preloads its vgpreload libraries. */
static gboolean
under_valgrind (void)
{
  const gchar *preload = g_getenv ("LD_PRELOAD");

  return preload != NULL && strstr (preload, "vgpreload") != NULL;
}

void
gcg_test_watchdog_arm (guint seconds, const gchar *name)
{
  /* valgrind runs threads one at a time, tens of times slower: as
   * meson's valgrind setup does for its timeouts (tests/meson.build). */
  if (under_valgrind ())
    seconds *= 10;
  g_mutex_lock (&lock);
  g_free (what);
  what = g_strdup (name);
  deadline = g_get_monotonic_time () + (gint64) seconds * G_USEC_PER_SEC;
  if (thread == NULL)
    thread = g_thread_new ("gcg-watchdog", watch, NULL);
  g_cond_signal (&cond);
  g_mutex_unlock (&lock);
}

void
gcg_test_watchdog_disarm (void)
{
  g_mutex_lock (&lock);
  deadline = 0;
  g_cond_signal (&cond);
  g_mutex_unlock (&lock);
}
