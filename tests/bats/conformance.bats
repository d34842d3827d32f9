#!/usr/bin/env bats
# Conformance with upstream MLIR (issue 17): diagnostics at the token mlir-opt-22 points at,
# inputs mlir-opt-22 accepts (i1 booleans, aliases), i32 matmul (refused with a note; the forms
# outside the TOSA 1.0 profiles that tosac compiles are in upstream_tosa.bats); graphs whose
# result is a view of an input run.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  TOSAC="$ROOT/${TOSAC_BUILD:-build}/bin/tosac"
  RUN="$ROOT/${TOSAC_BUILD:-build}/bin/tosac-run"
  CHECK="/usr/bin/python3 $ROOT/tests/oracle/check.py"
  cd "$BATS_TEST_TMPDIR"
}

# The first line of tosac's and of mlir-opt-22's diagnostics for $1.
both() {
  run "$TOSAC" "$1" --syntax-only
  assert_failure 1
  TOSAC_LINE=${lines[0]}
  run mlir-opt-22 "$1"
  UPSTREAM_LINE=${lines[0]}
}

@test "a missing ':' in return: at the column mlir-opt-22 reports" {
  printf 'func.func @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n  %%y = tosa.abs %%x : (tensor<4xf32>) -> tensor<4xf32>\n  return %%y tensor<4xf32>\n}\n' > ret.mlir
  both ret.mlir
  [ "$TOSAC_LINE" = "ret.mlir:3:12: error: expected ':'" ]
  [ "$UPSTREAM_LINE" = "ret.mlir:3:12: error: expected ':'" ]
}

@test "missing tokens are reported just after the text they should follow, as upstream does" {
  printf 'func.func @main(%%x tensor<4xf32>) -> tensor<4xf32> {\n  return %%x : tensor<4xf32>\n}\n' > arg.mlir
  both arg.mlir
  assert_equal "$TOSAC_LINE" "arg.mlir:1:19: error: expected ':' after the argument name, found 'tensor'"
  assert_equal "${UPSTREAM_LINE%%: error*}" "arg.mlir:1:19"
  printf 'func.func @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n  %%y = tosa.abs %%x : (tensor<4xf32>) tensor<4xf32>\n  return %%y : tensor<4xf32>\n}\n' > arrow.mlir
  both arrow.mlir
  assert_equal "$TOSAC_LINE" "arrow.mlir:2:37: error: expected '->' after the operand types, found 'tensor'"
  assert_equal "${UPSTREAM_LINE%%: error*}" "arrow.mlir:2:37"
  printf 'func.func @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n  %%y = tosa.abs %%x : (tensor<4xf32> -> tensor<4xf32>\n  return %%y : tensor<4xf32>\n}\n' > paren.mlir
  both paren.mlir
  assert_equal "$TOSAC_LINE" "paren.mlir:2:36: error: expected ')' to close the operand types, found '->'"
  assert_equal "${UPSTREAM_LINE%%: error*}" "paren.mlir:2:36"
}

