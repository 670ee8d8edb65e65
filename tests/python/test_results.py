#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""GstCudaGraphResultsMeta through the GcgGst typelib (issue 35): a meta
added from Python with bad results among good ones reads back through the
accessors and through gcg.results, the bad ones dropped, class names from
the labels or "class-N".  Exit status 77 (a skip) without PyGObject or
the GStreamer typelib."""
import math
import sys
import unittest

try:
    import gi

    gi.require_version("Gst", "1.0")
    gi.require_version("Gcg", "1.0")
    gi.require_version("GcgGst", "1.0")
    from gi.repository import GLib, Gst, Gcg, GcgGst  # noqa: E402
except (ImportError, ValueError) as e:
    print("skipped: %s" % e)
    sys.exit(77)

import gcg.results  # noqa: E402


def make_result(x, y, w, h, conf, label, item):
    r = Gcg.Result()
    r.x, r.y, r.width, r.height = x, y, w, h
    r.confidence, r.label, r.item = conf, label, item
    return r


def make_item(roi_id, roi_type, x, y, w, h):
    it = GcgGst.ResultsItem()
    it.roi_id = roi_id
    it.roi_type = GLib.quark_from_string(roi_type) if roi_type else 0
    it.x, it.y, it.width, it.height = x, y, w, h
    return it


class ResultsMeta(unittest.TestCase):
    def setUp(self):
        Gst.init(None)
        self.buf = Gst.Buffer.new()
        results = [
            make_result(10, 20, 30, 40, 0.9, 0, 1),
            make_result(math.nan, 0, 1, 1, 0.5, 0, 0),
            make_result(1, 2, 3, 4, 0.5, 17, 0),
        ]
        labels = [GLib.quark_from_string("person"),
                  GLib.quark_from_string("car")]
        items = [make_item(-1, None, 0, 0, 640, 480),
                 make_item(3, "face", 100, 50, 64, 64)]
        self.meta = GcgGst.buffer_add_results(
            self.buf, Gcg.PostprocessKind.DETECT, results, labels, items)

    def test_accessors(self):
        meta = GcgGst.buffer_get_results_meta(self.buf)
        self.assertIsNotNone(meta)
        self.assertEqual(meta.get_n_results(), 2)
        r = meta.get_result(0)
        self.assertEqual((r.x, r.y, r.width, r.height), (10, 20, 30, 40))
        self.assertAlmostEqual(r.confidence, 0.9, places=6)
        self.assertEqual(meta.get_label_name(0), "person")
        self.assertEqual(meta.get_label_name(1), "class-17")
        self.assertIsNone(meta.get_result(2))
        self.assertEqual(meta.get_item(1).roi_id, 3)

    def test_gcg_results(self):
        got = gcg.results.from_buffer(self.buf)
        self.assertEqual(len(got), 2)
        self.assertEqual(got[0].label, "person")
        self.assertEqual(got[0].roi_id, 3)
        self.assertEqual(got[0].roi_type, "face")
        self.assertEqual(got[1].label, "class-17")
        self.assertEqual(got[1].label_index, 17)
        self.assertEqual(got[1].roi_id, -1)
        self.assertEqual(gcg.results.kind(self.buf),
                         int(Gcg.PostprocessKind.DETECT))
        self.assertIsNone(gcg.results.from_buffer(Gst.Buffer.new()))

    def test_copy(self):
        copy = self.buf.copy()
        self.assertEqual(len(gcg.results.from_buffer(copy)), 2)


if __name__ == "__main__":
    unittest.main()
