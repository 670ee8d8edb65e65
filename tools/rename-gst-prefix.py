#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Gives the GStreamer side's names the GstCudaGraph prefix (issue 25).

tools/rename-gst-prefix.py [ROOT]

What gst/ and gst-libs/ define is named for the GStreamer side
(GstCudaGraph..., gst_cuda_graph_..., GST_CUDA_GRAPH_...); what lib/
defines keeps the engine's Gcg.  This renames, in every tracked text file
under ROOT (default: the repository this script is in), the names gst/
and gst-libs/ still defined with Gcg: the tensor, batch metas and their
parts, API and registered names, the CUDA output pool, the fenced
allocator and the pinned memory.  Names in RENAMES only, whole words only
(a Python mirror's leading underscore and a layout version suffix such as
V1 are kept), so it can be run again after a merge: a second run changes
nothing.  A line holding the marker `rename-gst-prefix: keep` is left as
it is (the old registered names a newer reader still looks up).

Kept on purpose: the library's own names (libgcg-gst-1.0, gcg-gst-1.0.pc,
GcgGst-1.0, GCG_GST_API, GCG_GST_COMPILATION, the log domain), and the
strings users write (the "GcgParamsMeta" custom meta and its structure's
name, field names, caps fields, debug category names).
"""
import os
import re
import subprocess
import sys

# Old prefix -> new prefix.  "word" entries must match a whole name (the
# name itself; a V<digits> suffix, a Python layout version, is allowed);
# "prefix" entries rename every name that starts with them.
WORDS = {
    # gst-libs/gcg-gst/gstcudagraphtensormeta.h
    "GcgTensorMetaItem": "GstCudaGraphTensorMetaItem",
    "GcgTensorMetaTensor": "GstCudaGraphTensorMetaTensor",
    "GcgTensorMetaAPI": "GstCudaGraphTensorMetaAPI",
    "GcgTensorMeta": "GstCudaGraphTensorMeta",
    "GcgTensorMemory": "GstCudaGraphTensorMemory",
    "gcg_buffer_add_tensor_meta": "gst_cuda_graph_buffer_add_tensor_meta",
    "gcg_buffer_get_tensor_meta": "gst_cuda_graph_buffer_get_tensor_meta",
    # gst-libs/gcg-gst/gstcudagraphbatchmeta.h
    "GcgBatchMetaSource": "GstCudaGraphBatchMetaSource",
    "GcgBatchMetaItem": "GstCudaGraphBatchMetaItem",
    "GcgBatchMetaAPI": "GstCudaGraphBatchMetaAPI",
    "GcgBatchMeta": "GstCudaGraphBatchMeta",
    "gcg_buffer_add_batch_meta": "gst_cuda_graph_buffer_add_batch_meta",
    "gcg_buffer_get_batch_meta": "gst_cuda_graph_buffer_get_batch_meta",
    # gst-libs/gcg-gst/gstcudagraphparamsmeta.c (a static debug category;
    # the category's name, "gcgparamsmeta", is what users write: kept)
    "gcg_gst_params_meta_debug": "gst_cuda_graph_params_meta_debug",
    # gst/memory/gstcudagraphcudapool.c, gstcudagraphpinnedallocator.c
    "GcgCudaOutputPoolClass": "GstCudaGraphCudaOutputPoolClass",
    "GcgCudaOutputPool": "GstCudaGraphCudaOutputPool",
    "GcgFencedAllocatorClass": "GstCudaGraphFencedAllocatorClass",
    "GcgFencedAllocator": "GstCudaGraphFencedAllocator",
    "GcgPinnedMemory": "GstCudaGraphPinnedMemory",
}
PREFIXES = {
    "GCG_TENSOR_META_": "GST_CUDA_GRAPH_TENSOR_META_",
    "GCG_TENSOR_MEMORY_": "GST_CUDA_GRAPH_TENSOR_MEMORY_",
    "GCG_BATCH_META_": "GST_CUDA_GRAPH_BATCH_META_",
    "gcg_tensor_meta_": "gst_cuda_graph_tensor_meta_",
    "gcg_batch_meta_": "gst_cuda_graph_batch_meta_",
    # G_DEFINE_TYPE's names: _get_type, _init, _class_init, _parent_class
    "gcg_cuda_output_pool": "gst_cuda_graph_cuda_output_pool",
    "gcg_fenced_allocator": "gst_cuda_graph_fenced_allocator",
}

KEEP = "rename-gst-prefix: keep"
SELF = os.path.join("tools", "rename-gst-prefix.py")

# Not preceded by a letter or digit (an underscore may precede: Python's
# private mirrors); a word ends where no letter or digit follows, or at a
# layout version suffix (V1, V2).
_WORD = re.compile(r"(?<![A-Za-z0-9])(%s)(?=V[0-9]|[^A-Za-z0-9]|$)"
                   % "|".join(sorted(WORDS, key=len, reverse=True)))
_PREFIX = re.compile(r"(?<![A-Za-z0-9])(%s)"
                     % "|".join(sorted(PREFIXES, key=len, reverse=True)))


def rename_line(line):
    if KEEP in line:
        return line
    line = _WORD.sub(lambda m: WORDS[m.group(1)], line)
    return _PREFIX.sub(lambda m: PREFIXES[m.group(1)], line)


def rename_file(path):
    """Renames in @path; True when it changed.  Binary files (and any
    that is not UTF-8) are left alone."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        return False
    if "\0" in text:
        return False
    new = "".join(rename_line(l) for l in text.splitlines(keepends=True))
    if new == text:
        return False
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(new)
    return True


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    files = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                           check=True, capture_output=True,
                           text=True).stdout.split("\0")
    changed = [f for f in files
               if f and f != SELF and os.path.isfile(os.path.join(root, f))
               and not os.path.islink(os.path.join(root, f))
               and rename_file(os.path.join(root, f))]
    for f in changed:
        print(f)
    print("%d files changed" % len(changed), file=sys.stderr)


if __name__ == "__main__":
    main()
