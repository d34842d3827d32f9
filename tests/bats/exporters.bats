#!/usr/bin/env bats
# TOSA as exporters write it (docs/ops.md, "Exporters' dialects"): tensor, arith, math and linalg
# ops mixed into TOSA and the generic op form, lowered into the same graph. Seeded graphs of each
# family (tests/oracle/gen_exporters.py, shapes from the seed) compile for the 7 default targets
# and match the oracle (mlir-opt-22, which reads these dialects itself) on an MFMA, a WMMA and the
# FMA target; a PyTorch-style BERT layer and ResNet block in the mixed form compile to the same
# kernels as their pure-TOSA forms; bad input gets exact diagnostics.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  B="$ROOT/${TOSAC_BUILD:-build}"
  TOSAC="$B/bin/tosac"
  GEN=(/usr/bin/python3 "$ROOT/tests/oracle/gen_exporters.py")
  cd "$BATS_TEST_TMPDIR"
}

# oracle GRAPH SEED: tosac + tosac-run against the oracle on gfx90a, gfx1100, gfx1030
oracle() {
  TOSAC_BUILD="$B" run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$@" --targets=gfx90a,gfx1100,gfx1030
  assert_success
  assert_output --partial "PASSED:"
}

# family FAMILY SEED...: each seed's graph is valid MLIR, compiles for the default targets (7
# code objects) and matches the oracle with inputs from the same seed
family() {
  local f=$1 s
  shift
  for s in "$@"; do
    "${GEN[@]}" "$f" "$s" > "$f$s.mlir"
    mlir-opt-22 "$f$s.mlir" > /dev/null
    "$TOSAC" "$f$s.mlir" -o "$f$s.hipfb"
    run /usr/bin/python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["targets"]))' "$f$s.json"
    assert_output 7
    oracle "$f$s.mlir" --seed="$s"
  done
}

# kernels FILE TARGET [OPTS]: the kernel families of one target's plan
kernels() {
  "$TOSAC" "$1" --offload-arch="$2" -o k.hipfb "${@:3}" > /dev/null
  /usr/bin/python3 -c 'import json; t = json.load(open("k.json"))["targets"][0]; print(t["kernel_count"], *[k["family"] for k in t["kernels"]])'
}

@test "tensor ops (slices, insert, collapse/expand, reshape, cast, concat, pad): 7 targets, oracle" {
  family tensor 1 2 3
}

@test "arith and math ops with fastmath flags, cmpf/cmpi, select, casts: 7 targets, oracle" {
  family arith 1 2 3
}

@test "linalg matmul forms, fill, softmax, transpose, broadcast, map, reduce, elementwise, generic: 7 targets, oracle" {
  family linalg 1 2
}

@test "the generic op form (builtin.module, func.func, func.return, arith, tensor) with a dense_resource blob" {
  family generic 1 2
  run "$TOSAC" generic1.mlir --emit=tosa -O0 -o -
  assert_success
  assert_line --partial "func.func @main("
  assert_line --partial "tosa.tanh"
}

@test "every family as mlir-opt-22 --mlir-print-op-generic prints it (linalg regions, tensor.pad, scalar constants): oracle" {
  for f in tensor arith linalg; do
    "${GEN[@]}" "$f" 5 | mlir-opt-22 --mlir-print-op-generic > "g$f.mlir"
    grep -q '"func.func"() <{' "g$f.mlir"
    ! grep -q '^ *%[^ ]* = [a-z]' "g$f.mlir" # no op left in its custom form
    oracle "g$f.mlir" --seed=5
  done
}

