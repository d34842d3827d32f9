#!/usr/bin/python3
"""gen_f8cast.py ET DIR [N]: casts to and from the 8-bit float ET, with data that reaches every
corner of the conversion (tests/bats/f8_cast.bats).

DIR/cast.mlir: @main(x f32, h f16, b bf16, c ET) -> (x, h, b cast to ET; c cast to f32, f16, bf16)
DIR/chain.mlir: @main(x f32, y f32) -> (f32, ET): ((x * 3) cast to ET, cast back to f32) + y,
  and x * 3 cast to ET: one elementwise kernel.
DIR/in0..3.npy: the cast graph's inputs (bf16 as bits, ET as codes); DIR/chain0..1.npy the
chain's. DIR/ties.npy: the indices of x that lie exactly halfway between two ET values (a
rounding that is not to nearest even moves some of them).

x holds: every ET value and its negation, every midpoint between neighbouring ET values (ties,
both signs) and each nudged by one f32 ulp either way, ET subnormals and values below half the
smallest one, f32 subnormals, the halfway point past the largest finite value and values beyond
it (up to the f32 maximum), +-0, +-Inf and NaN of both signs, and random values across the
binades; h and b are x rounded to f16 and bf16 (ties stay ties where representable); c is every
code 0..255, then random codes."""
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import oracle  # noqa: E402

et, d = sys.argv[1], sys.argv[2]
n = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
rng = np.random.default_rng(sum(map(ord, et)))

codes = oracle.f8_decode(np.arange(256), et)
vals = np.unique(codes[np.isfinite(codes) & (codes >= 0)])  # 0 .. largest finite, ascending
mids = (vals[1:] + vals[:-1]) / 2  # exact in f32 (at most 5 significant bits)
top = vals[-1]
step = vals[-1] - vals[-2]
beyond = [top + step / 2, top + step, 2 * top, 1e10, 3.4028234663852886e38]
tiny = vals[1]  # smallest subnormal
small = [tiny / 2, tiny / 4, tiny * 0.75, tiny / 2 * (1 + 2.0 ** -20), 1e-40, 1e-45, 2.0 ** -126]
special = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan]
mid32 = mids.astype(np.float32)
up = np.nextafter(mid32, np.float32(np.inf))
down = np.nextafter(mid32, np.float32(0))
x = np.concatenate([vals, -vals, mid32, -mid32, up, -up, down, -down, beyond,
                    -np.array(beyond), small, -np.array(small), special]).astype(np.float32)
ties = np.concatenate([np.arange(mid32.size) + 2 * vals.size,
                       np.arange(mid32.size) + 2 * vals.size + mid32.size])
if x.size > n:
    raise SystemExit("gen_f8cast: n = %d < %d corner values" % (n, x.size))
rand = (rng.standard_normal(n - x.size) * np.exp2(rng.integers(-24, 20, n - x.size))).astype(np.float32)
x = np.concatenate([x, rand])
with np.errstate(over="ignore"):
    h = x.astype(np.float16)
b = oracle.coerce_input(x, oracle.TensorType("bf16", x.shape), 2)  # round to nearest even
c = np.concatenate([np.arange(256), rng.integers(0, 256, n - 256)]).astype(np.uint8)
for k, a in enumerate((x, h, b, c)):
    np.save("%s/in%d.npy" % (d, k), a)
np.save(d + "/ties.npy", ties)


def T(e):
    return "tensor<%dx%s>" % (n, e)


with open(d + "/cast.mlir", "w") as f:
    f.write(f"""func.func @main(%x: {T('f32')}, %h: {T('f16')}, %b: {T('bf16')}, %c: {T(et)}) -> ({T(et)}, {T(et)}, {T(et)}, {T('f32')}, {T('f16')}, {T('bf16')}) {{
  %0 = tosa.cast %x : ({T('f32')}) -> {T(et)}
  %1 = tosa.cast %h : ({T('f16')}) -> {T(et)}
  %2 = tosa.cast %b : ({T('bf16')}) -> {T(et)}
  %3 = tosa.cast %c : ({T(et)}) -> {T('f32')}
  %4 = tosa.cast %c : ({T(et)}) -> {T('f16')}
  %5 = tosa.cast %c : ({T(et)}) -> {T('bf16')}
  return %0, %1, %2, %3, %4, %5 : {T(et)}, {T(et)}, {T(et)}, {T('f32')}, {T('f16')}, {T('bf16')}
}}
""")

# the chain: x / 3 keeps the products of the corner values in range
np.save(d + "/chain0.npy", x / np.float32(3))
np.save(d + "/chain1.npy", rng.uniform(-4, 4, n).astype(np.float32))
with open(d + "/chain.mlir", "w") as f:
    f.write(f"""func.func @main(%x: {T('f32')}, %y: {T('f32')}) -> ({T('f32')}, {T(et)}) {{
  %three = "tosa.const"() <{{values = dense<3.0> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %m = tosa.mul %x, %three, %shift : ({T('f32')}, tensor<1xf32>, tensor<1xi8>) -> {T('f32')}
  %q = tosa.cast %m : ({T('f32')}) -> {T(et)}
  %w = tosa.cast %q : ({T(et)}) -> {T('f32')}
  %r = tosa.add %w, %y : ({T('f32')}, {T('f32')}) -> {T('f32')}
  return %r, %q : {T('f32')}, {T(et)}
}}
""")
