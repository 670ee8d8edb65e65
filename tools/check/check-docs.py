#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks that the docs name only what exists.

    check-docs.py [ROOT]

ROOT is the source tree (default: two folders above this script's).  The
docs are README.md, docs/*.md, bench/README.md, tools/README*,
examples/*.md and every README.md below gst/, lib/, gst-libs/ and
tests/.  In them:

(a) Paths.  The target of every link that is not a URL or an anchor, every
    word of an inline code span that looks like a path (it ends in a
    source-file extension or in /, or it begins with a top-level folder
    of ROOT such as lib/ or tools/), and every word of a fenced code block
    that begins with a top-level folder (the value of a key=PATH word
    too) must exist: relative to ROOT, to the doc's folder, or as the end
    of a path in ROOT (a file named from inside its layer,
    `kernels/gcg-frame-math.h`, or by its bare name, `gcg-frame-chain.c`).
    A program is named by its source without .c or .py (`tools/soak`);
    built libraries and IGNORE_PATHS (build folders, install paths) are
    not checked.  A word with a glob character must match something;
    placeholders (`<build>`, `$OUT`, `…`) and absolute paths are not
    checked.
(b) Symbols.  Every word of ours in code (inline or fenced: `gcg_…`,
    `gst_cuda_graph_…`, `Gcg…`, `GstCudaGraph…`, `GCG_…`,
    `GST_CUDA_GRAPH_…`) must occur in the sources (lib/, gst/, gst-libs/,
    tests/, tools/, bench/, python/, examples/; their Markdown files are
    docs, not sources, so a doc never vouches for itself), as it is or as
    a name that G_DECLARE_*_TYPE or glib-mkenums derive from them.  `NAME_*` and
    `NAME…` are prefixes: some source word must begin with NAME.  A name
    of the Python package, `gcg.MOD.NAME`, must be in python/gcg/MOD.py.
(c) Properties.  An element's properties are the rows of the table that
    tools/check/element-docs.py generates in its page (docs/ELEMENT.md, between
    its marker comments; the `element-docs` test holds that table to the
    plugin), a pad's are the param specs of gst/'s *pad*.c files.  Every
    backticked name in the first column of a hand-written table whose
    header's first cell is "property" in an element page must be one of
    that element's or its pads' properties, and in every doc each
    `NAME=VALUE` after one of our elements in a launch line (inline or
    fenced, up to the next `!`) and each `PAD::NAME` (`sink_0::crop-x`)
    must be a property of that element or of a pad.  A page without a
    generated table (or an element without a page) falls back to any
    property name string ("name") in gst/'s sources.

Prints one line per stale reference, FILE:LINE: what, then a count, and
exits 1 if there is any, 0 otherwise.  Standard library only: run by the
`doc-references` unit test (tests/meson.build).
"""
import fnmatch
import glob
import os
import re
import sys

# Extensions of the files a doc names as files (what the tree holds);
# built things (.so, .typelib, .gir, .fatbin) are not checked.
FILE_EXTS = {"c", "h", "cu", "cuh", "py", "md", "build", "sh", "modelinfo",
             "txt", "in", "supp", "png", "mp4", "toml", "json", "cfg",
             "ini", "yaml", "yml", "options", "clang-format"}

# Files named without an extension that a doc may name bare.
ROOT_FILES = {".clang-format", ".gitignore", "LICENSE", "meson.build"}

# Built things: a doc may name them by their path in a build folder.
BUILT_EXTS = {"so", "a", "typelib", "gir", "fatbin", "cubin", "pc"}

# Paths that docs name on purpose but that are not in the tree.  Keep this
# short; each entry says why it may be missing.
IGNORE_PATHS = [
    "build/*",          # a build folder (meson setup build)
    "build-*/*",        # the GPU build folders of tools/gpu-build.sh and
                        # tools/peers/gpu-build-126.sh
    ".gpu-bundle*",     # made by tools/gpu-build.sh and
                        # tools/peers/gpu-bundle-126.sh, ignored by git
    "gst/cuda/*",       # gstreamer-cuda-1.0's include prefix, not ours
    "include/gcg-1.0/*",  # where the headers install
    "PREFIX/*",         # an install prefix
    ".cache/*",         # tools/*.sh's download cache, ignored by git
]

# Top-level folders that are not the project's (git's, caches).
UNTRACKED_TOP = {".git", ".cache", ".whl", ".gl"}

# Folders whose files are sources for (b).
SOURCE_DIRS = ["lib", "gst", "gst-libs", "tests", "tools", "bench",
               "python", "examples"]

