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
         N x 3 x S x S float32 tensor (max-rois = N), letterboxed; with
         --fade-in, per-frame brightness given from Python
         (gcg.tensor.AppSrc.push_buffer(params=...): a GcgParamsMeta)
      -> appsink -> gcg.tensor: the tensor into PyTorch on the GPU without
         a copy (DLPack) when PyTorch has CUDA, a NumPy view otherwise
      -> a stand-in "model": per ROI, the mean colour and a sharpness score
         (variance of the Laplacian of the luma) and where the Laplacian
         peaks, mapped back to source pixels through GstCudaGraphTensorMeta
      -> printed, with progress (frames, fps, CPU per frame).

With --model net, a real network instead (TinyNet below: a small CNN with
deterministic weights, 10 classes per ROI), run the way an application
does today: each tensor from the appsink into PyTorch's CUDA graph of
the network, replayed from Python.  With --model attached, the same
network attached to cudagraphpreprocess (gcg.torch.attach): the element
runs preprocessing, the network and the copy-out as one graph replay per
frame and the appsink gets the logits; Python only reads them.
--model compare runs both on the same clip, one after the other, and
prints their fps and CPU per frame side by side.  Both need PyTorch with
CUDA and the CUDA backend.

Run from the source tree after `ninja -C build` (the plugin in build/gst):

    GST_PLUGIN_PATH=build/gst /usr/bin/python3 examples/analytics.py clip.mp4

GStreamer is driven through PyGObject where it imports (Debian: python3-gi,
gir1.2-gst-plugins-base-1.0), through gcg.tensor's ctypes driver otherwise
(`--binding` chooses): any Python 3 with the GStreamer libraries on the
library path runs it, e.g. a PyTorch one with no gi.  NumPy is needed for
tensors in system memory; the face detector needs PyGObject, python3-opencv
and opencv-data (without them, use --roi-grid); PyTorch with CUDA is
optional.  `--help` lists the options.
"""

import argparse
import os
import pathlib
import sys
import threading
import time

# gcg.tensor from the source tree when the project is not installed.
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
from gcg import tensor as gcg_tensor  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None

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

SECOND = 1000000000  # a GstClockTime
HAAR_DIRS = ["/usr/share/opencv4/haarcascades",
             getattr(getattr(cv2, "data", None), "haarcascades", "")]


def log(*args):
    print("analytics:", *args, flush=True)


# --- GStreamer: PyGObject where it imports, ctypes otherwise -----------------
#
# The rest of the example sees one interface, gcg.tensor.Pipeline's: a
# pipeline with app_sink(), app_src(), play(), stop(), close() and
# pop_message().  Buffers and caps cross as PyGObject's objects or as
# addresses; gcg.tensor's functions (AppSrc.push_buffer, caps_size,
# from_sample) take either.


class GiBinding:
    """GStreamer through PyGObject.  The appsrc is driven through ctypes
    all the same: PyGObject keeps a reference of its own on every
    Gst.Buffer it wraps, so no buffer it hands out is writable, and metas
    go on a copy made in C (AppSrc.push_buffer)."""

    name = "PyGObject"

    def __init__(self):
        import gi

        gi.require_version("Gst", "1.0")
        gi.require_version("GstApp", "1.0")
        gi.require_version("GstVideo", "1.0")
        # GstApp: the appsink's try_pull_sample() and is_eos().
        from gi.repository import GLib, Gst, GstApp, GstVideo  # noqa: F401

        Gst.init(None)
        self.GLib, self.Gst, self.GstVideo = GLib, Gst, GstVideo
        # PyGObject makes each wrapper class on first use, and that is not
        # thread-safe: the feeding thread and the consumer both pull their
        # first sample at once, and a Gst.Sample made while the other
        # thread was making its class was once refused by its own method
        # ("Expected Gst.Sample, but got gi.repository.Gst.Sample", CI
        # under load).  The classes both threads use are made here, first.
        for cls in (Gst.Sample, Gst.Buffer, Gst.Caps, Gst.Structure,
                    Gst.Message, Gst.Bus, GstApp.AppSink, GstApp.AppSrc,
                    GstVideo.VideoInfo):
            cls.__gtype__  # noqa: B018

    def has(self, factory):
        return self.Gst.ElementFactory.find(factory) is not None

    def launch(self, line):
        try:
            return GiPipeline(self.Gst, self.Gst.parse_launch(line))
        except self.GLib.Error as e:
            raise gcg_tensor.PipelineError(e.message) from None

    def luma_plane(self, buf, caps):
        """The Y (or grey) plane of a decoded frame as a NumPy array,
        copied to the host (mapping GStreamer's CUDA memory for reading
        downloads it).  Strides and offsets from the buffer's GstVideoMeta
        when it has one."""
        info = self.GstVideo.VideoInfo.new_from_caps(caps)
        meta = self.GstVideo.buffer_get_video_meta(buf)
        offset, stride = ((meta.offset[0], meta.stride[0]) if meta else
                          (info.offset[0], info.stride[0]))
        ok, m = buf.map(self.Gst.MapFlags.READ)
        if not ok:
            raise RuntimeError("cannot map the decoded frame")
        try:
            need = offset + stride * (info.height - 1) + info.width
            if len(m.data) < need:
                raise RuntimeError("frame of %d bytes, %d expected"
                                   % (len(m.data), need))
            plane = np.frombuffer(m.data, np.uint8, stride * info.height,
                                  offset)
            return plane.reshape(info.height, stride)[:, :info.width].copy()
        finally:
            buf.unmap(m)


class GiPipeline:
    """A Gst.Pipeline with the methods of gcg.tensor.Pipeline used here."""

    def __init__(self, Gst, pipeline):
        self.Gst, self.pipeline = Gst, pipeline
        self.bus = pipeline.get_bus()

    def app_sink(self, name):
        return self.pipeline.get_by_name(name)  # a GstApp.AppSink

    def app_src(self, name):
        return gcg_tensor.AppSrc.wrap(self.pipeline.get_by_name(name))

    def element(self, name):
        return self.pipeline.get_by_name(name)

    def play(self):
        if (self.pipeline.set_state(self.Gst.State.PLAYING)
                == self.Gst.StateChangeReturn.FAILURE):
            raise gcg_tensor.PipelineError("could not set the pipeline to "
                                           "PLAYING")

    def stop(self):
        self.pipeline.set_state(self.Gst.State.NULL)

    close = stop

    def pop_message(self):
        msg = self.bus.pop()
        return gcg_tensor.Message.wrap(msg) if msg is not None else None


class CtypesBinding:
    """GStreamer through gcg.tensor's ctypes driver: no PyGObject."""

    name = "ctypes"
    has = staticmethod(gcg_tensor.has_element)

    def launch(self, line):
        return gcg_tensor.Pipeline(line, sink=None)


