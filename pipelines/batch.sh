#!/usr/bin/env bash
# The example launch lines of cudagraphbatch (gst/batch/gstcudagraphbatch.c):
# four videotestsrc patterns of different formats and sizes batched into
# one tensor per set of frames.  Uses the plugin in ${BUILD:-build}/gst;
# runs on the CPU reference backend where there is no GPU
# (BACKEND=cpu|cuda|auto to choose).
set -euo pipefail
cd "$(dirname "$0")/.."
export GST_PLUGIN_PATH="$PWD/${BUILD:-build}/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
backend=${BACKEND:-auto}
frames=${FRAMES:-60}

sources() {
  echo "videotestsrc num-buffers=$frames pattern=smpte ! video/x-raw,format=NV12,width=1280,height=720 ! b.sink_0" \
    "videotestsrc num-buffers=$frames pattern=ball ! video/x-raw,format=RGBA,width=640,height=480 ! b.sink_1" \
    "videotestsrc num-buffers=$frames pattern=snow ! video/x-raw,format=I420,width=320,height=240 ! b.sink_2" \
    "videotestsrc num-buffers=$frames pattern=circular ! video/x-raw,format=BGR,width=800,height=600 ! b.sink_3"
}

# Four streams into one 4x3x320x320 float32 letterboxed tensor per set of
# frames (the element posts its counters at EOS with -m).
# shellcheck disable=SC2046
gst-launch-1.0 -m cudagraphbatch name=b backend="$backend" width=320 height=320 letterbox=symmetric ! fakesink $(sources)

# The same into an appsink, ImageNet-normalised 224x224 items (what an
# application pulls; see python/gcg/tensor.py, batch_items()).
# shellcheck disable=SC2046
gst-launch-1.0 cudagraphbatch name=b backend="$backend" batch-size=4 width=224 height=224 letterbox=none mean="0.485,0.456,0.406" std="0.229,0.224,0.225" ! appsink name=sink sync=false max-buffers=2 drop=true wait-on-eos=false $(sources)

# Zero copy: the streams uploaded to GStreamer's CUDA memory and the tensor
# left there; needs nvcodec's cudaupload, i.e. a GPU.
if [ "$backend" != cpu ] && gst-inspect-1.0 cudaupload >/dev/null 2>&1; then
  gst-launch-1.0 -m cudagraphbatch name=b width=640 height=640 ! "other/tensors(memory:CUDAMemory)" ! fakesink \
    videotestsrc num-buffers="$frames" ! video/x-raw,format=NV12,width=1920,height=1080 ! cudaupload ! b.sink_0 \
    videotestsrc num-buffers="$frames" pattern=ball ! video/x-raw,format=NV12,width=1280,height=720 ! cudaupload ! b.sink_1
fi
