#!/usr/bin/env bash
# Installs what building and testing gst-cudagraph needs, by Debian package
# name.  The CUDA toolkit (nvcc) is optional: without it the library builds
# without embedded kernels and the GPU backend says so at use.
set -euo pipefail
pkgs=(
  build-essential meson ninja-build pkg-config python3 python3-gi python3-numpy
  libglib2.0-dev gobject-introspection libgirepository1.0-dev gir1.2-glib-2.0
  gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev libgl-dev gstreamer1.0-tools
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gi-docgen
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
