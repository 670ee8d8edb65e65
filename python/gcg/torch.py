# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A PyTorch model inside `cudagraphpreprocess`'s graph (one replay per
frame: preprocess -> model -> copy-out) or `cudagraphbatch`'s (one replay
per batch of every stream's frames), no Python per frame.

    import gcg.torch
    pipeline = gcg.tensor.Pipeline(
        "... ! cudagraphpreprocess name=pre width=224 height=224 ! "
        "other/tensors(memory:CUDAMemory) ! appsink name=sink")
    attached = gcg.torch.attach(pipeline.element("pre"), model)
    pipeline.play()
    for sample in pipeline:
        logits, = [torch.from_dlpack(t) for t in gcg.tensor.tensors(sample)]

`attach()` reads the element's tensor properties (width, height, layout,
tensor-type, channels, and as the batch max-rois, or for cudagraphbatch
batch-size × max-rois: batch-size must then be set), makes the model's static
input of that shape and type on the element's device (or takes
@example), warms the model up on a side stream, captures it with
`torch.cuda.CUDAGraph(keep_graph=True)` and hands the captured CUgraph
(`raw_cuda_graph()`), its static input and its outputs to the element as
a `GcgModelGraph` (libgcg through ctypes; no PyGObject needed) in its
`model` property.  The element's kernel then writes each frame's tensor
straight into the model's static input, replays the model as a child
graph node and copies its outputs into the output buffer: the buffer
holds [the preprocessed tensor, with keep_input] then each output, read
with `gcg.tensor.tensors()`.

Lifetime: the graph, its static tensors, its memory pool and the model
are kept by the `GcgModelGraph` (its owner, released through a destroy
notify) until the element lets go of it (`Attached.detach()`, another
model set, the element finalized), whichever of the pipeline and the
caller's objects goes first.  `Attached.released` says when that
happened.

