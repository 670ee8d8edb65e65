#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A PyTorch model attached on device 1 (issue 40): the network lives on
cuda:1 (PyTorch's primary context of that device), cudagraphpreprocess
cuda-device-id=1 behind cudaupload cuda-device-id=1, with
postprocess=classify in the same replay.

Checked, frame by frame: every output tensor is on device 1; the
outputs equal the captured graph replayed by PyTorch on device 1 on that
frame's own preprocessed input (bit for bit) and eager PyTorch on device
1 (tight allclose); the same pipeline on device 0 gives the same
preprocessed input bit for bit and the same top classes; the results
meta's best class is the logits' argmax; one capture.  Then both
pipelines streaming at once, in one process (attached one after the
other: PyTorch's captures are not made side by side): the same again.

The network is test_torch_gpu.py's.  Exit 77 (skipped) with fewer than
two CUDA devices, a failure under GCG_TEST_REQUIRE_GPUS=2 (a two-GPU
host); the usual skips of test_torch_gpu.py otherwise."""
import os
import sys
import threading
import unittest

# Skips (77) without torch, CUDA or cudaupload, as that test does.
from test_torch_gpu import torch, tensor, Net, FRAMES, SIZE  # noqa: E402
import gcg.torch  # noqa: E402
from gcg import launch  # noqa: E402

if torch.cuda.device_count() < 2:
    why = "needs 2 CUDA devices, torch sees %d" % torch.cuda.device_count()
    if os.environ.get("GCG_TEST_REQUIRE_GPUS", "1") not in ("", "0", "1"):
        print("FAIL (GCG_TEST_REQUIRE_GPUS is set): " + why)
        sys.exit(1)
    print("SKIP: " + why)
    sys.exit(77)

LINE = ("videotestsrc num-buffers=%d pattern=ball ! "
        "video/x-raw,format=RGBA,width=96,height=64 ! "
        "cudaupload cuda-device-id={dev} ! "
        "cudagraphpreprocess name=pre backend=cuda cuda-device-id={dev} "
        "width=%d height=%d mean=0.5 std=0.25 postprocess=classify top-k=3 "
        "! other/tensors(memory:CUDAMemory) ! appsink name=sink sync=false"
        % (FRAMES, SIZE, SIZE))


def attached(dev):
    """The pipeline on device @dev with the model attached on that device:
    (pipeline, element, attachment, net).  Attached one at a time, from
    one thread: a PyTorch capture forbids other threads' CUDA work that
    could join it (its default capture mode), so captures are not made
    side by side; the streams then run side by side."""
    net = Net().to(torch.device("cuda", dev)).eval()
    p = tensor.Pipeline(LINE.format(dev=dev))
    pre = p.element("pre")
    return p, pre, gcg.torch.attach(pre, net, keep_input=True), net


def stream(dev, setup, out):
    """Plays @setup's pipeline to EOS; @out[dev] = (attachment, net,
    frames, counts), each frame ([input, logits, pooled, top] copied, the
    tensors' devices, results)."""
    p, pre, att, net = setup
    frames = []
    p.play()
    for sample in p:
        ts = [torch.from_dlpack(t) for t in tensor.tensors(sample)]
        devices = {t.device for t in ts}
        with torch.cuda.device(dev):
            copies = [t.clone() for t in ts]
            torch.cuda.synchronize()
        results = launch.read_results(sample.get_buffer())
        sample.release()
        frames.append((copies, devices, results))
    p.stop()
    counts = [pre.get_property(k) for k in
              ("captures", "replays", "eager-frames")]
    p.close()
    out[dev] = (att, net, frames, counts)


class Device1(unittest.TestCase):
    def setUp(self):
        torch.backends.cudnn.benchmark = False
        torch.backends.cudnn.deterministic = True

    def check(self, dev, got):
        att, net, frames, counts = got
        self.assertEqual(len(frames), FRAMES)
        self.assertEqual(counts, [1, FRAMES - 1, 0])
        want_dev = torch.device("cuda", dev)
        for i, (ts, devices, results) in enumerate(frames):
            self.assertEqual(devices, {want_dev}, "frame %d" % i)
            x, logits, pooled, top = ts
            with torch.cuda.device(dev):
                att.static_input.copy_(x)
                att.graph.replay()
                torch.cuda.synchronize()
                for t, want in zip((logits, pooled, top), att.static_outputs):
                    self.assertTrue(torch.equal(t, want), "frame %d" % i)
                with torch.no_grad():
                    e_logits, _, e_top = net(x)
            torch.testing.assert_close(logits, e_logits, rtol=1e-5,
                                       atol=1e-5)
            self.assertTrue(torch.equal(top, e_top))
            self.assertIsNotNone(results, "frame %d: no results meta" % i)
            self.assertEqual(len(results), 3)
            best = max(results, key=lambda r: r.confidence)
            self.assertEqual(best.label_index, int(top[0]), "frame %d" % i)

    def same_as_device_0(self, got0, got1):
        for i, (f0, f1) in enumerate(zip(got0[2], got1[2])):
            self.assertTrue(torch.equal(f0[0][0].cpu(), f1[0][0].cpu()),
                            "frame %d: input differs" % i)
            self.assertTrue(torch.equal(f0[0][3].cpu(), f1[0][3].cpu()),
                            "frame %d: top class differs" % i)

    def test_device_1_alone(self):
        out = {}
        stream(0, attached(0), out)
        stream(1, attached(1), out)
        self.check(0, out[0])
        self.check(1, out[1])
        self.same_as_device_0(out[0], out[1])

    def test_both_devices_at_once(self):
        out = {}
        setups = [attached(d) for d in (0, 1)]
        threads = [threading.Thread(target=stream, args=(d, setups[d], out))
                   for d in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(sorted(out), [0, 1])
        self.check(0, out[0])
        self.check(1, out[1])
        self.same_as_device_0(out[0], out[1])


if __name__ == "__main__":
    unittest.main()
