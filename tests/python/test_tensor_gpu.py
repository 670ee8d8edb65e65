#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gcg.tensor on the CUDA backend.

`Handshake` needs only PyTorch: a tensor written on a "producer" stream
behind a long GPU sleep, exported through gcg.tensor's DLPack code, must
read complete on the consumer's stream (event path), and memory given back
must not be rewritten under reads still queued there (reverse handshake).
Without the handshake both reads come out wrong, so these fail loudly.

`Pipeline` runs the element: tensors left in GStreamer's CUDA memory reach
PyTorch with no copy (DLPack and the CUDA array interface), on the
element's device pointer, with the same values, bit for bit, as the same
pipeline's tensors in system memory.  Frames are pulled before they are
read, so the GPU may still be writing them.  Through PyGObject where it is
installed, else through gcg.tensor's ctypes driver with GstBuffer
addresses (a GPU host with only the GStreamer runtime bundle).

Exit status 77 (skipped; 1 under GCG_TEST_REQUIRE_GPU=1) without NumPy, PyTorch or a CUDA device; without
GStreamer's libraries, the videotestsrc and appsink plugins or a plugin
with CUDA memory support too, once the handshake tests have passed (a
failure there still fails)."""
import gc
import os
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
    import numpy as np
except ImportError:
    skip("numpy is not installed")
try:
    import torch
except ImportError:
    skip("torch is not installed")
if not torch.cuda.is_available():
    skip("no CUDA device or driver for torch")

import _pipeline  # noqa: E402
from gcg import tensor  # noqa: E402

# PyGObject when there is one, else the ctypes driver (Gst None).
Gst, NO_GI = _pipeline.import_gst()

# GPU cycles a producer "still writing" sleeps (some 0.1 s on current GPUs):
# long enough that a missing wait reads stale data every time.
SLEEP_CYCLES = 200_000_000


class FakeHold:
    """Stands in for gcg.tensor's buffer hold (no GStreamer here)."""

    released = 0

    def __init__(self, ptr=None, flags=None):
        self.info = None

    def release(self):
        FakeHold.released += 1


def device_tensor(x, stream):
    """A gcg Tensor over torch memory @x written on @stream, built the way
    from_buffer() fills one from a CUDA-memory meta."""
    t = object.__new__(tensor.Tensor)
    t._ptr, t._holds, t._cuda_hold = 0, [], None
    t.shape, t._dtype, t.dtype = tuple(x.shape), tensor._DTYPES[0], "float32"
    t.device, t.device_id, t.data_ptr = "cuda", x.device.index, x.data_ptr()
    t.stream, t.last_sync = stream, None
    return t


class Handshake(unittest.TestCase):
    def setUp(self):
        self._hold = tensor._Hold
        tensor._Hold = FakeHold
        FakeHold.released = 0
        self.producer = torch.cuda.Stream()

    def tearDown(self):
        tensor._Hold = self._hold
        gc.collect()
        self.assertEqual(len(tensor._exports), 0, "capsule exports leaked")

    def late_write(self, value):
        """Memory the producer fills only after a long GPU sleep."""
        x = torch.zeros(1 << 20, device="cuda")
        torch.cuda.synchronize()
        with torch.cuda.stream(self.producer):
            torch.cuda._sleep(SLEEP_CYCLES)
            x.fill_(value)
        return x

    def test_event_on_current_stream(self):
        src = self.late_write(7.0)
        t = device_tensor(src, self.producer.cuda_stream)
        x = torch.from_dlpack(t)
        self.assertEqual(t.last_sync, "event")
        self.assertEqual(x.data_ptr(), src.data_ptr())
        self.assertEqual((x * 1).mean().item(), 7.0)
        del x
        gc.collect()
        self.assertEqual(FakeHold.released, 1)

    def test_event_on_side_stream(self):
        src = self.late_write(5.0)
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            t = device_tensor(src, self.producer.cuda_stream)
            y = torch.from_dlpack(t) * 1
        side.synchronize()
        self.assertEqual(t.last_sync, "event")
        self.assertEqual(y.mean().item(), 5.0)

    def test_legacy_capsule(self):
        src = self.late_write(3.0)
        t = device_tensor(src, self.producer.cuda_stream)
        x = torch.utils.dlpack.from_dlpack(t.__dlpack__(stream=1))
        self.assertEqual(t.last_sync, "event")
        self.assertEqual((x * 1).mean().item(), 3.0)

    def test_reverse_on_release(self):
        src = torch.full((1 << 20,), 7.0, device="cuda")
        torch.cuda.synchronize()
        t = device_tensor(src, self.producer.cuda_stream)
        x = torch.from_dlpack(t)
        torch.cuda._sleep(SLEEP_CYCLES)  # the consumer's read is late
        y = x * 1
        del x, t
        gc.collect()  # the deleter makes the producer wait for that read
        with torch.cuda.stream(self.producer):
            src.fill_(9.0)  # the element writing a recycled buffer
        torch.cuda.synchronize()
        self.assertEqual(y.mean().item(), 7.0)

    def test_no_sync_requested(self):
        src = torch.zeros(16, device="cuda")
        t = device_tensor(src, self.producer.cuda_stream)
        capsule = t.__dlpack__(stream=-1)
        self.assertEqual(t.last_sync, "none")
        del capsule


CUDA_CAPS = "other/tensors(memory:CUDAMemory)"
FRAMES = 8


def pull(caps, props=""):
    """All samples of a CUDA-backend preprocess of a moving test pattern,
    pulled before any is read (frames may still be in flight)."""
    samples = _pipeline.pull(
        "videotestsrc num-buffers=%d pattern=ball ! "
        "video/x-raw,format=RGBA,width=64,height=48 ! "
        "cudagraphpreprocess backend=cuda width=32 height=32 %s ! %s ! "
        "appsink name=sink sync=false" % (FRAMES, props, caps), Gst)
    assert len(samples) == FRAMES, "got %d samples" % len(samples)
    return samples


