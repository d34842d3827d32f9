#!/usr/bin/env bats
# rocMLIR's migraphx.attention (docs/migraphx.md, "The attention op"): Q, K, V, pre_softmax_inputs
# and the elementwise body read as dot -> body -> softmax -> dot. The graph compiles for the 7
# default targets; its --emit=tosa form passes mlir-opt-22 and matches tests/oracle/mgx_ref.py
# through the MLIR oracle, and tosac-run on gfx90a, gfx1100 and gfx1030 matches it. The variants
# tosac does not read are refused by name.

load lib/migraphx

setup() { migraphx_setup; }

@test "migraphx.attention compiles for all seven targets into a verified bundle" {
  run "$TOSAC" "$DATA/attention_op.mlir" --offload-arch=$ALL7 -o a.hipfb
  assert_success
  run clang-offload-bundler-22 --list --type=o --input=a.hipfb
  [ "$(echo "$output" | grep -c '^hipv4-amdgcn-amd-amdhsa--gfx')" -eq 7 ]
  run "$BIN/tosac-bundle" verify a.hipfb --manifest a.json
  assert_success
}

@test "its body is inlined: the scale and bias fuse after the first product, as in the decomposed form" {
  run "$TOSAC" "$DATA/attention_op.mlir" --offload-arch=gfx90a --emit=partitions -o -
  assert_success
  assert_line "  kernel 1 tosac_k1_add_mul_add over tensor<1x2x8x24xf32>"
  # each softmax (8 rows per head) runs in the prologue of the skinny P V product that reads it
  [ "$(echo "$output" | grep -c 'rownorm_matmul over tensor<2x8x16xf32>')" -eq 2 ]
}

@test "attention with a two-input body and with an empty body matches" {
  numeric attention_op
}

bad() {
  run "$TOSAC" "$1" -o out.hipfb
  assert_failure 1
  assert_output --partial "$1:$2: error: $3"
  [ ! -e out.hipfb ] && [ ! -e out.json ]
}

@test "variants, body ops outside rocMLIR's list, grouped heads and an LSE result are refused" {
  sed 's/} softmax_type = f32/} softmax_type = f32 features = causal/' "$DATA/attention_op.mlir" > f.mlir
  bad f.mlir 11:26 "'migraphx.attention' 'features' is not supported (tosac reads the plain variant"
  sed 's/%2 = migraphx.add %1, %b/%2 = migraphx.softmax %1, %b/' "$DATA/attention_op.mlir" > b.mlir
  bad b.mlir 9:12 "'migraphx.softmax' is not allowed in the body of 'migraphx.attention'"
  sed 's/%k: !migraphx.shaped<1x2x16x24xf32, 768x384x24x1>/%k: !migraphx.shaped<1x1x16x24xf32, 384x384x24x1>/' "$DATA/attention_op.mlir" > g.mlir
  bad g.mlir 5:8 "'migraphx.attention' needs Q [..., S_q, D], K [..., D, S_k] and V [..., S_k, D_v] with equal leading dims"
  sed 's/%0 = migraphx.attention/%0, %lse = migraphx.attention/' "$DATA/attention_op.mlir" > l.mlir
  bad l.mlir 5:14 "'migraphx.attention' with 2 results is not supported"
  sed 's/pre_softmax_inputs(%scale, %bias/current_seq_len(%scale, %bias/' "$DATA/attention_op.mlir" > s.mlir
  bad s.mlir 6:5 "'migraphx.attention' 'current_seq_len' is not supported"
  sed 's/softmax_type = f32/softmax_type = f64/' "$DATA/attention_op.mlir" > t.mlir
  bad t.mlir 11:22 "softmax_type must be f32, f16 or bf16, found 'f64'"
}