def load_binding(choice):
    """PyGObject unless @choice is "ctypes" or gi does not import (then
    ctypes, unless @choice is "gi")."""
    if choice != "ctypes":
        try:
            return GiBinding()
        except (ImportError, ValueError) as e:
            if choice == "gi":
                sys.exit("analytics: no PyGObject with GStreamer's typelibs "
                         "(%s)" % e)
    return CtypesBinding()


STATS = ("captures", "replays", "eager-frames", "frames", "in-place-inputs")


class BusWatch:
    """What the example wants from the bus, gathered whenever it is polled
    (from either thread): the first ERROR, as (source, message, debug),
    and from cudagraphpreprocess's cudagraph-stats message (posted at
    EOS) the backend that ran and the counters in STATS."""

    def __init__(self, pipeline):
        self.pipeline = pipeline
        self.error = self.backend = None
        self.stats = {}
        self.lock = threading.Lock()

    def poll(self):
        """Take every waiting message off the bus; whether an ERROR has
        been seen."""
        with self.lock:
            while True:
                msg = self.pipeline.pop_message()
                if msg is None:
                    return self.error is not None
                if msg.error is not None and self.error is None:
                    self.error = msg.error
                elif msg.name == "cudagraph-stats":
                    self.backend = msg.get_string("backend")
                    self.stats = {f: msg.get_uint64(f) for f in STATS}
                msg.release()


# --- ROI sources -------------------------------------------------------------


class GridRois:
    """An n x n grid of cells over the frame: a ROI source that needs no
    detector (nor PyGObject), so the ROI path always runs (tests, demos)."""

    roi_type = "cell"

    def __init__(self, n):
        self.n = n

    def __call__(self, buf, caps):
        width, height = gcg_tensor.caps_size(caps)
        cw, ch = width // self.n, height // self.n
        return [(c * cw, r * ch, cw, ch)
                for r in range(self.n) for c in range(self.n)]


