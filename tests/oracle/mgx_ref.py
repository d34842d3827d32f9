#!/usr/bin/env python3
"""Reference results for the migraphx test graphs (tests/data/migraphx), computed with numpy from
MIGraphX's own operator semantics, independently of tosac's lowering to TOSA.

    mgx_ref.py GRAPH.mlir CONVERTED.mlir OUTDIR [--seed=N] [--sum-bound=K]

GRAPH is the migraphx-dialect graph, CONVERTED its `tosac --emit=tosa` form (only its function
signature is read: the memory tensor shape of each argument and result). Writes OUTDIR/in<i>.npy
(memory layout, as the converted function takes them) and OUTDIR/ref<j>.npy, then prints the
check.py options `--input=@... --expected=@...` on one line. With --sum-bound=K (results that are
sums of K products, such as the mxfp4 GEMMs) also OUTDIR/exact<j>.npy, the float64 result, and
OUTDIR/bound<j>.npy, K * 2^-24 * the result on the arguments' absolute values: how far any f32
summation of the exact products, in any order, can be from the exact sum (sum_check.py).

Each argument's memory is viewed through its !migraphx.shaped strides (numpy as_strided), the
graph is evaluated on the logical views, and each result is written through its strides."""
import re
import sys

import numpy as np

DT = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "si8": np.int8, "ui8": np.uint8, "i16": np.int16,
      "si16": np.int16, "ui16": np.uint16, "i32": np.int32, "si32": np.int32, "ui32": np.uint32}


MX = ("f4E2M1FN", "f8E8M0FNU")  # OCP MX element types: bytes in memory, decoded to real values


def e2m1(code):
    """OCP MX v1.0 FP4 E2M1: sign, 2 exponent bits (bias 1), 1 mantissa bit; exponent 0 is
    subnormal (m * 2^-1 * 2^(1-1)); no Inf or NaN."""
    s, e, m = (code >> 3) & 1, (code >> 1) & 3, code & 1
    mag = np.where(e == 0, m * 0.5, np.ldexp(1.0 + m * 0.5, e - 1))
    return np.where(s == 1, -mag, mag)


def e8m0(code):
    """OCP MX v1.0 E8M0 scale: 2^(code - 127), 0xFF NaN."""
    return np.where(code == 255, np.nan, np.ldexp(1.0, code.astype(np.int64) - 127))


def mx_decode(mem, et):
    """Bytes of an MX type to the values of its unpacked memory: fp4 holds two per byte along
    the innermost memory dim, the low nibble first (MIGraphX's fp4x2)."""
    u = mem.view(np.uint8).astype(np.int64)
    if et == "f8E8M0FNU":
        return e8m0(u)
    out = np.empty(u.shape[:-1] + (2 * u.shape[-1],), dtype=np.int64)
    out[..., 0::2], out[..., 1::2] = u & 15, u >> 4
    return e2m1(out)


def signless(a):
    """The bytes as the converted graph holds them: unsigned types are stored signless."""
    return a.view(np.dtype(a.dtype.str.replace("u", "i"))) if a.dtype.kind == "u" else a


def shaped(text):
    t = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", text.strip())
    if t:  # the tensor-typed form: a standard layout
        dims = [int(d) for d in t.group(1).split("x") if d]
        return dims, t.group(2), [int(np.prod(dims[i + 1:])) for i in range(len(dims))]
    m = re.fullmatch(r"!migraphx\.shaped<((?:\d+x)*)(\w+), ([\dx]+)>", text.strip())
    dims = [int(d) for d in m.group(1).split("x") if d]
    return dims, m.group(2), [int(s) for s in m.group(3).split("x")]


def entry(text):
    """The public function: its name and the text of its signature."""
    for m in re.finditer(r"^\s*func(?:\.func)? (private )?@(\w+)([^{]*)", text, re.M):
        if not m.group(1):
            return m.group(2), m.group(3)


def signature(path):
    """Argument and result types of the public function, as raw type strings."""
    head = entry(open(path).read())[1]
    args = re.findall(r"%\w+: ((?:!migraphx\.shaped|tensor)<[^>]*>)", head)
    res = re.findall(r"(?:!migraphx\.shaped|tensor)<[^>]*>", head.split("->", 1)[1])
    return args, res


