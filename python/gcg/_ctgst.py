# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""GStreamer through ctypes, for gcg.tensor: the C layouts it reads, the
library calls it makes, and a minimal pipeline driver (`Pipeline`,
`pull_samples`, `Sample`) for applications that have no PyGObject.

Nothing here imports `gi`.  The libraries are opened at first use
(libgstreamer-1.0.so.0, libgobject-2.0.so.0, libglib-2.0.so.0; the driver
adds libgstapp-1.0.so.0), found the usual way (LD_LIBRARY_PATH, the
system's library path).  gcg.tensor re-exports the public names.
"""

import ctypes
import sys
import threading
import weakref

# --- C layouts ---------------------------------------------------------------
#
# LP64, as in gst/gstminiobject.h and gst/gstbuffer.h (GStreamer 1.x; the
# public part of both structs has not changed since 1.0): GType is a gsize,
# GstClockTime a guint64.  Offsets: GstMiniObject.refcount 8, .flags 16,
# .copy 24, .priv_pointer 56, size 64; GstBuffer.pool 64, .pts 72, .dts 80,
# .duration 88, .offset 96, .offset_end 104, size 112.

_vp = ctypes.c_void_p


class GstMiniObject(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_size_t),
        ("refcount", ctypes.c_int),
        ("lockstate", ctypes.c_int),
        ("flags", ctypes.c_uint),
        ("copy", _vp),
        ("dispose", _vp),
        ("free", _vp),
        ("priv_uint", ctypes.c_uint),
        ("priv_pointer", _vp),
    ]


class GstBuffer(ctypes.Structure):
    _fields_ = [
        ("mini_object", GstMiniObject),
        ("pool", _vp),
        ("pts", ctypes.c_uint64),
        ("dts", ctypes.c_uint64),
        ("duration", ctypes.c_uint64),
        ("offset", ctypes.c_uint64),
        ("offset_end", ctypes.c_uint64),
    ]


if ctypes.sizeof(_vp) == 8:
    assert ctypes.sizeof(GstMiniObject) == 64, "GstMiniObject is 64 bytes on LP64"
    assert GstBuffer.pts.offset == 72 and ctypes.sizeof(GstBuffer) == 112, \
        "GstBuffer: pts at 72, 112 bytes on LP64"


class GstMapInfo(ctypes.Structure):
    _fields_ = [
        ("memory", _vp),
        ("flags", ctypes.c_int),
        ("data", _vp),
        ("size", ctypes.c_size_t),
        ("maxsize", ctypes.c_size_t),
        ("user_data", _vp * 4),
        ("_gst_reserved", _vp * 4),
    ]


class GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", ctypes.c_int),
                ("message", ctypes.c_char_p)]


GST_CLOCK_TIME_NONE = (1 << 64) - 1
GST_MAP_READ = 1 << 0
_GST_STATE_NULL = 1
_GST_STATE_PLAYING = 4
_GST_STATE_CHANGE_FAILURE = 0
_GST_MESSAGE_ERROR = 1 << 1
_GST_MSECOND = 1000000

_perr = ctypes.POINTER(ctypes.POINTER(GError))
_size = ctypes.c_size_t

# name: (argtypes, restype), per library.
_SIGNATURES = {
    "libgstreamer-1.0.so.0": {
        "gst_init_check": ([_vp, _vp, _perr], ctypes.c_int),
        "gst_mini_object_ref": ([_vp], _vp),
        "gst_mini_object_unref": ([_vp], None),
        "gst_buffer_get_type": ([], _size),
        "gst_buffer_get_meta": ([_vp, _size], _vp),
        "gst_buffer_map": ([_vp, ctypes.POINTER(GstMapInfo), ctypes.c_int],
                           ctypes.c_int),
        "gst_buffer_unmap": ([_vp, ctypes.POINTER(GstMapInfo)], None),
        "gst_caps_get_type": ([], _size),
        "gst_caps_to_string": ([_vp], _vp),
        "gst_sample_get_buffer": ([_vp], _vp),
        "gst_sample_get_caps": ([_vp], _vp),
        "gst_parse_launch": ([ctypes.c_char_p, _perr], _vp),
        "gst_object_ref_sink": ([_vp], _vp),
        "gst_object_unref": ([_vp], None),
        "gst_bin_get_type": ([], _size),
        "gst_bin_get_by_name": ([_vp, ctypes.c_char_p], _vp),
        "gst_element_set_state": ([_vp, ctypes.c_int], ctypes.c_int),
        "gst_element_get_bus": ([_vp], _vp),
        "gst_bus_pop_filtered": ([_vp, ctypes.c_int], _vp),
        "gst_message_parse_error": ([_vp, _perr, ctypes.POINTER(_vp)], None),
    },
    "libgobject-2.0.so.0": {
        "g_type_from_name": ([ctypes.c_char_p], _size),
        "g_type_check_instance_is_a": ([_vp, _size], ctypes.c_int),
    },
    "libglib-2.0.so.0": {
        "g_free": ([_vp], None),
        "g_error_free": ([ctypes.POINTER(GError)], None),
    },
}
_APP_SIGNATURES = {
    "gst_app_sink_get_type": ([], _size),
    "gst_app_sink_try_pull_sample": ([_vp, ctypes.c_uint64], _vp),
    "gst_app_sink_is_eos": ([_vp], ctypes.c_int),
}


class _Lib:
    """The functions above as attributes, with their signatures set on a
    handle of our own (so nobody else's argtypes are changed)."""

    def __init__(self):
        for soname, sigs in _SIGNATURES.items():
            self._bind(soname, sigs)
        self.buffer_type = self.gst_buffer_get_type()
        self.caps_type = self.gst_caps_get_type()
        self._app = False
        self._initialised = False

    def _bind(self, soname, sigs):
        handle = ctypes.CDLL(soname)
        for name, (argtypes, restype) in sigs.items():
            fn = getattr(handle, name)
            fn.argtypes = argtypes
            fn.restype = restype
            setattr(self, name, fn)

    def init(self):
        """gst_init_check() once (harmless after PyGObject's Gst.init)."""
        with _lock:
            if self._initialised:
                return
            err = ctypes.POINTER(GError)()
            if not self.gst_init_check(None, None, ctypes.byref(err)):
                raise PipelineError(self.take_error(err) or "gst_init failed")
            self._initialised = True

    def load_app(self):
        with _lock:
            if not self._app:
                self._bind("libgstapp-1.0.so.0", _APP_SIGNATURES)
                self.app_sink_type = self.gst_app_sink_get_type()
                self._app = True

    def take_error(self, err):
        """The message of a GError**'s GError (None if unset), freed."""
        if not err:
            return None
        message = (err.contents.message or b"").decode("utf-8", "replace")
        self.g_error_free(err)
        return message

    def take_string(self, addr):
        """A gchar* the caller owns, as str, freed."""
        if not addr:
            return None
        try:
            return ctypes.string_at(addr).decode("utf-8", "replace")
        finally:
            self.g_free(addr)

    def is_a(self, addr, gtype):
        return bool(self.g_type_check_instance_is_a(addr, gtype))

    def address(self, obj, gtype, what):
        """The C address of a GstMiniObject of type @gtype (GstBuffer,
        GstCaps) given as an int (or ctypes.c_void_p) or as a PyGObject
        wrapper, whose hash is its C pointer (pyds relies on the same).
        The GType in the GstMiniObject header must match: that catches
        another object's address, not a dangling or made-up one (reading
        it may crash, as passing such a pointer to C would)."""
        if isinstance(obj, ctypes.c_void_p):
            addr = obj.value or 0
        elif isinstance(obj, int) and not isinstance(obj, bool):
            addr = obj
        else:
            gst = _gi_gst()  # None unless the caller has imported gi's Gst
            boxed = getattr(gst, what, None) if gst is not None else None
            if boxed is None or not isinstance(obj, boxed):
                raise TypeError("expected a Gst.%s or a Gst%s* address, got %r"
                                % (what, what, obj))
            addr = hash(obj)
        if (addr <= 0 or addr % ctypes.alignment(_vp)
                or ctypes.c_size_t.from_address(addr).value != gtype):
            raise TypeError("expected a Gst.%s or a Gst%s* address, got %r"
                            % (what, what, obj))
        return addr


def _gi_gst():
    """gi.repository.Gst if the application has imported it (a Gst.Buffer
    can exist only then), else None; never imports gi itself."""
    return sys.modules.get("gi.repository.Gst")


def once(make):
    """A function that returns make()'s result, made at its first call
    (thread-safe; a failed make() is tried again next time)."""
    made = []
    lock = threading.Lock()

    def get():
        with lock:
            if not made:
                made.append(make())
            return made[0]

    return get


_lock = threading.Lock()  # _Lib.init and _Lib.load_app
lib = once(_Lib)  # the loaded libraries


def buffer_pts(addr):
    """GstBuffer.pts of a GstBuffer* (GST_CLOCK_TIME_NONE when unset)."""
    return GstBuffer.from_address(addr).pts


def refcount(addr):
    """GstMiniObject.refcount of a GstMiniObject*."""
    return GstMiniObject.from_address(addr).refcount


def caps_to_string(caps):
    """A GstCaps* (int) or Gst.Caps as a string, through gst_caps_to_string."""
    lb = lib()
    return lb.take_string(lb.gst_caps_to_string(lb.address(caps, lb.caps_type,
                                                           "Caps")))


# --- the pipeline driver ------------------------------------------------------


class PipelineError(RuntimeError):
    """A launch line that does not parse, or an ERROR message on the bus;
    the message is GStreamer's."""


class Sample:
    """A GstSample* pulled from an appsink: one reference, given back by
    release() or when this object is collected.  `get_buffer()` and
    `get_caps()` give borrowed addresses (ints), valid while the sample
    is; a Tensor made from the buffer takes a reference of its own, so it
    may outlive the sample."""

    def __init__(self, address):
        self.address = address
        self._unref = weakref.finalize(self, lib().gst_mini_object_unref,
                                       address)

    def _live(self):
        if not self._unref.alive:
            raise ValueError("the sample has been released")
        return self.address

    def get_buffer(self):
        """The GstBuffer* (int), or None."""
        return lib().gst_sample_get_buffer(self._live()) or None

    def get_caps(self):
        """The GstCaps* (int), or None."""
        return lib().gst_sample_get_caps(self._live()) or None

    def release(self):
        self._unref()

    def __repr__(self):
        return "<gcg.tensor.Sample 0x%x%s>" % (
            self.address, "" if self._unref.alive else " released")


def _close(lb, pipeline, sink):
    lb.gst_element_set_state(pipeline, _GST_STATE_NULL)
    lb.gst_object_unref(sink)
    lb.gst_object_unref(pipeline)


class Pipeline:
    """A launch line with an appsink named @sink, driven through ctypes:
    `play()`, `pull_sample()` or iterate for the samples, `close()` (also
    on collection, or leaving a `with` block) to stop it and let it go.
    Raises PipelineError when the line does not parse (GStreamer's
    message) and ValueError when it has no appsink called @sink."""

    def __init__(self, launch, sink="sink"):
        lb = lib()
        lb.init()
        lb.load_app()
        self._lib = lb
        err = ctypes.POINTER(GError)()
        pipeline = lb.gst_parse_launch(launch.encode(), ctypes.byref(err))
        if pipeline:  # (transfer floating): make the reference ours
            lb.gst_object_ref_sink(pipeline)
        message = lb.take_error(err)
        if message is not None or not pipeline:
            if pipeline:
                lb.gst_object_unref(pipeline)
            raise PipelineError(message or "could not parse %r" % launch)
        found = (lb.gst_bin_get_by_name(pipeline, sink.encode())
                 if lb.is_a(pipeline, lb.gst_bin_get_type()) else None)
        if not found or not lb.is_a(found, lb.app_sink_type):
            if found:
                lb.gst_object_unref(found)
            lb.gst_object_unref(pipeline)
            raise ValueError("no appsink named %r in %r" % (sink, launch))
        self.address, self.sink = pipeline, found
        self._close = weakref.finalize(self, _close, lb, pipeline, found)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _live(self):
        if not self._close.alive:
            raise ValueError("the pipeline has been closed")
        return self.address

    def play(self):
        """Set the pipeline PLAYING; PipelineError if that fails."""
        if (self._lib.gst_element_set_state(self._live(), _GST_STATE_PLAYING)
                == _GST_STATE_CHANGE_FAILURE):
            raise PipelineError(self.pop_error()
                                or "could not set the pipeline to PLAYING")

    def pop_error(self):
        """The message of the first ERROR on the bus (taken off it), or
        None."""
        lb = self._lib
        bus = lb.gst_element_get_bus(self._live())
        msg = lb.gst_bus_pop_filtered(bus, _GST_MESSAGE_ERROR)
        lb.gst_object_unref(bus)
        if not msg:
            return None
        err = ctypes.POINTER(GError)()
        debug = ctypes.c_void_p()
        lb.gst_message_parse_error(msg, ctypes.byref(err), ctypes.byref(debug))
        lb.gst_mini_object_unref(msg)
        lb.g_free(debug)
        return lb.take_error(err) or "unknown error"

    def pull_sample(self, timeout=None):
        """The next Sample, or None at end of stream (or after @timeout
        seconds, when given)."""
        ns = GST_CLOCK_TIME_NONE if timeout is None else int(timeout * 1e9)
        self._live()
        addr = self._lib.gst_app_sink_try_pull_sample(self.sink, ns)
        return Sample(addr) if addr else None

    def __iter__(self):
        """The samples up to end of stream; PipelineError as soon as an
        ERROR reaches the bus (so a stalled pipeline cannot hang it)."""
        while True:
            sample = self.pull_sample(0.1)
            if sample is not None:
                yield sample
                continue
            message = self.pop_error()
            if message is not None:
                raise PipelineError(message)
            if self._lib.gst_app_sink_is_eos(self.sink):
                return

    def close(self):
        """Set the pipeline to NULL and drop our references (once)."""
        self._close()


def pull_samples(launch, sink="sink"):
    """Every sample of @launch's appsink @sink, pulled to end of stream,
    the pipeline stopped after: a list of Sample.  PipelineError on a
    parse error or an ERROR on the bus.  All are held at once, so this is
    for short runs (an element's bounded buffer pool would stall a long
    one): stream with Pipeline."""
    with Pipeline(launch, sink) as pipeline:
        pipeline.play()
        return list(pipeline)
