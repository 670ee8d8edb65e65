#!/usr/bin/env bash
# GStreamer's own CUDA converter beside ours, in one run on a GPU host:
# Debian 13's GStreamer 1.26 (tools/peers/gpu-bundle-126.sh makes the bundle)
# runs nvcodec's cudaconvertscale and our cudagraphconvert (the plugin of
# BUILD, made against 1.26 by tools/peers/gpu-build-126.sh: a 1.22 build
# does not register its fenced allocator on 1.26) on the same CUDA-memory
# input.
#
#   bench/peer-gst126.sh [BUNDLE=.gpu-bundle-126] [BUILD=build-gpu126]
#
# Environment: FRAMES (timed, 3000), WARMUP (200), RUNS (rows per
# converter, alternating, 1), WORKLOAD: 640 (default: bench-pipeline's
# "cudagraphconvert -> 640x640 RGBA" row, 1080p NV12 letterboxed into
# 640x640 RGBA) or 720p (1080p NV12 -> 1280x720 RGBA, no borders).
# GCG_PEER_CPU=1 runs the same script with system memory and
# videoconvertscale for both (no GPU needed: checks the pipelines parse).
# nvcodec's CUDA elements only register with NVRTC 13 behind the bundle's
# NVRTC shim (tools/peers/nvrtc-arch-shim.c; the bundle's env.sh sets it up):
# it raises nvcodec's compute_52 registration test to an architecture
# NVRTC 13 has; cudaconvertscale's kernels are built for the device's sm_XY
# as GStreamer builds them.
#
# The input is one frame uploaded once (cudaupload) and pushed again and
# again by imagefreeze: the same GstCudaMemory each frame, no copy, so the
# per-frame CPU cost is the converter's and GStreamer's.  Frames go back
# to back (fakesink sync=false); build/bench/bench-launch times the FRAMES
# after WARMUP at the sink: fps, and the process's user + system CPU µs per
# frame.
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=${1:-.gpu-bundle-126}
build=${2:-build-gpu126}
frames=${FRAMES:-3000}
warmup=${WARMUP:-200}
runs=${RUNS:-1}
workload=${WORKLOAD:-640}
cpu=${GCG_PEER_CPU:-0}

for f in "$bundle/bin/run" "$build/bench/bench-launch" "$build/gst/libgstcudagraph.so"; do
  [ -e "$f" ] || {
    echo "peer-gst126: $f is missing (tools/peers/gpu-bundle-126.sh $bundle; tools/peers/gpu-build-126.sh $build)" >&2
    exit 2
  }
done
build=$(cd "$build" && pwd)
bundle=$(cd "$bundle" && pwd)
# Our plugin and its libraries; nothing of another GStreamer.
export GCG126_PREFIX_PATH="$build/lib:$build/gst-libs/gcg-gst"
export GCG126_BUNDLE=$bundle
# shellcheck source=/dev/null
. "$bundle/env.sh"
export GST_PLUGIN_PATH_1_0="$build/gst"
# A fresh registry: one kept from a run with another NVRTC set-up would
# keep nvcodec's elements (or their absence) from then.
export GST_REGISTRY_1_0="${TMPDIR:-/tmp}/gst-registry-126-peer.bin"
rm -f "$GST_REGISTRY_1_0"

mem="(memory:CUDAMemory)"
upload="cudaupload"
if [ "$cpu" = 1 ]; then
  mem=""
  upload="identity"
fi
case $workload in
  640)
    out="video/x-raw$mem,format=RGBA,width=640,height=640,pixel-aspect-ratio=1/1"
    ours="cudagraphconvert backend=cuda in-flight=4 letterbox=symmetric"
    theirs="cudaconvertscale add-borders=true"
    ;;
  720p)
    out="video/x-raw$mem,format=RGBA,width=1280,height=720,pixel-aspect-ratio=1/1"
    ours="cudagraphconvert backend=cuda in-flight=4"
    theirs="cudaconvertscale"
    ;;
  *) echo "peer-gst126: WORKLOAD is 640 or 720p" >&2; exit 2 ;;
esac
t_label="1.26 cudaconvertscale" o_label="cudagraphconvert"
if [ "$cpu" = 1 ]; then
  ours="videoconvertscale"
  theirs="videoconvertscale"
  t_label="videoconvertscale (CPU check)" o_label="videoconvertscale (CPU check)"
fi
src="videotestsrc num-buffers=1 pattern=smpte ! video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1,pixel-aspect-ratio=1/1 ! $upload ! imagefreeze num-buffers=$((warmup + frames))"

run_bundle() { "$bundle/bin/run" "$@"; }

