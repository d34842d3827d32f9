#!/usr/bin/env python3
"""An attention graph as frameworks emit it: softmax(Q K^T * scale) V with K transposed by
tosa.transpose and the softmax spelled out (reduce_max, sub, exp, reduce_sum, reciprocal, mul).
  gen_attention.py HEADS SEQUENCE HEAD_SIZE TYPE > graph.mlir
TYPE f32, f16, bf16, or an 8-bit float (f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ): then Q, K and
V are fp8, each matmul gives f16 (TOSA 1.0's result for fp8 operands), the softmax runs in f32
(casts around it) and P is cast to the fp8 type for the second matmul; the result is f16.
Used by tests/bats/quality_families.bats and tests/bench/model_bench.sh."""
import sys

h, s, d, t = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
f8 = t.startswith("f8")
T = lambda *dims, e=t: "tensor<%sx%s>" % ("x".join(str(x) for x in dims), e)
st = "f32" if f8 else t  # the softmax's type
mo = "f16" if f8 else t  # the matmuls' result type
q, kt = T(h, s, d), T(h, d, s)
sc, row, o = T(h, s, s, e=st), T(h, s, 1, e=st), T(h, s, d, e=mo)
lines = [
    f'%sh = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>',
    f'%zp = "tosa.const"() <{{values = dense<0.0> : {T(1)}}}> : () -> {T(1)}',
    f'%scale = "tosa.const"() <{{values = dense<{1.0 / d ** 0.5}> : {T(1, 1, 1, e=st)}}}> : () -> {T(1, 1, 1, e=st)}',
    f'%kt = tosa.transpose %k {{perms = array<i32: 0, 2, 1>}} : ({q}) -> {kt}',
]
if f8:
    lines += [f'%s16 = tosa.matmul %q, %kt, %zp, %zp : ({q}, {kt}, {T(1)}, {T(1)}) -> {T(h, s, s, e=mo)}',
              f'%s = tosa.cast %s16 : ({T(h, s, s, e=mo)}) -> {sc}']
else:
    lines += [f'%s = tosa.matmul %q, %kt, %zp, %zp : ({q}, {kt}, {T(1)}, {T(1)}) -> {sc}']
lines += [
    f'%ss = tosa.mul %s, %scale, %sh : ({sc}, {T(1, 1, 1, e=st)}, tensor<1xi8>) -> {sc}',
    f'%m = tosa.reduce_max %ss {{axis = 2 : i32}} : ({sc}) -> {row}',
    f'%dd = tosa.sub %ss, %m : ({sc}, {row}) -> {sc}',
    f'%e = tosa.exp %dd : ({sc}) -> {sc}',
    f'%sum = tosa.reduce_sum %e {{axis = 2 : i32}} : ({sc}) -> {row}',
    f'%r = tosa.reciprocal %sum : ({row}) -> {row}',
    f'%p = tosa.mul %e, %r, %sh : ({sc}, {row}, tensor<1xi8>) -> {sc}',
]
pin = "%p"
if f8:
    lines += [f'%p8 = tosa.cast %p : ({sc}) -> {T(h, s, s)}']
    pin = "%p8"
lines += [f'%o = tosa.matmul {pin}, %v, %zp, %zp : ({T(h, s, s) if f8 else sc}, {q}, {T(1)}, {T(1)}) -> {o}',
          f'return %o : {o}']
print(f"func.func @main(%q: {q}, %k: {q}, %v: {q}) -> {o} {{")
print("\n".join("  " + x for x in lines))
print("}")
