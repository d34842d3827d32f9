#!/usr/bin/python3
"""gen_exporters.py FAMILY SEED > graph.mlir: seeded graphs in the dialects exporters mix into
TOSA (tensor, arith, math, linalg, the generic op form), shapes drawn from the seed. Every graph
is valid for mlir-opt-22 and defines its results without reading tensor.empty's contents.

FAMILY:
  tensor   extract_slice, insert_slice, collapse_shape / expand_shape, reshape, cast, concat, pad
  arith    arith / math elementwise ops with fastmath flags, cmpf, cmpi, select, casts, divf, sqrt
  linalg   matmul (plain, indexing_maps transposing A or B), batch_matmul, fill, softmax, transpose,
           broadcast, map, reduce, elementwise, generic (bias + GELU, a reduction with linalg.index)
  generic  the whole module in the generic op form with a dense_resource blob
  scalar   scalars outside linalg bodies: tensor.extract (of a computed tensor and of a constant),
           arith / math on scalars, tensor.splat / from_elements of computed scalars, arith.select
           on a scalar condition, linalg.fill and a linalg body reading a computed scalar
  strided  extract_slice / insert_slice with strides > 1 (offsets, sizes and strides drawn)
  nan      every cmpf predicate on operands with NaNs (log and sqrt of negative inputs),
           extui / uitofp of i8 and i16, arith.bitcast of a constant
"""
import sys

import numpy as np


def t(dims, et="f32"):
    return "tensor<%sx%s>" % ("x".join(map(str, dims)), et) if dims else "tensor<%s>" % et


class G:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.lines, self.args, self.n = [], [], 0

    def dim(self, lo=2, hi=9):
        return int(self.rng.integers(lo, hi + 1))

    def arg(self, dims, et="f32"):
        name = "%%a%d" % len(self.args)
        self.args.append("%s: %s" % (name, t(dims, et)))
        return name

    def op(self, text):
        self.n += 1
        name = "%%v%d" % self.n
        self.lines.append("  %s = %s" % (name, text))
        return name

    def func(self, results):
        names, types = zip(*results)
        return "\n".join(["func.func @main(%s) -> (%s) {" % (", ".join(self.args), ", ".join(types))] + self.lines +
                         ["  return %s : %s" % (", ".join(names), ", ".join(types)), "}", ""])


def tensor(g):
    m, n = g.dim(3, 9), g.dim(3, 9)
    a = g.arg([m, n])
    o0, o1 = g.dim(0, m - 2), g.dim(0, n - 2)
    s0, s1 = g.dim(1, m - o0), g.dim(1, n - o1)
    b = g.arg([s0, s1])
    s = g.op("tensor.extract_slice %s[%d, %d] [%d, %d] [1, 1] : %s to %s" % (a, o0, o1, s0, s1, t([m, n]), t([s0, s1])))
    x = g.op("arith.addf %s, %s fastmath<fast> : %s" % (s, b, t([s0, s1])))
    i0, i1 = g.dim(0, m - s0), g.dim(0, n - s1)
    ins = g.op("tensor.insert_slice %s into %s[%d, %d] [%d, %d] [1, 1] : %s into %s"
               % (x, a, i0, i1, s0, s1, t([s0, s1]), t([m, n])))
    row = g.op("tensor.extract_slice %s[%d, 0] [1, %d] [1, 1] : %s to %s" % (a, g.dim(0, m - 1), n, t([m, n]), t([n])))
    flat = g.op("tensor.collapse_shape %s [[0, 1]] : %s into %s" % (ins, t([m, n]), t([m * n])))
    e3 = g.op("tensor.expand_shape %s [[0, 1, 2]] output_shape [%d, 1, %d] : %s into %s"
              % (flat, n, m, t([m * n]), t([n, 1, m])))
    cat = g.op("tensor.concat dim(1) %s, %s : (%s, %s) -> %s" % (e3, e3, t([n, 1, m]), t([n, 1, m]), t([n, 2, m])))
    shape = g.op("arith.constant dense<[%d, %d]> : tensor<2xi64>" % (2 * n, m))
    rs = g.op("tensor.reshape %s(%s) : (%s, tensor<2xi64>) -> %s" % (cat, shape, t([n, 2, m]), t([2 * n, m])))
    cs = g.op("tensor.cast %s : %s to %s" % (rs, t([2 * n, m]), t([2 * n, m])))
    lo, hi = [g.dim(0, 2) for _ in range(2)], [g.dim(0, 2) for _ in range(2)]
    pv = g.op("arith.constant %.3f : f32" % float(g.rng.uniform(-2, 2)))
    pd = [2 * n + lo[0] + hi[0], m + lo[1] + hi[1]]
    pad = g.op("tensor.pad %s low[%d, %d] high[%d, %d] {\n  ^bb0(%%i: index, %%j: index):\n    tensor.yield %s : f32\n"
               "  } : %s to %s" % (cs, lo[0], lo[1], hi[0], hi[1], pv, t([2 * n, m]), t(pd)))
    return g.func([(ins, t([m, n])), (row, t([n])), (pad, t(pd))])


