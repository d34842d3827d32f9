#!/usr/bin/env bats
# isa_gemm.bats: tosac's GEMM-family and atomic-reduction kernels run as machine code
# (tosac-run --exec=isa: MFMA, WMMA, v_dot2c/v_dot4c, buffer loads, LDS, global atomics;
# docs/emulator.md) and match the MLIR CPU oracle on an MFMA target pair (gfx90a, gfx942), the
# WMMA target (gfx1100) and the FMA target (gfx1030). Shapes are drawn from a fixed seed and
# printed, so a failure names its graph.

bats_load_library bats-support
bats_load_library bats-assert

TARGETS=gfx90a,gfx942,gfx1100,gfx1030

setup_file() {
  ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
  export ROOT
  export TOSAC_BUILD="${TOSAC_BUILD:-build}"
}

setup() {
  CHECK="$ROOT/tests/oracle/check.py"
  cd "$BATS_TEST_TMPDIR"
}

load lib/matmul

# every target's line of check.py must say its results match
oracle_isa() { # graph [check.py options]
  local graph=$1
  shift
  run /usr/bin/python3 "$CHECK" "$graph" --targets=$TARGETS --exec=isa "$@"
  assert_success
  local t
  for t in ${TARGETS//,/ }; do
    assert_line --regexp "^ok .* \[$t\]: [0-9]+ results match$"
  done
}

# shapes SEED COUNT LO HI: COUNT lines of three integers in [LO, HI] from a seeded generator
shapes() {
  /usr/bin/python3 -c "
import random, sys
r = random.Random(int(sys.argv[1]))
for _ in range(int(sys.argv[2])):
    print(*(r.randint(int(sys.argv[3]), int(sys.argv[4])) for _ in range(3)))" "$@"
}

@test "matmuls of seeded random shapes (f32, f16, bf16, i8) run as machine code and match the oracle" {
  local i=0
  while read -r m k n; do
    for ty in f32 f16 bf16 i8; do
      i=$((i + 1))
      echo "# matmul $ty 1x${m}x${k} by 1x${k}x${n}" >&3
      matmul mm$i $ty 1 $m $k $n
      oracle_isa mm$i.mlir --seed=$i
    done
  done < <(shapes 31 2 1 96)
}

@test "a batched matmul with a K loop of several tiles runs as machine code and matches the oracle" {
  # multiples of 1/8: every f32 sum is exact, so any tile order must give the oracle's value
  matmul bk f16 3 40 300 72
  eighths a.npy float16 1 3 40 300
  eighths b.npy float16 2 3 300 72
  oracle_isa bk.mlir --input=@a.npy --input=@b.npy
}

# conv NAME TYPE N H W C OC KH KW STRIDE PAD: a tosa.conv2d (zero zero points, bias)
conv() {
  local ty=$2 oh ow
  oh=$((($4 + 2 * ${11} - $8) / ${10} + 1))
  ow=$((($5 + 2 * ${11} - $9) / ${10} + 1))
  local x="tensor<$3x$4x$5x$6x$ty>" w="tensor<$7x$8x$9x$6x$ty>" b="tensor<$7x$ty>" r="tensor<$3x${oh}x${ow}x$7x$ty>"
  cat > "$1.mlir" <<EOF2
// oracle: arg 0 -2 2
// oracle: arg 1 -2 2
// oracle: arg 2 -2 2
func.func @main(%x: $x, %w: $w, %b: $b) -> $r {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1x$ty>}> : () -> tensor<1x$ty>
  %r = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: ${11}, ${11}, ${11}, ${11}>, stride = array<i64: ${10}, ${10}>} : ($x, $w, $b, tensor<1x$ty>, tensor<1x$ty>) -> $r
  return %r : $r
}
EOF2
}

@test "convolutions of seeded random shapes (f32 and f16, 1x1, 3x3 padded, strided) run as machine code and match the oracle" {
  local i=0
  while read -r hw c oc; do
    i=$((i + 1))
    echo "# conv 3x3 pad 1: ${hw}x${hw}x${c} -> $oc" >&3
    conv c3_$i f32 1 $hw $hw $c $oc 3 3 1 1
    oracle_isa c3_$i.mlir --seed=$i
    hw=$((hw | 1)) # stride 2 must divide H - 1
    echo "# conv 1x1 stride 2 f16: ${hw}x${hw}x${c} -> $oc" >&3
    conv c1_$i f16 1 $hw $hw $c $oc 1 1 2 0
    oracle_isa c1_$i.mlir --seed=$i
  done < <(shapes 7 2 3 20)
}

@test "atomic and split reductions (global atomics: f32 add, i32 max) run as machine code and match the oracle" {
  cat > red.mlir <<'EOF2'
func.func @main(%a: tensor<20000xf32>, %b: tensor<3x3000x2xi32>, %c: tensor<5001x3xf16>) -> (tensor<1xf32>, tensor<3x1x2xi32>, tensor<1x3xf16>) {
  %0 = tosa.reduce_sum %a {axis = 0 : i32} : (tensor<20000xf32>) -> tensor<1xf32>
  %1 = tosa.reduce_max %b {axis = 1 : i32} : (tensor<3x3000x2xi32>) -> tensor<3x1x2xi32>
  %2 = tosa.reduce_sum %c {axis = 0 : i32} : (tensor<5001x3xf16>) -> tensor<1x3xf16>
  return %0, %1, %2 : tensor<1xf32>, tensor<3x1x2xi32>, tensor<1x3xf16>
}
EOF2
  /usr/bin/python3 -c "
import numpy as np
r = np.random.default_rng(5)
np.save('m0.npy', (r.integers(-32, 33, 20000) / 8).astype(np.float32))
np.save('m1.npy', r.integers(-100000, 100000, (3, 3000, 2)).astype(np.int32))
np.save('m2.npy', (r.integers(-2, 3, (5001, 3)) / 4).astype(np.float16))"
  export TOSAC_REDUCTION_SPLIT_MIN=4096
  run "$ROOT/$TOSAC_BUILD/bin/tosac" --emit=partitions --offload-arch=gfx90a red.mlir
  assert_success
  assert_output --partial "tosac_k0_reduce_sum_atomic over tensor<1xf32>"
  assert_output --partial "tosac_k1_reduce_max_atomic over tensor<3x1x2xi32>"
  oracle_isa red.mlir --input=@m0.npy --input=@m1.npy --input=@m2.npy
}
