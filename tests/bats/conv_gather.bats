#!/usr/bin/env bats
# The implicit-GEMM convolution gather (gemm_conv.c, docs/gemm.md "Convolution gather"): when
# every K tile lies in one tap, the per-tile addressing is one uniform delta plus a row's
# loop-invariant origin, padding a bit of the row's tap mask (on the MFMA path an offset past
# num_records, which reads zeros); other shapes keep the general per-element gather. Seeded
# random conv2d/conv3d shapes (tests/oracle/gen_conv_gemm.py: kernels 1/3/5/7, stride 1-3,
# dilation 1-2, asymmetric padding, 3/5 and 8-64 channels, batch 1-2) against the oracle on an
# MFMA, a WMMA and the FMA target, and the main loop's code on gfx90a.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
}

# sweep DTYPE ATOL SEED... [conv3d]: each seed's graph (its shape printed) on gfx90a, gfx1100,
# gfx1030; --atol: sums of up to ~1600 products in another order than the oracle's
sweep() {
  local dt=$1 atol=$2 kind=""
  shift 2
  [ "${!#}" = conv3d ] && kind=conv3d && set -- "${@:1:$#-1}"
  for s in "$@"; do
    /usr/bin/python3 "$ROOT/tests/oracle/gen_conv_gemm.py" "$dt" "$s" $kind > g$s.mlir
    head -1 g$s.mlir
    run /usr/bin/python3 "$ROOT/tests/oracle/check.py" g$s.mlir --targets=gfx90a,gfx1100,gfx1030 --atol "$atol"
    assert_success
    assert_output --partial "PASSED: 1 graph(s)"
  done
}

# conv_graph FILE OP X W B R ATTRS: an f32 OP (tosa.conv2d / tosa.conv3d) graph of input X, weights
# W, bias B and result R types with ATTRS (dilation, pad, stride), its arguments drawn in [-2, 2]
conv_graph() {
  cat > "$1" <<EOF
// oracle: arg 0 -2 2
// oracle: arg 1 -2 2
// oracle: arg 2 -2 2
func.func @main(%x: $3, %w: $4, %b: $5) -> $6 {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = $2 %x, %w, %b, %z, %z {acc_type = f32, $7} : ($3, $4, $5, tensor<1xf32>, tensor<1xf32>) -> $6
  return %0 : $6
}
EOF
}

@test "random conv2d f32 shapes (padding, stride, dilation, odd channels) match the oracle" {
  sweep f32 1e-4 1 2 4 5 10
}

@test "random conv2d f16, bf16 and i8 (zero points) shapes match the oracle" {
  sweep f16 1e-3 3 6
  sweep bf16 1e-3 7
  sweep i8 0 2 9
}

@test "random conv3d shapes match the oracle" {
  sweep f32 1e-4 1 5 conv3d
  sweep f16 1e-3 3 conv3d
}

@test "a 7x7 conv with 16 channels (49 taps: a 64-bit tap mask) and rows past M matches the oracle" {
  local x="tensor<1x9x9x16xf32>" w="tensor<24x7x7x16xf32>" b="tensor<24xf32>" r="tensor<1x5x5x24xf32>"
  conv_graph c7.mlir tosa.conv2d "$x" "$w" "$b" "$r" "dilation = array<i64: 1, 1>, pad = array<i64: 3, 3, 2, 4>, stride = array<i64: 2, 2>"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" c7.mlir --targets=gfx90a,gfx942,gfx1100,gfx1030 --atol 1e-4
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
  # the same with a K tile across taps (bk 32 > IC 16): (tap, delta) per element
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" c7.mlir --targets=gfx90a,gfx1030 --atol 1e-4 \
    --tosac-arg=--perf-config=bk=32
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "a conv3d with 48 taps (a 64-bit mask over three dims) and a split-K conv2d with batch 2 match the oracle" {
  local x="tensor<1x4x5x5x16xf32>" w="tensor<6x3x4x4x16xf32>" b="tensor<6xf32>" r="tensor<1x4x5x3x6xf32>"
  conv_graph c48.mlir tosa.conv3d "$x" "$w" "$b" "$r" "dilation = array<i64: 1, 1, 1>, pad = array<i64: 1, 1, 1, 2, 2, 1>, stride = array<i64: 1, 1, 2>"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" c48.mlir --targets=gfx90a,gfx1100,gfx1030 --atol 1e-4
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
  x="tensor<2x7x7x128xf32>" w="tensor<96x3x3x128xf32>" b="tensor<96xf32>" r="tensor<2x7x7x96xf32>"
  conv_graph sk.mlir tosa.conv2d "$x" "$w" "$b" "$r" "dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>"
  "$TOSAC" sk.mlir --offload-arch=gfx90a -o sk.hipfb
  run grep -m1 -o '"split_k": *[0-9]*' sk.json
  assert_output --regexp '"split_k": *([2-9]|[1-9][0-9])$'
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" sk.mlir --targets=gfx90a,gfx1030 --atol 1e-4
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "a conv3d with 75 taps (no 64-bit mask: the general gather) matches the oracle" {
  local x="tensor<1x4x6x6x8xf32>" w="tensor<5x3x5x5x8xf32>" b="tensor<5xf32>" r="tensor<1x4x3x6x5xf32>"
  conv_graph c75.mlir tosa.conv3d "$x" "$w" "$b" "$r" "dilation = array<i64: 1, 1, 1>, pad = array<i64: 1, 1, 2, 1, 2, 2>, stride = array<i64: 1, 2, 1>"
  run /usr/bin/python3 "$ROOT/tests/oracle/check.py" c75.mlir --targets=gfx90a,gfx1100,gfx1030 --atol 1e-4
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

# loop FILE: the main loop (the last backward branch's body) of the assembly
loop() {
  awk '/^\.LBB[0-9_]+:/ {n = $0; sub(":", "", n); body = ""; inl = 1; next}
       inl {body = body $0 "\n"}
       /s_cbranch_scc1/ && inl {last = body; inl = 0}
       END {printf "%s", last}' "$1"
}

@test "gfx90a: a padded 3x3 conv's main loop has no select, division or multiply for the gather" {
  local x="tensor<1x56x56x64xf32>" w="tensor<64x3x3x64xf32>" b="tensor<64xf32>"
  cat > c3.mlir <<EOF
func.func @main(%x: $x, %w: $w, %b: $b) -> $x {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : ($x, $w, $b, tensor<1xf32>, tensor<1xf32>) -> $x
  return %0 : $x
}
EOF
  "$TOSAC" c3.mlir --offload-arch=gfx90a --emit=asm -o c3.s
  loop c3.s > body.s
  # 64x64x32 tiles of 16x32 waves (128-byte K tiles, tuning.c's load floor): 2 x 16 MFMAs
  run grep -c "v_mfma" body.s
  assert_output 32
  run grep -c "buffer_load_dwordx4" body.s
  assert_output 4
  # the general gather took 30 other VALU instructions per iteration here (10 address
  # instructions and 4 data selects per A load); now per A load a shift for the tap bit, an add
  # and the bit-31 merge (a shift and a shift-or) and the umin that keeps the offset whole (2 in
  # the loop, docs/gemm.md), per B load one add-shift
  run grep -cE "v_cndmask|v_mul_hi|v_mul_lo|v_mul_i32|v_mul_u32|v_cmp" body.s
  assert_output 0
  run grep -c "v_min_u32" body.s
  assert_output 2
  run bash -c "grep -E '^\s+v_' body.s | grep -vc v_mfma"
  [ "$output" -le 12 ] || fail "$output VALU instructions besides MFMAs in the loop (expected <= 12)"
}
