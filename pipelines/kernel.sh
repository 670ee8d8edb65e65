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

# The same vignette BEFORE cudagraphpreprocess's letterbox and normalise:
# it writes a scratch copy of the input that the preprocess then reads,
# all in one graph (kernel-position=before; its size is the input's).
gst-launch-1.0 -m videotestsrc num-buffers=300 ! video/x-raw,format=RGBA,width=1280,height=720 ! cudagraphpreprocess backend=cuda kernel-position=before kernel-location=examples/kernels/vignette.cu kernel-entry=vignette kernel-params="src=src0,dst=dst0,src_pitch=src_pitch0,dst_pitch=dst_pitch0,width=in_width,height=in_height,strength=f32:0.4" ! fakesink

# A kernel after cudagraphbatch, over the whole uint8 tensor of two
# streams (one z slice per item): it inverts every item written.
INVERT='extern "C" __global__ void invert (const gcg_params *p) { int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y; if (x >= p->w || y >= p->h || blockIdx.z >= p->n) return; size_t plane = (size_t) p->w * p->h; unsigned char *t = (unsigned char *) p->t + blockIdx.z * 3 * plane + (size_t) y * p->w + x; for (int c = 0; c < 3; c++) t[c * plane] = 255 - t[c * plane]; }'
gst-launch-1.0 -m cudagraphbatch name=b backend=cuda tensor-type=uint8 kernel-entry=invert kernel-source="$INVERT" kernel-params="t=dst0,w=out_width,h=out_height,n=items" ! fakesink \
  videotestsrc num-buffers=100 ! video/x-raw,width=640,height=480 ! b. \
  videotestsrc num-buffers=100 pattern=ball ! video/x-raw,width=320,height=240 ! b.
