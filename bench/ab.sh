#!/usr/bin/env bash
# A/B of a library switch read from the environment, on a GPU host, in one
# run: the benchmarks with VAR set to each value in turn ("unset" leaves it
# unset: the library's own choice), alternating ROUNDS times so drift
# shows.  Output under $OUT (or ./gpu-out): ab-VAR.txt.
#   bench/ab.sh VAR "VALUES" [BUILD_DIR=build-gpu] [ROUNDS=2] [BENCH...]
# e.g. the fused kernels' two forms: GCG_FRAME_KERNELS "1 4 unset", on the
# default benchmarks bench-frame-chain and bench-batch.
set -uo pipefail
cd "$(dirname "$0")/.."
var=$1
values=$2
build=${3:-build-gpu}
rounds=${4:-2}
benches=("${@:5}")
[ ${#benches[@]} -gt 0 ] || benches=(bench-frame-chain bench-batch)
out=${OUT:-gpu-out}
mkdir -p "$out"
[ -f .gpu-bundle/env.sh ] && . .gpu-bundle/env.sh
export LD_LIBRARY_PATH="$PWD/$build/lib:${LD_LIBRARY_PATH:-}"
status=0
for r in $(seq "$rounds"); do
  for v in $values; do
    echo "== round $r, $var=$v" | tee -a "$out/ab-$var.txt"
    for b in "${benches[@]}"; do
      if [ "$v" = unset ]; then unset "$var"
      else export "$var=$v"; fi
      timeout 120 "$build/bench/$b" 2>&1 | tee -a "$out/ab-$var.txt"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    done
  done
done
unset "$var"
exit $status
