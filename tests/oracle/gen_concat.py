"""Seeded concatenations of convolution and matmul results, for concatenation in place
(tests/bats/concat_inplace.bats, docs/partitioning.md "Concatenation in place").
gen_concat.py KIND SEED -> graph on stdout (one @main).

KIND:
  conv_c   NHWC convolutions of one input (1x1 or 3x3, 'same' padding, 2-3 of them, each its own
           output channels, some with a ReLU) concatenated along the channels
  conv_h   NHWC convolutions of two inputs of different heights concatenated along H
  conv_nchw  the conv_c convolutions (no ReLU) transposed to NCHW (output views) and concatenated along C
  mm_n     batched matmuls of one A by 2-3 B concatenated along N, with a bias add epilogue
  mm_m     batched matmuls of 2-3 A of different M by one B concatenated along M
  shared   conv_c, but one convolution's result is also a graph result: the concat stays a copy
Shapes and data follow the seed; data are multiples of 1/64."""
import sys
import numpy as np
from tosa_writer import Graph

kind, seed = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(seed * 7919 + sum(map(ord, kind)))
ri = lambda a, b: int(rng.integers(a, b + 1))
g = Graph(rng)
emit, const, arg, transpose = g.emit, g.const, g.arg, g.transpose
matmul, concat = g.matmul, g.concat


def conv(x, oc, k):
    n, h, w, c = x.shape
    z = g.scalar("0.000000e+00")
    p = k // 2
    return emit("tosa.conv2d", [x, const((oc, k, k, c), 0.25), const((oc,), 0.25), z, z], (n, h, w, oc),
                "acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: %d, %d, %d, %d>, "
                "stride = array<i64: 1, 1>" % (p, p, p, p))


def relu(x):
    return emit("tosa.clamp", [x], x.shape, "max_val = 3.40282347E+38 : f32, min_val = 0.000000e+00 : f32")


def conv_parts(x, epilogue=True):
    parts = []
    for i in range(ri(2, 3)):
        y = conv(x, int(rng.choice([4, 8, 12, 32])), int(rng.choice([1, 3])))
        parts.append(relu(y) if epilogue and rng.integers(2) else y)
    return parts


N = ri(1, 2)
extra = []
if kind in ("conv_c", "conv_nchw", "shared"):
    x = arg((N, ri(4, 10), ri(4, 10), int(rng.choice([3, 8, 16]))))
    parts = conv_parts(x, kind != "conv_nchw")  # NCHW: the transposes are output views
    if kind == "conv_nchw":
        res = concat([transpose(p, (0, 3, 1, 2)) for p in parts], 1)
    else:
        res = concat(parts, 3)
    if kind == "shared":
        extra = [parts[0]]
elif kind == "conv_h":
    w, c = ri(4, 10), int(rng.choice([3, 8]))
    oc, k = int(rng.choice([8, 16])), int(rng.choice([1, 3]))
    res = concat([conv(arg((N, ri(3, 9), w, c)), oc, k), relu(conv(arg((N, ri(3, 9), w, c)), oc, k))], 1)
elif kind == "mm_n":
    m, kk = ri(1, 40), ri(4, 48)
    a = arg((N, m, kk))
    parts = []
    for i in range(ri(2, 3)):
        n = ri(3, 40)
        parts.append(emit("tosa.add", [matmul(a, const((N, kk, n))), const((1, 1, n))], (N, m, n)))
    res = concat(parts, 2)
elif kind == "mm_m":
    kk, n = ri(4, 48), ri(3, 40)
    b = arg((N, kk, n))
    res = concat([relu(matmul(arg((N, ri(1, 40), kk)), b)) for _ in range(ri(2, 3))], 1)
else:
    sys.exit("unknown kind " + kind)

g.print("gen_concat.py %s %d" % (kind, seed), [res] + extra, ["1e-4"] * (1 + len(extra)))
