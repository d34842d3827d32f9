#!/usr/bin/python3
"""gen_bn.py KIND SEED > graph.mlir: seeded TOSA 1.0 graphs for the optimiser's folding tests
(tests/bats/optimize_fold.bats), with random constants written as hex literals.

KIND:
  resnet  NCHW ResNet block as torch-mlir writes it: tosa.transpose of the input and of the
          constant weights around each conv2d, batch norm as sub / add(var, eps) / rsqrt /
          reshape / mul / mul / add, ReLU, a second conv with BN, the residual add
  resnet_mixed  the same block (same constants) as a PyTorch exporter mixes dialects into it:
          linalg.transpose, tensor.pad before a conv2d without padding, ReLU as a linalg.generic
          with arith.maximumf, the residual as arith.addf on tensors
  nhwc    TF-style NHWC: conv2d then mul/add by 1x1x1xC constants, depthwise_conv2d then
          sub/mul/add, ReLU6
  shared  one weight constant read by two convolutions (only one has a BN chain), one BN mean
          read by two chains, and a conv whose result is also a graph result (must not fold)
  matmul  matmul with constant weights, then mul and add per column
  int     an i8 conv2d (i32 result) followed by an integer per-channel sub/mul/add chain: must
          not fold into the weights
  bound   a constant broadcast into a 256x256 one (must stay a kernel) added to the input
  intconst  integer ops on constants (rescale, table, negate with zero points, shifts, clz,
          intdiv, mul with a shift) added to an i32 input
  half    a chain of f16 and bf16 ops on constants (exp, mul, add, rsqrt, cast, reduce_sum,
          transpose, slice, pad, concat, tile, reverse) added to an f16 input
"""
import sys

import numpy as np


class G:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.lines = []
        self.n = 0
        self.mixed = False

    def name(self):
        self.n += 1
        return "%%v%d" % self.n

    def emit(self, s):
        self.lines.append("    " + s)

    def const(self, arr, ty):
        nm = self.name()
        et = ty.split("x")[-1].rstrip(">")
        if et == "f32":
            raw = np.asarray(arr, dtype="<f4").tobytes()
        elif et == "f16":
            raw = np.asarray(arr, dtype="<f2").tobytes()
        elif et == "bf16":
            f = np.asarray(arr, dtype="<f4").view("<u4")
            raw = ((f + 0x7FFF + ((f >> 16) & 1)) >> 16).astype("<u2").tobytes()
        elif et in ("i8", "i32"):
            raw = np.asarray(arr, dtype={"i8": "i1", "i32": "<i4"}[et]).tobytes()
        else:
            raise ValueError(et)
        self.emit('%s = "tosa.const"() <{values = dense<"0x%s"> : %s}> : () -> %s'
                  % (nm, raw.hex().upper(), ty, ty))
        return nm

    def splat(self, v, ty):
        nm = self.name()
        self.emit('%s = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s' % (nm, v, ty, ty))
        return nm

    def op(self, text, *args):
        nm = self.name()
        self.emit(("%s = " % nm) + (text % args))
        return nm

    def shape(self, dims):
        nm = self.name()
        self.emit("%s = tosa.const_shape {values = dense<[%s]> : tensor<%dxindex>} : () -> !tosa.shape<%d>"
                  % (nm, ", ".join(map(str, dims)), len(dims), len(dims)))
        return nm

    def rand(self, shape, lo=-1.0, hi=1.0):
        return self.rng.uniform(lo, hi, size=shape).astype(np.float32)


def t(dims, et="f32"):
    return "tensor<%sx%s>" % ("x".join(map(str, dims)), et)


def zero(g, et="f32"):
    return g.splat("0.0" if et[0] in "fb" else "0", "tensor<1x%s>" % et)


def shift(g):
    return g.splat("0", "tensor<1xi8>")


def transpose(g, x, dims, perm, et="f32"):
    out = [dims[p] for p in perm]
    if g.mixed:
        e = g.op("tensor.empty() : %s", t(out, et))
        return g.op("linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [%s]", x, t(dims, et), e, t(out, et),
                    ", ".join(map(str, perm))), out
    return g.op("tosa.transpose %s {perms = array<i32: %s>} : (%s) -> %s", x, ", ".join(map(str, perm)),
                t(dims, et), t(out, et)), out