class HaarFaces:
    """OpenCV's frontal-face Haar cascade on a copy of the luma scaled to
    @work_width: detection costs the same whatever the video size.  Reads
    the frame through PyGObject's GstVideo (@binding.luma_plane)."""

    roi_type = "face"

    def __init__(self, binding, work_width=320):
        path = next((os.path.join(d, "haarcascade_frontalface_default.xml")
                     for d in HAAR_DIRS if d and os.path.exists(
                         os.path.join(d, "haarcascade_frontalface_default.xml"))),
                    None)
        if path is None:
            raise RuntimeError("no haarcascade_frontalface_default.xml "
                               "(Debian: opencv-data)")
        self.cascade = cv2.CascadeClassifier(path)
        self.luma_plane = binding.luma_plane
        self.work_width = work_width

    def __call__(self, buf, caps):
        gray = self.luma_plane(buf, caps)
        height, width = gray.shape
        s = min(1.0, self.work_width / width)
        small = cv2.resize(gray, (max(1, round(width * s)),
                                  max(1, round(height * s))),
                           interpolation=cv2.INTER_AREA)
        found = self.cascade.detectMultiScale(small, scaleFactor=1.1,
                                              minNeighbors=4, minSize=(20, 20))
        return [(int(x / s), int(y / s), int(w / s), int(h / s))
                for (x, y, w, h) in found]


def roi_source(args, binding):
    """The ROI source the options ask for; exits saying what is missing
    when the face detector cannot run."""
    if args.roi_grid > 0:
        return GridRois(args.roi_grid)
    missing = [what for what, there in (
        ("OpenCV (Debian: python3-opencv opencv-data)", cv2 is not None),
        ("PyGObject (Debian: python3-gi gir1.2-gst-plugins-base-1.0)",
         hasattr(binding, "luma_plane"))) if not there]
    try:
        if not missing:
            return HaarFaces(binding)
    except RuntimeError as e:
        missing = [str(e)]
    sys.exit("analytics: the face detector needs %s; use --roi-grid N"
             % " and ".join(missing))


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
        w = max(1, round(it["roi_width"] / it["scale_x"]))
        h = max(1, round(it["roi_height"] / it["scale_y"]))
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