Requirements: PyTorch >= 2.8 (`keep_graph`, `raw_cuda_graph()`), the
element's CUDA backend (backend=cpu is refused: the model runs on the
GPU), the device's primary context (what PyTorch uses; libgcg's
`gcg_context_new()` retains it), and PyTorch's default caching allocator
(a graph captured with the cudaMallocAsync backend holds memory nodes a
child graph cannot have: libgcg refuses it with a clear error).  The
element must be in NULL or READY.
"""

import ctypes
import itertools
import os
import threading

import torch

from . import _ctgst, tensor

__all__ = ["attach", "Attached", "AttachError"]

# GcgModelDtype (lib/frame/gcg-model-graph.h) and the element's
# GcgTensorType (tensor-type), from gcg.tensor's tables by name (PyTorch
# spells every type as they do).
_MODEL_DTYPES = {getattr(torch, row[0]): i
                 for i, row in tensor._MODEL_DTYPES.items()}
_TENSOR_TYPES = {i: getattr(torch, row[0])
                 for i, row in tensor._DTYPES.items()}
# GcgTensorLayout (layout) and GcgBackend (backend) values.
_NHWC = 1
_GRAY = 2
_BACKEND_CPU = 2
_MAX_DIMS = 8
_MAX_OUTPUTS = 16


class AttachError(RuntimeError):
    """A model that cannot be attached, with the reason."""


# --- libgcg through ctypes ------------------------------------------------------

_vp = ctypes.c_void_p
_err = ctypes.POINTER(ctypes.POINTER(_ctgst.GError))
_NOTIFY = ctypes.CFUNCTYPE(None, _vp)
_shape = ctypes.POINTER(ctypes.c_int64)
_SIGNATURES = {
    "gcg_driver_init": ([_err], ctypes.c_int),
    "gcg_context_new": ([ctypes.c_int, _err], _vp),
    "gcg_model_graph_get_type": ([], ctypes.c_size_t),
    "gcg_model_graph_new": ([_vp, ctypes.c_uint64, _vp, _NOTIFY, _err], _vp),
    "gcg_model_graph_set_input": ([_vp, ctypes.c_uint64, _shape,
                                   ctypes.c_uint, ctypes.c_int, _err],
                                  ctypes.c_int),
    "gcg_model_graph_add_output": ([_vp, ctypes.c_uint64, _shape,
                                    ctypes.c_uint, ctypes.c_int, _err],
                                   ctypes.c_int),
}


class _Gcg:
    """libgcg's calls, bound on a handle of our own.  The plugin links
    libgcg-1.0.so.0, so once an element exists the library is loaded and
    dlopen() by that name gives the same copy (one GType for
    GcgModelGraph); GCG_LIBRARY names another file."""

    def __init__(self):
        handle = ctypes.CDLL(os.environ.get("GCG_LIBRARY", "libgcg-1.0.so.0"))
        for name, (argtypes, restype) in _SIGNATURES.items():
            fn = getattr(handle, name)
            fn.argtypes, fn.restype = argtypes, restype
            setattr(self, name, fn)
        gobject = ctypes.CDLL("libgobject-2.0.so.0")
        self.g_object_unref = gobject.g_object_unref
        self.g_object_unref.argtypes, self.g_object_unref.restype = [_vp], None

    def call(self, fn, *args, ok=bool):
        """@fn(*args, &error); AttachError with libgcg's message when it
        fails (an error set, or a result @ok rejects: NULL or FALSE)."""
        err = ctypes.POINTER(_ctgst.GError)()
        res = fn(*args, ctypes.byref(err))
        message = _ctgst.lib().take_error(err)
        if message is not None or not ok(res):
            raise AttachError("%s: %s" % (fn.__name__, message or "failed"))
        return res


_gcg = _ctgst.once(_Gcg)

# --- what the model graph keeps alive ------------------------------------------
#
# The model graph's owner is a key into _owners; the destroy notify (one
# C callback for the whole process, so it outlives every model graph) drops
# the entry, and with it the last reference the library had on the
# PyTorch objects.  It runs where the element lets go of the model: the
# application's thread, or a streaming thread (ctypes takes the GIL).

_owners_lock = threading.Lock()
_owners = {}
_keys = itertools.count(1)


def _release(key):
    with _owners_lock:
        entry = _owners.pop(key or 0, None)
    if entry is not None:
        entry.clear()


_RELEASE = _NOTIFY(_release)


class _Owned:
    """The PyTorch objects one model graph keeps, and whether the element
    has let them go."""

    def __init__(self, objects):
        self.objects = objects
        self.released = threading.Event()

    def clear(self):
        self.objects = None
        self.released.set()


def _own(objects):
    """(key, entry): @objects kept until the notify for key runs."""
    entry = _Owned(objects)
    key = next(_keys)
    with _owners_lock:
        _owners[key] = entry
    return key, entry


# --- the element ------------------------------------------------------------------


def _element_address(element):
    """The GstElement* of a gcg.tensor Element, a PyGObject element or an
    address (int)."""
    lb = _ctgst.lib()
    if isinstance(element, _ctgst.Element):
        return element._live()
    return _ctgst.object_address(element, lb.gst_element_get_type(),
                                 "GstElement")


def _is_batch(addr):
    """Whether the element is a `cudagraphbatch` (it has batch-size)."""
    return _ctgst.has_property(addr, "batch-size")


def _element_batch(addr):
    """The model's batch dimension: max-rois for cudagraphpreprocess;
    batch-size × max-rois for cudagraphbatch, whose tensor keeps the
    shape of its largest batch (batch-size 0, "the sink pads at
    negotiation", is not known before the pipeline runs: refused)."""
    rois = _ctgst.get_property(addr, "max-rois")
    if not _is_batch(addr):
        return rois
    size = _ctgst.get_property(addr, "batch-size")
    if size == 0:
        raise AttachError(
            "%s has batch-size=0 (as many as its sink pads, known only once "
            "it negotiates): set batch-size before attaching a model, whose "
            "batch is batch-size x max-rois items"
            % _ctgst.object_name(addr))
    return size * rois


def _element_tensor(addr):
    """(shape, dtype) of the tensor the element makes per frame (per
    batch, for cudagraphbatch), from its properties: N = _element_batch(),
    C from channels, H, W in layout's order."""
    get = _ctgst.get_property
    dtype = _TENSOR_TYPES.get(get(addr, "tensor-type"))
    if dtype is None:
        raise AttachError("unknown tensor-type %d" % get(addr, "tensor-type"))
    n, c = _element_batch(addr), 1 if get(addr, "channels") == _GRAY else 3
    h, w = get(addr, "height"), get(addr, "width")
    shape = (n, h, w, c) if get(addr, "layout") == _NHWC else (n, c, h, w)
    return shape, dtype


def _element_device(addr, device):
    """The CUDA device index the model must live on: the element's
    cuda-device-id (-1: device 0, or @device when given, which is then set
    on the element)."""
    ordinal = _ctgst.get_property(addr, "cuda-device-id")
    if device is not None:
        wanted = torch.device("cuda", device) if isinstance(device, int) \
            else torch.device(device)
        if wanted.type != "cuda":
            raise AttachError("device %s is not a CUDA device" % wanted)
        index = wanted.index if wanted.index is not None \
            else torch.cuda.current_device()
        if ordinal not in (-1, index):
            raise AttachError("the element runs on CUDA device %d, the model "
                              "was asked for %s" % (ordinal, wanted))
        if ordinal == -1:
            _ctgst.set_property(addr, "cuda-device-id", index)
        return index
    return max(ordinal, 0)


def _check_element(addr):
    name = _ctgst.object_name(addr)
    if not _ctgst.has_property(addr, "model"):
        raise AttachError("%s has no 'model' property (not a "
                          "cudagraphpreprocess of 0.2 or newer, nor a "
                          "cudagraphbatch of 0.3 or newer)" % name)
    if _ctgst.get_property(addr, "backend") == _BACKEND_CPU:
        raise AttachError("%s has backend=cpu: an attached model runs on the "
                          "GPU, use backend=cuda or auto" % name)


def _static_input(shape, dtype, example, device, batch=False):
    """The model's static input: zeros of the element's tensor, or a copy
    of @example on @device.  The element takes its tensor from the model's
    input (width, height, layout, tensor-type and a grey or colour channel
    order; cudagraphpreprocess its max-rois too), so an example only has
    to be a tensor the element can make: 4 dimensions, N×C×H×W or
    N×H×W×C with C 1 or 3, float32, float16 or uint8.  For a
    cudagraphbatch (@batch) N must be its batch-size × max-rois, which
    the model does not set."""
    if example is None:
        return torch.zeros(shape, dtype=dtype, device=device)
    if not isinstance(example, torch.Tensor):
        raise AttachError("example must be a torch.Tensor, got %r"
                          % type(example).__name__)
    s = tuple(example.shape)
    if (example.dtype not in _TENSOR_TYPES.values() or len(s) != 4
            or not (s[1] in (1, 3) or s[3] in (1, 3))):
        raise AttachError(
            "the example input is %s %s: the element makes N×C×H×W "
            "or N×H×W×C tensors with C 1 or 3, of float32, float16 or uint8 "
            "(its tensor now: %s %s)"
            % (s, str(example.dtype).replace("torch.", ""), tuple(shape),
               str(dtype).replace("torch.", "")))
    if batch and s[0] != shape[0]:
        raise AttachError(
            "the example input's batch is %d: cudagraphbatch's model input "
            "holds batch-size x max-rois = %d items (set those properties "
            "to match)" % (s[0], shape[0]))
    return example.detach().to(device).contiguous().clone()


# --- capture ------------------------------------------------------------------------


def _flatten(out):
    """The model's output as a list of tensors (a tensor, or a tuple, list
    or dict of them, in order)."""
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flatten(o)]
    raise AttachError("the model returned %r: only tensors (or tuples, "
                      "lists, dicts of them) can be copied out"
                      % type(out).__name__)


