#!/usr/bin/env bash
# The example launch lines of cudagraphconvert (gst/elements/gstcudagraphconvert.c).
# Uses the plugin in ${BUILD:-build}/gst; -m prints the element's
# cudagraph-stats message (backend, captures, replays, eager-frames).
set -euo pipefail
cd "$(dirname "$0")/.."
export GST_PLUGIN_PATH="$PWD/${BUILD:-build}/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

# Converts and scales 1080p NV12 to 640x360 RGBA.
gst-launch-1.0 -m videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=1920,height=1080 ! cudagraphconvert ! video/x-raw,format=RGBA,width=640,height=360 ! fakesink

# Crops the centre, letterboxes it into a square and brightens it.
gst-launch-1.0 -m videotestsrc num-buffers=300 ! video/x-raw,width=1280,height=720 ! cudagraphconvert crop-x=320 crop-width=640 letterbox=symmetric brightness=0.1 ! video/x-raw,format=BGR,width=640,height=640 ! fakesink

# The same on GStreamer's CUDA memory (nvcodec), read and written in
# place; needs nvcodec's cudaupload and cudadownload, i.e. a GPU.
if gst-inspect-1.0 cudaupload >/dev/null 2>&1; then
  gst-launch-1.0 -m videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=1920,height=1080 ! cudaupload ! cudagraphconvert ! 'video/x-raw(memory:CUDAMemory),format=RGBA,width=640,height=360' ! cudadownload ! fakesink
fi