def conv_nchw(g, x, n, c, h, w, oc):
    """torch-mlir's conv2d: NCHW in, NHWC conv with transposed constant weights, NCHW out."""
    wt = g.const(g.rand((oc, c, 3, 3), -0.3, 0.3), t([oc, c, 3, 3]))
    b = g.const(np.zeros(oc, np.float32), t([oc]))
    xt, _ = transpose(g, x, [n, c, h, w], [0, 2, 3, 1])
    wtt, _ = transpose(g, wt, [oc, c, 3, 3], [0, 2, 3, 1])
    z = zero(g)
    pad, xin = "1, 1, 1, 1", t([n, h, w, c])
    if g.mixed:  # the padding as its own tensor.pad, the convolution without
        c0 = g.op("arith.constant 0.000000e+00 : f32")
        xin = t([n, h + 2, w + 2, c])
        xt = g.op("tensor.pad %s low[0, 1, 1, 0] high[0, 1, 1, 0] {\n    ^bb0(%%i0: index, %%i1: index, %%i2: index, "
                  "%%i3: index):\n      tensor.yield %s : f32\n    } : %s to %s", xt, c0, t([n, h, w, c]), xin)
        pad = "0, 0, 0, 0"
    y = g.op("tosa.conv2d %s, %s, %s, %s, %s {acc_type = f32, dilation = array<i64: 1, 1>, "
             "pad = array<i64: %s>, stride = array<i64: 1, 1>} : (%s, %s, %s, %s, %s) -> %s",
             xt, wtt, b, z, z, pad, xin, t([oc, 3, 3, c]), t([oc]), t([1]), t([1]), t([n, h, w, oc]))
    yt, _ = transpose(g, y, [n, h, w, oc], [0, 3, 1, 2])
    return yt


def torch_bn(g, x, n, c, h, w, mean=None):
    """x - mean, * rsqrt(var + eps), * gamma, + beta over axis 1 of NCHW."""
    full = [n, c, h, w]
    ch = [1, c, 1, 1]
    mean = mean or g.const(g.rand(ch, -0.5, 0.5), t(ch))
    var = g.const(g.rand([c, 1, 1], 0.5, 2.0), t([c, 1, 1]))
    eps = g.splat("1.0e-05", t([1, 1, 1]))
    gamma = g.const(g.rand(ch, 0.5, 1.5), t(ch))
    beta = g.const(g.rand(ch, -0.5, 0.5), t(ch))
    sh = shift(g)
    s = g.op("tosa.sub %s, %s : (%s, %s) -> %s", x, mean, t(full), t(ch), t(full))
    v = g.op("tosa.add %s, %s : (%s, %s) -> %s", var, eps, t([c, 1, 1]), t([1, 1, 1]), t([c, 1, 1]))
    r = g.op("tosa.rsqrt %s : (%s) -> %s", v, t([c, 1, 1]), t([c, 1, 1]))
    rr = g.op("tosa.reshape %s, %s : (%s, !tosa.shape<4>) -> %s", r, g.shape(ch), t([c, 1, 1]), t(ch))
    m1 = g.op("tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s", s, rr, sh, t(full), t(ch), t(full))
    m2 = g.op("tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s", m1, gamma, sh, t(full), t(ch), t(full))
    return g.op("tosa.add %s, %s : (%s, %s) -> %s", m2, beta, t(full), t(ch), t(full))


def relu(g, x, dims, hi="3.40282347E+38"):
    if g.mixed:
        e = g.op("tensor.empty() : %s", t(dims))
        m = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
        return g.op("linalg.generic {indexing_maps = [%s, %s], iterator_types = [\"parallel\", \"parallel\", "
                    "\"parallel\", \"parallel\"]} ins(%s : %s) outs(%s : %s) {\n    ^bb0(%%in: f32, %%out: f32):\n"
                    "      %%zero = arith.constant 0.000000e+00 : f32\n      %%max = arith.maximumf %%in, %%zero : f32\n"
                    "      linalg.yield %%max : f32\n    } -> %s", m, m, x, t(dims), e, t(dims), t(dims))
    return g.op("tosa.clamp %s {max_val = %s : f32, min_val = 0.0 : f32} : (%s) -> %s", x, hi, t(dims), t(dims))


def func(g, args, results, ret):
    head = "func.func @main(%s) -> (%s) {" % (", ".join("%%arg%d: %s" % (i, a) for i, a in enumerate(args)),
                                              ", ".join(results))
    return "\n".join(["module {", "  " + head] + g.lines +
                     ["    return %s : %s" % (", ".join(ret), ", ".join(results)), "  }", "}", ""])


