#!/usr/bin/env bats
# Operand views (docs/partitioning.md "Operand views"): a tosa.transpose or tosa.slice that only
# a convolution's input or weights read joins the convolution's kernel, which reads the bytes
# under it through strides. NCHW convolutions as torch-mlir writes them (input and weights
# transposed straight into tosa.conv2d), sliced inputs and the frontend's exact-geometry slice
# (tests/oracle/gen_nchw_conv.py, seeded shapes: 1x1/3x3/7x7 kernels, strides 1-2, padding)
# match the MLIR oracle on an MFMA (gfx90a), a WMMA (gfx1100) and the FMA target (gfx1030),
# with the layout pass on and off, whole and split over K.

setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  ROOT="$BATS_TEST_DIRNAME/../.."
  BIN="$ROOT/${TOSAC_BUILD:-build}/bin"
  TOSAC="$BIN/tosac"
  DATA=/work/shared/testdata
  CHECK=(/usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" --tosac-run "$BIN/tosac-run"
         --targets gfx90a,gfx1100,gfx1030)
  cd "$BATS_TEST_TMPDIR"
}

gen() { /usr/bin/python3 "$ROOT/tests/oracle/gen_nchw_conv.py" "$1" "$2" > "$1$2.mlir"; }

# kernel names and what they read, one line per kernel: "tosac_k0_conv2d: tosa.transpose
# tosa.transpose tosa.conv2d | b0 b1 b3"
plan() {
  "$TOSAC" "$@" --emit=partitions | /usr/bin/python3 -c '
import re, sys
cur = None
for line in sys.stdin:
    m = re.match(r"  kernel \d+ (\S+) over", line)
    if m: cur = [m.group(1) + ":"]
    m = re.match(r"    (tosa\.\S+) at", line)
    if m and cur: cur.append(m.group(1))
    m = re.match(r"    reads ([^;]*);", line)
    if m and cur: print(" ".join(cur), "|", m.group(1)); cur = None'
}

@test "NCHW convolutions: input, weights and result transposes are strided accesses of the convolution kernel" {
  for s in 1 2 3 4; do
    gen conv $s
    run mlir-opt-22 conv$s.mlir -o /dev/null
    assert_success
  done
  # conv1: a 3x3 kernel, stride 1: both transposes of the arguments (b0 input, b1 weights) and
  # the transpose of its result to NCHW (an output view) are in the convolution's kernel; the
  # ReLU on the NCHW value is a kernel after it
  run plan conv1.mlir --offload-arch=gfx90a
  assert_output "tosac_k0_conv2d: tosa.transpose tosa.transpose tosa.conv2d tosa.transpose | b0 b1 b3
tosac_k1_clamp: tosa.clamp | b4"
  run "$TOSAC" conv1.mlir --offload-arch=gfx90a,gfx1100,gfx1030 --emit=partitions
  assert_line "target gfx90a: 2 kernels, 2 launches, workspace 1024 bytes"
  assert_line "target gfx1030: 2 kernels, 2 launches, workspace 1024 bytes"
  run "${CHECK[@]}" conv1.mlir conv2.mlir conv3.mlir conv4.mlir
  assert_success
  assert_output --partial "PASSED: 4 graph(s)"
  run "${CHECK[@]}" --tosac-arg=-fno-propagate-layout conv1.mlir conv2.mlir conv3.mlir conv4.mlir
  assert_success
  assert_output --partial "PASSED: 4 graph(s)"
}

@test "sliced inputs and the exact-geometry slice of a strided 1x1 convolution are read in place" {
  for s in 1 2; do gen slice $s; done
  gen chain 1
  gen chain 2
  # slice1: a sliced NHWC argument (offsets in H, W, channels) and the trimmed even image
  run plan slice1.mlir --offload-arch=gfx90a
  assert_output "tosac_k0_conv2d_clamp: tosa.slice tosa.conv2d tosa.clamp | b0 b4 b5
tosac_k1_conv2d: tosa.slice tosa.conv2d | b1 b6 b7"
  # chain1: a transpose then a slice, one view of two ops
  run plan chain1.mlir --offload-arch=gfx1100
  assert_output "tosac_k0_conv2d_clamp: tosa.transpose tosa.slice tosa.conv2d tosa.clamp | b0 b2 b3"
  run "${CHECK[@]}" slice1.mlir slice2.mlir chain1.mlir chain2.mlir
  assert_success
  assert_output --partial "PASSED: 4 graph(s)"
  run "${CHECK[@]}" --tosac-arg=-fno-propagate-layout slice1.mlir chain1.mlir
  assert_success
  assert_output --partial "PASSED: 2 graph(s)"
}

