#!/usr/bin/env bats
# The frontend beyond elementwise ops: matmul/conv/pool/reduction/data ops in all three syntax
# generations fold to the canonical form of docs/graph.md, and each verifier error class gives
# the exact diagnostic at the exact column.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
  cd "$BATS_TEST_TMPDIR"
}

expect_error() {
  run "$TOSAC" --syntax-only "$1"
  assert_failure 1
  assert_line --index 0 "$1:$2:$3: error: $4"
  local caret
  caret="$(printf '%*s^' "$(($3 - 1))" '')"
  assert_equal "$(sed -n 3p <<< "$output")" "$caret"
}

@test "legacy forms: quantization_info, fully_connected, reluN, relu, div, pad attributes, -1 sizes" {
  cat > l.mlir <<'M'
func.func @main(%x: tensor<2x4xi8>, %w: tensor<3x4xi8>, %b: tensor<3xi32>, %f: tensor<2x4xf32>, %i: tensor<2x4xi32>) -> (tensor<2x3xi32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xi32>, tensor<4x6xf32>, tensor<1x4xf32>) {
  %0 = "tosa.fully_connected"(%x, %w, %b) {quantization_info = #tosa.conv_quant<input_zp = -128, weight_zp = 0>} : (tensor<2x4xi8>, tensor<3x4xi8>, tensor<3xi32>) -> tensor<2x3xi32>
  %1 = "tosa.reluN"(%f) {max_fp = 6.0 : f32, max_int = 6 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = "tosa.relu"(%f) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = "tosa.div"(%i, %i) : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
  %p = "tosa.const"() {value = dense<[[1, 1], [1, 1]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %4 = "tosa.pad"(%f, %p) {pad_const_fp = 0.5 : f32} : (tensor<2x4xf32>, tensor<2x2xi32>) -> tensor<4x6xf32>
  %5 = "tosa.slice"(%f) {start = array<i64: 1, 0>, size = array<i64: -1, 4>} : (tensor<2x4xf32>) -> tensor<1x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xi32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xi32>, tensor<4x6xf32>, tensor<1x4xf32>
}
M
  run "$TOSAC" --emit=tosa l.mlir
  assert_success
  assert_line --partial '"tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>'
  assert_line --partial '"tosa.conv2d"(%1, %3, %arg2, %4, %5) <{acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (tensor<2x1x1x4xi8>, tensor<3x1x1x4xi8>, tensor<3xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x1x1x3xi32>'
  assert_line --partial '"tosa.clamp"(%arg3) <{max_val = 6.00000000e+00 : f32, min_val = 0.00000000e+00 : f32, nan_mode = #tosa.nan_mode<PROPAGATE>}>'
  assert_line --partial '"tosa.clamp"(%arg3) <{max_val = 0x7F800000 : f32, min_val = 0.00000000e+00 : f32'
  assert_line --partial '"tosa.intdiv"(%arg4, %arg4)'
  assert_line --partial '"tosa.const_shape"() <{values = dense<[1, 1, 1, 1]> : tensor<4xindex>}> : () -> !tosa.shape<4>'
  assert_line --partial '"tosa.const"() <{values = dense<5.00000000e-01> : tensor<1xf32>}> : () -> tensor<1xf32>'
  assert_line --partial '"tosa.const_shape"() <{values = dense<[1, 4]> : tensor<2xindex>}> : () -> !tosa.shape<2>'
  command -v mlir-opt-22 >/dev/null || skip "no mlir-opt-22"
  "$TOSAC" --emit=tosa l.mlir -o l1.mlir
  run mlir-opt-22 l1.mlir
  assert_success
}

@test "exact geometry: floor-sized stride-2 convs trim padding or slice trailing rows" {
  cat > g.mlir <<'M'
func.func @main(%x: tensor<1x10x10x3xf32>, %w: tensor<4x7x7x3xf32>, %v: tensor<4x1x1x3xf32>, %b: tensor<4xf32>) -> (tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>, tensor<1x5x5x3xf32>) {
  %0 = "tosa.conv2d"(%x, %w, %b) {dilation = [1, 1], pad = [3, 3, 3, 3], stride = [2, 2]} : (tensor<1x10x10x3xf32>, tensor<4x7x7x3xf32>, tensor<4xf32>) -> tensor<1x5x5x4xf32>
  %1 = "tosa.conv2d"(%x, %v, %b) {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x10x10x3xf32>, tensor<4x1x1x3xf32>, tensor<4xf32>) -> tensor<1x5x5x4xf32>
  %2 = "tosa.max_pool2d"(%x) {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x10x10x3xf32>) -> tensor<1x5x5x3xf32>
  return %0, %1, %2 : tensor<1x5x5x4xf32>, tensor<1x5x5x4xf32>, tensor<1x5x5x3xf32>
}
M
  run "$TOSAC" --emit=tosa g.mlir
  assert_success
  assert_line --partial 'pad = array<i64: 3, 2, 3, 2>, stride = array<i64: 2, 2>}> : (tensor<1x10x10x3xf32>, tensor<4x7x7x3xf32>'
  assert_line --partial '"tosa.const_shape"() <{values = dense<[1, 9, 9, 3]> : tensor<4xindex>}>'
  assert_line --partial '"tosa.slice"(%arg0, %'
  assert_line --partial 'pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>}> : (tensor<1x9x9x3xf32>, tensor<4x1x1x3xf32>'
  assert_line --partial 'kernel = array<i64: 3, 3>, nan_mode = #tosa.nan_mode<PROPAGATE>, pad = array<i64: 1, 0, 1, 0>'
}

@test "multi-result ops and regions: fft2d, cond_if, while_loop" {
  cat > r.mlir <<'M'
func.func @main(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i1>, %re: tensor<1x4x8xf32>) -> (tensor<f32>, tensor<1x4x8xf32>) {
  %0 = tosa.cond_if %c : tensor<i1> -> tensor<f32> {
    %1 = tosa.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    tosa.yield %1 : tensor<f32>
  } else {
    %1 = tosa.sub %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    tosa.yield %1 : tensor<f32>
  }
  %2:2 = tosa.fft2d %re, %re {inverse = false} : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>)
  return %0, %2#1 : tensor<f32>, tensor<1x4x8xf32>
}
M
  run "$TOSAC" --emit=tosa r.mlir
  assert_success
  assert_line '    %0 = "tosa.cond_if"(%arg2) ({'
  assert_line '      "tosa.yield"(%1) : (tensor<f32>) -> ()'
  assert_line '    return %0, %3#1 : tensor<f32>, tensor<1x4x8xf32>'
  "$TOSAC" --emit=tosa r.mlir -o r1.mlir
  "$TOSAC" --emit=tosa r1.mlir -o r2.mlir
  cmp r1.mlir r2.mlir
}

@test "error: weight channels differ from the input's" {
  cat > e.mlir <<'M'
func.func @main(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x5xf32>, %b: tensor<6xf32>) -> tensor<1x8x8x6xf32> {
  %0 = "tosa.conv2d"(%x, %w, %b) {dilation = [1, 1], pad = [1, 1, 1, 1], stride = [1, 1]} : (tensor<1x8x8x4xf32>, tensor<6x3x3x5xf32>, tensor<6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}
M
  expect_error e.mlir 2 26 "'tosa.conv2d' weight has 5 input channels, the input 4"
}

@test "transpose_conv2d with tosac's dilation extension: the dilated span sets the output, out_pad may crop a tap's whole span; errors" {
  cat > d.mlir <<'M'
func.func @main(%x: tensor<1x5x4x8xf32>, %w: tensor<4x3x3x8xf32>, %b: tensor<4xf32>, %y: tensor<1x4x4x8xf32>) -> (tensor<1x15x13x4xf32>, tensor<1x2x2x4xf32>) {
  %0 = "tosa.transpose_conv2d"(%x, %w, %b) {dilation = [2, 2], out_pad = [-2, 0, -2, 1], stride = [3, 3]} : (tensor<1x5x4x8xf32>, tensor<4x3x3x8xf32>, tensor<4xf32>) -> tensor<1x15x13x4xf32>
  %1 = "tosa.transpose_conv2d"(%y, %w, %b) {dilation = [1, 1], out_pad = [-3, -1, -3, -1], stride = [1, 1]} : (tensor<1x4x4x8xf32>, tensor<4x3x3x8xf32>, tensor<4xf32>) -> tensor<1x2x2x4xf32>
  return %0, %1 : tensor<1x15x13x4xf32>, tensor<1x2x2x4xf32>
}
M
  run "$TOSAC" --syntax-only d.mlir
  assert_success
  # without the attribute TOSA's rule holds: out_pad > -kernel
  sed 's/{dilation = \[1, 1\], /{/' d.mlir > e.mlir
  expect_error e.mlir 3 45 "'tosa.transpose_conv2d' out_pad must be greater than -kernel"
  sed 's/dilation = \[2, 2\]/dilation = [0, 2]/' d.mlir > e.mlir
  expect_error e.mlir 2 45 "'tosa.transpose_conv2d' dilation[0] must be at least 1, found 0"
  sed 's/dilation = \[2, 2\]/dilation = [2]/' d.mlir > e.mlir
  expect_error e.mlir 2 45 "'tosa.transpose_conv2d' dilation must have 2 elements, found 1"
  sed 's/-3, -1, -3, -1/-3, -3, -3, -1/' d.mlir > e.mlir
  expect_error e.mlir 3 64 "'tosa.transpose_conv2d' out_pad leaves no output in spatial dimension 0"
}

@test "depthwise_conv2d with tosac's out_pad extension (transposed): C*M -> C and C -> C*M channels, the transposed geometry; errors" {
  cat > d.mlir <<'M'
func.func @main(%x: tensor<1x5x4x6xf32>, %w: tensor<3x3x2x3xf32>, %b: tensor<1xf32>, %y: tensor<1x4x4x2xf32>) -> (tensor<1x11x9x2xf32>, tensor<1x4x4x6xf32>) {
  %0 = "tosa.depthwise_conv2d"(%x, %w, %b) {dilation = [2, 2], out_pad = [-1, -1, -1, -1], stride = [2, 2]} : (tensor<1x5x4x6xf32>, tensor<3x3x2x3xf32>, tensor<1xf32>) -> tensor<1x11x9x2xf32>
  %1 = "tosa.depthwise_conv2d"(%y, %w, %b) {dilation = [1, 1], out_pad = [-1, -1, -1, -1], stride = [1, 1]} : (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>, tensor<1xf32>) -> tensor<1x4x4x6xf32>
  return %0, %1 : tensor<1x11x9x2xf32>, tensor<1x4x4x6xf32>
}
M
  run "$TOSAC" --emit=tosa d.mlir
  assert_success
  assert_line --partial '<{acc_type = f32, dilation = array<i64: 2, 2>, out_pad = array<i64: -1, -1, -1, -1>, stride = array<i64: 2, 2>}> : (tensor<1x5x4x6xf32>, tensor<3x3x2x3xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x11x9x2xf32>'
  # (5 - 1) * 2 - 1 - 1 + (3 - 1) * 2 + 1 = 11 rows: one fewer is the wrong type
  sed 's/1x11x9x2/1x10x9x2/g' d.mlir > e.mlir
  expect_error e.mlir 2 8 "'tosa.depthwise_conv2d' result type tensor<1x10x9x2xf32> does not match the inferred type tensor<1x11x9x2xf32>"
  sed 's/tensor<1x5x4x6xf32>/tensor<1x5x4x5xf32>/g' d.mlir > e.mlir
  expect_error e.mlir 2 36 "'tosa.depthwise_conv2d' (transposed) weight has 2 x 3 channels, the input 5"
  sed 's/-1, -1, -1, -1], stride = \[1/-1, -6, -1, -1], stride = [1/' d.mlir > e.mlir
  expect_error e.mlir 3 64 "'tosa.depthwise_conv2d' out_pad leaves no output in spatial dimension 0"
  sed 's/dilation = \[2, 2\], //' d.mlir > e.mlir
  expect_error e.mlir 2 8 "'tosa.depthwise_conv2d' requires the attribute 'dilation'"
}

@test "error: zero point that is not a constant" {
  cat > e.mlir <<'M'
func.func @main(%a: tensor<1x2x3xi8>, %b: tensor<1x3x4xi8>, %z: tensor<1xi8>) -> tensor<1x2x4xi32> {
  %0 = tosa.matmul %a, %b, %z, %z : (tensor<1x2x3xi8>, tensor<1x3x4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x4xi32>
  return %0 : tensor<1x2x4xi32>
}
M
  expect_error e.mlir 2 28 "the a_zp operand of 'tosa.matmul' must be a constant (tosa.const or tosa.const_shape), but '%z' is a function argument"
}

@test "error: perms that are not a permutation" {
  cat > e.mlir <<'M'
func.func @main(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tosa.transpose %a {perms = array<i32: 2, 0, 0>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}
M
  expect_error e.mlir 2 27 "'tosa.transpose' perms is not a permutation of 0..2"
}

@test "error: reshape that changes the element count (shape from tosa.const_shape)" {
  cat > e.mlir <<'M'
func.func @main(%a: tensor<2x3x4xf32>) -> tensor<5x5xf32> {
  %s = tosa.const_shape {values = dense<[5, 5]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %0 = tosa.reshape %a, %s : (tensor<2x3x4xf32>, !tosa.shape<2>) -> tensor<5x5xf32>
  return %0 : tensor<5x5xf32>
}
M
  expect_error e.mlir 3 25 "'tosa.reshape' from tensor<2x3x4xf32> to tensor<5x5xf32> changes the element count"
}

@test "error: reduction axis out of range" {
  cat > e.mlir <<'M'
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = tosa.reduce_sum %a {axis = 2 : i32} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}
M
  expect_error e.mlir 2 28 "'tosa.reduce_sum' axis 2 is out of range for rank 2"
}

@test "error: slice outside the input" {
  cat > e.mlir <<'M'
func.func @main(%a: tensor<4x4xf32>) -> tensor<2x3xf32> {
  %0 = "tosa.slice"(%a) {start = array<i64: 3, 0>, size = array<i64: 2, 3>} : (tensor<4x4xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
M
  expect_error e.mlir 2 52 "'tosa.slice' dimension 0: start 3 and size 2 do not fit in 4"
}

@test "error: pooling pad not smaller than the kernel" {
  cat > e.mlir <<'M'
func.func @main(%a: tensor<1x8x8x2xf32>) -> tensor<1x4x4x2xf32> {
  %0 = tosa.max_pool2d %a {kernel = array<i64: 2, 2>, pad = array<i64: 2, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x2xf32>) -> tensor<1x4x4x2xf32>
  return %0 : tensor<1x4x4x2xf32>
}
M
  expect_error e.mlir 2 55 "'tosa.max_pool2d' pad[0] = 2 must be smaller than the kernel (2)"
}

@test "error: accumulator type not allowed for the input type" {
  cat > e.mlir <<'M'
func.func @main(%x: tensor<1x4x4x4xi8>, %w: tensor<8x1x1x4xi8>, %b: tensor<8xi32>) -> tensor<1x4x4x8xi32> {
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x4xi8>, tensor<8x1x1x4xi8>, tensor<8xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x8xi32>
  return %0 : tensor<1x4x4x8xi32>
}
M
  expect_error e.mlir 3 40 "'tosa.conv2d' acc_type f32 is not allowed for i8 inputs (TOSA 1.0: i8 -> i32, i16 -> i48, f16 -> f16 or f32, bf16/f32 -> f32, f8 -> f16)"
}

@test "error: tosa.yield outside a region" {
  printf '%s\n' 'func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {' '  tosa.yield %a : tensor<2xf32>' '}' > e.mlir
  expect_error e.mlir 2 3 "'tosa.yield' outside a cond_if / while_loop region"
}

@test "error: operand type in the signature differs, with a note at the definition" {
  cat > e.mlir <<'M'
func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = tosa.transpose %a {perms = array<i32: 1, 0>} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
M
  expect_error e.mlir 2 56 "operand 0 is declared as tensor<3x2xf32>, but '%a' has type tensor<2x3xf32>"
  assert_line --index 3 "e.mlir:1:17: note: operand defined here"
}
