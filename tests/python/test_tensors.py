#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gcg.tensor's several tensors per buffer and the ctypes property helpers
gcg.torch uses, on the CPU backend (no GPU, no PyTorch).

A buffer from an element with a model attached lists its tensors in the
meta's tensors[] (offset, size, dtype, shape each).  Only a GPU makes such
a buffer, so here a deep copy of a CPU-backend tensor buffer has its
meta's tensors[] filled through ctypes: each Tensor must read its own
bytes at its offset (NumPy view == the raw bytes there), and every
inconsistent description (past the buffer, a size that is not the
shape's, an unknown dtype, too many tensors) must be refused.  Exits 77
only when NumPy or PyGObject is missing."""
import gc
import sys
import unittest

import _pipeline
from gcg import tensor

try:
    import numpy as np
except ImportError:
    np = None
    _pipeline.skip("numpy is not installed")
Gst = _pipeline.gi_gst_or_skip()

LINE = ("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=64,"
        "height=48 ! cudagraphpreprocess name=pre backend=cpu width=32 "
        "height=32 ! appsink name=sink sync=false")
# GcgModelDtype values.
FLOAT32, BFLOAT16, UINT8, INT32 = 0, 2, 3, 5


def own_buffer():
    """A writable deep copy of one CPU tensor buffer (12 KiB), meta
    included."""
    sample = _pipeline.pull(LINE, Gst)[0]
    return sample.get_buffer().copy_deep()


def meta_of(buffer):
    return tensor._gst().tensor_meta(tensor._gst().buffer_pointer(buffer))


def describe(buffer, rows):
    """Writes @rows (offset, dtype, shape) as the meta's tensors[]."""
    meta = meta_of(buffer)
    meta.n_tensors = len(rows)
    for i, (offset, dtype, shape) in enumerate(rows):
        t = meta.tensors[i]
        t.offset, t.dtype, t.n_dims = offset, dtype, len(shape)
        count = 1
        for j, n in enumerate(shape):
            t.shape[j] = n
            count *= n
        bits = tensor._MODEL_DTYPES[dtype][3] if dtype in \
            tensor._MODEL_DTYPES else 32
        t.size = count * bits // 8


def raw(buffer):
    ok, info = buffer.map(Gst.MapFlags.READ)
    assert ok
    try:
        return bytes(info.data)
    finally:
        buffer.unmap(info)


class Tensors(unittest.TestCase):
    def setUp(self):
        self.buffer = own_buffer()
        self.assertTrue(hasattr(meta_of(self.buffer), "n_tensors"),
                        "this build's GstCudaGraphTensorMeta has no tensors[]")

    def test_one_tensor_without_a_model(self):
        ts = tensor.tensors(self.buffer)
        self.assertEqual(len(ts), 1)
        self.assertEqual((ts[0].index, ts[0].offset, ts[0].n_tensors),
                         (0, 0, 1))
        self.assertEqual(ts[0].shape, (1, 3, 32, 32))
        with self.assertRaises(IndexError):
            tensor.from_buffer(self.buffer, index=1)

    def test_each_tensor_reads_its_bytes(self):
        rows = [(0, UINT8, (256,)), (256, INT32, (4, 8)),
                (512, FLOAT32, (2, 3, 5)), (768, BFLOAT16, (16,))]
        describe(self.buffer, rows)
        data = raw(self.buffer)
        ts = tensor.tensors(self.buffer)
        self.assertEqual([t.dtype for t in ts],
                         ["uint8", "int32", "float32", "bfloat16"])
        self.assertEqual([t.offset for t in ts], [0, 256, 512, 768])
        self.assertEqual(ts[1].shape, (4, 8))
        for t, typ in zip(ts[:3], (np.uint8, np.int32, np.float32)):
            a = t.numpy()
            expect = np.frombuffer(data[t.offset:t.offset + t.nbytes],
                                   dtype=typ).reshape(t.shape)
            self.assertTrue(np.array_equal(a, expect), t)
        # The top-level fields still describe the preprocessed tensor.
        self.assertEqual((ts[2].width, ts[2].height, ts[2].layout),
                         (32, 32, "NCHW"))
        with self.assertRaisesRegex(TypeError, "bfloat16"):
            ts[3].numpy()
        capsule = ts[3].__dlpack__()  # DLPack has bfloat16
        del capsule

    def test_from_sample_gives_the_first(self):
        describe(self.buffer, [(1024, INT32, (3,)), (0, UINT8, (8,))])
        t = tensor.from_buffer(self.buffer)
        self.assertEqual((t.index, t.offset, t.dtype, t.n_tensors),
                         (0, 1024, "int32", 2))

    def test_inconsistent_descriptions_refused(self):
        size = self.buffer.get_size()
        cases = [
            ([(size - 4, FLOAT32, (2,))], "buffer holds"),
            ([(0, 9, (4,))], "unknown GcgModelDtype"),
            ([(0, FLOAT32, (0, 4))], "shape"),
        ]
        for rows, message in cases:
            describe(self.buffer, rows)
            with self.assertRaisesRegex(ValueError, message):
                tensor.tensors(self.buffer)
        describe(self.buffer, [(0, FLOAT32, (4,))])
        meta_of(self.buffer).tensors[0].size = 20
        with self.assertRaisesRegex(ValueError, "size 20"):
            tensor.tensors(self.buffer)
        meta_of(self.buffer).n_tensors = 25
        with self.assertRaisesRegex(ValueError, "at most 24"):
            tensor.tensors(self.buffer)

    def test_references_given_back(self):
        describe(self.buffer, [(0, UINT8, (64,)), (64, UINT8, (64,))])
        before = _pipeline.refcount(self.buffer)
        arrays = [t.numpy() for t in tensor.tensors(self.buffer)]
        self.assertGreater(_pipeline.refcount(self.buffer), before)
        del arrays
        gc.collect()
        self.assertEqual(_pipeline.refcount(self.buffer), before)


class Properties(unittest.TestCase):
    """_ctgst's GValue property helpers on an element of a ctypes
    Pipeline (what gcg.torch.attach reads and sets)."""

    def test_get_and_set(self):
        with tensor.Pipeline(LINE, sink=None) as p:
            pre = p.element("pre")
            self.assertEqual((pre.get_property("width"),
                              pre.get_property("max-rois")), (32, 1))
            self.assertEqual(pre.get_property("backend"), 2)  # cpu
            self.assertEqual(pre.get_property("cuda-device-id"), -1)
            pre.set_property("height", 24)
            self.assertEqual(pre.get_property("height"), 24)
            pre.set_property("layout", 1)  # NHWC
            self.assertEqual(pre.get_property("layout"), 1)
            self.assertIs(pre.get_property("use-graph"), True)
            with self.assertRaisesRegex(ValueError, "no property 'nosuch'"):
                pre.get_property("nosuch")
            with self.assertRaisesRegex(TypeError, "only boolean"):
                pre.get_property("mean")  # a string
            with self.assertRaises(ValueError):
                p.element("nosuchelement")

    def test_weak_element(self):
        p = tensor.Pipeline(LINE, sink=None)
        pre = p.element("pre")
        weak = tensor._ctgst.WeakElement(pre.address)
        again = weak.get()
        self.assertEqual(again.address, pre.address)
        again.release()
        pre.release()
        p.close()  # the last references: the element is freed
        gc.collect()
        self.assertIsNone(weak.get())


if __name__ == "__main__":
    sys.exit(unittest.main(verbosity=2))
