#!/usr/bin/env bats
# f8_cast.bats: tosa.cast to and from the 8-bit floats (f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ)
# on every default target against the MLIR oracle, f8 results compared exactly as codes: the
# conversion instructions where the target has them for the format (gfx942 FNUZ, gfx950 and
# gfx1200 OCP), integer arithmetic elsewhere (src/codegen/cvt_f8.c; semantics in docs/ops.md,
# "8-bit floats").
# Data (tests/oracle/gen_f8cast.py): every f8 value, every tie between neighbours and its f32
# neighbours, f8 and f32 subnormals, the halfway point past the largest finite value and beyond,
# +-0, +-Inf, NaN of both signs, random values; every code as a cast source.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

TARGETS=gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200

setup() {
  tosac_setup
  PY=/usr/bin/python3
  RUN="$BUILD/bin/tosac-run"
  EXEC="${TOSAC_EXEC:-isa}"
}

# gen ET: the graphs and data of gen_f8cast.py in $BATS_TEST_TMPDIR/ET; prints the directory
gen() {
  local d="$BATS_TEST_TMPDIR/$1"
  mkdir -p "$d"
  $PY "$ROOT/tests/oracle/gen_f8cast.py" "$1" "$d" >&2
  echo "$d"
}

cast_ins() { echo --input=@"$1"/in0.npy --input=@"$1"/in1.npy --input=@"$1"/in2.npy --input=@"$1"/in3.npy; }

