#!/usr/bin/env bats
# Older syntax generations compile and compute what their TOSA 1.0 form computes in the oracle
# (check.py --oracle-via-tosac runs the oracle on `tosac --emit=tosa`).

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  CHECK="/usr/bin/python3 $ROOT/tests/oracle/check.py --oracle-via-tosac"
  ALL=gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200
  cd "$BATS_TEST_TMPDIR"
}

@test "fully_connected + reluN (pre-2023 form) on every target" {
  cat > fc.mlir <<'M'
func.func @main(%x: tensor<3x20xf32>, %w: tensor<7x20xf32>, %b: tensor<7xf32>) -> tensor<3x7xf32> {
  %0 = "tosa.fully_connected"(%x, %w, %b) : (tensor<3x20xf32>, tensor<7x20xf32>, tensor<7xf32>) -> tensor<3x7xf32>
  %1 = "tosa.reluN"(%0) {max_fp = 6.0 : f32, max_int = 6 : i64} : (tensor<3x7xf32>) -> tensor<3x7xf32>
  return %1 : tensor<3x7xf32>
}
M
  run $CHECK fc.mlir --targets $ALL
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "2023-24 form: 3-operand conv2d, mul with a shift attribute, clamp min_fp/max_fp, value=" {
  cat > b.mlir <<'M'
func.func @main(%x: tensor<1x9x9x3xf32>) -> tensor<1x5x5x5xf32> {
  %w = "tosa.const"() {value = dense<[[[[0.5, -0.25, 1.0]]], [[[1.0, 0.0, -1.0]]], [[[0.25, 0.25, 0.25]]], [[[-0.5, 2.0, 0.0]]], [[[0.0, 0.0, 1.5]]]]> : tensor<5x1x1x3xf32>} : () -> tensor<5x1x1x3xf32>
  %b = "tosa.const"() {value = dense<[0.1, -0.2, 0.3, 0.0, 1.0]> : tensor<5xf32>} : () -> tensor<5xf32>
  %c = tosa.conv2d %x, %w, %b {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x9x9x3xf32>, tensor<5x1x1x3xf32>, tensor<5xf32>) -> tensor<1x5x5x5xf32>
  %s = "tosa.const"() {value = dense<2.0> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
  %m = tosa.mul %c, %s {shift = 0 : i8} : (tensor<1x5x5x5xf32>, tensor<1x1x1x1xf32>) -> tensor<1x5x5x5xf32>
  %r = tosa.clamp %m {min_fp = 0.0 : f32, max_fp = 3.0 : f32, min_int = 0 : i64, max_int = 3 : i64} : (tensor<1x5x5x5xf32>) -> tensor<1x5x5x5xf32>
  return %r : tensor<1x5x5x5xf32>
}
M
  run $CHECK b.mlir --targets gfx90a,gfx1030,gfx1100
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "the ResNet-50 piece from rocMLIR (pre-2023 syntax) matches its TOSA 1.0 print" {
  g="$ROOT/../shared/testdata/rocmlir_resnet50_part_0.mlir"
  [ -f "$g" ] || skip "shared/testdata is not beside the checkout"
  # A 7x7x3 convolution sums 147 products, then three per-channel scalings by values up to 4:
  # the summation order alone moves results by up to ~2e-4 (measured with 32x32 MFMA tiles) and
  # 3.5e-4 (the heuristic's 16x16 MFMA tiles on gfx942 sum k in another order); allow
  # 5e-4 + 1e-4 |ref|.
  run $CHECK "$g" --targets gfx942,gfx1100 --atol 5e-4 --rtol 1e-4
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}
