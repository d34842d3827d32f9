"""Seeded random TOSA 1.0 graphs for direct convolutions and pooling.
gen_conv_pool.py KIND DTYPE SEED [const] -> graph on stdout. KIND: dw conv3d tconv avg max dwclamp"""
import sys
import numpy as np

kind, dt, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
const_w = len(sys.argv) > 4 and sys.argv[4] == "const"
rng = np.random.default_rng(seed * 7919 + sum(map(ord, kind + dt)))
ri = lambda a, b: int(rng.integers(a, b + 1))
FL = dt in ("f32", "f16", "bf16")


def ty(shape, e):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), e)


def out_dim(i, k, s, d, lo_max, pad_lt_k=False):
    """(pad_lo, pad_hi, out) with exact division, or None."""
    for _ in range(20):
        plo = ri(0, lo_max)
        if pad_lt_k and plo >= k:
            continue
        for phi in rng.permutation(lo_max + s + 1):
            phi = int(phi)
            if pad_lt_k and phi >= k:
                continue
            span = i - 1 + plo + phi - (k - 1) * d
            if span >= 0 and span % s == 0:
                return plo, phi, span // s + 1
    return None


def hexdata(shape, e):
    n = int(np.prod(shape))
    if e == "i8":
        a = rng.integers(-128, 128, n).astype(np.int8)
    elif e == "i32":
        a = rng.integers(-1000, 1001, n).astype(np.int32)
    else:
        a = (rng.integers(-16, 17, n) / 8.0).astype(np.float32)  # exact in every float type
        if e == "f16":
            a = a.astype(np.float16)
        elif e == "bf16":
            a = (a.view(np.uint32) >> 16).astype(np.uint16)
    return '"0x%s"' % a.tobytes().hex().upper()


def zp_const(name, e, v):
    lit = ("%d" % v) if e in ("i8", "i32") else "0.000000e+00"
    return '  %%%s = "tosa.const"() <{values = dense<%s> : tensor<1x%s>}> : () -> tensor<1x%s>' % (name, lit, e, e)


args, body, ranges = [], [], []


def arg_or_const(name, shape, e, lo=None, hi=None):
    """A weight: a function argument, or a tosa.const when const_w."""
    if const_w:
        body.append('  %%%s = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s'
                    % (name, hexdata(shape, e), ty(shape, e), ty(shape, e)))
    else:
        if lo is not None:
            ranges.append("// oracle: arg %d %g %g" % (len(args), lo, hi))
        args.append("%%%s: %s" % (name, ty(shape, e)))


def conv_types():
    if dt == "i8":
        return "i8", "i32", "i32"  # elem, acc, out/bias
    if dt == "f16":
        # GEMM convolutions accumulate in f32 whatever acc_type says (docs/kernels-conv-pool.md)
        return "f16", ["f16", "f32"][ri(0, 1)] if kind not in ("tconv", "conv3d") else "f32", "f16"
    return dt, "f32", dt


