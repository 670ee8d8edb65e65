# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A PyTorch model nested in our graph (GcgModelGraph), checked and timed.

Needs a CUDA GPU, PyTorch >= 2.8 (CUDAGraph(keep_graph=True) and
raw_cuda_graph()) and libgcg-1.0 on LD_LIBRARY_PATH; no GStreamer and no
PyGObject (ctypes only).  Exits 77 without a GPU or such a PyTorch.

The model is a small CNN with deterministic weights on a 1x3x224x224
float32 input.  Our parent graph holds three nodes: a host-to-device copy
of the frame (pinned) into the model's static input, the PyTorch graph as a
child graph node, a device-to-host copy of the logits (pinned): one
gcg_graph_launch() per frame.  Checks, exiting 1 on a failure:

- every frame's logits equal, bit for bit, those of PyTorch's own replay of
  its graph on the same input, and are close to eager PyTorch;
- one capture for all frames (the frame changes only host memory);
- the owner (the PyTorch objects) is released exactly once, after the
  model graph and the parent graph are gone.

Then times, frame by frame (frame already in pinned host memory, result
back in pinned host memory, a wait for the stream each frame):

- python: copy in, CUDAGraph.replay(), copy out from Python;
- nested: one gcg_graph_launch() of the parent graph;
- bound: CUDAGraph.replay() alone (no copies): the model's own cost.

Columns: fps, CPU µs per frame spent issuing the work (the wait excluded;
thread CPU time), p50/p99 latency in µs.

    python3 bench/bench-model.py [--frames=2000] [--warmup=200]
"""

import argparse
import ctypes
import statistics
import sys
import time

SKIP = 77
GCG_CAPTURE_MODE_THREAD_LOCAL = 1
GCG_MODEL_DTYPE_FLOAT32 = 0
_p = ctypes.c_void_p
_err = ctypes.POINTER(_p)


class GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", ctypes.c_int),
                ("message", ctypes.c_char_p)]


NOTIFY = ctypes.CFUNCTYPE(None, _p)


def bind():
    lib = ctypes.CDLL("libgcg-1.0.so.0")
    gobj = ctypes.CDLL("libgobject-2.0.so.0")
    sigs = {
        "gcg_driver_init": (ctypes.c_int, [_err]),
        "gcg_context_new": (_p, [ctypes.c_int, _err]),
        "gcg_stream_new": (_p, [_p, _err]),
        "gcg_stream_synchronize": (ctypes.c_int, [_p, _err]),
        "gcg_stream_copy_to_device": (ctypes.c_int, [_p, ctypes.c_uint64, _p,
                                                     ctypes.c_size_t, _err]),
        "gcg_stream_copy_to_host": (ctypes.c_int, [_p, _p, ctypes.c_uint64,
                                                   ctypes.c_size_t, _err]),
        "gcg_model_graph_new": (_p, [_p, ctypes.c_uint64, _p, NOTIFY, _err]),
        "gcg_model_graph_set_input": (ctypes.c_int, [
            _p, ctypes.c_uint64, ctypes.POINTER(ctypes.c_int64), ctypes.c_uint,
            ctypes.c_int, _err]),
        "gcg_model_graph_add_output": (ctypes.c_int, [
            _p, ctypes.c_uint64, ctypes.POINTER(ctypes.c_int64), ctypes.c_uint,
            ctypes.c_int, _err]),
        "gcg_model_graph_add_to_capture": (ctypes.c_int, [_p, _p, _err]),
        "gcg_capture_begin_with_pool": (_p, [_p, ctypes.c_int, _p, _err]),
        "gcg_capture_pool_new": (_p, []),
        "gcg_capture_pool_keep_object": (ctypes.c_uint, [_p, _p]),
        "gcg_capture_finish": (_p, [_p, _err]),
        "gcg_graph_launch": (ctypes.c_int, [_p, _p, _err]),
        "gcg_graph_upload": (ctypes.c_int, [_p, _p, _err]),
        "gcg_graph_get_node_count": (ctypes.c_uint, [_p]),
    }
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    gobj.g_object_unref.argtypes = [_p]
    return lib, gobj


def call(fn, *args):
    """Calls a gcg function whose last argument is a GError**; raises on
    failure with the library's message."""
    err = _p()
    res = fn(*args, ctypes.byref(err))
    if err.value:
        raise RuntimeError(ctypes.cast(err, ctypes.POINTER(GError))
                           .contents.message.decode())
    if not res and fn.restype is not None:
        raise RuntimeError(f"{fn.__name__} failed without an error")
    return res


