# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Zero-copy tensors from `cudagraphpreprocess`, for PyTorch, CuPy and NumPy.

`cudagraphpreprocess` pushes `other/tensors` buffers that carry a
`GstCudaGraphTensorMeta` (gst-libs/gcg-gst/gstcudagraphtensormeta.h): where the
tensor is (host memory, or a device pointer into GStreamer's CUDA
memory), its shape, element type and layout, the CUDA stream it is
written on, and how each batch item was cut from the frame.  This module
reads that meta through ctypes and hands the memory out in place::

    sample = appsink.emit("pull-sample")
    t = gcg.tensor.from_sample(sample)
    x = torch.from_dlpack(t)          # CUDA memory: no copy, data_ptr() == t.data_ptr
    a = t.numpy()                     # system memory: no copy, read-only view

The object returned keeps the GstBuffer alive (its own reference), and so
does every array made from it, so the buffer pool cannot reuse the memory
while an array still points there.

Without PyGObject.  Nothing here imports `gi` unless the caller passes a
gi object.  A buffer may be given as the address of a GstBuffer (an int,
e.g. from ctypes or cffi): it is checked the same way (the GType in its
GstMiniObject header must be GstBuffer's), its PTS is read from the C
struct, and the Tensor takes and later drops its own reference
(gst_mini_object_ref/unref), so the caller may let go of the buffer.  For
a program with no PyGObject at all, `Pipeline` and `pull_samples` drive a
launch line through ctypes (libgstreamer-1.0, libgstapp-1.0) and give
`Sample` objects whose `get_buffer()` and `get_caps()` are addresses::

    for sample in gcg.tensor.pull_samples(
            "videotestsrc num-buffers=8 ! cudagraphpreprocess ! "
            "other/tensors(memory:CUDAMemory) ! appsink name=sink"):
        x = torch.from_dlpack(gcg.tensor.from_sample(sample))

    with gcg.tensor.Pipeline(launch) as p:   # streaming: one at a time
        p.play()
        for sample in p:                     # PipelineError on a bus ERROR
            ...

A launch line with several appsinks, or an appsrc, is driven through
`Pipeline(launch, sink=None)`: `app_sink(name)` gives an `AppSink`
(`try_pull_sample`, `is_eos`, as PyGObject's), `app_src(name)` an `AppSrc`
whose `push_buffer(buffer, rois)` pushes a frame with
GstVideoRegionOfInterestMeta boxes, `pop_message()` the bus's `Message`s
(examples/analytics.py does all of it, with PyGObject or without).

A Sample holds one reference on the GstSample (released when it is
collected, or by `release()`); its buffer and caps addresses are borrowed
from it, but a Tensor made from the buffer holds the buffer itself.

Synchronisation.  The element pushes a buffer before the GPU has finished
writing it.  Whoever reads it must wait for that frame:

* `__dlpack__(stream=S)` (how `torch.from_dlpack` asks, with its current
  stream) prefers the *event* path: it records a CUDA event on the
  element's stream (`meta.stream`) and makes S wait on it
  (cuStreamWaitEvent), so nothing waits on the CPU.  When the consumer's
  tensor is released, the reverse is done (an event on S, waited on by
  the element's stream) so a later frame written into the recycled
  memory cannot overtake kernels still reading it on S.  If any step of
  that is unavailable (no `libcuda.so.1`, no stream in the meta, a driver
  call fails) it falls back to the *map* path: the buffer is mapped with
  `GST_MAP_READ | GST_MAP_CUDA`, which waits on the CPU for that frame
  only, and stays mapped until the consumer releases the tensor.
  `stream=-1` means the consumer syncs itself (DLPack): *none*.
  `Tensor.last_sync` says which path the last export took.
* `__cuda_array_interface__` (`torch.as_tensor`, CuPy, Numba) cannot learn
  the consumer's stream, so it always takes the map path and reports
  `"stream": None` (the data is complete when the dict is returned).
* `numpy()` maps the buffer for reading (which waits for the frame) and
  keeps the mapping for as long as the array lives.

The driver is loaded at run time (`GCG_CUDA_LIBRARY` overrides the path,
as for the library), so the module imports on machines without a GPU.
"""

import ctypes
import os
import re
import threading
import weakref

from . import _ctgst
from ._ctgst import (AppSink, AppSrc, Message, Pipeline, PipelineError,
                     Sample, caps_size, caps_to_string, has_element,
                     pull_samples)

__all__ = ["Tensor", "from_sample", "from_buffer", "tensors", "BatchItem",
           "batch_items", "BatchStream", "batch_streams", "Pipeline",
           "PipelineError", "Sample", "pull_samples", "AppSink", "AppSrc",
           "Message", "caps_size", "caps_to_string", "has_element"]

# --- C layouts -------------------------------------------------------------

GST_MAP_READ = _ctgst.GST_MAP_READ
# GST_MAP_FLAG_LAST << 1: GStreamer's CUDA map flag, gives the device pointer.
GST_MAP_CUDA = 1 << 17
# Host memory kinds (GST_ALLOCATOR_SYSMEM, the plugin's pinned memory): a
# meta claiming CUDA memory on them lies.  Only known host kinds are
# refused, so CUDA memory of any allocator (GstCudaMemory, the element's
# fenced subclass, another CUDA library's) still exports.
_HOST_MEMORY_TYPES = (b"SystemMemory", b"CudaGraphPinnedMemory")

# GcgModelDtype (lib/frame/gcg-model-graph.h), the types of a model's
# tensors (GstCudaGraphTensorMetaTensor.dtype) -> (name, array-interface
# typestr, DLPack code, bits).  NumPy and the CUDA array interface have no bfloat16
# (typestr None): DLPack only.  The names and sizes are lib/frame/
# gcg-dtype.c's (the unit test python-meta-layout compares them).
_MODEL_DTYPES = {
    0: ("float32", "<f4", 2, 32),
    1: ("float16", "<f2", 2, 16),
    2: ("bfloat16", None, 4, 16),
    3: ("uint8", "|u1", 1, 8),
    4: ("int8", "|i1", 0, 8),
    5: ("int32", "<i4", 0, 32),
    6: ("int64", "<i8", 0, 64),
}
# GcgTensorType, the types the elements write: rows of _MODEL_DTYPES.
_DTYPES = {0: _MODEL_DTYPES[0], 1: _MODEL_DTYPES[1], 2: _MODEL_DTYPES[3]}
_DTYPE_BY_NAME = {v[0]: k for k, v in _DTYPES.items()}
_LAYOUTS = {0: "NCHW", 1: "NHWC"}
_CHANNELS = {0: "RGB", 1: "BGR", 2: "GRAY"}
_META_MAX_ITEMS = 64
_META_MAX_TENSORS = 24
_META_MAX_DIMS = 8

_KDL_CPU = 1
_KDL_CUDA = 2


class _GstCudaGraphTensorMetaItem(ctypes.Structure):
    _fields_ = [
        ("roi_x", ctypes.c_int),
        ("roi_y", ctypes.c_int),
        ("roi_width", ctypes.c_int),
        ("roi_height", ctypes.c_int),
        ("scale_x", ctypes.c_float),
        ("scale_y", ctypes.c_float),
        ("pad_x", ctypes.c_int),
        ("pad_y", ctypes.c_int),
        ("roi_id", ctypes.c_int),
    ]


class _GstCudaGraphTensorMetaTensor(ctypes.Structure):
    # Mirrors GstCudaGraphTensorMetaTensor: one tensor of a buffer with a
    # model.
    _fields_ = [
        ("offset", ctypes.c_uint64),
        ("size", ctypes.c_uint64),
        ("dtype", ctypes.c_uint),
        ("n_dims", ctypes.c_uint),
        ("shape", ctypes.c_int64 * _META_MAX_DIMS),
    ]


_META_HEAD = [
        ("meta_flags", ctypes.c_int),
        ("meta_info", ctypes.c_void_p),
        ("memory", ctypes.c_uint),
        ("device_id", ctypes.c_int),
        ("data", ctypes.c_uint64),
        ("size", ctypes.c_uint64),
        ("n_dims", ctypes.c_uint),
        ("shape", ctypes.c_uint64 * 4),
        ("stream", ctypes.c_void_p),
        ("stream_owner", ctypes.c_void_p),
        ("layout", ctypes.c_uint),
        ("type", ctypes.c_uint),
        ("channels", ctypes.c_uint),
        ("width", ctypes.c_uint),
        ("height", ctypes.c_uint),
        ("batch", ctypes.c_uint),
        ("n_items", ctypes.c_uint),
        ("items", _GstCudaGraphTensorMetaItem * _META_MAX_ITEMS),
]


class _GstCudaGraphTensorMeta(ctypes.Structure):
    # Mirrors GstCudaGraphTensorMeta; ctypes applies the same natural
    # alignment as the C compiler, and _Gst checks the size against the
    # GstMetaInfo.
    _fields_ = _META_HEAD + [
        ("n_tensors", ctypes.c_uint),
        ("tensors", _GstCudaGraphTensorMetaTensor * _META_MAX_TENSORS),
    ]


class _GstCudaGraphTensorMetaV1(ctypes.Structure):
    # GstCudaGraphTensorMeta before a buffer could carry a model's tensors
    # (0.1): a plugin of that version describes one tensor.
    _fields_ = _META_HEAD


_BATCH_MAX_SOURCES = 64
_BATCH_MAX_ITEMS = _BATCH_MAX_SOURCES * 64


class _GstCudaGraphBatchMetaSource(ctypes.Structure):
    _fields_ = [
        ("pad_name", ctypes.c_char_p),
        ("stream_id", ctypes.c_char_p),
        ("pts", ctypes.c_uint64),
        ("running_time", ctypes.c_uint64),
        ("width", ctypes.c_uint),
        ("height", ctypes.c_uint),
        ("first_item", ctypes.c_uint),
        ("n_items", ctypes.c_uint),
    ]


class _GstCudaGraphBatchMetaItem(ctypes.Structure):
    _fields_ = [
        ("source", ctypes.c_uint),
        ("roi_id", ctypes.c_int),
        ("roi_x", ctypes.c_int),
        ("roi_y", ctypes.c_int),
        ("roi_width", ctypes.c_int),
        ("roi_height", ctypes.c_int),
        ("pad_x", ctypes.c_int),
        ("pad_y", ctypes.c_int),
        ("scale_x", ctypes.c_double),
        ("scale_y", ctypes.c_double),
        ("offset_x", ctypes.c_double),
        ("offset_y", ctypes.c_double),
    ]


_BATCH_HEAD = [
    ("meta_flags", ctypes.c_int),
    ("meta_info", ctypes.c_void_p),
    ("n_sources", ctypes.c_uint),
    ("sources", _GstCudaGraphBatchMetaSource * _BATCH_MAX_SOURCES),
    ("n_items", ctypes.c_uint),
    ("items", ctypes.POINTER(_GstCudaGraphBatchMetaItem)),
]


class _GstCudaGraphBatchMeta(ctypes.Structure):
    # Mirrors GstCudaGraphBatchMeta (gst-libs/gcg-gst/gstcudagraphbatchmeta.h).
    _fields_ = _BATCH_HEAD + [
        ("n_allocated", ctypes.c_uint),
        ("n_frames", ctypes.c_uint),
        ("window_start", ctypes.c_uint64),
        ("window_duration", ctypes.c_uint64),
    ]


class _GstCudaGraphBatchMetaV2(ctypes.Structure):
    # GstCudaGraphBatchMeta before it listed streams with no frame
    # (n_frames) and the batch's window: every source holds a frame.
    _fields_ = _BATCH_HEAD + [("n_allocated", ctypes.c_uint)]


class _GstCudaGraphBatchMetaV1(ctypes.Structure):
    # GstCudaGraphBatchMeta before it recorded how many items it holds (0.1).
    _fields_ = _BATCH_HEAD


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64),
                ("dl_tensor", _DLTensor)]


_DLPACK_FLAG_READ_ONLY = 1 << 0

# --- GStreamer through ctypes ------------------------------------------------


# The metas' API names (GST_CUDA_GRAPH_*_META_API_NAME), then the names a
# plugin of 0.1 registered them under (before issue 25's rename).
_TENSOR_META_APIS = ("GstCudaGraphTensorMetaAPI",
                     "GcgTensorMetaAPI")  # rename-gst-prefix: keep
_BATCH_META_APIS = ("GstCudaGraphBatchMetaAPI",
                    "GcgBatchMetaAPI")  # rename-gst-prefix: keep


class _Gst:
    """The few GStreamer calls PyGObject does not give with raw pointers
    (through _ctgst's handles): the meta is a C struct with no
    introspection data, and a mapping has to outlive the Python call that
    made it (PyGObject's Buffer.map() result cannot back a NumPy array
    after unmap)."""

    def __init__(self):
        self.lib = _ctgst.lib()
        self.buffer_type = self.lib.buffer_type
        self._meta_api = {}

    def buffer_pointer(self, buffer):
        """The GstBuffer* behind a PyGObject Gst.Buffer or given as an
        address (int); TypeError for anything else (see _ctgst.address)."""
        return self.lib.address(buffer, self.buffer_type, "Buffer")

    def _api(self, api_names):
        """The GType of the first of @api_names registered (the meta's
        name, then its name in older plugins), or 0.  The API type exists
        only once the plugin is loaded, so it is looked up lazily."""
        api = self._meta_api.get(api_names, 0)
        for name in api_names:
            if api != 0:
                break
            api = self.lib.g_type_from_name(name.encode())
        if api != 0:
            self._meta_api[api_names] = api
        return api

    def _meta(self, ptr, api_names, *structs):
        """The buffer's meta of the API named one of @api_names read as
        the one of @structs (versions of its layout) whose size the
        plugin registered, or None."""
        api = self._api(api_names)
        if api == 0:
            return None
        addr = self.lib.gst_buffer_get_meta(ptr, api)
        if not addr:
            return None
        head = structs[0].from_address(addr)
        # GstMetaInfo starts { GType api; GType type; gsize size; ... }.
        size = ctypes.c_size_t.from_address(head.meta_info + 16).value
        for struct in structs:
            if size == ctypes.sizeof(struct):
                return struct.from_address(addr)
        raise RuntimeError(
            "%s is %d bytes in the plugin but %s in gcg.tensor: "
            "the module and the plugin are from different versions"
            % (structs[0].__name__.lstrip("_"), size,
               " or ".join(str(ctypes.sizeof(s)) for s in structs)))

    def tensor_meta(self, ptr):
        """The buffer's GstCudaGraphTensorMeta (a plugin of 0.1 has the shorter
        layout, with no tensors[]), or None."""
        return self._meta(ptr, _TENSOR_META_APIS, _GstCudaGraphTensorMeta,
                          _GstCudaGraphTensorMetaV1)

    def batch_meta(self, ptr):
        """The buffer's GstCudaGraphBatchMeta (cudagraphbatch), or None."""
        return self._meta(ptr, _BATCH_META_APIS, _GstCudaGraphBatchMeta,
                          _GstCudaGraphBatchMetaV2, _GstCudaGraphBatchMetaV1)


_gst = _ctgst.once(_Gst)


class _Hold:
    """One reference on a GstBuffer and at most one mapping of it, released
    together and exactly once (from a finalizer or a DLPack deleter,
    whichever thread that runs on).  Holding our own reference, not only
    the Python wrapper, lets a DLPack consumer outlive every Python object."""

    def __init__(self, ptr, flags=None):
        gst = _gst()
        self._ptr = gst.lib.gst_mini_object_ref(ptr)
        self.info = None
        self._lock = threading.Lock()
        self._released = False
        if flags is not None:
            info = _ctgst.GstMapInfo()
            if not gst.lib.gst_buffer_map(self._ptr, ctypes.byref(info), flags):
                gst.lib.gst_mini_object_unref(self._ptr)
                self._released = True
                raise BufferError("could not map the buffer (flags 0x%x)" % flags)
            self.info = info

    def release(self):
        with self._lock:
            if self._released:
                return
            self._released = True
        gst = _gst()
        if self.info is not None:
            gst.lib.gst_buffer_unmap(self._ptr, ctypes.byref(self.info))
        gst.lib.gst_mini_object_unref(self._ptr)


def _release_all(holds):
    for hold in holds:
        hold.release()


# --- the CUDA driver through ctypes -------------------------------------------

_CU_EVENT_DISABLE_TIMING = 0x2


class _Cuda:
    """The driver calls of the stream handshake.  Never linked: loaded at
    first use, so every failure here just sends the caller to the map path."""

    def __init__(self):
        lib = ctypes.CDLL(os.environ.get("GCG_CUDA_LIBRARY", "libcuda.so.1"))
        vp, pvp = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
        u, i = ctypes.c_uint, ctypes.c_int
        sigs = {
            "cuInit": [u],
            "cuDeviceGet": [ctypes.POINTER(i), i],
            "cuCtxGetCurrent": [pvp],
            "cuCtxPushCurrent_v2": [vp],
            "cuCtxPopCurrent_v2": [pvp],
            "cuDevicePrimaryCtxRetain": [pvp, i],
            "cuStreamGetCtx": [vp, pvp],
            "cuEventCreate": [pvp, u],
            "cuEventRecord": [vp, vp],
            "cuEventDestroy_v2": [vp],
            "cuStreamWaitEvent": [vp, vp, u],
        }
        for name, argtypes in sigs.items():
            fn = getattr(lib, name)
            fn.argtypes = argtypes
            fn.restype = ctypes.c_int
            setattr(self, name, fn)
        if self.cuInit(0) != 0:
            raise OSError("cuInit failed")
        self._primary = {}  # device ordinal -> retained primary context

    def _context_for(self, stream, device_id):
        """The context a driver call on @stream must run in: a real
        stream's own; for the legacy (1) and per-thread (2) default streams,
        the thread's current context, else the device's primary context
        (what the CUDA runtime, hence PyTorch, will use).  The primary
        context stays retained for the life of the process: releasing it
        could destroy it with our wait queued."""
        ctx = ctypes.c_void_p()
        if stream > 2:
            return ctx.value if self.cuStreamGetCtx(stream, ctypes.byref(ctx)) == 0 else None
        if self.cuCtxGetCurrent(ctypes.byref(ctx)) == 0 and ctx.value:
            return ctx.value
        if device_id not in self._primary:
            dev = ctypes.c_int()
            if self.cuDeviceGet(ctypes.byref(dev), max(device_id, 0)) != 0:
                return None
            if self.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev.value) != 0:
                return None
            self._primary[device_id] = ctx.value
        return self._primary[device_id]

    def _in_context(self, ctx, fn):
        """Run @fn with @ctx current (push/pop) and return its CUresult."""
        if self.cuCtxPushCurrent_v2(ctx) != 0:
            return -1
        try:
            return fn()
        finally:
            self.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))

    def order(self, first, first_ctx, then, then_ctx):
        """Make stream @then wait for the work queued so far on @first:
        an event recorded on @first (in its context), waited on by @then
        (in its own; events may cross contexts and devices).  The event is
        destroyed at once: the wait keeps what it needs.  True on success."""
        ev = ctypes.c_void_p()
        if self._in_context(first_ctx, lambda: self.cuEventCreate(
                ctypes.byref(ev), _CU_EVENT_DISABLE_TIMING)) != 0:
            return False
        try:
            if self._in_context(first_ctx, lambda: self.cuEventRecord(ev, first)) != 0:
                return False
            return self._in_context(
                then_ctx, lambda: self.cuStreamWaitEvent(then, ev, 0)) == 0
        finally:
            self._in_context(first_ctx, lambda: self.cuEventDestroy_v2(ev))


