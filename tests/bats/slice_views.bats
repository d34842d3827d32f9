#!/usr/bin/env bats
# Slice views (docs/partitioning.md "Slice views"): a tosa.slice whose result is one contiguous
# run of its input's row-major elements, starting on a 256-byte boundary, launches nothing; its
# readers read the input's buffer from the slice's first element. Seeded graphs (tests/oracle/gen_sliceview.py): a decode step's
# fused QKV result sliced into Q, K and V (K and V appended to KV-cache arguments by
# tosa.concat, one kernel reading two slices of one buffer) and row / run / box slices of an
# elementwise result, against the MLIR oracle on gfx90a (MFMA), gfx1100 (WMMA) and gfx1030 (FMA),
# as machine code and as IR; the launch counts of a GPT-2-small decode step.

bats_load_library bats-support
bats_load_library bats-assert
load lib/setup

setup() {
  tosac_setup
  CHECK+=(--targets gfx90a,gfx1100,gfx1030)
}

gen() { gen_seeded gen_sliceview.py "$1" "$2"; }

@test "a decode step's Q, K and V slices of the fused projection launch nothing: the concats and the attention read its buffer at their offsets" {
  gen decode 1
  run "$TOSAC" decode1.mlir --offload-arch=gfx90a,gfx1100,gfx1030 --emit=partitions
  assert_success
  assert_line "target gfx90a: 5 kernels, 5 launches, workspace 1536 bytes"
  assert_line "target gfx1030: 5 kernels, 5 launches, workspace 1536 bytes"
  refute_output --partial "_slice over"
  assert_line "    reads b1 b9 (from element 128); writes b4"
  assert_line "    reads b2 b9 (from element 256); writes b5"
  assert_line "    reads b9 b4 b5; writes b3"
  assert_line "    reads b9 b9 (from element 256); writes b6"
  # TOSAC_NO_FUSION keeps every slice a copy kernel
  TOSAC_NO_FUSION=1 run "$TOSAC" decode1.mlir --offload-arch=gfx90a --emit=partitions
  assert_output --partial "_slice over"
  for s in 2 3 4; do gen decode $s; done
  run "${CHECK[@]}" decode1.mlir decode2.mlir decode3.mlir decode4.mlir
  assert_success
  assert_output --partial "PASSED: 4 graph(s)"
  TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir run "${CHECK[@]}" decode2.mlir decode3.mlir
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
}

@test "whole rows of an elementwise result are read in place; a run off a 256-byte boundary and a strided box stay copy kernels" {
  gen rows 1
  run "$TOSAC" rows1.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line "target gfx90a: 7 kernels, 7 launches, workspace 1536 bytes"
  assert_line "    reads b6 (from element 128); writes b1"
  assert_line "    reads b6 (from element 128); writes b2"
  assert_line "  kernel 1 tosac_k1_slice over tensor<1x1x2xf32>"
  assert_line "  kernel 2 tosac_k2_slice over tensor<2x2x2xf32>"
  for s in 2 3 4 5; do gen rows $s; done
  run "${CHECK[@]}" rows1.mlir rows2.mlir rows3.mlir rows4.mlir rows5.mlir
  assert_success
  assert_output --partial "PASSED: 5 graph(s)"
  TOSAC_EXEC=ir TOSAC_HIPEMU_EXEC=ir run "${CHECK[@]}" rows2.mlir rows3.mlir
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
}

@test "GPT-2-small decode step (12 layers, KV 1024): no slice or concat kernels; split skinny GEMMs reduce in their last work-group on gfx942" {
  /usr/bin/python3 "$ROOT/tests/bench/gen_model.py" gpt2 --layers 12 --kv 1024 --vocab 50257 --dtype f16 > gpt2.mlir
  run "$TOSAC" gpt2.mlir --offload-arch=gfx942,gfx1030 --emit=partitions
  assert_success
  # (61: the 25 layer norms run in the prologues of the skinny GEMMs reading them, norm_gemv.bats)
  assert_line --regexp "^target gfx942: 61 kernels, 61 launches, workspace [0-9]+ bytes$"
  assert_line --regexp "^target gfx1030: 61 kernels, 61 launches, workspace [0-9]+ bytes$"
  refute_output --partial "_slice over"
  refute_output --partial "_concat over"
  refute_output --partial "matmul_add_combine"
  refute_output --partial "matmul_add_add_combine"
  # per layer the attention reads Q, the K and V caches and the new K and V rows of the fused
  # projection at elements 768 and 1536 (the KV-cache concats are concat views)
  [ "$(echo "$output" | grep -c ' b[0-9]* (from element 768) b[0-9]* b[0-9]* (from element 1536); writes')" -eq 24 ]
}

@test "a slice that is a graph result stays a copy kernel" {
  cat > res.mlir <<'EOF'
func.func @main(%x: tensor<4x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %y = tosa.abs %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tosa.const_shape {values = dense<[2, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %z = tosa.const_shape {values = dense<[2, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.slice %y, %s, %z : (tensor<4x8xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x8xf32>
  %n = tosa.negate %r : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %r, %n : tensor<2x8xf32>, tensor<2x8xf32>
}
EOF
  run "$TOSAC" res.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_output --partial "_slice over tensor<2x8xf32>"
  refute_output --partial "(from element"
}

@test "a slice of a transpose is read with it through strides by the convolution: one kernel, no workspace" {
  # MIOpen's NCHW problems as libtosac-miir writes them: transpose to NHWC, slice off the rows no
  # output reads, convolve; as a slice view the transpose would become a copy kernel of its own
  cat > tr.mlir <<'EOF'
func.func @main(%x: tensor<1x4x8x5xf32>, %w: tensor<4x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<1x3x2x4xf32> {
  %t = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x4x8x5xf32>) -> tensor<1x8x5x4xf32>
  %s0 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s1 = tosa.const_shape {values = dense<[1, 7, 5, 4]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v = tosa.slice %t, %s0, %s1 : (tensor<1x8x5x4xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x7x5x4xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.conv2d %v, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x7x5x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x2x4xf32>
  return %y : tensor<1x3x2x4xf32>
}
EOF
  run "$TOSAC" tr.mlir --offload-arch=gfx90a,gfx1100,gfx1030 --emit=partitions
  assert_success
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
  assert_line "target gfx1030: 1 kernels, 1 launches, workspace 0 bytes"
  run "${CHECK[@]}" tr.mlir --seed 7
  assert_success
}
