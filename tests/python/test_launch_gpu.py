#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""`python3 -m gcg.launch` with model files on a GPU, and
examples/multi-camera-detect.py --synthetic.

A tiny detector whose output is fixed (two boxes per item, one of each
class, in the YOLOv8 single-head layout; it reads its input so the
capture has work to do) is saved as TorchScript and as a torch.export
program.  The launcher runs it on a two-stream cudagraphbatch
(postprocess=detect, a labels file) with per-stream src_N branches, and
on an unnamed cudagraphpreprocess whose tensor size comes from the
exported program; the summary must count every frame and two results of
each class per frame, one capture.  Refusals: an exported batch that is
not batch-size × max-rois, a model that cannot take the element's
tensor, a zip archive that is no model, batch-size=0, each naming the
element and the file.  Then the
example on three synthetic cameras must find every rectangle it drew.

Exit status 77 (skipped; 1 under GCG_TEST_REQUIRE_GPU=1) without PyTorch
with keep_graph or a CUDA device."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "multi-camera-detect.py")


def skip(why):
    """Exit 77 (skipped), or 1 under GCG_TEST_REQUIRE_GPU."""
    if os.environ.get("GCG_TEST_REQUIRE_GPU", "") not in ("", "0"):
        print("FAIL (GCG_TEST_REQUIRE_GPU is set): " + why)
        sys.exit(1)
    print("SKIP: " + why)
    sys.exit(77)


try:
    import torch
except ImportError:
    skip("torch is not installed")
if not torch.cuda.is_available():
    skip("no CUDA device or driver for torch")
if not hasattr(torch.cuda.CUDAGraph, "raw_cuda_graph"):
    skip("PyTorch %s has no CUDAGraph.raw_cuda_graph()" % torch.__version__)

import _pipeline  # noqa: E402

# The bundle's plugins on the path of the launcher's own process too
# (init() puts them into os.environ, which the children inherit).
_pipeline.init()


class FixedDetector(torch.nn.Module):
    """(N, 4 + 2, 8): candidate 0 a class-0 box, candidate 1 a class-1
    box (centre, size in tensor pixels), the others scoring 0."""

    def __init__(self, side):
        super().__init__()
        base = torch.zeros(1, 6, 8)
        s = float(side)
        base[0, :4, 0] = torch.tensor([s / 4, s / 4, s / 8, s / 8])
        base[0, 4, 0] = 0.9
        base[0, :4, 1] = torch.tensor([s * 5 / 8, s * 5 / 8, s / 6, s / 6])
        base[0, 5, 1] = 0.8
        self.register_buffer("base", base)

    def forward(self, x):
        n = x.shape[0]
        return self.base.expand(n, 6, 8) + 0.0 * x.mean(dim=(1, 2, 3)).view(
            n, 1, 1)


