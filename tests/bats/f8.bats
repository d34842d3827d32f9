#!/usr/bin/env bats
# f8.bats: 8-bit float convolutions (conv2d, conv3d, transpose_conv2d) through the implicit GEMM,
# and matmuls (f32 result, random f8 inputs drawn by check.py), on the fp8/bf8 MFMAs: FNUZ types
# on gfx942, OCP types on gfx950, clear errors elsewhere.
# The conv data is exact: inputs and weights are multiples of 1/2 in [-2, 2], the bias multiples of
# 1/4, so every partial sum is a small multiple of 1/4 and f16 accumulation (the oracle, acc_type
# f16) and f32 accumulation (tosac) agree bit for bit.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export B="$ROOT/${TOSAC_BUILD:-build}"
  export GEN="$BATS_FILE_TMPDIR/f8conv.py"
  cat > "$GEN" <<'PY'
"""f8conv.py KIND ET DIR ORACLE_DIR [IC]: DIR/g.mlir (one f8 convolution, f16 bias and result, zero points 0),
DIR/in0..2.npy (input and weight as f8 bits, f16 bias) and, for conv2d, DIR/ref.npy (numpy)."""
import sys
import numpy as np
sys.path.insert(0, sys.argv[4])
import oracle  # noqa: E402

kind, et, d = sys.argv[1], sys.argv[2], sys.argv[3]
ic = int(sys.argv[5]) if len(sys.argv) > 5 else 3  # conv2d input channels (K = 9 * ic)


def T(s, e):
    return "tensor<" + "x".join(map(str, s)) + "x" + e + ">"


def bits(v):  # exact f8 codes of the values v (0.0 -> 0x00, never FNUZ's NaN 0x80)
    codes = oracle.f8_decode(np.arange(256), et)
    b = np.abs(v[..., None] - np.where(np.isfinite(codes), codes, np.inf)).argmin(axis=-1)
    assert np.array_equal(oracle.f8_decode(b, et), v)
    return b.astype(np.uint8)


if kind == "conv2d":  # batch 2, stride 1x2, dilation 2x1, padding 1,0,2,2 -> 2x4x6x5
    xs, ws, rs = [2, 7, 9, ic], [5, 3, 3, ic], [2, 4, 6, 5]
    attrs = "dilation = array<i64: 2, 1>, pad = array<i64: 1, 0, 2, 2>, stride = array<i64: 1, 2>"
elif kind == "conv3d":
    xs, ws, rs = [2, 4, 5, 6, 3], [4, 2, 3, 2, 3], [2, 4, 2, 6, 4]
    attrs = "dilation = array<i64: 1, 1, 2>, pad = array<i64: 1, 0, 0, 0, 1, 1>, stride = array<i64: 1, 2, 1>"
else:  # transpose_conv2d, stride 2 (four phases), out_pad bottom 1
    xs, ws, rs = [2, 4, 5, 3], [5, 3, 2, 3], [2, 10, 10, 5]
    attrs = "out_pad = array<i64: 0, 1, 0, 0>, stride = array<i64: 2, 2>"
oc = ws[0]
rng = np.random.default_rng(7)
x, w = rng.integers(-4, 5, xs) / 2.0, rng.integers(-4, 5, ws) / 2.0
bias = rng.integers(-16, 17, oc) / 4.0
for k, a in enumerate((bits(x), bits(w), bias.astype(np.float16))):
    np.save("%s/in%d.npy" % (d, k), a)
if kind == "conv2d":
    xp = np.pad(x, ((0, 0), (1, 0), (2, 2), (0, 0)))
    ref = np.zeros(rs) + bias
    for kh in range(3):
        for kw in range(3):
            win = xp[:, 2 * kh:2 * kh + 4, kw:kw + 11:2, :]  # stride (1, 2), dilation (2, 1)
            ref += np.einsum("nhwc,oc->nhwo", win, w[:, kh, kw, :])
    assert np.array_equal(ref.astype(np.float16), ref)  # exact in f16
    np.save(d + "/ref.npy", ref.astype(np.float16))
