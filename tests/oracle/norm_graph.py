"""Seeded graphs of a row norm feeding GEMMs, shared by gen_normgemv.py (skinny GEMMs) and
gen_normgemm.py (tile GEMMs): the graph, the scaled argument ranges the oracle draws from, the
norm (a layer norm, an RMS norm for seeds divisible by 3) of a residual stream or an argument,
and the output in f32, f16 (even seeds) or bf16 (odd multiples of 5)."""
import contextlib
import io
import sys
import numpy as np
from tosa_writer import Graph, V


class NormGraph:
    def __init__(self, name, kind, kinds, seed, salt=0):
        if kind not in kinds:
            sys.exit("unknown kind " + kind)
        self.name, self.kind, self.seed = name, kind, seed
        self.rng = np.random.default_rng(seed * 7919 + sum(map(ord, kind)) + salt)
        self.g = Graph(self.rng)
        self.emit, self.arg = self.g.emit, self.g.arg
        self.shift = self.g.scalar(0, "i8")
        self.zero = self.g.scalar("0.000000e+00")
        self.f16 = seed % 2 == 0
        self.bf16 = not self.f16 and seed % 5 == 0
        self.rms = seed % 3 == 0
        self.ranges = {}

    def ri(self, a, b):
        return int(self.rng.integers(a, b + 1))

    def err(self, f32, f16, bf16):
        """The tolerance for the graph's element type."""
        return f16 if self.f16 else bf16 if self.bf16 else f32

    def mul(self, a, b):
        return self.emit("tosa.mul", [a, b, self.shift], a.shape if len(a.shape) >= len(b.shape) else b.shape)

    def matmul(self, a, b):
        return self.emit("tosa.matmul", [a, b, self.zero, self.zero], (a.shape[0], a.shape[1], b.shape[2]))

    def add(self, a, b):
        return self.emit("tosa.add", [a, b], a.shape if len(a.shape) >= len(b.shape) else b.shape)

    def warg(self, shape, scale):
        """A weight passed as an argument, the oracle's data in [-scale, scale]."""
        v = self.arg(shape)
        self.ranges[len(self.g.args) - 1] = scale
        return v

    def wconst(self, shape, scale):
        """A constant weight, its bytes in the graph's element type."""
        vals = (self.rng.integers(-64, 65, int(np.prod(shape))) / 64.0 * scale).astype(np.float32)
        data = vals.astype(np.float16).tobytes() if self.f16 else \
            (vals.view(np.uint32) >> 16).astype(np.uint16).tobytes() if self.bf16 else vals.tobytes()
        v = V(self.g.fresh(), shape)
        self.g.lines.append('  %s = "tosa.const"() <{values = dense<"0x%s"> : %s}> : () -> %s'
                            % (v.name, data.hex().upper(), v.ty, v.ty))
        return v

    def lit(self, x):
        return self.emit("tosa.const", [], (1, 1, 1), "values = dense<%.9e> : tensor<1x1x1xf32>" % x)

    def stream(self, M, K, plain):
        """The norm's input: the argument x for the kinds in plain, else the residual stream
        h = x + a W0 + b0 (the residual add in the first GEMM's epilogue)."""
        self.M, self.K = M, K
        x = self.arg((1, M, K))
        if self.kind in plain:
            return x
        K0 = self.ri(8, 300)
        a = self.arg((1, M, K0))
        return self.add(x, self.add(self.matmul(a, self.warg((1, K0, K), 0.125)), self.warg((1, 1, K), 0.5)))

    def norm(self, h):
        M, K, R = self.M, self.K, (1, self.M, 1)
        inv, eps = self.lit(1.0 / K), self.lit(1e-5)
        rsum = lambda v: self.emit("tosa.reduce_sum", [v], R, "axis = 2 : i32")
        if self.rms:
            ms = self.mul(rsum(self.mul(h, h)), inv)
            return self.mul(self.mul(h, self.emit("tosa.rsqrt", [self.add(ms, eps)], R)), self.warg((1, 1, K), 1))
        mean = self.mul(rsum(h), inv)
        d = self.emit("tosa.sub", [h, mean], h.shape)
        var = self.mul(rsum(self.mul(d, d)), inv)
        n = self.mul(self.mul(d, self.emit("tosa.rsqrt", [self.add(var, eps)], R)), self.warg((1, 1, K), 1))
        return self.add(n, self.warg((1, 1, K), 0.5))

    def write(self, N, results, errs):
        """The graph on stdout, its header naming the draw, each argument with its range."""
        buf = io.StringIO()
        title = "%s %s %d: M %d, K %d, N %d, %s%s" % (
            self.name, self.kind, self.seed, self.M, self.K, N, "rms" if self.rms else "layer norm",
            " (f16)" if self.f16 else " (bf16)" if self.bf16 else "")
        with contextlib.redirect_stdout(buf):
            self.g.print(title, results, errs)
        out = buf.getvalue()
        for i, r in self.ranges.items():
            out = out.replace("// oracle: arg %d -1 1\n" % i, "// oracle: arg %d %r %r\n" % (i, -r, r))
        sys.stdout.write(out.replace("xf32>", "xf16>") if self.f16 else
                         out.replace("xf32>", "xbf16>") if self.bf16 else out)
