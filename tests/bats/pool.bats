#!/usr/bin/env bats
# pool.bats: avg_pool2d and max_pool2d (kernel_pool.c) on seeded random TOSA 1.0 graphs (padding
# up to kernel-1, stride > kernel, kernel = input size, batch > 1) against the MLIR oracle on
# every default target, plus hand-checked edge values (divisor excludes padding, i8 rounding,
# NaN modes).

setup_file() {
  export ROOT="$BATS_TEST_DIRNAME/../.."
  export B="$ROOT/${TOSAC_BUILD:-build}"
  export GEN="$ROOT/tests/oracle/gen_conv_pool.py"
}

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  cd "$ROOT"
}

TARGETS=gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200

oracle() {
  local g="$BATS_TEST_TMPDIR/$1-$2-$3.mlir"
  /usr/bin/python3 "$GEN" "$@" > "$g"
  TOSAC_BUILD="$B" run /usr/bin/python3 tests/oracle/check.py "$g" --targets=$TARGETS
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

# run_pool MLIR-BODY INPUT-PYTHON-EXPR: compile for gfx90a, run, print the output as a list
run_pool() {
  printf '%s\n' "$1" > "$BATS_TEST_TMPDIR/p.mlir"
  /usr/bin/python3 -c 'import numpy as np; np.save("'"$BATS_TEST_TMPDIR"'/x.npy", '"$2"')'
  run "$B/bin/tosac" "$BATS_TEST_TMPDIR/p.mlir" --embed-ir --offload-arch=gfx90a -o "$BATS_TEST_TMPDIR/p.hipfb"
  assert_success
  run "$B/bin/tosac-run" "$BATS_TEST_TMPDIR/p.hipfb" --target=gfx90a --input=@"$BATS_TEST_TMPDIR/x.npy" --output=@"$BATS_TEST_TMPDIR/y.npy"
  assert_success
  run /usr/bin/python3 -c 'import numpy as np; print(np.load("'"$BATS_TEST_TMPDIR"'/y.npy").ravel().tolist())'
}

@test "avg_pool2d f32, f16 and bf16 against the oracle" {
  oracle avg f32 1
  oracle avg f32 3
  oracle avg f16 1
  oracle avg bf16 2
}

@test "avg_pool2d i8 with zero points against the oracle" {
  oracle avg i8 1
  oracle avg i8 2
}

@test "max_pool2d f32, f16, bf16, i8 against the oracle" {
  oracle max f32 1
  oracle max f16 2
  oracle max bf16 1
  oracle max i8 1
}

@test "avg_pool2d: the divisor counts only real elements at padded edges" {
  # 1x3 row [1 2 4], kernel 1x3, pad 1 left/right, stride 1: (1+2)/2, (1+2+4)/3, (2+4)/2
  run_pool 'func.func @main(%x: tensor<1x1x3x1xf32>) -> tensor<1x1x3x1xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.avg_pool2d %x, %z, %z {acc_type = f32, kernel = array<i64: 1, 3>, pad = array<i64: 0, 0, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x1x3x1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x3x1xf32>
  return %y : tensor<1x1x3x1xf32>
}' 'np.array([1, 2, 4], np.float32).reshape(1, 1, 3, 1)'
  assert_output "[1.5, 2.3333332538604736, 3.0]"
}

@test "avg_pool2d i8: TOSA rounding and zero points" {
  # windows of 2 (stride 2): (x - izp) summed, times the multiplier 2^30+1 >> 31 with rounding
  # (the +1 pushes exact halves away from -inf), + ozp, clamped. izp=-3, ozp=5:
  # [1,2]->(4+5)/2=4.5->5 (+5=10); [-8,-7]->(-5-4)/2=-4.5->-5 (+5=0);
  # [127,127]->130->135 clamped 127; [-128,-128]->-125->-120
  run_pool 'func.func @main(%x: tensor<1x1x8x1xi8>) -> tensor<1x1x4x1xi8> {
  %iz = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.avg_pool2d %x, %iz, %oz {acc_type = i32, kernel = array<i64: 1, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 2>} : (tensor<1x1x8x1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x4x1xi8>
  return %y : tensor<1x1x4x1xi8>
}' 'np.array([1, 2, -8, -7, 127, 127, -128, -128], np.int8).reshape(1, 1, 8, 1)'
  assert_output "[10, 0, 127, -120]"
}

@test "max_pool2d nan_mode: PROPAGATE returns NaN, IGNORE skips it" {
  local body='func.func @main(%x: tensor<1x1x4x1xf32>) -> tensor<1x1x2x1xf32> {
  %y = tosa.max_pool2d %x {kernel = array<i64: 1, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 2>, nan_mode = MODE} : (tensor<1x1x4x1xf32>) -> tensor<1x1x2x1xf32>
  return %y : tensor<1x1x2x1xf32>
}'
  local x='np.array([1, np.nan, -3, -2], np.float32).reshape(1, 1, 4, 1)'
  run_pool "${body/MODE/PROPAGATE}" "$x"
  assert_output "[nan, -2.0]"
  run_pool "${body/MODE/IGNORE}" "$x"
  assert_output "[1.0, -2.0]"
}

@test "max_pool2d: stride larger than the kernel and padded windows" {
  # row [5 -1 -7 3 9 -2], kernel 2, stride 3, pad 1 left 0 right: windows {5}, {-7,3}
  run_pool 'func.func @main(%x: tensor<1x1x6x1xf32>) -> tensor<1x1x2x1xf32> {
  %y = tosa.max_pool2d %x {kernel = array<i64: 1, 2>, pad = array<i64: 0, 0, 1, 0>, stride = array<i64: 1, 3>} : (tensor<1x1x6x1xf32>) -> tensor<1x1x2x1xf32>
  return %y : tensor<1x1x2x1xf32>
}' 'np.array([-5, -1, -7, 3, 9, -2], np.float32).reshape(1, 1, 6, 1)'
  assert_output "[-5.0, 3.0]"
}