def tensor_dims(t):
    m = re.fullmatch(r"tensor<((?:\d+x)*)(\w+)>", t)
    return [int(d) for d in m.group(1).split("x") if d]


def view(mem, dims, strides):
    flat = np.ascontiguousarray(mem).reshape(-1)
    return np.lib.stride_tricks.as_strided(flat, shape=dims, strides=[s * flat.itemsize for s in strides], writeable=True)


def conv(x, w, pad, stride, dil, group):
    """MIGraphX convolution: NC(spatial) input, KC(spatial) filter, padding [begin..., end...]."""
    n, c = x.shape[:2]
    k = w.shape[0]
    nsp = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pad[i], pad[i + nsp]) for i in range(nsp)])
    ksz = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - (ksz[i] - 1) * dil[i] - 1) // stride[i] + 1 for i in range(nsp)]
    y = np.zeros([n, k] + out_sp, dtype=np.float64 if x.dtype.kind == "f" else np.int64)
    cg, kg = c // group, k // group
    for o in np.ndindex(*out_sp):
        sl = tuple(slice(o[i] * stride[i], o[i] * stride[i] + (ksz[i] - 1) * dil[i] + 1, dil[i]) for i in range(nsp))
        win = xp[(slice(None), slice(None)) + sl]  # [n, c, k...]
        for g in range(group):
            a = win[:, g * cg:(g + 1) * cg].reshape(n, -1).astype(y.dtype)
            b = w[g * kg:(g + 1) * kg].reshape(kg, -1).astype(y.dtype)
            y[(slice(None), slice(g * kg, (g + 1) * kg)) + o] = a @ b.T
    return y


def bwd_conv(x, w, pad, stride):
    """MIGraphX convolution_backwards: input [N, K, spatial], filter [K, C, k...]; each input
    pixel scatters x * w to y * stride + k, then padding [begin..., end...] is cut off."""
    n, nsp, ks = x.shape[0], x.ndim - 2, w.shape[2:]
    full = [(x.shape[2 + i] - 1) * stride[i] + ks[i] for i in range(nsp)]
    y = np.zeros([n, w.shape[1]] + full)
    for at in np.ndindex(*x.shape[2:]):
        for kk in np.ndindex(*ks):
            pos = tuple(at[i] * stride[i] + kk[i] for i in range(nsp))
            y[(slice(None), slice(None)) + pos] += x[(slice(None), slice(None)) + at] @ w[(slice(None), slice(None)) + kk]
    return y[(slice(None), slice(None)) + tuple(slice(pad[i], full[i] - pad[i + nsp]) for i in range(nsp))]


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def f64(*xs):
    return [np.asarray(x, dtype=np.float64) for x in xs]