def _new_graph():
    try:
        graph = torch.cuda.CUDAGraph(keep_graph=True)
    except TypeError:
        graph = None
    if graph is None or not hasattr(graph, "raw_cuda_graph"):
        raise AttachError("PyTorch %s cannot hand over its captured graph: "
                          "attaching needs torch.cuda.CUDAGraph(keep_graph="
                          "True) and raw_cuda_graph() (PyTorch 2.8 or newer)"
                          % torch.__version__)
    return graph


def _capture(model, static_in, warmup):
    """(graph, outputs): @model run @warmup times on a side stream (lazy
    initialisation, cuDNN/cuBLAS workspaces out of the capture), then
    captured, keeping the CUgraph.  Outputs made contiguous inside the
    capture, so each is one block the element can copy."""
    graph = _new_graph()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():
        for _ in range(max(1, warmup)):
            try:
                _flatten(model(static_in))
            except (RuntimeError, TypeError, ValueError) as e:
                # Most often a shape the model cannot take (channels,
                # size) or weights on another device: say what it got.
                raise AttachError("the model fails on the element's tensor "
                                  "(%s %s on %s): %s"
                                  % (tuple(static_in.shape), static_in.dtype,
                                     static_in.device, e)) from e
    torch.cuda.current_stream().wait_stream(side)
    # Captured on the warm-up's stream, of the model's device: PyTorch's
    # default capture stream is made once, on the device current at its
    # first use, so a capture for device 1 after one for device 0 would be
    # recorded on a stream of device 0 (and fail in cuBLAS).
    with torch.no_grad(), torch.cuda.graph(graph, stream=side,
                                           capture_error_mode="thread_local"):
        outputs = [o.contiguous() for o in _flatten(model(static_in))]
    torch.cuda.synchronize()
    return graph, outputs


