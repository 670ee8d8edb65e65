#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks that every public symbol says since which version it exists.

    check-since.py GIR [HEADER...]

GIR is the generated Gcg-1.0.gir.  g-ir-scanner writes `version="X.Y"` on
a symbol when its gtk-doc comment ends in `Since: X.Y`; every class,
record, enumeration, bitfield, callback, constant, function, constructor,
method and property of the namespace must carry one.  The type structs
that G_DECLARE_*_TYPE makes (GcgFooClass) have no doc comment of their
own and are left out.

Each HEADER is a public header: every gtk-doc comment in it (other than a
SECTION) must have a `Since:` line too, which covers what the GIR leaves
out, such as function-like macros (GCG_ERROR).

Prints one line per symbol without a version and exits 1 if there is any,
0 otherwise.  Standard library only.
"""
import os
import re
import sys
import xml.etree.ElementTree as ET

CORE = "{http://www.gtk.org/introspection/core/1.0}"
C = "{http://www.gtk.org/introspection/c/1.0}"
GLIB = "{http://www.gtk.org/introspection/glib/1.0}"

# Kinds of GIR element that stand for a public symbol.
SYMBOL_KINDS = ("class", "interface", "record", "union", "enumeration",
                "bitfield", "callback", "constant", "function",
                "constructor", "method", "property", "glib:signal",
                "virtual-method", "alias")
# Containers whose children are checked as well.
CONTAINERS = ("class", "interface", "record", "union")
VERSION = re.compile(r"^\d+\.\d+(\.\d+)?$")
DOC_START = re.compile(r"^\s*/\*\*\s*\n\s*\* ([A-Za-z_][\w:-]*):", re.M)
SINCE = re.compile(r"^\s*\* Since: \d+\.\d+", re.M)


def kind_of(element):
    return element.tag.replace(CORE, "").replace(GLIB, "glib:")


def name_of(element, kind, owner):
    if kind == "property" or kind == "glib:signal":
        return "%s:%s" % (owner, element.get("name"))
    return (element.get(C + "identifier") or element.get(C + "type")
            or element.get("name"))


def gir_symbols(parent, owner=None):
    """Yields (kind, name, element) for the symbols below @parent."""
    for element in parent:
        kind = kind_of(element)
        if kind not in SYMBOL_KINDS:
            continue
        if element.get(GLIB + "is-gtype-struct-for"):
            continue
        name = name_of(element, kind, owner)
        yield kind, name, element
        if kind in CONTAINERS:
            yield from gir_symbols(element, element.get(C + "type"))


def check_gir(path):
    """Returns (problems, number of symbols checked)."""
    namespace = ET.parse(path).getroot().find(CORE + "namespace")
    if namespace is None:
        return ["%s: no <namespace>" % path], 0
    problems = []
    count = 0
    for kind, name, element in gir_symbols(namespace):
        count += 1
        version = element.get("version")
        if version is None:
            problems.append("%s: %s %s has no version (no `Since:` in its "
                            "doc comment)" % (path, kind, name))
        elif not VERSION.match(version):
            problems.append("%s: %s %s has version %r, not X.Y"
                            % (path, kind, name, version))
    return problems, count


def check_header(path):
    """Returns the problems of one header's doc comments."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    problems = []
    path = os.path.normpath(path)
    for match in DOC_START.finditer(text):
        name = match.group(1)
        if name == "SECTION":
            continue
        end = text.find("*/", match.end())
        if end < 0 or not SINCE.search(text, match.end(), end):
            line = text.count("\n", 0, match.start(1)) + 1
            problems.append("%s:%d: %s: doc comment without `Since:`"
                            % (path, line, name))
    return problems


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    problems, count = check_gir(argv[1])
    # A GIR with no symbols would pass every check: refuse it instead.
    if count == 0:
        problems.append("%s: no public symbols found" % argv[1])
    for header in argv[2:]:
        problems += check_header(header)
    for problem in problems:
        print(problem)
    print("%d GIR symbols and %d headers checked, %d without a version"
          % (count, len(argv) - 2, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