def arith(g):
    d = [g.dim(2, 7), g.dim(2, 33)]
    T, T16, TI = t(d), t(d, "f16"), t(d, "i32")
    a, b = g.arg(d), g.arg(d)
    i, j = g.arg(d, "i32"), g.arg(d, "i32")
    fm = ["", " fastmath<fast>", " fastmath<nnan,ninf>", " fastmath<contract>"]
    x = a
    for k in range(4):
        op = ["arith.addf", "arith.subf", "arith.mulf", "arith.maximumf", "arith.minimumf", "arith.maxnumf"][
            g.rng.integers(0, 6)]
        x = g.op("%s %s, %s%s : %s" % (op, x, b, fm[g.rng.integers(0, 4)], T))
        u = ["math.tanh", "math.erf", "math.exp", "math.absf", "math.sin", "math.floor", "arith.negf"][g.rng.integers(0, 7)]
        x = g.op("%s %s : %s" % (u, x, T))
    sq = g.op("math.sqrt %s : %s" % (g.op("math.absf %s : %s" % (b, T)), T))
    one = g.op("arith.constant dense<1.0> : %s" % T)
    dv = g.op("arith.divf %s, %s : %s" % (x, g.op("arith.addf %s, %s : %s" % (sq, one, T)), T))
    rs = g.op("math.rsqrt %s fastmath<afn> : %s" % (g.op("arith.addf %s, %s : %s" % (sq, one, T)), T))
    c = g.op("arith.cmpf %s, %s, %s : %s" % (["olt", "oge", "ugt", "ole"][g.rng.integers(0, 4)], dv, rs, T))
    sel = g.op("arith.select %s, %s, %s : %s, %s" % (c, dv, rs, t(d, "i1"), T))
    h = g.op("arith.truncf %s : %s to %s" % (sel, T, T16))
    back = g.op("arith.extf %s : %s to %s" % (h, T16, T))
    ci = g.op("arith.cmpi %s, %s, %s : %s" % (["slt", "sge", "eq", "ne"][g.rng.integers(0, 4)], i, j, TI))
    mx = g.op("arith.select %s, %s, %s : %s, %s" % (ci, i, g.op("arith.muli %s, %s : %s" % (i, j, TI)), t(d, "i1"), TI))
    fl = g.op("arith.sitofp %s : %s to %s" % (mx, TI, T))
    return g.func([(back, T), (g.op("arith.addf %s, %s : %s" % (fl, back, T)), T)])


GELU_MAP = "affine_map<(d0, d1) -> (d0, d1)>"


