#!/usr/bin/env bash
# Builds the plugin against GStreamer 1.26 for bench/peer-gst126.sh: inside
# the trixie root tools/peers/gpu-bundle-126.sh made (GCG_TRIXIE_ROOT, default
# /var/tmp/gcg-trixie-126), with this checkout bound at its own path so
# the build's paths hold on the GPU host too.  A build made against 1.22
# does not load into 1.26: our fenced allocator subclasses GstCudaAllocator,
# whose class grew (libgstcuda is not ABI-stable across minor versions).
#
#   tools/peers/gpu-build-126.sh [BUILD_DIR=build-gpu126]
#
# Needs root (chroot, bind mounts) and the root from
# tools/peers/gpu-bundle-126.sh.
# The build's dependencies are installed in the root by
# tools/install-deps.sh; the host's CUDA toolkit is bound read-only.
# Objects are dropped and debug info stripped, so BUILD_DIR and the bundle
# fit one device transfer.  bench-launch (GStreamer core only, which is
# ABI-stable) comes from the 1.22 build when the root cannot build the
# benchmarks.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build-gpu126}
root=${GCG_TRIXIE_ROOT:-/var/tmp/gcg-trixie-126}
[ "$(id -u)" -eq 0 ] || { echo "gpu-build-126: needs root" >&2; exit 2; }
[ -x "$root/usr/bin/gst-launch-1.0" ] || {
  echo "gpu-build-126: no trixie root in $root (run tools/peers/gpu-bundle-126.sh)" >&2
  exit 2; }
mounts=()
bind() {  # bind SRC DEST [ro]
  mkdir -p "$2"
  mount --rbind "$1" "$2"
  mount --make-rslave "$2"
  mounts+=("$2")
  if [ "${3:-}" = ro ]; then mount -o remount,bind,ro "$2"; fi
}
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount -R -l "${mounts[$i]}" || true
  done
}
trap cleanup EXIT
cp /etc/resolv.conf "$root/etc/resolv.conf"
bind /proc "$root/proc"
bind /dev "$root/dev"
bind /sys "$root/sys"
if [ -d /usr/local/cuda ]; then
  bind "$(readlink -f /usr/local/cuda)" "$root/usr/local/cuda" ro
fi
bind "$here" "$root$here"
# shellcheck disable=SC2016  # expanded by the root's bash
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  bash -c 'set -e; cd "$1"
    bash tools/install-deps.sh >/tmp/gcg-deps-126.log 2>&1 ||
      { tail -n 20 /tmp/gcg-deps-126.log; exit 1; }
    [ -d "$2" ] || meson setup "$2" -Dcuda-archs=90 -Ddocs=disabled >/dev/null
    ninja -C "$2" gst/libgstcudagraph.so bench/bench-launch >/dev/null
    echo "gpu-build-126: $2 against GStreamer $(pkg-config --modversion gstreamer-1.0)"' \
  build "$here" "$build"
find "$here/$build" \( -name '*.o' -o -name '*.fatbin' -o -name '*-fatbin.c' -o -name '*.a' \) -delete
find "$here/$build" -type f \( -perm -u+x -o -name '*.so*' \) -print0 \
  | while IFS= read -r -d '' f; do
      if file "$f" | grep -q ELF; then strip --strip-debug "$f"; fi
    done
du -sh "$here/$build"
