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

kind, seed = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(seed * 104729 + sum(map(ord, kind)))
ri = lambda a, b: int(rng.integers(a, b + 1))
NHWC, NCHW = (0, 2, 3, 1), (0, 3, 1, 2)
lines, args, nval = [], [], [0]


def ty(s):
    return "tensor<%sxf32>" % "x".join(map(str, s))


class V:
    def __init__(self, name, shape):
        self.name, self.shape, self.ty = name, tuple(shape), ty(shape)


def emit(op, operands, shape, attrs=""):
    nval[0] += 1
    v = V("%%v%d" % nval[0], shape)
    a = " <{%s}>" % attrs if attrs else ""
    lines.append('  %s = "%s"(%s)%s : (%s) -> %s' % (v.name, op, ", ".join(o.name for o in operands), a,
                                                   ", ".join(o.ty for o in operands), v.ty))
    return v


def raw(text, t):
    nval[0] += 1
    v = V("%%v%d" % nval[0], ())
    v.ty = t
    lines.append(text % v.name)
    return v


def const(shape, scale=1.0):
    vals = (rng.integers(-64, 65, int(np.prod(shape))) / 64.0 * scale).astype(np.float32)
    v = raw('  %%s = "tosa.const"() <{values = dense<"0x%s"> : %s}> : () -> %s'
            % (vals.tobytes().hex().upper(), ty(shape), ty(shape)), ty(shape))
    v.shape = tuple(shape)
    return v


def zero():
    return raw('  %s = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>',
               "tensor<1xf32>")


def shape_const(vals):
    k = len(vals)
    return raw('  %%s = "tosa.const_shape"() <{values = dense<[%s]> : tensor<%dxindex>}> : () -> !tosa.shape<%d>'
               % (", ".join(map(str, vals)), k, k), "!tosa.shape<%d>" % k)


def arg(shape):
    v = V("%%a%d" % len(args), shape)
    args.append(v)
    return v


def transpose(x, p):
    return emit("tosa.transpose", [x], [x.shape[i] for i in p], "perms = array<i32: %s>" % ", ".join(map(str, p)))


def slice_(x, start, size):
    return emit("tosa.slice", [x, shape_const(start), shape_const(size)], size)


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
    z = zero()
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

print("// gen_nchw_conv.py %s %d" % (kind, seed))
for i in range(len(args)):
    print("// oracle: arg %d -1 1" % i)
for i in range(len(res)):
    print("// oracle: result %d err 1e-4" % i)
print("func.func @main(%s) -> (%s) {" % (", ".join("%s: %s" % (a.name, a.ty) for a in args),
                                        ", ".join(r.ty for r in res)))
print("\n".join(lines))
print("  return %s : %s" % (", ".join(r.name for r in res), ", ".join(r.ty for r in res)))
print("}")