def linalg(g):
    m, k, n, bsz = g.dim(2, 17), g.dim(2, 33), g.dim(2, 17), g.dim(1, 3)
    a, w, wt, bias, at = g.arg([m, k]), g.arg([k, n]), g.arg([n, k]), g.arg([n]), g.arg([k, m])
    q, kk = g.arg([bsz, m, k]), g.arg([bsz, k, n])
    zero = g.op("arith.constant 0.000000e+00 : f32")
    e = g.op("tensor.empty() : %s" % t([m, n]))
    f = g.op("linalg.fill ins(%s : f32) outs(%s : %s) -> %s" % (zero, e, t([m, n]), t([m, n])))
    mm = g.op("linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (a, w, t([m, k]), t([k, n]), f, t([m, n]), t([m, n])))
    mt = g.op("linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
              "affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
              % (at, w, t([k, m]), t([k, n]), mm, t([m, n]), t([m, n])))
    mi = g.op("linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, "
              "affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
              % (a, wt, t([m, k]), t([n, k]), f, t([m, n]), t([m, n])))
    gelu = g.op("linalg.generic {indexing_maps = [%s, affine_map<(d0, d1) -> (d1)>, %s], iterator_types = [\"parallel\", "
                "\"parallel\"]} ins(%s, %s : %s, %s) outs(%s : %s) {\n  ^bb0(%%in: f32, %%b: f32, %%out: f32):\n"
                "    %%0 = arith.addf %%in, %%b : f32\n    %%c = arith.constant 0.707106769 : f32\n"
                "    %%1 = arith.mulf %%0, %%c : f32\n    %%2 = math.erf %%1 : f32\n    %%h = arith.constant 0.5 : f32\n"
                "    %%3 = arith.mulf %%0, %%h : f32\n    %%4 = arith.mulf %%2, %%3 : f32\n    %%5 = arith.addf %%3, %%4 : f32\n"
                "    linalg.yield %%5 : f32\n  } -> %s" % (GELU_MAP, GELU_MAP, mt, bias, t([m, n]), t([n]), e, t([m, n]), t([m, n])))
    em = g.op("tensor.empty() : %s" % t([m]))
    fm = g.op("linalg.fill ins(%s : f32) outs(%s : %s) -> %s" % (zero, em, t([m]), t([m])))
    red = g.op("linalg.generic {indexing_maps = [%s, affine_map<(d0, d1) -> (d0)>], iterator_types = [\"parallel\", "
               "\"reduction\"]} ins(%s : %s) outs(%s : %s) {\n  ^bb0(%%in: f32, %%out: f32):\n"
               "    %%i = linalg.index 1 : index\n    %%ii = arith.index_cast %%i : index to i32\n"
               "    %%fi = arith.sitofp %%ii : i32 to f32\n    %%0 = arith.mulf %%in, %%fi : f32\n"
               "    %%1 = arith.addf %%out, %%0 : f32\n    linalg.yield %%1 : f32\n  } -> %s"
               % (GELU_MAP, gelu, t([m, n]), fm, t([m]), t([m])))
    rmax = g.op("linalg.reduce { arith.maximumf } ins(%s : %s) outs(%s : %s) dimensions = [1]"
                % (mi, t([m, n]), g.op("linalg.fill ins(%s : f32) outs(%s : %s) -> %s"
                                       % (g.op("arith.constant -3.40282347E+38 : f32"), em, t([m]), t([m]))), t([m])))
    eb = g.op("tensor.empty() : %s" % t([m, n]))
    bc = g.op("linalg.broadcast ins(%s : %s) outs(%s : %s) dimensions = [1]" % (rmax, t([m]), eb, t([m, n])))
    et = g.op("tensor.empty() : %s" % t([n, m]))
    tr = g.op("linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [1, 0]" % (bc, t([m, n]), et, t([n, m])))
    eb3 = g.op("tensor.empty() : %s" % t([bsz, m, n]))
    z3 = g.op("linalg.fill ins(%s : f32) outs(%s : %s) -> %s" % (zero, eb3, t([bsz, m, n]), t([bsz, m, n])))
    bm = g.op("linalg.batch_matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
              % (q, kk, t([bsz, m, k]), t([bsz, k, n]), z3, t([bsz, m, n]), t([bsz, m, n])))
    sm = g.op("linalg.softmax dimension(2) ins(%s : %s) outs(%s : %s) -> %s" % (bm, t([bsz, m, n]), eb3, t([bsz, m, n]),
                                                                                 t([bsz, m, n])))
    ex = g.op("linalg.elementwise kind=#linalg.elementwise_kind<tanh> ins(%s : %s) outs(%s : %s) -> %s"
              % (gelu, t([m, n]), eb, t([m, n]), t([m, n])))
    mp = g.op("linalg.map ins(%s, %s : %s, %s) outs(%s : %s)\n    (%%x: f32, %%y: f32, %%o: f32) {\n"
              "      %%0 = arith.subf %%x, %%y : f32\n      linalg.yield %%0 : f32\n    }"
              % (ex, bc, t([m, n]), t([m, n]), eb, t([m, n])))
    return g.func([(red, t([m])), (tr, t([n, m])), (sm, t([bsz, m, n])), (mp, t([m, n]))])


def generic(g):
    m, n = g.dim(2, 9), g.dim(2, 9)
    w = g.rng.uniform(-2, 2, (m, n)).astype("<f4")
    T = t([m, n])
    blob = "0x04000000" + w.tobytes().hex().upper()
    lo = g.dim(0, m - 1)
    return "\n".join([
        '"builtin.module"() ({',
        '  "func.func"() <{function_type = (%s, %s) -> (%s, %s), sym_name = "main"}> ({' % (T, T, T, t([m - lo, n])),
        '  ^bb0(%%x: %s, %%y: %s):' % (T, T),
        '    %%w = "tosa.const"() <{values = dense_resource<weights> : %s}> : () -> %s' % (T, T),
        '    %%0 = "arith.mulf"(%%x, %%w) <{fastmath = #arith.fastmath<contract>}> : (%s, %s) -> %s' % (T, T, T),
        '    %%1 = "math.tanh"(%%0) <{fastmath = #arith.fastmath<none>}> : (%s) -> %s' % (T, T),
        '    %%2 = "tosa.add"(%%1, %%y) : (%s, %s) -> %s' % (T, T, T),
        '    %%3 = "arith.cmpf"(%%2, %%x) <{fastmath = #arith.fastmath<none>, predicate = 4 : i64}> : (%s, %s) -> %s'
        % (T, T, t([m, n], "i1")),
        '    %%4 = "arith.select"(%%3, %%2, %%x) : (%s, %s, %s) -> %s' % (t([m, n], "i1"), T, T, T),
        '    %%5 = "tensor.extract_slice"(%%4) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = '
        'array<i64: %d, 0>, static_sizes = array<i64: %d, %d>, static_strides = array<i64: 1, 1>}> : (%s) -> %s'
        % (lo, m - lo, n, T, t([m - lo, n])),
        '    "func.return"(%%4, %%5) : (%s, %s) -> ()' % (T, t([m - lo, n])),
        '  }) : () -> ()',
        '}) : () -> ()',
        '{-#', '  dialect_resources: {', '    builtin: {', '      weights: "%s"' % blob, '    }', '  }', '#-}', ''])


def scalar(g):
    m, n = g.dim(2, 9), g.dim(2, 17)
    T = t([m, n])
    a, b = g.arg([m, n]), g.arg([m, n])
    i0, i1 = g.op("arith.constant %d : index" % g.dim(0, m - 1)), g.op("arith.constant %d : index" % g.dim(0, n - 1))
    j1 = g.op("arith.constant %d : index" % g.dim(0, n - 1))
    s0 = g.op("tensor.extract %s[%s, %s] : %s" % (a, i0, i1, T))
    row = g.op("math.tanh %s : %s" % (b, T))
    s1 = g.op("tensor.extract %s[%s, %s] : %s" % (row, i0, j1, T))
    w = g.rng.uniform(-2, 2, 4)
    cst = g.op("arith.constant dense<[%s]> : tensor<4xf32>" % ", ".join("%.4f" % v for v in w))
    k = g.op("arith.constant %d : index" % g.dim(0, 3))
    s2 = g.op("tensor.extract %s[%s] : tensor<4xf32>" % (cst, k))
    h = g.op("arith.constant %.3f : f32" % float(g.rng.uniform(0.25, 2)))
    x = g.op("arith.mulf %s, %s fastmath<fast> : f32" % (s0, h))
    x = g.op("arith.addf %s, %s : f32" % (x, s2))
    e = g.op("math.exp %s : f32" % g.op("arith.subf %s, %s : f32" % (x, s1)))
    q = g.op("arith.divf %s, %s : f32" % (e, g.op("arith.addf %s, %s : f32" % (g.op("math.absf %s : f32" % s1), h))))
    sp = g.op("tensor.splat %s : %s" % (q, T))
    out0 = g.op("arith.mulf %s, %s : %s" % (a, sp, T))
    fe = g.op("tensor.from_elements %s, %s, %s, %s : %s" % (s0, h, q, s2, t([2, 2])))
    c = g.op("arith.cmpf ogt, %s, %s : f32" % (s0, s1))
    sel = g.op("arith.select %s, %s, %s : %s" % (c, a, row, T))
    mx = g.op("arith.select %s, %s, %s : f32" % (c, s0, s1))
    ii = g.op("arith.fptosi %s : f32 to i32" % g.op("math.floor %s : f32" % g.op("arith.mulf %s, %s : f32" % (mx, h))))
    fi = g.op("tensor.from_elements %s : %s" % (ii, t([1], "i32")))
    em = g.op("tensor.empty() : %s" % T)
    fill = g.op("linalg.fill ins(%s : f32) outs(%s : %s) -> %s" % (e, em, T, T))
    gen = g.op("linalg.generic {indexing_maps = [%s, %s], iterator_types = [\"parallel\", \"parallel\"]} ins(%s : %s) "
               "outs(%s : %s) {\n  ^bb0(%%in: f32, %%out: f32):\n    %%0 = arith.mulf %%in, %s : f32\n"
               "    %%1 = arith.addf %%0, %s : f32\n    linalg.yield %%1 : f32\n  } -> %s"
               % (GELU_MAP, GELU_MAP, fill, T, em, T, q, s1, T))
    return g.func([(out0, T), (fe, t([2, 2])), (sel, T), (fi, t([1], "i32")), (gen, T)])


def strided(g):
    dims = [g.dim(3, 12), g.dim(3, 12), g.dim(2, 6)]
    T = t(dims)
    a = g.arg(dims)
    res = []
    for _ in range(2):
        st = [int(g.rng.integers(1, 4)) for _ in dims]
        st[int(g.rng.integers(0, 3))] = int(g.rng.integers(2, 5))
        off, size = [], []
        for d, s in zip(dims, st):
            s = min(s, d - 1)
            size.append(int(g.rng.integers(1, (d - 1) // s + 2)))
            off.append(int(g.rng.integers(0, d - (size[-1] - 1) * s)))
        st = [min(s, d - 1) for s, d in zip(st, dims)]
        S = t(size)
        x = g.op("tensor.extract_slice %s[%s] [%s] [%s] : %s to %s" % (a, ", ".join(map(str, off)), ", ".join(map(str, size)),
                                                                     ", ".join(map(str, st)), T, S))
        y = g.op("math.exp %s : %s" % (x, S))
        z = g.op("tensor.insert_slice %s into %s[%s] [%s] [%s] : %s into %s"
                 % (y, a, ", ".join(map(str, off)), ", ".join(map(str, size)), ", ".join(map(str, st)), S, T))
        res += [(x, S), (z, T)]
    r2 = [dims[0], dims[1] * dims[2]]
    flat = g.op("tensor.collapse_shape %s [[0], [1, 2]] : %s into %s" % (a, T, t(r2)))
    s1 = g.dim(2, 3)
    n1 = (r2[1] - 1) // s1 + 1
    row = g.op("tensor.extract_slice %s[1, 0] [1, %d] [1, %d] : %s to %s" % (flat, n1, s1, t(r2), t([n1])))
    res.append((row, t([n1])))
    return g.func(res)


def nan(g):
    d = [g.dim(2, 7), g.dim(2, 33)]
    T, TB = t(d), t(d, "i1")
    a, b = g.arg(d), g.arg(d)
    q, w = g.arg(d, "i8"), g.arg(d, "i16")
    n = g.op("math.log %s : %s" % (a, T))
    m = g.op("math.sqrt %s : %s" % (b, T))
    res = []
    for p in ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"]:
        x, y = [(n, m), (m, n), (n, n), (n, a)][g.rng.integers(0, 4)]
        res.append((g.op("arith.cmpf %s, %s, %s : %s" % (p, x, y, T)), TB))
    res.append((g.op("arith.extui %s : %s to %s" % (q, t(d, "i8"), t(d, "i32"))), t(d, "i32")))
    res.append((g.op("arith.extui %s : %s to %s" % (q, t(d, "i8"), t(d, "i16"))), t(d, "i16")))
    res.append((g.op("arith.extui %s : %s to %s" % (w, t(d, "i16"), t(d, "i32"))), t(d, "i32")))
    res.append((g.op("arith.uitofp %s : %s to %s" % (q, t(d, "i8"), T)), T))
    res.append((g.op("arith.uitofp %s : %s to %s" % (w, t(d, "i16"), T)), T))
    c = g.op("arith.constant dense<[%s]> : tensor<4xf32>" % ", ".join("%.4f" % v for v in g.rng.uniform(-8, 8, 4)))
    res.append((g.op("arith.bitcast %s : tensor<4xf32> to tensor<4xi32>" % c), t([4], "i32")))
    return g.func(res)


FAMILIES = {"tensor": tensor, "arith": arith, "linalg": linalg, "generic": generic, "scalar": scalar, "strided": strided,
            "nan": nan}

if __name__ == "__main__":
    sys.stdout.write(FAMILIES[sys.argv[1]](G(int(sys.argv[2]))))
