#!/usr/bin/env bash
# Runs on a GPU host over a build tree made elsewhere (same checkout path),
# with the runtime bundle from ../shared/gpu-host/bundle.sh in .gpu-bundle:
# the gpu suite, gcg-info, the demo and the benchmarks, logs under $OUT
# (or ./gpu-out).
#   tools/gpu-host-run.sh [BUILD_DIR] [tests|bench|all]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
what=${2:-all}
out=${OUT:-gpu-out}
mkdir -p "$out"
host_ld=${LD_LIBRARY_PATH:-}
. .gpu-bundle/env.sh
# The freshly built library wins over any copy in the bundle, and a fresh
# registry forgets plugins an earlier run failed to load.
export LD_LIBRARY_PATH="$PWD/$build/lib:$LD_LIBRARY_PATH"
export GST_REGISTRY="${TMPDIR:-/tmp}/gcg-registry-$$.bin"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
"$build/tools/gcg-info" > "$out/gcg-info.txt" 2>&1
if [ "$what" != bench ]; then
  meson test -C "$build" --no-rebuild --suite gpu --print-errorlogs --verbose > "$out/gpu-tests.log" 2>&1
  grep -E "^(not ok|ok|# )" "$out/gpu-tests.log" | grep -vE "^ok" | head -60
  cp "$build/meson-logs/testlog.txt" "$out/testlog.txt" 2>/dev/null
  python3 tests/summary.py "$build" | tee "$out/summary.txt"
fi
if [ "$what" != tests ]; then
  DEMO_NO_BUILD=1 FRAMES=300 bash tools/demo.sh "$build" 2>&1 | grep '^demo:' | tee "$out/demo.txt"

  for b in "$build"/bench/bench-*; do
    [ -x "$b" ] && [ -f "$b" ] || continue
    echo "== $(basename "$b")" | tee -a "$out/bench.txt"
    timeout 240 "$b" 2>&1 | tee -a "$out/bench.txt"
  done
  # The peer, in the same run, with the host's own libraries for PyTorch.
  echo "== peer-torch" | tee -a "$out/bench.txt"
  LD_LIBRARY_PATH="$host_ld" timeout 240 python3 bench/peer-torch.py \
    --ours "$out/bench.txt" 2>&1 | tee -a "$out/bench.txt"
fi