OURS = re.compile(r"(?<![\w.])(gcg_\w+|gcg__\w+|gst_cuda_graph_\w+"
                  r"|Gcg[A-Z]\w*|GstCudaGraph\w*|GCG_\w+|GST_CUDA_GRAPH_\w+)"
                  r"(\*|…)?")
PY_NAME = re.compile(r"(?<![\w.])(gcg\.[a-z_][a-z0-9_]*(?:\.[A-Za-z_]\w*)*)")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
PLACEHOLDER = re.compile(r"[<>$…{}%@=]|\.\.\.")
DECLARE = re.compile(
    r"G_DECLARE_(FINAL|DERIVABLE|INTERFACE)_TYPE\s*\(\s*(\w+)\s*,\s*(\w+)\s*,"
    r"\s*(\w+)\s*,\s*(\w+)")
ENUM = re.compile(r"typedef\s+enum\b[^;]*?\}\s*(\w+)\s*;", re.S)


def doc_files(root):
    pats = ["README.md", "docs/*.md", "bench/README.md", "tools/README*",
            "examples/*.md", "gst/**/README.md", "lib/**/README.md",
            "gst-libs/**/README.md", "tests/**/README.md"]
    found = set()
    for pat in pats:
        for path in glob.glob(os.path.join(root, pat), recursive=True):
            if os.path.isfile(path):
                found.add(os.path.relpath(path, root))
    return sorted(found)


def walk_files(root):
    """Every file of the tree, relative to ROOT, without build folders."""
    out = []
    for top, dirs, files in os.walk(root):
        rel = os.path.relpath(top, root)
        if rel == ".":
            dirs[:] = [d for d in dirs if d not in UNTRACKED_TOP
                       and not d.startswith(("build", ".gpu-"))]
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            out.append(os.path.normpath(os.path.join(rel, name)))
    return out


def camel_to_upper(camel):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", camel).upper()


def derived_names(text):
    """Names that G_DECLARE_*_TYPE and glib-mkenums make from a source."""
    names = set()
    for kind, obj, func, module, name in DECLARE.findall(text):
        names |= {f"{module}_{name}", f"{module}_IS_{name}",
                  f"{module}_TYPE_{name}", f"{func}_get_type", f"{obj}Class",
                  f"{obj}Interface", f"{module}_{name}_CLASS",
                  f"{module}_IS_{name}_CLASS", f"{module}_{name}_GET_CLASS",
                  f"{module}_{name}_GET_IFACE", f"{obj}_autoptr"}
    for enum in ENUM.findall(text):
        upper = camel_to_upper(enum)
        module, _, rest = upper.partition("_")
        names |= {f"{module}_TYPE_{rest}", f"{upper.lower()}_get_type"}
    return names


def source_words(root):
    words = set()
    for folder in SOURCE_DIRS:
        for path in walk_files(os.path.join(root, folder)) \
                if os.path.isdir(os.path.join(root, folder)) else []:
            if path.endswith((".png", ".mp4", ".fatbin", ".cubin", ".md")):
                continue
            try:
                with open(os.path.join(root, folder, path),
                          encoding="utf-8", errors="replace") as f:
                    text = f.read()
            except OSError:
                continue
            words.update(WORD.findall(text))
            if "G_DECLARE_" in text or "typedef enum" in text:
                words |= derived_names(text)
    return words


PARAM_SPEC = re.compile(r'g_param_spec_\w+\s*\(\s*"([a-z][a-z0-9-]*)"')
GEN_BEGIN = "<!-- generated by tools/check/element-docs.py: properties"
GEN_END = "<!-- end of generated properties"
# Words of a launch line that are not properties but are understood there:
# GstElement's `name`, and `model` (gcg.launch loads the file it names).
LAUNCH_WORDS = {"name", "model"}
# Words that stand for any property in a doc's prose.
PLACEHOLDER_PROPS = {"prop", "property"}
LAUNCH_PROP = re.compile(r"^([a-z][a-z0-9-]*)=")
PAD_PROP = re.compile(r"(?<![\w-])(?:\w+\.)?(?:sink|src)_(?:\d+|%u|N)"
                      r"::([a-z][a-z0-9-]*)")


def element_properties(root):
    """{element: its properties} from the generated table of each page."""
    out = {}
    for path in glob.glob(os.path.join(root, "docs", "cudagraph*.md")):
        element = os.path.basename(path)[:-3]
        names, inside = set(), False
        with open(path, encoding="utf-8") as f:
            for text in f:
                if text.startswith(GEN_BEGIN):
                    inside = True
                elif text.startswith(GEN_END):
                    inside = False
                elif inside and text.startswith("| `"):
                    names.add(text.split("`")[1])
        if names:
            out[element] = names
    return out


