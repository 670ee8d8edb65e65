#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A PyTorch model behind cudagraphpreprocess, three ways, same model, same
run (issue 21):

  (a) python:   the element's tensor -> appsink -> Python: DLPack, copy
                into the model's static input, CUDAGraph.replay(), wait
                (today's way: examples/analytics.py);
  (b) attached: the model attached to the element (gcg.torch.attach):
                one replay per frame does preprocess -> model -> copy-out;
                "attached" ends in a fakesink (no Python per frame),
                "attached+py" in an appsink whose frames Python pulls and
                waits for, reading the outputs through DLPack, as (a);
                "attached+results" adds postprocess=classify (top 3, in
                the same replay): each frame leaves with its results meta
                (issue 35), held until its frame is done, to a fakesink;
  (c) bound:    the PyTorch graph replayed alone in a loop, waiting each
                time (the model's own cost, no GStreamer).

Frames are already in CUDA memory: one 1280x720 NV12 frame uploaded once
(videotestsrc num-buffers=1 ! cudaupload) and pushed again and again by
imagefreeze (shallow copies, no byte copied), so no decoder or upload caps
the rate.  The model: a small CNN with deterministic weights on the
element's 1x3x224x224 float32 tensor (ImageNet mean/std), 10 logits.

Columns: fps; CPU µs per frame (process CPU time, every thread, over the
frames); p50/p99 latency in µs.  Pipeline rows are run twice, for
--warmup and for --warmup + --frames frames, and the columns come from the
difference, so start-up (negotiation, capture) cancels out.  Latency of
a pipeline row: a separate pass (--latency-frames) with an appsrc that
pushes the same frame in system memory through cudaupload, one frame at a
time: the push to the frame's outputs being ready in Python (the H2D copy
of the frame included, the same in (a) and (b)); of (c): replay to its
wait returning.

Needs a CUDA GPU, PyTorch >= 2.8 and this build's plugin on
GST_PLUGIN_PATH (libgcg on LD_LIBRARY_PATH); no PyGObject.  Exits 77
without them.

    python3 bench/bench-model-pipeline.py [--frames=3000] [--warmup=200]
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))

SKIP = 77
SIZE = 224
SOURCE = ("videotestsrc num-buffers=1 pattern=ball ! "
          "video/x-raw,format=NV12,width=1280,height=720,framerate=30/1 ! "
          "cudaupload ! video/x-raw(memory:CUDAMemory) ! "
          "imagefreeze num-buffers={n} ! ")
FEED = "appsrc name=src format=time ! cudaupload ! "
PRE = ("cudagraphpreprocess name=pre backend=cuda width=%d height=%d "
       "mean=0.485,0.456,0.406 std=0.229,0.224,0.225 ! "
       "other/tensors(memory:CUDAMemory) ! " % (SIZE, SIZE))
PRE_RESULTS = PRE.replace(" ! other/tensors", " postprocess=classify "
                          "top-k=3 ! other/tensors")
APPSINK = "appsink name=sink sync=false"
FAKESINK = "fakesink sync=false"


def make_model(torch):
    """The small CNN of bench-model.py, deterministic weights."""
    torch.manual_seed(0)
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10),
    ).cuda().eval()


class Python:
    """(a): the model's graph replayed from Python on each tensor."""

    def __init__(self, torch, model):
        self.torch = torch
        self.static_in = torch.zeros(1, 3, SIZE, SIZE, device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side), torch.no_grad():
            for _ in range(3):
                model(self.static_in)
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph), torch.no_grad():
            self.static_out = model(self.static_in)
        torch.cuda.synchronize()

    def line(self, source):
        return source + PRE + APPSINK

    def frame(self, sample, tensor):
        x = self.torch.from_dlpack(tensor.from_sample(sample))
        self.static_in.copy_(x)
        self.graph.replay()
        self.torch.cuda.current_stream().synchronize()


class AttachedPy:
    """(b) read from Python: the element's outputs pulled and waited for."""

    def __init__(self, torch):
        self.torch = torch

    def line(self, source):
        return source + PRE + APPSINK

    def frame(self, sample, tensor):
        outs = [self.torch.from_dlpack(t) for t in tensor.tensors(sample)]
        self.torch.cuda.current_stream().synchronize()
        return outs


