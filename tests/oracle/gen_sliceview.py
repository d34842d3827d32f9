"""Seeded graphs of contiguous slices read in place (slice views: tests/bats/slice_views.bats,
docs/partitioning.md "Slice views").
gen_sliceview.py KIND SEED -> graph on stdout (one @main).

KIND:
  decode  one decode step of attention: a fused QKV projection (matmul + bias) sliced into Q, K
          and V, K and V appended to KV-cache arguments (tosa.concat, the new caches returned
          too), softmax(Q K^T / sqrt(d)) V per head, plus Q + V (one kernel reading two slices of
          one buffer)
  rows    slices of a [A, B, 64] f32 elementwise result: whole rows and one row (contiguous, on
          256-byte boundaries: read in place), a run inside a row (not on a boundary) and a
          strided box (not contiguous), both copy kernels, each read by an elementwise op
Shapes and data follow the seed; data are multiples of 1/64."""
import sys
import numpy as np
from tosa_writer import Graph

kind, seed = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(seed * 7919 + sum(map(ord, kind)))
ri = lambda a, b: int(rng.integers(a, b + 1))
g = Graph(rng)
emit, const, arg = g.emit, g.const, g.arg
mul, reshape, matmul, reduce, concat = g.mul, g.reshape, g.matmul, g.reduce, g.concat


if kind == "decode":
    # H a multiple of 64 (256 bytes of f32): the K and V slices start on a view boundary
    d, L = int(rng.choice([16, 32, 64])), ri(1, 40)
    nh = 64 // d * ri(1, 2)
    h = nh * d
    x = arg((1, 1, h))
    qkv = emit("tosa.add", [matmul(x, const((1, h, 3 * h), 0.25)), const((1, 1, 3 * h))], (1, 1, 3 * h))
    q = reshape(g.slice(qkv, [0, 0, 0], [1, 1, h]), (nh, 1, d))
    k = reshape(g.slice(qkv, [0, 0, h], [1, 1, h]), (nh, d, 1))
    v = reshape(g.slice(qkv, [0, 0, 2 * h], [1, 1, h]), (nh, 1, d))
    kc = concat([arg((nh, d, L)), k], 2)
    vc = concat([arg((nh, L, d)), v], 1)
    o = reshape(g.attention(q, kc, vc), (1, 1, h))
    both = emit("tosa.add", [q, v], q.shape)
    g.print("gen_sliceview.py %s %d" % (kind, seed), [o, kc, vc, both], ["1e-4", "0", "0", "0"])
elif kind == "rows":
    A, B, C = ri(2, 6), ri(1, 3), 64  # a row of 64 f32: 256 bytes, a view boundary
    y = emit("tosa.add", [arg((A, B, C)), const((A, B, C))], (A, B, C))
    a0 = ri(0, A - 1)
    rows = g.slice(y, [a0, 0, 0], [ri(1, A - a0), B, C])
    b0, c0 = ri(0, B - 1), ri(1, C - 1)
    run = g.slice(y, [a0, b0, 0], [1, 1, C])
    part = g.slice(y, [a0, b0, c0], [1, 1, ri(1, C - c0)])  # not on a boundary: a copy
    box = g.slice(y, [0, 0, c0], [A, B, C - c0])
    r1 = emit("tosa.abs", [rows], rows.shape)
    r2 = emit("tosa.negate", [run, g.scalar("0.000000e+00"), g.scalar("0.000000e+00")], run.shape)
    r3 = emit("tosa.abs", [box], box.shape)
    r4 = emit("tosa.abs", [part], part.shape)
    g.print("gen_sliceview.py %s %d" % (kind, seed), [r1, r2, r3, r4], ["0", "0", "0", "0"])
else:
    sys.exit("unknown kind " + kind)
