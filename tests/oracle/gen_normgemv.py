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
import contextlib
import io
import sys
import numpy as np
from tosa_writer import Graph

kind, seed = sys.argv[1], int(sys.argv[2])
if kind not in ("residual", "arg", "output"):
    sys.exit("unknown kind " + kind)
rng = np.random.default_rng(seed * 7919 + sum(map(ord, kind)))
ri = lambda a, b: int(rng.integers(a, b + 1))
g = Graph(rng)
emit, arg = g.emit, g.arg
shift = g.scalar(0, "i8")
zero = g.scalar("0.000000e+00")
f16 = seed % 2 == 0
bf16 = not f16 and seed % 5 == 0
M = ri(1, 4)
K = int(rng.choice([ri(8, 96), ri(100, 1100), 768]))
N = int(rng.choice([ri(4, 80), ri(100, 700)]))
rms = seed % 3 == 0


def mul(a, b):
    return emit("tosa.mul", [a, b, shift], a.shape if len(a.shape) >= len(b.shape) else b.shape)


def matmul(a, b):
    return emit("tosa.matmul", [a, b, zero, zero], (a.shape[0], a.shape[1], b.shape[2]))


ranges = {}


def warg(shape, scale):
    v = arg(shape)
    ranges[len(g.args) - 1] = scale
    return v


def lit(x):
    return emit("tosa.const", [], (1, 1, 1), "values = dense<%.9e> : tensor<1x1x1xf32>" % x)


def norm(h):
    R = (1, M, 1)
    inv, eps = lit(1.0 / K), lit(1e-5)
    if rms:
        ms = mul(emit("tosa.reduce_sum", [mul(h, h)], R, "axis = 2 : i32"), inv)
        return mul(mul(h, emit("tosa.rsqrt", [emit("tosa.add", [ms, eps], R)], R)), warg((1, 1, K), 1))
    mean = mul(emit("tosa.reduce_sum", [h], R, "axis = 2 : i32"), inv)
    d = emit("tosa.sub", [h, mean], h.shape)
    var = mul(emit("tosa.reduce_sum", [mul(d, d)], R, "axis = 2 : i32"), inv)
    n = mul(mul(d, emit("tosa.rsqrt", [emit("tosa.add", [var, eps], R)], R)), warg((1, 1, K), 1))
    return emit("tosa.add", [n, warg((1, 1, K), 0.5)], h.shape)


x = arg((1, M, K))
if kind == "arg":
    h = x
else:
    K0 = ri(8, 300)
    a = arg((1, M, K0))
    h = emit("tosa.add", [x, emit("tosa.add", [matmul(a, warg((1, K0, K), 0.125)), warg((1, 1, K), 0.5)],
                                 (1, M, K))], (1, M, K))
n = norm(h)
y = emit("tosa.add", [matmul(n, warg((1, K, N), 0.0625)), warg((1, 1, N), 1)], (1, M, N))
# f16: the oracle computes the norm's sums in f16 (tosac in f32), and a normalised element off
# by a few f16 ulps moves y by up to 1/16 of that per k
# (bf16: 8 bits of mantissa, every step rounded)
results, errs = [y], ["0.25" if f16 else "0.5" if bf16 else "2e-3"]
if kind != "arg":
    results.append(h)
    errs.append("2e-2" if f16 else "0.125" if bf16 else "1e-4")
if kind == "output":
    results.append(n)
    errs.append("0.1" if f16 else "0.2" if bf16 else "1e-4")
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    g.print("gen_normgemv.py %s %d: M %d, K %d, N %d, %s%s" % (kind, seed, M, K, N, "rms" if rms else "layer norm",
                                                                 " (f16)" if f16 else " (bf16)" if bf16 else ""), results, errs)
out = buf.getvalue()
for i, r in ranges.items():
    out = out.replace("// oracle: arg %d -1 1\n" % i, "// oracle: arg %d %r %r\n" % (i, -r, r))
sys.stdout.write(out.replace("xf32>", "xf16>") if f16 else out.replace("xf32>", "xbf16>") if bf16 else out)
