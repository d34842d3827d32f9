#!/usr/bin/python3
"""Seeded transformer graphs: BERT-style encoder layers and GPT-style decoder blocks.

  gen_transformer.py bert|gpt [--layers=N] [--seq=S] [--hidden=H] [--heads=NH] [--ffn=F]
                     [--batch=B] [--dtype=f32|f16|bf16] [--syntax=1.0|old] [--seed=N]
                     [--weights=hex|args] [--causal] [--near-causal] [--mask]
                     [--decode=L] > graph.mlir

bert: post-LN encoder layers as torch-mlir/TF emit them: Q/K/V projections (matmul + bias on a
[1, B*S, H] view), heads split by reshape + transpose ([B, NH, S, D] folded to [B*NH, S, D], K
transposed to [B*NH, D, S]), scores * 1/sqrt(D), optional additive padding mask (an input), softmax
written out (reduce_max, sub, exp, reduce_sum, reciprocal, mul), P x V, heads merged, output
projection, residual, layer norm (reduce_sum * 1/H for the mean and the variance, rsqrt), GELU
(erf form) MLP, residual, layer norm.
gpt: pre-norm decoder blocks: RMS norm, attention with a constant causal mask (-10000 above the
diagonal), residual, RMS norm, SiLU-gated MLP (down(silu(gate(x)) * up(x))), residual.

Weights are constants (hex, multiples of 1/64 with |w| <= 1/sqrt(fan-in): exact in f16 and bf16)
or, with --weights=args, function arguments (for compile-time figures without hundreds of MB of
text). --syntax=mixed (f32) writes the form PyTorch exporters print: linalg.batch_matmul into a
zero linalg.fill, linalg.softmax, linalg.transpose, tensor.collapse_shape/expand_shape for
reshapes, arith ops with fastmath on same-shape tensors and math.erf/rsqrt/exp, TOSA for the
broadcasting ops. --syntax=old writes the 2023-24/pre-2023 forms (2-operand matmul, new_shape, perms and
shift attributes, value =) that tosac up-converts. The first line of the output carries the
oracle's input ranges and a per-result error bound (tests/oracle/README.md).
"""
import argparse
import math
import sys

import numpy as np