@test "a PyTorch-style BERT layer in the mixed form: the pure-TOSA kernels (GELU in its GEMM, one attention kernel), oracle" {
  G=(/usr/bin/python3 "$ROOT/tests/oracle/gen_transformer.py" bert --seed=3)
  "${G[@]}" > pure.mlir
  "${G[@]}" --syntax=mixed > mixed.mlir
  mlir-opt-22 mixed.mlir > /dev/null
  # the mixed form really is mixed: no TOSA matmul, softmax or transpose left
  [ "$(grep -c 'linalg.batch_matmul' mixed.mlir)" -eq 8 ]
  [ "$(grep -c 'linalg.softmax' mixed.mlir)" -eq 1 ]
  ! grep -q 'tosa.matmul\|tosa.transpose\|tosa.reduce_max\|tosa.erf' mixed.mlir
  for t in gfx90a gfx1100 gfx1030; do
    run kernels pure.mlir $t
    local want="$output"
    run kernels mixed.mlir $t
    assert_output "$want"
  done
  run kernels mixed.mlir gfx90a
  assert_output "7 gemm attention gemm rownorm gemm gemm rownorm"
  oracle mixed.mlir --seed=1
}

@test "a ResNet block in the mixed form (tensor.pad, linalg.transpose, linalg.generic ReLU, arith.addf): the pure-TOSA kernels, oracle" {
  /usr/bin/python3 "$ROOT/tests/oracle/gen_bn.py" resnet 1 > pure.mlir
  /usr/bin/python3 "$ROOT/tests/oracle/gen_bn.py" resnet_mixed 1 > mixed.mlir
  mlir-opt-22 mixed.mlir > /dev/null
  for t in gfx90a gfx1100 gfx1030; do
    run kernels pure.mlir $t
    local want="$output"
    run kernels mixed.mlir $t
    assert_output "$want"
  done
  run kernels mixed.mlir gfx90a
  # the NCHW input's transpose is read in place by the first convolution (operand views)
  assert_output "3 gemm gemm elementwise"
  # tensor.pad's zeros moved into the convolutions: no pad is left at -O0 either
  run "$TOSAC" mixed.mlir --emit=tosa -O0 -o -
  refute_output --partial "tosa.pad"
  oracle mixed.mlir --seed=2
}