class GrayOnly(torch.nn.Module):
    """Takes one channel only: refused on a colour tensor."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 6, 3)

    def forward(self, x):
        return self.conv(x).flatten(2)


def launch(*args):
    p = subprocess.run([sys.executable, "-m", "gcg.launch"] + list(args),
                       capture_output=True, text=True, timeout=240)
    return p.returncode, p.stdout, p.stderr


def frames_done(out):
    m = re.search(r"^launch: done: (\d+) frames", out, re.M)
    assert m, "no summary in:\n" + out
    return int(m.group(1))


SRC = "videotestsrc num-buffers={n} {extra} ! video/x-raw,width={w},height={h}"


class Launch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        d = cls.dir.name
        cls.script = os.path.join(d, "detector.pt")
        torch.jit.script(FixedDetector(64)).save(cls.script)
        cls.exported = os.path.join(d, "detector-32.pt2")
        ep = torch.export.export(FixedDetector(32).eval(),
                                 (torch.zeros(1, 3, 32, 32),))
        torch.export.save(ep, cls.exported)
        cls.gray = os.path.join(d, "gray.pt")
        torch.jit.script(GrayOnly()).save(cls.gray)
        cls.labels = os.path.join(d, "labels.txt")
        with open(cls.labels, "w") as f:
            f.write("cat\ndog\n")

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def batch_line(self, model, extra=""):
        return ("cudagraphbatch name=b backend=cuda batch-size=2 width=64 "
                "height=64 postprocess=detect labels-location=%s model=%s %s "
                "! queue ! fakesink sync=false "
                % (self.labels, model, extra)
                + SRC.format(n=10, extra="", w=128, h=96)
                + " ! b.sink_0 b.src_0 ! queue ! fakesink sync=false "
                + SRC.format(n=10, extra="pattern=ball", w=96, h=96)
                + " ! b.sink_1 b.src_1 ! queue ! fakesink sync=false")

    def test_batch_torchscript(self):
        status, out, err = launch(self.batch_line(self.script))
        self.assertEqual(status, 0, out + err)
        self.assertEqual(frames_done(out), 20, out)
        self.assertIn("launch: results: 40 (cat 20, dog 20)", out)
        self.assertIn("launch: b.src_0: 10 frames, 20 results (cat 10, dog 10)",
                      out)
        self.assertIn("launch: b.src_1: 10 frames, 20 results (cat 10, dog 10)",
                      out)
        self.assertIn("launch: b: cuda backend, 1 captures", out)
        print(out)

    def test_preprocess_exported_unnamed(self):
        status, out, err = launch(
            "-q", SRC.format(n=8, extra="", w=64, h=48)
            + " ! cudagraphpreprocess backend=cuda postprocess=detect "
            "num-classes=2 model=%s ! fakesink sync=false" % self.exported)
        self.assertEqual(status, 0, out + err)
        self.assertEqual(frames_done(out), 8, out)
        self.assertIn("launch: results: 16 (class-0 8, class-1 8)", out)
        self.assertIn("launch: gcglaunch0: cuda backend, 1 captures", out)
        print(out)

    def refused(self, line, *says):
        status, out, err = launch(line)
        self.assertEqual(status, 1, out + err)
        for s in says:
            self.assertIn(s, err)
        self.assertNotIn("Traceback", err)
        print(err)

    def test_exported_batch_mismatch(self):
        self.refused(self.batch_line(self.exported),
                     "element 'b' (cudagraphbatch), model '%s'" % self.exported,
                     "input shape mismatch", "batch-size x max-rois = 2")

    def test_model_cannot_take_tensor(self):
        self.refused(SRC.format(n=4, extra="", w=64, h=48)
                     + " ! cudagraphpreprocess name=pre backend=cuda "
                     "width=32 height=32 model=%s ! fakesink" % self.gray,
                     "element 'pre' (cudagraphpreprocess), model '%s'"
                     % self.gray, "input shape mismatch")

    def test_zip_that_is_no_model(self):
        junk = os.path.join(self.dir.name, "junk.pt")
        import zipfile
        with zipfile.ZipFile(junk, "w") as z:
            z.writestr("junk/data.pkl", b"not a pickle")
        self.refused(self.batch_line(junk),
                     "element 'b' (cudagraphbatch), model '%s': not a model "
                     "PyTorch can load" % junk)

    def test_batch_size_zero(self):
        self.refused(self.batch_line(self.script).replace("batch-size=2",
                                                          "batch-size=0"),
                     "element 'b' (cudagraphbatch)", "batch-size=0")


class Example(unittest.TestCase):
    def test_synthetic_cameras(self):
        p = subprocess.run([sys.executable, EXAMPLE, "--synthetic", "3",
                            "--frames", "20"], capture_output=True, text=True,
                           timeout=240)
        print(p.stdout + p.stderr)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("synthetic check: 6 of 6 rectangles found", p.stdout)
        self.assertIn("60 frames in 20 batches", p.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