z = T([1], et)
zp = "".join(f'  %{n} = "tosa.const"() <{{values = dense<0.0> : {z}}}> : () -> {z}\n' for n in ("iz", "wz"))
sig = f"({T(xs, et)}, {T(ws, et)}, {T([oc], 'f16')}, {z}, {z}) -> {T(rs, 'f16')}"
with open(d + "/g.mlir", "w") as f:
    f.write(f"func.func @main(%arg0: {T(xs, et)}, %arg1: {T(ws, et)}, %arg2: {T([oc], 'f16')}) -> "
            f"{T(rs, 'f16')} {{\n{zp}  %r = tosa.{kind} %arg0, %arg1, %arg2, %iz, %wz "
            f"{{acc_type = f16, {attrs}}} : {sig}\n  return %r : {T(rs, 'f16')}\n}}\n")
PY
}

# gen KIND ET [IC]: the graph and data in $BATS_TEST_TMPDIR/KIND-ET; prints the directory
gen() {
  local d="$BATS_TEST_TMPDIR/$1-$2"
  mkdir -p "$d"
  /usr/bin/python3 "$GEN" "$1" "$2" "$d" "$ROOT/tests/oracle" ${3:-} >&2
  echo "$d"
}

ins() { echo --input=@"$1"/in0.npy --input=@"$1"/in1.npy --input=@"$1"/in2.npy; }

# conv_oracle KIND ET TARGET: tosac + tosac-run against the MLIR oracle
conv_oracle() {
  local d; d=$(gen "$1" "$2")
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$d/g.mlir" --targets="$3" $(ins "$d")
  assert_success
  assert_output --partial "ok $d/g.mlir [$3]: 1 results match"
}

# conv2d_exact ET TARGET: the oracle, then tosac-run bit for bit against the numpy reference
conv2d_exact() {
  conv_oracle conv2d "$1" "$2"
  local d="$BATS_TEST_TMPDIR/conv2d-$1"
  run "$B/bin/tosac" "$d/g.mlir" --embed-ir --offload-arch="$2" -o "$d/x.hipfb"
  assert_success
  run "$B/bin/tosac-run" "$d/x.hipfb" --target="$2" $(ins "$d") --output=@"$d/out.npy"
  assert_success
  run /usr/bin/python3 -c "
import numpy as np; g, r = np.load('$d/out.npy'), np.load('$d/ref.npy')
print(g.dtype, g.shape, np.array_equal(g.view(np.uint16), r.view(np.uint16)), float(abs(r).max()) > 4)"
  assert_output "float16 (2, 4, 6, 5) True True"
}

@test "f8 conv2d on gfx942 (FNUZ): stride, dilation, asymmetric padding, batch 2; oracle and exact" {
  conv2d_exact f8E4M3FNUZ gfx942
  conv2d_exact f8E5M2FNUZ gfx942
}

@test "f8 conv2d on gfx950 (OCP): stride, dilation, asymmetric padding, batch 2; oracle and exact" {
  conv2d_exact f8E4M3FN gfx950
  conv2d_exact f8E5M2 gfx950
}

@test "f8 conv2d with K = 360: split-K and the 32x32 MFMA match the oracle" {
  local d; d=$(gen conv2d f8E4M3FNUZ 40)
  TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=combine run "$B/bin/tosac" "$d/g.mlir" --offload-arch=gfx942 -o "$d/s.hipfb" --manifest="$d/s.json"
  assert_success
  run /usr/bin/python3 -c "
import json; ks = json.load(open('$d/s.json'))['targets'][0]['kernels']
print(' '.join('%s %s %s' % (k['name'], k.get('matrix_instruction'), k['tuning']['split_k']) for k in ks))"
  assert_output "tosac_k0_conv2d_splitk v_mfma_f32_16x16x32_fp8_fp8 3 tosac_k1_conv2d_combine None 3"
  TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=combine run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$d/g.mlir" --targets=gfx942 $(ins "$d")
  assert_success
  assert_output --partial "1 results match"
  d=$(gen conv2d f8E5M2 40)
  printf '#!/bin/sh\nexec "%s" "$@" --perf-config=bm=32,bn=32,bk=32,wm=32,wn=32,mma=32\n' "$B/bin/tosac" > "$d/tosac-pc"
  chmod +x "$d/tosac-pc"
  run "$d/tosac-pc" "$d/g.mlir" --offload-arch=gfx950 -o "$d/p.hipfb" --manifest="$d/p.json"
  assert_success
  run /usr/bin/python3 -c "import json; print(json.load(open('$d/p.json'))['targets'][0]['kernels'][0]['matrix_instruction'])"
  assert_output "v_mfma_f32_32x32x16_bf8_bf8"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$d/g.mlir" --targets=gfx950 --tosac="$d/tosac-pc" $(ins "$d")
  assert_success
  assert_output --partial "1 results match"
}

