#!/usr/bin/env python3
# Static SASS instruction counts of the frame kernels, without a GPU.
#
#   tools/profile/sass-count.py [--rev REV] [--arch sm_90] [--kernels RE]
#                               [--hot] [--ops] [--all]
#
# Compiles lib/frame/kernels/gcg-frame-kernels.cu (of the work tree, or of
# git revision REV) to a cubin with the flags lib/meson.build uses, and
# prints each kernel's instruction count: the .text section of the
# kernel in the cubin (16 bytes an instruction from sm_70 on), less the
# NOPs that pad it.  It is a static count: every instruction of the
# kernel once, branches not taken included; the *4 kernels are unrolled
# over their GCG_FK_PX x ROWS pixels, so the count over those pixels is a
# per-pixel figure to compare before and after a change, not what ncu's
# instructions-executed measures.
#
# Only the kernels the benchmarks run are instantiated (the 1080p NV12
# video and tensor rows, the batch), so a compile takes about a minute
# instead of five: the file's own instantiation lines are replaced by
# ours.  --all keeps them (every kernel).  --hot compiles step 6 (colour
# adjustment) out, as the benchmarks never run it: its division and powf
# are otherwise most of each count.
#
# --ops adds a histogram of opcodes, which needs a disassembler:
# nvdisasm from $NVDISASM, PATH or /usr/local/cuda/bin.  An older one
# (CUDA 11.8's, Debian's nvidia-cuda-toolkit) reads CUDA 12+ cubins once
# the ELF header is put back in its old form, which this script does on
# a copy.
import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
KDIR = 'lib/frame/kernels'
SOURCES = ['gcg-frame-kernels.cu', 'gcg-frame-math.h',
           'gcg-frame-kernel-params.h']
# The benchmarks' kernels (bench-frame-chain: NV12 -> 720p RGBA and
# -> 640x640 float32; bench-batch: 16 NV12 -> float32) and their
# one-pixel forms.
MAIN = ['GCG_FK_KERNELS (0, 1)', 'GCG_FK_BATCH (1, 0)',
        'GCG_FK_BATCH4 (1, 0)']
DEFAULT_RE = (r'gcg_frame_(video4?_0_1|tensor4?_0_1_0|batch4?_1_0'
              r'|yuv420_0_1)$')
# The test that skips step 6 (gcg-frame-math.h), for --hot.
ADJUST = 'if (!p->apply_adjust)'
# Lines of gcg-frame-kernels.cu that instantiate kernels.
INSTANCE_RE = re.compile(r'^(GCG_FK_KERNELS_IN|GCG_FK_BATCH4?) \(')


def sources(rev, into):
    for name in SOURCES:
        path = os.path.join(KDIR, name)
        if rev:
            text = subprocess.run(['git', '-C', ROOT, 'show',
                                   f'{rev}:{path}'], check=True,
                                  capture_output=True, text=True).stdout
        else:
            with open(os.path.join(ROOT, path)) as f:
                text = f.read()
        with open(os.path.join(into, name), 'w') as f:
            f.write(text)


def only_main(path):
    with open(path) as f:
        lines = f.read().split('\n')
    kept = [line for line in lines if not INSTANCE_RE.match(line)]
    with open(path, 'w') as f:
        f.write('\n'.join(kept) + '\n' + '\n'.join(MAIN) + '\n')


def no_adjust(path):
    """Step 6 compiled out: the benchmarks run the identity adjustment,
    whose code (a division, powf) is most of a kernel's static count
    but never runs there."""
    with open(path) as f:
        text = f.read()
    if ADJUST not in text:
        sys.exit(f'--hot: no "{ADJUST}" in {path}')
    with open(path, 'w') as f:
        f.write(text.replace(ADJUST, 'if (1)'))


def compile_cubin(tmp, arch):
    nvcc = shutil.which('nvcc') or '/usr/local/cuda/bin/nvcc'
    out = os.path.join(tmp, 'frame.cubin')
    # lib/meson.build's flags, less the fatbin's.
    subprocess.run([nvcc, '-cubin', f'-arch={arch}', '-O3', '-std=c++17',
                    '-fmad=false', '-allow-unsupported-compiler', '-o', out,
                    os.path.join(tmp, 'gcg-frame-kernels.cu')], check=True)
    return out


