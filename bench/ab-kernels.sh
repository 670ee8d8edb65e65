#!/usr/bin/env bash
# A/B of the fused frame kernels on a GPU host, in one run: bench-frame-chain
# and bench-batch with the one-pixel-per-thread kernels (GCG_FRAME_KERNELS=1),
# the *4 kernels (=4) and the library's own choice (auto: unset),
# alternating ROUNDS times so drift shows.  Output under $OUT (or
# ./gpu-out): ab-kernels.txt.
#   bench/ab-kernels.sh [BUILD_DIR=build-gpu] [ROUNDS=2] [VARIANTS="1 4 auto"]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
rounds=${2:-2}
variants=${3:-1 4 auto}
out=${OUT:-gpu-out}
mkdir -p "$out"
[ -f .gpu-bundle/env.sh ] && . .gpu-bundle/env.sh
export LD_LIBRARY_PATH="$PWD/$build/lib:${LD_LIBRARY_PATH:-}"
status=0
for r in $(seq "$rounds"); do
  for k in $variants; do
    echo "== round $r, GCG_FRAME_KERNELS=$k" | tee -a "$out/ab-kernels.txt"
    for b in bench-frame-chain bench-batch; do
      if [ "$k" = auto ]; then unset GCG_FRAME_KERNELS
      else export GCG_FRAME_KERNELS=$k; fi
      timeout 60 "$build/bench/$b" 2>&1 | tee -a "$out/ab-kernels.txt"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    done
  done
done
unset GCG_FRAME_KERNELS
exit $status
