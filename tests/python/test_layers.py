# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tools/check/check-layers.py: lib/, gst/ and gst-libs/ pass (every
include goes down, every file lies in a layer, lib/ is reached by path
only), the fake tree in tests/data/layers-upward fails with exactly its
two faults, an upward include and a file outside the layers, the one in
tests/data/layers-circle with exactly its circle of two modules that
include each other within one layer, and the fake plugin in
tests/data/layers-outside (laid out as gst/, with two other libraries'
headers beside it) with exactly its six: an upward include, a header
found nowhere, a header of a by-path library named by its bare name
(with "..." from a part and with <...> from the top file, as gst/ once
included lib's <gcg.h> and gst-libs' metas' headers), a header of
another part named by its bare name though only the root is on the
include path (as gst/ once did across its folders), and another tree's
*-private.h, so the check would catch any of them in lib/, gst/ or
gst-libs/.  Standard library only."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SCRIPT = os.path.join(ROOT, "tools", "check", "check-layers.py")
FIXTURE = os.path.join(ROOT, "tests", "data", "layers-upward")
CIRCLE_FIXTURE = os.path.join(ROOT, "tests", "data", "layers-circle")
PLUGIN_FIXTURE = os.path.join(ROOT, "tests", "data", "layers-outside",
                              "plugin")


def run(tree):
    done = subprocess.run([sys.executable, SCRIPT, tree], text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    print(done.stdout, end="")
    return done.returncode, done.stdout.splitlines()


def check_tree(name):
    rc, lines = run(os.path.join(ROOT, name))
    assert rc == 0, f"{name}/ breaks its layers (see above)"
    assert lines[-1].endswith("no circle within a layer"), lines


def check_fixture():
    rc, lines = run(FIXTURE)
    assert rc == 1, f"the upward include was not refused (exit {rc})"
    faults = sorted(os.path.relpath(line.split(": ", 1)[0], FIXTURE)
                    for line in lines[:-1])
    assert faults == [os.path.join("low", "low.c:2"), "stray.c"], faults
    assert "low includes high/high.h of high" in "\n".join(lines), lines
    assert lines[-1].startswith("2 layering violation(s)"), lines


def check_circle_fixture():
    rc, lines = run(CIRCLE_FIXTURE)
    assert rc == 1, f"the circle was not refused (exit {rc})"
    assert len(lines) == 2, lines
    where = os.path.relpath(lines[0].split(": ", 1)[0], CIRCLE_FIXTURE)
    assert where in (os.path.join("one", "a.c:2"),
                     os.path.join("one", "b.c:2")), lines
    assert "circle of includes within one/: a -> b -> a" in lines[0] or \
        "circle of includes within one/: b -> a -> b" in lines[0], lines
    assert lines[-1].startswith("1 layering violation(s)"), lines


def check_plugin_fixture():
    rc, lines = run(PLUGIN_FIXTURE)
    assert rc == 1, f"the plugin fixture was not refused (exit {rc})"
    faults = sorted(os.path.relpath(line.split(": ", 1)[0], PLUGIN_FIXTURE)
                    for line in lines[:-1])
    assert faults == [os.path.join("elements", "bare.c:1"),
                      os.path.join("elements", "crossing.c:1"),
                      os.path.join("elements", "missing.c:1"),
                      os.path.join("helpers", "helper.c:3"),
                      os.path.join("helpers", "private.c:1"),
                      "plugin.c:3"], faults
    text = "\n".join(lines)
    assert "helpers includes elements/element.h of elements" in text, lines
    assert "includes nowhere.h, which is neither in the tree" in text, lines
    bare = [line for line in lines if "includes core.h of ../core by its "
            "bare name" in line]
    assert len(bare) == 2, lines
    assert ("includes engine-private.h, a private header of another tree"
            in text), lines
    assert ("includes helper.h by its bare name, which only "
            "helpers/helper.h of another folder holds" in text), lines
    assert lines[-1].startswith("6 layering violation(s)"), lines


def main():
    check_tree("lib")
    check_tree("gst")
    check_tree("gst-libs")
    check_fixture()
    check_circle_fixture()
    check_plugin_fixture()
    print("layers: lib/, gst/ and gst-libs/ pass, the fixtures fail as "
          "they must")
    return 0


if __name__ == "__main__":
    sys.exit(main())