@test "f8 conv2d: the comparison can fail (a perturbed reference is reported)" {
  local d; d=$(gen conv2d f8E4M3FN)
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$d/g.mlir" --targets=gfx950 --corrupt $(ins "$d")
  assert_failure
  assert_output --partial "MISMATCH"
}

@test "f8 conv2d: the manifest and the code object name the fp8/bf8 MFMA of the conv kernel" {
  local t et
  for t in gfx942:f8E4M3FNUZ:fp8_fp8 gfx942:f8E5M2FNUZ:bf8_bf8 gfx950:f8E4M3FN:fp8_fp8 gfx950:f8E5M2:bf8_bf8; do
    IFS=: read -r arch et mn <<< "$t"
    local d; d=$(gen conv2d "$et")
    run "$B/bin/tosac" "$d/g.mlir" --offload-arch="$arch" -o "$d/m.hipfb" --manifest="$d/m.json"
    assert_success
    run /usr/bin/python3 -c "
import json; ks = json.load(open('$d/m.json'))['targets'][0]['kernels']
print(' '.join('%s %s' % (k['name'], k.get('matrix_instruction')) for k in ks))"
    assert_output "tosac_k0_conv2d v_mfma_f32_16x16x32_$mn"
    run "$B/bin/tosac" "$d/g.mlir" --offload-arch="$arch" --emit=asm -o "$d/k.s"
    assert_success
    run grep -c "v_mfma_f32_16x16x32_$mn" "$d/k.s"
    assert_success
  done
}

@test "f8 conv2d without an fp8 MFMA for the type: clear error, no output files" {
  local d; d=$(gen conv2d f8E4M3FNUZ)
  run "$B/bin/tosac" "$d/g.mlir" --offload-arch=gfx90a -o "$d/e.hipfb"
  assert_failure
  assert_output --partial "g.mlir:4:8: error: f8E4M3FNUZ inputs need an fp8 matrix instruction and gfx90a has none (f8E4M3FNUZ and f8E5M2FNUZ: gfx942; f8E4M3FN and f8E5M2: gfx950, gfx1200)"
  [ ! -e "$d/e.hipfb" ]
  [ ! -e "$d/e.json" ]
  d=$(gen conv2d f8E5M2)
  run "$B/bin/tosac" "$d/g.mlir" --offload-arch=gfx942 -o "$d/e.hipfb"
  assert_failure
  assert_output --partial "error: f8E5M2 inputs need an fp8 matrix instruction and gfx942 has none"
  [ ! -e "$d/e.hipfb" ]
}

@test "f8 conv2d: non-zero zero points and acc_type f32 are refused (TOSA 1.0)" {
  local d; d=$(gen conv2d f8E4M3FN)
  awk '/%wz = /{sub(/dense<0.0>/, "dense<1.0>")} 1' "$d/g.mlir" > "$d/zp.mlir"
  run "$B/bin/tosac" "$d/zp.mlir" --offload-arch=gfx950 -o "$d/zp.hipfb"
  assert_failure
  assert_output --partial "error: 'tosa.conv2d' weight_zp must be 0 for f8E4M3FN tensors"
  sed 's/acc_type = f16/acc_type = f32/' "$d/g.mlir" > "$d/acc.mlir"
  run "$B/bin/tosac" "$d/acc.mlir" --offload-arch=gfx950 -o "$d/acc.hipfb"
  assert_failure
  assert_output --partial "error: 'tosa.conv2d' acc_type f32 is not allowed for f8E4M3FN inputs"
}

@test "f8 conv3d on gfx942 (FNUZ) and gfx950 (OCP) against the oracle" {
  conv_oracle conv3d f8E5M2FNUZ gfx942
  conv_oracle conv3d f8E4M3FN gfx950
}

# The oracle cannot lower tosa.transpose_conv2d: mlir-opt's decomposition runs on the same data.
@test "f8 transpose_conv2d on gfx942 (FNUZ) and gfx950 (OCP) against the oracle's decomposition" {
  local p et arch
  for p in f8E4M3FNUZ:gfx942 f8E5M2:gfx950; do
    IFS=: read -r et arch <<< "$p"
    local d; d=$(gen transpose_conv2d "$et")
    mlir-opt-22 --tosa-optional-decompositions "$d/g.mlir" > "$d/dec.mlir"
    run "$B/bin/tosac" "$d/g.mlir" --embed-ir --offload-arch="$arch" -o "$d/x.hipfb"
    assert_success
    run "$B/bin/tosac-run" "$d/x.hipfb" --target="$arch" $(ins "$d") --output=@"$d/out.npy"
    assert_success
    run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$d/dec.mlir" $(ins "$d") --expected=@"$d/out.npy"
    assert_success
    assert_output --partial "1 results match"
  done
}

