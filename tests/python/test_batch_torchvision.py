#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Issue 35 end to end on the GPU: every frame's results equal the same
network and postprocess computed with PyTorch and torchvision on the same
tensors, batched (cudagraphbatch) and single stream
(cudagraphpreprocess).

The network is a tiny fixed-seed detector head defined here, in the
YOLOv8 single-head layout (items x (4 + C) x A): two strided
convolutions, then boxes on an 8-pixel grid (centres multiples of 8,
sizes multiples of 16, so every corner and area is an integer, exact in
float32: intersections over union are the same division of the same
integers on both sides, and one exactly at the threshold is suppressed
by neither, both suppress only above it) and scores that are distinct
within an item by construction ((bucket(x) x C x A + a fixed permutation
+ 0.5) / (4 x C x A): the input picks the bucket, the permutation breaks
every tie), so the order of the kept boxes is defined: no ties anywhere.

Batched: four streams into one `cudagraphbatch` (batch-size=4,
max-rois=3: a model batch of 12 slots), `gcg.torch.attach(...,
keep_input=True)`, postprocess=detect:
  - sink_0: RGBA 160x120 from an appsrc, 0 to 3 ROIs per frame
    (GstVideoRegionOfInterestMeta), different every frame, and a
    per-frame brightness (GcgParamsMeta);
  - sink_1: NV12 128x96 from an appsrc, the same;
  - sink_2: I420 96x64 through cudaupload (CUDA memory), a crop (the
    pad's crop-x/y/width/height, set from Python between frames)
    different every frame;
  - sink_3: BGRA 112x72 through cudaupload, the whole frame letterboxed.
Frames go in one per stream at a time (each batch holds one frame of
every stream).  For each batch, on the tensor from `src` (the
preprocessed tensor and the model's output, exactly what the postprocess
read): PyTorch's best class per candidate, the score threshold,
torchvision.ops.batched_nms(boxes, scores, class, iou), the maximum, the
boxes through each slot's map (GstCudaGraphBatchMeta: letterbox, ROI
offset and scale; test_postprocess_torchvision.reference()); and each
stream's frame, back on its `src_N` with its GstCudaGraphResultsMeta,
must hold exactly those results: the same kept set in the same order,
labels equal, confidences within 1e-6, box coordinates within 1e-3 pixel,
each result's item and the items' ROI ids and rectangles as pushed.
The model output must also be the network on the buffer's input: PyTorch
replaying the captured graph on it gives it bit for bit (and eager
PyTorch, whose rounding may move a grid step, agrees on >= 99% of it).
Twice, with two sets of thresholds (one where max-detections cuts, one
where it does not); one capture each (captures == 1, every later batch a
replay, none eager) over the changing ROIs, crops and brightness.

Single stream: the same with `cudagraphpreprocess` (max-rois=3,
letterbox=top-left) on an appsrc with changing ROIs and brightness, the
maps from libgcg's gcg_frame_item_map_init() (the postprocess's own
definition), results on the tensor buffer itself.