@test "scalars outside linalg bodies (tensor.extract, scalar arith/math, splat/from_elements of computed scalars): 7 targets, oracle" {
  family scalar 1 2 3
  # a splat of a computed scalar is a broadcast its consumer's kernel reads (no copy of the splat)
  cat > sp.mlir <<'G'
func.func @main(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %i = arith.constant 1 : index
  %j = arith.constant 5 : index
  %s = tensor.extract %a[%i, %j] : tensor<4x8xf32>
  %e = math.exp %s : f32
  %sp = tensor.splat %e : tensor<4x8xf32>
  %r = arith.mulf %b, %sp : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
G
  run kernels sp.mlir gfx90a
  assert_output "3 data elementwise elementwise"
  oracle sp.mlir --seed=4
  # tensor.extract of a constant is a constant, and so is a bitcast of one (1.5f = 0x3fc00000)
  cat > c.mlir <<'G'
func.func @main() -> (tensor<2x3xf32>, tensor<2xi32>) {
  %c = arith.constant dense<[1.5, 2.5]> : tensor<2xf32>
  %k = arith.constant 1 : index
  %s = tensor.extract %c[%k] : tensor<2xf32>
  %t = tensor.splat %s : tensor<2x3xf32>
  %b = tensor.bitcast %c : tensor<2xf32> to tensor<2xi32>
  return %t, %b : tensor<2x3xf32>, tensor<2xi32>
}
G
  mlir-opt-22 c.mlir > /dev/null
  run "$TOSAC" c.mlir --emit=tosa -O0 -o -
  assert_success
  assert_line --partial '"tosa.const"() <{values = dense<2.50000000e+00> : tensor<2x3xf32>}>'
  assert_line --partial '"tosa.const"() <{values = dense<[1069547520, 1075838976]> : tensor<2xi32>}>'
  # the generic form of from_elements / splat of constants folds the same way
  mlir-opt-22 --mlir-print-op-generic c.mlir > cg.mlir
  grep -q '"tensor.splat"' cg.mlir
  run "$TOSAC" cg.mlir --emit=tosa -O0 -o -
  assert_success
  assert_line --partial '"tosa.const"() <{values = dense<2.50000000e+00> : tensor<2x3xf32>}>'
}

@test "strided extract_slice / insert_slice: 7 targets, oracle; a stride that divides its dimension is one slice kernel" {
  family strided 1 2 3
  cat > st.mlir <<'G'
func.func @main(%a: tensor<8x12xf32>) -> tensor<3x4xf32> {
  %s = tensor.extract_slice %a[2, 1] [3, 4] [2, 3] : tensor<8x12xf32> to tensor<3x4xf32>
  return %s : tensor<3x4xf32>
}
G
  run kernels st.mlir gfx90a
  assert_output "1 data"
  oracle st.mlir --seed=2
}

@test "cmpf's 16 predicates on NaNs (unordered = not the opposite ordered one), extui / uitofp of i8 and i16, bitcast of a constant: 7 targets, oracle" {
  family nan 1 2 3
}

@test "the scalar, strided and nan families as mlir-opt-22 --mlir-print-op-generic prints them: oracle" {
  for f in scalar strided nan; do
    "${GEN[@]}" "$f" 4 | mlir-opt-22 --mlir-print-op-generic > "g$f.mlir"
    ! grep -q '^ *%[^ ]* = [a-z]' "g$f.mlir" # no op left in its custom form
    oracle "g$f.mlir" --seed=4
  done
}

@test "bad input: the op and the subset tosac reads, at the op; exit 1, nothing written" {
  cat > bad.mlir <<'G'
func.func @main(%a: tensor<4x6xf32>, %q: tensor<4x6xi32>) -> tensor<4x6xf32> {
  %i = arith.constant 0 : index
  %j = arith.addi %i, %i : index
  %s = tensor.extract_slice %a[0, 0] [2, 3] [2, 0] : tensor<4x6xf32> to tensor<2x3xf32>
  %e = tensor.extract %a[%j, %i] : tensor<4x6xf32>
  %b = arith.bitcast %a : tensor<4x6xf32> to tensor<4x6xi32>
  %u = arith.uitofp %q : tensor<4x6xi32> to tensor<4x6xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1)[s0] -> (d0, s0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x6xf32>) outs(%a : tensor<4x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x6xf32>
  %c = linalg.conv_2d_nhwc_hwcf ins(%a, %a : tensor<4x6xf32>, tensor<4x6xf32>) outs(%a : tensor<4x6xf32>) -> tensor<4x6xf32>
  %h = arith.constant 2.0 : f32
  %k = linalg.transpose ins(%h : f32) outs(%a : tensor<4x6xf32>) permutation = [1, 0]
  %t = tensor.bitcast %a : tensor<4x6xf32> to tensor<4x6xi16>
  %x = tensor.extract %a[%i] : tensor<4x6xf32>
  %z = arith.constant 7 : index
  %y = tensor.extract %a[%i, %z] : tensor<4x6xf32>
  return %a : tensor<4x6xf32>
}
G
  run "$TOSAC" bad.mlir -o bad.hipfb
  assert_failure 1
  assert_line --index 0 "bad.mlir:4:8: error: 'tensor.extract_slice' with stride 0 is not supported (strides are positive)"
  assert_line "bad.mlir:5:26: error: 'tensor.extract' index '%j' is not a constant: tosac reads tensor.extract at constant indices (arith.constant N : index)"
  assert_line "bad.mlir:6:8: error: 'arith.bitcast' from f32 to i32 of a computed tensor is not supported (tosac has no op that reinterprets bits; a constant's bits are read)"
  assert_line "bad.mlir:7:8: error: 'arith.uitofp' of i32 is not supported (tosac reads unsigned i1, i8 and i16; its integers are signed i32)"
  assert_line "bad.mlir:8:8: error: 'linalg.generic' has an affine map with symbols (tosac reads projected permutations)"
  assert_line "bad.mlir:12:8: error: operation 'linalg.conv_2d_nhwc_hwcf' is not supported: of the linalg dialect tosac reads matmul, batch_matmul, matmul_transpose_a/b, batch_matmul_transpose_a/b, fill, softmax, transpose, broadcast, reduce, map, elementwise, generic, index, yield (docs/ops.md, \"Exporters' dialects\")"
  assert_line "bad.mlir:14:29: error: 'linalg.transpose' on the scalar '%h' is not supported: it takes a tensor (scalars are read by arith and math ops, tensor.from_elements, tensor.splat, linalg.fill and in linalg bodies)"
  assert_line "bad.mlir:15:8: error: 'tensor.bitcast' from f32 to i16: the widths differ"
  assert_line "bad.mlir:16:8: error: 'tensor.extract' takes 2 indices for a rank-2 tensor, found 1"
  assert_line "bad.mlir:18:30: error: 'tensor.extract' index 7 is outside 0..5 of dimension 1"
  [ ! -e bad.hipfb ] && [ ! -e bad.json ]
}

@test "bad input: a dialect op's declared operand type against its value's type, at the operand; nothing written" {
  cat > d.mlir <<'G'
func.func @main(%a: tensor<16x8xf64>, %b: tensor<8x12xf32>, %c: tensor<16x12xf32>, %h: tensor<8x4xf16>) -> tensor<16x12xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x12xf32>) outs(%c : tensor<16x12xf32>) -> tensor<16x12xf32>
  %1 = tensor.extract_slice %h[0, 0] [2, 4] [1, 1] : tensor<8x4xf32> to tensor<2x4xf16>
  %2 = tensor.expand_shape %b [[0], [1, 2]] output_shape [8, 3, 4] : tensor<8x12xf16> into tensor<8x3x4xf16>
  %3 = "arith.addf"(%c, %b) : (tensor<16x12xf32>, tensor<16x12xf32>) -> tensor<16x12xf32>
  %4 = linalg.fill ins(%h : f16) outs(%c : tensor<16x12xf32>) -> tensor<16x12xf32>
  return %0 : tensor<16x12xf32>
}
G
  run "$TOSAC" d.mlir -o d.hipfb
  assert_failure 1
  assert_line --index 0 "d.mlir:2:26: error: operand 0 of 'linalg.matmul' is declared as tensor<16x8xf32>, but '%a' has type tensor<16x8xf64>"
  assert_line "d.mlir:3:29: error: operand 0 of 'tensor.extract_slice' is declared as tensor<8x4xf32>, but '%h' has type tensor<8x4xf16>"
  assert_line "d.mlir:4:28: error: operand 0 of 'tensor.expand_shape' is declared as tensor<8x12xf16>, but '%b' has type tensor<8x12xf32>"
  assert_line "d.mlir:5:25: error: operand 1 of 'arith.addf' is declared as tensor<16x12xf32>, but '%b' has type tensor<8x12xf32>"
  assert_line "d.mlir:6:24: error: operand 0 of 'linalg.fill' is declared as f16, but '%h' has type tensor<8x4xf16>"
  [ ! -e d.hipfb ] && [ ! -e d.json ]
}

