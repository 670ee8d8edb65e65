#!/usr/bin/env bash
# Builds a slim tree for a GPU host (H100/H200: sm_90 only) that fits the
# device tool's 64 MiB transfer with the runtime bundle: object files are
# dropped and binaries lose their debug info once built.  Then makes the
# bundle (../shared/gpu-host/bundle.sh) with the plugin's library closure.
#   tools/gpu-build.sh [BUILD_DIR=build-gpu]
# On the GPU host: tools/gpu-host-run.sh BUILD_DIR all
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
[ -d "$build" ] || meson setup "$build" -Dcuda-archs=90 >/dev/null
ninja -C "$build" >/dev/null
# Intermediates the GPU host never needs: objects, the fatbin and the C
# source generated from it (the library embeds it).
find "$build" \( -name '*.o' -o -name '*.fatbin' -o -name '*-fatbin.c' \) -delete
find "$build" -type f \( -perm -u+x -o -name '*.so*' \) -print0 \
  | while IFS= read -r -d '' f; do
      if file "$f" | grep -q ELF; then strip --strip-debug "$f"; fi
    done
if [ -x ../shared/gpu-host/bundle.sh ]; then
  ../shared/gpu-host/bundle.sh .gpu-bundle "$build/gst/libgstcudagraph.so" \
    >/dev/null
  rm -f .gpu-bundle/lib/libgcg*     # the build's own libraries must win
  bash tools/gpu-gi-bundle.sh .gpu-bundle
fi
du -sh "$build" .gpu-bundle