_cuda_lock = threading.Lock()
_cuda_instance = None
_cuda_error = None


def _cuda():
    """The driver wrapper, or None when there is no usable driver (tried
    once per process)."""
    global _cuda_instance, _cuda_error
    with _cuda_lock:
        if _cuda_instance is None and _cuda_error is None:
            try:
                _cuda_instance = _Cuda()
            except (OSError, AttributeError) as e:
                _cuda_error = e
        return _cuda_instance


class _Handshake:
    """A consumer stream made to wait for the element's stream; undone in
    reverse (the element's stream waits for the consumer's) when the
    consumer lets go, so recycled memory is not rewritten under its reads."""

    def __init__(self, cuda, producer, producer_ctx, consumer, consumer_ctx):
        self._args = (cuda, producer, producer_ctx, consumer, consumer_ctx)

    @classmethod
    def make(cls, producer, device_id, consumer):
        """A handshake, or None when the event path is unavailable."""
        cuda = _cuda()
        if cuda is None or not producer:
            return None
        producer_ctx = cuda._context_for(producer, device_id)
        consumer_ctx = cuda._context_for(consumer, device_id)
        if producer_ctx is None or consumer_ctx is None:
            return None
        if not cuda.order(producer, producer_ctx, consumer, consumer_ctx):
            return None
        return cls(cuda, producer, producer_ctx, consumer, consumer_ctx)

    def release(self):
        cuda, producer, producer_ctx, consumer, consumer_ctx = self._args
        # Best effort: a failure here cannot be reported to anyone.
        cuda.order(consumer, consumer_ctx, producer, producer_ctx)


