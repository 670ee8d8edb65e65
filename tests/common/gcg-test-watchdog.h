/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A watchdog any test can arm: a test that hangs fails on its own, with
 * every thread's backtrace, well before meson's timeout kills it without
 * one.
 */
#pragma once

#include <glib.h>

/* Arms the watchdog, or re-arms it (a new deadline, a new @what): unless
 * disarmed or re-armed within @seconds, it prints "@what hangs", the
 * running GTest path and every thread's backtrace on stderr (through
 * `gdb -batch -p` when gdb is on PATH, else the watchdog thread's own
 * stack from glibc's backtrace()) and aborts.  @what is copied. */
void gcg_test_watchdog_arm (guint seconds, const gchar *what);

/* Nothing fires until the next gcg_test_watchdog_arm(). */
void gcg_test_watchdog_disarm (void);

/* Prints every thread's backtrace on stderr, as the watchdog does when it
 * fires; FALSE when gdb could not give them (its reason is printed). */
gboolean gcg_test_print_backtraces (void);