def resnet(g):
    n, c, h, w = 1, 8, 10, 10
    full = [n, c, h, w]
    a = relu(g, torch_bn(g, conv_nchw(g, "%arg0", n, c, h, w, c), n, c, h, w), full)
    b = torch_bn(g, conv_nchw(g, a, n, c, h, w, c), n, c, h, w)
    if g.mixed:
        r = g.op("arith.addf %s, %s fastmath<contract> : %s", b, "%arg0", t(full))
    else:
        r = g.op("tosa.add %s, %s : (%s, %s) -> %s", b, "%arg0", t(full), t(full), t(full))
    return func(g, [t(full)], [t(full)], [relu(g, r, full)])


def resnet_mixed(g):
    g.mixed = True
    return resnet(g)


def nhwc(g):
    n, h, w, c = 1, 9, 9, 12
    full, ch = [n, h, w, c], [1, 1, 1, c]
    wt = g.const(g.rand((c, 3, 3, c), -0.3, 0.3), t([c, 3, 3, c]))
    b = g.const(g.rand(c, -0.2, 0.2), t([c]))
    z, sh = zero(g), shift(g)
    y = g.op("tosa.conv2d %s, %s, %s, %s, %s {acc_type = f32, dilation = array<i64: 1, 1>, "
             "pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (%s, %s, %s, %s, %s) -> %s",
             "%arg0", wt, b, z, z, t(full), t([c, 3, 3, c]), t([c]), t([1]), t([1]), t(full))
    sc = g.const(g.rand(ch, 0.5, 1.5), t(ch))
    y = g.op("tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s", y, sc, sh, t(full), t(ch), t(full))
    y = g.op("tosa.add %s, %s : (%s, %s) -> %s", y, g.const(g.rand(ch), t(ch)), t(full), t(ch), t(full))
    y = relu(g, y, full, "6.0")
    dw = g.const(g.rand((3, 3, c, 1), -0.5, 0.5), t([3, 3, c, 1]))
    db = g.const(g.rand(c, -0.2, 0.2), t([c]))
    d = g.op("tosa.depthwise_conv2d %s, %s, %s, %s, %s {acc_type = f32, dilation = array<i64: 1, 1>, "
             "pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (%s, %s, %s, %s, %s) -> %s",
             y, dw, db, z, z, t(full), t([3, 3, c, 1]), t([c]), t([1]), t([1]), t(full))
    d = g.op("tosa.sub %s, %s : (%s, %s) -> %s", d, g.const(g.rand(ch), t(ch)), t(full), t(ch), t(full))
    d = g.op("tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s", g.const(g.rand(ch, 0.5, 1.5), t(ch)), d,
             sh, t(ch), t(full), t(full))
    d = g.op("tosa.add %s, %s : (%s, %s) -> %s", g.const(g.rand(ch), t(ch)), d, t(ch), t(full), t(full))
    return func(g, [t(full)], [t(full)], [relu(g, d, full, "6.0")])


def shared(g):
    n, c, h, w = 1, 8, 6, 6
    full = [n, c, h, w]
    ch = [1, c, 1, 1]
    mean = g.const(g.rand(ch, -0.5, 0.5), t(ch))
    # one weight constant, two convolutions (conv_nchw makes its own; share by reusing the text)
    wt = g.const(g.rand((c, c, 3, 3), -0.3, 0.3), t([c, c, 3, 3]))
    b = g.const(g.rand(c, -0.1, 0.1), t([c]))
    z = zero(g)
    outs = []
    for k in range(3):
        xt, _ = transpose(g, "%arg0", full, [0, 2, 3, 1])
        wtt, _ = transpose(g, wt, [c, c, 3, 3], [0, 2, 3, 1])
        y = g.op("tosa.conv2d %s, %s, %s, %s, %s {acc_type = f32, dilation = array<i64: 1, 1>, "
                 "pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (%s, %s, %s, %s, %s) -> %s",
                 xt, wtt, b, z, z, t([n, h, w, c]), t([c, 3, 3, c]), t([c]), t([1]), t([1]), t([n, h, w, c]))
        yt, _ = transpose(g, y, [n, h, w, c], [0, 3, 1, 2])
        if k == 0:      # a BN chain: folds into a copy of the shared weights
            outs.append(torch_bn(g, yt, n, c, h, w, mean))
        elif k == 1:    # the same mean in a second chain, whose conv result is also returned
            outs.append(yt)
            outs.append(torch_bn(g, yt, n, c, h, w, mean))
        else:           # no chain: reads the original weights
            outs.append(yt)
    return func(g, [t(full)], [t(full)] * len(outs), outs)


