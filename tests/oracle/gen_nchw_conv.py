"""Seeded NCHW convolutions as torch-mlir writes them, for the operand views of convolution
kernels (tests/bats/conv_views.bats). gen_nchw_conv.py KIND SEED -> graph on stdout (one @main).

KIND:
  conv   input [N,C,H,W] and weights [OC,C,KH,KW] are arguments, each transposed to NHWC / OHWI
         straight into tosa.conv2d (both transposes stay: they become strided reads of the
         convolution's kernel); a 1x1, 3x3 or 7x7 kernel, stride 1 or 2, padding per side; the
         result is transposed back to NCHW and clamped (ReLU)
  slice  an NHWC argument sliced (start offsets in H, W and channels) into a convolution with
         constant weights, and a strided 1x1 convolution of an even image whose trailing row the
         frontend trims with a tosa.slice (TOSA 1.0 exact geometry); both slices are strided
         reads of their convolution
  chain  an NCHW argument transposed, then sliced, into a convolution (one view of two ops)
Shapes and data follow the seed; data are multiples of 1/64."""
import sys
import numpy as np
from tosa_writer import Graph

kind, seed = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(seed * 104729 + sum(map(ord, kind)))
ri = lambda a, b: int(rng.integers(a, b + 1))
NHWC, NCHW = (0, 2, 3, 1), (0, 3, 1, 2)
g = Graph(rng)
emit, const, arg, transpose, slice_ = g.emit, g.const, g.arg, g.transpose, g.slice


def conv(x, w, k, stride, pad):
    """NHWC conv2d of x with OHWI weights w; `pad` is [top, bottom, left, right], the trailing
    padding adjusted so that TOSA 1.0's exact division holds."""
    n, h, wd, c = x.shape
    oc = w.shape[0]
    pad = list(pad)
    out = []
    for d, size in enumerate((h, wd)):
        r = (size - 1 + pad[2 * d] + pad[2 * d + 1] - (k - 1)) % stride
        pad[2 * d + 1] += -r if pad[2 * d + 1] >= r else stride - r
        out.append((size - 1 + pad[2 * d] + pad[2 * d + 1] - (k - 1)) // stride + 1)
    z = g.scalar("0.000000e+00")
    return emit("tosa.conv2d", [x, w, const((oc,), 0.25), z, z], (n, out[0], out[1], oc),
                "acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: %s>, stride = array<i64: %d, %d>"
                % (", ".join(map(str, pad)), stride, stride))


def relu(x):
    return emit("tosa.clamp", [x], x.shape, "max_val = 3.40282347E+38 : f32, min_val = 0.000000e+00 : f32")


N = ri(1, 2)
if kind == "conv":
    k = int(rng.choice([1, 3, 7]))
    stride = ri(1, 2)
    c, oc = int(rng.choice([3, 4, 8, 32])), int(rng.choice([4, 8, 16, 32]))
    h, w = ri(k, k + 9), ri(k, k + 9)
    pad = [ri(0, k // 2) for _ in range(4)]
    x = transpose(arg((N, c, h, w)), NHWC)
    wt = transpose(arg((oc, c, k, k)), NHWC)
    res = relu(transpose(conv(x, wt, k, stride, pad), NCHW))
elif kind == "slice":
    c = int(rng.choice([4, 8, 32, 64]))
    h, w = ri(6, 12), ri(6, 12)
    x = arg((N, h, w, c))
    s0 = [0, ri(0, 2), ri(0, 2), int(rng.choice([0, c // 4]))]
    size = [N, h - s0[1] - ri(0, 1), w - s0[2] - ri(0, 1), c - s0[3] - int(rng.choice([0, c // 4]))]
    k = int(rng.choice([1, 3]))
    y = relu(conv(slice_(x, s0, size), const((16, k, k, size[3]), 0.25), k, ri(1, 2), [k // 2] * 4))
    # the slice the frontend puts before a strided 1x1 convolution of an even image (exact
    # geometry: the last row and column are never read)
    eh, ew = 2 * ri(3, 6), 2 * ri(3, 6)
    e = slice_(arg((N, eh, ew, c)), [0, 0, 0, 0], [N, eh - 1, ew - 1, c])
    z = conv(e, const((8, 1, 1, c), 0.25), 1, 2, [0, 0, 0, 0])
    res = [y, z]
elif kind == "chain":
    c, h, w = int(rng.choice([3, 8, 16])), ri(6, 12), ri(6, 12)
    x = transpose(arg((N, c, h, w)), NHWC)
    s0 = [0, ri(0, 2), ri(0, 2), 0]
    size = [N, h - s0[1] - 1, w - s0[2] - 1, c]
    k = int(rng.choice([1, 3]))
    res = relu(conv(slice_(x, s0, size), const((8, k, k, c), 0.25), k, ri(1, 2), [k // 2] * 4))
else:
    sys.exit("unknown kind " + kind)
res = res if isinstance(res, list) else [res]

g.print("gen_nchw_conv.py %s %d" % (kind, seed), res, ["1e-4"] * len(res))