# ---- f8 tosa.matmul (f32 accumulation and result); check.py draws the f8 inputs itself ----

# mm_shape SEED: a seeded random BxMxKxN, batch 1-2, M/N/K no multiple of 16
mm_shape() {
  /usr/bin/python3 -c "
import numpy as np
r = np.random.default_rng($1)
d = [int(r.integers(1, 3))] + [int(v) + (int(v) % 16 == 0) for v in r.integers(17, 90, 3)]
print('x'.join(map(str, d)))"
}

# mm_graph ET BxMxKxN [fused]: DIR/g.mlir with one f8 matmul (zero points 0) -> f32; with
# "fused", + a 1x1xN f32 bias argument and a ReLU clamp. Prints DIR.
mm_graph() {
  local d="$BATS_TEST_TMPDIR/mm-$1-$2${3:+-$3}"
  mkdir -p "$d"
  /usr/bin/python3 - "$1" "$2" "${3:-}" "$d/g.mlir" <<'PY'
import sys
et, shape, fused, path = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
b, m, k, n = map(int, shape.split("x"))
T = lambda s, e: "tensor<" + "x".join(map(str, s)) + "x" + e + ">"
A, W, Z, R, BI = T([b, m, k], et), T([b, k, n], et), T([1], et), T([b, m, n], "f32"), T([1, 1, n], "f32")
args = f"%a: {A}, %b: {W}" + (f", %bias: {BI}" if fused else "")
body = "".join(f'  %{z} = "tosa.const"() <{{values = dense<0.0> : {Z}}}> : () -> {Z}\n' for z in ("az", "bz"))
body += f"  %r = tosa.matmul %a, %b, %az, %bz : ({A}, {W}, {Z}, {Z}) -> {R}\n"
res = "%r"
if fused:
    body += f"  %s = tosa.add %r, %bias : ({R}, {BI}) -> {R}\n"
    body += (f"  %c = tosa.clamp %s {{max_val = 3.40282347e+38 : f32, min_val = 0.0 : f32}} : ({R}) -> {R}\n")
    res = "%c"
with open(path, "w") as f:
    f.write(f"func.func @main({args}) -> {R} {{\n{body}  return {res} : {R}\n}}\n")
PY
  echo "$d"
}

# mm_oracle ET TARGET SHAPE...: each graph through check.py (random f8 inputs) against the oracle
mm_oracle() {
  local et=$1 arch=$2 s d; shift 2
  for s in "$@"; do
    d=$(mm_graph "$et" "$s")
    run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$d/g.mlir" --targets="$arch"
    assert_success
    assert_output --partial "ok $d/g.mlir [$arch]: 1 results match"
    assert_output --partial "PASSED"
  done
}

@test "f8 matmul on gfx942 (FNUZ), f32 result: K < one K step and seeded random shapes match the oracle" {
  mm_oracle f8E4M3FNUZ gfx942 2x70x5x65 "$(mm_shape 1)"
  mm_oracle f8E5M2FNUZ gfx942 1x33x7x50 "$(mm_shape 2)"
}

@test "f8 matmul on gfx950 (OCP), f32 result: K < one K step and seeded random shapes match the oracle" {
  mm_oracle f8E4M3FN gfx950 2x70x5x65 "$(mm_shape 3)"
  mm_oracle f8E5M2 gfx950 1x33x7x50 "$(mm_shape 4)"
}

@test "f8 matmul on gfx1200 (OCP, WMMA), f32 result: K < one K step and seeded random shapes match the oracle" {
  mm_oracle f8E4M3FN gfx1200 2x70x5x65 "$(mm_shape 5)"
  mm_oracle f8E5M2 gfx1200 1x33x7x50 "$(mm_shape 6)" 1x64x96x48
}

