#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gcg.tensor's exports of buffers whose metas lie (issue 23 item 5), CPU
backend, system memory, deterministic from a seed.

Each case takes a deep copy of one cudagraphpreprocess tensor buffer (or
of one cudagraphbatch buffer), sometimes shrinks it, and writes hostile
values into its GstCudaGraphTensorMeta (sizes, offsets, n_dims, shapes whose
product overflows 64 bits, n_tensors and n_items past their arrays,
unknown dtypes, "CUDA memory" on a system-memory buffer) or its
GstCudaGraphBatchMeta (n_items past the items allocated, n_sources past the
array, items naming missing sources).  Then from_buffer(), tensors(), numpy(),
__dlpack__ (consumed by NumPy) and __cuda_array_interface__ are each
either refused with ValueError, IndexError, TypeError, BufferError or
AttributeError, or give an array that lies inside the buffer's mapping
and holds the bytes there; batch_items() is refused or names only listed
sources.  Any other exception (or a crash) fails.

  GCG_FUZZ_SEED=N   seed (default fixed)
  GCG_FUZZ_CASES=N  cases (default 1500)

Exits 77 only when NumPy or PyGObject is missing."""
import ctypes
import os
import random
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

SEED = int(os.environ.get("GCG_FUZZ_SEED", "20261125"))
CASES = int(os.environ.get("GCG_FUZZ_CASES", "1500"))
REFUSALS = (ValueError, IndexError, TypeError, BufferError, AttributeError)

TENSOR_LINE = ("videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,"
               "width=64,height=48 ! cudagraphpreprocess backend=cpu "
               "width=32 height=16 max-rois=2 ! appsink name=sink sync=false")
BATCH_LINE = ("cudagraphbatch name=b backend=cpu width=16 height=16 ! "
              "appsink name=sink sync=false "
              "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=32,"
              "height=24 ! b.sink_0 "
              "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=32,"
              "height=24 ! b.sink_1")


def hostile(rng, bound, bits=64):
    """Mostly small, sometimes at a bound, sometimes huge (masked to the
    field's width)."""
    special = [0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 62,
               2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1]
    pick = rng.randrange(4)
    if pick == 0:
        v = rng.choice(special)
    elif pick == 1:
        v = bound + rng.randrange(-1, 3)
    else:
        v = rng.randrange(0, bound + 2)
    return v & ((1 << bits) - 1)


def meta_of(buffer):
    return tensor._gst().tensor_meta(tensor._gst().buffer_pointer(buffer))


def batch_meta_of(buffer):
    return tensor._gst().batch_meta(tensor._gst().buffer_pointer(buffer))


def lie_about_tensor(rng, meta, size):
    """Writes hostile values into some of the meta's fields."""
    fields = ["size", "n_dims", "shape", "type", "n_items", "n_tensors",
              "tensors", "memory"]
    for name in rng.sample(fields, rng.randrange(1, 4)):
        if name == "size":
            meta.size = hostile(rng, size)
        elif name == "n_dims":
            meta.n_dims = hostile(rng, 4, 32)
        elif name == "shape":
            for i in range(4):
                meta.shape[i] = hostile(rng, 64)
        elif name == "type":
            meta.type = hostile(rng, 3, 32)
        elif name == "n_items":
            meta.n_items = hostile(rng, 64, 32)
        elif name == "n_tensors":
            meta.n_tensors = hostile(rng, 24, 32)
        elif name == "memory":
            meta.memory = 1
        else:
            meta.n_tensors = rng.randrange(1, 4)
            for i in range(meta.n_tensors):
                t = meta.tensors[i]
                t.offset = hostile(rng, size)
                t.dtype = hostile(rng, 7, 32)
                t.n_dims = hostile(rng, 8, 32)
                for d in range(8):
                    t.shape[d] = hostile(rng, 256) - (1 << 63 if
                                                      rng.random() < 0.1
                                                      else 0)
                t.size = hostile(rng, size)


def mapped_range(buffer):
    ok, info = buffer.map(Gst.MapFlags.READ)
    assert ok
    try:
        data = bytes(info.data)
    finally:
        buffer.unmap(info)
    return data


class Fuzz(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tensor_buffer = _pipeline.pull(TENSOR_LINE, Gst)[0].get_buffer()
        cls.batch_buffer = _pipeline.pull(BATCH_LINE, Gst)[0].get_buffer()
        cls.counts = {"exported": 0, "refused": 0}

    def check_array(self, a, t, buffer, what):
        """@a (from an export of @t) lies in @buffer and holds its bytes."""
        raw = mapped_range(buffer)
        self.assertEqual(a.nbytes, t.nbytes, what)
        self.assertLessEqual(t.offset + a.nbytes, len(raw), what)
        want = raw[t.offset:t.offset + a.nbytes]
        self.assertEqual(np.ascontiguousarray(a).view(np.uint8).tobytes(),
                         want, what)

    def export_all(self, t, buffer, case):
        """Every export of @t: refused, or right."""
        exports = [("numpy", lambda: t.numpy()),
                   ("dlpack", lambda: np.from_dlpack(t)),
                   ("cai", lambda: t.__cuda_array_interface__)]
        for name, fn in exports:
            what = "case %d %s of %r" % (case, name, t)
            try:
                a = fn()
            except REFUSALS as e:
                self.assertTrue(str(e), what)
                self.counts["refused"] += 1
                continue
            self.assertNotEqual(name, "cai", what + ": a system-memory "
                                "tensor exported as CUDA")
            self.check_array(a, t, buffer, what)
            self.counts["exported"] += 1
            del a

    def tensor_case(self, case):
        rng = random.Random("%d/%d" % (SEED, case))
        buffer = self.tensor_buffer.copy_deep()
        size = buffer.get_size()
        if rng.random() < 0.15:
            buffer.set_size(rng.randrange(0, size))
        lie_about_tensor(rng, meta_of(buffer), size)
        try:
            ts = tensor.tensors(buffer)
        except REFUSALS as e:
            self.assertTrue(str(e))
            self.counts["refused"] += 1
            return
        for t in ts:
            self.assertLessEqual(t.offset + t.nbytes, buffer.get_size())
            self.assertLessEqual(len(t.items), 64)
            self.export_all(t, buffer, case)

    def test_tensor_metas(self):
        ran = 0
        for case in range(CASES):
            self.tensor_case(case)
            ran += 1
        sys.stderr.write("tensor cases: %d of %d ran (seed %d), %r\n"
                         % (ran, CASES, SEED, self.counts))
        # Every case asked for ran: a sweep cut short tested less.
        self.assertEqual(ran, CASES)
        # Both sides reached: the sweep is not all refusals.
        self.assertGreater(self.counts["exported"], CASES // 10,
                           self.counts)
        self.assertGreater(self.counts["refused"], CASES // 10, self.counts)

    def test_cuda_claim_on_system_memory(self):
        # Failed before: a system-memory buffer whose meta said CUDA was
        # exported through the CUDA array interface with a host address.
        buffer = self.tensor_buffer.copy_deep()
        meta_of(buffer).memory = 1
        with self.assertRaisesRegex(ValueError, "CUDA memory"):
            tensor.from_buffer(buffer)

    def test_batch_metas(self):
        ref = tensor.batch_items(self.batch_buffer)
        self.assertEqual(len(ref), 2)
        refused = ran = 0
        for case in range(CASES // 5):
            refused += self.batch_case(case)
            ran += 1
        sys.stderr.write("batch cases: %d of %d ran, %d refused\n"
                         % (ran, CASES // 5, refused))
        self.assertEqual(ran, CASES // 5)
        self.assertGreater(refused, 0)

    def batch_case(self, case):
        """One hostile batch meta; 1 when refused, else 0."""
        rng = random.Random("batch %d/%d" % (SEED, case))
        buffer = self.batch_buffer.copy_deep()
        meta = batch_meta_of(buffer)
        self.assertIsNotNone(meta, "a whole copy keeps the batch meta")
        allocated = meta.n_allocated
        if rng.random() < 0.5:
            meta.n_items = hostile(rng, allocated, 32)
        if rng.random() < 0.5:
            meta.n_sources = hostile(rng, 64, 32)
        if rng.random() < 0.5 and meta.n_items and \
                meta.n_items <= allocated:
            meta.items[0].source = hostile(rng, 2, 32)
        try:
            items = tensor.batch_items(buffer)
        except ValueError as e:
            self.assertTrue(str(e))
            return 1
        self.assertLessEqual(len(items), allocated)
        for it in items:
            self.assertLess(it.source, min(meta.n_sources, 64))
        return 0

    def test_batch_count_past_allocation(self):
        # Failed before: n_items past the items allocated was read.
        buffer = self.batch_buffer.copy_deep()
        meta = batch_meta_of(buffer)
        meta.n_items = meta.n_allocated + 1
        with self.assertRaisesRegex(ValueError, "holds %d" %
                                    meta.n_allocated):
            tensor.batch_items(buffer)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
