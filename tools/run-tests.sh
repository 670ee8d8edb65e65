#!/usr/bin/env bash
# Sets up, builds and runs every test suite, then prints meson's results as
# `N passed, N failed, N skipped`.  GPU tests skip (and are counted as
# skipped) on machines without a CUDA driver.
#   tools/run-tests.sh [BUILD_DIR] [extra meson setup options...]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}; [ $# -gt 0 ] && shift
bash tools/install-deps.sh || exit 1
if [ ! -d "$build" ]; then
  meson setup "$build" "$@" || exit 1
else
  # Configured before, perhaps with fewer packages installed: what
  # install-deps.sh just added is looked for again.
  meson setup --reconfigure "$build" "$@" >/dev/null || exit 1
fi
ninja -C "$build" || exit 1
meson test -C "$build" --print-errorlogs --num-processes 2
rc=$?
python3 tests/summary.py "$build"
src=$?
[ $rc -eq 0 ] && exit $src
exit $rc
