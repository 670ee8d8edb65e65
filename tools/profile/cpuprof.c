/* gst-cudagraph
 * Copyright (C) 2026 gst-cudagraph authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A sampling CPU profiler for hosts without perf, preloaded into the
 * program to measure:
 *
 *   GCG_CPUPROF=out.txt [GCG_CPUPROF_DELAY=2] [GCG_CPUPROF_HZ=2000] \
 *     LD_PRELOAD=build/tools/libgcg-cpuprof.so PROGRAM ...
 *   tools/profile/cpuprof-report.py out.txt [BUILD_DIR]
 *
 * ITIMER_PROF counts the CPU time of every thread of the process; each
 * expiry interrupts the thread that is running and records its call
 * stack.  So samples fall where CPU time is spent (not where threads
 * sleep, as a debugger's stack snapshots do), and no debugger sits in the
 * CUDA driver's calls.  At exit the stacks and the loaded modules' base
 * addresses are written out; cpuprof-report.py names the functions with
 * addr2line on this machine's copies of the libraries.
 *
 * A development tool, not part of the library: not installed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#define DEPTH 24
#define MAX_SAMPLES 400000

typedef struct
{
  int tid;
  int n;
  void *pc[DEPTH];
} Sample;

static Sample *samples;
static atomic_uint n_samples;
static const char *out_path;

static void
on_prof (int sig, siginfo_t *info, void *uctx)
{
  unsigned i = atomic_fetch_add (&n_samples, 1);

  (void) sig;
  (void) info;
  (void) uctx;
  if (i >= MAX_SAMPLES)
    return;
  samples[i].tid = (int) syscall (SYS_gettid);
  samples[i].n = backtrace (samples[i].pc, DEPTH);
}

static int
write_module (struct dl_phdr_info *info, size_t size, void *data)
{
  FILE *f = data;

  (void) size;
  fprintf (f, "module %lx %s\n", (unsigned long) info->dlpi_addr,
      info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe");
  return 0;
}

static void
write_out (void)
{
  struct itimerval off = { { 0, 0 }, { 0, 0 } };
  unsigned n = atomic_load (&n_samples);
  FILE *f;

  setitimer (ITIMER_PROF, &off, NULL);
  /* A process that inherited LD_PRELOAD and slept throughout (timeout(1)
   * around the program, exiting after it; a plugin scanner) must not
   * overwrite the program's samples with none. */
  if (n == 0 || out_path == NULL || (f = fopen (out_path, "w")) == NULL)
    return;
  dl_iterate_phdr (write_module, f);
  if (n > MAX_SAMPLES)
    n = MAX_SAMPLES;
  for (unsigned i = 0; i < n; i++) {
    fprintf (f, "sample %d", samples[i].tid);
    for (int d = 0; d < samples[i].n; d++)
      fprintf (f, " %lx", (unsigned long) samples[i].pc[d]);
    fputc ('\n', f);
  }
  fclose (f);
}

/* Starts sampling after the delay: plugin loading (dlopen, which the
 * unwinder must not interrupt) is over by then. */
static void *
start_later (void *data)
{
  double delay = atof (getenv ("GCG_CPUPROF_DELAY") ?: "2");
  long hz = atol (getenv ("GCG_CPUPROF_HZ") ?: "2000");
  struct itimerval every = { { 0, 0 }, { 0, 0 } };

  (void) data;
  usleep ((useconds_t) (delay * 1e6));
  every.it_interval.tv_usec = every.it_value.tv_usec =
      1000000 / (hz > 0 ? hz : 2000);
  setitimer (ITIMER_PROF, &every, NULL);
  return NULL;
}

__attribute__ ((constructor)) static void
cpuprof_init (void)
{
  struct sigaction sa;
  pthread_t thread;
  void *prime[2];

  out_path = getenv ("GCG_CPUPROF");
  if (out_path == NULL)
    return;
  samples = calloc (MAX_SAMPLES, sizeof (Sample));
  if (samples == NULL)
    return;
  /* The first backtrace() loads libgcc: never inside the handler. */
  backtrace (prime, 2);
  memset (&sa, 0, sizeof (sa));
  sa.sa_sigaction = on_prof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGPROF, &sa, NULL);
  atexit (write_out);
  if (pthread_create (&thread, NULL, start_later, NULL) == 0)
    pthread_detach (thread);
}
