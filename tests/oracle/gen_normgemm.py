"""Seeded row norms feeding a tile GEMM (row norms in tile GEMMs: tests/bats/norm_gemm.bats,
docs/partitioning.md "Row norms in tile GEMMs").
gen_normgemm.py KIND SEED -> graph on stdout (one @main).

KIND:
  residual  h = x + a W0 + b0 (the residual add in the first GEMM's epilogue), then a layer norm
            (an RMS norm for seeds divisible by 3) n of h with gamma and beta, then y = n W1 + b1
            and z = y W2 + b2 + n (BERT's FFN: the norm read again by a later GEMM's residual
            add); results: z and h.
  arg       the norm of the argument x, then n W1 + b1; result: that.
  output    the norm of x, n W1 + b1 and n itself returned (a graph result).
  group     residual, with n read by three GEMMs of constant weights (a grouped GEMM, BERT's
            Q, K, V); results: two of them, the third times W2 plus b2 plus n, and h.
17-300 rows, K from 64 to 1024 (multiples of 8), N drawn, f32, f16 for even seeds, bf16 for odd
multiples of 5. Weights, gamma and beta are arguments (group: the three GEMMs' weights are
constants) with the oracle's data in scaled ranges."""
import sys
from norm_graph import NormGraph

t = NormGraph("gen_normgemm.py", sys.argv[1], ("residual", "arg", "output", "group"), int(sys.argv[2]), 17)
M = t.ri(17, 300)
K = 8 * t.ri(8, 128)
N = int(t.rng.choice([t.ri(8, 96), t.ri(100, 400)]))
h = t.stream(M, K, ("arg", "output"))
n = t.norm(h)
# f16: the oracle computes the norm's sums in f16 (tosac in f32), and a normalised element off
# by a few f16 ulps moves y by up to 1/16 of that per k (bf16: 8 bits of mantissa)
ey = t.err("2e-3", "0.25", "0.5")
ez, eh = t.err("4e-3", "0.5", "1.0"), t.err("1e-4", "2e-2", "0.125")
if t.kind == "group":
    qkv = [t.add(t.matmul(n, t.wconst((1, K, N), 0.0625)), t.warg((1, 1, N), 1)) for _ in range(3)]
    z = t.add(t.add(t.matmul(qkv[0], t.warg((1, N, K), 0.0625)), t.warg((1, 1, K), 0.5)), n)
    results, errs = qkv[1:] + [z, h], [ey, ey, ez, eh]
else:
    y = t.add(t.matmul(n, t.warg((1, K, N), 0.0625)), t.warg((1, 1, N), 1))
    results, errs = [y], [ey]
    if t.kind == "residual":
        z = t.add(t.add(t.matmul(y, t.warg((1, N, K), 0.0625)), t.warg((1, 1, K), 0.5)), n)
        results += [z, h]
        errs += [ez, eh]
    if t.kind == "output":
        results.append(n)
        errs.append(t.err("1e-4", "0.1", "0.2"))
t.write(N, results, errs)