# --- DLPack export ---------------------------------------------------------------

_NAME = ctypes.create_string_buffer(b"dltensor")
_NAME_VERSIONED = ctypes.create_string_buffer(b"dltensor_versioned")

_exports_lock = threading.Lock()
_exports = {}  # address of the DLManagedTensor(Versioned) -> _Export


class _Export:
    """What one DLPack capsule owns until its deleter runs: the C structs
    (the consumer reads them), the buffer hold, the handshake."""

    def __init__(self, managed, shape, strides, hold, handshake):
        self.managed = managed
        self.shape = shape
        self.strides = strides
        self.hold = hold
        self.handshake = handshake

    def release(self):
        if self.handshake is not None:
            self.handshake.release()
        self.hold.release()


def _delete_export(addr):
    with _exports_lock:
        export = _exports.pop(addr, None)
    if export is not None:
        export.release()


# The deleter the consumer calls (any thread; ctypes takes the GIL).  Kept
# at module level so the C function pointer outlives every capsule.
_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_delete_export)

# Raw (GIL-keeping, error-ignoring) views of the capsule API for the
# destructor.  It may run while an exception propagates (a capsule dropped
# in an unwinding frame): PyDLL's functions would report that pending
# exception as their own failure and lose it, so the destructor uses a
# CDLL handle and only calls functions that cannot fail on our capsules.
_capi = ctypes.PyDLL(None)
_capi.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_capi.PyCapsule_New.restype = ctypes.py_object
_raw = ctypes.CDLL(None)
_raw.PyCapsule_GetName.argtypes = [ctypes.c_void_p]
_raw.PyCapsule_GetName.restype = ctypes.c_void_p
_raw.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_raw.PyCapsule_GetPointer.restype = ctypes.c_void_p


