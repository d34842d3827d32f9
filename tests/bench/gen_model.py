#!/usr/bin/python3
"""gen_model.py: model-sized TOSA 1.0 graphs for the compile-speed benchmark (scale_bench.sh).

  gen_model.py resnet50 [--batch B] [--stages S] [--weights hex|args] [--dtype f32|f16]
      torchvision's ResNet-50 in NHWC: the 7x7 stem, max pool, S (1-4) stages of bottleneck
      blocks (3, 4, 6, 3; 64-256, 128-512, 256-1024, 512-2048 channels), each convolution with
      its bias and ReLU, the projection shortcut, global average pool and the 1000-class layer.
  gen_model.py unet [--levels L] [--res R] [--dtype f16|f32]
      a Stable-Diffusion-1.x-sized UNet (320, 640, 1280, 1280 channels, 2 ResNet blocks per level
      and 3 on the way up with skip concatenations, a transformer block (self-attention,
      cross-attention over 77 text tokens of 768, GEGLU feed-forward) at every level but the last,
      group norms written as exporters do: reshape, reduce_sum, mean, variance, rsqrt),
      R x R x 4 latents (64 for 512-pixel images). Weights are function arguments.
  gen_model.py gpt2 [--layers N] [--kv L] [--vocab V] [--dtype f16|f32]
      one decode step of GPT-2 small (768 wide, 12 heads, MLP 3072, 12 layers): the new token's
      embedding [1, 1, 768] in; per layer pre-LN attention (the fused 768 x 2304 QKV projection,
      the new key and value appended to the layer's cache inputs, K cached transposed as
      [12, 64, L] and V as [12, L, 64], softmax written out), the tanh-GELU MLP, residuals; the
      final layer norm and the 768 x V language-model head. Weights are function arguments.

Weights are hex constants of seeded random values (--weights hex) or function arguments. The
graphs are for compile time and plans, not numerics. Output on stdout.
"""
import argparse
import random
import struct

lines, args, counter = [], [], [0]


def ty(shape, dt):
    return "tensor<%sx%s>" % ("x".join(map(str, shape)), dt) if shape else "tensor<%s>" % dt


def new():
    counter[0] += 1
    return "%%v%d" % counter[0]


def emit(rhs, result_type):
    v = new()
    lines.append("  %s = %s -> %s" % (v, rhs, result_type))
    return v


