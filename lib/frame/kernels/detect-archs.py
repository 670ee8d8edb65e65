#!/usr/bin/env python3
# gst-cudagraph
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Print the compute capabilities of this machine's GPUs, one per line as
nvcc names them (90 for 9.0), oldest first; nothing without a GPU or
without nvidia-smi.  lib/meson.build's -Dcuda-archs=auto reads it."""
import re
import shutil
import subprocess


def main():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return
    try:
        out = subprocess.run([smi, "--query-gpu=compute_cap",
                              "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return
    archs = {m.group(1) + m.group(2)
             for m in re.finditer(r"^\s*(\d+)\.(\d+)\s*$", out, re.M)}
    for arch in sorted(archs, key=int):
        print(arch)


if __name__ == "__main__":
    main()
