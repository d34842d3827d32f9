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
import contextlib
import io
import sys
import numpy as np
from tosa_writer import Graph, V

kind, seed = sys.argv[1], int(sys.argv[2])
if kind not in ("residual", "arg", "output", "group"):
    sys.exit("unknown kind " + kind)
rng = np.random.default_rng(seed * 7919 + sum(map(ord, kind)) + 17)
ri = lambda a, b: int(rng.integers(a, b + 1))
g = Graph(rng)
emit, arg = g.emit, g.arg
shift = g.scalar(0, "i8")
zero = g.scalar("0.000000e+00")
f16 = seed % 2 == 0
bf16 = not f16 and seed % 5 == 0
M = ri(17, 300)
K = 8 * ri(8, 128)
N = int(rng.choice([ri(8, 96), ri(100, 400)]))
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


def wconst(shape, scale):
    """A constant weight, its bytes in the graph's element type."""
    vals = (rng.integers(-64, 65, int(np.prod(shape))) / 64.0 * scale).astype(np.float32)
    data = vals.astype(np.float16).tobytes() if f16 else \
        (vals.view(np.uint32) >> 16).astype(np.uint16).tobytes() if bf16 else vals.tobytes()
    v = V(g.fresh(), shape)
    g.lines.append('  %s = "tosa.const"() <{values = dense<"0x%s"> : %s}> : () -> %s'
                   % (v.name, data.hex().upper(), v.ty, v.ty))
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
if kind in ("arg", "output"):
    h = x
else:
    K0 = ri(8, 300)
    a = arg((1, M, K0))
    h = emit("tosa.add", [x, emit("tosa.add", [matmul(a, warg((1, K0, K), 0.125)), warg((1, 1, K), 0.5)],
                                 (1, M, K))], (1, M, K))
n = norm(h)
# f16: the oracle computes the norm's sums in f16 (tosac in f32), and a normalised element off
# by a few f16 ulps moves y by up to 1/16 of that per k (bf16: 8 bits of mantissa)
ey = "0.25" if f16 else "0.5" if bf16 else "2e-3"
if kind == "group":
    qkv = [emit("tosa.add", [matmul(n, wconst((1, K, N), 0.0625)), warg((1, 1, N), 1)], (1, M, N))
           for _ in range(3)]
    z = emit("tosa.add", [emit("tosa.add", [matmul(qkv[0], warg((1, N, K), 0.0625)), warg((1, 1, K), 0.5)],
                               (1, M, K)), n], (1, M, K))
    results = qkv[1:] + [z, h]
    errs = [ey, ey, "0.5" if f16 else "1.0" if bf16 else "4e-3", "2e-2" if f16 else "0.125" if bf16 else "1e-4"]
else:
    y = emit("tosa.add", [matmul(n, warg((1, K, N), 0.0625)), warg((1, 1, N), 1)], (1, M, N))
    results, errs = [y], [ey]
    if kind == "residual":
        z = emit("tosa.add", [emit("tosa.add", [matmul(y, warg((1, N, K), 0.0625)), warg((1, 1, K), 0.5)], (1, M, K)),
                              n], (1, M, K))
        results += [z, h]
        errs += ["0.5" if f16 else "1.0" if bf16 else "4e-3", "2e-2" if f16 else "0.125" if bf16 else "1e-4"]
    if kind == "output":
        results.append(n)
        errs.append("0.1" if f16 else "0.2" if bf16 else "1e-4")
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    g.print("gen_normgemm.py %s %d: M %d, K %d, N %d, %s%s" % (kind, seed, M, K, N, "rms" if rms else "layer norm",
                                                                 " (f16)" if f16 else " (bf16)" if bf16 else ""), results, errs)
out = buf.getvalue()
for i, r in ranges.items():
    out = out.replace("// oracle: arg %d -1 1\n" % i, "// oracle: arg %d %r %r\n" % (i, -r, r))
sys.stdout.write(out.replace("xf32>", "xf16>") if f16 else out.replace("xf32>", "xbf16>") if bf16 else out)
