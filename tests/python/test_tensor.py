#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gcg.tensor on the CPU backend: cudagraphpreprocess's tensors in system
memory, pulled from an appsink and read as NumPy arrays with no copy.
Checks what an application relies on: shape, dtype and values against the
raw bytes of the buffer, the meta's description (layout, items, the way
back to source pixels), and that every view keeps the buffer alive and
gives it back when dropped (a leaked reference would stall the element's
buffer pool).  Exits 77 (skipped) only when NumPy is not installed."""
import ctypes
import gc
import sys
import unittest

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not installed")
    sys.exit(77)

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

from gcg import tensor  # noqa: E402

Gst.init(None)

SOURCE = ("videotestsrc num-buffers={n} ! "
          "video/x-raw,format=RGBA,width=64,height=48 ! ")


def pull(props="", n=2):
    """The samples of a CPU-backend preprocess of 64×48 RGBA into 32×32."""
    pipeline = Gst.parse_launch(
        SOURCE.format(n=n) + "cudagraphpreprocess backend=cpu width=32 "
        "height=32 " + props + " ! appsink name=sink sync=false")
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    samples = []
    while True:
        sample = sink.emit("pull-sample")
        if sample is None:
            break
        samples.append(sample)
    msg = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if msg is not None:
        raise AssertionError(msg.parse_error()[0].message)
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


def refcount(buffer):
    """GstMiniObject.refcount (after the GType) of the C buffer."""
    return ctypes.c_int.from_address(hash(buffer) + 8).value


def caps_shape(sample):
    dims = sample.get_caps().get_structure(0).get_value("dimensions")
    return tuple(int(d) for d in reversed(dims.split(":")))


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
        # 64×48 into 32×32, symmetric letterbox: scale 0.5, 4 rows above.
        t = tensor.from_sample(pull("letterbox=symmetric")[0])
        item = t.items[0]
        self.assertEqual((item["roi_x"], item["roi_y"], item["roi_width"],
                          item["roi_height"], item["roi_id"]), (0, 0, 64, 48, -1))
        self.assertEqual((item["scale_x"], item["scale_y"]), (0.5, 0.5))
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


if __name__ == "__main__":
    sys.exit(unittest.main(verbosity=2))
