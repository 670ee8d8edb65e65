#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reads the samples tools/profile/cpuprof.c wrote and prints where the CPU
time went: per thread, by innermost function (self), by function anywhere on
the stack (inclusive), and by the innermost function of ours (what our
code called that cost the time, the driver's calls included).

    tools/profile/cpuprof-report.py OUT.txt [--top N] [--callees FUNCTION]

--callees splits FUNCTION's inclusive time by the function it called
(the frame below its innermost occurrence), "(self)" for its own code.

Functions are named with addr2line on this machine's copy of each module
(the GPU host runs this checkout's build and the runtime bundle at the
same paths); modules that only the GPU host has (the driver, its libc)
are shown as module+offset.
"""
import argparse
import bisect
import collections
import os
import subprocess

OURS = ("libgcg-1.0", "libgstcudagraph")


def load(path):
    modules, samples = [], []
    with open(path) as f:
        for line in f:
            kind, _, rest = line.partition(" ")
            if kind == "module":
                base, name = rest.rstrip("\n").split(" ", 1)
                modules.append((int(base, 16), name))
            elif kind == "sample":
                fields = rest.split()
                samples.append((int(fields[0]), [int(x, 16) for x in fields[1:]]))
    modules.sort()
    return modules, samples


def locate(modules, bases, pc):
    i = bisect.bisect_right(bases, pc) - 1
    return modules[i] if i >= 0 else (0, "?")


def local_copy(name):
    """Only modules under this checkout are the same files here."""
    here = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    return name if name.startswith(here) and os.path.exists(name) else None


def symbolize(wanted):
    """{(module, offset): name} through one addr2line per module."""
    names = {}
    by_module = collections.defaultdict(set)
    for module, off in wanted:
        by_module[module].add(off)
    for module, offs in by_module.items():
        offs = sorted(offs)
        path = local_copy(module)
        short = os.path.basename(module)
        if path is None:
            for off in offs:
                names[(module, off)] = "%s+0x%x" % (short, off)
            continue
        out = subprocess.run(
            ["addr2line", "-f", "-e", path] + ["0x%x" % o for o in offs],
            capture_output=True, text=True).stdout.split("\n")
        for i, off in enumerate(offs):
            fn = out[2 * i] if 2 * i < len(out) else "??"
            names[(module, off)] = ("%s+0x%x" % (short, off) if fn == "??"
                                    else "%s (%s)" % (fn, short))
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("samples")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--callees", metavar="FUNCTION",
                    help="split FUNCTION's time by its callees")
    args = ap.parse_args()
    modules, samples = load(args.samples)
    bases = [b for b, _ in modules]
    frames = []
    wanted = set()
    for tid, pcs in samples:
        st = []
        for depth, pc in enumerate(pcs):
            # Return addresses point after the call: look up the call.
            base, name = locate(modules, bases, pc - (1 if depth else 0))
            key = (name, pc - (1 if depth else 0) - base)
            st.append(key)
            wanted.add(key)
        frames.append((tid, st))
    names = symbolize(wanted)
    # on_prof() and then the signal trampoline come first: skip them.
    def clean(st):
        out = [names[k] for k in st]
        i = 0
        while i < len(out) and "cpuprof" in out[i]:
            i += 1
        return out[i + 1:] if i > 0 else out

    n = len(frames)
    print("%d samples" % n)
    threads = collections.Counter(tid for tid, _ in frames)
    selfc, incl, ours, callees = (collections.Counter() for _ in range(4))
    for tid, st in frames:
        st = clean(st)
        if not st:
            continue
        selfc[st[0]] += 1
        for f in set(st):
            incl[f] += 1
        if args.callees:
            at = next((i for i, f in enumerate(st)
                       if f.startswith(args.callees + " ")), None)
            if at is not None:
                callees[st[at - 1] if at > 0 else "(self)"] += 1
        mine = next((f for f in st if any(o in f for o in OURS)), None)
        if mine is not None:
            ours["%s <- %s" % (mine, st[0]) if mine != st[0] else mine] += 1
    def show(title, c):
        print("\n== %s" % title)
        for k, v in c.most_common(args.top):
            print("%6.1f%%  %s" % (100.0 * v / n, k))
    show("threads (share of samples)", threads)
    show("self (innermost frame)", selfc)
    show("inclusive (anywhere on the stack)", incl)
    show("innermost frame of ours <- innermost frame", ours)
    if args.callees:
        show("callees of %s" % args.callees, callees)


if __name__ == "__main__":
    main()