def _check_outputs(outputs, device):
    if not 1 <= len(outputs) <= _MAX_OUTPUTS:
        raise AttachError("the model has %d outputs, 1 to %d can be attached"
                          % (len(outputs), _MAX_OUTPUTS))
    for i, o in enumerate(outputs):
        if o.device != device or o.dtype not in _MODEL_DTYPES \
                or not 1 <= o.dim() <= _MAX_DIMS:
            raise AttachError("output %d is %s %s on %s: each output must be "
                              "on %s, of 1 to %d dimensions, of one of %s"
                              % (i, tuple(o.shape), o.dtype, o.device, device,
                                 _MAX_DIMS, ", ".join(str(d) for d in
                                                      _MODEL_DTYPES)))


def _describe(gcg, fn, model_graph, t, ok=bool):
    """set_input (TRUE) or add_output (an index, -1 on failure) for @t."""
    shape = (ctypes.c_int64 * t.dim())(*t.shape)
    return gcg.call(fn, model_graph, t.data_ptr(), shape, t.dim(),
                    _MODEL_DTYPES[t.dtype], ok=ok)


def _model_graph(device, graph, static_in, outputs, objects):
    """A GcgModelGraph (address, reference ours) of @graph in @device's
    primary context, owning @objects; (address, owned entry)."""
    gcg = _gcg()
    gcg.call(gcg.gcg_driver_init)
    ctx = gcg.call(gcg.gcg_context_new, device)
    key, entry = _own(objects)
    try:
        # The owner is taken even when this fails (the notify runs).
        m = gcg.call(gcg.gcg_model_graph_new, ctx, graph.raw_cuda_graph(),
                     key, _RELEASE)
    finally:
        gcg.g_object_unref(ctx)  # the model graph keeps its own
    try:
        _describe(gcg, gcg.gcg_model_graph_set_input, m, static_in)
        for t in outputs:
            _describe(gcg, gcg.gcg_model_graph_add_output, m, t,
                      ok=lambda index: index >= 0)
    except BaseException:
        gcg.g_object_unref(m)
        raise
    return m, entry


