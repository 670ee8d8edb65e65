# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""examples/analytics.py on a clip made here (H.264 in MP4 when x264enc
and a decoder are there, raw Y4M otherwise), CPU backend: a 2x2 grid of
ROIs over a solid colour must come back as four items whose boxes are the
grid cells, whose mean colour is that colour and whose sharpness is zero;
with OpenCV, the face detector path runs too (zero faces is fine: a test
pattern has none).  Exit 77 (skip) without PyGObject, NumPy or the stock
elements."""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "analytics.py")
RGB = (64, 128, 192)
W, H, FRAMES = 320, 240, 30

try:
    import gi
    import numpy  # noqa: F401

    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    print("SKIP: %s" % e)
    sys.exit(77)


def has(*factories):
    return all(Gst.ElementFactory.find(f) for f in factories)


def make_clip(folder):
    src = ("videotestsrc num-buffers=%d pattern=solid-color "
           "foreground-color=0xff%02x%02x%02x ! video/x-raw,format=I420,"
           "width=%d,height=%d,framerate=30/1" % ((FRAMES,) + RGB + (W, H)))
    if has("x264enc", "mp4mux", "qtdemux", "h264parse") and (
            has("avdec_h264") or has("openh264dec")):
        path = os.path.join(folder, "clip.mp4")
        tail = ("x264enc speed-preset=ultrafast ! video/x-h264,"
                "profile=constrained-baseline ! h264parse ! mp4mux")
    else:
        path = os.path.join(folder, "clip.y4m")
        tail = "y4menc"
    pipeline = Gst.parse_launch("%s ! %s ! filesink location=%s"
                                % (src, tail, path))
    pipeline.set_state(Gst.State.PLAYING)
    msg = pipeline.get_bus().timed_pop_filtered(
        30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    assert msg is not None and msg.type == Gst.MessageType.EOS, \
        "making the clip failed: %s" % (msg and msg.parse_error()[0].message)
    return path


def run(clip, *args):
    cmd = [sys.executable, EXAMPLE, clip, "--backend", "cpu",
           "--decoder", "decodebin"] + list(args)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    print(p.stdout + p.stderr)
    assert p.returncode == 0, "exit %d" % p.returncode
    return p.stdout


LINE = re.compile(r"frame (\d+) roi (-?\d+) box=\((\d+),(\d+),(\d+),(\d+)\) "
                  r"mean_rgb=\(([\d.]+),([\d.]+),([\d.]+)\) "
                  r"sharpness=([\d.]+) peak=\(([\d.]+),([\d.]+)\)")


def check_grid(out):
    summary = ("done: %d frames decoded by decodebin, %d tensors (%d ROI "
               "items) on the cpu backend in system memory"
               % (FRAMES, FRAMES, 4 * FRAMES))
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
        assert all(abs(m - c) <= 8 for m, c in zip(mean, RGB)), \
            "mean colour %r, %r expected" % (mean, RGB)
        assert float(r.group(10)) < 1e-3, "a solid colour is not sharp"
        assert box[0] <= px <= box[0] + box[2] and \
            box[1] <= py <= box[1] + box[3], "peak outside its ROI"
    assert "fps" in out and "us CPU per frame" in out


def main():
    Gst.init(None)
    if not has("videotestsrc", "decodebin", "videoconvert", "appsink",
               "appsrc", "cudagraphpreprocess"):
        print("SKIP: stock elements or the plugin missing")
        return 77
    with tempfile.TemporaryDirectory() as folder:
        clip = make_clip(folder)
        check_grid(run(clip, "--roi-grid", "2", "--print-frames", "2"))
        try:
            import cv2  # noqa: F401
            have_cv2 = True
        except ImportError:
            have_cv2 = False
        if have_cv2 and os.path.exists("/usr/share/opencv4/haarcascades"):
            out = run(clip, "--frames", "10", "--detect-every", "2")
            assert "done: 10 frames" in out
    return 0


if __name__ == "__main__":
    sys.exit(main())
