#!/usr/bin/env bash
# Runs on a GPU host over a build tree made elsewhere (same checkout path),
# with the runtime bundle from ../shared/gpu-host/bundle.sh in .gpu-bundle:
# the gpu suite, gcg-info, the demo and the benchmarks, logs under $OUT
# (or ./gpu-out).  The exit status is non-zero when a test failed or
# skipped, or when the demo or a benchmark failed.
#   tools/gpu-host-run.sh [BUILD_DIR] [tests|bench|all|sanitize|soak] [TOOL...]
# sanitize: the gpu suite under compute-sanitizer's memcheck (leaks
# included, API errors not reported: the fault tests make them on
# purpose; kernel-stage is left out: its fault subtest poisons a context
# on purpose), initcheck over the tests that make tensors, then racecheck
# and synccheck over the kernel tests; each
# tool's exit code is non-zero on any report.  All three take longer than
# one 10-minute device call on an H100 (racecheck alone: frame-batch
# ~280 s, frame-queue >90 s): name the tools to run (memcheck, racecheck,
# synccheck, initcheck) to split them across calls.
# soak: tools/soak on the CUDA backend, each mode in turn, or the one
# SOAK_ELEMENT names (convert, preprocess, batch, batch-model:
# cudagraphbatch with the tests' synthetic detector attached and
# postprocess=detect, one to four streams, one joining and one leaving
# every 1 000 frames); 1 000 000 frames each unless SOAK_FRAMES says
# otherwise, a caps change every 10 000, a flush every 50 000: the table
# of samples in $OUT/soak.txt, exit code non-zero when memory grew or a
# frame was lost.  batch-model's 1 000 000 frames are about 510 000
# batches: run it alone (SOAK_ELEMENT=batch-model) where all four modes
# would not fit one device call.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
what=${2:-all}
out=${OUT:-gpu-out}
mkdir -p "$out"
host_ld=${LD_LIBRARY_PATH:-}
. .gpu-bundle/env.sh
# The freshly built libraries (libgcg-1.0, libgcg-gst-1.0) win over any
# copy in the bundle, and a fresh registry forgets plugins an earlier run
# failed to load.
export LD_LIBRARY_PATH="$PWD/$build/lib:$PWD/$build/gst-libs/gcg-gst:\
$LD_LIBRARY_PATH"
export GST_REGISTRY="${TMPDIR:-/tmp}/gcg-registry-$$.bin"
# Every GPU test must run here: a missing driver, device, nvcodec element
# or PyTorch fails its test instead of skipping it (tests/gcg-test-util.h,
# the Python tests), so a broken host cannot look green.
export GCG_TEST_REQUIRE_GPU=1
status=0
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
"$build/tools/gcg-info" > "$out/gcg-info.txt" 2>&1 || status=1
if [ "$what" = soak ]; then
  GST_PLUGIN_PATH="$PWD/$build/gst" "$build/tools/soak" --backend=cuda \
    --frames="${SOAK_FRAMES:-1000000}" --element="${SOAK_ELEMENT:-all}" \
    2>&1 | tee "$out/soak.txt"
  exit "${PIPESTATUS[0]}"
fi
if [ "$what" = sanitize ]; then
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  tools=("${@:3}")
  [ ${#tools[@]} -gt 0 ] || tools=(memcheck initcheck racecheck synccheck)
  run_tool () {  # NAME TOOL-ARGS... -- TESTS...
    local name=$1; shift
    [[ " ${tools[*]} " == *" $name "* ]] || return 0
    local args=()
    while [ "$1" != -- ]; do args+=("$1"); shift; done; shift
    meson test -C "$build" --no-rebuild --suite gpu --print-errorlogs \
      --timeout-multiplier 20 \
      --wrapper "$cs ${args[*]} --error-exitcode 99" "$@" \
      > "$out/sanitize-$name.log" 2>&1 || status=1
    echo "compute-sanitizer $name: $(grep -E '^(Ok|Fail|Timeout|Skipped): ' "$out/sanitize-$name.log" | tr -s ' ' | tr '\n' ' ')"
  }
  # Every C test (the Python one would sanitize the interpreter and
  # PyTorch too).
  run_tool memcheck --tool memcheck --leak-check full --report-api-errors no \
    -- context param-block capture capture-pool graph-update dispatch-graph \
    allocator fence frame-chain frame-chain-wide frame-batch frame-queue \
    frame-queue-batch gst-elements gst-cuda-memory gst-inflight gst-batch \
    gst-pageable model-graph model-chain gst-model kernel-op gst-user-kernel \
    gst-kernel
  # Every byte a kernel or copy reads was written first (tensor tails and
  # unused batch items included), over the tests that make tensors.
  run_tool initcheck --tool initcheck -- frame-chain frame-batch \
    gst-elements gst-batch gst-pageable gst-user-kernel gst-kernel \
    model-chain gst-model
  run_tool racecheck --tool racecheck -- frame-chain frame-batch capture frame-queue
  run_tool synccheck --tool synccheck -- frame-chain frame-batch capture frame-queue
  exit $status
fi
if [ "$what" != bench ]; then
  meson test -C "$build" --no-rebuild --suite gpu --print-errorlogs --verbose > "$out/gpu-tests.log" 2>&1 \
    || status=1
  grep -E "^(not ok|ok|# )" "$out/gpu-tests.log" | grep -vE "^ok" | head -60
  cp "$build/meson-logs/testlog.txt" "$out/testlog.txt" 2>/dev/null
  # --no-skips: on a GPU host a skipped subtest is a failure too.
  # The two-GPU tests skip on a one-GPU host (GCG_TEST_REQUIRE_GPUS=2
  # makes them fail there instead): counted as skipped, not a failure.
  [ "${GCG_TEST_REQUIRE_GPUS:-1}" -ge 2 ] \
    || export GCG_TEST_ALLOW_SKIP='(gst-multi-gpu|python-torch-multi-gpu)$'
  python3 tests/summary.py --no-skips "$build" | tee "$out/summary.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
if [ "$what" != tests ]; then
  DEMO_NO_BUILD=1 FRAMES=300 bash tools/demo.sh "$build" 2>&1 | grep '^demo:' | tee "$out/demo.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1

  # The benchmarks that build pipelines take the plugin just built.
  export GST_PLUGIN_PATH="$PWD/$build/gst"
  for b in "$build"/bench/bench-*; do
    [ -x "$b" ] && [ -f "$b" ] || continue
    # A stopwatch for bench/peer-gst126.sh, not a benchmark of its own.
    [ "$(basename "$b")" = bench-launch ] && continue
    echo "== $(basename "$b")" | tee -a "$out/bench.txt"
    timeout 240 "$b" 2>&1 | tee -a "$out/bench.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
  # The peer, in the same run, with the host's own libraries for PyTorch.
  echo "== peer-torch" | tee -a "$out/bench.txt"
  LD_LIBRARY_PATH="$host_ld" timeout 240 python3 bench/peer-torch.py \
    --ours "$out/bench.txt" 2>&1 | tee -a "$out/bench.txt"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
exit $status
