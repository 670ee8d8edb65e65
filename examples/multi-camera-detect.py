#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Several cameras, one detector, each camera's boxes on its own frames.

    camera i: a clip -> decoder (nvh264dec into CUDA memory where there is
              one, decodebin otherwise), or with --synthetic generated
              frames with coloured rectangles whose places are known
      -> cudagraphbatch sink_i: every camera's frame of one moment in one
         batch (batch-size = the cameras), letterboxed into an S×S tensor
      -> the detector attached to the batch (gcg.torch.attach): the batch's
         preprocessing, the network and the detection postprocess (score
         threshold, per-class NMS, boxes mapped back to each camera's
         pixels) are one CUDA graph replay per batch
      -> cudagraphbatch src_i: camera i's frames, unchanged and in order,
         each with its results (GstCudaGraphResultsMeta, and from
         GStreamer 1.24 GstAnalyticsRelationMeta)
      -> per camera: objectdetectionoverlay (GStreamer >= 1.24) and an
         encoder into DIR/camera-i.mp4 with --output DIR where both are
         there, and an appsink that keeps the camera's last frame only.

No Python runs per frame: Python builds the line, attaches the network and
waits for the end of the streams; then it reads each camera's last frame
(its results through ctypes: gcg.launch.read_results) and prints what was
found.  With --synthetic the detector is `BoxFinder` (below), a tiny
network that finds the rectangles exactly, so the boxes printed are
checked against where the rectangles were drawn; --snapshot DIR writes
each camera's last frame with its boxes drawn as a PNG.

