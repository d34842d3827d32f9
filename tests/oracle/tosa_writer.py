"""A small writer of TOSA 1.0 graphs in MLIR's generic op form, shared by the seeded test
generators (gen_layout.py, gen_concat.py, gen_sliceview.py, gen_concatview.py, ...). One Graph is one f32 `@main`: values are
numbered %v1, %v2, ... in creation order, arguments %a0, %a1, ...; constants draw their data
from the generator's numpy Generator, as multiples of 1/64 so every layout computes the same
bits."""
import numpy as np


def ty(shape, elem="f32"):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), elem)


class V:
    """One SSA value: its name, shape and type text."""

    def __init__(self, name, shape, t=None):
        self.name, self.shape = name, tuple(shape)
        self.ty = t if t is not None else ty(shape)


class Graph:
    def __init__(self, rng):
        self.rng, self.lines, self.args, self.nval = rng, [], [], 0
        self.shift = None  # tosa.mul's shift, made at the first multiply

    def fresh(self):
        self.nval += 1
        return "%%v%d" % self.nval

    def emit(self, op, operands, shape, attrs=""):
        v = V(self.fresh(), shape)
        a = " <{%s}>" % attrs if attrs else ""
        self.lines.append('  %s = "%s"(%s)%s : (%s) -> %s'
                          % (v.name, op, ", ".join(o.name for o in operands), a,
                             ", ".join(o.ty for o in operands), v.ty))
        return v

    def const(self, shape, scale=1.0):
        vals = (self.rng.integers(-64, 65, int(np.prod(shape))) / 64.0 * scale).astype(np.float32)
        v = V(self.fresh(), shape)
        self.lines.append('  %s = "tosa.const"() <{values = dense<"0x%s"> : %s}> : () -> %s'
                          % (v.name, vals.tobytes().hex().upper(), v.ty, v.ty))
        return v

    def scalar(self, x, elem="f32"):
        """A rank-1 single-element constant (zero points, shifts, pad values)."""
        t = "tensor<1x%s>" % elem
        v = V(self.fresh(), (1,), t)
        self.lines.append('  %s = "tosa.const"() <{values = dense<%s> : %s}> : () -> %s' % (v.name, x, t, t))
        return v

    def shape_const(self, vals):
        k = len(vals)
        t = "!tosa.shape<%d>" % k
        v = V(self.fresh(), (k,), t)
        self.lines.append('  %s = "tosa.const_shape"() <{values = dense<[%s]> : tensor<%dxindex>}> : () -> %s'
                          % (v.name, ", ".join(map(str, vals)), k, t))
        return v

    def arg(self, shape):
        v = V("%%a%d" % len(self.args), shape)
        self.args.append(v)
        return v

    def transpose(self, x, perm):
        return self.emit("tosa.transpose", [x], [x.shape[i] for i in perm],
                         "perms = array<i32: %s>" % ", ".join(map(str, perm)))

    def slice(self, x, start, size):
        return self.emit("tosa.slice", [x, self.shape_const(start), self.shape_const(size)], size)

    def mul(self, a, b):
        if self.shift is None:
            self.shift = self.scalar(0, "i8")
        return self.emit("tosa.mul", [a, b, self.shift], a.shape)

    def reshape(self, x, shape):
        return self.emit("tosa.reshape", [x, self.shape_const(shape)], shape)

    def matmul(self, a, b):
        z = self.scalar("0.000000e+00")
        return self.emit("tosa.matmul", [a, b, z, z], (a.shape[0], a.shape[1], b.shape[2]))

    def reduce(self, op, x, axis):
        shape = list(x.shape)
        shape[axis] = 1
        return self.emit(op, [x], shape, "axis = %d : i32" % axis)

    def concat(self, xs, axis):
        shape = list(xs[0].shape)
        shape[axis] = sum(x.shape[axis] for x in xs)
        return self.emit("tosa.concat", xs, shape, "axis = %d : i32" % axis)

    def attention(self, q, kt, v):
        """softmax(q kt / sqrt(d)) v per head as exporters write it: [nh, S, d] x [nh, d, L]."""
        d = q.shape[2]
        scale = self.emit("tosa.const", [], (1, 1, 1),
                          "values = dense<%s> : tensor<1x1x1xf32>" % repr(1.0 / np.sqrt(d)))
        s = self.mul(self.matmul(q, kt), scale)
        e = self.emit("tosa.exp", [self.emit("tosa.sub", [s, self.reduce("tosa.reduce_max", s, 2)], s.shape)],
                      s.shape)
        p = self.mul(e, self.emit("tosa.reciprocal", [self.reduce("tosa.reduce_sum", e, 2)], s.shape[:2] + (1,)))
        return self.matmul(p, v)

    def print(self, header, results, errs):
        """The graph on stdout with its oracle comments: every argument drawn from [-1, 1],
        result i compared within errs[i]."""
        print("// " + header)
        for i in range(len(self.args)):
            print("// oracle: arg %d -1 1" % i)
        for i, e in enumerate(errs):
            print("// oracle: result %d err %s" % (i, e))
        print("func.func @main(%s) -> (%s) {" % (", ".join("%s: %s" % (a.name, a.ty) for a in self.args),
                                                ", ".join(r.ty for r in results)))
        print("\n".join(self.lines))
        print("  return %s : %s" % (", ".join(r.name for r in results), ", ".join(r.ty for r in results)))
        print("}")