@test "f8 matmul and conv2d on gfx1200: v_wmma_f32_16x16x16_fp8_fp8 / _bf8_bf8 in the manifest and the disassembly, conv2d bit for bit; FNUZ types refused" {
  local t et mn d
  for t in f8E4M3FN:fp8_fp8 f8E5M2:bf8_bf8; do
    IFS=: read -r et mn <<< "$t"
    d=$(mm_graph "$et" 1x64x96x48)
    run "$B/bin/tosac" "$d/g.mlir" --offload-arch=gfx1200 -o "$d/m.hipfb" --manifest="$d/m.json"
    assert_success
    run /usr/bin/python3 -c "
import json; ks = json.load(open('$d/m.json'))['targets'][0]['kernels']
print([k.get('matrix_instruction') for k in ks])"
    assert_output "['v_wmma_f32_16x16x16_$mn']"
    clang-offload-bundler-22 -type=o -unbundle -input="$d/m.hipfb" -targets=hipv4-amdgcn-amd-amdhsa--gfx1200 \
      -output="$d/m.co"
    run bash -c "llvm-objdump-22 -d --mcpu=gfx1200 '$d/m.co' | grep -c 'v_wmma_f32_16x16x16_$mn '"
    assert_success
  done
  conv2d_exact f8E4M3FN gfx1200
  conv2d_exact f8E5M2 gfx1200
  d=$(mm_graph f8E4M3FNUZ 2x70x5x65)
  run "$B/bin/tosac" "$d/g.mlir" --offload-arch=gfx1200 -o "$d/e.hipfb"
  assert_failure
  assert_output --partial "g.mlir:4:8: error: f8E4M3FNUZ inputs need an fp8 matrix instruction and gfx1200 has none (f8E4M3FNUZ and f8E5M2FNUZ: gfx942; f8E4M3FN and f8E5M2: gfx950, gfx1200)"
  [ ! -e "$d/e.hipfb" ]
}

@test "f8 matmul: the manifest names the fp8/bf8 MFMA, the gfx942 asm contains it" {
  local t arch et mn d
  for t in gfx942:f8E4M3FNUZ:fp8_fp8 gfx942:f8E5M2FNUZ:bf8_bf8 gfx950:f8E4M3FN:fp8_fp8 gfx950:f8E5M2:bf8_bf8; do
    IFS=: read -r arch et mn <<< "$t"
    d=$(mm_graph "$et" 2x70x5x65)
    run "$B/bin/tosac" "$d/g.mlir" --offload-arch="$arch" -o "$d/m.hipfb" --manifest="$d/m.json"
    assert_success
    run /usr/bin/python3 -c "
import json, re; ks = json.load(open('$d/m.json'))['targets'][0]['kernels']
mi = [k.get('matrix_instruction') for k in ks if k['name'] == 'tosac_k0_matmul']
print(len(ks), len(mi), bool(re.fullmatch(r'v_mfma_f32_(32x32x16|16x16x32)_$mn', mi[0] or '')))"
    assert_output "1 1 True"
  done
  d=$(mm_graph f8E4M3FNUZ "$(mm_shape 1)")
  run "$B/bin/tosac" "$d/g.mlir" --offload-arch=gfx942 --emit=asm -o "$d/k.s"
  assert_success
  run grep -cE "v_mfma_f32_(32x32x16|16x16x32)_fp8_fp8" "$d/k.s"
  assert_success
}

@test "f8 matmul without an fp8 MFMA for the type (gfx90a, gfx1030): exact error, no output files" {
  local p arch et d
  for p in gfx90a:f8E4M3FN gfx1030:f8E4M3FNUZ; do
    IFS=: read -r arch et <<< "$p"
    d=$(mm_graph "$et" 2x70x5x65)
    run "$B/bin/tosac" "$d/g.mlir" --offload-arch="$arch" -o "$d/e.hipfb" --manifest="$d/e.json"
    assert_failure
    assert_output --partial "g.mlir:4:8: error: $et inputs need an fp8 matrix instruction and $arch has none (f8E4M3FNUZ and f8E5M2FNUZ: gfx942; f8E4M3FN and f8E5M2: gfx950, gfx1200)"
    [ ! -e "$d/e.hipfb" ]
    [ ! -e "$d/e.json" ]
  done
}

