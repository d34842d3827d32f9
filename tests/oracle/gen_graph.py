#!/usr/bin/python3
"""gen_graph.py: seeded random elementwise TOSA 1.0 graphs for the oracle comparison.

A graph is one `func.func @main` made of one or more independent chains. Each chain works on one
rank (1-4) and a full shape; its arguments and constants take that shape with some dimensions set
to 1 (TOSA broadcasting: equal ranks, dims equal or 1). Every step applies a random op to the most
recent value (so chains get deep) and, for binary ops, another value of the chain, a new argument
or a constant (splat or not).

Keeping the comparison meaningful (each value carries a magnitude bound `mag` and an estimate
`err` of how far two correct implementations may drift apart, in absolute terms):
  * arguments: floats uniform in [-4, 4] (sometimes [-50, 50]), i32 in [-1000, 1000], i8 full
    range, i1 random; constants are multiples of 1/8 (exact in f16 and bf16);
  * exp inputs are clamped to [-10, 10] (f32) or [-6, 6] (f16, bf16); log is log(|x| + 1);
    reciprocal is 1/(|x| + 0.5); rsqrt is rsqrt(|x| + 0.25);
  * a value above 1e4 (f32), 1e3 (f16, bf16) or 1e6 (i32) is clamped back (clamp for floats,
    maximum/minimum with constants for i32);
  * discontinuous ops (floor, ceil, equal, greater, greater_equal, casts to integers and i1) only
    take values that both implementations compute bit-exactly (err == 0); transcendental ops,
    reciprocal, rsqrt and a possible fused multiply-add make a value inexact;
  * a step whose error bound exceeds 1e-4 (f32), 1e-2 (f16) or 4e-2 (bf16) of its magnitude bound
    is undone and drawn again, so every result keeps a tight tolerance;
  * the comments `// oracle: arg K LO HI` and `// oracle: result K err E` in the output tell
    check.py the input ranges and the extra absolute tolerance of each result.
Also: sin, cos, pow(|x| + 0.5, constant) on floats; bitwise and/or/xor/not, logical shifts,
arithmetic_right_shift (round true/false) by constant amounts in [0, bits), intdiv by nonzero
constants and clz on i32; bitwise ops and shifts also on i8; i8 table lookups; rescale i8/i32 -> i8/i32 (single or double
round); logical and/or/xor/not on i1.
The ops used follow the TOSA 1.0 type support (no f16 <-> bf16 cast; integer add/sub/mul/max/min/abs on i32 only; clamp
on floats and i8; negate with zero-point operands).

CLI: gen_graph.py SEED [SEED...] [-o FILE]  (several seeds are merged into one function)
"""
import math
import random
import sys

FLOATS = ("f32", "f16", "bf16")
EPS = {"f32": 2.0 ** -23, "f16": 2.0 ** -10, "bf16": 2.0 ** -7}
# A step whose result could drift further than this (relative to its magnitude bound) between two
# correct implementations is drawn again, so that no result's tolerance becomes meaningless.
ERR_LIMIT = {"f32": 1e-4, "f16": 1e-2, "bf16": 4e-2}
MAG_LIMIT = {"f32": 1e4, "f16": 1e3, "bf16": 1e3, "i32": 1e6}
DIMS = [1, 1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 31, 33, 64, 129]


def ttype(shape, elem):
    return "tensor<" + "".join("%dx" % d for d in shape) + elem + ">"


def ulp(elem, mag):
    return EPS.get(elem, 0.0) * max(abs(mag), 2.0 ** -14)


def fmt_float(v):
    return "%.6e" % v


class Val:
    def __init__(self, name, elem, shape, mag, err, fma=False, const=False):
        self.name, self.elem, self.shape = name, elem, tuple(shape)
        self.mag, self.err, self.fma, self.const = mag, err, fma, const
        self.uses = 0

    @property
    def ty(self):
        return ttype(self.shape, self.elem)


class Graph:
    """Arguments, body lines and results, ready to be merged with other graphs."""

    def __init__(self):
        self.args = []      # (Val, lo, hi)
        self.lines = []
        self.results = []   # Val


