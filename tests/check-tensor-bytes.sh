#!/bin/sh
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Every byte of every tensor the elements hand downstream is written: a
# model reads the whole tensor, so unused items (fewer ROIs than max-rois,
# fewer streams than batch-size) must not be leftover memory.  Runs the
# elements on the CPU backend under valgrind's memcheck into filesink,
# whose write() of any uninitialised byte is an error (exit 99).  Skips
# (77) without valgrind, which tools/install-deps.sh installs.
#   check-tensor-bytes.sh GST_LAUNCH VALGRIND_SUPPRESSIONS
set -u
launch=$1
supp=$2
if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind is not installed (tools/install-deps.sh installs it)"
  exit 77
fi
src="videotestsrc num-buffers=3 pattern=ball ! video/x-raw,format=NV12,width=64,height=48"
status=0
check () {
  echo "== $1"
  # shellcheck disable=SC2086
  if ! valgrind -q --error-exitcode=99 --track-origins=yes --leak-check=no \
      --suppressions="$supp" "$launch" -q $1; then
    echo "FAILED: $1"
    status=1
  fi
}
check "$src ! cudagraphpreprocess backend=cpu max-rois=4 width=16 height=12 ! filesink location=/dev/null"
check "$src ! cudagraphpreprocess backend=cpu max-rois=3 width=16 height=12 tensor-type=float16 layout=nhwc ! filesink location=/dev/null"
check "cudagraphbatch name=b backend=cpu batch-size=3 max-rois=2 width=16 height=12 ! filesink location=/dev/null $src ! b.sink_0"
check "cudagraphbatch name=b backend=cpu batch-size=4 width=16 height=12 tensor-type=uint8 ! filesink location=/dev/null $src ! b.sink_0 $src ! b.sink_1"
exit $status
