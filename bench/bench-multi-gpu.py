#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""More than one GPU (issue 40): K NVDEC streams of an H.264 clip per
GPU, on device 0, on device 1 and on both at once (one pipeline, one
process), three ways:

  decode:   nvh264deviceNdec ! fakesink, K per GPU (the bound; nvcodec's
            decoder of GPU N, nvh264dec for the first);
  separate: nvh264deviceNdec ! cudagraphpreprocess
            cuda-device-id=N ! other/tensors(memory:CUDAMemory) !
            fakesink, K per GPU;
  batch:    the K decoders of a GPU into one cudagraphbatch
            cuda-device-id=N batch-size=K ! other/tensors(memory:
            CUDAMemory) ! fakesink per GPU.

Steady state: each configuration runs on the clip and on the clip
repeated --repeat times (H.264 byte-streams concatenated: each copy
begins with its parameter sets and an IDR frame), and the fps are the
long run's extra frames over its extra time, so start-up (contexts,
decoder sessions, captures) and the drain cancel out, as
bench-model-pipeline.py's two runs do.  Each is repeated --reps times;
the median is printed with the spread (min-max).  Then the ratios of the
goals: both GPUs / one GPU (device 0), batch / separate on device 1,
device 1 / device 0.

Needs nvcodec's nvh264dec and this build's plugin (GST_PLUGIN_PATH); no
PyTorch, no PyGObject (python/gcg/_ctgst.py drives GStreamer).  Exits 77
without nvh264dec, or with one GPU when --devices names two.

    python3 bench/bench-multi-gpu.py CLIP.h264 [--repeat=3] \
        [--streams=8] [--reps=2] [--rows=decode,separate,batch]

CLIP is an H.264 byte-stream (Annex B), e.g. 1080p made with x264enc:
docs/scaling.md says how the figures there were made.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(1, os.path.join(HERE, "..", "python"))

from gcg import _ctgst  # noqa: E402  (after the path above)

SKIP = 77
DECODE = ("filesrc location={clip} ! h264parse ! {dec} ! "
          "video/x-raw(memory:CUDAMemory)")
# nvcodec registers one H.264 decoder element per GPU: nvh264dec on the
# first, nvh264deviceNdec on the others; their cuda-device-id is
# read-only ("nvh264dec cuda-device-id=1" decodes on the first GPU).
MAX_DECODERS = 16
DECODERS = {}
OPS = ("backend=cuda cuda-device-id={d} width=224 height=224 "
       "mean=0.485,0.456,0.406 std=0.229,0.224,0.225")
TENSORS = "other/tensors(memory:CUDAMemory) ! fakesink sync=false"


def find_decoders():
    """{device: nvcodec's H.264 decoder element there}."""
    for i in range(MAX_DECODERS):
        name = "nvh264dec" if i == 0 else "nvh264device%ddec" % i
        if not _ctgst.has_element(name):
            continue
        with _ctgst.Pipeline("%s name=d ! fakesink" % name, sink=None) as p:
            DECODERS[p.element("d").get_property("cuda-device-id")] = name
    return DECODERS


def branch(kind, clip, d, k):
    """The launch line of @kind's K streams on device @d."""
    parts = []
    if kind == "batch":
        parts.append("cudagraphbatch name=b{d} batch-size={k} {ops} ! {t}"
                     .format(d=d, k=k, ops=OPS.format(d=d), t=TENSORS))
    for i in range(k):
        head = DECODE.format(clip=clip, dec=DECODERS[d])
        if kind == "decode":
            parts.append(head + " ! fakesink sync=false")
        elif kind == "separate":
            parts.append("%s ! cudagraphpreprocess name=p%d_%d %s ! %s"
                         % (head, d, i, OPS.format(d=d), TENSORS))
        else:
            parts.append("%s ! b%d.sink_%d" % (head, d, i))
    return " ".join(parts)


def run_once(kind, clip, devices, k):
    """(seconds from PLAYING to EOS, in-place inputs, frames) of one run;
    the counts come from the single-frame elements' cudagraph-stats."""
    line = " ".join(branch(kind, clip, d, k) for d in devices)
    in_place = frames = 0
    with _ctgst.Pipeline(line, sink=None) as p:
        t0 = time.perf_counter()
        p.play()
        while True:
            msg = p.pop_message(60)
            if msg is None:
                raise RuntimeError("no EOS within 60 s: %s" % line)
            if msg.error is not None:
                raise RuntimeError("pipeline error from %s: %s"
                                   % (msg.error[0], msg.error[1]))
            ip = (msg.get_uint64("in-place-inputs")
                  if msg.name == "cudagraph-stats" else None)
            if ip is not None:
                in_place += ip
                frames += msg.get_uint64("frames") or 0
            done = msg.type == _ctgst.GST_MESSAGE_EOS
            msg.release()
            if done:
                break
        wall = time.perf_counter() - t0
    return wall, in_place, frames


def steady_fps(kind, clips, lengths, devices, k):
    """Frames per second over every stream, start-up excluded: the long
    clip's extra frames over its extra time."""
    short = run_once(kind, clips[0], devices, k)
    long = run_once(kind, clips[1], devices, k)
    extra = (lengths[1] - lengths[0]) * k * len(devices)
    return extra / (long[0] - short[0]), long[1], long[2]


