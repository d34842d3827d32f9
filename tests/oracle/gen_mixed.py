#!/usr/bin/python3
"""gen_mixed.py: seeded random TOSA 1.0 graphs of MIXED ops for partitioning tests.

  gen_mixed.py SEED [-o FILE] [--no-verify] [--steps=N]

Like rocMLIR's rocmlir-gen, but for whole graphs: one `func.func @main` over small NHWC f32
tensors with two or three branches built from conv2d, depthwise_conv2d, matmul (through
reshapes to [N, H*W, C]), avg/max pooling, reduce_sum/reduce_max broadcast back (softmax-like),
reshape, transpose, slice, pad, concat and elementwise chains with broadcast constants and
arguments. Weights are constants (multiples of 1/64, exact in f32) and live in the weights
file. Branches share values and are merged by elementwise ops or concat, so the partitioner
sees fan-out, fan-in, views between kernels and small broadcast producers.

Every value carries a magnitude bound and an error bound (how far two correct f32
implementations may drift: accumulation order in dot products, a few ulp per transcendental);
each result's bound is written as `// oracle: result K err E` for check.py, inputs are in
[-1, 1] (`// oracle: arg K -1 1`). Shapes stay small (the emulator runs ~5M work-items/s).
The graph is parsed by mlir-opt-22 before it is printed (unless --no-verify).
"""
import math
import random
import struct
import sys

EPS = 2.0 ** -23  # f32 ulp at 1
MAX_NUMEL = 1200


def ttype(shape):
    return "tensor<" + "".join("%dx" % d for d in shape) + "f32>"


def ulp(mag):
    return EPS * max(mag, 2.0 ** -14)


class Val:
    def __init__(self, name, shape, mag, err):
        self.name, self.shape, self.mag, self.err = name, tuple(shape), mag, err

    @property
    def ty(self):
        return ttype(self.shape)

    @property
    def numel(self):
        return math.prod(self.shape)