def _capsule_destructor(capsule):
    """DLPack's rule: a consumer renames the capsule ("used_dltensor") and
    takes over the deleter; a capsule still holding our name was never
    consumed, so its tensor is released here.  @capsule is a raw PyObject*
    (its refcount is already zero: no Python object may be made of it)."""
    name = _raw.PyCapsule_GetName(capsule)
    if name not in (ctypes.addressof(_NAME), ctypes.addressof(_NAME_VERSIONED)):
        return
    addr = _raw.PyCapsule_GetPointer(capsule, name)
    if addr:
        _delete_export(addr)


_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_capsule_destructor)


def _make_capsule(data, device, dtype, shape, hold, handshake, versioned,
                  read_only):
    ndim = len(shape)
    c_shape = (ctypes.c_int64 * ndim)(*shape)
    strides, step = [], 1
    for n in reversed(shape):  # explicit C-order strides, in elements
        strides.insert(0, step)
        step *= n
    c_strides = (ctypes.c_int64 * ndim)(*strides)
    managed = _DLManagedTensorVersioned() if versioned else _DLManagedTensor()
    t = managed.dl_tensor
    t.data = data
    t.device = _DLDevice(*device)
    t.ndim = ndim
    t.dtype = _DLDataType(dtype[2], dtype[3], 1)
    t.shape = c_shape
    t.strides = c_strides
    t.byte_offset = 0
    addr = ctypes.addressof(managed)
    managed.manager_ctx = addr
    managed.deleter = ctypes.cast(_DELETER, ctypes.c_void_p).value
    if versioned:
        managed.version = _DLPackVersion(1, 0)
        managed.flags = _DLPACK_FLAG_READ_ONLY if read_only else 0
    with _exports_lock:
        _exports[addr] = _Export(managed, c_shape, c_strides, hold, handshake)
    name = _NAME_VERSIONED if versioned else _NAME
    try:
        return _capi.PyCapsule_New(addr, ctypes.addressof(name),
                                   ctypes.cast(_DESTRUCTOR, ctypes.c_void_p))
    except BaseException:
        with _exports_lock:  # the caller releases what it gave us
            _exports.pop(addr, None)
        raise


