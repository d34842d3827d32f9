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
