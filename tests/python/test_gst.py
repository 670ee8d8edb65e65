#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The elements from Python (PyGObject + GStreamer), as an application
would drive them: build a pipeline, pull frames from an appsink, read the
counters and the stats message.  Runs on the CPU reference backend, so it
needs no GPU (the unit environment hides any driver)."""
import sys
import unittest

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
from gi.repository import Gst, GstApp  # noqa: E402,F401

Gst.init(None)


def run(launch):
    pipeline = Gst.parse_launch(launch)
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    samples = []
    while True:
        sample = sink.emit("pull-sample")
        if sample is None:
            break
        samples.append(sample)
    bus = pipeline.get_bus()
    stats = None
    while True:
        msg = bus.pop()
        if msg is None:
            break
        if msg.type == Gst.MessageType.ERROR:
            raise AssertionError(msg.parse_error()[0].message)
        s = msg.get_structure()
        if msg.type == Gst.MessageType.ELEMENT and s and s.get_name() == "cudagraph-stats":
            stats = s
    return pipeline, samples, stats


class Elements(unittest.TestCase):
    def test_plugin_registered(self):
        for name in ("cudagraphconvert", "cudagraphpreprocess"):
            self.assertIsNotNone(Gst.ElementFactory.find(name), name)

    def test_convert_from_python(self):
        pipeline, samples, _ = run(
            "videotestsrc num-buffers=5 pattern=white ! "
            "video/x-raw,format=NV12,width=64,height=48 ! "
            "cudagraphconvert name=cg backend=cpu ! "
            "video/x-raw,format=RGBA,width=32,height=24 ! "
            "appsink name=sink sync=false")
        self.assertEqual(len(samples), 5)
        caps = samples[0].get_caps().get_structure(0)
        self.assertEqual(caps.get_value("width"), 32)
        buf = samples[0].get_buffer()
        ok, info = buf.map(Gst.MapFlags.READ)
        self.assertTrue(ok)
        # White NV12 (Y 235, neutral chroma, limited range) is white RGBA.
        self.assertEqual(bytes(info.data[:4]), b"\xff\xff\xff\xff")
        buf.unmap(info)
        cg = pipeline.get_by_name("cg")
        self.assertEqual(cg.get_property("eager-frames"), 5)
        self.assertEqual(cg.get_property("captures"), 0)
        pipeline.set_state(Gst.State.NULL)

    def test_preprocess_stats_message(self):
        pipeline, samples, stats = run(
            "videotestsrc num-buffers=3 ! "
            "video/x-raw,format=RGBA,width=64,height=64 ! "
            "cudagraphpreprocess backend=cpu width=32 height=32 ! "
            "appsink name=sink sync=false")
        self.assertEqual(len(samples), 3)
        caps = samples[0].get_caps().get_structure(0)
        self.assertEqual(caps.get_name(), "other/tensors")
        self.assertEqual(caps.get_value("dimensions"), "32:32:3:1")
        self.assertEqual(samples[0].get_buffer().get_size(), 32 * 32 * 3 * 4)
        self.assertIsNotNone(stats)
        self.assertEqual(stats.get_value("backend"), "cpu")
        self.assertEqual(stats.get_value("frames"), 3)
        pipeline.set_state(Gst.State.NULL)


if __name__ == "__main__":
    sys.exit(unittest.main(verbosity=2))