# --- the tensor -----------------------------------------------------------------


class _HostView:
    """Backs a NumPy array with a live read mapping: NumPy keeps this
    object as the array's base, and its finalizer unmaps when the last view
    is gone."""

    def __init__(self, hold, shape, typestr, offset=0):
        self.__array_interface__ = {
            "version": 3,
            "shape": tuple(shape),
            "typestr": typestr,
            "data": (hold.info.data + offset, True),  # mapped READ: read-only
            "strides": None,
        }
        weakref.finalize(self, hold.release)


_DIMENSIONS = re.compile(r"\bdimensions=(?:\(string\))?\"?([0-9:]+)")


def _caps_string(caps):
    """@caps as a string: given as one, a Gst.Caps (its to_string()) or a
    GstCaps* address (gst_caps_to_string through ctypes)."""
    if caps is None or isinstance(caps, str):
        return caps
    if isinstance(caps, (int, ctypes.c_void_p)):
        return _ctgst.caps_to_string(caps)
    to_string = getattr(caps, "to_string", None)
    if to_string is None:
        raise TypeError("expected caps as a Gst.Caps, a string or a GstCaps* "
                        "address, got %r" % (caps,))
    return to_string()


def _shape_from_caps(caps):
    """Shape, outermost first, from NNStreamer caps (innermost first): the
    first tensor of the first structure."""
    found = _DIMENSIONS.search(_caps_string(caps) or "")
    if found is None:
        return None
    return tuple(int(d) for d in reversed(found.group(1).split(":")))


def _meta_tensors(meta):
    """The meta's tensors[] (a buffer with a model's outputs), or [] when
    the top-level fields describe the buffer's one tensor (no model, or a
    plugin of 0.1)."""
    n = getattr(meta, "n_tensors", 0)
    if n > _META_MAX_TENSORS:
        raise ValueError("the meta lists %d tensors, at most %d fit"
                         % (n, _META_MAX_TENSORS))
    return [meta.tensors[i] for i in range(n)]


def _listed_tensor(desc, index):
    """(shape, dtype row, offset) of one GstCudaGraphTensorMetaTensor, checked:
    a known dtype, 1 to 8 positive dimensions, a size that is the
    shape's."""
    if desc.dtype not in _MODEL_DTYPES:
        raise ValueError("tensor %d: unknown GcgModelDtype %d"
                         % (index, desc.dtype))
    if not 1 <= desc.n_dims <= _META_MAX_DIMS:
        raise ValueError("tensor %d has %d dimensions" % (index, desc.n_dims))
    shape = tuple(int(desc.shape[i]) for i in range(desc.n_dims))
    if min(shape) <= 0:
        raise ValueError("tensor %d has shape %r" % (index, shape))
    dtype = _MODEL_DTYPES[desc.dtype]
    if desc.size != _count(shape) * dtype[3] // 8:
        raise ValueError("tensor %d: meta size %d does not match shape %r "
                         "of %s" % (index, desc.size, shape, dtype[0]))
    return shape, dtype, int(desc.offset)