@test "more malformed inputs: tosac reports at upstream's line:column" {
  body() { printf 'func.func @main(%%x: tensor<4xf32>) -> tensor<4xf32> {\n%s\n  return %%y : tensor<4xf32>\n}\n' "$1" > "$2"; }
  body '  %y tosa.abs %x : (tensor<4xf32>) -> tensor<4xf32>' eq.mlir
  body '  %y = tosa.abs %z : (tensor<4xf32>) -> tensor<4xf32>' undef.mlir
  body '  %y = tosa.abs %x : (tensor<4xf32>) -> tensor<4x>' elem.mlir
  body '  %y = tosa.abs %x, : (tensor<4xf32>) -> tensor<4xf32>' comma.mlir
  body $'  %y = tosa.abs %x : (tensor<4xf32>) -> tensor<4xf32>\n  %y = tosa.abs %x : (tensor<4xf32>) -> tensor<4xf32>' redef.mlir
  body '  %y = tosa.abs %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>' ntypes.mlir
  body '  %y = tosa.abs %x : tensor<4xf32> -> tensor<4xf32>' fntype.mlir
  local expect=("eq.mlir:2:5: error: expected '=' after the result names, found 'tosa.abs'"
                "undef.mlir:2:17: error: use of undefined value '%z'"
                "elem.mlir:2:50: error: expected an element type in tensor type, found '>'"
                "comma.mlir:2:20: error: expected SSA operand"
                "redef.mlir:3:3: error: redefinition of value '%y'"
                "ntypes.mlir:2:17: error: 'tosa.abs' has 1 operand, but its type lists 2"
                "fntype.mlir:2:22: error: expected a function type '(operand types) -> result types', found 'tensor<4xf32>'")
  local i=0
  for f in eq undef elem comma redef ntypes fntype; do
    both $f.mlir
    assert_equal "$TOSAC_LINE" "${expect[$i]}"
    assert_equal "${UPSTREAM_LINE%%: error*}" "${TOSAC_LINE%%: error*}"
    i=$((i + 1))
  done
}

