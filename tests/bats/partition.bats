#!/usr/bin/env bats
# Partitioning (issue 6): pinned plans (fusion, views, recomputation, DAG shape, workspace reuse)
# and seeded mixed-op graphs (tests/oracle/gen_mixed.py) against the MLIR oracle on all targets.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  TOSAC="$BIN/tosac"
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" --tosac-run "$BIN/tosac-run")
  cd "$BATS_TEST_TMPDIR"
}

# check.py on the given graph and targets must pass (every result within tolerance)
oracle_pass() {
  run "${CHECK[@]}" "$@"
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

# kernel count, the fused ops of each kernel, each launch's deps, workspace bytes (first target)
plan_summary() {
  /usr/bin/python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["targets"][0]
print(t["kernel_count"], [[o["op"][5:] for o in k["ops"] if o["op"] != "tosa.const"] for k in t["kernels"]],
      [l["deps"] for l in t["launches"]], t["workspace"]["bytes"])' "$1"
}

@test "mixed-op graphs of seeds 2, 10, 12 match the oracle on all seven targets" {
  for s in 2 10 12; do
    /usr/bin/python3 "$ROOT/tests/oracle/gen_mixed.py" $s -o mixed$s.mlir
  done
  # the seeds cover every op family the generator draws
  run bash -c 'head -qn1 mixed*.mlir | tr " " "\n" | sort -u | tr "\n" " "'
  for op in conv2d depthwise_conv2d matmul avg_pool2d max_pool2d reduce_sum reduce_max reshape transpose slice pad concat reciprocal rsqrt; do
    assert_output --partial " $op "
  done
  run "${CHECK[@]}" mixed2.mlir mixed10.mlir mixed12.mlir
  assert_success
  assert_output --partial "PASSED: 3 graph(s)"
  assert_equal "$(echo "$output" | grep -c '^ok ')" 21
}

@test "gen_mixed is deterministic and the oracle notices a corrupted result" {
  /usr/bin/python3 "$ROOT/tests/oracle/gen_mixed.py" 5 -o a.mlir
  /usr/bin/python3 "$ROOT/tests/oracle/gen_mixed.py" 5 -o b.mlir
  cmp a.mlir b.mlir
  run "${CHECK[@]}" a.mlir --targets gfx90a --corrupt
  assert_failure 1
  assert_output --partial "MISMATCH"
}

@test "conv2d + bias + ReLU (clamp) is one kernel and computes right" {
  cat > cbr.mlir <<'M'
// oracle: arg 0 -1 1
// oracle: arg 1 -1 1
// oracle: arg 2 -1 1
// oracle: result 0 err 1e-5
func.func @main(%x: tensor<1x6x6x4xf32>, %w: tensor<8x3x3x4xf32>, %b: tensor<8xf32>) -> tensor<1x6x6x8xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = "tosa.conv2d"(%x, %w, %b, %z, %z) <{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}> : (tensor<1x6x6x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
  %1 = "tosa.clamp"(%0) <{max_val = 3.40282347e+38 : f32, min_val = 0.0 : f32}> : (tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  return %1 : tensor<1x6x6x8xf32>
}
M
  run "$TOSAC" cbr.mlir --offload-arch=gfx90a,gfx1100 -o cbr.hipfb
  assert_success
  run plan_summary cbr.json
  assert_output "1 [['conv2d', 'clamp']] [[]] 0"
  oracle_pass cbr.mlir --targets gfx90a,gfx1100
}

@test "a 2-layer MLP with GELU is two kernels (matmul + bias + GELU chain, matmul + bias)" {
  cat > mlp.mlir <<'M'
// oracle: arg 0 -1 1
// oracle: arg 1 -0.25 0.25
// oracle: arg 2 -1 1
// oracle: arg 3 -0.25 0.25
// oracle: arg 4 -1 1
// oracle: result 0 err 1e-5
func.func @main(%x: tensor<1x8x16xf32>, %w1: tensor<1x16x32xf32>, %b1: tensor<1x1x32xf32>, %w2: tensor<1x32x8xf32>, %b2: tensor<1x1x8xf32>) -> tensor<1x8x8xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %c0 = "tosa.const"() <{values = dense<0.044715> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %c1 = "tosa.const"() <{values = dense<0.7978846> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %0 = "tosa.matmul"(%x, %w1, %z, %z) : (tensor<1x8x16xf32>, tensor<1x16x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x32xf32>
  %1 = "tosa.add"(%0, %b1) : (tensor<1x8x32xf32>, tensor<1x1x32xf32>) -> tensor<1x8x32xf32>
  %2 = "tosa.mul"(%1, %1, %s) : (tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<1xi8>) -> tensor<1x8x32xf32>
  %3 = "tosa.mul"(%2, %1, %s) : (tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<1xi8>) -> tensor<1x8x32xf32>
  %4 = "tosa.mul"(%3, %c0, %s) : (tensor<1x8x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x32xf32>
  %5 = "tosa.add"(%1, %4) : (tensor<1x8x32xf32>, tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %6 = "tosa.mul"(%5, %c1, %s) : (tensor<1x8x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x32xf32>
  %7 = "tosa.tanh"(%6) : (tensor<1x8x32xf32>) -> tensor<1x8x32xf32>
  %8 = "tosa.add"(%7, %one) : (tensor<1x8x32xf32>, tensor<1x1x1xf32>) -> tensor<1x8x32xf32>
  %9 = "tosa.mul"(%1, %8, %s) : (tensor<1x8x32xf32>, tensor<1x8x32xf32>, tensor<1xi8>) -> tensor<1x8x32xf32>
  %10 = "tosa.mul"(%9, %half, %s) : (tensor<1x8x32xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x32xf32>
  %11 = "tosa.matmul"(%10, %w2, %z, %z) : (tensor<1x8x32xf32>, tensor<1x32x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  %12 = "tosa.add"(%11, %b2) : (tensor<1x8x8xf32>, tensor<1x1x8xf32>) -> tensor<1x8x8xf32>
  return %12 : tensor<1x8x8xf32>
}
M
  run "$TOSAC" mlp.mlir --offload-arch=gfx942 -o mlp.hipfb
  assert_success
  run plan_summary mlp.json
  assert_output "2 [['matmul', 'add', 'mul', 'mul', 'mul', 'add', 'mul', 'tanh', 'add', 'mul', 'mul'], ['matmul', 'add']] [[], [0]] 1024"
  oracle_pass mlp.mlir --targets gfx942,gfx1200
}

@test "two independent branches are two unordered launches" {
  cat > br.mlir <<'M'
func.func @main(%a: tensor<4x4x8xf32>, %b: tensor<16x8xf32>) -> (tensor<4x1x8xf32>, tensor<16x8xf32>) {
  %0 = "tosa.reduce_sum"(%a) <{axis = 1 : i32}> : (tensor<4x4x8xf32>) -> tensor<4x1x8xf32>
  %1 = "tosa.exp"(%b) : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %2 = "tosa.tanh"(%1) : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0, %2 : tensor<4x1x8xf32>, tensor<16x8xf32>
}
M
  run "$TOSAC" br.mlir --offload-arch=gfx1030 -o br.hipfb
  assert_success
  run plan_summary br.json
  assert_output "2 [['reduce_sum'], ['exp', 'tanh']] [[], []] 0"
}

@test "workspace reuse on a chain: the workspace is the largest live set, not the sum" {
  # transpose -> reverse -> transpose -> reverse: three 8 KiB intermediates, at most two live
  # at once (data-movement kernels: a transpose read by tanh would fuse as an index map; the
  # layout pass would move the first transpose below the reverse and cancel the pair)
  cat > chain.mlir <<'M'
// oracle: arg 0 -1 1
func.func @main(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %0 = "tosa.transpose"(%x) <{perms = array<i32: 1, 0>}> : (tensor<64x32xf32>) -> tensor<32x64xf32>
  %1 = "tosa.reverse"(%0) <{axis = 0 : i32}> : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %2 = "tosa.transpose"(%1) <{perms = array<i32: 1, 0>}> : (tensor<32x64xf32>) -> tensor<64x32xf32>
  %3 = "tosa.reverse"(%2) <{axis = 1 : i32}> : (tensor<64x32xf32>) -> tensor<64x32xf32>
  return %3 : tensor<64x32xf32>
}
M
  run "$TOSAC" -fno-propagate-layout chain.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line "target gfx90a: 4 kernels, 4 launches, workspace 16384 bytes"
  assert_line "  buffer 2 intermediate tensor<32x64xf32> 8192 bytes at workspace+0"
  assert_line "  buffer 3 intermediate tensor<32x64xf32> 8192 bytes at workspace+8192"
  assert_line "  buffer 4 intermediate tensor<64x32xf32> 8192 bytes at workspace+0"
  [ "$(echo "$output" | grep -c ' intermediate ')" -eq 3 ] # sum 24576 > 16384
  run "${CHECK[@]}" --tosac-arg=-fno-propagate-layout chain.mlir --targets gfx90a,gfx1100
  assert_success
  run "${CHECK[@]}" chain.mlir --targets gfx90a,gfx1100
  assert_success
}

@test "a reshape between two kernels adds no kernel: the consumer reads the producer's buffer" {
  cat > rs.mlir <<'M'
// oracle: arg 0 -1 1
func.func @main(%x: tensor<4x6x8xf32>) -> tensor<4x1xf32> {
  %0 = "tosa.reduce_sum"(%x) <{axis = 1 : i32}> : (tensor<4x6x8xf32>) -> tensor<4x1x8xf32>
  %s = "tosa.const_shape"() <{values = dense<[4, 8]> : tensor<2xindex>}> : () -> !tosa.shape<2>
  %1 = "tosa.reshape"(%0, %s) : (tensor<4x1x8xf32>, !tosa.shape<2>) -> tensor<4x8xf32>
  %2 = "tosa.reduce_max"(%1) <{axis = 1 : i32}> : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return %2 : tensor<4x1xf32>
}
M
  run "$TOSAC" rs.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line "target gfx90a: 2 kernels, 2 launches, workspace 256 bytes"
  assert_line "    reads b0; writes b2"
  assert_line "    reads b2; writes b1"
  assert_line "  launch 1: kernel 1 after [0]"
  TOSAC_NO_FUSION=1 run "$TOSAC" rs.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "target gfx90a: 3 kernels, 3 launches, workspace 512 bytes"
  run "${CHECK[@]}" rs.mlir --targets gfx90a,gfx1200
  assert_success
}

@test "views at the graph boundary: a reshaped input is copied, a reshaped result is written by its producer" {
  cat > vb.mlir <<'M'
// oracle: arg 0 -1 1
func.func @main(%x: tensor<2x6xf32>) -> (tensor<3x4xf32>, tensor<1x12xf32>, tensor<12x1xf32>) {
  %s = "tosa.const_shape"() <{values = dense<[3, 4]> : tensor<2xindex>}> : () -> !tosa.shape<2>
  %0 = "tosa.reshape"(%x, %s) : (tensor<2x6xf32>, !tosa.shape<2>) -> tensor<3x4xf32>
  %1 = "tosa.exp"(%x) : (tensor<2x6xf32>) -> tensor<2x6xf32>
  %t = "tosa.const_shape"() <{values = dense<[1, 12]> : tensor<2xindex>}> : () -> !tosa.shape<2>
  %2 = "tosa.reshape"(%1, %t) : (tensor<2x6xf32>, !tosa.shape<2>) -> tensor<1x12xf32>
  %3 = "tosa.transpose"(%2) <{perms = array<i32: 1, 0>}> : (tensor<1x12xf32>) -> tensor<12x1xf32>
  return %0, %2, %3 : tensor<3x4xf32>, tensor<1x12xf32>, tensor<12x1xf32>
}
M
  run "$TOSAC" vb.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line "target gfx90a: 1 kernels, 3 launches, workspace 0 bytes"
  assert_line "  kernel 0 tosac_k0_exp over tensor<2x6xf32>"
  assert_line "    reads b0; writes b2"
  assert_line "  launch 1: copy b0 -> b1 after []"
  assert_line "  launch 2: copy b2 -> b3 after [0]"
  run "${CHECK[@]}" vb.mlir --targets gfx90a,gfx1100
  assert_success
}

@test "a view of a constant reads the constant's weights buffer" {
  cat > vc.mlir <<'M'
// oracle: arg 0 -1 1
func.func @main(%x: tensor<1x4x8xf32>) -> tensor<1x4x2xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %w = "tosa.const"() <{values = dense<[[0.5, -1.0], [0.25, 2.0], [1.0, 0.0], [-0.5, 0.125], [0.75, -0.25], [1.5, 1.0], [-2.0, 0.5], [0.0, 0.25]]> : tensor<8x2xf32>}> : () -> tensor<8x2xf32>
  %s = "tosa.const_shape"() <{values = dense<[1, 8, 2]> : tensor<3xindex>}> : () -> !tosa.shape<3>
  %w3 = "tosa.reshape"(%w, %s) : (tensor<8x2xf32>, !tosa.shape<3>) -> tensor<1x8x2xf32>
  %0 = "tosa.matmul"(%x, %w3, %z, %z) : (tensor<1x4x8xf32>, tensor<1x8x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x2xf32>
  return %0 : tensor<1x4x2xf32>
}
M
  # the partitioner's view of a constant: without constant folding (which makes the reshape a
  # constant of its own)
  run "$TOSAC" vc.mlir --offload-arch=gfx90a --emit=partitions -fno-fold-constants
  assert_success
  assert_line "target gfx90a: 1 kernels, 1 launches, workspace 0 bytes"
  assert_line "  buffer 2 constant tensor<8x2xf32> 64 bytes at weights+0"
  assert_line "    reads b0 b2; writes b1"
  run "${CHECK[@]}" vc.mlir --targets gfx90a,gfx1100
  assert_success
}

@test "a small producer read by two kernels is materialised once, not recomputed" {
  cat > sh.mlir <<'M'
func.func @main(%a: tensor<1x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1x8xf32>) {
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = "tosa.exp"(%a) : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %1 = "tosa.add"(%0, %b) : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = "tosa.reduce_sum"(%c) <{axis = 1 : i32}> : (tensor<4x4x8xf32>) -> tensor<4x1x8xf32>
  %s = "tosa.const_shape"() <{values = dense<[1, 1, 8]> : tensor<3xindex>}> : () -> !tosa.shape<3>
  %3 = "tosa.reshape"(%0, %s) : (tensor<1x8xf32>, !tosa.shape<3>) -> tensor<1x1x8xf32>
  %4 = "tosa.mul"(%2, %3, %z) : (tensor<4x1x8xf32>, tensor<1x1x8xf32>, tensor<1xi8>) -> tensor<4x1x8xf32>
  return %1, %4 : tensor<4x8xf32>, tensor<4x1x8xf32>
}
M
  run "$TOSAC" sh.mlir --offload-arch=gfx90a -o sh.hipfb
  assert_success
  run plan_summary sh.json
  assert_output "4 [['exp'], ['add'], ['reduce_sum'], ['mul']] [[], [0], [], [0, 2]] 512"
}

# kernel families, in plan order (first target)
families() {
  /usr/bin/python3 -c '
import json, sys
print(*[k["family"] for k in json.load(open(sys.argv[1]))["targets"][0]["kernels"]])' "$1"
}

@test "transpose + add + relu is one kernel: the transpose is an index map (rank-4 permutation, broadcast operand)" {
  cat > tar.mlir <<'M'
// oracle: arg 0 -1 1
// oracle: arg 1 -1 1
func.func @main(%x: tensor<2x3x4x5xf32>, %b: tensor<1x1x5x3xf32>) -> tensor<2x4x5x3xf32> {
  %0 = "tosa.transpose"(%x) <{perms = array<i32: 0, 2, 3, 1>}> : (tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32>
  %1 = "tosa.add"(%0, %b) : (tensor<2x4x5x3xf32>, tensor<1x1x5x3xf32>) -> tensor<2x4x5x3xf32>
  %2 = "tosa.clamp"(%1) <{max_val = 3.40282347e+38 : f32, min_val = 0.0 : f32}> : (tensor<2x4x5x3xf32>) -> tensor<2x4x5x3xf32>
  return %2 : tensor<2x4x5x3xf32>
}
M
  run "$TOSAC" tar.mlir --offload-arch=gfx90a,gfx1030 -o tar.hipfb
  assert_success
  run plan_summary tar.json
  assert_output "1 [['transpose', 'add', 'clamp']] [[]] 0"
  run families tar.json
  assert_output "elementwise"
  # without fusion the transpose is a data-movement kernel of its own again
  TOSAC_NO_FUSION=1 run "$TOSAC" tar.mlir --offload-arch=gfx90a -o nf.hipfb
  assert_success
  run families nf.json
  assert_output "data elementwise elementwise"
  oracle_pass tar.mlir --targets gfx90a,gfx1030
}

@test "index-map transposes: a computed input, an input read both directly and transposed, a broadcast transposed value" {
  # %t reads exp's result from memory through permuted strides; %c is transposed to
  # [1,3,1,2] and broadcast over the [5,3,4,2] iteration space of the same kernel; %y is read
  # directly and transposed in one kernel.
  cat > maps.mlir <<'M'
// oracle: arg 0 -1 1
// oracle: arg 1 -1 1
// oracle: arg 2 -1 1
func.func @main(%x: tensor<4x3x2x5xf32>, %y: tensor<5x5xf32>, %c: tensor<2x1x3x1xf32>) -> (tensor<5x3x4x2xf32>, tensor<5x5xf32>) {
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %e = "tosa.exp"(%x) : (tensor<4x3x2x5xf32>) -> tensor<4x3x2x5xf32>
  %t = "tosa.transpose"(%e) <{perms = array<i32: 3, 1, 0, 2>}> : (tensor<4x3x2x5xf32>) -> tensor<5x3x4x2xf32>
  %ct = "tosa.transpose"(%c) <{perms = array<i32: 1, 2, 3, 0>}> : (tensor<2x1x3x1xf32>) -> tensor<1x3x1x2xf32>
  %m = "tosa.mul"(%t, %ct, %z) : (tensor<5x3x4x2xf32>, tensor<1x3x1x2xf32>, tensor<1xi8>) -> tensor<5x3x4x2xf32>
  %yt = "tosa.transpose"(%y) <{perms = array<i32: 1, 0>}> : (tensor<5x5xf32>) -> tensor<5x5xf32>
  %s = "tosa.sub"(%yt, %y) : (tensor<5x5xf32>, tensor<5x5xf32>) -> tensor<5x5xf32>
  return %m, %s : tensor<5x3x4x2xf32>, tensor<5x5xf32>
}
M
  run "$TOSAC" maps.mlir --offload-arch=gfx942 -o maps.hipfb
  assert_success
  run plan_summary maps.json
  assert_output "3 [['exp'], ['transpose', 'transpose', 'mul'], ['transpose', 'sub']] [[], [0], []] 512"
  oracle_pass maps.mlir --targets gfx942,gfx1030
}

@test "a transpose stays a kernel of its own when a matmul reads it or it is a graph result" {
  cat > keep.mlir <<'M'
func.func @main(%a: tensor<1x8x4xf32>, %b: tensor<1x8x8xf32>, %x: tensor<4x6xf32>) -> (tensor<1x4x8xf32>, tensor<6x4xf32>) {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %at = "tosa.transpose"(%a) <{perms = array<i32: 0, 2, 1>}> : (tensor<1x8x4xf32>) -> tensor<1x4x8xf32>
  %m = "tosa.matmul"(%at, %b, %z, %z) : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %r = "tosa.tanh"(%m) : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %xt = "tosa.transpose"(%x) <{perms = array<i32: 1, 0>}> : (tensor<4x6xf32>) -> tensor<6x4xf32>
  return %r, %xt : tensor<1x4x8xf32>, tensor<6x4xf32>
}
M
  run "$TOSAC" keep.mlir --offload-arch=gfx90a -o keep.hipfb
  assert_success
  run plan_summary keep.json
  assert_output "3 [['transpose'], ['matmul', 'tanh'], ['transpose']] [[], [0], []] 256"
  run families keep.json
  assert_output "data gemm data"
}

# ---------------------------------------------------------------- in-place reuse (buffers.c, inplace.c)

# max_pool2d -> conv2d + residual add of the pool's result -> (reshape view) tanh -> reduce_sum:
# the conv epilogue reads the pooled value element for element and it dies there, so its
# result overwrites it; the tanh kernel then overwrites the conv result the same way.
inplace_chain_graph() {
  cat > chain.mlir <<'M'
// oracle: arg 0 -1 1
// oracle: arg 1 -0.5 0.5
// oracle: arg 2 -1 1
// oracle: arg 3 -1 1
func.func @main(%x: tensor<1x8x8x16xf32>, %w: tensor<16x1x1x16xf32>, %b: tensor<16xf32>, %y: tensor<1x16x16x16xf32>) -> tensor<1x1x16xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %p = "tosa.max_pool2d"(%y) <{kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>}> : (tensor<1x16x16x16xf32>) -> tensor<1x8x8x16xf32>
  %c = "tosa.conv2d"(%x, %w, %b, %z, %z) <{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (tensor<1x8x8x16xf32>, tensor<16x1x1x16xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x16xf32>
  %s = "tosa.add"(%c, %p) : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %sh = "tosa.const_shape"() <{values = dense<[1, 64, 16]> : tensor<3xindex>}> : () -> !tosa.shape<3>
  %r = "tosa.reshape"(%s, %sh) : (tensor<1x8x8x16xf32>, !tosa.shape<3>) -> tensor<1x64x16xf32>
  %t = "tosa.tanh"(%r) : (tensor<1x64x16xf32>) -> tensor<1x64x16xf32>
  %u = "tosa.reduce_sum"(%t) <{axis = 1 : i32}> : (tensor<1x64x16xf32>) -> tensor<1x1x16xf32>
  return %u : tensor<1x1x16xf32>
}
M
}

@test "in-place: a chain of kernels overwrites each dying input, halving the workspace" {
  inplace_chain_graph
  TOSAC_NO_INPLACE=1 run "$TOSAC" chain.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line --index 0 "target gfx90a: 4 kernels, 4 launches, workspace 8192 bytes"
  assert_line "  buffer 6 intermediate tensor<1x8x8x16xf32> 4096 bytes at workspace+4096"
  run "$TOSAC" chain.mlir --offload-arch=gfx90a,gfx1030 --emit=partitions
  assert_success
  assert_line --index 0 "target gfx90a: 4 kernels, 4 launches, workspace 4096 bytes"
  assert_line "target gfx1030: 4 kernels, 4 launches, workspace 4096 bytes"
  assert_line --index 6 "  buffer 5 intermediate tensor<1x8x8x16xf32> 4096 bytes at workspace+0"
  assert_line --index 7 "  buffer 6 intermediate tensor<1x8x8x16xf32> 4096 bytes at workspace+0 (in place of b5)"
  assert_line --index 8 "  buffer 7 intermediate tensor<1x64x16xf32> 4096 bytes at workspace+0 (in place of b6)"
  assert_line "    reads b0 b1 b2 b5; writes b6"
  assert_line "    reads b6; writes b7"
  oracle_pass chain.mlir --targets gfx90a,gfx1030
}

@test "in-place: kernels writing over an input drop noalias on their pointer arguments; others keep it" {
  inplace_chain_graph
  run "$TOSAC" chain.mlir --offload-arch=gfx90a --emit=llvm -o chain.ll
  assert_success
  # kernels 0 (pool) and 3 (reduce) keep noalias; 1 (conv + add over b5) and 2 (tanh over b6) drop it
  run bash -c 'grep "^define" chain.ll | sed -E "s/^define [^@]*@([a-z0-9_]+)\(.*/\1 /" | tr -d "\n"; echo;
               grep "^define" chain.ll | awk "{print (index(\$0, \"noalias\") ? \"noalias\" : \"may-alias\")}" | tr "\n" " "'
  assert_line --index 1 "noalias may-alias may-alias noalias "
  TOSAC_NO_INPLACE=1 run "$TOSAC" chain.mlir --offload-arch=gfx90a --emit=llvm -o plain.ll
  assert_success
  run bash -c 'grep "^define" plain.ll | grep -vc noalias'
  assert_output "0"
}

@test "in-place: refused for a broadcast operand, an index-map transpose, an anchor operand and an input read later" {
  # k1 reads %a [1,16] broadcast over [4,16] (both 256 bytes once aligned), k4 reads %p through
  # the transpose's permuted strides, k6's conv reads %q as its input as well as in the residual
  # add, and %m is still read by k11 after the sigmoid kernel k9: none may be overwritten.
  cat > refuse.mlir <<'M'
// oracle: arg 0 -1 1
// oracle: arg 1 -1 1
// oracle: arg 2 -0.5 0.5
// oracle: arg 3 -1 1
func.func @main(%x: tensor<4x16xf32>, %y: tensor<1x16x8x8xf32>, %w: tensor<8x1x1x8xf32>, %v: tensor<8x16xf32>) -> (tensor<1x16xf32>, tensor<1x1x8x8xf32>, tensor<1x1xf32>, tensor<1x1xf32>) {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<8xf32>}> : () -> tensor<8xf32>
  %a = "tosa.reduce_max"(%v) <{axis = 0 : i32}> : (tensor<8x16xf32>) -> tensor<1x16xf32>
  %o = "tosa.add"(%x, %a) : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %r0 = "tosa.reduce_sum"(%o) <{axis = 0 : i32}> : (tensor<4x16xf32>) -> tensor<1x16xf32>
  %p = "tosa.max_pool2d"(%y) <{kernel = array<i64: 2, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 1>}> : (tensor<1x16x8x8xf32>) -> tensor<1x8x8x8xf32>
  %t = "tosa.transpose"(%p) <{perms = array<i32: 0, 2, 1, 3>}> : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %e = "tosa.exp"(%t) : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %q = "tosa.max_pool2d"(%e) <{kernel = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c = "tosa.conv2d"(%q, %w, %b, %z, %z) <{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (tensor<1x8x8x8xf32>, tensor<8x1x1x8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %s = "tosa.add"(%c, %q) : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r1 = "tosa.reduce_sum"(%s) <{axis = 1 : i32}> : (tensor<1x8x8x8xf32>) -> tensor<1x1x8x8xf32>
  %m = "tosa.reduce_min"(%v) <{axis = 1 : i32}> : (tensor<8x16xf32>) -> tensor<8x1xf32>
  %n = "tosa.sigmoid"(%m) : (tensor<8x1xf32>) -> tensor<8x1xf32>
  %r2 = "tosa.reduce_max"(%n) <{axis = 0 : i32}> : (tensor<8x1xf32>) -> tensor<1x1xf32>
  %r3 = "tosa.reduce_sum"(%m) <{axis = 0 : i32}> : (tensor<8x1xf32>) -> tensor<1x1xf32>
  return %r0, %r1, %r2, %r3 : tensor<1x16xf32>, tensor<1x1x8x8xf32>, tensor<1x1xf32>, tensor<1x1xf32>
}
M
  run "$TOSAC" refuse.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line --index 0 "target gfx90a: 12 kernels, 12 launches, workspace 4096 bytes"
  refute_output --partial "in place"
  assert_line "    reads b0 b8; writes b9"
  assert_line "  buffer 9 intermediate tensor<4x16xf32> 256 bytes at workspace+256"
  assert_line "    reads b10; writes b11"
  assert_line "  buffer 11 intermediate tensor<1x8x8x8xf32> 2048 bytes at workspace+2048"
  assert_line "    reads b12 b2 b13; writes b14"
  assert_line "  buffer 14 intermediate tensor<1x8x8x8xf32> 2048 bytes at workspace+2048"
  assert_line "    reads b15; writes b16"
  assert_line "  buffer 16 intermediate tensor<8x1xf32> 32 bytes at workspace+256"
  oracle_pass refuse.mlir --targets gfx90a,gfx1030
}

@test "in-place: the overwriting kernel waits for the input's earlier readers (write-after-read edge)" {
  # %p is read by reduce_sum (k1) and, last, by the conv's residual sub (k2), which overwrites
  # it: k2, otherwise independent of k1, must now run after it.
  cat > war.mlir <<'M'
// oracle: arg 0 -1 1
// oracle: arg 1 -0.5 0.5
// oracle: arg 2 -1 1
func.func @main(%x: tensor<1x8x8x16xf32>, %w: tensor<16x1x1x16xf32>, %y: tensor<1x16x16x16xf32>) -> (tensor<1x1x8x16xf32>, tensor<1x64x16xf32>) {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %b = "tosa.const"() <{values = dense<0.25> : tensor<16xf32>}> : () -> tensor<16xf32>
  %p = "tosa.max_pool2d"(%y) <{kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>}> : (tensor<1x16x16x16xf32>) -> tensor<1x8x8x16xf32>
  %r = "tosa.reduce_sum"(%p) <{axis = 1 : i32}> : (tensor<1x8x8x16xf32>) -> tensor<1x1x8x16xf32>
  %c = "tosa.conv2d"(%x, %w, %b, %z, %z) <{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (tensor<1x8x8x16xf32>, tensor<16x1x1x16xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x16xf32>
  %s = "tosa.sub"(%c, %p) : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %sh = "tosa.const_shape"() <{values = dense<[1, 64, 16]> : tensor<3xindex>}> : () -> !tosa.shape<3>
  %v = "tosa.reshape"(%s, %sh) : (tensor<1x8x8x16xf32>, !tosa.shape<3>) -> tensor<1x64x16xf32>
  %t = "tosa.tanh"(%v) : (tensor<1x64x16xf32>) -> tensor<1x64x16xf32>
  return %r, %t : tensor<1x1x8x16xf32>, tensor<1x64x16xf32>
}
M
  TOSAC_NO_INPLACE=1 run "$TOSAC" war.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line "  launch 2: kernel 2 after [0]"
  run "$TOSAC" war.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line "  buffer 7 intermediate tensor<1x8x8x16xf32> 4096 bytes at workspace+0 (in place of b5)"
  assert_line "    reads b5; writes b3"
  assert_line "  launch 1: kernel 1 after [0]"
  assert_line "  launch 2: kernel 2 after [1]"
  oracle_pass war.mlir --targets gfx90a,gfx1030
}

@test "in-place: a split-K workspace is placed by its first write, not its buffer id" {
  # The partials buffer (b8) is created after every intermediate but written by launch 1, while
  # %q (b5, launches 0..3) is live: it must not land on b5's bytes (it did, at workspace+256).
  cat > order.mlir <<'M'
// oracle: arg 0 -0.01 0.01
// oracle: arg 1 -1 1
// oracle: arg 2 -1 1
func.func @main(%x: tensor<1x8x4096xf32>, %w: tensor<1x4096x8xf32>, %y: tensor<1x32x48xf32>) -> (tensor<1x1x8xf32>, tensor<1x1x48xf32>) {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %q = "tosa.exp"(%y) : (tensor<1x32x48xf32>) -> tensor<1x32x48xf32>
  %m = "tosa.matmul"(%x, %w, %z, %z) : (tensor<1x8x4096xf32>, tensor<1x4096x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  %r = "tosa.reduce_max"(%q) <{axis = 1 : i32}> : (tensor<1x32x48xf32>) -> tensor<1x1x48xf32>
  %d = "tosa.reduce_sum"(%m) <{axis = 1 : i32}> : (tensor<1x8x8xf32>) -> tensor<1x1x8xf32>
  %e = "tosa.exp"(%d) : (tensor<1x1x8xf32>) -> tensor<1x1x8xf32>
  return %e, %r : tensor<1x1x8xf32>, tensor<1x1x48xf32>
}
M
  TOSAC_SPLIT_K=4 TOSAC_SPLIT_K_FORM=combine run "$TOSAC" order.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line --index 0 "target gfx90a: 6 kernels, 6 launches, workspace 7424 bytes"
  assert_line "  buffer 5 intermediate tensor<1x32x48xf32> 6144 bytes at workspace+0"
  assert_line "  buffer 8 workspace tensor<4x1x8x8xf32> 1024 bytes at workspace+6144"
  TOSAC_SPLIT_K=4 TOSAC_SPLIT_K_FORM=combine run "${CHECK[@]}" order.mlir --targets gfx90a,gfx1030
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "dot view: split-K kernels are linked without a self-edge; views are labelled as views of their root" {
  cat > sk.mlir <<'M'
func.func @main(%a: tensor<1x32x4096xf32>, %b: tensor<1x4096x48xf32>, %c: tensor<2x3xf32>) -> (tensor<1x32x48xf32>, tensor<6xf32>) {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = "tosa.matmul"(%a, %b, %z, %z) : (tensor<1x32x4096xf32>, tensor<1x4096x48xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x48xf32>
  %sh = "tosa.const_shape"() <{values = dense<[6]> : tensor<1xindex>}> : () -> !tosa.shape<1>
  %r = "tosa.reshape"(%c, %sh) : (tensor<2x3xf32>, !tosa.shape<1>) -> tensor<6xf32>
  %e = "tosa.exp"(%r) : (tensor<6xf32>) -> tensor<6xf32>
  return %m, %e : tensor<1x32x48xf32>, tensor<6xf32>
}
M
  TOSAC_SPLIT_K=4 TOSAC_SPLIT_K_FORM=combine run "$TOSAC" sk.mlir --offload-arch=gfx90a --emit=dot
  assert_success
  assert_line "    label=\"kernel 0: tosac_k0_matmul_splitk\";"
  assert_line "    label=\"kernel 1: tosac_k1_matmul_combine\";"
  # one node per kernel for the matmul both kernels implement, linked by data and launch edges
  assert_line "    k0_op0 [label=\"tosa.matmul\\ntensor<1x32x48xf32>\"];"
  assert_line "    k1_op0 [label=\"tosa.matmul\\ntensor<1x32x48xf32>\"];"
  assert_line "  k0_op0 -> k1_op0 [label=\"splitk_partials_k0\\ntensor<4x1x32x48xf32>\"];"
  assert_line "  k0_op0 -> k1_op0 [style=dashed, color=gray, constraint=false];"
  assert_line "  k1_op0 -> res0;"
  # no edge from a node to itself
  run awk '/ -> / { s = $1; d = $3; sub(/[;\[].*/, "", d); if (s == d) print "self-edge: " $0 }' <<<"$output"
  assert_output ""
  # the reshape is a view node fed by its root, not an undeclared constant
  TOSAC_SPLIT_K=4 TOSAC_SPLIT_K_FORM=combine run "$TOSAC" sk.mlir --offload-arch=gfx90a --emit=dot
  assert_line "  view1 [shape=box, style=dashed, label=\"tosa.reshape\\nview of input %c\\ntensor<6xf32>\"];"
  assert_line "  arg2 -> view1 [style=dashed];"
  assert_line "  view1 -> k2_op2;"
  refute_output --partial "const1"
}

@test "fusion's per-group op counts (16 bits): an attention kernel, then a 600-op chain through a view cut at 256" {
  # The attention pattern's ops merge without the FUSE_MAX_OPS check (nothing else joins
  # them); the chain after it is cut into kernels of 256 ops on both sides of a reshape (a
  # view: its consumers read the producer's buffer, the producer's kernel ends there).
  /usr/bin/python3 - "$ROOT/samples/attention.mlir" <<'PY'
import sys
out = []
for l in open(sys.argv[1]).read().split('\n'):
    if l.startswith('//'):
        continue
    if l.strip().startswith('func.func'):
        l = l.replace('-> tensor<2x8x16xf32>', '-> tensor<256xf32>')
    if l.strip().startswith('return'):
        prev, t = '%o', 'tensor<2x8x16xf32>'
        for i in range(600):
            if i == 300:
                out.append(f'  %c{i} = tosa.reshape {prev} {{new_shape = array<i64: 256>}} : ({t}) -> tensor<256xf32>')
                t = 'tensor<256xf32>'
            else:
                out.append(f'  %c{i} = tosa.{"abs" if i % 2 == 0 else "floor"} {prev} : ({t}) -> {t}')
            prev = f'%c{i}'
        l = f'  return {prev} : {t}'
    out.append(l)
open('att_chain.mlir', 'w').write('\n'.join(out) + '\n')
PY
  run "$TOSAC" att_chain.mlir --offload-arch=gfx90a --emit=partitions
  assert_success
  assert_line "target gfx90a: 5 kernels, 5 launches, workspace 1024 bytes"
  assert_line "  kernel 0 tosac_k0_attention over tensor<2x8x16xf32>"
  # non-constant ops per kernel
  run awk '/^  kernel /{if (k) printf "%s ", n; k = 1; n = 0} /^    tosa\./{if ($1 != "tosa.const") n++} END{print n}' <<<"$output"
  assert_output "11 256 44 256 43"
  run "$TOSAC" att_chain.mlir --offload-arch=gfx90a --emit=partitions
  assert_line "    reads b6; writes b7"
}
