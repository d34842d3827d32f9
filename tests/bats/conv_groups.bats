#!/usr/bin/env bats
# conv_groups.bats: tosac's group extensions of conv2d and transpose_conv2d (docs/graph.md
# "Grouped convolutions"): `groups` and `batch_groups` make a grouped convolution one op and one
# implicit GEMM kernel with the group as its batch. Seeded random problems
# (tests/oracle/gen_grouped_conv.py: G 2, 3, 4 or 32, several channels per group, stride and
# dilation 1-2, padding, 1x1/3x3, odd sizes) in f32/f16/bf16/i8 on gfx90a, gfx1100 and gfx1030,
# as machine code and through the kernel IR, against the oracle's result of the same problem in
# plain TOSA (a slice, a convolution and a concatenation per group); the frontend's checks.

bats_load_library bats-support
bats_load_library bats-assert

setup_file() {
  export ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  local b="${TOSAC_BUILD:-build}"
  case "$b" in /*) ;; *) b="$ROOT/$b" ;; esac
  export B="$b" GEN="$ROOT/tests/oracle/gen_grouped_conv.py" TARGETS=gfx90a,gfx1100,gfx1030
}

setup() { cd "$BATS_TEST_TMPDIR"; }

# grouped KIND DTYPE SEED: the extension form through tosac and tosac-run on every target (one
# kernel each) against the oracle's run of the per-group form (decomposed by mlir-opt: the oracle
# cannot lower transpose_conv2d), the same inputs
grouped() {
  local d="$BATS_TEST_TMPDIR/$1-$2-$3"
  mkdir -p "$d"
  /usr/bin/python3 "$GEN" "$1" "$2" "$3" ext > "$d/ext.mlir"
  /usr/bin/python3 "$GEN" "$1" "$2" "$3" ref > "$d/ref.mlir"
  mlir-opt-22 --tosa-optional-decompositions "$d/ref.mlir" > "$d/dec.mlir"
  (cd "$ROOT" && /usr/bin/python3 - "$d/ext.mlir" "$d" <<'PY'
import sys, numpy as np
sys.path.insert(0, "tests/oracle")
import oracle, check
text = open(sys.argv[1]).read()
_, args, _ = oracle.signature(text, None)
ranges, _ = check.annotations(text)
for k, a in enumerate(check.make_inputs(args, ranges, 1)):
    np.save("%s/in%d.npy" % (sys.argv[2], k), a)
PY
  )
  local ins=$(ls "$d"/in*.npy | sed 's/^/--input=@/')
  run "$B/bin/tosac" "$d/ext.mlir" --embed-ir --offload-arch=$TARGETS -o "$d/x.hipfb"
  assert_success
  run /usr/bin/python3 -c 'import json,sys; print([t["kernel_count"] for t in json.load(open(sys.argv[1]))["targets"]])' "$d/x.json"
  assert_output "[1, 1, 1]"
  for t in ${TARGETS//,/ }; do
    run "$B/bin/tosac-run" "$d/x.hipfb" --target=$t $ins --output=@"$d/out-$t.npy"
    assert_success
    run /usr/bin/python3 "$ROOT/tests/oracle/check.py" "$d/dec.mlir" $ins --expected=@"$d/out-$t.npy"
    echo "$1 $2 $3 $t: $output" >&2
    assert_success
    assert_output --partial "1 results match"
  done
}

all_kinds() {
  for k in conv tconv bw; do
    grouped $k f32 $(($1 + 1))
    grouped $k f16 $(($1 + 2))
    grouped $k bf16 $(($1 + 3))
    grouped $k i8 $(($1 + 4))
  done
}

@test "conv2d groups, transpose_conv2d groups, conv2d batch_groups: f32, f16, bf16, i8 match the oracle's per-group form, one kernel (machine code)" {
  export TOSAC_EXEC=isa
  all_kinds 0
}

@test "conv2d groups, transpose_conv2d groups, conv2d batch_groups: f32, f16, bf16, i8 match the oracle's per-group form, one kernel (kernel IR)" {
  export TOSAC_EXEC=ir
  all_kinds 20
}

@test "a hand-checked groups = 2 case: group 0 sums input channels 1 and 2, group 1 channels 3 and 4" {
  local d="$BATS_TEST_TMPDIR/neg"
  mkdir -p "$d"
  cat > "$d/ext.mlir" <<'M'
func.func @main(%x: tensor<1x4x4x4xf32>, %w: tensor<4x1x1x2xf32>) -> tensor<1x4x4x4xf32> {
  %b = "tosa.const"() <{values = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, groups = 2 : i64, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x1x1x2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}
M
  # x = channel index + 1, w = 1: group 0's outputs are 1 + 2, group 1's 3 + 4
  /usr/bin/python3 -c 'import numpy as np; np.save("'$d'/x.npy", np.tile(np.arange(1, 5, dtype=np.float32), (1, 4, 4, 1))); np.save("'$d'/w.npy", np.ones((4, 1, 1, 2), np.float32))'
  run "$B/bin/tosac" "$d/ext.mlir" --offload-arch=gfx90a -o "$d/x.hipfb"
  assert_success
  run "$B/bin/tosac-run" "$d/x.hipfb" --target=gfx90a --input=@"$d/x.npy" --input=@"$d/w.npy" --output=@"$d/y.npy"
  assert_success
  run /usr/bin/python3 -c 'import numpy as np; print(np.load("'$d'/y.npy")[0, 0, 0].tolist())'
  assert_output "[3.0, 3.0, 7.0, 7.0]"
}

expect_error() {
  run "$B/bin/tosac" --syntax-only "$1"
  assert_failure 1
  assert_line --index 0 "$1:$2:$3: error: $4"
}

@test "bad group extensions: file:line:col errors, no output" {
  cat > g.mlir <<'M'
func.func @main(%x: tensor<2x8x8x12xf32>, %w: tensor<6x3x3x4xf32>, %b: tensor<6xf32>) -> tensor<2x6x6x6xf32> {
  %0 = "tosa.conv2d"(%x, %w, %b) {groups = 3 : i64, dilation = [1, 1], pad = [0, 0, 0, 0], stride = [1, 1]} : (tensor<2x8x8x12xf32>, tensor<6x3x3x4xf32>, tensor<6xf32>) -> tensor<2x6x6x6xf32>
  return %0 : tensor<2x6x6x6xf32>
}
M
  run "$B/bin/tosac" --syntax-only g.mlir
  assert_success
  sed 's/groups = 3 : i64/groups = 0 : i64/' g.mlir > e.mlir
  expect_error e.mlir 2 35 "'tosa.conv2d' groups must be at least 1, found 0"
  sed 's/groups = 3 : i64/groups = 4 : i64/' g.mlir > e.mlir
  expect_error e.mlir 2 35 "'tosa.conv2d' 6 output channels do not divide into 4 groups"
  sed 's/groups = 3 : i64/groups = 2 : i64/' g.mlir > e.mlir
  expect_error e.mlir 2 26 "'tosa.conv2d' weight has 4 input channels, the input 12 (groups: the weight's times the groups)"
  sed 's/groups = 3 : i64/groups = [3]/' g.mlir > e.mlir
  expect_error e.mlir 2 35 "'tosa.conv2d' groups must be an integer"
  sed 's/groups = 3 : i64/groups = 3 : i64, batch_groups = 2 : i64/' g.mlir > e.mlir
  expect_error e.mlir 2 53 "'tosa.conv2d' takes groups or batch_groups, not both"
  # batch_groups: the batch divides, the result has N/G images
  cat > b.mlir <<'M'
func.func @main(%x: tensor<6x8x8x4xf32>, %w: tensor<6x3x3x4xf32>, %b: tensor<6xf32>) -> tensor<2x6x6x6xf32> {
  %0 = "tosa.conv2d"(%x, %w, %b) {batch_groups = 3 : i64, dilation = [1, 1], pad = [0, 0, 0, 0], stride = [1, 1]} : (tensor<6x8x8x4xf32>, tensor<6x3x3x4xf32>, tensor<6xf32>) -> tensor<2x6x6x6xf32>
  return %0 : tensor<2x6x6x6xf32>
}
M
  run "$B/bin/tosac" --syntax-only b.mlir
  assert_success
  sed 's/6x8x8x4xf32/5x8x8x4xf32/g' b.mlir > e.mlir
  expect_error e.mlir 2 35 "'tosa.conv2d' batch 5 does not divide into 3 batch_groups"
  sed 's/tensor<2x6x6x6xf32>/tensor<6x6x6x6xf32>/g' b.mlir > e.mlir
  expect_error e.mlir 2 8 "'tosa.conv2d' result type tensor<6x6x6x6xf32> does not match the inferred type tensor<2x6x6x6xf32>"
  # transpose_conv2d: groups only; the weight [OC/G, KH, KW, IC]
  cat > t.mlir <<'M'
func.func @main(%x: tensor<1x4x4x6xf32>, %w: tensor<2x3x3x6xf32>, %b: tensor<6xf32>) -> tensor<1x6x6x6xf32> {
  %0 = "tosa.transpose_conv2d"(%x, %w, %b) {groups = 3 : i64, out_pad = [0, 0, 0, 0], stride = [1, 1]} : (tensor<1x4x4x6xf32>, tensor<2x3x3x6xf32>, tensor<6xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}
M
  run "$B/bin/tosac" --syntax-only t.mlir
  assert_success
  sed 's/groups = 3/groups = 4/' t.mlir > e.mlir
  expect_error e.mlir 2 45 "'tosa.transpose_conv2d' 6 input channels do not divide into 4 groups"
  sed 's/groups = 3/batch_groups = 3/' t.mlir > e.mlir
  expect_error e.mlir 2 45 "'tosa.transpose_conv2d' takes no batch_groups (tosac's extension of conv2d)"
  # other convolutions take neither
  cat > d.mlir <<'M'
func.func @main(%x: tensor<1x4x4x6xf32>, %w: tensor<3x3x6x1xf32>, %b: tensor<6xf32>) -> tensor<1x2x2x6xf32> {
  %0 = "tosa.depthwise_conv2d"(%x, %w, %b) {groups = 2 : i64, dilation = [1, 1], pad = [0, 0, 0, 0], stride = [1, 1]} : (tensor<1x4x4x6xf32>, tensor<3x3x6x1xf32>, tensor<6xf32>) -> tensor<1x2x2x6xf32>
  return %0 : tensor<1x2x2x6xf32>
}
M
  expect_error d.mlir 2 45 "'tosa.depthwise_conv2d' takes no groups (tosac's extension of conv2d and transpose_conv2d)"
  # no output file is touched on error
  echo keep > out.hipfb
  run "$B/bin/tosac" d.mlir --offload-arch=gfx90a -o out.hipfb
  assert_failure 1
  assert_equal "$(cat out.hipfb)" keep
}