CASES = {
    "mlir_convolution_add_relu": lambda b, x, w: [np.maximum(conv(*f64(x, w), [0] * 4, [1, 1], [1, 1], 1) + b, 0)],
    "mlir_dot_add": lambda c, a, b: [np.matmul(*f64(a, b)) + c],
    "mlir_convolution_1x1": lambda b, x, w: [np.maximum(conv(*f64(x, w), [0] * 4, [1, 1], [1, 1], 1) + b, 0)],
    "mlir_attention": lambda q, k, v: [np.matmul(softmax(np.matmul(*f64(q, k)) * 0.125, 3), v)],
    "mlir_attention_f16": lambda q, k, v: [np.matmul(softmax(np.matmul(*f64(q, k)) * 0.125, 3), v)],
    "mlir_broadcast_add": lambda x, b, c, d: [(x + b[None, :]) * c[:, None] - d],
    "mlir_transpose_dot": lambda a, x, w: [
        np.matmul(np.matmul((a + x[0].T).T.astype(np.float64), w).T, (a + x[0].T).T)],
    "mlir_quant_convolution": lambda x, w: [conv(x, w, [1] * 4, [2, 2], [1, 1], 1)],
    "mlir_conv_forms": lambda x, wg, wd, x1, w1, x3, w3: [
        conv(*f64(x, wg), [0, 0, 1, 0], [1, 1], [1, 1], 2),
        conv(*f64(x, wd), [1] * 4, [1, 1], [2, 2], 4)[:, :, 0:4, 0:4],
        conv(*f64(x1, w1), [1, 0], [2], [1], 1),
        conv(*f64(x3, w3), [0] * 6, [2, 1, 1], [1, 1, 1], 1)],
    "mlir_quant_dot": lambda a, b: quant(a, b),
    "mlir_misc": lambda a, b, c: misc(a, b, c),
    "mlir_mask": lambda x, a, b, c: [np.where(b[None, :] > a[:, None], np.float32(-1e4), x),
                                     (c[:, None] < c[None, :]) * (c[:, None] - c[None, :].astype(np.float64))],
    "mlir_unsigned": lambda a, b, s: unsigned(a, b, s),
    "mlir_conv_grouped": lambda x, w, x3, w3: [conv(*f64(x, w), [1, 1], [2], [1], 2),
                                               conv(*f64(x3, w3), [0, 0, 1, 0, 0, 1], [1, 2, 1], [1, 1, 1], 2)],
    "mlir_bcast_result": lambda a, b: [np.broadcast_to(np.maximum(a, 0), (4, 3)), np.broadcast_to(b, (2, 4, 3))],
    "main": lambda x, w, b: [np.maximum(conv(*f64(x, w), [0] * 4, [1, 1], [1, 1], 1) + b, 0)],
    "mlir_bwd_data_conv": lambda x, w, x1, w1: [bwd_conv(*f64(x, w), [1, 1, 1, 1], [2, 3]),
                                                bwd_conv(*f64(x1, w1), [1, 0], [2])],
    "mlir_unpack_int4": lambda w, s, x, p: [np.matmul(x.astype(np.float64), (unpack(w, False) - 8) * s.astype(np.float64)),
                                            unpack(p, True), p.view(np.uint8)],
    "wrapper": lambda a, b: [softmax(np.matmul(*f64(a, b)), 1)],
    "mlir_attention_op": lambda q, k, v, s, b: [
        np.matmul(softmax(np.matmul(*f64(q, k)) * s + b, 3), v) + np.matmul(softmax(np.matmul(*f64(q, k)), 3), v)],
    "mlir_mxfp4_rand": lambda a, b, sa, sb: [
        np.matmul(a * np.repeat(sa[..., 0], 32, axis=2), b * np.repeat(sb[:, :, 0, :], 32, axis=1))],
    "mlir_mxfp4_rand_bt": lambda a, b, sa, sb: [
        np.matmul(a * np.repeat(sa[..., 0], 32, axis=2), (b * np.repeat(sb[..., 0], 32, axis=2)).transpose(0, 2, 1))],
    "mlir_mxfp4_elem": lambda a, b, sa, sb: [np.matmul(a * sa, b * sb)],
    "mlir_mxfp4_dequant": lambda w, s, x: [np.matmul(x.astype(np.float64), (w * np.repeat(s[:, :, 0], 32, axis=1)).T),
                                           w],
    "mlir_mxfp4_dot": lambda a, b, sa, sb, c, a2, b2, sa2, sb2: [
        np.matmul(a * np.repeat(sa[:, :, 0], 32, axis=1), b * np.repeat(sb[:, 0, :], 32, axis=0)) + c,
        np.matmul(a2 * np.repeat(sa2[..., 0], 32, axis=2),
                  (b2 * np.repeat(sb2[..., 0], 32, axis=2)).transpose(0, 2, 1))],
    "mlir_dot_softmax_wrapper": lambda q, k: [softmax(np.matmul(*f64(q, k)), 3)],
}


def misc(a, b, c):
    q = np.clip(a.astype(np.float32) / np.sqrt(np.abs(b)), np.float32(-1.5), np.float32(2.0))
    w = np.where(c != 0, q, a).astype(np.float64)
    return [w.mean(axis=(1, 2), keepdims=True), w.reshape(3, 20)]