results = []
if kind in ("dw", "dwclamp", "conv3d", "tconv"):
    e, acc, oe = conv_types()
    ns = 3 if kind == "conv3d" else 2
    for _ in range(100):
        N = ri(1, 2)
        ins = [ri(1, 4) if ns == 3 and s == 0 else ri(1, 8) for s in range(ns)]
        ker = [ri(1, 3) if ns == 3 else ri(1, 4) for s in range(ns)]
        st = [ri(1, 3) for s in range(ns)]
        dil = [ri(1, 2) if kind != "tconv" else 1 for s in range(ns)]
        if kind == "tconv":
            opad = []
            outs = []
            for s in range(ns):
                lo, hi = ri(-(ker[s] - 1), 2), ri(-(ker[s] - 1), 2)
                opad += [lo, hi]
                outs.append((ins[s] - 1) * st[s] + lo + hi + ker[s])
            if min(outs) < 1:
                continue
            break
        dims = [out_dim(ins[s], ker[s], st[s], dil[s], 3) for s in range(ns)]
        if all(dims):
            pads = [p for d in dims for p in d[:2]]
            outs = [d[2] for d in dims]
            break
    IC = ri(1, 5)
    M = ri(1, 3) if kind.startswith("dw") else 1
    OC = IC * M if kind.startswith("dw") else ri(1, 5)
    xshape = [N] + ins + [IC]
    wshape = ker + [IC, M] if kind.startswith("dw") else [OC] + ker + [IC]
    oshape = [N] + outs + [OC]
    bshape = [OC] if ri(0, 3) else [1]
    args.append("%%x: %s" % ty(xshape, e))
    if FL:
        ranges.append("// oracle: arg 0 -2 2")
    arg_or_const("w", wshape, e, -2, 2)
    arg_or_const("b", bshape, oe, -2, 2)
    izp = ri(-128, 127) if e == "i8" else 0
    wzp = ri(-128, 127) if e == "i8" else 0
    body.append(zp_const("izp", e, izp))
    body.append(zp_const("wzp", e, wzp))
    op = {"dw": "depthwise_conv2d", "dwclamp": "depthwise_conv2d", "conv3d": "conv3d",
          "tconv": "transpose_conv2d"}[kind]
    a = lambda v: "array<i64: %s>" % ", ".join(map(str, v))
    if kind == "tconv":
        attrs = "acc_type = %s, out_pad = %s, stride = %s" % (acc, a(opad), a(st))
    else:
        attrs = "acc_type = %s, dilation = %s, pad = %s, stride = %s" % (acc, a(dil), a(pads), a(st))
    body.append("  %%y = tosa.%s %%x, %%w, %%b, %%izp, %%wzp {%s} : (%s, %s, %s, tensor<1x%s>, tensor<1x%s>) -> %s"
                % (op, attrs, ty(xshape, e), ty(wshape, e), ty(bshape, oe), e, e, ty(oshape, oe)))
    res = "y"
    if kind == "dwclamp":  # bias add with a broadcast argument, then clamp: one fused kernel
        cshape = [1] * (ns + 1) + [OC]
        args.append("%%c: %s" % ty(cshape, oe))
        body.append("  %%s = tosa.add %%y, %%c : (%s, %s) -> %s" % (ty(oshape, oe), ty(cshape, oe), ty(oshape, oe)))
        if FL:
            body.append("  %%r = tosa.clamp %%s {max_val = 6.000000e+00 : %s, min_val = 0.000000e+00 : %s} : (%s) -> %s"
                        % (oe, oe, ty(oshape, oe), ty(oshape, oe)))
        else:
            body.append("  %%r = tosa.maximum %%s, %%s : (%s, %s) -> %s" % (ty(oshape, oe), ty(oshape, oe), ty(oshape, oe)))
        res = "r"
    results.append((res, ty(oshape, oe)))
else:  # pools
    for _ in range(100):
        N, H, W, C = ri(1, 2), ri(1, 9), ri(1, 9), ri(1, 5)
        ky, kx = ri(1, min(H + 2, 5)), ri(1, min(W + 2, 5))
        if ri(0, 4) == 0:
            ky, kx = H, W  # kernel = input size
        sy, sx = ri(1, 4), ri(1, 4)
        dy, dx = out_dim(H, ky, sy, 1, ky - 1, True), out_dim(W, kx, sx, 1, kx - 1, True)
        if dy and dx:
            break
    xshape, oshape = [N, H, W, C], [N, dy[2], dx[2], C]
    args.append("%%x: %s" % ty(xshape, dt))
    a = lambda v: "array<i64: %s>" % ", ".join(map(str, v))
    geo = "kernel = %s, pad = %s, stride = %s" % (a([ky, kx]), a([dy[0], dy[1], dx[0], dx[1]]), a([sy, sx]))
    if kind == "avg":
        acc = "i32" if dt == "i8" else ("f16" if dt == "f16" and ri(0, 1) else "f32")
        izp, ozp = (ri(-128, 127), ri(-128, 127)) if dt == "i8" else (0, 0)
        body.append(zp_const("izp", dt, izp))
        body.append(zp_const("ozp", dt, ozp))
        body.append("  %%y = tosa.avg_pool2d %%x, %%izp, %%ozp {acc_type = %s, %s} : (%s, tensor<1x%s>, tensor<1x%s>) -> %s"
                    % (acc, geo, ty(xshape, dt), dt, dt, ty(oshape, dt)))
    else:
        nm = ["PROPAGATE", "IGNORE"][ri(0, 1)]
        body.append("  %%y = tosa.max_pool2d %%x {%s, nan_mode = %s} : (%s) -> %s" % (geo, nm, ty(xshape, dt), ty(oshape, dt)))
    results.append(("y", ty(oshape, dt)))

print("\n".join(ranges))
print("func.func @main(%s) -> (%s) {" % (", ".join(args), ", ".join(t for _, t in results)))
print("\n".join(body))
print("  return %s : %s" % (", ".join("%" + r for r, _ in results), ", ".join(t for _, t in results)))
print("}")
