"""Seeded TOSA 1.0 graphs with the transposes NCHW exporters write, for the propagate-layout pass
(tests/bats/optimize_layout.bats). gen_layout.py KIND SEED -> graph on stdout (f32, one @main).

KIND:
  cancel  NHWC input -> transpose to NCHW -> elementwise chain with [1,C,1,1] constants and
          arguments, a full-shape constant -> transpose back -> avg_pool2d (the pair cancels)
  stay    the chain's NCHW value is the function's result (the transpose must stay)
  reduce  x - reduce_max(x, axis) and exp on the NCHW side between two transposes (axis renamed)
  pool    transposes swapping batch and channels around max_pool2d (they cross the pool)
  pad     a pad on the NCHW side (amounts permuted), then back to NHWC
  bcast   tile, concat with a constant and broadcast constants on the NCHW side
  block   a torch-style NCHW ResNet block: conv2d between transposes, batch norm as
          sub/mul/mul/add with [1,C,1,1] constants, ReLU, a second and third conv, the residual
          add, ReLU, max_pool2d, result NCHW
Shapes (batch, channels, height, width) and data follow the seed; constants are multiples of
1/64 so every layout computes the same bits."""
import sys
import numpy as np
from tosa_writer import Graph

kind, seed = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(seed * 7919 + sum(map(ord, kind)))
ri = lambda a, b: int(rng.integers(a, b + 1))
NCHW, NHWC, SWAP_NC = (0, 3, 1, 2), (0, 2, 3, 1), (3, 1, 2, 0)
g = Graph(rng)
emit, const, scalar, shape_const, arg, transpose = g.emit, g.const, g.scalar, g.shape_const, g.arg, g.transpose
mul = g.mul


def binop(op, a, b):
    return emit(op, [a, b], a.shape)


def clamp(x, lo=0.0, hi=6.0):
    return emit("tosa.clamp", [x], x.shape, "max_val = %s : f32, min_val = %s : f32" % (np.format_float_scientific(np.float32(hi)), np.format_float_scientific(np.float32(lo))))


def chan(c, scale=1.0):
    """A per-channel [1,C,1,1] operand: a constant or an argument."""
    return const((1, c, 1, 1), scale) if rng.random() < 0.7 else arg((1, c, 1, 1))


def bn(x):
    """torch's batch norm in inference: (x - mean) * invstd * gamma + beta."""
    c = x.shape[1]
    y = binop("tosa.sub", x, chan(c))
    y = mul(y, chan(c))
    y = mul(y, chan(c))
    return binop("tosa.add", y, chan(c))


def chain(x, steps):
    c = x.shape[1]
    for _ in range(steps):
        k = rng.choice(["bn", "add", "mul", "clamp", "tanh", "full"])
        if k == "bn":
            x = bn(x)
        elif k == "add":
            x = binop("tosa.add", x, chan(c))
        elif k == "mul":
            x = mul(x, chan(c, 0.5))
        elif k == "clamp":
            x = clamp(x, -2.0, 2.0)
        elif k == "tanh":
            x = emit("tosa.tanh", [x], x.shape)
        else:
            x = binop("tosa.add", x, const(x.shape))
    return x


def pool2(h, w):
    """2x2 stride 2 pooling attributes (padding an odd size) and the output size."""
    return ("kernel = array<i64: 2, 2>, pad = array<i64: 0, %d, 0, %d>, stride = array<i64: 2, 2>"
            % (h % 2, w % 2), (h + 1) // 2, (w + 1) // 2)


def conv(x, oc, k):
    """conv2d of an NCHW value as torch-mlir writes it: transposes around, weights [OC,IC,KH,KW]."""
    n, c, h, w = x.shape
    wt = transpose(const((oc, c, k, k), 1.0 / (k * k * c) ** 0.5), NHWC)
    z = scalar("0.000000e+00")
    p = k // 2
    y = emit("tosa.conv2d", [transpose(x, NHWC), wt, const((oc,), 0.25), z, z], (n, h, w, oc),
             "acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: %d, %d, %d, %d>, "
             "stride = array<i64: 1, 1>" % (p, p, p, p))
    return transpose(y, NCHW)


N, C, H, W = ri(1, 2), int(rng.choice([3, 4, 8, 16])), ri(3, 9), ri(3, 9)
err = "1e-5"
if kind in ("cancel", "stay", "reduce", "pad", "bcast"):
    x = transpose(arg((N, H, W, C)), NCHW)
    if kind == "cancel":
        y = chain(x, ri(3, 6))
        z = scalar("0.000000e+00")
        pa, ph, pw = pool2(H, W)
        res = [emit("tosa.avg_pool2d", [transpose(y, NHWC), z, z], (N, ph, pw, C), "acc_type = f32, " + pa)]
    elif kind == "stay":
        res = [chain(x, ri(2, 4))]
    elif kind == "reduce":
        axis = ri(1, 3)
        rs = list(x.shape)
        rs[axis] = 1
        m = emit("tosa.reduce_max", [x], rs, "axis = %d : i32" % axis)
        y = emit("tosa.exp", [binop("tosa.sub", x, m)], x.shape)
        s = emit("tosa.reduce_sum", [y], rs, "axis = %d : i32" % axis)
        res = [transpose(binop("tosa.add", y, s), NHWC)]
    elif kind == "pad":
        pads = [0, 0, ri(0, 2), ri(0, 2), ri(0, 2), ri(0, 2), ri(0, 2), ri(0, 2)]
        ps = [x.shape[d] + pads[2 * d] + pads[2 * d + 1] for d in range(4)]
        y = emit("tosa.pad", [chain(x, 2), shape_const(pads), scalar("-5.000000e-01")], ps)
        res = [transpose(chain(y, 2), NHWC)]
    else:
        m = [1, 1, ri(1, 2), ri(1, 2)]
        ts = [x.shape[d] * m[d] for d in range(4)]
        y = emit("tosa.tile", [chain(x, 1), shape_const(m)], ts)
        k = const((N, 2, ts[2], ts[3]))
        cs = (N, C + 2, ts[2], ts[3])
        y = emit("tosa.concat", [y, k], cs, "axis = 1 : i32")
        y = binop("tosa.add", y, const((1, C + 2, 1, 1)))
        res = [transpose(mul(y, const(cs)), NHWC)]
elif kind == "pool":
    x = arg((N, H, W, C))
    pa, ph, pw = pool2(H, W)
    y = emit("tosa.max_pool2d", [transpose(x, SWAP_NC)], (C, ph, pw, N), pa)
    res = [transpose(emit("tosa.abs", [y], y.shape), SWAP_NC)]
elif kind == "block":
    err = "1e-4"
    x = arg((N, 3, H * 2, W * 2))
    r1 = clamp(bn(conv(x, C, 3)), 0.0, 3.0e38)
    y = clamp(bn(conv(r1, C, 3)), 0.0, 3.0e38)
    y = binop("tosa.add", bn(conv(y, C, 1)), r1)
    y = clamp(y, 0.0, 3.0e38)
    p = emit("tosa.max_pool2d", [transpose(y, NHWC)], (N, H, W, C),
             "kernel = array<i64: 3, 3>, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>")
    res = [transpose(p, NCHW)]
else:
    sys.exit("unknown kind " + kind)

g.print("gen_layout.py %s %d" % (kind, seed), res, [err])