def _any_host_memory(gst, ptr):
    """Whether a memory of the GstBuffer* is host memory (a CUDA export's
    address cannot point there)."""
    n = gst.lib.gst_buffer_n_memory(ptr)
    return n == 0 or any(
        gst.lib.gst_memory_is_type(gst.lib.gst_buffer_peek_memory(ptr, i),
                                   t)
        for i in range(n) for t in _HOST_MEMORY_TYPES)


def _count(shape):
    count = 1
    for n in shape:
        count *= n
    return count


class Tensor:
    """One output tensor of `cudagraphpreprocess`, described by its
    GstCudaGraphTensorMeta, exported in place (DLPack, CUDA array
    interface, NumPy).

    Attributes read from the meta once, at construction: `shape` (outermost
    first), `dtype` ("float32", "float16", "uint8"; a model's tensors
    also "bfloat16", "int8", "int32", "int64"), `layout` ("NCHW" or
    "NHWC"), `channels` ("RGB", "BGR", "GRAY"), `device` ("cuda" or
    "cpu"), `device_id`, `nbytes`, `data_ptr` (device address, None in
    system memory), `stream` (the element's CUstream as an integer, 0 if
    none), `width`, `height`, `batch`, `items` (one dict per item holding
    data: roi_x, roi_y, roi_width, roi_height, scale_x, scale_y, pad_x,
    pad_y, roi_id) and `pts` (nanoseconds, `GST_CLOCK_TIME_NONE` when
    unset); `index` (which tensor of the buffer), `offset` (its first
    byte in the buffer) and `n_tensors` (how many the buffer holds).

    A buffer from an element with a model attached (gcg.torch) holds
    several tensors (the meta's tensors[]: the preprocessed one first
    with model-keep-input, then each model output): @index picks one
    (None: the first); `tensors()` gives them all.  `layout`, `channels`,
    `width`, `height`, `batch` and `items` always describe the
    preprocessed tensor (the frame and its regions), whichever is picked.

    @buffer is a PyGObject Gst.Buffer or the address of a GstBuffer (an
    int, from ctypes, cffi or `Sample.get_buffer()`); either way the
    Tensor takes a reference of its own on the buffer.  @caps (used only
    when the meta lacks the shape) is a Gst.Caps, a caps string or a
    GstCaps* address."""

    _offset = 0  # bytes from the buffer's start (a model's tensors)

    def __init__(self, buffer, caps=None, index=None):
        gst = _gst()
        ptr = gst.buffer_pointer(buffer)
        meta = gst.tensor_meta(ptr)
        if meta is None:
            raise ValueError("the buffer has no GstCudaGraphTensorMeta "
                             "(not from cudagraphpreprocess?)")
        listed = _meta_tensors(meta)
        self.n_tensors = len(listed) or 1
        self.index = 0 if index is None else int(index)
        if not 0 <= self.index < self.n_tensors:
            raise IndexError("tensor %d of %d" % (self.index, self.n_tensors))
        if listed:
            shape, self._dtype, self._offset = _listed_tensor(
                listed[self.index], self.index)
        else:
            shape, self._dtype = self._single(meta, caps)
        self._buffer = buffer  # the wrapper too, for callers that want it back
        self._ptr = ptr
        self._holds = [_Hold(ptr)]  # our reference, however @buffer came
        weakref.finalize(self, _release_all, self._holds)
        self._cuda_hold = None

        self.shape = shape
        self.offset = self._offset
        self.dtype = self._dtype[0]
        self.layout = _LAYOUTS.get(meta.layout, str(meta.layout))
        self.channels = _CHANNELS.get(meta.channels, str(meta.channels))
        self.device = "cuda" if meta.memory == 1 else "cpu"
        self.device_id = int(meta.device_id) if self.device == "cuda" else -1
        self.data_ptr = (int(meta.data) + self._offset
                         if self.device == "cuda" else None)
        self.stream = int(meta.stream or 0)
        self.nbytes = _count(shape) * self._dtype[3] // 8
        # Every export (NumPy, DLPack, CUDA array interface) reads nbytes
        # from offset: the buffer must hold them, whatever the meta says
        # (a meta kept on a buffer resized after the copy).
        size = gst.lib.gst_buffer_get_size(ptr)
        if size < self._offset + self.nbytes:
            raise ValueError("the tensor meta describes %d bytes at offset "
                             "%d but the buffer holds %d"
                             % (self.nbytes, self._offset, size))
        if self.device == "cuda" and _any_host_memory(gst, ptr):
            raise ValueError("the tensor meta says CUDA memory but the "
                             "buffer holds memory of another kind")
        self.width = int(meta.width)
        self.height = int(meta.height)
        self.batch = int(meta.batch)
        self.items = [
            {name: getattr(meta.items[i], name)
             for name, _ in _GstCudaGraphTensorMetaItem._fields_}
            for i in range(min(meta.n_items, _META_MAX_ITEMS))
        ]
        self.pts = _ctgst.buffer_pts(ptr)
        self.last_sync = None

    @staticmethod
    def _single(meta, caps):
        """(shape, dtype row) of the one tensor the top-level fields
        describe (a buffer with no model)."""
        if meta.type not in _DTYPES:
            raise ValueError("unknown GcgTensorType %d" % meta.type)
        dtype = _DTYPES[meta.type]
        shape = tuple(int(meta.shape[i]) for i in range(min(meta.n_dims, 4)))
        if not shape or 0 in shape:
            # An element that does not fill the location yet: the caps say it.
            shape = _shape_from_caps(caps)
            if shape is None:
                raise ValueError("the meta has no shape and there are no caps")
        nbytes = _count(shape) * dtype[3] // 8
        if meta.size and meta.size != nbytes:
            raise ValueError("meta size %d does not match shape %r of %s"
                             % (meta.size, shape, dtype[0]))
        return shape, dtype

    @property
    def buffer(self):
        """The buffer this tensor reads, as it was given: a Gst.Buffer or
        a GstBuffer* address."""
        return self._buffer

    @property
    def buffer_address(self):
        """The GstBuffer* this tensor reads (int)."""
        return self._ptr

    @property
    def n_items(self):
        return len(self.items)

    def __repr__(self):
        return "<gcg.tensor.Tensor %s %s %s on %s>" % (
            "x".join(map(str, self.shape)), self.dtype, self.layout,
            self.device if self.device == "cpu" else "cuda:%d" % self.device_id)

    def item_to_source(self, i, u, v):
        """Map point (u, v) of item @i (tensor pixels) back to the input
        frame: `x = roi_x + (u - pad_x) * scale_x`, likewise y (scale_x:
        input pixels per item pixel).  For boxes
        a detector reports in tensor coordinates."""
        if not 0 <= i < len(self.items):
            raise IndexError("item %d of %d" % (i, len(self.items)))
        it = self.items[i]
        return (it["roi_x"] + (u - it["pad_x"]) * it["scale_x"],
                it["roi_y"] + (v - it["pad_y"]) * it["scale_y"])

    # -- host ---------------------------------------------------------------

    def numpy(self):
        """A read-only NumPy array over the mapped buffer, no copy; the
        mapping (and the buffer) live as long as the array.  Mapping waits
        for the frame.  For CUDA memory the map is GStreamer's host copy of
        the device memory (GstCudaMemory downloads it on map)."""
        import numpy as np

        typestr = self._typestr("NumPy")
        hold = self._mapped(GST_MAP_READ)
        return np.asarray(_HostView(hold, self.shape, typestr, self._offset))

    def _mapped(self, flags):
        """A mapping (a _Hold) of the buffer holding the whole tensor, or
        BufferError: every export reads nbytes from offset of what the map
        gives, whatever the meta said."""
        hold = _Hold(self._ptr, flags)
        if hold.info.size < self._offset + self.nbytes:
            hold.release()
            raise BufferError("buffer holds %d bytes, the tensor %d at "
                              "offset %d" % (hold.info.size, self.nbytes,
                                             self._offset))
        return hold

    def _typestr(self, consumer):
        """The array-interface typestr, or TypeError for a dtype that
        @consumer has no type for (bfloat16: use DLPack)."""
        if self._dtype[1] is None:
            raise TypeError("%s has no %s: export it through DLPack"
                            % (consumer, self.dtype))
        return self._dtype[1]

    # -- CUDA array interface -------------------------------------------------

    @property
    def __cuda_array_interface__(self):
        """Version 3.  The consumer's stream is unknown here, so the buffer
        is mapped with GST_MAP_CUDA (a CPU wait for this frame only) and
        stays mapped while this Tensor lives; hence "stream": None."""
        if self.device != "cuda":
            raise AttributeError("tensor is in system memory: use numpy()")
        typestr = self._typestr("The CUDA array interface")
        if self._cuda_hold is None:
            hold = self._mapped(GST_MAP_READ | GST_MAP_CUDA)
            self._holds.append(hold)
            self._cuda_hold = hold
        self.last_sync = "map"
        return {
            "version": 3,
            "shape": self.shape,
            "typestr": typestr,
            "data": (self._cuda_hold.info.data + self._offset, False),
            "strides": None,
            "stream": None,
        }

    # -- DLPack ---------------------------------------------------------------

    def __dlpack_device__(self):
        if self.device == "cuda":
            return (_KDL_CUDA, self.device_id)
        return (_KDL_CPU, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None,
                   copy=None):
        """A DLPack capsule for the tensor, in place.  @stream is the
        consumer's (DLPack: None or 1 the legacy default stream, 2 the
        per-thread one, -1 no synchronisation, else a CUstream); see the
        module docstring for how it is made to wait.  Gives a versioned
        capsule (DLPack 1.0) when @max_version allows it."""
        if copy:
            raise BufferError("gcg tensors are exported in place only")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("tensor is on %r, not %r"
                              % (self.__dlpack_device__(), tuple(dl_device)))
        versioned = max_version is not None and max_version[0] >= 1
        if self.device == "cpu":
            if stream is not None and stream != -1:
                raise BufferError("a host tensor takes no stream")
            hold = self._mapped(GST_MAP_READ)
            return self._export(hold.info.data + self._offset, hold, None,
                                versioned, True)
        if stream == 0:
            raise BufferError("stream 0 is ambiguous for CUDA (DLPack)")
        consumer = 1 if stream is None else int(stream)
        handshake = None
        if consumer == -1:
            self.last_sync = "none"
        else:
            handshake = _Handshake.make(self.stream, self.device_id, consumer)
            self.last_sync = "event" if handshake else "map"
        if handshake is None and consumer != -1:
            hold = self._mapped(GST_MAP_READ | GST_MAP_CUDA)
            data = hold.info.data + self._offset
        else:
            hold = _Hold(self._ptr)
            data = self.data_ptr
        return self._export(data, hold, handshake, versioned, False)

    def _export(self, data, hold, handshake, versioned, read_only):
        try:
            return _make_capsule(data, self.__dlpack_device__(), self._dtype,
                                 self.shape, hold, handshake, versioned,
                                 read_only)
        except BaseException:
            if handshake is not None:
                handshake.release()
            hold.release()
            raise


