# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Per-frame values from Python: gcg.tensor.AppSrc.push_buffer(params=...)
attaches a GcgParamsMeta that the elements downstream apply to that frame
only, with the pipeline made by PyGObject (its appsrc wrapped) and by the
ctypes driver, and refuses values the elements would ignore.  Runs on the
CPU backend; exit status 77 (a skip) without PyGObject's Gst."""
import ctypes
import sys
import unittest

import _pipeline
from gcg import tensor

Gst, NO_GI = _pipeline.import_gst()
if Gst is None:
    print("SKIP: " + NO_GI)
    sys.exit(77)
_pipeline.init(Gst)

# A uniform grey (100, 100, 100) frame; uint8 tensors keep pixel values.
FRAME = ("videotestsrc num-buffers=1 pattern=solid-color "
         "foreground-color=0xff646464 ! video/x-raw,format=RGBA,width=16,"
         "height=8 ! appsink name=sink")
FEEDS = {
    "preprocess": "cudagraphpreprocess backend=cpu width=4 height=2 "
                  "layout=nhwc tensor-type=uint8",
    "convert": "cudagraphconvert backend=cpu ! "
               "video/x-raw,format=RGBA,width=4,height=2",
}
LINE = "appsrc name=src format=time ! {} ! appsink name=sink sync=false"


def first_byte(buffer):
    """The first byte of a GstBuffer* (int) or Gst.Buffer, read through
    ctypes (no NumPy needed)."""
    lib = tensor._ctgst.lib()
    ptr = tensor._gst().buffer_pointer(buffer)
    info = tensor._ctgst.GstMapInfo()
    assert lib.gst_buffer_map(ptr, ctypes.byref(info), 1)  # GST_MAP_READ
    try:
        return ctypes.cast(info.data, ctypes.POINTER(ctypes.c_uint8))[0]
    finally:
        lib.gst_buffer_unmap(ptr, ctypes.byref(info))


class ParamsMeta(unittest.TestCase):

    def run_frames(self, element, params_list, gi_objects):
        """One frame per entry of @params_list (None: no meta) through
        @element; the first byte of each output."""
        frame = _pipeline.pull(FRAME, Gst if gi_objects else None)[0]
        line = LINE.format(FEEDS[element])
        src, sink, stop = _pipeline.app_pipeline(line,
                                                 Gst if gi_objects else None)
        out = []
        try:
            src.set_caps(frame.get_caps())
            for params in params_list:
                self.assertEqual(src.push_buffer(frame.get_buffer(),
                                                 params=params),
                                 tensor._ctgst.GST_FLOW_OK)
                sample = sink.try_pull_sample(10 * tensor._ctgst.GST_SECOND)
                self.assertIsNotNone(sample)
                out.append(first_byte(sample.get_buffer()))
        finally:
            stop()
        return out

    def test_values_per_frame(self):
        # brightness 0.2 adds 0.2 * 255 = 51 to 100; the next frame, with
        # no meta, is the plain grey again: values hold for one frame.
        for element in FEEDS:
            for gi_objects in (False, True):
                got = self.run_frames(element, [{"brightness": 0.2}, None,
                                                {"gain": 2.0}], gi_objects)
                self.assertEqual(got, [151, 100, 200],
                                 "%s, %s" % (element, "PyGObject"
                                             if gi_objects else "ctypes"))

    def test_refused_values(self):
        frame = _pipeline.pull(FRAME)[0]
        buf = frame.get_buffer()
        base = _pipeline.refcount(buf)
        with tensor.Pipeline(LINE.format(FEEDS["convert"]), sink=None) as p:
            src = p.app_src("src")
            for bad in ({"hue": 0.1}, {"gamma": 0.0}, {"gain": float("nan")},
                        {"brightness": float("inf")}, {"contrast": "x"}):
                with self.assertRaises(ValueError, msg=repr(bad)):
                    src.push_buffer(buf, params=bad)
        self.assertEqual(_pipeline.refcount(buf), base)


if __name__ == "__main__":
    unittest.main()
