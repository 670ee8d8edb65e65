#!/usr/bin/env bash
# The main job: sets up, builds and runs gst-cudagraph's demo pipelines with
# the plugin just built (GST_PLUGIN_PATH=<build>/gst).  With a CUDA driver
# and GPU the elements run the CUDA backend (graph captured once per caps,
# replayed per frame); without, backend=auto falls back to the CPU
# reference backend and says so.  Each run prints the backend that ran and
# the captures/replays/eager counters the element posts at EOS.
#   tools/demo.sh [BUILD_DIR]      FRAMES=N frames per run (300)
#   DEMO_NO_BUILD=1: use BUILD_DIR as it is (a GPU host with the runtime
#   bundle of tools/gpu-host-run.sh: source .gpu-bundle/env.sh first)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
frames=${FRAMES:-300}
if [ -z "${DEMO_NO_BUILD:-}" ]; then
  bash tools/install-deps.sh || exit 1
  [ -d "$build" ] || meson setup "$build" || exit 1
  ninja -C "$build" || exit 1
fi
export GST_PLUGIN_PATH="$PWD/$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

if "$build/tools/gcg-info"; then
  echo "demo: CUDA device found: the elements run the CUDA backend"
else
  echo "demo: no usable GPU here (reason above): the elements run the CPU reference backend"
fi

# run TITLE PIPELINE...: runs it with -m and prints the element's
# cudagraph-stats message (backend, counters) and the wall time.
run () {
  local title=$1 log stats time
  shift
  log=$(gst-launch-1.0 -m "$@" 2>&1)
  local rc=$?
  stats=$(grep -o 'cudagraph-stats, .*;' <<<"$log" | head -n 1)
  time=$(grep -o 'Execution ended after [0-9:.]*' <<<"$log" | awk '{print $4}')
  if [ $rc -ne 0 ] || [ -z "$stats" ]; then
    echo "demo: $title FAILED (exit $rc):"
    grep -E 'ERROR|WARNING|debug info|^\.\./' <<<"$log" | head -n 8
    return 1
  fi
  stats=$(sed -e 's/cudagraph-stats, //' -e 's/(string)//; s/(guint64)//g' \
    -e 's/;$//' <<<"$stats")
  echo "demo: $title"
  grep -o 'no usable GPU (.*): running the CPU reference backend' <<<"$log" \
    | head -n 1 | sed 's/^/demo:   warning: /'
  echo "demo:   $stats, wall time $time"
}

ok=0
run "cudagraphconvert: $frames frames of 1080p NV12 -> 640x360 RGBA" \
  videotestsrc num-buffers="$frames" ! \
  video/x-raw,format=NV12,width=1920,height=1080 ! \
  cudagraphconvert ! video/x-raw,format=RGBA,width=640,height=360 ! \
  fakesink || ok=1
run "cudagraphconvert, same with use-graph=false (eager launches, A/B)" \
  videotestsrc num-buffers="$frames" ! \
  video/x-raw,format=NV12,width=1920,height=1080 ! \
  cudagraphconvert use-graph=false ! \
  video/x-raw,format=RGBA,width=640,height=360 ! fakesink || ok=1
run "cudagraphpreprocess: $frames frames of 1080p NV12 -> 1x3x640x640 float32 tensor, letterboxed" \
  videotestsrc num-buffers="$frames" ! \
  video/x-raw,format=NV12,width=1920,height=1080 ! \
  cudagraphpreprocess width=640 height=640 letterbox=symmetric ! \
  fakesink || ok=1
exit $ok