@test "bad generic form: a block argument's type against function_type, a function without sym_name" {
  cat > g.mlir <<'G'
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"}> ({
  ^bb0(%x: tensor<3xf32>):
    "func.return"(%x) : (tensor<3xf32>) -> ()
  }) : () -> ()
}) : () -> ()
G
  run "$TOSAC" g.mlir --syntax-only
  assert_failure 1
  assert_line --index 0 "g.mlir:2:36: error: function_type lists argument 0 as tensor<2xf32>, but the entry block's '%x' is tensor<3xf32>"
  cat > n.mlir <<'G'
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>}> ({
  ^bb0(%x: tensor<2xf32>):
    "func.return"(%x) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
G
  run "$TOSAC" n.mlir --syntax-only
  assert_failure 1
  assert_line --index 0 "n.mlir:2:3: error: 'func.func' has no sym_name"
  # a linalg body that reads its output other than as the reduction's accumulator
  cat > r.mlir <<'G'
func.func @main(%a: tensor<4x6xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4x6xf32>) outs(%o : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %out : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
G
  run "$TOSAC" r.mlir --syntax-only
  assert_failure 1
  assert_line --index 0 "r.mlir:4:10: error: 'math.exp' reads the reduction's output argument; tosac reads it only as the accumulator of one arith.addf / addi / mulf / maximumf / maxnumf / minimumf / minnumf"
}