def shape_array(t):
    return (ctypes.c_int64 * t.dim())(*t.shape), t.dim()


def make_model(torch):
    torch.manual_seed(0)
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10),
    ).cuda().eval()


def capture_torch(torch, model, static_in):
    """Warms the model up on a side stream and captures it, keeping the
    CUgraph (keep_graph=True) for raw_cuda_graph()."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():
        for _ in range(3):
            model(static_in)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph(keep_graph=True)
    with torch.cuda.graph(g), torch.no_grad():
        static_out = model(static_in)
    torch.cuda.synchronize()
    return g, static_out


class Nested:
    """The parent graph: frame in, the PyTorch graph, logits out."""

    def __init__(self, lib, gobj, torch, g, static_in, static_out, owner):
        self.lib, self.gobj = lib, gobj
        self.ctx = call(lib.gcg_context_new, 0)
        self.stream = call(lib.gcg_stream_new, self.ctx)
        self.released = 0
        self._owner = owner

        def release(_data):
            self.released += 1
            self._owner = None
        self._notify = NOTIFY(release)
        self.model = call(lib.gcg_model_graph_new, self.ctx,
                          g.raw_cuda_graph(), None, self._notify)
        call(lib.gcg_model_graph_set_input, self.model, static_in.data_ptr(),
             *shape_array(static_in), GCG_MODEL_DTYPE_FLOAT32)
        if call_index(lib.gcg_model_graph_add_output, self.model,
                      static_out.data_ptr(), *shape_array(static_out),
                      GCG_MODEL_DTYPE_FLOAT32) != 0:
            raise RuntimeError("first output is not index 0")
        self.host_in = torch.empty_like(static_in, device="cpu").pin_memory()
        self.host_out = torch.empty_like(static_out,
                                         device="cpu").pin_memory()
        # The parent graph keeps the model graph (and so the PyTorch
        # objects) through its capture pool, whoever lets go first.
        pool = lib.gcg_capture_pool_new()
        lib.gcg_capture_pool_keep_object(pool, self.model)  # its index
        capture = call(lib.gcg_capture_begin_with_pool, self.stream,
                       GCG_CAPTURE_MODE_THREAD_LOCAL, pool)
        gobj.g_object_unref(pool)
        call(lib.gcg_stream_copy_to_device, self.stream, static_in.data_ptr(),
             self.host_in.data_ptr(), static_in.nbytes)
        call(lib.gcg_model_graph_add_to_capture, self.model, self.stream)
        call(lib.gcg_stream_copy_to_host, self.stream,
             self.host_out.data_ptr(), static_out.data_ptr(),
             static_out.nbytes)
        self.graph = call(lib.gcg_capture_finish, capture)
        gobj.g_object_unref(capture)
        call(lib.gcg_graph_upload, self.graph, self.stream)
        call(lib.gcg_stream_synchronize, self.stream)

    def launch(self):
        call(self.lib.gcg_graph_launch, self.graph, self.stream)

    def sync(self):
        call(self.lib.gcg_stream_synchronize, self.stream)

    def free(self, model_first):
        """Drops the model graph and the parent graph in either order; the
        owner must be released once, only when both are gone.  Returns
        whether that held."""
        self.sync()
        first, second = ("model", "graph") if model_first else ("graph",
                                                                 "model")
        self.gobj.g_object_unref(getattr(self, first))
        setattr(self, first, None)
        early = self.released
        if self.graph is not None:
            # The model graph is gone, the parent still replays correctly.
            self.host_in.fill_(0.5)
            self.launch()
            self.sync()
        self.gobj.g_object_unref(getattr(self, second))
        setattr(self, second, None)
        for name in ("stream", "ctx"):
            self.gobj.g_object_unref(getattr(self, name))
            setattr(self, name, None)
        return early == 0 and self.released == 1


def call_index(fn, *args):
    err = _p()
    res = fn(*args, ctypes.byref(err))
    if res < 0:
        raise RuntimeError(ctypes.cast(err, ctypes.POINTER(GError))
                           .contents.message.decode())
    return res


def check(torch, nested, g, model, static_in, static_out, frames):
    """Per frame: nested logits == PyTorch's replay, ≈ eager."""
    worst = 0.0
    for i in range(frames):
        frame = torch.randn(static_in.shape, generator=torch.Generator()
                            .manual_seed(100 + i))
        nested.host_in.copy_(frame)
        nested.launch()
        nested.sync()
        static_in.copy_(frame.cuda())
        g.replay()
        torch.cuda.synchronize()
        if not torch.equal(nested.host_out, static_out.cpu()):
            print(f"FAIL frame {i}: nested output differs from the replay")
            return False
        with torch.no_grad():
            eager = model(frame.cuda()).cpu()
        worst = max(worst, (eager - nested.host_out).abs().max().item())
    print(f"ok {frames} frames bit-identical to PyTorch's replay; "
          f"max |eager - nested| = {worst:.3g}")
    return worst < 1e-3


