# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs a gst-launch-1.0 line whose cudagraph elements name model files.

    python3 -m gcg.launch [OPTIONS] 'LAUNCH LINE'
    python3 -m gcg.launch --help

The line is gst-launch-1.0's syntax (one argument, or several joined as
gst-launch-1.0 joins them), where `cudagraphpreprocess` and
`cudagraphbatch` may say `model=FILE`: a TorchScript file
(`torch.jit.save`) or a `torch.export` program (`torch.export.save`).
The element's `model` property takes an object, not a file, so the
launcher takes those settings out of the line (naming the element where
it has no `name=`), builds the pipeline, loads each model onto the
element's CUDA device, captures it and attaches it
(`gcg.torch.attach()`: preprocessing or batching, the model and the
postprocess then run as one graph replay per frame or batch, no Python
per frame), plays the pipeline to its end (or for --time seconds, or
until Ctrl-C: EOS is sent and the line ends cleanly), prints progress
once a second and a summary: frames, fps, CPU µs per frame, and with
`postprocess=detect|classify` the results per class.

    python3 -m gcg.launch 'cudagraphbatch name=b batch-size=2 width=320 \\
        height=320 postprocess=detect model=detector.pt ! queue ! fakesink \\
      videotestsrc num-buffers=100 ! b.sink_0  b.src_0 ! queue ! fakesink \\
      videotestsrc num-buffers=100 pattern=ball ! b.sink_1  b.src_1 ! queue ! fakesink'

Frames are counted where they leave the elements of ours: buffers on a
`cudagraphpreprocess`'s src pad, on a `cudagraphbatch`'s per-stream
`src_N` pads (or, when it has none, the frames listed in its batches'
metas); with neither element in the line, the buffers reaching its sinks.
Results are read from each such buffer's GstCudaGraphResultsMeta.  The
counting is a pad probe (a little Python per buffer, part of the CPU per
frame the summary gives).

GStreamer is driven through ctypes (gcg.tensor's driver, `gcg._ctgst`),
so no PyGObject is needed; PyTorch is imported only when the line names
a model.  Errors name the element, the file and what is wrong (a file
that is missing or is not a model, an input the model cannot take); the
exit status is then 1.
"""

import argparse
import collections
import ctypes
import logging
import os
import re
import resource
import sys
import time
import zipfile

from . import _ctgst

__all__ = ["LaunchError", "ModelSpec", "split_models", "join_argv",
           "check_model_file", "load_model", "read_results", "Detection",
           "Launcher", "main"]

# The elements whose `model` property the launcher fills from a file.
MODEL_ELEMENTS = ("cudagraphpreprocess", "cudagraphbatch")
NAME_PREFIX = "gcglaunch"


class LaunchError(RuntimeError):
    """A launch line, a model file or a pipeline that cannot run, with
    the reason (element, file and what is wrong where there is one)."""


class ModelSpec:
    """One `model=FILE` taken out of a launch line: the element's
    `factory` and `name` (given in the line, or `named` by the launcher)
    and the file's `path` as the line says it (unquoted, ~ expanded)."""

    def __init__(self, factory, name, path, named):
        self.factory, self.name, self.path, self.named = (factory, name,
                                                          path, named)

    def where(self):
        """How an error names the element and the file."""
        if self.named:
            return ("element %s (no name in the line; '%s' here), model '%s'"
                    % (self.factory, self.name, self.path))
        return "element '%s' (%s), model '%s'" % (self.name, self.factory,
                                                  self.path)

    def __repr__(self):
        return "ModelSpec(%r, %r, %r, named=%r)" % (
            self.factory, self.name, self.path, self.named)


# --- the launch line --------------------------------------------------------
#
# Enough of gst-launch-1.0's grammar (gst/parse/parse.l) to find the
# properties of each element: words split at blanks and at `!` outside
# quotes, a backslash escaping the next character, "..." and '...'
# quoting, `key = value` with blanks around `=` taken as one assignment.
# A word that is an identifier starts an element, its assignments follow
# it; `!`, a bin's parenthesis, a pad reference (`b.src_0`), caps or a URL
# end it.  Only the model= words are removed and a name= added; the rest
# of the line reaches gst_parse_launch() byte for byte.

_ASSIGN = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_\-%:]*)=(.*)\Z", re.S)
_FACTORY = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")


