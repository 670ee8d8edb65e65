#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gcg.torch: a PyTorch model attached to cudagraphpreprocess, one replay
per frame (preprocess -> model -> copy-out), on the GPU.

The model is a small CNN with deterministic weights and three outputs of
two dtypes (logits and pooled features in float32, the top class in
int64).  With model-keep-input the buffer starts with the preprocessed
tensor, so every frame's outputs are checked against the model run on
that very tensor: PyTorch's own replay of the captured graph (bit for
bit: the same kernels on the same input) and eager PyTorch (allclose,
tight).  Also: per-frame brightness from Python (GcgParamsMeta) changes
every frame's input and output with one capture; two NULL -> PLAYING ->
NULL cycles; the model's PyTorch objects released exactly when the
element lets go of the model, whether the caller's handle goes first or
the pipeline does; and the refusals (backend=cpu, an input that cannot
match, a tensor-shape change after attaching).

GStreamer through gcg.tensor's ctypes driver (the GPU host has no
PyGObject); with PyGObject, one test attaches to its element.  Exit
status 77 (skipped; 1 under GCG_TEST_REQUIRE_GPU=1) without PyTorch with
keep_graph, a CUDA device or the cudaupload element."""
import gc
import os
import sys
import unittest
import weakref


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
except ImportError:
    skip("torch is not installed")
if not torch.cuda.is_available():
    skip("no CUDA device or driver for torch")
if not hasattr(torch.cuda.CUDAGraph, "raw_cuda_graph"):
    skip("PyTorch %s has no CUDAGraph.raw_cuda_graph()" % torch.__version__)

import _pipeline  # noqa: E402
import gcg.torch  # noqa: E402
from gcg import tensor  # noqa: E402

Gst, NO_GI = _pipeline.import_gst()
_pipeline.init(Gst)
if not tensor.has_element("cudaupload"):
    skip("no cudaupload element (nvcodec)")

SIZE = 32
FRAMES = 6
SOURCE = ("videotestsrc num-buffers=%d pattern=ball ! "
          "video/x-raw,format=RGBA,width=96,height=64 ! " % FRAMES)
PRE = ("cudagraphpreprocess name=pre backend=cuda width=%d height=%d "
       "mean=0.5 std=0.25 " % (SIZE, SIZE))
SINK = " ! other/tensors(memory:CUDAMemory) ! appsink name=sink sync=false"
SECOND = tensor._ctgst.GST_SECOND


class Net(torch.nn.Module):
    """Three outputs, two dtypes; deterministic weights."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(21)
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(16, 10)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=g) * 0.2)

    def forward(self, x):
        f = torch.relu(self.conv2(torch.relu(self.conv1(x))))
        pooled = f.mean(dim=(2, 3))
        logits = self.fc(pooled)
        return logits, pooled, logits.argmax(dim=1)


def make_net():
    return Net().cuda().eval()


def run(pipeline, n=FRAMES):
    """Plays @pipeline to EOS; each frame's tensors as torch tensors
    (copies: the buffers go back to the pool)."""
    pipeline.play()
    frames = []
    for sample in pipeline:
        ts = [torch.from_dlpack(t).clone() for t in tensor.tensors(sample)]
        sample.release()
        frames.append(ts)
    torch.cuda.synchronize()
    pipeline.stop()
    assert len(frames) == n, "%d frames of %d" % (len(frames), n)
    return frames


def released_soon(attached):
    """Whether the owner notify ran (it may run on a streaming thread)."""
    gc.collect()
    return attached.wait_released(5)


class Capture(unittest.TestCase):
    """The capture and the GcgModelGraph, without an element."""

    def test_model_graph_owns_the_pytorch_objects(self):
        net = make_net()
        static_in = torch.zeros(1, 3, SIZE, SIZE, device="cuda")
        graph, outputs = gcg.torch._capture(net, static_in, 2)
        self.assertEqual([tuple(o.shape) for o in outputs],
                         [(1, 10), (1, 16), (1,)])
        alive = weakref.ref(net)
        m, entry = gcg.torch._model_graph(0, graph, static_in, outputs,
                                          [graph, static_in, outputs, net])
        del graph, outputs, net
        gc.collect()
        self.assertIsNotNone(alive())
        self.assertFalse(entry.released.is_set())
        gcg.torch._gcg().g_object_unref(m)
        self.assertTrue(entry.released.is_set())
        gc.collect()
        self.assertIsNone(alive())

    def test_refused_model_graph_releases_the_owner(self):
        # A tensor the driver does not know (pageable host memory, as an
        # address from another context or device would be) is refused by
        # libgcg; the owner is released all the same.
        net = make_net()
        static_in = torch.zeros(1, 3, SIZE, SIZE, device="cuda")
        graph, outputs = gcg.torch._capture(net, static_in, 1)
        host = torch.zeros(4)
        with self.assertRaises(gcg.torch.AttachError):
            gcg.torch._model_graph(0, graph, host, outputs, [graph])
        self.assertEqual(len(gcg.torch._owners), 0)