class Gen:
    def __init__(self, seed, prefix="", max_numel=6000):
        self.rng = random.Random(seed)
        self.prefix = prefix
        self.max_numel = max_numel
        self.g = Graph()
        self.n = 0
        self.shared = {}

    # ---------------------------------------------------------------- helpers
    def fresh(self):
        self.n += 1
        return "%%%sv%d" % (self.prefix, self.n)

    def emit(self, line):
        self.g.lines.append("  " + line)

    def new_shape(self):
        r = self.rng.randint(1, 4)
        while True:
            if self.rng.random() < 0.15:
                shape = [1] * (r - 1) + [self.rng.choice([1, 7, 1000, 1001])]
            else:
                shape = [self.rng.choice(DIMS) for _ in range(r)]
            if math.prod(shape) <= self.max_numel:
                return shape

    def sub_shape(self, full):
        return [1 if self.rng.random() < 0.3 else d for d in full]

    def arg(self, elem, shape):
        name = "%%%sa%d" % (self.prefix, len(self.g.args))
        if elem in FLOATS:
            lo, hi = (-50.0, 50.0) if self.rng.random() < 0.15 else (-4.0, 4.0)
        elif elem == "i32":
            lo, hi = -1000, 1000
        elif elem == "i8":
            lo, hi = -128, 127
        else:
            lo, hi = 0, 1
        v = Val(name, elem, shape, max(abs(lo), abs(hi)), 0.0)
        self.g.args.append((v, lo, hi))
        return v

    def scalar_const(self, elem, value, rank):
        """A splat constant of all-1 shape (broadcasts against anything of that rank)."""
        name = self.fresh()
        shape = [1] * rank
        lit = fmt_float(value) if elem in FLOATS else ("true" if value else "false") if elem == "i1" \
            else str(int(value))
        self.emit('%s = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s'
                  % (name, lit, ttype(shape, elem), ttype(shape, elem)))
        return Val(name, elem, shape, abs(value), 0.0, const=True)

    def const_operand(self, elem, full):
        """A constant operand: splat or a non-splat tensor of a broadcast-compatible shape."""
        if self.rng.random() < 0.5:
            if elem in FLOATS:
                return self.scalar_const(elem, self.rng.randint(-24, 24) / 8.0, len(full))
            return self.scalar_const(elem, self.rng.randint(-20, 20), len(full))
        shape = self.sub_shape(full)
        while math.prod(shape) > 64:
            shape[self.rng.randrange(len(shape))] = 1
        n = math.prod(shape)
        if elem in FLOATS:
            vals = [self.rng.randint(-24, 24) / 8.0 for _ in range(n)]
        elif elem == "i1":
            vals = [self.rng.random() < 0.5 for _ in range(n)]
        else:
            vals = [self.rng.randint(-20, 20) for _ in range(n)]

        def nest(flat, dims):
            if not dims:
                v = flat[0]
                return fmt_float(v) if elem in FLOATS else ("true" if v else "false") if elem == "i1" \
                    else str(v)
            step = math.prod(dims[1:])
            return "[" + ", ".join(nest(flat[i * step:], dims[1:]) for i in range(dims[0])) + "]"

        name = self.fresh()
        t = ttype(shape, elem)
        self.emit('%s = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s'
                  % (name, nest(vals, shape), t, t))
        mag = max([abs(float(v)) for v in vals] + [0.0])
        return Val(name, elem, shape, mag, 0.0, const=True)

    def zero(self, elem, shape_len=1):
        key = ("zero", elem)
        if key not in self.shared:
            name = self.fresh()
            lit = "0.000000e+00" if elem in FLOATS else "0"
            self.emit('%s = "tosa.const"() <{values = dense<%s> : tensor<1x%s>}> : () -> tensor<1x%s>'
                      % (name, lit, elem, elem))
            self.shared[key] = name
        return self.shared[key]

    def shift(self):
        if "shift" not in self.shared:
            name = self.fresh()
            self.emit('%s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>' % name)
            self.shared["shift"] = name
        return self.shared["shift"]

    @staticmethod
    def bshape(a, b):
        return [max(x, y) for x, y in zip(a.shape, b.shape)]

    # ---------------------------------------------------------------- ops
    def unary(self, op, x, elem_out=None, mag=None, err=0.0, attrs=""):
        elem_out = elem_out or x.elem
        name = self.fresh()
        rt = ttype(x.shape, elem_out)
        if op == "negate":
            z = self.zero(x.elem)
            zt = "tensor<1x%s>" % x.elem
            self.emit("%s = tosa.negate %s, %s, %s : (%s, %s, %s) -> %s" % (name, x.name, z, z, x.ty, zt, zt, rt))
        else:
            self.emit("%s = tosa.%s %s%s : (%s) -> %s" % (name, op, x.name, attrs, x.ty, rt))
        x.uses += 1
        return Val(name, elem_out, x.shape, x.mag if mag is None else mag, err)

    def binary(self, op, a, b, elem_out=None, mag=0.0, err=0.0, fma=False):
        elem_out = elem_out or a.elem
        name = self.fresh()
        shape = self.bshape(a, b)
        rt = ttype(shape, elem_out)
        if op == "mul":
            s = self.shift()
            self.emit("%s = tosa.mul %s, %s, %s : (%s, %s, tensor<1xi8>) -> %s" % (name, a.name, b.name, s, a.ty, b.ty, rt))
        else:
            self.emit("%s = tosa.%s %s, %s : (%s, %s) -> %s" % (name, op, a.name, b.name, a.ty, b.ty, rt))
        a.uses += 1
        b.uses += 1
        return Val(name, elem_out, shape, mag, err, fma=fma)

    def clamp(self, x, lo, hi):
        if x.elem in FLOATS:
            attrs = " {max_val = %s : %s, min_val = %s : %s}" % (fmt_float(hi), x.elem, fmt_float(lo), x.elem)
        else:
            attrs = " {max_val = %d : %s, min_val = %d : %s}" % (hi, x.elem, lo, x.elem)
        return self.unary("clamp", x, mag=min(x.mag, max(abs(lo), abs(hi))), err=x.err, attrs=attrs)

    def guard(self, x):
        """Bring a value that grew too large back into range."""
        lim = MAG_LIMIT.get(x.elem)
        if lim is None or x.mag <= lim:
            return x
        if x.elem in FLOATS:
            return self.clamp(x, -100.0, 100.0)
        hi = self.scalar_const("i32", 1000, len(x.shape))
        lo = self.scalar_const("i32", -1000, len(x.shape))
        y = self.binary("minimum", x, hi, mag=1000, err=0)
        return self.binary("maximum", y, lo, mag=1000, err=0)

    def shifted_abs(self, x, c):
        a = self.unary("abs", x, err=x.err)
        k = self.scalar_const(x.elem, c, len(x.shape))
        return self.binary("add", a, k, mag=a.mag + c, err=a.err)

    def float_unary(self, x):
        e = x.elem
        one = ulp(e, 1.0)
        choices = ["abs", "negate", "exp", "log", "tanh", "sigmoid", "erf", "reciprocal", "rsqrt",
                   "clamp", "sin", "cos", "pow"]
        if x.err == 0:
            choices += ["floor", "ceil"]
        op = self.rng.choice(choices)
        if op in ("abs", "negate"):
            return self.unary(op, x, err=x.err)
        if op in ("floor", "ceil"):
            return self.unary(op, x, mag=x.mag + 1, err=0.0)
        if op == "clamp":
            lo = self.rng.randint(-24, 0) / 8.0
            return self.clamp(x, lo, lo + self.rng.randint(1, 32) / 8.0)
        if op == "exp":
            lim = 10.0 if e == "f32" else 6.0
            if x.mag > lim:
                x = self.clamp(x, -lim, lim)
            m = math.exp(min(x.mag, lim))
            return self.unary("exp", x, mag=m, err=m * x.err + 4 * ulp(e, m))
        if op == "log":
            y = self.shifted_abs(x, 1.0)
            m = math.log(y.mag)
            return self.unary("log", y, mag=m, err=y.err + 4 * ulp(e, max(m, 1.0)))
        if op in ("tanh", "sigmoid", "erf"):
            return self.unary(op, x, mag=1.0, err=1.2 * x.err + 4 * one)
        if op in ("sin", "cos"):
            if x.mag > 100:
                x = self.clamp(x, -100.0, 100.0)
            # the argument's own rounding (ulp of its magnitude) moves the result by as much
            return self.unary(op, x, mag=1.0, err=x.err + ulp(e, x.mag) + 4 * one)
        if op == "pow":
            return self.pow(x)
        if op == "reciprocal":
            y = self.shifted_abs(x, 0.5)
            return self.unary(op, y, mag=2.0, err=4 * y.err + 4 * ulp(e, 2.0))
        y = self.shifted_abs(x, 0.25)
        return self.unary("rsqrt", y, mag=2.0, err=4 * y.err + 4 * ulp(e, 2.0))

    def pow(self, x):
        """pow(|x| + 0.5, k) for a constant exponent k: a positive base keeps it defined."""
        e = x.elem
        y = self.shifted_abs(x, 0.5)
        k = self.rng.choice([-2.0, -1.0, 0.5, 1.5, 2.0, 3.0])
        kc = self.scalar_const(e, k, len(x.shape))
        lo, hi = 0.5, y.mag
        mag = max(lo ** k, hi ** k)
        slope = abs(k) * max(lo ** (k - 1), hi ** (k - 1))
        return self.binary("pow", y, kc, mag=mag, err=slope * y.err + 4 * ulp(e, mag))

    def int_bits(self, x, pool, full):
        """Bitwise, shift, clz and intdiv steps on i32 / i8 (TOSA 1.0: all integer widths)."""
        e, bits = x.elem, (32 if x.elem == "i32" else 8)
        full_mag = 2.0 ** (bits - 1)
        op = self.rng.choice(["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
                              "logical_left_shift", "logical_right_shift", "arithmetic_right_shift",
                              ] + (["clz", "intdiv"] if e == "i32" else []))
        if op == "bitwise_not":
            return self.unary(op, x, mag=x.mag + 1, err=0)
        if op == "clz":
            return self.unary(op, x, mag=32, err=0)
        if op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
            y = self.operand_like(x, pool, full)
            return self.binary(op, x, y, mag=full_mag if op != "bitwise_and" else max(x.mag, y.mag), err=0)
        if op == "intdiv":
            d = self.rng.choice([v for v in range(-9, 10) if v != 0])
            return self.binary(op, x, self.scalar_const(e, d, len(x.shape)), mag=x.mag, err=0)
        amount = self.scalar_const(e, self.rng.randint(0, bits - 1), len(x.shape))
        if op == "arithmetic_right_shift":
            name = self.fresh()
            rt = ttype(x.shape, e)
            rnd = self.rng.choice(["true", "false"])
            self.emit("%s = tosa.arithmetic_right_shift %s, %s {round = %s} : (%s, %s) -> %s"
                      % (name, x.name, amount.name, rnd, x.ty, amount.ty, rt))
            x.uses += 1
            return Val(name, e, x.shape, x.mag, 0.0)
        return self.binary(op, x, amount, mag=full_mag, err=0)

    def table8(self, x):
        """An i8 -> i8 lookup in a random constant 256-entry table."""
        vals = [self.rng.randint(-128, 127) for _ in range(256)]
        tname = self.fresh()
        self.emit('%s = "tosa.const"() <{values = dense<[%s]> : tensor<256xi8>}> : () -> tensor<256xi8>'
                  % (tname, ", ".join(map(str, vals))))
        name = self.fresh()
        self.emit("%s = tosa.table %s, %s : (%s, tensor<256xi8>) -> %s" % (name, x.name, tname, x.ty, x.ty))
        x.uses += 1
        return Val(name, "i8", x.shape, 128, 0.0)

    def rescale(self, x, out):
        """i8 or i32 -> out with random scale, shift, zero points and rounding mode."""
        e = x.elem
        zt = "i8" if e == "i8" else "i32"
        izp = self.rng.randint(-20, 20) if e == "i8" else 0
        ozp = self.rng.randint(-20, 20) if out == "i8" else 0
        mult = self.rng.randint(1 << 30, (1 << 31) - 1)
        shift = self.rng.randint(30, 40) if e == "i8" else self.rng.randint(28, 45)
        mode = self.rng.choice(["SINGLE_ROUND", "DOUBLE_ROUND"])
        names = []
        for v, t in ((mult, "i32"), (shift, "i8"), (izp, zt), (ozp, "i8" if out == "i8" else "i32")):
            n = self.fresh()
            self.emit('%s = "tosa.const"() <{values = dense<%d> : tensor<1x%s>}> : () -> tensor<1x%s>'
                      % (n, v, t, t))
            names.append((n, "tensor<1x%s>" % t))
        name = self.fresh()
        rt = ttype(x.shape, out)
        self.emit("%s = tosa.rescale %s, %s {input_unsigned = false, output_unsigned = false, "
                  "per_channel = false, rounding_mode = %s, scale32 = true} : (%s, %s) -> %s"
                  % (name, x.name, ", ".join(n for n, _ in names), mode, x.ty,
                     ", ".join(t for _, t in names), rt))
        x.uses += 1
        return Val(name, out, x.shape, 128 if out == "i8" else 2.0 ** 31, 0.0)

    def operand_like(self, x, pool, full):
        """A second operand of x's type: from the chain, a new argument or a constant."""
        same = [v for v in pool if v.elem == x.elem and v is not x]
        r = self.rng.random()
        if same and r < 0.45:
            return self.rng.choice(same)
        if r < 0.75:
            return self.arg(x.elem, self.sub_shape(full))
        return self.const_operand(x.elem, full)

    def step(self, x, pool, full):
        e = x.elem
        r = self.rng.random()
        if e in FLOATS:
            if r < 0.4:
                return self.float_unary(x)
            if r < 0.75:
                y = self.operand_like(x, pool, full)
                op = self.rng.choice(["add", "sub", "mul", "maximum", "minimum"])
                if op == "mul":
                    m = x.mag * y.mag
                    return self.binary(op, x, y, mag=m, err=x.err * y.mag + y.err * x.mag, fma=True)
                if op in ("add", "sub"):
                    m = x.mag + y.mag
                    err = x.err + y.err + (ulp(e, m) * 2 if (x.fma or y.fma) else 0.0)
                    return self.binary(op, x, y, mag=m, err=err)
                return self.binary(op, x, y, mag=max(x.mag, y.mag), err=max(x.err, y.err))
            if r < 0.85 and x.err == 0:
                y = self.operand_like(x, pool, full)
                if y.err == 0:
                    op = self.rng.choice(["equal", "greater", "greater_equal"])
                    return self.binary(op, x, y, elem_out="i1", mag=1, err=0)
            return self.cast(x)
        if e in ("i32", "i8") and self.rng.random() < 0.3:
            if e == "i8" and self.rng.random() < 0.3:
                return self.table8(x)
            if self.rng.random() < 0.2:
                return self.rescale(x, self.rng.choice(["i8", "i32"]))
            return self.int_bits(x, pool, full)
        if e == "i32":
            if r < 0.55:
                y = self.operand_like(x, pool, full)
                op = self.rng.choice(["add", "sub", "mul", "maximum", "minimum"])
                m = x.mag * y.mag if op == "mul" else x.mag + y.mag
                return self.binary(op, x, y, mag=m, err=0)
            if r < 0.7:
                return self.unary(self.rng.choice(["abs", "negate"]), x, err=0)
            if r < 0.8:
                y = self.operand_like(x, pool, full)
                op = self.rng.choice(["equal", "greater", "greater_equal"])
                return self.binary(op, x, y, elem_out="i1", mag=1, err=0)
            return self.cast(x)
        if e == "i8":
            if r < 0.3:
                lo = self.rng.randint(-128, 0)
                return self.clamp(x, lo, self.rng.randint(lo, 127))
            if r < 0.45:
                return self.unary("negate", x, err=0)
            return self.cast(x)
        # i1: logical ops, select between two values of a random type, or cast
        if r < 0.2:
            op = self.rng.choice(["logical_and", "logical_or", "logical_xor", "logical_not"])
            if op == "logical_not":
                return self.unary(op, x, mag=1, err=0)
            return self.binary(op, x, self.operand_like(x, pool, full), mag=1, err=0)
        if r < 0.6:
            t = self.rng.choice(["f32", "f32", "f16", "bf16", "i32"])
            cands = [v for v in pool if v.elem == t]
            a = self.rng.choice(cands) if cands and self.rng.random() < 0.6 else self.arg(t, self.sub_shape(full))
            b = self.operand_like(a, pool, full)
            name = self.fresh()
            shape = [max(p, q, s) for p, q, s in zip(x.shape, a.shape, b.shape)]
            self.emit("%s = tosa.select %s, %s, %s : (%s, %s, %s) -> %s"
                      % (name, x.name, a.name, b.name, x.ty, a.ty, b.ty, ttype(shape, t)))
            for v in (x, a, b):
                v.uses += 1
            return Val(name, t, shape, max(a.mag, b.mag), max(a.err, b.err))
        return self.cast(x)

    def cast(self, x):
        e = x.elem
        targets = [t for t in ("f32", "f16", "bf16", "i32", "i8", "i1") if t != e]
        if e in ("f16", "bf16"):  # f16 <-> bf16 is not a TOSA cast (the oracle rejects it too)
            targets = [t for t in targets if t not in ("f16", "bf16")]
        if x.err != 0:  # an inexact value only goes to another float type
            targets = [t for t in targets if t in FLOATS]
        if x.mag > 6e4:
            targets = [t for t in targets if t != "f16"]
        t = self.rng.choice(targets)
        if t in FLOATS:
            err = x.err + (ulp(t, x.mag) if x.err else 0.0)
            mag = x.mag
        elif t == "i1":
            err, mag = 0.0, 1
        else:
            err, mag = 0.0, min(x.mag + 1, 127 if t == "i8" else 2 ** 31)
        return self.unary("cast", x, elem_out=t, mag=mag, err=err)

    def chain(self):
        full = self.new_shape()
        elem = self.rng.choice(["f32", "f32", "f32", "f32", "f16", "bf16", "i32", "i8", "i1"])
        x = self.arg(elem, full if self.rng.random() < 0.6 else self.sub_shape(full))
        pool = [x]
        for _ in range(self.rng.randint(3, 12)):
            for _attempt in range(6):
                mark = (len(self.g.lines), len(self.g.args), dict(self.shared),
                        [v.uses for v in pool])
                y = self.guard(self.step(x, pool, full))
                if y.err <= ERR_LIMIT.get(y.elem, 0.0) * max(y.mag, 1.0):
                    break
                # too inexact to check tightly: undo the step and draw another
                del self.g.lines[mark[0]:]
                del self.g.args[mark[1]:]
                self.shared = mark[2]
                for v, n in zip(pool, mark[3]):
                    v.uses = n
            else:  # continue from a fresh argument; abs keeps the last value an op result
                y = self.unary("abs", self.arg(x.elem, full), err=0.0)
            x = y
            pool.append(x)
        return pool

    def generate(self):
        pools = [self.chain() for _ in range(1 if self.rng.random() < 0.6 else 2)]
        for pool in pools:
            tail = pool[-1]
            extra = [v for v in pool[1:-1] if v.uses == 0 and not v.const]
            self.g.results.append(tail)
            self.g.results += extra[:2]
        return self.g