def _words(line):
    """[start, end, text] of each word of @line; `!` is a word of its
    own.  LaunchError for a quote that is not closed."""
    words, i, n = [], 0, len(line)
    while i < n:
        if line[i].isspace():
            i += 1
            continue
        if line[i] == "!":
            words.append([i, i + 1, "!"])
            i += 1
            continue
        start, quote = i, None
        while i < n:
            c = line[i]
            if c == "\\" and i + 1 < n:
                i += 2
                continue
            if quote:
                if c == quote:
                    quote = None
            elif c in "\"'":
                quote = c
            elif c.isspace() or c == "!":
                break
            i += 1
        if quote:
            raise LaunchError("the launch line has a %s that is not closed "
                              "(from character %d: %s)"
                              % (quote, start, line[start:start + 40]))
        words.append([start, i, line[start:i]])
    return words


_KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_\-%:]*\Z")


def _merge_assignments(line, words):
    """Words with `key = value`, `key= value` and `key =value` joined
    into one `key=value` word (its span the whole of it)."""
    out = []
    for w in words:
        prev = out[-1] if out else None
        joins = prev is not None and w[2] != "!" and prev[2] != "!" and (
            (w[2].startswith("=") and _KEY.match(prev[2]))
            or (prev[2].endswith("=") and _KEY.match(prev[2][:-1])))
        if joins:
            prev[1] = w[1]
            prev[2] = re.sub(r"\s*=\s*", "=", line[prev[0]:w[1]], count=1)
        else:
            out.append(list(w))
    return out


def unquote(value):
    """A property value as GStreamer reads it: one pair of enclosing
    quotes removed, then every backslash escape (gst_parse_unescape)."""
    if len(value) >= 2 and value[0] in "\"'" and value[-1] == value[0]:
        value = value[1:-1]
    return re.sub(r"\\(.)", r"\1", value, flags=re.S)


def _elements(line):
    """The elements of @line: dicts of factory, the end of its word, and
    its assignments as (key, raw value, start, end)."""
    elements, current = [], None
    for start, end, text in _merge_assignments(line, _words(line)):
        m = _ASSIGN.match(text)
        if text == "!" or text in ("(", ")") or text.endswith("("):
            current = None
        elif m and current is not None:
            current["props"].append((m.group(1), m.group(2), start, end))
        elif not m and _FACTORY.match(text):
            current = {"factory": text, "end": end, "props": []}
            elements.append(current)
        elif not m:
            current = None  # a pad reference, caps, a URL
    return elements


def split_models(line):
    """(line without the model= settings, [ModelSpec]) for @line.  Each
    `cudagraphpreprocess` or `cudagraphbatch` that says model=FILE keeps
    its name= or gets one (gcglaunchN, a name the line does not use), so
    the launcher finds it after parsing; a model= of any other element is
    left alone.  LaunchError for a model= with no file, given twice to
    one element, or a quote not closed."""
    elements = _elements(line)
    taken = {unquote(v) for e in elements for k, v, _, _ in e["props"]
             if k == "name"}
    counter = 0
    specs, edits = [], []  # edits: (start, end, replacement)
    for e in elements:
        if e["factory"] not in MODEL_ELEMENTS:
            continue
        models = [p for p in e["props"] if p[0] == "model"]
        names = [unquote(p[1]) for p in e["props"] if p[0] == "name"]
        label = names[-1] if names else e["factory"]
        if not models:
            continue
        if len(models) > 1:
            raise LaunchError("%s '%s' says model= %d times: one model per "
                              "element" % (e["factory"], label, len(models)))
        _, raw, start, end = models[0]
        path = unquote(raw)
        if not path:
            raise LaunchError("%s '%s' says model= without a file"
                              % (e["factory"], label))
        named = not names
        if named:
            while "%s%d" % (NAME_PREFIX, counter) in taken:
                counter += 1
            label = "%s%d" % (NAME_PREFIX, counter)
            taken.add(label)
            edits.append((e["end"], e["end"], " name=" + label))
        # The word goes with the blanks before it.
        while start > 0 and line[start - 1].isspace():
            start -= 1
        edits.append((start, end, ""))
        specs.append(ModelSpec(e["factory"], label,
                               os.path.expanduser(path), named))
    for start, end, text in sorted(edits, key=lambda x: (x[0], x[1]),
                                   reverse=True):
        line = line[:start] + text + line[end:]
    return line, specs