class Attached(unittest.TestCase):
    def setUp(self):
        torch.backends.cudnn.benchmark = False
        torch.backends.cudnn.deterministic = True

    def check_frames(self, att, net, frames):
        """Each frame: [input, logits, pooled, top] equal to the captured
        graph replayed by PyTorch on the frame's input (bit for bit) and
        to eager PyTorch (tight allclose)."""
        for i, (x, logits, pooled, top) in enumerate(frames):
            self.assertEqual(tuple(x.shape), (1, 3, SIZE, SIZE))
            self.assertEqual((logits.dtype, pooled.dtype, top.dtype),
                             (torch.float32, torch.float32, torch.int64))
            att.static_input.copy_(x)
            att.graph.replay()
            torch.cuda.synchronize()
            for got, want in zip((logits, pooled, top), att.static_outputs):
                self.assertTrue(torch.equal(got, want), "frame %d" % i)
            with torch.no_grad():
                e_logits, e_pooled, e_top = net(x)
            torch.testing.assert_close(logits, e_logits, rtol=1e-5,
                                       atol=1e-5)
            torch.testing.assert_close(pooled, e_pooled, rtol=1e-5,
                                       atol=1e-5)
            self.assertTrue(torch.equal(top, e_top))

    def test_outputs_equal_pytorch(self):
        net = make_net()
        with tensor.Pipeline(SOURCE + PRE + SINK) as p:
            pre = p.element("pre")
            att = gcg.torch.attach(pre, net, keep_input=True)
            self.assertEqual(att.outputs, [((1, 10), torch.float32),
                                           ((1, 16), torch.float32),
                                           ((1,), torch.int64)])
            frames = run(p)
            self.assert_one_capture(pre)
            self.check_frames(att, net, frames)
            # The ball moves: inputs differ between frames.
            self.assertFalse(torch.equal(frames[0][0], frames[-1][0]))
            del pre
        self.assertTrue(released_soon(att))

    def assert_one_capture(self, pre, frames=FRAMES):
        """One capture, every later frame a replay, none eager."""
        counts = [pre.get_property(k) for k in
                  ("captures", "replays", "eager-frames")]
        self.assertEqual(counts, [1, frames - 1, 0])

    def test_without_keep_input(self):
        net = make_net()
        with tensor.Pipeline(SOURCE + PRE + SINK) as p:
            att = gcg.torch.attach(p.element("pre"), net)
            frames = run(p)
        self.assertEqual([len(f) for f in frames], [3] * FRAMES)
        self.assertEqual(tuple(frames[0][0].shape), (1, 10))
        self.assertTrue(released_soon(att))

    def test_per_frame_params_one_capture(self):
        net = make_net()
        line = ("appsrc name=src format=time ! " + PRE + SINK)
        frame = _pipeline.pull(SOURCE.replace("num-buffers=%d" % FRAMES,
                                              "num-buffers=1")
                               + "appsink name=sink")[0]
        with tensor.Pipeline(line, sink=None) as p:
            pre = p.element("pre")
            att = gcg.torch.attach(pre, net, keep_input=True)
            src, sink = p.app_src("src"), p.app_sink("sink")
            src.set_caps(frame.get_caps())
            p.play()
            frames = []
            for i in range(FRAMES):
                self.assertEqual(src.push_buffer(
                    frame.get_buffer(), params={"brightness": 0.1 * i}), 0)
                sample = sink.try_pull_sample(10 * SECOND)
                self.assertIsNotNone(sample, p.pop_error())
                frames.append([torch.from_dlpack(t).clone()
                               for t in tensor.tensors(sample)])
                sample.release()
            torch.cuda.synchronize()
            self.assert_one_capture(pre)
            p.stop()
            self.check_frames(att, net, frames)
        for a, b in zip(frames, frames[1:]):
            self.assertFalse(torch.equal(a[0], b[0]))
            self.assertFalse(torch.equal(a[1], b[1]))

    def test_state_cycles(self):
        net = make_net()
        with tensor.Pipeline(SOURCE + PRE + SINK) as p:
            att = gcg.torch.attach(p.element("pre"), net, keep_input=True)
            first = run(p)
            second = run(p)
            self.assertFalse(att.released)
            self.check_frames(att, net, first + second)
            for a, b in zip(first, second):
                for x, y in zip(a, b):
                    self.assertTrue(torch.equal(x, y))

    def test_handle_dropped_before_the_pipeline(self):
        net = make_net()
        alive = weakref.ref(net)
        with tensor.Pipeline(SOURCE + PRE + SINK) as p:
            att = gcg.torch.attach(p.element("pre"), net, keep_input=True)
            entry = att._entry
            del att, net
            gc.collect()
            self.assertIsNotNone(alive(), "the element's model was freed")
            frames = run(p)
            self.assertEqual(len(frames[0]), 4)
            self.assertFalse(entry.released.is_set())
        gc.collect()
        self.assertTrue(entry.released.wait(5))
        gc.collect()
        self.assertIsNone(alive(), "the model outlived the element")

    def test_pipeline_dropped_first_and_detach(self):
        net = make_net()
        p = tensor.Pipeline(SOURCE + PRE + SINK)
        att = gcg.torch.attach(p.element("pre"), net, keep_input=True)
        run(p)
        p.close()
        self.assertTrue(released_soon(att))
        # The handle still holds PyTorch's graph: it replays on its own.
        att.static_input.fill_(0.5)
        att.graph.replay()
        torch.cuda.synchronize()
        with torch.no_grad():
            want = net(att.static_input)[0]
        torch.testing.assert_close(att.static_outputs[0], want, rtol=1e-5,
                                   atol=1e-5)
        with tensor.Pipeline(SOURCE + PRE + SINK) as p:
            att = gcg.torch.attach(p.element("pre"), net)
            att.detach()
            self.assertTrue(released_soon(att))
            self.assertIsNone(p.element("pre").get_property("model") or None)
            frames = run(p)  # no model: the one preprocessed tensor
            self.assertEqual(tuple(frames[0][0].shape), (1, 3, SIZE, SIZE))

    def test_refusals(self):
        net = make_net()
        with tensor.Pipeline(SOURCE + PRE.replace("backend=cuda",
                                                  "backend=cpu") + SINK) as p:
            with self.assertRaisesRegex(gcg.torch.AttachError, "backend=cpu"):
                gcg.torch.attach(p.element("pre"), net)
        with tensor.Pipeline(SOURCE + PRE + SINK) as p:
            pre = p.element("pre")
            for bad in (torch.zeros(3, SIZE, SIZE, device="cuda"),
                        torch.zeros(1, 4, SIZE, SIZE, device="cuda"),
                        torch.zeros(1, 3, SIZE, SIZE, dtype=torch.float64,
                                    device="cuda")):
                with self.assertRaisesRegex(gcg.torch.AttachError,
                                            "example input"):
                    gcg.torch.attach(pre, net, example=bad)
            # A model that cannot take the element's tensor (4 channels).
            with self.assertRaisesRegex(gcg.torch.AttachError,
                                        r"fails on the element's tensor "
                                        r"\(\(1, 3, %d, %d\)" % (SIZE, SIZE)):
                gcg.torch.attach(pre, torch.nn.Conv2d(4, 4, 1).cuda())
            self.assertIsNone(pre.get_property("model"))

    def test_tensor_changed_after_attaching(self):
        # The contract: a tensor that no longer matches the
        # model's input is an element error at caps time naming the
        # model, not frames dropped one by one.
        with tensor.Pipeline(SOURCE + PRE + SINK) as p:
            pre = p.element("pre")
            gcg.torch.attach(pre, make_net())
            pre.set_property("width", SIZE * 2)
            with self.assertRaises(tensor.PipelineError) as cm:
                run(p)
            self.assertRegex(str(cm.exception), "model")

    def test_example_sets_the_element_tensor(self):
        # The element takes its tensor from the model's input: an NHWC
        # 2x16x24x3 example makes a 2-item NHWC tensor of 24x16.
        net = lambda x: x.float().mean(dim=(1, 2))  # noqa: E731
        example = torch.zeros(2, 16, 24, 3, device="cuda")
        with tensor.Pipeline(SOURCE + PRE + SINK) as p:
            pre = p.element("pre")
            att = gcg.torch.attach(pre, net, example=example, keep_input=True)
            self.assertEqual(att.outputs, [((2, 3), torch.float32)])
            self.assertEqual([pre.get_property(k) for k in
                              ("width", "height", "max-rois", "layout")],
                             [24, 16, 2, 1])
            frames = run(p)
        x, out = frames[0]
        self.assertEqual(tuple(x.shape), (2, 16, 24, 3))
        torch.testing.assert_close(out, x.mean(dim=(1, 2)), rtol=1e-5,
                                   atol=1e-5)

    @unittest.skipIf(Gst is None, NO_GI)
    def test_pygobject_element(self):
        net = make_net()
        pipeline = Gst.parse_launch(SOURCE + PRE + SINK)
        att = gcg.torch.attach(pipeline.get_by_name("pre"), net,
                               keep_input=True)
        sink = pipeline.get_by_name("sink")
        pipeline.set_state(Gst.State.PLAYING)
        frames = []
        for sample in iter(lambda: sink.emit("pull-sample"), None):
            frames.append([torch.from_dlpack(t).clone()
                           for t in tensor.tensors(sample)])
        pipeline.set_state(Gst.State.NULL)
        self.assertEqual(len(frames), FRAMES)
        self.check_frames(att, net, frames)
        pipeline = sink = None
        self.assertTrue(released_soon(att))


if __name__ == "__main__":
    sys.exit(unittest.main(verbosity=2))
