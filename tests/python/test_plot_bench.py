# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/plot-bench.py on checked-in benchmark output (tests/data/bench,
copied from bench/README.md): the tables are read right and the four
charts are written as PNG files.  Exit 77 (skip) without matplotlib."""
import importlib.util
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
DATA = os.path.join(ROOT, "tests", "data", "bench")

spec = importlib.util.spec_from_file_location(
    "plot_bench", os.path.join(ROOT, "bench", "plot-bench.py"))
plot_bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot_bench)


def read(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return plot_bench.parse(f.read())


def check_parse():
    pipe = read("bench-pipeline-h100.txt")
    assert pipe["gpu"] == "NVIDIA H100 80GB HBM3", pipe["gpu"]
    assert len(pipe["pipeline"]) == 32, len(pipe["pipeline"])
    row = [r for r in pipe["pipeline"] if r["input"] == "CUDA"
           and r["launch"] == "graph" and r["in_flight"] == 4]
    assert len(row) == 1 and row[0]["fps"] == 62592.2 \
        and row[0]["cpu_us"] == 25.1, row
    assert pipe["peers"]["GStreamer alone"] == (249320.2, 6.3)
    assert pipe["peers"]["videoconvertscale, 16 threads"][0] == 1265.2
    chain = read("bench-frame-chain-h200.txt")["chain"]
    assert chain["tensor"]["graph_gpu"] == 8.05
    assert abs(chain["video"]["copy_share"] - 0.109) < 1e-9
    torch = read("peer-torch-h100.txt")["torch"]
    assert torch["video"] == {"eager_gpu": 250.62, "graph_gpu": 194.70}
    assert not plot_bench.parse("no table here")["pipeline"]


def main():
    check_parse()
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("SKIP: no matplotlib (Debian: python3-matplotlib); the "
              "parsing was checked")
        return 77
    files = [os.path.join(DATA, f) for f in sorted(os.listdir(DATA))]
    with tempfile.TemporaryDirectory() as out:
        assert plot_bench.main(["--out", out, "--gpu", "sample data"]
                               + files) == 0
        names = sorted(os.listdir(out))
        assert names == ["frame-chain-gpu.png", "graph-vs-eager.png",
                         "pipeline-cpu.png", "pipeline-fps.png"], names
        for n in names:
            with open(os.path.join(out, n), "rb") as f:
                head = f.read(8)
            assert head == b"\x89PNG\r\n\x1a\n", n
            assert os.path.getsize(os.path.join(out, n)) > 10000, n
        empty = os.path.join(out, "empty.txt")
        open(empty, "w").close()
        assert plot_bench.main(["--out", out, empty]) == 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
