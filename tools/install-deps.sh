#!/usr/bin/env bash
# Installs what building and testing gst-cudagraph needs, by Debian package
# name (Debian 12 and 13): everything `bash tools/run-tests.sh`,
# `bash tools/demo.sh` and .ci/run use, so that no test skips for want of
# a package (tools/ci-lane.sh checks this in a fresh Debian root).  The
# CUDA toolkit (nvcc) is optional: without it the library builds without
# embedded kernels and the GPU backend says so at use.
#
#   tools/install-deps.sh           everything (the tests, CI)
#   tools/install-deps.sh --demo    only what tools/demo.sh needs: the
#                                   build and the elements its pipelines
#                                   run (minutes less on a bare machine)
set -euo pipefail
demo_pkgs=(
  build-essential meson ninja-build pkg-config python3
  libglib2.0-dev libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  # videotestsrc, imagefreeze, gst-launch-1.0
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
)
# With a GPU the demo also runs GStreamer's CUDA memory (cudaupload) and the
# plugin is built with its interop; without one, plugins-bad and the
# OpenCV it pulls in are left for the tests.
if [ -e /dev/nvidiactl ] || command -v nvidia-smi >/dev/null; then
  demo_pkgs+=(libgstreamer-plugins-bad1.0-dev libgl-dev gstreamer1.0-plugins-bad)
fi
pkgs=(
  # build
  build-essential meson ninja-build pkg-config python3
  libglib2.0-dev gobject-introspection libgirepository1.0-dev gir1.2-glib-2.0
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev libgl-dev
  # the Python binding and tests
  python3-gi python3-numpy gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  # stock elements the tests and the demo run: videotestsrc, appsink,
  # jpegenc/multipartmux (good), x264enc (ugly), avdec_h264 (libav)
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
  # the analytics example's face detector (OpenCV and its Haar cascades)
  python3-opencv opencv-data
  # bench/plot-bench.py
  python3-matplotlib
  # tests/check-tensor-bytes.sh: every tensor byte written (memcheck)
  valgrind
  # the API reference (-Ddocs=enabled)
  gi-docgen
)
[ "${1:-}" = --demo ] && pkgs=("${demo_pkgs[@]}")
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