def timed(run, sync, frames, warmup):
    for _ in range(warmup):
        run()
        sync()
    lat, cpu = [], 0
    start = time.perf_counter()
    for _ in range(frames):
        t0 = time.perf_counter_ns()
        c0 = time.thread_time_ns()
        run()
        cpu += time.thread_time_ns() - c0
        sync()
        lat.append((time.perf_counter_ns() - t0) / 1000)
    wall = time.perf_counter() - start
    lat.sort()
    return (frames / wall, cpu / frames / 1000, statistics.median(lat),
            lat[int(0.99 * (len(lat) - 1))])


def bench(torch, nested, g, static_in, static_out, frames, warmup):
    host_in, host_out = nested.host_in, nested.host_out
    cur = torch.cuda.current_stream()

    def python():
        static_in.copy_(host_in, non_blocking=True)
        g.replay()
        host_out.copy_(static_out, non_blocking=True)

    rows = [("python", timed(python, cur.synchronize, frames, warmup)),
            ("nested", timed(nested.launch, nested.sync, frames, warmup)),
            ("bound", timed(g.replay, cur.synchronize, frames, warmup))]
    print(f"{'mode':8} {'fps':>9} {'cpu_us':>8} {'p50_us':>8} {'p99_us':>8}")
    for name, (fps, cpu, p50, p99) in rows:
        print(f"{name:8} {fps:9.1f} {cpu:8.1f} {p50:8.1f} {p99:8.1f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=200)
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("SKIP: no PyTorch")
        return SKIP
    if not torch.cuda.is_available():
        print("SKIP: no CUDA device")
        return SKIP
    if not hasattr(torch.cuda.CUDAGraph(), "raw_cuda_graph"):
        print(f"SKIP: PyTorch {torch.__version__} has no raw_cuda_graph()")
        return SKIP
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    lib, gobj = bind()
    call(lib.gcg_driver_init)
    model = make_model(torch)
    static_in = torch.randn(1, 3, 224, 224, device="cuda")
    g, static_out = capture_torch(torch, model, static_in)
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    ok = True
    for model_first in (True, False):
        owner = [g, static_in, static_out]
        nested = Nested(lib, gobj, torch, g, static_in, static_out, owner)
        del owner
        nodes = lib.gcg_graph_get_node_count(nested.graph)
        ok &= nodes == 3
        ok &= check(torch, nested, g, model, static_in, static_out, 8)
        if model_first:
            bench(torch, nested, g, static_in, static_out, args.frames,
                  args.warmup)
        freed = nested.free(model_first)
        print(f"parent nodes {nodes}; freeing "
              f"{'model then graph' if model_first else 'graph then model'}: "
              f"owner released {nested.released} time(s), "
              f"{'only at the end' if freed else 'TOO EARLY OR NOT AT ALL'}")
        ok &= freed
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