if [ "$cpu" != 1 ] && ! run_bundle "$bundle/libexec/gst-inspect-1.0" cudaconvertscale >/dev/null 2>&1; then
  echo "peer-gst126: 1.26's cudaconvertscale is not registered (nvcodec's NVRTC: ${GST_CUDA_NVRTC_LIBNAME:-none found}, real: ${GCG_NVRTC_REAL:-none}); what nvcodec said:" >&2
  rm -f "$GST_REGISTRY_1_0"
  GST_REGISTRY_FORK=no GST_DEBUG_NO_COLOR=1 \
    GST_DEBUG=nvcodec:4,cudaloader:4,cudanvrtc:5,cudacontext:4 \
    run_bundle "$bundle/libexec/gst-inspect-1.0" nvcodec 2>&1 \
    | grep -E 'nvcodec|cudaloader|cudanvrtc|cudacontext|Warning|Error|features' \
    | tail -n 40 >&2
  exit 1
fi

# One row: label, converter; prints "fps cpu_us caps" and, for ours,
# checks from its stats that the input was read in place.
measure() {
  local label=$1 conv=$2 log
  log=$(mktemp)
  if ! timeout 600 "$bundle/bin/run" "$build/bench/bench-launch" \
    --warmup="$warmup" --frames="$frames" \
    "$src ! $conv ! $out ! fakesink sync=false" >"$log" 2>&1; then
    echo "peer-gst126: $label failed:" >&2
    tail -n 20 "$log" >&2
    rm -f "$log"
    return 1
  fi
  local line fps cpu_us caps stats
  line=$(grep '^frames=' "$log")
  fps=$(sed -n 's/.* fps=\([^ ]*\).*/\1/p' <<<"$line")
  cpu_us=$(sed -n 's/.* cpu_us=\([^ ]*\).*/\1/p' <<<"$line")
  caps=$(sed -n 's/.* caps=//p' <<<"$line")
  stats=$(sed -n 's/^stats=//p' "$log")
  rm -f "$log"
  if [ -n "$stats" ]; then
    local inplace
    inplace=$(sed -n 's/.*in-place-inputs=(guint64)\([0-9]*\).*/\1/p' <<<"$stats")
    if [ -n "$inplace" ] && [ "$inplace" -lt $((warmup + frames)) ]; then
      echo "peer-gst126: $label read $inplace of $((warmup + frames)) frames in place (input copied)" >&2
    fi
  fi
  printf '%s\t%s\t%s\n' "$fps" "$cpu_us" "$caps"
}

# format, width and height of a caps string, and its memory feature.
shape() {
  sed -e 's/.*\(memory:[A-Za-z]*\).*/\1 /;t1' -e 's/.*/system /;:1' <<<"$1" | tr -d '\n'
  grep -o -e 'format=(string)[A-Za-z0-9_]*' -e 'width=(int)[0-9]*' -e 'height=(int)[0-9]*' <<<"$1" \
    | sort | tr '\n' ' '
}

printf 'peer-gst126: GStreamer %s, workload %s, %d frames after %d warm-up, %d run(s) each\n' \
  "$(run_bundle "$bundle/libexec/gst-inspect-1.0" --version | sed -n 's/^GStreamer //p')" \
  "$workload" "$frames" "$warmup" "$runs"
printf '  in:  %s\n  out: %s\n' "$src" "$out"
printf "  nvcodec's NVRTC: %s (real: %s)\n" "${GST_CUDA_NVRTC_LIBNAME:-none}" "${GCG_NVRTC_REAL:-none}"
declare -a t_fps t_cpu o_fps o_cpu
t_caps="" o_caps=""
for ((i = 0; i < runs; i++)); do
  IFS=$'\t' read -r f c t_caps < <(measure "$t_label" "$theirs") || exit 1
  t_fps+=("$f"); t_cpu+=("$c")
  IFS=$'\t' read -r f c o_caps < <(measure "$o_label" "$ours") || exit 1
  o_fps+=("$f"); o_cpu+=("$c")
done

printf '\n| converter | run | fps | CPU µs/frame |\n|---|---|---|---|\n'
for ((i = 0; i < runs; i++)); do
  printf '| %s | %d | %s | %s |\n' "$t_label" "$((i + 1))" "${t_fps[i]}" "${t_cpu[i]}"
  printf '| %s | %d | %s | %s |\n' "$o_label" "$((i + 1))" "${o_fps[i]}" "${o_cpu[i]}"
done
# Ratios of the medians: ours over theirs (fps: higher is better for us;
# CPU: lower is).
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
tf=$(median "${t_fps[@]}"); tc=$(median "${t_cpu[@]}")
of=$(median "${o_fps[@]}"); oc=$(median "${o_cpu[@]}")
awk -v tf="$tf" -v tc="$tc" -v of="$of" -v oc="$oc" 'BEGIN {
  printf "| ours / theirs (medians) | | %.2fx | %.2fx |\n", (tf > 0 ? of / tf : 0), (tc > 0 ? oc / tc : 0) }'
printf '\noutput caps:\n  %s: %s\n  %s: %s\n' "$t_label" "$t_caps" "$o_label" "$o_caps"
if [ "$(shape "$t_caps")" != "$(shape "$o_caps")" ]; then
  echo "peer-gst126: the two outputs differ in memory, format or size" >&2
  exit 1
fi
echo "same output: $(shape "$o_caps")"
