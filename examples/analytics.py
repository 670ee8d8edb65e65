#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A small video-analytics application around cudagraphpreprocess.

    video file -> decoder (nvh264dec into CUDA memory when there is one,
                  decodebin otherwise)
      -> ROI source: OpenCV's Haar face detector on a downscaled luma copy
         every few frames (or a fixed grid of ROIs, --roi-grid), attached
         as GstVideoRegionOfInterestMeta
      -> cudagraphpreprocess: every ROI of a frame becomes one item of an
         N x 3 x S x S float32 tensor (max-rois = N), letterboxed
      -> appsink -> gcg.tensor: the tensor into PyTorch on the GPU without
         a copy (DLPack) when PyTorch has CUDA, a NumPy view otherwise
      -> a stand-in "model": per ROI, the mean colour and a sharpness score
         (variance of the Laplacian of the luma) and where the Laplacian
         peaks, mapped back to source pixels through GcgTensorMeta
      -> printed, with progress (frames, fps, CPU per frame).

Run from the source tree after `ninja -C build` (the plugin in build/gst):

    GST_PLUGIN_PATH=build/gst /usr/bin/python3 examples/analytics.py clip.mp4

Needs PyGObject with GStreamer's typelibs (Debian: python3-gi,
gir1.2-gst-plugins-base-1.0) and NumPy; the detector needs python3-opencv
and opencv-data (without them, use --roi-grid); PyTorch with CUDA is
optional.  `--help` lists the options.
"""

import argparse
import ctypes
import os
import sys
import threading
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst, GstApp, GstVideo  # noqa: E402

import numpy as np  # noqa: E402

# gcg.tensor from the source tree when the project is not installed.
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
from gcg import tensor as gcg_tensor  # noqa: E402

try:
    import cv2
except ImportError:
    cv2 = None

try:
    import torch
    HAVE_TORCH_CUDA = torch.cuda.is_available()
except ImportError:
    torch = None
    HAVE_TORCH_CUDA = False

HAAR_DIRS = ["/usr/share/opencv4/haarcascades",
             getattr(getattr(cv2, "data", None), "haarcascades", "")]


def log(*args):
    print("analytics:", *args, flush=True)


# --- ROI sources -------------------------------------------------------------


class GridRois:
    """An n x n grid of cells over the frame: a ROI source that needs no
    detector, so the ROI path always runs (tests, demos)."""

    def __init__(self, n):
        self.n = n

    def __call__(self, gray, width, height):
        cw, ch = width // self.n, height // self.n
        return [(c * cw, r * ch, cw, ch)
                for r in range(self.n) for c in range(self.n)]


class HaarFaces:
    """OpenCV's frontal-face Haar cascade on a copy of the luma scaled to
    @work_width: detection costs the same whatever the video size."""

    def __init__(self, work_width=320):
        path = next((os.path.join(d, "haarcascade_frontalface_default.xml")
                     for d in HAAR_DIRS if d and os.path.exists(
                         os.path.join(d, "haarcascade_frontalface_default.xml"))),
                    None)
        if path is None:
            raise RuntimeError("no haarcascade_frontalface_default.xml "
                               "(Debian: opencv-data)")
        self.cascade = cv2.CascadeClassifier(path)
        self.work_width = work_width

    def __call__(self, gray, width, height):
        s = min(1.0, self.work_width / width)
        small = cv2.resize(gray, (max(1, round(width * s)),
                                  max(1, round(height * s))),
                           interpolation=cv2.INTER_AREA)
        found = self.cascade.detectMultiScale(small, scaleFactor=1.1,
                                              minNeighbors=4, minSize=(20, 20))
        return [(int(x / s), int(y / s), int(w / s), int(h / s))
                for (x, y, w, h) in found]


def luma_plane(buf, caps):
    """The Y (or grey) plane of a decoded frame as a NumPy array, copied to
    the host (mapping GStreamer's CUDA memory for reading downloads it).
    Strides and offsets from the buffer's GstVideoMeta when it has one."""
    info = GstVideo.VideoInfo.new_from_caps(caps)
    meta = GstVideo.buffer_get_video_meta(buf)
    offset, stride = ((meta.offset[0], meta.stride[0]) if meta else
                      (info.offset[0], info.stride[0]))
    ok, m = buf.map(Gst.MapFlags.READ)
    if not ok:
        raise RuntimeError("cannot map the decoded frame")
    try:
        need = offset + stride * (info.height - 1) + info.width
        if len(m.data) < need:
            raise RuntimeError("frame of %d bytes, %d expected"
                               % (len(m.data), need))
        plane = np.frombuffer(m.data, np.uint8, stride * info.height, offset)
        return plane.reshape(info.height, stride)[:, :info.width].copy()
    finally:
        buf.unmap(m)


class RoiPusher:
    """Pushes a frame into the appsrc with its ROIs as
    GstVideoRegionOfInterestMeta.  Metas go on a buffer of our own (a
    shallow gst_buffer_copy(): the same memory, no pixel copy), made and
    pushed through ctypes: PyGObject keeps a reference of its own on every
    Gst.Buffer it wraps, so no buffer it hands out is writable."""

    def __init__(self, appsrc):
        vp, u = ctypes.c_void_p, ctypes.c_uint
        gst = ctypes.CDLL("libgstreamer-1.0.so.0")
        video = ctypes.CDLL("libgstvideo-1.0.so.0")
        app = ctypes.CDLL("libgstapp-1.0.so.0")
        self.copy = gst.gst_buffer_copy
        self.copy.argtypes, self.copy.restype = [vp], vp
        self.add = video.gst_buffer_add_video_region_of_interest_meta
        self.add.argtypes = [vp, ctypes.c_char_p, u, u, u, u]
        self.add.restype = vp
        self.push = app.gst_app_src_push_buffer  # takes the buffer
        self.push.argtypes, self.push.restype = [vp, vp], ctypes.c_int
        capsule = ctypes.pythonapi.PyCapsule_GetPointer
        capsule.argtypes = [ctypes.py_object, ctypes.c_char_p]
        capsule.restype = vp
        self.appsrc = capsule(appsrc.__gpointer__, None)
        self._keep = appsrc

    def __call__(self, buf, rois):
        """GstFlowReturn as an int (0 is GST_FLOW_OK)."""
        out = self.copy(hash(buf))  # a Gst.Buffer's hash is its address
        for i, (x, y, w, h) in enumerate(rois):
            meta = self.add(out, b"face", x, y, w, h)
            # GstVideoRegionOfInterestMeta: GstMeta (16 bytes), roi_type, id.
            ctypes.c_int.from_address(meta + 20).value = i
        return self.push(self.appsrc, out)


# --- the model ---------------------------------------------------------------


def stand_in_model(x, items):
    """Per ROI: mean colour, sharpness (variance of the Laplacian of the
    luma) and where the Laplacian is strongest, in item pixels.  @x is the
    N x 3 x S x S tensor (values 0-1), a torch.Tensor on the GPU or a NumPy
    array: the code below is the same for both (slicing and reductions).
    Only the image part of each item is read, not its letterbox padding."""
    # >>> A trained model plugs in here, on the whole batch at once, e.g.
    #       logits = net(x[:len(items)])          # torch, on the GPU
    #     with the per-item boxes below mapping its outputs back. <<<
    results = []
    for i, it in enumerate(items):
        u0, v0 = it["pad_x"], it["pad_y"]
        w = max(1, round(it["roi_width"] * it["scale_x"]))
        h = max(1, round(it["roi_height"] * it["scale_y"]))
        img = x[i, :, v0:v0 + h, u0:u0 + w]
        mean = img.reshape(3, -1).mean(-1)
        luma = 0.299 * img[0] + 0.587 * img[1] + 0.114 * img[2]
        result = {"mean_rgb": tuple(round(float(c) * 255, 1) for c in mean),
                  "sharpness": 0.0, "peak": (u0 + w / 2, v0 + h / 2)}
        if h >= 3 and w >= 3:
            lap = (luma[1:-1, :-2] + luma[1:-1, 2:] + luma[:-2, 1:-1]
                   + luma[2:, 1:-1] - 4 * luma[1:-1, 1:-1])
            result["sharpness"] = float(((lap - lap.mean()) ** 2).mean())
            k = int(abs(lap).argmax())
            result["peak"] = (u0 + 1 + k % (w - 2) + 0.5,
                              v0 + 1 + k // (w - 2) + 0.5)
        results.append(result)
    return results


# --- the pipeline ------------------------------------------------------------


def has(factory):
    return Gst.ElementFactory.find(factory) is not None


def build(args):
    """One pipeline, two chains: decoder -> appsink `frames`, and appsrc
    `src` -> cudagraphpreprocess -> appsink `tensors`.  In one pipeline so
    that the decoder's CUDA context is the element's too."""
    loc = Gst.filename_to_uri(os.path.abspath(args.video))
    if args.decoder == "nvdec":
        decode = ("urisourcebin uri=%s ! parsebin ! nvh264dec ! "
                  "video/x-raw(memory:CUDAMemory),format=NV12" % loc)
    else:
        decode = ("uridecodebin uri=%s ! videoconvert ! "
                  "video/x-raw,format=NV12" % loc)
    cuda_out = args.backend != "cpu" and HAVE_TORCH_CUDA
    tensor_caps = "other/tensors(memory:CUDAMemory)" if cuda_out else \
        "other/tensors"
    launch = (
        "%s ! appsink name=frames sync=false async=false max-buffers=4 "
        "appsrc name=src format=time max-buffers=4 block=true ! "
        "cudagraphpreprocess name=pre backend=%s width=%d height=%d "
        "max-rois=%d letterbox=symmetric ! %s ! "
        "appsink name=tensors sync=false async=false max-buffers=8"
        % (decode, args.backend, args.size, args.size, args.max_rois,
           tensor_caps))
    return Gst.parse_launch(launch)


class Consumer(threading.Thread):
    """Pulls tensors, runs the model, maps results back to the frame."""

    def __init__(self, sink, args):
        super().__init__(daemon=True)
        self.sink, self.args = sink, args
        self.frames = self.rois = 0
        self.memory = None
        self.error = None

    def run(self):
        try:
            while True:
                sample = self.sink.try_pull_sample(Gst.SECOND)
                if sample is None:
                    if self.sink.is_eos():
                        return
                    continue
                self.handle(gcg_tensor.from_sample(sample))
        except Exception as e:  # reported by the main thread
            self.error = e

    def handle(self, t):
        if t.device == "cuda" and HAVE_TORCH_CUDA:
            x, self.memory = torch.from_dlpack(t), "CUDA memory, PyTorch (DLPack)"
        else:
            x, self.memory = t.numpy(), "system memory, NumPy"
        items = t.items  # at least one: the whole frame when it had no ROI
        for i, r in enumerate(stand_in_model(x, items)):
            it = items[i]
            px, py = t.item_to_source(i, *r["peak"])
            if self.frames < self.args.print_frames:
                print("frame %d roi %d box=(%d,%d,%d,%d) mean_rgb=(%.1f,%.1f,"
                      "%.1f) sharpness=%.5f peak=(%.1f,%.1f)"
                      % (self.frames, it["roi_id"], it["roi_x"], it["roi_y"],
                         it["roi_width"], it["roi_height"], *r["mean_rgb"],
                         r["sharpness"], px, py), flush=True)
        self.rois += len(items)
        self.frames += 1


def failed(pipeline):
    """Whether an ERROR is waiting on the bus (posted again for main;
    the messages before it are dropped)."""
    bus = pipeline.get_bus()
    msg = bus.pop_filtered(Gst.MessageType.ERROR)
    if msg is None:
        return False
    bus.post(msg)
    return True


def read_bus(bus):
    """The first ERROR message and the element's cudagraph-stats message
    (posted at EOS) among the messages on @bus, each None if absent."""
    err = stats = None
    while True:
        msg = bus.pop()
        if msg is None:
            return err, stats
        if msg.type == Gst.MessageType.ERROR and err is None:
            err = msg
        elif (msg.type == Gst.MessageType.ELEMENT
              and msg.get_structure().get_name() == "cudagraph-stats"):
            stats = msg


def feed(pipeline, args, roi_source, progress):
    """The decoded frames, with their ROIs, into the tensor chain."""
    frames, src = pipeline.get_by_name("frames"), pipeline.get_by_name("src")
    rois, n, push = [], 0, RoiPusher(src)
    while args.frames <= 0 or n < args.frames:
        sample = frames.try_pull_sample(Gst.SECOND)
        if sample is None:
            if frames.is_eos() or failed(pipeline):
                break
            continue
        buf, caps = sample.get_buffer(), sample.get_caps()
        if n == 0:
            src.set_caps(caps)
        if n % args.detect_every == 0:
            s = caps.get_structure(0)
            w, h = s.get_value("width"), s.get_value("height")
            gray = None if isinstance(roi_source, GridRois) else \
                luma_plane(buf, caps)
            rois = roi_source(gray, w, h)
        if push(buf, rois[:args.max_rois]) != 0:
            break
        n += 1
        progress(n, len(rois))
    src.end_of_stream()
    return n


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("video")
    p.add_argument("--roi-grid", type=int, default=0, metavar="N",
                   help="an N x N grid of ROIs instead of the face detector")
    p.add_argument("--max-rois", type=int, default=8,
                   help="batch size: ROIs per frame into the tensor (8)")
    p.add_argument("--size", type=int, default=96,
                   help="item size S of the N x 3 x S x S tensor (96)")
    p.add_argument("--detect-every", type=int, default=5, metavar="K",
                   help="run the detector on every K-th frame (5)")
    p.add_argument("--backend", choices=["auto", "cuda", "cpu"],
                   default="auto")
    p.add_argument("--decoder", choices=["auto", "nvdec", "decodebin"],
                   default="auto")
    p.add_argument("--frames", type=int, default=0,
                   help="stop after this many frames (0: the whole file)")
    p.add_argument("--print-frames", type=int, default=3, metavar="N",
                   help="print the per-ROI results of the first N frames")
    args = p.parse_args()
    args.detect_every = max(1, args.detect_every)

    Gst.init(None)
    if args.decoder == "auto":
        args.decoder = "nvdec" if has("nvh264dec") else "decodebin"
    if args.roi_grid > 0:
        roi_source = GridRois(args.roi_grid)
    elif cv2 is None:
        sys.exit("analytics: no OpenCV for the face detector (Debian: "
                 "python3-opencv opencv-data); use --roi-grid N")
    else:
        roi_source = HaarFaces()
    log("decoder %s, ROIs from %s, batch %d x 3 x %d x %d, tensor to %s"
        % (args.decoder, "a %dx%d grid" % (args.roi_grid, args.roi_grid)
           if args.roi_grid else "OpenCV's Haar face detector", args.max_rois,
           args.size, args.size, "PyTorch" if torch else "NumPy"))

    pipeline = build(args)
    consumer = Consumer(pipeline.get_by_name("tensors"), args)
    start_wall, start_cpu = time.monotonic(), time.process_time()
    last = [start_wall]

    def progress(n, n_rois=None, final=False):
        now = time.monotonic()
        if not final and now - last[0] < 1.0:
            return
        last[0] = now
        wall, cpu = now - start_wall, time.process_time() - start_cpu
        log("%d frames, %.1f fps, %.0f us CPU per frame%s"
            % (n, n / wall if wall else 0, cpu * 1e6 / max(n, 1),
               "" if n_rois is None else ", %d ROIs" % n_rois))

    pipeline.set_state(Gst.State.PLAYING)
    consumer.start()
    n = feed(pipeline, args, roi_source, progress)
    consumer.join()
    wall = time.monotonic() - start_wall
    err, stats = read_bus(pipeline.get_bus())
    pipeline.set_state(Gst.State.NULL)
    if err is not None:
        e, dbg = err.parse_error()
        sys.exit("analytics: ERROR from %s: %s\n%s"
                 % (err.src.get_name(), e.message, dbg or ""))
    if consumer.error is not None:
        raise consumer.error
    progress(n, final=True)
    backend = (stats.get_structure().get_string("backend")
               if stats is not None else None)
    log("done: %d frames decoded by %s, %d tensors (%d ROI items) on the %s "
        "backend in %s: %.1f fps, %.0f us CPU per frame"
        % (n, args.decoder, consumer.frames, consumer.rois,
           backend or "?", consumer.memory or "-", n / wall,
           (time.process_time() - start_cpu) * 1e6 / max(n, 1)))
    if consumer.frames != n:
        sys.exit("analytics: %d frames in but %d tensors out"
                 % (n, consumer.frames))


if __name__ == "__main__":
    main()
