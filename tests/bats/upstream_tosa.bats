#!/usr/bin/env bats
# Forms mlir-opt-22's verifier accepts that no TOSA 1.0 profile defines (i32 clamp and
# max_pool2d, a same-type cast) compile and match the oracle; -Wtosa-profile warns about them and
# --tosa-strict refuses them (docs/ops.md "Profiles"). Older op names read as their TOSA 1.0 op.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  B="$ROOT/${TOSAC_BUILD:-build}"
  TOSAC="$B/bin/tosac"
  cd "$BATS_TEST_TMPDIR"
}

# oracle GRAPH: the oracle against tosac-run on an MFMA, a WMMA and the FMA target, seeded inputs
oracle() {
  TOSAC_BUILD="$B" run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$1" --targets=gfx90a,gfx1100,gfx1030 --seed="${2:-1}"
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

clamp_graph() {
  cat > clamp.mlir <<'G'
func.func @main(%a: tensor<3x17xi32>) -> tensor<3x17xi32> {
  %0 = tosa.clamp %a {min_val = -5 : i32, max_val = 1000 : i32} : (tensor<3x17xi32>) -> tensor<3x17xi32>
  return %0 : tensor<3x17xi32>
}
G
}

@test "i32 tosa.clamp: accepted by default, matches the oracle" {
  clamp_graph
  mlir-opt-22 clamp.mlir > /dev/null
  run "$TOSAC" clamp.mlir --syntax-only
  assert_success
  assert_output ""
  oracle clamp.mlir 1
  oracle clamp.mlir 7
}

@test "-Wtosa-profile warns at the op and still compiles; --tosa-strict refuses and writes nothing" {
  clamp_graph
  run "$TOSAC" clamp.mlir -Wtosa-profile --offload-arch=gfx90a -o c.hipfb
  assert_success
  assert_line --index 0 "clamp.mlir:2:19: warning: 'tosa.clamp' on i32 is outside the TOSA 1.0 profiles [-Wtosa-profile]"
  [ -s c.hipfb ] && [ -s c.json ]
  run "$TOSAC" clamp.mlir --tosa-strict --offload-arch=gfx90a -o s.hipfb
  assert_failure 1
  assert_line --index 0 "clamp.mlir:2:19: error: 'tosa.clamp' on i32 is outside the TOSA 1.0 profiles (--tosa-strict)"
  [ ! -e s.hipfb ] && [ ! -e s.json ]
}

@test "a same-type tosa.cast is a no-op (oracle); --tosa-strict refuses it at the op" {
  cat > cast.mlir <<'G'
func.func @main(%a: tensor<5x9xf16>) -> tensor<5x9xf16> {
  %0 = tosa.cast %a : (tensor<5x9xf16>) -> tensor<5x9xf16>
  %1 = tosa.abs %0 : (tensor<5x9xf16>) -> tensor<5x9xf16>
  return %1 : tensor<5x9xf16>
}
G
  mlir-opt-22 cast.mlir > /dev/null
  oracle cast.mlir 3
  run "$TOSAC" cast.mlir --syntax-only --tosa-strict
  assert_failure 1
  assert_line --index 0 "cast.mlir:2:8: error: 'tosa.cast' from f16 to the same type is outside the TOSA 1.0 profiles (--tosa-strict)"
}

@test "i32 tosa.max_pool2d with padding matches the oracle; avg_pool2d on i32 stays refused" {
  cat > mp.mlir <<'G'
func.func @main(%a: tensor<2x7x9x3xi32>) -> tensor<2x4x5x3xi32> {
  %y = tosa.max_pool2d %a {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1, 1, 1>} : (tensor<2x7x9x3xi32>) -> tensor<2x4x5x3xi32>
  return %y : tensor<2x4x5x3xi32>
}
G
  mlir-opt-22 mp.mlir > /dev/null
  oracle mp.mlir 2
  run "$TOSAC" mp.mlir --syntax-only -Wtosa-profile
  assert_success
  assert_line --index 0 "mp.mlir:2:24: warning: 'tosa.max_pool2d' on i32 is outside the TOSA 1.0 profiles [-Wtosa-profile]"
  cat > ap.mlir <<'G'
func.func @main(%a: tensor<1x4x4x2xi32>) -> tensor<1x2x2x2xi32> {
  %y = tosa.avg_pool2d %a {acc_type = i32, kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x4x4x2xi32>) -> tensor<1x2x2x2xi32>
  return %y : tensor<1x2x2x2xi32>
}
G
  run "$TOSAC" ap.mlir --syntax-only
  assert_failure 1
  assert_line --index 0 --partial "ap.mlir:2:24: error: 'tosa.avg_pool2d' does not support element type i32"
}

@test "the old name tosa.reduce_prod reads as tosa.reduce_product" {
  cat > rp.mlir <<'G'
func.func @main(%a: tensor<3x4xf32>) -> tensor<3x1xf32> {
  %y = "tosa.reduce_prod"(%a) {axis = 1 : i32} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  return %y : tensor<3x1xf32>
}
G
  run "$TOSAC" rp.mlir --emit=tosa -O0
  assert_success
  assert_output --partial '"tosa.reduce_product"'
  "$TOSAC" rp.mlir --emit=tosa -O0 -o up.mlir
  mlir-opt-22 up.mlir > /dev/null
  # the oracle reads the TOSA 1.0 form; tosa.reduce_prod's own inputs are checked against it
  /usr/bin/python3 - "$ROOT" <<'PY'
import sys, numpy as np
sys.path.insert(0, sys.argv[1] + "/tests/oracle")
np.save("x.npy", (np.random.default_rng(4).uniform(-2, 2, (3, 4))).astype(np.float32))
PY
  TOSAC_BUILD="$B" run /usr/bin/python3 "$ROOT/tests/oracle/check.py" up.mlir --input=@x.npy --targets=gfx90a,gfx1030
  assert_success
  "$TOSAC" rp.mlir --embed-ir --offload-arch=gfx1100 -o rp.hipfb
  "$B/bin/tosac-run" rp.hipfb --target=gfx1100 --input=@x.npy --output=@got.npy
  TOSAC_BUILD="$B" run /usr/bin/python3 "$ROOT/tests/oracle/check.py" up.mlir --input=@x.npy --expected=@got.npy
  assert_success
  assert_output --partial "1 results match"
}

@test "the 2023 form 'tosa.cond_if %c -> (types) {..} else {..}' reads (both branches against the oracle)" {
  cat > ci.mlir <<'G'
func.func @main(%arg0: tensor<4x6xf32>, %arg1: tensor<4x6xf32>, %arg2: tensor<i1>) -> tensor<4x6xf32> {
  %0 = tosa.cond_if %arg2 -> (tensor<4x6xf32>) {
    %1 = tosa.add %arg0, %arg1 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    tosa.yield %1 : tensor<4x6xf32>
  } else {
    %1 = tosa.sub %arg0, %arg1 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    tosa.yield %1 : tensor<4x6xf32>
  }
  return %0 : tensor<4x6xf32>
}
G
  run mlir-opt-22 ci.mlir # LLVM 22 writes the condition's type; the older form is tosac's to read
  assert_failure
  "$TOSAC" ci.mlir --emit=tosa -O0 -o up.mlir
  mlir-opt-22 up.mlir > /dev/null
  cat > check_cf.py <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import check, oracle
oracle.PIPELINE = oracle.PIPELINE.replace("func.func(tosa-to-linalg-named,", "func.func(tosa-to-scf,tosa-to-linalg-named,", 1)
sys.exit(check.main(sys.argv[2:]))
PY
  /usr/bin/python3 -c 'import numpy as np
r = np.random.default_rng(5)
np.save("a.npy", r.uniform(-3, 3, (4, 6)).astype(np.float32)); np.save("b.npy", r.uniform(-3, 3, (4, 6)).astype(np.float32))
np.save("t.npy", np.array(True)); np.save("f.npy", np.array(False))'
  "$TOSAC" ci.mlir --embed-ir --offload-arch=gfx90a,gfx1100,gfx1030 -o ci.hipfb
  for c in t f; do
    for t in gfx90a gfx1100 gfx1030; do
      "$B/bin/tosac-run" ci.hipfb --target=$t --input=@a.npy --input=@b.npy --input=@$c.npy --output=@got.npy
      TOSAC_BUILD="$B" run /usr/bin/python3 check_cf.py "$ROOT/tests/oracle" up.mlir --input=@a.npy --input=@b.npy --input=@$c.npy --expected=@got.npy
      assert_success
      assert_output --partial "1 results match"
    done
  done
}

# gen_ints SEED NAME:DTYPE:SHAPE...: full-range seeded integer inputs (sums that wrap)
gen_ints() {
  /usr/bin/python3 - "$@" <<'PY'
import sys, numpy as np
r = np.random.default_rng(int(sys.argv[1]))
for spec in sys.argv[2:]:
    name, dt, shape = spec.split(":")
    i = np.iinfo(dt)
    np.save(name + ".npy", r.integers(i.min, i.max, tuple(int(x) for x in shape.split("x")), endpoint=True, dtype=dt))
PY
}

# int_mm NAME IN OUT BATCH M K N: an integer tosa.matmul with zero zero points
int_mm() {
  cat > "$1.mlir" <<G
func.func @main(%a: tensor<$4x$5x$6x$2>, %b: tensor<$4x$6x$7x$2>) -> tensor<$4x$5x$7x$3> {
  %az = "tosa.const"() <{values = dense<0> : tensor<1x$2>}> : () -> tensor<1x$2>
  %bz = "tosa.const"() <{values = dense<0> : tensor<1x$2>}> : () -> tensor<1x$2>
  %0 = tosa.matmul %a, %b, %az, %bz : (tensor<$4x$5x$6x$2>, tensor<$4x$6x$7x$2>, tensor<1x$2>, tensor<1x$2>) -> tensor<$4x$5x$7x$3>
  return %0 : tensor<$4x$5x$7x$3>
}
G
  mlir-opt-22 "$1.mlir" > /dev/null
}

# oracle_ab GRAPH: the oracle on a.npy and b.npy, MFMA, WMMA and FMA targets
oracle_ab() {
  TOSAC_BUILD="$B" run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$1" --input=@a.npy --input=@b.npy --targets=gfx90a,gfx1100,gfx1030
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "i32 tosa.matmul and i8 -> i16, i16 -> i32 results: sums wrap in the result type as upstream's lowering computes them" {
  int_mm m32 i32 i32 2 33 45 19
  gen_ints 1 a:int32:2x33x45 b:int32:2x45x19
  oracle_ab m32.mlir
  int_mm m8 i8 i16 1 64 96 80
  gen_ints 2 a:int8:1x64x96 b:int8:1x96x80
  oracle_ab m8.mlir
  int_mm m16 i16 i32 2 17 40 9
  gen_ints 4 a:int16:2x17x40 b:int16:2x40x9
  oracle_ab m16.mlir
  # i8 keeps the matrix instructions (i32 sums truncated); i32 runs the integer FMA path
  "$TOSAC" m8.mlir --offload-arch=gfx90a,gfx1100,gfx1030 -o m8.hipfb
  run grep -o '"matrix_instruction": *"[^"]*"' m8.json
  assert_output $'"matrix_instruction": "v_mfma_i32_32x32x8i8"\n"matrix_instruction": "v_wmma_i32_16x16x16_iu8"\n"matrix_instruction": "fma"'
  for g in m32 m8 m16; do
    "$TOSAC" $g.mlir -o $g.all.hipfb # the 7 default targets
    [ "$(/usr/bin/python3 -c "import json; print(len(json.load(open('$g.all.json'))['targets']))")" = 7 ]
  done
}

@test "integer matmuls outside TOSA 1.0: -Wtosa-profile warns, --tosa-strict refuses at the op" {
  int_mm m8 i8 i16 1 4 8 4
  int_mm m32 i32 i32 1 4 8 4
  run "$TOSAC" m8.mlir --syntax-only -Wtosa-profile
  assert_success
  assert_line --index 0 "m8.mlir:4:8: warning: 'tosa.matmul' with i8 inputs producing i16 is outside the TOSA 1.0 profiles [-Wtosa-profile]"
  run "$TOSAC" m32.mlir --syntax-only --tosa-strict
  assert_failure 1
  assert_line --index 0 "m32.mlir:4:20: error: 'tosa.matmul' on i32 is outside the TOSA 1.0 profiles (--tosa-strict)"
  int_mm m48 i16 i48 1 4 8 4
  run "$TOSAC" m48.mlir --syntax-only --tosa-strict
  assert_success
  assert_output ""
}

@test "i16 tosa.matmul to i48 (and i8 to i48, i32 to i64): i64 sums beyond 2^31, alone and fused with its rescale" {
  int_mm m48 i16 i48 1 20 300 24
  gen_ints 3 a:int16:1x20x300 b:int16:1x300x24
  oracle_ab m48.mlir
  # the sums do leave the i32 range
  /usr/bin/python3 -c 'import numpy as np
a = np.load("a.npy").astype(np.int64); b = np.load("b.npy").astype(np.int64)
assert np.abs(a[0] @ b[0]).max() > 2**33'
  int_mm m8w i8 i48 1 40 64 36
  gen_ints 5 a:int8:1x40x64 b:int8:1x64x36
  oracle_ab m8w.mlir
  int_mm m64 i32 i64 1 9 30 11
  gen_ints 7 a:int32:1x9x30 b:int32:1x30x11
  oracle_ab m64.mlir
  cat > mr.mlir <<'G'
func.func @main(%a: tensor<1x20x300xi16>, %b: tensor<1x300x24xi16>) -> tensor<1x20x24xi16> {
  %az = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %bz = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %0 = tosa.matmul %a, %b, %az, %bz : (tensor<1x20x300xi16>, tensor<1x300x24xi16>, tensor<1xi16>, tensor<1xi16>) -> tensor<1x20x24xi48>
  %m = "tosa.const"() <{values = dense<1518500250> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<46> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi48>}> : () -> tensor<1xi48>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %1 = tosa.rescale %0, %m, %s, %iz, %oz {scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<1x20x24xi48>, tensor<1xi32>, tensor<1xi8>, tensor<1xi48>, tensor<1xi16>) -> tensor<1x20x24xi16>
  return %1 : tensor<1x20x24xi16>
}
G
  mlir-opt-22 mr.mlir > /dev/null
  gen_ints 3 a:int16:1x20x300 b:int16:1x300x24
  oracle_ab mr.mlir
  "$TOSAC" mr.mlir --offload-arch=gfx90a -o mr.hipfb
  run grep -c '"name": "tosac_k' mr.json
  assert_output 1 # the rescale runs in the GEMM's epilogue
  "$TOSAC" m48.mlir -o m48.all.hipfb
  [ "$(/usr/bin/python3 -c "import json; print(len(json.load(open('m48.all.json'))['targets']))")" = 7 ]
}

@test "a skinny i8 -> i16 matmul (split-K skinny kernel) wraps once after adding its partial sums" {
  int_mm g8 i8 i16 1 4 256 64
  gen_ints 6 a:int8:1x4x256 b:int8:1x256x64
  oracle_ab g8.mlir
  "$TOSAC" g8.mlir --offload-arch=gfx90a -o g8.hipfb
  run grep -c '"kernel": "gemv"' g8.json
  assert_output 1
}

@test "mixed i16 x i8 tosa.matmul (mlir-opt-22 verifies it) is refused at the op by the GEMM generator" {
  cat > mx.mlir <<'G'
func.func @main(%a: tensor<1x4x8xi16>, %b: tensor<1x8x4xi8>) -> tensor<1x4x4xi48> {
  %az = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %bz = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.matmul %a, %b, %az, %bz : (tensor<1x4x8xi16>, tensor<1x8x4xi8>, tensor<1xi16>, tensor<1xi8>) -> tensor<1x4x4xi48>
  return %0 : tensor<1x4x4xi48>
}
G
  mlir-opt-22 mx.mlir > /dev/null
  run "$TOSAC" mx.mlir --offload-arch=gfx90a -o mx.hipfb
  assert_failure 1
  assert_line --index 0 "mx.mlir:4:8: error: tosa.matmul: operand types i16 x i8 are not supported by the GEMM generator (f32, f16, bf16, i8 with equal operand types; i16 and i32 in matmul and fully_connected, 8-bit floats in matmul and convolutions only)"
  [ ! -e mx.hipfb ] && [ ! -e mx.json ]
}

@test "ui8 and ui16 in tosa.rescale (types, zero points, input_unsigned/output_unsigned flags) match the oracle" {
  D="$ROOT/tests/data/upstream_tosa"
  mlir-opt-22 "$D/rescale_unsigned.mlir" > /dev/null
  # six rescales: ui8 -> i8 unsigned, i8 -> ui8 per-channel double round, ui8 read signed (flag
  # false: zero point 128 is -128), ui16 -> i16 (zero point 32768), i16 -> ui16, ui8 -> ui8
  oracle "$D/rescale_unsigned.mlir" 1
  oracle "$D/rescale_unsigned.mlir" 2
  "$TOSAC" "$D/rescale_unsigned.mlir" -o all.hipfb
  [ "$(/usr/bin/python3 -c "import json; print(len(json.load(open('all.json'))['targets']))")" = 7 ]
  # stored signless: the manifest's argument is i8, the flags carry the reading
  run "$TOSAC" "$D/rescale_unsigned.mlir" --emit=tosa -O0
  assert_output --partial '<{input_unsigned = true, output_unsigned = false, per_channel = false, rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>, scale32 = true}> : (tensor<5x8xi8>'
}

@test "the pre-1.0 tosa.rescale on ui8 (no unsigned flags) reads its ui8 sides as unsigned (oracle on the TOSA 1.0 form)" {
  D="$ROOT/tests/data/upstream_tosa"
  mlir-opt-22 "$D/rescale_ui8_new.mlir" > /dev/null
  /usr/bin/python3 -c 'import numpy as np
r = np.random.default_rng(9); np.save("a.npy", r.integers(0, 255, (5, 8), endpoint=True, dtype=np.uint8))
np.save("b.npy", r.integers(-128, 127, (5, 8), endpoint=True, dtype=np.int8))'
  "$TOSAC" "$D/rescale_ui8_old.mlir" --embed-ir --offload-arch=gfx90a,gfx1100,gfx1030 -o old.hipfb
  for t in gfx90a gfx1100 gfx1030; do
    "$B/bin/tosac-run" old.hipfb --target=$t --input=@a.npy --input=@b.npy --output=@g0.npy --output=@g1.npy
    TOSAC_BUILD="$B" run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$D/rescale_ui8_new.mlir" --input=@a.npy --input=@b.npy --expected=@g0.npy --expected=@g1.npy
    assert_success
    assert_output --partial "2 results match"
  done
  # the same results are wrong for the signed reading
  sed '0,/input_unsigned = true/s//input_unsigned = false/' "$D/rescale_ui8_new.mlir" > signed.mlir
  TOSAC_BUILD="$B" run /usr/bin/python3 "$ROOT/tests/oracle/check.py" signed.mlir --input=@a.npy --input=@b.npy --expected=@g0.npy --expected=@g1.npy
  assert_failure
}

@test "unsigned types outside tosa.rescale, ui32, and an unsigned i16 zero point other than 0 or 32768 are refused at the token" {
  cat > add.mlir <<'G'
func.func @main(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = tosa.add %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}
G
  run "$TOSAC" add.mlir -o add.hipfb
  assert_failure 1
  assert_line --index 0 "add.mlir:2:36: error: 'tosa.add' on the unsigned type ui8 is not supported (tosac reads ui8 and ui16 in tosa.rescale and its tosa.const zero points)"
  [ ! -e add.hipfb ] && [ ! -e add.json ]
  sed '/%u100 =/s/dense<32768>/dense<100>/' "$ROOT/tests/data/upstream_tosa/rescale_unsigned.mlir" > zp.mlir
  run mlir-opt-22 zp.mlir
  assert_failure
  assert_output --partial "expect output_zp of 0 or 32768 for unsigned int16 output, got 100"
  run "$TOSAC" zp.mlir --syntax-only
  assert_failure 1
  assert_line --index 0 --partial "zp.mlir:17:38: error: 'tosa.rescale' output_zp must be 0 or 32768 for an unsigned i16 output, found 100"
  sed 's/tensor<5x8xui8>, tensor<1xi32>, tensor<1xi8>, tensor<1xui8>, tensor<1xi8>) -> tensor<5x8xi8>/tensor<5x8xui32>, tensor<1xi32>, tensor<1xi8>, tensor<1xui8>, tensor<1xi8>) -> tensor<5x8xi8>/' \
    "$ROOT/tests/data/upstream_tosa/rescale_unsigned.mlir" > u32.mlir
  run "$TOSAC" u32.mlir --syntax-only
  assert_failure 1
  assert_line --index 0 "u32.mlir:13:174: error: 'tosa.rescale' on the unsigned type ui32 is not supported (tosac reads ui8 and ui16 in tosa.rescale and its tosa.const zero points)"
}

@test "i4 weights in the pre-2023 fully_connected: widened to i8 at compile time, against the oracle's i8 x i4 matmul" {
  D="$ROOT/tests/data/upstream_tosa"
  mlir-opt-22 "$D/fc_i4_ref.mlir" > /dev/null
  /usr/bin/python3 -c 'import numpy as np; np.save("x.npy", np.random.default_rng(3).integers(-128, 127, (3, 16), endpoint=True, dtype=np.int8))'
  "$TOSAC" "$D/fc_i4_old.mlir" --embed-ir --offload-arch=gfx90a,gfx1100,gfx1030 -o fc.hipfb
  for t in gfx90a gfx1100 gfx1030; do
    "$B/bin/tosac-run" fc.hipfb --target=$t --input=@x.npy --output=@g.npy
    TOSAC_BUILD="$B" run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$D/fc_i4_ref.mlir" --input=@x.npy --expected=@g.npy
    assert_success
    assert_output --partial "1 results match"
  done
  "$TOSAC" "$D/fc_i4_old.mlir" -o all.hipfb
  [ "$(/usr/bin/python3 -c "import json; print(len(json.load(open('all.json'))['targets']))")" = 7 ]
  # i4 weights that are not a constant stay refused, at the operand
  cat > arg.mlir <<'G'
func.func @main(%x: tensor<3x16xi8>, %w: tensor<5x16xi4>) -> tensor<3x5xi32> {
  %b = "tosa.const"() {value = dense<0> : tensor<5xi32>} : () -> tensor<5xi32>
  %0 = "tosa.fully_connected"(%x, %w, %b) {quantization_info = {input_zp = 0 : i32, weight_zp = 0 : i32}} : (tensor<3x16xi8>, tensor<5x16xi4>, tensor<5xi32>) -> tensor<3x5xi32>
  return %0 : tensor<3x5xi32>
}
G
  run "$TOSAC" arg.mlir --syntax-only
  assert_failure 1
  assert_line --index 0 "arg.mlir:3:35: error: the i4 weight operand of 'tosa.fully_connected' must be a constant (tosa.const or tosa.const_shape), but '%w' is a function argument"
  assert_line --index 3 "arg.mlir:3:35: note: tosac widens i4 weights to i8 at compile time"
}

@test "while_loop: the 2023 form (today's) and the 2021 generic form with func @ and {value} read and loop as the oracle does" {
  cat > wl.mlir <<'G'
func.func @main(%arg0: tensor<i32>, %x: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
  %0:2 = tosa.while_loop (%arg1 = %arg0, %arg2 = %x) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
    %c = "tosa.const"() <{values = dense<5> : tensor<i32>}> : () -> tensor<i32>
    %1 = tosa.greater %c, %arg1 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %1 : tensor<i1>
  } do {
  ^bb0(%arg1: tensor<i32>, %arg2: tensor<4xf32>):
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %2 = tosa.add %arg1, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = tosa.add %arg2, %arg2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    tosa.yield %2, %3 : tensor<i32>, tensor<4xf32>
  }
  return %0#0, %0#1 : tensor<i32>, tensor<4xf32>
}
G
  mlir-opt-22 wl.mlir > /dev/null
  cat > check_cf.py <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import check, oracle
# loop-carried tensors: scf.while's results may be buffers allocated in the loop
oracle.PIPELINE = oracle.PIPELINE.replace("func.func(tosa-to-linalg-named,", "func.func(tosa-to-scf,tosa-to-linalg-named,", 1).replace(
    "bufferize-function-boundaries}", "bufferize-function-boundaries allow-return-allocs-from-loops}")
sys.exit(check.main(sys.argv[2:]))
PY
  /usr/bin/python3 -c 'import numpy as np
np.save("n.npy", np.array(1, np.int32)); np.save("x.npy", np.array([0.5, -1.25, 3, 0.125], np.float32)); np.save("m.npy", np.array(-20, np.int32))'
  "$TOSAC" wl.mlir --embed-ir --offload-arch=gfx90a,gfx1100,gfx1030 -o wl.hipfb
  for t in gfx90a gfx1100 gfx1030; do
    "$B/bin/tosac-run" wl.hipfb --target=$t --input=@n.npy --input=@x.npy --output=@g0.npy --output=@g1.npy
    TOSAC_BUILD="$B" run /usr/bin/python3 check_cf.py "$ROOT/tests/oracle" wl.mlir --input=@n.npy --input=@x.npy --expected=@g0.npy --expected=@g1.npy
    assert_success
    assert_output --partial "2 results match"
  done
  # the 2021 generic form: read as today's while_loop (the oracle runs tosac's TOSA 1.0 print)
  "$TOSAC" "$ROOT/tests/data/upstream_tosa/while_2021.mlir" --emit=tosa -O0 -o w21.mlir
  mlir-opt-22 w21.mlir > /dev/null
  "$TOSAC" "$ROOT/tests/data/upstream_tosa/while_2021.mlir" --embed-ir --offload-arch=gfx90a,gfx1030 -o w21.hipfb
  for t in gfx90a gfx1030; do
    "$B/bin/tosac-run" w21.hipfb --target=$t --input=@m.npy --output=@g.npy
    TOSAC_BUILD="$B" run /usr/bin/python3 check_cf.py "$ROOT/tests/oracle" w21.mlir --input=@m.npy --expected=@g.npy
    assert_success
    assert_output --partial "1 results match"
    [ "$(/usr/bin/python3 -c 'import numpy as np; print(int(np.load("g.npy")))')" = 36 ]
  done
}

@test "the pre-2023 fully_connected on i16 to i48 (bias i48): i64 sums past 2^31 against numpy on MFMA, WMMA and FMA targets" {
  /usr/bin/python3 -c 'import numpy as np
r = np.random.default_rng(1); np.save("x.npy", r.integers(-32768, 32767, (3, 40), dtype=np.int16)); np.save("w.npy", r.integers(-32768, 32767, (5, 40), dtype=np.int16))'
  "$TOSAC" "$ROOT/tests/data/upstream_tosa/fc_i16_old.mlir" --embed-ir --offload-arch=gfx90a,gfx1100,gfx1030 -o fc.hipfb
  for t in gfx90a gfx1100 gfx1030; do
    "$B/bin/tosac-run" fc.hipfb --target=$t --input=@x.npy --input=@w.npy --output=@g.npy
    run /usr/bin/python3 -c 'import numpy as np
x = np.load("x.npy").astype(np.int64); w = np.load("w.npy").astype(np.int64); g = np.load("g.npy")
ref = x @ w.T + np.array([10, -20, 30, -40, 50])
print(g.dtype, bool((g == ref).all()), bool(np.abs(ref).max() > 2**31))'
    assert_output "int64 True True"
  done
}
