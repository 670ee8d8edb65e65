#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""python-site.py PREFIX

Prints, relative to PREFIX, the first folder of packages under PREFIX
that the Python running this script searches (sys.path), or nothing when
it searches none there.  meson's python module answers with the
interpreter's install scheme instead, which for Debian's python3 is a
folder it does not search (PREFIX/lib/python3/dist-packages for
/usr/local, where it searches /usr/local/lib/python3.X/dist-packages).
python/meson.build installs the `gcg` package where this says, and
tests/install checks that it is there.
"""
import os
import sys


def searched_under(prefix):
    prefix = os.path.realpath(prefix)
    for d in sys.path:
        if not d.endswith(("site-packages", "dist-packages")):
            continue
        real = os.path.realpath(d)
        if real.startswith(prefix + os.sep):
            return os.path.relpath(real, prefix)
    return None


if __name__ == "__main__":
    found = searched_under(sys.argv[1])
    if found:
        print(found)