def unsigned(a, b, s):
    """ui8 semantics: values 0..255 (a, b are the uint8 views)."""
    a, b = a.astype(np.int64), b.astype(np.int64)
    deq = (a - 200).astype(np.float32) * s[:, None] + b.astype(np.float32)
    return [deq, a // b, np.where(a == 220, 50, (a > b).astype(np.int64)), np.clip(a, 50, 220)]


def unpack(b, signed):
    """MIGraphX unpack_int4 along axis 1: low nibble first; signed nibbles are -8..7."""
    u = b.view(np.uint8).astype(np.int64)
    out = np.empty((u.shape[0], 2 * u.shape[1]), dtype=np.int64)
    out[:, 0::2], out[:, 1::2] = u & 15, u >> 4
    return np.where(out >= 8, out - 16, out) if signed else out


def quant(a, b):
    """quant_dot, dequantizelinear (scale 0.25, zero point 3), quantizelinear (0.375, -2) in f32."""
    d = (np.matmul(a.astype(np.int64), b.astype(np.int64)) - 3).astype(np.float32) * np.float32(0.25)
    q = np.rint(d * (np.float32(1) / np.float32(0.375))).astype(np.int64) - 2
    return [d, np.clip(q, -128, 127)]


def main(argv):
    graph, converted, outdir = argv[1:4]
    seed = int(next((a.split("=")[1] for a in argv if a.startswith("--seed=")), 1))
    kbound = int(next((a.split("=")[1] for a in argv if a.startswith("--sum-bound=")), 0))
    rng = np.random.default_rng(seed)
    name = entry(open(graph).read())[0]
    margs, mres = signature(graph)
    targs, tres = signature(converted)
    opts, logical = [], []
    for i, (mt, tt) in enumerate(zip(margs, targs)):
        dims, et, strides = shaped(mt)
        dt = DT.get(et, np.int8)
        shape = tensor_dims(tt)
        if et in MX:  # fp4: any byte; e8m0: scales 2^-9 .. 2^8
            mem = rng.integers(0, 256, size=shape) if et == "f4E2M1FN" else rng.integers(118, 136, size=shape)
            mem = mem.astype(np.uint8).view(np.int8)
            np.save(f"{outdir}/in{i}.npy", mem)
            opts.append(f"--input=@{outdir}/in{i}.npy")
            logical.append(view(mx_decode(mem, et), dims, strides))
            continue
        if dt == np.int8:
            mem = rng.integers(-128, 128, size=shape).astype(dt)
        elif dt == np.uint8:
            mem = rng.integers(1 if name == "mlir_unsigned" and i == 1 else 0, 256, size=shape).astype(dt)
            if name == "mlir_unsigned" and i == 0:
                mem.reshape(-1)[::5] = 220  # clip's bound and equal's operand
        elif np.issubdtype(dt, np.integer):
            mem = rng.integers(-8, 8, size=shape).astype(dt)
        else:
            mem = rng.uniform(-2, 2, size=shape).astype(dt)
        if name == "mlir_misc" and i == 2:
            mem = rng.integers(0, 2, size=shape).astype(dt)
        np.save(f"{outdir}/in{i}.npy", signless(mem))
        opts.append(f"--input=@{outdir}/in{i}.npy")
        logical.append(view(mem, dims, strides))
    outs = CASES[name](*logical)
    for j, (mt, tt, y) in enumerate(zip(mres, tres, outs)):
        dims, et, strides = shaped(mt)
        mem = np.zeros(tensor_dims(tt), dtype=DT[et])
        out = view(mem, dims, strides)
        out[...] = np.asarray(y).astype(DT[et])
        np.save(f"{outdir}/ref{j}.npy", signless(mem))
        opts.append(f"--expected=@{outdir}/ref{j}.npy")
    if kbound:  # a K-term sum of products: the exact value and f32 summation's error bound
        absouts = CASES[name](*[np.abs(x) for x in logical])
        for j, (y, ya) in enumerate(zip(outs, absouts)):
            np.save(f"{outdir}/exact{j}.npy", np.asarray(y, dtype=np.float64))
            np.save(f"{outdir}/bound{j}.npy", kbound * 2.0 ** -24 * np.asarray(ya, dtype=np.float64))
    print(" ".join(opts))


if __name__ == "__main__":
    main(sys.argv)
