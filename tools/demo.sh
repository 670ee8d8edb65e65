#!/usr/bin/env bash
# The main job: sets up, builds and runs gst-cudagraph's demo pipelines with
# the plugin just built (GST_PLUGIN_PATH=<build>/gst).  With a CUDA driver
# and GPU the elements run the CUDA backend (graph captured once per caps,
# replayed per frame); without, backend=auto falls back to the CPU
# reference backend and says so.  Each run prints the backend that ran and
# the captures/replays/eager counters the element posts at EOS, with fps
# and CPU time per frame; the last line sums it up in one sentence.
#   tools/demo.sh [BUILD_DIR]      FRAMES=N frames per run (300)
#   DEMO_NO_BUILD=1: use BUILD_DIR as it is (a GPU host with the runtime
#   bundle of tools/gpu-host-run.sh: source .gpu-bundle/env.sh first)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
frames=${FRAMES:-300}
if [ -z "${DEMO_NO_BUILD:-}" ]; then
  bash tools/install-deps.sh --demo || exit 1
  opts=()
  if ! { [ -e /dev/nvidiactl ] || command -v nvidia-smi >/dev/null; }; then
    # No GPU: the elements run the CPU reference backend, which needs no
    # CUDA kernel, so none is compiled (minutes of nvcc for GPUs this
    # machine does not have); tools/run-tests.sh builds them in build/.
    [ $# -eq 0 ] && build=build-demo
    opts=(-Dcuda-kernels=disabled)
  fi
  [ -d "$build" ] || meson setup "$build" "${opts[@]}" || exit 1
  # Only what the demo runs: the plugin (and the library under it) and
  # gcg-info; tools/run-tests.sh builds the rest in the same folder.
  ninja -C "$build" gst/libgstcudagraph.so tools/gcg-info || exit 1
fi
export GST_PLUGIN_PATH="$PWD/$build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

if "$build/tools/gcg-info"; then
  echo "demo: CUDA device found: the elements run the CUDA backend"
  why=""
else
  echo "demo: no usable GPU here (reason above): the elements run the CPU reference backend"
  why=" (no GPU found)"
fi

# What one run counts: frames, or batches (cudagraphbatch).
unit=frame units=frames

# What the last run measured (set by run).
last_backend="" last_fps="" last_cpu="" last_stats=""

# run TITLE PIPELINE...: runs it with -m and prints the element's
# cudagraph-stats message (backend, counters), fps and CPU per frame.  The
# CPU per frame leaves out start-up (plugin loading, CUDA's context): it is
# the difference with the same pipeline run for one frame.
run () {
  local title=$1 log stats time cpu cpu1 fps
  shift
  local TIMEFORMAT="cpu %U %S"
  local one=("${@/#num-buffers=$frames/num-buffers=1}")
  echo "demo: $title ..."
  log=$( { time gst-launch-1.0 -m "$@" 2>&1; } 2>&1)
  local rc=$?
  cpu1=$( { time gst-launch-1.0 "${one[@]}" >/dev/null 2>&1; } 2>&1 \
    | grep -o '^cpu [0-9.]* [0-9.]*' | tail -n 1)
  stats=$(grep -o 'cudagraph-stats, .*;' <<<"$log" | head -n 1)
  time=$(grep -o 'Execution ended after [0-9:.]*' <<<"$log" | awk '{print $4}')
  if [ $rc -ne 0 ] || [ -z "$stats" ]; then
    echo "demo: $title FAILED (exit $rc):"
    grep -E 'ERROR|WARNING|debug info|^\.\./' <<<"$log" | head -n 8
    return 1
  fi
  stats=$(sed -e 's/cudagraph-stats, //' -e 's/(string)//; s/(guint64)//g; s/(uint)//g' \
    -e 's/;$//' <<<"$stats")
  grep -o 'no usable GPU (.*): running the CPU reference backend' <<<"$log" \
    | head -n 1 | sed 's/^/demo:   warning: /'
  cpu=$(grep -o '^cpu [0-9.]* [0-9.]*' <<<"$log" | tail -n 1)
  fps=$(awk -v t="$time" -v n="$frames" 'BEGIN { split(t, p, ":");
    s = p[1] * 3600 + p[2] * 60 + p[3]; if (s > 0) printf "%.0f", n / s }')
  cpu=$(awk -v c="$cpu" -v c1="$cpu1" -v n="$frames" 'BEGIN {
    split(c, p, " "); split(c1, q, " "); d = (p[2] + p[3]) - (q[2] + q[3]);
    if (n > 1 && d > 0) printf "%.0f", d * 1e6 / (n - 1); else printf "?" }')
  last_backend=$(grep -o 'backend=[a-z]*' <<<"$stats" | cut -d= -f2)
  last_fps=${fps:-?} last_cpu=$cpu last_stats=$stats
  echo "demo:   $stats"
  echo "demo:   backend $last_backend: $frames ${units} in $time: $last_fps ${units}/s, ${cpu} us CPU per $unit"
}

# The stats field $1 of the last run.
stat () { grep -o "$1=[0-9]*" <<<"$last_stats" | cut -d= -f2; }

# One sentence on the last run of cudagraphpreprocess.
summary () {
  local how
  if [ "$last_backend" = cuda ]; then
    how="the CUDA backend (graph captured $(stat captures) time(s), replayed $(stat replays) times)"
  else
    how="the CPU reference backend$why"
  fi
  echo "cudagraphpreprocess ran $frames frames of 1080p video into a 1x3x640x640 tensor on $how: $last_fps fps, $last_cpu µs CPU per frame${1:-}"
}

# One 1080p NV12 frame repeated: the source costs next to nothing.
src=(videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=1920,height=1080
  ! imagefreeze num-buffers="$frames")

ok=0
run "cudagraphconvert: $frames frames of 1080p NV12 -> 640x360 RGBA" \
  "${src[@]}" ! cudagraphconvert ! \
  video/x-raw,format=RGBA,width=640,height=360 ! fakesink || ok=1
run "cudagraphconvert, same with use-graph=false (eager launches, A/B)" \
  "${src[@]}" ! cudagraphconvert use-graph=false ! \
  video/x-raw,format=RGBA,width=640,height=360 ! fakesink || ok=1
run "cudagraphpreprocess: $frames frames of 1080p NV12 -> 1x3x640x640 float32 tensor, letterboxed" \
  "${src[@]}" ! cudagraphpreprocess width=640 height=640 letterbox=symmetric ! \
  fakesink || ok=1
line=$(summary)
# Zero copy on the GPU: GStreamer's CUDA memory in, the tensor stays in
# CUDA memory (needs nvcodec's cudaupload, i.e. a GPU).
if gst-inspect-1.0 cudaupload >/dev/null 2>&1 && "$build/tools/gcg-info" >/dev/null 2>&1; then
  run "cudagraphpreprocess, CUDA memory in and out (zero copy): $frames frames" \
    videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=1920,height=1080 ! \
    cudaupload ! "video/x-raw(memory:CUDAMemory)" ! \
    imagefreeze num-buffers="$frames" ! \
    cudagraphpreprocess width=640 height=640 letterbox=symmetric ! \
    "other/tensors(memory:CUDAMemory)" ! fakesink || ok=1
  [ "$last_backend" = cuda ] && line=$(summary ", in CUDA memory in and out (zero copy)")
fi
# Four cameras, one graph replay per batch: cudagraphbatch.
batch_src=()
for i in 0 1 2 3; do
  batch_src+=(videotestsrc num-buffers=1 pattern=$((i * 5)) !
    video/x-raw,format=NV12,width=1920,height=1080 !
    imagefreeze num-buffers="$frames" ! b.sink_$i)
done
unit=batch units=batches
run "cudagraphbatch: 4 streams x $frames frames of 1080p NV12 -> 4x3x640x640 float32 batches" \
  cudagraphbatch name=b width=640 height=640 letterbox=symmetric ! fakesink \
  "${batch_src[@]}" || ok=1
if [ $ok -ne 0 ]; then
  echo "demo: FAILED: a run above did not complete (its errors are shown)"
elif [ -n "$last_backend" ]; then
  echo "$line"
fi
exit $ok
