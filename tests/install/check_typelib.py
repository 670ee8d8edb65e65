#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The installed typelib and Python module, as an application uses them.

check_typelib.py PREFIX

Run with GI_TYPELIB_PATH, LD_LIBRARY_PATH and PYTHONPATH pointing into
the installed tree under PREFIX (tests/install/install-test.py sets them).
Loads Gcg-1.0 through PyGObject, makes a Gcg.FrameChain on the CPU
backend and calls it, imports the installed `gcg.tensor`, and checks that
the typelib, the library and the `gcg` Python package all came from
PREFIX, not from the build tree or the system.
Exit status 0 on success, 1 with a message otherwise.
"""
import os
import sys

import gi

gi.require_version("Gcg", "1.0")
from gi.repository import GLib, Gcg  # noqa: E402

import gcg.tensor  # noqa: E402,F401  (the installed pure-Python module)

W, H = 4, 2


def loaded_from(prefix):
    """Fail unless the typelib, libgcg and gcg/ are the installed ones
    (GI opens the library at the first call, so call this after one)."""
    with open("/proc/self/maps") as maps:
        libs = {line.split()[-1] for line in maps if "libgcg-1.0.so" in line}
    # PyGObject gives the typelib a module came from as its __path__.
    where = {"typelib": list(Gcg.__path__), "libgcg-1.0": sorted(libs),
             "python module gcg": [gcg.__file__]}
    for what, paths in where.items():
        paths = [os.path.realpath(p) for p in paths]
        if not paths or not all(p.startswith(prefix + "/") for p in paths):
            sys.exit("%s not loaded from %s: %s" % (what, prefix, paths))
        print("%s: %s" % (what, paths[0]))


def run_chain():
    """A CPU-backend chain, as far as GI reaches: GcgFrameParams' plane
    addresses are fixed-size arrays, which PyGObject cannot set, so the
    frame itself is processed by the C program; here a frame without
    planes must be refused with the library's own error."""
    config = Gcg.FrameChainConfig.new()
    config.in_format = Gcg.PixelFormat.RGBA
    config.in_width = config.out_width = W
    config.in_height = config.out_height = H
    config.output = Gcg.OutputKind.TENSOR
    config.letterbox = Gcg.Letterbox.NONE
    config.validate()
    if config.get_output_size() != 3 * W * H * 4:
        sys.exit("output size %d, expected %d"
                 % (config.get_output_size(), 3 * W * H * 4))
    chain = Gcg.FrameChain.new(config, Gcg.Backend.CPU, None)
    if chain.get_backend() != Gcg.Backend.CPU:
        sys.exit("backend %s, expected CPU" % chain.get_backend())
    try:
        chain.process(Gcg.FrameParams.new(), None)
        sys.exit("a frame without planes was processed")
    except GLib.Error as e:
        if not e.matches(Gcg.error_quark(), Gcg.Error.INVALID_ARGUMENT):
            raise
        print("Gcg.FrameChain on the CPU backend; refused as expected: %s"
              % e.message)


def main():
    prefix = os.path.realpath(sys.argv[1])
    run_chain()
    loaded_from(prefix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