def matmul(g):
    m, k, nn = 7, 16, 12
    a_t, b_t, r_t, ch = t([1, m, k]), t([1, k, nn]), t([1, m, nn]), [1, 1, nn]
    bw = g.const(g.rand((1, k, nn), -0.5, 0.5), b_t)
    z, sh = zero(g), shift(g)
    y = g.op("tosa.matmul %s, %s, %s, %s : (%s, %s, tensor<1xf32>, tensor<1xf32>) -> %s",
             "%arg0", bw, z, z, a_t, b_t, r_t)
    y = g.op("tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s", y, g.const(g.rand(ch, 0.5, 2), t(ch)), sh,
             r_t, t(ch), r_t)
    y = g.op("tosa.add %s, %s : (%s, %s) -> %s", y, g.const(g.rand(ch), t(ch)), r_t, t(ch), r_t)
    return func(g, [a_t], [r_t], [y])


def integer(g):
    n, h, w, c, oc = 1, 6, 6, 4, 8
    x_t, r_t, ch = t([n, h, w, c], "i8"), t([n, h, w, oc], "i32"), t([1, 1, 1, oc], "i32")
    wt = g.const(g.rng.integers(-20, 20, size=(oc, 3, 3, c)), t([oc, 3, 3, c], "i8"))
    b = g.const(g.rng.integers(-100, 100, size=oc), t([oc], "i32"))
    z8, sh = zero(g, "i8"), shift(g)
    y = g.op("tosa.conv2d %s, %s, %s, %s, %s {acc_type = i32, dilation = array<i64: 1, 1>, "
             "pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (%s, %s, %s, tensor<1xi8>, "
             "tensor<1xi8>) -> %s", "%arg0", wt, b, z8, z8, x_t, t([oc, 3, 3, c], "i8"), t([oc], "i32"), r_t)
    y = g.op("tosa.sub %s, %s : (%s, %s) -> %s", y, g.const(g.rng.integers(-50, 50, size=oc), ch), r_t, ch, r_t)
    y = g.op("tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s", y, g.const(g.rng.integers(1, 5, size=oc), ch),
             sh, r_t, ch, r_t)
    y = g.op("tosa.add %s, %s : (%s, %s) -> %s", y, g.const(g.rng.integers(-50, 50, size=oc), ch), r_t, ch, r_t)
    return "// oracle: arg 0 -20 20\n" + func(g, [x_t], [r_t], [y])


def bound(g):
    a = g.const(g.rand((1, 256, 1)), t([1, 256, 1]))
    b = g.const(g.rand((1, 1, 256)), t([1, 1, 256]))
    big = g.op("tosa.add %s, %s : (%s, %s) -> %s", a, b, t([1, 256, 1]), t([1, 1, 256]), t([1, 256, 256]))
    r = g.op("tosa.add %s, %s : (%s, %s) -> %s", "%arg0", big, t([1, 256, 256]), t([1, 256, 256]),
             t([1, 256, 256]))
    return func(g, [t([1, 256, 256])], [t([1, 256, 256])], [r])


def half(g):
    x_t = t([4, 6], "f16")
    c1 = g.const(g.rand((4, 6), -2, 2).astype(np.float16), x_t)
    c2 = g.const(g.rand((1, 6), 0.5, 2).astype(np.float16), t([1, 6], "f16"))
    sh = shift(g)
    e = g.op("tosa.exp %s : (%s) -> %s", c1, x_t, x_t)
    m = g.op("tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s", e, c2, sh, x_t, t([1, 6], "f16"), x_t)
    a = g.op("tosa.add %s, %s : (%s, %s) -> %s", m, c2, x_t, t([1, 6], "f16"), x_t)
    r = g.op("tosa.rsqrt %s : (%s) -> %s", a, x_t, x_t)
    r32 = g.op("tosa.cast %s : (%s) -> %s", r, x_t, t([4, 6], "f32"))
    bf = g.op("tosa.cast %s : (%s) -> %s", r32, t([4, 6], "f32"), t([4, 6], "bf16"))
    cb = g.const(g.rand((4, 6), -1, 1), t([4, 6], "bf16"))
    s = g.op("tosa.sub %s, %s : (%s, %s) -> %s", bf, cb, t([4, 6], "bf16"), t([4, 6], "bf16"), t([4, 6], "bf16"))
    red = g.op("tosa.reduce_sum %s {axis = 0 : i32} : (%s) -> %s", s, t([4, 6], "bf16"), t([1, 6], "bf16"))
    back = g.op("tosa.cast %s : (%s) -> %s", red, t([1, 6], "bf16"), t([1, 6], "f32"))
    h = g.op("tosa.cast %s : (%s) -> %s", back, t([1, 6], "f32"), t([1, 6], "f16"))
    til = g.op("tosa.tile %s, %s : (%s, !tosa.shape<2>) -> %s", h, g.shape([4, 1]), t([1, 6], "f16"), x_t)
    tr, _ = transpose(g, til, [4, 6], [1, 0], "f16")
    rv = g.op("tosa.reverse %s {axis = 1 : i32} : (%s) -> %s", tr, t([6, 4], "f16"), t([6, 4], "f16"))
    sl = g.op("tosa.slice %s, %s, %s : (%s, !tosa.shape<2>, !tosa.shape<2>) -> %s", rv, g.shape([1, 0]),
              g.shape([4, 4]), t([6, 4], "f16"), t([4, 4], "f16"))
    pc = g.splat("1.500000e+00", t([1], "f16"))
    pd = g.op("tosa.pad %s, %s, %s : (%s, !tosa.shape<4>, %s) -> %s", sl, g.shape([0, 0, 1, 1]), pc,
              t([4, 4], "f16"), t([1], "f16"), x_t)
    cc = g.op("tosa.concat %s, %s {axis = 0 : i32} : (%s, %s) -> %s", pd, c1, x_t, x_t, t([8, 6], "f16"))
    sl2 = g.op("tosa.slice %s, %s, %s : (%s, !tosa.shape<2>, !tosa.shape<2>) -> %s", cc, g.shape([2, 0]),
               g.shape([4, 6]), t([8, 6], "f16"), x_t)
    out = g.op("tosa.add %s, %s : (%s, %s) -> %s", "%arg0", sl2, x_t, x_t, x_t)
    return func(g, [x_t], [x_t], [out])