@test "fp8 attention as gen_attention.py writes it (f16 scores, f32 softmax, P cast to fp8): one flash kernel on the fp8 targets, the matmul's error elsewhere" {
  # docs/kernels-attention.md "The fp8 path"; attention_fp8.bats checks the results. Targets
  # without the type's fp8 MFMA keep the ops unfused and refuse the first matmul
  local p arch et want
  for p in gfx942:f8E4M3FNUZ:ok gfx950:f8E4M3FN:ok gfx950:f8E5M2:ok gfx1100:f8E4M3FN:err gfx1030:f8E4M3FNUZ:err gfx942:f8E4M3FN:err; do
    IFS=: read -r arch et want <<< "$p"
    /usr/bin/python3 "$ROOT/tests/bench/gen_attention.py" 2 37 16 "$et" > "$BATS_TEST_TMPDIR/a.mlir"
    run "$B/bin/tosac" "$BATS_TEST_TMPDIR/a.mlir" --offload-arch="$arch" -o "$BATS_TEST_TMPDIR/a.hipfb" --manifest="$BATS_TEST_TMPDIR/a.json"
    if [ "$want" = ok ]; then
      assert_success
      run /usr/bin/python3 -c "import json; print([k['name'] for k in json.load(open('$BATS_TEST_TMPDIR/a.json'))['targets'][0]['kernels']])"
      assert_output "['tosac_k0_attention']"
      rm -f "$BATS_TEST_TMPDIR/a.hipfb" "$BATS_TEST_TMPDIR/a.json"
    else
      assert_failure
      assert_output --partial "a.mlir:6:10: error: $et inputs need an fp8 matrix instruction and $arch has none"
      [ ! -e "$BATS_TEST_TMPDIR/a.hipfb" ]
    fi
  done
}

@test "fp8 attention with a head size the flash kernel does not take (24): separate kernels on the fp8 targets" {
  # the scores GEMM, the softmax row kernel, P's cast to fp8 (an elementwise kernel on the packed
  # conversion), the P.V GEMM
  local p arch et mn cvt
  for p in gfx942:f8E4M3FNUZ:fp8:fp8 gfx950:f8E4M3FN:fp8:fp8 gfx950:f8E5M2:bf8:bf8; do
    IFS=: read -r arch et mn cvt <<< "$p"
    /usr/bin/python3 "$ROOT/tests/bench/gen_attention.py" 2 37 24 "$et" > "$BATS_TEST_TMPDIR/a.mlir"
    run "$B/bin/tosac" "$BATS_TEST_TMPDIR/a.mlir" --offload-arch="$arch" -o "$BATS_TEST_TMPDIR/a.hipfb" \
      --manifest="$BATS_TEST_TMPDIR/a.json"
    assert_success
    run /usr/bin/python3 -c "
import json; t = json.load(open('$BATS_TEST_TMPDIR/a.json'))['targets'][0]
print(t['kernel_count'], ' '.join(k['name'][6:] for k in t['kernels']),
      ' '.join(k.get('matrix_instruction') or '-' for k in t['kernels']))"
    assert_output "5 k0_transpose k1_matmul_cast_mul k2_rownorm k3_cast k4_matmul - v_mfma_f32_32x32x16_${mn}_${mn} - - v_mfma_f32_16x16x32_${mn}_${mn}"
    run "$B/bin/tosac" "$BATS_TEST_TMPDIR/a.mlir" --offload-arch="$arch" --emit=asm -o "$BATS_TEST_TMPDIR/a.s"
    assert_success
    run grep -c "v_cvt_pk_${cvt}_f32" "$BATS_TEST_TMPDIR/a.s"
    assert_success
  done
}

@test "f8 matmul + bias add + ReLU on gfx942: one fused kernel on the fp8 MFMA, matches the oracle" {
  local d; d=$(mm_graph f8E4M3FNUZ 2x70x5x65 fused)
  run "$B/bin/tosac" "$d/g.mlir" --offload-arch=gfx942 -o "$d/f.hipfb" --manifest="$d/f.json"
  assert_success
  run /usr/bin/python3 -c "
import json; t = json.load(open('$d/f.json'))['targets'][0]
print(t['kernel_count'], [(k['name'], k.get('matrix_instruction'), [o['op'][5:] for o in k['ops'] if o['op'] != 'tosa.const']) for k in t['kernels']])"
  assert_output "1 [('tosac_k0_matmul_add_clamp', 'v_mfma_f32_32x32x16_fp8_fp8', ['matmul', 'add', 'clamp'])]"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$d/g.mlir" --targets=gfx942
  assert_success
  assert_output --partial "ok $d/g.mlir [gfx942]: 1 results match"
  assert_output --partial "PASSED"
  d=$(mm_graph f8E5M2FNUZ "$(mm_shape 2)" fused)
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$d/g.mlir" --targets=gfx942
  assert_success
  assert_output --partial "PASSED"
}
