#!/usr/bin/env bash
# A/B of a library switch read from the environment, as bench/ab.sh, for
# one benchmark with its own arguments: BENCH ARGS... from BUILD_DIR with
# VAR set to each of VALUES in turn ("unset" leaves it unset: the
# library's own choice), alternating ROUNDS times in one GPU run so that
# drift shows.  Output under $OUT (or ./gpu-out): ab-run-VAR.txt.
#   bench/ab-run.sh VAR "VALUES" BUILD_DIR ROUNDS BENCH [ARG...]
# e.g. completion marks against an event per frame, CUDA in and out:
#   bench/ab-run.sh GCG_COMPLETION "event graph" build-gpu 5 \
#     bench-pipeline --input=CUDA --no-kernels --cpu-frames=0 --frames=20000
set -uo pipefail
cd "$(dirname "$0")/.."
# The bundle's env.sh first: it sets shell variables of its own.
[ -f .gpu-bundle/env.sh ] && . .gpu-bundle/env.sh
if [ $# -lt 5 ]; then
  echo "usage: $0 VAR \"VALUES\" BUILD_DIR ROUNDS BENCH [ARG...]" >&2
  exit 2
fi
var=$1
values=$2
build=$3
rounds=$4
bench=$5
shift 5
out=${OUT:-gpu-out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/$build/lib:$PWD/$build/gst-libs/gcg-gst:${LD_LIBRARY_PATH:-}"
export GST_PLUGIN_PATH="$PWD/$build/gst"
export GST_REGISTRY_1_0="/tmp/gcg-ab-registry-$(basename "$build").bin"
status=0
for r in $(seq "$rounds"); do
  for v in $values; do
    echo "== round $r, $var=$v, $bench $*" | tee -a "$out/ab-run-$var.txt"
    if [ "$v" = unset ]; then unset "$var"
    else export "$var=$v"; fi
    timeout 240 "$build/bench/$bench" "$@" 2>&1 | tee -a "$out/ab-run-$var.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
done
unset "$var"
exit $status