@test "booleans written as i1 integers (scale32 = 1 : i1) mean true/false; the oracle agrees" {
  cat > r.mlir <<'EOF2'
func.func @main(%a: tensor<4xi32>) -> tensor<4xi32> {
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.rescale %a, %m, %s, %iz, %oz {rounding_mode = SINGLE_ROUND, scale32 = 1 : i1, per_channel = 0 : i1, input_unsigned = false, output_unsigned = 0 : i1} : (tensor<4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
EOF2
  run "$TOSAC" r.mlir --emit=tosa
  assert_success
  assert_output --partial "input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>, scale32 = true}"
  run $CHECK r.mlir --targets=gfx90a,gfx1100
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
  sed -i 's/scale32 = 1 : i1/scale32 = 2 : i1/' r.mlir
  run "$TOSAC" r.mlir --syntax-only
  assert_failure 1
  assert_line --index 0 --partial "error: integer 2 does not fit type i1"
}

@test "i32 tosa.matmul: compiled (upstream_tosa.bats runs it against the oracle); -Wtosa-profile says it is outside TOSA 1.0" {
  cat > mm.mlir <<'EOF2'
func.func @main(%a: tensor<1x4x8xi32>, %b: tensor<1x8x4xi32>) -> tensor<1x4x4xi32> {
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %y = tosa.matmul %a, %b, %z, %z : (tensor<1x4x8xi32>, tensor<1x8x4xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<1x4x4xi32>
  return %y : tensor<1x4x4xi32>
}
EOF2
  mlir-opt-22 mm.mlir > /dev/null # upstream's verifier accepts it
  run "$TOSAC" mm.mlir --syntax-only
  assert_success
  assert_output ""
  run "$TOSAC" mm.mlir --syntax-only -Wtosa-profile
  assert_success
  assert_line --index 0 "mm.mlir:3:20: warning: 'tosa.matmul' on i32 is outside the TOSA 1.0 profiles [-Wtosa-profile]"
}

@test "top-level type and attribute aliases are resolved where they are used" {
  cat > a.mlir <<'EOF2'
!t = tensor<1x4x4x2xf32>
!o = tensor<1x2x2x2xf32>
#k = array<i64: 2, 2>
#map = affine_map<(d0) -> (d0)>
func.func @main(%x: !t) -> !o {
  %y = tosa.max_pool2d %x {kernel = #k, stride = #k, pad = array<i64: 0, 0, 0, 0>} : (!t) -> !o
  %z = tosa.abs %y : (!o) -> !o
  return %z : !o
}
EOF2
  mlir-opt-22 a.mlir > /dev/null
  run "$TOSAC" a.mlir --emit=tosa
  assert_success
  assert_line --index 1 "  func.func @main(%arg0: tensor<1x4x4x2xf32>) -> (tensor<1x2x2x2xf32>) {"
  assert_output --partial 'kernel = array<i64: 2, 2>, nan_mode = #tosa.nan_mode<PROPAGATE>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>}'
  # the expanded graph runs like the one written without aliases
  "$TOSAC" a.mlir --emit=tosa -o plain.mlir
  run $CHECK plain.mlir --targets=gfx90a
  assert_success
  "$TOSAC" a.mlir --offload-arch=gfx90a --embed-ir -o a.hipfb
  "$TOSAC" plain.mlir --offload-arch=gfx90a --embed-ir -o p.hipfb
  run "$RUN" a.hipfb --input="1x4x4x2xf32=1 -2 3 -4 5 -6 7 -8 9 -10 11 -12 13 -14 15 -16 17 -18 19 -20 21 -22 23 -24 25 -26 27 -28 29 -30 31 -32"
  assert_success
  local got=$output
  run "$RUN" p.hipfb --input="1x4x4x2xf32=1 -2 3 -4 5 -6 7 -8 9 -10 11 -12 13 -14 15 -16 17 -18 19 -20 21 -22 23 -24 25 -26 27 -28 29 -30 31 -32"
  assert_equal "$got" "$output"
  # an alias that is not defined, and one naming itself
  printf '!t = !t\nfunc.func @main(%%x: !t) -> !t {\n  return %%x : !t\n}\n' > self.mlir
  run "$TOSAC" self.mlir --syntax-only
  assert_failure 1
  assert_line --index 0 "self.mlir:1:6: error: aliases refer to each other more than 16 deep"
}

@test "a graph whose result is a view of its input compiles to copies and runs" {
  cat > v.mlir <<'EOF2'
func.func @main(%x: tensor<2x4xf32>) -> tensor<8xf32> {
  %s = tosa.const_shape {values = dense<8> : tensor<1xindex>} : () -> !tosa.shape<1>
  %y = tosa.reshape %x, %s : (tensor<2x4xf32>, !tosa.shape<1>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
EOF2
  "$TOSAC" v.mlir --offload-arch=gfx90a,gfx1100 --embed-ir -o v.hipfb
  run /usr/bin/python3 -c 'import json; t = json.load(open("v.json"))["targets"][0]; print(t["kernel_count"], [l["kind"] for l in t["launches"]])'
  assert_output "0 ['copy']"
  run "$ROOT/${TOSAC_BUILD:-build}/bin/tosac-bundle" verify v.hipfb --manifest v.json
  assert_output "ok: 2 code objects, 0 kernels, manifest agrees"
  run "$RUN" v.hipfb --target=gfx1100 --input="2x4xf32=1 2 3 4 5 6 7 8"
  assert_success
  assert_output $'result[0]: hal.buffer_view\n8xf32=1 2 3 4 5 6 7 8'
  run $CHECK v.mlir --targets=gfx90a,gfx1100
  assert_success
}

@test "scalar arith.constant through tensor.from_elements / tensor.splat feeds TOSA operands; the oracle agrees" {
  # mul's shift, add's operand, pad's pad_const and an i1 operand, as producers write them
  cat > sc.mlir <<'EOF2'
func.func @main(%a: tensor<2x4xf32>, %b: tensor<2x4xi32>, %m: tensor<2x4xi1>) -> (tensor<2x4xf32>, tensor<2x4xi32>, tensor<2x6xf32>, tensor<2x4xi1>) {
  %half = arith.constant 0.5 : f32
  %neg = arith.constant -1.25 : f32
  %three = arith.constant 3 : i32
  %zero = arith.constant 0 : i8
  %pc = arith.constant 7.0 : f32
  %yes = arith.constant true
  %no = arith.constant 0 : i1
  %s = tensor.splat %half : tensor<2x4xf32>
  %v = tensor.from_elements %half, %neg, %half, %neg : tensor<1x4xf32>
  %sh = tensor.from_elements %zero : tensor<1xi8>
  %x = tosa.mul %a, %s, %sh : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<1xi8>) -> tensor<2x4xf32>
  %y = tosa.add %x, %v : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  %t = tensor.splat %three : tensor<1x1xi32>
  %z = tosa.mul %b, %t, %sh : (tensor<2x4xi32>, tensor<1x1xi32>, tensor<1xi8>) -> tensor<2x4xi32>
  %padding = tosa.const_shape {values = dense<[0, 0, 1, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %pv = tensor.from_elements %pc : tensor<1xf32>
  %p = tosa.pad %a, %padding, %pv : (tensor<2x4xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<2x6xf32>
  %bits = tensor.from_elements %yes, %no, %no, %yes : tensor<1x4xi1>
  %l = tosa.logical_and %m, %bits : (tensor<2x4xi1>, tensor<1x4xi1>) -> tensor<2x4xi1>
  return %y, %z, %p, %l : tensor<2x4xf32>, tensor<2x4xi32>, tensor<2x6xf32>, tensor<2x4xi1>
}
EOF2
  mlir-opt-22 --verify-each sc.mlir > /dev/null
  run "$TOSAC" sc.mlir --emit=tosa -o -
  assert_success
  assert_line --index 2 '    %0 = "tosa.const"() <{values = dense<5.00000000e-01> : tensor<2x4xf32>}> : () -> tensor<2x4xf32>'
  assert_line --index 3 '    %1 = "tosa.const"() <{values = dense<[[5.00000000e-01, -1.25000000e+00, 5.00000000e-01, -1.25000000e+00]]> : tensor<1x4xf32>}> : () -> tensor<1x4xf32>'
  run $CHECK sc.mlir --targets=gfx90a,gfx1100
  assert_success
  assert_output --partial "ok sc.mlir [gfx1100]: 4 results match"
}

@test "a scalar used as a TOSA operand or a tensor given to from_elements: upstream's words and column" {
  printf 'func.func @main(%%a: tensor<4xf32>) -> tensor<4xf32> {\n  %%c = arith.constant 0.5 : f32\n  %%0 = "tosa.add"(%%a, %%c) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>\n  return %%0 : tensor<4xf32>\n}\n' > op.mlir
  both op.mlir
  assert_equal "$TOSAC_LINE" "op.mlir:3:23: error: use of value '%c' expects different type than prior uses: 'tensor<1xf32>' vs 'f32' (TOSA operands are tensors: wrap the scalar with tensor.from_elements or tensor.splat)"
  assert_equal "$UPSTREAM_LINE" "op.mlir:3:23: error: use of value '%c' expects different type than prior uses: 'tensor<1xf32>' vs 'f32'"
  printf 'func.func @main(%%a: tensor<1xf32>) -> tensor<1xf32> {\n  %%t = tensor.from_elements %%a : tensor<1xf32>\n  return %%t : tensor<1xf32>\n}\n' > fe.mlir
  both fe.mlir
  assert_equal "$TOSAC_LINE" "fe.mlir:2:29: error: use of value '%a' expects different type than prior uses: 'f32' vs 'tensor<1xf32>' (tensor.from_elements and tensor.splat take scalars: arith.constant 0.5 : f32)"
  assert_equal "$UPSTREAM_LINE" "fe.mlir:2:29: error: use of value '%a' expects different type than prior uses: 'f32' vs 'tensor<1xf32>'"
  printf 'func.func @main(%%a: tensor<4xf32>) -> tensor<4xf32> {\n  %%c = arith.constant 0.5 : f32\n  %%t = tensor.from_elements %%c : tensor<2xf32>\n  return %%a : tensor<4xf32>\n}\n' > n.mlir
  both n.mlir
  assert_equal "$TOSAC_LINE" "n.mlir:3:29: error: custom op 'tensor.from_elements' number of operands and types do not match: got 1 operands and 2 types"
  assert_equal "$UPSTREAM_LINE" "$TOSAC_LINE"
  printf 'func.func @main(%%a: tensor<4xf32>) -> tensor<4xf32> {\n  %%c = arith.constant 0.5 : f32\n  %%t = tensor.splat %%c : tensor<4xf16>\n  return %%a : tensor<4xf32>\n}\n' > sp.mlir
  both sp.mlir
  assert_equal "$TOSAC_LINE" "sp.mlir:3:21: error: use of value '%c' expects different type than prior uses: 'f16' vs 'f32'"
  assert_equal "$UPSTREAM_LINE" "$TOSAC_LINE"
  # a scalar type in an op's signature: TOSA operands are tensors (upstream: at the op, 3:8)
  printf 'func.func @main(%%a: tensor<4xf32>) -> tensor<4xf32> {\n  %%c = arith.constant 0.5 : f32\n  %%0 = tosa.add %%a, %%c : (tensor<4xf32>, f32) -> tensor<4xf32>\n  return %%0 : tensor<4xf32>\n}\n' > sig.mlir
  both sig.mlir
  assert_equal "$TOSAC_LINE" "sig.mlir:3:42: error: scalar type 'f32' is not supported; use a tensor type such as tensor<f32>"
  assert_equal "$UPSTREAM_LINE" "sig.mlir:3:8: error: 'tosa.add' op operand #1 must be tosa-conformant tensor of number values, but got 'f32'"
}

@test "unterminated '{', region or module: at upstream's line:column for truncated files, a note at the opener" {
  local f=(
    'func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = tosa.abs %x : (tensor<4xf32>) -> tensor<4xf32>\n  return %y : tensor<4xf32>\n'
    'func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = tosa.abs %x : (tensor<4xf32>) -> tensor<4xf32>'
    'func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x : tensor<4xf32>\n  // a comment  \n\n  \n'
    'func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x : tensor<4xf32>  '
    'func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %z = "tosa.const"() <{values = dense<1.0> : tensor<4xf32>'
    'func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %y = "tosa.const"() {values = dense<1.0> : tensor<4xf32>\n}\n'
    'module {\nfunc.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x : tensor<4xf32>\n}\n'
    'module {'
    'func.func @main(%x: tensor<4xf32>) -> tensor<4xf32>\n\n {'
    'func.func @main(%a: tensor<f32>, %c: tensor<i1>) -> tensor<f32> {\n  %0 = tosa.cond_if %c : tensor<i1> -> tensor<f32> {\n    %1 = tosa.add %a, %a : (tensor<f32>, tensor<f32>) -> tensor<f32>\n'
  )
  local want=(
    "t0.mlir:3:28: error: unterminated '{': unexpected end of file"
    "t1.mlir:2:53: error: unterminated '{': unexpected end of file"
    "t2.mlir:2:28: error: unterminated '{': unexpected end of file"
    "t3.mlir:2:28: error: unterminated '{': unexpected end of file"
    "t4.mlir:2:59: error: unterminated '{': unexpected end of file"
    "t5.mlir:3:2: error: unterminated '{': unexpected end of file"
    "t6.mlir:4:2: error: unterminated 'module': unexpected end of file"
    "t7.mlir:1:7: error: unterminated 'module': unexpected end of file"
    "t8.mlir:1:52: error: unterminated '{': unexpected end of file"
    "t9.mlir:3:69: error: unterminated '{': unexpected end of file"
  )
  for i in "${!f[@]}"; do
    printf "${f[$i]//%/%%}" > t$i.mlir
    both t$i.mlir
    assert_equal "$TOSAC_LINE" "${want[$i]}"
    assert_equal "${UPSTREAM_LINE%%: error*}" "${TOSAC_LINE%%: error*}"
  done
  run "$TOSAC" --syntax-only t7.mlir
  assert_output "t7.mlir:1:7: error: unterminated 'module': unexpected end of file
module {
      ^
t7.mlir:1:1: note: 'module' opened here
module {
^"
}
