# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""gcg.tensor's ctypes mirrors of the tensor and batch metas against the C
layout: every field of each C struct at the same offset with the same
size in the mirror, the mirror with no field C lacks, and the same
sizeof; and its element-type tables against the C one (names, sizes).  The C side is what tests/common/print-meta-layout.c prints
(argv[1]), compiled from the installed headers' definitions.

test_meta_layout.py PRINT-META-LAYOUT
"""
import ctypes
import subprocess
import sys

from gcg import tensor

# C struct -> its mirror in gcg.tensor.
MIRRORS = {
    "GstCudaGraphTensorMetaItem": tensor._GstCudaGraphTensorMetaItem,
    "GstCudaGraphTensorMetaTensor": tensor._GstCudaGraphTensorMetaTensor,
    "GstCudaGraphTensorMeta": tensor._GstCudaGraphTensorMeta,
    "GstCudaGraphBatchMetaSource": tensor._GstCudaGraphBatchMetaSource,
    "GstCudaGraphBatchMetaItem": tensor._GstCudaGraphBatchMetaItem,
    "GstCudaGraphBatchMeta": tensor._GstCudaGraphBatchMeta,
}


def c_layout(program):
    """{struct: ({field: (offset, size)}, sizeof)} as the compiler has it."""
    out = subprocess.run([program], check=True, capture_output=True,
                         text=True).stdout
    layout = {}
    for line in out.splitlines():
        struct, field, offset, size = line.split()
        if struct in ("dtype", "tensor-type"):
            continue
        fields, sizeof = layout.get(struct, ({}, None))
        if field == "-":
            sizeof = int(size)
        else:
            fields[field] = (int(offset), int(size))
        layout[struct] = (fields, sizeof)
    return layout


def mirror_layout(cls):
    return {name: (getattr(cls, name).offset, getattr(cls, name).size)
            for name, _ in cls._fields_}


def problems(layout):
    found = []
    if set(layout) != set(MIRRORS):
        found.append("structs printed %s, mirrored %s"
                     % (sorted(layout), sorted(MIRRORS)))
    for struct, (fields, sizeof) in sorted(layout.items()):
        cls = MIRRORS.get(struct)
        if cls is None:
            continue
        mirror = mirror_layout(cls)
        for field, where in sorted(fields.items()):
            if mirror.get(field) != where:
                found.append("%s.%s: C (offset, size) %s, mirror %s"
                             % (struct, field, where, mirror.get(field)))
        for field in sorted(set(mirror) - set(fields)):
            found.append("%s.%s: in the mirror, not in C" % (struct, field))
        if ctypes.sizeof(cls) != sizeof:
            found.append("sizeof %s: C %s, mirror %d"
                         % (struct, sizeof, ctypes.sizeof(cls)))
    return found


def c_dtypes(program):
    """[(kind, index, name, size)]: the C table of element types."""
    out = subprocess.run([program], check=True, capture_output=True,
                         text=True).stdout
    return [(k, int(i), n, int(s)) for k, i, n, s in
            (line.split() for line in out.splitlines())
            if k in ("dtype", "tensor-type")]


def dtype_problems(rows):
    found = []
    model = {i: (n, s) for k, i, n, s in rows if k == "dtype"}
    mirror = {i: (r[0], r[3] // 8) for i, r in tensor._MODEL_DTYPES.items()}
    if model != mirror:
        found.append("GcgModelDtype: C %s, _MODEL_DTYPES %s" % (model, mirror))
    types = {i: n for k, i, n, _ in rows if k == "tensor-type"}
    mirror = {i: r[0] for i, r in tensor._DTYPES.items()}
    if types != mirror:
        found.append("GcgTensorType: C %s, _DTYPES %s" % (types, mirror))
    return found


def main():
    layout = c_layout(sys.argv[1])
    # The check itself can fail: a mirror with a field moved is caught.
    moved = {s: (dict(f), n) for s, (f, n) in layout.items()}
    off, size = moved["GstCudaGraphBatchMetaItem"][0]["scale_x"]
    moved["GstCudaGraphBatchMetaItem"][0]["scale_x"] = (off + 8, size)
    if not problems(moved):
        print("a moved field went unnoticed")
        return 1
    found = problems(layout) + dtype_problems(c_dtypes(sys.argv[1]))
    for p in found:
        print(p)
    print("%d structs, %d fields checked, %d problems"
          % (len(layout), sum(len(f) for f, _ in layout.values()),
             len(found)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
