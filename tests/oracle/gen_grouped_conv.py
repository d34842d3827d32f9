"""Seeded random grouped convolutions with tosac's group extensions (docs/graph.md), and the same
problem in plain TOSA (a slice per group, one convolution each, the results concatenated): the
oracle runs the plain form, tosac the extension.

gen_grouped_conv.py KIND DTYPE SEED ext|ref -> graph on stdout
  KIND  conv   conv2d with `groups`
        tconv  transpose_conv2d with `groups`, weight [OC/G, KH, KW, IC] (the oracle runs
               mlir-opt's decomposition of ref)
        bw     conv2d with `batch_groups` (backward weight of a grouped convolution)
  DTYPE f32 f16 bf16 i8 (i8: i32 result)"""
import sys
import numpy as np

kind, dt, seed, form = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rng = np.random.default_rng(seed * 104729 + sum(map(ord, kind + dt)))
ri = lambda a, b: int(rng.integers(a, b + 1))
rt = "i32" if dt == "i8" else dt
acc = "i32" if dt == "i8" else "f32"
zl = "0" if dt == "i8" else "0.000000e+00"
zr = "0" if rt == "i32" else "0.000000e+00"


def ty(shape, e):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), e)


def arr(v):
    return "array<i64: %s>" % ", ".join(map(str, v))


G = [2, 3, 4, 32][ri(0, 3)]
cg = ri(2, 3) if G == 32 else ri(2, 6)
og = ri(1, 2) if G == 32 else ri(2, 5)
n = ri(1, 2)
k = [1, 3][ri(0, 1)]
st, dil = [ri(1, 2), ri(1, 2)], [ri(1, 2), ri(1, 2)]
sp = [ri(k * 2, 9), ri(k * 2, 9)]
lines, nid = [], [0]


def new():
    nid[0] += 1
    return "%%t%d" % nid[0]


def zeros():
    lines.append('  %%zx = "tosa.const"() <{values = dense<%s> : tensor<1x%s>}> : () -> tensor<1x%s>' % (zl, dt, dt))
    lines.append('  %%zb = "tosa.const"() <{values = dense<%s> : tensor<1x%s>}> : () -> tensor<1x%s>' % (zr, rt, rt))


def slice_(v, shape, d, start, size):
    s0, s1 = [0] * len(shape), list(shape)
    s0[d], s1[d] = start, size
    a, b, r = new(), new(), new()
    lines.append("  %s = tosa.const_shape {values = dense<[%s]> : tensor<%dxindex>} : () -> !tosa.shape<%d>"
                 % (a, ", ".join(map(str, s0)), len(shape), len(shape)))
    lines.append("  %s = tosa.const_shape {values = dense<[%s]> : tensor<%dxindex>} : () -> !tosa.shape<%d>"
                 % (b, ", ".join(map(str, s1)), len(shape), len(shape)))
    lines.append("  %s = tosa.slice %s, %s, %s : (%s, !tosa.shape<%d>, !tosa.shape<%d>) -> %s"
                 % (r, v, a, b, ty(shape, dt if v != "%b" else rt), len(shape), len(shape),
                    ty(s1, dt if v != "%b" else rt)))
    return r, s1


def conv(op, x, xs, w, ws, b, bs, attrs, out):
    r = new()
    lines.append("  %s = %s %s, %s, %s, %%zx, %%zx {acc_type = %s, %s} : (%s, %s, %s, tensor<1x%s>, tensor<1x%s>) -> %s"
                 % (r, op, x, w, b, acc, attrs, ty(xs, dt), ty(ws, dt), ty(bs, rt), dt, dt, ty(out, rt)))
    return r


def concat(parts, shape):
    r = new()
    lines.append("  %s = tosa.concat %s {axis = 3 : i32} : (%s) -> %s"
                 % (r, ", ".join(parts), ", ".join([ty(shape, rt)] * len(parts)), ty(
                     shape[:3] + [shape[3] * len(parts)], rt)))
    return r


if kind in ("conv", "bw"):
    pad, out = [], []
    for d in range(2):
        span = (k - 1) * dil[d] + 1
        lo = ri(0, k - 1)
        hi = ri(0, k - 1)
        while (sp[d] + lo + hi - span) % st[d]:
            hi += 1
        pad += [lo, hi]
        out.append((sp[d] + lo + hi - span) // st[d] + 1)
    attrs = "dilation = %s, pad = %s, stride = %s" % (arr(dil), arr(pad), arr(st))
    if kind == "conv":
        xs, ws, os_ = [n] + sp + [G * cg], [G * og, k, k, cg], [n] + out + [G * og]
        ext, per, xd = "groups", [n] + sp + [cg], 3
    else:
        xs, ws, os_ = [G * n] + sp + [cg], [G * og, k, k, cg], [n] + out + [G * og]
        ext, per, xd = "batch_groups", [n] + sp + [cg], 0
    op = "tosa.conv2d"
else:
    out_pad = [ri(-(k - 1), 1) for _ in range(4)]
    out = [(sp[d] - 1) * st[d] + out_pad[2 * d] + out_pad[2 * d + 1] + k for d in range(2)]
    attrs = "out_pad = %s, stride = %s" % (arr(out_pad), arr(st))
    # the weight of the transposed form: [OC/G, KH, KW, IC], each group its run of IC
    xs, ws, os_ = [n] + sp + [G * cg], [og, k, k, G * cg], [n] + out + [G * og]
    ext, per, xd, op = "groups", [n] + sp + [cg], 3, "tosa.transpose_conv2d"
bs = [G * og]
print("// oracle: arg 0 -2 2\n// oracle: arg 1 -2 2\n// oracle: arg 2 -2 2" if dt != "i8" else "")
print("func.func @main(%%x: %s, %%w: %s, %%b: %s) -> %s {" % (ty(xs, dt), ty(ws, dt), ty(bs, rt), ty(os_, rt)))
zeros()
if form == "ext":
    r = conv(op, "%x", xs, "%w", ws, "%b", bs, "%s = %d : i64, %s" % (ext, G, attrs), os_)
else:
    parts, pshape = [], os_[:3] + [og]
    for g in range(G):
        xg, xgs = slice_("%x", xs, xd, g * per[xd], per[xd])
        wg, wgs = slice_("%w", ws, 3, g * cg, cg) if kind == "tconv" else slice_("%w", ws, 0, g * og, og)
        bg, bgs = slice_("%b", bs, 0, g * og, og)
        parts.append(conv(op, xg, xgs, wg, wgs, bg, bgs, attrs, pshape))
    r = concat(parts, pshape)
print("\n".join(lines))
print("  return %s : %s\n}" % (r, ty(os_, rt)))