def run_pipeline(gcg, line, attach, per_frame, n):
    """Plays @line (imagefreeze pushing @n frames) to EOS, the model
    attached first when @attach; (wall s, process CPU s, captures,
    replays).  @per_frame(sample) for each sample of an appsink line."""
    tensor = gcg["tensor"]
    with tensor.Pipeline(line.format(n=n), sink=None) as p:
        pre = p.element("pre")
        if attach is not None:
            attach(pre)
        t0, c0 = time.perf_counter(), time.process_time()
        p.play()
        if per_frame is not None:
            sink = p.app_sink("sink")
            count = 0
            while True:
                sample = sink.try_pull_sample(10 * tensor._ctgst.GST_SECOND)
                if sample is None:
                    break
                per_frame(sample, tensor)
                sample.release()
                count += 1
            if count != n:
                raise RuntimeError("%d of %d frames: %s"
                                   % (count, n, p.pop_error()))
        else:
            wait_eos(p, tensor)
        gcg["torch"].cuda.synchronize()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        counts = pre.get_property("captures"), pre.get_property("replays")
    return wall, cpu, counts


def wait_eos(p, tensor):
    while True:
        msg = p.pop_message(30)
        if msg is None:
            raise RuntimeError("no EOS within 30 s")
        if msg.type == tensor._ctgst.GST_MESSAGE_EOS:
            return
        if msg.error is not None:
            raise RuntimeError("pipeline error: %s" % (msg.error[1],))


def throughput(gcg, line, attach, per_frame, frames, warmup):
    """(fps, CPU µs per frame, note) from two runs of different length."""
    short = run_pipeline(gcg, line, attach, per_frame, warmup)
    long = run_pipeline(gcg, line, attach, per_frame, warmup + frames)
    fps = frames / (long[0] - short[0])
    cpu = (long[1] - short[1]) * 1e6 / frames
    note = "captures %d, replays %d" % long[2]
    return fps, cpu, note


def percentiles(lat):
    lat = sorted(lat)
    return statistics.median(lat), lat[int(0.99 * (len(lat) - 1))]


def latency(gcg, frame, attach, per_frame, frames, pre=PRE):
    """p50/p99 µs: push of one system-memory frame to its outputs ready
    in Python, one frame at a time."""
    tensor = gcg["tensor"]
    second = tensor._ctgst.GST_SECOND
    with tensor.Pipeline(FEED + pre + APPSINK, sink=None) as p:
        if attach is not None:
            attach(p.element("pre"))
        src, sink = p.app_src("src"), p.app_sink("sink")
        src.set_caps(frame.get_caps())
        p.play()
        lat = []
        for i in range(frames + 20):
            t0 = time.perf_counter_ns()
            if src.push_buffer(frame.get_buffer()) != 0:
                raise RuntimeError("push failed: %s" % p.pop_error())
            sample = sink.try_pull_sample(10 * second)
            if sample is None:
                raise RuntimeError("no frame: %s" % p.pop_error())
            per_frame(sample, tensor)
            sample.release()
            if i >= 20:
                lat.append((time.perf_counter_ns() - t0) / 1000)
        src.end_of_stream()
    return percentiles(lat)


def bound(torch, py, frames, warmup):
    """(c): CUDAGraph.replay() alone, waiting each time."""
    stream = torch.cuda.current_stream()
    for _ in range(warmup):
        py.graph.replay()
        stream.synchronize()
    lat = []
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(frames):
        s = time.perf_counter_ns()
        py.graph.replay()
        stream.synchronize()
        lat.append((time.perf_counter_ns() - s) / 1000)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return frames / wall, cpu * 1e6 / frames, percentiles(lat)


def one_frame(tensor):
    """One 1280x720 NV12 frame in system memory (a Sample), for the
    latency pass's appsrc."""
    line = ("videotestsrc num-buffers=1 pattern=ball ! "
            "video/x-raw,format=NV12,width=1280,height=720,framerate=30/1 ! "
            + APPSINK)
    samples = tensor.pull_samples(line)
    return samples[0]