class Gen:
    def __init__(self, seed, steps=None):
        self.r = random.Random(seed)
        self.lines = []
        self.args = []
        self.n = 0
        self.steps = steps
        self.zero = None
        self.shift = None
        self.ops = []  # op names used, for tests and --stats

    # ------------------------------------------------------------ emission helpers
    def fresh(self):
        self.n += 1
        return "%%v%d" % self.n

    def emit(self, opname, operands, result_shape, attrs="", mag=1.0, err=0.0):
        v = Val(self.fresh(), result_shape, mag, err)
        ins = ", ".join(o.name if isinstance(o, Val) else o[0] for o in operands)
        tys = ", ".join(o.ty if isinstance(o, Val) else o[1] for o in operands)
        a = " <{%s}>" % attrs if attrs else ""
        self.lines.append('  %s = "%s"(%s)%s : (%s) -> %s' % (v.name, opname, ins, a, tys, v.ty))
        self.ops.append(opname)
        return v

    def const(self, shape, values):
        name = self.fresh()
        data = b"".join(struct.pack("<f", x) for x in values)
        self.lines.append('  %s = "tosa.const"() <{values = dense<"0x%s"> : %s}> : () -> %s'
                          % (name, data.hex().upper(), ttype(shape), ttype(shape)))
        return (name, ttype(shape))

    def splat(self, shape, x):
        name = self.fresh()
        self.lines.append('  %s = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s'
                          % (name, repr(float(x)), ttype(shape), ttype(shape)))
        return (name, ttype(shape))

    def shape_const(self, values):
        name = self.fresh()
        n = len(values)
        self.lines.append('  %s = "tosa.const_shape"() <{values = dense<[%s]> : tensor<%dxindex>}> : () -> !tosa.shape<%d>'
                          % (name, ", ".join(str(x) for x in values), n, n))
        return (name, "!tosa.shape<%d>" % n)

    def zp(self):
        if not self.zero:
            self.zero = self.splat((1,), 0.0)
        return self.zero

    def weights(self, shape, k):
        """Constant weights, multiples of 1/64 with |w| <= about 1/sqrt(k); returns (ref, mag)."""
        lim = max(1, int(64 / math.sqrt(k)))
        vals = [self.r.randint(-lim, lim) / 64.0 for _ in range(math.prod(shape))]
        return self.const(shape, vals), lim / 64.0

    def arg(self, shape):
        v = Val("%%a%d" % len(self.args), shape, 1.0, 0.0)
        self.args.append(v)
        return v

    # ------------------------------------------------------------ ops
    def bounded(self, v):
        """Keep magnitudes small so that error bounds stay meaningful."""
        if v.mag > 6:
            return self.emit("tosa.tanh", [v], v.shape, mag=1.0, err=v.err + 4 * ulp(1.0))
        return v

    def conv(self, v, depthwise=False):
        n, h, w, c = v.shape
        k = self.r.choice([1, 3] if min(h, w) >= 3 else [1])
        s = self.r.choice([1, 1, 2])
        pads = []
        outs = []
        for d in (h, w):
            p0 = self.r.choice([0, 1]) if k == 3 else 0
            span = d - 1 + p0 - (k - 1)
            p1 = p0 + ((-(span + p0)) % s)  # make (d - 1 + p0 + p1 - (k - 1)) divisible by s
            pads += [p0, p1]
            outs.append((d - 1 + p0 + p1 - (k - 1)) // s + 1)
        if min(outs) < 1:
            return None
        if depthwise:
            m = self.r.choice([1, 2])
            wt, wm = self.weights((k, k, c, m), k * k)
            cout, kk = c * m, k * k
            op = "tosa.depthwise_conv2d"
        else:
            cout = self.r.choice([2, 3, 4, 6, 8])
            wt, wm = self.weights((cout, k, k, c), k * k * c)
            kk = k * k * c
            op = "tosa.conv2d"
        if n * outs[0] * outs[1] * cout > MAX_NUMEL:
            return None
        bias, bm = self.weights((cout,), 16)
        mag = kk * v.mag * wm + bm
        err = kk * v.err * wm + kk * ulp(mag) + ulp(mag)
        attrs = ("acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: %d, %d, %d, %d>, "
                 "stride = array<i64: %d, %d>" % (pads[0], pads[1], pads[2], pads[3], s, s))
        z = self.zp()
        return self.emit(op, [v, wt, bias, z, z], (n, outs[0], outs[1], cout), attrs, mag, err)

    def pool(self, v):
        n, h, w, c = v.shape
        k = self.r.choice([2, 3])
        if min(h, w) < k:
            return None
        s = self.r.choice([1, 2])
        pads, outs = [], []
        for d in (h, w):
            p0 = self.r.choice([0, 1])
            span = d + p0 - k
            p1 = p0 + ((-span - p0) % s)
            if p1 >= k:
                p1 -= s
            if p1 < 0 or (d + p0 + p1 - k) % s:
                return None
            pads += [p0, p1]
            outs.append((d + p0 + p1 - k) // s + 1)
        attrs = ("kernel = array<i64: %d, %d>, pad = array<i64: %d, %d, %d, %d>, stride = array<i64: %d, %d>"
                 % (k, k, pads[0], pads[1], pads[2], pads[3], s, s))
        shape = (n, outs[0], outs[1], c)
        if self.r.random() < 0.5:
            z = self.zp()
            return self.emit("tosa.avg_pool2d", [v, z, z], shape, "acc_type = f32, " + attrs,
                             v.mag, v.err + k * k * ulp(v.mag))
        return self.emit("tosa.max_pool2d", [v], shape, attrs, v.mag, v.err)

    def reshape(self, v, shape):
        sc = self.shape_const(shape)
        return self.emit("tosa.reshape", [v, sc], shape, mag=v.mag, err=v.err)

    def matmul(self, v):
        n, h, w, c = v.shape
        cout = self.r.choice([2, 4, 5, 8])
        if n * h * w * cout > MAX_NUMEL:
            return None
        a = self.reshape(v, (n, h * w, c))
        wt, wm = self.weights((n, c, cout), c)
        z = self.zp()
        mag = c * v.mag * wm
        y = self.emit("tosa.matmul", [a, wt, z, z], (n, h * w, cout), mag=mag,
                      err=c * v.err * wm + c * ulp(mag))
        return self.reshape(y, (n, h, w, cout))

    def softmaxish(self, v):
        """x - reduce_max(x) (or x * 1/reduce_sum(|x|)) along a random axis, broadcast back."""
        axis = self.r.choice([1, 2, 3])
        red = list(v.shape)
        length = red[axis]
        red[axis] = 1
        if self.r.random() < 0.5:
            m = self.emit("tosa.reduce_max", [v], red, "axis = %d : i32" % axis, v.mag, v.err)
            return self.emit("tosa.sub", [v, m], v.shape, mag=2 * v.mag, err=2 * v.err + ulp(2 * v.mag))
        a = self.emit("tosa.abs", [v], v.shape, mag=v.mag, err=v.err)
        one = self.splat((1, 1, 1, 1), 1.0)
        a1 = self.emit("tosa.add", [a, one], v.shape, mag=v.mag + 1, err=v.err + ulp(v.mag + 1))
        ssum = self.emit("tosa.reduce_sum", [a1], red, "axis = %d : i32" % axis, length * (v.mag + 1),
                         length * (a1.err + ulp(length * (v.mag + 1))))
        rec = self.emit("tosa.reciprocal", [ssum], red, mag=1.0,
                        err=ssum.err + 4 * ulp(1.0))  # sum >= 1: derivative <= 1
        return self.emit("tosa.mul", [v, rec, self.mul_shift()], v.shape, mag=v.mag,
                         err=v.err + v.mag * rec.err + ulp(v.mag))

    def mul_shift(self):
        if not self.shift:
            name = self.fresh()
            self.lines.append('  %s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>' % name)
            self.shift = (name, "tensor<1xi8>")
        return self.shift

    def elementwise(self, v):
        kind = self.r.choice(["scale", "bias", "act", "act", "gelu", "argbc", "exp"])
        n, h, w, c = v.shape
        if kind == "scale":  # per-channel scale through a small chain on a [1,1,1,C] constant
            g, gm = self.weights((1, 1, 1, c), 4)
            eps = self.splat((1, 1, 1, 1), 0.5)
            g2 = self.emit("tosa.add", [g, eps], (1, 1, 1, c), mag=gm + 0.5, err=ulp(gm + 0.5))
            g3 = self.emit("tosa.rsqrt", [self.emit("tosa.abs", [g2], (1, 1, 1, c), mag=g2.mag, err=g2.err)],
                           (1, 1, 1, c), mag=2.0, err=8 * g2.err + 4 * ulp(2.0))
            return self.emit("tosa.mul", [v, g3, self.mul_shift()], v.shape, mag=2 * v.mag,
                             err=2 * v.err + v.mag * g3.err + ulp(2 * v.mag))
        if kind == "bias":
            b, bm = self.weights((1, 1, 1, c), 4)
            op = self.r.choice(["tosa.add", "tosa.sub", "tosa.maximum", "tosa.minimum"])
            mag = v.mag + bm
            return self.emit(op, [v, b], v.shape, mag=mag, err=v.err + ulp(mag))
        if kind == "act":
            op = self.r.choice(["tosa.tanh", "tosa.sigmoid", "tosa.clamp", "tosa.abs"])
            if op == "tosa.clamp":
                return self.emit(op, [v], v.shape, "max_val = 6.0 : f32, min_val = 0.0 : f32", min(v.mag, 6.0), v.err)
            if op == "tosa.abs":
                return self.emit(op, [v], v.shape, mag=v.mag, err=v.err)
            return self.emit(op, [v], v.shape, mag=1.0, err=v.err + 4 * ulp(1.0))
        if kind == "gelu":  # x * sigmoid(1.702 x)
            k = self.splat((1, 1, 1, 1), 1.703125)
            t = self.emit("tosa.mul", [v, k, self.mul_shift()], v.shape, mag=1.71 * v.mag, err=1.71 * v.err + ulp(1.71 * v.mag))
            s = self.emit("tosa.sigmoid", [t], v.shape, mag=1.0, err=t.err / 4 + 4 * ulp(1.0))
            return self.emit("tosa.mul", [v, s, self.mul_shift()], v.shape, mag=v.mag,
                             err=v.err + v.mag * s.err + ulp(v.mag))
        if kind == "exp":
            cl = self.emit("tosa.clamp", [v], v.shape, "max_val = 1.5 : f32, min_val = -3.0 : f32", 3.0, v.err)
            return self.emit("tosa.exp", [cl], v.shape, mag=4.49, err=4.49 * (cl.err + 4 * ulp(1.0)))
        # a broadcast argument: [1,H,W,1] or [N,1,1,C]
        shape = self.r.choice([(1, h, w, 1), (n, 1, 1, c), (1, 1, w, c)])
        a = self.arg(shape)
        op = self.r.choice(["tosa.add", "tosa.mul"])
        if op == "tosa.mul":
            return self.emit(op, [v, a, self.mul_shift()], v.shape, mag=v.mag, err=v.err + ulp(v.mag))
        return self.emit(op, [v, a], v.shape, mag=v.mag + 1, err=v.err + ulp(v.mag + 1))

    def data(self, v):
        n, h, w, c = v.shape
        kind = self.r.choice(["transpose", "slice", "pad", "reshape", "unit"])
        if kind == "transpose":
            perms = self.r.choice([(0, 2, 1, 3), (0, 1, 2, 3), (0, 2, 1, 3)])
            return self.emit("tosa.transpose", [v], tuple(v.shape[p] for p in perms),
                             "perms = array<i32: %s>" % ", ".join(map(str, perms)), v.mag, v.err)
        if kind == "slice":
            start = [0, self.r.randint(0, h // 2), self.r.randint(0, w // 2), 0]
            size = [n, h - start[1] - self.r.randint(0, (h - start[1]) // 2), w - start[2], c]
            return self.emit("tosa.slice", [v, self.shape_const(start), self.shape_const(size)], size,
                             mag=v.mag, err=v.err)
        if kind == "pad":
            p = [0, 0, self.r.randint(0, 1), self.r.randint(0, 1), self.r.randint(0, 1), self.r.randint(0, 1), 0, 0]
            shape = (n, h + p[2] + p[3], w + p[4] + p[5], c)
            if math.prod(shape) > MAX_NUMEL:
                return None
            pc = self.splat((1,), self.r.choice([0.0, -0.5]))
            return self.emit("tosa.pad", [v, self.shape_const(p), pc], shape, mag=v.mag, err=v.err)
        if kind == "reshape":  # a view between kernels: [N,H,W,C] -> [N,W,H,C] (not a transpose)
            return self.reshape(v, (n, w, h, c))
        # unit dims only: [N,H,W,C] -> [N,1,H*W,C] -> transpose moving the unit dim -> back
        flat = self.reshape(v, (n, 1, h * w, c))
        t = self.emit("tosa.transpose", [flat], (n, h * w, 1, c), "perms = array<i32: 0, 2, 1, 3>", v.mag, v.err)
        return self.reshape(t, (n, h, w, c))

    def step(self, v):
        fam = self.r.choice(["conv", "conv", "dw", "pool", "matmul", "red", "ew", "ew", "ew", "data", "data"])
        f = {"conv": self.conv, "dw": lambda x: self.conv(x, True), "pool": self.pool,
             "matmul": self.matmul, "red": self.softmaxish, "ew": self.elementwise, "data": self.data}[fam]
        y = f(v)
        return self.bounded(y) if y is not None else v

    def merge(self, a, b):
        """Join two branches: add (same shape) or concat along channels (same N, H, W)."""
        if a.shape == b.shape:
            mag = a.mag + b.mag
            return self.emit("tosa.add", [a, b], a.shape, mag=mag, err=a.err + b.err + ulp(mag))
        if a.shape[:3] == b.shape[:3]:
            shape = a.shape[:3] + (a.shape[3] + b.shape[3],)
            return self.emit("tosa.concat", [a, b], shape, "axis = 3 : i32", max(a.mag, b.mag), max(a.err, b.err))
        return None

    def generate(self):
        r = self.r
        n = r.choice([1, 1, 2])
        h, w = r.choice([3, 4, 5, 6, 7, 8]), r.choice([3, 4, 5, 6, 7, 8])
        c = r.choice([1, 2, 3, 4, 8])
        x = self.arg((n, h, w, c))
        steps = self.steps or r.randint(3, 5)
        nbranch = r.choice([2, 2, 3])
        results = []
        stem = self.step(x)
        for _ in range(nbranch):
            v = stem if r.random() < 0.7 else x
            for _ in range(steps):
                v = self.step(v)
            results.append(v)
        # Merge the first two branches when their shapes allow; keep the rest as results.
        m = self.merge(results[0], results[1])
        if m is not None:
            results = [self.bounded(m)] + results[2:]
        if r.random() < 0.5 and stem not in results and stem is not x:
            results.append(stem)  # an intermediate that also leaves the graph
        return self.render(results)

    def render(self, results):
        out = ["// gen_mixed: %s" % " ".join(sorted(set(o.split(".")[1] for o in self.ops)))]
        for k, _ in enumerate(self.args):
            out.append("// oracle: arg %d -1 1" % k)
        for k, v in enumerate(results):
            out.append("// oracle: result %d err %.3e" % (k, v.err + 1e-6))
        sig = ", ".join("%s: %s" % (a.name, a.ty) for a in self.args)
        rts = ", ".join(v.ty for v in results)
        out.append("func.func @main(%s) -> (%s) {" % (sig, rts))
        out += self.lines
        out.append("  return %s : %s" % (", ".join(v.name for v in results), rts))
        out.append("}")
        return "\n".join(out) + "\n"


def generate_text(seed, steps=None):
    return Gen(seed, steps).generate()


def verify(text):
    import subprocess
    p = subprocess.run(["mlir-opt-22", "-"], input=text, capture_output=True, text=True)
    return None if p.returncode == 0 else p.stderr


def _main(argv):
    import argparse
    ap = argparse.ArgumentParser(description="Seeded random mixed-op TOSA graph.")
    ap.add_argument("seed", type=int)
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--steps", type=int, default=None, help="ops per branch (default 3-5)")
    ap.add_argument("--no-verify", action="store_true")
    o = ap.parse_args(argv)
    text = generate_text(o.seed, o.steps)
    if not o.no_verify:
        err = verify(text)
        if err:
            sys.stderr.write("gen_mixed: mlir-opt-22 rejects the graph of seed %d:\n%s" % (o.seed, err))
            return 1
    if o.output == "-":
        sys.stdout.write(text)
    else:
        with open(o.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