The detector gives the common single-head layout (YOLOv8's): per item
(4 + classes) rows × candidates, boxes as centre and size in the tensor's
pixels.  `BoxFinder` marks the top-left corner of each region of one
saturated colour (red, green, blue: the classes) and measures its width
and height with cumulative minimums, one candidate per 8×8 cell and
class; `--model cnn` is a small convolutional network with fixed-seed
weights in the same layout (its boxes mean nothing: put a trained
detector there).  `--model FILE` loads a TorchScript or torch.export
file instead (as `python3 -m gcg.launch` does).

    python3 examples/multi-camera-detect.py --synthetic 4
    python3 examples/multi-camera-detect.py a.mp4 b.mp4 c.mp4 --output out

Needs PyTorch >= 2.8 with CUDA, NumPy (--synthetic), the plugin built
(GST_PLUGIN_PATH=build/gst) and GStreamer's libraries; not PyGObject.
"""

import argparse
import ctypes
import os
import struct
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(1, os.path.join(HERE, "..", "python"))
from gcg import _ctgst, launch  # noqa: E402

LABELS = ("red", "green", "blue")
COLOURS = ((255, 0, 0), (0, 255, 0), (0, 0, 255))
BACKGROUND = 32
# Each synthetic camera's frame size: the batch letterboxes each its own way.
SIZES = ((320, 240), (256, 256), (400, 224), (288, 320), (352, 288),
         (240, 320), (320, 180), (384, 256))
FPS = 30


def log(text):
    print("multi-camera-detect: " + text, flush=True)


# --- the detectors ---------------------------------------------------------------


def make_box_finder(torch, classes=len(LABELS), cell=8, min_side=4):
    """The tiny detector of --synthetic: for each class c, the pixels
    whose channel c is above one half and the other two below (the
    tensor is 0-1: scale 1/255), the top-left corner of every region of
    them, and its width and height (distance to the next pixel outside,
    right and down).  Candidates: one per class and 8×8 cell, the cell's
    corner (score 1) or nothing (0).  Output (N, 4 + classes, classes ×
    cells): cx, cy, w, h in tensor pixels, then one score row per class."""
    nn, F = torch.nn, torch.nn.functional

    class BoxFinder(nn.Module):
        def forward(self, x):
            n, _, h, w = x.shape
            hi = x > 0.5
            masks = torch.stack([hi[:, c] & ~hi[:, (c + 1) % 3]
                                 & ~hi[:, (c + 2) % 3]
                                 for c in range(classes)], 1).float()
            above = F.pad(masks, (0, 0, 1, 0))[:, :, :h, :]
            left = F.pad(masks, (1, 0, 0, 0))[:, :, :, :w]
            corner = masks * (1 - above) * (1 - left)
            cols = torch.arange(w, device=x.device, dtype=x.dtype)
            rows = torch.arange(h, device=x.device, dtype=x.dtype)
            # The next column (row) outside the region, from each pixel.
            z = torch.where(masks > 0, torch.full_like(masks, w), cols)
            right = torch.flip(torch.cummin(torch.flip(z, [3]), 3).values, [3])
            z = torch.where(masks > 0, torch.full_like(masks, h),
                            rows[:, None])
            down = torch.flip(torch.cummin(torch.flip(z, [2]), 2).values, [2])
            bw, bh = right - cols, down - rows[:, None]
            score, at = F.max_pool2d(corner, cell, return_indices=True)
            at = at.flatten(2)
            score = score.flatten(2)
            bw = bw.flatten(2).gather(2, at)
            bh = bh.flatten(2).gather(2, at)
            x0, y0 = (at % w).to(x.dtype), (at // w).to(x.dtype)
            score = score * ((bw >= min_side) & (bh >= min_side)).to(x.dtype)
            k = score.shape[2]
            boxes = torch.stack([x0 + bw / 2, y0 + bh / 2, bw, bh], 1)
            boxes = boxes.flatten(2)  # (n, 4, classes × k), class-major
            scores = torch.zeros(n, classes, classes * k, device=x.device,
                                 dtype=x.dtype)
            for c in range(classes):
                scores[:, c, c * k:(c + 1) * k] = score[:, c]
            return torch.cat([boxes, scores], 1)

    return BoxFinder()


def make_cnn(torch, size, classes=len(LABELS)):
    """A small detector-shaped network (stride 16, one candidate per
    cell) with weights from a fixed seed: the place for a trained one."""
    nn = torch.nn

    class TinyDetector(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(),
                nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU(),
                nn.Conv2d(32, 32, 3, 2, 1), nn.ReLU(),
                nn.Conv2d(32, 4 + classes, 3, 2, 1))
            g = torch.Generator().manual_seed(35)
            with torch.no_grad():
                for p in self.parameters():
                    p.copy_(torch.randn(p.shape, generator=g) * 0.3)

        def forward(self, x):
            y = self.body(x).flatten(2)
            boxes = torch.sigmoid(y[:, :4]) * size
            return torch.cat([boxes, torch.sigmoid(y[:, 4:])], 1)

    return TinyDetector()


# --- synthetic cameras -----------------------------------------------------------


def objects(camera, frame, size):
    """The rectangles of @camera's @frame: [(class, x, y, w, h)], each in
    a band of its own (they never overlap), moving across and back."""
    w, h = size
    n = 1 + camera % 3
    band = h // n
    out = []
    for k in range(n):
        cls = (camera + k) % len(LABELS)
        bw, bh = 32 + 8 * ((camera + 2 * k) % 4), min(24 + 8 * k, band - 4)
        span = w - bw
        t = (frame * (3 + camera + k) + 17 * k) % (2 * span)
        x = t if t < span else 2 * span - t
        y = k * band + (band - bh) // 2
        out.append((cls, x, y, bw, bh))
    return out


def write_camera(np, path, camera, size, frames):
    """@frames RGB frames of @camera into the raw file @path."""
    w, h = size
    with open(path, "wb") as f:
        for i in range(frames):
            img = np.full((h, w, 3), BACKGROUND, np.uint8)
            for cls, x, y, bw, bh in objects(camera, i, size):
                img[y:y + bh, x:x + bw] = COLOURS[cls]
            f.write(img.tobytes())


def synthetic_sources(np, cameras, frames, folder):
    """(source of each camera as launch-line text, its frame size)."""
    out = []
    for i in range(cameras):
        size = SIZES[i % len(SIZES)]
        path = os.path.join(folder, "camera-%d.rgb" % i)
        write_camera(np, path, i, size, frames)
        out.append(("filesrc location=%s ! rawvideoparse format=rgb "
                    "width=%d height=%d framerate=%d/1" % (path, size[0],
                                                           size[1], FPS),
                    size))
    return out


def clip_sources(clips, decoder):
    nvdec = decoder == "nvdec" or (decoder == "auto"
                                   and _ctgst.has_element("nvh264dec"))
    out = []
    for clip in clips:
        if not os.path.isfile(clip):
            raise SystemExit("multi-camera-detect: no such clip: %s" % clip)
        if nvdec:
            out.append(("filesrc location=%s ! qtdemux ! h264parse ! "
                        "nvh264dec" % clip, None))
        else:
            out.append(("filesrc location=%s ! decodebin" % clip, None))
    return out, nvdec


# --- the pipeline ----------------------------------------------------------------


def encoder():
    for name, rest in (("nvh264enc", ""), ("x264enc", " speed-preset=ultrafast"
                                            " tune=zerolatency")):
        if _ctgst.has_element(name):
            return name + rest
    return None


def build_line(args, sources, cuda_memory, labels_path):
    batch = ("cudagraphbatch name=b backend=cuda batch-size=%d width=%d "
             "height=%d postprocess=detect num-classes=%d labels-location=%s "
             "score-threshold=%g ! queue ! fakesink sync=false"
             % (len(sources), args.size, args.size, len(LABELS), labels_path,
                args.score_threshold))
    overlay = _ctgst.has_element("objectdetectionoverlay")
    enc = encoder()
    parts, notes = [batch], []
    if args.output and not (overlay and enc):
        notes.append("--output: no %s here: no video files written"
                     % ("objectdetectionoverlay (GStreamer >= 1.24)"
                        if not overlay else "H.264 encoder"))
    for i, (src, _) in enumerate(sources):
        parts.append("%s ! b.sink_%d" % (src, i))
        branch = "b.src_%d ! queue ! tee name=t%d" % (i, i)
        branch += (" t%d. ! queue ! appsink name=last%d max-buffers=1 "
                   "drop=true wait-on-eos=false sync=false" % (i, i))
        download = "cudadownload ! " if cuda_memory else ""
        if args.snapshot:
            branch += (" t%d. ! queue ! %svideoconvert ! video/x-raw,"
                       "format=RGB ! appsink name=pix%d max-buffers=1 "
                       "drop=true wait-on-eos=false sync=false" % (i, download, i))
        if args.output and overlay and enc:
            path = os.path.join(args.output, "camera-%d.mp4" % i)
            branch += (" t%d. ! queue ! %svideoconvert ! "
                       "objectdetectionoverlay ! videoconvert ! %s ! "
                       "h264parse ! mp4mux ! filesink location=%s"
                       % (i, download, enc, path))
        parts.append(branch)
    return "  ".join(parts), notes


def attach_model(args, pipeline):
    import torch
    import gcg.torch

    if args.model in ("box", "cnn"):
        model = (make_box_finder(torch) if args.model == "box"
                 else make_cnn(torch, args.size)).cuda().eval()
        example = None
    else:
        spec = launch.ModelSpec("cudagraphbatch", "b", args.model, False)
        model, inp = launch.load_model(torch, spec, torch.device("cuda", 0))
        example = (torch.zeros(inp[0], dtype=inp[1]) if inp is not None
                   else None)
    element = pipeline.element("b")
    try:
        return gcg.torch.attach(element, model, example=example)
    finally:
        element.release()


def wait_end(pipeline):
    """Plays to EOS, a progress line a second (the batch's counters, read
    as properties: nothing runs per frame); the batch's cudagraph-stats."""
    stats = {}
    batch = pipeline.element("b")
    last = t0 = time.perf_counter()
    try:
        while True:
            msg = pipeline.pop_message(0.2)
            if msg is not None:
                try:
                    if msg.type == _ctgst.GST_MESSAGE_EOS:
                        return stats
                    if msg.error is not None:
                        raise SystemExit("multi-camera-detect: ERROR from %s: "
                                         "%s" % msg.error[:2])
                    if msg.name == "cudagraph-stats":
                        stats = {k: msg.get_uint64(k) for k in
                                 ("captures", "replays", "batches", "frames")}
                finally:
                    msg.release()
            now = time.perf_counter()
            if now - last >= 1.0:
                last = now
                log("%.0f s: %d batches" % (now - t0,
                                           batch.get_property("batches")))
    finally:
        batch.release()


def last_frame(pipeline, name):
    """(results, pts, caps size, sample) of the appsink @name's last frame,
    or None."""
    sink = pipeline.app_sink(name)
    try:
        sample = sink.try_pull_sample(0)
    finally:
        sink.release()
    if sample is None:
        return None
    buf = sample.get_buffer()
    return (launch.read_results(buf), _ctgst.buffer_pts(buf),
            _ctgst.caps_size(sample.get_caps()), sample)


# --- the end: what each camera saw -----------------------------------------------


def iou(a, b):
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ix = max(0.0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0.0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0


def report(i, results, pts, size, synthetic):
    """Prints camera @i's last frame's detections; with @synthetic,
    each drawn rectangle against the best box of its class: (found,
    drawn)."""
    frame = int(round(pts * FPS / 1e9)) if pts != _ctgst.GST_CLOCK_TIME_NONE \
        else -1
    results = results or []
    log("camera %d (%dx%d): frame %d: %d detections"
        % (i, size[0], size[1], frame, len(results)))
    for r in results:
        log("  %-6s %.2f  x=%6.1f y=%6.1f w=%6.1f h=%6.1f"
            % (r.label, r.confidence, r.x, r.y, r.width, r.height))
    if not synthetic:
        return 0, 0
    found = 0
    truth = objects(i, frame, size)
    for cls, x, y, w, h in truth:
        best = max((iou((r.x, r.y, r.width, r.height), (x, y, w, h))
                    for r in results if r.label_index == cls), default=0.0)
        ok = best >= 0.8
        found += ok
        log("  drawn: %-6s x=%4d y=%4d w=%4d h=%4d  best IoU %.3f %s"
            % (LABELS[cls], x, y, w, h, best, "ok" if ok else "MISSED"))
    return found, len(truth)


def write_png(path, rgb):
    """@rgb (H×W×3 uint8, NumPy) as a PNG (zlib only)."""
    h, w, _ = rgb.shape
    raw = b"".join(b"\0" + rgb[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n"
                + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def snapshot(np, pipeline, i, results, folder):
    """Camera @i's last frame with its boxes drawn (yellow, 2 px) into
    FOLDER/camera-i.png."""
    got = last_frame(pipeline, "pix%d" % i)
    if got is None:
        return
    _, _, (w, h), sample = got
    lb = _ctgst.lib()
    info = _ctgst.GstMapInfo()
    buf = sample.get_buffer()
    if not lb.gst_buffer_map(buf, ctypes.byref(info), _ctgst.GST_MAP_READ):
        return
    try:
        stride = info.size // h
        data = np.ctypeslib.as_array(
            (ctypes.c_uint8 * info.size).from_address(info.data))
        img = data.reshape(h, stride)[:, :w * 3].reshape(h, w, 3).copy()
    finally:
        lb.gst_buffer_unmap(buf, ctypes.byref(info))
        sample.release()
    for r in results or []:
        x0, y0 = max(int(r.x), 0), max(int(r.y), 0)
        x1, y1 = min(int(r.x + r.width), w) - 1, min(int(r.y + r.height), h) - 1
        if x1 <= x0 or y1 <= y0:
            continue
        for t in range(2):
            img[max(y0 - 1 - t, 0), max(x0 - 2, 0):x1 + 3] = (255, 255, 0)
            img[min(y1 + 1 + t, h - 1), max(x0 - 2, 0):x1 + 3] = (255, 255, 0)
            img[max(y0 - 2, 0):y1 + 3, max(x0 - 1 - t, 0)] = (255, 255, 0)
            img[max(y0 - 2, 0):y1 + 3, min(x1 + 1 + t, w - 1)] = (255, 255, 0)
    path = os.path.join(folder, "camera-%d.png" % i)
    write_png(path, img)
    log("camera %d: %s" % (i, path))


# --- main ------------------------------------------------------------------------


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="N cameras -> one cudagraphbatch with a detector "
        "attached -> each camera's frames with their boxes")
    ap.add_argument("clips", nargs="*", help="H.264 MP4 clips, one a camera")
    ap.add_argument("--synthetic", type=int, metavar="N", default=0,
                    help="N generated cameras with known rectangles instead")
    ap.add_argument("--frames", type=int, default=60,
                    help="frames per synthetic camera (default 60)")
    ap.add_argument("--size", type=int, default=256,
                    help="the tensor's side, S×S (default 256)")
    ap.add_argument("--model", default=None,
                    help="box (the rectangle finder: --synthetic's default), "
                    "cnn (fixed-seed weights: the clips' default) or a "
                    "TorchScript / torch.export file")
    ap.add_argument("--score-threshold", type=float, default=0.5)
    ap.add_argument("--decoder", choices=("auto", "nvdec", "decodebin"),
                    default="auto")
    ap.add_argument("--output", metavar="DIR",
                    help="each camera's frames with boxes drawn "
                    "(objectdetectionoverlay) into DIR/camera-N.mp4")
    ap.add_argument("--snapshot", metavar="DIR",
                    help="each camera's last frame with its boxes as "
                    "DIR/camera-N.png (needs NumPy)")
    args = ap.parse_args(argv)
    if bool(args.clips) == bool(args.synthetic):
        ap.error("give clips or --synthetic N, not both or neither")
    if args.synthetic and not 1 <= args.synthetic <= 16:
        ap.error("--synthetic takes 1 to 16 cameras")
    if args.model is None:
        args.model = "box" if args.synthetic else "cnn"
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        import torch
    except ImportError:
        log("needs PyTorch with CUDA")
        return 77
    if not torch.cuda.is_available():
        log("PyTorch has no CUDA device")
        return 77
    np = None
    if args.synthetic or args.snapshot:
        try:
            import numpy as np
        except ImportError:
            log("--synthetic and --snapshot need NumPy")
            return 77
    _ctgst.lib().init()
    for folder in (args.output, args.snapshot):
        if folder:
            os.makedirs(folder, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="gcg-cameras-") as tmp:
        labels = os.path.join(tmp, "labels.txt")
        with open(labels, "w") as f:
            f.write("\n".join(LABELS) + "\n")
        if args.synthetic:
            sources = synthetic_sources(np, args.synthetic, args.frames, tmp)
            cuda_memory = False
        else:
            sources, cuda_memory = clip_sources(args.clips, args.decoder)
        line, notes = build_line(args, sources, cuda_memory, labels)
        for note in notes:
            log(note)
        with _ctgst.Pipeline(line, sink=None) as pipeline:
            try:
                attached = attach_model(args, pipeline)
            except (launch.LaunchError, RuntimeError) as e:
                log("the detector cannot be attached: %s" % e)
                return 1
            log("%d cameras -> cudagraphbatch %dx3x%dx%d -> %s %s -> "
                "postprocess=detect" % (len(sources), len(sources), args.size,
                                        args.size, args.model,
                                        [s for s, _ in attached.outputs]))
            r0, t0 = os.times(), time.perf_counter()
            pipeline.play()
            stats = wait_end(pipeline)
            wall, r1 = time.perf_counter() - t0, os.times()
            cpu = (r1.user - r0.user) + (r1.system - r0.system)
            frames = stats.get("frames") or 0
            log("%d frames in %d batches, %.2f s: %.1f fps, %.0f us CPU per "
                "frame; %s captures, %s replays"
                % (frames, stats.get("batches") or 0, wall,
                   frames / wall if wall else 0,
                   cpu * 1e6 / frames if frames else 0,
                   stats.get("captures"), stats.get("replays")))
            found = drawn = 0
            # Only BoxFinder's boxes mean something to check.
            checked = bool(args.synthetic) and args.model == "box"
            for i in range(len(sources)):
                got = last_frame(pipeline, "last%d" % i)
                if got is None:
                    log("camera %d: no frame" % i)
                    continue
                results, pts, size, sample = got
                sample.release()
                f, d = report(i, results, pts, size, checked)
                found, drawn = found + f, drawn + d
                if args.snapshot:
                    snapshot(np, pipeline, i, results, args.snapshot)
            pipeline.stop()
    if args.synthetic and args.model == "box":
        log("synthetic check: %d of %d rectangles found (IoU >= 0.8)"
            % (found, drawn))
        return 0 if found == drawn and drawn else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
