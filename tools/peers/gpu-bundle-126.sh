#!/usr/bin/env bash
# Builds a runtime bundle of Debian 13's GStreamer 1.26 for a GPU host that
# has the NVIDIA driver and CUDA but no GStreamer: a peer for our elements
# (nvcodec's cudaconvertscale; 1.22's cudaconvert never registers with
# NVRTC 13).  bench/peer-gst126.sh runs the comparison with it.
#
#   tools/peers/gpu-bundle-126.sh [OUTDIR]          (default: .gpu-bundle-126)
#
# Needs root and debootstrap.  The trixie root is made in GCG_TRIXIE_ROOT
# (default /var/tmp/gcg-trixie-126) from the mirror the host's apt uses
# (GCG_LANE_MIRROR overrides it) and reused by the next run when it has
# what the bundle takes.
#
# OUTDIR gets libexec/ (the real gst-launch-1.0, gst-inspect-1.0,
# gst-plugin-scanner), lib/ (their library closure and the plugins', trixie's
# glibc and its loader included: the GPU host's glibc may be older),
# plugins/ (only those the benchmark needs), bin/ (wrappers that run
# everything through the bundled loader: bin/gst-launch-1.0,
# bin/gst-inspect-1.0, bin/gst-plugin-scanner, and bin/run PROGRAM ARGS for
# any other program, e.g. build-gpu/bench/bench-launch) and env.sh.
# libcuda and libnvrtc are the GPU host's: never bundled, found after the
# bundle's libraries on the loader's path; lib/libgcg-nvrtc-shim.so (built
# here from tools/peers/nvrtc-arch-shim.c, needs a C compiler) goes in front of
# libnvrtc so that nvcodec's CUDA elements register with NVRTC 13.
set -euo pipefail
out=${1:-.gpu-bundle-126}
root=${GCG_TRIXIE_ROOT:-/var/tmp/gcg-trixie-126}
arch=x86_64-linux-gnu
rlib=usr/lib/$arch
packages=(gstreamer1.0-tools gstreamer1.0-plugins-base
  gstreamer1.0-plugins-good gstreamer1.0-plugins-bad)
plugins=(coreelements videotestsrc app videoconvertscale nvcodec
  debugutilsbad imagefreeze)
# GStreamer libraries a plugin built elsewhere (ours) links beyond the
# plugins' own closure.
extra_libs=(libgstcuda-1.0.so.0 libgstvideo-1.0.so.0 libgstbase-1.0.so.0
  libgstallocators-1.0.so.0 libgstapp-1.0.so.0 libgmodule-2.0.so.0
  libgstanalytics-1.0.so.0)

# host_mirror: the first Debian archive URI the host's apt uses.
# shellcheck source=SCRIPTDIR/../ci/host-mirror.sh
. "$(dirname "$0")/../ci/host-mirror.sh"

# What the bundle copies from the root: there, it need not install again.
root_ready() {
  local p
  [ -x "$root/usr/bin/gst-launch-1.0" ] && [ -x "$root/usr/bin/gst-inspect-1.0" ] \
    && [ -x "$root/$rlib/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner" ] || return 1
  for p in "${plugins[@]}"; do
    [ -f "$root/$rlib/gstreamer-1.0/libgst$p.so" ] || return 1
  done
}