# cast_oracle ET: the cast graph on every target, the six results match (three of them f8 codes)
cast_oracle() {
  local d t; d=$(gen "$1")
  run "${CHECK[@]}" "$d/cast.mlir" --targets=$TARGETS $(cast_ins "$d")
  assert_success
  for t in ${TARGETS//,/ }; do
    assert_line "ok $d/cast.mlir [$t]: 6 results match"
  done
}

@test "f32/f16/bf16 -> f8E4M3FNUZ and back on every target: the oracle's codes exactly" {
  cast_oracle f8E4M3FNUZ
}

@test "f32/f16/bf16 -> f8E5M2FNUZ and back on every target: the oracle's codes exactly" {
  cast_oracle f8E5M2FNUZ
}

@test "f32/f16/bf16 -> f8E4M3FN and back on every target: the oracle's codes exactly" {
  cast_oracle f8E4M3FN
}

@test "f32/f16/bf16 -> f8E5M2 and back on every target: the oracle's codes exactly" {
  cast_oracle f8E5M2
}

@test "f8 casts: the corner cases give the codes of docs/ops.md (tosac-run, gfx942 hardware and gfx90a software)" {
  local d t
  d="$BATS_TEST_TMPDIR/corner"
  mkdir -p "$d"
  cat > "$d/g.mlir" <<'MLIR'
func.func @main(%x: tensor<12xf32>) -> (tensor<12xf8E4M3FN>, tensor<12xf8E5M2>, tensor<12xf8E4M3FNUZ>, tensor<12xf8E5M2FNUZ>) {
  %0 = tosa.cast %x : (tensor<12xf32>) -> tensor<12xf8E4M3FN>
  %1 = tosa.cast %x : (tensor<12xf32>) -> tensor<12xf8E5M2>
  %2 = tosa.cast %x : (tensor<12xf32>) -> tensor<12xf8E4M3FNUZ>
  %3 = tosa.cast %x : (tensor<12xf32>) -> tensor<12xf8E5M2FNUZ>
  return %0, %1, %2, %3 : tensor<12xf8E4M3FN>, tensor<12xf8E5M2>, tensor<12xf8E4M3FNUZ>, tensor<12xf8E5M2FNUZ>
}
MLIR
  # 1, -0, 1.0625 and 1.1875 (E4M3 ties: even 1.0 and 1.25), 448, 464 (E4M3FN: the tie between
  # its largest 448 and the NaN slot: 448), 465, 57344, 61440 (E5M2: the tie between its largest
  # 57344 and Inf: Inf), -Inf, NaN, 2^-10 (E4M3FN: the tie between 0 and its smallest subnormal)
  $PY -c "
import numpy as np
np.save('$d/x.npy', np.array([1, -0.0, 1.0625, 1.1875, 448, 464, 465, 57344, 61440, -np.inf, np.nan, 2**-10], np.float32))"
  for t in gfx942 gfx90a; do
    run "$TOSAC" "$d/g.mlir" --embed-ir --offload-arch=$t -o "$d/$t.hipfb"
    assert_success
    run "$RUN" "$d/$t.hipfb" --target=$t --exec="$EXEC" --input=@"$d/x.npy" --output=@"$d/0.npy" \
      --output=@"$d/1.npy" --output=@"$d/2.npy" --output=@"$d/3.npy"
    assert_success
    run $PY -c "
import numpy as np
for k in range(4): print(' '.join('%02x' % c for c in np.load('$d/%d.npy' % k)))"
    assert_line -n 0 "38 80 38 3a 7e 7e 7f 7f 7f ff 7f 00"
    assert_line -n 1 "3c 80 3c 3d 5f 5f 5f 7b 7c fc 7f 14"
    assert_line -n 2 "40 00 40 42 80 80 80 80 80 80 80 01"
    assert_line -n 3 "40 00 40 41 63 63 63 7f 80 80 80 18"
  done
}

@test "f8 -> f32/f16/bf16 is exact: every code decodes to its value bit for bit (NaN to NaN)" {
  local d t et
  for et in f8E4M3FN f8E5M2FNUZ; do
    d=$(gen $et)
    for t in gfx950 gfx1100 gfx1200; do
      run "$TOSAC" "$d/cast.mlir" --embed-ir --offload-arch=$t -o "$d/$t.hipfb"
      assert_success
      run "$RUN" "$d/$t.hipfb" --target=$t --exec="$EXEC" $(cast_ins "$d") --output= --output= \
        --output= --output=@"$d/f32.npy" --output=@"$d/f16.npy" --output=@"$d/bf16.npy"
      assert_success
      run $PY -c "
import sys; sys.path.insert(0, '$ROOT/tests/oracle'); import numpy as np, oracle
c = np.load('$d/in3.npy'); v = oracle.f8_decode(c, '$et')
f32, f16, bf = np.load('$d/f32.npy'), np.load('$d/f16.npy'), np.load('$d/bf16.npy')
bf = (bf.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
n = np.isnan(v)
print(all(np.array_equal(np.isnan(a), n) for a in (f32, f16, bf)),
      all(np.array_equal(a[~n].astype(np.float64), v[~n]) and
          np.array_equal(np.signbit(a[~n]), np.signbit(v[~n])) for a in (f32, f16, bf)), int(n.sum()) > 0)"
      assert_output "True True True"
    done
  done
}

@test "f32 -> f8 -> f32 inside an elementwise chain: one fused kernel, matches the oracle on every target" {
  local d et
  for et in f8E4M3FNUZ f8E5M2; do
    d=$(gen $et)
    run "$TOSAC" "$d/chain.mlir" --offload-arch=gfx942 -o "$d/c.hipfb" --manifest="$d/c.json"
    assert_success
    run $PY -c "
import json; t = json.load(open('$d/c.json'))['targets'][0]
print(t['kernel_count'], [[o['op'][5:] for o in k['ops'] if o['op'] != 'tosa.const'] for k in t['kernels']])"
    assert_output "1 [['mul', 'cast', 'cast', 'add']]"
    run "${CHECK[@]}" "$d/chain.mlir" --targets=$TARGETS --input=@"$d/chain0.npy" --input=@"$d/chain1.npy"
    assert_success
    assert_output --partial "PASSED: 1 graph(s)"
    [ "$(grep -c ': 2 results match' <<< "$output")" -eq 7 ]
  done
}

@test "f8 casts: the conversion instructions (both ways) where the target has them for the format, integer arithmetic elsewhere" {
  local d=$(gen f8E4M3FNUZ) e=$(gen f8E5M2) f=$(gen f8E4M3FN) t
  # gfx942 converts FNUZ, gfx950 and gfx1200 OCP: (target, graph, fp8, bf8), each 1 when the
  # disassembly has both v_cvt_pk_X8_f32 and one of v_cvt_f32_X8 / v_cvt_pk_f32_X8, 0 when neither
  for t in gfx942:$d:1:0 gfx950:$e:0:1 gfx1200:$e:0:1 gfx1200:$f:1:0 gfx942:$e:0:0 gfx950:$d:0:0 \
    gfx1200:$d:0:0 gfx90a:$d:0:0 gfx1100:$e:0:0; do
    IFS=: read -r arch dir fp8 bf8 <<< "$t"
    run "$TOSAC" "$dir/cast.mlir" --offload-arch=$arch -o "$BATS_TEST_TMPDIR/k.hipfb"
    assert_success
    clang-offload-bundler-22 -type=o -unbundle -input="$BATS_TEST_TMPDIR/k.hipfb" \
      -targets="hipv4-amdgcn-amd-amdhsa--$arch" -output="$BATS_TEST_TMPDIR/k.co"
    llvm-objdump-22 -d --mcpu=$arch "$BATS_TEST_TMPDIR/k.co" > "$BATS_TEST_TMPDIR/k.dis"
    for x in fp8:$fp8 bf8:$bf8; do
      local to from
      to=$(grep -c "v_cvt_pk_${x%:*}_f32 " "$BATS_TEST_TMPDIR/k.dis" || true)
      from=$(grep -cE "v_cvt_(pk_)?f32_${x%:*}(_e32|_e64|_sdwa)? " "$BATS_TEST_TMPDIR/k.dis" || true)
      [ "$(( to > 0 )):$(( from > 0 ))" = "${x#*:}:${x#*:}" ] || fail "$arch $x: $to to, $from from"
    done
  done
}

@test "f8 casts: a rounding that is not to nearest even (ties away from zero) fails the oracle comparison" {
  local d; d=$(gen f8E4M3FN)
  run "$TOSAC" "$d/cast.mlir" --embed-ir --offload-arch=gfx90a -o "$d/b.hipfb"
  assert_success
  run "$RUN" "$d/b.hipfb" --target=gfx90a --exec="$EXEC" $(cast_ins "$d") --output=@"$d/got.npy"
  assert_success
  # tosac's codes pass; the same codes with every tie moved to the neighbour of larger magnitude
  # (where nearest even chose the smaller one) differ at those ties only
  run $PY -c "
import sys; sys.path.insert(0, '$ROOT/tests/oracle'); import numpy as np, oracle
x, got, ties = np.load('$d/in0.npy'), np.load('$d/got.npy'), np.load('$d/ties.npy')
bad = got.copy()
lower = np.abs(oracle.f8_decode(got[ties], 'f8E4M3FN')) < np.abs(x[ties])
bad[ties[lower]] += 1
np.save('$d/bad.npy', bad)
print(int(lower.sum()))"
  assert_success
  local moved=$output
  [ "$moved" -gt 100 ]
  run "${CHECK[@]}" "$d/cast.mlir" $(cast_ins "$d") --expected=@"$d/got.npy"
  assert_success
  assert_output --partial "ok $d/cast.mlir [oracle]: 1 results match"
  run "${CHECK[@]}" "$d/cast.mlir" $(cast_ins "$d") --expected=@"$d/bad.npy"
  assert_failure
  assert_output --partial "$moved of 2000 elements differ (exact match required)"
}

@test "f8 casts next to a matmul: an elementwise kernel of their own (no GEMM epilogue converts f8), oracle on every target" {
  local d="$BATS_TEST_TMPDIR" g
  cat > "$d/out.mlir" <<'MLIR'
func.func @main(%a: tensor<1x32x16xf16>, %b: tensor<1x16x32xf16>) -> tensor<1x32x32xf8E4M3FN> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %m = tosa.matmul %a, %b, %zp, %zp : (tensor<1x32x16xf16>, tensor<1x16x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x32x32xf32>
  %c = tosa.cast %m : (tensor<1x32x32xf32>) -> tensor<1x32x32xf8E4M3FN>
  return %c : tensor<1x32x32xf8E4M3FN>
}
MLIR
  cat > "$d/bias.mlir" <<'MLIR'
func.func @main(%a: tensor<1x32x16xf16>, %b: tensor<1x16x32xf16>, %bias: tensor<1x1x32xf8E5M2FNUZ>) -> tensor<1x32x32xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %m = tosa.matmul %a, %b, %zp, %zp : (tensor<1x32x16xf16>, tensor<1x16x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x32x32xf32>
  %c = tosa.cast %bias : (tensor<1x1x32xf8E5M2FNUZ>) -> tensor<1x1x32xf32>
  %r = tosa.add %m, %c : (tensor<1x32x32xf32>, tensor<1x1x32xf32>) -> tensor<1x32x32xf32>
  return %r : tensor<1x32x32xf32>
}
MLIR
  run "$TOSAC" "$d/out.mlir" --offload-arch=gfx950 -o "$d/o.hipfb" --manifest="$d/o.json"
  assert_success
  run "$TOSAC" "$d/bias.mlir" --offload-arch=gfx942 -o "$d/b.hipfb" --manifest="$d/b.json"
  assert_success
  run $PY -c "
import json
for f in ('o', 'b'): print(' '.join(k['name'] for k in json.load(open('$d/%s.json' % f))['targets'][0]['kernels']))"
  assert_output "tosac_k0_matmul tosac_k1_cast
tosac_k0_cast tosac_k1_matmul_add"
  for g in out bias; do
    run "${CHECK[@]}" "$d/$g.mlir" --targets=$TARGETS
    assert_success
    [ "$(grep -c ': 1 results match' <<< "$output")" -eq 7 ]
  done
}

@test "cg_f32_to_f8 / cg_f8_to_f32 on vectors (4 lanes per packed word, pairs, a scalar) match the emulator's conversion in both modes (test-cvt_f8)" {
  local bin="${TOSAC%/tosac}/test-cvt_f8"
  run "$bin"
  assert_success
  assert_line "ok gfx942 f8E4M3FNUZ isa"
  assert_line "ok gfx950 f8E5M2 ir"
  assert_line "ok gfx90a f8E4M3FN isa"
  assert_line "ok gfx1200 f8E4M3FN isa"
  assert_line "ok gfx1200 f8E5M2 ir"
  assert_line "32 passed, 0 failed"
}

@test "f8 -> f8 (NaN signs kept), f8 -> i32 and i16 -> f8 casts go through f32 and match the oracle on every target" {
  local d="$BATS_TEST_TMPDIR"
  cat > "$d/x8.mlir" <<'MLIR'
func.func @main(%a: tensor<256xf8E5M2>, %b: tensor<256xf8E4M3FN>, %i: tensor<256xi16>) -> (tensor<256xf8E4M3FN>, tensor<256xf8E5M2FNUZ>, tensor<256xi32>, tensor<256xf8E4M3FNUZ>) {
  %0 = tosa.cast %a : (tensor<256xf8E5M2>) -> tensor<256xf8E4M3FN>
  %1 = tosa.cast %b : (tensor<256xf8E4M3FN>) -> tensor<256xf8E5M2FNUZ>
  %2 = tosa.cast %b : (tensor<256xf8E4M3FN>) -> tensor<256xi32>
  %3 = tosa.cast %i : (tensor<256xi16>) -> tensor<256xf8E4M3FNUZ>
  return %0, %1, %2, %3 : tensor<256xf8E4M3FN>, tensor<256xf8E5M2FNUZ>, tensor<256xi32>, tensor<256xf8E4M3FNUZ>
}
MLIR
  # every code of both f8 types; integers -384 .. 381 in steps of 3 (ties, and beyond 240)
  $PY -c "
import numpy as np
np.save('$d/a.npy', np.arange(256, dtype=np.uint8)); np.save('$d/b.npy', np.arange(256, dtype=np.uint8)[::-1].copy())
np.save('$d/i.npy', (np.arange(-128, 128) * 3).astype(np.int16))"
  run "${CHECK[@]}" "$d/x8.mlir" --targets=$TARGETS --input=@"$d/a.npy" --input=@"$d/b.npy" --input=@"$d/i.npy"
  assert_success
  [ "$(grep -c ': 4 results match' <<< "$output")" -eq 7 ]
}

@test "non-zero f8 constants (hex dense literals, decimal lists with subnormals, negatives, -0, a past-the-largest value, a splat): the oracle reads their values exactly and tosac-run matches it on every target" {
  local d="$BATS_TEST_TMPDIR"
  cat > "$d/k.mlir" <<'MLIR'
func.func @main(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf8E4M3FN>, tensor<2x4xf16>, tensor<2x4xf8E5M2>) {
  %a = "tosa.const"() <{values = dense<"0x3801F98005FA0C33"> : tensor<2x4xf8E4M3FN>}> : () -> tensor<2x4xf8E4M3FN>
  %b = "tosa.const"() <{values = dense<[[1.5, -2.0e-02, 1.52587890625e-05, -0.0], [57344.0, 3.0, -1.0e-05, 0x83]]> : tensor<2x4xf8E5M2>}> : () -> tensor<2x4xf8E5M2>
  %c = "tosa.const"() <{values = dense<"0x7F80FF017E88C0FE"> : tensor<2x4xf8E5M2FNUZ>}> : () -> tensor<2x4xf8E5M2FNUZ>
  %d = "tosa.const"() <{values = dense<-0.001953125> : tensor<1x1xf8E4M3FNUZ>}> : () -> tensor<1x1xf8E4M3FNUZ>
  %e = "tosa.const"() <{values = dense<[1.0e+06, -464.0, 0.1, -3.0e-03]> : tensor<4xf8E4M3FN>}> : () -> tensor<4xf8E4M3FN>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %a32 = tosa.cast %a : (tensor<2x4xf8E4M3FN>) -> tensor<2x4xf32>
  %r0 = tosa.mul %a32, %x, %sh : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<1xi8>) -> tensor<2x4xf32>
  %b32 = tosa.cast %b : (tensor<2x4xf8E5M2>) -> tensor<2x4xf32>
  %d32 = tosa.cast %d : (tensor<1x1xf8E4M3FNUZ>) -> tensor<1x1xf32>
  %s = tosa.add %b32, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %r1 = tosa.add %s, %d32 : (tensor<2x4xf32>, tensor<1x1xf32>) -> tensor<2x4xf32>
  %r3 = tosa.cast %c : (tensor<2x4xf8E5M2FNUZ>) -> tensor<2x4xf16>
  %r4 = tosa.cast %r0 : (tensor<2x4xf32>) -> tensor<2x4xf8E5M2>
  return %r0, %r1, %e, %r3, %r4 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<4xf8E4M3FN>, tensor<2x4xf16>, tensor<2x4xf8E5M2>
}
MLIR
  $PY -c "import numpy as np; np.save('$d/x.npy', np.array([[1.5, -3, 0.25, 7], [-1, 2, 1e-3, -0.5]], np.float32))"
  # the oracle against the decode table: %b's decimals are the codes 3e a5 01 80 7b 42 81 83
  # (-0.02 to -0.01953125, 1e-5 to the subnormal 2^-16), %d is 0x82 (-2^-9, a subnormal), %e
  # is 7f fe 1d 82 (1e6 past the largest: NaN; -464 the tie between -448 and the NaN slot: -448;
  # 0.1 to 0.1015625; -0.003 to the subnormal -2^-8)
  run $PY -c "
import sys; sys.path.insert(0, '$ROOT/tests/oracle'); import numpy as np, oracle
x = np.load('$d/x.npy'); r = oracle.run_file('$d/k.mlir', [x])
dec = lambda h, e: oracle.f8_decode(np.frombuffer(bytes.fromhex(h), np.uint8), e).reshape(-1, min(4, len(h) // 2))
a, b = dec('3801F98005FA0C33', 'f8E4M3FN'), dec('3EA501807B428183', 'f8E5M2')
c, dd = dec('7F80FF017E88C0FE', 'f8E5M2FNUZ'), dec('82', 'f8E4M3FNUZ')
same = lambda p, q: np.array_equal(p, q, equal_nan=True) and np.array_equal(np.signbit(p), np.signbit(q))
print(same(r[0], (a.astype(np.float32) * x)), same(r[1], (b.astype(np.float32) + x) + dd.astype(np.float32)),
      ' '.join('%02x' % v for v in r[2]), same(r[3], c.astype(np.float16)), int(np.isnan(r[3]).sum()))"
  assert_success
  assert_output "True True 7f fe 1d 82 True 1"
  run "${CHECK[@]}" "$d/k.mlir" --targets=$TARGETS --input=@"$d/x.npy"
  assert_success
  for t in ${TARGETS//,/ }; do
    assert_line "ok $d/k.mlir [$t]: 5 results match"
  done
  # without a cast the oracle reads the literals as written (no mlir-opt reprint rounds them
  # first): the same codes, and bytes moved by a concat
  cat > "$d/m.mlir" <<'MLIR'
func.func @main(%y: tensor<4xf8E4M3FN>) -> (tensor<8xf8E4M3FN>, tensor<4xf8E4M3FN>) {
  %e = "tosa.const"() <{values = dense<[1.0e+06, -464.0, 0.1, -3.0e-03]> : tensor<4xf8E4M3FN>}> : () -> tensor<4xf8E4M3FN>
  %h = "tosa.const"() <{values = dense<"0x01FE8033"> : tensor<4xf8E4M3FN>}> : () -> tensor<4xf8E4M3FN>
  %c = tosa.concat %h, %y {axis = 0 : i32} : (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) -> tensor<8xf8E4M3FN>
  return %c, %e : tensor<8xf8E4M3FN>, tensor<4xf8E4M3FN>
}
MLIR
  $PY -c "import numpy as np; np.save('$d/y.npy', np.array([0x38, 0x81, 0xb0, 0x7e], np.uint8))"
  run $PY -c "
import sys; sys.path.insert(0, '$ROOT/tests/oracle'); import numpy as np, oracle
r = oracle.run_file('$d/m.mlir', [np.load('$d/y.npy')])
print(' '.join('%02x' % v for v in r[0]), '/', ' '.join('%02x' % v for v in r[1]))"
  assert_output "01 fe 80 33 38 81 b0 7e / 7f fe 1d 82"
  run "${CHECK[@]}" "$d/m.mlir" --targets=gfx942,gfx1200 --input=@"$d/y.npy"
  assert_success
  assert_line "ok $d/m.mlir [gfx942]: 2 results match"
  assert_line "ok $d/m.mlir [gfx1200]: 2 results match"
}
