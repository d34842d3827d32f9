"""Seeded decode-step attentions over KV caches appended by tosa.concat (concat views:
tests/bats/concat_views.bats, docs/partitioning.md "Concat views").
gen_concatview.py KIND SEED -> graph on stdout (one @main).

KIND:
  decode  S new tokens (1-4) of nh heads of size d: a fused QKV projection (matmul + bias)
          sliced into Q, K and V; K appended to a cache either kept transposed ([nh, d, L] and
          the new [nh, d, S] along axis 2) or as rows ([nh, L, d] along axis 1, transposed for
          Q K^T), V to a [nh, L, d] cache along axis 1, sometimes after a second cache argument
          (three pieces); softmax(Q K^T / sqrt(d)) V is the only result, so the concatenations
          are read only by the attention. L is odd or even, f32 or f16 by the seed.
  result  the same with the V concatenation also returned (a graph result: it stays a copy).
Data are the oracle's; only scalar constants (the scale, zero points) are literals, so the f16
form is the f32 text with its element type replaced."""
import contextlib
import io
import sys
import numpy as np
from tosa_writer import Graph

kind, seed = sys.argv[1], int(sys.argv[2])
if kind not in ("decode", "result"):
    sys.exit("unknown kind " + kind)
rng = np.random.default_rng(seed * 6007 + sum(map(ord, kind)))
ri = lambda a, b: int(rng.integers(a, b + 1))
g = Graph(rng)
emit, arg = g.emit, g.arg
reshape, matmul, concat = g.reshape, g.matmul, g.concat


f16 = seed % 2 == 0
d = int(rng.choice([8, 16, 32, 64]))
nh, S, L = ri(1, 4), ri(1, 4), ri(1, 300)
kt_cache = ri(0, 1) == 1  # K kept transposed: the concatenation along the last (innermost) axis
three = ri(0, 2) == 0     # a second cache argument before the first: three pieces
h = nh * d
x = arg((1, S, h))
qkv = emit("tosa.add", [matmul(x, arg((1, h, 3 * h))), arg((1, 1, 3 * h))], (1, S, 3 * h))


def heads(i, perm):
    """Part i of the projection as [nh, ...] by perm of [S, nh, d] (a reshape when S is 1)."""
    part = g.slice(qkv, [0, 0, i * h], [1, S, h])
    if S == 1:
        shape = [(S, nh, d)[p] for p in perm]
        return reshape(part, shape)
    return g.transpose(reshape(part, (S, nh, d)), perm)


q = heads(0, (1, 0, 2))
L0 = ri(1, 40) if three else 0
if kt_cache:
    pieces = ([arg((nh, d, L0))] if three else []) + [arg((nh, d, L)), heads(1, (1, 2, 0))]
    kt = concat(pieces, 2)
else:
    pieces = ([arg((nh, L0, d))] if three else []) + [arg((nh, L, d)), heads(1, (1, 0, 2))]
    kt = g.transpose(concat(pieces, 1), (0, 2, 1))
pieces = ([arg((nh, L0, d))] if three else []) + [arg((nh, L, d)), heads(2, (1, 0, 2))]
vc = concat(pieces, 1)
o = g.attention(q, kt, vc)
results, errs = [o], ["2e-2" if f16 else "1e-4"]
if kind == "result":
    results.append(vc)
    errs.append(errs[0])
# the projection's weights (argument 1) drawn from [-1/8, 1/8]: scores of a few units, a softmax
# that f16 rounding of Q and K does not tip
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    g.print("gen_concatview.py %s %d%s" % (kind, seed, " (f16)" if f16 else ""), results, errs)
text = buf.getvalue().replace("// oracle: arg 1 -1 1\n", "// oracle: arg 1 -0.125 0.125\n")
sys.stdout.write(text.replace("xf32>", "xf16>") if f16 else text)
