#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gcg.tensor on the CPU backend: cudagraphpreprocess's tensors in system
memory, pulled from an appsink and read as NumPy arrays with no copy.
Checks what an application relies on: shape, dtype and values against the
raw bytes of the buffer, the meta's description (layout, items, the way
back to source pixels), and that every view keeps the buffer alive and
gives it back when dropped (a leaked reference would stall the element's
buffer pool).  `WithoutGi` does the same with no PyGObject object at all:
gcg.tensor's ctypes pipeline driver and GstBuffer addresses, in this
process and in a child that cannot import gi, against the gi path's
values.  Exits 77 (skipped) only when NumPy or PyGObject is not
installed."""
import ctypes
import gc
import hashlib
import json
import os
import subprocess
import sys
import unittest

# `test_tensor.py --no-gi PROPS`: the child process of WithoutGi, in which
# importing gi fails, so it proves gcg.tensor works without PyGObject.
# Needs no NumPy either, to run with any interpreter by hand.
CHILD = __name__ == "__main__" and sys.argv[1:2] == ["--no-gi"]
if CHILD:
    sys.modules["gi"] = None  # from here on, `import gi` raises ImportError

import _pipeline  # noqa: E402
from gcg import tensor  # noqa: E402

SOURCE = ("videotestsrc num-buffers={n} ! "
          "video/x-raw,format=RGBA,width=64,height=48 ! ")


def launch(props="", n=2):
    """A CPU-backend preprocess of 64×48 RGBA into 32×32."""
    return (SOURCE.format(n=n) + "cudagraphpreprocess backend=cpu width=32 "
            "height=32 " + props + " ! appsink name=sink sync=false")


def digest(data):
    return hashlib.sha256(data).hexdigest()


def no_gi_child(props):
    """Print, one JSON line per sample pulled through the ctypes driver,
    what the raw-pointer Tensor says (shape, dtype, pts), digests of its
    numpy() bytes (None without NumPy) and of the buffer's bytes mapped
    through ctypes; last, whether anything imported gi."""
    try:
        import numpy
    except ImportError:
        numpy = None
    _pipeline.init()
    lib = tensor._ctgst.lib()
    for sample in tensor.pull_samples(launch(props)):
        t = tensor.from_buffer(sample.get_buffer(), sample.get_caps())
        del sample
        gc.collect()  # the tensor's own reference keeps the buffer
        info = tensor._ctgst.GstMapInfo()
        assert lib.gst_buffer_map(t.buffer_address, ctypes.byref(info),
                                  tensor.GST_MAP_READ)
        raw = ctypes.string_at(info.data, info.size)
        lib.gst_buffer_unmap(t.buffer_address, ctypes.byref(info))
        print(json.dumps({
            "shape": list(t.shape), "dtype": t.dtype, "pts": t.pts,
            "raw": digest(raw),
            "numpy": digest(t.numpy().tobytes()) if numpy else None}))
    print(json.dumps({"gi_imported": sys.modules.get("gi") is not None}))
    return 0


if CHILD:
    sys.exit(no_gi_child(sys.argv[2] if len(sys.argv) > 2 else ""))

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not installed")
    sys.exit(77)

# The reference path: PyGObject's own objects (the child above covers the
# module without them).
Gst, NO_GI = _pipeline.import_gst()
if Gst is None:
    print("SKIP: " + NO_GI)
    sys.exit(77)
_pipeline.init(Gst)


def pull(props="", n=2, gst=Gst):
    """The samples of launch(@props, @n): Gst.Sample, or with @gst None
    gcg.tensor.Sample from the ctypes driver."""
    samples = _pipeline.pull(launch(props, n), gst)
    assert len(samples) == n, "got %d samples" % len(samples)
    return samples


def raw_array(buffer, dtype, shape):
    """The buffer's bytes read through PyGObject's own map, as a copy."""
    ok, info = buffer.map(Gst.MapFlags.READ)
    assert ok
    try:
        return np.frombuffer(bytes(info.data), dtype=dtype).reshape(shape)
    finally:
        buffer.unmap(info)


refcount = _pipeline.refcount


def caps_shape(sample):
    dims = sample.get_caps().get_structure(0).get_value("dimensions")
    return tuple(int(d) for d in reversed(dims.split(":")))


BATCH = ("cudagraphbatch name=b backend=cpu width=32 height=32 "
         "letterbox=symmetric ! appsink name=sink sync=false "
         "videotestsrc num-buffers={n} ! "
         "video/x-raw,format=RGBA,width=64,height=48 ! b.sink_0 "
         "videotestsrc num-buffers={n} pattern=ball ! "
         "video/x-raw,format=NV12,width=40,height=80 ! b.sink_1")


class BatchItems(unittest.TestCase):
    """gcg.tensor.batch_items on cudagraphbatch samples, through PyGObject
    and through the ctypes driver."""

    def check(self, sample):
        items = tensor.batch_items(sample)
        self.assertEqual([it.pad_name for it in items], ["sink_0", "sink_1"])
        self.assertEqual([it.source for it in items], [0, 1])
        self.assertEqual(items[1].frame_size, (40, 80))
        for it, (w, h) in zip(items, [(64, 48), (40, 80)]):
            self.assertEqual(it.roi, (0, 0, w, h))
            self.assertEqual(it.roi_id, -1)
            # The image's corners in the item are the frame's corners.
            x, y = it.to_source(*it.pad)
            self.assertAlmostEqual(x, 0.0)
            self.assertAlmostEqual(y, 0.0)
            x, y = it.to_source(32 - it.pad[0] if it.pad[0] else 32,
                                32 - it.pad[1] if it.pad[1] else 32)
            self.assertAlmostEqual(x, w)
            self.assertAlmostEqual(y, h)
        t = tensor.from_sample(sample)
        self.assertEqual(t.shape, (2, 3, 32, 32))
        self.assertEqual(t.n_items, 2)

    def test_gi(self):
        samples = _pipeline.pull(BATCH.format(n=2), Gst)
        self.assertEqual(len(samples), 2)
        for sample in samples:
            self.check(sample)

    def test_ctypes(self):
        samples = _pipeline.pull(BATCH.format(n=2), None)
        self.assertEqual(len(samples), 2)
        for sample in samples:
            self.check(sample)

    def test_no_meta(self):
        with self.assertRaises(ValueError):
            tensor.batch_items(pull()[0])
        with self.assertRaises(ValueError):
            tensor.batch_streams(pull()[0])


# A 30 fps and a 10 fps stream: windows of 1/30 s, the slow stream in
# every third batch and an empty slot in the others.
RATES = ("cudagraphbatch name=b backend=cpu width=32 height=32 "
         "! appsink name=sink sync=false "
         "videotestsrc num-buffers=4 ! "
         "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1 "
         "! b.sink_0 "
         "videotestsrc num-buffers=2 pattern=ball ! "
         "video/x-raw,format=NV12,width=40,height=80,framerate=10/1 "
         "! b.sink_1")


class BatchStreams(unittest.TestCase):
    """gcg.tensor.batch_streams: a batch's frames, then the streams with
    no frame in its window (empty slots), through both bindings."""

    def check(self, samples):
        self.assertEqual(len(samples), 4)
        for k, sample in enumerate(samples):
            streams = tensor.batch_streams(sample)
            self.assertEqual([s.pad_name for s in streams],
                             ["sink_0", "sink_1"])
            self.assertTrue(streams[0].has_frame)
            self.assertEqual(streams[0].pts, k * 10 ** 9 // 30)
            slow = streams[1]
            if k % 3 == 0:
                self.assertTrue(slow.has_frame)
                self.assertEqual(slow.n_items, 1)
                self.assertEqual(slow.frame_size, (40, 80))
            else:
                self.assertFalse(slow.has_frame)
                self.assertEqual(slow.n_items, 0)
                self.assertIsNone(slow.pts)
                self.assertIsNone(slow.running_time)
            self.assertEqual(len(tensor.batch_items(sample)),
                             2 if k % 3 == 0 else 1)

    def test_gi(self):
        self.check(_pipeline.pull(RATES, Gst))

    def test_ctypes(self):
        self.check(_pipeline.pull(RATES, None))


class HostTensor(unittest.TestCase):
    def check(self, props, dtype, shape, layout):
        sample = pull(props)[0]
        t = tensor.from_sample(sample)
        buf = sample.get_buffer()
        self.assertEqual(t.shape, shape)
        self.assertEqual(t.shape, caps_shape(sample))
        self.assertEqual(t.dtype, dtype)
        self.assertEqual(t.layout, layout)
        self.assertEqual(t.device, "cpu")
        self.assertEqual(t.nbytes, buf.get_size())
        a = t.numpy()
        self.assertEqual(a.shape, shape)
        self.assertEqual(a.dtype, np.dtype(dtype))
        self.assertFalse(a.flags.writeable)
        np.testing.assert_array_equal(a, raw_array(buf, dtype, shape))
        return t, a

    def test_float32_nchw(self):
        self.check("", "float32", (1, 3, 32, 32), "NCHW")

    def test_float16(self):
        self.check("tensor-type=float16", "float16", (1, 3, 32, 32), "NCHW")

    def test_uint8(self):
        self.check("tensor-type=uint8", "uint8", (1, 3, 32, 32), "NCHW")

    def test_nhwc_is_nchw_transposed(self):
        _, nhwc = self.check("layout=nhwc", "float32", (1, 32, 32, 3), "NHWC")
        _, nchw = self.check("", "float32", (1, 3, 32, 32), "NCHW")
        np.testing.assert_array_equal(nhwc, nchw.transpose(0, 2, 3, 1))

    def test_meta_fields(self):
        sample = pull("channels=bgr")[0]
        # No caps: the shape must come from the meta itself.
        t = tensor.from_buffer(sample.get_buffer())
        self.assertEqual(t.shape, (1, 3, 32, 32))
        self.assertEqual(t.channels, "BGR")
        self.assertEqual((t.width, t.height, t.batch, t.n_items), (32, 32, 1, 1))
        self.assertEqual(t.device_id, -1)
        self.assertIsNone(t.data_ptr)
        self.assertEqual(t.stream, 0)
        self.assertEqual(t.pts, sample.get_buffer().pts)
        self.assertEqual(t.__dlpack_device__(), (1, 0))
        self.assertFalse(hasattr(t, "__cuda_array_interface__"))
        self.assertIn("1x3x32x32 float32 NCHW on cpu", repr(t))

    def test_item_to_source_letterbox(self):
        # 64×48 into 32×32, symmetric letterbox: 2 input pixels per item
        # pixel, 4 rows above.
        t = tensor.from_sample(pull("letterbox=symmetric")[0])
        item = t.items[0]
        self.assertEqual((item["roi_x"], item["roi_y"], item["roi_width"],
                          item["roi_height"], item["roi_id"]), (0, 0, 64, 48, -1))
        self.assertEqual((item["scale_x"], item["scale_y"]), (2.0, 2.0))
        self.assertEqual((item["pad_x"], item["pad_y"]), (0, 4))
        self.assertEqual(t.item_to_source(0, 0, 4), (0.0, 0.0))
        self.assertEqual(t.item_to_source(0, 32, 28), (64.0, 48.0))
        self.assertEqual(t.item_to_source(0, 16, 16), (32.0, 24.0))
        with self.assertRaises(IndexError):
            t.item_to_source(1, 0, 0)

    def test_item_to_source_stretch(self):
        t = tensor.from_sample(pull("letterbox=none")[0])
        self.assertEqual(t.items[0]["pad_y"], 0)
        x, y = t.item_to_source(0, 32, 32)
        self.assertAlmostEqual(x, 64.0, places=4)
        self.assertAlmostEqual(y, 48.0, places=4)


class Lifetime(unittest.TestCase):
    def test_array_outlives_tensor_and_sample(self):
        samples = pull()
        buf = samples[0].get_buffer()
        expected = raw_array(buf, np.float32, (1, 3, 32, 32))
        a = tensor.from_sample(samples[0]).numpy()
        del samples, buf
        gc.collect()
        np.testing.assert_array_equal(a, expected)

    def test_references_given_back(self):
        sample = pull()[0]
        buf = sample.get_buffer()
        base = refcount(buf)
        t = tensor.from_sample(sample)
        a = t.numpy()
        b = np.from_dlpack(t)
        self.assertGreater(refcount(buf), base)
        np.testing.assert_array_equal(a, b)
        del t, a, b
        gc.collect()
        self.assertEqual(refcount(buf), base)

    def test_unconsumed_capsules_released(self):
        sample = pull()[0]
        buf = sample.get_buffer()
        base = refcount(buf)
        t = tensor.from_sample(sample)
        capsule = t.__dlpack__()
        versioned = t.__dlpack__(max_version=(1, 0))
        is_valid = ctypes.pythonapi.PyCapsule_IsValid
        is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
        self.assertTrue(is_valid(capsule, b"dltensor"))
        self.assertTrue(is_valid(versioned, b"dltensor_versioned"))
        del capsule, versioned, t
        gc.collect()
        self.assertEqual(refcount(buf), base)

    def test_capsule_dropped_while_raising(self):
        sample = pull()[0]
        buf = sample.get_buffer()
        base = refcount(buf)
        t = tensor.from_sample(sample)

        def fail():
            capsule = t.__dlpack__()  # noqa: F841
            raise KeyError("boom")

        with self.assertRaises(KeyError):
            fail()
        del t
        gc.collect()
        self.assertEqual(refcount(buf), base)

    def test_dlpack_arguments(self):
        t = tensor.from_sample(pull()[0])
        with self.assertRaises(BufferError):
            t.__dlpack__(stream=1)
        with self.assertRaises(BufferError):
            t.__dlpack__(copy=True)
        with self.assertRaises(BufferError):
            t.__dlpack__(dl_device=(2, 0))


class Errors(unittest.TestCase):
    def test_not_a_buffer(self):
        with self.assertRaises(TypeError):
            tensor.from_buffer(Gst.Caps.new_empty())

    def test_buffer_without_meta(self):
        with self.assertRaises(ValueError):
            tensor.from_buffer(Gst.Buffer.new_allocate(None, 64, None))

    def test_region_copy_drops_meta(self):
        # 1 KiB of a 12 KiB tensor: the copy must not claim the whole
        # tensor's shape (DLPack exported 11 KiB past the allocation).
        buf = pull()[0].get_buffer()
        flags = (Gst.BufferCopyFlags.FLAGS | Gst.BufferCopyFlags.TIMESTAMPS
                 | Gst.BufferCopyFlags.META | Gst.BufferCopyFlags.MEMORY)
        part = buf.copy_region(flags, 0, 1024)
        with self.assertRaises(ValueError):
            tensor.from_buffer(part)
        whole = buf.copy_region(flags, 0, buf.get_size())
        self.assertEqual(tensor.from_buffer(whole).nbytes, buf.get_size())

    def test_shrunk_buffer_refused(self):
        # A whole copy keeps the meta; shrinking it afterwards leaves a meta
        # larger than the buffer: every export would read past it.
        buf = pull()[0].get_buffer().copy_deep()
        buf.set_size(1024)
        with self.assertRaisesRegex(ValueError, "buffer holds 1024"):
            tensor.from_buffer(buf)


class WithoutGi(unittest.TestCase):
    """The ctypes driver and GstBuffer addresses, no gi object in play,
    give what the gi path gives."""

    PROPS = ("", "tensor-type=uint8 layout=nhwc channels=bgr")

    def test_raw_pointer_matches_gi(self):
        for props in self.PROPS:
            for ref, sample in zip(pull(props), pull(props, gst=None)):
                self.assertIsInstance(sample, tensor.Sample)
                ptr = sample.get_buffer()
                self.assertIsInstance(ptr, int)
                expected = tensor.from_sample(ref)
                t = tensor.from_buffer(ptr, sample.get_caps())
                self.assertEqual(t.buffer, ptr)
                self.assertEqual(t.buffer_address, ptr)
                for name in ("shape", "dtype", "layout", "channels", "nbytes",
                             "items", "pts"):
                    self.assertEqual(getattr(t, name), getattr(expected, name),
                                     name)
                self.assertEqual(t.pts, ref.get_buffer().pts)
                a = t.numpy()
                np.testing.assert_array_equal(a, expected.numpy())
                np.testing.assert_array_equal(tensor.from_sample(sample).numpy(), a)
                np.testing.assert_array_equal(np.from_dlpack(t), a)

    def test_child_cannot_import_gi(self):
        for props in self.PROPS:
            expected = [tensor.from_sample(s) for s in pull(props)]
            out = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--no-gi", props],
                capture_output=True, text=True, timeout=120)
            self.assertEqual(out.returncode, 0, out.stderr)
            lines = [json.loads(line) for line in out.stdout.splitlines()]
            self.assertEqual(lines.pop(), {"gi_imported": False})
            self.assertEqual(len(lines), len(expected))
            for got, t in zip(lines, expected):
                data = digest(t.numpy().tobytes())
                self.assertEqual(got, {"shape": list(t.shape), "dtype": t.dtype,
                                       "pts": t.pts, "raw": data,
                                       "numpy": data})

    def test_raw_pointer_keeps_buffer_alive(self):
        samples = pull(gst=None)
        ptr = samples[0].get_buffer()
        lib = tensor._ctgst.lib()
        lib.gst_mini_object_ref(ptr)  # ours, to watch the count
        try:
            base = refcount(ptr)
            t = tensor.from_buffer(ptr)
            self.assertEqual(refcount(ptr), base + 1)
            expected = np.array(t.numpy())
            del samples
            gc.collect()  # the sample's reference is gone...
            self.assertEqual(refcount(ptr), base)
            a = t.numpy()  # ...the tensor's still holds the buffer
            np.testing.assert_array_equal(a, expected)
            self.assertEqual(refcount(ptr), base + 1)  # the array's own
            del t
            gc.collect()
            self.assertEqual(refcount(ptr), base)
            np.testing.assert_array_equal(a, expected)
            del a
            gc.collect()
            self.assertEqual(refcount(ptr), base - 1)
        finally:
            lib.gst_mini_object_unref(ptr)

    def test_sample_release(self):
        sample = pull(gst=None)[0]
        ptr = sample.get_buffer()
        t = tensor.from_sample(sample)
        base = refcount(ptr)
        sample.release()
        sample.release()  # once only
        self.assertEqual(refcount(ptr), base - 1)
        with self.assertRaises(ValueError):
            sample.get_buffer()
        self.assertEqual(t.numpy().shape, (1, 3, 32, 32))

    def test_addresses_checked(self):
        sample = pull(gst=None)[0]
        for bad in (sample.get_caps(), 0, -8, sample.get_buffer() + 1, True,
                    "buffer", sample):
            with self.assertRaises(TypeError, msg=repr(bad)):
                tensor.from_buffer(bad)
        t = tensor.from_buffer(ctypes.c_void_p(sample.get_buffer()))
        self.assertEqual(t.buffer_address, sample.get_buffer())
        plain = Gst.Buffer.new_allocate(None, 64, None)
        with self.assertRaises(ValueError):  # a buffer, but no meta
            tensor.from_buffer(hash(plain))

    def test_wrapper_address_checked(self):
        """A PyGObject wrapper's address (its hash) is checked against the
        wrapper's own fields, not trusted."""
        from gcg import _ctgst
        lb = _ctgst.lib()
        a = Gst.Buffer.new_allocate(None, 16, None)
        b = Gst.Buffer.new_allocate(None, 16, None)
        a.pts, b.pts = 1000, 2000
        self.assertTrue(lb.same_object(hash(a), a, "Buffer"))
        self.assertFalse(lb.same_object(hash(a), b, "Buffer"))
        c1 = Gst.Caps.from_string("video/x-raw,width=4")
        c2 = Gst.Caps.from_string("video/x-raw,width=8")
        self.assertTrue(lb.same_object(hash(c1), c1, "Caps"))
        self.assertFalse(lb.same_object(hash(c1), c2, "Caps"))

    def test_caps_forms(self):
        ref = pull()[0]
        sample = pull(gst=None)[0]
        shape = (1, 3, 32, 32)
        for caps in (ref.get_caps(), ref.get_caps().to_string(),
                     sample.get_caps(), ctypes.c_void_p(sample.get_caps()),
                     hash(ref.get_caps())):
            self.assertEqual(tensor._shape_from_caps(caps), shape, repr(caps))
        self.assertEqual(tensor._shape_from_caps(
            'other/tensors, dimensions=(string)"4:3:2:1,8:8", num_tensors=2'),
            (1, 2, 3, 4))
        for caps in (None, "ANY", "EMPTY", Gst.Caps.new_empty()):
            self.assertIsNone(tensor._shape_from_caps(caps))
        with self.assertRaises(TypeError):
            tensor._shape_from_caps(sample.get_buffer())
        with self.assertRaises(TypeError):
            tensor._shape_from_caps(3.5)

    def test_pipeline_errors(self):
        with self.assertRaisesRegex(tensor.PipelineError, "nosuchelement"):
            tensor.pull_samples("nosuchelement ! appsink name=sink")
        for line in ("videotestsrc ! fakesink", "videotestsrc ! fakesink name=sink",
                     "appsink name=sink"):
            with self.assertRaises(ValueError, msg=line):
                tensor.Pipeline(line)
        # Refused going to PLAYING, and an error while streaming (which
        # must end the pull: no EOS need follow).
        for line in ("filesrc location=/nonexistent ! appsink name=sink",
                     "videotestsrc ! identity error-after=2 ! appsink name=sink"):
            with self.assertRaises(tensor.PipelineError, msg=line):
                tensor.pull_samples(line)

    def test_streaming(self):
        with tensor.Pipeline(launch(n=3)) as pipeline:
            pipeline.play()
            pts = [tensor.from_sample(s).pts for s in pipeline]
            self.assertIsNone(pipeline.pull_sample(0.01))
            self.assertIsNone(pipeline.pop_error())
        self.assertEqual(pts, [0, 33333333, 66666666])
        with self.assertRaises(ValueError):
            pipeline.play()