class BatchItem:
    """One item of a `cudagraphbatch` tensor: which stream and frame it
    holds and how to map its pixels back (GstCudaGraphBatchMeta, see
    docs/cudagraphbatch.md)."""

    def __init__(self, index, source, item):
        self.index = index
        self.source = int(item.source)
        self.pad_name = (source.pad_name or b"").decode()
        self.stream_id = source.stream_id.decode() if source.stream_id else None
        self.pts = int(source.pts)
        self.running_time = int(source.running_time)
        self.frame_size = (int(source.width), int(source.height))
        self.roi_id = int(item.roi_id)
        self.roi = (int(item.roi_x), int(item.roi_y), int(item.roi_width),
                    int(item.roi_height))
        self.pad = (int(item.pad_x), int(item.pad_y))
        self.scale = (float(item.scale_x), float(item.scale_y))
        self.offset = (float(item.offset_x), float(item.offset_y))

    def to_source(self, u, v):
        """Map point (u, v) of the item (tensor pixels, edges) to the
        source frame: `x = u * scale_x + offset_x`, likewise y (the same
        as Gcg.FrameItemMap.to_source)."""
        return (u * self.scale[0] + self.offset[0],
                v * self.scale[1] + self.offset[1])

    def __repr__(self):
        return "<gcg.tensor.BatchItem %d of %s roi %r>" % (
            self.index, self.pad_name, self.roi)