def generate(seed, prefix=""):
    return Gen(seed, prefix).generate()


def render(graphs, name="main"):
    """One module text holding all graphs in one function (their chains are independent)."""
    args = [a for g in graphs for a in g.args]
    results = [r for g in graphs for r in g.results]
    out = []
    for k, (v, lo, hi) in enumerate(args):
        out.append("// oracle: arg %d %s %s" % (k, lo, hi))
    for k, v in enumerate(results):
        out.append("// oracle: result %d err %.3e" % (k, v.err))
    sig = ", ".join("%s: %s" % (v.name, v.ty) for v, _, _ in args)
    rts = ", ".join(v.ty for v in results)
    out.append("func.func @%s(%s) -> (%s) {" % (name, sig, rts))
    for g in graphs:
        out += g.lines
    out.append("  return %s : %s" % (", ".join(v.name for v in results), rts))
    out.append("}")
    return "\n".join(out) + "\n"


def generate_text(seeds):
    """Text of one function merging the graphs of all seeds."""
    return render([generate(s, "s%d_" % i if len(seeds) > 1 else "") for i, s in enumerate(seeds)])


def verify(text):
    """Parse with mlir-opt-22; returns None or the error text."""
    import subprocess
    p = subprocess.run(["mlir-opt-22", "-"], input=text, capture_output=True, text=True)
    return None if p.returncode == 0 else p.stderr


def _main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="Seeded random elementwise TOSA graph.")
    ap.add_argument("seeds", nargs="+", type=int)
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--no-verify", action="store_true")
    o = ap.parse_args(argv)
    text = generate_text(o.seeds)
    if not o.no_verify:
        err = verify(text)
        if err:
            sys.stderr.write("gen_graph: mlir-opt-22 rejects the graph of seeds %s:\n%s" % (o.seeds, err))
            return 1
    if o.output == "-":
        sys.stdout.write(text)
    else:
        with open(o.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
