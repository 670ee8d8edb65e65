#!/usr/bin/env python3
# gst-cudagraph
# Copyright (C) 2026 gst-cudagraph authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The peer: the same two preprocessing workloads as bench-frame-chain,
written the way a PyTorch user would (tensor ops, F.interpolate), timed the
same way (frames queued back to back between two CUDA events), eager and
captured into a torch.cuda.CUDAGraph.

  tensor: 1080p NV12 -> 1x3x640x640 float32 RGB, letterboxed (symmetric,
          pad 0.5), bilinear, ImageNet mean/std
  video:  1080p NV12 -> 1280x720 RGBA uint8, bilinear

Both convert BT.709 limited range with the chroma of each 2x2 block, as
gst-cudagraph does (docs/frame-chain.md).  Given --ours=FILE (the output of
build/bench/bench-frame-chain from the same run), it also prints
torch / gst-cudagraph ratios.

Then the end-to-end peer of bench-pipeline: the same 1080p NV12 frame in
host memory (pinned and pageable) copied to the GPU and made into the
tensor, eager and with the preprocessing in a CUDA graph (the copy stays
outside: a graph cannot capture a copy from pageable memory), frames per
second and process CPU time per frame.  With bench-pipeline's output in
--ours it prints gst-cudagraph's fps for the same input (into CUDA
memory, graph, 4 in flight) and the ratio.

With --batch, the peer of bench-batch instead: 16 x 1080p NV12 frames on
the device into one 16x3x640x640 letterboxed tensor, and 16 x 4 ROIs into
64x3x224x224, eager and graphed; --ours=FILE takes bench-batch's output.
Needs a CUDA GPU and PyTorch;
exits 77 otherwise, like the C benchmarks.
"""
import argparse
import re
import sys
import time

IN_W, IN_H = 1920, 1080
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def nv12_to_rgb(torch, frame):
    """(H*W*3/2,) uint8 -> (1, 3, H, W) float32 in [0, 1]."""
    y = frame[: IN_W * IN_H].view(IN_H, IN_W).float()
    uv = frame[IN_W * IN_H:].view(IN_H // 2, IN_W // 2, 2).float()
    uv = uv.repeat_interleave(2, 0).repeat_interleave(2, 1)
    yl = (y - 16.0) * (1.0 / 219.0)
    cb = (uv[..., 0] - 128.0) * (1.0 / 224.0)
    cr = (uv[..., 1] - 128.0) * (1.0 / 224.0)
    r = yl + 1.5748 * cr
    g = yl - 0.1873 * cb - 0.4681 * cr
    b = yl + 1.8556 * cb
    return torch.stack((r, g, b)).clamp_(0.0, 1.0).unsqueeze(0)


def make_tensor_step(torch, F, frame, out):
    scale = min(640 / IN_W, 640 / IN_H)
    sw, sh = round(IN_W * scale), round(IN_H * scale)
    top, left = (640 - sh) // 2, (640 - sw) // 2
    mean = torch.tensor(MEAN, device=frame.device).view(1, 3, 1, 1)
    std = torch.tensor(STD, device=frame.device).view(1, 3, 1, 1)

    def step():
        rgb = nv12_to_rgb(torch, frame)
        small = F.interpolate(rgb, size=(sh, sw), mode="bilinear",
                              align_corners=False, antialias=False)
        out.fill_(0.5)
        out[:, :, top:top + sh, left:left + sw] = (small - mean) / std
    return step


def make_video_step(torch, F, frame, out):
    def step():
        rgb = nv12_to_rgb(torch, frame)
        small = F.interpolate(rgb, size=(720, 1280), mode="bilinear",
                              align_corners=False, antialias=False)
        out[..., :3] = (small[0] * 255.0).round_().clamp_(0, 255) \
            .permute(1, 2, 0).to(torch.uint8)
        out[..., 3] = 255
    return step


def time_frames(torch, run, frames, warmup):
    """GPU and host µs per frame, frames queued back to back."""
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    for _ in range(warmup):
        run()
    torch.cuda.synchronize()
    start.record()
    t0 = time.perf_counter()
    for _ in range(frames):
        run()
    host = time.perf_counter() - t0
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) * 1e3 / frames, host * 1e6 / frames


def graphed(torch, step, warmup):
    """Captures @step into a CUDA graph after a warm-up on a side stream, as
    torch's documentation prescribes."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(warmup):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    return graph.replay


def time_e2e(torch, run, frames, warmup):
    """Frames per second (the wall clock until the GPU is done) and process
    CPU µs per frame, frames queued back to back."""
    for _ in range(warmup):
        run()
    torch.cuda.synchronize()
    t0, cpu0 = time.perf_counter(), time.process_time()
    for _ in range(frames):
        run()
    torch.cuda.synchronize()
    wall = time.perf_counter() - t0
    return frames / wall, (time.process_time() - cpu0) * 1e6 / frames