def elf_sections(data):
    """{name: (offset, size)} of an ELF64 little-endian file."""
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    heads = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize)
             for i in range(shnum)]
    stroff = heads[shstrndx][4]
    out = {}
    for h in heads:
        end = data.index(b'\0', stroff + h[0])
        out[data[stroff + h[0]:end].decode()] = (h[4], h[5])
    return out


def count(data, offset, size):
    """Instructions of a kernel less the trailing NOPs (opcode 0x918)."""
    n = size // 16
    while n > 0:
        word, = struct.unpack_from('<Q', data, offset + (n - 1) * 16)
        if word & 0xfff != 0x918:
            break
        n -= 1
    return n


def find_nvdisasm():
    for c in (os.environ.get('NVDISASM'), shutil.which('nvdisasm'),
              '/usr/local/cuda/bin/nvdisasm'):
        if c and os.access(c, os.X_OK):
            return c
    return None


def opcodes(nvdisasm, cubin, tmp):
    """{kernel: Counter of opcodes} from nvdisasm's listing."""
    data = bytearray(open(cubin, 'rb').read())
    flags, = struct.unpack_from('<I', data, 0x30)
    if data[8] >= 8:
        # CUDA 12's ELF ABI 8 keeps the SM in bits 8-15; the old form
        # (ABI 7) has it in bits 0-7 and 16-23, with 64-bit addressing
        # and unified texture mode.
        sm = (flags >> 8) & 0xff
        data[8] = 7
        struct.pack_into('<I', data, 0x30, sm | 0x500 | (sm << 16))
    patched = os.path.join(tmp, 'patched.cubin')
    with open(patched, 'wb') as f:
        f.write(data)
    text = subprocess.run([nvdisasm, '-c', patched], check=True,
                          capture_output=True, text=True).stdout
    out, kernel = {}, None
    for line in text.split('\n'):
        m = re.match(r'\s*\.text\.(\S+):', line)
        if m:
            kernel = m.group(1)
            out[kernel] = Counter()
            continue
        m = re.match(r'\s+/\*[0-9a-f]+\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)',
                     line)
        if m and kernel and m.group(2) != 'NOP':
            out[kernel][m.group(2)] += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--rev', help='git revision (default: the work tree)')
    ap.add_argument('--arch', default='sm_90')
    ap.add_argument('--kernels', default=DEFAULT_RE,
                    help='regular expression of kernel names')
    ap.add_argument('--all', action='store_true',
                    help='compile every kernel (slow)')
    ap.add_argument('--hot', action='store_true',
                    help='compile step 6 (the adjustment) out')
    ap.add_argument('--ops', action='store_true',
                    help='opcode histogram (needs nvdisasm)')
    ap.add_argument('--keep', help='copy the cubin here')
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        sources(args.rev, tmp)
        if not args.all:
            only_main(os.path.join(tmp, 'gcg-frame-kernels.cu'))
        if args.hot:
            no_adjust(os.path.join(tmp, 'gcg-frame-math.h'))
        cubin = compile_cubin(tmp, args.arch)
        if args.keep:
            shutil.copy(cubin, args.keep)
        data = open(cubin, 'rb').read()
        secs = elf_sections(data)
        names = sorted(s[len('.text.'):] for s in secs
                       if s.startswith('.text.')
                       and re.search(args.kernels, s[len('.text.'):]))
        ops = {}
        if args.ops:
            nvdisasm = find_nvdisasm()
            if nvdisasm is None:
                sys.exit('--ops: no nvdisasm ($NVDISASM, PATH, '
                         '/usr/local/cuda/bin)')
            ops = opcodes(nvdisasm, cubin, tmp)
        print(f'{args.rev or "work tree"}, {args.arch}: static instructions'
              + (', step 6 compiled out' if args.hot else ''))
        for name in names:
            n = count(data, *secs['.text.' + name])
            print(f'{name:32} {n:6}')
            if name in ops:
                top = ops[name].most_common()
                print('    ' + ' '.join(f'{op}:{c}' for op, c in top))


if __name__ == '__main__':
    main()
