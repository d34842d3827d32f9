#!/usr/bin/env bats
# The frontend: the three TOSA syntax generations parse into one graph; every error class gives
# `file:line:col: error: message`, the source line and a caret under the column.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
  TESTDATA="$ROOT/../shared/testdata"
  cd "$BATS_TEST_TMPDIR"
}

# expect_error FILE LINE COL MESSAGE: exit 1, first diagnostic exactly as given, caret at COL.
expect_error() {
  run "$TOSAC" --syntax-only "$1"
  assert_failure 1
  assert_line --index 0 "$1:$2:$3: error: $4"
  local caret
  caret="$(printf '%*s^' "$(($3 - 1))" '')"
  # ${lines[@]} drops empty lines (an empty source line at end of file), so take line 3 raw.
  assert_equal "$(sed -n 3p <<< "$output")" "$caret"
}

# A function header with two 2x3 f32 arguments, for the one-op error tests.
HEAD='func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {'
TAIL='  return %a : tensor<2x3xf32>
}'

# ---------------------------------------------------------------- acceptance

@test "TOSA 1.0 (generation C): every supported op in custom form" {
  cat > c.mlir <<'M'
#loc = loc(unknown)
#loc1 = loc("model.py":3:7)
module attributes {tf_saved_model.semantics, tfl.schema_version = 3 : i32} {
  func.func @main(%x: tensor<2x3xf32> {ml_program.identifier = "x"}, %y: tensor<1x3xf32>, %i: tensor<2x3xi8>) -> (tensor<2x3xf32> {ml_program.identifier = "out"}, tensor<2x3xi32>, tensor<2x3xi1>) attributes {tf.entry_function = {inputs = "x"}} {
    %s = tosa.const_shape {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
    %izp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %0 = tosa.add %x, %y : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32> loc(#loc1)
    %1 = tosa.sub %0, %y : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    %2 = tosa.mul %1, %y, %shift : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<1xi8>) -> tensor<2x3xf32>
    %3 = tosa.maximum %2, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %4 = tosa.minimum %3, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %5 = tosa.negate %4, %zp, %zp : (tensor<2x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x3xf32>
    %6 = tosa.abs %5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %7 = tosa.exp %6 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %8 = tosa.log %7 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %9 = tosa.tanh %8 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %10 = tosa.sigmoid %9 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %11 = tosa.erf %10 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %12 = tosa.clamp %11 {max_val = 6.000000e+00 : f32, min_val = 0.000000e+00 : f32, nan_mode = "PROPAGATE"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %13 = tosa.reciprocal %12 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %14 = tosa.rsqrt %13 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %15 = tosa.floor %14 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %16 = tosa.ceil %15 : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %17 = tosa.greater %16, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %18 = tosa.greater_equal %16, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %19 = tosa.equal %16, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %20 = tosa.select %17, %16, %x : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %21 = tosa.cast %20 : (tensor<2x3xf32>) -> tensor<2x3xbf16>
    %22 = tosa.cast %21 : (tensor<2x3xbf16>) -> tensor<2x3xf32>
    %23 = tosa.mul %i, %i, %shift : (tensor<2x3xi8>, tensor<2x3xi8>, tensor<1xi8>) -> tensor<2x3xi32>
    %24 = tosa.negate %i, %izp, %izp : (tensor<2x3xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x3xi8>
    %25 = tosa.clamp %24 {max_val = 100 : i8, min_val = -100 : i8} : (tensor<2x3xi8>) -> tensor<2x3xi8>
    func.return %22, %23, %19 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi1>
  } loc(#loc)
} loc(#loc)
M
  run "$TOSAC" --syntax-only c.mlir
  assert_success
  assert_output ""
}

@test "generation B: generic form, value =, mul {shift}, legacy clamp, arith.constant" {
  cat > b.mlir <<'M'
module {
  func.func @forward(%arg0: tensor<1x4xf32> {func.read_access}, %arg1: tensor<1x4xi8>) -> (tensor<1x4xf32> {func.write_access}) {
    %cst = arith.constant dense<1.0e-05> : tensor<1x4xf32>
    %0 = "tosa.const"() {value = dense<"0xCC1834BE"> : tensor<1x4xf32>} : () -> tensor<1x4xf32>
    %1 = "tosa.sub"(%arg0, %0) : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %2 = "tosa.add"(%1, %cst) : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %3 = "tosa.rsqrt"(%2) : (tensor<1x4xf32>) -> tensor<1x4xf32>
    %4 = "tosa.mul"(%3, %1) {shift = 0 : i32} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    %5 = "tosa.clamp"(%4) {max_fp = 3.40282347E+38 : f32, max_int = 2147483647 : i64, min_fp = 0.000000e+00 : f32, min_int = 0 : i64} : (tensor<1x4xf32>) -> tensor<1x4xf32>
    %6 = "tosa.clamp"(%arg1) {min_fp = 0.0 : f32, max_fp = 6.0 : f32, min_int = 0 : i64, max_int = 6 : i64} : (tensor<1x4xi8>) -> tensor<1x4xi8>
    %7 = "tosa.negate"(%arg1) : (tensor<1x4xi8>) -> tensor<1x4xi8>
    return %5 : tensor<1x4xf32>
  }
}
M
  run "$TOSAC" --syntax-only b.mlir
  assert_success
  assert_output ""
}

@test "generation A: list attributes and properties <{...}> parse" {
  cat > a.mlir <<'M'
func.func @f(%arg0: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %0 = "tosa.const"() {value = dense<0.000000e+00> : tensor<2x64xf32>} : () -> tensor<2x64xf32>
  %1 = "tosa.add"(%arg0, %0) {unused = [1, 2], names = ["a", "b"], mode = #tosa.rounding_mode<SINGLE_ROUND>} : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32>
  %2 = "tosa.maximum"(%1, %arg0) <{nan_mode = "PROPAGATE"}> {other = array<i64: 1, 2>} : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32>
  return %2 : tensor<2x64xf32>
}
M
  run "$TOSAC" --syntax-only a.mlir
  assert_success
}

@test "constants: splat, nested, hex, hex splat, booleans, negatives, inf, f16/bf16, dense_resource" {
  cat > k.mlir <<'M'
func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xi1>, tensor<1x2x3xf16>, tensor<2xbf16>, tensor<3xi32>) {
  %0 = "tosa.const"() <{values = dense<1.5> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %1 = "tosa.const"() <{values = dense<[[1.0, -2.5], [0x7F800000, 0xFFC00000]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %2 = "tosa.const"() <{values = dense<"0x0000803F000000400000404000008040"> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %3 = "tosa.const"() <{values = dense<"0x0000803F"> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %4 = "tosa.const"() <{values = dense<[[true, false], [false, true]]> : tensor<2x2xi1>}> : () -> tensor<2x2xi1>
  %5 = "tosa.const"() <{values = dense_resource<blob_a> : tensor<1x2x3xf16>}> : () -> tensor<1x2x3xf16>
  %6 = "tosa.const"() <{values = dense<[0.1, -3.0e+38]> : tensor<2xbf16>}> : () -> tensor<2xbf16>
  %7 = "tosa.const"() <{values = dense<[-2147483648, 0, 2147483647]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %a = tosa.add %x, %0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %b = tosa.add %a, %1 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %c = tosa.add %b, %2 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %d = tosa.add %c, %3 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %d, %4, %5, %6, %7 : tensor<2x2xf32>, tensor<2x2xi1>, tensor<1x2x3xf16>, tensor<2xbf16>, tensor<3xi32>
}
{-#
  dialect_resources: {
    builtin: {
      blob_a: "0x02000000003C00400042004400450046"
    }
  }
#-}
M
  run "$TOSAC" --syntax-only k.mlir
  assert_success
  assert_output ""
}

@test "--entry picks one of several public functions; without it every public one is verified" {
  cat > two.mlir <<'M'
func.func @one(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tosa.exp %a : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @two(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = tosa.foo %a : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @helper(tensor<2xf32>) -> tensor<2xf32>
M
  run "$TOSAC" --syntax-only --entry one two.mlir
  assert_success
  run "$TOSAC" --syntax-only two.mlir
  assert_failure 1
  assert_line --index 0 "two.mlir:6:8: error: unknown operation 'tosa.foo'"
  run "$TOSAC" --syntax-only --entry three two.mlir
  assert_failure 1
  assert_output "tosac: error: no function named '@three' in two.mlir"
}

# ---------------------------------------------------------------- errors

@test "error: use of an undefined value" {
  printf '%s\n' "$HEAD" '  %0 = tosa.add %a, %c : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 21 "use of undefined value '%c'"
}

@test "error: redefinition of a value, with a note at the first definition" {
  printf '%s\n' "$HEAD" '  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>' \
    '  %0 = tosa.sub %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 3 3 "redefinition of value '%0'"
  assert_line --index 3 "e.mlir:2:3: note: previous definition is here"
}

@test "error: unknown operation" {
  printf '%s\n' "$HEAD" '  %0 = tosa.foo %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 8 "unknown operation 'tosa.foo'"
}

@test "error: known TOSA op with too few operands (generic form)" {
  printf '%s\n' "$HEAD" '  %0 = "tosa.conv2d"(%a, %b) {pad = [1, 1]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 8 "'tosa.conv2d' expects 3 to 5 operands, found 2"
}

@test "error: extension op that tosac does not support" {
  printf '%s\n' "$HEAD" '  %0 = tosa.row_gather %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 8 "operation 'tosa.row_gather' is not supported (it is not part of TOSA 1.0)"
}

@test "error: several independent errors are all reported" {
  printf '%s\n' "$HEAD" \
    '  %0 = tosa.foo %a : (tensor<2x3xf32>) -> tensor<2x3xf32>' \
    '  %1 = tosa.exp %zz : (tensor<2x3xf32>) -> tensor<2x3xf32>' \
    '  %2 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x4xf32>' \
    '  %3 = tosa.matmul %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  run "$TOSAC" --syntax-only e.mlir
  assert_failure 1
  [ "$(grep -c ': error: ' <<< "$output")" -eq 4 ]
  assert_line --index 3 "e.mlir:3:17: error: use of undefined value '%zz'"
  assert_line --index 6 "e.mlir:4:8: error: 'tosa.add' result type tensor<2x4xf32> does not match the inferred type tensor<2x3xf32>"
  assert_line --index 9 "e.mlir:5:20: error: 'tosa.matmul' A must have rank 3, found tensor<2x3xf32>"
}

@test "error: dynamic dimension without --specialize" {
  printf '%s\n' 'func.func @main(%a: tensor<4x?xf32>) -> tensor<4x?xf32> {' '  return %a : tensor<4x?xf32>' '}' > e.mlir
  expect_error e.mlir 1 30 "dynamic dimension 1 of argument '%a' has no value; compile with --specialize=a:1=V1,V2,..."
}

@test "error: unranked tensor" {
  printf '%s\n' 'func.func @main(%a: tensor<*xf32>) -> tensor<2x3xf32> {' "$TAIL" > e.mlir
  expect_error e.mlir 1 28 "unranked tensor type tensor<*xf32> is not supported; tosac needs static shapes"
}

@test "error: tensor larger than 2^40 bytes, and a dimension product that overflows" {
  printf '%s\n' 'func.func @main(%a: tensor<100000x100000x100000xf32>) -> tensor<2x3xf32> {' "$TAIL" > e.mlir
  expect_error e.mlir 1 21 "tensor type tensor<100000x100000x100000xf32> is too large (more than 2^40 bytes)"
  printf '%s\n' 'func.func @main(%a: tensor<9000000000x9000000000x9000000000xi8>) -> tensor<2x3xf32> {' "$TAIL" > e.mlir
  expect_error e.mlir 1 21 "tensor type tensor<9000000000x9000000000x9000000000xi8> has too many elements (the product of its dimensions overflows)"
}

@test "error: truncated hex literal" {
  printf '%s\n' "$HEAD" '  %c = "tosa.const"() <{values = dense<"0x0000803F0000"> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 40 "hexadecimal dense literal has 6 bytes, but tensor<2x3xf32> needs 24 (or 4 for a splat)"
}

@test "error: truncated or odd-length hex literal of an 8-bit float constant; no output written" {
  printf '%s\n' "$HEAD" '  %c = "tosa.const"() <{values = dense<"0x3801F9"> : tensor<8xf8E4M3FN>}> : () -> tensor<8xf8E4M3FN>' "$TAIL" > e.mlir
  expect_error e.mlir 2 40 "hexadecimal dense literal has 3 bytes, but tensor<8xf8E4M3FN> needs 8 (or 1 for a splat)"
  printf '%s\n' "$HEAD" '  %c = "tosa.const"() <{values = dense<"0x3801F9807F0A0C3"> : tensor<8xf8E5M2FNUZ>}> : () -> tensor<8xf8E5M2FNUZ>' "$TAIL" > e.mlir
  expect_error e.mlir 2 40 "hexadecimal literal has an odd number of digits (15)"
  run "$TOSAC" e.mlir --offload-arch=gfx942 -o e.hipfb
  assert_failure 1
  [ ! -e e.hipfb ]
}

@test "error: invalid hex digit points at the digit" {
  printf '%s\n' "$HEAD" '  %c = "tosa.const"() <{values = dense<"0x0000G03F"> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 47 "invalid hexadecimal digit 'G' in dense literal"
}

@test "error: wrong element count in a dense literal" {
  printf '%s\n' "$HEAD" '  %c = "tosa.const"() <{values = dense<[1.0, 2.0, 3.0]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 40 "dense literal has 3 elements, but tensor<2x3xf32> has 6"
}

@test "error: integer literal out of range for its element type" {
  printf '%s\n' "$HEAD" '  %c = "tosa.const"() <{values = dense<[1, -129]> : tensor<2xi8>}> : () -> tensor<2xi8>' "$TAIL" > e.mlir
  expect_error e.mlir 2 44 "integer -129 does not fit in i8"
}

@test "error: unknown dense_resource blob" {
  printf '%s\n' "$HEAD" '  %c = "tosa.const"() <{values = dense_resource<nope> : tensor<2xf32>}> : () -> tensor<2xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 49 "unknown resource 'nope' (no such blob in the file's dialect_resources)"
}

@test "error: unterminated function body (unexpected end of file)" {
  printf '%s\n' "$HEAD" '  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>' > e.mlir
  # at the end of the last token, where mlir-opt-22 points (conformance.bats), with a note at '{'
  expect_error e.mlir 2 79 "unterminated '{': unexpected end of file"
  assert_line --index 3 "e.mlir:1:78: note: '{' opened here"
}

@test "error: unterminated string" {
  printf '%s\n' "$HEAD" '  %c = "tosa.const"() <{values = dense<"0x00> : tensor<1xi8>}> : () -> tensor<1xi8>' "$TAIL" > e.mlir
  expect_error e.mlir 2 40 "unterminated string literal"
}

@test "error: unexpected end of file in the resource section, and a truncated op" {
  printf '%s\n' "$HEAD" "$TAIL" '{-#' '  dialect_resources: {' '    builtin: {' > e.mlir
  expect_error e.mlir 7 1 "unexpected end of file; expected '}' to close the resource dictionary"
  printf '%s\n' "$HEAD" '  %0 = tosa.exp %a : (tensor<2x3xf32>) ->' '}' > e.mlir
  expect_error e.mlir 3 1 "expected a tensor type, found '}'"
}

@test "error: result type differs from the inferred type (both named)" {
  printf '%s\n' "$HEAD" '  %0 = tosa.equal %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 8 "'tosa.equal' result type tensor<2x3xf32> does not match the inferred type tensor<2x3xi1>"
}

@test "error: shapes that do not broadcast" {
  printf '%s\n' 'func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<2x3xf32> {' \
    '  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 21 "'tosa.add' operand shapes tensor<2x3xf32> and tensor<2x4xf32> are not broadcast-compatible (dimension 1: 3 vs 4)"
}

@test "error: unequal ranks" {
  printf '%s\n' 'func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {' \
    '  %0 = tosa.mul %a, %b {shift = 0 : i8} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 21 "'tosa.mul' operands must have equal ranks, found tensor<2x3xf32> and tensor<3xf32> (insert a tosa.reshape to add unit dims)"
}

@test "error: element type not allowed (float-only op on integers)" {
  printf '%s\n' 'func.func @main(%a: tensor<2x3xi32>) -> tensor<2x3xf32> {' \
    '  %0 = tosa.exp %a : (tensor<2x3xi32>) -> tensor<2x3xi32>' '  return %a : tensor<2x3xi32>' '}' > e.mlir
  expect_error e.mlir 2 17 "'tosa.exp' does not support element type i32 (operand 0, '%a'); expected f16, bf16, f32"
}

@test "error: mixed element types and a non-i1 select condition" {
  printf '%s\n' 'func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) -> tensor<2x3xf32> {' \
    '  %0 = tosa.sub %a, %b : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 21 "'tosa.sub' operands must have the same element type, found f32 and i32"
  printf '%s\n' "$HEAD" '  %0 = tosa.select %a, %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 20 "'tosa.select' condition must have element type i1, found f32"
}

@test "a cast to the same type: accepted (upstream's meaning), an error with --tosa-strict" {
  printf '%s\n' "$HEAD" '  %0 = tosa.cast %a : (tensor<2x3xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  run "$TOSAC" --syntax-only e.mlir
  assert_success
  run "$TOSAC" --syntax-only --tosa-strict e.mlir
  assert_failure 1
  assert_line --index 0 "e.mlir:2:8: error: 'tosa.cast' from f32 to the same type is outside the TOSA 1.0 profiles (--tosa-strict)"
}

@test "error: a shift operand that is not a constant" {
  printf '%s\n' 'func.func @main(%a: tensor<2x3xf32>, %s: tensor<1xi8>) -> tensor<2x3xf32> {' \
    '  %0 = tosa.mul %a, %a, %s : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<1xi8>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 25 "the shift operand of 'tosa.mul' must be a constant (tosa.const), but '%s' is a function argument"
}

@test "error: operand count" {
  printf '%s\n' "$HEAD" '  %0 = tosa.add %a, %b, %a : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 8 "'tosa.add' expects 2 operands, found 3"
}

@test "error: clamp without bounds, and min above max" {
  printf '%s\n' "$HEAD" '  %0 = tosa.clamp %a : (tensor<2x3xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 8 "'tosa.clamp' requires the attribute 'min_val' (or legacy 'min_fp')"
  printf '%s\n' "$HEAD" '  %0 = tosa.clamp %a {min_val = 6.0 : f32, max_val = 0.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 23 "'tosa.clamp' min_val is greater than max_val"
}

@test "error: operand type in the signature differs from the value's type" {
  printf '%s\n' "$HEAD" '  %0 = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 44 "operand 1 is declared as tensor<2x4xf32>, but '%b' has type tensor<2x3xf32>"
}

@test "error: returned values against the declared results" {
  printf '%s\n' "$HEAD" '  return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>' '}' > e.mlir
  expect_error e.mlir 2 3 "return has 2 operands, but the function declares 1 result"
  printf '%s\n' 'func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) -> tensor<2x3xf32> {' '  func.return %b : tensor<2x3xi32>' '}' > e.mlir
  expect_error e.mlir 2 15 "returned value '%b' has type tensor<2x3xi32>, but the function declares result 0 as tensor<2x3xf32>"
  printf '%s\n' "$HEAD" '}' > e.mlir
  expect_error e.mlir 2 1 "function @main ends without func.return"
}

@test "error: unexpected character" {
  printf '%s\n' "$HEAD" '  %0 = tosa.add %a, %b ; (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>' "$TAIL" > e.mlir
  expect_error e.mlir 2 24 "unexpected character ';'"
}

# ---------------------------------------------------------------- real graphs (no crash, clear error)

@test "shared testdata: every model parses and verifies" {
  [ -d "$TESTDATA" ] || skip "no ../shared/testdata"
  for f in rocmlir_bert_part_0 rocmlir_bert_part_37 rocmlir_bert_part_48 rocmlir_resnet18 \
           rocmlir_resnet50_blk rocmlir_resnet50_part_0 torq_mbv2_softmax_i8; do
    run "$TOSAC" --syntax-only "$TESTDATA/$f.mlir"
    assert_success
    assert_output ""
  done
  run "$TOSAC" --syntax-only "$TESTDATA/llvm_ops.mlir"
  assert_failure 1
  assert_line --index 0 --partial "llvm_ops.mlir:59:53: error: element type '!quant.uniform' is not supported"
  assert_line "tosac: note: too many errors emitted, stopping now"
  run "$TOSAC" --syntax-only --entry test_add "$TESTDATA/llvm_ops.mlir"
  assert_success
}