def make_e2e_step(host, frame, step):
    """A frame from host memory: the stream-ordered upload, then @step (the
    eager ops, or a graph's replay) on the device copy."""
    def run():
        frame.copy_(host, non_blocking=True)
        step()
    return run


def parse_ours(path):
    """{'tensor': (gpu_us, host_us), 'video': ...} from bench-frame-chain."""
    ours = {}
    row = re.compile(r"^(tensor|video)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)")
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = row.match(line)
            if m:
                ours[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return ours


def parse_ours_pipeline(path):
    """{'pinned': fps, 'pageable': fps} from bench-pipeline's rows of system
    memory into CUDA memory, graph, 4 in flight."""
    ours = {}
    row = re.compile(r"^(pinned|pageable)\s*\|\s*CUDA\s*\|\s*graph\s*\|"
                     r"\s*4\s*\|\s*([\d.]+)")
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = row.match(line)
            if m:
                ours[m.group(1)] = float(m.group(2))
    return ours


def run_e2e(torch, F, dev, args):
    """The end-to-end table: host frame -> H2D -> tensor on the device."""
    gen = torch.Generator().manual_seed(1)
    pageable = torch.randint(0, 256, (IN_W * IN_H * 3 // 2,),
                             dtype=torch.uint8, generator=gen)
    hosts = {"pinned": pageable.pin_memory(), "pageable": pageable}
    frame = torch.empty(pageable.shape, device=dev, dtype=torch.uint8)
    step = make_tensor_step(torch, F, frame,
                            torch.empty((1, 3, 640, 640), device=dev))
    ours = parse_ours_pipeline(args.ours) if args.ours else {}

    print(f"peer-torch end to end: 1080p NV12 in host memory -> H2D -> "
          f"1x3x640x640 float32 on the GPU, {args.frames} frames per variant "
          f"after {args.warmup} warm-up, pipelined")
    print("input    | torch |      fps | CPU µs/f |  gcg fps | gcg/torch")
    replay = graphed(torch, step, args.warmup)
    for name, host in hosts.items():
        for launch, run in (("eager", step), ("graph", replay)):
            fps, cpu = time_e2e(torch, make_e2e_step(host, frame, run),
                                args.frames, args.warmup)
            gcg = ours.get(name)
            tail = (f"{gcg:8.1f} | {gcg / fps:8.2f}x" if gcg
                    else "       - |         -")
            print(f"{name:<8} | {launch:<5} | {fps:8.1f} | {cpu:8.1f} | "
                  f"{tail}")
    print("gcg: bench-pipeline's row of that input into CUDA memory, graph, "
          "in-flight 4 (from --ours)")


SOURCES, ROIS = 16, 4


def roi_boxes(i):
    """bench-batch's ROIs of source @i (batch 0), clipped to the frame."""
    boxes = []
    for r in range(ROIS):
        x, y = (r * 460 + i * 7) % 1400, (r * 230 + i * 5) % 700
        w, h = 200 + r * 60 + i * 4, 240 + r * 40 + i * 3
        boxes.append((x, y, min(w, IN_W - x), min(h, IN_H - y)))
    return boxes


def letterbox_into(torch, F, rgb, out, size, mean, std):
    """Resizes (N, 3, h, w) into the middle of out (N, 3, size, size)."""
    h, w = rgb.shape[-2:]
    scale = min(size / w, size / h)
    sw, sh = max(1, round(w * scale)), max(1, round(h * scale))
    top, left = (size - sh) // 2, (size - sw) // 2
    small = F.interpolate(rgb, size=(sh, sw), mode="bilinear",
                          align_corners=False, antialias=False)
    out.fill_(0.5)
    out[:, :, top:top + sh, left:left + sw] = (small - mean) / std


def make_batch_steps(torch, F, frames, dev):
    """bench-batch's two workloads on a (16, H*W*3/2) uint8 batch."""
    mean = torch.tensor(MEAN, device=dev).view(1, 3, 1, 1)
    std = torch.tensor(STD, device=dev).view(1, 3, 1, 1)
    lb_out = torch.empty((SOURCES, 3, 640, 640), device=dev)
    roi_out = torch.empty((SOURCES * ROIS, 3, 224, 224), device=dev)
    boxes = [roi_boxes(i) for i in range(SOURCES)]

    def rgb_batch():
        return torch.cat([nv12_to_rgb(torch, frames[i])
                          for i in range(SOURCES)])

    def letterbox():
        letterbox_into(torch, F, rgb_batch(), lb_out, 640, mean, std)

    def rois():
        rgb = rgb_batch()
        for i in range(SOURCES):
            for r, (x, y, w, h) in enumerate(boxes[i]):
                j = i * ROIS + r
                letterbox_into(torch, F, rgb[i:i + 1, :, y:y + h, x:x + w],
                               roi_out[j:j + 1], 224, mean, std)
    return {"letterbox": letterbox, "rois": rois}


def parse_ours_batch(path):
    """{'letterbox': (gpu_us, host_us), 'rois': ...} from bench-batch's
    "batch, graph" rows."""
    ours, name = {}, None
    head = re.compile(r"^(letterbox|rois): ")
    row = re.compile(r"^\s*batch, graph\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)")
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = head.match(line)
            if m:
                name = m.group(1)
            m = row.match(line)
            if m and name:
                ours[name] = (float(m.group(1)), float(m.group(2)))
    return ours


def run_batch(torch, F, dev, args):
    """The peer of bench-batch: 16 x 1080p NV12 on the device -> one batched
    tensor, eager and CUDA-graphed (fixed ROIs: a graph cannot follow
    moving ones, which bench-batch's do)."""
    gen = torch.Generator(device=dev).manual_seed(1)
    frames = torch.randint(0, 256, (SOURCES, IN_W * IN_H * 3 // 2),
                           device=dev, dtype=torch.uint8, generator=gen)
    ours = parse_ours_batch(args.ours) if args.ours else {}
    print(f"peer-torch batch: torch {torch.__version__}, "
          f"{torch.cuda.get_device_name(dev)}, {args.frames} batches per "
          f"variant after {args.warmup} warm-up, pipelined")
    print("workload  | eager GPU µs/b | eager host µs/b | graph GPU µs/b | "
          "graph host µs/b | gcg GPU µs/b | graph/gcg GPU")
    with torch.inference_mode():
        for name, step in make_batch_steps(torch, F, frames, dev).items():
            eager = time_frames(torch, step, args.frames, args.warmup)
            graph = time_frames(torch, graphed(torch, step, args.warmup),
                                args.frames, args.warmup)
            gcg = ours.get(name)
            tail = (f"{gcg[0]:12.1f} | {graph[0] / gcg[0]:12.2f}x" if gcg
                    else "           - |             -")
            print(f"{name:<9} | {eager[0]:14.1f} | {eager[1]:15.1f} | "
                  f"{graph[0]:14.1f} | {graph[1]:15.1f} | {tail}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--ours", help="bench-frame-chain output of this run "
                    "(with --batch: bench-batch's)")
    ap.add_argument("--batch", action="store_true",
                    help="the peer of bench-batch instead")
    args = ap.parse_args()
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        print(f"peer-torch: skipped: no PyTorch ({e})")
        return 77
    if not torch.cuda.is_available():
        print("peer-torch: skipped: no CUDA device")
        return 77

    dev = torch.device("cuda")
    if args.batch:
        run_batch(torch, F, dev, args)
        return 0
    gen = torch.Generator(device=dev).manual_seed(1)
    frame = torch.randint(0, 256, (IN_W * IN_H * 3 // 2,), device=dev,
                          dtype=torch.uint8, generator=gen)
    rows = {
        "tensor": make_tensor_step(torch, F, frame, torch.empty(
            (1, 3, 640, 640), device=dev)),
        "video": make_video_step(torch, F, frame, torch.empty(
            (720, 1280, 4), device=dev, dtype=torch.uint8)),
    }
    ours = parse_ours(args.ours) if args.ours else {}

    print(f"peer-torch: torch {torch.__version__}, "
          f"{torch.cuda.get_device_name(dev)}, {args.frames} frames per "
          f"variant after {args.warmup} warm-up, pipelined")
    print("output | torch eager | torch eager | torch graph | torch graph |"
          "  gcg graph |  gcg graph | eager/gcg | graph/gcg")
    print("       |  GPU µs/f   |  host µs/f  |  GPU µs/f   |  host µs/f  |"
          "  GPU µs/f  |  host µs/f |  GPU time | GPU time")
    with torch.inference_mode():
        for name, step in rows.items():
            eager = time_frames(torch, step, args.frames, args.warmup)
            graph = time_frames(torch, graphed(torch, step, args.warmup),
                                args.frames, args.warmup)
            gcg = ours.get(name)
            tail = (f"{gcg[0]:10.2f} | {gcg[1]:10.2f} | "
                    f"{eager[0] / gcg[0]:8.2f}x | {graph[0] / gcg[0]:7.2f}x"
                    if gcg else "         - |          - |         - |        -")
            print(f"{name:<6} | {eager[0]:11.2f} | {eager[1]:11.2f} | "
                  f"{graph[0]:11.2f} | {graph[1]:11.2f} | {tail}")
        run_e2e(torch, F, dev, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
