#!/usr/bin/env bash
# A user kernel in the element's graph (docs/user-kernels.md): the
# vignette of examples/kernels/vignette.cu after cudagraphconvert.  Needs a GPU (user kernels run on
# the CUDA backend only) and NVRTC for the source.  Uses the plugin in
# ${BUILD:-build}/gst; -m prints the cudagraph-stats message.
set -euo pipefail
cd "$(dirname "$0")/.."
export GST_PLUGIN_PATH="$PWD/${BUILD:-build}/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"

# A vignette on 720p RGBA, its strength per frame from a GcgParamsMeta
# field "strength" (0.5 without one).
gst-launch-1.0 -m videotestsrc num-buffers=300 ! video/x-raw,format=RGBA,width=1280,height=720 ! cudagraphconvert backend=cuda kernel-location=examples/kernels/vignette.cu kernel-entry=vignette kernel-params="src=src0,dst=dst0,src_pitch=src_pitch0,dst_pitch=dst_pitch0,width=out_width,height=out_height,strength=meta:strength:f32:0.5" ! fakesink

# The same vignette alone in cudagraphkernel (no built-in op: the kernel
# reads the input planes and writes a new buffer, one graph replay per
# frame), strength 0.8.
gst-launch-1.0 -m videotestsrc num-buffers=300 ! video/x-raw,format=RGBA,width=1280,height=720 ! cudagraphkernel location=examples/kernels/vignette.cu entry=vignette params="src=src0,dst=dst0,src_pitch=src_pitch0,dst_pitch=dst_pitch0,width=out_width,height=out_height,strength=f32:0.8" ! fakesink

# A channel swizzle (RGBA -> BGRA bytes) written in place into each
# writable input buffer, 32x8 threads per block.
gst-launch-1.0 -m videotestsrc num-buffers=300 ! video/x-raw,format=RGBA,width=1280,height=720 ! cudagraphkernel in-place=true block-size=32x8 location=examples/kernels/swizzle.cu entry=swizzle params="src=src0,dst=dst0,src_pitch=src_pitch0,dst_pitch=dst_pitch0,width=out_width,height=out_height,map=u32:0x03000102" ! fakesink
