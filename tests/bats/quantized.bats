#!/usr/bin/env bats
# Quantised graphs end to end, as TFLite converters write them: int8 conv / depthwise / matmul
# with i32 accumulation and zero points, then a (per-channel) rescale epilogue back to int8,
# then a table lookup. Integers compare exactly with the oracle.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  CHECK="/usr/bin/python3 $ROOT/tests/oracle/check.py"
  ALL=gfx908,gfx90a,gfx942,gfx950,gfx1030,gfx1100,gfx1200
  cd "$BATS_TEST_TMPDIR"
}

@test "int8 conv2d + per-channel rescale is one kernel and exact on every target" {
  cat > q.mlir <<'M'
func.func @main(%x: tensor<1x6x6x3xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) -> tensor<1x4x4x4xi8> {
  %izp = "tosa.const"() <{values = dense<1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.conv2d %x, %w, %b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x6x6x3xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x4xi32>
  %m = "tosa.const"() <{values = dense<[1073741824, 1200000000, 1500000000, 1900000000]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %s = "tosa.const"() <{values = dense<[38, 38, 39, 40]> : tensor<4xi8>}> : () -> tensor<4xi8>
  %i0 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %o0 = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %1 = tosa.rescale %0, %m, %s, %i0, %o0 {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x4xi8>
  return %1 : tensor<1x4x4x4xi8>
}
M
  run "$ROOT/${TOSAC_BUILD:-build}/bin/tosac" q.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "  kernel 0 tosac_k0_conv2d_rescale over tensor<1x4x4x4xi32>"
  run $CHECK q.mlir --targets $ALL
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "int8 depthwise conv + per-channel rescale, then an int8 table lookup" {
  /usr/bin/python3 - <<'PY'
tbl = ", ".join(str(((i * 37) % 256) - 128) for i in range(256))
open("d.mlir", "w").write(f'''func.func @main(%x: tensor<1x7x7x4xi8>, %w: tensor<3x3x4x1xi8>, %b: tensor<4xi32>) -> tensor<1x5x5x4xi8> {{
  %izp = "tosa.const"() <{{values = dense<-2> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %0 = tosa.depthwise_conv2d %x, %w, %b, %izp, %wzp {{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}} : (tensor<1x7x7x4xi8>, tensor<3x3x4x1xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x5x5x4xi32>
  %m = "tosa.const"() <{{values = dense<[1073741824, 1300000000, 1600000000, 2000000000]> : tensor<4xi32>}}> : () -> tensor<4xi32>
  %s = "tosa.const"() <{{values = dense<[37, 38, 38, 39]> : tensor<4xi8>}}> : () -> tensor<4xi8>
  %i0 = "tosa.const"() <{{values = dense<0> : tensor<1xi32>}}> : () -> tensor<1xi32>
  %o0 = "tosa.const"() <{{values = dense<-1> : tensor<1xi8>}}> : () -> tensor<1xi8>
  %1 = tosa.rescale %0, %m, %s, %i0, %o0 {{input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true}} : (tensor<1x5x5x4xi32>, tensor<4xi32>, tensor<4xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x5x5x4xi8>
  %t = "tosa.const"() <{{values = dense<[{tbl}]> : tensor<256xi8>}}> : () -> tensor<256xi8>
  %2 = tosa.table %1, %t : (tensor<1x5x5x4xi8>, tensor<256xi8>) -> tensor<1x5x5x4xi8>
  return %2 : tensor<1x5x5x4xi8>
}}
''')
PY
  run $CHECK d.mlir --targets $ALL
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "int8 matmul with zero points + per-tensor rescale" {
  cat > m.mlir <<'M'
func.func @main(%a: tensor<2x9x13xi8>, %b: tensor<2x13x11xi8>) -> tensor<2x9x11xi8> {
  %azp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %bzp = "tosa.const"() <{values = dense<-4> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.matmul %a, %b, %azp, %bzp : (tensor<2x9x13xi8>, tensor<2x13x11xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x9x11xi32>
  %m = "tosa.const"() <{values = dense<1518500250> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<40> : tensor<1xi8>}> : () -> tensor<1xi8>
  %i0 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %o0 = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %1 = tosa.rescale %0, %m, %s, %i0, %o0 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<2x9x11xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<2x9x11xi8>
  return %1 : tensor<2x9x11xi8>
}
M
  run $CHECK m.mlir --targets $ALL
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}