def pad_properties(root):
    """Property names of the pads: the name strings of gst/'s *pad*.c
    (some install through a helper that takes the name)."""
    names = set()
    for path in glob.glob(os.path.join(root, "gst", "**", "*pad*.c"),
                          recursive=True):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if "g_param_spec_" in text:
            names.update(re.findall(r'"([a-z][a-z0-9-]*)"', text))
    return names


def property_names(root):
    names = set()
    for path in walk_files(os.path.join(root, "gst")):
        if path.endswith((".c", ".h")):
            with open(os.path.join(root, "gst", path), encoding="utf-8",
                      errors="replace") as f:
                names.update(re.findall(r'"([a-z][a-z0-9-]*)"', f.read()))
    return names


class Checker:
    def __init__(self, root):
        self.root = root
        self.files = walk_files(root)
        self.file_set = set(self.files)
        self.dirs = set()
        for f in self.files:
            d = os.path.dirname(f)
            while d:
                self.dirs.add(d)
                d = os.path.dirname(d)
        self.top_dirs = {d for d in self.dirs if "/" not in d}
        self.words = source_words(root)
        self.props = property_names(root)
        self.elements = element_properties(root)
        self.pad_props = pad_properties(root)
        self.faults = []

    def fault(self, doc, line, what):
        self.faults.append(f"{doc}:{line}: {what}")

    # --- (a) paths ---------------------------------------------------

    def exists(self, doc, path):
        is_dir = path.endswith("/")
        path = path.rstrip("/")
        if not path:
            return True
        docdir = os.path.dirname(doc)
        for base in ("", docdir):
            cand = os.path.normpath(os.path.join(base, path))
            if cand.startswith(".."):
                continue
            if cand in self.dirs or (not is_dir and cand in self.file_set):
                return True
        # A file or folder named by the end of its path.
        names = self.dirs if is_dir else self.file_set | self.dirs
        suffix = "/" + os.path.normpath(path)
        return any(n.endswith(suffix) for n in names)

    def glob_matches(self, doc, path):
        docdir = os.path.dirname(doc)
        for base in ("", docdir):
            pat = os.path.normpath(os.path.join(base, path.rstrip("/")))
            if fnmatch.filter(self.files, pat) or \
                    fnmatch.filter(self.dirs, pat):
                return True
        return any(fnmatch.fnmatch(f, "*/" + path) for f in self.files)

    def looks_like_path(self, word, fenced):
        first = word.split("/", 1)[0]
        if "/" in word and first in self.top_dirs:
            return True
        if fenced or not re.match(r"^[\w./+*?-]+$", word):
            return False
        if word.endswith("/") and re.search(r"[A-Za-z]", word):
            return True                         # a folder: `frame/`
        base = os.path.basename(word)
        ext = base.rsplit(".", 1)[-1] if "." in base[1:] else ""
        return ext in FILE_EXTS or base in ROOT_FILES

    def check_path(self, doc, line, word, fenced=False, link=False):
        if not link and "=" in word:
            word = word.rsplit("=", 1)[1]     # key=PATH, a launch line's
        word = word.strip("()[],;:'\"")
        word = re.sub(r":\d+(-\d+)?$", "", word)      # FILE:LINE
        word = word.split("#", 1)[0]
        if word.startswith("./"):
            word = word[2:]
        if not word or word.startswith(("/", "~", "-")) or \
                PLACEHOLDER.search(word):
            return
        if not link and not self.looks_like_path(word, fenced):
            return
        if any(fnmatch.fnmatch(word, p) or fnmatch.fnmatch(word + "/", p)
               for p in IGNORE_PATHS):
            return
        if any(c in word for c in "*?["):
            if not self.glob_matches(doc, word):
                self.fault(doc, line, f"no file matches {word}")
            return
        if self.exists(doc, word) or self.built(doc, word):
            return
        self.fault(doc, line, f"no such file or folder: {word}")

    def built(self, doc, word):
        """A program built from WORD.c (`tools/soak`, `bench/bench-sync`,
        in the build folder) or a built library: its source must exist."""
        base = os.path.basename(word)
        if "." in base:
            return base.rsplit(".", 1)[1] in BUILT_EXTS
        return any(self.exists(doc, word + ext) for ext in (".c", ".py"))

    # --- (b) symbols -------------------------------------------------

    def check_python(self, doc, line, code):
        """`gcg.MOD.NAME…`: python/gcg/MOD.py holds every NAME."""
        for m in PY_NAME.finditer(code):
            mod, *names = m.group(1).split(".")[1:]
            if not names and mod in FILE_EXTS:
                continue                        # a file: gcg.h
            path = os.path.join(self.root, "python", "gcg", mod + ".py")
            if not os.path.isfile(path):
                self.fault(doc, line, f"no such Python module: gcg.{mod}")
                continue
            with open(path, encoding="utf-8") as f:
                words = set(WORD.findall(f.read()))
            for name in names:
                if name not in words:
                    self.fault(doc, line, f"no {name} in gcg.{mod}")

    def check_symbols(self, doc, line, code):
        self.check_python(doc, line, code)
        for m in OURS.finditer(code):
            name, wild = m.group(1), m.group(2)
            if wild or name.endswith("_"):
                stem = name.rstrip("_") if not wild else name
                if not any(w.startswith(stem) for w in self.words):
                    self.fault(doc, line, f"no symbol begins with {stem}")
            elif name not in self.words:
                self.fault(doc, line, f"no such symbol: {name}")

    # --- (c) properties ----------------------------------------------

    def known_properties(self, element):
        """Properties of @element and its pads, or None when its page has
        no generated table."""
        if element not in self.elements:
            return None
        return self.elements[element] | self.pad_props

    def check_property_row(self, doc, line, row):
        cells = row.strip().strip("|").split("|")
        element = os.path.basename(doc)[:-3]
        known = self.known_properties(element)
        for m in INLINE_CODE.finditer(cells[0]):
            name = m.group(2).strip()
            if not re.fullmatch(r"[a-z][a-z0-9-]*", name):
                continue
            if known is None and name not in self.props:
                self.fault(doc, line,
                           f"no element property \"{name}\" in gst/")
            elif known is not None and name not in known:
                self.fault(doc, line,
                           f"no property \"{name}\" on {element} or its pads")

    def check_launch(self, doc, words):
        """NAME=VALUE after one of our elements, and PAD::NAME, in @words
        (line, word) of one launch line."""
        element = None
        for line, word in words:
            word = word.strip("\"'`")
            for m in PAD_PROP.finditer(word):
                if self.pad_props and m.group(1) not in self.pad_props \
                        and m.group(1) not in PLACEHOLDER_PROPS:
                    self.fault(doc, line,
                               f"no pad property \"{m.group(1)}\"")
            if word == "!" or word.startswith("!"):
                element = None
                continue
            if re.fullmatch(r"cudagraph[a-z]+", word):
                element = word
                continue
            m = LAUNCH_PROP.match(word)
            if element and m and m.group(1) not in LAUNCH_WORDS:
                known = self.known_properties(element)
                if known is None:
                    known = self.props
                if m.group(1) not in known:
                    self.fault(doc, line, f"no property \"{m.group(1)}\" on "
                               f"{element}")
            elif not m and "=" not in word:
                element = None        # another word: the element's end

    # --- a doc -------------------------------------------------------

    def check_doc(self, doc):
        with open(os.path.join(self.root, doc), encoding="utf-8") as f:
            lines = f.read().split("\n")
        fenced = False
        props = os.path.basename(doc).startswith("cudagraph") and \
            doc.startswith("docs/")
        in_prop_table = generated = False
        launch = []                 # a fenced launch line, over its \\
        for n, text in enumerate(lines, 1):
            if FENCE.match(text):
                fenced = not fenced
                launch = []
                continue
            if fenced:
                for word in text.split():
                    self.check_path(doc, n, word, fenced=True)
                self.check_symbols(doc, n, text)
                launch += [(n, w) for w in text.split() if w != "\\"]
                if not text.rstrip().endswith("\\"):
                    self.check_launch(doc, launch)
                    launch = []
                continue
            if text.startswith(GEN_BEGIN):
                generated = True
            elif text.startswith(GEN_END):
                generated = False
            if props and not generated:
                if text.startswith("|"):
                    first = text.strip().strip("|").split("|")[0].strip()
                    if first.lower() == "property":
                        in_prop_table = True
                    elif in_prop_table and not set(first) <= set("-: "):
                        self.check_property_row(doc, n, text)
                else:
                    in_prop_table = False
            for m in INLINE_CODE.finditer(text):
                code = m.group(2)
                for word in code.split():
                    self.check_path(doc, n, word)
                self.check_symbols(doc, n, code)
                self.check_launch(doc, [(n, w) for w in code.split()])
            for m in LINK.finditer(text):
                target = m.group(1)
                if not re.match(r"^[a-z]+:", target) and \
                        not target.startswith("#"):
                    self.check_path(doc, n, target, link=True)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
    checker = Checker(root)
    docs = doc_files(root)
    for doc in docs:
        checker.check_doc(doc)
    for fault in checker.faults:
        print(fault)
    if checker.faults:
        print(f"{len(checker.faults)} stale reference(s) in the docs")
        return 1
    print(f"{len(docs)} docs name only what exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
