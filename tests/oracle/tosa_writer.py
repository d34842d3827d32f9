"""A small writer of TOSA 1.0 graphs in MLIR's generic op form, shared by the seeded test
generators (gen_layout.py, gen_nchw_conv.py). One Graph is one f32 `@main`: values are
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
