#!/usr/bin/env python3
"""An attention graph as frameworks emit it: softmax(Q K^T * scale) V with K transposed by
tosa.transpose and the softmax spelled out (reduce_max, sub, exp, reduce_sum, reciprocal, mul).
  gen_attention.py HEADS SEQUENCE HEAD_SIZE TYPE > graph.mlir
Used by tests/bats/quality_families.bats and tests/bench/model_bench.sh."""
import sys

h, s, d, t = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
T = lambda *dims: "tensor<%sx%s>" % ("x".join(str(x) for x in dims), t)
q, kt, sc, row = T(h, s, d), T(h, d, s), T(h, s, s), T(h, s, 1)
print(f'''func.func @main(%q: {q}, %k: {q}, %v: {q}) -> {q} {{
  %sh = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{{values = dense<0.0> : {T(1)}}}> : () -> {T(1)}
  %scale = "tosa.const"() <{{values = dense<{1.0 / d ** 0.5}> : {T(1, 1, 1)}}}> : () -> {T(1, 1, 1)}
  %kt = tosa.transpose %k {{perms = array<i32: 0, 2, 1>}} : ({q}) -> {kt}
  %s = tosa.matmul %q, %kt, %zp, %zp : ({q}, {kt}, {T(1)}, {T(1)}) -> {sc}
  %ss = tosa.mul %s, %scale, %sh : ({sc}, {T(1, 1, 1)}, tensor<1xi8>) -> {sc}
  %m = tosa.reduce_max %ss {{axis = 2 : i32}} : ({sc}) -> {row}
  %dd = tosa.sub %ss, %m : ({sc}, {row}) -> {sc}
  %e = tosa.exp %dd : ({sc}) -> {sc}
  %sum = tosa.reduce_sum %e {{axis = 2 : i32}} : ({sc}) -> {row}
  %r = tosa.reciprocal %sum : ({row}) -> {row}
  %p = tosa.mul %e, %r, %sh : ({sc}, {row}, tensor<1xi8>) -> {sc}
  %o = tosa.matmul %p, %v, %zp, %zp : ({sc}, {q}, {T(1)}, {T(1)}) -> {q}
  return %o : {q}
}}''')
