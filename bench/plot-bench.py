#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Charts (PNG) from the benchmarks' printed output.

    bench/plot-bench.py [--out DIR] [--gpu NAME] FILE...

Each FILE is the saved output of `bench-pipeline`, `bench-frame-chain`
and/or `bench/peer-torch.py` (one file may hold several, e.g. a
`tools/gpu-host-run.sh ... bench` log); the tables are found by their
header lines, so their order does not matter.  Writes, for what the files
hold:

  pipeline-fps.png    fps of each memory path (graph, in-flight 4) against
                      the CPU peers and PyTorch end to end
  pipeline-cpu.png    CPU µs per frame of the same, with GStreamer alone
  graph-vs-eager.png  fps against frames in flight, graph and eager
  frame-chain-gpu.png GPU µs per frame of the fused kernels, graph and
                      eager, against the copy bound and PyTorch

Needs matplotlib (Debian: python3-matplotlib).  Exits 1 when no table is
found, 77 without matplotlib.
"""

import argparse
import os
import re
import sys

IN_FLIGHT = 4  # the rows the bar charts show


def cells(line):
    return [c.strip() for c in line.split("|")]


def number(text):
    """A float from a cell ("23.8%", "34.17x", "-" -> None)."""
    m = re.match(r"-?[\d.]+", text.replace(" ", ""))
    return float(m.group(0)) if m else None


def table_after(lines, i, width):
    """The rows of @width cells after header line @i (and a second header
    line when the next one does not start with a row name)."""
    rows = []
    for line in lines[i + 1:]:
        c = cells(line)
        if len(c) < width:
            break
        if c[0] == "":  # the header's second line
            continue
        rows.append(c)
    return rows


def parse(text):
    """Everything the charts use, from one benchmark log."""
    lines = text.splitlines()
    data = {"pipeline": [], "peers": {}, "chain": {}, "torch": {},
            "torch_e2e": [], "gpu": None}
    for i, line in enumerate(lines):
        c = cells(line)
        m = re.match(r"bench-pipeline: ([^;]+);", line)
        if m:
            data["gpu"] = m.group(1)
        m = re.match(r"CPU peer: videoconvertscale n-threads=(\d+)\s+([\d.]+) "
                     r"fps,\s+([\d.]+) CPU", line)
        if m:
            data["peers"]["videoconvertscale, %s thread%s" % (
                m.group(1), "" if m.group(1) == "1" else "s")] = (
                float(m.group(2)), float(m.group(3)))
        m = re.match(r"GStreamer alone .*: ([\d.]+) fps, ([\d.]+) CPU", line)
        if m:
            data["peers"]["GStreamer alone"] = (float(m.group(1)),
                                                float(m.group(2)))
        if c[:4] == ["input", "output", "launch", "in-flight"]:
            for r in table_after(lines, i, 6):
                data["pipeline"].append({
                    "input": r[0], "output": r[1], "launch": r[2],
                    "in_flight": int(r[3]), "fps": number(r[4]),
                    "cpu_us": number(r[5])})
        elif c[:2] == ["output", "graph"]:
            for r in table_after(lines, i, 9):
                data["chain"][r[0]] = {
                    "graph_gpu": number(r[1]), "eager_gpu": number(r[3]),
                    "mb": number(r[5]), "gbs": number(r[6]),
                    "copy_share": number(r[7]) / 100}
        elif c[:2] == ["output", "torch eager"]:
            for r in table_after(lines, i, 9):
                data["torch"][r[0]] = {"eager_gpu": number(r[1]),
                                       "graph_gpu": number(r[3])}
        elif c[:3] == ["input", "torch", "fps"]:
            for r in table_after(lines, i, 4):
                data["torch_e2e"].append({"input": r[0], "launch": r[1],
                                          "fps": number(r[2]),
                                          "cpu_us": number(r[3])})
    return data


def merge(parts):
    data = parse("")
    for d in parts:
        data["pipeline"] += d["pipeline"]
        data["torch_e2e"] += d["torch_e2e"]
        for key in ("peers", "chain", "torch"):
            data[key].update(d[key])
        data["gpu"] = data["gpu"] or d["gpu"]
    return data


def bar_rows(data):
    """(label, fps, cpu µs, kind) for the bar charts: our graph rows at
    IN_FLIGHT frames in flight, then the peers."""
    rows = [("%s → %s" % (r["input"], r["output"]), r["fps"], r["cpu_us"],
             "ours") for r in data["pipeline"]
            if r["launch"] == "graph" and r["in_flight"] == IN_FLIGHT
            and r["fps"] is not None]
    rows += [("PyTorch %s, %s → CUDA" % (r["launch"], r["input"]), r["fps"],
              r["cpu_us"], "peer") for r in data["torch_e2e"]]
    rows += [(name, fps, cpu, "baseline" if name == "GStreamer alone"
              else "peer") for name, (fps, cpu) in data["peers"].items()]
    return rows


COLOURS = {"ours": "#2a7ab0", "peer": "#d07c2c", "baseline": "#999999"}


def barh(plt, rows, value, xlabel, title, path, skip_baseline=False):
    rows = [r for r in rows if not (skip_baseline and r[3] == "baseline")]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.5))
    y = range(len(rows))
    vals = [value(r) for r in rows]
    ax.barh(y, vals, color=[COLOURS[r[3]] for r in rows])
    ax.set_yticks(list(y), [r[0] for r in rows])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    for yi, v in zip(y, vals):
        ax.text(v, yi, " %.0f" % v, va="center", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_graph_vs_eager(plt, data, path, gpu):
    fig, ax = plt.subplots(figsize=(8, 5))
    paths = []
    for r in data["pipeline"]:
        key = (r["input"], r["output"])
        if key not in paths:
            paths.append(key)
    for n, key in enumerate(paths):
        for launch, style in (("graph", "-"), ("eager", "--")):
            pts = sorted((r["in_flight"], r["fps"]) for r in data["pipeline"]
                         if (r["input"], r["output"]) == key
                         and r["launch"] == launch and r["fps"] is not None)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style,
                        marker="o", color="C%d" % n,
                        label="%s → %s, %s" % (key + (launch,)))
    ax.set_xscale("log", base=2)
    ax.set_xlabel("frames in flight")
    ax.set_ylabel("fps")
    ax.set_title("cudagraphpreprocess, graph replay vs eager launches\n%s"
                 % gpu)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_chain(plt, data, path, gpu):
    names = list(data["chain"])
    series = [("graph", lambda c, t: c["graph_gpu"]),
              ("eager", lambda c, t: c["eager_gpu"]),
              # The frame's bytes at the device's measured copy bandwidth.
              ("copy bound", lambda c, t: c["mb"] / (c["gbs"] / c["copy_share"])
               * 1e3)]
    if all(n in data["torch"] for n in names):
        series += [("PyTorch graph", lambda c, t: t["graph_gpu"]),
                   ("PyTorch eager", lambda c, t: t["eager_gpu"])]
    fig, ax = plt.subplots(figsize=(8, 5))
    width = 0.8 / len(series)
    for k, (label, f) in enumerate(series):
        vals = [f(data["chain"][n], data["torch"].get(n)) for n in names]
        xs = [i + k * width for i in range(len(names))]
        ax.bar(xs, vals, width, label=label)
        for x, v in zip(xs, vals):
            ax.text(x, v, "%.1f" % v, ha="center", va="bottom", fontsize=7)
    ax.set_xticks([i + width * (len(series) - 1) / 2 for i in
                   range(len(names))], names)
    ax.set_yscale("log")
    ax.set_ylabel("GPU µs per frame (lower is better)")
    ax.set_title("Frame chain on 1080p NV12: fused kernels vs the copy bound"
                 "\n%s" % gpu)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_all(data, out, gpu):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out, exist_ok=True)
    written = []
    rows = bar_rows(data)
    gpu = gpu or data["gpu"] or "GPU not named"
    if rows:
        where = (" 1080p NV12 → 1×3×640×640 float32, graph, in-flight %d\n%s"
                 % (IN_FLIGHT, gpu))
        written.append(os.path.join(out, "pipeline-fps.png"))
        barh(plt, rows, lambda r: r[1], "frames per second (log)",
             "fps:" + where, written[-1], skip_baseline=True)
        written.append(os.path.join(out, "pipeline-cpu.png"))
        barh(plt, rows, lambda r: r[2], "CPU µs per frame (log, lower is "
             "better)", "CPU per frame:" + where, written[-1])
    if data["pipeline"]:
        written.append(os.path.join(out, "graph-vs-eager.png"))
        plot_graph_vs_eager(plt, data, written[-1], gpu)
    if data["chain"]:
        written.append(os.path.join(out, "frame-chain-gpu.png"))
        plot_chain(plt, data, written[-1], gpu)
    return written


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out", default="bench-plots",
                    help="folder for the PNGs (bench-plots)")
    ap.add_argument("--gpu", help="the GPU named in the titles (default: "
                    "from bench-pipeline's first line)")
    args = ap.parse_args(argv)
    parts = []
    for f in args.files:
        with open(f, encoding="utf-8") as fh:
            parts.append(parse(fh.read()))
    data = merge(parts)
    if not (data["pipeline"] or data["chain"] or data["peers"]):
        print("plot-bench: no benchmark table in %s" % ", ".join(args.files),
              file=sys.stderr)
        return 1
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("plot-bench: needs matplotlib (Debian: python3-matplotlib)",
              file=sys.stderr)
        return 77
    for path in plot_all(data, args.out, args.gpu):
        print("plot-bench: wrote %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
