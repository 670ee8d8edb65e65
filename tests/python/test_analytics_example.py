# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""examples/analytics.py on a clip made here (H.264 in MP4), CPU backend,
with GStreamer through one binding (the argument):

  gi      PyGObject (exit 77, skip, where gi does not import)
  ctypes  gcg.tensor's ctypes driver, in a child process in which gi
          cannot be imported, as on a host without PyGObject

Either way a 2x2 grid of ROIs over a solid colour must come back as four
items whose boxes are the grid cells, whose mean colour is that colour and
whose sharpness is zero; an ERROR in the tensor chain mid-stream must end
the run with GStreamer's message (not hang with the feeding thread
blocked in a push); a clip whose frame size changes mid-stream (JPEG
parts of two sizes in multipart) must give the new size's grid from the
first frame of the new size on; the face detector runs through PyGObject
(zero faces is fine: a test pattern has none) and is refused, saying why,
through ctypes.  This script itself needs no PyGObject: the clip is made
through gcg.tensor's ctypes driver.  Exit 77 (skip, never a pass) when
NumPy, a stock element or OpenCV is missing: tools/install-deps.sh
installs them all.

  gpu     (gpu suite) the checked-in clip of the same colour through
          nvh264dec -> CUDA backend -> PyTorch, ctypes driver, as on the
          GPU host: the same checks, the tensor in CUDA memory, every
          frame read in place from NVDEC's CUDA memory, graph replays;
          then --model compare: TinyNet replayed from Python and attached
          to the element (gcg.torch) give each ROI the same class.
          Exit 77 without PyTorch with CUDA or without nvh264dec (1 under
          GCG_TEST_REQUIRE_GPU=1, as tools/gpu-host-run.sh sets)."""
import os
import re
import runpy
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "analytics.py")
RGB = (64, 128, 192)
W, H, FRAMES = 320, 240, 30
FAIL_AFTER = 5
H264_CLIP = os.path.join(HERE, "..", "data", "analytics",
                         "solid-64-128-192.mp4")  # RGB, W x H, FRAMES


def child(argv):
    """`--child [--no-gi] [--fail-after N] EXAMPLE-ARGS...`: the example's
    main() in this process, gi made unimportable first with --no-gi, an
    identity that fails after N buffers put in front of
    cudagraphpreprocess with --fail-after."""
    if argv[:1] == ["--no-gi"]:
        sys.modules["gi"] = None  # from here on, `import gi` fails
        argv = argv[1:]
    fail_after = None
    if argv[:1] == ["--fail-after"]:
        fail_after, argv = int(argv[1]), argv[2:]
    example = runpy.run_path(EXAMPLE, run_name="analytics")
    if fail_after is not None:
        line = example["launch_line"]
        example["main"].__globals__["launch_line"] = lambda args: line(
            args).replace("block=true !", "block=true ! identity "
                          "error-after=%d !" % fail_after)
    sys.argv = [EXAMPLE] + argv
    example["main"]()
    print("gi imported: %s" % (sys.modules.get("gi") is not None))
    return 0


if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    sys.exit(child(sys.argv[2:]))

import _pipeline  # noqa: E402
from gcg import tensor  # noqa: E402


def run_to_end(line, timeout=30):
    """Play @line until EOS; AssertionError on an ERROR or the timeout."""
    with tensor.Pipeline(line, sink=None) as pipeline:
        pipeline.play()
        deadline = time.monotonic() + timeout
        while True:
            msg = pipeline.pop_message(max(0, deadline - time.monotonic()))
            assert msg is not None, "%r: no EOS in %d s" % (line, timeout)
            assert msg.error is None, "%r: %s" % (line, msg.error[1])
            if msg.type == tensor._ctgst.GST_MESSAGE_EOS:
                return


def has(*factories):
    return all(tensor.has_element(f) for f in factories)


# What the checks need beyond the plugin, with the Debian package that
# has it (all in tools/install-deps.sh).
ELEMENTS = {
    "videotestsrc": "gstreamer1.0-plugins-base",
    "decodebin": "gstreamer1.0-plugins-base",
    "videoconvert": "gstreamer1.0-plugins-base",
    "appsink": "gstreamer1.0-plugins-base",
    "appsrc": "gstreamer1.0-plugins-base",
    "concat": "gstreamer1.0 (core)",
    "identity": "gstreamer1.0 (core)",
    "x264enc": "gstreamer1.0-plugins-ugly",
    "avdec_h264": "gstreamer1.0-libav",
    "mp4mux": "gstreamer1.0-plugins-good",
    "qtdemux": "gstreamer1.0-plugins-good",
    "h264parse": "gstreamer1.0-plugins-bad",
    "jpegenc": "gstreamer1.0-plugins-good",
    "jpegdec": "gstreamer1.0-plugins-good",
    "multipartmux": "gstreamer1.0-plugins-good",
    "multipartdemux": "gstreamer1.0-plugins-good",
    "cudagraphpreprocess": "this project's plugin",
}
HAAR = "/usr/share/opencv4/haarcascades"


def missing(binding):
    """What this run lacks, as `thing (package)`: empty when it can run."""
    lack = ["%s (%s)" % (f, p) for f, p in ELEMENTS.items() if not has(f)]
    if binding == "gi":
        try:
            import cv2  # noqa: F401
        except ImportError:
            lack.append("OpenCV (python3-opencv)")
        if not os.path.isdir(HAAR):
            lack.append("%s (opencv-data)" % HAAR)
    return lack


def make_clip(folder):
    """H.264 in MP4: what a user feeds the example (a raw Y4M clip is
    type-found as text by decodebin, so it is no fallback)."""
    path = os.path.join(folder, "clip.mp4")
    run_to_end("videotestsrc num-buffers=%d pattern=solid-color "
               "foreground-color=0xff%02x%02x%02x ! video/x-raw,format=I420,"
               "width=%d,height=%d,framerate=30/1 ! x264enc "
               "speed-preset=ultrafast ! video/x-h264,"
               "profile=constrained-baseline ! h264parse ! mp4mux ! "
               "filesink location=%s" % ((FRAMES,) + RGB + (W, H, path)))
    return path


def run(binding, clip, *args, fail_after=None, status=0, backend="cpu",
        decoder="decodebin"):
    """The example's output (stdout and stderr), its exit status checked:
    through PyGObject, or through ctypes in a process where gi cannot be
    imported (so the example's `--binding auto` must fall back)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child"]
    if binding == "ctypes":
        cmd.append("--no-gi")
    if fail_after is not None:
        cmd += ["--fail-after", str(fail_after)]
    cmd += [clip, "--backend", backend, "--decoder", decoder] + list(args)
    if binding == "gi":
        cmd += ["--binding", "gi"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    out = p.stdout + p.stderr
    print(out)
    assert p.returncode == status, "exit %d, %d expected" % (p.returncode,
                                                              status)
    if status == 0:
        name = "PyGObject" if binding == "gi" else "ctypes"
        assert "GStreamer through %s" % name in out
        assert "gi imported: %s" % (binding == "gi") in out
    return out


LINE = re.compile(r"frame (\d+) roi (-?\d+) box=\((\d+),(\d+),(\d+),(\d+)\) "
                  r"mean_rgb=\(([\d.]+),([\d.]+),([\d.]+)\) "
                  r"sharpness=([\d.]+) peak=\(([\d.]+),([\d.]+)\)")


STATS = re.compile(r"cudagraphpreprocess: (\d+) graph captures, (\d+) "
                   r"replays, (\d+) eager frames; (\d+) of (\d+) frames "
                   r"read in place from CUDA memory")


def stats(out):
    """The element's counters the example prints: captures, replays,
    eager frames, frames read in place, frames."""
    found = STATS.search(out)
    assert found, "no counters of cudagraphpreprocess"
    return tuple(int(n) for n in found.groups())


def check_grid(out, where="cpu backend in system memory, NumPy",
               decoder="decodebin", tolerance=8):
    summary = ("done: %d frames decoded by %s, %d tensors (%d ROI items) "
               "on the %s" % (FRAMES, decoder, FRAMES, 4 * FRAMES, where))
    assert summary in out, "no \"%s\"" % summary
    rows = [LINE.match(line) for line in out.splitlines()]
    rows = [r for r in rows if r]
    assert len(rows) == 2 * 4, "%d result lines, 8 expected" % len(rows)
    cells = {(c * W // 2, r * H // 2, W // 2, H // 2)
             for r in range(2) for c in range(2)}
    for r in rows:
        roi = int(r.group(2))
        box = tuple(int(r.group(i)) for i in range(3, 7))
        mean = [float(r.group(i)) for i in range(7, 10)]
        px, py = float(r.group(11)), float(r.group(12))
        assert box in cells, "box %r is not a grid cell" % (box,)
        assert box == sorted(cells, key=lambda b: (b[1], b[0]))[roi]
        assert all(abs(m - c) <= tolerance for m, c in zip(mean, RGB)), \
            "mean colour %r, %r expected" % (mean, RGB)
        assert float(r.group(10)) < 1e-3, "a solid colour is not sharp"
        assert box[0] <= px <= box[0] + box[2] and \
            box[1] <= py <= box[1] + box[3], "peak outside its ROI"
    assert "fps" in out and "us CPU per frame" in out


def check_error_mid_stream(binding, clip):
    out = run(binding, clip, "--roi-grid", "2", "--print-frames", "0",
              fail_after=FAIL_AFTER, status=1)
    assert "analytics: ERROR from identity0: Failed after iterations" in out


FADE = re.compile(r"frame (\d+) roi \d+ .*mean_rgb=\((-?[\d.]+),(-?[\d.]+),"
                  r"(-?[\d.]+)\)")


def check_fade_in(binding, clip):
    """--fade-in 4: per-frame brightness from Python (a GcgParamsMeta on
    each pushed buffer), -1 + n / 4 for frame n < 4: a float tensor holds
    the colour less (1 - n / 4) of full scale (not clipped), frame 4 the
    colour itself."""
    out = run(binding, clip, "--roi-grid", "2", "--print-frames", "5",
              "--fade-in", "4")
    means = {}
    for r in (FADE.match(line) for line in out.splitlines()):
        if r:
            means.setdefault(int(r.group(1)),
                             [float(r.group(i)) for i in range(2, 5)])
    for frame in (0, 2, 4):
        colour = [c - (1.0 - frame / 4) * 255 for c in RGB]
        assert frame in means, "no results of frame %d" % frame
        assert all(abs(m - c) <= 8 for m, c in zip(means[frame], colour)), \
            "frame %d: mean colour %r, %r expected" % (frame, means[frame],
                                                       colour)


def make_resizing_clip(folder, first=(64, 48), second=(96, 80), n=5):
    """@n JPEG frames of @first then @n of @second, the solid colour, in
    one multipart stream: the decoder's caps change mid-stream."""
    path = os.path.join(folder, "resizing.mjpeg")
    src = ("videotestsrc num-buffers=%d pattern=solid-color "
           "foreground-color=0xff%02x%02x%02x ! video/x-raw,format=I420,"
           "width=%d,height=%d,framerate=30/1 ! jpegenc ! c. ")
    run_to_end("concat name=c ! multipartmux ! filesink location=%s " % path
               + src % ((n,) + RGB + first) + src % ((n,) + RGB + second))
    return path


def check_caps_change(binding, folder):
    """The appsrc takes the decoder's new caps and the ROIs are made again
    for them at once, not at the next --detect-every frame (3 here: frame
    5, the first of the new size, is not one)."""
    clip = make_resizing_clip(folder)
    out = run(binding, clip, "--roi-grid", "2", "--print-frames", "10",
              "--detect-every", "3")
    assert "done: 10 frames decoded by decodebin, 10 tensors (40 ROI items)" \
        in out
    rows = [LINE.match(line) for line in out.splitlines()]
    rows = [r for r in rows if r]
    assert len(rows) == 40, "%d result lines, 40 expected" % len(rows)
    for r in rows:
        w, h = (64, 48) if int(r.group(1)) < 5 else (96, 80)
        roi = int(r.group(2))
        box = tuple(int(r.group(i)) for i in range(3, 7))
        cell = ((roi % 2) * w // 2, (roi // 2) * h // 2, w // 2, h // 2)
        assert box == cell, "frame %s roi %d: box %r, %r expected" % (
            r.group(1), roi, box, cell)
        mean = [float(r.group(i)) for i in range(7, 10)]
        # JPEG's full-range YCbCr against the test source's BT.601 range
        # moves the colour a little more than H.264 does.
        assert all(abs(m - c) <= 12 for m, c in zip(mean, RGB)), \
            "mean colour %r, %r expected" % (mean, RGB)


def check_detector(binding, clip):
    """The face detector through PyGObject (missing() made sure OpenCV is
    there); through ctypes its refusal, which names PyGObject."""
    if binding == "gi":
        out = run(binding, clip, "--frames", "10", "--detect-every", "2")
        assert "done: 10 frames" in out
    else:
        out = run(binding, clip, "--frames", "10", status=1)
        assert "the face detector needs" in out and "--roi-grid" in out
        if binding == "ctypes":
            assert "PyGObject" in out


def gpu_skip():
    """77 (skipped), or 1 (failed) under GCG_TEST_REQUIRE_GPU, which
    tools/gpu-host-run.sh sets: on the GPU host nothing may skip."""
    if os.environ.get("GCG_TEST_REQUIRE_GPU", "") not in ("", "0"):
        print("FAIL: GCG_TEST_REQUIRE_GPU is set and the GPU test cannot run")
        return 1
    return 77


def main_gpu():
    """NVDEC -> CUDA backend -> PyTorch through the ctypes driver."""
    try:
        import torch
    except ImportError:
        print("SKIP: no PyTorch")
        return gpu_skip()
    if not torch.cuda.is_available():
        print("SKIP: PyTorch has no CUDA device")
        return gpu_skip()
    _pipeline.init()
    if not has("urisourcebin", "parsebin", "qtdemux", "h264parse",
               "nvh264dec", "appsink", "appsrc", "cudagraphpreprocess"):
        print("SKIP: nvh264dec, the stock elements or the plugin missing")
        return gpu_skip()
    out = run("ctypes", H264_CLIP, "--roi-grid", "2", "--print-frames", "2",
              backend="cuda", decoder="nvdec")
    # The decoder's colour matrix may not be the one the clip was made
    # with (BT.601 vs BT.709 for a stream that does not say): up to 7 off.
    check_grid(out, "cuda backend in CUDA memory, PyTorch (DLPack)",
               "nvdec", tolerance=10)
    captures, replays, eager, in_place, frames = stats(out)
    assert (eager, in_place, frames) == (0, FRAMES, FRAMES), \
        "eager frames %d, %d of %d read in place; 0, all expected" % (
            eager, in_place, frames)
    assert 1 <= captures < FRAMES // 2 and captures + replays == FRAMES, \
        "%d captures, %d replays: captured once, then replayed" % (
            captures, replays)
    check_model_compare()
    return 0


CLASS_LINE = re.compile(r"frame (\d+) roi (-?\d+) box=\((\d+),(\d+),(\d+),"
                        r"(\d+)\) class=(\d+) score=([\d.]+)")


def check_model_compare():
    """--model compare: TinyNet replayed from Python, then attached to
    the element; the same class and score for every ROI of every frame
    printed, one capture each, and both rows of the comparison."""
    frames = 6
    out = run("ctypes", H264_CLIP, "--roi-grid", "2", "--print-frames",
              str(frames), "--model", "compare", backend="cuda",
              decoder="nvdec")
    rows = [CLASS_LINE.match(line) for line in out.splitlines()]
    rows = [r.groups() for r in rows if r]
    assert len(rows) == 2 * frames * 4, "%d class lines, %d expected" % (
        len(rows), 2 * frames * 4)
    net_rows, attached_rows = rows[:frames * 4], rows[frames * 4:]
    # The clip's frames are byte-identical, so every ROI of every frame has
    # one right answer: the attached network gives it on every frame, and
    # the graph replayed from Python the same.  (Later frames of --model
    # net once disagreed: the example's GraphedNet did not keep the
    # network, whose freed weights the graph went on reading.)
    for attached in attached_rows:
        assert attached[6:] == attached_rows[0][6:], (attached,
                                                      attached_rows[0])
    for net, attached in zip(net_rows, attached_rows):
        assert net[:7] == attached[:7], "%r != %r" % (net, attached)
        # Printed with 4 decimals: one rounding step apart at most.
        assert abs(float(net[7]) - float(attached[7])) <= 1.5e-4, \
            (net, attached)
    for mode in ("PyTorch graph replayed from Python",
                 "network attached to the element"):
        assert "in CUDA memory, %s" % mode in out, mode
    counters = [tuple(int(n) for n in m.groups())
                for m in STATS.finditer(out)]
    assert [c[:3] for c in counters] == [(1, FRAMES - 1, 0)] * 2, counters
    assert re.search(r"  net +[\d.]+ fps", out) and \
        re.search(r"  attached +[\d.]+ fps", out), "no comparison rows"


def main():
    binding = sys.argv[1] if len(sys.argv) > 1 else "gi"
    assert binding in ("gi", "ctypes", "gpu"), \
        "usage: %s gi|ctypes|gpu" % sys.argv[0]
    if binding == "gpu":
        return main_gpu()
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("SKIP: no NumPy")
        return 77
    if binding == "gi" and _pipeline.import_gst()[0] is None:
        print("SKIP: %s" % _pipeline.import_gst()[1])
        return 77
    _pipeline.init()
    lack = missing(binding)
    if lack:
        print("SKIP: missing %s; tools/install-deps.sh installs them"
              % ", ".join(lack))
        return 77
    with tempfile.TemporaryDirectory() as folder:
        clip = make_clip(folder)
        out = run(binding, clip, "--roi-grid", "2", "--print-frames", "2")
        check_grid(out)
        assert stats(out) == (0, 0, FRAMES, 0, FRAMES)
        check_error_mid_stream(binding, clip)
        check_caps_change(binding, folder)
        check_fade_in(binding, clip)
        check_detector(binding, clip)
        out = run(binding, clip, "--model", "attached", status=2)
        assert "--model attached needs PyTorch with CUDA and the CUDA " \
            "backend" in out, "no refusal of --model attached"
    return 0


if __name__ == "__main__":
    sys.exit(main())