class Attached:
    """A model attached to an element.  `outputs`: (shape, dtype) of each
    model output, in the buffer's order; `input_shape`, `input_dtype`:
    the static input the element writes; `keep_input`: whether the
    buffer starts with the preprocessed tensor; `graph`, `static_input`,
    `static_outputs`: PyTorch's captured graph and tensors (replaying
    `graph` yourself while the element runs races with it); `released`:
    whether the element has let the model go (its PyTorch objects are
    then only this handle's).  The handle does not keep the element
    alive (a weak reference): the element, once freed, lets the model go
    whether the handle lives or not."""

    def __init__(self, element, graph, static_in, outputs, keep_input,
                 entry):
        self._element = _ctgst.WeakElement(element)
        self.graph = graph
        self.static_input = static_in
        self.static_outputs = outputs
        self.input_shape = tuple(static_in.shape)
        self.input_dtype = static_in.dtype
        self.outputs = [(tuple(o.shape), o.dtype) for o in outputs]
        self.keep_input = keep_input
        self._entry = entry

    @property
    def released(self):
        return self._entry.released.is_set()

    def wait_released(self, timeout=None):
        """Whether the element let the model go within @timeout seconds."""
        return self._entry.released.wait(timeout)

    def detach(self):
        """Sets the element's model to None (the element must be in NULL
        or READY); the element releases the model when it is done with
        it.  Nothing to do once the element is gone."""
        element = self._element.get()
        if element is not None:
            element.set_property("model", None)
            element.release()

    def __repr__(self):
        return "<gcg.torch.Attached %s -> %s%s>" % (
            self.input_shape, ", ".join(str(s) for s, _ in self.outputs),
            " released" if self.released else "")


def attach(element, model, *, device=None, keep_input=False, warmup=3,
           example=None):
    """Captures @model (a callable on one tensor: a torch.nn.Module, a
    function) into a CUDA graph and sets it as @element's `model`, so
    that each frame is preprocessed, run through the model and copied out
    in one replay.

    @element: a `cudagraphpreprocess` or `cudagraphbatch` (with
    batch-size set: the model's batch is batch-size × max-rois) in NULL
    or READY (gcg.tensor's `Pipeline.element(name)`, a PyGObject
    element, or its address).
    @device: the CUDA device (an index, "cuda:N" or torch.device); None:
    the element's cuda-device-id (-1: device 0).  @keep_input: the output
    buffer starts with the preprocessed tensor.  @warmup: eager runs
    before the capture.  @example: the model's input tensor, when it is
    not the element's current tensor: the element then takes its width,
    height, layout, batch (max-rois; a cudagraphbatch's must already be
    batch-size × max-rois) and type from it (4 dimensions, C 1 or 3,
    float32, float16 or uint8).

    Returns an `Attached` handle.  AttachError names what cannot work: an
    element without a model property or with backend=cpu, a
    cudagraphbatch with batch-size=0, an input that
    does not match, a PyTorch without keep_graph, outputs that cannot be
    copied out, a graph libgcg refuses (another context, memory nodes)."""
    addr = _element_address(element)
    _check_element(addr)
    if not torch.cuda.is_available():
        raise AttachError("PyTorch has no CUDA device")
    index = _element_device(addr, device)
    dev = torch.device("cuda", index)
    shape, dtype = _element_tensor(addr)
    with torch.cuda.device(dev):
        static_in = _static_input(shape, dtype, example, dev,
                                  batch=_is_batch(addr))
        graph, outputs = _capture(model, static_in, warmup)
    _check_outputs(outputs, dev)
    objects = [graph, static_in, outputs, model]
    m, entry = _model_graph(index, graph, static_in, outputs, objects)
    del objects
    try:
        _ctgst.set_property(addr, "model-keep-input", bool(keep_input))
        _ctgst.set_property(addr, "model", m)
        if _ctgst.get_property(addr, "model") != m:
            raise AttachError("%s refused the model: set it in the NULL or "
                              "READY state" % _ctgst.object_name(addr))
    finally:
        _gcg().g_object_unref(m)  # the element holds it now, or nobody
    return Attached(addr, graph, static_in, outputs, bool(keep_input), entry)
