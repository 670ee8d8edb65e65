#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks that the layers of a source tree only call down.

    check-layers.py ROOT

ROOT/layers.txt names the layers (one folder each, lowest first) and what
each may include; see lib/layers.txt.  Every C, CUDA and header file below
ROOT must lie in a layer folder or be named in layers.txt as a top or base
file, and each of its `#include "..."` lines must name a file it may
include: one of its own layer, of a layer it may call, or a base file.  An
include is looked up as the compiler does with the tree's include path:
next to the including file first, then in the folders of layers.txt's
`include-path:` line (relative to ROOT; gst/layers.txt: `.`, gst/ only,
so a file of another folder is named by its path from ROOT,
"props/gstcudagraphuserkernel.h"), or, without that line, in ROOT and in
every layer folder, as lib/meson.build's path is; a name found in two
layer folders is refused (which one the compiler picks would depend on
the order of the path).  With `include-path:`, a bare name that only a
layer folder other than the includer's holds is refused (it resolves
only with that folder on the compiler's path).  A name found nowhere in
ROOT may be a header of another library: layers.txt's `outside:` line
names the folders (relative to ROOT, shell patterns allowed) where the
build finds those by bare name, and any layer may include them (no tree
of the project has one now: gst/ reaches gst-libs/ by path).

The boundary to another library holds in every file, top files too, and
for `#include <...>` lines as well as "...": layers.txt's `by-path:` line
names the folders of a library that this tree reaches only by path, as
that library installs its headers (gst/ and gst-libs/ name lib/ and its
layer folders: <gcg/gcg.h>, and <gcg/gcg-internal.h>, the private API of
lib/gcg-internal.h; gst/ names gst-libs/gcg-gst too: <gcg/gcg-gst.h>);
an include that names a file of one of them by its bare name is
refused.  And a `*-private.h` is private to its tree: an
include of one that is not a file of this tree is refused wherever it
lies.

Within a layer the arrows point one way too: a file's module is its
name without `-private.h`, `.h`, `.c` or `.cu` (gcg-frame-queue.c,
gcg-frame-queue.h and gcg-frame-queue-private.h are one module), and the
modules of one layer folder must not include each other in a circle.  A
circle is reported once, at the include that closes it, with the
modules it goes through: cut it by moving the words both sides need
into a header below them (lib/frame/gcg-frame-types.h is that header for
lib/frame/).

Prints one line per violation, FILE:LINE: what is wrong, and exits 1 if
there is any, 0 otherwise.  Standard library only.
"""
import glob
import os
import re
import sys

SOURCE_SUFFIXES = (".c", ".h", ".cu", ".cuh", ".h.in")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


class Rules:
    def __init__(self, path):
        self.calls = {}        # layer -> set of layers it may include
        self.top = set()       # paths relative to the root
        self.base = set()      # names (or relative paths) any layer may include
        self.forbid = []       # include prefixes refused everywhere
        self.outside = []      # folders of other libraries' headers
        self.by_path = []      # folders whose headers go by path only
        self.include_path = None   # folders the compiler looks in, or all
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                self._parse(path, number, line.split("#", 1)[0].strip())

    def _parse(self, path, number, line):
        if not line:
            return
        key, sep, rest = line.partition(":")
        words = rest.split()
        if not sep or not key.strip():
            sys.exit(f"{path}:{number}: expected NAME: WORDS")
        key = key.strip()
        if key == "top":
            self.top.update(words)
        elif key == "base":
            self.base.update(words)
        elif key == "forbid":
            self.forbid.extend(words)
        elif key == "outside":
            self.outside.extend(words)
        elif key == "by-path":
            self.by_path.extend(words)
        elif key == "include-path":
            folders = [os.path.normpath(w) for w in words]
            self.include_path = (self.include_path or []) + [
                "" if f == "." else f for f in folders]
        else:
            unknown = [w for w in words if w not in self.calls]
            if unknown:
                sys.exit(f"{path}:{number}: layer {key} may call "
                         f"{' '.join(unknown)}, which no line above defines")
            self.calls[key] = set(words) | {key}


def source_files(root):
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.relpath(os.path.join(folder, name), root)


def layer_of(rules, rel):
    """The layer of a path relative to the root, "top", "base" or None."""
    if rel in rules.top:
        return "top"
    if rel in rules.base:
        return "base"
    first = rel.split(os.sep, 1)[0]
    if os.sep in rel and first in rules.calls:
        return first
    return None


def resolve(root, rules, rel, target):
    """The paths (relative to the root) an include of @target from @rel
    may mean: one, several (ambiguous) or none (unknown)."""
    here = os.path.normpath(os.path.join(os.path.dirname(rel), target))
    if os.path.isfile(os.path.join(root, here)):
        return [here]
    found = []
    path = ([""] + list(rules.calls) if rules.include_path is None
            else rules.include_path)
    for folder in path:
        candidate = os.path.normpath(os.path.join(folder, target))
        if os.path.isfile(os.path.join(root, candidate)):
            found.append(candidate)
    if not found and target in rules.base:
        found.append(target)       # a generated base header
    return found


def in_folders(root, patterns, target):
    """The first folder of @patterns (relative to the root, shell patterns
    allowed) that holds @target, or None."""
    for pattern in patterns:
        for folder in sorted(glob.glob(os.path.join(root, pattern))):
            if os.path.isfile(os.path.join(folder, target)):
                return os.path.relpath(folder, root)
    return None


def outside(root, rules, target):
    """TRUE when @target is a header of another library: in a folder of
    layers.txt's `outside:` line."""
    return in_folders(root, rules.outside, target) is not None


