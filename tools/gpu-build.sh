#!/usr/bin/env bash
# Builds a slim tree for a GPU host (H100/H200: sm_90 only) that fits the
# device tool's 64 MiB transfer with the runtime bundle: object files are
# dropped and binaries lose their debug info once built.  Then makes the
# bundle (../shared/gpu-host/bundle.sh) with the plugin's library closure.
#   tools/gpu-build.sh [BUILD_DIR=build-gpu]
#   GCG_GPU_ARCHS=auto tools/gpu-build.sh build-gpu-ptx: the default build
#   of a machine without a GPU (PTX only), to check on the GPU host that
#   the driver compiles it there
# On the GPU host: tools/gpu-host-run.sh BUILD_DIR all
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
stash=".gpu-objs/$build"
[ -d "$build" ] || meson setup "$build" -Dcuda-archs="${GCG_GPU_ARCHS:-90}" >/dev/null
# The intermediates set aside by the last run come back (timestamps
# intact), so ninja rebuilds only what changed.
if [ -d "$stash" ]; then
  (cd "$stash" && find . -type f -print0) \
    | while IFS= read -r -d '' f; do
        mkdir -p "$build/$(dirname "$f")"
        mv -f "$stash/$f" "$build/$f"
      done
fi
ninja -C "$build" >/dev/null
# Intermediates the GPU host never needs (objects, the fatbin and the C
# source generated from it, which the library embeds) are set aside,
# out of what the device tool carries.
find "$build" \( -name '*.o' -o -name '*.fatbin' -o -name '*-fatbin.c' \) -print0 \
  | while IFS= read -r -d '' f; do
      mkdir -p "$stash/$(dirname "${f#$build/}")"
      mv -f "$f" "$stash/${f#$build/}"
    done
find "$build" -type f \( -perm -u+x -o -name '*.so*' \) -print0 \
  | while IFS= read -r -d '' f; do
      if file "$f" | grep -q ELF; then strip --strip-debug "$f"; fi
    done
if [ -x ../shared/gpu-host/bundle.sh ]; then
  ../shared/gpu-host/bundle.sh .gpu-bundle "$build/gst/libgstcudagraph.so" \
    >/dev/null
  rm -f .gpu-bundle/lib/libgcg*     # the build's own libraries must win
  bash tools/gpu-host/gpu-gi-bundle.sh .gpu-bundle
fi
du -sh "$build" .gpu-bundle
