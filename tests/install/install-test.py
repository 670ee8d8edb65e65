#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gst-cudagraph as a user meets it: installed, and as a meson subproject.

install-test.py install --build DIR --meson MESON --pkg-config PKGCONF
    --cc CC [--cc ARG...] [--gi-python PY] [--plugin --gst-pluginsdir DIR]
install-test.py subproject --source DIR --meson MESON

`install` copies the build DIR into a temporary folder with
`meson install --destdir` (nothing is rebuilt or reconfigured; the prefix
the build was configured with is kept below that folder) and checks, each
against the installed copy only:

 1. the layout: the library, headers, gcg-1.0.pc, GIR, typelib, plugin and
    Python package are where pkg-config, GI and GStreamer look under the
    prefix (the same paths relative to it as the system's own);
 2. C: tests/install/gcg-install-check.c built with the installed
    gcg-1.0.pc (PKG_CONFIG_PATH) runs a frame on the CPU backend, and
    tests/install/gcg-gst-install-check.c built with gcg-gst-1.0.pc
    attaches and reads back the tensor, batch and params metas;
 3. Python: tests/install/check_typelib.py through the installed typelib
    (GI_TYPELIB_PATH) and `gcg` package (PYTHONPATH), and
    tests/install/check_gst_typelib.py, the metas through GcgGst-1.0
    (also on the installed cudagraphpreprocess's output);
 4. GStreamer: gst-inspect-1.0 finds cudagraphpreprocess in the installed
    plugin (GST_PLUGIN_PATH_1_0, a registry of its own), and a short
    pipeline runs it on the CPU backend;
 5. the boundary: tests/install/check_exports.py on the installed
    libgcg-1.0.so and libgcg-gst-1.0.so with their installed GIRs (no
    testing hook exported; every other exported symbol documented in the
    GIR with Since:).

`subproject` makes a throwaway project (tests/install/consumer) that
gets gcg-1.0 through dependency()'s fallback to this source tree (linked
into its subprojects/), builds it and runs the same C program, which
includes <gcg/gcg.h>.  To stay fast (seconds, not minutes of nvcc), the
library is built there without kernels, introspection, plugin, docs,
tests and benchmarks: what is tested is that it builds as a subproject
and that the dependency it overrides works.

Output is TAP; a part the build does not have (no GI, no plugin) is a TAP
skip.  Exit status 0 when every part passed or skipped.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


class Failure(Exception):
    pass


# What a shell or `meson test` (LD_LIBRARY_PATH into the build tree) may
# carry that would let the installed copy find the build tree's files.
LEAKY = ("LD_LIBRARY_PATH", "GI_TYPELIB_PATH", "PYTHONPATH", "PKG_CONFIG_PATH",
         "GST_PLUGIN_PATH", "GST_PLUGIN_PATH_1_0", "GST_PLUGIN_SYSTEM_PATH",
         "GST_PLUGIN_SYSTEM_PATH_1_0", "GST_REGISTRY", "GST_REGISTRY_1_0")


def run(cmd, env=None, cwd=None, timeout=300):
    """Runs cmd with env added to a clean environment; returns its stdout,
    or raises Failure with all its output."""
    full_env = {k: v for k, v in os.environ.items() if k not in LEAKY}
    full_env.update(env or {})
    p = subprocess.run(cmd, env=full_env, cwd=cwd, timeout=timeout,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if p.returncode != 0:
        raise Failure("%s: exit status %d\n%s"
                      % (" ".join(cmd), p.returncode, p.stdout))
    return p.stdout


def expect_under(path, root, what):
    if not os.path.realpath(path).startswith(os.path.realpath(root) + "/"):
        raise Failure("%s is %s, not under %s" % (what, path, root))


class Tap:
    """TAP output: one numbered line per check, diagnostics as comments."""

    def __init__(self, checks):
        self.n = 0
        self.failed = 0
        print("1..%d" % checks, flush=True)

    def check(self, name, fn, skip=None):
        self.n += 1
        if skip:
            print("ok %d - %s # SKIP %s" % (self.n, name, skip), flush=True)
            return None
        try:
            result = fn()
        except Skip as e:
            print("ok %d - %s # SKIP %s" % (self.n, name, e), flush=True)
            return None
        except (Failure, subprocess.TimeoutExpired, OSError) as e:
            self.failed += 1
            print("not ok %d - %s" % (self.n, name))
            print("".join("# %s\n" % line for line in str(e).splitlines()),
                  end="", flush=True)
            return None
        print("ok %d - %s" % (self.n, name), flush=True)
        return result


def run_check_program(exe, root, env=None):
    """Runs a build of gcg-install-check.c (it checks its own output) and
    checks that it loaded libgcg from under root."""
    out = run([exe], env=env)
    print("# " + out.strip())
    expect_under(out.split(" from ")[1].split(":")[0], root, "libgcg-1.0")


# --- install ----------------------------------------------------------------

def meson_json(args, what):
    return json.loads(run([args.meson, "introspect", args.build, what]))


def system_subdir(args, module, variable, base):
    """Where the system's module puts things (its variable), relative to
    its base variable: e.g. girepository-1.0 below GI's libdir."""
    get = lambda v: run([args.pkg_config, "--variable=" + v, module]).strip()
    return os.path.relpath(get(variable), get(base))


class Layout:
    """Where `meson install` put each thing, below the destdir."""

    def __init__(self, args, destdir):
        self.options = {o["name"]: o["value"]
                        for o in meson_json(args, "--buildoptions")}
        self.prefix = self.options["prefix"]
        self.root = destdir + self.prefix
        self.files = {os.path.relpath(p, self.prefix): destdir + p
                      for p in meson_json(args, "--installed").values()}
        self.dirs = {}

    def find(self, name):
        """The installed file whose path ends with name (e.g. 'gcg/gcg.h')."""
        hits = [p for rel, p in self.files.items()
                if rel == name or rel.endswith("/" + name)]
        if len(hits) != 1 or not os.path.isfile(hits[0]):
            raise Failure("installed %s: %s" % (name, hits or "none"))
        return hits[0]

    def expect(self, what, name, option, subdir=None):
        """name must be installed in PREFIX/<the build's option>/subdir;
        records that folder as dirs[what]."""
        want = os.path.normpath(os.path.join(self.options[option],
                                             subdir or ""))
        path = self.find(name)
        got = os.path.relpath(os.path.dirname(path), self.root)
        if got != want:
            raise Failure("%s installed in PREFIX/%s, expected PREFIX/%s"
                          % (name, got, want))
        self.dirs[what] = os.path.dirname(path)


def check_python_dir(args, layout):
    """The gcg package where the interpreter with PyGObject searches under
    the prefix (python/python-site.py asks it), so that `import gcg` needs
    no PYTHONPATH; a prefix it searches nowhere is README's PYTHONPATH
    case."""
    site = os.path.join(HERE, "..", "..", "python", "python-site.py")
    want = run([args.gi_python, site, layout.prefix]).strip()
    got = os.path.relpath(layout.dirs["python"], layout.root)
    if not want:
        print("# %s searches no folder under %s: PYTHONPATH=PREFIX/%s"
              % (args.gi_python, layout.prefix, got))
    elif got != want:
        raise Failure("gcg installed in PREFIX/%s, but %s searches PREFIX/%s"
                      % (got, args.gi_python, want))


def check_layout(args, layout):
    """The library where the build's libdir says, and everything else
    where pkg-config, GI and GStreamer look relative to it (the same
    subfolders as the system's own GI and GStreamer use)."""
    gi = "gobject-introspection-1.0"
    layout.expect("lib", "libgcg-1.0.so.0", "libdir")
    layout.expect("pc", "gcg-1.0.pc", "libdir", "pkgconfig")
    layout.expect("include", "gcg/gcg.h", "includedir", "gcg-1.0/gcg")
    layout.dirs["python"] = os.path.dirname(os.path.dirname(
        layout.find("gcg/tensor.py")))
    if args.gi_python:
        check_python_dir(args, layout)
        layout.expect("typelib", "Gcg-1.0.typelib", "libdir",
                      system_subdir(args, gi, "typelibdir", "libdir"))
        layout.expect("gir", "Gcg-1.0.gir", "datadir",
                      system_subdir(args, gi, "girdir", "datadir"))
    if args.plugin:
        layout.expect("gst-lib", "libgcg-gst-1.0.so.0", "libdir")
        layout.expect("gst-pc", "gcg-gst-1.0.pc", "libdir", "pkgconfig")
        if args.gi_python:
            layout.expect("gst-typelib", "GcgGst-1.0.typelib", "libdir",
                          system_subdir(args, gi, "typelibdir", "libdir"))
        layout.expect("plugin", "libgstcudagraph.so", "libdir",
                      system_subdir(args, "gstreamer-1.0", "pluginsdir",
                                    "libdir"))
    for what, d in sorted(layout.dirs.items()):
        print("# %s: PREFIX/%s" % (what, os.path.relpath(d, layout.root)))


def pc_dir(layout, tmp):
    """The folder of the installed gcg-1.0.pc and gcg-gst-1.0.pc, which
    are relocatable (prefix=${pcfiledir}/..., meson.build's
    pkgconfig.relocatable), so PKG_CONFIG_PATH alone finds the copy below
    the destdir.  A build configured before that option was the default
    has prefix=PREFIX: then copies whose prefix line is the destdir's are
    used instead."""
    names = [n for n in ("gcg-1.0.pc", "gcg-gst-1.0.pc")
             if os.path.isfile(os.path.join(layout.dirs["pc"], n))]
    with open(os.path.join(layout.dirs["pc"], names[0])) as f:
        relocatable = f.readline().startswith("prefix=${pcfiledir}")
    if relocatable:
        return layout.dirs["pc"]
    print("# gcg-1.0.pc not relocatable (reconfigure with "
          "-Dpkgconfig.relocatable=true): using copies with the prefix moved")
    moved = os.path.join(tmp, "pkgconfig")
    os.makedirs(moved)
    for name in names:
        with open(os.path.join(layout.dirs["pc"], name)) as f:
            lines = f.read().splitlines()
        with open(os.path.join(moved, name), "w") as f:
            f.write("\n".join(["prefix=" + layout.root] + lines[1:]) + "\n")
    return moved


def check_c(args, layout, tmp):
    env = {"PKG_CONFIG_PATH": pc_dir(layout, tmp)}
    pc = [args.pkg_config]
    cflags = run(pc + ["--cflags", "gcg-1.0"], env=env).split()
    libs = run(pc + ["--libs", "gcg-1.0"], env=env).split()
    if not any(f.startswith("-I") and f[2:].startswith(layout.root + "/")
               for f in cflags):
        raise Failure("no -I into the installed tree: %s" % " ".join(cflags))
    exe = os.path.join(tmp, "gcg-install-check")
    run(args.cc + cflags + [os.path.join(HERE, "gcg-install-check.c"), "-o",
                            exe] + libs)
    run_check_program(exe, layout.root, {"LD_LIBRARY_PATH": layout.dirs["lib"]})
    if args.plugin:
        check_c_gst(args, layout, env, tmp)


def check_c_gst(args, layout, env, tmp):
    """The metas' API, as an application of the plugin uses it: only
    gcg-gst-1.0.pc, which brings gcg-1.0 and gstreamer-1.0."""
    pc = [args.pkg_config]
    cflags = run(pc + ["--cflags", "gcg-gst-1.0"], env=env).split()
    libs = run(pc + ["--libs", "gcg-gst-1.0"], env=env).split()
    if not any(f == "-L" + layout.dirs["gst-lib"]
               or f.startswith("-L" + layout.root + "/") for f in libs):
        raise Failure("no -L into the installed tree: %s" % " ".join(libs))
    exe = os.path.join(tmp, "gcg-gst-install-check")
    run(args.cc + cflags + ["-Wall", "-Werror",
                            os.path.join(HERE, "gcg-gst-install-check.c"),
                            "-o", exe] + libs)
    lib_path = layout.dirs["lib"] + ":" + layout.dirs["gst-lib"]
    run_check_program(exe, layout.root, {"LD_LIBRARY_PATH": lib_path})


def check_python(args, layout):
    out = run([args.gi_python, os.path.join(HERE, "check_typelib.py"),
               layout.root],
              env={"GI_TYPELIB_PATH": layout.dirs["typelib"],
                   "LD_LIBRARY_PATH": layout.dirs["lib"],
                   "PYTHONPATH": layout.dirs["python"]})
    print("".join("# %s\n" % line for line in out.splitlines()), end="")


class Skip(Exception):
    pass


def check_python_gst(args, layout, tmp):
    """The metas through GcgGst-1.0 (check_gst_typelib.py), also on the
    installed plugin's output: exit status 77 (no PyGObject or Gst
    typelib) is a skip."""
    env = gst_env(layout, tmp, layout.dirs["plugin"] + ":"
                  + args.gst_pluginsdir, "registry-python.bin")
    env.update({"GI_TYPELIB_PATH": layout.dirs["typelib"] + ":"
                + layout.dirs["gst-typelib"],
                "LD_LIBRARY_PATH": layout.dirs["lib"] + ":"
                + layout.dirs["gst-lib"]})
    full_env = {k: v for k, v in os.environ.items() if k not in LEAKY}
    full_env.update(env)
    p = subprocess.run([args.gi_python,
                        os.path.join(HERE, "check_gst_typelib.py"),
                        layout.root, "--plugin"], env=full_env, timeout=120,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if p.returncode == 77:
        raise Skip(p.stdout.strip() or "exit status 77")
    if p.returncode != 0:
        raise Failure("check_gst_typelib.py: exit status %d\n%s"
                      % (p.returncode, p.stdout))
    print("".join("# %s\n" % line for line in p.stdout.splitlines()), end="")


def gst_env(layout, tmp, plugin_path, registry):
    return {"GST_PLUGIN_SYSTEM_PATH_1_0": "",
            "GST_PLUGIN_PATH_1_0": plugin_path,
            "GST_REGISTRY_1_0": os.path.join(tmp, registry),
            "GST_REGISTRY_UPDATE": "yes",
            "LD_LIBRARY_PATH": layout.dirs["lib"]}


def check_gst(args, layout, tmp):
    plugin_dir = layout.dirs["plugin"]
    out = run(["gst-inspect-1.0", "cudagraphpreprocess"],
              env=gst_env(layout, tmp, plugin_dir, "registry-plugin.bin"))
    filename = [line.split()[-1] for line in out.splitlines()
                if line.strip().startswith("Filename")]
    if not filename:
        raise Failure("gst-inspect-1.0 printed no Filename:\n" + out)
    expect_under(filename[0], layout.root, "the plugin gst-inspect-1.0 read")
    print("# gst-inspect-1.0 cudagraphpreprocess: " + filename[0])
    # videotestsrc and fakesink from the system's plugins, ours installed.
    run(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=3", "!",
         "video/x-raw,format=NV12,width=64,height=48", "!",
         "cudagraphpreprocess", "backend=cpu", "width=32", "height=32", "!",
         "fakesink"],
        env=gst_env(layout, tmp, plugin_dir + ":" + args.gst_pluginsdir,
                    "registry-launch.bin"))
    print("# gst-launch-1.0 ... ! cudagraphpreprocess backend=cpu ! ...: ok")


def check_exports(args, layout):
    libs = [("lib", "libgcg-1.0.so", "gir", "Gcg-1.0.gir")]
    if args.plugin:
        libs.append(("gst-lib", "libgcg-gst-1.0.so", "gir", "GcgGst-1.0.gir"))
    cmd = [sys.executable, os.path.join(HERE, "check_exports.py"), "nm"]
    for lib_dir, lib, _, gir in libs:
        cmd += [os.path.join(layout.dirs[lib_dir], lib), layout.find(gir)]
    out = run(cmd)
    print("".join("# %s\n" % line for line in out.splitlines()), end="")


def install(args):
    tap = Tap(6)
    with tempfile.TemporaryDirectory(prefix="gcg-install-") as tmp:
        destdir = os.path.join(tmp, "destdir")

        def do_install():
            run([args.meson, "install", "-C", args.build, "--no-rebuild",
                 "--destdir", destdir, "--quiet"])
            layout = Layout(args, destdir)
            check_layout(args, layout)
            return layout

        layout = tap.check("meson install --destdir: files where the "
                           "system looks under the prefix", do_install)
        missing = "meson install failed" if layout is None else None
        tap.check("C programs against the installed gcg-1.0.pc and "
                  "gcg-gst-1.0.pc",
                  lambda: check_c(args, layout, tmp), skip=missing)
        tap.check("Python through the installed typelib and gcg package",
                  lambda: check_python(args, layout),
                  skip=missing or (None if args.gi_python else
                                   "no introspection in this build"))
        no_gst = (None if args.plugin else "no plugin in this build")
        tap.check("Python: the tensor, batch and params metas through the "
                  "installed GcgGst-1.0 typelib",
                  lambda: check_python_gst(args, layout, tmp),
                  skip=missing or no_gst or (
                      None if args.gi_python else
                      "no introspection or no PyGObject in this build"))
        tap.check("gst-inspect-1.0 and gst-launch-1.0 on the installed plugin",
                  lambda: check_gst(args, layout, tmp),
                  skip=missing or (None if args.plugin else
                                   "no plugin in this build"))
        tap.check("installed libraries export no testing hook, and every "
                  "exported symbol is in their GIR with Since:",
                  lambda: check_exports(args, layout),
                  skip=missing or (None if args.gi_python else
                                   "no introspection in this build"))
    return 1 if tap.failed else 0


# --- subproject ---------------------------------------------------------------

# What the throwaway project's build of the library leaves out, to stay
# fast: it checks that the library builds and links as a subproject.
SUBPROJECT_OPTIONS = ["cuda-kernels=disabled", "introspection=disabled",
                      "gst=disabled", "docs=disabled", "tests=false",
                      "benchmarks=false"]


def build_consumer(args, tmp):
    consumer = os.path.join(tmp, "consumer")
    os.makedirs(os.path.join(consumer, "subprojects"))
    for name in ("consumer/meson.build", "gcg-install-check.c"):
        with open(os.path.join(HERE, name)) as f, \
                open(os.path.join(consumer, os.path.basename(name)), "w") as o:
            o.write(f.read())
    os.symlink(os.path.realpath(args.source),
               os.path.join(consumer, "subprojects", "gst-cudagraph"))
    build = os.path.join(consumer, "build")
    run([args.meson, "setup", build, consumer, "--force-fallback-for=gcg-1.0",
         "-Dwerror=true"]
        + ["-Dgst-cudagraph:" + o for o in SUBPROJECT_OPTIONS])
    run([args.meson, "compile", "-C", build])
    return build


def subproject(args):
    tap = Tap(1)
    with tempfile.TemporaryDirectory(prefix="gcg-subproject-") as tmp:
        def consume():
            build = build_consumer(args, tmp)
            run_check_program(os.path.join(build, "gcg-consumer"),
                              os.path.join(build, "subprojects"))

        tap.check("a project with dependency('gcg-1.0') and this tree as "
                  "its subproject builds and runs", consume)
    return 1 if tap.failed else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["install", "subproject"])
    parser.add_argument("--build")
    parser.add_argument("--source")
    parser.add_argument("--meson", required=True)
    parser.add_argument("--pkg-config")
    parser.add_argument("--cc", action="append", default=[])
    parser.add_argument("--gi-python")
    parser.add_argument("--plugin", action="store_true")
    parser.add_argument("--gst-pluginsdir")
    args = parser.parse_args()
    return install(args) if args.mode == "install" else subproject(args)


if __name__ == "__main__":
    sys.exit(main())
