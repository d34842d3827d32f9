#!/usr/bin/env python3
"""A seeded gated projection for the dual-B GEMM (docs/partitioning.md, "Dual-B GEMMs"): one
activation x [B, M, K] multiplied by two weights Wg, Wu [B, K, N] (constants, or arguments with
--weights=args), optional biases [1, 1, N], and an elementwise combination of the two results:

  silu   silu(g) * u          (LLaMA's MLP: g * sigmoid(g) * u)
  gelu   gelu_tanh(g) * u     (GeGLU)
  mul    g * u
  sub    sigmoid(g) - u       (not symmetric: the roles must stay as the graph has them)

--order=up emits the up GEMM first (its result then feeds the gate's epilogue); --gate-out
also returns g (after its bias), which the kernel must then store. Weights are multiples of
1/64 scaled by 1/sqrt(K), arguments drawn from [-1, 1]; the first lines carry the oracle's
input ranges and error bound (tests/oracle/README.md)."""
import argparse
import math

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--m", type=int, default=37)
    ap.add_argument("--k", type=int, default=45)
    ap.add_argument("--n", type=int, default=71)
    ap.add_argument("--dtype", choices=["f32", "f16", "bf16"], default="f32")
    ap.add_argument("--bias", action="store_true")
    ap.add_argument("--order", choices=["gate", "up"], default="gate")
    ap.add_argument("--combine", choices=["silu", "gelu", "mul", "sub"], default="silu")
    ap.add_argument("--gate-out", action="store_true")
    ap.add_argument("--weights", choices=["const", "args"], default="const")
    ap.add_argument("--seed", type=int, default=1)
    o = ap.parse_args()
    rng = np.random.default_rng(o.seed)
    el = o.dtype
    lines, args, count = [], [], [0]

    def ty(shape):
        return "tensor<%sx%s>" % ("x".join(map(str, shape)), el)

    def fresh():
        count[0] += 1
        return "%%v%d" % count[0]

    def emit(op, operands, shape):
        name = fresh()
        lines.append('  %s = "%s"(%s) : (%s) -> %s' % (name, op, ", ".join(x[0] for x in operands),
                                                       ", ".join(x[1] for x in operands), ty(shape)))
        return (name, ty(shape), tuple(shape))

    def raw(text, t):
        name = fresh()
        lines.append('  %s = "tosa.const"() <{values = %s : %s}> : () -> %s' % (name, text, t, t))
        return name

    def const(shape, vals):
        a = np.asarray(vals, dtype=np.float32).reshape(shape)
        if el == "f16":
            data = a.astype(np.float16).tobytes()
        elif el == "bf16":
            data = (a.view(np.uint32) >> 16).astype(np.uint16).tobytes()
        else:
            data = a.tobytes()
        return (raw('dense<"0x%s">' % data.hex().upper(), ty(shape)), ty(shape), tuple(shape))

    def splat(x):
        return (raw("dense<%.9e>" % x, ty((1, 1, 1))), ty((1, 1, 1)), (1, 1, 1))

    def arg(shape):
        a = ("%%a%d" % len(args), ty(shape), tuple(shape))
        args.append(a)
        return a

    def weight(shape, fan_in):
        if o.weights == "args":
            return arg(shape)
        lim = max(1, int(64 / math.sqrt(fan_in)))
        return const(shape, rng.integers(-lim, lim + 1, int(np.prod(shape))) / 64.0)

    zp_t = "tensor<1x%s>" % el
    shift_t = "tensor<1xi8>"
    x = arg((o.batch, o.m, o.k))
    zp = (raw("dense<0.000000000e+00>", zp_t), zp_t, (1,))
    shift = (raw("dense<0>", shift_t), shift_t, (1,))
    out = (o.batch, o.m, o.n)

    def linear():
        w = weight((o.batch, o.k, o.n), o.k)
        y = emit("tosa.matmul", [x, w, zp, zp], out)
        if o.bias:
            b = weight((1, 1, o.n), 16)
            y = emit("tosa.add", [y, b], out)
        return y

    def mul(a, b):
        return emit("tosa.mul", [a, b, shift], out)

    def act(g):
        if o.combine == "silu":
            return mul(g, emit("tosa.sigmoid", [g], out))
        if o.combine == "gelu":
            return mul(g, emit("tosa.sigmoid", [mul(g, splat(1.5957691216057308))], out))
        return g

    if o.order == "gate":
        g = linear()
        ga = act(g)
        u = linear()
    else:
        u = linear()
        g = linear()
        ga = act(g)
    if o.combine == "sub":
        y = emit("tosa.sub", [emit("tosa.sigmoid", [g], out), u], out)
    else:
        y = mul(ga, u)
    results = [y] + ([g] if o.gate_out else [])
    err = {"f32": 1e-4, "f16": 4e-2, "bf16": 2.5e-1}[el]
    print("// gateup: %s" % " ".join("%s=%s" % kv for kv in sorted(vars(o).items())))
    for i in range(len(args)):
        print("// oracle: arg %d -1 1" % i)
    for i in range(len(results)):
        print("// oracle: result %d err %g" % (i, err))
    print("func.func @main(%s) -> (%s) {" % (", ".join("%s: %s" % (a[0], a[1]) for a in args),
                                            ", ".join(r[1] for r in results)))
    for line in lines:
        print(line)
    print("  return %s : %s" % (", ".join(r[0] for r in results), ", ".join(r[1] for r in results)))
    print("}")


if __name__ == "__main__":
    main()