GStreamer through gcg.tensor's ctypes driver (the GPU host has no
PyGObject); results through gcg.launch.read_results() and the meta's
items through ctypes.  Exit status 77 (skipped; 1 under
GCG_TEST_REQUIRE_GPU=1) without PyTorch with keep_graph, torchvision, a
CUDA device or the cudaupload element."""
import ctypes
import os
import random
import sys
import unittest


def skip(why):
    """Exit 77 (skipped), or 1 under GCG_TEST_REQUIRE_GPU (set by
    tools/gpu-host-run.sh: on the GPU host a test that cannot run fails)."""
    if os.environ.get("GCG_TEST_REQUIRE_GPU", "") not in ("", "0"):
        print("FAIL (GCG_TEST_REQUIRE_GPU is set): " + why)
        sys.exit(1)
    print("SKIP: " + why)
    sys.exit(77)


try:
    import torch
    import torchvision  # noqa: F401
except ImportError as e:
    skip("no PyTorch or torchvision: %s" % e)
if not torch.cuda.is_available():
    skip("no CUDA device or driver for torch")
if not hasattr(torch.cuda.CUDAGraph, "raw_cuda_graph"):
    skip("PyTorch %s has no CUDAGraph.raw_cuda_graph()" % torch.__version__)

import _pipeline  # noqa: E402
import gcg.torch  # noqa: E402
from gcg import launch, tensor  # noqa: E402
# The CPU-reference test's torchvision decoding and its ctypes mirrors of
# GcgPostprocessConfig, GcgRect and GcgFrameItemMap (it skips as above).
from test_postprocess_torchvision import (  # noqa: E402
    DETECT, Config, ItemMap, Rect, load, reference)

_pipeline.init()
if not tensor.has_element("cudaupload"):
    skip("no cudaupload element (nvcodec)")

_ctgst = tensor._ctgst
SECOND = _ctgst.GST_SECOND
PULL_S = 60  # the first batch captures the graph (and JITs): generous

SIZE = 64          # each tensor item is SIZE x SIZE
CLASSES = 3
GRID = SIZE // 4   # two stride-2 convolutions
CAND = GRID * GRID  # candidates per item
ROIS = 3           # max-rois
FRAMES = 12        # per stream (batched), or frames (single stream)
LETTERBOX_TOP_LEFT = 2  # GcgLetterbox

# (format, width, height, videotestsrc pattern, how its items change)
STREAMS = [("RGBA", 160, 120, "snow", "rois"),
           ("NV12", 128, 96, "ball", "rois"),
           ("I420", 96, 64, "snow", "crop"),
           ("BGRA", 112, 72, "pinwheel", "whole")]
K = len(STREAMS)
# (crop-x, crop-y, crop-width, crop-height) of sink_2, frame after frame
# (0 width or height: to the frame's edge).
CROPS = [(0, 0, 0, 0), (8, 4, 48, 40), (40, 0, 0, 0), (0, 16, 96, 32),
         (24, 8, 16, 48), (0, 0, 95, 63)]


class Detector(torch.nn.Module):
    """(N, 3, SIZE, SIZE) -> (N, 4 + CLASSES, CAND): rows cx, cy, w, h in
    item pixels on an 8-pixel grid, then one score row per class, every
    score of an item distinct (see the module's docstring)."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(35)
        self.conv1 = torch.nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.conv2 = torch.nn.Conv2d(16, 4 + CLASSES, 3, stride=2, padding=1)
        with torch.no_grad():
            for conv in (self.conv1, self.conv2):
                fan_in = conv.weight[0].numel()
                conv.weight.copy_(torch.randn(conv.weight.shape, generator=g)
                                  * (2.0 / fan_in ** 0.5))
                conv.bias.copy_(torch.randn(conv.bias.shape, generator=g)
                                * 0.2)
        rank = torch.randperm(CLASSES * CAND, generator=g).float()
        self.register_buffer("rank", rank.view(1, CLASSES, CAND))

    def forward(self, x):
        f = torch.sigmoid(
            self.conv2(torch.relu(self.conv1(x))).flatten(2))
        centre = torch.floor(f[:, 0:2] * 9.0) * 8.0        # 0 .. 72
        size = (torch.floor(f[:, 2:4] * 6.0) + 1.0) * 16.0  # 16 .. 112
        bucket = torch.floor(f[:, 4:] * 4.0).clamp(max=3.0)
        levels = CLASSES * CAND
        scores = (bucket * levels + self.rank + 0.5) / (4.0 * levels)
        return torch.cat([centre, size, scores], dim=1)


def make_detector():
    return Detector().cuda().eval()


class ResultsItem(ctypes.Structure):
    """GstCudaGraphResultsItem (gst-libs/gcg-gst/gstcudagraphresultsmeta.h)."""
    _fields_ = [("roi_id", ctypes.c_int), ("roi_type", ctypes.c_uint32),
                ("x", ctypes.c_float), ("y", ctypes.c_float),
                ("width", ctypes.c_float), ("height", ctypes.c_float)]


def frame_results(buffer):
    """(results, items) of a GstBuffer*'s GstCudaGraphResultsMeta:
    gcg.launch.Detection list and (roi_id, (x, y, w, h)) per item; None
    without the meta."""
    dets = launch.read_results(buffer)
    if dets is None:
        return None
    meta = launch._gst().get_results_meta(buffer).contents
    items = []
    if meta.n_items:
        arr = ctypes.cast(ctypes.c_void_p(meta.items),
                          ctypes.POINTER(ResultsItem))
        items = [(arr[i].roi_id, (arr[i].x, arr[i].y, arr[i].width,
                                  arr[i].height))
                 for i in range(meta.n_items)]
    return dets, items


class _Pads:
    """gst_element_get_static_pad on a handle of our own."""

    def __init__(self):
        lib = ctypes.CDLL("libgstreamer-1.0.so.0")
        self.get = lib.gst_element_get_static_pad
        self.get.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        self.get.restype = ctypes.c_void_p
        self.unref = lib.gst_object_unref
        self.unref.argtypes = [ctypes.c_void_p]
        self.unref.restype = None

    def set_crop(self, element, pad_name, crop):
        pad = self.get(element, pad_name.encode())
        assert pad, "no pad %s" % pad_name
        try:
            for name, v in zip(("crop-x", "crop-y", "crop-width",
                                "crop-height"), crop):
                _ctgst.set_property(pad, name, v)
            got = tuple(_ctgst.get_property(pad, n) for n in
                        ("crop-x", "crop-y", "crop-width", "crop-height"))
            assert got == tuple(crop), (got, crop)
        finally:
            self.unref(pad)


def crop_rect(crop, w, h):
    x, y, cw, ch = crop
    return (x, y, cw or w - x, ch or h - y)


def make_rois(rng, f, s, w, h):
    """0 to ROIS rectangles inside a w x h frame, different each frame."""
    rois = []
    for _ in range((f + s) % (ROIS + 1)):
        rw, rh = rng.randint(12, w - 1), rng.randint(12, h - 1)
        rois.append((rng.randint(0, w - rw), rng.randint(0, h - rh), rw, rh))
    return rois


def source_frames(fmt, w, h, pattern, n):
    """@n frames of videotestsrc (30 fps, so PTS and durations of frame
    windows), as gcg.tensor Samples."""
    return tensor.pull_samples(
        "videotestsrc num-buffers=%d pattern=%s ! video/x-raw,format=%s,"
        "width=%d,height=%d,framerate=30/1 ! appsink name=sink sync=false"
        % (n, pattern, fmt, w, h))


def pull(pipeline, sink, what):
    sample = sink.try_pull_sample(PULL_S * SECOND)
    if sample is None:
        raise AssertionError("no %s within %d s: %s" % (
            what, PULL_S, pipeline.pop_error() or "no error on the bus"))
    return sample


def config(score, iou, max_det):
    return Config(DETECT, 0, CLASSES, 1, 0, score, iou, max_det)


def postprocess_props(cfg):
    # %.9g: the float32 threshold the reference reads back, which the
    # element's double property becomes again when cast to float.
    return ("postprocess=detect num-classes=%d score-threshold=%.9g "
            "iou-threshold=%.9g max-detections=%d"
            % (CLASSES, cfg.score_threshold, cfg.iou_threshold,
               cfg.max_per_item))


class Checks(unittest.TestCase):
    def setUp(self):
        torch.backends.cudnn.benchmark = False
        torch.backends.cudnn.deterministic = True
        self.stats = {"detections": 0, "items": 0, "capped": 0, "empty": 0}

    def compare(self, where, dets, want, cfg):
        """@dets (a frame's results, gcg.launch.Detection, items counted
        within the frame) against @want (reference(): per item, rows of
        (x, y, w, h, score, label)): the same results in the same order."""
        flat = [(i, row) for i, rows in enumerate(want) for row in rows]
        self.assertEqual(
            len(dets), len(flat),
            "%s: %d results, torchvision keeps %d (per item: %s)"
            % (where, len(dets), len(flat), [len(r) for r in want]))
        for n, (d, (i, w)) in enumerate(zip(dets, flat)):
            at = "%s, result %d (item %d)" % (where, n, i)
            self.assertEqual(d.item, i, at)
            self.assertEqual(d.label_index, w[5], at)
            self.assertEqual(d.label, "class-%d" % w[5], at)
            self.assertLessEqual(abs(d.confidence - w[4]), 1e-6, at)
            for name, a, b in zip("xywh", (d.x, d.y, d.width, d.height),
                                  w[:4]):
                self.assertLessEqual(abs(a - b), 1e-3, "%s: %s %r, want %r"
                                     % (at, name, a, b))
        for rows in want:
            self.stats["items"] += 1
            self.stats["detections"] += len(rows)
            self.stats["capped"] += len(rows) == cfg.max_per_item
            self.stats["empty"] += not rows

    def check_network(self, att, net, stored):
        """Each (input, output) pair: the output is the captured network
        on that input (PyTorch's replay of the same graph, bit for bit)
        and eager PyTorch agrees on nearly all of it (a value on a grid
        or bucket edge may round the other way)."""
        for i, (x, out) in enumerate(stored):
            att.static_input.copy_(x)
            att.graph.replay()
            torch.cuda.synchronize()
            self.assertTrue(torch.equal(att.static_outputs[0], out),
                            "batch %d: the output is not the captured "
                            "network's on the input" % i)
            with torch.no_grad():
                eager = net(x)
            differ = (eager != out).float().mean().item()
            self.assertLess(differ, 0.01, "batch %d: eager PyTorch differs "
                            "on %.2f%% of the output" % (i, differ * 100))

    def assert_one_capture(self, element, n):
        counts = [element.get_property(k) for k in
                  ("captures", "replays", "eager-frames")]
        self.assertEqual(counts, [1, n - 1, 0])

    def report(self, what, cfg):
        s = self.stats
        print("%s (score %.3g, iou %.3g, max %d): %d detections over %d "
              "items equal torchvision's batched_nms (%d items at the "
              "maximum, %d with none)"
              % (what, cfg.score_threshold, cfg.iou_threshold,
                 cfg.max_per_item, s["detections"], s["items"], s["capped"],
                 s["empty"]))
        self.assertGreater(s["detections"], 20)


class Batched(Checks):
    @classmethod
    def setUpClass(cls):
        cls.frames = [source_frames(fmt, w, h, pat, FRAMES)
                      for fmt, w, h, pat, _ in STREAMS]
        for s, fr in enumerate(cls.frames):
            assert len(fr) == FRAMES, "stream %d: %d frames" % (s, len(fr))
        rng = random.Random(35)
        cls.rois = [[make_rois(rng, f, s, w, h) if kind == "rois" else []
                     for f in range(FRAMES)]
                    for s, (_, w, h, _, kind) in enumerate(STREAMS)]

    def expected_items(self, s, f):
        """(roi_id, rect) of stream @s's frame @f's items, as pushed."""
        _, w, h, _, kind = STREAMS[s]
        if kind == "rois" and self.rois[s][f]:
            return [(i, r) for i, r in enumerate(self.rois[s][f])]
        if kind == "crop":
            return [(-1, crop_rect(CROPS[f % len(CROPS)], w, h))]
        return [(-1, (0, 0, w, h))]

    def line(self, cfg):
        parts = ["cudagraphbatch name=b backend=cuda batch-size=%d "
                 "max-rois=%d width=%d height=%d %s ! "
                 "other/tensors(memory:CUDAMemory) ! queue ! "
                 "appsink name=tensors sync=false"
                 % (K, ROIS, SIZE, SIZE, postprocess_props(cfg))]
        for s, (_, _, _, _, kind) in enumerate(STREAMS):
            upload = ("cudaupload ! video/x-raw(memory:CUDAMemory) ! "
                      if kind != "rois" else "")
            parts.append("appsrc name=src%d format=time ! %sb.sink_%d"
                         % (s, upload, s))
            parts.append("b.src_%d ! queue ! appsink name=out%d sync=false"
                         % (s, s))
        return "  ".join(parts)

    def run_batches(self, cfg):
        net = make_detector()
        pads = _Pads()
        stored = []
        with tensor.Pipeline(self.line(cfg), sink=None) as p:
            b = p.element("b")
            att = gcg.torch.attach(b, net, keep_input=True)
            self.assertEqual(att.outputs, [((K * ROIS, 4 + CLASSES, CAND),
                                            torch.float32)])
            srcs = [p.app_src("src%d" % s) for s in range(K)]
            outs = [p.app_sink("out%d" % s) for s in range(K)]
            tensors_sink = p.app_sink("tensors")
            for s, src in enumerate(srcs):
                src.set_caps(self.frames[s][0].get_caps())
            p.play()
            for f in range(FRAMES):
                pads.set_crop(b.address, "sink_2", CROPS[f % len(CROPS)])
                for s, src in enumerate(srcs):
                    kind = STREAMS[s][4]
                    params = ({"brightness": 0.1 * (f % 3 - 1)}
                              if kind == "rois" else None)
                    self.assertEqual(src.push_buffer(
                        self.frames[s][f].get_buffer(),
                        rois=self.rois[s][f], params=params), 0)
                stored.append(self.check_batch(p, f, tensors_sink, outs, cfg))
            self.assertEqual(b.get_property("batches"), FRAMES)
            self.assert_one_capture(b, FRAMES)
            for src in srcs:
                src.end_of_stream()
            p.stop()
            self.check_network(att, net, stored)
            b.release()
        self.report("cudagraphbatch, %d streams" % K, cfg)

    def check_batch(self, p, f, tensors_sink, outs, cfg):
        """Batch @f: the tensor's output through torchvision against each
        stream's frame's results; (input, output) for check_network()."""
        sample = pull(p, tensors_sink, "batch %d" % f)
        ts = tensor.tensors(sample)
        self.assertEqual(len(ts), 2)
        x, out = [torch.from_dlpack(t).clone() for t in ts]
        items = tensor.batch_items(sample)
        streams = tensor.batch_streams(sample)
        del ts
        sample.release()
        torch.cuda.synchronize()
        self.assertEqual(tuple(x.shape), (K * ROIS, 3, SIZE, SIZE))
        self.assertEqual(tuple(out.shape), (K * ROIS, 4 + CLASSES, CAND))
        streams = [st for st in streams if st.has_frame]
        self.assertEqual([st.pad_name for st in streams],
                         ["sink_%d" % s for s in range(K)],
                         "batch %d: one frame of each stream" % f)
        # The whole batch at once, as one call per batch would: per slot.
        maps = [ItemMap(Rect(*it.roi), it.pad[0], it.pad[1], 0, 0,
                        it.scale[0], it.scale[1], it.offset[0], it.offset[1])
                for it in items]
        want = reference(out[:len(items)], maps, cfg, "cuda")
        for s, st in enumerate(streams):
            where = "batch %d, sink_%d" % (f, s)
            pts = _ctgst.buffer_pts(self.frames[s][f].get_buffer())
            self.assertEqual(st.pts, pts, where)
            self.assertEqual(st.frame_size, STREAMS[s][1:3], where)
            mine = items[st.first_item:st.first_item + st.n_items]
            expected = self.expected_items(s, f)
            self.assertEqual([(it.source, it.roi_id, it.roi) for it in mine],
                             [(s, i, r) for i, r in expected], where)
            frame = pull(p, outs[s], "frame %d of sink_%d" % (f, s))
            buf = frame.get_buffer()
            self.assertEqual(_ctgst.buffer_pts(buf), pts, where)
            got = frame_results(buf)
            frame.release()
            self.assertIsNotNone(got, where + ": no results meta")
            dets, ritems = got
            self.assertEqual([(i, tuple(int(v) for v in r))
                              for i, r in ritems], expected, where)
            self.compare(where, dets,
                         want[st.first_item:st.first_item + st.n_items], cfg)
        return x, out

    def test_results_equal_torchvision(self):
        self.run_batches(config(0.5, 0.5, 12))

    def test_results_equal_torchvision_other_thresholds(self):
        self.run_batches(config(0.6, 0.3, 100))


class SingleStream(Checks):
    W, H = 160, 120

    @classmethod
    def setUpClass(cls):
        cls.frames = source_frames("RGBA", cls.W, cls.H, "snow", FRAMES)
        assert len(cls.frames) == FRAMES
        rng = random.Random(36)
        cls.rois = [make_rois(rng, f, 1, cls.W, cls.H) for f in range(FRAMES)]

    def run_frames(self, cfg):
        net = make_detector()
        stored = []
        line = ("appsrc name=src format=time ! cudagraphpreprocess name=pre "
                "backend=cuda width=%d height=%d max-rois=%d "
                "letterbox=top-left %s ! other/tensors(memory:CUDAMemory) ! "
                "appsink name=sink sync=false"
                % (SIZE, SIZE, ROIS, postprocess_props(cfg)))
        with tensor.Pipeline(line, sink=None) as p:
            pre = p.element("pre")
            att = gcg.torch.attach(pre, net, keep_input=True)
            self.assertEqual(att.outputs, [((ROIS, 4 + CLASSES, CAND),
                                            torch.float32)])
            # libgcg is loaded with the plugin: the same copy.
            lib = load(os.environ.get("GCG_LIBRARY", "libgcg-1.0.so.0"))
            src, sink = p.app_src("src"), p.app_sink("sink")
            src.set_caps(self.frames[0].get_caps())
            p.play()
            for f in range(FRAMES):
                self.assertEqual(src.push_buffer(
                    self.frames[f].get_buffer(), rois=self.rois[f],
                    params={"brightness": 0.1 * (f % 3 - 1)}), 0)
                stored.append(self.check_frame(p, f, sink, lib, cfg))
            self.assert_one_capture(pre, FRAMES)
            src.end_of_stream()
            p.stop()
            self.check_network(att, net, stored)
            pre.release()
        self.report("cudagraphpreprocess, one stream", cfg)

    def check_frame(self, p, f, sink, lib, cfg):
        where = "frame %d" % f
        sample = pull(p, sink, where)
        buf = sample.get_buffer()
        ts = tensor.tensors(sample)
        self.assertEqual(len(ts), 2)
        x, out = [torch.from_dlpack(t).clone() for t in ts]
        meta_items = ts[0].items
        pts = ts[0].pts
        got = frame_results(buf)
        del ts
        sample.release()
        torch.cuda.synchronize()
        self.assertEqual(pts, _ctgst.buffer_pts(self.frames[f].get_buffer()))
        self.assertIsNotNone(got, where + ": no results meta")
        dets, ritems = got
        expected = ([(i, r) for i, r in enumerate(self.rois[f])]
                    or [(-1, (0, 0, self.W, self.H))])
        self.assertEqual([(i, tuple(int(v) for v in r)) for i, r in ritems],
                         expected, where)
        self.assertEqual([(m["roi_id"], (m["roi_x"], m["roi_y"],
                                         m["roi_width"], m["roi_height"]))
                          for m in meta_items], expected, where)
        maps = []
        for _, r in expected:
            m = ItemMap()
            self.assertTrue(lib.gcg_frame_item_map_init(
                ctypes.byref(m), ctypes.byref(Rect(*r)), SIZE, SIZE,
                LETTERBOX_TOP_LEFT))
            maps.append(m)
        self.compare(where, dets,
                     reference(out[:len(expected)], maps, cfg, "cuda"), cfg)
        return x, out

    def test_results_equal_torchvision(self):
        self.run_frames(config(0.5, 0.5, 12))

    def test_results_equal_torchvision_other_thresholds(self):
        self.run_frames(config(0.6, 0.3, 100))


if __name__ == "__main__":
    unittest.main(verbosity=2)
