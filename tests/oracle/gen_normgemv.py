"""Seeded row norms feeding a skinny GEMM (row norms in skinny GEMMs: tests/bats/norm_gemv.bats,
docs/partitioning.md "Row norms in skinny GEMMs").
gen_normgemv.py KIND SEED -> graph on stdout (one @main).

KIND:
  residual  h = x + a W0 + b0 (the residual add in the first skinny GEMM's epilogue, as in GPT-2),
            then a layer norm (an RMS norm for seeds divisible by 3) of h with gamma and beta,
            then n W1 + b1; results: that and h (the residual stream, needed later).
  arg       the norm of the argument x directly, then n W1 + b1; result: that.
  output    residual, with the normalised n returned as well (a graph result: the norm kernel
            stays and the GEMM reads its buffer).
1-4 rows, K and N drawn (odd ones too), f32, f16 for even seeds, bf16 for odd multiples of 5. Weights, gamma and beta are
arguments (as in tests/bench/gen_model.py's models) with the oracle's data in scaled ranges; only
scalar constants are literals, so the f16 form is the f32 text with its element type replaced."""
import sys
from norm_graph import NormGraph

t = NormGraph("gen_normgemv.py", sys.argv[1], ("residual", "arg", "output"), int(sys.argv[2]))
M = t.ri(1, 4)
K = int(t.rng.choice([t.ri(8, 96), t.ri(100, 1100), 768]))
N = int(t.rng.choice([t.ri(4, 80), t.ri(100, 700)]))
h = t.stream(M, K, ("arg",))
n = t.norm(h)
y = t.add(t.matmul(n, t.warg((1, K, N), 0.0625)), t.warg((1, 1, N), 1))
# f16: the oracle computes the norm's sums in f16 (tosac in f32), and a normalised element off
# by a few f16 ulps moves y by up to 1/16 of that per k
# (bf16: 8 bits of mantissa, every step rounded)
results, errs = [y], [t.err("2e-3", "0.25", "0.5")]
if t.kind != "arg":
    results.append(h)
    errs.append(t.err("1e-4", "2e-2", "0.125"))
if t.kind == "output":
    results.append(n)
    errs.append(t.err("1e-4", "0.1", "0.2"))
t.write(N, results, errs)