def elsewhere(root, rules, rel, target):
    """With layers.txt's `include-path:`, the files of layer folders
    other than @rel's that @target names by a name relative to them (a
    bare name across folders), which the compiler would not find."""
    if rules.include_path is None:
        return []
    here = os.path.dirname(rel)
    return [os.path.normpath(os.path.join(folder, target))
            for folder in rules.calls if folder != here
            and os.path.isfile(os.path.join(root, folder, target))]


def check_boundary(root, rules, rel, target):
    """Any include line, "..." or <...>: None when it keeps to the
    boundary of another library and to the tree's include path, else
    what is wrong."""
    if resolve(root, rules, rel, target):
        return None                # a file of this tree
    others = elsewhere(root, rules, rel, target)
    if others:
        return (f"includes {target} by its bare name, which only "
                f"{' or '.join(others)} of another folder holds: name it "
                f"by its path from the root (\"{others[0]}\"; layers.txt's "
                f"`include-path:`)")
    if os.path.basename(target).endswith("-private.h"):
        return (f"includes {target}, a private header of another tree: "
                f"reach another library through its installed or "
                f"explicitly internal header, by path")
    folder = in_folders(root, rules.by_path, target)
    if folder is not None:
        return (f"includes {target} of {folder} by its bare name: that "
                f"library is reached by path only (layers.txt's "
                f"`by-path:`)")
    return None


def check_include(root, rules, rel, layer, target):
    """One include line: None when allowed, else what is wrong."""
    for prefix in rules.forbid:
        if target.startswith(prefix):
            return f"includes {target}: nothing here may include {prefix}"
    found = resolve(root, rules, rel, target)
    if not found and outside(root, rules, target):
        return None
    if not found:
        return (f"includes {target}, which is neither in the tree, nor a "
                f"base file, nor in a folder of `outside:`")
    if len(found) > 1:
        return f"includes {target}, which names {' and '.join(found)}"
    other = layer_of(rules, found[0])
    if other is None:
        return f"includes {found[0]}, which lies outside every layer"
    if layer == "top" or other == "base" or (
            layer != "base" and other in rules.calls[layer]):
        return None
    allowed = ("base files only" if layer == "base" else
               "layers " + " ".join(sorted(rules.calls[layer])))
    return (f"{layer} includes {found[0]} of {other}, a layer above it or "
            f"beside it ({layer} may include {allowed})")


def check_file(root, rules, rel, arrows):
    """The file's include lines; the ones within its own layer folder are
    added to @arrows as (module, module): [(rel, line number)]."""
    layer = layer_of(rules, rel)
    if layer is None:
        return [f"{rel}: lies outside every layer of layers.txt"]
    problems = []
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            problem = check_boundary(root, rules, rel, m.group(2))
            if problem:
                problems.append(f"{rel}:{number}: {problem}")
                continue
            if m.group(1) == "<" and not any(
                    m.group(2).startswith(p) for p in rules.forbid):
                continue
            if layer == "top" and m.group(1) == '"':
                continue           # the umbrella sees everything
            problem = check_include(root, rules, rel, layer, m.group(2))
            if problem:
                problems.append(f"{rel}:{number}: {problem}")
            elif m.group(1) == '"':
                add_arrow(root, rules, rel, m.group(2), number, arrows)
    return problems


def module_of(rel):
    """The module a file belongs to: its folder and name without the
    suffixes that split one module into files."""
    for suffix in ("-private.h", ".h.in", ".cuh", ".cu", ".h", ".c"):
        if rel.endswith(suffix):
            return rel[:-len(suffix)]
    return rel


def add_arrow(root, rules, rel, target, number, arrows):
    found = resolve(root, rules, rel, target)
    if len(found) != 1:
        return
    here, there = module_of(rel), module_of(found[0])
    if here != there and os.path.dirname(found[0]) == os.path.dirname(rel):
        arrows.setdefault((here, there), []).append((rel, number))


def circles(arrows):
    """The strongly connected groups of more than one module (Tarjan)."""
    after = {}
    for here, there in arrows:
        after.setdefault(here, []).append(there)
        after.setdefault(there, [])
    index, low, stack, on, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(after[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(after):
        if v not in index:
            visit(v)
    return groups


def circle_path(arrows, group):
    """The shortest circle through @group's first module: a list of
    modules, first == last (breadth first, so the path is a real one)."""
    members = set(group)
    start = group[0]
    before = {start: None}
    todo = [start]
    while todo:
        here = todo.pop(0)
        for there in sorted(t for (h, t) in arrows
                            if h == here and t in members):
            if there == start:
                path = [start]
                while here is not None:
                    path.insert(0, here)
                    here = before[here]
                return path
            if there not in before:
                before[there] = here
                todo.append(there)
    return [start, start]


def circle_problems(arrows):
    problems = []
    for group in circles(arrows):
        path = circle_path(arrows, group)
        rel, number = min(arrows.get((path[-2], path[-1]),
                                     [(path[-2], 0)]))
        names = " -> ".join(os.path.basename(m) for m in path)
        problems.append(f"{rel}:{number}: closes a circle of includes within "
                        f"{os.path.dirname(rel)}/: {names} ({len(group)} "
                        f"modules include each other)")
    return problems


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    root = argv[1]
    rules = Rules(os.path.join(root, "layers.txt"))
    files = list(source_files(root))
    arrows = {}
    problems = [p for rel in files
                for p in check_file(root, rules, rel, arrows)]
    problems += circle_problems(arrows)
    for problem in problems:
        print(os.path.join(root, problem))
    if problems:
        print(f"{len(problems)} layering violation(s) in {root}: "
              f"fix the include, or move the file where its includes point")
        return 1
    print(f"{len(files)} files in {len(rules.calls)} layers of {root}: "
          f"every include goes down, no circle within a layer")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
