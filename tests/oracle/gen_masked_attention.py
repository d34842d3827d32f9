#!/usr/bin/python3
"""One attention with a constant mask, as exporters write a causal one.

  gen_masked_attention.py HEADS S L D [--form=add|neginf|select|none] [--dtype=f32|f16|bf16]
                          [--near] [--reshape] [--ramp=STEP,EVERY]
                          [--kscale=G] > graph.mlir
  --dtype=f8E4M3FN|f8E5M2|f8E4M3FNUZ|f8E5M2FNUZ: the fp8 form (docs/kernels-attention.md): Q, K, V
  in that type, the first matmul's f16 scores cast to f32, the softmax and mask in f32, P cast to
  the fp8 type, the second matmul's result f16

Q [HEADS, S, D], K [HEADS, L, D] (transposed by tosa.transpose), V [HEADS, L, D]; scores * 1/sqrt(D),
then the mask: query i sees keys j <= i + L - S (the last S of L tokens, a KV cache longer than
the queries). --form=add adds -10000 above that diagonal, neginf adds -inf, select is
torch's masked_fill (select(keep, s, -inf) with an i1 constant). --near unmasks one key
(query 0, key L - 1): no longer causal. --reshape writes the mask as a [S, L] constant reshaped to
[1, S, L]. --form=none: no mask. The softmax is spelled out (reduce_max, sub, exp, reduce_sum,
reciprocal, mul). Scores that grow along the keys (the flash kernel's rescaling path,
docs/kernels-attention.md): --ramp adds STEP * floor(j / EVERY) to key j's scaled scores (an add
of a [1, 1, L] constant before the mask); --kscale multiplies key j's row of K by 1 + G * j
(a mul of a [1, L, 1] constant, not for the fp8 types).
"""
import argparse

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("h", type=int)
ap.add_argument("s", type=int)
ap.add_argument("l", type=int)
ap.add_argument("d", type=int)
ap.add_argument("--form", default="add", choices=["add", "neginf", "select", "none"])
F8 = ["f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ"]
ap.add_argument("--dtype", default="f32", choices=["f32", "f16", "bf16"] + F8)
ap.add_argument("--near", action="store_true")
ap.add_argument("--reshape", action="store_true")
ap.add_argument("--ramp", default=None)
ap.add_argument("--kscale", type=float, default=0)
o = ap.parse_args()
h, s, L, d, t8 = o.h, o.s, o.l, o.d, o.dtype
f8 = t8 in F8
t = "f32" if f8 else t8  # the scores' and the softmax's type


def T(*dims, e=None):
    return "tensor<%sx%s>" % ("x".join(str(x) for x in dims), e or t)


def hexdata(a):
    a = np.asarray(a, np.float32)
    if t == "f16":
        b = a.astype(np.float16).tobytes()
    elif t == "bf16":
        b = (a.view(np.uint32) >> 16).astype(np.uint16).tobytes()
    else:
        b = a.tobytes()
    return 'dense<"0x%s">' % b.hex().upper()


masked = np.triu(np.ones((s, L), bool), 1 + L - s)
if o.near:
    masked[0, L - 1] = False
q, kt, k, sc, row = T(h, s, d, e=t8), T(h, d, L, e=t8), T(h, L, d, e=t8), T(h, s, L), T(h, s, 1)
res, zt = T(h, s, d, e="f16" if f8 else t8), T(1, e=t8)
mshape = (s, L) if o.reshape else (1, s, L)
lines = []
src = "%ss"
if o.ramp:
    step, every = (float(x) for x in o.ramp.split(","))
    ramp = step * np.floor(np.arange(L) / every)
    lines.append(f'  %ramp = "tosa.const"() <{{values = {hexdata(ramp.reshape(1, 1, L))} : {T(1, 1, L)}}}> : () -> {T(1, 1, L)}')
    lines.append(f"  %sr = tosa.add %ss, %ramp : ({sc}, {T(1, 1, L)}) -> {sc}")
    src = "%sr"
if o.form == "none":
    lines.append(f"  %sm = tosa.identity {src} : ({sc}) -> {sc}")
elif o.form == "select":
    keep = "[%s]" % ", ".join("[%s]" % ", ".join("false" if x else "true" for x in r) for r in masked)
    mt = T(*mshape, e="i1")
    lines.append(f'  %mask = "tosa.const"() <{{values = dense<{keep if o.reshape else "[" + keep + "]"}> : {mt}}}> : () -> {mt}')
