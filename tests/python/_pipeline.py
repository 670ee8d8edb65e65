# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the gcg.tensor tests share: GStreamer set-up, every sample of a
launch line (through PyGObject, or gcg.tensor's ctypes driver where there
is none), and buffer refcounts and pad templates read through ctypes, so
the same checks run with or without PyGObject.  Imports no gi itself."""
import ctypes
import os
import sys

from gcg import tensor


def import_gst():
    """(PyGObject's Gst, None), or (None, why there is none)."""
    try:
        import gi

        gi.require_version("Gst", "1.0")
        from gi.repository import Gst
    except (ImportError, ValueError) as e:
        return None, "no PyGObject with GStreamer typelibs (%s)" % e
    return Gst, None


def skip(why):
    """Exit 77: the test cannot run here (a unit test's missing module)."""
    print("SKIP: " + why)
    sys.exit(77)


def gi_gst_or_skip():
    """PyGObject's Gst, initialised (see init()); exits 77 (skipped) when
    there is none."""
    Gst, why = import_gst()
    if Gst is None:
        skip(why)
    init(Gst)
    return Gst


def init(Gst=None):
    """gst_init, after adding the plugins of the GPU host's runtime bundle
    (.gpu-bundle/env.sh sets GST_PLUGIN_SYSTEM_PATH, which the tests'
    empty GST_PLUGIN_SYSTEM_PATH_1_0 hides) to the plugin path and scanning
    in process, as gcg_test_add_bundle_plugins() does for the C tests.
    Initialises PyGObject's @Gst too when given.  OSError when there is
    no GStreamer library for ctypes."""
    bundle = os.environ.get("GST_PLUGIN_SYSTEM_PATH")
    if bundle:
        path = os.environ.get("GST_PLUGIN_PATH_1_0", "")
        os.environ["GST_PLUGIN_PATH_1_0"] = path + os.pathsep + bundle
        os.environ["GST_REGISTRY_FORK"] = "no"
    if Gst is not None:
        Gst.init(None)
    tensor._ctgst.lib().init()


def pull(launch, Gst=None):
    """Every sample of @launch's appsink `sink`, pulled before any is read:
    Gst.Sample through PyGObject's @Gst, else gcg.tensor.Sample through
    the ctypes driver.  AssertionError with GStreamer's message on an
    ERROR."""
    if Gst is None:
        try:
            return tensor.pull_samples(launch)
        except tensor.PipelineError as e:
            raise AssertionError(str(e)) from None
    pipeline = Gst.parse_launch(launch)
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    samples = list(iter(lambda: sink.emit("pull-sample"), None))
    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if msg is not None:
        raise AssertionError(msg.parse_error()[0].message)
    return samples


def app_pipeline(line, Gst=None):
    """@line (with an appsrc `src` and an appsink `sink`) playing: (src,
    sink, stop), src and sink gcg.tensor's AppSrc and AppSink, made by
    PyGObject's @Gst (its elements wrapped) when given, else by the ctypes
    driver; stop() ends it."""
    if Gst is not None:
        pipeline = Gst.parse_launch(line)
        src = tensor.AppSrc.wrap(pipeline.get_by_name("src"))
        sink = tensor.AppSink.wrap(pipeline.get_by_name("sink"))
        pipeline.set_state(Gst.State.PLAYING)
        return src, sink, lambda: pipeline.set_state(Gst.State.NULL)
    pipeline = tensor.Pipeline(line, sink=None)
    src, sink = pipeline.app_src("src"), pipeline.app_sink("sink")
    pipeline.play()
    return src, sink, pipeline.close


def refcount(buffer):
    """The C refcount of a Gst.Buffer or a GstBuffer* address."""
    return tensor._ctgst.refcount(tensor._gst().buffer_pointer(buffer))


def template_caps(factory, pad="src"):
    """The caps of element @factory's @pad template as a string, or None
    when there is no such element."""
    lib = ctypes.CDLL("libgstreamer-1.0.so.0")  # a handle of our own
    vp = ctypes.c_void_p
    for name, argtypes, restype in (
            ("gst_element_factory_make", [ctypes.c_char_p, ctypes.c_char_p], vp),
            ("gst_object_ref_sink", [vp], vp),
            ("gst_element_get_static_pad", [vp, ctypes.c_char_p], vp),
            ("gst_pad_get_pad_template_caps", [vp], vp),
            ("gst_mini_object_unref", [vp], None),
            ("gst_object_unref", [vp], None)):
        getattr(lib, name).argtypes = argtypes
        getattr(lib, name).restype = restype
    element = lib.gst_element_factory_make(factory.encode(), None)
    if not element:
        return None
    lib.gst_object_ref_sink(element)
    found = lib.gst_element_get_static_pad(element, pad.encode())
    caps = lib.gst_pad_get_pad_template_caps(found) if found else None
    text = tensor._ctgst.caps_to_string(caps) if caps else None
    if caps:
        lib.gst_mini_object_unref(caps)
    if found:
        lib.gst_object_unref(found)
    lib.gst_object_unref(element)
    return text