FRAME = ("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,"
         "height=48 ! appsink name=sink")
FEED = ("appsrc name=src format=time ! cudagraphpreprocess backend=cpu "
        "width=16 height=16 max-rois=4 ! appsink name=sink sync=false")


class Driver(unittest.TestCase):
    """The pieces of the ctypes driver an application with an appsrc
    uses (examples/analytics.py without PyGObject): AppSrc pushes with ROI
    metas, AppSink pulls, bus Messages, caps_size, has_element."""

    def feed(self, frame, rois, gi_objects=False):
        """@frame pushed through FEED with @rois; the tensor's items.  The
        pipeline made by PyGObject with @gi_objects (its elements wrapped),
        else by the ctypes driver."""
        src, sink, stop = _pipeline.app_pipeline(FEED,
                                                 Gst if gi_objects else None)
        second = tensor._ctgst.GST_SECOND
        try:
            src.set_caps(frame.get_caps())
            self.assertEqual(src.push_buffer(frame.get_buffer(), rois, "cell"),
                             tensor._ctgst.GST_FLOW_OK)
            self.assertEqual(src.end_of_stream(), tensor._ctgst.GST_FLOW_OK)
            sample = sink.try_pull_sample(10 * second)
            self.assertIsNotNone(sample)
            self.assertIsNone(sink.try_pull_sample(10 * second))
            self.assertTrue(sink.is_eos())
            return tensor.from_sample(sample).items
        finally:
            stop()

    def test_push_rois(self):
        rois = [(0, 0, 32, 24), (32, 24, 32, 24), (8, 8, 16, 16)]
        for gi_objects in (False, True):
            frame = _pipeline.pull(FRAME, Gst if gi_objects else None)[0]
            buf = frame.get_buffer()
            base = refcount(buf)
            items = self.feed(frame, rois, gi_objects)
            self.assertEqual([(i["roi_id"], i["roi_x"], i["roi_y"],
                               i["roi_width"], i["roi_height"]) for i in items],
                             [(n,) + r for n, r in enumerate(rois)])
            gc.collect()
            self.assertEqual(refcount(buf), base)  # a copy went, not ours

    def test_push_refuses_bad_boxes(self):
        frame = _pipeline.pull(FRAME)[0]
        buf = frame.get_buffer()
        base = refcount(buf)
        with tensor.Pipeline(FEED, sink=None) as p:
            src = p.app_src("src")
            for bad in ([(-1, 0, 8, 8)], [(0, 0, 8)], [(0, 0, 1 << 32, 8)]):
                with self.assertRaises(ValueError, msg=repr(bad)):
                    src.push_buffer(buf, bad)
            with self.assertRaises(TypeError):
                src.push_buffer(frame.get_caps(), [])
        self.assertEqual(refcount(buf), base)

    def test_elements_looked_up_by_type(self):
        with tensor.Pipeline(FEED, sink=None) as p:
            with self.assertRaises(ValueError):
                p.app_src("sink")
            with self.assertRaises(ValueError):
                p.app_sink("nosuchname")
            with self.assertRaises(ValueError):
                p.pull_sample(0)
        with self.assertRaises(TypeError):
            tensor.AppSrc.wrap(Gst.ElementFactory.make("fakesink"))

    def test_messages(self):
        line = ("videotestsrc num-buffers=3 ! identity name=boom "
                "error-after=2 ! fakesink")
        with tensor.Pipeline(line, sink=None) as p:
            p.play()
            msg = p.pop_message(10)
            while msg is not None and msg.error is None:
                msg = p.pop_message(10)
        self.assertIsNotNone(msg)
        self.assertEqual(msg.type, tensor._ctgst.GST_MESSAGE_ERROR)
        self.assertEqual(msg.name, "GstMessageError")
        source, text, debug = msg.error
        self.assertEqual(source, "boom")
        self.assertIn("Failed after iterations", text)
        self.assertIn("identity", debug)
        self.assertIsNone(msg.get_string("nosuchfield"))
        msg.release()
        with self.assertRaises(ValueError):
            msg.get_string("x")
        structure = Gst.Structure.new_from_string(
            "cudagraph-stats, backend=(string)cpu, captures=(guint64)7")
        m = tensor.Message.wrap(Gst.Message.new_element(None, structure))
        self.assertEqual((m.name, m.error), ("cudagraph-stats", None))
        self.assertEqual(m.get_string("backend"), "cpu")
        self.assertEqual(m.get_uint64("captures"), 7)
        self.assertIsNone(m.get_uint64("backend"))

    def test_caps_and_factories(self):
        frame = _pipeline.pull(FRAME)[0]
        self.assertEqual(tensor.caps_size(frame.get_caps()), (64, 48))
        for caps in (Gst.Caps.from_string("other/tensors"),
                     Gst.Caps.new_empty()):
            with self.assertRaises(ValueError):
                tensor.caps_size(caps)
        self.assertTrue(tensor.has_element("cudagraphpreprocess"))
        self.assertFalse(tensor.has_element("nosuchelement"))


if __name__ == "__main__":
    sys.exit(unittest.main(verbosity=2))