def intconst(g):
    """Integer ops on constants (rescale, table, negate with zero points, shifts, clz, intdiv, mul
    with a shift), folded exactly, added to the input."""
    x_t, x8 = t([4, 8], "i32"), t([4, 8], "i8")
    c = g.const(g.rng.integers(-5000, 5000, size=(4, 8)), x_t)
    mult = g.const(g.rng.integers(1 << 29, 1 << 31, size=8), t([8], "i32"))
    shf = g.const(g.rng.integers(30, 40, size=8), t([8], "i8"))
    izp, ozp = g.splat("0", t([1], "i32")), g.splat("3", t([1], "i8"))
    r = g.op("tosa.rescale %s, %s, %s, %s, %s {rounding_mode = DOUBLE_ROUND, scale32 = true, per_channel = true, "
             "input_unsigned = false, output_unsigned = false} : (%s, %s, %s, %s, %s) -> %s",
             c, mult, shf, izp, ozp, x_t, t([8], "i32"), t([8], "i8"), t([1], "i32"), t([1], "i8"), x8)
    tab = g.const(g.rng.integers(-128, 128, size=256), t([256], "i8"))
    tb = g.op("tosa.table %s, %s : (%s, %s) -> %s", r, tab, x8, t([256], "i8"), x8)
    z1, z2 = g.splat("5", t([1], "i8")), g.splat("-3", t([1], "i8"))
    ng = g.op("tosa.negate %s, %s, %s : (%s, %s, %s) -> %s", tb, z1, z2, x8, t([1], "i8"), t([1], "i8"), x8)
    w = g.op("tosa.cast %s : (%s) -> %s", ng, x8, x_t)
    amt = g.const(g.rng.integers(0, 32, size=(1, 8)), t([1, 8], "i32"))
    sr = g.op("tosa.arithmetic_right_shift %s, %s {round = true} : (%s, %s) -> %s", c, amt, x_t, t([1, 8], "i32"), x_t)
    cz = g.op("tosa.clz %s : (%s) -> %s", c, x_t, x_t)
    dv = g.const(g.rng.integers(1, 50, size=(4, 1)) * g.rng.choice([-1, 1], size=(4, 1)), t([4, 1], "i32"))
    q = g.op("tosa.intdiv %s, %s : (%s, %s) -> %s", c, dv, x_t, t([4, 1], "i32"), x_t)
    s3 = g.splat("3", t([1], "i8"))
    m = g.op("tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s", c, dv, s3, x_t, t([4, 1], "i32"), x_t)
    acc = "%arg0"
    for v in (w, sr, cz, q, m):
        acc = g.op("tosa.add %s, %s : (%s, %s) -> %s", acc, v, x_t, x_t, x_t)
    return func(g, [x_t], [x_t], [acc])


KINDS = {"resnet": resnet, "resnet_mixed": resnet_mixed, "nhwc": nhwc, "shared": shared, "matmul": matmul, "int": integer,
         "bound": bound, "half": half, "intconst": intconst}

if __name__ == "__main__":
    kind, seed = sys.argv[1], int(sys.argv[2])
    sys.stdout.write(KINDS[kind](G(seed)))