class TinyNet(torch.nn.Module if torch else object):
    """A small classifier over each ROI item: two convolutions, global
    average pooling, 10 logits.  Weights from a fixed seed, so every run
    (and both --model net and attached) computes the same numbers; a
    trained network would plug in the same way."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(21)
        self.body = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, stride=2, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(16, 32, 3, stride=2, padding=1), torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
            torch.nn.Linear(32, 10))
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=g) * 0.2)

    def forward(self, x):
        return self.body(x)


class GraphedNet:
    """--model net: TinyNet captured once into a PyTorch CUDA graph, replayed
    from Python on each tensor (copied into its static input)."""

    def __init__(self, net, shape):
        # The graph reads the network's weights where they lay at capture:
        # the network must live as long as the graph (a freed weight's
        # memory goes to the next tensor allocated, and every replay after
        # that computes with whatever that tensor holds).
        self.net = net
        self.static_in = torch.zeros(shape, device="cuda")
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side), torch.no_grad():
            for _ in range(3):
                net(self.static_in)
        torch.cuda.current_stream().wait_stream(side)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph), torch.no_grad():
            self.static_out = net(self.static_in)

    def __call__(self, x):
        self.static_in.copy_(x)
        self.graph.replay()
        return self.static_out


def classify(logits, items):
    """Per ROI item: (class, score) from its logits row, read on the host
    (the one wait for the frame's GPU work)."""
    top = logits[:len(items)].softmax(dim=1).max(dim=1)
    return list(zip(top.indices.tolist(), top.values.tolist()))


# --- the pipeline ------------------------------------------------------------


def tensor_in_cuda(args):
    """Whether the tensor is asked for in CUDA memory (for PyTorch)."""
    return args.backend != "cpu" and HAVE_TORCH_CUDA


def launch_line(args):
    """One pipeline, two chains: decoder -> appsink `frames`, and appsrc
    `src` -> cudagraphpreprocess -> appsink `tensors`.  In one pipeline so
    that the decoder's CUDA context is the element's too."""
    loc = pathlib.Path(os.path.abspath(args.video)).as_uri()
    if args.decoder == "nvdec":
        decode = ("urisourcebin uri=%s ! parsebin ! nvh264dec ! "
                  "video/x-raw(memory:CUDAMemory),format=NV12" % loc)
    else:
        decode = ("uridecodebin uri=%s ! videoconvert ! "
                  "video/x-raw,format=NV12" % loc)
    tensor_caps = "other/tensors(memory:CUDAMemory)" if tensor_in_cuda(args) \
        else "other/tensors"
    return (
        "%s ! appsink name=frames sync=false async=false max-buffers=4 "
        "appsrc name=src format=time max-buffers=4 block=true ! "
        "cudagraphpreprocess name=pre backend=%s width=%d height=%d "
        "max-rois=%d letterbox=symmetric ! %s ! "
        "appsink name=tensors sync=false async=false max-buffers=8"
        % (decode, args.backend, args.size, args.size, args.max_rois,
           tensor_caps))


class Consumer(threading.Thread):
    """Pulls tensors, runs the model, maps results back to the frame.
    After an ERROR, or a failure of its own, it stops the pipeline: the
    feeding thread may be blocked pushing into a chain that no longer
    moves."""

    def __init__(self, pipeline, watch, args):
        super().__init__(daemon=True)
        self.pipeline, self.watch, self.args = pipeline, watch, args
        self.sink = pipeline.app_sink("tensors")
        self.frames = self.rois = 0
        self.memory = None
        self.error = None

    def run(self):
        try:
            while True:
                sample = self.sink.try_pull_sample(SECOND)
                if sample is not None and self.args.model == "attached":
                    self.handle_logits(gcg_tensor.tensors(sample)[0])
                elif sample is not None and self.args.model == "net":
                    self.handle_net(gcg_tensor.from_sample(sample))
                elif sample is not None:
                    self.handle(gcg_tensor.from_sample(sample))
                elif self.sink.is_eos() or self.watch.poll():
                    break
        except Exception as e:  # reported by the main thread
            self.error = e
        # A source that fails sends EOS after its ERROR: look at the bus.
        if self.error is not None or self.watch.poll():
            self.pipeline.stop()

    def handle_net(self, t):
        """--model net: the tensor through the graphed network, from
        Python."""
        self.memory = "CUDA memory, PyTorch graph replayed from Python"
        self.report(t, classify(self.args.graphed(torch.from_dlpack(t)),
                                t.items))

    def handle_logits(self, t):
        """--model attached: the element's output buffer holds the
        network's logits; the items still describe the ROIs."""
        self.memory = "CUDA memory, network attached to the element"
        self.report(t, classify(torch.from_dlpack(t), t.items))

    def report(self, t, classes):
        for i, (cls, score) in enumerate(classes):
            it = t.items[i]
            if self.frames < self.args.print_frames:
                print("frame %d roi %d box=(%d,%d,%d,%d) class=%d score=%.4f"
                      % (self.frames, it["roi_id"], it["roi_x"], it["roi_y"],
                         it["roi_width"], it["roi_height"], cls, score),
                      flush=True)
        self.rois += len(classes)
        self.frames += 1

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


def fade_params(n, frames):
    """Frame @n's values for the elements (a GcgParamsMeta, through
    AppSrc.push_buffer(params=...), with PyGObject or ctypes alike): a fade
    in over the first @frames frames, brightness from -1 (every value
    lowered by full scale) up towards 0; None after it."""
    if n >= frames:
        return None
    return {"brightness": -(1.0 - n / frames)}


def feed(pipeline, watch, args, rois_of, progress):
    """The decoded frames, with their ROIs, into the tensor chain."""
    frames, src = pipeline.app_sink("frames"), pipeline.app_src("src")
    rois, n, src_caps = [], 0, None  # src_caps: a string (caps addresses
    # are borrowed from the sample, gone with it)
    while args.frames <= 0 or n < args.frames:
        sample = frames.try_pull_sample(SECOND)
        if sample is None:
            if frames.is_eos() or watch.poll():
                break
            continue
        buf, caps = sample.get_buffer(), sample.get_caps()
        # The decoder's caps may change mid-stream (a new resolution): the
        # tensor chain gets them too, and ROIs of the old size are dropped.
        caps_str = gcg_tensor.caps_to_string(caps)
        changed = caps_str != src_caps
        if changed:
            src.set_caps(caps)
            src_caps = caps_str
        if changed or n % args.detect_every == 0:
            rois = rois_of(buf, caps)
        if src.push_buffer(buf, rois[:args.max_rois], rois_of.roi_type,
                           params=fade_params(n, args.fade_in)) != 0:
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
    p.add_argument("--binding", choices=["auto", "gi", "ctypes"],
                   default="auto",
                   help="GStreamer through PyGObject (gi) or gcg.tensor's "
                   "ctypes driver; auto: gi where it imports")
    p.add_argument("--frames", type=int, default=0,
                   help="stop after this many frames (0: the whole file)")
    p.add_argument("--print-frames", type=int, default=3, metavar="N",
                   help="print the per-ROI results of the first N frames")
    p.add_argument("--fade-in", type=int, default=0, metavar="N",
                   help="fade the tensor in over the first N frames "
                   "(brightness -1 up to 0): a per-frame value given from "
                   "Python (GcgParamsMeta, AppSrc.push_buffer(params=...)) "
                   "(0)")
    p.add_argument("--model", choices=["stand-in", "net", "attached",
                                       "compare"], default="stand-in",
                   help="stand-in: the per-ROI statistics below; net: "
                   "TinyNet's CUDA graph replayed from Python per frame; "
                   "attached: TinyNet attached to cudagraphpreprocess (one "
                   "replay per frame, gcg.torch); compare: net then "
                   "attached on the same clip, fps and CPU side by side")
    args = p.parse_args()
    args.detect_every = max(1, args.detect_every)
    if args.model != "stand-in" and (not HAVE_TORCH_CUDA
                                     or args.backend == "cpu"):
        p.error("--model %s needs PyTorch with CUDA and the CUDA backend"
                % args.model)
    # The element's own limits (cudagraphpreprocess max-rois, width/height).
    if not 1 <= args.max_rois <= 64:
        p.error("--max-rois must be within 1 to 64")
    if not 1 <= args.size <= 16384:
        p.error("--size must be within 1 to 16384")
    if not os.path.isfile(args.video):
        sys.exit("analytics: no such file: %s" % args.video)

    binding = load_binding(args.binding)
    if args.decoder == "auto":
        args.decoder = "nvdec" if binding.has("nvh264dec") else "decodebin"
    rois_of = roi_source(args, binding)
    if np is None and not tensor_in_cuda(args):
        sys.exit("analytics: NumPy is needed for a tensor in system memory")
    log("GStreamer through %s, decoder %s, ROIs from %s, batch %d x 3 x %d x "
        "%d, tensor to %s"
        % (binding.name, args.decoder, "a %dx%d grid" % (args.roi_grid,
                                                          args.roi_grid)
           if args.roi_grid else "OpenCV's Haar face detector", args.max_rois,
           args.size, args.size, "PyTorch" if torch else "NumPy"))

    if args.model == "compare":
        rows = []
        for mode in ("net", "attached"):
            args.model = mode
            rows.append((mode, run(args, binding, rois_of)))
        log("same clip, %s:" % args.video)
        for mode, (fps, cpu) in rows:
            log("  %-8s %8.1f fps %8.0f us CPU per frame" % (mode, fps, cpu))
    else:
        run(args, binding, rois_of)


def setup_model(args, pipeline):
    """--model net: the graphed network in args.graphed; attached: the
    network attached to the element (its handle in args.attached)."""
    if args.model not in ("net", "attached"):
        return
    net = TinyNet().cuda().eval()
    shape = (args.max_rois, 3, args.size, args.size)
    if args.model == "net":
        args.graphed = GraphedNet(net, shape)
    else:
        import gcg.torch

        args.attached = gcg.torch.attach(pipeline.element("pre"), net)


def run(args, binding, rois_of):
    """One run over the clip; (fps, CPU us per frame).  Exits on an
    ERROR."""
    try:
        pipeline = binding.launch(launch_line(args))
        setup_model(args, pipeline)
    except gcg_tensor.PipelineError as e:
        sys.exit("analytics: %s" % e)
    watch = BusWatch(pipeline)
    consumer = Consumer(pipeline, watch, args)
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

    try:
        pipeline.play()
    except gcg_tensor.PipelineError as e:
        watch.poll()
        pipeline.close()
        sys.exit("analytics: %s" % (watch.error and watch.error[1] or e))
    consumer.start()
    n = feed(pipeline, watch, args, rois_of, progress)
    consumer.join()
    wall = time.monotonic() - start_wall
    cpu = time.process_time() - start_cpu
    watch.poll()
    pipeline.close()
    if watch.error is not None:
        source, message, debug = watch.error
        sys.exit("analytics: ERROR from %s: %s\n%s"
                 % (source, message, debug or ""))
    if consumer.error is not None:
        raise consumer.error
    progress(n, final=True)
    log("done: %d frames decoded by %s, %d tensors (%d ROI items) on the %s "
        "backend in %s: %.1f fps, %.0f us CPU per frame"
        % (n, args.decoder, consumer.frames, consumer.rois,
           watch.backend or "?", consumer.memory or "-", n / wall,
           cpu * 1e6 / max(n, 1)))
    if watch.stats:
        log("cudagraphpreprocess: %(captures)s graph captures, %(replays)s "
            "replays, %(eager-frames)s eager frames; %(in-place-inputs)s of "
            "%(frames)s frames read in place from CUDA memory" % watch.stats)
    if consumer.frames != n:
        sys.exit("analytics: %d frames in but %d tensors out"
                 % (n, consumer.frames))
    return n / wall, cpu * 1e6 / max(n, 1)


if __name__ == "__main__":
    main()
