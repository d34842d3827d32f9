"""Seeded random conv2d / conv3d graphs for the implicit-GEMM kernel (kernel_gemm.c + gemm_conv.c).
gen_conv_gemm.py DTYPE SEED [conv3d|runs] -> graph on stdout; the first line is a comment with the
drawn shape. Input channels are drawn mostly as multiples of 8 (whole taps per K tile: the
per-tile gather, docs/gemm.md) and sometimes odd (3, 5: the general gather); kernels 1/3/5/7
(conv3d 1-3), stride 1-3, dilation 1-2, asymmetric padding up to 3, batch 1-2. `runs`: conv2d
shapes the run gather takes (docs/gemm.md "Convolution gather"): 1-4 input channels (f32 1-3: a
pixel shorter than 16 bytes), kernels 3-7 whose tap rows padded to a power of two grow K by at
most 1.6x, stride 1-2, dilation 1 (2 in y sometimes), padding up to 3 on each side, batch 2, no
zero points."""
import sys
import numpy as np

dt, seed = sys.argv[1], int(sys.argv[2])
three = len(sys.argv) > 3 and sys.argv[3] == "conv3d"
runs = len(sys.argv) > 3 and sys.argv[3] == "runs"
rng = np.random.default_rng(seed * 104729 + sum(map(ord, dt)) + (7 if three else 13 if runs else 0))
ri = lambda a, b: int(rng.integers(a, b + 1))
pick = lambda xs: xs[ri(0, len(xs) - 1)]
ns = 3 if three else 2
p2 = lambda v: 1 << (v - 1).bit_length()

for _ in range(1000):
    if runs:
        IC, ker = ri(1, 3 if dt == "f32" else 4), [pick([3, 5, 7]), pick([3, 5, 7])]
        if ker[0] * p2(ker[1] * p2(IC)) > 1.6 * ker[0] * ker[1] * IC:
            continue
        N, st, dil = 2, [ri(1, 2), ri(1, 2)], [pick([1, 1, 2]), 1]
        ins, pads, outs = [], [], []
        for d in range(ns):
            lo, hi = ri(0, 3), ri(0, 3)
            i = ri(max(1, ker[d] * dil[d] - lo - hi), 20)
            span = i - 1 + lo + hi - (ker[d] - 1) * dil[d]
            ins.append(i), pads.extend([lo, hi]), outs.append(span // st[d] + 1)
            if span % st[d]:
                break
        else:
            break
        continue
    N = ri(1, 2)
    ker = [pick([1, 2, 3]) if three else pick([1, 3, 3, 5, 7]) for _ in range(ns)]
    if not three and ri(0, 2) == 0:
        ker[1] = ker[0]
    st = [pick([1, 1, 2, 3]) for _ in range(ns)]
    dil = [pick([1, 1, 2]) for _ in range(ns)]
    ins, pads, outs = [], [], []
    for d in range(ns):
        i = ri(1, 5) if three else ri(1, 14)
        lo, hi = ri(0, 3), ri(0, 3)
        span = i - 1 + lo + hi - (ker[d] - 1) * dil[d]
        ins.append(i), pads.extend([lo, hi]), outs.append(span // st[d] + 1 if span >= 0 else 0)
        if span < 0 or span % st[d]:
            break
    else:
        break
IC = IC if runs else pick([3, 5, 8, 16, 16, 24, 32, 32, 64])
OC = ri(1, 40)
if dt == "i8" and runs:
    e, oe, acc, zps = "i8", "i32", "i32", (0, 0)
elif dt == "i8":
    e, oe, acc, zps = "i8", "i32", "i32", (ri(-128, 127), ri(-128, 127)) if ri(0, 1) else (0, 0)
else:
    e, oe, acc, zps = dt, dt, "f32", (0, 0)
T = lambda s, t: "tensor<%sx%s>" % ("x".join(map(str, s)), t)
A = lambda v: "array<i64: %s>" % ", ".join(map(str, v))
x, w, b, y = T([N] + ins + [IC], e), T([OC] + ker + [IC], e), T([OC], oe), T([N] + outs + [OC], oe)
z = lambda v: ('"tosa.const"() <{values = dense<%s> : tensor<1x%s>}> : () -> tensor<1x%s>'
               % (v if e == "i8" else "0.0", e, e))
op = "conv3d" if three else "conv2d"
print("// %s seed %d: N %d in %s IC %d OC %d ker %s stride %s dil %s pad %s zp %s"
      % (op, seed, N, ins, IC, OC, ker, st, dil, pads, list(zps)))
r = "-8 8" if e == "i8" else "-2 2"
print("// oracle: arg 0 %s\n// oracle: arg 1 %s\n// oracle: arg 2 %s" % (r, r, r))
print("func.func @main(%%x: %s, %%w: %s, %%b: %s) -> %s {" % (x, w, b, y))
print("  %%iz = %s\n  %%wz = %s" % (z(zps[0]), z(zps[1])))
print("  %%y = tosa.%s %%x, %%w, %%b, %%iz, %%wz {acc_type = %s, dilation = %s, pad = %s, stride = %s} "
      ": (%s, %s, %s, tensor<1x%s>, tensor<1x%s>) -> %s"
      % (op, acc, A(dil), A(pads), A(st), x, w, b, e, e, y))
print("  return %%y : %s\n}" % y)
