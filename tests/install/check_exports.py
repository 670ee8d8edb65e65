#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What an installed library exports, against its GIR.

check_exports.py NM LIB.so GIR [LIB.so GIR ...]

For each library (tests/install/install-test.py passes the installed
libgcg-1.0.so and libgcg-gst-1.0.so with their installed GIRs):
 - no testing hook is exported or named in the GIR (fault injection, the
   CPU completion delay, the test kernels: lib/testing/README.md), and the
   library does not even hold the names of the testing environment
   variables (so it cannot read them) nor a test kernel's name (its
   fatbin has none);
 - every exported symbol is API: in the GIR, documented, with a version
   (`Since:`); the only exceptions are the library's internal `gcg__`
   functions (GCG_PRIVATE_API, declared in no installed header).
Prints one line per problem; exit status 0 when there is none, 1
otherwise.  Standard library and `nm` only.
"""
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

CORE = "{http://www.gtk.org/introspection/core/1.0}"
C_ID = "{http://www.gtk.org/introspection/c/1.0}identifier"
GLIB_GET_TYPE = "{http://www.gtk.org/introspection/glib/1.0}get-type"

# Names of the testing hooks, in symbols and in GIR entries.
TESTING = re.compile(r"fault_inject|gcg_?_fault_(parse|arm)|testing"
                     r"|cpu_completion_delay|(^|_)test_")
# The environment variables only lib/testing reads, and the prefix of its
# test kernels' names (a fatbin holds each kernel's name).
TESTING_BYTES = (b"GCG_FAULT_INJECT", b"GCG_CPU_COMPLETION_DELAY",
                 b"gcg_test_")


def exported(nm, lib):
    out = subprocess.run([nm, "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    return [line.split()[-1] for line in out.splitlines() if line.split()]


def gir_entries(gir):
    """C identifier -> the GIR element that documents it (a type's
    get_type function -> the type)."""
    entries = {}
    for el in ET.parse(gir).iter():
        if el.get(C_ID):
            entries[el.get(C_ID)] = el
        if el.get(GLIB_GET_TYPE):
            entries.setdefault(el.get(GLIB_GET_TYPE), el)
    return entries


def check(nm, lib, gir):
    problems = []
    symbols = exported(nm, lib)
    entries = gir_entries(gir)
    for name in symbols:
        if TESTING.search(name):
            problems.append("%s exports the testing hook %s" % (lib, name))
        elif name.startswith("gcg__") or name.startswith("_"):
            continue
        elif name not in entries:
            problems.append("%s exports %s, which %s does not have"
                            % (lib, name, gir))
        elif entries[name].get("version") is None:
            problems.append("%s: %s has no Since:" % (gir, name))
        elif entries[name].find(CORE + "doc") is None:
            problems.append("%s: %s is not documented" % (gir, name))
    problems += ["%s names the testing hook %s" % (gir, name)
                 for name in entries if TESTING.search(name)]
    with open(lib, "rb") as f:
        data = f.read()
    problems += ["%s holds %s" % (lib, text.decode())
                 for text in TESTING_BYTES if text in data]
    public = [s for s in symbols if not s.startswith("gcg__")]
    print("%s: %d symbols exported, %d of them API, each in %s"
          % (lib, len(symbols), len(public), gir))
    return problems


def main():
    nm, pairs = sys.argv[1], sys.argv[2:]
    if not pairs or len(pairs) % 2:
        sys.exit("usage: check_exports.py NM LIB.so GIR [LIB.so GIR ...]")
    problems = []
    for lib, gir in zip(pairs[::2], pairs[1::2]):
        problems += check(nm, lib, gir)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
