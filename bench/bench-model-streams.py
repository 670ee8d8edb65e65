#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The application view of issue 21: K streams of an H.264 clip decoded by
NVDEC, each preprocessed and put through the same small CNN, three ways in
one run:

  decode:   nvh264dec ! fakesink, K times (the bound: decoding alone);
  python:   nvh264dec ! cudagraphpreprocess ! appsink, K times, and one
            Python thread that pulls every stream's tensors and replays
            the model's PyTorch graph on each (today's way);
  attached: nvh264dec ! cudagraphpreprocess (the model attached with
            gcg.torch.attach, one per stream) ! fakesink, K times: one
            replay per frame for preprocess + model + copy-out, no Python
            per frame.
  batched:  the K decoders into one cudagraphbatch (batch-size K), the
            model attached for the batch (K items), postprocess=classify
            (top-1): one replay per batch for preprocess + model +
            postprocess, each stream's frames back on its own src_N with
            its results meta (issue 35), no Python per frame.

--network=resnet50 puts a torchvision ResNet-50 (fixed-seed weights, no
download) in place of the small CNN.

Columns: total fps over the K streams, CPU µs per frame (process CPU time,
every thread, over all frames), the ratio to decode-only.  Needs a CUDA
GPU with NVDEC, nvcodec's nvh264dec, PyTorch >= 2.8 and this build's
plugin; exits 77 without them.

    python3 bench/bench-model-streams.py CLIP.mp4 [--streams=8]
"""

import argparse
import importlib.util
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(1, os.path.join(HERE, "..", "python"))

SKIP = 77
DECODE = ("filesrc location={clip} ! qtdemux ! h264parse ! nvh264dec ! "
          "video/x-raw(memory:CUDAMemory) ! ")
PRE = ("cudagraphpreprocess name=pre{i} backend=cuda width=224 height=224 "
       "mean=0.485,0.456,0.406 std=0.229,0.224,0.225 ! ")
BATCH = ("cudagraphbatch name=b backend=cuda batch-size={k} width=224 "
         "height=224 letterbox=none mean=0.485,0.456,0.406 "
         "std=0.229,0.224,0.225 {post} ! queue ! fakesink sync=false ")


def load_single():
    """bench-model-pipeline.py's model and Python loop: one definition."""
    spec = importlib.util.spec_from_file_location(
        "bench_model_pipeline", os.path.join(HERE, "bench-model-pipeline.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def line(kind, clip, k):
    if kind == "batched":
        # As after a demuxer, a queue on every branch.
        return BATCH.format(k=k, post="postprocess=classify top-k=1") + \
            " ".join(DECODE.format(clip=clip) + "b.sink_%d b.src_%d ! queue ! "
                     "fakesink sync=false" % (i, i) for i in range(k))
    if kind == "batch-tensor":
        return BATCH.format(k=k, post="") + " ".join(
            DECODE.format(clip=clip) + "b.sink_%d" % i for i in range(k))
    parts = []
    for i in range(k):
        head = DECODE.format(clip=clip)
        if kind == "decode":
            parts.append(head + "fakesink sync=false")
        elif kind == "python":
            parts.append(head + PRE.format(i=i)
                         + "other/tensors(memory:CUDAMemory) ! "
                         "appsink name=sink%d sync=false" % i)
        else:
            parts.append(head + PRE.format(i=i) + "fakesink sync=false")
    return " ".join(parts)


def pull_all(p, tensor, k, per_frame):
    """Round-robin over the K appsinks until each is at EOS."""
    sinks = [p.app_sink("sink%d" % i) for i in range(k)]
    frames = 0
    while sinks:
        for sink in list(sinks):
            sample = sink.try_pull_sample(10 * tensor._ctgst.GST_SECOND)
            if sample is None:
                sinks.remove(sink)
                continue
            per_frame(sample, tensor)
            sample.release()
            frames += 1
    return frames


def run(tensor, torch, kind, clip, k, attach, per_frame, frames_per_stream):
    with tensor.Pipeline(line(kind, clip, k), sink=None) as p:
        if attach is not None and kind.startswith("batch"):
            attach(p.element("b"))
        elif attach is not None:
            for i in range(k):
                attach(p.element("pre%d" % i))
        t0, c0 = time.perf_counter(), time.process_time()
        p.play()
        if kind == "python":
            frames = pull_all(p, tensor, k, per_frame)
        else:
            single.wait_eos(p, tensor)
            frames = k * frames_per_stream
        torch.cuda.synchronize()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return frames / wall, cpu * 1e6 / frames, frames


def make_network(torch, network, single):
    """The small CNN, or a ResNet-50 with fixed-seed weights."""
    if network == "small":
        return single.make_model(torch)
    import torchvision
    torch.manual_seed(0)
    return torchvision.models.resnet50(weights=None).cuda().eval()


def count_frames(tensor, clip):
    """Frames of the clip, from one decode-only pass."""
    with tensor.Pipeline(DECODE.format(clip=clip)
                         + "appsink name=sink sync=false") as p:
        p.play()
        return sum(1 for _ in p)


def main():
    global single
    ap = argparse.ArgumentParser()
    ap.add_argument("clip")
    ap.add_argument("--streams", type=int, default=8)
    ap.add_argument("--network", choices=("small", "resnet50"),
                    default="small")
    ap.add_argument("--rows", default="decode,python,attached,batched",
                    help="rows to run, of decode, python, attached, batched "
                    "and batch-tensor (the batch with the model, no "
                    "postprocess, no per-stream src pads)")
    args = ap.parse_args()
    single = load_single()
    gcg = single.imports()
    if isinstance(gcg, str):
        print("SKIP: " + gcg)
        return SKIP
    torch, tensor, gtorch = gcg["torch"], gcg["tensor"], gcg["gtorch"]
    if not tensor.has_element("nvh264dec"):
        print("SKIP: no nvh264dec")
        return SKIP
    model = make_network(torch, args.network, single)
    py = single.Python(torch, model)
    keep = []
    n = count_frames(tensor, args.clip)
    print("bench-model-streams: %s, torch %s; %d x %s (%d frames each) ! "
          "nvh264dec ! cudagraphpreprocess 1x3x224x224 ! %s"
          % (torch.cuda.get_device_name(), torch.__version__, args.streams,
             os.path.basename(args.clip), n, args.network))
    attach = {"attached": lambda pre: keep.append(gtorch.attach(pre, model)),
              "batched": lambda b: keep.append(gtorch.attach(b, model)),
              "batch-tensor": lambda b: keep.append(gtorch.attach(b, model))}
    rows = []
    for kind in args.rows.split(","):
        rows.append((kind, run(tensor, torch, kind, args.clip, args.streams,
                               attach.get(kind),
                               py.frame if kind == "python" else None, n)))
    bound = rows[0][1][0]  # the first row's (decode, by default)
    print("%-9s %10s %10s %8s %9s" % ("row", "fps", "cpu_us/f", "frames",
                                      "x decode"))
    for name, (fps, cpu, frames) in rows:
        print("%-9s %10.1f %10.1f %8d %9.2f" % (name, fps, cpu, frames,
                                               fps / bound))
    return 0


if __name__ == "__main__":
    sys.exit(main())