class G:
    def __init__(self, dt, weights, seed):
        self.dt, self.weights, self.rng = dt, weights, random.Random(seed)
        self.consts = {}

    def weight(self, shape):
        if self.weights == "args":
            name = "%%arg%d" % len(args)
            args.append((name, ty(shape, self.dt)))
            return name
        n = 1
        for d in shape:
            n *= d
        fmt, size = ("<f", 4) if self.dt == "f32" else ("<e", 2)
        pick = self.rng.random
        raw = b"".join(struct.pack(fmt, (pick() - 0.5) * 0.1) for _ in range(min(n, 4096)))
        raw = (raw * (n * size // len(raw) + 1))[: n * size]  # repeated: fast for 100 MB
        return emit('"tosa.const"() <{values = dense<"0x%s"> : %s}> : ()' % (raw.hex().upper(), ty(shape, self.dt)),
                    ty(shape, self.dt))

    def splat(self, value, rank, dt=None):
        dt = dt or self.dt
        key = (value, rank, dt)
        if key not in self.consts:
            shape = [1] * rank if rank else [1]
            self.consts[key] = emit('"tosa.const"() <{values = dense<%s> : %s}> : ()' % (repr(float(value)) if dt[0] in "fb" else int(value), ty(shape, dt)), ty(shape, dt))
        return self.consts[key]

    def shift(self):
        return self.splat(0, 0, "i8")

    def shape_const(self, shape):
        return emit('"tosa.const_shape"() <{values = dense<[%s]> : tensor<%dxindex>}> : ()' % (", ".join(map(str, shape)), len(shape)),
                    "!tosa.shape<%d>" % len(shape))

    def conv(self, x, xs, oc, k, stride=1, bias=True):
        n, h, w, ic = xs
        pad = k // 2
        oh, ow = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        wt = self.weight([oc, k, k, ic])
        b = self.weight([oc]) if bias else self.splat(0, 0)
        zero = self.splat(0, 0)
        os_ = [n, oh, ow, oc]
        y = emit('"tosa.conv2d"(%s, %s, %s, %s, %s) <{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: %d, %d, %d, %d>, stride = array<i64: %d, %d>}> : (%s, %s, %s, %s, %s)'
                 % (x, wt, b, zero, zero, pad, pad, pad, pad, stride, stride, ty(xs, self.dt), ty([oc, k, k, ic], self.dt),
                    ty([oc] if bias else [1], self.dt), ty([1], self.dt), ty([1], self.dt)), ty(os_, self.dt))
        return y, os_

    def unary(self, op, x, s, attrs=""):
        return emit('"tosa.%s"(%s)%s : (%s)' % (op, x, attrs, ty(s, self.dt)), ty(s, self.dt))

    def relu(self, x, s):
        return self.unary("clamp", x, s, " <{max_val = 3.40282347e+38 : %s, min_val = 0.0 : %s}>" % (self.dt, self.dt))

    def binary(self, op, a, b, sa, sb=None):
        so, sb = sa, sb or sa
        extra = ", %s" % self.shift() if op == "mul" else ""
        tail = ", tensor<1xi8>" if op == "mul" else ""
        return emit('"tosa.%s"(%s, %s%s) : (%s, %s%s)' % (op, a, b, extra, ty(sa, self.dt), ty(sb, self.dt), tail), ty(so, self.dt))

    def reshape(self, x, xs, to):
        return emit('"tosa.reshape"(%s, %s) : (%s, !tosa.shape<%d>)' % (x, self.shape_const(to), ty(xs, self.dt), len(to)), ty(to, self.dt))

    def transpose(self, x, xs, perm):
        to = [xs[p] for p in perm]
        return emit('"tosa.transpose"(%s) <{perms = array<i32: %s>}> : (%s)' % (x, ", ".join(map(str, perm)), ty(xs, self.dt)), ty(to, self.dt)), to

    def reduce(self, op, x, xs, axis):
        to = list(xs)
        to[axis] = 1
        return emit('"tosa.%s"(%s) <{axis = %d : i32}> : (%s)' % (op, x, axis, ty(xs, self.dt)), ty(to, self.dt)), to

    def matmul(self, a, b, sa, sb):
        zero = self.splat(0, 0)
        so = [sa[0], sa[1], sb[2]]
        return emit('"tosa.matmul"(%s, %s, %s, %s) : (%s, %s, %s, %s)' % (a, b, zero, zero, ty(sa, self.dt), ty(sb, self.dt), ty([1], self.dt), ty([1], self.dt)), ty(so, self.dt)), so

    def linear(self, x, xs, out, bias=True):  # [1, T, C] x [1, C, out]
        y, ys = self.matmul(x, self.weight([1, xs[2], out]), xs, [1, xs[2], out])
        if bias:
            y = self.binary("add", y, self.weight([1, 1, out]), ys, [1, 1, out])
        return y, ys


def resnet50(g, batch, stages):
    x = "%x"
    args.append((x, ty([batch, 224, 224, 3], g.dt)))
    y, s = g.conv(x, [batch, 224, 224, 3], 64, 7, 2)
    y = g.relu(y, s)
    s2 = [batch, s[1] // 2, s[2] // 2, 64]
    y = emit('"tosa.max_pool2d"(%s) <{kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>}> : (%s)' % (y, ty(s, g.dt)), ty(s2, g.dt))
    s = s2
    for i, (blocks, mid) in enumerate([(3, 64), (4, 128), (6, 256), (3, 512)][:stages]):
        for b in range(blocks):
            stride = 2 if b == 0 and i > 0 else 1
            a, sa = g.conv(y, s, mid, 1)
            a = g.relu(a, sa)
            a, sa = g.conv(a, sa, mid, 3, stride)
            a = g.relu(a, sa)
            a, sa = g.conv(a, sa, 4 * mid, 1)
            if b == 0:
                sc, _ = g.conv(y, s, 4 * mid, 1, stride)
            else:
                sc = y
            y = g.relu(g.binary("add", a, sc, sa, sa), sa)
            s = sa
    pooled = [batch, 1, 1, s[3]]
    y = emit('"tosa.avg_pool2d"(%s, %s, %s) <{acc_type = f32, kernel = array<i64: %d, %d>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (%s, %s, %s)'
             % (y, g.splat(0, 0), g.splat(0, 0), s[1], s[2], ty(s, g.dt), ty([1], g.dt), ty([1], g.dt)), ty(pooled, g.dt))
    y = g.reshape(y, pooled, [1, batch, s[3]])
    y, ys = g.linear(y, [1, batch, s[3]], 1000)
    return y, ys


def group_norm(g, x, s, groups=32):
    n, h, w, c = s
    gs = [n, h * w, groups, c // groups]
    r = g.reshape(x, s, gs)
    r, rs = g.transpose(r, gs, [0, 2, 1, 3])
    flat = [n, groups, h * w * c // groups]
    r = g.reshape(r, rs, flat)
    inv = g.splat(1.0 / flat[2], 3)
    m, ms = g.reduce("reduce_sum", r, flat, 2)
    m = g.binary("mul", m, inv, ms, [1, 1, 1])
    d = g.binary("sub", r, m, flat, ms)
    v, vs = g.reduce("reduce_sum", g.binary("mul", d, d, flat, flat), flat, 2)
    v = g.binary("mul", v, inv, vs, [1, 1, 1])
    v = g.unary("rsqrt", g.binary("add", v, g.splat(1e-5, 3), vs, [1, 1, 1]), vs)
    d = g.binary("mul", d, v, flat, vs)
    d = g.reshape(d, flat, rs)
    d, _ = g.transpose(d, rs, [0, 2, 1, 3])
    d = g.reshape(d, gs, s)
    d = g.binary("mul", d, g.weight([1, 1, 1, c]), s, [1, 1, 1, c])
    return g.binary("add", d, g.weight([1, 1, 1, c]), s, [1, 1, 1, c])


def silu(g, x, s):
    return g.binary("mul", x, g.unary("sigmoid", x, s), s, s)


def res_block(g, x, s, emb, oc):
    h = silu(g, group_norm(g, x, s), s)
    h, hs = g.conv(h, s, oc, 3)
    e, es = g.linear(silu(g, emb, [1, 1, 1280]), [1, 1, 1280], oc)
    h = g.binary("add", h, g.reshape(e, es, [1, 1, 1, oc]), hs, [1, 1, 1, oc])
    h = silu(g, group_norm(g, h, hs), hs)
    h, hs = g.conv(h, hs, oc, 3)
    sc = x if s[3] == oc else g.conv(x, s, oc, 1)[0]
    return g.binary("add", h, sc, hs), hs


def layer_norm(g, x, s):
    inv = g.splat(1.0 / s[2], 3)
    m, ms = g.reduce("reduce_sum", x, s, 2)
    d = g.binary("sub", x, g.binary("mul", m, inv, ms, [1, 1, 1]), s, ms)
    v, vs = g.reduce("reduce_sum", g.binary("mul", d, d, s, s), s, 2)
    v = g.unary("rsqrt", g.binary("add", g.binary("mul", v, inv, vs, [1, 1, 1]), g.splat(1e-5, 3), vs, [1, 1, 1]), vs)
    d = g.binary("mul", d, v, s, vs)
    d = g.binary("mul", d, g.weight([1, 1, s[2]]), s, [1, 1, s[2]])
    return g.binary("add", d, g.weight([1, 1, s[2]]), s, [1, 1, s[2]])


def attention(g, x, xs, ctx, cs, heads):
    t, c = xs[1], xs[2]
    d = c // heads
    q, _ = g.linear(x, xs, c, bias=False)
    k, _ = g.linear(ctx, cs, c, bias=False)
    v, _ = g.linear(ctx, cs, c, bias=False)

    def split(y, n, perm):
        y = g.reshape(y, [1, n, c], [1, n, heads, d])
        y, ys = g.transpose(y, [1, n, heads, d], perm)
        return g.reshape(y, ys, [heads] + ys[2:]), [heads] + ys[2:]
    q, qs = split(q, t, [0, 2, 1, 3])
    k, ks = split(k, cs[1], [0, 2, 3, 1])
    v, vs = split(v, cs[1], [0, 2, 1, 3])
    a, as_ = g.matmul(q, k, qs, ks)
    a = g.binary("mul", a, g.splat(d ** -0.5, 3), as_, [1, 1, 1])
    mx, ms = g.reduce("reduce_max", a, as_, 2)
    e = g.unary("exp", g.binary("sub", a, mx, as_, ms), as_)
    sm, ss = g.reduce("reduce_sum", e, as_, 2)
    p = g.binary("mul", e, g.unary("reciprocal", sm, ss), as_, ss)
    o, os_ = g.matmul(p, v, as_, vs)
    o = g.reshape(o, os_, [1, heads, t, d])
    o, ots = g.transpose(o, [1, heads, t, d], [0, 2, 1, 3])
    o = g.reshape(o, ots, [1, t, c])
    return g.linear(o, [1, t, c], c)[0]


def transformer(g, x, s, ctx):
    n, h, w, c = s
    ts = [1, h * w, c]
    y = g.reshape(group_norm(g, x, s), s, ts)
    y, _ = g.linear(y, ts, c)
    y = g.binary("add", y, attention(g, layer_norm(g, y, ts), ts, layer_norm(g, y, ts), ts, 8), ts)
    y = g.binary("add", y, attention(g, layer_norm(g, y, ts), ts, ctx, [1, 77, 768], 8), ts)
    f, fs = g.linear(layer_norm(g, y, ts), ts, 8 * c)
    half = [1, ts[1], 4 * c]
    a = emit('"tosa.slice"(%s, %s, %s) : (%s, !tosa.shape<3>, !tosa.shape<3>)' % (f, g.shape_const([0, 0, 0]), g.shape_const(half), ty(fs, g.dt)), ty(half, g.dt))
    b = emit('"tosa.slice"(%s, %s, %s) : (%s, !tosa.shape<3>, !tosa.shape<3>)' % (f, g.shape_const([0, 0, 4 * c]), g.shape_const(half), ty(fs, g.dt)), ty(half, g.dt))
    gelu = g.binary("mul", b, g.unary("sigmoid", g.binary("mul", b, g.splat(1.702, 3), half, [1, 1, 1]), half), half)
    f, _ = g.linear(g.binary("mul", a, gelu, half), half, c)
    y = g.binary("add", y, f, ts)
    y, _ = g.linear(y, ts, c)
    return g.binary("add", g.reshape(y, ts, s), x, s)


def unet(g, levels, res):
    chans = [320, 640, 1280, 1280][:levels]
    x, ctx, emb = "%x", "%ctx", "%emb"
    args.extend([(x, ty([1, res, res, 4], g.dt)), (ctx, ty([1, 77, 768], g.dt)), (emb, ty([1, 1, 1280], g.dt))])
    y, s = g.conv(x, [1, res, res, 4], chans[0], 3)
    skips = [(y, s)]
    for i, c in enumerate(chans):
        for _ in range(2):
            y, s = res_block(g, y, s, emb, c)
            if i < len(chans) - 1:
                y = transformer(g, y, s, ctx)
            skips.append((y, s))
        if i < len(chans) - 1:
            y, s = g.conv(y, s, c, 3, 2)
            skips.append((y, s))
    y, s = res_block(g, y, s, emb, chans[-1])
    y = transformer(g, y, s, ctx)
    y, s = res_block(g, y, s, emb, chans[-1])
    for i, c in reversed(list(enumerate(chans))):
        for _ in range(3):
            sk, ss = skips.pop()
            cat = [1, s[1], s[2], s[3] + ss[3]]
            y = emit('"tosa.concat"(%s, %s) <{axis = 3 : i32}> : (%s, %s)' % (y, sk, ty(s, g.dt), ty(ss, g.dt)), ty(cat, g.dt))
            y, s = res_block(g, y, cat, emb, c)
            if i < len(chans) - 1:
                y = transformer(g, y, s, ctx)
        if i > 0:
            up = [1, 2 * s[1], 2 * s[2], s[3]]
            y = emit('"tosa.resize"(%s, %s, %s, %s) <{mode = NEAREST_NEIGHBOR}> : (%s, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>)'
                     % (y, g.shape_const([4, 2, 4, 2]), g.shape_const([-1, -1]), g.shape_const([1, 1]), ty(s, g.dt)), ty(up, g.dt))
            y, s = g.conv(y, up, c, 3)
    y = silu(g, group_norm(g, y, s), s)
    return g.conv(y, s, 4, 3)


def gelu_tanh(g, x, s):
    one = [1] * len(s)
    inner = g.binary("mul", x, g.binary("mul", x, x, s), s)
    inner = g.binary("add", x, g.binary("mul", inner, g.splat(0.044715, len(s)), s, one), s)
    t = g.unary("tanh", g.binary("mul", inner, g.splat(0.7978845608028654, len(s)), s, one), s)
    half = g.binary("mul", x, g.splat(0.5, len(s)), s, one)
    return g.binary("mul", half, g.binary("add", t, g.splat(1.0, len(s)), s, one), s)


def gpt2_decode(g, layers, kv, vocab, hidden=768, heads=12):
    d = hidden // heads
    x = "%x"
    args.append((x, ty([1, 1, hidden], g.dt)))
    xs = [1, 1, hidden]
    for _ in range(layers):
        kc, vc = "%%kc%d" % len(args), "%%vc%d" % len(args)
        args.extend([(kc, ty([heads, d, kv], g.dt)), (vc, ty([heads, kv, d], g.dt))])
        qkv, qs = g.linear(layer_norm(g, x, xs), xs, 3 * hidden)

        def part(i):
            return emit('"tosa.slice"(%s, %s, %s) : (%s, !tosa.shape<3>, !tosa.shape<3>)'
                        % (qkv, g.shape_const([0, 0, i * hidden]), g.shape_const(xs), ty(qs, g.dt)), ty(xs, g.dt))
        q = g.reshape(part(0), xs, [heads, 1, d])
        k = g.reshape(part(1), xs, [heads, d, 1])
        v = g.reshape(part(2), xs, [heads, 1, d])
        ks, vs = [heads, d, kv + 1], [heads, kv + 1, d]
        k = emit('"tosa.concat"(%s, %s) <{axis = 2 : i32}> : (%s, %s)' % (kc, k, ty([heads, d, kv], g.dt), ty([heads, d, 1], g.dt)), ty(ks, g.dt))
        v = emit('"tosa.concat"(%s, %s) <{axis = 1 : i32}> : (%s, %s)' % (vc, v, ty([heads, kv, d], g.dt), ty([heads, 1, d], g.dt)), ty(vs, g.dt))
        a, as_ = g.matmul(q, k, [heads, 1, d], ks)
        a = g.binary("mul", a, g.splat(d ** -0.5, 3), as_, [1, 1, 1])
        mx, ms = g.reduce("reduce_max", a, as_, 2)
        e = g.unary("exp", g.binary("sub", a, mx, as_, ms), as_)
        sm, ss = g.reduce("reduce_sum", e, as_, 2)
        p = g.binary("mul", e, g.unary("reciprocal", sm, ss), as_, ss)
        o, os_ = g.matmul(p, v, as_, vs)
        o = g.reshape(o, os_, xs)
        x = g.binary("add", x, g.linear(o, xs, hidden)[0], xs)
        f, fs = g.linear(layer_norm(g, x, xs), xs, 4 * hidden)
        f, _ = g.linear(gelu_tanh(g, f, fs), fs, hidden)
        x = g.binary("add", x, f, xs)
    return g.linear(layer_norm(g, x, xs), xs, vocab, bias=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", choices=["resnet50", "unet", "gpt2"])
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--stages", type=int, default=4, choices=[1, 2, 3, 4])
    ap.add_argument("--levels", type=int, default=4, choices=[1, 2, 3, 4])
    ap.add_argument("--res", type=int, default=64)
    ap.add_argument("--dtype", default=None, choices=["f32", "f16"])
    ap.add_argument("--weights", default=None, choices=["hex", "args"])
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--kv", type=int, default=1024)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--seed", type=int, default=1)
    o = ap.parse_args()
    if o.model == "resnet50":
        g = G(o.dtype or "f32", o.weights or "hex", o.seed)
        y, ys = resnet50(g, o.batch, o.stages)
    elif o.model == "gpt2":
        g = G(o.dtype or "f16", o.weights or "args", o.seed)
        y, ys = gpt2_decode(g, o.layers, o.kv, o.vocab)
    else:
        g = G(o.dtype or "f16", o.weights or "args", o.seed)
        y, ys = unet(g, o.levels, o.res)
    out = ty(ys, g.dt)
    print("func.func @main(%s) -> %s {" % (", ".join("%s: %s" % a for a in args), out))
    print("\n".join(lines))
    print("  return %s : %s\n}" % (y, out))


if __name__ == "__main__":
    main()
