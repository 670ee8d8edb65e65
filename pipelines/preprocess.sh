#!/usr/bin/env bash
# The example launch lines of cudagraphpreprocess
# (gst/elements/gstcudagraphpreprocess.c).  Uses the plugin in ${BUILD:-build}/gst.
set -euo pipefail
cd "$(dirname "$0")/.."
export GST_PLUGIN_PATH="$PWD/${BUILD:-build}/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

# YOLO-style input: 1x3x640x640 float32 in 0-1, letterboxed.
gst-launch-1.0 -m videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=1920,height=1080 ! cudagraphpreprocess width=640 height=640 letterbox=symmetric ! fakesink

# ImageNet-style input: 1x3x224x224 float32, normalised.
gst-launch-1.0 -m videotestsrc num-buffers=300 ! video/x-raw,format=RGBA,width=1280,height=720 ! cudagraphpreprocess width=224 height=224 letterbox=none mean="0.485,0.456,0.406" std="0.229,0.224,0.225" ! fakesink

# The input a model describes in its .modelinfo file (GStreamer 1.28's
# format): size, layout, type, colour order and normalisation from it.
MODELINFO=${MODELINFO:-tests/data/modelinfo/nchw-f32-rgb.modelinfo}
gst-launch-1.0 -m videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=1280,height=720 ! cudagraphpreprocess model-info="$MODELINFO" ! fakesink

# The same on GStreamer's CUDA memory (nvcodec), read in place; needs
# nvcodec's cudaupload, i.e. a GPU.
if gst-inspect-1.0 cudaupload >/dev/null 2>&1; then
  gst-launch-1.0 -m videotestsrc num-buffers=300 ! video/x-raw,format=NV12,width=1920,height=1080 ! cudaupload ! cudagraphpreprocess width=640 height=640 letterbox=symmetric ! fakesink
fi

# Zero copy in and out: H.264 decoded on the GPU (nvh264dec), read in
# place, the tensor left in CUDA memory for the application (appsink; see
# python/gcg/tensor.py for PyTorch through DLPack).  CLIP=path/to/h264.mp4.
if [ -n "${CLIP:-}" ] && gst-inspect-1.0 nvh264dec >/dev/null 2>&1; then
  gst-launch-1.0 -m filesrc location="$CLIP" ! qtdemux ! h264parse ! nvh264dec ! cudagraphpreprocess width=640 height=640 letterbox=symmetric ! "other/tensors(memory:CUDAMemory)" ! fakesink
fi