def join_argv(argv):
    """The launch line of several arguments as gst-launch-1.0 makes it
    (gst_parse_launchv: each argument's blanks outside double quotes
    escaped, the arguments joined by blanks)."""
    out = []
    for arg in argv:
        escaped, in_quotes, prev = [], False, ""
        for c in arg:
            if c == '"' and not (in_quotes and prev == "\\"):
                in_quotes = not in_quotes
            if c == " " and not in_quotes:
                escaped.append("\\")
            escaped.append(c)
            prev = c
        out.append("".join(escaped))
    return " ".join(out)


# --- model files ------------------------------------------------------------


def check_model_file(spec):
    """LaunchError unless @spec's file could be a model: it exists, is a
    regular file that can be read, and is a zip archive (what
    torch.jit.save and torch.export.save both write).  Needs no PyTorch."""
    path = spec.path
    if not os.path.exists(path):
        raise LaunchError("%s: no such file" % spec.where())
    if os.path.isdir(path):
        raise LaunchError("%s: a directory, not a model file" % spec.where())
    if not os.path.isfile(path):
        raise LaunchError("%s: not a regular file" % spec.where())
    try:
        with open(path, "rb"):
            pass
        is_zip = zipfile.is_zipfile(path)
    except OSError as e:
        raise LaunchError("%s: cannot be read (%s)"
                          % (spec.where(), e.strerror or e)) from e
    if not is_zip:
        raise LaunchError("%s: not a model: TorchScript (torch.jit.save) and "
                          "torch.export (torch.export.save) files are zip "
                          "archives, this one is not" % spec.where())


def _is_export(path):
    """Whether the zip at @path looks like a torch.export program."""
    try:
        with zipfile.ZipFile(path) as z:
            return any(n.endswith("serialized_exported_program.json")
                       or "/models/" in n for n in z.namelist())
    except (OSError, zipfile.BadZipFile):
        return False


def _export_input(torch, program):
    """(shape, dtype) of an exported program's one user input when its
    shape is static, else None."""
    try:
        inputs = set(program.graph_signature.user_inputs)
        vals = [n.meta.get("val") for n in program.graph.nodes
                if n.op == "placeholder" and n.name in inputs]
        if len(vals) != 1 or not isinstance(vals[0], torch.Tensor):
            return None
        shape = tuple(vals[0].shape)
        if not all(type(d) is int for d in shape):
            return None
        return shape, vals[0].dtype
    except AttributeError:
        return None


class _Swallow(logging.Filter):
    """Keeps the records of the loggers it filters instead of letting
    them reach any handler."""

    def __init__(self):
        super().__init__()
        self.details = []

    def filter(self, record):
        exc = record.exc_info[1] if record.exc_info else None
        self.details.append(str(exc) if exc is not None
                            else record.getMessage())
        return False


# Loggers torch.export.load() warns through (torch/export/__init__.py and
# its PT2 archive reader), created here if need be so they can be filtered.
_EXPORT_LOGGERS = ("torch.export", "torch.export.pt2_archive._package")


def _quietly(fn):
    """fn() with the warnings of torch.export's loggers kept from the
    terminal: torch.export.load() logs a traceback before it raises on a
    file it cannot read.  On failure the exception is raised again with
    the cause those warnings held (the last one's first line)."""
    names = set(_EXPORT_LOGGERS) | {
        n for n in list(logging.root.manager.loggerDict)
        if n.startswith("torch.export.")}
    loggers = [logging.getLogger(n) for n in sorted(names)]
    swallow = _Swallow()
    for logger in loggers:
        logger.addFilter(swallow)
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - torch raises many kinds
        lines = [d.strip().splitlines()[0] for d in swallow.details
                 if d.strip()]
        if lines:
            raise RuntimeError(lines[-1]) from e
        raise
    finally:
        for logger in loggers:
            logger.removeFilter(swallow)


def _load_export(torch, path, device):
    program = _quietly(lambda: torch.export.load(path))
    shape = _export_input(torch, program)
    move = getattr(getattr(torch.export, "passes", None),
                   "move_to_device_pass", None)
    if move is not None:
        program = move(program, device)
        return program.module(), shape
    return program.module().to(device), shape


