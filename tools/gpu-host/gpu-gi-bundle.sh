#!/usr/bin/env bash
# Adds PyGObject (and the decoding plugins of the examples) to a GPU-host
# runtime bundle (../shared/gpu-host/bundle.sh
# makes the rest): Debian's gi package, libgirepository and the typelibs
# the Python tests and examples import, so a Python 3.11 with PyTorch on
# the GPU host can drive pipelines through gi.  Source BUNDLE/gi/env.sh
# after BUNDLE/env.sh on the host.
#   tools/gpu-host/gpu-gi-bundle.sh [BUNDLE=.gpu-bundle]
set -euo pipefail
cd "$(dirname "$0")/../.."
bundle=${1:-.gpu-bundle}
gi=/usr/lib/python3/dist-packages/gi
typelibs=/usr/lib/x86_64-linux-gnu/girepository-1.0
[ -d "$gi" ] || { echo "gpu-gi-bundle: no $gi (apt-get install python3-gi)"; exit 1; }
rm -rf "$bundle/gi"
mkdir -p "$bundle/gi/py" "$bundle/gi/typelib"
cp -r "$gi" "$bundle/gi/py/"
rm -rf "$bundle/gi/py/gi/__pycache__"
for t in GLib-2.0 GObject-2.0 Gio-2.0 GModule-2.0 Gst-1.0 GstBase-1.0 \
    GstVideo-1.0 GstApp-1.0 GstCuda-1.0 CudaGst-1.0 GstGL-1.0 \
    GstAllocators-1.0 GstAudio-1.0 GstPbutils-1.0 GstTag-1.0; do
  [ -f "$typelibs/$t.typelib" ] && cp "$typelibs/$t.typelib" "$bundle/gi/typelib/"
done
cp -L /usr/lib/x86_64-linux-gnu/libgirepository-1.0.so.1 "$bundle/lib/"
# What the examples' decoding needs besides the stock set: urisourcebin,
# parsebin and decodebin, MP4 demuxing, type finding.
plugins=/usr/lib/x86_64-linux-gnu/gstreamer-1.0
for p in playback isomp4 typefindfunctions; do
  cp "$plugins/libgst$p.so" "$bundle/plugins/"
done
for l in libgstriff-1.0.so.0 libgstrtp-1.0.so.0; do
  cp -L "/usr/lib/x86_64-linux-gnu/$l" "$bundle/lib/"
done
cat > "$bundle/gi/env.sh" <<'ENV'
# Source on the GPU host after .gpu-bundle/env.sh: PyGObject for Python 3.11.
g=$(cd "$(dirname "${BASH_SOURCE:-$0}")" 2>/dev/null && pwd)
export PYTHONPATH="$g/py${PYTHONPATH:+:$PYTHONPATH}"
export GI_TYPELIB_PATH="$g/typelib${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}"
ENV
