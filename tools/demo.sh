#!/usr/bin/env bash
# The main job: sets up, builds and shows what gst-cudagraph does on this
# machine.  With a CUDA driver and GPU it reports the device and loads the
# embedded kernels; without, it says that the CPU reference backend is what
# would run here.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bash tools/install-deps.sh || exit 1
[ -d "$build" ] || meson setup "$build" || exit 1
ninja -C "$build" || exit 1
if "$build/tools/gcg-info"; then
  echo "demo: CUDA backend available on this machine"
else
  echo "demo: no usable GPU here (reason above): the CPU reference backend is what runs on this machine"
fi
