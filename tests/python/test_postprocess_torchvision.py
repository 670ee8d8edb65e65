#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The postprocess's detection against torchvision.ops.batched_nms.

libgcg's CPU reference (gcg_postprocess_run_cpu(), which the GPU stage
equals bit for bit: tests/gpu/test-postprocess.c) on random YOLOv8-layout
outputs, called through ctypes, against the same decoding written with
PyTorch: best class per candidate, score threshold, batched_nms, the
maximum, boxes through each item's map.  Scores are distinct (no ties,
whose order torch.sort leaves open) and IoUs near the threshold are
avoided by drawing boxes on a coarse grid; the boxes compared are the
same candidates in the same order.  Run on the GPU when there is one
(torchvision's CUDA kernel), else on the CPU.

Usage: test_postprocess_torchvision.py LIBGCG.  Exit status 77 (skipped;
1 under GCG_TEST_REQUIRE_GPU=1) without PyTorch and torchvision."""
import ctypes
import os
import sys


def skip(why):
    if os.environ.get("GCG_TEST_REQUIRE_GPU", "") not in ("", "0"):
        print("FAIL (GCG_TEST_REQUIRE_GPU is set): " + why)
        sys.exit(1)
    print("SKIP: " + why)
    sys.exit(77)


try:
    import torch
    import torchvision
except ImportError as e:
    skip("no PyTorch or torchvision: %s" % e)

DETECT = 2
MAX_ITEMS = 64


class Config(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("output_index", ctypes.c_uint),
                ("n_classes", ctypes.c_uint), ("top_k", ctypes.c_uint),
                ("softmax", ctypes.c_int),
                ("score_threshold", ctypes.c_float),
                ("iou_threshold", ctypes.c_float),
                ("max_per_item", ctypes.c_uint)]


class Rect(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int),
                ("width", ctypes.c_int), ("height", ctypes.c_int)]


class ItemMap(ctypes.Structure):
    _fields_ = [("roi", Rect), ("pad_x", ctypes.c_int),
                ("pad_y", ctypes.c_int), ("width", ctypes.c_int),
                ("height", ctypes.c_int), ("scale_x", ctypes.c_double),
                ("scale_y", ctypes.c_double), ("offset_x", ctypes.c_double),
                ("offset_y", ctypes.c_double)]


class Header(ctypes.Structure):
    _fields_ = [("frame_number", ctypes.c_uint64),
                ("n_results", ctypes.c_uint32), ("n_items", ctypes.c_uint32),
                ("item_counts", ctypes.c_uint32 * MAX_ITEMS),
                ("reserved", ctypes.c_uint32 * 4)]


class Result(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float),
                ("width", ctypes.c_float), ("height", ctypes.c_float),
                ("confidence", ctypes.c_float), ("label", ctypes.c_int32),
                ("item", ctypes.c_uint32), ("reserved", ctypes.c_uint32)]


def load(path):
    lib = ctypes.CDLL(path)
    lib.gcg_postprocess_run_cpu.restype = ctypes.c_int
    lib.gcg_postprocess_run_cpu.argtypes = [
        ctypes.POINTER(Config), ctypes.c_void_p, ctypes.c_size_t,
        ctypes.c_uint, ctypes.POINTER(ItemMap), ctypes.c_uint,
        ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    lib.gcg_frame_item_map_init.restype = ctypes.c_int
    lib.gcg_frame_item_map_init.argtypes = [
        ctypes.POINTER(ItemMap), ctypes.POINTER(Rect), ctypes.c_uint,
        ctypes.c_uint, ctypes.c_int]
    lib.gcg_postprocess_config_get_results_size.restype = ctypes.c_size_t
    lib.gcg_postprocess_config_get_results_size.argtypes = [
        ctypes.POINTER(Config), ctypes.c_uint]
    return lib


def reference(out, maps, cfg, device):
    """What torchvision keeps, per item: (x, y, w, h, score, label)."""
    items = []
    for i in range(out.shape[0]):
        t = out[i].to(device)
        boxes_c = t[:4].T
        scores, labels = t[4:].max(dim=0)
        keep = scores >= cfg.score_threshold
        idx = keep.nonzero().flatten()
        b = boxes_c[idx]
        xyxy = torch.stack([b[:, 0] - b[:, 2] * 0.5, b[:, 1] - b[:, 3] * 0.5,
                            b[:, 0] + b[:, 2] * 0.5, b[:, 1] + b[:, 3] * 0.5],
                           dim=1)
        kept = torchvision.ops.batched_nms(xyxy, scores[idx], labels[idx],
                                           cfg.iou_threshold)
        kept = kept[:cfg.max_per_item].cpu()
        m = maps[i]
        rows = []
        for k in kept.tolist():
            x1, y1, x2, y2 = [float(v) for v in xyxy[k].cpu()]
            X1 = x1 * m.scale_x + m.offset_x
            Y1 = y1 * m.scale_y + m.offset_y
            X2 = x2 * m.scale_x + m.offset_x
            Y2 = y2 * m.scale_y + m.offset_y
            rows.append((X1, Y1, X2 - X1, Y2 - Y1, float(scores[idx][k]),
                         int(labels[idx][k])))
        items.append(rows)
    return items


def main():
    lib = load(sys.argv[1])
    device = "cuda" if torch.cuda.is_available() else "cpu"
    gen = torch.Generator().manual_seed(35)
    n_items, n_classes, n_cand = 3, 7, 3000
    cfg = Config(DETECT, 0, n_classes, 1, 0, 0.3, 0.5, 100)
    size = lib.gcg_postprocess_config_get_results_size(ctypes.byref(cfg),
                                                      n_items)
    area = ctypes.create_string_buffer(size)
    rois = [Rect(0, 0, 640, 640), Rect(100, 50, 320, 200),
            Rect(17, 300, 90, 180)]
    maps = (ItemMap * n_items)()
    for i in range(n_items):
        assert lib.gcg_frame_item_map_init(ctypes.byref(maps[i]),
                                           ctypes.byref(rois[i]), 640, 640, 1)
    checked = 0
    for rnd in range(5):
        out = torch.zeros(n_items, 4 + n_classes, n_cand)
        # Boxes on a grid of 8 pixels with sizes in 8-pixel steps: IoUs are
        # ratios of small integers, far from 0.5 unless exactly 0.5 (which
        # neither side suppresses) -- except by rounding, which the grid
        # keeps exact in float32.
        out[:, 0] = torch.randint(0, 80, (n_items, n_cand), generator=gen) * 8.0
        out[:, 1] = torch.randint(0, 80, (n_items, n_cand), generator=gen) * 8.0
        out[:, 2] = torch.randint(1, 12, (n_items, n_cand), generator=gen) * 16.0
        out[:, 3] = torch.randint(1, 12, (n_items, n_cand), generator=gen) * 16.0
        # Distinct scores: a permutation of n_classes * n_cand levels.
        perm = torch.randperm(n_classes * n_cand, generator=gen).float()
        out[:, 4:] = (perm / (n_classes * n_cand)).reshape(
            1, n_classes, n_cand).repeat(n_items, 1, 1)
        for i in range(n_items):
            out[i, 4:] = out[i, 4:].roll(i * 17, dims=1)
        flat = out.contiguous()
        ok = lib.gcg_postprocess_run_cpu(
            ctypes.byref(cfg), flat.data_ptr(), flat.numel(), n_cand, maps,
            n_items, rnd, area, size, None)
        assert ok, "gcg_postprocess_run_cpu failed"
        header = Header.from_buffer(area)
        results = (Result * header.n_results).from_buffer(
            area, ctypes.sizeof(Header))
        want = reference(out, maps, cfg, device)
        first = 0
        for i in range(n_items):
            got = results[first:first + header.item_counts[i]]
            first += header.item_counts[i]
            assert len(got) == len(want[i]), (
                "item %d: %d kept, torchvision keeps %d" %
                (i, len(got), len(want[i])))
            for r, w in zip(got, want[i]):
                assert r.label == w[5] and r.item == i, (r.label, w)
                assert r.confidence == w[4], (r.confidence, w[4])
                for a, b in zip((r.x, r.y, r.width, r.height), w[:4]):
                    assert abs(a - b) <= 1e-3 * max(1.0, abs(b)), (a, b)
                checked += 1
    assert checked > 100, checked
    print("%d detections equal torchvision's batched_nms (%s)"
          % (checked, device))


if __name__ == "__main__":
    main()
