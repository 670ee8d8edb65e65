# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""tools/check-docs.py: the tree's docs name only what exists, and a small
tree made here, whose docs name a file, a symbol and a property that do
not exist and a Python name that is not in its module (beside ones that
do, a built program, a derived GObject name and an ignored build path),
fails with exactly those four faults.  Standard library only."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SCRIPT = os.path.join(ROOT, "tools", "check-docs.py")

FIXTURE = {
    "lib/frame/gcg-thing.c": (
        "G_DECLARE_FINAL_TYPE (GcgThing, gcg_thing, GCG, THING, GObject)\n"
        "void gcg_thing_run (void);\n"),
    "gst/elements/gstcudagraphthing.c": (
        'g_object_class_install_property (k, 1, g_param_spec_int ("gain",\n'
        "GST_CUDA_GRAPH_THING_X\n"),
    "tools/soak.c": "int main (void) { return 0; }\n",
    "lib/gcg.h": "#pragma once\n",
    "python/gcg/tensor.py": "def tensors(sample):\n    pass\n",
    "README.md": (
        "# x\n"
        "\n"
        "`lib/frame/gcg-thing.c` and `gcg-thing.c`, `gcg_thing_run()`,\n"
        "`GCG_IS_THING`, `GCG_THING_*`, `tools/soak`, `build/gst/x.so`,\n"
        "[the docs](docs/cudagraphthing.md), `lib/frame/*.c`.\n"
        "`gcg.tensor.tensors(s)`, `gcg.h`.\n"
        "Stale: `lib/frame/gcg-gone.c`, `gcg_thing_gone ()`,\n"
        "`gcg.tensor.gone`.\n"
        "\n"
        "```sh\n"
        "gst-launch-1.0 cudagraphthing location=tools/soak.c ! fakesink\n"
        "```\n"),
    "docs/cudagraphthing.md": (
        "| property | meaning |\n"
        "| --- | --- |\n"
        "| `gain` | the gain |\n"
        "| `gone` | stale |\n"
        "\n"
        "| other | table |\n"
        "| --- | --- |\n"
        "| `not-a-property` | not checked |\n"),
}


def run(tree):
    done = subprocess.run([sys.executable, SCRIPT, tree], text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    print(done.stdout, end="")
    return done.returncode, done.stdout.splitlines()


def check_tree():
    rc, lines = run(ROOT)
    assert rc == 0, "the docs name something that does not exist (see above)"
    assert lines[-1].endswith("docs name only what exists"), lines


def check_fixture():
    with tempfile.TemporaryDirectory() as tree:
        for path, text in FIXTURE.items():
            os.makedirs(os.path.join(tree, os.path.dirname(path)),
                        exist_ok=True)
            with open(os.path.join(tree, path), "w") as f:
                f.write(text)
        rc, lines = run(tree)
    assert rc == 1, f"the stale references were not refused (exit {rc})"
    assert lines[:-1] == [
        "README.md:7: no such file or folder: lib/frame/gcg-gone.c",
        "README.md:7: no such symbol: gcg_thing_gone",
        "README.md:8: no gone in gcg.tensor",
        'docs/cudagraphthing.md:4: no element property "gone" in gst/',
    ], lines
    assert lines[-1] == "4 stale reference(s) in the docs", lines


def main():
    check_tree()
    check_fixture()
    print("check-docs: the tree passes, the stale fixture fails")


if __name__ == "__main__":
    main()