def _load_script(torch, path, device):
    return torch.jit.load(path, map_location=device).eval(), None


def load_model(torch, spec, device):
    """(model, input) of @spec's file on @device: a TorchScript module,
    or a torch.export program's module; input is the exported program's
    static (shape, dtype), or None.  LaunchError when torch can load it
    neither way."""
    check_model_file(spec)
    loaders = [_load_script, _load_export]
    if _is_export(spec.path):
        loaders.reverse()
    errors = []
    for loader in loaders:
        try:
            return loader(torch, spec.path, device)
        except Exception as e:  # noqa: BLE001 - torch raises many kinds
            errors.append("%s: %s" % ("TorchScript" if loader is _load_script
                                      else "torch.export",
                                      str(e).strip().splitlines()[0]
                                      if str(e).strip() else type(e).__name__))
    raise LaunchError("%s: not a model PyTorch can load (%s)"
                      % (spec.where(), "; ".join(errors)))


# --- GStreamer calls gcg._ctgst does not make ---------------------------------

_vp = ctypes.c_void_p
_PROBE = ctypes.CFUNCTYPE(ctypes.c_int, _vp, _vp, _vp)
_GST_PAD_PROBE_TYPE_BUFFER = 1 << 4
_GST_PAD_PROBE_OK = 1
_GST_MESSAGE_WARNING = 1 << 2
_GST_MESSAGE_ELEMENT = 1 << 15
_GST_ITERATOR_OK, _GST_ITERATOR_RESYNC = 1, 2
_GST_STATE_PLAYING = 4
_SIGNATURES = {
    "gst_element_get_static_pad": ([_vp, ctypes.c_char_p], _vp),
    "gst_pad_add_probe": ([_vp, ctypes.c_int, _PROBE, _vp, _vp],
                          ctypes.c_ulong),
    "gst_pad_probe_info_get_buffer": ([_vp], _vp),
    "gst_element_get_factory": ([_vp], _vp),
    "gst_element_factory_get_metadata": ([_vp, ctypes.c_char_p],
                                         ctypes.c_char_p),
    "gst_bin_iterate_recurse": ([_vp], _vp),
    "gst_iterator_next": ([_vp, _vp], ctypes.c_int),
    "gst_iterator_resync": ([_vp], None),
    "gst_iterator_free": ([_vp], None),
    "gst_event_new_eos": ([], _vp),
    "gst_element_send_event": ([_vp, _vp], ctypes.c_int),
    "gst_message_parse_warning": ([_vp, ctypes.POINTER(
        ctypes.POINTER(_ctgst.GError)), ctypes.POINTER(_vp)], None),
}


class _Result(ctypes.Structure):
    """GcgResult (lib/frame/gcg-result.h): 32 bytes."""
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float),
                ("width", ctypes.c_float), ("height", ctypes.c_float),
                ("confidence", ctypes.c_float), ("label", ctypes.c_int32),
                ("item", ctypes.c_uint32), ("reserved", ctypes.c_uint32)]


class _ResultsMeta(ctypes.Structure):
    """The head of GstCudaGraphResultsMeta
    (gst-libs/gcg-gst/gstcudagraphresultsmeta.h)."""
    _fields_ = [("meta_flags", ctypes.c_int), ("meta_info", _vp),
                ("kind", ctypes.c_uint), ("n_results", ctypes.c_uint),
                ("results", ctypes.POINTER(_Result)),
                ("labels", ctypes.POINTER(ctypes.c_uint32)),
                ("n_items", ctypes.c_uint), ("items", _vp)]


assert ctypes.sizeof(_Result) == 32, "GcgResult is 32 bytes"

Detection = collections.namedtuple(
    "Detection", "label label_index confidence x y width height item")
Detection.__doc__ = """One result of a GstCudaGraphResultsMeta, read
through ctypes: its class name and index, confidence, box (source-frame
pixels) and the item it came from (gcg.results gives the same through
PyGObject)."""


