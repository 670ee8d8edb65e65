#!/usr/bin/env bash
# A/B of two builds of the tree on a GPU host, in one run: each benchmark
# of BENCHES from build A, then from build B (its own libraries and
# plugin), alternating ROUNDS times so that drift shows; the output under
# $OUT (or ./gpu-out) in ab-builds.txt.  Build A may be a copy of an older
# build's lib/, gst/, gst-libs/ and bench/ (all a benchmark needs), so
# both fit in one carry.
#   bench/ab-builds.sh A B [ROUNDS=2] [BENCH...]
# e.g. bench/ab-builds.sh build-gpu-base build-gpu 3 bench-frame-chain \
#        bench-batch bench-batch-pipeline
set -uo pipefail
cd "$(dirname "$0")/.."
# The bundle's env.sh first: it sets shell variables of its own.
[ -f .gpu-bundle/env.sh ] && . .gpu-bundle/env.sh
ab_a=$1
ab_b=$2
rounds=${3:-2}
benches=("${@:4}")
[ ${#benches[@]} -gt 0 ] || benches=(bench-frame-chain bench-batch)
out=${OUT:-gpu-out}
mkdir -p "$out"
base_ld=${LD_LIBRARY_PATH:-}
status=0
for r in $(seq "$rounds"); do
  for build in "$ab_a" "$ab_b"; do
    export LD_LIBRARY_PATH="$PWD/$build/lib:$PWD/$build/gst-libs/gcg-gst:$base_ld"
    export GST_PLUGIN_PATH="$PWD/$build/gst"
    export GST_REGISTRY_1_0="/tmp/gcg-ab-registry-$(basename "$build").bin"
    for bench in "${benches[@]}"; do
      echo "== round $r, $build, $bench" | tee -a "$out/ab-builds.txt"
      timeout 240 "$build/bench/$bench" 2>&1 | tee -a "$out/ab-builds.txt"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    done
  done
done
exit $status
