#!/usr/bin/env python3
"""Give a graph real (non-splat) weights: every float constant of two or more elements gets
seeded random values of magnitude 2^-7 .. 2^-3 (the shapes, types and every other constant stay).
Two seeds give the same model with every weight changed (tests/bench/cache_bench.sh).
  reweight.py IN.mlir OUT.mlir SEED"""
import random
import re
import sys
from functools import reduce

BYTES = {"f32": 4, "f16": 2, "bf16": 2}
PAT = re.compile(r'dense<(?:"0x[0-9A-Fa-f]+"|[-+0-9.eE]+)>(\s*:\s*tensor<([0-9x]+)x(f32|f16|bf16)>)')


def numel(dims):
    return reduce(lambda a, b: a * b, (int(d) for d in dims.split("x")), 1)


def main():
    src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(seed)
    # the top byte of each little-endian element: sign and exponent of a small magnitude
    top = bytes(0x3C | (b & 0x81) for b in range(256))
    changed = 0

    def sub(m):
        nonlocal changed
        n, es = numel(m.group(2)), BYTES[m.group(3)]
        if n < 2:
            return m.group(0)
        data = bytearray(rng.randbytes(n * es))
        data[es - 1 :: es] = bytes(data[es - 1 :: es]).translate(top)
        changed += 1
        return 'dense<"0x%s">%s' % (data.hex().upper(), m.group(1))

    text = PAT.sub(sub, open(src).read())
    open(dst, "w").write(text)
    print("%d weight tensors given seed %d" % (changed, seed), file=sys.stderr)


main()