else:
    fill = -np.inf if o.form == "neginf" else -10000.0
    mt = T(*mshape)
    lines.append(f'  %mask = "tosa.const"() <{{values = {hexdata(np.where(masked, fill, 0.0))} : {mt}}}> : () -> {mt}')
m3 = T(1, s, L, e="i1" if o.form == "select" else None)
if o.form == "none":
    pass
elif o.reshape:
    lines.append(f"  %mshape = tosa.const_shape {{values = dense<[1, {s}, {L}]> : tensor<3xindex>}} : () -> !tosa.shape<3>")
    lines.append(f"  %m3 = tosa.reshape %mask, %mshape : ({mt}, !tosa.shape<3>) -> {m3}")
else:
    lines.append(f"  %m3 = tosa.identity %mask : ({mt}) -> {m3}")
if o.form == "none":
    pass
elif o.form == "select":
    lines.append(f'  %ninf = "tosa.const"() <{{values = {hexdata([[[-np.inf]]])} : {T(1, 1, 1)}}}> : () -> {T(1, 1, 1)}')
    lines.append(f"  %sm = tosa.select %m3, {src}, %ninf : ({m3}, {sc}, {T(1, 1, 1)}) -> {sc}")
else:
    lines.append(f"  %sm = tosa.add {src}, %m3 : ({sc}, {m3}) -> {sc}")
# fp8: P rounded to 2^-m relative (m = 4 for E4M3, 3 for E5M2) in the graph (normalised) and in the
# kernel (before the normalisation), each |o - o_exact| <= 2^-m max|v| = 2^-m (v in [-1, 1])
err = {"f32": 1e-4, "f16": 4e-2, "bf16": 2.5e-1}[t8] if not f8 else 2 * 2.0 ** -(4 if "E4M3" in t8 else 3)
if f8:
    mm1 = (f"  %s16 = tosa.matmul %q, %kt, %zp, %zp : ({q}, {kt}, {zt}, {zt}) -> {T(h, s, L, e='f16')}\n"
           f"  %s = tosa.cast %s16 : ({T(h, s, L, e='f16')}) -> {sc}")
    mm2 = (f"  %p8 = tosa.cast %p : ({sc}) -> {T(h, s, L, e=t8)}\n"
           f"  %o = tosa.matmul %p8, %v, %zp, %zp : ({T(h, s, L, e=t8)}, {k}, {zt}, {zt}) -> {res}")
else:
    mm1 = f"  %s = tosa.matmul %q, %kt, %zp, %zp : ({q}, {kt}, {zt}, {zt}) -> {sc}"
    mm2 = f"  %o = tosa.matmul %p, %v, %zp, %zp : ({sc}, {k}, {zt}, {zt}) -> {res}"
kmul, ksrc = "", "%k"
if o.kscale:
    kr = T(1, L, 1)
    kmul = (f'  %kr = "tosa.const"() <{{values = {hexdata((1 + o.kscale * np.arange(L)).reshape(1, L, 1))} : {kr}}}> : () -> {kr}\n'
            f"  %ks = tosa.mul %k, %kr, %sh : ({k}, {kr}, tensor<1xi8>) -> {k}\n")
    ksrc = "%ks"
print(f"""// oracle: arg 0 -1 1
// oracle: arg 1 -1 1
// oracle: arg 2 -1 1
// oracle: result 0 err {err}
func.func @main(%q: {q}, %k: {k}, %v: {k}) -> {res} {{
  %sh = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{{values = dense<0.0> : {zt}}}> : () -> {zt}
  %scale = "tosa.const"() <{{values = {hexdata([[[1.0 / d ** 0.5]]])} : {T(1, 1, 1)}}}> : () -> {T(1, 1, 1)}
{kmul}  %kt = tosa.transpose {ksrc} {{perms = array<i32: 0, 2, 1>}} : ({k}) -> {kt}
{mm1}
  %ss = tosa.mul %s, %scale, %sh : ({sc}, {T(1, 1, 1)}, tensor<1xi8>) -> {sc}
""" + "\n".join(lines) + f"""
  %m = tosa.reduce_max %sm {{axis = 2 : i32}} : ({sc}) -> {row}
  %dd = tosa.sub %sm, %m : ({sc}, {row}) -> {sc}
  %e = tosa.exp %dd : ({sc}) -> {sc}
  %sum = tosa.reduce_sum %e {{axis = 2 : i32}} : ({sc}) -> {row}
  %r = tosa.reciprocal %sum : ({row}) -> {row}
  %p = tosa.mul %e, %r, %sh : ({sc}, {row}, tensor<1xi8>) -> {sc}
{mm2}
  return %o : {res}
}}""")