def _batch_meta(sample_or_buffer):
    """The GstCudaGraphBatchMeta of a sample or buffer; ValueError
    without one."""
    get_buffer = getattr(sample_or_buffer, "get_buffer", None)
    buffer = get_buffer() if get_buffer else sample_or_buffer
    gst = _gst()
    meta = gst.batch_meta(gst.buffer_pointer(buffer))
    if meta is None:
        raise ValueError("the buffer has no GstCudaGraphBatchMeta "
                         "(not from cudagraphbatch?)")
    return meta


def batch_items(sample_or_buffer):
    """The items of a `cudagraphbatch` buffer, in tensor order, as
    BatchItem objects (a Gst.Sample, a Gst.Buffer, this module's `Sample`
    or a GstBuffer* address).  The values are copied: the list does not
    keep the buffer alive.  ValueError when the buffer has no
    GstCudaGraphBatchMeta or when the meta lists more items than it holds,
    or an item of a
    source it does not list."""
    meta = _batch_meta(sample_or_buffer)
    # items[] holds n_allocated items (a plugin of 0.1: at most the bound);
    # a count past that would read past the allocation.
    allocated = getattr(meta, "n_allocated", _BATCH_MAX_ITEMS)
    if meta.n_items > min(allocated, _BATCH_MAX_ITEMS):
        raise ValueError("the batch meta lists %d items but holds %d"
                         % (meta.n_items, min(allocated, _BATCH_MAX_ITEMS)))
    items = []
    for i in range(meta.n_items):
        item = meta.items[i]
        if item.source >= min(meta.n_sources, _BATCH_MAX_SOURCES):
            raise ValueError("item %d names source %d of %d"
                             % (i, item.source, meta.n_sources))
        items.append(BatchItem(i, meta.sources[item.source], item))
    return items


class BatchStream:
    """One entry of a `cudagraphbatch` buffer's sources: a frame (has_frame
    True, its items are first_item .. first_item + n_items - 1), or a
    stream that had no frame in the batch's window (has_frame False,
    n_items 0, pts None): an empty slot, never a repeated frame."""

    def __init__(self, source, has_frame):
        self.has_frame = has_frame
        self.pad_name = (source.pad_name or b"").decode()
        self.stream_id = source.stream_id.decode() if source.stream_id else None
        none = 0xFFFFFFFFFFFFFFFF
        self.pts = None if source.pts == none else int(source.pts)
        self.running_time = (None if source.running_time == none
                             else int(source.running_time))
        self.frame_size = (int(source.width), int(source.height))
        self.first_item = int(source.first_item)
        self.n_items = int(source.n_items) if has_frame else 0

    def __repr__(self):
        return "<gcg.tensor.BatchStream %s %s>" % (
            self.pad_name, "pts %s" % self.pts if self.has_frame
            else "no frame")


def batch_streams(sample_or_buffer):
    """The sources of a `cudagraphbatch` buffer as BatchStream objects:
    its frames in sink pad order, then the streams with no frame in the
    batch's window (a plugin before 0.2 lists frames only).  The values
    are copied.  ValueError as batch_items()."""
    meta = _batch_meta(sample_or_buffer)
    n = min(meta.n_sources, _BATCH_MAX_SOURCES)
    n_frames = min(getattr(meta, "n_frames", n), n)
    return [BatchStream(meta.sources[i], i < n_frames) for i in range(n)]


def from_buffer(buffer, caps=None, index=None):
    """A Tensor for a buffer from `cudagraphpreprocess`, a Gst.Buffer or a
    GstBuffer* address; @caps (the sample's: Gst.Caps, string or GstCaps*
    address) are used only when the meta lacks the shape; @index picks
    one of several tensors (None: the first; see tensors())."""
    return Tensor(buffer, caps, index)


def from_sample(sample):
    """A Tensor for a sample pulled from an appsink: a Gst.Sample, or a
    `Sample` from this module's ctypes driver (`Pipeline`).  For a buffer
    holding several tensors (a model attached), the first: see
    tensors()."""
    return Tensor(sample.get_buffer(), sample.get_caps())


def tensors(sample_or_buffer, caps=None):
    """Every tensor of a buffer, in the buffer's order, as Tensor objects:
    with a model attached to the element (gcg.torch), the preprocessed
    tensor first when the element keeps it (model-keep-input), then each
    model output; otherwise the one tensor.  Takes what from_sample() and
    from_buffer() take; each Tensor holds the buffer, exports in place
    and is checked against the buffer's size like from_buffer()'s."""
    get_buffer = getattr(sample_or_buffer, "get_buffer", None)
    if get_buffer is not None:
        buffer, caps = get_buffer(), sample_or_buffer.get_caps()
    else:
        buffer = sample_or_buffer
    first = Tensor(buffer, caps)
    return [first] + [Tensor(buffer, caps, i)
                      for i in range(1, first.n_tensors)]
