# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""GStreamer through ctypes, for gcg.tensor: the C layouts it reads, the
library calls it makes, and a minimal pipeline driver (`Pipeline`,
`pull_samples`, `Sample`; `AppSink`, `AppSrc` and bus `Message`s for an
application with more than one appsink or an appsrc) for applications
that have no PyGObject.

Nothing here imports `gi`.  The libraries are opened at first use
(libgstreamer-1.0.so.0, libgobject-2.0.so.0, libglib-2.0.so.0; the driver
adds libgstapp-1.0.so.0, ROI metas libgstvideo-1.0.so.0), found the usual
way (LD_LIBRARY_PATH, the system's library path).  gcg.tensor re-exports
the public names.  Where an application has PyGObject after all, its
objects can be handed over: GstMiniObjects (buffers, caps, messages) by
their hash, which PyGObject makes their C address (not documented, so
checked: the fields read at that address must be the wrapper's), elements
as themselves (`AppSrc.wrap`).
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


class GstMessage(ctypes.Structure):
    """The public head of gst/gstmessage.h's struct (what GST_MESSAGE_TYPE
    and GST_MESSAGE_SRC read; GStreamer has no function for either)."""
    _fields_ = [
        ("mini_object", GstMiniObject),
        ("type", ctypes.c_int),
        ("timestamp", ctypes.c_uint64),
        ("src", _vp),
        ("seqnum", ctypes.c_uint32),
    ]


class GstVideoRegionOfInterestMeta(ctypes.Structure):
    """gst/video/gstvideometa.h: GstMeta { flags; info }, then the ROI.
    The id has no setter in GStreamer: it is written here."""
    _fields_ = [
        ("meta_flags", ctypes.c_int),
        ("meta_info", _vp),
        ("roi_type", ctypes.c_uint32),
        ("id", ctypes.c_int),
        ("parent_id", ctypes.c_int),
        ("x", ctypes.c_uint),
        ("y", ctypes.c_uint),
        ("w", ctypes.c_uint),
        ("h", ctypes.c_uint),
        ("params", _vp),
    ]


if ctypes.sizeof(_vp) == 8:
    assert GstMessage.type.offset == 64 and GstMessage.src.offset == 80, \
        "GstMessage: type at 64, src at 80 on LP64"
    assert (GstVideoRegionOfInterestMeta.id.offset == 20
            and ctypes.sizeof(GstVideoRegionOfInterestMeta) == 56), \
        "GstVideoRegionOfInterestMeta: id at 20, 56 bytes on LP64"

GST_CLOCK_TIME_NONE = (1 << 64) - 1
GST_SECOND = 1000000000
GST_MAP_READ = 1 << 0
GST_MESSAGE_EOS = 1 << 0
GST_MESSAGE_ERROR = 1 << 1
GST_FLOW_OK = 0
_GST_STATE_NULL = 1
_GST_STATE_PLAYING = 4
_GST_STATE_CHANGE_FAILURE = 0

_perr = ctypes.POINTER(ctypes.POINTER(GError))
_size = ctypes.c_size_t

# name: (argtypes, restype), per library.
_SIGNATURES = {
    "libgstreamer-1.0.so.0": {
        "gst_init_check": ([_vp, _vp, _perr], ctypes.c_int),
        "gst_mini_object_ref": ([_vp], _vp),
        "gst_mini_object_unref": ([_vp], None),
        "gst_buffer_get_type": ([], _size),
        "gst_buffer_copy": ([_vp], _vp),
        "gst_buffer_get_size": ([_vp], _size),
        "gst_buffer_n_memory": ([_vp], ctypes.c_uint),
        "gst_buffer_peek_memory": ([_vp, ctypes.c_uint], _vp),
        "gst_memory_is_type": ([_vp, ctypes.c_char_p], ctypes.c_int),
        "gst_buffer_get_meta": ([_vp, _size], _vp),
        "gst_buffer_map": ([_vp, ctypes.POINTER(GstMapInfo), ctypes.c_int],
                           ctypes.c_int),
        "gst_buffer_unmap": ([_vp, ctypes.POINTER(GstMapInfo)], None),
        "gst_caps_get_type": ([], _size),
        "gst_caps_to_string": ([_vp], _vp),
        "gst_caps_get_size": ([_vp], ctypes.c_uint),
        "gst_caps_get_structure": ([_vp, ctypes.c_uint], _vp),
        "gst_structure_get_name": ([_vp], ctypes.c_char_p),
        "gst_structure_get_int": ([_vp, ctypes.c_char_p,
                                   ctypes.POINTER(ctypes.c_int)], ctypes.c_int),
        "gst_structure_get_string": ([_vp, ctypes.c_char_p], ctypes.c_char_p),
        "gst_structure_get_uint64": ([_vp, ctypes.c_char_p,
                                      ctypes.POINTER(ctypes.c_uint64)],
                                     ctypes.c_int),
        "gst_sample_get_buffer": ([_vp], _vp),
        "gst_sample_get_caps": ([_vp], _vp),
        "gst_parse_launch": ([ctypes.c_char_p, _perr], _vp),
        "gst_object_ref": ([_vp], _vp),
        "gst_object_ref_sink": ([_vp], _vp),
        "gst_object_unref": ([_vp], None),
        "gst_object_get_name": ([_vp], _vp),
        "gst_element_factory_find": ([ctypes.c_char_p], _vp),
        "gst_bin_get_type": ([], _size),
        "gst_element_get_type": ([], _size),
        "gst_bin_get_by_name": ([_vp, ctypes.c_char_p], _vp),
        "gst_element_set_state": ([_vp, ctypes.c_int], ctypes.c_int),
        "gst_element_get_bus": ([_vp], _vp),
        "gst_bus_timed_pop": ([_vp, ctypes.c_uint64], _vp),
        "gst_bus_pop_filtered": ([_vp, ctypes.c_int], _vp),
        "gst_message_get_type": ([], _size),
        "gst_message_get_structure": ([_vp], _vp),
        "gst_message_parse_error": ([_vp, _perr, ctypes.POINTER(_vp)], None),
        "gst_meta_get_info": ([ctypes.c_char_p], _vp),
        "gst_meta_register_custom": ([ctypes.c_char_p,
                                      ctypes.POINTER(ctypes.c_char_p), _vp,
                                      _vp, _vp], _vp),
        "gst_buffer_add_custom_meta": ([_vp, ctypes.c_char_p], _vp),
        "gst_custom_meta_get_structure": ([_vp], _vp),
        "gst_structure_set_value": ([_vp, ctypes.c_char_p, _vp], None),
    },
    "libgobject-2.0.so.0": {
        "g_value_init": ([_vp, _size], _vp),
        "g_value_set_double": ([_vp, ctypes.c_double], None),
        "g_value_get_boolean": ([_vp], ctypes.c_int),
        "g_value_get_int": ([_vp], ctypes.c_int),
        "g_value_get_uint": ([_vp], ctypes.c_uint),
        "g_value_get_enum": ([_vp], ctypes.c_int),
        "g_value_get_int64": ([_vp], ctypes.c_int64),
        "g_value_get_uint64": ([_vp], ctypes.c_uint64),
        "g_value_get_object": ([_vp], _vp),
        "g_value_set_boolean": ([_vp, ctypes.c_int], None),
        "g_value_set_int": ([_vp, ctypes.c_int], None),
        "g_value_set_uint": ([_vp, ctypes.c_uint], None),
        "g_value_set_enum": ([_vp, ctypes.c_int], None),
        "g_value_set_int64": ([_vp, ctypes.c_int64], None),
        "g_value_set_uint64": ([_vp, ctypes.c_uint64], None),
        "g_value_set_object": ([_vp, _vp], None),
        "g_type_fundamental": ([_size], _size),
        "g_object_class_find_property": ([_vp, ctypes.c_char_p], _vp),
        "g_object_get_property": ([_vp, ctypes.c_char_p, _vp], None),
        "g_object_set_property": ([_vp, ctypes.c_char_p, _vp], None),
        "g_weak_ref_init": ([_vp, _vp], None),
        "g_weak_ref_get": ([_vp], _vp),
        "g_weak_ref_clear": ([_vp], None),
        "g_value_unset": ([_vp], None),
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
    "gst_app_src_get_type": ([], _size),
    "gst_app_src_set_caps": ([_vp, _vp], None),
    "gst_app_src_push_buffer": ([_vp, _vp], ctypes.c_int),  # takes the buffer
    "gst_app_src_end_of_stream": ([_vp], ctypes.c_int),
}
_VIDEO_SIGNATURES = {
    "gst_buffer_add_video_region_of_interest_meta": (
        [_vp, ctypes.c_char_p] + [ctypes.c_uint] * 4,
        ctypes.POINTER(GstVideoRegionOfInterestMeta)),
}


class _Lib:
    """The functions above as attributes, with their signatures set on a
    handle of our own (so nobody else's argtypes are changed)."""

    def __init__(self):
        for soname, sigs in _SIGNATURES.items():
            self._bind(soname, sigs)
        self.buffer_type = self.gst_buffer_get_type()
        self.caps_type = self.gst_caps_get_type()
        self.message_type = self.gst_message_get_type()
        self._app = self._video = False
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
                self.app_src_type = self.gst_app_src_get_type()
                self._app = True

    def load_video(self):
        with _lock:
            if not self._video:
                self._bind("libgstvideo-1.0.so.0", _VIDEO_SIGNATURES)
                self._video = True

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
        wrapper, whose hash is its C pointer (pyds relies on the same; not
        documented, so same_object() checks it: TypeError if not).
        The GType in the GstMiniObject header must match: that catches
        another object's address, not a dangling or made-up one (reading
        it may crash, as passing such a pointer to C would)."""
        wrapped = False
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
            wrapped = True
        if (addr <= 0 or addr % ctypes.alignment(_vp)
                or ctypes.c_size_t.from_address(addr).value != gtype):
            raise TypeError("expected a Gst.%s or a Gst%s* address, got %r"
                            % (what, what, obj))
        if wrapped and not self.same_object(addr, obj, what):
            raise TypeError("PyGObject's hash of %r is not its C address "
                            "here: pass the Gst%s* address as an int"
                            % (obj, what))
        return addr

    def same_object(self, addr, obj, what):
        """Whether the Gst@what at @addr holds what PyGObject's @obj says
        (the fields both sides can read).  PyGObject documents no way to
        get a boxed object's C address; hash() gives it today, which
        address() checks with this rather than trusts."""
        if what == "Buffer":
            b = GstBuffer.from_address(addr)
            return ((b.pts, b.dts, b.duration, b.offset, b.offset_end)
                    == (obj.pts, obj.dts, obj.duration, obj.offset,
                        obj.offset_end))
        if what == "Caps":
            return (self.take_string(self.gst_caps_to_string(addr))
                    == obj.to_string())
        if what == "Message":
            m = GstMessage.from_address(addr)
            return m.seqnum == obj.seqnum and m.type == int(obj.type)
        return False


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


_lock = threading.Lock()  # _Lib.init and _Lib.load_*
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


def caps_size(caps):
    """(width, height) of the first structure of a GstCaps* (int) or
    Gst.Caps; ValueError when either is missing."""
    lb = lib()
    addr = lb.address(caps, lb.caps_type, "Caps")
    st = (lb.gst_caps_get_structure(addr, 0) if lb.gst_caps_get_size(addr)
          else None)
    w, h = ctypes.c_int(), ctypes.c_int()
    if not (st and lb.gst_structure_get_int(st, b"width", ctypes.byref(w))
            and lb.gst_structure_get_int(st, b"height", ctypes.byref(h))):
        raise ValueError("caps without a width and height: %s"
                         % caps_to_string(addr))
    return w.value, h.value


def has_element(factory):
    """Whether GStreamer (initialised here if need be) has element
    @factory."""
    lb = lib()
    lb.init()
    found = lb.gst_element_factory_find(factory.encode())
    if found:
        lb.gst_object_unref(found)
    return bool(found)


_pyapi = ctypes.PyDLL(None)  # a handle of our own, for its argtypes
_pyapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_pyapi.PyCapsule_GetPointer.restype = _vp


def object_address(obj, gtype, what):
    """The C address of a GObject instance of type @gtype (an element),
    given as an int or as a PyGObject wrapper (through its __gpointer__
    capsule).  TypeError when it is neither or not of that type: the
    check reads the instance's class, so a made-up address may crash as
    it would in C."""
    if isinstance(obj, int) and not isinstance(obj, bool):
        addr = obj
    elif hasattr(obj, "__gpointer__"):
        addr = _pyapi.PyCapsule_GetPointer(obj.__gpointer__, None) or 0
    else:
        addr = 0
    if (addr <= 0 or addr % ctypes.alignment(_vp)
            or not lib().is_a(addr, gtype)):
        raise TypeError("expected a %s (PyGObject's or its address), got %r"
                        % (what, obj))
    return addr


# --- the pipeline driver ------------------------------------------------------


class PipelineError(RuntimeError):
    """A launch line that does not parse, or an ERROR message on the bus;
    the message is GStreamer's."""


class _Ref:
    """One reference on a C object, given back by release() (once) or
    when this object is collected, whichever comes first."""

    def __init__(self, address, unref):
        self.address = address
        self._unref = weakref.finalize(self, unref, address)

    def _live(self):
        if not self._unref.alive:
            raise ValueError("%r has been released" % self)
        return self.address

    def release(self):
        self._unref()

    def __repr__(self):
        return "<gcg.tensor.%s 0x%x%s>" % (
            type(self).__name__, self.address,
            "" if self._unref.alive else " released")


class Sample(_Ref):
    """A GstSample* pulled from an appsink: one reference, given back by
    release() or when this object is collected.  `get_buffer()` and
    `get_caps()` give borrowed addresses (ints), valid while the sample
    is; a Tensor made from the buffer takes a reference of its own, so it
    may outlive the sample."""

    def __init__(self, address):
        super().__init__(address, lib().gst_mini_object_unref)

    def get_buffer(self):
        """The GstBuffer* (int), or None."""
        return lib().gst_sample_get_buffer(self._live()) or None

    def get_caps(self):
        """The GstCaps* (int), or None."""
        return lib().gst_sample_get_caps(self._live()) or None


def _text(raw):
    """A const gchar* (ctypes' bytes, or None) as str, or None."""
    return None if raw is None else raw.decode("utf-8", "replace")


class Message(_Ref):
    """A GstMessage* taken off a bus (one reference), read at once:
    `type` (its GstMessageType bit, GST_MESSAGE_ERROR...), `name` (its
    structure's, None where it has none) and `error`: for an ERROR, the
    name of the object that posted it (None if unknown), GStreamer's
    message and the debug text (None if none), else None."""

    def __init__(self, address):
        lb = lib()
        super().__init__(address, lb.gst_mini_object_unref)
        self.type = GstMessage.from_address(address).type
        st = lb.gst_message_get_structure(address)
        self.name = _text(lb.gst_structure_get_name(st)) if st else None
        self.error = (self._parse_error(lb) if self.type == GST_MESSAGE_ERROR
                      else None)

    @classmethod
    def wrap(cls, message):
        """A Message of PyGObject's Gst.Message (or a GstMessage*), with
        a reference of its own."""
        lb = lib()
        return cls(lb.gst_mini_object_ref(
            lb.address(message, lb.message_type, "Message")))

    def _parse_error(self, lb):
        err, debug = ctypes.POINTER(GError)(), _vp()
        lb.gst_message_parse_error(self.address, ctypes.byref(err),
                                   ctypes.byref(debug))
        src = GstMessage.from_address(self.address).src
        return (lb.take_string(lb.gst_object_get_name(src)) if src else None,
                lb.take_error(err) or "unknown error",
                lb.take_string(debug.value))

    def get_string(self, field):
        """String field @field of the message's structure, or None."""
        lb = lib()
        st = lb.gst_message_get_structure(self._live())
        return _text(lb.gst_structure_get_string(st, field.encode())) \
            if st else None

    def get_uint64(self, field):
        """guint64 field @field of the message's structure, or None."""
        lb = lib()
        st = lb.gst_message_get_structure(self._live())
        value = ctypes.c_uint64()
        return value.value if st and lb.gst_structure_get_uint64(
            st, field.encode(), ctypes.byref(value)) else None


class _Element(_Ref):
    """An element of a given GType (`_gtype`), one reference ours."""

    def __init__(self, address):
        """Takes over the caller's reference on @address."""
        super().__init__(address, lib().gst_object_unref)

    @classmethod
    def wrap(cls, element):
        """One of PyGObject's elements (or an element's address), with a
        reference of its own; TypeError when it is not of this type."""
        lb = lib()
        lb.load_app()
        addr = object_address(element, cls._gtype(lb), cls.__name__)
        return cls(lb.gst_object_ref(addr))


class Element(_Element):
    """Any element, for its properties: `get_property(name)` and
    `set_property(name, value)` as PyGObject's (see the module functions
    of the same names)."""

    @staticmethod
    def _gtype(lb):
        return lb.gst_element_get_type()

    def get_property(self, name):
        return get_property(self._live(), name)

    def set_property(self, name, value):
        set_property(self._live(), name, value)


class WeakElement:
    """A GWeakRef on an element: `get()` gives an Element (a reference of
    its own) while the element exists, None after.  For a handle that
    must not keep its element alive (gcg.torch's)."""

    def __init__(self, address):
        lb = lib()
        self._ref = ctypes.c_void_p()  # GWeakRef: one pointer, fixed place
        lb.g_weak_ref_init(ctypes.byref(self._ref), address)
        weakref.finalize(self, lb.g_weak_ref_clear, ctypes.byref(self._ref))

    def get(self):
        address = lib().g_weak_ref_get(ctypes.byref(self._ref))
        return Element(address) if address else None


class AppSink(_Element):
    """An appsink, pulled as PyGObject's GstApp.AppSink is."""

    @staticmethod
    def _gtype(lb):
        return lb.app_sink_type

    def try_pull_sample(self, timeout):
        """The next Sample; None at end of stream or after @timeout
        nanoseconds (GST_CLOCK_TIME_NONE: no limit)."""
        addr = lib().gst_app_sink_try_pull_sample(self._live(), timeout)
        return Sample(addr) if addr else None

    def is_eos(self):
        return bool(lib().gst_app_sink_is_eos(self._live()))


_GUINT_MAX = (1 << 32) - 1

# The GcgParamsMeta custom meta (gst-libs/gcg-gst/gstcudagraphparamsmeta.h):
# the fields the elements read, each a double; gamma must be above 0.
PARAMS_META_NAME = b"GcgParamsMeta"
PARAMS_FIELDS = ("brightness", "contrast", "gamma", "gain")
_G_TYPE_DOUBLE = 15 << 2  # G_TYPE_MAKE_FUNDAMENTAL (15)


class _GValue(ctypes.Structure):
    _fields_ = [("g_type", ctypes.c_size_t), ("data", ctypes.c_uint64 * 2)]


def _checked_params(params):
    """@params (a mapping: field -> number) as (name, float) pairs, or
    ValueError naming what the elements would refuse."""
    out = []
    for name, value in dict(params or {}).items():
        if name not in PARAMS_FIELDS:
            raise ValueError("GcgParamsMeta has no field %r (%s)"
                             % (name, ", ".join(PARAMS_FIELDS)))
        v = float(value)
        if v != v or v in (float("inf"), float("-inf")) or \
                (name == "gamma" and v <= 0.0):
            raise ValueError("GcgParamsMeta %s=%r: not a finite number%s"
                             % (name, value, " above 0" if name == "gamma"
                                else ""))
        out.append((name, v))
    return out


def _add_params_meta(lb, buffer, fields):
    """A GcgParamsMeta with @fields on @buffer (writable, ours)."""
    if not lb.gst_meta_get_info(PARAMS_META_NAME):
        # The plugin registers it when it loads; an application may come
        # first, with the same name and no tags.
        tags = (ctypes.c_char_p * 1)(None)
        lb.gst_meta_register_custom(PARAMS_META_NAME, tags, None, None, None)
    meta = lb.gst_buffer_add_custom_meta(buffer, PARAMS_META_NAME)
    if not meta:
        raise RuntimeError("could not add a GcgParamsMeta")
    st = lb.gst_custom_meta_get_structure(meta)
    for name, v in fields:
        value = _GValue()
        lb.g_value_init(ctypes.byref(value), _G_TYPE_DOUBLE)
        lb.g_value_set_double(ctypes.byref(value), v)
        lb.gst_structure_set_value(st, name.encode(), ctypes.byref(value))
        lb.g_value_unset(ctypes.byref(value))


class AppSrc(_Element):
    """An appsrc, fed buffers that carry region-of-interest metas."""

    @staticmethod
    def _gtype(lb):
        return lb.app_src_type

    def set_caps(self, caps):
        """@caps: a GstCaps* (int) or Gst.Caps; the appsrc refs them."""
        lb = lib()
        lb.gst_app_src_set_caps(self._live(),
                                lb.address(caps, lb.caps_type, "Caps"))

    def push_buffer(self, buffer, rois=(), roi_type="roi", params=None):
        """Push @buffer (a GstBuffer* or Gst.Buffer; it stays the
        caller's) as a shallow copy, the same memory with no byte copied,
        carrying a GstVideoRegionOfInterestMeta of @roi_type with id i
        for each (x, y, width, height) rois[i] and, with @params (a
        mapping of brightness, contrast, gamma, gain to numbers), a
        GcgParamsMeta: that frame's values for the cudagraph elements
        downstream.  This is the supported way to give per-frame values
        from Python, with PyGObject or without: a buffer PyGObject wraps
        is never writable (the wrapper holds a reference), so no meta can
        be added to it in a pad probe; the copy here is ours.  Returns
        the GstFlowReturn (GST_FLOW_OK is 0); ValueError for a box that
        does not fit a guint, or a field the elements would refuse (an
        unknown name, a value that is not finite, gamma <= 0)."""
        boxes = [tuple(int(v) for v in box) for box in rois]
        for box in boxes:
            if len(box) != 4 or not all(0 <= v <= _GUINT_MAX for v in box):
                raise ValueError("not an (x, y, width, height) ROI: %r"
                                 % (box,))
        fields = _checked_params(params)
        lb = lib()
        if boxes:
            lb.load_video()
        src = self._live()
        copy = lb.gst_buffer_copy(lb.address(buffer, lb.buffer_type, "Buffer"))
        if not copy:
            raise RuntimeError("gst_buffer_copy failed")
        for i, box in enumerate(boxes):
            meta = lb.gst_buffer_add_video_region_of_interest_meta(
                copy, roi_type.encode(), *box)
            if not meta:
                lb.gst_mini_object_unref(copy)
                raise RuntimeError("could not add a region-of-interest meta")
            meta.contents.id = i
        if fields:
            try:
                _add_params_meta(lb, copy, fields)
            except Exception:
                lb.gst_mini_object_unref(copy)
                raise
        return lb.gst_app_src_push_buffer(src, copy)

    def end_of_stream(self):
        """The GstFlowReturn (GST_FLOW_OK is 0)."""
        return lib().gst_app_src_end_of_stream(self._live())


def _close(lb, pipeline):
    lb.gst_element_set_state(pipeline, _GST_STATE_NULL)
    lb.gst_object_unref(pipeline)


def _nanoseconds(timeout):
    """Seconds (None: no limit) as a GstClockTime."""
    if timeout is None:
        return GST_CLOCK_TIME_NONE
    return max(0, int(timeout * 1e9))


class Pipeline:
    """A launch line driven through ctypes: `play()`, then samples from
    its appsink @sink (`pull_sample()`, or iterate), `close()` (also on
    collection, or leaving a `with` block) to stop it and let it go.
    With @sink None, an application drives it through the appsinks and
    appsrcs it looks up (`app_sink()`, `app_src()`) and reads the bus
    (`pop_message()`).  Raises PipelineError when the line does not parse
    (GStreamer's message) and ValueError when it has no appsink called
    @sink."""

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
        self.address, self.sink = pipeline, None
        self._close = weakref.finalize(self, _close, lb, pipeline)
        if sink is not None:
            try:
                self.sink = self.app_sink(sink)
            except ValueError:
                self.close()
                raise ValueError("no appsink named %r in %r"
                                 % (sink, launch)) from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _live(self):
        if not self._close.alive:
            raise ValueError("the pipeline has been closed")
        return self.address

    def _element(self, name, cls):
        lb = self._lib
        found = (lb.gst_bin_get_by_name(self._live(), name.encode())
                 if lb.is_a(self.address, lb.gst_bin_get_type()) else None)
        if not found or not lb.is_a(found, cls._gtype(lb)):
            if found:
                lb.gst_object_unref(found)
            raise ValueError("no %s named %r" % (cls.__name__, name))
        return cls(found)

    def element(self, name):
        """The Element called @name (a reference of its own), for its
        properties (gcg.torch.attach() takes it); ValueError when there
        is none."""
        return self._element(name, Element)

    def app_sink(self, name):
        """The AppSink called @name (a reference of its own); ValueError
        when there is none."""
        return self._element(name, AppSink)

    def app_src(self, name):
        """The AppSrc called @name (a reference of its own); ValueError
        when there is none."""
        return self._element(name, AppSrc)

    def play(self):
        """Set the pipeline PLAYING; PipelineError if that fails."""
        if (self._lib.gst_element_set_state(self._live(), _GST_STATE_PLAYING)
                == _GST_STATE_CHANGE_FAILURE):
            raise PipelineError(self.pop_error()
                                or "could not set the pipeline to PLAYING")

    def stop(self):
        """Set the pipeline to NULL, from any thread: a blocked appsrc
        push or appsink pull returns."""
        self._lib.gst_element_set_state(self._live(), _GST_STATE_NULL)

    def _pop(self, pop, *args):
        lb = self._lib
        bus = lb.gst_element_get_bus(self._live())
        msg = pop(bus, *args)
        lb.gst_object_unref(bus)
        return Message(msg) if msg else None

    def pop_message(self, timeout=0):
        """The next Message on the bus, waiting up to @timeout seconds (0:
        only one already there, None: no limit), or None."""
        return self._pop(self._lib.gst_bus_timed_pop, _nanoseconds(timeout))

    def pop_error(self):
        """The message of the first ERROR on the bus (taken off it with
        every message before it), or None."""
        msg = self._pop(self._lib.gst_bus_pop_filtered, GST_MESSAGE_ERROR)
        if msg is None:
            return None
        msg.release()
        return msg.error[1]

    def pull_sample(self, timeout=None):
        """The next Sample of the appsink @sink, or None at end of stream
        (or after @timeout seconds, when given)."""
        self._live()
        if self.sink is None:
            raise ValueError("the pipeline was made with no sink")
        return self.sink.try_pull_sample(_nanoseconds(timeout))

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
            if self.sink.is_eos():
                return

    def close(self):
        """Set the pipeline to NULL and drop our references (once)."""
        self._close()
        if self.sink is not None:
            self.sink.release()


def pull_samples(launch, sink="sink"):
    """Every sample of @launch's appsink @sink, pulled to end of stream,
    the pipeline stopped after: a list of Sample.  PipelineError on a
    parse error or an ERROR on the bus.  All are held at once, so this is
    for short runs (an element's bounded buffer pool would stall a long
    one): stream with Pipeline."""
    with Pipeline(launch, sink) as pipeline:
        pipeline.play()
        return list(pipeline)


# --- GObject properties --------------------------------------------------------
#
# GParamSpec starts { GTypeInstance (a class pointer); const gchar *name;
# GParamFlags flags; GType value_type; ... }: value_type at 24 on LP64.
_PSPEC_VALUE_TYPE = 3 * ctypes.sizeof(_vp)
_FUNDAMENTAL = {5 << 2: "boolean", 6 << 2: "int", 7 << 2: "uint",
                10 << 2: "int64", 11 << 2: "uint64", 12 << 2: "enum",
                20 << 2: "object"}


def _property_type(lb, obj, name):
    """(value GType, kind) of GObject @obj's property @name (kind: one
    of _FUNDAMENTAL's names); ValueError when there is no such property,
    TypeError when its type is not one handled here."""
    klass = _vp.from_address(obj).value  # GTypeInstance.g_class
    pspec = lb.g_object_class_find_property(klass, name.encode())
    if not pspec:
        raise ValueError("%s has no property %r" % (object_name(obj), name))
    gtype = ctypes.c_size_t.from_address(pspec + _PSPEC_VALUE_TYPE).value
    kind = _FUNDAMENTAL.get(lb.g_type_fundamental(gtype))
    if kind is None:
        raise TypeError("property %r: only boolean, integer, enum and "
                        "object properties are handled here" % name)
    return gtype, kind


def object_name(obj):
    """The name of a GstObject* (or "object" when it has none)."""
    lb = lib()
    return lb.take_string(lb.gst_object_get_name(obj)) or "object"


def has_property(obj, name):
    """Whether GObject @obj (an address) has a property @name."""
    lb = lib()
    klass = _vp.from_address(obj).value
    return bool(lb.g_object_class_find_property(klass, name.encode()))


def get_property(obj, name):
    """Property @name of GObject @obj (an address): an int (booleans as
    bool, enums as their value, objects as their address or None)."""
    lb = lib()
    gtype, kind = _property_type(lb, obj, name)
    value = _GValue()
    lb.g_value_init(ctypes.byref(value), gtype)
    try:
        lb.g_object_get_property(obj, name.encode(), ctypes.byref(value))
        got = getattr(lb, "g_value_get_" + kind)(ctypes.byref(value))
    finally:
        lb.g_value_unset(ctypes.byref(value))
    return bool(got) if kind == "boolean" else got


def set_property(obj, name, value):
    """Sets property @name of GObject @obj (an address) to @value (an
    int, a bool, an enum's value, an object's address or None).  GObject
    reports a value the property refuses (out of range, a read-only
    property, the wrong object type) as a warning, not to the caller:
    read it back where it matters."""
    lb = lib()
    gtype, kind = _property_type(lb, obj, name)
    gvalue = _GValue()
    lb.g_value_init(ctypes.byref(gvalue), gtype)
    try:
        getattr(lb, "g_value_set_" + kind)(ctypes.byref(gvalue), value)
        lb.g_object_set_property(obj, name.encode(), ctypes.byref(gvalue))
    finally:
        lb.g_value_unset(ctypes.byref(gvalue))
