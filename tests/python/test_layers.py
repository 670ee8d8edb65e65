# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tools/check-layers.py: lib/ passes (every include goes down, every file
lies in a layer), and the fake tree in tests/data/layers-upward fails with
exactly its two faults, an upward include and a file outside the layers,
so the check would catch either in lib/.  Standard library only."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SCRIPT = os.path.join(ROOT, "tools", "check-layers.py")
FIXTURE = os.path.join(ROOT, "tests", "data", "layers-upward")


def run(tree):
    done = subprocess.run([sys.executable, SCRIPT, tree], text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    print(done.stdout, end="")
    return done.returncode, done.stdout.splitlines()


def check_lib():
    rc, lines = run(os.path.join(ROOT, "lib"))
    assert rc == 0, "lib/ breaks its layers (see above)"
    assert lines[-1].endswith("every include goes down"), lines


def check_fixture():
    rc, lines = run(FIXTURE)
    assert rc == 1, f"the upward include was not refused (exit {rc})"
    faults = sorted(os.path.relpath(line.split(": ", 1)[0], FIXTURE)
                    for line in lines[:-1])
    assert faults == [os.path.join("low", "low.c:2"), "stray.c"], faults
    assert "low includes high/high.h of high" in "\n".join(lines), lines
    assert lines[-1].startswith("2 layering violation(s)"), lines


def main():
    check_lib()
    check_fixture()
    print("layers: lib/ passes, the upward fixture fails as it must")
    return 0


if __name__ == "__main__":
    sys.exit(main())