def count_frames(clip):
    """Frames of @clip, from a decode-only pass on device 0."""
    line = (DECODE.format(clip=clip, dec=DECODERS[0])
            + " ! appsink name=sink sync=false")
    with _ctgst.Pipeline(line) as p:
        p.play()
        return sum(1 for _ in p)


def gpu_names():
    """nvidia-smi's names of the GPUs, or []."""
    try:
        out = os.popen("nvidia-smi --query-gpu=name --format=csv,noheader")
        return [n.strip() for n in out.read().splitlines() if n.strip()]
    except OSError:
        return []


def measure(args, lengths, configs):
    """{(kind, devices): [fps...]} and in-place notes, @configs in turn,
    all of them --reps times (interleaved, so drift spreads evenly)."""
    fps, notes = {}, {}
    for _ in range(args.reps):
        for kind, devices in configs:
            f, in_place, frames = steady_fps(kind, args.clips, lengths,
                                             devices, args.streams)
            fps.setdefault((kind, devices), []).append(f)
            # As it goes, so that a run cut short still says something.
            print("# %s on %s: %.1f fps" % (kind, "+".join(map(str, devices)),
                                            f), flush=True)
            if frames:
                notes[(kind, devices)] = "in place %d/%d" % (in_place, frames)
    return fps, notes


def print_table(fps, notes, configs):
    print("%-9s %-8s %10s %17s  %s" % ("row", "devices", "fps", "spread",
                                       "note"))
    for kind, devices in configs:
        v = fps[(kind, devices)]
        print("%-9s %-8s %10.1f %8.1f-%8.1f  %s"
              % (kind, "+".join(map(str, devices)), statistics.median(v),
                 min(v), max(v), notes.get((kind, devices), "")))


def ratio(fps, a, b, label, goal=None):
    if a not in fps or b not in fps:
        return
    r = statistics.median(fps[a]) / statistics.median(fps[b])
    met = "" if goal is None else ("  (goal >= %.2f: %s)"
                                   % (goal, "met" if r >= goal else "NOT met"))
    print("%-40s %6.3f%s" % (label, r, met))


def print_ratios(fps, rows):
    for kind in rows:
        ratio(fps, (kind, (0, 1)), (kind, (0,)),
              "%s: two GPUs / one GPU (device 0)" % kind,
              None if kind == "decode" else 1.9)
        ratio(fps, (kind, (1,)), (kind, (0,)),
              "%s: device 1 / device 0" % kind)
    ratio(fps, ("batch", (1,)), ("separate", (1,)),
          "batch / separate on device 1", 0.95)
    ratio(fps, ("batch", (0,)), ("separate", (0,)),
          "batch / separate on device 0", 0.95)
    for kind in rows:
        if kind != "decode":
            ratio(fps, (kind, (0, 1)), ("decode", (0, 1)),
                  "%s / decode on both GPUs" % kind)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("clip", help="an H.264 byte-stream")
    ap.add_argument("--repeat", type=int, default=3,
                    help="copies of the clip in the long run")
    ap.add_argument("--streams", type=int, default=8,
                    help="streams per GPU (K)")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--rows", default="decode,separate,batch")
    ap.add_argument("--devices", default="0,1",
                    help="the two devices compared, first one first")
    args = ap.parse_args()
    if not _ctgst.has_element("nvh264dec"):
        print("SKIP: no nvh264dec")
        return SKIP
    names = gpu_names()
    devs = tuple(int(d) for d in args.devices.split(","))
    if len(names) < len(devs):
        print("SKIP: %d GPU(s), %d asked for" % (len(names), len(devs)))
        return SKIP
    found = find_decoders()
    if any(d not in found for d in devs):
        print("SKIP: H.264 decoders on devices %s only"
              % sorted(found.items()))
        return SKIP
    with tempfile.TemporaryDirectory() as tmp:
        args.clips = [args.clip, os.path.join(tmp, "long.h264")]
        with open(args.clips[1], "wb") as out:
            for _ in range(args.repeat):
                with open(args.clip, "rb") as f:
                    shutil.copyfileobj(f, out)
        return bench(args, names, devs)


def bench(args, names, devs):
    lengths = [count_frames(c) for c in args.clips]
    if lengths[1] != args.repeat * lengths[0]:
        print("the clip repeated %d times gives %d frames, not %d x %d"
              % (args.repeat, lengths[1], args.repeat, lengths[0]))
        return 1
    rows = args.rows.split(",")
    configs = [(kind, d) for kind in rows
               for d in [(devs[0],), (devs[1],), devs]]
    print("bench-multi-gpu: %s; %d streams per GPU of %s (%d - %d frames) "
          "! %s ! cudagraphpreprocess|cudagraphbatch 3x224x224 "
          "float32 in CUDA memory; median of %d, steady state"
          % (", ".join(names), args.streams,
             os.path.basename(args.clip), lengths[1], lengths[0],
             "|".join(DECODERS[d] for d in devs), args.reps))
    fps, notes = measure(args, lengths, configs)
    print_table(fps, notes, configs)
    print_ratios(fps, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