@test "split over K: the partial kernel reads through the operand views, the combine stores through the output view" {
  gen conv 2
  gen chain 2
  gen slice 1
  TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=combine run plan chain2.mlir --offload-arch=gfx90a
  assert_output "tosac_k0_conv2d_clamp_splitk: tosa.transpose tosa.slice tosa.conv2d | b0 b2
tosac_k1_conv2d_clamp_combine: tosa.conv2d tosa.clamp | b4 b3"
  TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=combine run plan conv2.mlir --offload-arch=gfx90a
  assert_output "tosac_k0_conv2d_splitk: tosa.transpose tosa.transpose tosa.conv2d | b0 b1
tosac_k1_conv2d_combine: tosa.conv2d tosa.transpose | b5 b3
tosac_k2_clamp: tosa.clamp | b4"
  TOSAC_SPLIT_K=3 TOSAC_SPLIT_K_FORM=combine run "${CHECK[@]}" chain2.mlir slice1.mlir conv2.mlir
  assert_success
  assert_output --partial "PASSED: 3 graph(s)"
}

@test "a transpose another op also reads stays a kernel" {
  cat > shared.mlir <<'G'
func.func @main(%x: tensor<1x4x6x6xf32>, %w: tensor<8x3x3x4xf32>) -> (tensor<1x6x6x8xf32>, tensor<1x6x6x4xf32>) {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<8xf32>}> : () -> tensor<8xf32>
  %t = "tosa.transpose"(%x) <{perms = array<i32: 0, 2, 3, 1>}> : (tensor<1x4x6x6xf32>) -> tensor<1x6x6x4xf32>
  %c = "tosa.conv2d"(%t, %w, %b, %z, %z) <{acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}> : (tensor<1x6x6x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x8xf32>
  %m = "tosa.max_pool2d"(%t) <{kernel = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}> : (tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  return %c, %m : tensor<1x6x6x8xf32>, tensor<1x6x6x4xf32>
}
G
  run plan shared.mlir --offload-arch=gfx90a
  assert_output "tosac_k0_transpose: tosa.transpose | b0
tosac_k1_conv2d: tosa.conv2d | b4 b1 b5
tosac_k2_max_pool2d: tosa.max_pool2d | b4"
  run "${CHECK[@]}" shared.mlir
  assert_success
  assert_output --partial "PASSED: 1 graph(s)"
}

@test "padded 7x7 stride-3 f16 convolution of a sliced input: in-range taps of a row above the image read their data as machine code" {
  # The row origin above the image is negative; LLVM moved a constant part of the tap's buffer
  # offset into the instruction's offset field, which the hardware adds without wrapping, so
  # in-range taps read zeros (gemm_conv.c keeps the offset whole).
  cat > view7.mlir <<'G'
func.func @main(%v0: tensor<1x1x7x7x2xf16>, %v1: tensor<1x14x7x1x2xf16>) -> tensor<1x4x1x1x1xf16> {
  %s2 = tosa.const_shape {values = dense<[1, 14, 7, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v2 = tosa.reshape %v1, %s2 : (tensor<1x14x7x1x2xf16>, !tosa.shape<4>) -> tensor<1x14x7x2xf16>
  %s3 = tosa.const_shape {values = dense<[1, 7, 7, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v3 = tosa.reshape %v0, %s3 : (tensor<1x1x7x7x2xf16>, !tosa.shape<4>) -> tensor<1x7x7x2xf16>
  %s5 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s4 = tosa.const_shape {values = dense<[1, 14, 6, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v4 = tosa.slice %v2, %s5, %s4 : (tensor<1x14x7x2xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x14x6x2xf16>
  %v7 = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %v8 = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %v9 = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %v6 = tosa.conv2d %v4, %v3, %v7, %v8, %v9 {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 0>, stride = array<i64: 3, 3>} : (tensor<1x14x6x2xf16>, tensor<1x7x7x2xf16>, tensor<1xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x4x1x1xf16>
  %s10 = tosa.const_shape {values = dense<[1, 4, 1, 1, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %v10 = tosa.reshape %v6, %s10 : (tensor<1x4x1x1xf16>, !tosa.shape<5>) -> tensor<1x4x1x1x1xf16>
  return %v10 : tensor<1x4x1x1x1xf16>
}
G
  for seed in 0 1 2; do
    TOSAC_EXEC=isa TOSAC_HIPEMU_EXEC=isa run /usr/bin/python3 "$ROOT/tests/oracle/check.py" --tosac "$BIN/tosac" \
      --tosac-run "$BIN/tosac-run" --targets gfx90a,gfx942,gfx1100,gfx1030 --seed=$seed view7.mlir
    assert_success
    assert_output --partial "PASSED: 1 graph(s)"
  done
}