def imports():
    """{"torch", "tensor", "gtorch"} or the reason they cannot be had."""
    try:
        import torch
    except ImportError:
        return "no PyTorch"
    if not torch.cuda.is_available():
        return "no CUDA device"
    from gcg import tensor
    import gcg.torch as gtorch
    try:
        if not tensor.has_element("cudagraphpreprocess"):
            return "no cudagraphpreprocess element (GST_PLUGIN_PATH?)"
    except OSError as e:
        return "no GStreamer: %s" % e
    return {"torch": torch, "tensor": tensor, "gtorch": gtorch}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=3000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--latency-frames", type=int, default=500)
    args = ap.parse_args()
    gcg = imports()
    if isinstance(gcg, str):
        print("SKIP: " + gcg)
        return SKIP
    torch, tensor, gtorch = gcg["torch"], gcg["tensor"], gcg["gtorch"]
    torch.backends.cudnn.benchmark = False
    model = make_model(torch)
    py = Python(torch, model)
    attached = []

    def attach(pre):
        attached.append(gtorch.attach(pre, model))

    frame = one_frame(tensor)
    print("bench-model-pipeline: %s, torch %s; 1280x720 NV12 in CUDA memory "
          "! cudagraphpreprocess 1x3x%dx%d float32 ! small CNN (10 logits); "
          "%d frames after %d" % (torch.cuda.get_device_name(),
                                  torch.__version__, SIZE, SIZE, args.frames,
                                  args.warmup))
    rows = []
    py_frame = py.frame
    app = AttachedPy(torch)
    specs = [
        ("(a) python", SOURCE + PRE + APPSINK, None, py_frame, PRE),
        ("(b) attached", SOURCE + PRE + FAKESINK, attach, None, PRE),
        ("(b) attached+py", SOURCE + PRE + APPSINK, attach, app.frame, PRE),
        ("(b) +results", SOURCE + PRE_RESULTS + FAKESINK, attach, None,
         PRE_RESULTS),
    ]
    status = 0
    for name, line, att, per_frame, pre in specs:
        try:
            fps, cpu, note = throughput(gcg, line, att, per_frame,
                                        args.frames, args.warmup)
            p50, p99 = latency(gcg, frame, att, per_frame or app.frame,
                               args.latency_frames, pre)
            rows.append((name, fps, cpu, p50, p99, note))
        except (gtorch.AttachError, RuntimeError, tensor.PipelineError) as e:
            rows.append((name, None, None, None, None, str(e)[:120]))
            status = 1
    fps, cpu, (p50, p99) = bound(torch, py, args.frames, args.warmup)
    rows.append(("(c) bound", fps, cpu, p50, p99, "CUDAGraph.replay() alone"))
    print("%-17s %9s %9s %8s %8s  %s" % ("row", "fps", "cpu_us/f", "p50_us",
                                         "p99_us", "notes"))
    for name, fps, cpu, p50, p99, note in rows:
        if fps is None:
            print("%-17s %9s %9s %8s %8s  %s" % (name, "-", "-", "-", "-",
                                                 note))
        else:
            print("%-17s %9.1f %9.1f %8.1f %8.1f  %s"
                  % (name, fps, cpu, p50, p99, note))
    by = {r[0]: r for r in rows if r[1] is not None}
    a, b, c = by.get("(a) python"), by.get("(b) attached"), by.get("(c) bound")
    if a and b and c:
        print("goals: (b)/(c) fps %.2f (>= 0.9), (b)/(a) fps %.2f (>= 3), "
              "(b) - (c) CPU %.1f us/frame (<= 30)"
              % (b[1] / c[1], b[1] / a[1], b[2] - c[2]))
    r = by.get("(b) +results")
    if r and c:
        print("goal: (b) +results - (c) CPU %.1f us/frame (<= 30), fps "
              "%.2f x (b)" % (r[2] - c[2], r[1] / b[1] if b else 0))
    return status


if __name__ == "__main__":
    sys.exit(main())