class Gen:
    def __init__(self, o):
        self.o = o
        self.rng = np.random.default_rng(o.seed)
        self.lines, self.args, self.n, self.ranges = [], [], 0, []
        self.el = o.dtype
        self.old = o.syntax == "old"
        self.mixed = o.syntax == "mixed"
        self.cache = {}

    # ------------------------------------------------------------ emission helpers
    def ty(self, shape, e=None):
        return "tensor<%sx%s>" % ("x".join(map(str, shape)), e or self.el)

    def fresh(self):
        self.n += 1
        return "%%v%d" % self.n

    def emit(self, opname, operands, shape, attrs="", e=None):
        name = self.fresh()
        ins = ", ".join(v[0] for v in operands)
        tys = ", ".join(v[1] for v in operands)
        a = ""
        if attrs:
            a = (" {%s}" if self.old else " <{%s}>") % attrs
        self.lines.append('  %s = "%s"(%s)%s : (%s) -> %s' % (name, opname, ins, a, tys, self.ty(shape, e)))
        return (name, self.ty(shape, e), tuple(shape))

    def raw_const(self, text, t):
        name = self.fresh()
        key = "values" if not self.old else "value"
        self.lines.append('  %s = "tosa.const"() %s%s = %s : %s%s : () -> %s'
                          % (name, "<{" if not self.old else "{", key, text, t, "}>" if not self.old else "}", t))
        return name

    def const(self, shape, values):
        """A constant of the graph's element type from float values (hex)."""
        a = np.asarray(values, dtype=np.float32).reshape(shape)
        if self.el == "f16":
            data = a.astype(np.float16).tobytes()
        elif self.el == "bf16":
            data = (a.view(np.uint32) >> 16).astype(np.uint16).tobytes()
        else:
            data = a.tobytes()
        t = self.ty(shape)
        return (self.raw_const('dense<"0x%s">' % data.hex().upper(), t), t, tuple(shape))

    def splat(self, shape, x):
        key = ("splat", tuple(shape), x)
        if key not in self.cache:
            t = self.ty(shape)
            self.cache[key] = (self.raw_const("dense<%.9e>" % float(x), t), t, tuple(shape))
        return self.cache[key]

    def arg(self, shape):
        name = "%%arg%d" % len(self.args)
        t = self.ty(shape)
        self.args.append("%s: %s" % (name, t))
        return (name, t, tuple(shape))

    def weight(self, shape, fan_in, around=0.0):
        lim = max(1, int(64 / math.sqrt(fan_in)))
        if self.o.weights == "args":
            # the oracle's inputs span what the constants would (|w| <= lim / 64 around `around`)
            self.ranges.append((len(self.args), around - lim / 64.0, around + lim / 64.0))
            return self.arg(shape)
        vals = self.rng.integers(-lim, lim + 1, int(np.prod(shape))) / 64.0
        return self.const(shape, vals)

    def zp(self):
        return self.splat((1,), 0.0)

    def shift(self):
        key = "shift"
        if key not in self.cache:
            t = "tensor<1xi8>"
            self.cache[key] = (self.raw_const("dense<0>", t), t, (1,))
        return self.cache[key]

    # ------------------------------------------------------------ the mixed-dialect form
    def line(self, text, shape, e=None):
        name = self.fresh()
        self.lines.append("  %s = %s" % (name, text.replace("$T", self.ty(shape, e))))
        return (name, self.ty(shape, e), tuple(shape))

    def empty(self, shape):
        return self.line("tensor.empty() : $T", shape)

    def zero_fill(self, shape):
        key = "zero"
        if key not in self.cache:
            self.cache[key] = self.fresh()
            self.lines.append("  %s = arith.constant 0.000000e+00 : %s" % (self.cache[key], self.el))
        e = self.empty(shape)
        return self.line("linalg.fill ins(%s : %s) outs(%s : $T) -> $T" % (self.cache[key], self.el, e[0]), shape)

    ARITH = {"tosa.add": "arith.addf", "tosa.sub": "arith.subf", "tosa.mul": "arith.mulf"}

    # ------------------------------------------------------------ ops in either syntax
    def binary(self, op, a, b):
        shape = tuple(max(x, y) for x, y in zip(a[2], b[2]))
        if self.mixed and a[2] == b[2]:  # same shapes: arith on tensors, as exporters fold TOSA into
            return self.line("%s %s, %s fastmath<contract> : $T" % (self.ARITH[op], a[0], b[0]), shape)
        if self.mixed and op == "tosa.mul":
            return self.emit(op, [a, b, self.shift()], shape)
        return self.emit(op, [a, b], shape)

    def add(self, a, b):
        return self.binary("tosa.add", a, b)

    def sub(self, a, b):
        return self.binary("tosa.sub", a, b)

    def mul(self, a, b):
        shape = tuple(max(x, y) for x, y in zip(a[2], b[2]))
        if self.mixed:
            return self.binary("tosa.mul", a, b)
        if self.old:
            return self.emit("tosa.mul", [a, b], shape, "shift = 0 : i8")
        return self.emit("tosa.mul", [a, b, self.shift()], shape)

    def unary(self, op, a):
        if self.mixed and op in ("tosa.erf", "tosa.rsqrt", "tosa.exp"):
            return self.line("math.%s %s : $T" % (op[5:], a[0]), a[2])
        return self.emit(op, [a], a[2])

    def reduce(self, op, a, axis):
        shape = list(a[2])
        shape[axis] = 1
        return self.emit(op, [a], shape, "axis = %d : %s" % (axis, "i64" if self.old else "i32"))

    def reshape(self, a, shape):
        if self.mixed:  # collapsed to one dimension, expanded to the new shape
            n = int(np.prod(shape))
            flat = self.line("tensor.collapse_shape %s [[%s]] : %s into $T"
                             % (a[0], ", ".join(map(str, range(len(a[2])))), a[1]), (n,))
            return self.line("tensor.expand_shape %s [[%s]] output_shape [%s] : %s into $T"
                             % (flat[0], ", ".join(map(str, range(len(shape)))), ", ".join(map(str, shape)),
                                flat[1]), shape)
        if self.old:
            return self.emit("tosa.reshape", [a], shape, "new_shape = array<i64: %s>" % ", ".join(map(str, shape)))
        name = self.fresh()
        n = len(shape)
        self.lines.append('  %s = "tosa.const_shape"() <{values = dense<[%s]> : tensor<%dxindex>}> : () -> !tosa.shape<%d>'
                          % (name, ", ".join(map(str, shape)), n, n))
        return self.emit("tosa.reshape", [a, (name, "!tosa.shape<%d>" % n)], shape)

    def transpose(self, a, perms):
        shape = tuple(a[2][p] for p in perms)
        if self.mixed:
            e = self.empty(shape)
            return self.line("linalg.transpose ins(%s : %s) outs(%s : $T) permutation = [%s]"
                             % (a[0], a[1], e[0], ", ".join(map(str, perms))), shape)
        if self.old:
            t = "tensor<%dxi32>" % len(perms)
            pc = (self.raw_const("dense<[%s]>" % ", ".join(map(str, perms)), t), t)
            return self.emit("tosa.transpose", [a, pc], shape)
        return self.emit("tosa.transpose", [a], shape, "perms = array<i32: %s>" % ", ".join(map(str, perms)))

    def matmul(self, a, b):
        shape = (a[2][0], a[2][1], b[2][2])
        # f16/bf16 matmuls produce f32 in TOSA 1.0 (and accumulate in f32 anyway); cast back
        out_e = "f32" if self.el in ("f16", "bf16") else self.el
        if self.mixed:
            z = self.zero_fill(shape)
            return self.line("linalg.batch_matmul ins(%s, %s : %s, %s) outs(%s : $T) -> $T"
                             % (a[0], b[0], a[1], b[1], z[0]), shape)
        if self.old:
            r = self.emit("tosa.matmul", [a, b], shape, e=out_e)
        else:
            r = self.emit("tosa.matmul", [a, b, self.zp(), self.zp()], shape, e=out_e)
        if out_e != self.el:
            r = self.emit("tosa.cast", [r], shape)
        return r

    # ------------------------------------------------------------ layers
    def linear(self, x, n_out):
        """[1, T, K] x W[1, K, N] + b[1, 1, N]."""
        k = x[2][2]
        w = self.weight((1, k, n_out), k)
        b = self.weight((1, 1, n_out), 16)
        return self.add(self.matmul(x, w), b)

    def layer_norm(self, x):
        h = x[2][2]
        inv = self.splat((1, 1, 1), 1.0 / h)
        mean = self.mul(self.reduce("tosa.reduce_sum", x, 2), inv)
        xc = self.sub(x, mean)
        var = self.mul(self.reduce("tosa.reduce_sum", self.mul(xc, xc), 2), inv)
        r = self.unary("tosa.rsqrt", self.add(var, self.splat((1, 1, 1), 1e-5)))
        g = self.weight((1, 1, h), 64, 1.0) if self.o.weights == "args" else \
            self.const((1, 1, h), 1.0 + self.rng.integers(-8, 9, h) / 64.0)
        b = self.weight((1, 1, h), 16)
        return self.add(self.mul(self.mul(xc, r), g), b)

    def rms_norm(self, x):
        h = x[2][2]
        ms = self.mul(self.reduce("tosa.reduce_sum", self.mul(x, x), 2), self.splat((1, 1, 1), 1.0 / h))
        r = self.unary("tosa.rsqrt", self.add(ms, self.splat((1, 1, 1), 1e-5)))
        g = self.weight((1, 1, h), 64, 1.0) if self.o.weights == "args" else \
            self.const((1, 1, h), 1.0 + self.rng.integers(-8, 9, h) / 64.0)
        return self.mul(self.mul(x, r), g)

    def gelu(self, x):
        half = self.splat((1, 1, 1), 0.5)
        e = self.unary("tosa.erf", self.mul(x, self.splat((1, 1, 1), 0.7071067811865476)))
        return self.mul(self.mul(x, half), self.add(e, self.splat((1, 1, 1), 1.0)))

    def silu(self, x):
        return self.mul(x, self.unary("tosa.sigmoid", x))

    def heads(self, x, perms, shape3, s=None):
        b, nh = self.o.batch, self.o.heads
        s = s or self.o.seq
        d = self.o.hidden // nh
        return self.reshape(self.transpose(self.reshape(x, (b, s, nh, d)), perms), shape3)

    def attention(self, x, mask):
        """x: [1, B*S, H] -> [1, B*S, H]; keys and values from x, or with --decode=L from the
        [1, B*L, H] cache input (a decode step: S new tokens attend to L cached ones)."""
        b, s, h, nh = self.o.batch, self.o.seq, self.o.hidden, self.o.heads
        d = h // nh
        kv, L = (self.kv, self.o.decode) if self.o.decode else (x, s)
        q = self.heads(self.linear(x, h), (0, 2, 1, 3), (b * nh, s, d))
        k = self.heads(self.linear(kv, h), (0, 2, 3, 1), (b * nh, d, L), L)
        v = self.heads(self.linear(kv, h), (0, 2, 1, 3), (b * nh, L, d), L)
        sc = self.mul(self.matmul(q, k), self.splat((1, 1, 1), 1.0 / math.sqrt(d)))
        if mask is not None:
            sc = self.add(sc, mask)
        if self.mixed:
            p = self.line("linalg.softmax dimension(2) ins(%s : %s) outs(%s : $T) -> $T"
                          % (sc[0], sc[1], self.empty(sc[2])[0]), sc[2])
        else:
            m = self.reduce("tosa.reduce_max", sc, 2)
            e = self.unary("tosa.exp", self.sub(sc, m))
            p = self.mul(e, self.unary("tosa.reciprocal", self.reduce("tosa.reduce_sum", e, 2)))
        ctx = self.matmul(p, v)
        ctx = self.reshape(self.transpose(self.reshape(ctx, (b, nh, s, d)), (0, 2, 1, 3)), (1, b * s, h))
        return self.linear(ctx, h)

    def bert_layer(self, x, mask):
        h1 = self.layer_norm(self.add(self.attention(x, mask), x))
        f = self.linear(self.gelu(self.linear(h1, self.o.ffn)), self.o.hidden)
        return self.layer_norm(self.add(f, h1))

    def gpt_block(self, x, mask):
        x = self.add(x, self.attention(self.rms_norm(x), mask))
        n = self.rms_norm(x)
        g = self.silu(self.linear(n, self.o.ffn))
        return self.add(x, self.linear(self.mul(g, self.linear(n, self.o.ffn)), self.o.hidden))

    def causal_mask(self):
        """-10000 above the diagonal; with --decode=L the S new tokens are the last of the L
        (query i sees keys up to i + L - S); --near-causal unmasks one key of query 0."""
        s = self.o.seq
        L = self.o.decode or s
        m = np.triu(np.full((s, L), -10000.0, dtype=np.float32), 1 + L - s)
        if self.o.near_causal:
            m[0, L - 1] = 0.0
        return self.const((1, s, L), m)

    def padding_mask(self):
        """An additive [B*NH, 1, S] mask input: 0 or -10000 per key (per batch, repeated per head)."""
        return self.arg((self.o.batch * self.o.heads, 1, self.o.seq))

    def model(self):
        o = self.o
        x = self.arg((o.batch, o.seq, o.hidden))
        mask = None
        if o.decode:
            self.kv = self.reshape(self.arg((o.batch, o.decode, o.hidden)), (1, o.batch * o.decode, o.hidden))
        if o.causal or o.near_causal or (o.model == "gpt" and not o.decode):
            mask = self.causal_mask()
        elif o.mask:
            mask = self.padding_mask()
        h = self.reshape(x, (1, o.batch * o.seq, o.hidden))
        for _ in range(o.layers):
            h = self.bert_layer(h, mask) if o.model == "bert" else self.gpt_block(h, mask)
        y = self.reshape(h, (o.batch, o.seq, o.hidden))
        return y

    def text(self):
        y = self.model()
        o = self.o
        err = {"f32": 1e-4, "f16": 4e-2, "bf16": 2.5e-1}[self.el] * max(1, o.layers)
        head = ["// %s: %s" % (o.model, " ".join("%s=%s" % kv for kv in sorted(vars(o).items()))),
                "// oracle: arg 0 -1 1"]
        if o.decode:
            head.append("// oracle: arg 1 -1 1")
        elif o.mask and o.model == "bert" and not o.causal:
            head.append("// oracle: arg 1 -4 0")
        head += ["// oracle: arg %d %g %g" % r for r in self.ranges]
        head.append("// oracle: result 0 err %g" % err)
        sig = "func.func @main(%s) -> %s {" % (", ".join(self.args), y[1])
        return "\n".join(head + [sig] + self.lines + ["  return %s : %s" % (y[0], y[1]), "}", ""])


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", choices=["bert", "gpt"])
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--seq", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--ffn", type=int, default=0, help="MLP width (default 4 x hidden)")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--dtype", default="f32", choices=["f32", "f16", "bf16"])
    ap.add_argument("--syntax", default="1.0", choices=["1.0", "old", "mixed"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--weights", default="hex", choices=["hex", "args"])
    ap.add_argument("--causal", action="store_true", help="bert: causal mask instead of none")
    ap.add_argument("--near-causal", action="store_true",
                    help="the causal mask with one element above the diagonal unmasked")
    ap.add_argument("--mask", action="store_true", help="bert: additive padding mask input")
    ap.add_argument("--decode", type=int, default=0,
                    help="L: keys and values from a second input [B, L, H] (a decode step; no mask "
                    "unless --causal)")
    o = ap.parse_args(argv)
    if o.ffn == 0:
        o.ffn = 4 * o.hidden
    if o.hidden % o.heads:
        ap.error("hidden must be a multiple of heads")
    return o


if __name__ == "__main__":
    sys.stdout.write(Gen(parse(sys.argv[1:])).text())