refcount = _pipeline.refcount


def pipeline_unavailable():
    """Why the pipeline tests cannot run here, or None."""
    try:
        _pipeline.init(Gst)
    except OSError as e:
        return "no GStreamer library for ctypes (%s)" % e
    for factory, pad in (("videotestsrc", "src"), ("appsink", "sink")):
        if _pipeline.template_caps(factory, pad) is None:
            return "no %s plugin" % factory
    # The plugin just built must load: without it the tests run and fail.
    caps = _pipeline.template_caps("cudagraphpreprocess")
    if caps is not None and "memory:CUDAMemory" not in caps:
        return "cudagraphpreprocess built without GStreamer CUDA memory"
    return None


NO_PIPELINE = pipeline_unavailable()
if not NO_PIPELINE:
    print("pipeline tests through %s" % (
        "PyGObject" if Gst else "gcg.tensor's ctypes driver (%s)" % NO_GI),
        file=sys.stderr)


@unittest.skipIf(NO_PIPELINE, NO_PIPELINE)
class Pipeline(unittest.TestCase):
    def reference(self, props=""):
        """The system-memory tensors of the same pipeline, as arrays."""
        return [tensor.from_sample(s).numpy() for s in pull("other/tensors", props)]

    def check_dlpack(self, props, dtype, shape):
        expected = self.reference(props)
        samples = pull(CUDA_CAPS, props)
        for i, sample in enumerate(samples):
            t = tensor.from_sample(sample)
            self.assertEqual(t.device, "cuda")
            self.assertNotEqual(t.stream, 0, "meta.stream not filled")
            x = torch.from_dlpack(t)
            self.assertEqual(t.last_sync, "event")
            self.assertTrue(x.is_cuda)
            self.assertEqual(x.device.index, t.device_id)
            self.assertEqual(x.data_ptr(), t.data_ptr)  # no copy
            self.assertEqual(tuple(x.shape), shape)
            self.assertEqual(x.dtype, dtype)
            # Read on the current stream, which the handshake made wait.
            got = x.clone().cpu().numpy()
            np.testing.assert_array_equal(got, expected[i], "frame %d" % i)

    def test_dlpack_float32_nchw(self):
        self.check_dlpack("", torch.float32, (1, 3, 32, 32))

    def test_dlpack_float16_nhwc(self):
        self.check_dlpack("tensor-type=float16 layout=nhwc", torch.float16,
                          (1, 32, 32, 3))

    def test_dlpack_uint8(self):
        self.check_dlpack("tensor-type=uint8", torch.uint8, (1, 3, 32, 32))

    def test_dlpack_on_side_stream(self):
        expected = self.reference()
        samples = pull(CUDA_CAPS)
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            xs = [torch.from_dlpack(tensor.from_sample(s)) * 1 for s in samples]
        side.synchronize()
        for i, x in enumerate(xs):
            np.testing.assert_array_equal(x.cpu().numpy(), expected[i])

    def test_map_fallback(self):
        """Without the event path the buffer is mapped (CPU wait)."""
        expected = self.reference()
        samples = pull(CUDA_CAPS)
        make = tensor._Handshake.__dict__["make"]
        tensor._Handshake.make = staticmethod(lambda *args: None)
        try:
            for i, sample in enumerate(samples):
                t = tensor.from_sample(sample)
                x = torch.from_dlpack(t)
                self.assertEqual(t.last_sync, "map")
                self.assertEqual(x.data_ptr(), t.data_ptr)
                np.testing.assert_array_equal(x.cpu().numpy(), expected[i])
        finally:
            tensor._Handshake.make = make

    def test_cuda_array_interface(self):
        expected = self.reference()
        samples = pull(CUDA_CAPS)
        for i, sample in enumerate(samples):
            t = tensor.from_sample(sample)
            cai = t.__cuda_array_interface__
            self.assertEqual(cai["version"], 3)
            self.assertEqual(cai["typestr"], "<f4")
            self.assertIsNone(cai["stream"])
            x = torch.as_tensor(t, device="cuda")
            self.assertEqual(t.last_sync, "map")
            self.assertEqual(x.data_ptr(), t.data_ptr)
            np.testing.assert_array_equal(x.cpu().numpy(), expected[i])

    def test_numpy_of_cuda_memory(self):
        expected = self.reference()
        samples = pull(CUDA_CAPS)
        for i, sample in enumerate(samples):
            np.testing.assert_array_equal(tensor.from_sample(sample).numpy(),
                                          expected[i])

    def test_references_given_back(self):
        sample = pull(CUDA_CAPS)[0]
        buf = sample.get_buffer()
        base = refcount(buf)
        t = tensor.from_sample(sample)
        x = torch.from_dlpack(t)
        y = torch.as_tensor(t, device="cuda")
        self.assertGreater(refcount(buf), base)
        del t, x, y
        gc.collect()
        torch.cuda.synchronize()
        self.assertEqual(refcount(buf), base)

    def test_no_sync_requested_pipeline(self):
        sample = pull(CUDA_CAPS)[0]
        t = tensor.from_sample(sample)
        capsule = t.__dlpack__(stream=-1)
        self.assertEqual(t.last_sync, "none")
        del capsule


if __name__ == "__main__":
    result = unittest.main(verbosity=2, exit=False).result
    if not result.wasSuccessful():
        sys.exit(1)
    if NO_PIPELINE:
        skip("pipeline tests: " + NO_PIPELINE + " (handshake tests passed)")
    sys.exit(0)