make_root() {
  [ "$(id -u)" -eq 0 ] || { echo "gpu-bundle-126: needs root (debootstrap, chroot)" >&2; exit 2; }
  if [ ! -x "$root/usr/bin/apt-get" ]; then
    command -v debootstrap >/dev/null || {
      echo "gpu-bundle-126: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
    local mirror=${GCG_LANE_MIRROR:-$(host_mirror)}
    [ -n "$mirror" ] || { echo "gpu-bundle-126: no mirror in /etc/apt/sources.list*" >&2; exit 2; }
    echo "gpu-bundle-126: debootstrap --variant=minbase trixie $root from $mirror"
    mkdir -p "$root"
    debootstrap --variant=minbase trixie "$root" "$mirror" >"$root.log" 2>&1 || {
      tail -n 20 "$root.log" >&2; exit 1; }
  fi
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod +x "$root/usr/sbin/policy-rc.d"
  mkdir -p "$root/proc"
  mount -t proc proc "$root/proc"
  trap 'umount "$root/proc" 2>/dev/null || umount -l "$root/proc"' EXIT
  echo "gpu-bundle-126: apt-get install ${packages[*]} in $root"
  # Some packages' scripts may fail in a bare chroot (services, desktop
  # schemas); what counts is that the files the bundle takes are there.
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    DEBIAN_FRONTEND=noninteractive bash -c \
    'apt-get update -q && apt-get install -y -q --no-install-recommends "$@"' \
    apt "${packages[@]}" >>"$root.log" 2>&1 \
    || echo "gpu-bundle-126: apt-get reported errors (see $root.log)" >&2
  umount "$root/proc" 2>/dev/null || umount -l "$root/proc"
  trap - EXIT
}

root_ready || make_root
root_ready || { echo "gpu-bundle-126: $root lacks GStreamer's files after install (see $root.log)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/bin" "$out/libexec" "$out/lib" "$out/plugins" "$out/gio-modules"

# Copies @1's library closure, as trixie's loader resolves it in the root,
# into lib/ (glibc included).  The loader runs the library list itself
# (--list), so nothing of the host's libraries leaks in.
add_closure() {
  chroot "$root" "/$rlib/ld-linux-x86-64.so.2" --list "$1" \
    | awk '/=> \// {print $3}' | while read -r dep; do
      [ -f "$out/lib/$(basename "$dep")" ] || cp -L "$root$dep" "$out/lib/"
    done
}

# All of trixie's glibc, not only what GStreamer's closure names: the
# host's libcuda and libnvrtc still link libpthread, libdl, librt and libm,
# and one of the host's (older) copies in this process crashes it.
for l in ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libmvec.so.1 libdl.so.2 \
  libpthread.so.0 librt.so.1 libresolv.so.2 libutil.so.1 libanl.so.1 \
  libnss_files.so.2 libnss_dns.so.2; do
  cp -L "$root/$rlib/$l" "$out/lib/"
done
for b in usr/bin/gst-launch-1.0 usr/bin/gst-inspect-1.0 \
  "$rlib/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner"; do
  cp -L "$root/$b" "$out/libexec/"
  add_closure "/$b"
done
for p in "${plugins[@]}"; do
  cp -L "$root/$rlib/gstreamer-1.0/libgst$p.so" "$out/plugins/"
  add_closure "/$rlib/gstreamer-1.0/libgst$p.so"
done
for l in "${extra_libs[@]}"; do
  [ -f "$out/lib/$l" ] || cp -L "$root/$rlib/$l" "$out/lib/"
  add_closure "/$rlib/$l"
done
# nvcodec's registration test compiles for compute_52, which NVRTC 13
# rejects: a shim in front of the host's NVRTC raises too old a virtual
# architecture (tools/peers/nvrtc-arch-shim.c says why and what it leaves
# alone).
# Built here against glibc >= 2.34 (dlopen in libc), so that it needs
# nothing beyond the bundle's libc.
${CC:-cc} -std=c11 -shared -fPIC -O2 -o "$out/lib/libgcg-nvrtc-shim.so" \
  "$(dirname "$0")/nvrtc-arch-shim.c"
if readelf -d "$out/lib/libgcg-nvrtc-shim.so" | grep NEEDED | grep -qv 'libc\.so'; then
  echo "gpu-bundle-126: the NVRTC shim needs more than libc (glibc < 2.34 here?)" >&2
  exit 1
fi
# Debian strips its packages already; what is left is the symbol tables of
# a few, and glibc's loader keeps its own (valgrind reads them).
find "$out/lib" "$out/plugins" "$out/libexec" -type f ! -name 'ld-linux*' \
  ! -name 'libc.so.*' -exec strip --strip-unneeded {} + 2>/dev/null || true

cat >"$out/env.sh" <<'E'
# Source on the GPU host (sh or bash):  . .gpu-bundle-126/env.sh
# Programs of this bundle run through its loader: bin/gst-launch-1.0 etc.,
# or bin/run PROGRAM ARGS for any other.  GCG126_PREFIX_PATH (folders,
# colon-separated) goes before the bundle's libraries: the lead's build
# (build-gpu/lib, build-gpu/gst-libs/gcg-gst), never another GStreamer.
# GCG126_BUNDLE names the bundle where sh cannot tell where this file is.
b=${GCG126_BUNDLE:-$(cd "$(dirname "${BASH_SOURCE:-$0}")" 2>/dev/null && pwd)}
[ -f "$b/lib/ld-linux-x86-64.so.2" ] || b=$(pwd)/.gpu-bundle-126
export GCG126_BUNDLE="$b"
# The host's driver (libcuda) and CUDA (libnvrtc), after the bundle's.
h=/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu:/usr/lib64:/usr/local/nvidia/lib64
for c in "${CUDA_HOME:-}" /usr/local/cuda; do
  [ -n "$c" ] && [ -d "$c/lib64" ] && h="$h:$c/lib64"
  [ -n "$c" ] && [ -d "$c/targets/x86_64-linux/lib" ] && h="$h:$c/targets/x86_64-linux/lib"
done
export GCG126_LIBRARY_PATH="${GCG126_PREFIX_PATH:+$GCG126_PREFIX_PATH:}$b/lib:$h"
# The host's NVRTC (1.26's nvcodec opens "libnvrtc.so", which CUDA's
# runtime-only installs lack), behind lib/libgcg-nvrtc-shim.so: nvcodec's
# registration test asks for compute_52, which NVRTC 13 rejects, and the
# shim raises it to the oldest architecture NVRTC has.  GCG126_NVRTC_SHIM=0
# gives nvcodec the host's NVRTC directly (its CUDA elements then do not
# register on CUDA 13).
if [ -z "${GST_CUDA_NVRTC_LIBNAME:-}" ]; then
  if [ -z "${GCG_NVRTC_REAL:-}" ]; then
    for c in "${CUDA_HOME:-/usr/local/cuda}" /usr/local/cuda; do
      for f in "$c"/lib64/libnvrtc.so "$c"/lib64/libnvrtc.so.[0-9]*; do
        if [ -f "$f" ] && [ -z "${GCG_NVRTC_REAL:-}" ]; then
          export GCG_NVRTC_REAL="$f"
        fi
      done
    done
  fi
  if [ -n "${GCG_NVRTC_REAL:-}" ]; then
    if [ "${GCG126_NVRTC_SHIM:-1}" = 1 ]; then
      export GST_CUDA_NVRTC_LIBNAME="$b/lib/libgcg-nvrtc-shim.so"
    else
      export GST_CUDA_NVRTC_LIBNAME="$GCG_NVRTC_REAL"
    fi
  fi
fi
export PATH="$b/bin:$PATH"
export GST_PLUGIN_SYSTEM_PATH_1_0="$b/plugins"
export GST_PLUGIN_SYSTEM_PATH="$b/plugins"
export GST_PLUGIN_SCANNER_1_0="$b/bin/gst-plugin-scanner"
export GST_PLUGIN_SCANNER="$b/bin/gst-plugin-scanner"
# A registry of its own (a caller's GST_REGISTRY_1_0 is kept): never the
# 1.22 bundle's GST_REGISTRY.
export GST_REGISTRY_1_0="${GST_REGISTRY_1_0:-${TMPDIR:-/tmp}/gst-registry-126.bin}"
export GST_REGISTRY="$GST_REGISTRY_1_0"
# The host's GIO modules are built against another GLib.
export GIO_MODULE_DIR="$b/gio-modules"
E

cat >"$out/bin/run" <<'R'
#!/bin/sh
# Runs PROGRAM (an ELF file) through the bundle's loader and libraries.
GCG126_BUNDLE=$(cd "$(dirname "$0")/.." && pwd)
. "$GCG126_BUNDLE/env.sh"
[ $# -ge 1 ] || { echo "usage: $0 PROGRAM [ARGS]" >&2; exit 2; }
exec "$GCG126_BUNDLE/lib/ld-linux-x86-64.so.2" --library-path "$GCG126_LIBRARY_PATH" "$@"
R
for t in gst-launch-1.0 gst-inspect-1.0 gst-plugin-scanner; do
  cat >"$out/bin/$t" <<W
#!/bin/sh
b=\$(cd "\$(dirname "\$0")/.." && pwd)
exec "\$b/bin/run" "\$b/libexec/$t" "\$@"
W
done
chmod +x "$out/bin/"*

du -sh "$out" | awk '{print "gpu-bundle-126: " $1 " in " $2}'