def read_results(buffer):
    """The results of a GstBuffer* (an int) as a list of Detection, or
    None when it has no GstCudaGraphResultsMeta (or libgcg-gst-1.0
    cannot be opened).  Call it once the plugin is loaded (after the
    pipeline is made): the library is then the plugin's copy."""
    g = _gst()
    if g.get_results_meta is None:
        return None
    meta = g.get_results_meta(buffer)
    if not meta:
        return None
    m, out = meta.contents, []
    for i in range(m.n_results):
        r = m.results[i]
        q = m.labels[i] if m.labels else 0
        name = g.g_quark_to_string(q) if q else None
        out.append(Detection(name.decode("utf-8", "replace") if name
                             else "class-%d" % r.label, r.label,
                             r.confidence, r.x, r.y, r.width, r.height,
                             r.item))
    return out


class _Gst:
    """The calls above on handles of our own, and the results meta's
    getter where libgcg-gst-1.0 can be opened."""

    def __init__(self):
        handle = ctypes.CDLL("libgstreamer-1.0.so.0")
        for name, (argtypes, restype) in _SIGNATURES.items():
            fn = getattr(handle, name)
            fn.argtypes, fn.restype = argtypes, restype
            setattr(self, name, fn)
        glib = ctypes.CDLL("libglib-2.0.so.0")
        self.g_quark_to_string = glib.g_quark_to_string
        self.g_quark_to_string.argtypes = [ctypes.c_uint32]
        self.g_quark_to_string.restype = ctypes.c_char_p
        gobject = ctypes.CDLL("libgobject-2.0.so.0")
        self.g_value_get_object = gobject.g_value_get_object
        self.g_value_get_object.argtypes, self.g_value_get_object.restype = \
            [_vp], _vp
        self.g_value_reset = gobject.g_value_reset
        self.g_value_reset.argtypes, self.g_value_reset.restype = [_vp], _vp
        self.g_value_unset = gobject.g_value_unset
        self.g_value_unset.argtypes, self.g_value_unset.restype = [_vp], None
        self._results_meta = None

    @property
    def get_results_meta(self):
        """gst_cuda_graph_buffer_get_results_meta, or None while
        libgcg-gst-1.0 cannot be opened (tried again at each use: it is
        on the library path, or loaded with the plugin once an element
        of ours exists)."""
        if self._results_meta is None:
            try:
                gcggst = ctypes.CDLL(os.environ.get("GCG_GST_LIBRARY",
                                                    "libgcg-gst-1.0.so.0"))
                get = gcggst.gst_cuda_graph_buffer_get_results_meta
            except (OSError, AttributeError):
                return None
            get.argtypes, get.restype = [_vp], ctypes.POINTER(_ResultsMeta)
            self._results_meta = get
        return self._results_meta


_gst = _ctgst.once(_Gst)


def _elements_of(bin_addr):
    """Every element inside the bin @bin_addr, recursively: a list of
    addresses (borrowed from the bin, which keeps them)."""
    g = _gst()
    it = g.gst_bin_iterate_recurse(bin_addr)
    value = _ctgst._GValue()
    found = []
    try:
        while True:
            res = g.gst_iterator_next(it, ctypes.byref(value))
            if res == _GST_ITERATOR_OK:
                found.append(g.g_value_get_object(ctypes.byref(value)))
                g.g_value_reset(ctypes.byref(value))
            elif res == _GST_ITERATOR_RESYNC:
                found = []
                g.gst_iterator_resync(it)
            else:
                break
    finally:
        if value.g_type:
            g.g_value_unset(ctypes.byref(value))
        g.gst_iterator_free(it)
    return found


def _factory_name(element):
    """(factory name, klass) of an element, ("", "") when it has none."""
    g = _gst()
    factory = g.gst_element_get_factory(element)
    if not factory:
        return "", ""
    klass = g.gst_element_factory_get_metadata(factory, b"klass") or b""
    return _ctgst.object_name(factory), klass.decode("utf-8", "replace")


# --- counting -------------------------------------------------------------------


class _Counter:
    """Buffers, frames and results seen on one pad.  Updated from
    streaming threads under the GIL (one += at a time)."""

    def __init__(self, label, kind):
        self.label, self.kind = label, kind  # kind: frames|batches
        self.buffers = 0
        self.frames = 0
        self.results = 0
        self.per_label = {}  # label quark -> count
        self.with_meta = 0
        self.errors = 0  # buffers the probe could not read

    def count(self, buffer):
        self.buffers += 1
        if self.kind == "batch-frames":
            try:
                from . import tensor
                self.frames += sum(1 for s in tensor.batch_streams(buffer)
                                   if s.has_frame)
            except (ValueError, OSError):
                pass
        elif self.kind == "frames":
            self.frames += 1
        if self.kind != "frames":
            return
        get = _gst().get_results_meta
        if get is None:
            return
        meta = get(buffer)
        if not meta:
            return
        m = meta.contents
        self.with_meta += 1
        self.results += m.n_results
        for i in range(m.n_results):
            q = m.labels[i] if m.labels else 0
            self.per_label[q] = self.per_label.get(q, 0) + 1


def _label_counts(counters):
    """{label name: count} over @counters."""
    g, out = _gst(), {}
    for c in counters:
        for q, n in c.per_label.items():
            name = g.g_quark_to_string(q) if q else None
            name = name.decode("utf-8", "replace") if name else "?"
            out[name] = out.get(name, 0) + n
    return out


def _short(text):
    """A long error (TorchScript's carry their traceback) as its first
    and last lines."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if len(lines) <= 2:
        return " ".join(lines)
    return "%s ... %s" % (lines[0], lines[-1])


def _format_labels(counts):
    return ", ".join("%s %d" % (k, v) for k, v in
                     sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


# --- the run --------------------------------------------------------------------


class Launcher:
    """A launch line made into a pipeline with its models attached and
    its counting probes in place: `run()` plays it to the end and returns
    the summary's figures.  @line is gst-launch-1.0's syntax with
    model=FILE on our elements; @models maps element names to model
    objects given instead of files (what examples do)."""

    def __init__(self, line, *, warmup=3, out=None, quiet=False,
                 models=None):
        self.out = out or sys.stdout
        self.quiet = quiet
        self.line, self.specs = split_models(line)
        for spec in self.specs:
            check_model_file(spec)
        self.attached = []
        self._probes = []  # the C callbacks: alive as long as the pipeline
        self.counters = []
        self.stats = {}
        try:
            self.pipeline = _ctgst.Pipeline(self.line, sink=None)
        except _ctgst.PipelineError as e:
            raise LaunchError("the launch line does not parse: %s" % e) from e
        try:
            self._attach_files(warmup)
            for name, model in (models or {}).items():
                self._attach(name, model, None, warmup, None)
            self._add_probes()
        except BaseException:
            self.close()
            raise

    # models --------------------------------------------------------------

    def _element(self, name, where):
        try:
            return self.pipeline.element(name)
        except ValueError as e:
            raise LaunchError("%s: not found in the pipeline (%s)"
                              % (where, e)) from e

    def _attach_files(self, warmup):
        if not self.specs:
            return
        try:
            import torch
        except ImportError as e:
            raise LaunchError("%s: PyTorch is not installed (model=FILE "
                              "needs it: %s)" % (self.specs[0].where(), e)) \
                from e
        if not torch.cuda.is_available():
            raise LaunchError("%s: PyTorch has no CUDA device (the model runs "
                              "on the GPU)" % self.specs[0].where())
        for spec in self.specs:
            element = self._element(spec.name, spec.where())
            try:
                index = max(element.get_property("cuda-device-id"), 0)
            finally:
                element.release()
            model, inp = load_model(torch, spec, torch.device("cuda", index))
            self._attach(spec.name, model, spec, warmup, inp)

    def _attach(self, name, model, spec, warmup, inp):
        import torch
        from . import torch as gtorch

        where = spec.where() if spec else "element '%s'" % name
        element = self._element(name, where)
        try:
            example = None
            if inp is not None and len(inp[0]) == 4:
                example = torch.zeros(inp[0], dtype=inp[1])
            try:
                self.attached.append(gtorch.attach(element, model,
                                                   warmup=warmup,
                                                   example=example))
            except gtorch.AttachError as e:
                reason = _short(str(e))
                if reason.startswith(("the model fails on",
                                      "the example input")):
                    reason = "input shape mismatch: " + reason
                if inp is not None:
                    reason += " (the program takes %s %s)" % (
                        tuple(inp[0]), str(inp[1]).replace("torch.", ""))
                raise LaunchError("%s: %s" % (where, reason)) from e
        finally:
            element.release()

    # counting ------------------------------------------------------------

    def _probe(self, element, pad_name, counter):
        g = _gst()
        pad = g.gst_element_get_static_pad(element, pad_name.encode())
        if not pad:
            return False

        def on_buffer(_pad, info, _data, counter=counter):
            # Never raises: ctypes would return 0, GST_PAD_PROBE_DROP.
            try:
                buffer = g.gst_pad_probe_info_get_buffer(info)
                if buffer:
                    counter.count(buffer)
            except Exception:  # noqa: BLE001 - counting is best effort
                counter.errors += 1
            return _GST_PAD_PROBE_OK

        cb = _PROBE(on_buffer)
        self._probes.append(cb)
        _PROBES_ALIVE.append(cb)
        g.gst_pad_add_probe(pad, _GST_PAD_PROBE_TYPE_BUFFER, cb, None, None)
        _ctgst.lib().gst_object_unref(pad)
        self.counters.append(counter)
        return True

    def _add_probes(self):
        elements = _elements_of(self.pipeline.address)
        ours, sinks = [], []
        for e in elements:
            factory, klass = _factory_name(e)
            if factory in MODEL_ELEMENTS:
                ours.append((e, factory))
            elif "Sink" in klass.split("/"):
                sinks.append(e)
        for e, factory in ours:
            name = _ctgst.object_name(e)
            if factory == "cudagraphpreprocess":
                self._probe(e, "src", _Counter(name, "frames"))
                continue
            streams = [self._probe(e, "src_%d" % i,
                                   _Counter("%s.src_%d" % (name, i), "frames"))
                       for i in range(_MAX_PADS)]
            self._probe(e, "src", _Counter(name, "batch-frames"
                                           if not any(streams) else
                                           "batches"))
        if not ours:
            for e in sinks:
                self._probe(e, "sink", _Counter(_ctgst.object_name(e),
                                                "frames"))

    def frames(self):
        return sum(c.frames for c in self.counters)

    # the run -------------------------------------------------------------

    def _say(self, text):
        self.out.write("launch: %s\n" % text)
        self.out.flush()

    def _send_eos(self):
        g = _gst()
        g.gst_element_send_event(self.pipeline.address, g.gst_event_new_eos())

    def _message(self, msg):
        """True at EOS; LaunchError for an ERROR."""
        if msg.type == _ctgst.GST_MESSAGE_EOS:
            return True
        if msg.error is not None:
            src, text, debug = msg.error
            raise LaunchError("ERROR from element %s: %s%s"
                              % (src or "?", text,
                                 "\n  " + debug if debug else ""))
        if msg.type == _GST_MESSAGE_WARNING:
            self._warning(msg)
        elif msg.type == _GST_MESSAGE_ELEMENT and msg.name == "cudagraph-stats":
            src = _ctgst.GstMessage.from_address(msg.address).src
            name = _ctgst.object_name(src) if src else "?"
            self.stats[name] = {k: msg.get_uint64(k) for k in
                                ("captures", "replays", "frames", "batches")}
            self.stats[name]["backend"] = msg.get_string("backend")
        return False

    def _warning(self, msg):
        g, lb = _gst(), _ctgst.lib()
        err, debug = ctypes.POINTER(_ctgst.GError)(), _vp()
        g.gst_message_parse_warning(msg.address, ctypes.byref(err),
                                    ctypes.byref(debug))
        src = _ctgst.GstMessage.from_address(msg.address).src
        text = lb.take_error(err)
        lb.take_string(debug.value)
        self._say("WARNING from element %s: %s"
                  % (_ctgst.object_name(src) if src else "?", text))

    def run(self, seconds=None):
        """Plays to EOS (sent after @seconds when given, or at Ctrl-C);
        returns the summary as a dict."""
        t0, r0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
        if not _ctgst.lib().gst_element_set_state(self.pipeline.address,
                                                  _GST_STATE_PLAYING):
            # GST_STATE_CHANGE_FAILURE: the ERROR on the bus says why.
            while True:
                msg = self.pipeline.pop_message(0)
                if msg is None:
                    raise LaunchError("the pipeline does not start")
                try:
                    self._message(msg)
                finally:
                    msg.release()
        last_t, last_frames, eos_sent = t0, 0, False
        interrupted = False
        while True:
            try:
                msg = self.pipeline.pop_message(0.1)
                if msg is not None:
                    try:
                        if self._message(msg):
                            break
                    finally:
                        msg.release()
                now = time.perf_counter()
                if seconds is not None and not eos_sent \
                        and now - t0 >= seconds:
                    self._send_eos()
                    eos_sent = True
                if now - last_t >= 1.0:
                    frames = self.frames()
                    if not self.quiet:
                        self._say("%.1f s: %d frames, %.1f fps"
                                  % (now - t0, frames,
                                     (frames - last_frames) / (now - last_t)))
                    last_t, last_frames = now, frames
            except KeyboardInterrupt:
                if interrupted:
                    raise
                interrupted = True
                self._say("interrupted: sending EOS (Ctrl-C again to stop "
                          "at once)")
                self._send_eos()
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        self.pipeline.stop()
        return self._summary(wall, cpu)

    def _summary(self, wall, cpu):
        frames = self.frames()
        streams = [c for c in self.counters if c.kind == "frames"]
        summary = {
            "frames": frames, "seconds": wall,
            "fps": frames / wall if wall > 0 else 0.0,
            "cpu_us_per_frame": cpu * 1e6 / frames if frames else None,
            "results": sum(c.results for c in streams),
            "per_label": _label_counts(streams),
            "with_results_meta": sum(c.with_meta for c in streams),
            "pads": {c.label: {"frames": c.frames, "buffers": c.buffers,
                               "results": c.results,
                               "per_label": _label_counts([c])}
                     for c in self.counters},
            "stats": self.stats,
        }
        self._say("done: %d frames in %.2f s, %.1f fps, %s us CPU per frame"
                  % (frames, wall, summary["fps"],
                     "%.0f" % summary["cpu_us_per_frame"] if frames else "-"))
        if summary["with_results_meta"]:
            self._say("results: %d (%s)" % (summary["results"],
                                            _format_labels(
                                                summary["per_label"])
                                            or "none"))
        for c in self.counters:
            if c.kind == "batches":
                self._say("%s: %d batches" % (c.label, c.buffers))
                continue
            text = "%s: %d frames" % (c.label, c.frames)
            if c.with_meta:
                text += ", %d results (%s)" % (
                    c.results, _format_labels(_label_counts([c])) or "none")
            self._say(text)
        for name, s in sorted(self.stats.items()):
            self._say("%s: %s backend, %s captures, %s replays"
                      % (name, s.get("backend"), s.get("captures"),
                         s.get("replays")))
        return summary

    def close(self):
        pipeline = getattr(self, "pipeline", None)
        if pipeline is not None:
            pipeline.close()


_MAX_PADS = 128  # src_N pads looked up per cudagraphbatch
# Probe callbacks stay alive for the process: a streaming thread may call
# one while the pipeline is being torn down.
_PROBES_ALIVE = []

_DESCRIPTION = __doc__.split("\n\n", 2)[2].split("\n\nGStreamer")[0]


def _parser():
    ap = argparse.ArgumentParser(
        prog="python3 -m gcg.launch",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run a gst-launch-1.0 line in which cudagraphpreprocess "
        "and cudagraphbatch may say model=FILE (TorchScript or torch.export "
        "program).",
        epilog=_DESCRIPTION)
    ap.add_argument("line", nargs="+", metavar="LAUNCH-LINE",
                    help="the pipeline, in gst-launch-1.0's syntax (one "
                    "argument, or several as gst-launch-1.0 takes them)")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="no progress lines, only the summary")
    ap.add_argument("-t", "--time", type=float, metavar="SECONDS",
                    help="send EOS after this many seconds (live sources)")
    ap.add_argument("--warmup", type=int, default=3, metavar="N",
                    help="eager runs of each model before its capture "
                    "(default 3)")
    ap.add_argument("--print-line", action="store_true",
                    help="print the line given to GStreamer (model= taken "
                    "out, names added) and the models, then exit")
    return ap


def main(argv=None):
    args = _parser().parse_args(argv)
    line = args.line[0] if len(args.line) == 1 else join_argv(args.line)
    try:
        if args.print_line:
            stripped, specs = split_models(line)
            print(stripped)
            for spec in specs:
                print("%s: %s" % (spec.name, spec.path))
            return 0
        launcher = Launcher(line, warmup=args.warmup, quiet=args.quiet)
        try:
            launcher.run(args.time)
        finally:
            launcher.close()
    except LaunchError as e:
        sys.stderr.write("gcg.launch: %s\n" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
